"""Tests of the supervisor daemon's sync, on a task.Clock, real directories and processes.

``tests/standin_worker.py`` stands in for ``python -m pynimbus.worker`` (so that these tests
need no working worker and can make one ignore SIGTERM): it takes the worker's launch arguments and writes what the supervisor reads (its pid
and a multilang child's pid in ``pids/``, a LocalState heartbeat).  Cluster state is the
embedded store; blocking steps run synchronously (``defer.maybeDeferred``).  The last test
runs ``pynimbus supervisor`` beside ``pynimbus dev`` (tests/test_supervisor_end_to_end.py runs
real workers).
"""
# test-case-name: tests.test_supervisor_daemon

import json
import os
import signal
import sys
import time

import pytest
from twisted.internet import defer, task
from twisted.python import failure

from nimbus_process import NimbusProcess
from supervisor_process import SupervisorProcess, shared_store_option
from pynimbus.cluster import StormClusterState, make_backend
from pynimbus.common import local_dirs
from pynimbus.generated.storm.ttypes import Assignment, NodeInfo
from pynimbus.supervisor import daemon, registration, worker_dirs
from pynimbus.supervisor.daemon import SupervisorDaemon, process_alive
from pynimbus.thrift.client import NimbusClient

STANDIN = os.path.join(os.path.dirname(os.path.abspath(__file__)), "standin_worker.py")
STORM_ID = "wc-1-1700000000"
EXECUTORS = [(1, 1), (2, 2)]


def assignment(slots):
    """An Assignment placing each executor ``(s, e)`` on ``(node, port)``."""
    return Assignment(
        master_code_dir="/x", node_host={n: "localhost" for n, _ in slots.values()},
        executor_node_port={e: NodeInfo(n, {p}) for e, (n, p) in slots.items()},
        executor_start_time_secs={e: 1 for e in slots})


@pytest.fixture
def state(embedded_conf):
    cluster_state = StormClusterState(make_backend(embedded_conf))
    yield cluster_state
    cluster_state.close()


class Supervisors:
    """Makes supervisor daemons on one embedded store, each with its own local dir, and kills
    every process any of them left at the end of the test."""

    def __init__(self, embedded_conf, tmp_path, state, clock):
        self.base_conf = embedded_conf
        self.tmp_path = tmp_path
        self.state = state
        self.clock = clock
        self.daemons = []
        self.launches = []

    def conf(self, name, ports, **overrides):
        conf = dict(self.base_conf, **{
            "storm.local.dir": str(self.tmp_path / name),
            "supervisor.slots.ports": ports,
            "storm.local.hostname": "localhost",
            "nimbus.seeds": ["127.0.0.1"], "nimbus.thrift.port": 1,  # no Nimbus: code is local
            "standin.executors": EXECUTORS})
        conf.update(overrides)
        return conf

    def command(self, conf_path, storm_id, supervisor_id, port, worker_id):
        argv = daemon.worker_launch_command(conf_path, storm_id, supervisor_id, port,
                                            worker_id)
        self.launches.append(argv)
        assert argv[1:3] == ["-m", "pynimbus.worker"]
        return [sys.executable, STANDIN] + argv[3:]

    def start(self, conf, supervisor_id=None):
        if supervisor_id is not None:
            registration.read_or_make_supervisor_id(conf, make_id=lambda: supervisor_id)
        supervisor = SupervisorDaemon(conf, self.clock, cluster_state=self.state,
                                      run_blocking=defer.maybeDeferred,
                                      worker_command=self.command)
        self.daemons.append(supervisor)
        started = supervisor.start()
        assert started.called, "start did not finish synchronously"
        if isinstance(started.result, failure.Failure):
            started.result.raiseException()
        return supervisor

    def all_pids(self):
        pids = set()
        for supervisor in self.daemons:
            for worker_id in worker_dirs.worker_ids(supervisor.conf):
                pids.update(worker_dirs.worker_pids(supervisor.conf, worker_id))
            pids.update(child.pid for child in supervisor.children.values())
        return pids

    def close(self):
        for supervisor in self.daemons:
            supervisor.stop()
        for pid in self.all_pids():
            daemon.send_signal(pid, signal.SIGKILL)
        for supervisor in self.daemons:
            for child in supervisor.children.values():
                child.wait(timeout=10)


