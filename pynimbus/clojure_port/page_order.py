# -*- test-case-name: tests.test_port_stats -*-
"""The order of the lists in Storm's UI page answers (pure).

``TopologyPageInfo.workers``, ``ComponentPageInfo.exec_stats``, ``SupervisorPageInfo``'s
``worker_summaries`` and ``TopologyInfo.executors`` are lists whose order the UI shows as is.
Upstream walks hash maps to build them, so their order follows hash codes; this module
reproduces it with :mod:`pynimbus.clojure_port.java_hash_map` (Java's ``HashMap``) and
:mod:`pynimbus.clojure_port.java_order` (Clojure's maps, Storm's hash codes).

Everything starts from a topology's Assignment, which upstream builds from its scheduler's
``executorToSlot`` map, filled as the even scheduler hands each slot its executors
(:func:`assign_order`, derived from which slot each executor has, as one scheduling round
would assign them).

1.x (1.2.4): the Assignment Nimbus writes comes from the scheduler's ``executorToSlot``
(``new HashMap<>(0)`` filled in assignment order, then ``into {}`` twice: vectors, then seqs of
longs); the wire order is that map's iteration order (:func:`wire_order_1x`).  Nimbus reads it
back as a Thrift ``HashMap(2n)`` in wire order, then ``clojurify-assignment``'s ``into {}``
(Java list keys) and ``map-key`` (vector keys) give the ``executor->node+port`` every page walks
(:func:`executor_order`).  A Clojure map of more than 8 entries iterates by hash, so for
those the result depends on the executor set only; up to 8, on the order of ties in the Java
maps, which follows the assignment order.

2.x (2.8.8): the leader holds the Assignment it built in memory: ``executorToSlot``
(``HashMap`` keyed by ``ExecutorDetails``), copied into ``HashMap``s keyed by ``List<Long>``
(``computeTopoToExecToNodePort``, then the Assignment, which ``getTopologyInfo`` walks, then the
page's ``exec2NodePort``), each filled from empty in the previous one's order
(:func:`executor_order`).  The ``List`` hash codes of single-task executors differ by
multiples of 32, so with about 17 or more of them a bucket of these maps becomes a red-black
tree, whose iteration order :mod:`~pynimbus.clojure_port.java_hash_map` reproduces (a
topology's executors never share a hash code, so no tie is left to Java's identity hash
codes).

Not reproduced (documented limits, each only decides the order of ties):

* an assignment that kept some executors across rounds: upstream's ``executorToSlot`` then
  starts as a copy of the kept ones (a differently sized table) before the new ones are
  added, and its ties are ordered by that history;
* the ZooKeeper children order of ``/assignments`` and ``/supervisors`` is taken as the
  backend returns it (with a real ZooKeeper, the server's order, as Storm sees it).
"""

import functools

from pynimbus.clojure_port.java_hash_map import java_hash_map_order, string_hash
from pynimbus.clojure_port.java_order import (
    ARRAY_MAP_MAX_PERSISTENT, clojure_hash_ordered, clojure_hasheq_string,
    clojure_hasheq_vector, clojure_map_order, executor_details_hash, executor_list_hash,
    murmur3_hash_long, worker_slot_hash)


def _executor_hasheq(executor):
    """Clojure ``hasheq`` of ``[start end]`` (a vector or seq of longs)."""
    start, end = executor
    return clojure_hash_ordered((murmur3_hash_long(start), murmur3_hash_long(end)))


def assign_order(executor_slots, compat):
    """The order the even scheduler hands a topology's executors to ``Cluster.assign`` when it
    places them all in one round.

    1.x (``EvenScheduler.clj``): the executors sorted, zipped with the slots into a map
    (``into {}``), ``reverse-map``-ed by slot, each slot assigned its executors in turn; 2.x
    (``EvenScheduler.java``): the same with a ``HashMap`` keyed by ``ExecutorDetails`` and
    ``Utils.reverseMap`` (a ``HashMap`` keyed by ``WorkerSlot``).

    :param executor_slots: ``{(start, end): (node, port)}``.
    """
    slot_of = {tuple(e): tuple(slot) for e, slot in executor_slots.items()}
    executors = sorted(slot_of)
    if compat == "2.x":
        reassignment = java_hash_map_order(executors, executor_details_hash)
        slots = java_hash_map_order(list(dict.fromkeys(slot_of[e] for e in reassignment)),
                                    worker_slot_hash)
    else:
        reassignment = clojure_map_order(executors, _executor_hasheq)
        slots = clojure_map_order(list(dict.fromkeys(slot_of[e] for e in reassignment)),
                                  clojure_hasheq_vector, ARRAY_MAP_MAX_PERSISTENT)
    by_slot = {}
    for e in reassignment:
        by_slot.setdefault(slot_of[e], []).append(e)
    return [e for slot in slots for e in by_slot[slot]]


