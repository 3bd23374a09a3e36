"""Faults on Python supervisors, black box: what Storm promises when a worker or a multilang
child fails mid-run.

One ``pynimbus dev`` and two ``pynimbus supervisor`` processes (two slots each), on the
session's real ZooKeeper under a root of their own, are shared by the module; each test
submits its own topology of ``numbered_spout.py`` (ids 0..N-1, acking on, failed ids emitted
again) into ``id_sink_bolt.py`` (records every id it receives), and kills it at the end.

A worker killed with SIGKILL while the spout is still emitting is launched again and the lost
tuples are replayed; a bolt that raises once, or hangs once past
``topology.subprocess.timeout.secs``, is reported in getTopologyInfo, its worker exits with
code 11 and is launched again; in each case every id reaches the sink and is acked.
"""
# test-case-name: tests.test_supervisor_faults

import os
import signal
import uuid

import pytest

from nimbus_process import NimbusProcess, free_port, zookeeper_options
from supervisor_process import SupervisorProcess
from test_supervisor_end_to_end import listening, worker_pids_of
from test_worker_process import submit
from worker_topologies import common, shell, word_count_jar
from pynimbus.generated.storm.ttypes import (
    Bolt, GlobalStreamId, Grouping, KillOptions, NullStruct, SpoutSpec, StormTopology)
from pynimbus.supervisor import daemon, worker_dirs
from pynimbus.supervisor.daemon import process_alive
from pynimbus.thrift.client import NimbusClient
from pynimbus.worker.daemon import EXIT_CODE_CHILD_DIED

FAULT_SCRIPTS = ("numbered_spout.py", "id_sink_bolt.py", "wc_sentence_spout.py")
SUPERVISOR_OPTIONS = ["supervisor.monitor.frequency.secs=1",
                      "supervisor.worker.shutdown.sleep.secs=1",
                      "supervisor.heartbeat.frequency.secs=1"]
RUN_SECS = 120  # the bound on a topology's run, faults and relaunches included

# tens of seconds each (tox -e slow, which CI runs, not the default run)
pytestmark = [pytest.mark.zookeeper, pytest.mark.slow]


class FaultCluster:
    """The module's dev Nimbus and its two supervisors (two slot ports each), all on the
    ZooKeeper ``zookeeper_server`` under a fresh root."""

    def __init__(self, root, zookeeper_server):
        nimbus_dir = root / "nimbus"
        nimbus_dir.mkdir()
        on_zookeeper = zookeeper_options(zookeeper_server.servers, zookeeper_server.port,
                                         "/pynimbus-faults-%s" % uuid.uuid4().hex)
        self.nimbus = NimbusProcess(nimbus_dir,
                                    options=on_zookeeper + ["nimbus.monitor.freq.secs=1"])
        self.supervisors = [
            SupervisorProcess(root / name, nimbus_dir, self.nimbus.port,
                              ports=[free_port(), free_port()],
                              options=SUPERVISOR_OPTIONS + on_zookeeper)
            for name in ("sup-a", "sup-b")]

    def start(self):
        self.nimbus.start(timeout=60)
        for supervisor in self.supervisors:
            supervisor.start()

    def stop(self):
        pids = self.worker_pids()
        for supervisor in self.supervisors:
            supervisor.stop()
        self.nimbus.stop()
        for pid in pids | self.worker_pids():  # workers outlive a stopped supervisor
            daemon.send_signal(pid, signal.SIGKILL)

    def client(self):
        return NimbusClient("127.0.0.1", self.nimbus.port, timeout=10)

    def supervisors_listed(self):
        with self.client() as client:
            return len(client.getClusterInfo().supervisors) == len(self.supervisors)

    def worker_pids(self):
        """The pids of every worker and multilang child of the supervisors."""
        return set().union(*(worker_pids_of(s.local_dir) for s in self.supervisors))

    def workers_of(self, storm_id):
        """``{port: (pid, worker id)}`` of the running worker processes of ``storm_id``,
        read from their command lines (``... pynimbus.worker --conf <file> <storm id>
        <supervisor id> <port> <worker id>``)."""
        ret = {}
        for pid in self.worker_pids():
            try:
                with open("/proc/%d/cmdline" % pid, "rb") as f:
                    argv = f.read().decode().split("\0")[:-1]
            except OSError:
                continue
            if ("pynimbus.worker" in argv and argv[-4] == storm_id
                    and process_alive(pid)):
                ret[int(argv[-2])] = (pid, argv[-1])
        return ret

    def pids_of_worker(self, worker_id):
        """The pids in ``worker_id``'s pids dir: the worker's and its multilang children's."""
        return set().union(*(worker_dirs.worker_pids({"storm.local.dir": s.local_dir},
                                                     worker_id)
                             for s in self.supervisors))

    def log_sizes(self):
        return [os.path.getsize(s.log_path) for s in self.supervisors]

    def logs_since(self, sizes):
        """What the supervisors logged since :meth:`log_sizes` gave ``sizes``."""
        text = []
        for supervisor, size in zip(self.supervisors, sizes):
            with open(supervisor.log_path, "rb") as f:
                f.seek(size)
                text.append(f.read().decode("utf-8", "replace"))
        return "\n".join(text)