@pytest.fixture
def clock():
    clock = task.Clock()
    clock.advance(time.time())  # the stand-in stamps its heartbeat with the real time
    return clock


@pytest.fixture
def supervisors(embedded_conf, tmp_path, state, clock):
    made = Supervisors(embedded_conf, tmp_path, state, clock)
    yield made
    made.close()


def install_code(conf, storm_id=STORM_ID):
    """Put a topology's code in stormdist as a download would (no Nimbus in these tests)."""
    root = local_dirs.supervisor_stormdist_root(conf, storm_id)
    os.makedirs(os.path.join(root, "resources"))
    for name in ("stormjar.jar", "stormcode.ser", "stormconf.ser"):
        open(os.path.join(root, name), "wb").close()
    return root


def heartbeats_written(conf):
    ids = worker_dirs.worker_ids(conf)
    return bool(ids) and all(worker_dirs.read_worker_heartbeat(conf, w) is not None
                             and len(worker_dirs.worker_pids(conf, w)) == 2 for w in ids)


def running_worker(conf, wait_until):
    """The one worker's id and pids (worker first) once it has beaten."""
    wait_until(lambda: heartbeats_written(conf), what="the worker's heartbeat and pids")
    [worker_id] = worker_dirs.worker_ids(conf)
    return worker_id, worker_dirs.worker_pids(conf, worker_id)


def sync_now(supervisor, clock):
    """Run the next periodic sync."""
    clock.advance(supervisor.conf["supervisor.monitor.frequency.secs"])


def test_launches_one_worker_per_assigned_port_of_its_own(supervisors, state, clock,
                                                          wait_until):
    """Ports assigned to this supervisor get a worker with the fixed command, directories,
    log and approval; another supervisor's port and an unlisted port get none."""
    conf = supervisors.conf("a", [6700, 6701])
    install_code(conf)
    state.set_assignment(STORM_ID, assignment({(1, 1): ("sup-a", 6700), (2, 2): ("sup-a", 6700),
                                               (3, 3): ("sup-b", 6701),
                                               (4, 4): ("sup-a", 6799)}))
    supervisor = supervisors.start(conf, "sup-a")
    worker_id, pids = running_worker(conf, wait_until)
    [argv] = supervisors.launches
    conf_path = os.path.join(local_dirs.worker_root(conf, worker_id),
                             daemon.WORKER_CONF_FILE)
    assert argv == [sys.executable, "-m", "pynimbus.worker", "--conf", conf_path,
                    STORM_ID, "sup-a", "6700", worker_id]
    with open(conf_path) as f:
        assert json.load(f)["storm.local.dir"] == conf["storm.local.dir"]
    assert worker_dirs.ApprovedWorkers(conf).get() == {worker_id: 6700}
    assert supervisor.children[worker_id].pid in pids
    artifacts = os.path.join(conf["storm.local.dir"], "logs", "workers-artifacts", STORM_ID,
                             "6700")
    assert os.path.exists(os.path.join(artifacts, "worker.log"))
    root = local_dirs.worker_root(conf, worker_id)
    assert os.path.realpath(os.path.join(root, "artifacts")) == os.path.realpath(artifacts)
    assert os.path.realpath(os.path.join(root, "resources")) == os.path.realpath(
        os.path.join(local_dirs.supervisor_stormdist_root(conf, STORM_ID), "resources"))
    assert os.path.isdir(os.path.join(root, "tmp"))
    assert state.supervisor_info("sup-a").used_ports == []  # written before the first sync
    clock.advance(conf["supervisor.heartbeat.frequency.secs"])
    assert state.supervisor_info("sup-a").used_ports == [6700]


