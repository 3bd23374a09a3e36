# -*- test-case-name: tests.test_port_java_order -*-
"""Iteration order of the JVM collections that decide slot order in Storm 1.2.4 (and 2.8.8).

Storm 1.2.4's scheduler walks Java ``HashMap``/``HashSet`` and Clojure 1.7 persistent maps, so
which slot a topology gets depends on hash codes.  This module computes those orders from first
principles so pynimbus in 1.x mode picks the slots a JVM Nimbus would pick.

Primitives (Java 8 and later, whose ``HashMap`` is unchanged through Java 17):

- :func:`string_hash` (``String.hashCode``: UTF-16 code units, 32-bit signed wrap),
  :func:`integer_hash`, :func:`long_hash`, :func:`list_hash` (``List.hashCode``),
  :func:`spread` (``HashMap.hash``: ``h ^ (h >>> 16)``), :func:`table_size_for`.
- :func:`java_hash_map_order`: a ``HashMap`` (or the ``HashSet`` over one) built by ``put``-ting
  keys in a given order.  Capacity starts at the constructor's (16 by default), doubles when
  size exceeds 0.75 x capacity, is pre-sized by ``putAll``/``new HashMap(map)``, and also doubles
  when a bucket reaches 9 entries while the table is below 64 (``treeifyBin``).  Iteration is
  bucket by bucket in index order, within a bucket in insertion order (Java 8's resize split keeps
  relative order).  **Limit:** a bucket that is *treeified* (9 or more keys in one bucket of a
  table of 64 or more) iterates in red-black-tree link order, which is not reproduced: such a
  bucket is listed in insertion order and :func:`java_hash_map_layout` reports ``exact=False``.
  Java 7 (different ``hash`` and resize order) is not reproduced.
- Clojure 1.7: :func:`murmur3_hash_int`, :func:`murmur3_hash_long`,
  :func:`murmur3_mix_coll_hash`, ``hasheq`` of strings (Murmur3 of ``String.hashCode``), longs
  and integers (Murmur3 of the long), vectors/seqs (``hashOrdered``), other Java objects
  (``hashCode``); :func:`clojure_map_order`: an array map keeps insertion order up to 8 entries
  when built through a transient (``into``, ``group-by``) or 9 through persistent ``assoc``
  (``reduce``-based ``reverse-map``); beyond that a ``PersistentHashMap`` iterates its hash trie,
  ordered by the hash's 5-bit chunks from the lowest bits up, full-hash collisions in insertion
  order.  ``PersistentHashSet`` always uses the trie (:func:`clojure_set_order`).

Where Storm 1.2.4's order is reproduced (the ``*_1x`` functions below, used by the scheduler):

1. Supervisor iteration in ``Cluster.getAvailableSlots``: ``supervisors`` is
   ``new HashMap(n)`` + ``putAll`` of the Clojure map built by ``read-all-supervisor-details``
   (itself ``into {}`` over ``all-supervisor-info``, ``into {}`` over the ZooKeeper children of
   ``/supervisors``) -> :func:`supervisor_order_1x`.
2. Port iteration of each supervisor: the Clojure set built by ``merge-with set/union`` in
   ``read-all-supervisor-details`` (minus dead ports), copied into
   ``SupervisorDetails.allPorts`` (``new HashSet()``) and again into ``getAvailablePorts``'
   ``new HashSet()`` -> :func:`port_order_1x`.  (Ports 6700-6703 come out ascending, 6700-6711
   come out 6704..6711, 6700..6703.)
3. ``group-by first`` in ``sort-slots``: node groups in first-appearance order up to 8 nodes,
   trie order beyond -> :func:`node_group_order_1x`.
4. Topology order of ``Topologies.getTopologies`` (which topology is scheduled first):
   ``new HashMap(n)`` + ``putAll`` of ``into {}`` over the ``/storms`` children ->
   :func:`topology_order` (1.x); 2.8.8's ``new HashMap(map)`` over a ``HashMap`` -> same
   function, ``"2.x"``.
5. The slot order of ``get-alive-assigned-node+port->executors`` that ``bad-slots`` walks (which
   of several equally sized slots is kept): the chain Thrift ``HashMap(2n)`` of the stored
   Assignment -> ``clojurify-assignment`` (``into {}`` twice) -> ``into {}`` of
   ``ExecutorDetails`` -> ``SchedulerAssignmentImpl``'s ``HashMap(0)`` + ``putAll`` -> ``into {}``
   of ``[start end]`` -> ``reverse-map`` (persistent ``assoc``) ->
   :func:`alive_assigned_slot_order` (1.x); 2.8.8's chain of ``HashMap``s, through the
   ``Cluster`` constructor re-assigning every slot (:func:`scheduler_slots_2x`), down to
   ``Utils.reverseMap`` keyed by ``WorkerSlot`` (``nodeId.hashCode() + 13 * port``) -> same
   function, ``"2.x"``.

Orders that decide nothing, so are not modelled: collections only counted or looked up (the
``WorkerSlot`` set ``allSlotsAvailableForScheduling`` returns, ``getUsedPorts``,
``getSlots``, the executor lists of a slot), the order executors are dealt (``sort``-ed), the
order slots are assigned within a round, and in 2.x the order of available slots (``sortSlots``
sorts them).

Where it is not reproduced: every chain starts from an order pynimbus cannot see, taken as
given: the ZooKeeper children order of ``/supervisors`` and ``/storms`` (the ZooKeeper server's
own ``HashSet`` order; pynimbus uses the order its backend returns) and the wire order of the
stored Assignment's ``executor_node_port`` map (the order the deserialized dict keeps).  These
only decide ties: keys in the same Java bucket, maps small enough to stay array maps.  2.8.8
may also hold the Assignment it wrote itself in memory (its assignments backend), whose first
map is then its own ``HashMap`` rather than the Thrift one.  The map order of the Assignment
Nimbus *writes* is left to the serializer (the dict order of the Assignment returned), not
reproduced here.  Java 8-17 ``HashMap`` and Clojure 1.7 are assumed (Storm 1.2.4's runtime).

During development these orders were checked end to end against Storm 1.2.4's own
``mk-assignments`` (its jars driven over scripted clusters); the tests keep some of its results.
"""

