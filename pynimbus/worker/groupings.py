# -*- test-case-name: tests.test_worker_groupings -*-
"""Which tasks a tuple goes to: Storm's groupers (pure).

Port of executor.clj ``mk-grouper`` and ``outbound-components`` (1.2.4), the routing half of
task.clj ``mk-tasks-fn``, and the grouping classes they use from ``org.apache.storm.grouping``
(``ShuffleGrouping``, ``LoadAwareShuffleGrouping``, ``PartialKeyGrouping``).  2.8.8 builds the
same groupers in ``GrouperFactory.mkGrouper``; its differences are noted where they matter.

A grouper is built once per (stream, target component) and called per tuple as
``grouper(task_id, values, load)``; it returns a tuple of task ids (the one-task tuples are
made once, so the hot path allocates nothing), or :data:`DIRECT` for a direct grouping.
``load`` is the worker's ``LoadMapping``: anything with ``get(task, default)`` giving a task's
load in [0, 1], or None when nothing is known (every task then counts as not connected, load
1.0, as in Storm).

Custom groupings are Java objects: a Python worker runs ``PartialKeyGrouping`` (what
``TopologyBuilder.partialKeyGrouping`` serializes; 1.2.4's and 2.8.8's, which pick differently),
read with javaobj-py3, and refuses any other with a :class:`GroupingError` naming its class.

Nothing here does I/O or reads a clock: randomness comes in as a ``random.Random`` and time as
a ``clock_ms`` function, so tests are deterministic.  Values are the JSON-ish values a
multilang component emits; their Java hash codes (:func:`java_hash`) are the ones Storm's JSON
reader gives them (``Long``, ``Double``, ``String``, ``List``, ``Map``), so a fields grouping
picks the task a Java worker would pick for the same values.
"""

import collections
import struct

from pynimbus.clojure_port.java_hash_map import (
    byte_array_hash, int32, java_hash, java_hash_map_order, string_hash)
from pynimbus.clojure_port.system_topology import all_components

TOPOLOGY_DISABLE_LOADAWARE_MESSAGING = "topology.disable.loadaware.messaging"

# What mk-grouper returns for a direct grouping (Storm's keyword ``:direct``).
DIRECT = "direct"

PARTIAL_KEY_GROUPING_CLASS = "org.apache.storm.grouping.PartialKeyGrouping"
# 2.x's PartialKeyGrouping(fields): its assignment creator and target selector classes.
PARTIAL_KEY_GROUPING_2X_DEFAULTS = (
    PARTIAL_KEY_GROUPING_CLASS + "$RandomTwoTaskAssignmentCreator",
    PARTIAL_KEY_GROUPING_CLASS + "$BalancedTargetSelector")

_MASK32 = 0xFFFFFFFF
_SIGN32 = 0x80000000
_MASK64 = 0xFFFFFFFFFFFFFFFF
_LONG_MIN, _LONG_MAX = -(1 << 63), (1 << 63) - 1
_NOT_CONNECTED_LOAD = 1.0  # LoadMapping.NOT_CONNECTED's load


class GroupingError(ValueError):
    """A grouping this worker cannot build or a tuple it cannot route (Storm throws a
    ``RuntimeException``/``IllegalArgumentException``); the worker reports it as a component
    error.  The message names the component, the stream and the grouping."""


JavaGrouping = collections.namedtuple("JavaGrouping", "class_name attributes")
JavaGrouping.__doc__ = """A custom grouping object as far as it could be read.

``class_name``: the Java class; ``attributes``: the serialized fields read from it (for a
``PartialKeyGrouping``, ``{"fields": [names] or None, "assignment_creator": class or None,
"target_selector": class or None}``, the two None in 1.x's), or None when only the class name was
read.
"""


# Thrift groupings (thrift.clj)


def grouping_type(thrift_grouping):
    """Port of thrift.clj ``grouping-type``: the set field of the ``Grouping`` union, as
    ``fields``, ``shuffle``, ``all``, ``none``, ``direct``, ``custom_object``,
    ``custom_serialized`` or ``local_or_shuffle``."""
    for name in ("fields", "shuffle", "all", "none", "direct", "custom_object",
                 "custom_serialized", "local_or_shuffle"):
        if getattr(thrift_grouping, name) is not None:
            return name
    raise GroupingError("the Grouping sets none of its fields")


