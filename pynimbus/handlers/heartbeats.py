# -*- test-case-name: tests.test_handlers_heartbeats -*-
"""What 2.x supervisors and workers report to Nimbus: RPC worker heartbeats and metrics.

Ports of 2.8.8 ``Nimbus.sendSupervisorWorkerHeartbeats``, ``sendSupervisorWorkerHeartbeat``
and ``processWorkerMetrics``.  A 2.x supervisor sends the heartbeats of its workers (storm id,
executors, worker time) instead of the workers writing ``/workerbeats`` every few seconds;
the leader folds them into its executor heartbeat cache (the monitor's, under the monitor's
lock), so liveness sees those executors alive without ZooKeeper.  A nimbus that is not the
leader accepts and ignores them, as 2.8.8 does.

Both methods answer in either generation (pynimbus serves the union IDL); only a 2.x nimbus
lets them count for liveness: 1.x liveness is ZooKeeper heartbeats, as in 1.2.4, which has no
such methods.  Authorization: each method calls ``self.authorization.check`` where 2.8.8
calls ``checkAuthorization`` (the daemon sets ``authorization``; None allows every call, as
Storm without an authorizer).
"""

import logging

from twisted.internet import defer
from twisted.internet.threads import deferToThread

from pynimbus.clojure_port import liveness
from pynimbus.generated.storm.ttypes import NotAliveException
from pynimbus.nimbus.topology_store import read_storm_conf

log = logging.getLogger(__name__)


class HeartbeatsHandler:
    """``sendSupervisorWorkerHeartbeats``, ``sendSupervisorWorkerHeartbeat``,
    ``processWorkerMetrics``.

    :param nimbus: the daemon (``is_leader()``, ``monitor``, ``blob_store``).
    """

    authorization = None  # an object with ``check(method, storm_name, topology_conf)``

    def __init__(self, conf, nimbus, run_blocking=deferToThread):
        self.conf = conf
        self.nimbus = nimbus
        self.run_blocking = run_blocking

    def _check(self, method, storm_name=None, topology_conf=None):
        if self.authorization is not None:
            self.authorization.check(method, storm_name, topology_conf)

    def _timeouts(self, storm_ids):
        """``{storm_id: heartbeat timeout}`` (blocking: a topology's conf is read once)."""
        return {storm_id: self.nimbus.monitor.heartbeat_timeout_secs(storm_id)
                for storm_id in storm_ids}

    @defer.inlineCallbacks
    def sendSupervisorWorkerHeartbeats(self, heartbeats):
        """Port of ``sendSupervisorWorkerHeartbeats`` (2.8.8): one supervisor's workers.

        Leader only (others ignore the call).  A heartbeat for a storm id nobody submitted is
        kept with nimbus's ``nimbus.task.timeout.secs``, as upstream (until the next round:
        see :mod:`pynimbus.nimbus.monitor`).  Deliberate difference: a malformed heartbeat (no storm
        id, no executors list) is skipped with a warning and the others are applied; 2.8.8
        stops at it and answers success.  The reporting supervisor id counts for a new
        leader's wait for heartbeats.

        :raises AuthorizationException: the authorizer denies the call.
        """
        self._check("sendSupervisorWorkerHeartbeats")
        supervisor_id = getattr(heartbeats, "supervisor_id", None)
        if not self.nimbus.is_leader():
            log.debug("not the leader: ignoring the worker heartbeats of %s", supervisor_id)
            return
        parsed = []
        for heartbeat in getattr(heartbeats, "worker_heartbeats", None) or ():
            beat = liveness.rpc_heartbeat_executors(heartbeat)
            if beat is None:
                log.warning("skipping a malformed worker heartbeat from supervisor %s: %r",
                            supervisor_id, heartbeat)
            else:
                parsed.append(beat)
        timeouts = {}
        if parsed:
            timeouts = yield self.run_blocking(self._timeouts, {b[0] for b in parsed})
        yield self.nimbus.monitor.record_rpc_heartbeats(
            [(storm_id, executors, time_secs, timeouts[storm_id])
             for storm_id, executors, time_secs in parsed],
            supervisor_id=supervisor_id)

    @defer.inlineCallbacks
    def sendSupervisorWorkerHeartbeat(self, heartbeat):
        """Port of ``sendSupervisorWorkerHeartbeat`` (2.8.8): one worker's heartbeat.

        The topology's conf is read first, on any nimbus; then the leader records the beat.

        :raises NotAliveException: no topology has that storm id (or the heartbeat has none,
            or is otherwise malformed: 2.8.8 fails with an internal error there).
        :raises AuthorizationException: the authorizer denies the call on that topology.
        """
        beat = liveness.rpc_heartbeat_executors(heartbeat)
        if beat is None:
            raise NotAliveException(
                msg="malformed worker heartbeat: it needs a storm_id and a list of executors "
                    "with task_start and task_end, got %r" % (heartbeat,))
        storm_id, executors, time_secs = beat
        storm_conf = yield self.run_blocking(read_storm_conf, self.nimbus.blob_store, storm_id)
        self._check("sendSupervisorWorkerHeartbeat", storm_conf.get("topology.name"), storm_conf)
        if not self.nimbus.is_leader():
            log.debug("not the leader: ignoring a worker heartbeat of %s", storm_id)
            return
        monitor = self.nimbus.monitor
        timeout = liveness.heartbeat_timeout_secs(self.conf, storm_conf, monitor.compat)
        yield monitor.record_rpc_heartbeats([(storm_id, executors, time_secs, timeout)])

    def processWorkerMetrics(self, metrics):
        """Port of ``processWorkerMetrics`` (2.8.8): accepted and dropped.

        2.8.8 stores each metric point in its metrics store (RocksDB by default) and logs,
        never raises, when a point cannot be stored; without a store it returns at once.
        Deliberate difference: pynimbus keeps no metrics store, so it always returns at once
        (the points are logged at debug level); nothing reads them back (the UI's metrics
        come from the worker heartbeats).
        """
        self._check("processWorkerMetrics")
        metric_list = getattr(metrics, "metricList", None)
        points = getattr(metric_list, "metrics", None) or ()
        log.debug("dropping %d metric points of topology %s from %s:%s (no metrics store)",
                  len(points), getattr(metrics, "topologyId", None),
                  getattr(metrics, "hostname", None), getattr(metrics, "port", None))
