# -*- test-case-name: tests.test_handlers_pages -*-
"""The Storm UI's page calls: ``getTopologyPageInfo``, ``getComponentPageInfo``,
``getSupervisorPageInfo``.

Ports of the reified methods of nimbus.clj (1.2.4) and of ``get-common-topo-info``, with the
2.8.8 ``Nimbus.java`` differences the 2.x UI relies on.  The aggregation itself is the pure
:mod:`pynimbus.clojure_port.stats`; this shell reads a topology's stored conf and topology, its
StormBase, assignment, executor heartbeats and errors, and fills in the page's other fields.
Every call reads cluster state and blobs in a thread (``run_blocking``).

Failures, as Storm answers them:

* an unknown or removed topology id: ``NotAliveException(id)``;
* a component the topology does not have: ``NotAliveException`` naming the topology and the
  component.  Deliberate difference: Storm fails with an undeclared error, an INTERNAL_ERROR
  without a message (1.2.4 in ``thriftify-comp-page-data``, 2.8.8 with a NullPointerException);
* a supervisor id that is not registered: ``NotAliveException(id)``.  Deliberate difference:
  Storm fails with a NullPointerException (an internal error); an unknown host is an empty page,
  as in Storm.

Authorization: each page checks its own operation on the topology's stored conf, and the
supervisor page shows a topology's tasks per component only to callers allowed "getTopology"
(``filterAuthorized``).

Resources, as the non-resource-aware schedulers show them: 1.x reads nimbus's in-memory
bookkeeping that each scheduling round fills (the monitor's
:class:`~pynimbus.nimbus.monitor.ResourceBook`: ``get-resources-for-topology`` for the topology's
requested/assigned figures, ``get-worker-resources-for-topology`` for each worker's, the
supervisors' used memory), computing a topology's figures on demand when no round has;
2.x takes each worker's from the Assignment (what 2.8.8's rounds also record) and sets no
topology figures (2.8.8 does only with the ResourceAwareScheduler).

Lists come in upstream's order (:mod:`pynimbus.clojure_port.page_order`).  The pages read
executor heartbeats from ``/workerbeats``, as 2.8.8 does; 1.2.4 reads them from nimbus's
heartbeat cache, which each monitor round refreshes, so its figures may lag ours by up to a
round.  ``sched_status`` is what the scheduler said of a topology it could not place (1.2.4's
``id->sched-status``; only ``pynimbus.scheduler: jstorm`` says anything).
"""

import collections
import json
import logging
import time
import urllib.parse

from twisted.internet.threads import deferToThread

from pynimbus.clojure_port import executors as port_executors
from pynimbus.clojure_port import page_order, stats, system_topology
from pynimbus.clojure_port import resources as port_resources
from pynimbus.clojure_port.java_hash_map import list_hash, string_hash
from pynimbus.cluster import paths
from pynimbus.cluster.serialization import copy_struct
from pynimbus.cluster.state import thriftify_debug_options
from pynimbus.common.stored_topology import master_stormcode_key
from pynimbus.common.transport_secret import without_transport_secret
from pynimbus.generated.storm.ttypes import (
    KeyNotFoundException, NotAliveException, SupervisorPageInfo)
from pynimbus.handlers.authorization import ALLOW_ALL
from pynimbus.handlers.queries import (
    read_stored_inputs, set_resources, status_string, supervisor_summary)

log = logging.getLogger(__name__)

EVENTLOGGER_COMPONENT_ID = "__eventlogger"
SYSTEM_COMPONENT_ID = "__system"

CommonTopoInfo = collections.namedtuple(
    "CommonTopoInfo",
    "storm_id storm_name storm_conf user_topology task_to_component base assignment beats")
CommonTopoInfo.__doc__ = "What ``get-common-topo-info`` reads for one topology."

PageFigures = collections.namedtuple(
    "PageFigures", "replication sched_status topology_resources worker_resources")
