"""Read-only Nimbus calls: cluster summary, leader, conf, topology look-ups by id or name.

Ports of nimbus.clj (1.2.4) ``get-cluster-info``, ``make-supervisor-summary``, ``getLeader``,
``isTopologyNameAllowed``, ``getNimbusConf``, and of the 2.8.8 ``getTopologySummaries`` family.
Per topology: ``getTopologyConf``, ``getTopology`` (the system topology, recomputed from the
stored conf and topology as ``system-topology!``), ``getUserTopology`` and
``getTopologyInfo[WithOpts]`` (port of nimbus.clj ``getTopologyInfoWithOpts``: executors with
their host, port and uptime, stats from the workers' heartbeats, errors per component).
Cluster state and blobs are read in a thread (``run_blocking``): the reactor never waits.
An unknown id answers ``NotAliveException(id)``, as Storm does.
"""

import json
import time

from twisted.internet.threads import deferToThread

from pynimbus.clojure_port import system_topology, tasks
from pynimbus.clojure_port.names import validate_topology_name
from pynimbus.generated.storm.ttypes import (
    ClusterSummary, DebugOptions, ExecutorInfo, ExecutorSummary, InvalidTopologyException,
    NotAliveException, NumErrorsChoice, SupervisorSummary, TopologyInfo, TopologyStatus,
    TopologySummary)
from pynimbus.topology_store import read_storm_conf, read_storm_topology


def status_string(status):
    """Port of ``extract-status-str``: the upper-case name of a TopologyStatus value."""
    return TopologyStatus._VALUES_TO_NAMES.get(status, "UNKNOWN")


def executor_tasks(executor):
    """Port of ``executor-id->tasks``: the task ids of executor ``(start, end)``."""
    start, end = executor
    return range(start, end + 1)


def topology_summary(storm_id, base, assignment, now):
    """Port of the topology part of ``get-cluster-info`` (1.2.4) for one StormBase."""
    executor_node_port = assignment.executor_node_port if assignment else {}
    summary = TopologySummary(
        id=storm_id,
        name=base.name,
        num_tasks=sum(len(executor_tasks(e)) for e in executor_node_port),
        num_executors=len(executor_node_port),
        num_workers=len({(n.node, tuple(sorted(n.port))) for n in executor_node_port.values()}),
        uptime_secs=max(0, int(now) - (base.launch_time_secs or int(now))),
        status=status_string(base.status))
    if base.owner:
        summary.owner = base.owner
    return summary


def supervisor_summary(supervisor_id, info):
    """Port of ``make-supervisor-summary`` (1.2.4)."""
    summary = SupervisorSummary(
        host=info.hostname,
        uptime_secs=info.uptime_secs or 0,
        num_workers=len(set(info.meta or ())),
        num_used_workers=len(info.used_ports or ()),
        supervisor_id=supervisor_id,
        total_resources={k: float(v) for k, v in (info.resources_map or {}).items()},
        # 1.x Nimbus sets these from its resource bookkeeping; the 2.x fields are read by the
        # 2.x UI.  Nothing is scheduled by resources yet, so nothing is used.
        used_mem=0.0, used_cpu=0.0, fragmented_mem=0.0, fragmented_cpu=0.0, blacklisted=False)
    if info.version:
        summary.version = info.version
    return summary


