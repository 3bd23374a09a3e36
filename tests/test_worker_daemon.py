"""The worker's reading of its Assignment (pure helpers of :mod:`pynimbus.worker.daemon`)."""
# test-case-name: tests.test_worker_daemon

import time

from pynimbus.common import local_dirs
from pynimbus.generated.storm.ttypes import Assignment, NodeInfo
from pynimbus.worker import daemon

ASSIGNMENT = Assignment(
    master_code_dir="", node_host={"sup-a": "10.0.0.1", "sup-b": "10.0.0.2"},
    executor_node_port={(1, 1): NodeInfo("sup-a", {6700}), (2, 3): NodeInfo("sup-a", {6701}),
                        (4, 4): NodeInfo("sup-b", {6700}), (5, 5): NodeInfo("sup-a", {6700})})


def test_my_executors_are_those_of_this_supervisor_and_port():
    assert daemon.my_executors(ASSIGNMENT, "sup-a", 6700) == [(1, 1), (5, 5)]
    assert daemon.my_executors(ASSIGNMENT, "sup-b", 6701) == []


def test_remote_tasks_map_to_their_workers_host_and_port():
    """Every task not in this worker, by the host its supervisor runs on (same host, other
    port included)."""
    assert daemon.remote_task_to_node_port(ASSIGNMENT, "sup-a", 6700) == {
        2: ("10.0.0.1", 6701), 3: ("10.0.0.1", 6701), 4: ("10.0.0.2", 6700)}


def test_worker_dirs_follow_storm_layout(tmp_path):
    conf = {"storm.local.dir": str(tmp_path)}
    w = "0b8f7a34-3c5e-4c0a-9a55-2f1d6c4e9b10"
    assert local_dirs.worker_pids_root(conf, w) == str(tmp_path / "workers" / w / "pids")
    assert local_dirs.worker_heartbeats_root(conf, w) == str(
        tmp_path / "workers" / w / "heartbeats")


def test_millis_clock_is_the_clock_in_whole_milliseconds():
    """``int(clock() * 1000)`` for an injected clock; for ``time.time``, the same millisecond
    from ``time.time_ns`` (read between two readings of time.time)."""
    assert daemon.millis_clock(lambda: 1700000000.9999)() == 1700000000999
    assert daemon.millis_clock(lambda: 12.0)() == 12000
    now_ms = daemon.millis_clock(time.time)
    for _ in range(1000):
        before = int(time.time() * 1000)
        got = now_ms()
        after = int(time.time() * 1000)
        assert before - 1 <= got <= after + 1 and isinstance(got, int)