@pytest.fixture(scope="module")
def cluster(tmp_path_factory, zookeeper_server):
    cluster = FaultCluster(tmp_path_factory.mktemp("faults"), zookeeper_server)
    try:
        cluster.start()
        yield cluster
    finally:
        cluster.stop()


def numbers_into_sink(sink_parallelism):
    """``numbers`` (numbered_spout.py, one task) into ``sink`` (id_sink_bolt.py), shuffled."""
    return StormTopology(
        spouts={"numbers": SpoutSpec(shell("numbered_spout.py"), common({}, ["id"], 1))},
        bolts={"sink": Bolt(shell("id_sink_bolt.py"), common(
            {GlobalStreamId("numbers", "default"): Grouping(shuffle=NullStruct())},
            ["id"], sink_parallelism))},
        state_spouts={})


def read_ids(path):
    if not os.path.exists(path):
        return []
    with open(path) as f:
        return [int(line) for line in f if line.strip()]


class FaultRun:
    """One topology on the cluster: its files (named in its conf), its id, its end."""

    def __init__(self, cluster, tmp_path, count):
        self.cluster = cluster
        self.count = count
        self.paths = {key: str(tmp_path / key) for key in ("received", "acked", "failed",
                                                           "emitted", "marker")}
        self.name = self.storm_id = None

    def submit(self, name, topology, topo_conf, wait_until):
        wait_until(self.cluster.supervisors_listed, timeout=30, what="both supervisors listed")
        conf = dict(topo_conf, **{"faulttest.count": self.count})
        conf.update(("faulttest." + key, path) for key, path in self.paths.items())
        self.name = name
        with self.cluster.client() as client:
            self.storm_id = submit(client, name, word_count_jar(scripts=FAULT_SCRIPTS),
                                   topology, conf)

    def ids(self, key):
        return read_ids(self.paths[key])

    def every_id_received_and_acked(self):
        every = set(range(self.count))
        return set(self.ids("received")) >= every and set(self.ids("acked")) == every

    def errors(self, component_id):
        with self.cluster.client() as client:
            info = client.getTopologyInfo(self.storm_id)
        return [e.error for e in (info.errors or {}).get(component_id, [])]

    def executor_ports(self, component_id):
        with self.cluster.client() as client:
            info = client.getTopologyInfo(self.storm_id)
        return {e.port for e in info.executors if e.component_id == component_id}

    def kill(self, wait_until):
        """Kill the topology and wait until none of its workers runs."""
        with self.cluster.client() as client:
            client.killTopologyWithOpts(self.name, KillOptions(wait_secs=0))
        wait_until(lambda: not self.cluster.workers_of(self.storm_id), timeout=60,
                   what="the killed topology's workers gone")


@pytest.fixture
def fault_run(cluster, tmp_path, wait_until):
    runs = []

    def start(count):
        runs.append(FaultRun(cluster, tmp_path, count))
        return runs[-1]
    yield start
    for run in runs:
        if run.storm_id is not None:
            run.kill(wait_until)


def test_a_worker_killed_mid_stream_is_relaunched_and_its_tuples_replayed(
        cluster, fault_run, wait_until):
    """At least once: the worker without the spout is killed with SIGKILL while the spout is
    still emitting and tuples are in flight in it; its supervisor kills its orphaned
    multilang children and launches it again, the spout replays what timed out, and every id
    reaches the sink and is acked."""
    run = fault_run(2000)
    run.submit("at-least-once", numbers_into_sink(2),
               {"topology.workers": 2, "topology.message.timeout.secs": 3,
                "topology.max.spout.pending": 200, "faulttest.ids.per.sec": 250},
               wait_until)
    wait_until(lambda: len(run.ids("received")) >= 250, timeout=RUN_SECS,
               what="the sink receiving ids")
    [spout_port] = run.executor_ports("numbers")
    workers = run.cluster.workers_of(run.storm_id)
    [victim_port] = set(workers) - {spout_port}
    victim_pid, victim_id = workers[victim_port]
    victim_pids = run.cluster.pids_of_worker(victim_id)
    kill_with_tuples_in_flight(run, victim_pid, wait_until)

    def relaunched():
        worker = run.cluster.workers_of(run.storm_id).get(victim_port)
        return worker is not None and worker[1] != victim_id and listening(victim_port)
    wait_until(relaunched, timeout=RUN_SECS, what="a new worker on the killed one's port")
    wait_until(lambda: not any(process_alive(pid) for pid in victim_pids), timeout=30,
               what="the killed worker's multilang children gone")
    wait_until(run.every_id_received_and_acked, timeout=RUN_SECS,
               what="every id received and acked")
    assert run.ids("failed"), "no tuple was lost with the killed worker, nothing replayed"


