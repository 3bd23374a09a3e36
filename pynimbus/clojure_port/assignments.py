# -*- test-case-name: tests.test_port_assignments -*-
"""The pure core of mk-assignments: from cluster state to the Assignment each topology needs.

Port of nimbus.clj ``mk-assignments`` and ``compute-new-scheduler-assignments`` with their
helpers (1.2.4), and of ``Nimbus.mkAssignments``/``lockingMkAssignments``/
``computeNewSchedulerAssignments`` (2.8.8), minus every read and write: the handler reads
``/storms``, ``/assignments``, ``/supervisors`` and the worker heartbeats, calls
:func:`compute_new_assignments`, keeps the returned heartbeat cache, and writes each Assignment
for which :func:`assignment_changed` is true (scheduling.md section 4, steps 1-7).

Shapes: executors are ``(start, end)`` tuples; slots are
:class:`~pynimbus.clojure_port.scheduler.cluster.WorkerSlot` ``(node, port)``; Assignments,
SupervisorInfos and NodeInfos are the Thrift structs of ``pynimbus.generated.storm.ttypes``.
"""

from pynimbus.clojure_port import java_order, liveness
from pynimbus.clojure_port.scheduler.cluster import Cluster, SupervisorDetails, WorkerSlot
from pynimbus.clojure_port.scheduler.default import default_schedule
from pynimbus.generated.storm import ttypes
from pynimbus.jstorm_port.storm_scheduler import jstorm_schedule

STORM_LOCAL_DIR = "storm.local.dir"


def _node_port(node_info):
    """``(node, port)`` of a NodeInfo (its one port; the first if several, as upstream)."""
    return WorkerSlot(node_info.node, next(iter(node_info.port)))


def executor_to_node_port(assignment):
    """``{executor: WorkerSlot}`` of an Assignment (``:executor->node+port``); {} for None."""
    if assignment is None or not assignment.executor_node_port:
        return {}
    return {tuple(e): _node_port(ni) for e, ni in assignment.executor_node_port.items()}


def compute_supervisor_to_dead_ports(existing_assignments, topology_to_executors,
                                     topology_to_alive_executors):
    """Port of nimbus.clj ``compute-supervisor->dead-ports`` (1.2.4) /
    ``computeSupervisorToDeadPorts`` (2.8.8): ``{supervisor_id: {port}}`` of the slots of dead
    executors (executors of the topology that are not alive)."""
    dead_ports = {}
    for topology_id, assignment in existing_assignments.items():
        all_executors = topology_to_executors.get(topology_id) or frozenset()
        alive = topology_to_alive_executors.get(topology_id) or set()
        dead = all_executors - alive
        if not dead:
            continue
        for executor, slot in executor_to_node_port(assignment).items():
            if executor in dead:
                dead_ports.setdefault(slot.node_id, set()).add(slot.port)
    return dead_ports


def compute_topology_to_scheduler_assignment(existing_assignments, topology_to_alive_executors):
    """Port of nimbus.clj ``compute-topology->scheduler-assignment`` (1.2.4) /
    ``computeTopologyToSchedulerAssignment`` (2.8.8): the scheduler's view of the current
    assignments, alive executors only.

    :returns: ``(assignments, slot_resources, wire_orders)``: ``{topology_id: {executor:
        WorkerSlot}}``, ``{topology_id: {WorkerSlot: WorkerResources}}`` (the stored
        ``worker_resources``) and ``{topology_id: ((executor, WorkerSlot), ...)}`` (the stored
        map in its order, for ``java_order``).
    """
    assignments, slot_resources, wire_orders = {}, {}, {}
    for topology_id, assignment in existing_assignments.items():
        alive = topology_to_alive_executors.get(topology_id) or set()
        executor_to_slot = executor_to_node_port(assignment)
        wire_orders[topology_id] = tuple(executor_to_slot.items())
        assignments[topology_id] = {e: s for e, s in executor_to_slot.items() if e in alive}
        slot_resources[topology_id] = {
            _node_port(ni): r for ni, r in (assignment.worker_resources or {}).items()}
    return assignments, slot_resources, wire_orders


