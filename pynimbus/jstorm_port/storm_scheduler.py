# -*- test-case-name: tests.test_jstorm_scheduler -*-
"""``pynimbus.scheduler: jstorm``: JStorm 2.2.1's placement as mk-assignments' scheduler.

Each topology is placed as JStorm's ``TopologyAssign.mkAssignment`` would place it, one topology
at a time (the one being rebalanced first): :func:`topology_assign_context` builds what
``prepareTopologyAssign`` builds, from Storm's scheduler view, and
:func:`~.topology_scheduler.assign_tasks` places it.  The mapping:

- a Storm executor is a JStorm task whose id is the executor's first task (one task per
  executor);
- NEW: a topology without a stored assignment (or with an empty one); REBALANCE: the topology
  being rebalanced (``scratch``, its old assignment kept where JStorm keeps it; never a
  "reassign"); MONITOR: a topology some of whose executors are not alive (they are the dead
  tasks; alive executors on a supervisor that is gone are the unstopped ones); a topology with
  every executor alive is left as it is (JStorm assigns only on those events); with a
  topology master, JStorm's monitor rule narrows the dead tasks (:func:`monitor_dead_tasks`:
  a dead master's worker alone moves, and nothing moves while a new master is younger than
  ``nimbus.task.launch.secs``);
- the conf JStorm reads is the topology's, with ``topology.workers`` the topology's worker count
  and ``topology.acker.executors`` its number of acker executors; a topology without a
  ``__topology_master`` executor gets ``topology.master.single.worker: false`` unless it sets
  the key, so it is not given a worker for a topology master it does not have;
- a supervisor's worker ports are those it registered; the free ones are those no assignment
  holds and no dead executor occupies (as ``getFreeSlots`` sees them).

A topology JStorm cannot place keeps its slots (none for a new one) and its error is returned
with JStorm's message (:class:`SchedulingError`).  Deliberate difference: a placement naming a
supervisor that is not registered (a ``use.userdefine.assignment`` entry's ``nodeId``) is such
an error, with the message JStorm logs for it; JStorm writes the assignment anyway, with a
worker no supervisor runs.
"""

import collections
import json

from pynimbus.clojure_port.scheduler.cluster import WorkerSlot

from pynimbus.jstorm_port import config_extension
from pynimbus.jstorm_port.common import SYSTEM_COMPONENT_ID
from pynimbus.jstorm_port.java_collections import JavaRuntimeError
from pynimbus.jstorm_port.model import (
    ACKER_COMPONENT_ID, ASSIGN_TYPE_MONITOR, ASSIGN_TYPE_NEW, ASSIGN_TYPE_REBALANCE,
    TOPOLOGY_MASTER_COMPONENT_ID, Assignment, FailedAssignTopologyException, ResourceWorkerSlot,
    SupervisorInfo, TopologyAssignContext)
from pynimbus.jstorm_port.topology_scheduler import assign_tasks

SchedulingError = collections.namedtuple("SchedulingError", "message component_id")
SchedulingError.__doc__ = """Why JStorm could not place a topology: JStorm's message and the
component the error is filed under (:func:`error_component_id`)."""

# where an error that names no component is filed, in order of preference: components every
# topology of that kind has, so getTopologyInfo lists it
_ERROR_COMPONENT_IDS = (TOPOLOGY_MASTER_COMPONENT_ID, ACKER_COMPONENT_ID)


def error_component_id(named_component_id, topology):
    """The component a scheduling error is filed under: the one JStorm's message names, else
    the topology master, else the acker, else the topology's first component (by id)."""
    components = set(topology.executor_to_component.values())
    if named_component_id in components:
        return named_component_id
    for component_id in _ERROR_COMPONENT_IDS:
        if component_id in components:
            return component_id
    return min(components) if components else ACKER_COMPONENT_ID


