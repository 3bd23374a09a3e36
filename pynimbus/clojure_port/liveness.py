# -*- test-case-name: tests.test_port_liveness -*-
"""Executor liveness: Nimbus's heartbeat cache and the alive-executor rule (pure).

Data shapes (both generations):

- a *topology cache* is a dict ``{(start, end): HeartbeatEntry}`` for one topology; the whole
  cache handed to :func:`pynimbus.clojure_port.assignments.compute_new_assignments` is
  ``{storm_id: topology cache}``.  Functions here return new dicts and never change their
  arguments.
- *executor beats* are ``{(start, end): beat}`` where ``beat`` has ``time_secs`` (the worker's
  clock), as ``StormClusterState.executor_beats`` returns (``ExecutorBeat``).

1.x: ports of nimbus.clj ``update-executor-cache``, ``update-heartbeat-cache`` and
``alive-executors`` (1.2.4).  2.x: ports of ``HeartbeatCache`` (2.8.8: ZooKeeper beats, RPC
beats, ``timeoutOldHeartbeats``, ``getAliveExecutors``) and ``Nimbus``'s
``getTopologyHeartbeatTimeoutSecs`` / ``getTopologyLaunchHeartbeatTimeoutSec``.
Worker clocks are never compared with Nimbus's: a beat only tells that something changed.

2.x also: the worker heartbeats supervisors send over RPC (:func:`rpc_heartbeat_executors`,
:func:`update_heartbeat_cache_from_rpc`) and the wait of a new leader for them
(:class:`HeartbeatsRecovery`, port of ``TimeOutWorkerHeartbeatsRecoveryStrategy``).
"""

import collections
import re

HeartbeatEntry = collections.namedtuple(
    "HeartbeatEntry", "nimbus_time executor_reported_time is_timed_out heartbeat")
HeartbeatEntry.__doc__ = """One executor's entry in Nimbus's heartbeat cache.

``nimbus_time``: Nimbus's clock when the reported time last changed (or the entry was made);
``executor_reported_time``: the worker's last ``time_secs`` (0 before any); ``is_timed_out``:
``now - nimbus_time >= timeout`` at the last update; ``heartbeat``: the beat read in that
update, or None (1.x serves executor stats from it).
"""

NIMBUS_TASK_TIMEOUT_SECS = "nimbus.task.timeout.secs"
NIMBUS_TASK_LAUNCH_SECS = "nimbus.task.launch.secs"
TOPOLOGY_WORKER_TIMEOUT_SECS = "topology.worker.timeout.secs"


def _beat_time(beat):
    return None if beat is None else beat.time_secs


def update_executor_cache(curr, beat, now, timeout_secs):
    """Port of nimbus.clj ``update-executor-cache``, 1.2.4: one executor's new entry.

    :param curr: the previous :class:`HeartbeatEntry` or None.
    :param beat: the beat read this round or None.
    """
    last_nimbus_time = None if curr is None else curr.nimbus_time
    last_reported_time = None if curr is None else curr.executor_reported_time
    reported_time = _beat_time(beat)
    if reported_time is None:
        reported_time = last_reported_time if last_reported_time is not None else 0
    if last_nimbus_time is None or last_reported_time != reported_time:
        nimbus_time = now
    else:
        nimbus_time = last_nimbus_time
    return HeartbeatEntry(nimbus_time, reported_time, now - nimbus_time >= timeout_secs, beat)


def update_heartbeat_cache(cache, executor_beats, all_executors, now, timeout_secs,
                           compat="1.x"):
    """Port of nimbus.clj ``update-heartbeat-cache`` (1.2.4) and
    ``HeartbeatCache.updateFromZkHeartbeat`` (2.8.8): fold this round's ZooKeeper beats in.

    :param cache: the topology cache (``{executor: HeartbeatEntry}``), or None.
    :param executor_beats: ``{executor: beat}`` read for the topology's assigned slots.
    :param all_executors: the topology's executors.
    :returns: the new topology cache.  1.x keeps only ``all_executors``; 2.x keeps every entry
        (stale ones included, as 2.8.8 does) and adds missing ones.
    """
    cache = cache or {}
    executor_beats = executor_beats or {}
    if compat == "2.x":
        new = dict(cache)
        for executor in all_executors:
            beat = executor_beats.get(executor)
            curr = cache.get(executor)
            if curr is None:
                reported = _beat_time(beat) or 0
                curr = HeartbeatEntry(now, reported, False, None)
            nimbus_time, reported = curr.nimbus_time, curr.executor_reported_time
            if beat is not None:
                beat_time = _beat_time(beat) or 0
                if beat_time != reported:
                    nimbus_time = now
                reported = beat_time
            new[executor] = HeartbeatEntry(nimbus_time, reported,
                                           now - nimbus_time >= timeout_secs, beat)
        return new
    return {executor: update_executor_cache(cache.get(executor), executor_beats.get(executor),
                                            now, timeout_secs)
            for executor in all_executors}


