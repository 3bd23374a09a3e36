"""The JStorm topology master end to end: ``pynimbus dev`` under ``pynimbus.scheduler: jstorm``
and two ``pynimbus supervisor`` processes on the session's real ZooKeeper run the pystorm word
count with ``topology.master.single.worker`` set.  The Python workers send their heartbeats to
the ``__topology_master`` task, whose worker writes one ``/workerbeats`` record per period for
the whole topology; Nimbus sees every executor alive with its statistics from it.
"""

import json
import time
import uuid

import pytest
from kazoo.client import KazooClient

from nimbus_process import NimbusProcess
from pynimbus.thrift.client import NimbusClient
from supervisor_process import SupervisorProcess
from pynimbus.cluster.serialization import deserialize
from pynimbus.generated.storm.ttypes import Assignment
from test_supervisor_daemon import supervisor_summaries
from test_supervisor_end_to_end import stop_all, worker_pids_of
from test_worker_process import submit
from worker_topologies import word_count, word_count_jar

# tens of seconds each (tox -e slow, which CI runs, not the default run)
pytestmark = [pytest.mark.zookeeper, pytest.mark.slow]

PERIOD_SECS = 2  # task.heartbeat.frequency.secs: the stats heartbeat's period


@pytest.fixture
def jstorm_cluster(tmp_path, zookeeper_server):
    """``(nimbus, supervisors, zookeeper options)`` on a ZooKeeper root of their own."""
    zookeeper = ["storm.zookeeper.servers=%s" % json.dumps(zookeeper_server.servers),
                 "storm.zookeeper.port=%d" % zookeeper_server.port,
                 "storm.zookeeper.root=/pynimbus-master-%s" % uuid.uuid4().hex]
    local_dir = tmp_path / "nimbus"
    local_dir.mkdir()
    nimbus = NimbusProcess(local_dir, options=zookeeper + [
        "pynimbus.scheduler=jstorm", "nimbus.monitor.freq.secs=1",
        "supervisor.worker.start.timeout.secs=60"])
    nimbus.start(timeout=60)
    options = zookeeper + ["supervisor.monitor.frequency.secs=1",
                           "supervisor.worker.shutdown.sleep.secs=1",
                           "supervisor.heartbeat.frequency.secs=1"]
    env = {"WORDCOUNT_OUTPUT": str(tmp_path / "counts.txt"),
           "WORDCOUNT_ACKED": str(tmp_path / "acked.txt")}
    supervisors = [SupervisorProcess(tmp_path / name, local_dir, nimbus.port, options=options,
                                     env=env) for name in ("sup-a", "sup-b")]
    seen_pids = set()
    try:
        for supervisor in supervisors:
            supervisor.start()
        yield nimbus, supervisors, zookeeper_server, zookeeper[-1].split("=", 1)[1]
    finally:
        for supervisor in supervisors:
            seen_pids |= worker_pids_of(supervisor.local_dir)
        stop_all(supervisors, seen_pids)
        nimbus.stop()


def topology_info(nimbus, storm_id):
    with NimbusClient("127.0.0.1", nimbus.port, timeout=10) as client:
        return client.getTopologyInfo(storm_id)


def test_one_heartbeat_write_per_period_and_every_executor_alive_with_stats(jstorm_cluster,
                                                                            wait_until):
    """Three workers and a master: /workerbeats holds one record, at the master's slot,
    written once per period; getTopologyInfo shows every executor with statistics and the
    assignment is never changed (no executor timed out)."""
    nimbus, supervisors, zookeeper_server, root = jstorm_cluster
    wait_until(lambda: len(supervisor_summaries(nimbus.port)) == 2, timeout=30,
               what="both supervisors listed")
    with NimbusClient("127.0.0.1", nimbus.port, timeout=10) as client:
        storm_id = submit(client, "wc", word_count_jar(), word_count(), {
            "topology.workers": 3, "topology.master.single.worker": False,
            "task.heartbeat.frequency.secs": PERIOD_SECS, "nimbus.task.timeout.secs": 30})
    zk = KazooClient(hosts="127.0.0.1:%d" % zookeeper_server.port)
    zk.start(timeout=15)
    try:
        beats_root = "%s/workerbeats/%s" % (root, storm_id)
        assignment_path = "%s/assignments/%s" % (root, storm_id)

        def every_executor_has_stats():
            info = topology_info(nimbus, storm_id)
            components = {e.component_id for e in info.executors}
            return ("__topology_master" in components and info.executors
                    and all(e.stats is not None for e in info.executors))
        wait_until(every_executor_has_stats, timeout=120, interval=0.5,
                   what="every executor's statistics in getTopologyInfo:\n%s"
                   % "\n".join(s.log_tail() for s in supervisors))
        data, assigned = zk.get(assignment_path)
        slots = {(ni.node, min(ni.port))
                 for ni in deserialize(data, Assignment).executor_node_port.values()}
        assert len(slots) == 3
        [record] = zk.get_children(beats_root)  # the master's slot only
        assert tuple(record.rsplit("-", 1)) in {(n, str(p)) for n, p in slots}
        _, first = zk.get("%s/%s" % (beats_root, record))
        started = time.monotonic()
        periods = 5
        wait_until(lambda: time.monotonic() >= started + periods * PERIOD_SECS,
                   timeout=periods * PERIOD_SECS + 5, what="five heartbeat periods")
        assert zk.get_children(beats_root) == [record]
        _, last = zk.get("%s/%s" % (beats_root, record))
        writes = last.version - first.version
        assert periods - 1 <= writes <= periods + 1, writes
        assert zk.get(assignment_path)[1].version == assigned.version
        info = topology_info(nimbus, storm_id)
        assert all(e.stats is not None for e in info.executors)
    finally:
        zk.stop()
        zk.close()