def check_supervisors_exist(workers, cluster):
    """JStorm's ``getTopologyNodeHost`` check: every worker is on a registered supervisor.

    :raises FailedAssignTopologyException: naming the first (by id) that is not, in JStorm's
        words.
    """
    missing = sorted(set(w.node_id for w in workers) - set(cluster.supervisors), key=str)
    if missing:
        raise FailedAssignTopologyException(
            "Node %s doesn't in the supervisor list" % missing[0])


def raw_topology_of(storm_topology):
    """The raw topology as the port reads it (spouts; bolts with the components they read from;
    each component's JSON conf) from a ``StormTopology``; parallelism is filled in per round."""
    def conf_of(common):
        try:
            conf = json.loads(common.json_conf) if common.json_conf else {}
        except ValueError:
            conf = {}
        return conf if isinstance(conf, dict) else {}

    spouts = dict((cid, {"conf": conf_of(spec.common)})
                  for cid, spec in (storm_topology.spouts or {}).items())
    bolts = dict((cid, {"conf": conf_of(bolt.common),
                        "inputs": sorted(set(g.componentId for g in (bolt.common.inputs or {})))})
                 for cid, bolt in (storm_topology.bolts or {}).items())
    return {"spouts": spouts, "bolts": bolts}


def _with_parallelism(raw_topology, component_counts):
    """The raw topology with each component's executor count as its hint; a component Storm
    added (event logger, metrics consumers) becomes a bolt reading nothing."""
    raw = {"spouts": {}, "bolts": {}}
    for kind in ("spouts", "bolts"):
        for cid, component in (raw_topology or {}).get(kind, {}).items():
            raw[kind][cid] = dict(component, parallelism=component_counts.get(cid, 0))
    for cid, count in component_counts.items():
        if (cid not in raw["spouts"] and cid not in raw["bolts"]
                and cid not in (ACKER_COMPONENT_ID, TOPOLOGY_MASTER_COMPONENT_ID,
                                SYSTEM_COMPONENT_ID)):
            raw["bolts"][cid] = {"parallelism": count, "inputs": [], "conf": {}}
    return raw


def _jstorm_conf(topology, component_counts):
    conf = dict(topology.conf)
    conf[config_extension.TOPOLOGY_WORKERS] = topology.num_workers
    conf[config_extension.TOPOLOGY_ACKER_EXECUTORS] = component_counts.get(ACKER_COMPONENT_ID, 0)
    if TOPOLOGY_MASTER_COMPONENT_ID not in component_counts:
        conf.setdefault(config_extension.TOPOLOGY_MASTER_SINGLE_WORKER, False)
    return conf


def _old_assignment(assignment, supervisors, conf):
    """A stored Storm Assignment as JStorm's: one worker per slot, in the stored map's order."""
    workers = {}
    node_host = assignment.node_host or {}
    for executor, node_info in (assignment.executor_node_port or {}).items():
        slot = (node_info.node, next(iter(node_info.port)))
        worker = workers.get(slot)
        if worker is None:
            info = supervisors.get(slot[0])
            hostname = node_host.get(slot[0]) or (info.hostname if info is not None else None)
            worker = workers[slot] = ResourceWorkerSlot(
                slot[0], slot[1], hostname, (), config_extension.get_mem_size_per_worker(conf),
                config_extension.get_cpu_slot_per_worker(conf))
        worker.tasks.add(executor[0])
    return Assignment(list(workers.values()))


def jstorm_supervisors(cluster, supervisors, old_ports=None):
    """The supervisors as ``prepareTopologyAssign`` and ``getFreeSlots`` leave them: every
    registered port, the free ones those no assignment holds and no dead executor occupies
    (and, for a rebalance, none of ``old_ports``: ``{node: [port]}``, freed again by JStorm)."""
    old_ports = old_ports or {}
    jstorm_cluster = {}
    for supervisor_id, details in cluster.supervisors.items():
        info = supervisors.get(supervisor_id)
        worker_ports = [int(p) for p in (info.meta if info is not None else details.all_ports)]
        free = set(cluster.get_available_ports(details))
        used = [p for p in worker_ports if p not in free or p in old_ports.get(supervisor_id, ())]
        jstorm_cluster[supervisor_id] = SupervisorInfo(supervisor_id, details.host, worker_ports,
                                                       used)
    return jstorm_cluster


