"""``pynimbus supervisor`` in 2.x mode beside ``pynimbus dev`` in 2.x mode, on a real ZooKeeper.

Two supervisors (``pynimbus.storm.compat=2.x``) serve the ``Supervisor`` Thrift service and
register its port; Nimbus pushes them the pystorm word count of :mod:`worker_topologies`, which
counts exactly; their ``sendSupervisorWorkerHeartbeats`` keep the executors alive past the
launch grace and the heartbeat timeout (the assignment's start times never change), and
``getTopologyInfo`` shows the executors with uptime and stats; a rebalance is pushed and the
listening worker ports become the new assignment's; ``killTopology`` leaves no worker.
"""
# test-case-name: tests.test_supervisor_2x_end_to_end

import signal

import pytest

from nimbus_process import free_port, nimbus_on_zookeeper, zookeeper_options
from supervisor_process import SupervisorProcess
from test_supervisor_end_to_end import listening, worker_pids_of
from test_worker_process import all_time, submit
from worker_topologies import CORPUS, expected_counts, final_counts, word_count, word_count_jar
from pynimbus.cluster import StormClusterState, make_backend
from pynimbus.generated.storm.ttypes import KillOptions, NotAliveException, RebalanceOptions
from pynimbus.supervisor import daemon, worker_dirs
from pynimbus.supervisor.daemon import process_alive
from pynimbus.thrift.client import NimbusClient, SupervisorClient

# tens of seconds each (tox -e slow, which CI runs, not the default run)
pytestmark = [pytest.mark.zookeeper, pytest.mark.slow]

TASK_TIMEOUT_SECS = 8    # nimbus.task.timeout.secs and topology.worker.timeout.secs
LAUNCH_SECS = 20         # nimbus.task.launch.secs: the grace before a first heartbeat


@pytest.fixture
def nimbus(zookeeper_conf, tmp_path):
    yield from nimbus_on_zookeeper(
        zookeeper_conf, tmp_path, "pynimbus.storm.compat=2.x", "nimbus.monitor.freq.secs=1",
        "nimbus.task.timeout.secs=%d" % TASK_TIMEOUT_SECS,
        "nimbus.task.launch.secs=%d" % LAUNCH_SECS,
        "supervisor.worker.start.timeout.secs=60")


@pytest.fixture
def cluster_state(zookeeper_conf):
    state = StormClusterState(make_backend(zookeeper_conf))
    yield state
    state.close()


def supervisor_2x(tmp_path, name, nimbus, zookeeper_conf, env):
    """A 2.x ``pynimbus supervisor`` with two slots and its own Thrift port, on ZooKeeper."""
    thrift_port = free_port()
    supervisor = SupervisorProcess(
        tmp_path / name, nimbus.local_dir, nimbus.port, env=env,
        options=zookeeper_options(zookeeper_conf["storm.zookeeper.servers"],
                                  zookeeper_conf["storm.zookeeper.port"],
                                  zookeeper_conf["storm.zookeeper.root"]) + [
            "pynimbus.storm.compat=2.x", "supervisor.thrift.port=%d" % thrift_port,
            "pynimbus.thrift.bind.address=127.0.0.1",
            "supervisor.monitor.frequency.secs=1", "supervisor.worker.shutdown.sleep.secs=1",
            "supervisor.heartbeat.frequency.secs=1"])
    supervisor.thrift_port = thrift_port
    return supervisor


def topology_info(nimbus, storm_id):
    with NimbusClient("127.0.0.1", nimbus.port, timeout=10) as client:
        return client.getTopologyInfo(storm_id)


def assigned_ports(assignment):
    return {port for node_info in assignment.executor_node_port.values()
            for port in node_info.port}


