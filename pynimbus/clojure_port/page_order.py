# -*- test-case-name: tests.test_port_stats -*-
"""The order of the lists in Storm's UI page answers (pure).

``TopologyPageInfo.workers``, ``ComponentPageInfo.exec_stats``, ``SupervisorPageInfo``'s
``worker_summaries`` and ``TopologyInfo.executors`` are lists whose order the UI shows as is.
Upstream walks hash maps to build them, so their order follows hash codes; this module
reproduces it with :mod:`pynimbus.clojure_port.java_order`.

Everything starts from a topology's stored Assignment, whose ``executor_node_port`` pynimbus
keeps in the order its scheduler assigned the executors (the wire order it wrote).

1.x (1.2.4): the Assignment Nimbus writes comes from the scheduler's ``executorToSlot``
(``new HashMap<>(0)`` filled in assignment order, then ``into {}`` twice: vectors, then seqs of
longs); the wire order is that map's iteration order (:func:`wire_order_1x`).  Nimbus reads it
back as a Thrift ``HashMap(2n)`` in wire order, then ``clojurify-assignment``'s ``into {}``
(Java list keys) and ``map-key`` (vector keys) give the ``executor->node+port`` every page walks
(:func:`executor_order`).  A Clojure map of more than 8 entries iterates by hash, so for
those the result depends on the executor set only; up to 8, on the order of ties in the Java
maps, which this reproduces for an assignment made in one scheduling round.

2.x (2.8.8): the leader holds the Assignment it built in memory: ``executorToSlot``
(``HashMap`` keyed by ``ExecutorDetails``), copied into ``HashMap``s keyed by ``List<Long>``
(``computeTopoToExecToNodePort``, the Assignment, the page's ``exec2NodePort``), all filled
from empty in the previous one's order, so they iterate alike (:func:`executor_order`).

Not reproduced (documented limits, each only decides the order of ties):

* a Java bucket that becomes a red-black tree (9 or more executors in one bucket of a table of
  64 or more: in 2.x with about 17 or more single-task executors, whose ``List`` hash codes
  differ by multiples of 32) iterates in tree order, approximated here by insertion order;
* an assignment that kept some executors across rounds: upstream's ``executorToSlot`` then
  starts as a copy of the kept ones (a differently sized table) before the new ones are added;
* the ZooKeeper children order of ``/assignments`` and ``/supervisors`` is taken as the
  backend returns it (with a real ZooKeeper, the server's order, as Storm sees it).
"""

from pynimbus.clojure_port.java_order import (
    ARRAY_MAP_MAX_PERSISTENT, clojure_hash_ordered, clojure_hasheq_string,
    clojure_hasheq_vector, clojure_map_order, executor_details_hash, executor_list_hash,
    java_hash_map_order, murmur3_hash_long, string_hash, worker_slot_hash)


def _executor_hasheq(executor):
    """Clojure ``hasheq`` of ``[start end]`` (a vector or seq of longs)."""
    start, end = executor
    return clojure_hash_ordered((murmur3_hash_long(start), murmur3_hash_long(end)))


def wire_order_1x(assigned_executors):
    """The ``executor_node_port`` wire order of an Assignment 1.2.4's ``mk-assignments`` writes
    for executors its scheduler assigned in this order (``SchedulerAssignmentImpl``'s
    ``HashMap(0)``, then ``compute-topology->executor->node+port``'s and
    ``thriftify-assignment``'s ``into {}``)."""
    scheduled = java_hash_map_order(list(assigned_executors), executor_details_hash,
                                    initial_capacity=0)
    return clojure_map_order(scheduled, _executor_hasheq)


def executor_order(stored_executors, compat):
    """The order upstream's page calls walk a topology's ``executor->node+port``.

    :param stored_executors: the stored Assignment's executors, ``(start, end)`` tuples, in
        the order pynimbus stored them (its scheduler's assignment order).
    :param compat: ``"1.x"`` or ``"2.x"``.
    :returns: the executors in iteration order.
    """
    executors = [tuple(e) for e in stored_executors]
    if compat == "2.x":
        scheduled = java_hash_map_order(executors, executor_details_hash)
        return java_hash_map_order(scheduled, executor_list_hash)
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
    ids = list(dict.fromkeys(supervisor_ids))
    if compat == "2.x":
        return java_hash_map_order(ids, string_hash)
    return clojure_map_order(ids, clojure_hasheq_string)