def monitor_dead_tasks(dead, stored, tm_task_id, now, launch_secs):
    """The dead tasks a MONITOR round re-places when the topology has a topology master
    (port of the rule in JStorm 2.2.1 ``MonitorRunnable.run``; every executor's heartbeat
    reaches nimbus through the master, so when the master dies they all stop): with the
    master dead, only the tasks of its worker; with the master alive but started less than
    ``nimbus.task.launch.secs`` ago (its heartbeats of the others are not all in yet), none
    (None: the topology waits).  ``dead`` is returned unchanged without a master.

    Mapping: the master's uptime is the time since its executor's start in the stored
    assignment.  Deliberate difference: JStorm's waiting master ends that monitor run for
    every topology; here the other topologies are still looked at."""
    if not tm_task_id:
        return dead
    tm_executor = (tm_task_id, tm_task_id)
    if tm_task_id in dead:
        node_info = (stored.executor_node_port or {}).get(tm_executor)
        if node_info is None:
            return [tm_task_id]
        return sorted(e[0] for e, n in stored.executor_node_port.items() if n == node_info)
    started = (stored.executor_start_time_secs or {}).get(tm_executor)
    if started is None or now - started < launch_secs:
        return None
    return dead


def topology_assign_context(topology, cluster, existing, supervisors, scratch_topology_id=None,
                            scratch_assignment=None, jstorm_cluster=None, now=0,
                            launch_secs=0):
    """What ``prepareTopologyAssign`` would hand JStorm's scheduler for ``topology`` this round,
    or None when JStorm would not assign it (every executor alive, or a topology master
    not long started: :func:`monitor_dead_tasks`, with ``now`` and ``launch_secs``).

    :param jstorm_cluster: the supervisors JStorm's previous placement of this round left (a NEW
        or MONITOR one that succeeded): the same sets, in the same order, as building them
        again from ``cluster`` gives (a placement only removes free ports), so reused."""
    topology_id = topology.topology_id
    assigned = cluster.get_assignment_by_id(topology_id) or {}
    stored = existing.get(topology_id)
    tm_task_id = next((e[0] for e, c in topology.executor_to_component.items()
                       if c == TOPOLOGY_MASTER_COMPONENT_ID), 0)
    dead, unstopped, old = [], [], None
    if topology_id == scratch_topology_id and scratch_assignment is not None \
            and scratch_assignment.executor_node_port:
        assign_type, old = ASSIGN_TYPE_REBALANCE, scratch_assignment
    elif stored is None or not stored.executor_node_port:
        assign_type = ASSIGN_TYPE_NEW
    else:
        dead = [e[0] for e in topology.executors if e not in assigned]
        if dead:
            dead = monitor_dead_tasks(dead, stored, tm_task_id, now, launch_secs)
        if not dead:
            return None
        assign_type, old = ASSIGN_TYPE_MONITOR, stored
        unstopped = sorted(e[0] for e, slot in assigned.items() if slot.node_id not in supervisors)
    component_counts = {}
    for executor in topology.executors:
        component = topology.executor_to_component[executor]
        component_counts[component] = component_counts.get(component, 0) + 1
    conf = _jstorm_conf(topology, component_counts)
    old_assignment = None if old is None else _old_assignment(old, supervisors, conf)
    if assign_type == ASSIGN_TYPE_REBALANCE:
        old_ports = {}
        for worker in old_assignment.workers:
            old_ports.setdefault(worker.node_id, []).append(worker.port)
        jstorm_cluster = jstorm_supervisors(cluster, supervisors, old_ports)
    elif jstorm_cluster is None:
        jstorm_cluster = jstorm_supervisors(cluster, supervisors)
    task_to_component = dict((e[0], topology.executor_to_component[e])
                             for e in topology.executors)
    return TopologyAssignContext(
        assign_type, _with_parallelism(getattr(topology, "raw_topology", None), component_counts),
        conf, jstorm_cluster, task_to_component, old_assignment=old_assignment,
        dead_task_ids=dead, unstopped_task_ids=unstopped, topology_master_task_id=tm_task_id)


