"""The worker process end to end: ``python -m pynimbus.worker`` runs what a real
``pynimbus dev`` assigns, on a real ZooKeeper.

A supervisor registers (:mod:`pynimbus.supervisor.registration`), the pystorm word count of
:mod:`worker_topologies` is uploaded and submitted with acking on, the code is downloaded
(:mod:`pynimbus.supervisor.code`) and the worker processes are launched with the supervisor's
exact command.  The counts are exact, every sentence is acked, the LocalState heartbeat is
written, Nimbus sees the executors alive, and after SIGTERM no worker or multilang child is
left.  With two ports, the two workers exchange tuples over the transport.
"""
# test-case-name: tests.test_worker_process

import json
import os
import signal
import subprocess
import sys
import uuid

import pytest

from nimbus_process import REPO, NimbusProcess, free_port
from test_supervisor_code import assignment_to, register
from worker_topologies import expected_counts, final_counts, word_count, word_count_jar
from pynimbus.client import NimbusClient
from pynimbus.cluster import StormClusterState, make_backend
from pynimbus.config import default_config
from pynimbus.local_state import LocalState
from pynimbus.supervisor import code
from pynimbus.worker import daemon

WORKER_START_SECS = 60


@pytest.fixture
def nimbus(zookeeper_conf, tmp_path):
    (tmp_path / "nimbus").mkdir()
    proc = NimbusProcess(tmp_path / "nimbus", options=[
        "storm.zookeeper.servers=%s" % json.dumps(zookeeper_conf["storm.zookeeper.servers"]),
        "storm.zookeeper.port=%d" % zookeeper_conf["storm.zookeeper.port"],
        "storm.zookeeper.root=" + zookeeper_conf["storm.zookeeper.root"],
        "nimbus.monitor.freq.secs=1"])
    proc.start(timeout=60)
    yield proc
    proc.stop()


def supervisor_conf(zookeeper_conf, tmp_path, ports):
    conf = default_config()
    conf.update(zookeeper_conf)
    conf.update({"storm.local.dir": str(tmp_path / "supervisor-local"),
                 "supervisor.slots.ports": ports,
                 "storm.local.hostname": "127.0.0.1"})
    return conf


def submit(client, name, jar, topology, topo_conf):
    location = client.beginFileUpload()
    for start in range(0, len(jar), 4096):
        client.uploadChunk(location, jar[start:start + 4096])
    client.finishFileUpload(location)
    client.submitTopology(name, location, json.dumps(topo_conf), topology)
    [storm_id] = [t.id for t in client.getClusterInfo().topologies if t.name == name]
    return storm_id


def worker_log_path(conf, storm_id, port):
    return os.path.join(conf["storm.local.dir"], "logs", "workers-artifacts", storm_id,
                        str(port), "worker.log")


def launch_worker(conf, conf_json, storm_id, supervisor_id, port, env):
    """The supervisor's launch: a fresh worker id, its directory as cwd, output to
    worker.log."""
    worker_id = str(uuid.uuid4())
    root = daemon.worker_root(conf, worker_id)
    os.makedirs(root)
    log_path = worker_log_path(conf, storm_id, port)
    os.makedirs(os.path.dirname(log_path), exist_ok=True)
    with open(log_path, "ab") as log_file:
        process = subprocess.Popen(
            [sys.executable, "-m", "pynimbus.worker", "--conf", conf_json, storm_id,
             supervisor_id, str(port), worker_id],
            cwd=root, env=env, stdin=subprocess.DEVNULL, stdout=log_file,
            stderr=subprocess.STDOUT)
    return worker_id, process, log_path


def alive(pid):
    """True while ``pid`` runs (a zombie counts as gone)."""
    try:
        with open("/proc/%d/status" % pid) as f:
            return not any(line.startswith("State:") and "Z" in line.split()[1] for line in f)
    except FileNotFoundError:
        return False


def spout_tasks(storm_id, nimbus_port):
    with NimbusClient("127.0.0.1", nimbus_port, timeout=10) as client:
        info = client.getTopologyInfo(storm_id)
    return [t for e in info.executors if e.component_id == "sentences"
            for t in range(e.executor_info.task_start, e.executor_info.task_end + 1)]


def all_time(info, component_id, what):
    """The all-time ``what`` (emitted, acked, executed) of a component's executors, summed
    over streams (the default stream only, for emitted)."""
    total = 0
    for e in info.executors:
        if e.component_id != component_id:
            continue
        if what == "emitted":
            total += e.stats.emitted.get(":all-time", {}).get("default", 0)
        else:
            specific = e.stats.specific.spout or e.stats.specific.bolt
            total += sum(getattr(specific, what).get(":all-time", {}).values())
    return total