def is_global_grouping(thrift_grouping):
    """Port of thrift.clj ``global-grouping?``: a fields grouping on no fields."""
    return grouping_type(thrift_grouping) == "fields" and not thrift_grouping.fields


def select(out_fields, group_fields, values):
    """Port of ``Fields.select``: the values of ``group_fields``, in that order.

    :raises GroupingError: a group field is not an output field (``Fields.fieldIndex``)."""
    return [values[i] for i in field_indices(out_fields, group_fields)]


def field_indices(out_fields, group_fields):
    """The positions of ``group_fields`` among ``out_fields`` (``Fields.fieldIndex`` each).

    :raises GroupingError: a group field is not an output field."""
    index = {name: i for i, name in enumerate(out_fields)}
    try:
        return tuple(index[name] for name in group_fields)
    except KeyError as e:
        raise GroupingError("field %s does not exist among the output fields %s"
                            % (e.args[0], list(out_fields)))


def list_hash_code(values):
    """Port of ``TupleUtils.listHashCode``: ``Arrays.deepHashCode`` of the values."""
    h = 1
    for value in values:
        h = 31 * h + java_hash(value)
    return int32(h & _MASK32)


# The groupers


class FieldsGrouper(object):
    """Port of executor.clj ``mk-fields-grouper`` (2.8.8 ``GrouperFactory.FieldsGrouper``):
    the task at ``listHashCode(selected values)`` floor-mod the number of tasks."""

    __slots__ = ("_indices", "_choices", "_num_tasks")

    def __init__(self, out_fields, group_fields, target_tasks):
        self._indices = field_indices(out_fields, group_fields)
        self._choices = tuple((task,) for task in target_tasks)
        self._num_tasks = len(self._choices)

    def __call__(self, task_id, values, load=None):
        h = 1
        for i in self._indices:
            value = values[i]
            if value.__class__ is str:
                h = 31 * h + string_hash(value)
            elif value.__class__ is int and _LONG_MIN <= value <= _LONG_MAX:
                # Long.hashCode unsigned: the sum is wrapped below, so the sign is immaterial
                value &= _MASK64
                h = 31 * h + ((value ^ (value >> 32)) & _MASK32)
            else:
                h = 31 * h + java_hash(value)
        # Clojure's mod, like Python's %, takes the divisor's sign; int32, inline
        return self._choices[(((h & _MASK32) ^ _SIGN32) - _SIGN32) % self._num_tasks]

    def num_tasks(self):
        return self._num_tasks

    def tasks(self):
        return [task for (task,) in self._choices]


class GlobalGrouper(object):
    """The global grouping of ``mk-grouper``: always the lowest target task (2.8.8
    ``GrouperFactory.GlobalGrouper``)."""

    __slots__ = ("_choice",)

    def __init__(self, target_tasks):
        self._choice = (target_tasks[0],)

    def __call__(self, task_id, values, load=None):
        return self._choice


class IdentityGrouper(object):
    """Trident's ``IdentityGrouping``: the i-th task of the source (sorted) to the i-th target
    task; both components have as many tasks (Trident plans them so).

    :raises GroupingError: the task counts differ (Storm's message)."""

    __slots__ = ("_precomputed",)

    def __init__(self, source_tasks, target_tasks):
        source_tasks = sorted(source_tasks)
        if len(source_tasks) != len(target_tasks):
            raise GroupingError("Can only do an identity grouping when source and target have "
                                "same number of tasks")
        self._precomputed = {s: (t,) for s, t in zip(source_tasks, sorted(target_tasks))}

    def __call__(self, task_id, values, load=None):
        return self._precomputed[task_id]


class IndexHashGrouper(object):
    """Trident's ``IndexHashGrouping(index)`` (``batchGlobal``): the target task at Java's hash
    of the value at ``index``, modulo the task count.  At index 0 of a Trident stream is the
    batch id, which arrives from another worker as its ``[txid, attempt]`` list: hashed as the
    ``TransactionAttempt`` it is."""

    __slots__ = ("_index", "_targets", "_object_to_index", "_as_attempt")

    def __init__(self, index, target_tasks):
        from pynimbus.trident.partition import object_to_index
        from pynimbus.trident.transaction_attempt import as_transaction_attempt

        self._index = index
        self._targets = tuple((t,) for t in target_tasks)
        self._object_to_index = object_to_index
        self._as_attempt = as_transaction_attempt

    def __call__(self, task_id, values, load=None):
        value = values[self._index]
        if self._index == 0 and isinstance(value, (list, tuple)):
            try:
                value = self._as_attempt(value)
            except ValueError:
                pass
        return self._targets[self._object_to_index(value, len(self._targets))]