PageFigures.__doc__ = """What a topology page shows from outside the cluster state's nodes:
the code blob's replication count, the scheduler's status, the six resource figures of
``get-resources-for-topology`` and ``{(node, port): WorkerResources}``."""


def _port(node_info):
    return sorted(node_info.port)[0]


def executor_node_port(assignment, compat="1.x"):
    """The assignment's executors as ``{(start, end): (node, port)}``, in the order upstream's
    page calls walk them (:func:`pynimbus.clojure_port.page_order.executor_order`)."""
    if assignment is None:
        return {}
    stored = {tuple(e): (ni.node, _port(ni))
              for e, ni in (assignment.executor_node_port or {}).items()}
    return {e: stored[e] for e in page_order.executor_order(stored, compat)}


def executor_host_port(assignment, compat="1.x"):
    """The assignment's executors as ``{(start, end): (host, port)}``, in the same order."""
    node_host = (assignment.node_host or {}) if assignment is not None else {}
    return {e: (node_host.get(node), port)
            for e, (node, port) in executor_node_port(assignment, compat).items()}


def worker_resources(assignment):
    """The Assignment's ``worker_resources`` as ``{(node, port): WorkerResources}`` (what
    ``get-worker-resources-for-topology`` falls back to)."""
    if assignment is None:
        return {}
    return {(ni.node, _port(ni)): r for ni, r in (assignment.worker_resources or {}).items()}


def eventlogger_host_port(component_id, task_to_component, executor_host_port_):
    """Port of the event-logger part of nimbus.clj ``getComponentPageInfo`` (1.2.4): the host
    and port of the logger task that ``component_id``'s events go to (the logger tasks sorted,
    index ``listHashCode([id]) mod count``), or None without event loggers."""
    logger_tasks = sorted(t for t, c in task_to_component.items()
                          if c == EVENTLOGGER_COMPONENT_ID)
    if not logger_tasks:
        return None
    task = logger_tasks[list_hash([string_hash(component_id)]) % len(logger_tasks)]
    for (start, end), (host, port) in sorted(executor_host_port_.items()):
        if start <= task <= end:
            return (host, port) if host is not None and port is not None else None
    return None