def kill_with_tuples_in_flight(run, victim_pid, wait_until):
    """SIGKILL the worker ``victim_pid`` with tuples in flight in it: stopped first
    (SIGSTOP), it takes what the spout goes on emitting into its socket and does nothing with
    it, so 20 ids emitted meanwhile (shuffled to its sink task, or their trees on its acker)
    die with it and time out.  Killed at once, a fast worker may hold none at that moment,
    and nothing need be replayed."""
    os.kill(victim_pid, signal.SIGSTOP)
    emitted = len(run.ids("emitted"))
    wait_until(lambda: len(run.ids("emitted")) >= emitted + 20, timeout=RUN_SECS,
               what="the spout emitting while the worker is stopped")
    os.kill(victim_pid, signal.SIGKILL)
    assert len(run.ids("emitted")) < run.count, "the spout had finished: not mid-stream"


def run_with_one_fault(run, name, fault, topo_conf, wait_until):
    """Submit a one-worker topology whose sink meets ``fault`` on id 150 (once); return
    the worker's port, its worker id and the supervisors' log sizes before the submission."""
    log_sizes = run.cluster.log_sizes()
    run.submit(name, numbers_into_sink(1),
               dict(topo_conf, **{"topology.workers": 1, "faulttest.ids.per.sec": 150,
                                  "faulttest.fault": fault, "faulttest.fault.on": 150}),
               wait_until)
    wait_until(lambda: run.cluster.workers_of(run.storm_id), timeout=RUN_SECS,
               what="the topology's worker")
    [(port, (_pid, worker_id))] = run.cluster.workers_of(run.storm_id).items()
    return port, worker_id, log_sizes


def wait_for_relaunch_and_completion(run, port, worker_id, log_sizes, wait_until):
    """The worker ``worker_id`` exits with code 11 (a multilang child died), another runs
    on its ``port``, and every id is then received and acked."""
    wait_until(lambda: "worker %s exited with code %d" % (worker_id, EXIT_CODE_CHILD_DIED)
               in run.cluster.logs_since(log_sizes), timeout=RUN_SECS,
               what="the worker's exit with code 11")
    wait_until(lambda: run.cluster.workers_of(run.storm_id).get(port, (0, worker_id))[1]
               != worker_id, timeout=RUN_SECS, what="another worker on the port")
    wait_until(run.every_id_received_and_acked, timeout=RUN_SECS,
               what="every id received and acked")


def test_a_bolt_that_raises_is_reported_and_its_worker_relaunched(
        cluster, fault_run, wait_until):
    """A bolt raising on one tuple (once): the error is in getTopologyInfo under the bolt,
    its worker exits with code 11, the supervisor launches another, and every id is then
    received and acked."""
    run = fault_run(300)
    port, worker_id, log_sizes = run_with_one_fault(run, "raises-once", "raise", {},
                                                    wait_until)
    wait_until(lambda: any("raises on id 150" in e for e in run.errors("sink")),
               timeout=RUN_SECS, what="the bolt's error in getTopologyInfo")
    wait_for_relaunch_and_completion(run, port, worker_id, log_sizes, wait_until)


def test_a_hung_bolt_child_is_reported_and_its_worker_relaunched(
        cluster, fault_run, wait_until):
    """A multilang child that stops answering (once) past ``topology.subprocess.timeout.secs``:
    "subprocess heartbeat timeout" is in getTopologyInfo under the bolt, the hung child is
    killed, its worker exits with code 11 and is launched again, and every id is then
    received and acked."""
    run = fault_run(300)
    port, worker_id, log_sizes = run_with_one_fault(
        run, "hangs-once", "hang", {"topology.subprocess.timeout.secs": 2}, wait_until)
    wait_until(lambda: any("subprocess heartbeat timeout" in e for e in run.errors("sink")),
               timeout=RUN_SECS, what="the heartbeat timeout in getTopologyInfo")
    with open(run.paths["marker"]) as f:
        hung_pid = int(f.read())
    wait_until(lambda: not process_alive(hung_pid), timeout=30, what="the hung child killed")
    wait_for_relaunch_and_completion(run, port, worker_id, log_sizes, wait_until)