def index_hash_index(serialized):
    """The ``_index`` of a serialized ``IndexHashGrouping`` as Trident's planner writes it (the
    int before its null ``_targets``), or None for other bytes."""
    data = bytes(serialized)
    if len(data) < 5 or data[-1:] != b"p":
        return None
    return int.from_bytes(data[-5:-1], "big", signed=True)


class AllGrouper(object):
    """The all grouping of ``mk-grouper``: every target task."""

    __slots__ = ("_tasks",)

    def __init__(self, target_tasks):
        self._tasks = tuple(target_tasks)

    def __call__(self, task_id, values, load=None):
        return self._tasks


class NoneGrouper(object):
    """The none grouping of ``mk-grouper``: a uniformly random target task per tuple."""

    __slots__ = ("_choices", "_random")

    def __init__(self, target_tasks, rng):
        self._choices = tuple((task,) for task in target_tasks)
        self._random = rng

    def __call__(self, task_id, values, load=None):
        # random() * n rather than randrange(n): several times faster, bias below 2**-50
        return self._choices[int(self._random.random() * len(self._choices))]


class ShuffleGrouping(object):
    """Port of ``org.apache.storm.grouping.ShuffleGrouping`` (1.2.4, same in 2.8.8): the
    targets shuffled once, then taken round-robin (the first call takes the second)."""

    __slots__ = ("_choices", "_current")

    def __init__(self, target_tasks, rng):
        choices = [(task,) for task in target_tasks]
        rng.shuffle(choices)
        self._choices = tuple(choices)
        self._current = 0

    def __call__(self, task_id, values, load=None):
        current = self._current + 1
        if current >= len(self._choices):
            current = 0
        self._current = current
        return self._choices[current]


class LoadAwareShuffleGrouping(object):
    """Port of ``org.apache.storm.grouping.LoadAwareShuffleGrouping`` (1.2.4): a random target
    weighted by ``int(101 - 100 * load)``, the weights refreshed from ``load`` at most once a
    second.  With no load known every task weighs 1: a uniform choice.

    2.8.8 rewrote it (a shuffled array of 1000 choices rebuilt on ``refreshLoad``, preferring
    tasks in the same worker or host); that is not ported.
    """

    __slots__ = ("_targets", "_rets", "_weights", "_total", "_last_update", "_random", "_clock_ms")

    def __init__(self, target_tasks, rng, clock_ms):
        self._targets = tuple(target_tasks)
        self._rets = tuple((task,) for task in target_tasks)
        self._weights = [0] * len(self._targets)
        self._total = 0
        self._last_update = None  # Storm's 0 is long past for any real clock: refresh first
        self._random = rng
        self._clock_ms = clock_ms

    def __call__(self, task_id, values, load=None):
        now = self._clock_ms()
        if self._last_update is None or self._last_update + 1000 < now:
            self._refresh(load)
            self._last_update = now
        selected = int(self._random.random() * self._total)  # as NoneGrouper
        weights = self._weights
        total = 0
        for i, rets in enumerate(self._rets):
            total += weights[i]
            if selected < total:
                return rets
        return self._rets[-1]

    def _refresh(self, load):
        """The weights of ``chooseTasks``' refresh: Java's ``(int)`` truncates toward 0."""
        weights = self._weights
        for i, task in enumerate(self._targets):
            task_load = _NOT_CONNECTED_LOAD if load is None else load.get(task, _NOT_CONNECTED_LOAD)
            weights[i] = int(101 - task_load * 100)
        self._total = sum(weights)


