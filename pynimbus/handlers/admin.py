# -*- test-case-name: tests.test_admin_handler -*-
"""Per-topology administration and the operator's other calls.

Ports of nimbus.clj (1.2.4) ``uploadNewCredentials``, ``debug``, ``setLogConfig``,
``getLogConfig``, ``setWorkerProfiler``, ``getComponentPendingProfileActions`` and
``getTopologyHistory``, and of 2.8.8's ``getOwnerResourceSummaries``.  The decisions are the
pure :mod:`pynimbus.clojure_port` modules ``log_config``, ``profiling``, ``topology_history``
and ``owner_resources``; this shell reads and writes cluster state and blobs in threads.

Failures, as Storm answers them: the IDL declares no exception for ``setLogConfig``,
``getLogConfig``, ``setWorkerProfiler`` and ``getComponentPendingProfileActions``, so an unknown
topology id (Storm's NotAliveException), a denied call and a refused LogConfig all reach the
client as ``TApplicationException`` INTERNAL_ERROR; pynimbus puts the reason in its message
("<id> is not alive", "setLogConfig on topology <name> is not authorized", ...).  Nothing is
written then.
"""

import logging
import threading

from twisted.internet import defer
from twisted.internet.threads import deferToThread

from pynimbus.clojure_port import log_config as port_log_config
from pynimbus.clojure_port import owner_resources as port_owner_resources
from pynimbus.clojure_port import profiling as port_profiling
from pynimbus.clojure_port import tasks as port_tasks
from pynimbus.clojure_port import topology_history as port_history
from pynimbus.clojure_port.authorization import get_strings, merged_conf
from pynimbus.common.user_groups import unix_groups
from pynimbus.generated.storm.ttypes import (
    Credentials, DebugOptions, LogConfig, NotAliveException, ProfileAction, TopologyHistoryInfo)
from pynimbus.handlers.authorization import ALLOW_ALL
from pynimbus.handlers.lifecycle import storm_id_of
from pynimbus.handlers.pages import executor_host_port
from pynimbus.nimbus.topology_store import read_storm_conf, read_storm_topology
from pynimbus.thrift.errors import as_application_error

log = logging.getLogger(__name__)


def _not_alive_error(storm_id):
    """Storm's NotAliveException(id) where the IDL declares none: an internal error."""
    return as_application_error("%s is not alive" % storm_id)


def check_profile_request(request):
    """The ProfileRequest fields Storm's deserializer requires, and one port.

    :raises TApplicationException: INTERNAL_ERROR naming what is missing.
    """
    node_info = getattr(request, "nodeInfo", None)
    if request is None or node_info is None or not node_info.node or not node_info.port:
        raise as_application_error(
            "ProfileRequest needs nodeInfo with the worker's host (node) and port")
    if request.action not in ProfileAction._VALUES_TO_NAMES:
        raise as_application_error("ProfileRequest action %r is not a ProfileAction"
                                   % (request.action,))


