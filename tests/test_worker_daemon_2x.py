"""The worker in 2.x mode (:mod:`pynimbus.worker.daemon`): where it reads its assignment, where
its heartbeat goes when the supervisor fails, and its exit when its executors change; the
supervisor and Nimbus calls are stood in (no sockets), blocking steps run synchronously."""
# test-case-name: tests.test_worker_daemon_2x

import pytest
from twisted.internet import defer, task

from pynimbus.generated.storm.ttypes import (
    Assignment, ExecutorInfo, LSWorkerHeartbeat, NodeInfo, SupervisorWorkerHeartbeat)
from pynimbus.thrift import client as thrift_client
from pynimbus.worker import daemon

STORM_ID = "wc-1-1"


def assignment(executors):
    return Assignment(master_code_dir="", node_host={"sup-a": "localhost"},
                      executor_node_port={e: NodeInfo("sup-a", {6700}) for e in executors})


class StandInClusterState:
    def __init__(self, stored):
        self.stored = stored
        self.reads = 0

    def assignment_info(self, storm_id):
        self.reads += 1
        return self.stored

    def storm_base(self, storm_id):
        return None

    def topology_log_config(self, storm_id):
        return None

    def remove_worker_heartbeat(self, storm_id, node, port):
        self.removed = (storm_id, node, port)


class StoppableClock(task.Clock):
    stopped = False

    def stop(self):
        self.stopped = True


class Calls:
    """Stands in for ``call_supervisor`` / ``call_leader_nimbus``: records the calls and
    answers ``answer`` (raised when it is an exception)."""

    def __init__(self, answer=None):
        self.answer = answer
        self.calls = []

    def __call__(self, conf, method, *args, **kwargs):
        self.calls.append((method,) + args)
        if isinstance(self.answer, Exception):
            raise self.answer
        return self.answer


def worker(compat, cluster_state):
    conf = {"pynimbus.storm.compat": compat, "supervisor.thrift.port": 6628,
            "storm.local.hostname": "localhost", "storm.local.dir": "/nonexistent"}
    made = daemon.WorkerDaemon(StoppableClock(), conf, STORM_ID, "sup-a", 6700, "w-1",
                               cluster_state, run_blocking=defer.maybeDeferred)
    made.compat = compat
    made.conf = dict(conf)
    return made


@pytest.fixture
def supervisor(monkeypatch):
    calls = Calls()
    monkeypatch.setattr(daemon, "call_supervisor", calls)
    return calls


@pytest.fixture
def nimbus(monkeypatch):
    calls = Calls()
    monkeypatch.setattr(thrift_client, "call_leader_nimbus", calls)
    return calls


def test_a_2x_worker_reads_its_assignment_from_its_supervisor(supervisor):
    """2.8.8 getLocalAssignment: the supervisor's local copy; cluster state is not read."""
    state = StandInClusterState(assignment([(9, 9)]))
    supervisor.answer = assignment([(1, 1)])
    assert worker("2.x", state)._read_assignment() == assignment([(1, 1)])
    assert supervisor.calls == [("getLocalAssignmentForStorm", STORM_ID)] and state.reads == 0


def test_without_its_supervisor_it_reads_cluster_state(supervisor):
    """The supervisor does not answer: the assignment in cluster state."""
    state = StandInClusterState(assignment([(9, 9)]))
    supervisor.answer = ConnectionRefusedError("no supervisor")
    assert worker("2.x", state)._read_assignment() == assignment([(9, 9)])


def test_a_1x_worker_never_calls_a_supervisor(supervisor):
    """1.x supervisors serve nothing: cluster state only."""
    state = StandInClusterState(assignment([(9, 9)]))
    assert worker("1.x", state)._read_assignment() == assignment([(9, 9)])
    assert supervisor.calls == []


HEARTBEAT = SupervisorWorkerHeartbeat(STORM_ID, [ExecutorInfo(1, 1), ExecutorInfo(-1, -1)], 7)