import collections
import functools

_MASK32 = 0xFFFFFFFF
_MASK64 = 0xFFFFFFFFFFFFFFFF

DEFAULT_INITIAL_CAPACITY = 16
MAXIMUM_CAPACITY = 1 << 30
TREEIFY_THRESHOLD = 8
MIN_TREEIFY_CAPACITY = 64
_INT_MAX = 0x7FFFFFFF

# Clojure 1.7 PersistentArrayMap: a transient holds 8 entries (16 array slots), persistent
# ``assoc`` grows to 9 before converting (it converts when the array is already longer than 16).
ARRAY_MAP_MAX_TRANSIENT = 8
ARRAY_MAP_MAX_PERSISTENT = 9


def _int32(value):
    """``value`` wrapped to a signed 32-bit Java int."""
    value &= _MASK32
    return value - 0x100000000 if value & 0x80000000 else value


# Java hash codes


@functools.lru_cache(maxsize=1 << 16)
def string_hash(s):
    """Port of ``java.lang.String.hashCode``: over UTF-16 code units, 32-bit signed wrap."""
    h = 0
    if s.isascii() or all(ord(c) < 0x10000 for c in s):
        for c in s:
            h = (31 * h + ord(c)) & _MASK32
    else:
        data = s.encode("utf-16-be")
        for i in range(0, len(data), 2):
            h = (31 * h + (data[i] << 8 | data[i + 1])) & _MASK32
    return _int32(h)


def integer_hash(value):
    """Port of ``java.lang.Integer.hashCode``: the int value itself."""
    return _int32(value)


def long_hash(value):
    """Port of ``java.lang.Long.hashCode``: ``(int) (value ^ (value >>> 32))``."""
    value &= _MASK64
    return _int32(value ^ (value >> 32))


