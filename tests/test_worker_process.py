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

import base64
import json
import os
import signal
import subprocess
import sys
import uuid

import pytest

from nimbus_process import free_port, nimbus_on_zookeeper
from test_supervisor_code import assignment_to, register
from worker_topologies import (
    CORPUS, GROUPING_COUNT, GROUPING_SCRIPTS, WORD_COUNT_SCRIPTS, every_grouping,
    expected_counts, final_counts, recorded, sentences_into, word_count, word_count_jar)
from pynimbus_path import child_env
from pynimbus.cluster import StormClusterState, make_backend
from pynimbus.common import local_dirs
from pynimbus.common import local_state
from pynimbus.common.config import default_config
from pynimbus.common.local_state import LocalState
from pynimbus.generated.storm.ttypes import (
    Bolt, ComponentCommon, ComponentObject, GlobalStreamId, Grouping, KillOptions, NullStruct)
from pynimbus.supervisor import code
from pynimbus.thrift.client import NimbusClient
from pynimbus.worker import daemon, groupings

# tens of seconds (tox -e slow, which CI runs, not the default run)
pytestmark = pytest.mark.slow

WORKER_START_SECS = 60
MSGPACK_SERIALIZER = "org.apache.storm.multilang.MessagePackSerializer"


@pytest.fixture
def nimbus(zookeeper_conf, tmp_path):
    yield from nimbus_on_zookeeper(zookeeper_conf, tmp_path, "nimbus.monitor.freq.secs=1")


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
    root = local_dirs.worker_root(conf, worker_id)
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


def spout_tasks(info):
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


class WorkerRun:
    """One topology run: a registered supervisor, the submitted topology, its code
    downloaded and one worker process per assigned port (the supervisor's launch)."""

    def __init__(self, nimbus, zookeeper_conf, tmp_path, num_workers):
        self.nimbus = nimbus
        self.tmp_path = tmp_path
        self.conf = supervisor_conf(zookeeper_conf, tmp_path,
                                    [free_port() for _ in range(num_workers)])
        self.state = StormClusterState(make_backend(self.conf))
        self.supervisor_id = register(self.conf, self.state)
        self.workers = []
        self.output = str(tmp_path / "counts.txt")
        self.acked = str(tmp_path / "acked.txt")

    def submit(self, wait_until, name, jar, topology, topo_conf):
        with NimbusClient("127.0.0.1", self.nimbus.port, timeout=10) as client:
            self.storm_id = submit(client, name, jar, topology, topo_conf)
            wait_until(lambda: assignment_to(self.state, self.storm_id, self.supervisor_id),
                       timeout=30, what="an assignment naming the supervisor")
            self.assignment = assignment_to(self.state, self.storm_id, self.supervisor_id)
            code.download_storm_code(self.conf, self.storm_id, client)
        self.ports = sorted({p for node in self.assignment.executor_node_port.values()
                             for p in node.port})

    def launch(self, **extra_env):
        conf_json = str(self.tmp_path / "supervisor-conf.json")
        with open(conf_json, "w") as f:
            json.dump(self.conf, f)
        env = child_env(dict(os.environ, WORDCOUNT_OUTPUT=self.output,
                             WORDCOUNT_ACKED=self.acked, **extra_env))
        for port in self.ports:
            self.workers.append(launch_worker(self.conf, conf_json, self.storm_id,
                                              self.supervisor_id, port, env))

    def check_running(self):
        for _wid, process, _path in self.workers:
            assert process.poll() is None, "a worker exited:\n" + log_tails(self.workers)

    def topology_info(self):
        with NimbusClient("127.0.0.1", self.nimbus.port, timeout=10) as client:
            return client.getTopologyInfo(self.storm_id)

    def pids(self):
        """Every pid in the workers' pids dirs: the workers' own and their children's."""
        return {int(p) for worker_id, _process, _path in self.workers
                for p in os.listdir(local_dirs.worker_pids_root(self.conf, worker_id))}

    def close(self):
        """SIGTERM any worker still running and wait (bounded) for every one to exit."""
        for _wid, process, _path in self.workers:
            if process.poll() is None:
                process.send_signal(signal.SIGTERM)
        for _wid, process, _path in self.workers:
            try:
                process.wait(15)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait(5)
        self.state.close()


@pytest.fixture
def worker_run(nimbus, zookeeper_conf, tmp_path):
    runs = []

    def start(num_workers):
        runs.append(WorkerRun(nimbus, zookeeper_conf, tmp_path, num_workers))
        return runs[-1]
    yield start
    for run in runs:
        run.close()