class QueriesHandler:
    """``getClusterInfo``, ``getLeader``, ``getNimbusConf``, name checks and id look-ups.

    :param conf: the effective nimbus configuration (a dict).
    :param cluster_state: a :class:`pynimbus.cluster.state.StormClusterState`.
    :param leadership: an object with ``leader()`` -> ``"host:port"`` or None.
    :param started_at: nimbus start time (Unix seconds).
    :param blob_store: the blob store holding each topology's stored conf and code.
    """

    def __init__(self, conf, cluster_state, leadership, started_at, blob_store=None,
                 run_blocking=deferToThread, clock=time.time):
        self.conf = conf
        self.state = cluster_state
        self.blob_store = blob_store
        self.leadership = leadership
        self.started_at = started_at
        self.run_blocking = run_blocking
        self.clock = clock
        # The conf never changes while nimbus runs; encode it once (it is ~10 KB of JSON).
        self._conf_json = json.dumps(conf, default=str)

    @property
    def compat(self):
        return self.conf.get("pynimbus.storm.compat", "1.x")

    # -- reading cluster state (in a thread) -------------------------------------------

    def _bases(self):
        bases = {}
        for storm_id in self.state.active_storms():
            base = self.state.storm_base(storm_id)
            if base is not None:
                bases[storm_id] = base
        return bases

    def _topology_summaries(self, now):
        return [topology_summary(storm_id, base, self.state.assignment_info(storm_id), now)
                for storm_id, base in sorted(self._bases().items())]

    def _nimbus_summaries(self, now):
        leader = self.leadership.leader()
        summaries = []
        for summary in self.state.nimbuses():
            # /nimbuses holds the start time in uptime_secs; readers turn it into an uptime.
            summary.uptime_secs = max(0, int(now) - summary.uptime_secs)
            summary.isLeader = leader == "%s:%s" % (summary.host, summary.port)
            summaries.append(summary)
        return summaries

    def _cluster_info(self):
        now = self.clock()
        supervisors = []
        for supervisor_id in self.state.supervisors():
            info = self.state.supervisor_info(supervisor_id)
            if info is not None:
                supervisors.append(supervisor_summary(supervisor_id, info))
        summary = ClusterSummary(supervisors=supervisors,
                                 topologies=self._topology_summaries(now),
                                 nimbuses=self._nimbus_summaries(now))
        summary.nimbus_uptime_secs = max(0, int(now - self.started_at))
        return summary

    def _leader(self):
        for summary in self._nimbus_summaries(self.clock()):
            if summary.isLeader:
                return summary
        # 1.2.4 fails here too (NullPointerException, an internal error on the wire), which
        # makes Java clients try their next seed.
        raise RuntimeError("no leader nimbus is registered under /nimbuses")

    def _storm_id_of(self, name):
        """Port of ``get-storm-id``: the id of the live topology called ``name``, or None."""
        for storm_id, base in self._bases().items():
            if base.name == name:
                return storm_id
        return None

    def _name_allowed(self, name):
        try:
            validate_topology_name(name, self.compat)
        except InvalidTopologyException:
            return False
        return self._storm_id_of(name) is None

    def _require_storm_base(self, storm_id):
        base = self.state.storm_base(storm_id) if storm_id else None
        if base is None:
            raise NotAliveException(msg=str(storm_id))
        return base

    def _summary_by_id(self, storm_id):
        base = self._require_storm_base(storm_id)
        return topology_summary(storm_id, base, self.state.assignment_info(storm_id), self.clock())

    def _summary_by_name(self, name):
        return self._summary_by_id(self._storm_id_or_not_alive(name))

    def _storm_id_or_not_alive(self, name):
        storm_id = self._storm_id_of(name)
        if storm_id is None:
            raise NotAliveException(msg="%s is not alive" % name)
        return storm_id

    def _stored_conf(self, storm_id):
        return read_storm_conf(self.blob_store, storm_id)

    def _system_topology(self, storm_id):
        return system_topology.system_topology(
            self._stored_conf(storm_id), read_storm_topology(self.blob_store, storm_id),
            self.compat)

    def _topology_info(self, storm_id, options=None):
        """Port of ``getTopologyInfoWithOpts`` (1.2.4)."""
        base = self._require_storm_base(storm_id)
        storm_conf = self._stored_conf(storm_id)
        user_topology = read_storm_topology(self.blob_store, storm_id)
        components = system_topology.all_components(
            system_topology.system_topology(storm_conf, user_topology, self.compat))
        task_to_component = tasks.storm_task_info(user_topology, storm_conf, self.compat)
        assignment = self.state.assignment_info(storm_id)
        executor_node_port = assignment.executor_node_port if assignment else {}
        beats = self.state.executor_beats(storm_id, executor_node_port) if assignment else {}
        executors = []
        for executor, node_info in executor_node_port.items():
            beat = beats.get(tuple(executor))
            summary = ExecutorSummary(
                executor_info=ExecutorInfo(executor[0], executor[1]),
                component_id=task_to_component.get(executor[0]),
                host=(assignment.node_host or {}).get(node_info.node),
                port=next(iter(node_info.port)),
                uptime_secs=(beat.uptime if beat is not None else 0) or 0)
            if beat is not None and beat.stats is not None:
                summary.stats = beat.stats
            executors.append(summary)
        choice = options.num_err_choice if options is not None else None
        errors = {c: self._errors(storm_id, c, choice) for c in components}
        info = TopologyInfo(
            id=storm_id, name=base.name,
            uptime_secs=max(0, int(self.clock()) - (base.launch_time_secs or 0)),
            executors=executors, status=status_string(base.status), errors=errors)
        if base.owner:
            info.owner = base.owner
        info.component_debug = {
            c: DebugOptions(enable=bool(d.enable), samplingpct=d.samplingpct)
            for c, d in (base.component_debug or {}).items()}
        if self.compat == "2.x" and user_topology.storm_version:
            info.storm_version = user_topology.storm_version
        return info

    def _errors(self, storm_id, component, choice):
        if choice == NumErrorsChoice.NONE:
            return []
        if choice == NumErrorsChoice.ONE:
            last = self.state.last_error(storm_id, component)
            return [last] if last is not None else []
        return self.state.errors(storm_id, component)

    # -- Thrift methods ----------------------------------------------------------------

    def getNimbusConf(self):
        return self._conf_json

    def getClusterInfo(self):
        return self.run_blocking(self._cluster_info)

    def getLeader(self):
        return self.run_blocking(self._leader)

    def isTopologyNameAllowed(self, name):
        return self.run_blocking(self._name_allowed, name)

    def getTopologySummaries(self):
        return self.run_blocking(lambda: self._topology_summaries(self.clock()))

    def getTopologySummary(self, storm_id):
        return self.run_blocking(self._summary_by_id, storm_id)

    def getTopologySummaryByName(self, name):
        return self.run_blocking(self._summary_by_name, name)

    def getTopologyConf(self, storm_id):
        return self.run_blocking(
            lambda: json.dumps(self._stored_conf(storm_id), separators=(",", ":")))

    def getTopology(self, storm_id):
        return self.run_blocking(self._system_topology, storm_id)

    def getUserTopology(self, storm_id):
        return self.run_blocking(read_storm_topology, self.blob_store, storm_id)

    def getTopologyInfo(self, storm_id):
        return self.run_blocking(self._topology_info, storm_id)

    def getTopologyInfoWithOpts(self, storm_id, options):
        return self.run_blocking(self._topology_info, storm_id, options)

    def getTopologyInfoByName(self, name):
        return self.run_blocking(
            lambda: self._topology_info(self._storm_id_or_not_alive(name)))

    def getTopologyInfoByNameWithOpts(self, name, options):
        return self.run_blocking(
            lambda: self._topology_info(self._storm_id_or_not_alive(name), options))