class PartialKeyGrouping(object):
    """Port of ``org.apache.storm.grouping.PartialKeyGrouping`` (1.2.4): a key's two candidate
    tasks come from the key bytes' murmur3 128-bit hashes (seeds 13 and 17, ``Math.abs`` of
    the first 64 bits, Java's remainder); of the two, the task this grouper sent fewer tuples
    to so far wins (the first on a tie).  The key bytes are the big-endian ints of the
    selected values' hash codes, or without ``fields`` the UTF-8 of the first value's
    ``toString`` (:func:`java_to_string`).  An empty tuple goes nowhere.

    2.8.8 picks the two candidates differently: :class:`PartialKeyGrouping2x`.
    """

    __slots__ = ("_targets", "_choices", "_sent", "_indices")

    def __init__(self, fields, out_fields, target_tasks):
        self._targets = tuple(target_tasks)
        self._choices = tuple((task,) for task in target_tasks)
        self._sent = [0] * len(self._targets)
        self._indices = None if fields is None else field_indices(out_fields, fields)

    def key_bytes(self, values):
        """The bytes ``chooseTasks`` hashes for ``values``."""
        if self._indices is None:
            return java_to_string(values[0]).encode("utf-8")
        hashes = [java_hash(values[i]) for i in self._indices]
        return struct.pack(">%di" % len(hashes), *hashes)

    def candidates(self, values):
        """The two indices into the target tasks that ``values``' key may go to."""
        raw = self.key_bytes(values)
        return (_java_abs_mod(murmur3_128_as_long(raw, 13), len(self._targets)),
                _java_abs_mod(murmur3_128_as_long(raw, 17), len(self._targets)))

    def __call__(self, task_id, values, load=None):
        if not values:
            return ()
        first, second = self.candidates(values)
        sent = self._sent
        selected = second if sent[first] > sent[second] else first
        sent[selected] += 1
        return self._choices[selected]


class PartialKeyGrouping2x(PartialKeyGrouping):
    """Port of 2.8.8's ``PartialKeyGrouping`` with its default helpers: the key bytes as in
    1.2.4, the two candidates from ``RandomTwoTaskAssignmentCreator`` (a ``java.util.Random``
    seeded with ``Arrays.hashCode`` of the key bytes draws two indices, the second moved on by
    one if it equals the first), the less used of them from ``BalancedTargetSelector`` (the
    first on a tie, as in 1.2.4)."""

    __slots__ = ()

    def candidates(self, values):
        """The two indices into the target tasks that ``values``' key may go to."""
        num_tasks = len(self._targets)
        random = JavaRandom(byte_array_hash(self.key_bytes(values)))
        first = random.next_int(num_tasks)
        second = random.next_int(num_tasks)
        return first, (second + 1) % num_tasks if second == first else second


class JavaRandom(object):
    """Port of ``java.util.Random``'s seeding and ``nextInt(bound)``: the 48-bit linear
    congruential generator, so a seed gives Java's numbers."""

    __slots__ = ("_seed",)

    _MULTIPLIER = 0x5DEECE66D
    _MASK48 = (1 << 48) - 1

    def __init__(self, seed):
        self._seed = (seed ^ self._MULTIPLIER) & self._MASK48

    def _next(self, bits):
        self._seed = (self._seed * self._MULTIPLIER + 0xB) & self._MASK48
        return int32(self._seed >> (48 - bits))

    def next_int(self, bound):
        """A number in [0, bound), as ``Random.nextInt(bound)`` draws it."""
        r = self._next(31)
        m = bound - 1
        if bound & m == 0:  # a power of two: the high bits
            return int32((bound * r) >> 31)
        u = r
        r = u % bound
        while int32(u - r + m) < 0:  # Java's int overflow: redraw for an unbiased result
            u = self._next(31)
            r = u % bound
        return r


def _java_abs_mod(value, size):
    """``(int) (Math.abs(value) % size)`` for a signed 64-bit ``value``.

    :raises GroupingError: ``value`` is ``Long.MIN_VALUE``, whose ``Math.abs`` stays negative
        (Java then fails with an index out of bounds)."""
    if value == -0x8000000000000000:
        raise GroupingError("partial key grouping: the key hashes to Long.MIN_VALUE")
    return abs(value) % size


# murmur3, as Guava's Hashing.murmur3_128(seed).hashBytes(bytes).asLong() computes it

_C1 = 0x87C37B91114253D5
_C2 = 0x4CF5AD432745937F


