"""Tests of pynimbus.clojure_port.liveness: the heartbeat cache and the alive-executor rule."""

import collections

from pynimbus.clojure_port import liveness
from pynimbus.clojure_port.liveness import HeartbeatEntry

Beat = collections.namedtuple("Beat", "time_secs uptime stats")
E1, E2, E3 = (1, 1), (2, 2), (3, 4)


def test_first_update_stamps_nimbus_time_and_reported_zero_without_beat():
    """A new executor without a beat gets nimbus time now, reported time 0, not timed out."""
    cache = liveness.update_heartbeat_cache({}, {}, [E1], 100, 30)
    assert cache == {E1: HeartbeatEntry(100, 0, False, None)}


def test_unchanged_reported_time_keeps_nimbus_time_until_timeout():
    """A worker that stops advancing its time is timed out timeout seconds after the change."""
    cache = liveness.update_heartbeat_cache({}, {E1: Beat(5, 1, None)}, [E1], 100, 30)
    cache = liveness.update_heartbeat_cache(cache, {E1: Beat(5, 1, None)}, [E1], 129, 30)
    assert cache[E1].nimbus_time == 100 and not cache[E1].is_timed_out
    cache = liveness.update_heartbeat_cache(cache, {E1: Beat(5, 1, None)}, [E1], 130, 30)
    assert cache[E1].is_timed_out


def test_changed_reported_time_refreshes_nimbus_time_whatever_the_worker_clock():
    """Only a change counts: a worker clock going backwards still refreshes nimbus time."""
    cache = liveness.update_heartbeat_cache({}, {E1: Beat(500, 1, None)}, [E1], 100, 30)
    cache = liveness.update_heartbeat_cache(cache, {E1: Beat(7, 1, None)}, [E1], 140, 30)
    assert cache[E1] == HeartbeatEntry(140, 7, False, Beat(7, 1, None))


def test_missing_beat_keeps_the_last_reported_time():
    """No beat this round: the reported time stays, so nimbus time does not move."""
    cache = liveness.update_heartbeat_cache({}, {E1: Beat(5, 1, None)}, [E1], 100, 30)
    cache = liveness.update_heartbeat_cache(cache, {}, [E1], 140, 30)
    assert cache[E1] == HeartbeatEntry(100, 5, True, None)


def test_1x_update_drops_executors_no_longer_in_the_topology():
    """1.x keeps only the topology's current executors (select-keys)."""
    cache = liveness.update_heartbeat_cache({}, {}, [E1, E2], 100, 30)
    cache = liveness.update_heartbeat_cache(cache, {}, [E2], 110, 30)
    assert list(cache) == [E2]


def test_2x_update_keeps_stale_executors():
    """2.x's HeartbeatCache never drops entries on a ZooKeeper update."""
    cache = liveness.update_heartbeat_cache({}, {}, [E1, E2], 100, 30, "2.x")
    cache = liveness.update_heartbeat_cache(cache, {}, [E2], 110, 30, "2.x")
    assert set(cache) == {E1, E2}


def test_2x_zookeeper_update_matches_1x_for_current_executors():
    """Both generations time out a ZooKeeper-beating executor the same way."""
    beats = [{E1: Beat(5, 1, None)}, {E1: Beat(5, 1, None)}, {E1: Beat(6, 1, None)}, {}]
    c1 = c2 = {}
    for now, beat in zip((100, 120, 135, 170), beats):
        c1 = liveness.update_heartbeat_cache(c1, beat, [E1], now, 30)
        c2 = liveness.update_heartbeat_cache(c2, beat, [E1], now, 30, "2.x")
        assert c1[E1][:3] == c2[E1][:3]


def test_update_does_not_change_its_arguments():
    """The cache and beats passed in are left as they were."""
    cache = {E1: HeartbeatEntry(100, 5, False, None)}
    beats = {E1: Beat(6, 1, None)}
    liveness.update_heartbeat_cache(cache, beats, [E1, E2], 120, 30)
    liveness.update_heartbeat_cache(cache, beats, [E1, E2], 120, 30, "2.x")
    assert cache == {E1: HeartbeatEntry(100, 5, False, None)}
    assert beats == {E1: Beat(6, 1, None)}


def test_rpc_heartbeat_refreshes_nimbus_time_every_time():
    """2.x RPC heartbeats refresh nimbus time even when the reported time is unchanged."""
    cache = liveness.update_heartbeat_cache_from_rpc({}, [E1], 5, 100, 30)
    assert cache[E1] == HeartbeatEntry(100, 5, False, None)
    cache = liveness.update_heartbeat_cache_from_rpc(cache, [E1], 5, 150, 30)
    assert cache[E1].nimbus_time == 150 and not cache[E1].is_timed_out