def _keep_stored(cluster, topology, stored, supervisors):
    """A topology JStorm does not assign this round keeps its stored placement, executors
    Storm's liveness counts dead included (the scheduler's view lists only the alive ones):
    those of a topology whose master is not long started stay where they are."""
    if stored is None or not stored.executor_node_port:
        return
    if len(cluster.get_assignment_by_id(topology.topology_id) or {}) == len(topology.executors):
        return  # every executor alive: the view is the stored placement
    _apply(cluster, topology, _old_assignment(stored, supervisors, {}).workers)


def _apply(cluster, topology, workers):
    """Give the topology exactly ``workers``' slots in ``cluster``."""
    executor_by_task = dict((e[0], e) for e in topology.executors)
    for slot in set((cluster.get_assignment_by_id(topology.topology_id) or {}).values()):
        cluster.free_slot(slot)
    for worker in workers:
        executors = [executor_by_task[t] for t in sorted(worker.tasks) if t in executor_by_task]
        if executors:
            cluster.assign(WorkerSlot(worker.node_id, worker.port), topology.topology_id,
                           executors)


def jstorm_schedule(topologies, cluster, existing, supervisors, scratch_topology_id=None,
                    scratch_assignment=None, now=0, launch_secs=0):
    """Place ``topologies`` as JStorm 2.2.1 would, the one being rebalanced first.

    :param cluster: the scheduler's :class:`~pynimbus.clojure_port.scheduler.cluster.Cluster`
        (unchanged: a copy is returned).
    :param existing: ``{storm_id: Assignment}`` stored, the rebalanced topology's left out.
    :param supervisors: ``{supervisor_id: SupervisorInfo}`` (Thrift) of the alive supervisors.
    :param scratch_assignment: the stored Assignment of ``scratch_topology_id``.
    :param now: nimbus's clock (Unix seconds) and ``launch_secs`` its
        ``nimbus.task.launch.secs``, for a topology master's monitor rule.
    :returns: ``(cluster, errors)``: the new cluster and ``{storm_id: SchedulingError}`` of
        the topologies JStorm could not place (they keep what they had).
    """
    cluster = cluster.copy()
    errors = {}
    ordered = sorted(topologies, key=lambda t: t.topology_id != scratch_topology_id)
    jstorm_cluster = None
    for topology in ordered:
        context = topology_assign_context(topology, cluster, existing, supervisors,
                                          scratch_topology_id, scratch_assignment, jstorm_cluster,
                                          now, launch_secs)
        if context is None:
            _keep_stored(cluster, topology, existing.get(topology.topology_id), supervisors)
            continue
        jstorm_cluster = None
        try:
            workers = assign_tasks(context)
            check_supervisors_exist(workers, cluster)
            _apply(cluster.copy(), topology, workers)  # a slot clash raises before any change
        except FailedAssignTopologyException as e:
            errors[topology.topology_id] = SchedulingError(
                str(e), error_component_id(e.component_id, topology))
        except (JavaRuntimeError, RuntimeError) as e:
            errors[topology.topology_id] = SchedulingError(
                "JStorm's scheduler failed: %s" % e, error_component_id(None, topology))
        else:
            _apply(cluster, topology, workers)
            if context.assign_type != ASSIGN_TYPE_REBALANCE:
                jstorm_cluster = context.cluster
    return cluster, errors