def _rotl64(x, r):
    return ((x << r) | (x >> (64 - r))) & _MASK64


def _fmix64(k):
    k ^= k >> 33
    k = (k * 0xFF51AFD7ED558CCD) & _MASK64
    k ^= k >> 33
    k = (k * 0xC4CEB9FE1A85EC53) & _MASK64
    return k ^ (k >> 33)


def _mix_k1(k1):
    return (_rotl64((k1 * _C1) & _MASK64, 31) * _C2) & _MASK64


def _mix_k2(k2):
    return (_rotl64((k2 * _C2) & _MASK64, 33) * _C1) & _MASK64


def murmur3_128_as_long(data, seed):
    """MurmurHash3 x64 128 of ``data`` with ``seed``: its first 64 bits as a signed long
    (Guava's ``Murmur3_128HashFunction`` then ``HashCode.asLong``)."""
    h1 = h2 = seed & _MASK64
    length = len(data)
    body = length - length % 16
    for offset in range(0, body, 16):
        k1, k2 = struct.unpack_from("<QQ", data, offset)
        h1 ^= _mix_k1(k1)
        h1 = (_rotl64(h1, 27) + h2) & _MASK64
        h1 = (h1 * 5 + 0x52DCE729) & _MASK64
        h2 ^= _mix_k2(k2)
        h2 = (_rotl64(h2, 31) + h1) & _MASK64
        h2 = (h2 * 5 + 0x38495AB5) & _MASK64
    tail = data[body:]
    if len(tail) > 8:
        h2 ^= _mix_k2(int.from_bytes(tail[8:], "little"))
    if tail:
        h1 ^= _mix_k1(int.from_bytes(tail[:8], "little"))
    h1 ^= length
    h2 ^= length
    h1 = (h1 + h2) & _MASK64
    h2 = (h2 + h1) & _MASK64
    h1 = _fmix64(h1)
    h2 = _fmix64(h2)
    h1 = (h1 + h2) & _MASK64
    return h1 - (1 << 64) if h1 >> 63 else h1


def java_to_string(value):
    """``toString`` of a JSON-ish value as Storm's JSON reader builds it (``String``,
    ``Long``, ``Boolean``, ``Double`` in its plain range, ``List``).

    :raises GroupingError: null (Java throws a NullPointerException), or a value whose Java
        text this port does not reproduce (a map, a double outside [1e-3, 1e7))."""
    if isinstance(value, str):
        return value
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float) and 1e-3 <= abs(value) < 1e7:
        return repr(value)
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(java_to_string(e) for e in value) + "]"
    raise GroupingError("partial key grouping without fields: no key from a first value %r"
                        % (value,))


# Custom groupings


def read_java_class_name(serialized):
    """The class a Java serialization stream starts with (``JavaGrouping`` with no
    attributes), or None when the bytes are not an object stream: the four bytes of the
    stream header, ``TC_OBJECT``, ``TC_CLASSDESC``, then the class name's length and UTF-8."""
    data = bytes(serialized or b"")
    if len(data) < 8 or data[:4] != b"\xac\xed\x00\x05" or data[4:6] != b"\x73\x72":
        return None
    length = int.from_bytes(data[6:8], "big")
    name = data[8:8 + length]
    if len(name) != length:
        return None
    return JavaGrouping(name.decode("utf-8", "replace"), None)


def read_java_grouping(serialized):
    """The class of a ``custom_serialized`` grouping and, for a ``PartialKeyGrouping``, its
    ``fields`` (the ``Fields``' names, or None) and the classes of 2.x's
    ``assignment_creator`` and ``target_selector`` (None in 1.x's), read with javaobj-py3 (a
    maintained reader of Java serialization; it builds values and runs no code).  Without
    javaobj, or for bytes it cannot read, only the class name (:func:`read_java_class_name`)."""
    header = read_java_class_name(serialized)
    if header is None or header.class_name != PARTIAL_KEY_GROUPING_CLASS:
        return header
    try:
        import javaobj.v2 as javaobj
    except ImportError:
        return header
    try:
        grouping_fields = serialized_fields(javaobj.loads(bytes(serialized)),
                                            PARTIAL_KEY_GROUPING_CLASS)
        fields = grouping_fields["fields"]
        names = None if fields is None else _field_names(fields)
        helpers = {attribute: _class_name_of(grouping_fields.get(java_field))
                   for attribute, java_field in (("assignment_creator", "assignmentCreator"),
                                                 ("target_selector", "targetSelector"))}
    except Exception:  # javaobj's errors have no common class: any is "unreadable"
        return header
    return JavaGrouping(header.class_name, dict(helpers, fields=names))