def list_hash(element_hashes):
    """Port of ``java.util.List.hashCode`` given the elements' hash codes."""
    h = 1
    for e in element_hashes:
        h = (31 * h + e) & _MASK32
    return _int32(h)


def spread(h):
    """Port of ``HashMap.hash`` (Java 8): ``h ^ (h >>> 16)``, as an unsigned 32-bit value."""
    h &= _MASK32
    return h ^ (h >> 16)


def table_size_for(cap):
    """Port of ``HashMap.tableSizeFor``: the power of two >= ``cap`` (1 for ``cap`` <= 1)."""
    if cap <= 1:
        return 1
    return min(1 << (cap - 1).bit_length(), MAXIMUM_CAPACITY)


# Java 8 HashMap


JavaHashMapLayout = collections.namedtuple("JavaHashMapLayout", "order capacity exact")
JavaHashMapLayout.__doc__ = """Outcome of :func:`java_hash_map_layout`.

``order``: the distinct keys in iteration order; ``capacity``: the final table length;
``exact``: False when some bucket was treeified (its inner order is then approximated by
insertion order).
"""


def _presized_threshold(size):
    """``putMapEntries`` on an empty table: ``tableSizeFor((int) (size / 0.75f + 1.0f))``."""
    return table_size_for(4 * size // 3 + 1)


def java_hash_map_layout(keys, key_hash, initial_capacity=None, put_all=False, removed=(),
                         then_put=()):
    """Port of the layout ``java.util.HashMap`` (Java 8) reaches by putting ``keys`` in order.

    :param keys: keys in insertion order; repeats keep their first position (a ``put`` on an
        existing key replaces the value in place).
    :param key_hash: function of a key to its Java ``hashCode`` (an int).
    :param initial_capacity: the ``HashMap(int)`` constructor argument, or None for
        ``HashMap()`` (first table of 16).
    :param put_all: True when the keys arrive through ``putAll``/``new HashMap(Map)`` on the
        empty map, which first sizes the table for all of them; an int N when only the first N
        keys come that way and the rest through ``put``.
    :param removed: keys then removed (the table never shrinks; the others keep their places).
    :param then_put: keys put after that (a removed key put again goes to its bucket's end).
    :returns: a :class:`JavaHashMapLayout`.
    """
    keys = list(keys)
    threshold = 0 if initial_capacity is None else table_size_for(initial_capacity)
    distinct_count = len(dict.fromkeys(keys))
    presized = distinct_count if put_all is True else min(int(put_all or 0), distinct_count)
    if presized:
        wanted = _presized_threshold(presized)
        if wanted > threshold:
            threshold = wanted
    entries = {}  # key -> [sequence number, spread hash]
    state = {"cap": 0, "threshold": threshold, "seq": 0, "exact": True}
    counts = {}
    treeified = set()

    def resize():
        old_cap, old_thr = state["cap"], state["threshold"]
        new_thr = 0
        if old_cap > 0:
            if old_cap >= MAXIMUM_CAPACITY:
                state["threshold"] = _INT_MAX
                return
            new_cap = old_cap << 1
            if new_cap < MAXIMUM_CAPACITY and old_cap >= DEFAULT_INITIAL_CAPACITY:
                new_thr = old_thr << 1
        elif old_thr > 0:
            new_cap = old_thr
        else:
            new_cap = DEFAULT_INITIAL_CAPACITY
            new_thr = int(DEFAULT_INITIAL_CAPACITY * 0.75)
        if new_thr == 0:
            ft = new_cap * 0.75
            new_thr = int(ft) if new_cap < MAXIMUM_CAPACITY and ft < MAXIMUM_CAPACITY else _INT_MAX
        state["cap"], state["threshold"] = new_cap, new_thr
        counts.clear()
        mask = new_cap - 1
        for _, h in entries.values():
            b = h & mask
            counts[b] = counts.get(b, 0) + 1
        # A treeified bin splits into bins that stay trees only while they keep more than 6
        # entries; either way their order is already marked approximate.
        still = {nb for b in treeified for nb in (b, b + old_cap) if counts.get(nb, 0) > 6}
        treeified.clear()
        treeified.update(still)

    def put(key):
        if key in entries:
            return
        if state["cap"] == 0:
            resize()
        h = spread(key_hash(key))
        entries[key] = [state["seq"], h]
        state["seq"] += 1
        b = h & (state["cap"] - 1)
        before = counts.get(b, 0)
        counts[b] = before + 1
        if b not in treeified and before >= TREEIFY_THRESHOLD:
            if state["cap"] < MIN_TREEIFY_CAPACITY:
                resize()
            else:
                treeified.add(b)
                state["exact"] = False
        if len(entries) > state["threshold"]:
            resize()

    for key in keys:
        put(key)
    for key in removed:
        entry = entries.pop(key, None)
        if entry is not None:
            counts[entry[1] & (state["cap"] - 1)] -= 1
    for key in then_put:
        put(key)
    cap = state["cap"]
    if cap == 0:
        return JavaHashMapLayout([], 0, True)
    mask = cap - 1
    order = sorted(entries, key=lambda k: (entries[k][1] & mask, entries[k][0]))
    return JavaHashMapLayout(order, cap, state["exact"])


def java_hash_map_order(keys_in_insertion_order, key_hash, initial_capacity=None, put_all=False,
                        removed=(), then_put=()):
    """Iteration order of a Java 8 ``HashMap``/``HashSet`` filled with the keys in that order.

    See :func:`java_hash_map_layout` for the parameters and the limits.
    """
    return java_hash_map_layout(keys_in_insertion_order, key_hash, initial_capacity, put_all,
                                removed, then_put).order


def hash_set_copy_capacity(size):
    """``new HashSet<>(collection)`` of ``size`` elements: its ``HashMap`` constructor argument."""
    return max(int(size / 0.75) + 1, DEFAULT_INITIAL_CAPACITY)


# Clojure 1.7 hashing and persistent map order

_C1 = 0xcc9e2d51
_C2 = 0x1b873593


def _rotl(x, r):
    return ((x << r) | (x >> (32 - r))) & _MASK32


def _mix_k1(k1):
    k1 = (k1 * _C1) & _MASK32
    k1 = _rotl(k1, 15)
    return (k1 * _C2) & _MASK32


def _mix_h1(h1, k1):
    h1 ^= k1
    h1 = _rotl(h1, 13)
    return (h1 * 5 + 0xe6546b64) & _MASK32


def _fmix(h1, length):
    h1 ^= length & _MASK32
    h1 ^= h1 >> 16
    h1 = (h1 * 0x85ebca6b) & _MASK32
    h1 ^= h1 >> 13
    h1 = (h1 * 0xc2b2ae35) & _MASK32
    h1 ^= h1 >> 16
    return _int32(h1)


def murmur3_hash_int(value):
    """Port of ``clojure.lang.Murmur3.hashInt`` (seed 0; 0 hashes to 0)."""
    if value == 0:
        return 0
    return _fmix(_mix_h1(0, _mix_k1(value & _MASK32)), 4)


def murmur3_hash_long(value):
    """Port of ``clojure.lang.Murmur3.hashLong``: low word, then high word, length 8."""
    if value == 0:
        return 0
    value &= _MASK64
    h1 = _mix_h1(0, _mix_k1(value & _MASK32))
    h1 = _mix_h1(h1, _mix_k1(value >> 32))
    return _fmix(h1, 8)


def murmur3_mix_coll_hash(hash_value, count):
    """Port of ``clojure.lang.Murmur3.mixCollHash``."""
    return _fmix(_mix_h1(0, _mix_k1(hash_value & _MASK32)), count)


@functools.lru_cache(maxsize=1 << 16)
def clojure_hasheq_string(s):
    """Clojure 1.7 ``hasheq`` of a String: Murmur3 ``hashInt`` of ``String.hashCode``."""
    return murmur3_hash_int(string_hash(s))


def clojure_hasheq_long(value):
    """Clojure 1.7 ``hasheq`` of a Long, Integer, Short or Byte: Murmur3 ``hashLong``."""
    return murmur3_hash_long(value)


def clojure_hash_ordered(element_hasheqs):
    """Port of ``Murmur3.hashOrdered`` (vectors, seqs) given the elements' ``hasheq``."""
    h = 1
    n = 0
    for e in element_hasheqs:
        h = (31 * h + e) & _MASK32
        n += 1
    return murmur3_mix_coll_hash(h, n)


def clojure_hasheq_vector(items):
    """Clojure ``hasheq`` of a vector of strings and integers (as ``[node port]``)."""
    return clojure_hash_ordered(
        clojure_hasheq_string(x) if isinstance(x, str) else clojure_hasheq_long(x)
        for x in items)


def _trie_key(hasheq):
    """Sort key of a hash in a Clojure hash trie: 5-bit chunks from the lowest bits first."""
    u = hasheq & _MASK32
    key = 0
    for shift in range(0, 32, 5):
        key = (key << 5) | ((u >> shift) & 0x1F)
    return key


def java_hash(key):
    """Java ``hashCode`` of a JSON-ish key: String, Boolean, Long (int), null."""
    if key is None:
        return 0
    if isinstance(key, str):
        return string_hash(key)
    if isinstance(key, bool):
        return 1231 if key else 1237
    if isinstance(key, int):
        return long_hash(key)
    return hash(key)


def clojure_hasheq(key):
    """Clojure ``hasheq`` of a String or an integer (a Long)."""
    if isinstance(key, str):
        return clojure_hasheq_string(key)
    if isinstance(key, int) and not isinstance(key, bool):
        return clojure_hasheq_long(key)
    return hash(key) & _MASK32


class JavaHashMap(object):
    """The iteration order of a ``java.util.HashMap`` (JDK 8 to 17), for a given history.

    Entries iterate by bucket (``(h ^ h >>> 16) & (capacity - 1)``), and within a bucket in
    insertion order (resizes keep the relative order).  Capacity follows Java: 16 on the first
    put of a default map, ``tableSizeFor(n)`` for ``new HashMap<>(n)``, ``tableSizeFor(s / 0.75
    + 1)`` for ``new HashMap<>(map)`` and a first ``putAll``, doubling past 3/4 full.
    """

    def __init__(self, initial_capacity=None, items=None):
        self._cap = 0
        self._threshold = 0 if initial_capacity is None else table_size_for(initial_capacity)
        self._entries = {}
        self._seq = 0
        if items is not None:
            self.put_all(items)

    def _resize(self):
        if self._cap > 0:
            self._cap *= 2
        elif self._threshold > 0:
            self._cap = self._threshold
        else:
            self._cap = 16
        self._threshold = int(self._cap * 0.75)

    def put(self, key, value):
        """``Map.put``: a known key keeps its place; a new one goes last in its bucket."""
        entry = self._entries.get(key)
        if entry is not None:
            entry[1] = value
            return
        if self._cap == 0:
            self._resize()
        self._seq += 1
        self._entries[key] = [self._seq, value]
        if len(self._entries) > self._threshold:
            self._resize()

    def put_all(self, items):
        """``Map.putAll`` of ``items`` (a mapping or (key, value) pairs), sizing as Java does."""
        items = list(items.items()) if hasattr(items, "items") else list(items)
        s = len(items)
        if s > 0:
            if self._cap == 0:
                t = table_size_for(int(s / 0.75 + 1.0))
                if t > self._threshold:
                    self._threshold = t
            elif s > self._threshold:
                self._resize()
        for key, value in items:
            self.put(key, value)

    def remove(self, key):
        self._entries.pop(key, None)

    def __contains__(self, key):
        return key in self._entries

    def __len__(self):
        return len(self._entries)

    def get(self, key, default=None):
        entry = self._entries.get(key)
        return default if entry is None else entry[1]

    def keys(self):
        """Keys in Java iteration order."""
        mask = max(self._cap, 1) - 1

        def order(item):
            h = java_hash(item[0]) & _MASK32
            return ((h ^ (h >> 16)) & mask, item[1][0])
        return [k for k, _ in sorted(self._entries.items(), key=order)]

    def items(self):
        return [(k, self._entries[k][1]) for k in self.keys()]

    def to_dict(self):
        """A dict whose insertion order is this map's iteration order."""
        return dict(self.items())


def java_hashmap_order(keys, initial_capacity=None):
    """The iteration order of a HashMap (or HashSet) of JSON-ish keys added one by one."""
    return java_hash_map_order(keys, java_hash, initial_capacity)


def thrift_map_order(mapping):
    """Key order of a Thrift map as Storm's Java code sees it after decoding it.

    The generated Java reader fills ``new HashMap<>(2 * size)`` in wire order; Python's decoder
    keeps wire order in its dict, so this is exact for a struct pynimbus received.
    """
    mapping = mapping or {}
    return java_hashmap_order(list(mapping), initial_capacity=2 * len(mapping))


def clojure_map_order(keys_in_insertion_order, hasheq=clojure_hasheq,
                      array_map_max=ARRAY_MAP_MAX_TRANSIENT):
    """Iteration order of a Clojure 1.7 map built by adding keys in that order.

    :param hasheq: function of a key to its Clojure ``hasheq``.
    :param array_map_max: most entries an array map keeps before becoming a hash map:
        :data:`ARRAY_MAP_MAX_TRANSIENT` (``into``, ``group-by``) or
        :data:`ARRAY_MAP_MAX_PERSISTENT` (``assoc`` in a ``reduce``).
    :returns: the distinct keys in iteration order.
    """
    distinct = list(dict.fromkeys(keys_in_insertion_order))
    if len(distinct) <= array_map_max:
        return distinct
    return clojure_set_order(distinct, hasheq)


def clojure_set_order(items_in_insertion_order, hasheq=clojure_hasheq):
    """Iteration order of a Clojure 1.7 ``PersistentHashSet`` (always a hash trie)."""
    distinct = list(dict.fromkeys(items_in_insertion_order))
    keyed = sorted(range(len(distinct)), key=lambda j: (_trie_key(hasheq(distinct[j])), j))
    return [distinct[j] for j in keyed]


# The Storm collections (see the module docstring for the upstream chains)


def executor_details_hash(executor):
    """Port of ``ExecutorDetails.hashCode``: ``startTask + 13 * endTask``."""
    start, end = executor
    return _int32(start + 13 * end)


def worker_slot_hash(slot):
    """Port of ``WorkerSlot.hashCode``: ``nodeId.hashCode() + 13 * port``."""
    node, port = slot
    return _int32(string_hash(node) + 13 * port)


def executor_list_hash(executor):
    """``List<Long>.hashCode`` of ``[start, end]`` (the Thrift key of ``executor_node_port``)."""
    start, end = executor
    return list_hash((long_hash(start), long_hash(end)))


def _vector_of_longs_hasheq(executor):
    start, end = executor
    return clojure_hash_ordered((murmur3_hash_long(start), murmur3_hash_long(end)))


def supervisor_order_1x(supervisor_ids):
    """Order of ``Cluster.getAvailableSlots``' supervisors in 1.2.4, from the ``/supervisors``
    children order (see item 1 of the module docstring)."""
    clj = clojure_map_order(supervisor_ids, clojure_hasheq_string)
    return java_hash_map_order(clj, string_hash, initial_capacity=len(clj), put_all=True)


def port_order_1x(ports):
    """Order of one supervisor's available ports in 1.2.4 (item 2 of the module docstring)."""
    clj = clojure_set_order(ports, murmur3_hash_long)
    return java_hash_map_order(clj, integer_hash)


def node_group_order_1x(nodes_in_first_appearance_order):
    """Order of ``(group-by first slots)``'s node groups in 1.2.4's ``sort-slots``."""
    nodes = list(dict.fromkeys(nodes_in_first_appearance_order))
    if len(nodes) <= ARRAY_MAP_MAX_TRANSIENT:
        return nodes
    keyed = sorted(range(len(nodes)), key=lambda j: (_string_trie_key(nodes[j]), j))
    return [nodes[j] for j in keyed]


@functools.lru_cache(maxsize=1 << 16)
def _string_trie_key(s):
    return _trie_key(clojure_hasheq_string(s))


def topology_order(topology_ids, compat):
    """Order of ``Topologies.getTopologies()`` (item 4 of the module docstring).

    :param topology_ids: ids in the ``/storms`` children order.
    """
    ids = list(dict.fromkeys(topology_ids))
    if compat == "2.x":
        tds = java_hash_map_order(ids, string_hash)
        return java_hash_map_order(tds, string_hash, put_all=True)
    clj = clojure_map_order(ids, clojure_hasheq_string)
    return java_hash_map_order(clj, string_hash, initial_capacity=len(clj), put_all=True)


def scheduler_slots_2x(wire_executor_slots, alive_executors):
    """The slots of a stored assignment in the order 2.8.8's ``Cluster`` constructor re-assigns
    them, each with its alive executors in order.

    2.8.8 builds ``execToSlot`` (``HashMap``) from the Thrift map, makes a
    ``SchedulerAssignmentImpl`` whose ``slotToExecutors`` (``HashMap`` keyed by ``WorkerSlot``)
    is filled walking ``execToSlot``, then ``Cluster.setAssignments`` calls ``assign(slot,
    executors)`` for each entry of ``slotToExecutors``.

    :returns: a list of ``(slot, [executors])``.
    """
    executors = [e for e, _ in wire_executor_slots]
    slot_of = dict(wire_executor_slots)
    thrift = java_hash_map_order(executors, executor_list_hash,
                                 initial_capacity=2 * len(executors))
    exec_to_slot = java_hash_map_order([e for e in thrift if e in alive_executors],
                                       executor_details_hash)
    slot_lists = {}
    for executor in exec_to_slot:
        slot_lists.setdefault(slot_of[executor], []).append(executor)
    return [(slot, slot_lists[slot])
            for slot in java_hash_map_order(list(slot_lists), worker_slot_hash)]


def alive_assigned_slot_order(wire_executor_slots, alive_executors, compat, removed=(),
                              added=()):
    """Slot order of a topology's alive-assigned map, which ``bad-slots`` walks.

    Item 5 of the module docstring.

    :param wire_executor_slots: ``(executor, slot)`` pairs of the stored Assignment in wire
        order, dead executors included (they size the first maps of the chain); executors are
        ``(start, end)`` tuples, slots ``(node, port)`` tuples.
    :param alive_executors: the executors of the scheduler's assignment when it was made.
    :param removed: executors unassigned since (their slot was freed).
    :param added: ``(executor, slot)`` pairs assigned since, in order (an executor freed and
        assigned again is in both).
    :returns: the distinct slots of the current executors, in iteration order.
    """
    executors = [e for e, _ in wire_executor_slots]
    slot_of = dict(wire_executor_slots)
    slot_of.update(added)
    added_executors = [e for e, _ in added]
    if compat == "2.x":
        assigned = [e for _, execs in scheduler_slots_2x(wire_executor_slots, alive_executors)
                    for e in execs]
        impl = java_hash_map_order(assigned, executor_details_hash, removed=removed,
                                   then_put=added_executors)
        first_seen = dict.fromkeys(slot_of[e] for e in impl)
        return java_hash_map_order(list(first_seen), worker_slot_hash)
    n = len(executors)
    thrift = java_hash_map_order(executors, executor_list_hash, initial_capacity=2 * n)
    clj = clojure_map_order(thrift, executor_list_hash)
    clj = clojure_map_order(clj, _vector_of_longs_hasheq)
    alive = [e for e in clj if e in alive_executors]
    alive = clojure_map_order(alive, executor_details_hash)
    impl = java_hash_map_order(alive, executor_details_hash, initial_capacity=0, put_all=True,
                               removed=removed, then_put=added_executors)
    vec = clojure_map_order(impl, _vector_of_longs_hasheq)
    first_seen = dict.fromkeys(slot_of[e] for e in vec)
    return clojure_map_order(list(first_seen), clojure_hasheq_vector, ARRAY_MAP_MAX_PERSISTENT)