def test_the_heartbeat_to_send_is_the_local_one():
    """Storm id, executors (system one included) and time of the LocalState heartbeat."""
    local = LSWorkerHeartbeat(time_secs=7, topology_id=STORM_ID, port=6700,
                              executors=[ExecutorInfo(1, 1), ExecutorInfo(-1, -1)])
    assert daemon.supervisor_worker_heartbeat(local) == HEARTBEAT


def test_the_heartbeat_goes_to_the_supervisor(supervisor, nimbus):
    """A supervisor that takes the heartbeat: Nimbus is not called."""
    worker("2.x", None)._heartbeat_to_master_if_local_beat_fail(HEARTBEAT)
    assert supervisor.calls == [("sendSupervisorWorkerHeartbeat", HEARTBEAT)]
    assert nimbus.calls == []


def test_the_heartbeat_goes_to_nimbus_when_the_supervisor_fails(supervisor, nimbus):
    """heartbeatToMasterIfLocalbeatFail: a supervisor that fails (down, or NotAlive) sends
    the worker to the leader; a failure there too is only logged."""
    supervisor.answer = ConnectionRefusedError("no supervisor")
    worker("2.x", None)._heartbeat_to_master_if_local_beat_fail(HEARTBEAT)
    assert nimbus.calls == [("sendSupervisorWorkerHeartbeat", HEARTBEAT)]
    nimbus.answer = ConnectionRefusedError("no nimbus either")
    worker("2.x", None)._heartbeat_to_master_if_local_beat_fail(HEARTBEAT)


@pytest.mark.parametrize("now_assigned", [
    assignment([(1, 1), (2, 2)]), assignment([]), ConnectionRefusedError("no supervisor")])
def test_a_2x_worker_whose_executors_change_exits_with_1(supervisor, now_assigned):
    """suicideIfLocalAssignmentsChanged: other executors on its port, none, or no assignment
    anywhere end the worker (code 1) so that its supervisor launches what the port runs."""
    made = worker("2.x", StandInClusterState(None))
    made.executor_ids = [(1, 1)]
    supervisor.answer = now_assigned
    made._refresh()
    assert made.reactor.stopped and made.exit_code == daemon.EXIT_CODE_SUICIDE


def test_the_same_executors_keep_it_running(supervisor, monkeypatch):
    """The same executors: it goes on, its connections refreshed from that assignment."""
    made = worker("2.x", StandInClusterState(None))
    made.executor_ids = [(1, 1)]
    supervisor.answer = assignment([(1, 1)])
    connected = []
    monkeypatch.setattr(made, "_connect", connected.append)
    monkeypatch.setattr(made, "_apply_status", lambda base: None)
    made._refresh()
    assert not made.reactor.stopped and connected == [supervisor.answer]


@pytest.mark.parametrize("compat", ["1.x", "2.x"])
def test_shutdown_removes_the_workers_heartbeat(compat):
    """worker.clj shutdown and 2.8.8 Worker.shutdown: ``/workerbeats/<id>/<node>-<port>``
    goes with the worker."""
    state = StandInClusterState(None)
    worker(compat, state).shutdown()
    assert state.removed == (STORM_ID, "sup-a", 6700)


def test_a_component_ending_while_the_worker_shuts_down_is_no_error():
    """The shutdown kills the multilang children: a pipe that breaks then is reported as no
    component error, and the worker's exit code stays its own."""
    state = StandInClusterState(None)
    reported = []
    state.report_error = lambda *args: reported.append(args)
    made = worker("1.x", state)
    made.shutdown()
    made._child_died("split", "Pipe to subprocess seems to be broken!")
    assert reported == [] and made.exit_code != daemon.EXIT_CODE_CHILD_DIED
    assert not made.reactor.stopped


def test_stopping_a_reactor_that_stops_already_is_no_error():
    from twisted.internet.error import ReactorNotRunning

    class StoppingClock(task.Clock):
        def stop(self):
            raise ReactorNotRunning("Can't stop reactor that isn't running.")

    made = worker("1.x", StandInClusterState(None))
    made.reactor = StoppingClock()
    made.stop_reactor()  # the report of a component's death came after the reactor stopped
