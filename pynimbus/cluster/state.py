# -*- test-case-name: tests.test_cluster_state -*-
"""The cluster-state operations of Nimbus, supervisors and workers over a backend.

Port of cluster.clj ``mk-storm-cluster-state`` (Storm 1.2.4), method by method under the
upstream names in snake_case (``set-assignment!`` is :meth:`StormClusterState.set_assignment`).
Values are the Thrift structs Storm stores, never cluster.clj's Clojure records: an
``assignment_info`` is an ``Assignment``, a ``storm_base`` a ``StormBase``.

Deliberate differences, each noted on its method:

* no watch callbacks (Storm's ``callback`` arguments); readers poll, or, in Nimbus, read the
  watch-maintained mirror of :meth:`StormClusterState.start_read_cache`;
* no ZooKeeper ACLs (Storm's default without ZooKeeper authentication);
* names are checked before anything is written (:mod:`~pynimbus.cluster.paths`), so a bad
  topology id, key or supervisor id raises ``ValueError`` and changes nothing;
* the blob-store key-sequence node is read and written here (Storm does it in
  ``KeySequenceNumber.java`` with its own Curator calls).

Every method is synchronous and may block on the store; Twisted code calls it through
``deferToThread``.
"""

import collections
import logging
import threading
import time
import traceback

from pynimbus.generated.storm import ttypes

from pynimbus.cluster import paths
from pynimbus.cluster.backend import ClusterStateError, NoNodeError, NodeExistsError
from pynimbus.cluster.read_cache import CACHED_SUBTREES, TreeMirror, cached_subtree
from pynimbus.cluster.serialization import (copy_struct, decode_int32, decode_int64, encode_int32,
                                            encode_int64, maybe_deserialize, serialize)

log = logging.getLogger(__name__)

VersionedData = collections.namedtuple("VersionedData", "data version")
VersionedData.__doc__ = "A decoded node and its data version; both None when it does not exist."

ExecutorBeat = collections.namedtuple("ExecutorBeat", "time_secs uptime stats")
ExecutorBeat.__doc__ = "One executor's heartbeat, as ``convert-executor-beats`` returns it."

# How many error nodes report-error keeps per component.
ERRORS_KEPT = 10

# thriftify-debugoptions' defaults for a DebugOptions field left unset.
DEBUG_DEFAULT_ENABLE = False
DEBUG_DEFAULT_SAMPLINGPCT = 10.0

_STORM_BASE_FIELDS = frozenset(f[2] for f in ttypes.StormBase.thrift_spec if f is not None)


def thriftify_debug_options(options):
    """Port of converter.clj ``thriftify-debugoptions``: unset fields get Storm's defaults."""
    options = copy_struct(options) if options is not None else ttypes.DebugOptions()
    if options.enable is None:
        options.enable = DEBUG_DEFAULT_ENABLE
    if options.samplingpct is None:
        options.samplingpct = DEBUG_DEFAULT_SAMPLINGPCT
    return options


def thriftify_storm_base(storm_base):
    """Port of converter.clj ``thriftify-storm-base``'s shape: maps 4 and 9 always written.

    Returns a copy with ``component_executors`` and ``component_debug`` set (``{}`` when unset)
    and every DebugOptions completed, as a 1.2.4 Nimbus writes them.
    """
    base = copy_struct(storm_base)
    base.component_executors = dict(base.component_executors or {})
    base.component_debug = {k: thriftify_debug_options(v)
                            for k, v in (base.component_debug or {}).items()}
    return base


def merge_debug_options(old, new):
    """One component of ``update-storm!``'s ``merge-with merge``: set fields of ``new`` win."""
    if old is None:
        return new
    merged = copy_struct(old)
    for name in ("enable", "samplingpct"):
        value = getattr(new, name)
        if value is not None:
            setattr(merged, name, value)
    return merged


