"""Tests of pynimbus.handlers.heartbeats with the real Monitor: RPC worker heartbeats reach
the heartbeat cache under the monitor's lock, only on a 2.x leader; metrics are dropped."""
# test-case-name: tests.test_handlers_heartbeats

import pytest
from twisted.internet import defer

from pynimbus.blobstore.local import LocalFsBlobStore
from pynimbus.common.config import default_config
from pynimbus.generated.storm.ttypes import (
    ExecutorInfo, NotAliveException, StormTopology, SupervisorWorkerHeartbeat,
    SupervisorWorkerHeartbeats, WorkerMetricList, WorkerMetricPoint, WorkerMetrics)
from pynimbus.handlers.heartbeats import HeartbeatsHandler
from pynimbus.nimbus.monitor import Monitor
from pynimbus.nimbus.topology_store import setup_storm_code
from sync_deferreds import result_of, run_now

STORM_ID = "wc-1-1700000000"


class FakeNimbus:
    """What the handler and the monitor use of the daemon, with a settable leadership."""

    def __init__(self, tmp_path, clock, compat="2.x"):
        self.conf = dict(default_config(compat), **{"nimbus.task.timeout.secs": 30})
        self.clock = clock
        self.blob_store = LocalFsBlobStore(base_dir=str(tmp_path / "blobs"), clock=clock)
        self.leader = True
        self.submit_lock = defer.DeferredLock()
        self.monitor = Monitor(self, run_blocking=run_now)

    def is_leader(self):
        return self.leader


@pytest.fixture
def nimbus(tmp_path, clock):
    nimbus = FakeNimbus(tmp_path, clock)
    setup_storm_code(nimbus.blob_store, STORM_ID, None, {"topology.worker.timeout.secs": 300},
                     StormTopology(spouts={}, bolts={}, state_spouts={}))
    return nimbus


def handler_of(nimbus):
    return HeartbeatsHandler(nimbus.conf, nimbus, run_blocking=run_now)


def beats(*heartbeats, supervisor_id="sup-a"):
    return SupervisorWorkerHeartbeats(supervisor_id=supervisor_id,
                                      worker_heartbeats=list(heartbeats))


def worker(storm_id=STORM_ID, executors=((1, 1), (2, 3)), time_secs=42):
    return SupervisorWorkerHeartbeat(storm_id, [ExecutorInfo(s, e) for s, e in executors],
                                     time_secs)


def test_supervisor_heartbeats_stamp_every_executor_with_nimbus_time(nimbus, clock):
    """Each executor listed gets an entry at Nimbus's clock, the worker's time as reported."""
    result_of(handler_of(nimbus).sendSupervisorWorkerHeartbeats(beats(worker())))
    cache = nimbus.monitor.heartbeat_cache[STORM_ID]
    assert set(cache) == {(1, 1), (2, 3)}
    assert {(e.nimbus_time, e.executor_reported_time, e.is_timed_out)
            for e in cache.values()} == {(int(clock.now), 42, False)}


def test_one_worker_heartbeat_is_recorded_too(nimbus, clock):
    """sendSupervisorWorkerHeartbeat records one worker's executors."""
    result_of(handler_of(nimbus).sendSupervisorWorkerHeartbeat(worker(executors=((4, 4),))))
    assert set(nimbus.monitor.heartbeat_cache[STORM_ID]) == {(4, 4)}


def test_a_later_heartbeat_moves_nimbus_time(nimbus, clock):
    """A heartbeat with the same worker time still refreshes the entry (2.8.8 updateFromRpcHb)."""
    handler = handler_of(nimbus)
    result_of(handler.sendSupervisorWorkerHeartbeats(beats(worker())))
    clock.now += 100
    result_of(handler.sendSupervisorWorkerHeartbeats(beats(worker())))
    entry = nimbus.monitor.heartbeat_cache[STORM_ID][(1, 1)]
    assert entry.nimbus_time == int(clock.now) and not entry.is_timed_out


def test_unknown_storm_id_one_worker_is_not_alive_and_changes_nothing(nimbus):
    """sendSupervisorWorkerHeartbeat for an id nobody submitted raises NotAliveException(id)."""
    handler = handler_of(nimbus)
    for storm_id in ("nope-1-1", "../../etc/passwd"):
        with pytest.raises(NotAliveException) as e:
            result_of(handler.sendSupervisorWorkerHeartbeat(worker(storm_id=storm_id)))
        assert e.value.msg == storm_id
    assert nimbus.monitor.heartbeat_cache == {}


def test_malformed_one_worker_heartbeat_is_not_alive(nimbus):
    """A heartbeat without storm id is refused with a message that says what is missing."""
    with pytest.raises(NotAliveException, match="storm_id"):
        result_of(handler_of(nimbus).sendSupervisorWorkerHeartbeat(
            SupervisorWorkerHeartbeat(None, [ExecutorInfo(1, 1)], 1)))
    assert nimbus.monitor.heartbeat_cache == {}


def test_supervisor_batch_skips_malformed_beats_and_applies_the_rest(nimbus):
    """One bad beat in a batch does not cost the others their liveness."""
    result_of(handler_of(nimbus).sendSupervisorWorkerHeartbeats(beats(
        SupervisorWorkerHeartbeat(STORM_ID, None, 1), worker(executors=((5, 5),)))))
    assert set(nimbus.monitor.heartbeat_cache[STORM_ID]) == {(5, 5)}


def test_unknown_storm_id_in_a_batch_is_accepted_with_nimbus_timeout(nimbus):
    """As 2.8.8: a batch's beat for an unknown id is kept (until the next round prunes it)."""
    result_of(handler_of(nimbus).sendSupervisorWorkerHeartbeats(beats(worker("ghost-1-1"))))
    assert set(nimbus.monitor.heartbeat_cache["ghost-1-1"]) == {(1, 1), (2, 3)}