def update_heartbeat_cache_from_rpc(cache, executors, beat_time_secs, now, timeout_secs):
    """Port of ``HeartbeatCache.updateHeartbeat`` (2.8.8): a worker's RPC heartbeat.

    Every RPC heartbeat refreshes ``nimbus_time`` (an idle executor's reported time may not
    advance).  Not used in 1.x, whose workers only write ZooKeeper.

    :param executors: the executors the worker heartbeat lists.
    :param beat_time_secs: the heartbeat's ``time_secs``.
    :returns: the new topology cache.
    """
    new = dict(cache or {})
    for executor in executors:
        curr = new.get(executor)
        reported = (beat_time_secs or 0) if curr is None else curr.executor_reported_time
        new[executor] = HeartbeatEntry(now, reported, 0 >= timeout_secs, None)
    return new


def rpc_heartbeat_executors(heartbeat):
    """The ``(storm_id, executors, time_secs)`` of a ``SupervisorWorkerHeartbeat``, or None
    when it cannot be applied (no storm id, no executor list, an executor without both task
    ids).  2.8.8 fails on such a heartbeat half-way (a NullPointerException); pynimbus skips it
    whole.  A missing ``time_secs`` reads as 0.
    """
    storm_id = getattr(heartbeat, "storm_id", None)
    infos = getattr(heartbeat, "executors", None)
    if not storm_id or not isinstance(storm_id, str) or infos is None:
        return None
    executors = []
    for info in infos:
        start, end = getattr(info, "task_start", None), getattr(info, "task_end", None)
        if not isinstance(start, int) or not isinstance(end, int):
            return None
        executors.append((start, end))
    return storm_id, executors, heartbeat.time_secs or 0


def timeout_old_heartbeats(cache, now, timeout_secs):
    """Port of ``HeartbeatCache.timeoutOldHeartbeats`` (2.8.8): recompute ``is_timed_out``.

    2.x runs it in each mk-assignments round for topologies whose workers send RPC heartbeats.
    """
    return {executor: entry._replace(is_timed_out=now - entry.nimbus_time >= timeout_secs)
            for executor, entry in (cache or {}).items()}


def alive_executors(cache, all_executors, executor_start_time_secs, now, launch_secs,
                    compat="1.x"):
    """Port of nimbus.clj ``alive-executors`` (1.2.4) and ``HeartbeatCache.getAliveExecutors``
    (2.8.8).

    An executor is alive iff it has a start time in the current assignment and either started
    less than ``launch_secs`` ago or is not timed out.  An executor without a cache entry counts
    as not timed out in 1.x (its entry is always made first there) and as timed out in 2.x.

    :param executor_start_time_secs: ``Assignment.executor_start_time_secs``.
    :returns: a set of executors.
    """
    cache = cache or {}
    start_times = executor_start_time_secs or {}
    missing_is_timed_out = compat == "2.x"
    alive = set()
    for executor in all_executors:
        start_time = start_times.get(executor)
        if start_time is None:
            continue
        entry = cache.get(executor)
        is_timed_out = missing_is_timed_out if entry is None else entry.is_timed_out
        if now - start_time < launch_secs or not is_timed_out:
            alive.add(executor)
    return alive


def _int_conf(value, default):
    if value is None or isinstance(value, bool):
        return default
    try:
        return int(value)
    except (TypeError, ValueError):
        return default