class AdminHandler:
    """``uploadNewCredentials``, ``debug``, log levels, the worker profiler, the topology
    history and owner resource summaries.

    :param nimbus: the daemon (``state``, ``blob_store``, ``submit_lock``, ``clock``,
        ``topology_history``).
    :param topology_resources: ``(storm_id, base, assignment) -> [six figures] or None``
        (the queries handler's per-topology resources, for ``getOwnerResourceSummaries``).
    :param groups_of: ``user -> groups`` (blocking), for ``getTopologyHistory``.
    """

    authorization = ALLOW_ALL  # the daemon sets the configured one

    def __init__(self, conf, nimbus, run_blocking=deferToThread, topology_resources=None,
                 groups_of=unix_groups):
        self.conf = conf
        self.nimbus = nimbus
        self.run_blocking = run_blocking
        self.topology_resources = topology_resources
        self.groups_of = groups_of
        self.cred_update_lock = defer.DeferredLock()
        self.log_update_lock = threading.Lock()

    @property
    def compat(self):
        return self.conf.get("pynimbus.storm.compat", "1.x")

    def _storm_id(self, name):
        storm_id = storm_id_of(self.nimbus.state, name)
        if storm_id is None:
            raise NotAliveException(msg="%s is not alive" % name)
        return storm_id

    def _authorized_storm_id(self, method, name):
        """Look the topology up by name, then check ``method`` on it (blocking)."""
        storm_id = self._storm_id(name)
        self.authorization.check_stored(method, self.nimbus.blob_store, storm_id, name)
        return storm_id

    def _authorized_conf(self, method, storm_id):
        """Port of ``try-read-storm-conf`` + ``check-authorization!`` for a method whose IDL
        declares no NotAliveException: the stored conf (blocking)."""
        try:
            conf = read_storm_conf(self.nimbus.blob_store, storm_id)
        except NotAliveException:
            raise _not_alive_error(storm_id)
        self.authorization.check(method, conf.get("topology.name"),
                                 self.authorization.topology_conf_for(method, conf))
        return conf

    # -- credentials and debug -------------------------------------------------------------

    @defer.inlineCallbacks
    def uploadNewCredentials(self, name, creds):
        """:raises NotAliveException: no topology has that name.
        :raises AuthorizationException: denied."""
        storm_id = yield self.run_blocking(self._authorized_storm_id, "uploadNewCredentials",
                                           name)
        new = Credentials(creds=dict(creds.creds or {}) if creds is not None else {})
        yield self.cred_update_lock.acquire()
        try:
            yield self.run_blocking(self.nimbus.state.set_credentials, storm_id, new)
        finally:
            self.cred_update_lock.release()

    @defer.inlineCallbacks
    def debug(self, name, component, enable, samplingPercentage):
        """Port of ``debug``: ``component_debug[component or the topology id]``.

        :raises NotAliveException: no topology has that name.
        :raises AuthorizationException: denied.
        """
        storm_id = yield self.run_blocking(self._authorized_storm_id, "debug", name)
        options = DebugOptions(enable=bool(enable))
        if enable:  # while disabling Storm keeps the sampling percentage it had
            options.samplingpct = max(min(float(samplingPercentage or 0.0), 100.0), 0.0)
        key = component if component else storm_id
        log.info("Nimbus setting debug to %s for storm-name '%s' storm-id '%s' sampling pct '%s'%s",
                 enable, name, storm_id, options.samplingpct,
                 " component-id '%s'" % component if component else "")
        lock = self.nimbus.submit_lock
        yield lock.acquire()
        try:
            yield self.run_blocking(self.nimbus.state.update_storm, storm_id,
                                    {"component_debug": {key: options}})
        finally:
            lock.release()

    # -- log levels ------------------------------------------------------------------------

    def setLogConfig(self, name, config):
        """Port of ``setLogConfig``: merge the named loggers into ``/logconfigs/<id>``.

        :raises TApplicationException: unknown id, denied, or a blank logger name or missing
            action (see :mod:`pynimbus.clojure_port.log_config`).
        """
        return self.run_blocking(self._set_log_config, name, config)

    def _set_log_config(self, storm_id, config):
        conf = self._authorized_conf("setLogConfig", storm_id)
        state = self.nimbus.state
        # Storm reads, merges and writes without a lock; concurrent calls here take turns.
        with self.log_update_lock:
            try:
                merged = port_log_config.merge_log_config(
                    state.topology_log_config(storm_id), config,
                    int(self.nimbus.clock() * 1000), self.compat)
            except port_log_config.InvalidLogConfig as e:
                raise as_application_error(e)
            log.info("Setting log config for %s:%s", conf.get("topology.name"), merged)
            state.set_topology_log_config(storm_id, merged)

    def getLogConfig(self, name):
        """Port of ``getLogConfig``: the stored LogConfig, or an empty one.

        :raises TApplicationException: unknown id, or denied.
        """
        return self.run_blocking(self._get_log_config, name)

    def _get_log_config(self, storm_id):
        self._authorized_conf("getLogConfig", storm_id)
        found = self.nimbus.state.topology_log_config(storm_id)
        return found if found is not None else LogConfig()

    # -- worker profiler -------------------------------------------------------------------

    def setWorkerProfiler(self, id, profileRequest):
        """Port of ``setWorkerProfiler``: write ``/profilerconfigs/<id>/<host>_<port>_<ACTION>``.

        :raises TApplicationException: unknown id, denied, or a request without host, port or
            a valid action.
        """
        return self.run_blocking(self._set_worker_profiler, id, profileRequest)

    def _set_worker_profiler(self, storm_id, request):
        self._authorized_conf("setWorkerProfiler", storm_id)
        check_profile_request(request)
        try:
            self.nimbus.state.set_worker_profile_request(storm_id, request)
        except ValueError as e:  # a host that cannot be one path segment
            raise as_application_error("ProfileRequest refused: %s" % e)

    def getComponentPendingProfileActions(self, id, component_id, action):
        """Port of ``getComponentPendingProfileActions``: per worker of the component, the
        newest pending request of ``action``.

        :raises TApplicationException: unknown id, or denied.
        """
        return self.run_blocking(self._pending_profile_actions, id, component_id, action)

    def _pending_profile_actions(self, storm_id, component_id, action):
        conf = self._authorized_conf("getComponentPendingProfileActions", storm_id)
        state = self.nimbus.state
        try:
            topology = read_storm_topology(self.nimbus.blob_store, storm_id)
        except NotAliveException:
            raise _not_alive_error(storm_id)
        if self.compat == "1.x" and state.storm_base(storm_id) is None:
            raise _not_alive_error(storm_id)  # get-common-topo-info's get-launch-time-secs
        task_to_component = port_tasks.storm_task_info(topology, conf, self.compat)
        node_infos = port_profiling.node_infos_for_component(
            executor_host_port(state.assignment_info(storm_id)), task_to_component, False,
            component_id)
        latest = port_profiling.latest_profile_actions(
            state.get_topology_profile_requests(storm_id), node_infos, action)
        log.info("Latest profile actions for topology %s component %s %s",
                 storm_id, component_id, latest)
        return latest

    # -- topology history ------------------------------------------------------------------

    def getTopologyHistory(self, user):
        """Port of ``getTopologyHistory``: ids of running and killed topologies ``user`` may
        read (all of them for None, security being off).  Not authorized by Storm.

        Deliberate difference: a running topology whose conf is gone meanwhile is skipped
        (Storm fails the call).
        """
        return self.run_blocking(self._topology_history, user)

    def _topology_history(self, user):
        state = self.nimbus.state
        running = []
        for storm_id in state.assignments():
            try:
                conf = read_storm_conf(self.nimbus.blob_store, storm_id)
            except NotAliveException:
                continue
            running.append((storm_id, merged_conf(self.conf, conf)
                            if self.compat == "2.x" else conf))
        history = self.nimbus.topology_history.entries()
        admin_groups = get_strings(self.conf.get("nimbus.admins.groups"))
        user_groups = self.groups_of(user) if user else frozenset()
        ids = port_history.topology_history_ids(
            user, running, history, get_strings(self.conf.get("nimbus.admins")), user_groups,
            admin_groups, self.compat)
        return TopologyHistoryInfo(topo_ids=ids)

    # -- owner resources -------------------------------------------------------------------

    def getOwnerResourceSummaries(self, owner):
        """Port of 2.8.8 ``getOwnerResourceSummaries``.

        :raises AuthorizationException: denied.
        """
        return self.run_blocking(self._owner_resource_summaries, owner)

    def _owner_resource_summaries(self, owner):
        self.authorization.check("getOwnerResourceSummaries")
        state = self.nimbus.state
        bases = state.storm_bases(state.active_storms())
        assignments = state.assignment_infos(bases)
        resources = {}
        for storm_ids in port_owner_resources.owner_bases(owner, bases).values():
            for storm_id in storm_ids:
                if self.topology_resources is not None:
                    resources[storm_id] = self.topology_resources(
                        storm_id, bases[storm_id], assignments.get(storm_id))
        return port_owner_resources.owner_resource_summaries(owner, bases, assignments,
                                                             resources)
