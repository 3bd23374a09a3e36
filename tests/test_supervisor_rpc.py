"""Storm 2.x supervisors and Nimbus over RPC, black-box against a `pynimbus dev` process in
2.x mode: worker heartbeats sent with ``sendSupervisorWorkerHeartbeats`` keep executors
assigned without ZooKeeper workerbeats, and assignments are pushed to the supervisors'
``Supervisor`` Thrift servers after each change.

Supervisors are simulated as in test_nimbus_scenarios (SupervisorInfo nodes written through
cluster state), here with ``server_port``; the one that answers is a real Twisted Thrift
server in another process (``fake_supervisor.py``).  Liveness tests move Nimbus's clock
(``clocked_nimbus.py``) instead of sleeping through timeouts.
"""

import socket
import time

import pytest

from clocked_nimbus import ClockedNimbusProcess
from fake_supervisor import FakeSupervisorProcess
from nimbus_process import free_port
from pynimbus.generated.storm.ttypes import (
    ExecutorInfo, KillOptions, NotAliveException, SupervisorInfo, SupervisorWorkerHeartbeat,
    SupervisorWorkerHeartbeats)
from test_nimbus_scenarios import Cluster, made_clusters, spout, topology

TIMEOUT_SECS = 30
LAUNCH_SECS = 120


class RpcCluster(Cluster):
    """A 2.x `pynimbus dev` process (clocked or not), cluster state, simulated supervisors."""

    compat_options = ("pynimbus.storm.compat=2.x",)

    def __init__(self, tmp_path, options=(), start_clock=None):
        self.start_clock = start_clock
        super().__init__(tmp_path, supervisors=0, options=options)

    def make_process(self, tmp_path):
        if self.start_clock is None:
            return super().make_process(tmp_path)
        process = ClockedNimbusProcess(tmp_path, options=self.options)
        process.set_clock(self.start_clock)
        return process

    def register_supervisor(self, supervisor_id, ports, hostname="127.0.0.1",
                            server_port=None):
        self.state.supervisor_heartbeat(supervisor_id, SupervisorInfo(
            time_secs=int(time.time()), hostname=hostname, assignment_id=supervisor_id,
            used_ports=[], meta=list(ports), scheduler_meta={}, uptime_secs=0,
            version="2.8.8", server_port=server_port))

    def send_worker_heartbeats(self, storm_id, assignment, time_secs):
        """What each supervisor of the assignment reports for its workers, over RPC."""
        per_node = {}
        for executor, node_info in assignment.executor_node_port.items():
            slot = (node_info.node, min(node_info.port))
            per_node.setdefault(node_info.node, {}).setdefault(slot, []).append(
                ExecutorInfo(executor[0], executor[1]))
        for node, slots in sorted(per_node.items()):
            self.call("sendSupervisorWorkerHeartbeats", heartbeats=SupervisorWorkerHeartbeats(
                supervisor_id=node, worker_heartbeats=[
                    SupervisorWorkerHeartbeat(storm_id, sorted(executors, key=_start), time_secs)
                    for _slot, executors in sorted(slots.items())]))

    def submit_and_wait(self, name, conf, topo):
        self.submit(name, conf, topo)
        storm_id = self.storm_id(name)
        return storm_id, self.assignment(name)


def _start(executor_info):
    return executor_info.task_start


def slots_of(assignment):
    return {(n.node, min(n.port)) for n in assignment.executor_node_port.values()}


@pytest.fixture
def clusters(tmp_path):
    yield from made_clusters(tmp_path, RpcCluster)


def test_rpc_heartbeats_keep_a_topology_assigned_until_they_stop(clusters):
    """Executors beating only over RPC keep their slot far past nimbus.task.timeout.secs and
    the launch grace, while a topology nobody beats for is moved; once the beats stop, the
    topology loses its slot within the timeout."""
    t0 = int(time.time())
    cluster = clusters(start_clock=t0, options=[
        "nimbus.task.timeout.secs=%d" % TIMEOUT_SECS,
        "nimbus.task.launch.secs=%d" % LAUNCH_SECS])
    cluster.register_supervisor("sup-a", [6700, 6701, 6702], hostname="host-a")
    cluster.register_supervisor("sup-b", [6700, 6701, 6702], hostname="host-b")
    beating_id, beating = cluster.submit_and_wait(
        "beating", {"topology.workers": 1}, topology({"1": spout(2)}))
    silent_id, silent = cluster.submit_and_wait(
        "silent", {"topology.workers": 1}, topology({"1": spout(1)}))
    assert set(beating.executor_start_time_secs.values()) == {t0}

    # Steps of 20 s < the 30 s timeout, so a round between a step and its beat still sees
    # the previous beat in time; 160 s is past the 120 s launch grace plus the timeout.
    for now in range(t0 + 20, t0 + LAUNCH_SECS + 2 * 20 + 1, 20):
        cluster.process.set_clock(now)
        cluster.send_worker_heartbeats(beating_id, beating, now)
    last_beat = now
    cluster.submit_and_wait("probe", {"topology.workers": 1}, topology({"1": spout(1)}))
    # the silent topology loses its first slot in a round at a later clock (awaited: the
    # round that moves it may come after the one that placed the probe)
    cluster.wait_for(lambda: min(cluster.state.assignment_info(
        silent_id).executor_start_time_secs.values()) > t0,
        "the silent topology to lose its first slot")
    assert cluster.state.assignment_info(silent_id) != silent
    # every round ran at the last clock or before, when its beats were fresh: untouched
    assert cluster.state.assignment_info(beating_id) == beating

    cluster.process.set_clock(last_beat + TIMEOUT_SECS)
    cluster.wait_for(lambda: cluster.state.assignment_info(beating_id) != beating,
                     "the silenced topology to be rescheduled")
    after = cluster.state.assignment_info(beating_id)
    assert slots_of(after).isdisjoint(slots_of(beating))
    assert set(after.executor_start_time_secs.values()) == {last_beat + TIMEOUT_SECS}


