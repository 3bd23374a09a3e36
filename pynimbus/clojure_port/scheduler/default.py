# -*- test-case-name: tests.test_port_scheduler_default -*-
"""The default scheduler: keep healthy slots, free unbalanced ones, spread the rest (pure).

Ports of ``DefaultScheduler.clj`` (1.2.4) and ``DefaultScheduler.java`` (2.8.8), which run the
same algorithm.  Not ported: 2.8.8's ``BlacklistScheduler`` wrapper (a ``Cluster`` can be given
blacklisted hosts, but nothing here decides them).
"""

from pynimbus.clojure_port.executors import integer_divided
from pynimbus.clojure_port.scheduler.cluster import WorkerSlot
from pynimbus.clojure_port.scheduler.even import (
    schedule_topologies_evenly_in_place, get_alive_assigned_node_port_to_executors)


def bad_slots(existing_slots, num_executors, num_workers):
    """Port of DefaultScheduler.clj ``bad-slots`` (1.2.4) / ``badSlots`` (2.8.8).

    Walk the topology's slots in order and keep a slot while the even split of
    ``num_executors`` over ``num_workers`` still wants a slot of its executor count; every other
    slot is bad.

    :param existing_slots: ``{slot: [executors]}`` in iteration order.
    :returns: the bad slots as a list of WorkerSlot (none when ``num_workers`` is 0).
    """
    if num_workers == 0:
        return []
    distribution = integer_divided(num_executors, num_workers)
    bad = []
    for slot, executors in existing_slots.items():
        count = len(executors)
        if distribution.get(count, 0) > 0:
            distribution[count] -= 1
        else:
            bad.append(WorkerSlot(*slot))
    return bad


def slots_can_reassign(cluster, slots):
    """Port of DefaultScheduler.clj ``slots-can-reassign`` (1.2.4) / ``slotsCanReassign``
    (2.8.8): the slots whose node is not blacklisted, whose supervisor is alive and still
    offers the port."""
    out = []
    for slot in slots:
        node, port = slot
        if cluster.is_blacklisted(node):
            continue
        supervisor = cluster.get_supervisor_by_id(node)
        if supervisor is not None and port in supervisor.all_ports:
            out.append(WorkerSlot(node, port))
    return out


def _default_schedule(topologies, cluster):
    """In-place body of :func:`default_schedule`."""
    for topology in cluster.needs_scheduling_topologies(topologies):
        topology_id = topology.topology_id
        available_slots = cluster.get_available_slots()
        all_executors = topology.executor_set
        alive_assigned = get_alive_assigned_node_port_to_executors(cluster, topology_id)
        alive_executors = set()
        for executors in alive_assigned.values():
            alive_executors.update(executors)
        can_reassign_slots = slots_can_reassign(cluster, alive_assigned)
        total_slots_to_use = min(topology.num_workers,
                                 len(can_reassign_slots) + len(available_slots))
        if total_slots_to_use > len(alive_assigned) or alive_executors != all_executors:
            bad = bad_slots(alive_assigned, len(all_executors), total_slots_to_use)
        else:
            bad = []
        cluster.free_slots(bad)
        schedule_topologies_evenly_in_place([topology], cluster)


def default_schedule(topologies, cluster):
    """Port of DefaultScheduler.clj ``default-schedule`` (1.2.4) / ``defaultSchedule`` (2.8.8).

    For each topology that needs scheduling (decided once, at the start, in the given order):
    free the slots :func:`bad_slots` rejects when the topology can use more slots than it has
    or lost executors, then let the even scheduler place its unassigned executors.

    :param topologies: TopologyDetails in scheduling order (see
        ``java_order.topology_order``).
    :returns: a new :class:`Cluster` holding the result; ``cluster`` is unchanged.
    """
    cluster = cluster.copy()
    _default_schedule(list(topologies), cluster)
    return cluster