def test_valid_worker_is_kept(supervisors, state, clock, wait_until):
    """A worker that beats for its assignment is left alone by later syncs."""
    conf = supervisors.conf("a", [6700])
    install_code(conf)
    state.set_assignment(STORM_ID, assignment({e: ("sup-a", 6700) for e in EXECUTORS}))
    supervisor = supervisors.start(conf, "sup-a")
    worker_id, pids = running_worker(conf, wait_until)
    sync_now(supervisor, clock)
    sync_now(supervisor, clock)
    assert worker_dirs.worker_ids(conf) == [worker_id]
    assert all(process_alive(pid) for pid in pids) and len(supervisors.launches) == 1


def test_a_worker_killed_with_sigkill_is_replaced_and_its_child_killed(
        supervisors, state, clock, wait_until):
    """kill -9 of the worker: the next sync kills its multilang child, removes its directory
    and launches a new worker for the port."""
    conf = supervisors.conf("a", [6700])
    install_code(conf)
    state.set_assignment(STORM_ID, assignment({e: ("sup-a", 6700) for e in EXECUTORS}))
    supervisor = supervisors.start(conf, "sup-a")
    worker_id, pids = running_worker(conf, wait_until)
    worker_pid = supervisor.children[worker_id].pid
    os.kill(worker_pid, signal.SIGKILL)
    supervisor.children[worker_id].wait(timeout=10)
    sync_now(supervisor, clock)
    clock.advance(conf["supervisor.worker.shutdown.sleep.secs"])
    wait_until(lambda: not any(process_alive(pid) for pid in pids), what="the child's death")
    new_id, _ = running_worker(conf, wait_until)
    assert new_id != worker_id and len(supervisors.launches) == 2
    assert not os.path.exists(local_dirs.worker_root(conf, worker_id))
    assert worker_dirs.ApprovedWorkers(conf).get() == {new_id: 6700}


def test_a_worker_whose_heartbeat_times_out_is_restarted(supervisors, state, clock,
                                                         wait_until):
    """No heartbeat for supervisor.worker.timeout.secs: killed (worker and child) and
    launched again."""
    conf = supervisors.conf("a", [6700])
    install_code(conf)
    state.set_assignment(STORM_ID, assignment({e: ("sup-a", 6700) for e in EXECUTORS}))
    supervisor = supervisors.start(conf, "sup-a")
    worker_id, pids = running_worker(conf, wait_until)
    clock.advance(conf["supervisor.worker.timeout.secs"] + 1)  # the syncs on the way run
    clock.advance(conf["supervisor.worker.shutdown.sleep.secs"])
    wait_until(lambda: not any(process_alive(pid) for pid in pids), what="the old worker's end")
    assert worker_id not in worker_dirs.worker_ids(conf)
    assert len(supervisors.launches) >= 2


def test_unassigned_topology_is_killed_and_its_code_removed(supervisors, state, clock,
                                                            wait_until):
    """Once the assignment is gone: every pid of the worker dies, its dir, its approval and
    the topology's stormdist dir are removed, and nothing is launched."""
    conf = supervisors.conf("a", [6700])
    stormroot = install_code(conf)
    state.set_assignment(STORM_ID, assignment({e: ("sup-a", 6700) for e in EXECUTORS}))
    supervisor = supervisors.start(conf, "sup-a")
    worker_id, pids = running_worker(conf, wait_until)
    state.remove_storm(STORM_ID)
    sync_now(supervisor, clock)
    wait_until(lambda: not any(process_alive(pid) for pid in pids), what="the worker's end")
    assert os.path.exists(local_dirs.worker_root(conf, worker_id))  # until the sleep is over
    clock.advance(conf["supervisor.worker.shutdown.sleep.secs"])
    assert worker_dirs.worker_ids(conf) == [] and worker_dirs.ApprovedWorkers(conf).get() == {}
    assert not os.path.exists(stormroot) and supervisor.children == {}
    assert len(supervisors.launches) == 1
    assert state.supervisor_info("sup-a") is not None
    clock.advance(conf["supervisor.heartbeat.frequency.secs"])
    assert state.supervisor_info("sup-a").used_ports == []