def test_one_worker_heartbeat_for_an_unknown_topology_is_not_alive(clusters):
    """sendSupervisorWorkerHeartbeat names the unknown id in NotAliveException; the batch
    form accepts it (as 2.8.8)."""
    cluster = clusters()
    beat = SupervisorWorkerHeartbeat("nope-1-1", [ExecutorInfo(1, 1)], 5)
    with pytest.raises(NotAliveException, match="nope-1-1"):
        cluster.call("sendSupervisorWorkerHeartbeat", heatbeat=beat)
    assert cluster.call("sendSupervisorWorkerHeartbeats", heartbeats=SupervisorWorkerHeartbeats(
        supervisor_id="sup-x", worker_heartbeats=[beat])) is None


@pytest.fixture
def fake_supervisor(tmp_path):
    supervisor = FakeSupervisorProcess(tmp_path / "supervisor").start()
    yield supervisor
    supervisor.stop()


@pytest.fixture
def black_hole():
    """A port that accepts connections (the kernel does) but never answers."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        s.listen(8)
        yield s.getsockname()[1]


def test_assignments_are_pushed_to_supervisors_past_dead_ones(clusters, fake_supervisor,
                                                             black_hole):
    """After a submit, the supervisor on the topology's host receives exactly its host's
    assignments at its server_port; a supervisor that never answers (30 s timeout) and one
    that refuses delay neither that push nor the next rounds; a remove pushes what remains."""
    cluster = clusters(options=["supervisor.thrift.socket.timeout.ms=30000"])
    started = time.monotonic()
    cluster.register_supervisor("a-other", [6900, 6901], hostname="other-host")
    elsewhere_id, elsewhere = cluster.submit_and_wait(
        "elsewhere", {"topology.workers": 1}, topology({"1": spout(1)}))
    assert slots_of(elsewhere) <= {("a-other", 6900), ("a-other", 6901)}

    cluster.register_supervisor("b-live", [6700], server_port=fake_supervisor.port)
    cluster.register_supervisor("c-hole", [6800], server_port=black_hole)
    cluster.register_supervisor("d-refused", [6600], server_port=free_port())
    spread_id, spread = cluster.submit_and_wait(
        "spread", {"topology.workers": 4}, topology({"1": spout(4)}))
    assert {node for node, _port in slots_of(spread)} == {
        "a-other", "b-live", "c-hole", "d-refused"}

    cluster.wait_for(lambda: fake_supervisor.received(), "the push to b-live")
    [pushed] = fake_supervisor.received()
    assert pushed.storm_assignment == {spread_id: spread}  # not "elsewhere": another host

    cluster.wait_for(lambda: "d-refused" in _log(cluster), "the refused push to be logged")
    assert "Exception when trying to send assignments to node d-refused" in _log(cluster)

    cluster.call("killTopologyWithOpts", name="spread", options=KillOptions(wait_secs=0))
    cluster.wait_for(lambda: len(fake_supervisor.received()) == 2, "the push after the kill")
    assert fake_supervisor.received()[1].storm_assignment == {}
    later_id, later = cluster.submit_and_wait(
        "later", {"topology.workers": 1}, topology({"1": spout(1)}))
    assert cluster.state.assignment_info(elsewhere_id) == elsewhere
    # all of this happened while the push to c-hole was still waiting for its answer
    assert time.monotonic() - started < 30
    assert "c-hole" not in _pushed_failures(cluster)


def _log(cluster):
    with open(cluster.process.log_path, errors="replace") as f:
        return f.read()


def _pushed_failures(cluster):
    return [line for line in _log(cluster).splitlines()
            if "Exception when trying to send assignments" in line]
