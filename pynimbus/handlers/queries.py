"""Read-only Nimbus calls: cluster summary, leader, conf, topology look-ups by id or name.

Ports of nimbus.clj (1.2.4) ``get-cluster-info``, ``make-supervisor-summary``, ``getLeader``,
``isTopologyNameAllowed``, ``getNimbusConf``, and of the 2.8.8 ``getTopologySummaries`` family.
Per topology: ``getTopologyConf``, ``getTopology`` (the system topology, recomputed from the
stored conf and topology as ``system-topology!``), ``getUserTopology`` and
``getTopologyInfo[WithOpts]`` (port of nimbus.clj ``getTopologyInfoWithOpts``: executors with
their host, port and uptime, stats from the workers' heartbeats, errors per component).
Cluster state and blobs are read in a thread (``run_blocking``): the reactor never waits.
A per-topology call that would read only memory (:meth:`QueriesHandler.memory_only`) is
answered on the reactor thread instead: the hop to a thread and back, with its wake-ups,
was most of such a call's time.
An unknown id answers ``NotAliveException(id)``, as Storm does.
"""

import json
import time

from thrift.Thrift import TException
from twisted.internet.threads import deferToThread

from pynimbus.clojure_port import executors as port_executors
from pynimbus.clojure_port import resources as port_resources
from pynimbus.clojure_port import page_order, system_topology, tasks
from pynimbus.clojure_port.names import validate_topology_name
from pynimbus.cluster import paths
from pynimbus.cluster.backend import validate_path
from pynimbus.cluster.serialization import copy_struct
from pynimbus.common.stored_topology import master_stormcode_key
from pynimbus.common.transport_secret import without_transport_secret
from pynimbus.generated.storm.ttypes import (
    ClusterSummary, DebugOptions, ExecutorInfo, ExecutorSummary, InvalidTopologyException,
    NotAliveException, NumErrorsChoice, SupervisorAssignments, SupervisorSummary, TopologyInfo,
    TopologyStatus, TopologySummary)
from pynimbus.handlers.authorization import ALLOW_ALL
from pynimbus.nimbus.topology_store import read_storm_conf, read_storm_topology
from pynimbus.thrift.encoded_reply import compose_struct, encode_binary, with_encoding


def status_string(status):
    """Port of ``extract-status-str``: the upper-case name of a TopologyStatus value."""
    return TopologyStatus._VALUES_TO_NAMES.get(status, "UNKNOWN")


def names_a_node(storm_id):
    """True when ``storm_id`` can name a node under ``/storms`` (ZooKeeper's path rules): a
    forged id ("a/b", "..", NUL) names no topology."""
    try:
        validate_path(paths.storm_path(storm_id))
    except ValueError:
        return False
    return True


def executor_tasks(executor):
    """Port of ``executor-id->tasks``: the task ids of executor ``(start, end)``."""
    start, end = executor
    return range(start, end + 1)


def set_resources(summary, resources, compat):
    """Fill the requested/assigned figures of a TopologySummary, TopologyInfo or
    TopologyPageInfo from ``[req on-heap, req off-heap, req cpu, assigned on-heap, off-heap,
    cpu]`` (as ``get-cluster-info`` does when ``get-resources-for-topology`` gives some)."""
    if resources is None:
        return summary
    (summary.requested_memonheap, summary.requested_memoffheap, summary.requested_cpu,
     summary.assigned_memonheap, summary.assigned_memoffheap,
     summary.assigned_cpu) = [float(v) for v in resources]
    if compat == "2.x" and hasattr(summary, "requested_generic_resources"):
        summary.requested_generic_resources = {}
        summary.assigned_generic_resources = {}
    return summary


def read_stored_inputs(blob_store, storm_id, compat):
    """(stored conf, user topology, system topology, task info) of a topology, read from
    ``blob_store``.

    :raises NotAliveException: its conf or code is not in the store."""
    storm_conf = read_storm_conf(blob_store, storm_id)
    user_topology = read_storm_topology(blob_store, storm_id)
    return (storm_conf, user_topology,
            system_topology.system_topology(storm_conf, user_topology, compat),
            tasks.storm_task_info(user_topology, storm_conf, compat))