def merge_storm_base(base, new_elems):
    """The pure part of cluster.clj ``update-storm!``: ``base`` updated by ``new_elems``.

    ``new_elems`` maps StormBase field names to values.  ``component_executors`` is merged
    into the old map (new entries win), ``component_debug`` is merged per component field by
    field; any other field is replaced, ``None`` clearing it.

    :raises ValueError: for a key that is not a StormBase field.
    """
    unknown = set(new_elems) - _STORM_BASE_FIELDS
    if unknown:
        raise ValueError("not StormBase fields: %s" % ", ".join(sorted(unknown)))
    merged = copy_struct(base)
    for name, value in new_elems.items():
        if name == "component_executors":
            executors = dict(base.component_executors or {})
            executors.update(value or {})
            value = executors
        elif name == "component_debug":
            debug = dict(base.component_debug or {})
            for component, options in (value or {}).items():
                debug[component] = merge_debug_options(debug.get(component), options)
            value = debug
        setattr(merged, name, value)
    return thriftify_storm_base(merged)


def stringify_error(error):
    """Port of util.clj ``stringify-error``: an exception's traceback text, or the string given."""
    if isinstance(error, BaseException):
        return "".join(traceback.format_exception(type(error), error, error.__traceback__))
    return str(error)


def convert_executor_beats(executors, worker_heartbeat):
    """Port of cluster.clj ``convert-executor-beats``: beats of ``executors`` in the heartbeat.

    :param executors: ``(start_task, end_task)`` tuples assigned to the worker.
    :returns: dict of executor tuple to :class:`ExecutorBeat`.
    """
    if worker_heartbeat is None:
        return {}
    stats = {(e.task_start, e.task_end): s
             for e, s in (worker_heartbeat.executor_stats or {}).items()}
    return {tuple(executor): ExecutorBeat(worker_heartbeat.time_secs,
                                          worker_heartbeat.uptime_secs,
                                          stats[tuple(executor)])
            for executor in executors if tuple(executor) in stats}


def _profile_action_name(action):
    try:
        return ttypes.ProfileAction._VALUES_TO_NAMES[action]
    except KeyError:
        raise ValueError("unknown ProfileAction %r" % (action,))


def _single_port(node_info):
    ports = sorted(node_info.port or ())
    if not ports:
        raise ValueError("NodeInfo %r has no port" % (node_info,))
    return ports[0]


