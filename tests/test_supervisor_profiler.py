"""Which worker-profiler requests a supervisor carries out (pynimbus.supervisor.profiler_actions,
the ports of ReadClusterState's filter and Slot.handleRunning's profiling part), and the
worker's side (pynimbus.worker.profiler): request files, the thread dump taken in the signal
handler, the heap histogram and the cProfile recording, in this process with a real
SIGUSR1."""
# test-case-name: tests.test_supervisor_profiler

import os
import re
import sys
import threading

import pytest

from pynimbus.generated.storm.ttypes import NodeInfo, ProfileAction, ProfileRequest
from pynimbus.supervisor.profiler_actions import (
    RESTART, TopoProfileAction, action_key, profile_actions_by_port, profiler_steps)
from pynimbus.supervisor.profiling import WorkerNotSignalled, worker_pid
from pynimbus.common import profiler_requests as profiler
from pynimbus.common.profiler_requests import request_action, request_file_name
from pynimbus.worker.profiler import (
    WorkerProfiler, dump_file_name, heap_histogram_text, thread_dump_text)


def request(host, port, action, ts=0):
    return ProfileRequest(nodeInfo=NodeInfo(host, {port}), action=action, time_stamp=ts)


def steps_of(actions, assigned="topo-1", running=True, pending=(), now_ms=1000):
    return [(s.action.request.action, s.command, s.delete, s.pending) for s in profiler_steps(
        actions, assigned, running, {action_key(a) for a in pending}, now_ms)]


# -- which requests, for which port

def test_only_the_requests_naming_this_host_by_port():
    requests = {"topo-2": [request("me", 6701, ProfileAction.JSTACK_DUMP)],
                "topo-1": [request("me", 6700, ProfileAction.JMAP_DUMP),
                           request("other", 6700, ProfileAction.JSTACK_DUMP),
                           request("me", 6700, ProfileAction.JVM_RESTART)]}
    by_port = profile_actions_by_port(requests, "me")
    assert sorted(by_port) == [6700, 6701]
    assert [(a.storm_id, a.request.action) for a in by_port[6700]] == [
        ("topo-1", ProfileAction.JMAP_DUMP), ("topo-1", ProfileAction.JVM_RESTART)]
    assert [a.storm_id for a in by_port[6701]] == ["topo-2"]
    assert profile_actions_by_port(requests, "nobody") == {}
    assert profile_actions_by_port({"topo-1": None}, "me") == {}


# -- what each does

def test_one_shot_actions_run_once_on_the_running_worker_and_are_deleted():
    actions = [TopoProfileAction("topo-1", request("me", 6700, action)) for action in (
        ProfileAction.JSTACK_DUMP, ProfileAction.JMAP_DUMP, ProfileAction.JPROFILE_DUMP,
        ProfileAction.JVM_RESTART)]
    assert steps_of(actions) == [
        (ProfileAction.JSTACK_DUMP, profiler.JSTACK, True, None),
        (ProfileAction.JMAP_DUMP, profiler.JMAP, True, None),
        (ProfileAction.JPROFILE_DUMP, profiler.DUMP, True, None),
        (ProfileAction.JVM_RESTART, RESTART, True, None)]


def test_a_request_waits_for_the_worker_and_is_dropped_for_another_topology():
    """handleRunning acts only once the worker runs; a request for a topology the port does
    not run ("wrong topology", or handleEmpty's "no topology is running") is deleted."""
    jstack = TopoProfileAction("topo-1", request("me", 6700, ProfileAction.JSTACK_DUMP))
    assert steps_of([jstack], running=False) == []
    assert steps_of([jstack], assigned="topo-9") == [
        (ProfileAction.JSTACK_DUMP, None, True, None)]
    assert steps_of([jstack], assigned=None, running=False) == [
        (ProfileAction.JSTACK_DUMP, None, True, None)]


def test_a_recording_starts_then_stops_once_its_time_has_passed():
    """JPROFILE_STOP starts a recording kept pending (the request stays); once ``now`` is
    past its time stamp the recording stops and the request is deleted."""
    stop_at_5s = TopoProfileAction(
        "topo-1", request("me", 6700, ProfileAction.JPROFILE_STOP, 5000))
    assert steps_of([stop_at_5s], now_ms=1000) == [
        (ProfileAction.JPROFILE_STOP, profiler.START, False, True)]
    assert steps_of([stop_at_5s], pending=[stop_at_5s], now_ms=4999) == []
    assert steps_of([stop_at_5s], pending=[stop_at_5s], now_ms=5000) == []
    assert steps_of([stop_at_5s], pending=[stop_at_5s], now_ms=5001) == [
        (ProfileAction.JPROFILE_STOP, profiler.STOP, True, False)]