@pytest.mark.zookeeper
@pytest.mark.parametrize("num_workers, serializer, max_spout_pending", [
    (1, "json", None), (2, "json", None), (2, "msgpack", 2)])
def test_word_count_runs_on_python_workers(worker_run, wait_until, num_workers, serializer,
                                           max_spout_pending):
    """Exact counts, every sentence acked, heartbeats written and seen by Nimbus with their
    counts, and nothing left after SIGTERM; with two workers, tuples cross between them.
    Also with pystorm's msgpack serializer and a ``topology.max.spout.pending``."""
    run = worker_run(num_workers)
    topo_conf = {"topology.workers": num_workers, "topology.stats.sample.rate": 1.0,
                 "topology.max.spout.pending": max_spout_pending}
    if serializer == "msgpack":
        topo_conf["topology.multilang.serializer"] = MSGPACK_SERIALIZER
    run.submit(wait_until, "wc", word_count_jar(), word_count(), topo_conf)
    assert len(run.ports) == num_workers
    run.launch(MULTILANG_TEST_SERIALIZER=serializer)

    def counted():
        run.check_running()
        return final_counts(run.output)[0] == expected_counts()
    wait_until(counted, timeout=WORKER_START_SECS, what="exact word counts")
    counts, tasks = final_counts(run.output)
    assert all(len(t) == 1 for t in tasks.values())  # the fields grouping holds
    task_to_port = {task: min(node.port) for executor, node in
                    run.assignment.executor_node_port.items()
                    for task in range(executor[0], executor[-1] + 1)}
    counting_ports = {task_to_port[task] for t in tasks.values() for task in t}
    spout_ports = {task_to_port[t] for t in spout_tasks(run.topology_info())}
    # with two workers, words reached a worker the spout is not in: over the transport
    assert len(counting_ports | spout_ports) == num_workers

    def all_acked():
        if not os.path.exists(run.acked):
            return False
        with open(run.acked) as f:
            return sorted(int(line) for line in f) == list(range(len(CORPUS)))
    wait_until(all_acked, timeout=WORKER_START_SECS, what="every sentence acked")

    for worker_id, _process, _path in run.workers:
        heartbeat = LocalState(local_dirs.worker_heartbeats_root(run.conf, worker_id)).get(
            local_state.LS_WORKER_HEARTBEAT)
        assert heartbeat.topology_id == run.storm_id and heartbeat.port in run.ports
        assert (-1, -1) in {(e.task_start, e.task_end) for e in heartbeat.executors}

    words = sum(expected_counts().values())

    def executors_alive_with_stats():
        info = run.topology_info()
        if not info.executors or any(e.stats is None for e in info.executors):
            return False
        return (all_time(info, "sentences", "emitted") == len(CORPUS)
                and all_time(info, "sentences", "acked") == len(CORPUS)
                and all_time(info, "split", "emitted") == words
                and all_time(info, "count", "executed") == words)
    wait_until(executors_alive_with_stats, timeout=30,
               what="Nimbus to see every executor alive, with their counts")

    pids = run.pids()
    # one pid per worker, one per multilang child (1 spout, 2 split, 2 count tasks)
    assert len(pids) == num_workers + 5
    run.close()
    wait_until(lambda: not any(alive(pid) for pid in pids), timeout=15,
               what="every worker and multilang child to exit")
    for _wid, process, _path in run.workers:
        assert process.returncode == 0, log_tails(run.workers)


@pytest.mark.zookeeper
@pytest.mark.parametrize("first_attempt", ["fail", "drop"])
def test_failed_tuples_are_replayed_until_acked(worker_run, wait_until, first_attempt):
    """At least once: the split bolt fails each sentence once (the acker tells the spout) or
    drops it once (the spout's pending tree times out after ``topology.message.timeout.secs``
    on its ticks); the spout emits it again, every sentence is acked once and the counts are
    exact (a failed attempt emitted nothing)."""
    run = worker_run(2)
    run.submit(wait_until, "wc-replay", word_count_jar(),
               word_count(split_script="wc_once_split_bolt.py"),
               {"topology.workers": 2, "topology.message.timeout.secs": 2,
                "wordcount.first.attempt": first_attempt})
    failed = str(run.tmp_path / "failed.txt")
    run.launch(WORDCOUNT_FAILED=failed)
    wait_until(lambda: run.check_running() or final_counts(run.output)[0] == expected_counts(),
               timeout=WORKER_START_SECS, what="exact word counts")

    def all_acked():
        if not os.path.exists(run.acked):
            return False
        with open(run.acked) as f:
            return sorted(int(line) for line in f) == list(range(len(CORPUS)))
    wait_until(all_acked, timeout=WORKER_START_SECS, what="every sentence acked once")
    with open(failed) as f:
        assert len(f.readlines()) >= len(set(CORPUS))  # each distinct sentence failed once