def test_heartbeat_timeout_follows_the_topology_conf(nimbus):
    """2.x: max(topology.worker.timeout.secs, nimbus.task.timeout.secs); unknown ids: nimbus's."""
    assert nimbus.monitor.heartbeat_timeout_secs(STORM_ID) == 300
    assert nimbus.monitor.heartbeat_timeout_secs("ghost-1-1") == 30


def test_non_leader_ignores_heartbeats(nimbus):
    """A nimbus that does not lead answers and records nothing (2.8.8 ignores them too)."""
    nimbus.leader = False
    handler = handler_of(nimbus)
    assert result_of(handler.sendSupervisorWorkerHeartbeats(beats(worker()))) is None
    assert result_of(handler.sendSupervisorWorkerHeartbeat(worker())) is None
    assert nimbus.monitor.heartbeat_cache == {}
    assert nimbus.monitor.recovery.reported == frozenset()
    with pytest.raises(NotAliveException):  # the stored conf is read first, on any nimbus
        result_of(handler.sendSupervisorWorkerHeartbeat(worker(storm_id="nope-1-1")))


def test_heartbeat_during_a_round_waits_for_it_and_is_not_lost(nimbus, clock):
    """A heartbeat arriving while a round holds the lock is applied after the round stored
    its cache, not overwritten by it."""
    monitor = nimbus.monitor
    round_lock = monitor.lock.acquire()
    assert round_lock.called
    d = handler_of(nimbus).sendSupervisorWorkerHeartbeats(beats(worker()))
    assert not d.called and monitor.heartbeat_cache == {}
    monitor.heartbeat_cache = {"other-1-1": {}}  # what the round stores at its end
    clock.now += 5
    monitor.lock.release()
    assert result_of(d) is None
    assert set(monitor.heartbeat_cache) == {"other-1-1", STORM_ID}
    assert monitor.heartbeat_cache[STORM_ID][(1, 1)].nimbus_time == int(clock.now)


def test_supervisor_id_counts_for_the_new_leaders_wait(nimbus):
    """The reporting supervisor is remembered until the heartbeats are recovered."""
    result_of(handler_of(nimbus).sendSupervisorWorkerHeartbeats(beats(supervisor_id="sup-z")))
    assert nimbus.monitor.recovery.reported == {"sup-z"}


def test_1x_answers_but_leaves_liveness_to_zookeeper(tmp_path, clock):
    """In 1.x mode both methods answer, and the heartbeat cache is not touched."""
    nimbus = FakeNimbus(tmp_path, clock, compat="1.x")
    setup_storm_code(nimbus.blob_store, STORM_ID, None, {},
                     StormTopology(spouts={}, bolts={}, state_spouts={}))
    handler = handler_of(nimbus)
    assert result_of(handler.sendSupervisorWorkerHeartbeats(beats(worker()))) is None
    assert result_of(handler.sendSupervisorWorkerHeartbeat(worker())) is None
    assert nimbus.monitor.heartbeat_cache == {}
    with pytest.raises(NotAliveException):
        result_of(handler.sendSupervisorWorkerHeartbeat(worker(storm_id="nope-1-1")))


def test_worker_metrics_are_accepted_and_dropped(nimbus):
    """processWorkerMetrics returns nothing and stores nothing (no metrics store)."""
    metrics = WorkerMetrics(topologyId=STORM_ID, port=6700, hostname="h", metricList=
                            WorkerMetricList([WorkerMetricPoint("m", 1, 2.0, "c", "1", "s")]))
    assert handler_of(nimbus).processWorkerMetrics(metrics) is None
    assert nimbus.monitor.heartbeat_cache == {}


class Deny:
    """An authorization hook that refuses every call, recording what it was asked."""

    def __init__(self):
        self.asked = []

    def check(self, method, storm_name=None, topology_conf=None):
        from pynimbus.generated.storm.ttypes import AuthorizationException
        self.asked.append((method, storm_name))
        raise AuthorizationException(msg="%s is not authorized" % method)


def test_authorization_is_checked_before_anything_is_recorded(nimbus):
    """A denied call raises AuthorizationException and records nothing; the one-worker call
    is checked against its topology's name."""
    from pynimbus.generated.storm.ttypes import AuthorizationException
    handler = handler_of(nimbus)
    handler.authorization = deny = Deny()
    with pytest.raises(AuthorizationException):
        result_of(handler.sendSupervisorWorkerHeartbeats(beats(worker())))
    with pytest.raises(AuthorizationException):
        result_of(handler.sendSupervisorWorkerHeartbeat(worker()))
    with pytest.raises(AuthorizationException):
        handler.processWorkerMetrics(WorkerMetrics(STORM_ID, 1, "h", WorkerMetricList([])))
    assert nimbus.monitor.heartbeat_cache == {}
    assert [m for m, _ in deny.asked] == [
        "sendSupervisorWorkerHeartbeats", "sendSupervisorWorkerHeartbeat", "processWorkerMetrics"]


def test_empty_or_missing_batch_only_reports_the_supervisor(nimbus):
    """No heartbeats (or no argument at all) records nothing and raises nothing; the
    supervisor id still counts as reported, as 2.8.8 reports it after its loop."""
    handler = handler_of(nimbus)
    assert result_of(handler.sendSupervisorWorkerHeartbeats(beats(supervisor_id="sup-e"))) is None
    assert result_of(handler.sendSupervisorWorkerHeartbeats(None)) is None
    assert nimbus.monitor.heartbeat_cache == {}
    assert nimbus.monitor.recovery.reported == {"sup-e"}