def assignment_counts(assignment):
    """``(tasks, executors, workers)`` of an Assignment (None: no assignment), as
    ``get-cluster-info`` counts them."""
    executor_node_port = assignment.executor_node_port if assignment else {}
    return (sum(len(executor_tasks(e)) for e in executor_node_port),
            len(executor_node_port),
            len({(n.node, tuple(sorted(n.port))) for n in executor_node_port.values()}))


def topology_summary(storm_id, base, assignment, now):
    """Port of the topology part of ``get-cluster-info`` (1.2.4) for one StormBase."""
    num_tasks, num_executors, num_workers = assignment_counts(assignment)
    summary = TopologySummary(
        id=storm_id,
        name=base.name,
        num_tasks=num_tasks,
        num_executors=num_executors,
        num_workers=num_workers,
        uptime_secs=max(0, int(now) - (base.launch_time_secs or int(now))),
        status=status_string(base.status))
    if base.owner:
        summary.owner = base.owner
    return summary


def supervisor_summary(supervisor_id, info, node_resources=None, compat="1.x"):
    """Port of ``make-supervisor-summary`` (1.2.4) / ``makeSupervisorSummary`` (2.8.8).

    ``node_resources`` is the supervisor's ``[total mem, total cpu, used mem, used cpu]`` from
    the last scheduling round (1.x bookkeeping), None when it had nothing assigned (or in 2.x):
    then the used figures stay unset.  2.x sets ``blacklisted`` (False: pynimbus blacklists no
    supervisor) and, like 2.8.8 without the resource-aware scheduler, no fragmented figures;
    1.2.4 has neither field.
    """
    summary = SupervisorSummary(
        host=info.hostname,
        uptime_secs=info.uptime_secs or 0,
        num_workers=len(set(info.meta or ())),
        num_used_workers=len(info.used_ports or ()),
        supervisor_id=supervisor_id,
        total_resources={k: float(v) for k, v in (info.resources_map or {}).items()})
    if compat == "2.x":
        summary.blacklisted = False
    if node_resources is not None:
        summary.used_mem = node_resources[2] or 0.0
        summary.used_cpu = node_resources[3] or 0.0
    if info.version:
        summary.version = info.version
    return summary


class _SummaryMemo:
    """A topology's ``TopologySummary`` and what it was made from: its StormBase, Assignment,
    booked resources and (replication count, scheduler status).  It is made again only when
    one of those changes (the read cache hands out one object per change of a node's bytes,
    so identity says it).  What is handed out is a copy carrying the uptime, kept with its
    binary encoding."""

    __slots__ = ("base", "assignment", "booked", "changing", "made", "handed", "encoding")

    def __init__(self, base, assignment, booked, changing, made):
        self.base = base
        self.assignment = assignment
        self.booked = booked
        self.changing = changing
        self.made = made
        self.handed = None
        self.encoding = None

    def made_from(self, base, assignment, booked, changing):
        return (self.base is base and self.assignment is assignment and self.booked is booked
                and self.changing == changing)

    def sched_status(self):
        return self.changing[1]

    def handed_at(self, now):
        """A copy of the summary with its uptime at ``now``; calls within one second share
        one copy (nothing writes to what is handed out)."""
        uptime = max(0, int(now) - (self.base.launch_time_secs or int(now)))
        handed = self.handed
        if handed is None or handed.uptime_secs != uptime:
            handed = copy_struct(self.made)
            handed.uptime_secs = uptime
            self.handed = handed
        return handed

    def handed_encoding(self, handed):
        """The binary encoding of ``handed``, a copy :meth:`handed_at` gave, kept with it
        (another thread may have handed out a newer copy meanwhile)."""
        kept = self.encoding
        if kept is not None and kept[0] is handed:
            return kept[1]
        encoding = encode_binary(handed)
        self.encoding = (handed, encoding)
        return encoding