def test_a_worker_ignoring_sigterm_gets_sigkill_after_the_shutdown_sleep(
        supervisors, state, clock, wait_until):
    """SIGTERM first; what is still alive after supervisor.worker.shutdown.sleep.secs gets
    SIGKILL, and only then is the directory removed."""
    conf = supervisors.conf("a", [6700], **{"standin.ignore.sigterm": True})
    install_code(conf)
    state.set_assignment(STORM_ID, assignment({e: ("sup-a", 6700) for e in EXECUTORS}))
    supervisor = supervisors.start(conf, "sup-a")
    worker_id, pids = running_worker(conf, wait_until)
    worker_pid = supervisor.children[worker_id].pid
    state.remove_storm(STORM_ID)
    sync_now(supervisor, clock)
    child_pid = [pid for pid in pids if pid != worker_pid][0]
    wait_until(lambda: not process_alive(child_pid), what="the child's end on SIGTERM")
    assert process_alive(worker_pid)
    assert os.path.exists(local_dirs.worker_root(conf, worker_id))
    clock.advance(conf["supervisor.worker.shutdown.sleep.secs"])
    supervisor_child_gone = supervisors.daemons[0].children == {}
    wait_until(lambda: not process_alive(worker_pid), what="the worker's end on SIGKILL")
    assert supervisor_child_gone
    assert not os.path.exists(local_dirs.worker_root(conf, worker_id))


def test_a_restarted_supervisor_adopts_its_running_workers(supervisors, state, clock,
                                                           wait_until):
    """Stopping the supervisor leaves its worker running; a new supervisor on the same local
    dir keeps that worker (approved, beating) and launches nothing."""
    conf = supervisors.conf("a", [6700])
    install_code(conf)
    state.set_assignment(STORM_ID, assignment({e: ("sup-a", 6700) for e in EXECUTORS}))
    first = supervisors.start(conf, "sup-a")
    worker_id, pids = running_worker(conf, wait_until)
    first.stop()
    assert all(process_alive(pid) for pid in pids)
    second = supervisors.start(conf)
    assert second.supervisor_id == "sup-a"
    sync_now(second, clock)
    assert worker_dirs.worker_ids(conf) == [worker_id] and len(supervisors.launches) == 1
    assert all(process_alive(pid) for pid in pids)


def test_two_supervisors_on_one_machine_leave_each_others_workers_alone(
        supervisors, state, clock, wait_until):
    """Two supervisors, own local dirs and ports: each runs only its own port's worker, and
    the one losing its assignment kills only its own worker."""
    conf_a = supervisors.conf("a", [6700], **{"standin.executors": [(1, 1)]})
    conf_b = supervisors.conf("b", [6800], **{"standin.executors": [(2, 2)]})
    install_code(conf_a)
    install_code(conf_b)
    state.set_assignment(STORM_ID, assignment({(1, 1): ("sup-a", 6700),
                                               (2, 2): ("sup-b", 6800)}))
    supervisors.start(conf_a, "sup-a")
    supervisors.start(conf_b, "sup-b")
    worker_a, pids_a = running_worker(conf_a, wait_until)
    worker_b, pids_b = running_worker(conf_b, wait_until)
    state.set_assignment(STORM_ID, assignment({(1, 1): ("sup-a", 6700)}))
    clock.advance(conf_a["supervisor.monitor.frequency.secs"])  # both sync
    clock.advance(conf_a["supervisor.worker.shutdown.sleep.secs"])
    wait_until(lambda: not any(process_alive(pid) for pid in pids_b), what="b's worker's end")
    assert worker_dirs.worker_ids(conf_b) == []
    assert worker_dirs.worker_ids(conf_a) == [worker_a]
    assert all(process_alive(pid) for pid in pids_a)