def read_all_supervisor_details(supervisors, supervisor_to_dead_ports, compat):
    """Port of nimbus.clj ``read-all-supervisor-details`` (1.2.4) /
    ``readAllSupervisorDetails`` (2.8.8) with the standalone INimbus (every port of
    ``SupervisorInfo.meta`` can be scheduled).

    :param supervisors: ``{supervisor_id: SupervisorInfo}`` in ``/supervisors`` children order.
    :returns: ``{supervisor_id: SupervisorDetails}`` in the order ``Cluster`` iterates it (1.x:
        Java ``HashMap`` order; 2.x: as given), each with its usable ports (minus dead ports) in
        iteration order (1.x: Java ``HashSet`` order; 2.x: ascending).
    """
    if compat == "2.x":
        order = list(supervisors)
    else:
        order = java_order.supervisor_order_1x(list(supervisors))
    details = {}
    for sid in order:
        info = supervisors[sid]
        dead = supervisor_to_dead_ports.get(sid) or ()
        ports = [int(p) for p in (info.meta or ()) if p not in dead]
        if compat == "2.x":
            ports = sorted(set(ports))
        else:
            ports = java_order.port_order_1x(ports)
        details[sid] = SupervisorDetails(sid, info.hostname, info.scheduler_meta, tuple(ports),
                                         info.resources_map)
    return details


def changed_executors(executor_to_node_port_map, new_executor_to_node_port_map):
    """Port of nimbus.clj ``changed-executors`` (1.2.4) / ``changedExecutors`` (2.8.8): the
    executors of every new slot whose executor set differs from what the slot held before.

    :param executor_to_node_port_map: ``{executor: (node, port)}`` before, or None.
    :param new_executor_to_node_port_map: ``{executor: (node, port)}`` now, or None.
    :returns: a sorted list of executors.
    """
    def slot_assigned(amap):
        out = {}
        for executor, slot in (amap or {}).items():
            out.setdefault(tuple(slot), []).append(executor)
        return {slot: sorted(executors) for slot, executors in out.items()}

    old = slot_assigned(executor_to_node_port_map)
    changed = []
    for slot, executors in slot_assigned(new_executor_to_node_port_map).items():
        if old.get(slot) != executors:
            changed.extend(executors)
    return sorted(changed)


def newly_added_slots(existing_assignment, new_assignment):
    """Port of nimbus.clj ``newly-added-slots`` (1.2.4) / ``newlyAddedSlots`` (2.8.8): the slots
    of ``new_assignment`` that ``existing_assignment`` (or None) did not use, as a set of
    WorkerSlot."""
    old = set(executor_to_node_port(existing_assignment).values())
    return set(executor_to_node_port(new_assignment).values()) - old


_ASSIGNMENT_MAPS = ("node_host", "executor_node_port", "executor_start_time_secs",
                    "worker_resources")


def assignment_changed(old, new, compat="1.x"):
    """Whether ``new`` must be written over ``old`` (mk-assignments step 7).

    Port of the ``(= existing-assignment assignment)`` test of nimbus.clj ``mk-assignments``
    (1.2.4) and ``Assignment.equals`` in ``lockingMkAssignments`` (2.8.8).  A missing map
    equals an empty one (a stored Assignment always has them).  1.x compares what its
    Assignment record holds, so ``total_shared_off_heap`` (a 2.x field) is ignored; 2.x
    compares it too.  Deliberate difference: 2.8.8 tells an unset ``total_shared_off_heap``
    from an empty one; the Python structs cannot, so they are equal here.
    """
    if old is None:
        return True
    if old.master_code_dir != new.master_code_dir or old.owner != new.owner:
        return True
    fields = _ASSIGNMENT_MAPS + (("total_shared_off_heap",) if compat == "2.x" else ())
    for field in fields:
        if (getattr(old, field) or {}) != (getattr(new, field) or {}):
            return True
    return False


def _update_liveness(existing, topologies, heartbeat_cache, executor_beats, now, conf, compat):
    """mk-assignments step 2: fold in the beats, then the alive executors per topology.

    Ports of nimbus.clj ``update-all-heartbeats!`` and ``compute-topology->alive-executors``
    (1.2.4), ``updateAllHeartbeats`` and ``computeTopologyToAliveExecutors`` (2.8.8).
    """
    new_cache = dict(heartbeat_cache or {})
    alive = {}
    for topology_id, assignment in existing.items():
        topology = topologies[topology_id]
        timeout = liveness.heartbeat_timeout_secs(conf, topology.conf, compat)
        if liveness.uses_rpc_heartbeats(topology.storm_version, compat):
            cache = liveness.timeout_old_heartbeats(new_cache.get(topology_id), now, timeout)
        else:
            cache = liveness.update_heartbeat_cache(
                new_cache.get(topology_id), (executor_beats or {}).get(topology_id),
                topology.executors, now, timeout, compat)
        new_cache[topology_id] = cache
        launch = liveness.launch_timeout_secs(conf, topology.conf, compat)
        alive[topology_id] = liveness.alive_executors(
            cache, topology.executors, assignment.executor_start_time_secs, now, launch, compat)
    return new_cache, alive