def test_2x_supervisors_run_rebalance_and_kill_a_topology(nimbus, zookeeper_conf,
                                                          cluster_state, tmp_path,
                                                          wait_until):
    """Served, pushed, counted, kept alive by RPC heartbeats, rebalanced, killed; SIGTERM
    ends each supervisor with code 0 and closes its Thrift port."""
    output = str(tmp_path / "counts.txt")
    env = {"WORDCOUNT_OUTPUT": output, "WORDCOUNT_ACKED": str(tmp_path / "acked.txt")}
    supervisors = [supervisor_2x(tmp_path, name, nimbus, zookeeper_conf, env)
                   for name in ("sup-a", "sup-b")]
    all_ports = [port for s in supervisors for port in s.ports]
    seen_pids = set()

    def note_pids():
        seen_pids.update(*(worker_pids_of(s.local_dir) for s in supervisors))

    def logs():
        return "\n".join(s.log_tail() for s in supervisors) + "\n" + nimbus.log_tail()
    try:
        for supervisor in supervisors:
            supervisor.start()

        # registered with the port of the service they serve
        def registered():
            infos = cluster_state.supervisor_infos(cluster_state.supervisors())
            return sorted(i.server_port or 0 for i in infos.values()) == \
                sorted(s.thrift_port for s in supervisors)
        wait_until(registered, timeout=30, what="both supervisors registered with server_port")
        with SupervisorClient("127.0.0.1", supervisors[0].thrift_port, timeout=10) as sup:
            with pytest.raises(NotAliveException):
                sup.getLocalAssignmentForStorm("nothing-1-1")

        with NimbusClient("127.0.0.1", nimbus.port, timeout=10) as client:
            storm_id = submit(client, "wc", word_count_jar(), word_count(), {
                "topology.workers": 2, "topology.stats.sample.rate": 1.0,
                "topology.worker.timeout.secs": TASK_TIMEOUT_SECS,
                "executor.metrics.frequency.secs": 1})

        def counted():
            note_pids()
            return final_counts(output)[0] == expected_counts()
        wait_until(counted, timeout=120, what="exact word counts:\n" + logs())

        # the workers' assignment comes from their supervisor (what Nimbus pushed)
        assignment = cluster_state.assignment_info(storm_id)
        with SupervisorClient("127.0.0.1", supervisors[0].thrift_port, timeout=10) as sup:
            local = sup.getLocalAssignmentForStorm(storm_id)
        assert local.executor_node_port == assignment.executor_node_port
        assert all(listening(port) for port in assigned_ports(assignment))

        # past the launch grace and the timeout, only the RPC heartbeats keep the executors:
        # Nimbus never reassigns them (their start times stay) and shows them with stats
        start_times = dict(assignment.executor_start_time_secs)
        words = sum(expected_counts().values())

        def alive_long_with_stats():
            info = topology_info(nimbus, storm_id)
            assert cluster_state.assignment_info(storm_id).executor_start_time_secs == \
                start_times, "executors reassigned:\n" + logs()
            return (info.uptime_secs > LAUNCH_SECS + 2 * TASK_TIMEOUT_SECS
                    and all(e.stats is not None and e.uptime_secs > 0
                            for e in info.executors)
                    and all_time(info, "sentences", "acked") == len(CORPUS)
                    and all_time(info, "count", "executed") == words)
        wait_until(alive_long_with_stats, timeout=120, interval=0.5,
                   what="executors alive past the timeouts, with their stats")

        # a rebalance to three workers: Nimbus pushes it, the workers follow it
        with NimbusClient("127.0.0.1", nimbus.port, timeout=10) as client:
            client.rebalance("wc", RebalanceOptions(wait_secs=0, num_workers=3))

        def rebalanced():
            note_pids()
            new = cluster_state.assignment_info(storm_id)
            ports = assigned_ports(new)
            return (len(ports) == 3
                    and {p for p in all_ports if listening(p)} == ports)
        wait_until(rebalanced, timeout=120, interval=0.2,
                   what="the listening worker ports to equal the new assignment:\n" + logs())
        assert any("Got assignments from master" in open(s.log_path).read()
                   for s in supervisors), "no push logged:\n" + logs()

        with NimbusClient("127.0.0.1", nimbus.port, timeout=10) as client:
            client.killTopologyWithOpts("wc", KillOptions(wait_secs=0))

        def all_gone():
            note_pids()
            return all(worker_dirs.worker_ids({"storm.local.dir": s.local_dir}) == []
                       for s in supervisors)
        wait_until(all_gone, timeout=60, what="every worker removed:\n" + logs())
        wait_until(lambda: not any(process_alive(pid) for pid in seen_pids), timeout=30,
                   what="every worker and multilang child process gone")
        assert not any(listening(port) for port in all_ports)
        assert [s.stop() for s in supervisors] == [0, 0], logs()
        assert not any(listening(s.thrift_port) for s in supervisors)
    finally:
        for supervisor in supervisors:
            supervisor.stop()
        note_pids()
        for pid in seen_pids:
            daemon.send_signal(pid, signal.SIGKILL)