class StormClusterState:
    """Storm's cluster state over a :class:`~pynimbus.cluster.backend.Backend`.

    Creating it creates Storm's top-level directories (holding 0x07), as
    ``mk-storm-cluster-state`` does.

    :param backend: the store; :meth:`close` closes it.
    :param clock: returns the time in seconds (``report_error`` timestamps, backpressure age).
    :param compat: "1.x" or "2.x": the generation whose url-encoding names the components in
        error paths (ring-codec's, or Java's ``URLEncoder``).
    """

    def __init__(self, backend, clock=time.time, compat="1.x"):
        self.backend = backend
        self._clock = clock
        self.compat = compat
        # what this session registered and must register again in a new session (Storm
        # does for the nimbus entry): {nimbus id: summary}, {blob key: (host:port, version)}
        self._nimbus_hosts = {}
        self._held_blobs = {}
        self._nimbus_hosts_lock = threading.Lock()
        self._listening = False
        self._cache = None
        self._cache_watch = None
        for subtree in paths.STARTUP_SUBTREES:
            backend.mkdirs(subtree)

    def start_read_cache(self, timeout):
        """Serve the reads of ``CACHED_SUBTREES`` from a mirror the store's watches keep
        current (:mod:`.read_cache`), waiting up to ``timeout`` s for its first full read.

        From then on those reads cost no store round trip; this object's own writes wait until
        the mirror has read them back.  Returns whether the mirror is synchronised (if not,
        reads fail with ConnectionLostError until it is).
        """
        mirror = TreeMirror()
        watch = self.backend.open_tree_watch(mirror, CACHED_SUBTREES)
        self._cache, self._cache_watch = mirror, watch
        return watch.start(timeout)

    @property
    def read_cache(self):
        """The mirror serving the reads (a :class:`~.read_cache.TreeMirror`), or None."""
        return self._cache

    def close(self):
        """Port of ``disconnect``: close the backend, which ends its ephemeral nodes."""
        if self._cache_watch is not None:
            self._cache_watch.close()
        self.backend.close()

    disconnect = close

    def __enter__(self):
        return self

    def __exit__(self, *exc_info):
        self.close()

    # Helpers

    def _cached(self, path):
        return self._cache is not None and cached_subtree(path) is not None

    def _get(self, path, cls):
        if self._cached(path):
            return self._cache.value(path, cls)
        return maybe_deserialize(self.backend.get(path), cls)

    def _get_many(self, ids, path_of, cls):
        """``{id: struct}`` of the ids whose node exists, read in one batch."""
        ids = list(ids)
        if self._cache is not None and ids and self._cached(path_of(ids[0])):
            found = ((node_id, self._cache.value(path_of(node_id), cls)) for node_id in ids)
            return {node_id: value for node_id, value in found if value is not None}
        values = self.backend.get_many([path_of(i) for i in ids])
        found = {}
        for node_id, data in zip(ids, values):
            value = maybe_deserialize(data, cls)
            if value is not None:
                found[node_id] = value
        return found

    def _children(self, path):
        if self._cached(path):
            return self._cache.children(path)
        return self._stored_children(path)

    def _stored_children(self, path):
        try:
            return self.backend.get_children(path)
        except NoNodeError:
            return []

    def _delete_logged(self, path, what, storm_id):
        """Delete as Storm's try-cause/log-warn-error blocks do: log store errors, go on."""
        try:
            self.backend.delete(path)
        except ClusterStateError as e:
            log.warning("Could not teardown %s for %s: %s", what, storm_id, e)
        self._written(path)

    def _written(self, *written):
        """The write barrier: the read cache has read ``written`` back when this returns."""
        if self._cache_watch is not None:
            cached = [p for p in written if cached_subtree(p) is not None]
            if cached:
                self._cache_watch.refresh(cached)

    # Assignments

    def assignments(self):
        """Port of ``assignments`` (no callback): ids of topologies with an assignment."""
        return self._children(paths.ASSIGNMENTS_SUBTREE)

    def assignment_info(self, storm_id):
        """Port of ``assignment-info``: the topology's ``Assignment``, or None."""
        return self._get(paths.assignment_path(storm_id), ttypes.Assignment)

    def assignment_infos(self, storm_ids):
        """``{storm_id: Assignment}`` of those ids that have one (one batched read)."""
        return self._get_many(storm_ids, paths.assignment_path, ttypes.Assignment)

    def assignment_info_with_version(self, storm_id):
        """Port of ``assignment-info-with-version``: a :class:`VersionedData` of the Assignment."""
        found = self.backend.get_with_version(paths.assignment_path(storm_id))
        if found is None:
            return VersionedData(None, None)
        data, version = found
        return VersionedData(maybe_deserialize(data, ttypes.Assignment), version)

    def assignment_version(self, storm_id):
        """Port of ``assignment-version``: the assignment node's data version, or None."""
        found = self.backend.get_with_version(paths.assignment_path(storm_id))
        return None if found is None else found[1]

    def set_assignment(self, storm_id, assignment):
        """Port of ``set-assignment!``: write the topology's ``Assignment``.

        The struct is written as given: an ``Assignment()`` built in Python sets the 2.x-only
        ``total_shared_off_heap`` to ``{}``; set it to None to write exactly what 1.2.4 writes.
        """
        path = paths.assignment_path(storm_id)
        data = serialize(assignment)
        self.backend.set_data(path, data)
        self._written(path)

    def remove_storm(self, storm_id):
        """Port of ``remove-storm!``: delete assignment, credentials, configs and StormBase."""
        doomed = [paths.assignment_path(storm_id), paths.credentials_path(storm_id),
                  paths.log_config_path(storm_id), paths.profiler_config_path(storm_id),
                  paths.storm_path(storm_id)]
        for path in doomed:
            self.backend.delete(path)
        self._written(*doomed)

    # Storm bases

    def active_storms(self):
        """Port of ``active-storms``: ids of topologies with a StormBase."""
        return self._children(paths.STORMS_SUBTREE)

    def storm_base(self, storm_id):
        """Port of ``storm-base`` (no callback): the topology's ``StormBase``, or None."""
        return self._get(paths.storm_path(storm_id), ttypes.StormBase)

    def storm_bases(self, storm_ids):
        """``{storm_id: StormBase}`` of those ids that have one (one batched read)."""
        return self._get_many(storm_ids, paths.storm_path, ttypes.StormBase)

    def activate_storm(self, storm_id, storm_base):
        """Port of ``activate-storm!``: write the topology's first ``StormBase``.

        The maps ``component_executors`` and ``component_debug`` are written even when unset
        (as ``{}``), as 1.2.4's ``thriftify-storm-base`` does.
        """
        path = paths.storm_path(storm_id)
        data = serialize(thriftify_storm_base(storm_base))
        self.backend.set_data(path, data)
        self._written(path)

    def update_storm(self, storm_id, new_elems):
        """Port of ``update-storm!``: read the StormBase, merge ``new_elems``, write it back.

        See :func:`merge_storm_base` for the merge.  Returns the StormBase written.  Like
        Storm, this is a read-modify-write without a lock: callers serialize their updates.

        :raises NoNodeError: when the topology has no StormBase (Storm fails there too).
        :raises ValueError: for a bad id or a key that is not a StormBase field.
        """
        path = paths.storm_path(storm_id)
        # read from the store, not the mirror: Storm's read-modify-write reads ZooKeeper
        base = maybe_deserialize(self.backend.get(path), ttypes.StormBase)
        if base is None:
            raise NoNodeError("topology %s has no StormBase to update" % storm_id)
        merged = merge_storm_base(base, new_elems)
        self.backend.set_data(path, serialize(merged))
        self._written(path)
        return merged

    def remove_storm_base(self, storm_id):
        """Port of ``remove-storm-base!``: delete the topology's StormBase."""
        self.backend.delete(paths.storm_path(storm_id))
        self._written(paths.storm_path(storm_id))

    # Supervisors

    def supervisors(self):
        """Port of ``supervisors`` (no callback): ids of supervisors with a live heartbeat."""
        return self._children(paths.SUPERVISORS_SUBTREE)

    def supervisor_info(self, supervisor_id):
        """Port of ``supervisor-info``: the supervisor's ``SupervisorInfo``, or None."""
        return self._get(paths.supervisor_path(supervisor_id), ttypes.SupervisorInfo)

    def supervisor_infos(self, supervisor_ids):
        """``{supervisor_id: SupervisorInfo}`` of those still registered (one batched read)."""
        return self._get_many(supervisor_ids, paths.supervisor_path, ttypes.SupervisorInfo)

    def all_supervisor_infos(self):
        """``{supervisor_id: SupervisorInfo}`` of every registered supervisor, in the order of
        :meth:`supervisors` (from the read cache in one pass when it serves them)."""
        if self._cached(paths.SUPERVISORS_SUBTREE):
            return self._cache.child_values(paths.SUPERVISORS_SUBTREE, ttypes.SupervisorInfo)
        return self.supervisor_infos(self.supervisors())

    def supervisor_heartbeat(self, supervisor_id, info):
        """Port of ``supervisor-heartbeat!``: write the ``SupervisorInfo`` as an ephemeral node."""
        path = paths.supervisor_path(supervisor_id)
        self.backend.set_ephemeral_node(path, serialize(info))
        self._written(path)

    # Worker heartbeats

    def heartbeat_storms(self):
        """Port of ``heartbeat-storms``: ids of topologies with a workerbeats directory."""
        return self._children(paths.WORKERBEATS_SUBTREE)

    def get_worker_heartbeat(self, storm_id, node, port):
        """Port of ``get-worker-heartbeat``: the worker's ``ClusterWorkerHeartbeat``, or None."""
        return self._get(paths.workerbeat_path(storm_id, node, port),
                         ttypes.ClusterWorkerHeartbeat)

    def executor_beats(self, storm_id, executor_node_port):
        """Port of ``executor-beats``: heartbeats of assigned executors from their own workers,
        and, for an executor whose own worker wrote none, from a record that lists it (the
        one record of a JStorm topology master, :mod:`pynimbus.worker.topology_master`).

        :param executor_node_port: ``Assignment.executor_node_port``: executor tuple to
            ``NodeInfo``.
        :returns: dict of executor tuple to :class:`ExecutorBeat`, only for executors some
            worker of the assignment reported.
        """
        node_port_executors = collections.defaultdict(list)
        for executor, node_info in executor_node_port.items():
            node_port_executors[(node_info.node, _single_port(node_info))].append(tuple(executor))
        beats = {}
        relayed = {}
        for (node, port), executors in node_port_executors.items():
            heartbeat = self.get_worker_heartbeat(storm_id, node, port)
            beats.update(convert_executor_beats(executors, heartbeat))
            # a worker lists its executors and its system executor; a longer list speaks for
            # other workers too
            if heartbeat is not None and len(heartbeat.executor_stats or ()) > len(executors) + 1:
                relayed.update(convert_executor_beats(executor_node_port, heartbeat))
        for executor, beat in relayed.items():
            beats.setdefault(executor, beat)
        return beats

    def worker_heartbeats(self, storm_id, executor_node_port):
        """The ``ClusterWorkerHeartbeat`` (or None) of each worker of an assignment, in slot
        order: what :meth:`executor_beats` reads (with the read cache, one object per change
        of a node, so a reader may keep what it derived from them while they are the same)."""
        slots = sorted({(ni.node, _single_port(ni)) for ni in executor_node_port.values()})
        return tuple(self.get_worker_heartbeat(storm_id, node, port) for node, port in slots)

    def worker_heartbeat(self, storm_id, node, port, info):
        """Port of ``worker-heartbeat!``: write a worker's ``ClusterWorkerHeartbeat``.

        As 1.2.4 (``thriftify-zk-worker-hb`` returns nil), nothing is written while the
        heartbeat has no executor stats.  Returns True when written.
        """
        path = paths.workerbeat_path(storm_id, node, port)
        if not info.executor_stats:
            return False
        self.backend.set_data(path, serialize(info))
        self._written(path)
        return True

    def remove_worker_heartbeat(self, storm_id, node, port):
        """Port of ``remove-worker-heartbeat!``."""
        path = paths.workerbeat_path(storm_id, node, port)
        self.backend.delete(path)
        self._written(path)

    def setup_heartbeats(self, storm_id):
        """Port of ``setup-heartbeats!``: create ``/workerbeats/<storm-id>``."""
        root = paths.workerbeat_storm_root(storm_id)
        self.backend.mkdirs(paths.WORKERBEATS_SUBTREE)
        self.backend.mkdirs(root)
        self._written(root)

    def teardown_heartbeats(self, storm_id):
        """Port of ``teardown-heartbeats!``: delete the topology's heartbeats (failures logged)."""
        self._delete_logged(paths.workerbeat_storm_root(storm_id), "heartbeats", storm_id)

    # Errors

    def error_topologies(self):
        """Port of ``error-topologies``: ids of topologies with an errors directory."""
        return self._children(paths.ERRORS_SUBTREE)

    def setup_errors(self, storm_id):
        """Port of ``setup-errors!``: create ``/errors/<storm-id>``."""
        root = paths.error_storm_root(storm_id)
        self.backend.mkdirs(paths.ERRORS_SUBTREE)
        self.backend.mkdirs(root)
        self._written(root)

    def report_error(self, storm_id, component_id, node, port, error):
        """Port of ``report-error``: add an ``e<seq>`` node, set ``-last-error``, keep 10 newest.

        :param error: the error text, or an exception (its traceback is stored).
        """
        path = paths.error_path(storm_id, component_id, self.compat)
        last_error_path = paths.last_error_path(storm_id, component_id, self.compat)
        info = ttypes.ErrorInfo(error=stringify_error(error),
                                error_time_secs=int(self._clock()), host=node, port=port)
        data = serialize(info)
        self.backend.mkdirs(path)
        created = self.backend.create(path + "/" + paths.ERROR_NODE_PREFIX, data,
                                      sequential=True)
        self.backend.set_data(last_error_path, data)
        children = sorted(filter(paths.is_error_node, self._stored_children(path)),
                          key=_error_sequence, reverse=True)
        for child in children[ERRORS_KEPT:]:
            self.backend.delete(paths.join_path(path, child))
        self._written(paths.error_storm_root(storm_id), path, created, last_error_path)

    def errors(self, storm_id, component_id):
        """Port of ``errors``: the component's kept ``ErrorInfo``s, newest first."""
        path = paths.error_path(storm_id, component_id, self.compat)
        found = []
        for child in filter(paths.is_error_node, self._children(path)):
            info = self._get(paths.join_path(path, child), ttypes.ErrorInfo)
            if info is not None:
                found.append(info)
        return sorted(found, key=lambda e: -e.error_time_secs)

    def last_error(self, storm_id, component_id):
        """Port of ``last-error``: the component's most recent ``ErrorInfo``, or None."""
        return self._get(paths.last_error_path(storm_id, component_id, self.compat),
                         ttypes.ErrorInfo)

    def teardown_topology_errors(self, storm_id):
        """Port of ``teardown-topology-errors!``: delete the topology's errors (logs failures)."""
        self._delete_logged(paths.error_storm_root(storm_id), "errors", storm_id)

    # Credentials, log and profiler configs

    def set_credentials(self, storm_id, creds):
        """Port of ``set-credentials!``: write ``Credentials`` (a dict or None is wrapped)."""
        path = paths.credentials_path(storm_id)
        if not isinstance(creds, ttypes.Credentials):
            creds = ttypes.Credentials(creds=dict(creds or {}))
        data = serialize(creds)
        self.backend.set_data(path, data)

    def credentials(self, storm_id):
        """Port of ``credentials`` (no callback): the topology's ``Credentials``, or None."""
        return self._get(paths.credentials_path(storm_id), ttypes.Credentials)

    def set_topology_log_config(self, storm_id, log_config):
        """Port of ``set-topology-log-config!``: write the ``LogConfig``."""
        path = paths.log_config_path(storm_id)
        data = serialize(log_config)
        self.backend.set_data(path, data)

    def topology_log_config(self, storm_id):
        """Port of ``topology-log-config`` (no callback): the ``LogConfig``, or None."""
        return self._get(paths.log_config_path(storm_id), ttypes.LogConfig)

    def _profile_request_path(self, storm_id, request):
        return paths.profiler_config_path(storm_id, request.nodeInfo.node,
                                          _single_port(request.nodeInfo),
                                          _profile_action_name(request.action))

    def set_worker_profile_request(self, storm_id, request):
        """Port of ``set-worker-profile-request``: write ``<host>_<port>_<ACTION>``."""
        path = self._profile_request_path(storm_id, request)
        self.backend.set_data(path, serialize(request))

    def get_topology_profile_requests(self, storm_id):
        """Port of ``get-topology-profile-requests`` (thrift form): every ``ProfileRequest``."""
        root = paths.profiler_config_path(storm_id)
        found = []
        for child in self._children(root):
            request = self._get(paths.join_path(root, child), ttypes.ProfileRequest)
            if request is not None:
                found.append(request)
        return found

    def get_worker_profile_requests(self, storm_id, node, port):
        """Port of ``get-worker-profile-requests`` (thrift form): the requests for one worker."""
        return [r for r in self.get_topology_profile_requests(storm_id)
                if r.nodeInfo.node == node and _single_port(r.nodeInfo) == port]

    def delete_topology_profile_requests(self, storm_id, request):
        """Port of ``delete-topology-profile-requests``: delete one request's node."""
        self.backend.delete(self._profile_request_path(storm_id, request))

    # Backpressure (1.x workers)

    def backpressure_topologies(self):
        """Port of ``backpressure-topologies``: ids with a backpressure directory."""
        return self._children(paths.BACKPRESSURE_SUBTREE)

    def setup_backpressure(self, storm_id):
        """Port of ``setup-backpressure!``: create ``/backpressure/<storm-id>``."""
        root = paths.backpressure_storm_root(storm_id)
        self.backend.mkdirs(paths.BACKPRESSURE_SUBTREE)
        self.backend.mkdirs(root)

    def remove_backpressure(self, storm_id):
        """Port of ``remove-backpressure!`` (errors are logged)."""
        self._delete_logged(paths.backpressure_storm_root(storm_id), "backpressure", storm_id)

    def worker_backpressure(self, storm_id, node, port, timestamp_ms):
        """Port of ``worker-backpressure!``: a throttled worker's ephemeral timestamp node.

        An existing node gets a positive timestamp; a missing one is created (ephemeral, 8-byte
        big-endian ms) for a positive timestamp.  Deliberate difference: Storm's code also
        creates it for 0, which its own docstring says it should not.
        """
        path = paths.backpressure_path(storm_id, node, port)
        if timestamp_ms is None or timestamp_ms <= 0:
            return
        data = encode_int64(timestamp_ms)
        if self.backend.exists(path):
            self.backend.set_data(path, data)
        else:
            self.backend.set_ephemeral_node(path, data)

    def remove_worker_backpressure(self, storm_id, node, port):
        """Port of ``remove-worker-backpressure!``."""
        self._delete_logged(paths.backpressure_path(storm_id, node, port), "backpressure",
                            storm_id)

    def topology_backpressure(self, storm_id, timeout_ms):
        """Port of ``topology-backpressure`` (no callback): is the topology throttled?

        True when some worker's timestamp is newer than ``timeout_ms`` ago.
        """
        root = paths.backpressure_storm_root(storm_id)
        newest = 0
        for child in self._children(root):
            data = self.backend.get(paths.join_path(root, child))
            newest = max(newest, decode_int64(data) if data else 0)
        return timeout_ms > int(self._clock() * 1000) - newest

    # Nimbuses

    def nimbuses(self):
        """Port of ``nimbuses``: the ``NimbusSummary`` of every registered Nimbus."""
        found = []
        for child in self._children(paths.NIMBUSES_SUBTREE):
            summary = self._get(paths.nimbus_path(child), ttypes.NimbusSummary)
            if summary is not None:  # gone since the listing
                found.append(summary)
        return found

    def add_nimbus_host(self, nimbus_id, nimbus_summary):
        """Port of ``add-nimbus-host!``: ephemeral ``/nimbuses/<host>:<port>``.

        The node is deleted first so that this session owns it, and written again after each
        reconnection of the backend, as Storm's connection listener does.
        """
        path = paths.nimbus_path(nimbus_id)
        data = serialize(nimbus_summary)
        with self._nimbus_hosts_lock:
            self._nimbus_hosts[nimbus_id] = data
        self._listen_for_reconnection()
        self.backend.delete(path)
        self.backend.set_ephemeral_node(path, data)
        self._written(path)

    def _listen_for_reconnection(self):
        with self._nimbus_hosts_lock:
            if self._listening:
                return
            self._listening = True
        self.backend.add_connection_listener(self._on_connection_state)

    def _on_connection_state(self, state):
        """After a reconnection (a new session, when the old one expired): this nimbus's
        entry and the ``/blobstore`` entries of the blobs it holds, both ephemeral, are
        written again.  Storm re-registers the nimbus entry; its blob entries come back only
        with the next upload or sync of each key, so until then ``replication_count`` and
        the followers' syncs would not count this nimbus (a deliberate difference)."""
        if state != self.backend.CONNECTED:
            return
        with self._nimbus_hosts_lock:
            hosts = list(self._nimbus_hosts.items())
            held = list(self._held_blobs.items())
        for nimbus_id, data in hosts:
            path = paths.nimbus_path(nimbus_id)
            try:
                self.backend.delete(path)
                self.backend.set_ephemeral_node(path, data)
            except ClusterStateError as e:
                log.warning("Could not re-register nimbus %s after reconnecting: %s",
                            nimbus_id, e)
        for key, (nimbus_host_port, version) in held:
            try:
                self._register_held_blob(key, nimbus_host_port, version)
            except ClusterStateError as e:
                log.warning("Could not re-register blob %s after reconnecting: %s", key, e)

    # Blob store

    def setup_blobstore(self, key, nimbus_host_port, version):
        """Port of ``setup-blobstore!``: record that this Nimbus holds ``version`` of ``key``.

        Ensures ``/blobstore/<key>``, deletes this Nimbus's ``<host>:<port>-<n>`` children and
        creates the ephemeral ``/blobstore/<key>/<host>:<port>-<version>`` with empty data.
        Deliberate difference: Storm deletes every child *starting with* ``host:port``, so
        ``h:66`` would also remove ``h:6627-1``; here the ``-`` must follow.
        """
        path = paths.blobstore_nimbus_path(key, nimbus_host_port, version)
        key_path = paths.blobstore_path(key)
        with self._nimbus_hosts_lock:
            self._held_blobs[key] = (nimbus_host_port, version)
        self._listen_for_reconnection()
        self.backend.mkdirs(key_path)
        self.backend.delete_node_with_prefix(key_path, nimbus_host_port + "-")
        self.backend.set_ephemeral_node(path, b"")
        self._written(key_path, path)

    def forget_held_blob(self, key):
        """This nimbus no longer holds ``key``: a new session does not register it."""
        with self._nimbus_hosts_lock:
            self._held_blobs.pop(key, None)

    def _register_held_blob(self, key, nimbus_host_port, version):
        """:meth:`setup_blobstore` again in a new session, unless the key was deleted
        meanwhile (then it is forgotten: its ``/blobstore/<key>`` is not made again)."""
        key_path = paths.blobstore_path(key)
        if not self.backend.exists(key_path):
            with self._nimbus_hosts_lock:
                if self._held_blobs.get(key) == (nimbus_host_port, version):
                    del self._held_blobs[key]
            return
        self.backend.delete_node_with_prefix(key_path, nimbus_host_port + "-")
        try:
            self.backend.create(paths.blobstore_nimbus_path(key, nimbus_host_port, version),
                                b"", ephemeral=True)
        except (NoNodeError, NodeExistsError):
            return  # deleted since, or set up again meanwhile by this session
        self._written(key_path)

    def blobstore(self):
        """Port of ``blobstore`` (no callback): sync, then the keys under ``/blobstore``."""
        self.backend.sync(paths.BLOBSTORE_SUBTREE)
        return self._stored_children(paths.BLOBSTORE_SUBTREE)

    def active_keys(self):
        """Port of ``active-keys``: the keys under ``/blobstore``."""
        return self._stored_children(paths.BLOBSTORE_SUBTREE)

    def blobstore_info(self, key):
        """Port of ``blobstore-info``: sync, then a key's ``<host>:<port>-<version>`` children.

        Deliberate difference: None for a key without a node (Storm raises NoNode), so that
        callers can tell "never set up" (``KeySequenceNumber``'s ``checkExists``) from "no
        Nimbus holds it now" (``[]``).
        """
        path = paths.blobstore_path(key)
        self.backend.sync(path)
        try:
            return self.backend.get_children(path)
        except NoNodeError:
            return None

    def blob_replication(self, key):
        """How many nimbuses hold ``key``: the children of ``/blobstore/<key>``, 0 without the
        node (the count of ``LocalFsBlobStore.getBlobReplication``).  Unlike
        :meth:`blobstore_info` it does not sync first, and the read cache answers it when it
        holds ``/blobstore``: queries ask it for every topology they list."""
        path = paths.blobstore_path(key)
        if self._cached(path):
            return self._cache.child_count(path)
        return len(self._stored_children(path))

    def remove_blobstore_key(self, key):
        """Port of ``remove-blobstore-key!``: delete ``/blobstore/<key>``."""
        self.forget_held_blob(key)
        self.backend.delete(paths.blobstore_path(key))
        self._written(paths.blobstore_path(key))

    def remove_key_version(self, key):
        """Port of ``remove-key-version!``: delete ``/blobstoremaxkeysequencenumber/<key>``."""
        self.backend.delete(paths.blobstore_max_key_sequence_number_path(key))

    def get_max_sequence_number(self, key):
        """The int in ``/blobstoremaxkeysequencenumber/<key>`` (``KeySequenceNumber``), or None."""
        data = self.backend.get(paths.blobstore_max_key_sequence_number_path(key))
        return None if data is None else decode_int32(data)

    def set_max_sequence_number(self, key, number):
        """Write ``number`` (4-byte big-endian) to ``/blobstoremaxkeysequencenumber/<key>``.

        As ``KeySequenceNumber`` creates it through Curator's ``creatingParentsIfNeeded``, a
        missing parent is created with empty data (not 0x07).
        """
        path = paths.blobstore_max_key_sequence_number_path(key)
        data = encode_int32(number)
        if self.backend.exists(path):
            try:
                self.backend.set(path, data)
                return
            except NoNodeError:
                pass
        self.backend.mkdirs(paths.BLOBSTORE_MAX_KEY_SEQUENCE_NUMBER_SUBTREE, data=b"")
        try:
            self.backend.create(path, data)
        except NodeExistsError:
            self.backend.set(path, data)


def _error_sequence(name):
    """Port of cluster.clj ``parse-error-path``: the number after the leading ``e``."""
    try:
        return int(name[1:])
    except ValueError:
        return -1