class PagesHandler:
    """``getTopologyPageInfo``, ``getComponentPageInfo`` and ``getSupervisorPageInfo``.

    :param conf: the effective nimbus configuration (a dict).
    :param cluster_state: a :class:`pynimbus.cluster.state.StormClusterState`.
    :param blob_store: the blob store holding each topology's stored conf and code.
    :param run_blocking: runs a blocking function off the reactor, returning a Deferred.
    :param clock: returns the time in Unix seconds (uptimes).
    :param resources: the monitor's :class:`~pynimbus.nimbus.monitor.ResourceBook` (1.x resource
        bookkeeping); None: figures computed from the stored topology and Assignment only.
    """

    authorization = ALLOW_ALL  # the daemon sets the configured one
    # ``(storm_id, base, assignment) -> six figures or None``: the daemon sets the queries'
    # get-resources-for-topology, so that every call shares one bookkeeping.
    topology_resources = None
    # ``storm_id -> (stored conf, user topology, system topology, task info)``: the daemon
    # sets the queries' (read once per topology); None: read_stored_inputs per call
    stored_inputs = None
    # ``(storm_id, method) -> bool``: whether a call on the topology reads only memory, so
    # that it is answered on the reactor thread (the daemon sets the queries'); None: never
    memory_only = None

    def __init__(self, conf, cluster_state, blob_store, run_blocking=deferToThread,
                 clock=time.time, resources=None, sched_status=None):
        self.conf = conf
        # storm id -> the scheduler's status of it (the monitor's), or None
        self.sched_status = sched_status or (lambda storm_id: None)
        self.state = cluster_state
        self.blob_store = blob_store
        self.run_blocking = run_blocking
        self.clock = clock
        self.resources = resources
        # storm id -> (stored conf, its JSON as the page shows it): the stored conf never
        # changes, and encoding it was a tenth of a page call
        self._conf_jsons = {}
        self._nodes_memo = None  # (/assignments version, storm id -> supervisor ids)
        # (storm id, window, include sys) -> (what the page was made from, the page), for
        # Storm's windows (:meth:`_page_sources`)
        self._pages = {}

    @property
    def compat(self):
        return self.conf.get("pynimbus.storm.compat", "1.x")

    # -- reading (in a thread, or on the reactor when only memory is read) ----------------

    def _common_topo_info(self, storm_id, method, with_beats=True):
        """Port of nimbus.clj ``get-common-topo-info`` (1.2.4), authorizing ``method``; the
        executors' beats are left out (None) unless ``with_beats``.

        :raises NotAliveException: when the topology's blobs or StormBase are gone.
        :raises AuthorizationException: denied.
        """
        if self.stored_inputs is not None:
            inputs = self.stored_inputs(storm_id)
        else:
            inputs = read_stored_inputs(self.blob_store, storm_id, self.compat)
        storm_conf, user_topology, _system, task_to_component = inputs
        self.authorization.check(method, storm_conf.get("topology.name"), storm_conf)
        base = self.state.storm_base(storm_id)
        if base is None:  # get-launch-time-secs
            raise NotAliveException(msg=str(storm_id))
        assignment = self.state.assignment_info(storm_id)
        beats = self._executor_beats(storm_id, assignment) if with_beats else None
        return CommonTopoInfo(storm_id, storm_conf.get("topology.name"), storm_conf,
                              user_topology, task_to_component, base, assignment, beats)

    def _executor_beats(self, storm_id, assignment):
        return (self.state.executor_beats(storm_id, assignment.executor_node_port)
                if assignment is not None else {})

    def _resources_view(self, info):
        """The topology and conf that component resources are read from, per generation."""
        if self.compat == "2.x":
            conf = dict(self.conf)
            conf.update(info.storm_conf)
            return system_topology.system_topology(info.storm_conf, info.user_topology,
                                                   self.compat), conf
        return info.user_topology, info.storm_conf

    def _topology_conf_json(self, info):
        """The page's ``topology_conf``, encoded once per topology (per stored conf read)."""
        known = self._conf_jsons.get(info.storm_id)
        if known is None or known[0] is not info.storm_conf:
            known = self._conf_jsons[info.storm_id] = (
                info.storm_conf,
                json.dumps(without_transport_secret(self._resources_view(info)[1]),
                           separators=(",", ":")))
            self._forget_inactive(self._conf_jsons, lambda storm_id: storm_id)
        return known[1]

    def _forget_inactive(self, memo, storm_id_of):
        """Drop the entries of ``memo`` whose key (``storm_id_of(key)``) names a topology no
        longer active."""
        active = set(self.state.active_storms())
        for gone in [key for key in memo if storm_id_of(key) not in active]:
            memo.pop(gone, None)  # another thread may have taken it already

    def _debug_options(self, base, key):
        options = (base.component_debug or {}).get(key)
        return thriftify_debug_options(options) if options is not None else None

    def _topology_page_info(self, storm_id, window, include_sys):
        """Port of nimbus.clj ``getTopologyPageInfo`` (1.2.4).  For Storm's windows a page is
        made again only when something it is made from changed (:meth:`_page_sources`);
        each call gets a copy with its own uptime."""
        info = self._common_topo_info(storm_id, "getTopologyPageInfo", with_beats=False)
        window = window or stats.ALL_TIME
        figures = PageFigures(
            self._replication_count(storm_id), self.sched_status(storm_id),
            self.topology_resources(storm_id, info.base, info.assignment)
            if self.topology_resources is not None and self.compat != "2.x" else None,
            self._worker_resources(storm_id, info.assignment))
        sources = self._page_sources(info, figures)
        key = (storm_id, window, include_sys)
        known = self._pages.get(key)
        if known is not None and sources is not None and _same(known[0], sources):
            page = known[1]
        else:
            info = info._replace(beats=self._executor_beats(storm_id, info.assignment))
            page = self._make_topology_page(info, window, include_sys, figures)
            if sources is not None and window in stats.WINDOWS:
                self._remember_page(key, sources, page)
        handed = copy_struct(page)
        handed.uptime_secs = max(0, int(self.clock()) - (info.base.launch_time_secs or 0))
        return handed

    def _page_sources(self, info, figures):
        """Everything a topology page is made from but the clock: the stored conf and code,
        the StormBase, the Assignment, the workers' heartbeats (with the read cache, one
        object per change of a node: compared by identity), a number that changes with any
        error written, and the :class:`PageFigures`; None without the read cache (nothing
        then tells when errors change)."""
        cache = self.state.read_cache
        if cache is None:
            return None
        heartbeats = (self.state.worker_heartbeats(info.storm_id,
                                                   info.assignment.executor_node_port)
                      if info.assignment is not None else ())
        return (info.storm_conf, info.user_topology, info.base, info.assignment, heartbeats,
                cache.subtree_version(paths.ERRORS_SUBTREE), figures)

    def _remember_page(self, key, sources, page):
        """Keep a page for its key; pages of topologies no longer active go."""
        self._pages[key] = (sources, page)
        self._forget_inactive(self._pages, lambda key: key[0])

    def _make_topology_page(self, info, window, include_sys, figures):
        """The page of ``info`` (its beats read) in ``window``, with ``figures``."""
        storm_id = info.storm_id
        nodes = executor_node_port(info.assignment, self.compat)
        node_host = (info.assignment.node_host or {}) if info.assignment is not None else {}
        owner = info.base.owner if self.compat == "2.x" else None
        workers = stats.agg_worker_stats(
            storm_id, info.storm_name, info.task_to_component, info.beats, nodes, node_host,
            figures.worker_resources, include_sys, True, owner=owner, compat=self.compat)
        page = stats.agg_topo_execs_stats(
            storm_id, nodes, info.task_to_component, info.beats, info.user_topology, window,
            include_sys, lambda cid: self.state.last_error(storm_id, cid), self.compat)
        self._add_resources(page, info, include_sys)
        if info.assignment is not None or self.compat != "2.x":
            page.workers = workers  # 2.8.8 sets no list without an Assignment
        base = info.base
        if base.owner:
            page.owner = base.owner
        if self.compat != "2.x":
            self._add_topology_resources(page, info, figures.topology_resources)
        page.name = info.storm_name
        page.status = status_string(base.status)
        page.topology_conf = self._topology_conf_json(info)
        page.replication_count = figures.replication
        debug = self._debug_options(base, storm_id)
        if debug is not None:
            page.debug_options = debug
        if self.compat == "2.x":
            if info.user_topology.storm_version:
                page.storm_version = info.user_topology.storm_version
            if getattr(base, "topology_version", None):
                page.topology_version = base.topology_version
        page.sched_status = figures.sched_status
        return page

    def _add_resources(self, page, info, include_sys):
        """Set each component's ``resources_map`` (1.2.4 and 2.8.8); 2.x also shows every
        spout and bolt with zero stats while no executor has been aggregated
        (``addSpoutAggStats``/``addBoltAggStats``)."""
        topology, conf = self._resources_view(info)
        if self.compat == "2.x":
            if not page.id_to_spout_agg_stats:
                page.id_to_spout_agg_stats = {
                    cid: stats.placeholder_agg_stats(
                        spout, stats.SPOUT, stats.component_resources(topology, conf, cid, "2.x"))
                    for cid, spout in (topology.spouts or {}).items()}
            if not page.id_to_bolt_agg_stats:
                page.id_to_bolt_agg_stats = {
                    cid: stats.placeholder_agg_stats(
                        bolt, stats.BOLT, stats.component_resources(topology, conf, cid, "2.x"))
                    for cid, bolt in (topology.bolts or {}).items()
                    if (include_sys or not stats.is_system_id(cid))
                    and cid != SYSTEM_COMPONENT_ID}
        for by_id in (page.id_to_spout_agg_stats, page.id_to_bolt_agg_stats):
            for cid, agg in by_id.items():
                agg.common_stats.resources_map = stats.component_resources(
                    topology, conf, cid, self.compat)

    def _add_topology_resources(self, page, info, figures):
        """1.x: the six figures of ``get-resources-for-topology`` (1.2.4): ``figures`` (the
        last scheduling round's), else computed from the topology's executors and its
        Assignment."""
        if figures is None:
            executor_to_component = port_executors.executor_to_component(
                port_executors.compute_executors(info.task_to_component,
                                                 info.base.component_executors))
            figures = port_resources.topology_resources_1x(
                info.user_topology, info.storm_conf, executor_to_component,
                info.assignment.worker_resources if info.assignment is not None else None)
        set_resources(page, figures, self.compat)

    def _worker_resources(self, storm_id, assignment):
        """Port of ``get-worker-resources-for-topology`` (1.2.4) / ``getWorkerResourcesForTopology``
        (2.8.8): ``{(node, port): WorkerResources}``.  1.x: the last scheduling round's
        (each used slot charged one worker's memory), else the Assignment's, remembered."""
        if self.compat == "2.x" or self.resources is None:
            return worker_resources(assignment)
        known = self.resources.id_to_worker_resources.get(storm_id)
        if known is not None:
            return known
        computed = worker_resources(assignment)
        self.resources.remember_worker_resources(storm_id, computed)
        return computed

    def _replication_count(self, storm_id):
        try:
            return self.blob_store.get_blob_replication(master_stormcode_key(storm_id))
        except KeyNotFoundException:
            return 0

    def _component_page_info(self, storm_id, component_id, window, include_sys):
        """:meth:`_component_page`, an unknown component answered as not alive."""
        try:
            return self._component_page(storm_id, component_id, window, include_sys)
        except stats.UnknownComponent as e:
            raise NotAliveException(msg=str(e))

    def _component_page(self, storm_id, component_id, window, include_sys):
        """Port of nimbus.clj ``getComponentPageInfo`` (1.2.4).

        2.x, as 2.8.8: the component id arrives URL-encoded and is decoded, and an id that is
        not a spout or bolt of the system topology fails (1.x accepts any ``__`` id).
        """
        info = self._common_topo_info(storm_id, "getComponentPageInfo")
        window = window or stats.ALL_TIME
        topology, conf = self._resources_view(info)
        if self.compat == "2.x":
            component_id = urllib.parse.unquote_plus(component_id)
            if (component_id not in (topology.bolts or {})
                    and component_id not in (topology.spouts or {})):
                raise stats.UnknownComponent(
                    "topology %s has no component %r" % (storm_id, component_id))
        hosts = executor_host_port(info.assignment, self.compat)
        page = stats.agg_comp_execs_stats(
            hosts, info.task_to_component, info.beats, window, include_sys, storm_id,
            info.user_topology, component_id, self.compat)
        page.resources_map = stats.component_resources(topology, conf, component_id,
                                                       self.compat)
        page.topology_name = info.storm_name
        page.errors = self.state.errors(storm_id, component_id)
        page.topology_status = status_string(info.base.status)
        debug = self._debug_options(info.base, component_id)
        if debug is not None:
            page.debug_options = debug
        eventlog = eventlogger_host_port(component_id, info.task_to_component, hosts)
        if eventlog is not None:
            page.eventlog_host, page.eventlog_port = eventlog
        return page

    def _supervisors_in_order(self):
        """``{supervisor_id: SupervisorInfo}`` of the live supervisors, in upstream's order."""
        infos = {}
        for sid in page_order.supervisor_order(self.state.supervisors(), self.compat):
            found = self.state.supervisor_info(sid)
            if found is not None:
                infos[sid] = found
        return infos

    def _supervisor_page_info(self, supervisor_id, host, include_sys):
        """Port of nimbus.clj ``getSupervisorPageInfo`` (1.2.4) / ``Nimbus.getSupervisorPageInfo``
        (2.8.8): the supervisor(s) (by id, or every one on ``host``) and the workers of each
        topology assigned to them, in upstream's order."""
        if supervisor_id is None:
            infos = self._supervisors_in_order()
            supervisor_ids = [s for s, i in infos.items() if i.hostname == host]
        else:
            # one supervisor needs neither the others nor their order (a hash order of every
            # id: most of the call at 1,000 supervisors)
            try:
                found = self.state.supervisor_info(supervisor_id)
            except ValueError:  # no node name ("a/b", ".."): no such supervisor
                found = None
            infos = {} if found is None else {supervisor_id: found}
            supervisor_ids = [supervisor_id]
        nodes_of = self._assignment_nodes()
        # Storm adds to each list (add_to_...), so a list with nothing added stays unset
        page = SupervisorPageInfo()
        for sid in supervisor_ids:
            if sid not in infos:
                raise NotAliveException(msg=str(sid))
            node_resources = None
            if self.compat == "1.x" and self.resources is not None:
                node_resources = self.resources.node_id_to_resources.get(sid)
            page.supervisor_summaries = (page.supervisor_summaries or []) + [
                supervisor_summary(sid, infos[sid], node_resources, self.compat)]
            on_supervisor = [i for i, nodes in nodes_of.items() if sid in nodes]
            for storm_id in page_order.supervisor_topology_order(on_supervisor, self.compat):
                try:
                    info = self._common_topo_info(storm_id, "getSupervisorPageInfo")
                except NotAliveException:
                    log.info("topology %s went away while reading supervisor %s", storm_id, sid)
                    continue
                owner = info.base.owner if self.compat == "2.x" else None
                node_host = (info.assignment.node_host or {}) if info.assignment else {}
                user_authorized = self.authorization.permitted(  # filterAuthorized "getTopology"
                    "getTopology", info.storm_name,
                    self.authorization.topology_conf_for("getTopology", info.storm_conf))
                workers = stats.agg_worker_stats(
                    storm_id, info.storm_name, info.task_to_component, info.beats,
                    executor_node_port(info.assignment, self.compat), node_host,
                    self._worker_resources(storm_id, info.assignment), include_sys,
                    user_authorized, filter_supervisor=sid, owner=owner, compat=self.compat)
                if workers:
                    page.worker_summaries = (page.worker_summaries or []) + workers
        return page

    def _assignment_nodes(self):
        """storm id -> the supervisors its Assignment places executors on; kept while the
        read cache's /assignments did not change (a supervisor page needs only its own
        topologies, and reading every Assignment grew the call with the cluster)."""
        mirror = getattr(self.state, "read_cache", None)
        version = (mirror.subtree_version(paths.ASSIGNMENTS_SUBTREE)
                   if mirror is not None else None)
        known = self._nodes_memo
        if version is not None and known is not None and known[0] == version:
            return known[1]
        nodes_of = {}
        for storm_id in self.state.assignments():
            assignment = self.state.assignment_info(storm_id)
            if assignment is not None:
                nodes_of[storm_id] = frozenset(
                    ni.node for ni in assignment.executor_node_port.values())
        if version is not None:
            self._nodes_memo = (version, nodes_of)
        return nodes_of

    # -- Thrift methods ----------------------------------------------------------------

    def getTopologyPageInfo(self, id, window, is_include_sys):
        if self.memory_only is not None and self.memory_only(id, "getTopologyPageInfo"):
            return self._topology_page_info(id, window, bool(is_include_sys))
        return self.run_blocking(self._topology_page_info, id, window, bool(is_include_sys))

    def getComponentPageInfo(self, topology_id, component_id, window, is_include_sys):
        return self.run_blocking(self._component_page_info, topology_id, component_id, window,
                                 bool(is_include_sys))

    def getSupervisorPageInfo(self, id, host, is_include_sys):
        return self.run_blocking(self._supervisor_page_info, id, host, bool(is_include_sys))


def _same(old, new):
    """Whether two tuples of page sources (always of one length) are the same: each item the
    same object, or equal (the figures, the errors' version)."""
    return all(a is b or a == b for a, b in zip(old, new))