def test_timeout_old_heartbeats_recomputes_timed_out():
    """2.x times out RPC-beating executors that stopped sending."""
    cache = {E1: HeartbeatEntry(100, 5, False, None), E2: HeartbeatEntry(125, 5, False, None)}
    cache = liveness.timeout_old_heartbeats(cache, 130, 30)
    assert cache[E1].is_timed_out and not cache[E2].is_timed_out


def test_executor_without_start_time_is_dead():
    """An executor missing from the assignment's start times is never alive."""
    cache = {E1: HeartbeatEntry(100, 5, False, None)}
    assert liveness.alive_executors(cache, [E1], {}, 100, 120) == set()


def test_executor_within_launch_grace_is_alive_even_if_timed_out():
    """now - start < nimbus.task.launch.secs keeps a timed-out executor alive."""
    cache = {E1: HeartbeatEntry(0, 0, True, None)}
    assert liveness.alive_executors(cache, [E1], {E1: 100}, 219, 120) == {E1}
    assert liveness.alive_executors(cache, [E1], {E1: 100}, 220, 120) == set()


def test_executor_not_timed_out_is_alive_after_launch_grace():
    """Past the launch grace, a fresh heartbeat keeps the executor alive."""
    cache = {E1: HeartbeatEntry(990, 5, False, None), E2: HeartbeatEntry(900, 5, True, None)}
    assert liveness.alive_executors(cache, [E1, E2], {E1: 0, E2: 0}, 1000, 120) == {E1}


def test_executor_without_cache_entry_is_alive_in_1x_and_dead_in_2x():
    """1.x reads a missing entry as not timed out; 2.8.8 as never heard from."""
    assert liveness.alive_executors({}, [E3], {E3: 0}, 1000, 120) == {E3}
    assert liveness.alive_executors({}, [E3], {E3: 0}, 1000, 120, "2.x") == set()


def test_timeouts_in_1x_ignore_topology_worker_timeout():
    """1.x uses nimbus.task.timeout.secs and nimbus.task.launch.secs only."""
    conf = {"nimbus.task.timeout.secs": 30, "nimbus.task.launch.secs": 120}
    topology_conf = {"topology.worker.timeout.secs": 300}
    assert liveness.heartbeat_timeout_secs(conf, topology_conf) == 30
    assert liveness.launch_timeout_secs(conf, topology_conf) == 120


def test_timeouts_in_2x_grow_with_topology_worker_timeout():
    """2.x takes max(topology.worker.timeout.secs, nimbus timeout) and raises the launch grace."""
    conf = {"nimbus.task.timeout.secs": 30, "nimbus.task.launch.secs": 120}
    assert liveness.heartbeat_timeout_secs(conf, {"topology.worker.timeout.secs": 300},
                                           "2.x") == 300
    assert liveness.launch_timeout_secs(conf, {"topology.worker.timeout.secs": 300},
                                        "2.x") == 300
    assert liveness.heartbeat_timeout_secs(conf, {"topology.worker.timeout.secs": 10},
                                           "2.x") == 30
    assert liveness.launch_timeout_secs(conf, {}, "2.x") == 120
    assert liveness.heartbeat_timeout_secs(conf, {"topology.worker.timeout.secs": None},
                                           "2.x") == 30


def test_rpc_heartbeats_only_in_2x_for_storm_2_topologies():
    """2.x topologies built by Storm 2 (or of unknown version) use RPC heartbeats; 1.x never."""
    assert not liveness.uses_rpc_heartbeats(None, "1.x")
    assert liveness.uses_rpc_heartbeats(None, "2.x")
    assert liveness.uses_rpc_heartbeats("2.8.8", "2.x")
    assert not liveness.uses_rpc_heartbeats("1.2.4", "2.x")
    assert not liveness.uses_rpc_heartbeats("Unknown", "2.x")


def test_simple_version_reads_major_and_minor():
    """SimpleVersion accepts dots, dashes and underscores between major and minor."""
    assert liveness.simple_version("2.8.8") == (2, 8)
    assert liveness.simple_version("1_2-SNAPSHOT") == (1, 2)
    assert liveness.simple_version("Unknown") == (-1, -1)


def test_rpc_heartbeat_executors_reads_id_executors_and_time():
    """A SupervisorWorkerHeartbeat becomes (storm id, [(start, end)], time secs)."""
    from pynimbus.generated.storm.ttypes import ExecutorInfo, SupervisorWorkerHeartbeat
    beat = SupervisorWorkerHeartbeat("t-1-1", [ExecutorInfo(1, 1), ExecutorInfo(2, 4)], 77)
    assert liveness.rpc_heartbeat_executors(beat) == ("t-1-1", [(1, 1), (2, 4)], 77)
    beat.time_secs = None
    assert liveness.rpc_heartbeat_executors(beat) == ("t-1-1", [(1, 1), (2, 4)], 0)