def heartbeat_timeout_secs(conf, topology_conf, compat="1.x"):
    """The executor heartbeat timeout: ``nimbus.task.timeout.secs`` (1.2.4); 2.8.8's
    ``getTopologyHeartbeatTimeoutSecs``: ``max(topology.worker.timeout.secs, that)`` when the
    topology sets it."""
    nimbus_timeout = _int_conf(conf.get(NIMBUS_TASK_TIMEOUT_SECS), 30)
    if compat == "2.x" and topology_conf:
        topology_timeout = _int_conf(topology_conf.get(TOPOLOGY_WORKER_TIMEOUT_SECS), None)
        if topology_timeout is not None:
            return max(topology_timeout, nimbus_timeout)
    return nimbus_timeout


def launch_timeout_secs(conf, topology_conf, compat="1.x"):
    """The launch grace: ``nimbus.task.launch.secs`` (1.2.4); 2.8.8's
    ``getTopologyLaunchHeartbeatTimeoutSec``: ``max(that, heartbeat timeout)``."""
    nimbus_launch = _int_conf(conf.get(NIMBUS_TASK_LAUNCH_SECS), 120)
    if compat == "2.x":
        return max(nimbus_launch, heartbeat_timeout_secs(conf, topology_conf, compat))
    return nimbus_launch


def uses_rpc_heartbeats(storm_version, compat):
    """Port of ``Nimbus.supportRpcHeartbeat`` (2.8.8, without Pacemaker): a topology built by
    Storm 2.0 or later, or of unknown version, reports through RPC heartbeats.  Always False
    in 1.x.

    Versions compare as ``SimpleVersion`` does (major and minor only); ``"Unknown"`` is -1.-1.
    Deliberate difference: a version ``SimpleVersion`` cannot parse (2.8.8 throws) counts as
    older than 2.0, i.e. ZooKeeper heartbeats.
    """
    if compat != "2.x":
        return False
    if storm_version is None:
        return True
    return simple_version(storm_version) >= (2, 0)


_SIMPLE_VERSION = re.compile(r"(\d+)[.\-_]+(\d+).*")


def simple_version(version):
    """Port of ``SimpleVersion`` (2.8.8): ``(major, minor)``, ``(-1, -1)`` when unparsable."""
    m = _SIMPLE_VERSION.fullmatch(version)
    if m is None:
        return (-1, -1)
    return (int(m.group(1)), int(m.group(2)))


SUPERVISOR_WORKER_HEARTBEATS_MAX_TIMEOUT_SECS = "supervisor.worker.heartbeats.max.timeout.secs"


class HeartbeatsRecovery(collections.namedtuple("HeartbeatsRecovery",
                                                "ready start_secs reported")):
    """Whether a 2.x leader has its workers' heartbeats back (immutable; methods return new
    values).

    Port of ``TimeOutWorkerHeartbeatsRecoveryStrategy`` and of Nimbus's
    ``heartbeatsReadyFlag`` / ``isHeartbeatsRecovered`` (2.8.8).  A Nimbus that starts (or
    becomes leader) has an empty heartbeat cache, so every executor beating over RPC would look
    dead; mk-assignments therefore waits until every node that holds an assignment has sent
    its workers' heartbeats once (``sendSupervisorWorkerHeartbeats`` with its supervisor id),
    or ``supervisor.worker.heartbeats.max.timeout.secs`` (600) have passed since the first
    check.  Once ready it stays ready.

    ``ready``: the flag; ``start_secs``: the first check's time, or None; ``reported``: the
    frozenset of supervisor ids heard from.
    """

    @classmethod
    def new(cls):
        return cls(False, None, frozenset())

    def report_node_id(self, node_id):
        """Port of ``reportNodeId``: a supervisor sent its workers' heartbeats (ignored once
        ready, and for an empty id, as Nimbus does)."""
        if self.ready or not node_id:
            return self
        return self._replace(reported=self.reported | {node_id})

    def check(self, node_ids, now, conf):
        """Port of ``isHeartbeatsRecovered``: ``(ready, new recovery)``.

        :param node_ids: the supervisor ids of every Assignment's ``node_host``.
        :param now: Nimbus's clock, seconds.
        """
        if self.ready:
            return True, self
        start = now if self.start_secs is None else self.start_secs
        max_timeout = _int_conf(conf.get(SUPERVISOR_WORKER_HEARTBEATS_MAX_TIMEOUT_SECS), 600)
        ready = now - start > max_timeout or set(node_ids) <= self.reported
        return ready, self._replace(ready=ready, start_secs=start)

    def missing(self, node_ids):
        """The nodes not heard from (for the log line when the wait times out)."""
        return sorted(set(node_ids) - self.reported)