@pytest.mark.zookeeper
def test_each_grouping_delivers_to_the_right_tasks(worker_run, wait_until):
    """Over two workers, counted per task: all gives every task every tuple, global the
    lowest task, fields the task Java's hash picks, shuffle/none/local-or-shuffle each tuple
    once, direct the task the spout named."""
    run = worker_run(2)
    topology = every_grouping()
    run.submit(wait_until, "groupings", word_count_jar(scripts=GROUPING_SCRIPTS), topology,
               {"topology.workers": 2, "topology.acker.executors": 0})
    run.launch()
    values = list(range(GROUPING_COUNT))
    tasks = {}
    for e in run.topology_info().executors:
        tasks.setdefault(e.component_id, []).extend(
            range(e.executor_info.task_start, e.executor_info.task_end + 1))
    fields = groupings.FieldsGrouper(["n"], ["n"], sorted(tasks["fields"]))
    low, high = sorted(tasks["global"]), sorted(tasks["direct"])
    expected = {
        "all": {task: values for task in tasks["all"]},
        "global": {low[0]: values},
        "fields": {},
        "direct": {high[-1]: values},
    }
    for n in values:
        [task] = fields(0, [n])
        expected["fields"].setdefault(task, []).append(n)

    def delivered():
        run.check_running()
        got = recorded(run.output)
        return (all({t: sorted(v) for t, v in got[c].items()} == expected[c]
                    for c in expected)
                and all(sorted(sum(got[c].values(), [])) == values
                        for c in ("shuffle", "none", "local_or_shuffle")))
    wait_until(delivered, timeout=WORKER_START_SECS, what="every grouping's tuples")


@pytest.mark.zookeeper
def test_killed_topology_stops_its_worker_and_children(worker_run, wait_until):
    """``killTopology``: once its assignment is gone the worker exits on its own (code 0),
    its multilang children with it."""
    run = worker_run(1)
    run.submit(wait_until, "wc-kill", word_count_jar(), word_count(),
               {"topology.workers": 1, "task.refresh.poll.secs": 1})
    run.launch()
    wait_until(lambda: run.check_running() or final_counts(run.output)[0] == expected_counts(),
               timeout=WORKER_START_SECS, what="exact word counts")
    pids = run.pids()
    assert len(pids) == 6
    with NimbusClient("127.0.0.1", run.nimbus.port, timeout=10) as client:
        client.killTopologyWithOpts("wc-kill", KillOptions(wait_secs=0))
    [(_wid, process, _path)] = run.workers
    wait_until(lambda: process.poll() is not None, timeout=30,
               what="the worker to exit once its topology is gone")
    assert process.returncode == 0, log_tails(run.workers)
    wait_until(lambda: not any(alive(pid) for pid in pids), timeout=15,
               what="every multilang child to exit")


@pytest.mark.zookeeper
def test_java_component_is_reported_and_the_rest_runs(worker_run, wait_until):
    """A Java-serialized bolt cannot run in a Python worker: its error, naming its class,
    shows in getTopologyInfo, and the shell components still count every word."""
    topology = word_count()
    topology.bolts["java-counter"] = Bolt(
        ComponentObject(serialized_java=java_object_stream(JAVA_CLASS)),
        ComponentCommon(inputs={GlobalStreamId("split", "default"):
                                Grouping(shuffle=NullStruct())},
                        streams={}, parallelism_hint=1))
    run = worker_run(1)
    run.submit(wait_until, "wc-java", word_count_jar(), topology,
               {"topology.workers": 1, "topology.acker.executors": 0})
    run.launch()
    wait_until(lambda: run.check_running() or final_counts(run.output)[0] == expected_counts(),
               timeout=WORKER_START_SECS, what="exact word counts")

    def reported():
        errors = run.topology_info().errors or {}
        return [e.error for e in errors.get("java-counter", [])]
    wait_until(reported, timeout=30, what="the Java component's error in getTopologyInfo")
    [error] = reported()
    assert JAVA_CLASS in error and "java-counter" in error
    assert not (run.topology_info().errors or {}).get("count")