def _field_names(fields):
    """The names a serialized ``Fields`` holds (1.x calls its list ``_fields``, 2.x
    ``fields``)."""
    values = serialized_fields(fields, "org.apache.storm.tuple.Fields")
    names = values["_fields"] if "_fields" in values else values["fields"]
    return [str(name) for name in names]


def _class_name_of(instance):
    """The Java class of a javaobj instance, None for null (or a field 1.2.4 lacks)."""
    return None if instance is None else instance.get_class().name


def serialized_fields(instance, class_name):
    """``{field name: value}`` that a javaobj instance holds for ``class_name``.

    :raises KeyError: it holds none for that class."""
    for class_desc, values in instance.field_data.items():
        if class_desc.name == class_name:
            return {field.name: value for field, value in values.items()}
    raise KeyError(class_name)


def _custom_grouper(out_fields, thrift_grouping, target_tasks, read_java_grouping,
                    source_tasks=()):
    """The groupers a Python worker can run for a custom grouping: a ``PartialKeyGrouping``
    whose fields were read, 1.2.4's or 2.8.8's with its default helpers; Trident's
    ``IdentityGrouping``, ``GlobalGrouping`` and ``IndexHashGrouping``.

    :raises GroupingError: any other custom grouping, naming its class."""
    from pynimbus.trident import partition as trident

    kind = grouping_type(thrift_grouping)
    if kind == "custom_object":
        java = JavaGrouping(thrift_grouping.custom_object.full_class_name, None)
    else:
        java = read_java_grouping(thrift_grouping.custom_serialized)
        if java is not None and java.class_name == trident.IDENTITY_GROUPING_CLASS:
            return IdentityGrouper(source_tasks, target_tasks)
        if java is not None and java.class_name == trident.GLOBAL_GROUPING_CLASS:
            return GlobalGrouper(target_tasks)
        if java is not None and java.class_name == trident.INDEX_HASH_GROUPING_CLASS:
            index = index_hash_index(thrift_grouping.custom_serialized)
            if index is not None and 0 <= index:
                return IndexHashGrouper(index, target_tasks)
    if (java is not None and java.class_name == PARTIAL_KEY_GROUPING_CLASS
            and kind == "custom_serialized" and java.attributes is not None
            and "fields" in java.attributes):
        attributes = java.attributes
        helpers = (attributes.get("assignment_creator"), attributes.get("target_selector"))
        if helpers == (None, None):
            return PartialKeyGrouping(attributes["fields"], out_fields, target_tasks)
        if helpers == PARTIAL_KEY_GROUPING_2X_DEFAULTS:
            return PartialKeyGrouping2x(attributes["fields"], out_fields, target_tasks)
        raise GroupingError("the PartialKeyGrouping's %s / %s is a Java object, which a Python "
                            "worker cannot run" % helpers)
    class_name = java.class_name if java is not None else "an unreadable Java object"
    raise GroupingError("the custom grouping %s (%s) is a Java object, which a Python worker "
                        "cannot run" % (class_name, kind))


# mk-grouper and outbound-components

GrouperContext = collections.namedtuple(
    "GrouperContext",
    "this_worker_tasks topo_conf rng clock_ms read_java_grouping")
GrouperContext.__doc__ = """What ``mk-grouper`` reads from the ``WorkerTopologyContext``,
the topology conf and the executor.

``this_worker_tasks``: the task ids of this worker; ``topo_conf``: the topology's conf;
``rng``: a ``random.Random``; ``clock_ms``: a function giving the time in milliseconds (the
load-aware shuffle's refresh); ``read_java_grouping``: bytes of a ``custom_serialized``
grouping to a :data:`JavaGrouping` or None (:func:`read_java_grouping`).
"""