def compute_new_scheduler_assignments(topologies, existing, supervisors, heartbeat_cache,
                                      executor_beats, now, conf, compat,
                                      scratch_topology_id=None, scratch_assignment=None):
    """Port of nimbus.clj ``compute-new-scheduler-assignments`` (1.2.4) /
    ``computeNewSchedulerAssignments`` (2.8.8): steps 2-5 of mk-assignments.

    :param existing: ``{storm_id: Assignment}``, the scratch topology and topologies without
        details left out.
    :param scratch_assignment: the stored Assignment of ``scratch_topology_id`` (only
        ``pynimbus.scheduler: jstorm`` reads it: JStorm's rebalance keeps what it can).
    :returns: ``(cluster, new_heartbeat_cache, errors)``: the scheduled
        :class:`~pynimbus.clojure_port.scheduler.cluster.Cluster`, the cache and ``{storm_id:
        SchedulingError}`` of the topologies the scheduler could not place.

    ``pynimbus.scheduler`` picks the scheduler: ``default`` (Storm's, which reports no
    errors) or ``jstorm`` (:func:`pynimbus.jstorm_port.storm_scheduler.jstorm_schedule`).
    """
    new_cache, alive = _update_liveness(existing, topologies, heartbeat_cache, executor_beats,
                                        now, conf, compat)
    topology_to_executors = {t: topologies[t].executor_set for t in existing}
    dead_ports = compute_supervisor_to_dead_ports(existing, topology_to_executors, alive)
    assignments, slot_resources, wire_orders = compute_topology_to_scheduler_assignment(
        existing, alive)
    details = read_all_supervisor_details(supervisors, dead_ports, compat)
    ordered = {t: topologies[t] for t in java_order.topology_order(list(topologies), compat)}
    cluster = Cluster(details, assignments, ordered, compat, slot_resources, wire_orders,
                      conf=conf)
    errors = {}
    if conf.get("pynimbus.scheduler") == "jstorm":
        cluster, errors = jstorm_schedule(list(ordered.values()), cluster, existing, supervisors,
                                          scratch_topology_id, scratch_assignment, now,
                                          int(conf.get("nimbus.task.launch.secs", 120)))
    else:
        cluster = default_schedule(list(ordered.values()), cluster)
    return cluster, new_cache, errors


def mk_assignment(topology, executor_to_slot, existing_assignment, supervisors, slot_resources,
                  now, master_code_dir, compat):
    """Build one topology's Assignment (the body of mk-assignments' ``new-assignments``).

    - ``executor_node_port``: executor -> NodeInfo(node, {port});
    - ``node_host``: the previous map overlaid with the alive supervisors' hostnames, kept
      only for the nodes now used;
    - ``executor_start_time_secs``: the previous map, then ``now`` for the executors of every
      slot whose executor set changed (:func:`changed_executors`);
    - ``worker_resources``: per used slot (1.x: 0.0 x 3 for new slots);
    - ``total_shared_off_heap``: unset in 1.x (1.2.4 has no such field), ``{}`` in 2.x (2.8.8
      never fills it and the Java struct defaults to an empty map);
    - ``owner``: the topology's submitter.
    """
    node_infos = {}
    executor_node_port = {}
    for executor, slot in executor_to_slot.items():
        node_info = node_infos.get(slot)
        if node_info is None:
            node_info = node_infos[slot] = ttypes.NodeInfo(node=slot.node_id, port={slot.port})
        executor_node_port[executor] = node_info
    all_nodes = {slot.node_id for slot in node_infos}
    node_host = dict(existing_assignment.node_host or {}) if existing_assignment else {}
    for node in all_nodes:
        info = supervisors.get(node)
        if info is not None and info.hostname is not None:
            node_host[node] = info.hostname
    node_host = {node: host for node, host in node_host.items() if node in all_nodes}
    if existing_assignment is not None:
        start_times = {tuple(e): t for e, t in
                       (existing_assignment.executor_start_time_secs or {}).items()}
        old = executor_to_node_port(existing_assignment)
    else:
        start_times, old = {}, None
    for executor in changed_executors(old, executor_to_slot):
        start_times[executor] = now
    worker_resources = {}
    for slot, node_info in node_infos.items():
        resources = slot_resources.get(slot)
        if resources is None:
            resources = ttypes.WorkerResources(mem_on_heap=0.0, mem_off_heap=0.0, cpu=0.0)
        worker_resources[node_info] = resources
    return ttypes.Assignment(
        master_code_dir=master_code_dir, node_host=node_host,
        executor_node_port=executor_node_port, executor_start_time_secs=start_times,
        worker_resources=worker_resources,
        total_shared_off_heap={} if compat == "2.x" else None,
        owner=topology.owner)