@pytest.mark.zookeeper
def test_a_dying_bolt_is_reported_and_its_worker_exits_with_11(worker_run, wait_until):
    """A multilang child that dies takes its worker down, as ShellBolt's ``die``: the error is
    in getTopologyInfo first, the worker exits with code 11 and no child is left."""
    run = worker_run(1)
    run.submit(wait_until, "wc-dies",
               word_count_jar(scripts=WORD_COUNT_SCRIPTS + ("failing_bolt.py",)),
               sentences_into("failing_bolt.py", "fails"), {"topology.workers": 1})
    run.launch()
    [(worker_id, process, _path)] = run.workers
    wait_until(lambda: process.poll() is not None, timeout=WORKER_START_SECS,
               what="the worker to exit after its bolt died")
    assert process.returncode == daemon.EXIT_CODE_CHILD_DIED, log_tails(run.workers)
    errors = [e.error for e in (run.topology_info().errors or {}).get("fails", [])]
    assert any("cannot handle" in error for error in errors), errors
    pids = {int(p) for p in os.listdir(local_dirs.worker_pids_root(run.conf, worker_id))}
    wait_until(lambda: not any(alive(pid) for pid in pids), timeout=15,
               what="every multilang child to exit")


@pytest.mark.zookeeper
def test_a_java_shell_bolt_runs_its_command(worker_run, wait_until):
    """storm-starter's ``WordCountTopology$SplitSentence`` (a ShellBolt subclass, serialized
    by Storm 1.2.4) runs ``python splitsentence.py`` from the jar's resources through the
    multilang host: the counts are exact and no error is reported."""
    run = worker_run(1)
    run.submit(wait_until, "wc-java-shell",
               word_count_jar(renamed={"splitsentence.py": "wc_split_bolt.py"}),
               word_count(split_object=ComponentObject(serialized_java=SPLIT_SENTENCE_1_2_4)),
               {"topology.workers": 1})
    # "python" as the serialized command says: this interpreter (which has pystorm) first
    run.launch(PATH=os.path.dirname(sys.executable) + os.pathsep + os.environ["PATH"])
    wait_until(lambda: run.check_running() or final_counts(run.output)[0] == expected_counts(),
               timeout=WORKER_START_SECS, what="exact word counts")
    assert not (run.topology_info().errors or {}).get("split")