def mk_grouper_context(this_worker_tasks, topo_conf, rng, clock_ms,
                       read_java_grouping=read_java_grouping):
    """A :data:`GrouperContext`."""
    return GrouperContext(frozenset(this_worker_tasks), topo_conf, rng, clock_ms,
                          read_java_grouping)


def mk_shuffle_grouper(target_tasks, context):
    """Port of executor.clj ``mk-shuffle-grouper``: ``ShuffleGrouping`` when
    ``topology.disable.loadaware.messaging`` is true, else ``LoadAwareShuffleGrouping`` (the
    default: 1.2.4's defaults.yaml has it false)."""
    if context.topo_conf.get(TOPOLOGY_DISABLE_LOADAWARE_MESSAGING):
        return ShuffleGrouping(target_tasks, context.rng)
    return LoadAwareShuffleGrouping(target_tasks, context.rng, context.clock_ms)


def mk_grouper(context, component_id, stream_id, out_fields, thrift_grouping, target_tasks,
               source_tasks=()):
    """Port of executor.clj ``mk-grouper`` (1.2.4; 2.8.8 ``GrouperFactory.mkGrouper``): the
    grouper of ``component_id``'s ``stream_id`` towards one target component, whose tasks are
    ``target_tasks`` (sorted here); :data:`DIRECT` for a direct grouping.

    local-or-shuffle shuffles among the targets in this worker when there are any.

    :raises GroupingError: a custom grouping other than a readable ``PartialKeyGrouping``
        (the message names its class), a fields grouping on a field the stream lacks, or a
        ``Grouping`` with no field set; the message starts with the component and stream.
    """
    try:
        return _mk_grouper(context, out_fields, thrift_grouping, sorted(target_tasks),
                           source_tasks)
    except GroupingError as e:
        raise GroupingError("component %s, stream %s: %s" % (component_id, stream_id, e))


def _mk_grouper(context, out_fields, thrift_grouping, target_tasks, source_tasks=()):
    """:func:`mk_grouper` over sorted ``target_tasks``."""
    kind = grouping_type(thrift_grouping)
    if kind == "fields":
        if is_global_grouping(thrift_grouping):
            return GlobalGrouper(target_tasks)
        return FieldsGrouper(out_fields, thrift_grouping.fields, target_tasks)
    if kind == "all":
        return AllGrouper(target_tasks)
    if kind == "shuffle":
        return mk_shuffle_grouper(target_tasks, context)
    if kind == "local_or_shuffle":
        same_tasks = sorted(context.this_worker_tasks.intersection(target_tasks))
        return mk_shuffle_grouper(same_tasks or target_tasks, context)
    if kind == "none":
        return NoneGrouper(target_tasks, context.rng)
    if kind == "direct":
        return DIRECT
    return _custom_grouper(out_fields, thrift_grouping, target_tasks,
                           context.read_java_grouping, source_tasks)


def component_to_sorted_tasks(task_to_component):
    """Port of worker.clj's ``component->sorted-tasks``: ``{component: [task ids, sorted]}``
    from ``storm_task_info``'s ``{task: component}``."""
    ret = {}
    for task in sorted(task_to_component):
        ret.setdefault(task_to_component[task], []).append(task)
    return ret


def get_targets(topology, component_id):
    """Port of ``GeneralTopologyContext.getTargets``: ``{stream: {component: Grouping}}`` of
    every bolt subscribing to a stream of ``component_id``."""
    ret = {}
    for other_id, component in all_components(topology).items():
        for global_stream_id, grouping in (component.common.inputs or {}).items():
            if global_stream_id.componentId == component_id:
                ret.setdefault(global_stream_id.streamId, {})[other_id] = grouping
    return ret


def component_output_fields(topology, component_id, stream_id):
    """Port of ``GeneralTopologyContext.getComponentOutputFields``: the declared fields.

    :raises GroupingError: ``component_id`` declares no ``stream_id``."""
    streams = all_components(topology)[component_id].common.streams or {}
    if stream_id not in streams:
        raise GroupingError("no output fields defined for component:stream %s:%s"
                            % (component_id, stream_id))
    return list(streams[stream_id].output_fields)