def test_a_stray_worker_dir_is_removed(supervisors, state, clock):
    """A worker directory this supervisor never approved and that never beat is cleaned up."""
    conf = supervisors.conf("a", [6700])
    stray = "0b3a2c4e-1111-4222-8333-444455556666"
    worker_dirs.make_worker_dirs(conf, stray)
    supervisors.start(conf, "sup-a")
    assert worker_dirs.worker_ids(conf) == []


def test_start_empties_supervisor_tmp(supervisors):
    """A half download left in supervisor/tmp by a crash is removed at start."""
    conf = supervisors.conf("a", [6700])
    leftover = os.path.join(local_dirs.supervisor_tmp_dir(conf), "half")
    os.makedirs(leftover)
    supervisors.start(conf, "sup-a")
    assert os.listdir(local_dirs.supervisor_tmp_dir(conf)) == []


def test_code_that_cannot_be_downloaded_launches_nothing(supervisors, state):
    """No Nimbus answers: the download is logged, the port waits, and the next sync retries."""
    conf = supervisors.conf("a", [6700], **{"supervisor.worker.start.timeout.secs": 1})
    state.set_assignment(STORM_ID, assignment({e: ("sup-a", 6700) for e in EXECUTORS}))
    supervisor = supervisors.start(conf, "sup-a")
    assert supervisors.launches == [] and supervisor.assigned.keys() == {6700}
    assert state.supervisor_info("sup-a").meta == [6700]  # registered all the same
    assert not os.path.exists(local_dirs.supervisor_stormdist_root(conf, STORM_ID))


# -- `pynimbus supervisor` beside `pynimbus dev`, sharing the embedded store ---------------------

@pytest.fixture
def dev_nimbus(tmp_path):
    local_dir = tmp_path / "nimbus"
    local_dir.mkdir()
    proc = NimbusProcess(local_dir, options=[
        shared_store_option(local_dir), "nimbus.monitor.freq.secs=1",
        "supervisor.worker.start.timeout.secs=60"])
    proc.start(timeout=60)
    yield proc
    proc.stop()


def supervisor_summaries(nimbus_port):
    with NimbusClient("127.0.0.1", nimbus_port, timeout=10) as client:
        return client.getClusterInfo().supervisors


def test_pynimbus_supervisor_registers_and_stops_on_sigterm(dev_nimbus, tmp_path, wait_until):
    """``pynimbus supervisor`` on the dev Nimbus's store is listed with its slots, and
    SIGTERM ends it with exit code 0."""
    supervisor = SupervisorProcess(tmp_path / "sup-a", dev_nimbus.local_dir,
                                   dev_nimbus.port).start()
    try:
        wait_until(lambda: supervisor_summaries(dev_nimbus.port), timeout=30,
                   what="the supervisor listed by Nimbus")
        [summary] = supervisor_summaries(dev_nimbus.port)
        assert (summary.host, summary.num_workers) == ("localhost", 2)
    finally:
        code = supervisor.stop()
    assert code == 0, supervisor.log_tail()
    assert os.path.exists(os.path.join(supervisor.local_dir, "logs", "supervisor.log"))


def test_two_topologies_on_one_port_change_nothing(supervisors, state, clock, wait_until):
    """Two assignments claiming one port (Storm's "multiple topologies assigned to one
    port"): the sync is skipped, the running worker kept and nothing launched."""
    conf = supervisors.conf("a", [6700])
    install_code(conf)
    state.set_assignment(STORM_ID, assignment({e: ("sup-a", 6700) for e in EXECUTORS}))
    supervisor = supervisors.start(conf, "sup-a")
    worker_id, pids = running_worker(conf, wait_until)
    state.set_assignment("other-2-1700000000", assignment({(9, 9): ("sup-a", 6700)}))
    sync_now(supervisor, clock)
    assert worker_dirs.worker_ids(conf) == [worker_id] and len(supervisors.launches) == 1
    assert all(process_alive(pid) for pid in pids)
    assert os.path.exists(local_dirs.supervisor_stormdist_root(conf, STORM_ID))