def log_tails(workers):
    out = []
    for _wid, _proc, path in workers:
        with open(path, "rb") as f:
            out.append(path + ":\n" + f.read().decode("utf-8", "replace")[-3000:])
    return "\n".join(out)


@pytest.mark.zookeeper
@pytest.mark.parametrize("num_workers", [1, 2])
def test_word_count_runs_on_python_workers(nimbus, zookeeper_conf, tmp_path, wait_until,
                                           num_workers):
    """Exact counts, every sentence acked, heartbeats written and seen by Nimbus, and nothing
    left after SIGTERM; with two workers, tuples cross between them."""
    ports = [free_port() for _ in range(num_workers)]
    conf = supervisor_conf(zookeeper_conf, tmp_path, ports)
    state = StormClusterState(make_backend(conf))
    workers = []
    try:
        supervisor_id = register(conf, state)
        with NimbusClient("127.0.0.1", nimbus.port, timeout=10) as client:
            storm_id = submit(client, "wc", word_count_jar(), word_count(),
                              {"topology.workers": num_workers,
                               "topology.stats.sample.rate": 1.0})
            wait_until(lambda: assignment_to(state, storm_id, supervisor_id), timeout=30,
                       what="an assignment naming the supervisor")
            assignment = assignment_to(state, storm_id, supervisor_id)
            assigned_ports = sorted({p for node in assignment.executor_node_port.values()
                                     for p in node.port})
            assert len(assigned_ports) == num_workers
            code.download_storm_code(conf, storm_id, client)
        conf_json = str(tmp_path / "supervisor-conf.json")
        with open(conf_json, "w") as f:
            json.dump(conf, f)
        output, acked = str(tmp_path / "counts.txt"), str(tmp_path / "acked.txt")
        env = dict(os.environ, WORDCOUNT_OUTPUT=output, WORDCOUNT_ACKED=acked,
                   PYTHONPATH=REPO + os.pathsep + os.environ.get("PYTHONPATH", ""))
        for port in assigned_ports:
            workers.append(launch_worker(conf, conf_json, storm_id, supervisor_id, port, env))

        def counted():
            for _wid, process, _path in workers:
                assert process.poll() is None, "a worker exited:\n" + log_tails(workers)
            return final_counts(output)[0] == expected_counts()
        wait_until(counted, timeout=WORKER_START_SECS, what="exact word counts")
        counts, tasks = final_counts(output)
        assert all(len(t) == 1 for t in tasks.values())  # the fields grouping holds
        task_to_port = {task: min(node.port) for executor, node in
                        assignment.executor_node_port.items()
                        for task in range(executor[0], executor[-1] + 1)}
        counting_ports = {task_to_port[task] for t in tasks.values() for task in t}
        spout_ports = {task_to_port[t] for t in spout_tasks(storm_id, nimbus.port)}
        # with two workers, words reached a worker the spout is not in: over the transport
        assert len(counting_ports | spout_ports) == num_workers

        def all_acked():
            if not os.path.exists(acked):
                return False
            with open(acked) as f:
                return sorted(int(line) for line in f) == list(range(20))
        wait_until(all_acked, timeout=WORKER_START_SECS, what="every sentence acked")

        for worker_id, _process, _path in workers:
            heartbeat = LocalState(daemon.worker_heartbeats_root(conf, worker_id)).get(
                daemon.LS_WORKER_HEARTBEAT)
            assert heartbeat.topology_id == storm_id and heartbeat.port in assigned_ports
            assert (-1, -1) in {(e.task_start, e.task_end) for e in heartbeat.executors}

        words = sum(expected_counts().values())

        def executors_alive_with_stats():
            with NimbusClient("127.0.0.1", nimbus.port, timeout=10) as client:
                info = client.getTopologyInfo(storm_id)
            if not info.executors or any(e.stats is None for e in info.executors):
                return False
            return (all_time(info, "sentences", "emitted") == 20
                    and all_time(info, "sentences", "acked") == 20
                    and all_time(info, "split", "emitted") == words
                    and all_time(info, "count", "executed") == words)
        wait_until(executors_alive_with_stats, timeout=30,
                   what="Nimbus to see every executor alive, with their counts")

        pids = set()
        for worker_id, _process, _path in workers:
            pids.update(int(p) for p in os.listdir(daemon.worker_pids_root(conf, worker_id)))
        # one pid per worker, one per multilang child (1 spout, 2 split, 2 count tasks)
        assert len(pids) == num_workers + 5
    finally:
        for _wid, process, _path in workers:
            if process.poll() is None:
                process.send_signal(signal.SIGTERM)
        for _wid, process, _path in workers:
            try:
                process.wait(15)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait(5)
        state.close()
    wait_until(lambda: not any(alive(pid) for pid in pids), timeout=15,
               what="every worker and multilang child to exit")
    for _wid, process, _path in workers:
        assert process.returncode == 0, log_tails(workers)