# ``new WordCountTopology.SplitSentence()`` of storm-starter 1.2.2 on storm-core 1.2.4 (Java 17),
# written with ObjectOutputStream, base64: its ShellBolt ``_command`` is
# ["python", "splitsentence.py"].
SPLIT_SENTENCE_1_2_4 = base64.b64decode(
    "rO0ABXNyADhvcmcuYXBhY2hlLnN0b3JtLnN0YXJ0ZXIuV29yZENvdW50VG9wb2xvZ3kkU3BsaXRTZW50ZW5jZRXk"
    "5bWyF65zAgAAeHIAH29yZy5hcGFjaGUuc3Rvcm0udGFzay5TaGVsbEJvbHT7SZYqudV6/AIAE1oADF9pc0xvY2Fs"
    "TW9kZVoACF9ydW5uaW5nWgAPY2hhbmdlRGlyZWN0b3J5SQASd29ya2VyVGltZW91dE1pbGxzTAAKX2NvbGxlY3Rv"
    "cnQAJ0xvcmcvYXBhY2hlL3N0b3JtL3Rhc2svT3V0cHV0Q29sbGVjdG9yO1sACF9jb21tYW5kdAATW0xqYXZhL2xh"
    "bmcvU3RyaW5nO0wACF9jb250ZXh0dAAnTG9yZy9hcGFjaGUvc3Rvcm0vdGFzay9Ub3BvbG9neUNvbnRleHQ7TAAK"
    "X2V4Y2VwdGlvbnQAFUxqYXZhL2xhbmcvVGhyb3dhYmxlO0wAB19pbnB1dHN0AA9MamF2YS91dGlsL01hcDtMAAtf"
    "bG9nSGFuZGxlcnQAKExvcmcvYXBhY2hlL3N0b3JtL3V0aWxzL1NoZWxsTG9nSGFuZGxlcjtMAA5fcGVuZGluZ1dy"
    "aXRlc3QALkxvcmcvYXBhY2hlL3N0b3JtL3V0aWxzL1NoZWxsQm9sdE1lc3NhZ2VRdWV1ZTtMAAhfcHJvY2Vzc3QA"
    "JUxvcmcvYXBhY2hlL3N0b3JtL3V0aWxzL1NoZWxsUHJvY2VzcztMAAVfcmFuZHQAEkxqYXZhL3V0aWwvUmFuZG9t"
    "O0wADV9yZWFkZXJUaHJlYWR0ABJMamF2YS9sYW5nL1RocmVhZDtMAA1fd3JpdGVyVGhyZWFkcQB+AAtMAANlbnZx"
    "AH4ABkwAGGhlYXJ0QmVhdEV4ZWN1dG9yU2VydmljZXQAL0xqYXZhL3V0aWwvY29uY3VycmVudC9TY2hlZHVsZWRF"
    "eGVjdXRvclNlcnZpY2U7TAAWbGFzdEhlYXJ0YmVhdFRpbWVzdGFtcHQAKExqYXZhL3V0aWwvY29uY3VycmVudC9h"
    "dG9taWMvQXRvbWljTG9uZztMABFzZW5kSGVhcnRiZWF0RmxhZ3QAK0xqYXZhL3V0aWwvY29uY3VycmVudC9hdG9t"
    "aWMvQXRvbWljQm9vbGVhbjt4cAABAQAAAABwdXIAE1tMamF2YS5sYW5nLlN0cmluZzut0lbn6R17RwIAAHhwAAAA"
    "AnQABnB5dGhvbnQAEHNwbGl0c2VudGVuY2UucHlwcHNyACZqYXZhLnV0aWwuY29uY3VycmVudC5Db25jdXJyZW50"
    "SGFzaE1hcGSZ3hKdhyk9AwADSQALc2VnbWVudE1hc2tJAAxzZWdtZW50U2hpZnRbAAhzZWdtZW50c3QAMVtMamF2"
    "YS91dGlsL2NvbmN1cnJlbnQvQ29uY3VycmVudEhhc2hNYXAkU2VnbWVudDt4cAAAAA8AAAAcdXIAMVtMamF2YS51"
    "dGlsLmNvbmN1cnJlbnQuQ29uY3VycmVudEhhc2hNYXAkU2VnbWVudDtSdz9BMps5dAIAAHhwAAAAEHNyAC5qYXZh"
    "LnV0aWwuY29uY3VycmVudC5Db25jdXJyZW50SGFzaE1hcCRTZWdtZW50HzZMkFiTKT0CAAFGAApsb2FkRmFjdG9y"
    "eHIAKGphdmEudXRpbC5jb25jdXJyZW50LmxvY2tzLlJlZW50cmFudExvY2tmVagsLMhq6wIAAUwABHN5bmN0AC9M"
    "amF2YS91dGlsL2NvbmN1cnJlbnQvbG9ja3MvUmVlbnRyYW50TG9jayRTeW5jO3hwc3IANGphdmEudXRpbC5jb25j"
    "dXJyZW50LmxvY2tzLlJlZW50cmFudExvY2skTm9uZmFpclN5bmNliDLnU3u/CwIAAHhyAC1qYXZhLnV0aWwuY29u"
    "Y3VycmVudC5sb2Nrcy5SZWVudHJhbnRMb2NrJFN5bmO4HqKUqkRafAIAAHhyADVqYXZhLnV0aWwuY29uY3VycmVu"
    "dC5sb2Nrcy5BYnN0cmFjdFF1ZXVlZFN5bmNocm9uaXplcmZVqEN1P1LjAgABSQAFc3RhdGV4cgA2amF2YS51dGls"
    "LmNvbmN1cnJlbnQubG9ja3MuQWJzdHJhY3RPd25hYmxlU3luY2hyb25pemVyM9+vua1tb6kCAAB4cAAAAAA/QAAA"
    "c3EAfgAZc3EAfgAdAAAAAD9AAABzcQB+ABlzcQB+AB0AAAAAP0AAAHNxAH4AGXNxAH4AHQAAAAA/QAAAc3EAfgAZ"
    "c3EAfgAdAAAAAD9AAABzcQB+ABlzcQB+AB0AAAAAP0AAAHNxAH4AGXNxAH4AHQAAAAA/QAAAc3EAfgAZc3EAfgAd"
    "AAAAAD9AAABzcQB+ABlzcQB+AB0AAAAAP0AAAHNxAH4AGXNxAH4AHQAAAAA/QAAAc3EAfgAZc3EAfgAdAAAAAD9A"
    "AABzcQB+ABlzcQB+AB0AAAAAP0AAAHNxAH4AGXNxAH4AHQAAAAA/QAAAc3EAfgAZc3EAfgAdAAAAAD9AAABzcQB+"
    "ABlzcQB+AB0AAAAAP0AAAHNxAH4AGXNxAH4AHQAAAAA/QAAAcHB4cHNyACxvcmcuYXBhY2hlLnN0b3JtLnV0aWxz"
    "LlNoZWxsQm9sdE1lc3NhZ2VRdWV1ZSmy3QghHBcQAgAETAAMYm9sdE1zZ1F1ZXVldAAqTGphdmEvdXRpbC9jb25j"
    "dXJyZW50L0xpbmtlZEJsb2NraW5nUXVldWU7TAAIbm90RW1wdHl0ACZMamF2YS91dGlsL2NvbmN1cnJlbnQvbG9j"
    "a3MvQ29uZGl0aW9uO0wACHRha2VMb2NrdAAqTGphdmEvdXRpbC9jb25jdXJyZW50L2xvY2tzL1JlZW50cmFudExv"
    "Y2s7TAAMdGFza0lkc1F1ZXVldAAWTGphdmEvdXRpbC9MaW5rZWRMaXN0O3hwc3IAKGphdmEudXRpbC5jb25jdXJy"
    "ZW50LkxpbmtlZEJsb2NraW5nUXVldWWgMEygQOWB9gMABkkACGNhcGFjaXR5TAAFY291bnR0ACtMamF2YS91dGls"
    "L2NvbmN1cnJlbnQvYXRvbWljL0F0b21pY0ludGVnZXI7TAAIbm90RW1wdHlxAH4AQkwAB25vdEZ1bGxxAH4AQkwA"
    "B3B1dExvY2txAH4AQ0wACHRha2VMb2NrcQB+AEN4cH////9zcgApamF2YS51dGlsLmNvbmN1cnJlbnQuYXRvbWlj"
    "LkF0b21pY0ludGVnZXJWP17MjGwWigIAAUkABXZhbHVleHIAEGphdmEubGFuZy5OdW1iZXKGrJUdC5TgiwIAAHhw"
    "AAAAAHNyAEVqYXZhLnV0aWwuY29uY3VycmVudC5sb2Nrcy5BYnN0cmFjdFF1ZXVlZFN5bmNocm9uaXplciRDb25k"
    "aXRpb25PYmplY3QQStUFhVxq6wIAAUwABnRoaXMkMHQAN0xqYXZhL3V0aWwvY29uY3VycmVudC9sb2Nrcy9BYnN0"
    "cmFjdFF1ZXVlZFN5bmNocm9uaXplcjt4cHNxAH4AHQAAAAFzcQB+AExzcQB+AB0AAAABc3EAfgAacQB+AFFzcQB+"
    "ABpxAH4AT3B4c3EAfgBMc3EAfgAdAAAAAHNxAH4AGnEAfgBVc3IAFGphdmEudXRpbC5MaW5rZWRMaXN0DClTXUpg"
    "iCIDAAB4cHcEAAAAAHhwcHBwc3IAEWphdmEudXRpbC5IYXNoTWFwBQfawcMWYNEDAAJGAApsb2FkRmFjdG9ySQAJ"
    "dGhyZXNob2xkeHA/QAAAAAAAAHcIAAAAEAAAAAB4cHNyACZqYXZhLnV0aWwuY29uY3VycmVudC5hdG9taWMuQXRv"
    "bWljTG9uZxrA+rR3ABcYAgABSgAFdmFsdWV4cQB+AEoAAAAAAAAAAHNyAClqYXZhLnV0aWwuY29uY3VycmVudC5h"
    "dG9taWMuQXRvbWljQm9vbGVhbkCYtwpPP/wzAgABSQAFdmFsdWV4cAAAAAA=")

JAVA_CLASS = "org.apache.storm.starter.WordCountTopology$WordCount"


def java_object_stream(class_name):
    """The start of a Java serialization stream of an object of ``class_name`` (magic,
    version, TC_OBJECT, TC_CLASSDESC, the name): all the worker reads of it."""
    name = class_name.encode()
    return (b"\xac\xed\x00\x05\x73\x72" + len(name).to_bytes(2, "big") + name
            + b"\x00" * 8 + b"\x02\x00\x00\x78\x70")