def test_a_stop_already_past_its_time_stops_at_once():
    """The UI's stop (time stamp 0), or a start whose time passed while no supervisor saw it:
    stopped and deleted in the round it is first seen."""
    stop_now = TopoProfileAction("topo-1", request("me", 6700, ProfileAction.JPROFILE_STOP, 0))
    assert steps_of([stop_now], now_ms=1000) == [
        (ProfileAction.JPROFILE_STOP, profiler.STOP, True, False)]


def test_in_one_round_a_recording_starts_before_its_dump_and_a_restart_comes_last():
    """A start and a dump asked between two syncs: the dump must find the recording; a
    restart after the dumps, which it would lose."""
    actions = [TopoProfileAction("topo-1", request("me", 6700, action, 5000)) for action in (
        ProfileAction.JVM_RESTART, ProfileAction.JPROFILE_DUMP, ProfileAction.JSTACK_DUMP,
        ProfileAction.JPROFILE_STOP)]
    assert [command for _, command, _, _ in steps_of(actions)] == [
        profiler.START, profiler.JSTACK, profiler.DUMP, RESTART]


def test_jprofile_start_is_dropped_as_storm_drops_it():
    start = TopoProfileAction("topo-1", request("me", 6700, ProfileAction.JPROFILE_START))
    assert steps_of([start]) == [(ProfileAction.JPROFILE_START, None, True, None)]


def test_requests_differing_only_in_time_are_different_actions():
    a = TopoProfileAction("t", request("me", 6700, ProfileAction.JPROFILE_STOP, 10))
    b = TopoProfileAction("t", request("me", 6700, ProfileAction.JPROFILE_STOP, 20))
    assert action_key(a) != action_key(b)
    assert action_key(a) == action_key(TopoProfileAction(
        "t", request("me", 6700, ProfileAction.JPROFILE_STOP, 10)))


# -- the worker's requests and dumps

def test_request_file_names_sort_in_order_and_name_their_action():
    names = [request_file_name(n, a) for n, a in ((10, "jstack"), (9, "stop"), (100, "jmap"))]
    assert sorted(names) == [names[1], names[0], names[2]]
    assert [request_action(n) for n in sorted(names)] == ["stop", "jstack", "jmap"]
    assert request_action("x-jstack") is None and request_action("12-rm") is None
    assert request_action(".12-jstack") is None  # being written
    with pytest.raises(ValueError):
        request_file_name(1, "../x")


def test_dump_names_are_flight_bashs():
    assert re.fullmatch(r"jstack-42-\d{8}-\d{6}\.txt", dump_file_name("jstack", 42, 1e9))


def test_the_thread_dump_names_each_thread_and_shows_where_it_waits():
    started, release = threading.Event(), threading.Event()

    def waiting_in_a_named_function():
        started.set()
        release.wait(30)

    thread = threading.Thread(target=waiting_in_a_named_function, name="the-waiter",
                              daemon=True)
    thread.start()
    started.wait(10)
    try:
        text = thread_dump_text(sys._current_frames(), threading.enumerate(), 0, 1234)
    finally:
        release.set()
        thread.join(10)
    assert text.startswith("Python thread dump of worker pid 1234")
    blocks = text.split("\n\n")
    assert blocks[1].startswith('"MainThread"')  # the main thread first
    [waiter] = [b for b in blocks if b.startswith('"the-waiter" daemon')]
    assert "in waiting_in_a_named_function" in waiter


def test_the_heap_histogram_ranks_types_by_size():
    class Big(object):
        __slots__ = ("a",)

    objects = [[0] * 1000, [1] * 1000, {"a": 1}, Big()]
    text = heap_histogram_text(objects, 7, rss_kib=2048, limit=2)
    lines = text.splitlines()
    assert "resident set size: 2048 KiB" in lines
    assert re.match(r"\s+1:\s+2\s+\d+\s+list$", lines[lines.index("-" * 60) + 1])
    assert re.match(r"\s+2:\s+1\s+\d+\s+dict$", lines[lines.index("-" * 60) + 2])
    assert "(1 more types)" in lines[-2]
    assert lines[-1].split()[:2] == ["Total", "4"]