def wire_order_1x(assigned_executors):
    """The ``executor_node_port`` wire order of an Assignment 1.2.4's ``mk-assignments`` writes
    for executors its scheduler assigned in this order (``SchedulerAssignmentImpl``'s
    ``HashMap(0)``, then ``compute-topology->executor->node+port``'s and
    ``thriftify-assignment``'s ``into {}``)."""
    scheduled = java_hash_map_order(list(assigned_executors), executor_details_hash,
                                    initial_capacity=0)
    return clojure_map_order(scheduled, _executor_hasheq)


def executor_order(executor_slots, compat, walker="page"):
    """The order upstream's page calls walk a topology's ``executor->node+port``.

    :param executor_slots: the Assignment's ``{(start, end): (node, port)}``.
    :param compat: ``"1.x"`` or ``"2.x"``.
    :param walker: ``"page"`` (the page calls) or ``"info"`` (``getTopologyInfo``, which in
        2.x walks the Assignment itself rather than the page's copy of it).
    :returns: the executors in iteration order.
    """
    executors = assign_order(executor_slots, compat)
    if compat == "2.x":
        order = java_hash_map_order(executors, executor_details_hash)
        for _copy in range(3 if walker == "page" else 2):
            order = java_hash_map_order(order, executor_list_hash)
        return order
    wire = wire_order_1x(executors)
    thrift = java_hash_map_order(wire, executor_list_hash, initial_capacity=2 * len(wire))
    return clojure_map_order(clojure_map_order(thrift, executor_list_hash), _executor_hasheq)


def worker_slot_order(executors_in_order, slot_of, compat):
    """The order of a topology's workers (``agg-worker-stats``, ``aggWorkerStats``).

    1.x: ``reverse-map`` of ``executor->node+port`` (a persistent ``assoc`` per executor, keyed
    by ``[node port]``); 2.x: a ``HashMap`` keyed by ``WorkerSlot``, filled in executor order.

    :param executors_in_order: as :func:`executor_order` returns them.
    :param slot_of: ``{executor: (node, port)}``.
    :returns: the distinct ``(node, port)`` slots in iteration order.
    """
    first_seen = list(dict.fromkeys(tuple(slot_of[e]) for e in executors_in_order))
    if compat == "2.x":
        return java_hash_map_order(first_seen, worker_slot_hash)
    return clojure_map_order(first_seen, clojure_hasheq_vector, ARRAY_MAP_MAX_PERSISTENT)


def select_keys_order(keys_in_order):
    """1.x: the order of ``(select-keys m keys)`` (``conj`` onto ``{}``, one key at a time)."""
    return clojure_map_order(keys_in_order, _executor_hasheq, ARRAY_MAP_MAX_PERSISTENT)


def supervisor_topology_order(storm_ids, compat):
    """The order ``getSupervisorPageInfo`` walks the topologies assigned to a supervisor.

    1.x: ``topology-assignments``' ``into {}`` over the ``/assignments`` children; 2.x:
    ``topologiesOnSupervisor``'s ``HashSet``.

    :param storm_ids: the ids, in ``/assignments`` children order.
    """
    ids = list(dict.fromkeys(storm_ids))
    if compat == "2.x":
        return java_hash_map_order(ids, string_hash)
    return clojure_map_order(ids, clojure_hasheq_string)


def supervisor_order(supervisor_ids, compat):
    """The order of ``all-supervisor-info`` (1.x: ``into {}`` over the ``/supervisors``
    children) or ``allSupervisorInfo`` (2.x: a ``HashMap``), which orders a host's
    supervisors on its page."""
    return list(_supervisor_order(tuple(dict.fromkeys(supervisor_ids)), compat))


# The supervisors change seldom between two page calls, and ordering 1,000 ids by their hashes
# costs ~20 ms: remember the last few orders.
@functools.lru_cache(maxsize=8)
def _supervisor_order(ids, compat):
    if compat == "2.x":
        return tuple(java_hash_map_order(list(ids), string_hash))
    return tuple(clojure_map_order(list(ids), clojure_hasheq_string))