def compute_new_assignments(topologies, existing_assignments, supervisors, heartbeat_cache,
                            executor_beats, now, conf, compat, scratch_topology_id=None,
                            master_code_dir=None):
    """:func:`compute_new_assignments_and_errors` without the scheduling errors:
    ``(new_assignments, new_heartbeat_cache)``."""
    new_assignments, new_cache, _errors = compute_new_assignments_and_errors(
        topologies, existing_assignments, supervisors, heartbeat_cache, executor_beats, now,
        conf, compat, scratch_topology_id, master_code_dir)
    return new_assignments, new_cache


def compute_new_assignments_and_errors(topologies, existing_assignments, supervisors,
                                       heartbeat_cache, executor_beats, now, conf, compat,
                                       scratch_topology_id=None, master_code_dir=None):
    """Port of the pure part of nimbus.clj ``mk-assignments`` (1.2.4) / ``mkAssignments`` and
    ``lockingMkAssignments`` (2.8.8): scheduling.md section 4, steps 1-6.

    :param topologies: ``{storm_id: TopologyDetails}`` of every topology in ``/storms``, in the
        children order the backend returned (it breaks ties of 1.x's hash order).
    :param existing_assignments: ``{storm_id: Assignment}`` of every ``/assignments`` child,
        the scratch topology included.
    :param supervisors: ``{supervisor_id: SupervisorInfo}`` of the alive supervisors (those
        with a ``/supervisors`` node), in children order.
    :param heartbeat_cache: Nimbus's in-memory cache, ``{storm_id: {executor:
        HeartbeatEntry}}`` (see :mod:`pynimbus.clojure_port.liveness`); ``{}`` at start.
    :param executor_beats: ``{storm_id: {executor: ExecutorBeat}}`` read from ZooKeeper for the
        slots of each existing assignment (``StormClusterState.executor_beats``); topologies
        missing from it have no beats this round.  In 2.x only topologies that use ZooKeeper
        heartbeats read it (``liveness.uses_rpc_heartbeats``).
    :param now: Nimbus's clock, Unix seconds.
    :param conf: the Nimbus conf (``nimbus.task.timeout.secs``, ``nimbus.task.launch.secs``,
        ``storm.local.dir``).
    :param compat: ``"1.x"`` or ``"2.x"``.
    :param scratch_topology_id: the topology being rebalanced: its assignment is ignored, so
        all its slots are free and every executor starts anew.
    :param master_code_dir: ``Assignment.master_code_dir``; default ``conf["storm.local.dir"]``.
    :returns: ``(new_assignments, new_heartbeat_cache, errors)``.  ``new_assignments`` is
        ``{storm_id: Assignment}`` for every topology the scheduler placed and every topology
        that had an assignment (an empty one when it lost all its slots); a topology that never
        got a slot has none.  Write those for which :func:`assignment_changed` holds.
        ``errors`` is ``{storm_id: SchedulingError}`` of the topologies the scheduler could not
        place this round (only ``pynimbus.scheduler: jstorm`` reports them).

    Deliberate difference: an assignment whose topology is not in ``topologies`` is left
    alone (upstream fails the whole round with a NullPointerException); its slots count as
    free, as upstream's scheduler sees them.
    """
    if master_code_dir is None:
        master_code_dir = conf.get(STORM_LOCAL_DIR)
    existing = {t: a for t, a in existing_assignments.items()
                if t != scratch_topology_id and a is not None and t in topologies}
    cluster, new_cache, errors = compute_new_scheduler_assignments(
        topologies, existing, supervisors, heartbeat_cache, executor_beats, now, conf, compat,
        scratch_topology_id, existing_assignments.get(scratch_topology_id))
    scheduled = cluster.get_assignments()
    ids = list(scheduled)
    ids.extend(t for t in existing_assignments if t not in scheduled and t in topologies)
    new_assignments = {}
    for topology_id in ids:
        new_assignments[topology_id] = mk_assignment(
            topologies[topology_id], scheduled.get(topology_id) or {},
            existing.get(topology_id), supervisors, cluster.get_slot_resources(topology_id),
            now, master_code_dir, compat)
    return new_assignments, new_cache, errors