def test_rpc_heartbeat_executors_refuses_malformed_beats():
    """No storm id, no executor list or a half executor: the beat cannot be applied."""
    from pynimbus.generated.storm.ttypes import ExecutorInfo, SupervisorWorkerHeartbeat
    assert liveness.rpc_heartbeat_executors(
        SupervisorWorkerHeartbeat(None, [ExecutorInfo(1, 1)], 5)) is None
    assert liveness.rpc_heartbeat_executors(
        SupervisorWorkerHeartbeat("", [ExecutorInfo(1, 1)], 5)) is None
    assert liveness.rpc_heartbeat_executors(SupervisorWorkerHeartbeat("t", None, 5)) is None
    assert liveness.rpc_heartbeat_executors(
        SupervisorWorkerHeartbeat("t", [ExecutorInfo(1, None)], 5)) is None
    assert liveness.rpc_heartbeat_executors(SupervisorWorkerHeartbeat("t", [], 5)) == (
        "t", [], 5)


def test_rpc_heartbeat_keeps_reported_time_of_known_executor_and_other_executors():
    """An RPC beat never changes the reported time of a known executor, nor other entries."""
    cache = {E1: HeartbeatEntry(100, 5, True, "zk-beat"), E2: HeartbeatEntry(90, 3, True, None)}
    new = liveness.update_heartbeat_cache_from_rpc(cache, [E1], 9, 150, 30)
    assert new[E1] == HeartbeatEntry(150, 5, False, None)
    assert new[E2] == cache[E2]
    assert cache[E1] == HeartbeatEntry(100, 5, True, "zk-beat")


def test_rpc_beaten_executor_stays_alive_past_the_timeout_and_dies_when_beats_stop():
    """2.x: beats every 20 s keep an executor alive at 10x the timeout; silence kills it."""
    cache = {}
    for now in range(1000, 1400, 20):
        cache = liveness.update_heartbeat_cache_from_rpc(cache, [E1], 1, now, 30)
        cache = liveness.timeout_old_heartbeats(cache, now + 10, 30)
        assert liveness.alive_executors(cache, [E1], {E1: 0}, now + 10, 120, "2.x") == {E1}
    cache = liveness.timeout_old_heartbeats(cache, 1380 + 30, 30)
    assert liveness.alive_executors(cache, [E1], {E1: 0}, 1410, 120, "2.x") == set()


def test_heartbeats_recovery_waits_for_every_assigned_node():
    """Ready once every node holding an assignment reported; then ready for good."""
    recovery = liveness.HeartbeatsRecovery.new()
    ready, recovery = recovery.check({"a", "b"}, 1000, {})
    assert not ready and recovery.start_secs == 1000
    recovery = recovery.report_node_id("a")
    ready, recovery = recovery.check({"a", "b"}, 1010, {})
    assert not ready and recovery.missing({"a", "b"}) == ["b"]
    recovery = recovery.report_node_id("b")
    ready, recovery = recovery.check({"a", "b"}, 1020, {})
    assert ready
    assert recovery.check({"c"}, 1030, {})[0]
    assert recovery.report_node_id("c") is recovery


def test_heartbeats_recovery_is_ready_at_once_without_assignments():
    """A leader with no assignment has nothing to wait for."""
    assert liveness.HeartbeatsRecovery.new().check(set(), 1000, {})[0]


def test_heartbeats_recovery_gives_up_after_the_max_timeout():
    """Past supervisor.worker.heartbeats.max.timeout.secs from the first check, it is ready."""
    conf = {"supervisor.worker.heartbeats.max.timeout.secs": 60}
    _, recovery = liveness.HeartbeatsRecovery.new().check({"a"}, 1000, conf)
    assert not recovery.check({"a"}, 1060, conf)[0]
    assert recovery.check({"a"}, 1061, conf)[0]
    assert not recovery.check({"a"}, 1600, {})[0]  # default 600 s
    assert recovery.check({"a"}, 1601, {})[0]


def test_heartbeats_recovery_ignores_empty_supervisor_ids():
    """An empty supervisor id is not a node (as 2.8.8's isNullOrEmpty check)."""
    recovery = liveness.HeartbeatsRecovery.new()
    assert recovery.report_node_id("") is recovery
    assert recovery.report_node_id(None) is recovery