class CallNow(object):
    """A reactor whose callFromThread calls at once (this test runs no reactor)."""

    def callFromThread(self, f, *args):
        f(*args)


@pytest.fixture
def worker_profiler(tmp_path):
    worker = WorkerProfiler(CallNow(), str(tmp_path / "worker"), str(tmp_path / "artifacts"))
    worker.install()
    yield worker
    worker.uninstall()
    if worker.profile is not None:
        worker.profile.disable()


def ask(worker, *actions):
    """Leave the requests as the supervisor does and signal this process."""
    for n, action in enumerate(actions):
        open(os.path.join(worker.requests_dir, request_file_name(n, action)), "w").close()
    os.kill(os.getpid(), profiler.PROFILER_SIGNAL)  # handled before os.kill returns
    return sorted(os.listdir(worker.artifacts_dir)) if os.path.isdir(
        worker.artifacts_dir) else []


def test_sigusr1_writes_this_threads_stack_where_it_was_interrupted(worker_profiler):
    def the_interrupted_function():
        return ask(worker_profiler, "jstack")

    [name] = the_interrupted_function()
    assert re.fullmatch(r"jstack-%d-\d{8}-\d{6}\.txt" % os.getpid(), name)
    text = open(os.path.join(worker_profiler.artifacts_dir, name)).read()
    main = text.split("\n\n")[1]
    assert main.startswith('"MainThread"') and "in the_interrupted_function" in main
    assert "_signalled" not in main  # the handler's own frames are not the worker's
    assert os.listdir(worker_profiler.requests_dir) == []  # taken


def test_heap_histogram_and_a_profile_recording(worker_profiler):
    [heap] = ask(worker_profiler, "jmap")
    assert heap.startswith("jmap-%d-" % os.getpid())
    with open(os.path.join(worker_profiler.artifacts_dir, heap)) as f:
        assert "Python heap histogram" in f.read()
    ask(worker_profiler, "start")
    assert worker_profiler.profile is not None

    def profiled_work():
        return sum(i * i for i in range(20000))
    profiled_work()
    names = ask(worker_profiler, "dump", "stop")
    recordings = [n for n in names if n.startswith("recording-")]
    assert len(recordings) == 2 and worker_profiler.profile is None
    for name in recordings:
        text = open(os.path.join(worker_profiler.artifacts_dir, name)).read()
        assert "profiled_work" in text and "Python profile" in text


def test_unknown_and_partial_request_files_are_ignored(worker_profiler):
    open(os.path.join(worker_profiler.requests_dir, "0-rm -rf"), "w").close()
    open(os.path.join(worker_profiler.requests_dir, ".1-jstack"), "w").close()
    assert ask(worker_profiler) == []
    assert os.listdir(worker_profiler.requests_dir) == [".1-jstack"]
    assert ask(worker_profiler, "stop", "dump") == []  # nothing recording: nothing written


def test_a_stale_worker_pid_is_never_signalled(tmp_path):
    """The supervisor signals the pid in the worker's artifacts only when it is one of the
    worker's registered, live pids."""
    import uuid
    from pynimbus.common import local_dirs
    conf = {"storm.local.dir": str(tmp_path)}
    worker_id = str(uuid.uuid4())
    os.makedirs(local_dirs.worker_pids_root(conf, worker_id))
    artifacts = local_dirs.worker_artifacts_root(conf, "topo-1", 6700)
    os.makedirs(artifacts)
    with pytest.raises(WorkerNotSignalled):
        worker_pid(conf, worker_id, "topo-1", 6700)  # no worker.pid
    with open(local_dirs.worker_artifacts_pid_path(conf, "topo-1", 6700), "w") as f:
        f.write(str(os.getpid()))
    with pytest.raises(WorkerNotSignalled, match="not a live process of worker"):
        worker_pid(conf, worker_id, "topo-1", 6700)
    local_dirs.touch_worker_pid(conf, worker_id, os.getpid())
    assert worker_pid(conf, worker_id, "topo-1", 6700) == os.getpid()
