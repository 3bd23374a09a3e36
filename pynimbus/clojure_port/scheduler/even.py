# -*- test-case-name: tests.test_port_scheduler_even -*-
"""The even scheduler: spread each topology's executors round-robin over slots (pure).

Ports of ``EvenScheduler.clj`` (1.2.4) and ``EvenScheduler.java`` (2.8.8).  Slots are
:class:`~pynimbus.clojure_port.scheduler.cluster.WorkerSlot` (or ``(node, port)`` tuples),
executors ``(start, end)`` tuples.
"""

import functools

from pynimbus.clojure_port import java_order
from pynimbus.clojure_port.scheduler.cluster import WorkerSlot


@functools.lru_cache(maxsize=1 << 16)
def _utf16_key(s):
    """Sort key giving Java ``String.compareTo`` order (UTF-16 code units)."""
    return s.encode("utf-16-be", "surrogatepass")


def _port(slot):
    return slot[1]


def sort_slots(all_slots, compat="1.x", limit=None):
    """Port of EvenScheduler.clj ``sort-slots`` (1.2.4) and ``EvenScheduler.sortSlots`` (2.8.8).

    Group the slots by node, order the groups by size (largest first, stable), then take the
    first slot of every group, the second of every group, and so on, so that a topology is
    spread over as many nodes as possible.

    1.x: groups in ``group-by`` order (first appearance up to 8 nodes, Clojure hash order
    beyond, see :func:`java_order.node_group_order_1x`), slots of a node in the order given.
    2.x: groups by node id in ``String.compareTo`` order, slots of a node by ascending port.
    Deliberate difference: 2.8.8 returns null for no slots; this returns ``[]``.

    :param limit: return only the first ``limit`` slots (the same prefix, computed faster).
    """
    groups = {}
    for slot in all_slots:
        groups.setdefault(slot[0], []).append(slot)
    if compat == "2.x":
        nodes = sorted(groups, key=lambda n: (-len(groups[n]), _utf16_key(n)))
        return interleave_all([groups[n] for n in nodes], limit,
                              prepare=lambda g: sorted(g, key=_port))
    split_up = [groups[n] for n in java_order.node_group_order_1x(list(groups))]
    split_up.sort(key=len, reverse=True)
    return interleave_all(split_up, limit)


def interleave_all(colls, limit=None, prepare=None):
    """Port of util.clj ``interleave-all`` / ``ServerUtils.interleaveAll``: first items of
    every list, then second items, ... skipping exhausted lists (the first ``limit`` only,
    when given).  ``prepare`` is applied to a list before its first item is taken."""
    out = []
    if limit is None:
        limit = sum(len(c) for c in colls)
    colls = list(colls)
    prepared = [prepare is None] * len(colls)
    i = 0
    while len(out) < limit:
        taken = False
        for j, coll in enumerate(colls):
            if i < len(coll):
                if not prepared[j]:
                    colls[j] = coll = prepare(coll)
                    prepared[j] = True
                out.append(coll[i])
                taken = True
                if len(out) == limit:
                    break
        if not taken:
            break
        i += 1
    return out


def get_alive_assigned_node_port_to_executors(cluster, topology_id):
    """Port of EvenScheduler.clj ``get-alive-assigned-node+port->executors`` (1.2.4) and
    ``getAliveAssignedWorkerSlotExecutors`` (2.8.8).

    :returns: ``{WorkerSlot: [executors]}`` of the topology's current assignment, iterated in
        the order upstream's map iterates (see :func:`java_order.alive_assigned_slot_order`).
    """
    assignment = cluster.get_assignment_by_id(topology_id) or {}
    slot_to_executors = {}
    for executor, slot in assignment.items():
        slot_to_executors.setdefault(slot, []).append(executor)
    if len(slot_to_executors) < 2:
        return slot_to_executors
    order = _slot_order(cluster, topology_id, assignment)
    return {slot: slot_to_executors[slot] for slot in order}


def _slot_order(cluster, topology_id, assignment):
    """Upstream iteration order of the slots of ``assignment`` (the topology's current one)."""
    wire = cluster.wire_order(topology_id)
    wire_slot = dict(wire)
    initial = cluster.initial_executors(topology_id) & set(wire_slot)
    # Executors whose slot was freed since, and those given a slot since (after the others).
    removed = [e for e in initial if assignment.get(e) != wire_slot[e]]
    moved = set(removed)
    added = [(e, s) for e, s in assignment.items() if e not in initial or e in moved]
    order = java_order.alive_assigned_slot_order(wire, initial, cluster.compat, removed, added)
    return [WorkerSlot(*s) for s in order]


def schedule_topology(topology, cluster):
    """Port of EvenScheduler.clj ``schedule-topology`` (1.2.4) / ``scheduleTopology`` (2.8.8).

    Take as many of the sorted free slots as the topology still needs (``num_workers`` minus
    its alive slots) and deal its unassigned executors, sorted, round-robin over them.
    Deliberate difference: when the topology keeps more alive slots than it may use, 2.8.8
    throws (``subList`` with a negative end); this, like 1.2.4, takes no slot.

    :returns: ``{executor: WorkerSlot}`` for the executors to place (empty when no slot).
    """
    available_slots = cluster.get_available_slots()
    alive_assigned = get_alive_assigned_node_port_to_executors(cluster, topology.topology_id)
    total_slots_to_use = min(topology.num_workers, len(available_slots) + len(alive_assigned))
    wanted = max(0, total_slots_to_use - len(alive_assigned))
    reassign_slots = sort_slots(available_slots, cluster.compat, wanted) if wanted else []
    if not reassign_slots:
        return {}
    alive_executors = set()
    for executors in alive_assigned.values():
        alive_executors.update(executors)
    reassign_executors = sorted(topology.executor_set - alive_executors)
    n = len(reassign_slots)
    return {executor: reassign_slots[i % n] for i, executor in enumerate(reassign_executors)}


def schedule_topologies_evenly_in_place(topologies, cluster):
    """In-place body of :func:`schedule_topologies_evenly`."""
    if cluster.compat == "2.x":
        topologies = list(cluster.topologies.values())
    for topology in cluster.needs_scheduling_topologies(topologies):
        new_assignment = schedule_topology(topology, cluster)
        slot_to_executors = {}
        for executor, slot in new_assignment.items():
            slot_to_executors.setdefault(slot, []).append(executor)
        for slot, executors in slot_to_executors.items():
            cluster.assign(slot, topology.topology_id, executors)


def schedule_topologies_evenly(topologies, cluster):
    """Port of EvenScheduler.clj ``schedule-topologies-evenly`` (1.2.4) /
    ``scheduleTopologiesEvenly`` (2.8.8): schedule every topology that needs it, in order.

    2.8.8 ignores its ``topologies`` argument and schedules every topology of the cluster
    (``cluster.needsSchedulingTopologies()``, in the cluster's topology order), so when the
    default scheduler frees one topology's bad slots, the other topologies that need slots may
    take them first.  2.x mode does the same with ``cluster.topologies``.

    :param topologies: TopologyDetails in scheduling order (1.x).
    :returns: a new :class:`Cluster` holding the result; ``cluster`` is unchanged.
    """
    cluster = cluster.copy()
    schedule_topologies_evenly_in_place(list(topologies), cluster)
    return cluster
