"""The supervisor daemon in 2.x mode, on a memory reactor's clock, real directories and
stand-in worker processes (tests/standin_worker.py), with Nimbus's side stood in by a recorder
of the calls the daemon makes to the leader: it serves and registers its Thrift port, runs
what Nimbus pulls or pushes (never what cluster state holds), does not sync before Nimbus
answered, and reports its workers' heartbeats every ``worker.heartbeat.frequency.secs``."""
# test-case-name: tests.test_supervisor_daemon_2x

import re
import socket
import time

import pytest
from twisted.internet.testing import MemoryReactorClock

from pynimbus import STORM_VERSION_2X
from pynimbus.generated.storm.ttypes import SupervisorAssignments
from pynimbus.supervisor import daemon, worker_dirs
from pynimbus.supervisor.daemon import process_alive
from pynimbus.supervisor.thrift_service import SupervisorService
from test_supervisor_daemon import (  # noqa: F401 (state is a fixture)
    EXECUTORS, STORM_ID, Supervisors, assignment, install_code, running_worker, state)

THRIFT_PORT = 6628


class StandInNimbus:
    """The leader Nimbus as the daemon calls it (``call_leader_nimbus``): answers
    ``getSupervisorAssignments`` with ``assignments`` (or raises ``down``), records the
    heartbeat reports."""

    def __init__(self):
        self.assignments = {}
        self.down = None
        self.reports = []

    def __call__(self, conf, method, *args, **kwargs):
        if self.down is not None:
            raise self.down
        if method == "getSupervisorAssignments":
            return SupervisorAssignments(storm_assignment=dict(self.assignments))
        if method == "sendSupervisorWorkerHeartbeats":
            self.reports.append(args[0])
            return None
        raise AssertionError("unexpected call %s" % method)


@pytest.fixture
def nimbus(monkeypatch):
    stand_in = StandInNimbus()
    monkeypatch.setattr(daemon, "call_leader_nimbus", stand_in)
    return stand_in


@pytest.fixture
def reactor():
    clock = MemoryReactorClock()
    clock.advance(time.time())  # the stand-in worker stamps its heartbeat with the real time
    return clock


@pytest.fixture
def supervisors(embedded_conf, tmp_path, state, reactor):  # noqa: F811
    made = Supervisors(embedded_conf, tmp_path, state, reactor)
    yield made
    made.close()


def conf_2x(supervisors, name="a", **overrides):
    return supervisors.conf(name, [6700], **dict({
        "pynimbus.storm.compat": "2.x", "supervisor.thrift.port": THRIFT_PORT,
        "pynimbus.thrift.bind.address": "127.0.0.1", "worker.heartbeat.frequency.secs": 1},
        **overrides))


MY_ASSIGNMENT = {STORM_ID: assignment({e: ("sup-a", 6700) for e in EXECUTORS})}


def test_serves_its_thrift_port_and_registers_it(supervisors, state, reactor, nimbus):
    """The Supervisor service listens on ``supervisor.thrift.port`` at the bind address, and
    the SupervisorInfo names that ``server_port`` and version 2.8.8."""
    supervisors.start(conf_2x(supervisors), "sup-a")
    [(port, _factory, _backlog, interface)] = reactor.tcpServers
    assert (port, interface) == (THRIFT_PORT, "127.0.0.1")
    info = state.supervisor_info("sup-a")
    assert (info.server_port, info.version) == (THRIFT_PORT, STORM_VERSION_2X)


def test_runs_what_nimbus_gives_not_what_cluster_state_holds(supervisors, state, reactor,
                                                             nimbus, wait_until):
    """An assignment only in cluster state launches nothing; the same one pushed launches
    its worker, and the worker's conf names the port the supervisor serves."""
    conf = conf_2x(supervisors)
    state.set_assignment(STORM_ID, MY_ASSIGNMENT[STORM_ID])
    supervisor = supervisors.start(conf, "sup-a")
    reactor.advance(conf["supervisor.monitor.frequency.secs"])
    assert supervisors.launches == [] and supervisor.assignments_synchronized
    install_code(conf)  # as a download would (unassigned code was removed by the syncs)
    SupervisorService(supervisor).sendSupervisorAssignments(
        SupervisorAssignments(storm_assignment=MY_ASSIGNMENT))
    worker_id, _pids = running_worker(conf, wait_until)
    assert len(supervisors.launches) == 1
    conf_path = supervisors.launches[0][supervisors.launches[0].index("--conf") + 1]
    with open(conf_path) as f:
        assert '"supervisor.thrift.port": %d' % THRIFT_PORT in f.read()


def test_pulls_its_assignments_every_ten_seconds(supervisors, reactor, nimbus, wait_until):
    """Port of SynchronizeAssignments on the event timer: what ``getSupervisorAssignments``
    answers replaces the copy, at start and every 10 s, and the sync acts on it."""
    conf = conf_2x(supervisors)
    supervisor = supervisors.start(conf, "sup-a")
    assert supervisor.local_assignments == {} and supervisors.launches == []
    nimbus.assignments = MY_ASSIGNMENT
    reactor.advance(9)
    assert supervisor.local_assignments == {}
    install_code(conf)  # as a download would
    reactor.advance(1)
    assert supervisor.local_assignments == MY_ASSIGNMENT
    running_worker(conf, wait_until)


