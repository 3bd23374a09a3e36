# -*- test-case-name: tests.test_supervisor_nimbus_rpc -*-
"""What a 2.x supervisor exchanges with Nimbus over RPC instead of ZooKeeper: pure.

Storm 2.x supervisors do not read ``/assignments``: Nimbus pushes each host's assignments to
its supervisors (``sendSupervisorAssignments``) and a supervisor also pulls its own with
``getSupervisorAssignments`` at start and every 10 seconds; either way the answer replaces
the supervisor's local copy whole (``InMemoryAssignmentBackend.syncRemoteAssignments``).  And
the supervisor, not the worker, tells Nimbus its workers are alive
(``sendSupervisorWorkerHeartbeats``).  This module holds the values of those exchanges:

* :func:`checked_storm_assignments`: the ``{storm_id: Assignment}`` of a push or pull,
  refused whole (:class:`BadAssignments`) when any entry could not be run or named safely;
* :func:`assigned_assignments_to_local`: the local copy after a pull (2.8.8
  ``SynchronizeAssignments.assignedAssignmentsToLocal``);
* :func:`supervisor_worker_heartbeats`: the report of the workers' LocalState heartbeats (2.8.8
  ``ReportWorkerHeartbeats.getSupervisorWorkerHeartbeatsFromLocal``).
"""

from pynimbus.common.local_dirs import stormdist_name
from pynimbus.generated.storm.ttypes import (
    Assignment, NodeInfo, SupervisorWorkerHeartbeat, SupervisorWorkerHeartbeats)

# SynchronizeAssignments runs from the supervisor's event timer every 10 seconds (a constant
# in Supervisor.launch, not a setting).
SYNCHRONIZE_ASSIGNMENTS_PERIOD_SECS = 10


class BadAssignments(ValueError):
    """Assignments this supervisor cannot take; the message says which entry and why."""


def _is_int(value):
    return isinstance(value, int) and not isinstance(value, bool)


def _check_node_info(storm_id, what, node_info):
    if not isinstance(node_info, NodeInfo) or not isinstance(node_info.node, str):
        raise BadAssignments("assignment of %s: %s is not a NodeInfo with a node id"
                             % (storm_id, what))
    ports = node_info.port
    if not ports or not all(_is_int(p) and 0 < p < 65536 for p in ports):
        raise BadAssignments("assignment of %s: %s has no port or a port out of 1-65535: %r"
                             % (storm_id, what, ports))


def check_assignment(storm_id, assignment):
    """Raise :class:`BadAssignments` unless ``storm_id`` can name a directory and
    ``assignment`` has what the sync and the workers read: executors as ``[start, end]``
    task ids with a NodeInfo each, hosts as strings, resources keyed by NodeInfo."""
    if not isinstance(storm_id, str):
        raise BadAssignments("a topology id is not a string: %r" % (storm_id,))
    try:
        stormdist_name(storm_id)
    except ValueError as e:
        raise BadAssignments(str(e))
    if not isinstance(assignment, Assignment):
        raise BadAssignments("assignment of %s is not an Assignment" % storm_id)
    for executor, node_info in (assignment.executor_node_port or {}).items():
        if (not isinstance(executor, (list, tuple)) or len(executor) != 2
                or not all(_is_int(t) for t in executor) or executor[0] > executor[1]):
            raise BadAssignments("assignment of %s: executor %r is not [start task, end task]"
                                 % (storm_id, executor))
        _check_node_info(storm_id, "the node of executor %r" % (list(executor),), node_info)
    for node, host in (assignment.node_host or {}).items():
        if not isinstance(node, str) or not isinstance(host, str):
            raise BadAssignments("assignment of %s: node_host %r: %r is not node id to host"
                                 % (storm_id, node, host))
    for node_info in (assignment.worker_resources or {}):
        _check_node_info(storm_id, "a worker_resources key", node_info)


def checked_storm_assignments(supervisor_assignments):
    """The ``{storm_id: Assignment}`` of a ``SupervisorAssignments``, every entry checked
    (:func:`check_assignment`).

    :raises BadAssignments: not a ``SupervisorAssignments``, or an entry that cannot be taken;
        nothing of it is to be applied (2.8.8 stores what it gets and fails later, in the sync
        or in the worker).
    """
    storm_assignment = getattr(supervisor_assignments, "storm_assignment", None)
    if not isinstance(storm_assignment, dict):
        raise BadAssignments("SupervisorAssignments without a storm_assignment map: %r"
                             % (supervisor_assignments,))
    for storm_id in sorted(storm_assignment, key=repr):
        check_assignment(storm_id, storm_assignment[storm_id])
    return dict(storm_assignment)


def assigned_assignments_to_local(pulled):
    """Port of ``SynchronizeAssignments.assignedAssignmentsToLocal`` (2.8.8): the new local
    copy from the ``SupervisorAssignments`` of a pull (one per NUMA zone and the node; None for
    a failed one), or None when there is nothing to apply (an empty list: upstream skips).

    :raises BadAssignments: an entry cannot be taken (the local copy stays as it was).
    """
    if not pulled:
        return None
    merged = {}
    for supervisor_assignments in pulled:
        if supervisor_assignments is not None:
            merged.update(checked_storm_assignments(supervisor_assignments))
    return merged


def supervisor_worker_heartbeats(supervisor_id, id_to_heartbeat):
    """Port of ``ReportWorkerHeartbeats.getSupervisorWorkerHeartbeatsFromLocal`` (2.8.8): the
    report of every worker's LocalState heartbeat (storm id, executors, time), those not
    written yet (None) left out, in worker id order.

    :param id_to_heartbeat: ``{worker_id: LSWorkerHeartbeat or None}``.
    """
    return SupervisorWorkerHeartbeats(
        supervisor_id=supervisor_id,
        worker_heartbeats=[
            SupervisorWorkerHeartbeat(storm_id=heartbeat.topology_id,
                                      executors=list(heartbeat.executors or ()),
                                      time_secs=heartbeat.time_secs)
            for _, heartbeat in sorted(id_to_heartbeat.items()) if heartbeat is not None])