class QueriesHandler:
    """``getClusterInfo``, ``getLeader``, ``getNimbusConf``, name checks and id look-ups.

    :param conf: the effective nimbus configuration (a dict).
    :param cluster_state: a :class:`pynimbus.cluster.state.StormClusterState`.
    :param leadership: an object with ``leader()`` -> ``"host:port"`` or None.
    :param started_at: nimbus start time (Unix seconds).
    :param blob_store: the blob store holding each topology's stored conf and code.
    """

    authorization = ALLOW_ALL  # the daemon sets the configured one

    def __init__(self, conf, cluster_state, leadership, started_at, blob_store=None,
                 run_blocking=deferToThread, clock=time.time, resources=None,
                 sched_status=None):
        self.conf = conf
        # storm id -> the scheduler's status of it (the monitor's), or None
        self.sched_status = sched_status or (lambda storm_id: None)
        # the monitor's ResourceBook (1.x bookkeeping); None: figures computed on demand only
        self.resources = resources
        self.state = cluster_state
        self.blob_store = blob_store
        self.leadership = leadership
        self.started_at = started_at
        self.run_blocking = run_blocking
        self.clock = clock
        # The conf never changes while nimbus runs; encode it once (it is ~10 KB of JSON).
        self._conf_json = json.dumps(conf, default=str)
        self._storm_versions = {}
        self._inputs = {}
        # storm id -> (Assignment, its executors in upstream's walking order): the order
        # follows Java's HashMap layout and was a third of a getTopologyInfo call
        self._executor_orders = {}
        # storm id -> its _SummaryMemo
        self._summaries = {}
        # supervisor id -> (SupervisorInfo, node resources, SupervisorSummary, its
        # encoding), likewise
        self._supervisor_summaries = {}
        # (sources, storm ids, their entries of _summaries, scheduler statuses): the whole
        # list of topology summaries, kept while its sources are the same
        self._summary_list = None

    @property
    def compat(self):
        return self.conf.get("pynimbus.storm.compat", "1.x")

    # -- reading cluster state (in a thread, or on the reactor: memory_only) -------------

    def _bases(self):
        return self.state.storm_bases(self.state.active_storms())

    def _topology_summaries(self, now):
        return [memo.handed_at(now) for memo in self._topology_entries()]

    def _topology_entries(self):
        """The entries of ``_summaries`` of every topology, in storm id order; the list is
        kept while its sources (:meth:`_summary_list_sources`) and the scheduler's statuses
        are the same."""
        sources = self._summary_list_sources()
        kept = self._summary_list
        if sources is not None and kept is not None and kept[0] == sources:
            storm_ids, memos = kept[1], kept[2]
            if [self.sched_status(s) for s in storm_ids] == kept[3]:
                # an equal book in a new map: keep the new one, compared at once next time
                self._summary_list = (sources,) + kept[1:]
                return memos
        bases = self._bases()
        for memo in (self._inputs, self._summaries, self._executor_orders):
            for gone in set(memo) - set(bases):
                memo.pop(gone, None)  # another thread may have taken it already
        assignments = self.state.assignment_infos(bases)
        storm_ids = sorted(bases)
        memos = [self._summary_memo(storm_id, bases[storm_id], assignments.get(storm_id))
                 for storm_id in storm_ids]
        if sources is not None:
            self._summary_list = (sources, storm_ids, memos,
                                  [memo.sched_status() for memo in memos])
        return memos

    def _summary_list_sources(self):
        """What the whole list of topology summaries is made from, but the clock and the
        scheduler's statuses: the read cache's versions of /storms, /assignments and
        /blobstore, which keys the blob store holds and the monitor's booked figures; None
        without the read cache.  While they are the same the list is kept, so a call no
        longer reads every topology's StormBase, Assignment and replication count."""
        mirror = self.state.read_cache
        if mirror is None:
            return None
        return (mirror.subtree_version(paths.STORMS_SUBTREE),
                mirror.subtree_version(paths.ASSIGNMENTS_SUBTREE),
                mirror.subtree_version(paths.BLOBSTORE_SUBTREE),
                self.blob_store.keys_version if self.blob_store is not None else None,
                self._book())

    def _book(self):
        """The monitor's booked figures of every topology (1.x; replaced, never changed, by
        each round), or None."""
        if self.compat == "1.x" and self.resources is not None:
            return self.resources.id_to_resources
        return None

    def _full_summary(self, storm_id, base, assignment, now):
        return self._summary_memo(storm_id, base, assignment).handed_at(now)

    def _summary_memo(self, storm_id, base, assignment):
        """The topology's memo entry, its summary made again when one of its sources
        changed."""
        changing = (self._replication_count(storm_id), self.sched_status(storm_id))
        memo = self._summaries.get(storm_id)
        if memo is None or not memo.made_from(base, assignment,
                                              self._booked_resources(storm_id), changing):
            made = topology_summary(storm_id, base, assignment, now=0)
            set_resources(made, self.resources_for_topology(storm_id, base, assignment),
                          self.compat)
            made.replication_count, made.sched_status = changing
            if self.compat == "2.x" and self.blob_store is not None:
                version = self._storm_version(storm_id)
                if version:
                    made.storm_version = version
            # the book as it is now: making the summary may have booked its figures
            memo = self._summaries[storm_id] = _SummaryMemo(
                base, assignment, self._booked_resources(storm_id), changing, made)
        return memo

    def _booked_resources(self, storm_id):
        """The monitor's booked figures of the topology (1.x), whose change remakes its
        summary; None when there is no book."""
        book = self._book()
        return book.get(storm_id) if book is not None else None

    def stored_inputs(self, storm_id):
        """(stored conf, user topology, system topology, task info) of a topology, computed
        once: a topology's stored code and conf never change (rebalance changes only the
        StormBase).  Killed topologies leave the cache when they leave /storms."""
        inputs = self._inputs.get(storm_id)
        if inputs is None:
            inputs = self._inputs[storm_id] = read_stored_inputs(self.blob_store, storm_id,
                                                                 self.compat)
        return inputs

    def _storm_version(self, storm_id):
        """2.8.8 summaries carry the topology's storm_version; stored code never changes, so
        it is read once per topology."""
        if storm_id not in self._storm_versions:
            try:
                version = read_storm_topology(self.blob_store, storm_id).storm_version
            except TException:
                return None
            self._storm_versions[storm_id] = version
        return self._storm_versions[storm_id]

    def _replication_count(self, storm_id):
        """Port of ``get-blob-replication-count`` of the topology's code blob."""
        if self.blob_store is None:
            return None
        try:
            return self.blob_store.get_blob_replication(master_stormcode_key(storm_id))
        except TException:
            return None

    def resources_for_topology(self, storm_id, base, assignment):
        """Port of ``get-resources-for-topology`` (1.2.4) / ``getResourcesForTopology``
        (2.8.8): the six figures, or None when the topology's code cannot be read."""
        if self.compat == "1.x" and self.resources is not None:
            known = self.resources.id_to_resources.get(storm_id)
            if known is not None:
                return known
        if self.blob_store is None:
            return None
        try:
            storm_conf, user_topology, system, task_info = self.stored_inputs(storm_id)
        except TException:
            return None
        executor_to_component = port_executors.executor_to_component(
            port_executors.compute_executors(task_info, base.component_executors))
        if self.compat == "2.x":
            assigned = {tuple(e) for e in (assignment.executor_node_port or {})} \
                if assignment is not None else set()
            return port_resources.topology_resources_2x(
                system, storm_conf, executor_to_component, assigned)
        computed = port_resources.topology_resources_1x(
            user_topology, storm_conf, executor_to_component,
            assignment.worker_resources if assignment is not None else None)
        if self.resources is not None:
            self.resources.remember(storm_id, computed)
        return computed

    def _nimbus_summaries(self, now):
        leader = self.leadership.leader()
        summaries = []
        for stored in self.state.nimbuses():
            summary = copy_struct(stored)  # the read cache shares what it decoded
            # /nimbuses holds the start time in uptime_secs; readers turn it into an uptime.
            summary.uptime_secs = max(0, int(now) - summary.uptime_secs)
            summary.isLeader = leader == "%s:%s" % (summary.host, summary.port)
            summaries.append(summary)
        return summaries

    def _cluster_info(self):
        """Port of ``getClusterInfo``: the summary, with its encoding made from the kept
        encodings of its supervisors' and topologies' summaries (the server writes it as it
        is: encoding ~2,000 summaries again was most of a call on a large cluster)."""
        now = self.clock()
        supervisors = self._supervisor_entries()
        memos = self._topology_entries()
        topologies = [memo.handed_at(now) for memo in memos]
        summary = ClusterSummary(supervisors=[entry[2] for entry in supervisors],
                                 topologies=topologies,
                                 nimbuses=self._nimbus_summaries(now))
        summary.nimbus_uptime_secs = max(0, int(now - self.started_at))
        return with_encoding(summary, compose_struct(summary, {
            "supervisors": [entry[3] for entry in supervisors],
            "topologies": [memo.handed_encoding(handed)
                           for memo, handed in zip(memos, topologies)]}))

    def _supervisor_entries(self):
        """Every supervisor's entry ``(SupervisorInfo, node resources, SupervisorSummary, its
        encoding)``, made again only when its SupervisorInfo (one object per change in the
        read cache) or its booked resources changed."""
        infos = self.state.all_supervisor_infos()
        memo = self._supervisor_summaries
        for gone in set(memo) - set(infos):
            memo.pop(gone, None)  # another thread may have taken it already
        compat = self.compat
        booked = (self.resources.node_id_to_resources
                  if compat == "1.x" and self.resources is not None else {})
        entries = []
        for supervisor_id, info in infos.items():
            node_resources = booked.get(supervisor_id)
            known = memo.get(supervisor_id)
            if known is None or known[0] is not info or known[1] is not node_resources:
                made = supervisor_summary(supervisor_id, info, node_resources, compat)
                known = memo[supervisor_id] = (info, node_resources, made, encode_binary(made))
            entries.append(known)
        return entries

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

    def _storm_base(self, storm_id):
        """The StormBase of ``storm_id``, or None; an id that is no path segment ("a/b",
        "..", NUL) names no topology, as an unknown one."""
        return self.state.storm_base(storm_id) if names_a_node(storm_id) else None

    def _require_storm_base(self, storm_id):
        base = self._storm_base(storm_id)
        if base is None:
            raise NotAliveException(msg=str(storm_id))
        return base

    def _summary_by_id(self, storm_id, method="getTopologySummary"):
        base = self._storm_base(storm_id)
        if base is None:  # 2.8.8 getTopologySummary's message
            raise NotAliveException(msg="%s is not alive" % storm_id)
        if method is not None:
            self.authorization.check(method, base.name)
        return self._full_summary(storm_id, base, self.state.assignment_info(storm_id),
                                  self.clock())

    def _summary_by_name(self, name):
        self.authorization.check("getTopologySummaryByName", name)
        return self._summary_by_id(self._storm_id_or_not_alive(name), method=None)

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
        _conf, user_topology, _system, task_to_component = self.stored_inputs(storm_id)
        # errors are listed for the components that have tasks (get-common-topo-info's
        # all-components: the values of task->component), so not for __system
        components = sorted(set(task_to_component.values()))
        assignment = self.state.assignment_info(storm_id)
        executor_node_port = assignment.executor_node_port if assignment else {}
        beats = self.state.executor_beats(storm_id, executor_node_port) if assignment else {}
        executors = []
        for executor in self._executor_order(storm_id, assignment):
            node_info = executor_node_port[executor]
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
        if self.compat == "1.x":
            set_resources(info, self.resources_for_topology(storm_id, base, assignment),
                          self.compat)
        info.replication_count = self._replication_count(storm_id)
        info.sched_status = self.sched_status(storm_id)
        return info

    def _executor_order(self, storm_id, assignment):
        """The assignment's executors in the order upstream walks its executor->node+port
        (what the UI lists), kept while the read cache hands out the same Assignment."""
        known = self._executor_orders.get(storm_id)
        if known is not None and known[0] is assignment:
            return known[1]
        executor_node_port = assignment.executor_node_port if assignment else {}
        slots = {tuple(e): (ni.node, min(ni.port)) for e, ni in executor_node_port.items()}
        order = list(page_order.executor_order(slots, self.compat, "info"))
        if self.state.read_cache is not None and assignment is not None:
            self._executor_orders[storm_id] = (assignment, order)
        return order

    def _supervisor_assignments(self, node):
        """Port of 2.8.8 ``getSupervisorAssignments`` and ``assignmentsForNodeId``: every
        Assignment whose ``node_host`` names ``node``; nothing (a missing result) when this
        nimbus is not the leader."""
        is_leader = getattr(self.leadership, "is_leader", None)
        if is_leader is not None and not is_leader():
            return None
        ret = {}
        for storm_id in self.state.assignments():
            assignment = self.state.assignment_info(storm_id)
            if assignment is not None and node in (assignment.node_host or {}):
                ret[storm_id] = assignment
        return SupervisorAssignments(storm_assignment=ret)

    def _errors(self, storm_id, component, choice):
        if choice == NumErrorsChoice.NONE:
            return []
        if choice == NumErrorsChoice.ONE:
            last = self.state.last_error(storm_id, component)
            return [last] if last is not None else []
        return self.state.errors(storm_id, component)

    def _authorized(self, method, storm_id, work, *args):
        """``check-authorization!`` against the topology's stored conf, then ``work``."""
        self.authorization.check_stored(method, self.blob_store, storm_id)
        return work(*args)

    def memory_only(self, storm_id, method):
        """Whether ``method`` on ``storm_id`` reads nothing but memory, so that it may run on
        the reactor thread: the read cache serves the cluster state, the topology's stored
        inputs were read before (:meth:`stored_inputs`), and no authorizer reads its stored
        conf.  The blob store's replication count and the monitor's bookkeeping it also reads
        are in memory."""
        return (self.state.read_cache is not None and storm_id in self._inputs
                and not self.authorization.reads_stored_conf(method))

    def _per_topology(self, method, storm_id, work, *args):
        """``work(*args)`` after the authorization of ``method``: at once when it reads only
        memory, else in a thread."""
        if self.memory_only(storm_id, method):
            return self._authorized(method, storm_id, work, *args)
        return self.run_blocking(self._authorized, method, storm_id, work, *args)

    def _info_by_name(self, method, name, options=None):
        storm_id = self._storm_id_or_not_alive(name)
        return self._authorized(method, storm_id, self._topology_info, storm_id, options)

    # -- Thrift methods ----------------------------------------------------------------

    def getNimbusConf(self):
        self.authorization.check("getNimbusConf")
        return self._conf_json

    def getClusterInfo(self):
        self.authorization.check("getClusterInfo")
        return self.run_blocking(self._cluster_info)

    def getLeader(self):
        self.authorization.check("getLeader")
        return self.run_blocking(self._leader)

    def isTopologyNameAllowed(self, name):
        self.authorization.check("isTopologyNameAllowed", name)
        return self.run_blocking(self._name_allowed, name)

    def getTopologySummaries(self):
        self.authorization.check("getTopologySummaries")
        return self.run_blocking(lambda: self._topology_summaries(self.clock()))

    def getTopologySummary(self, storm_id):
        return self.run_blocking(self._summary_by_id, storm_id)

    def getTopologySummaryByName(self, name):
        return self.run_blocking(self._summary_by_name, name)

    def getTopologyConf(self, storm_id):
        return self.run_blocking(
            self._authorized, "getTopologyConf", storm_id,
            lambda: json.dumps(without_transport_secret(self._stored_conf(storm_id)),
                               separators=(",", ":")))

    def getTopology(self, storm_id):
        return self.run_blocking(self._authorized, "getTopology", storm_id,
                                 self._system_topology, storm_id)

    def getUserTopology(self, storm_id):
        return self.run_blocking(self._authorized, "getUserTopology", storm_id,
                                 read_storm_topology, self.blob_store, storm_id)

    def getTopologyInfo(self, storm_id):
        return self._per_topology("getTopologyInfo", storm_id, self._topology_info, storm_id)

    def getTopologyInfoWithOpts(self, storm_id, options):
        return self._per_topology("getTopologyInfoWithOpts", storm_id, self._topology_info,
                                  storm_id, options)

    def getSupervisorAssignments(self, node):
        self.authorization.check("getSupervisorAssignments")
        return self.run_blocking(self._supervisor_assignments, node)

    def getTopologyInfoByName(self, name):
        return self.run_blocking(self._info_by_name, "getTopologyInfoByName", name)

    def getTopologyInfoByNameWithOpts(self, name, options):
        return self.run_blocking(self._info_by_name, "getTopologyInfoByNameWithOpts", name,
                                 options)