def outbound_groupings(context, this_component_id, stream_id, out_fields,
                       component_to_grouping, component_to_tasks):
    """Port of executor.clj ``outbound-groupings``: ``{target component: grouper}`` for the
    targets that have tasks, in the order of Java's ``HashMap`` of their ids."""
    ret = {}
    for component in java_hash_map_order(component_to_grouping, string_hash, put_all=True):
        tasks = component_to_tasks.get(component)
        if tasks:
            ret[component] = mk_grouper(context, this_component_id, stream_id, out_fields,
                                        component_to_grouping[component], tasks,
                                        component_to_tasks.get(this_component_id, ()))
    return ret


def outbound_components(context, topology, component_id, component_to_tasks):
    """Port of executor.clj ``outbound-components``: ``{stream: {target component:
    grouper}}`` for every stream of ``component_id`` some bolt of ``topology`` (the system
    topology) subscribes to.  ``component_to_tasks`` is
    :func:`component_to_sorted_tasks` of ``storm_task_info``.

    :raises GroupingError: as :func:`mk_grouper`, or a subscription to an undeclared stream.
    """
    ret = {}
    for stream_id, component_to_grouping in get_targets(topology, component_id).items():
        ret[stream_id] = outbound_groupings(
            context, component_id, stream_id,
            component_output_fields(topology, component_id, stream_id),
            component_to_grouping, component_to_tasks)
    return ret


# Routing an emit (task.clj mk-tasks-fn, without its hooks and stats)


def out_tasks(stream_to_component_to_grouper, task_id, stream, values, load=None):
    """The tasks of a regular emit: every target's grouper, in the targets' order (the
    two-argument ``mk-tasks-fn``), as a list; :func:`stream_tasks_fn` once.

    :raises GroupingError: a target subscribes to the stream with a direct grouping."""
    tasks_fn = stream_tasks_fn(stream_to_component_to_grouper.get(stream, {}))
    return list(tasks_fn(task_id, values, load))


def stream_tasks_fn(component_to_grouper):
    """The out tasks of a regular emit on one stream, made once: ``fn(task_id, values)``
    giving a sequence.  One target: its grouper itself; a target subscribing with a direct
    grouping: a function raising :class:`GroupingError`."""
    groupers = tuple(component_to_grouper.values())
    if any(grouper is DIRECT for grouper in groupers):
        return _regular_emit_to_direct_stream
    if len(groupers) == 1:
        return groupers[0]
    return _all_targets(groupers)


def stream_tasks_fns(stream_to_component_to_grouper):
    """:func:`stream_tasks_fn` of every stream: ``{stream: fn(task_id, values)}``, so an emit
    looks up one function instead of walking its stream's groupers.  A stream not in the map
    has no targets (the caller's default)."""
    return {stream: stream_tasks_fn(component_to_grouper)
            for stream, component_to_grouper in stream_to_component_to_grouper.items()}


def only_target_task(component_to_grouper):
    """The one task every emit on a stream goes to when its only subscriber has one task
    under a fields grouping (the acker's streams in a topology with one acker), else None.
    For such a stream the grouping's hash chooses nothing."""
    if not component_to_grouper or len(component_to_grouper) != 1:
        return None
    (grouper,) = component_to_grouper.values()
    if isinstance(grouper, FieldsGrouper) and grouper.num_tasks() == 1:
        return grouper.tasks()[0]
    return None


def _regular_emit_to_direct_stream(task_id, values, load=None):
    raise GroupingError("Cannot do regular emit to direct stream")


def _all_targets(groupers):
    def tasks_fn(task_id, values, load=None):
        ret = []
        for grouper in groupers:
            ret.extend(grouper(task_id, values, load))
        return ret
    return tasks_fn


def out_tasks_direct(stream_to_component_to_grouper, task_to_component, out_task_id, stream):
    """The tasks of ``emitDirect`` to ``out_task_id`` (the three-argument ``mk-tasks-fn``):
    ``[out_task_id]`` when its component subscribes to the stream with a direct grouping,
    ``[]`` when it does not subscribe (or is no task of the topology), as Storm drops it.

    :raises GroupingError: its component subscribes with another grouping."""
    grouping = stream_to_component_to_grouper.get(stream, {}).get(
        task_to_component.get(out_task_id))
    if grouping is None:
        return []
    if grouping is not DIRECT:
        raise GroupingError("Cannot emitDirect to a task expecting a regular grouping")
    return [out_task_id]