def test_keeps_its_workers_until_nimbus_answers(supervisors, reactor, nimbus, wait_until):
    """Restarted while Nimbus is down: no sync, so the running worker is kept past every
    timeout; once Nimbus answers without it, it is killed (deliberate difference: 2.8.8
    syncs on an empty copy)."""
    conf = conf_2x(supervisors)
    install_code(conf)
    nimbus.assignments = MY_ASSIGNMENT
    first = supervisors.start(conf, "sup-a")
    worker_id, pids = running_worker(conf, wait_until)
    first.stop()
    reactor.tcpServers.clear()
    nimbus.down = ConnectionRefusedError("nimbus is down")
    again = supervisors.start(conf, "sup-a")
    reactor.advance(conf["supervisor.worker.timeout.secs"] + 1)
    assert not again.assignments_synchronized
    assert worker_dirs.worker_ids(conf) == [worker_id]
    assert all(process_alive(pid) for pid in pids)
    nimbus.down = None
    nimbus.assignments = {}
    reactor.advance(10)  # the next pull: nothing assigned any more
    reactor.advance(conf["supervisor.worker.shutdown.sleep.secs"])
    wait_until(lambda: not any(process_alive(pid) for pid in pids),
               what="the unassigned worker's end")


def test_reports_its_workers_heartbeats_each_period(supervisors, reactor, nimbus, wait_until):
    """ReportWorkerHeartbeats: under the supervisor's id, each worker's storm id and
    executors (its system executor too), again every worker.heartbeat.frequency.secs."""
    conf = conf_2x(supervisors)
    install_code(conf)
    nimbus.assignments = MY_ASSIGNMENT
    supervisors.start(conf, "sup-a")
    running_worker(conf, wait_until)
    before = len(nimbus.reports)
    reactor.advance(conf["worker.heartbeat.frequency.secs"])
    assert len(nimbus.reports) == before + 1
    report = nimbus.reports[-1]
    assert report.supervisor_id == "sup-a"
    [beat] = report.worker_heartbeats
    assert beat.storm_id == STORM_ID
    assert {(e.task_start, e.task_end) for e in beat.executors} == set(EXECUTORS)


def test_a_new_2x_supervisor_id_names_the_hosts_address(supervisors, nimbus):
    """2.8.8's generateSupervisorId: ``<uuid>-<host address>``, kept across restarts."""
    conf = conf_2x(supervisors)
    supervisor_id = supervisors.start(conf).supervisor_id
    address = socket.gethostbyname(socket.gethostname())
    assert re.fullmatch(r"[0-9a-f]{8}(-[0-9a-f]{4}){3}-[0-9a-f]{12}-" + re.escape(address),
                        supervisor_id)
    assert supervisors.start(conf).supervisor_id == supervisor_id


def test_a_push_during_a_pull_is_not_overwritten_by_it(supervisors, state, reactor, nimbus,
                                                       monkeypatch):
    """Pulls and pushes are applied one at a time in the order they came (upstream's event
    manager): a push that arrives while a pull is under way wins over the pull's answer."""
    conf = conf_2x(supervisors)
    supervisor = supervisors.start(conf, "sup-a")
    pushed = {"pushed-2-2": assignment({(1, 1): ("sup-a", 6700)})}
    state.set_assignment("pushed-2-2", pushed["pushed-2-2"])  # Nimbus writes, then pushes

    def push_during_the_pull(conf, method, *args, **kwargs):
        if method == "getSupervisorAssignments":
            SupervisorService(supervisor).sendSupervisorAssignments(
                SupervisorAssignments(storm_assignment=pushed))
        return nimbus(conf, method, *args, **kwargs)
    nimbus.assignments = MY_ASSIGNMENT
    monkeypatch.setattr(daemon, "call_leader_nimbus", push_during_the_pull)
    reactor.advance(10)
    assert supervisor.local_assignments == pushed


def test_a_push_the_cluster_state_contradicts_is_ignored(supervisors, state, reactor, nimbus,
                                                        wait_until):
    """Anyone who reaches the Supervisor port can call sendSupervisorAssignments: a push that
    gives this supervisor other than the cluster state's assignments give it (an empty one
    would stop every worker) is ignored, and the worker Nimbus assigned runs on."""
    conf = conf_2x(supervisors)
    state.set_assignment(STORM_ID, MY_ASSIGNMENT[STORM_ID])
    supervisor = supervisors.start(conf, "sup-a")
    install_code(conf)
    SupervisorService(supervisor).sendSupervisorAssignments(
        SupervisorAssignments(storm_assignment=MY_ASSIGNMENT))
    worker_id, _pids = running_worker(conf, wait_until)
    forged = {"forged-9-9": assignment({(1, 1): ("sup-a", 6700)})}
    for push in ({}, forged):
        SupervisorService(supervisor).sendSupervisorAssignments(
            SupervisorAssignments(storm_assignment=push))
        reactor.advance(conf["supervisor.monitor.frequency.secs"])
        assert supervisor.local_assignments == MY_ASSIGNMENT
    assert len(supervisors.launches) == 1
    assert running_worker(conf, wait_until)[0] == worker_id