def test_names_from_outside_never_become_paths(tmp_path):
    """Entries of workers/ that are no worker id are not read; a topology id is URL-encoded
    into one directory name, and one that cannot be is refused."""
    conf = {"storm.local.dir": str(tmp_path)}
    os.makedirs(tmp_path / "workers" / "not-a-uuid" / "pids")
    open(tmp_path / "workers" / "not-a-uuid" / "pids" / "1", "w").close()
    assert worker_dirs.worker_ids(conf) == []
    for bad in ("..", "../x", "/etc", ""):
        with pytest.raises(ValueError):
            local_dirs.worker_root(conf, bad)
    assert local_dirs.worker_artifacts_root(conf, "a/../b", 6700) == os.path.join(
        str(tmp_path), "logs", "workers-artifacts", "a%2F..%2Fb", "6700")
    with pytest.raises(ValueError):
        local_dirs.worker_artifacts_root(conf, "..", 6700)


def test_an_id_that_names_no_directory_is_not_run(supervisors):
    """An assigned topology id that cannot name a directory ("..", which the cluster-state
    paths refuse anyway) is left out of the local assignments; the others stay."""
    supervisor = supervisors.start(supervisors.conf("a", [6700, 6701]), "sup-a")
    local = supervisor.my_assignments({"..": assignment({(1, 1): ("sup-a", 6701)}),
                                       STORM_ID: assignment({(2, 2): ("sup-a", 6700)})})
    assert {port: a.topology_id for port, a in local.items()} == {6700: STORM_ID}


def test_a_worker_that_never_beats_is_replaced_after_the_start_timeout(
        supervisors, state, clock, wait_until):
    """A launched worker gets supervisor.worker.start.timeout.secs to write its first
    heartbeat; then it is killed (with its child) and another is launched."""
    conf = supervisors.conf("a", [6700], **{"standin.no.heartbeat": True})
    install_code(conf)
    state.set_assignment(STORM_ID, assignment({e: ("sup-a", 6700) for e in EXECUTORS}))
    supervisor = supervisors.start(conf, "sup-a")
    [worker_id] = worker_dirs.worker_ids(conf)
    wait_until(lambda: len(worker_dirs.worker_pids(conf, worker_id)) == 2,
               what="the worker's and its child's pid files")
    pids = worker_dirs.worker_pids(conf, worker_id)
    clock.advance(conf["supervisor.worker.start.timeout.secs"] - 1)
    assert worker_dirs.worker_ids(conf) == [worker_id] and len(supervisors.launches) == 1
    sync_now(supervisor, clock)
    sync_now(supervisor, clock)
    clock.advance(conf["supervisor.worker.shutdown.sleep.secs"])
    wait_until(lambda: not any(process_alive(pid) for pid in pids), what="the stuck worker's end")
    assert worker_id not in worker_dirs.worker_ids(conf) and len(supervisors.launches) == 2


def test_worker_dirs_that_are_gone_or_not_directories_list_nothing(tmp_path):
    """A worker's directories are removed while others read them: a pids or workers path
    that is missing, or is no directory, lists no pid and no worker (never raises)."""
    conf = {"storm.local.dir": str(tmp_path)}
    assert worker_dirs.worker_ids(conf) == []
    worker_id = "f34691e5-10e3-4328-978e-890380b08972"
    os.makedirs(local_dirs.worker_root(conf, worker_id))
    assert worker_dirs.worker_ids(conf) == [worker_id]
    assert worker_dirs.worker_pids(conf, worker_id) == []
    open(local_dirs.worker_pids_root(conf, worker_id), "w").close()
    assert worker_dirs.worker_pids(conf, worker_id) == []
