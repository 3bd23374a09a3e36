# -*- test-case-name: tests.test_port_java_order -*-
"""Iteration order of the JVM collections that decide slot order in Storm 1.2.4 (and 2.8.8).

Storm 1.2.4's scheduler walks Java ``HashMap``/``HashSet`` and Clojure 1.7 persistent maps, so
which slot a topology gets depends on hash codes.  This module computes those orders from first
principles so pynimbus in 1.x mode picks the slots a JVM Nimbus would pick.

Primitives:

- Java 8 to 17: ``HashMap``/``HashSet`` iteration order, tree bins included, and the hash
  codes of the keys come from :mod:`pynimbus.clojure_port.java_hash_map` (the one model of
  ``java.util.HashMap``; :func:`string_hash`, :func:`integer_hash`, :func:`long_hash`,
  :func:`list_hash` and :func:`java_hash_map_order` are its names, imported here).  Java 7
  (different ``hash`` and resize order) is not reproduced.
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

import functools

from pynimbus.clojure_port.java_hash_map import (
    int32, integer_hash, java_hash_map_order, list_hash, long_hash, string_hash)

_MASK32 = 0xFFFFFFFF
_MASK64 = 0xFFFFFFFFFFFFFFFF

# Clojure 1.7 PersistentArrayMap: a transient holds 8 entries (16 array slots), persistent
# ``assoc`` grows to 9 before converting (it converts when the array is already longer than 16).
ARRAY_MAP_MAX_TRANSIENT = 8
ARRAY_MAP_MAX_PERSISTENT = 9


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
    return int32(h1)


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


def clojure_hasheq(key):
    """Clojure ``hasheq`` of a String or an integer (a Long)."""
    if isinstance(key, str):
        return clojure_hasheq_string(key)
    if isinstance(key, int) and not isinstance(key, bool):
        return clojure_hasheq_long(key)
    return hash(key) & _MASK32


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
    return int32(start + 13 * end)


def worker_slot_hash(slot):
    """Port of ``WorkerSlot.hashCode``: ``nodeId.hashCode() + 13 * port``."""
    node, port = slot
    return int32(string_hash(node) + 13 * port)


def executor_list_hash(executor):
    """``List<Long>.hashCode`` of ``[start, end]`` (the Thrift key of ``executor_node_port``):
    ``31 * (31 + start) + end`` wrapped, as a ``Long`` from 0 to 2^31 - 1 hashes to itself."""
    start, end = executor
    if 0 <= start <= 0x7FFFFFFF and 0 <= end <= 0x7FFFFFFF:
        return int32(961 + 31 * start + end)
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
    return list(_port_order_1x(tuple(ports)))


# Supervisors mostly list the same few port sets, and a mk-assignments round orders the ports
# of every supervisor: hashing them again each time was most of a round at 1,000 supervisors.
@functools.lru_cache(maxsize=4096)
def _port_order_1x(ports):
    clj = clojure_set_order(ports, murmur3_hash_long)
    return tuple(java_hash_map_order(clj, integer_hash))


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
