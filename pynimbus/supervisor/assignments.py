# -*- test-case-name: tests.test_supervisor_assignments -*-
"""What this supervisor should run, and what to do about the workers it finds: pure.

Two halves of Storm's supervisor sync, as functions of values (no files, processes or clock):

* which topology and executors each port of this supervisor runs, from the ``Assignment`` of
  every topology in cluster state (1.2.4 ``ReadClusterState.readAssignments`` and
  ``readMyExecutors``; 1.0's ``read-assignments``, ``read-my-executors`` and
  ``mk-local-assignment`` in ``supervisor.clj`` compute the same map);
* given those local assignments, the workers found on disk with their heartbeats and the time,
  the state of each worker (``:valid``, ``:disallowed``, ``:timed-out``, ``:not-started``) and
  so which to kill and which ports to launch (1.0's ``read-allocated-workers`` and
  ``sync-processes``, the ``SyncProcessEvent`` of the Java port).  1.2.4 makes the same
  decisions per port in ``Slot.java``'s state machine (``handleRunning``: an assignment that is
  no longer ``equivalent``, no heartbeat, or one older than ``supervisor.worker.timeout.secs``
  kills the worker; ``handleWaitingForWorkerStart``: a worker gets
  ``supervisor.worker.start.timeout.secs`` to write its first heartbeat).

Local assignments are Thrift ``LocalAssignment`` structs (``topology_id``, ``executors`` as
``ExecutorInfo``) and worker heartbeats ``LSWorkerHeartbeat`` structs, as Storm keeps them in
the supervisor's and the worker's LocalState, so the shell can store them there unchanged.
"""

import collections

from pynimbus.generated.storm.ttypes import ExecutorInfo, LocalAssignment

# Constants.SYSTEM_EXECUTOR_ID: the worker's own __system executor, in its heartbeat but never
# in an assignment.
SYSTEM_EXECUTOR_ID = (-1, -1)

VALID = "valid"
DISALLOWED = "disallowed"
TIMED_OUT = "timed-out"
NOT_STARTED = "not-started"


class MultipleTopologiesOnPort(ValueError):
    """Two topologies are assigned the same port of this supervisor (Storm's RuntimeException
    "Should not have multiple topologies assigned to one port")."""


SyncActions = collections.namedtuple("SyncActions", "to_kill keepers to_launch")
SyncActions.__doc__ = """What ``sync_processes`` decided.

:ivar to_kill: ids of the workers to shut down, sorted, with their state: ``[(id, state)]``.
:ivar keepers: ``{worker_id: port}`` of the workers left running (valid, or still starting).
:ivar to_launch: ``{port: LocalAssignment}`` of the assigned ports that no kept worker serves.
"""


def _executor_key(executor):
    """``(task_start, task_end)`` of an ``ExecutorInfo`` or of an executor id list."""
    if isinstance(executor, ExecutorInfo):
        return (executor.task_start, executor.task_end)
    return (executor[0], executor[-1])


def mk_local_assignment(storm_id, executors, resources=None, owner=None):
    """Port of 1.0 supervisor.clj ``mk-local-assignment``: a ``LocalAssignment`` of
    ``storm_id`` running ``executors`` (``(start, end)`` pairs or ``ExecutorInfo``)."""
    return LocalAssignment(
        topology_id=storm_id,
        executors=[ExecutorInfo(*_executor_key(e)) for e in executors],
        resources=resources, owner=owner)


def read_my_executors(storm_id, assignment_id, assignment):
    """Port of ``ReadClusterState.readMyExecutors`` (1.2.4): ``{port: LocalAssignment}`` of
    ``storm_id``'s executors that ``assignment`` places on node ``assignment_id``.

    The worker resources of a slot and the assignment's owner are carried over, as 1.2.4 does
    (1.0's ``read-my-executors`` carries only the resources).  Executors are listed in sorted
    order, so equal assignments give equal structs.  2.8.8 also sets ``total_node_shared``
    from the assignment's ``total_shared_off_heap`` of this node; 1.2.4 has no such field.
    """
    slot_resources = {}
    for node_info, resources in (assignment.worker_resources or {}).items():
        if node_info.node == assignment_id:
            for port in node_info.port or ():
                slot_resources[int(port)] = resources
    port_executors = {}
    for executor, node_info in (assignment.executor_node_port or {}).items():
        if node_info.node == assignment_id:
            for port in node_info.port or ():
                port_executors.setdefault(int(port), []).append(_executor_key(executor))
    return {port: mk_local_assignment(storm_id, sorted(executors), slot_resources.get(port),
                                      assignment.owner)
            for port, executors in port_executors.items()}


def read_assignments(assignments_snapshot, assignment_id):
    """Port of ``ReadClusterState.readAssignments`` (1.2.4; 1.0 ``read-assignments``):
    ``{port: LocalAssignment}`` for this supervisor from ``{storm_id: Assignment}``.

    :raises MultipleTopologiesOnPort: two topologies claim one port (1.2.4 logs it and retries
        the read up to three times before failing; the caller decides).
    """
    port_to_assignment = {}
    for storm_id in sorted(assignments_snapshot):
        mine = read_my_executors(storm_id, assignment_id, assignments_snapshot[storm_id])
        for port, local_assignment in mine.items():
            if port in port_to_assignment:
                raise MultipleTopologiesOnPort(
                    "Should not have multiple topologies assigned to one port: port %d has %s "
                    "and %s" % (port, port_to_assignment[port].topology_id, storm_id))
            port_to_assignment[port] = local_assignment
    return port_to_assignment


def equivalent(a, b):
    """Port of ``Slot.equivalent`` (1.2.4): the same topology, the same set of executors and
    the same resources (both absent, or equal)."""
    if a is None or b is None:
        return a is None and b is None
    return (a.topology_id == b.topology_id
            and {_executor_key(e) for e in a.executors or ()}
            == {_executor_key(e) for e in b.executors or ()}
            and a.resources == b.resources)


def matches_an_assignment(worker_heartbeat, assigned_executors):
    """Port of 1.0 supervisor.clj ``matches-an-assignment?``: the heartbeat's port is assigned
    the heartbeat's topology and exactly its executors (its ``__system`` executor aside)."""
    local_assignment = assigned_executors.get(worker_heartbeat.port)
    if local_assignment is None or local_assignment.topology_id != worker_heartbeat.topology_id:
        return False
    beating = {_executor_key(e) for e in worker_heartbeat.executors or ()} - {SYSTEM_EXECUTOR_ID}
    return beating == {_executor_key(e) for e in local_assignment.executors or ()}


def read_allocated_workers(id_to_heartbeat, approved_ids, assigned_executors, now, conf,
                           dead_workers=frozenset()):
    """Port of 1.0 supervisor.clj ``read-allocated-workers``: ``{worker_id: (state, heartbeat)}``.

    :param id_to_heartbeat: ``{worker_id: LSWorkerHeartbeat or None}`` of the worker dirs found
        (None: no heartbeat written yet).
    :param approved_ids: the ids this supervisor launched (its ``approved-workers``).
    :param assigned_executors: ``{port: LocalAssignment}`` (:func:`read_assignments`).
    :param now: the supervisor's time in seconds.
    :param conf: reads ``supervisor.worker.timeout.secs``.
    :param dead_workers: ids whose process is known to have exited.

    In order: no heartbeat is ``not-started``; not approved or not matching an assignment is
    ``disallowed``; known dead or a heartbeat older than the timeout is ``timed-out``; else
    ``valid``.
    """
    timeout = conf["supervisor.worker.timeout.secs"]
    allocated = {}
    for worker_id, heartbeat in id_to_heartbeat.items():
        if heartbeat is None:
            state = NOT_STARTED
        elif worker_id not in approved_ids \
                or not matches_an_assignment(heartbeat, assigned_executors):
            state = DISALLOWED
        elif worker_id in dead_workers or now - heartbeat.time_secs > timeout:
            state = TIMED_OUT
        else:
            state = VALID
        allocated[worker_id] = (state, heartbeat)
    return allocated


LaunchedWorker = collections.namedtuple("LaunchedWorker", "port local_assignment time_secs")
LaunchedWorker.__doc__ = """A worker this supervisor launched: for which port and assignment,
and when (seconds)."""


def _still_starting(state, launched, assigned_executors, now, conf):
    """A worker without a heartbeat yet, launched less than the start timeout ago for what its
    port is still assigned (1.2.4 ``Slot.handleWaitingForWorkerStart``)."""
    return (state == NOT_STARTED and launched is not None
            and equivalent(assigned_executors.get(launched.port), launched.local_assignment)
            and now - launched.time_secs <= conf["supervisor.worker.start.timeout.secs"])


def sync_processes(allocated, assigned_executors, now, conf, launched_workers=None):
    """The decision of 1.0 supervisor.clj ``sync-processes`` (``SyncProcessEvent``): which
    workers to kill, which to keep, which ports to launch.  The shell carries it out (kill,
    clean up, make new worker ids, record them as approved, launch).

    :param allocated: :func:`read_allocated_workers`'s answer.
    :param assigned_executors: ``{port: LocalAssignment}``.
    :param now: the supervisor's time in seconds.
    :param conf: reads ``supervisor.worker.start.timeout.secs``.
    :param launched_workers: ``{worker_id: LaunchedWorker}`` of workers this supervisor
        launched and has not seen beat yet.

    Every worker that is not ``valid`` is killed, except one that is ``not-started`` but was
    launched, within ``supervisor.worker.start.timeout.secs``, for what its port is still
    assigned: 1.0 blocks the sync until a new worker's first heartbeat
    (``wait-for-workers-launch``) and 1.2.4 waits in a slot state; this decision is taken by a
    loop that never blocks, so a starting worker is kept instead.  A port is launched when no
    kept worker serves it.
    """
    launched_workers = launched_workers or {}
    keepers, to_kill = {}, []
    for worker_id, (state, heartbeat) in sorted(allocated.items()):
        launched = launched_workers.get(worker_id)
        if state == VALID:
            keepers[worker_id] = heartbeat.port
        elif _still_starting(state, launched, assigned_executors, now, conf):
            keepers[worker_id] = launched.port
        else:
            to_kill.append((worker_id, state))
    keep_ports = set(keepers.values())
    to_launch = {port: local_assignment
                 for port, local_assignment in assigned_executors.items()
                 if port not in keep_ports}
    return SyncActions(to_kill, keepers, to_launch)
