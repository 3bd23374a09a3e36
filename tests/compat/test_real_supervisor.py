"""Real Storm supervisors, and the Java workers they launch, run what pynimbus assigns.

pynimbus (``pynimbus dev``, 1.x or 2.x mode) and an unmodified
``org.apache.storm.daemon.supervisor.Supervisor`` (storm-core 1.2.4, or storm-server 2.8.3) share
the session's real ZooKeeper.  Two ExclamationTopology instances are submitted by the stock
``storm jar`` (the real ``StormSubmitter``; one worker each; storm-starter 1.2.2's for 1.x, the
reference topologies' for 2.x, see ``real_storm.exclamation_topology``).  The tests then watch,
from the outside, what the supervisor does with pynimbus's assignments: its ``/supervisors``
node, its LocalState, the worker JVMs in its process group, their ``/workerbeats`` nodes and the
executor statistics pynimbus reads back from them; then a kill with wait 0, a rebalance to two
workers and a kill with wait 1, all through pynimbus's Thrift API.  A 1.2.4 supervisor reads the
assignments from ZooKeeper; a 2.8.3 one gets them pushed to its Thrift port and pulls them with
``getSupervisorAssignments``, and relays its workers' heartbeats to
``sendSupervisorWorkerHeartbeats`` (the liveness pynimbus 2.x uses for 2.x topologies).

The tests of this module run in file order on one shared cluster per generation (each step
builds on the previous one).  Opt-in: ``PYNIMBUS_COMPAT=1`` (``tox -e compat``; they start JVMs:
about a minute per generation on 2 cores), plus Java, Debian's ZooKeeper and the Storm jars
(Maven Central on first use, then ``.cache/maven``); otherwise they are skipped with the
reason.
"""

import collections
import concurrent.futures
import contextlib
import hashlib
import os
import time

import pytest

from compat import real_storm
from compat.oracle import maven
from compat.oracle.targets import pynimbus_target
from nimbus_process import RawClient
from pynimbus.cluster import make_cluster_state
from pynimbus.generated.storm.ttypes import KillOptions, RebalanceOptions, TopologyStatus
from pynimbus.handlers.lifecycle import storm_id_of

ENABLED = os.environ.get("PYNIMBUS_COMPAT") == "1"

pytestmark = [
    pytest.mark.compat,
    pytest.mark.skipif(not ENABLED, reason="real Storm supervisor tests run with "
                                           "PYNIMBUS_COMPAT=1 (tox -e compat): they start Java "
                                           "supervisors and workers"),
]

STORM_VERSIONS = {"1.x": maven.STORM_1X, "2.x": maven.STORM_2X}
TOPOLOGY_A = "exclaim-a"
TOPOLOGY_B = "exclaim-b"
# pynimbus must rely on the workers' real heartbeats soon after launch (default 120 s).
PYNIMBUS_CONF = {"nimbus.task.launch.secs": 20, "nimbus.task.timeout.secs": 30}
# A 2.x supervisor deletes a killed topology's files once Nimbus no longer has its blobs
# (isRemoteBlobExists, asked every supervisor.localizer.cleanup.interval.ms, 30 s), and a
# 2.x Nimbus deletes them nimbus.topology.blobstore.deletion.delay.ms (5 min) after the kill:
# both shortened.
EXTRA_CONF = {"1.x": ({}, {}),
              "2.x": ({"nimbus.topology.blobstore.deletion.delay.ms": 1000},
                      {"supervisor.localizer.cleanup.interval.ms": 1000})}
WAIT = 120.0


class RealCluster:
    """pynimbus + one real supervisor (3 slots) on one ZooKeeper root, and ways to look at them."""

    def __init__(self, generation, target, supervisor, workdir):
        self.generation = generation
        self.version = STORM_VERSIONS[generation]
        self.target = target
        self.supervisor = supervisor
        self.workdir = workdir
        self.state = make_cluster_state(target.cluster_conf)
        self.pids_at_start = {}

    @classmethod
    @contextlib.contextmanager
    def started(cls, generation, zookeeper_server, workdir, names, slots, nimbus_conf=None,
                supervisor_conf=None, parallel=1):
        """pynimbus in ``generation`` mode + a real supervisor of that generation (``slots``
        slots), with topologies ``names`` submitted by ``storm jar`` while the supervisor JVM
        starts (``parallel`` at a time, in order); yields the cluster, stops it all after."""
        version = STORM_VERSIONS[generation]
        with pynimbus_target(generation, zookeeper_server, conf=nimbus_conf) as target, \
                real_storm.RealSupervisor(version, zookeeper_server.port,
                                          target.cluster_conf["storm.zookeeper.root"],
                                          target.port, slots=slots,
                                          conf=supervisor_conf) as supervisor, \
                contextlib.closing(cls(generation, target, supervisor, workdir)) as real:
            with concurrent.futures.ThreadPoolExecutor(parallel) as pool:
                outputs = list(pool.map(real.submit, names))
            for name, output in zip(names, outputs):
                assert "Finished submitting topology: %s" % name in output, output
            yield real

    def close(self):
        self.state.close()

    def call(self, method, **kwargs):
        with RawClient(self.target.host, self.target.port, timeout=60.0) as client:
            return client.call(method, **kwargs)

    def diagnostics(self):
        return "%s\n== pynimbus ==\n%s" % (self.supervisor.log_tail(),
                                            self.target.handle.log_tail())

    def wait(self, fn, what, timeout=WAIT, interval=0.25):
        """Poll ``fn`` until it returns a truthy value (returned); fail with the logs."""
        deadline = time.monotonic() + timeout
        while True:
            value = fn()
            if value:
                return value
            if not self.supervisor.alive():
                pytest.fail("the supervisor exited (code %s) while waiting for %s\n%s"
                            % (self.supervisor.process.returncode, what, self.diagnostics()))
            if time.monotonic() > deadline:
                pytest.fail("timed out after %.0f s waiting for %s\n%s"
                            % (timeout, what, self.diagnostics()))
            time.sleep(interval)

    def topology(self, name):
        return real_storm.exclamation_topology(self.generation, name)

    def submit(self, name):
        return real_storm.storm_jar(self.version, self.target.port,
                                    os.path.join(self.workdir, "client-conf"),
                                    self.topology(name))

    def storm_id(self, name):
        return storm_id_of(self.state, name)

    def slots(self, storm_id):
        """``{port: sorted executors}`` of pynimbus's Assignment on this supervisor."""
        assignment = self.state.assignment_info(storm_id)
        if assignment is None:
            return None
        out = collections.defaultdict(list)
        for executor, node_port in assignment.executor_node_port.items():
            if node_port.node != self.supervisor_id:
                return None
            out[next(iter(node_port.port))].append(tuple(executor))
        return {port: sorted(executors) for port, executors in out.items()}

    @property
    def supervisor_id(self):
        return self.supervisor.supervisor_id

    def local_slots(self, storm_id):
        """``{port: sorted executors}`` of the supervisor's LocalState for ``storm_id``."""
        return {port: sorted((e.task_start, e.task_end) for e in la.executors)
                for port, la in self.supervisor.local_assignments().items()
                if la.topology_id == storm_id}

    def workers(self, storm_id):
        return {w.port: w for w in self.supervisor.worker_processes() if w.storm_id == storm_id}

    def heartbeat(self, storm_id, port):
        return self.state.get_worker_heartbeat(storm_id, self.supervisor_id, port)

    def running_as_assigned(self, storm_id, expected_workers):
        """The pynimbus slots, when LocalState, worker JVMs and heartbeats all match them."""
        slots = self.slots(storm_id)
        if not slots or len(slots) != expected_workers:
            return None
        workers = self.workers(storm_id)
        if (self.local_slots(storm_id) != slots or set(workers) != set(slots)
                or any(w.supervisor_id != self.supervisor_id for w in workers.values())):
            return None
        if any(self.heartbeat(storm_id, port) is None for port in slots):
            return None
        return slots

    def stormdist(self, storm_id):
        return os.path.join(self.supervisor.local_dir, "supervisor", "stormdist", storm_id)

    def blob(self, key):
        """The bytes pynimbus serves for blob ``key`` (beginBlobDownload/downloadBlobChunk)."""
        with RawClient(self.target.host, self.target.port, timeout=60.0) as client:
            session = client.call("beginBlobDownload", key=key).session
            chunks = []
            while True:
                chunk = client.call("downloadBlobChunk", session=session)
                if not chunk:
                    return b"".join(chunks)
                chunks.append(chunk)


def beat_executors(cluster, storm_id, port):
    beat = cluster.heartbeat(storm_id, port)
    return {(e.task_start, e.task_end) for e in beat.executor_stats} if beat else set()


def component_totals(info, window=":all-time"):
    """``{component: {"emitted", "transferred", "executed"}}`` summed over executors/streams."""
    totals = collections.defaultdict(lambda: collections.Counter())
    for executor in info.executors:
        stats = executor.stats
        if stats is None:
            continue
        row = totals[executor.component_id]
        row["emitted"] += sum((stats.emitted or {}).get(window, {}).values())
        row["transferred"] += sum((stats.transferred or {}).get(window, {}).values())
        bolt = stats.specific.bolt if stats.specific is not None else None
        if bolt is not None:
            row["executed"] += sum((bolt.executed or {}).get(window, {}).values())
    return totals


def tuples_flow(cluster, storm_id, started_after=None):
    """Component totals once spout, both bolts and the second hop all show traffic.

    ``started_after`` (monotonic time): only once every executor reports an uptime shorter than
    the time since then, i.e. all statistics come from workers started after it.
    """
    info = cluster.call("getTopologyInfo", id=storm_id)
    if started_after is not None:
        elapsed = time.monotonic() - started_after
        if any(e.stats is None or e.uptime_secs > elapsed for e in info.executors):
            return None
    totals = component_totals(info)
    for component, key in (("word", "emitted"), ("word", "transferred"),
                           ("exclaim1", "executed"), ("exclaim1", "transferred"),
                           ("exclaim2", "executed")):
        if totals[component][key] <= 0:
            return None
    return totals


def sha256(data):
    return hashlib.sha256(data).hexdigest()


@pytest.fixture(scope="module", params=["1.x", "2.x"])
def cluster(request, zookeeper_server, tmp_path_factory):
    """pynimbus in ``generation`` mode + a real supervisor of that generation (3 slots), both
    topologies submitted."""
    generation = request.param
    reason = real_storm.unavailable_reason(generation)
    if reason:
        pytest.skip("a real Storm %s supervisor cannot run here: %s"
                    % (STORM_VERSIONS[generation], reason))
    workdir = str(tmp_path_factory.mktemp("real-supervisor-" + generation))
    nimbus_conf, supervisor_conf = EXTRA_CONF[generation]
    with RealCluster.started(generation, zookeeper_server, workdir, (TOPOLOGY_A, TOPOLOGY_B),
                             slots=3, nimbus_conf=dict(PYNIMBUS_CONF, **nimbus_conf),
                             supervisor_conf=supervisor_conf) as real:
        yield real


@pytest.fixture(scope="module")
def running(cluster):
    """``{name: (storm_id, slots)}`` once both topologies run as pynimbus assigned them."""
    out = {}
    for name in (TOPOLOGY_A, TOPOLOGY_B):
        storm_id = cluster.wait(lambda: cluster.storm_id(name), "%s to be active" % name)
        slots = cluster.wait(lambda: cluster.running_as_assigned(storm_id, 1),
                             "%s's worker running and heartbeating as assigned" % name)
        out[name] = (storm_id, slots)
    cluster.pids_at_start = {name: {p: w.pid for p, w in cluster.workers(sid).items()}
                             for name, (sid, _) in out.items()}
    return out


def test_supervisor_registers_its_slots(cluster):
    """The real supervisor's SupervisorInfo is in /supervisors and pynimbus lists it."""
    supervisor_id = cluster.wait(lambda: cluster.supervisor_id, "the supervisor's id")
    info = cluster.wait(lambda: cluster.state.supervisor_info(supervisor_id),
                        "/supervisors/%s" % supervisor_id)
    assert info.hostname == "127.0.0.1"
    assert info.assignment_id == supervisor_id
    assert sorted(info.meta) == sorted(cluster.supervisor.ports)
    assert info.version == cluster.version
    if cluster.generation == "2.x":
        assert info.server_port == cluster.supervisor.conf["supervisor.thrift.port"]
    summaries = cluster.call("getClusterInfo").supervisors
    assert [(s.supervisor_id, s.host, s.num_workers, s.version) for s in summaries] == [
        (supervisor_id, "127.0.0.1", 3, cluster.version)]


def test_workers_run_the_assignments_pynimbus_made(cluster, running):
    """Each topology's worker JVM runs on the port pynimbus assigned, with those executors."""
    storm_ids = [storm_id for storm_id, _ in running.values()]
    ports = [port for _, slots in running.values() for port in slots]
    assert len(set(ports)) == 2 and set(ports) <= set(cluster.supervisor.ports)
    for name, (storm_id, slots) in running.items():
        # Every executor of the topology (single-task ones) in the one worker.
        (executors,) = slots.values()
        assert executors == [(t, t) for t in range(1, cluster.topology(name).executors + 1)]
        (worker,) = cluster.workers(storm_id).values()
        assert (worker.storm_id, worker.supervisor_id) == (storm_id, cluster.supervisor_id)
        assert cluster.heartbeat(storm_id, worker.port).storm_id == storm_id
        # Once its executors run, the worker's beats cover them and its system executor (the
        # first 2.x beat, written before the executors start, has none).
        cluster.wait(lambda: beat_executors(cluster, storm_id, worker.port)
                     == set(executors) | {(-1, -1)},
                     "%s's heartbeat to cover its executors" % storm_id)
    assert sorted(cluster.state.heartbeat_storms()) == sorted(storm_ids)


def test_supervisor_downloaded_the_blobs_pynimbus_serves(cluster, running):
    """stormjar.jar is the submitted jar; stormcode/stormconf are pynimbus's blobs."""
    for name, (storm_id, _) in running.items():
        with open(cluster.topology(name).jar, "rb") as f:
            jar_digest = sha256(f.read())
        root = cluster.stormdist(storm_id)
        with open(os.path.join(root, "stormjar.jar"), "rb") as f:
            assert sha256(f.read()) == jar_digest
        for local, key in (("stormcode.ser", "stormcode.ser"), ("stormconf.ser", "stormconf.ser")):
            with open(os.path.join(root, local), "rb") as f:
                assert f.read() == cluster.blob("%s-%s" % (storm_id, key)), local
        # The jar's resources/ directory is extracted beside it (AsyncLocalizer).
        assert os.path.isdir(os.path.join(root, "resources"))


def test_tuples_flow_and_pynimbus_reports_the_workers_stats(cluster, running):
    """getTopologyInfo shows the spouts emitting and both bolts executing, from real beats."""
    for storm_id, _ in running.values():
        totals = cluster.wait(lambda: tuples_flow(cluster, storm_id),
                              "tuples through word -> exclaim1 -> exclaim2 in %s" % storm_id)
        assert totals["exclaim2"]["emitted"] > 0
        info = cluster.call("getTopologyInfo", id=storm_id)
        assert {e.host for e in info.executors} == {"127.0.0.1"}
        assert info.status == "ACTIVE"


def test_pynimbus_keeps_the_workers_on_their_real_heartbeats(cluster, running):
    """Past nimbus.task.launch.secs, the workers' own beats keep the assignments unchanged."""
    launch_secs = PYNIMBUS_CONF["nimbus.task.launch.secs"]
    before = {name: cluster.state.assignment_info(storm_id)
              for name, (storm_id, _) in running.items()}
    latest_start = max(t for a in before.values() for t in a.executor_start_time_secs.values())
    # Two monitor rounds (1 s each) after the launch grace of the newest executor has ended.
    cluster.wait(lambda: time.time() > latest_start + launch_secs + 2,
                 "nimbus.task.launch.secs to pass", timeout=launch_secs + 30)
    for name, (storm_id, _) in running.items():
        assert cluster.state.assignment_info(storm_id) == before[name]
        assert {p: w.pid for p, w in cluster.workers(storm_id).items()} == \
            cluster.pids_at_start[name]


def test_kill_with_wait_0_stops_only_that_topology(cluster, running):
    """killTopologyWithOpts(wait 0): B's worker and files go, A's worker is untouched."""
    storm_a, _ = running[TOPOLOGY_A]
    storm_b, slots_b = running[TOPOLOGY_B]
    pid_a = cluster.pids_at_start[TOPOLOGY_A]
    cluster.call("killTopologyWithOpts", name=TOPOLOGY_B, options=KillOptions(wait_secs=0))
    cluster.wait(lambda: cluster.state.assignment_info(storm_b) is None,
                 "pynimbus to remove %s's assignment" % storm_b)
    cluster.wait(lambda: not cluster.workers(storm_b) and not cluster.local_slots(storm_b),
                 "the supervisor to stop %s's worker" % storm_b)
    cluster.wait(lambda: not os.path.exists(cluster.stormdist(storm_b)),
                 "the supervisor to delete %s's code" % storm_b)
    (port_b,) = slots_b
    cluster.wait(lambda: cluster.heartbeat(storm_b, port_b) is None,
                 "%s's heartbeat to go" % storm_b)
    assert {p: w.pid for p, w in cluster.workers(storm_a).items()} == pid_a
    assert cluster.running_as_assigned(storm_a, 1) == running[TOPOLOGY_A][1]


def test_rebalance_to_two_workers_relaunches_the_workers(cluster, running):
    """rebalance(num_workers=2): the supervisor runs two new workers as pynimbus re-assigned."""
    storm_a, slots_a = running[TOPOLOGY_A]
    old = cluster.workers(storm_a)
    rebalanced = time.monotonic()
    cluster.call("rebalance", name=TOPOLOGY_A,
                 options=RebalanceOptions(wait_secs=0, num_workers=2))
    slots = cluster.wait(lambda: cluster.running_as_assigned(storm_a, 2),
                         "%s to run on two workers" % storm_a)
    assert sorted(e for executors in slots.values() for e in executors) == [
        (t, t) for t in range(1, cluster.topology(TOPOLOGY_A).executors + 1)]
    new = cluster.workers(storm_a)
    assert not {w.worker_id for w in new.values()} & {w.worker_id for w in old.values()}
    assert not {w.pid for w in new.values()} & {w.pid for w in old.values()}
    assert cluster.state.storm_base(storm_a).num_workers == 2
    # Tuples cross between the two new workers (shuffle groupings), and pynimbus reports the
    # new workers' statistics.
    cluster.wait(lambda: tuples_flow(cluster, storm_a, started_after=rebalanced),
                 "statistics of the new workers showing tuples through every component")


def test_kill_with_wait_1_stops_the_workers_after_the_wait(cluster, running):
    """killTopologyWithOpts(wait 1): KILLED at once, then workers, state and code go."""
    storm_a, _ = running[TOPOLOGY_A]
    ports = sorted(cluster.workers(storm_a))
    cluster.call("killTopologyWithOpts", name=TOPOLOGY_A, options=KillOptions(wait_secs=1))
    base = cluster.state.storm_base(storm_a)
    assert base is None or base.status == TopologyStatus.KILLED
    cluster.wait(lambda: cluster.state.assignment_info(storm_a) is None,
                 "pynimbus to remove %s's assignment" % storm_a)
    cluster.wait(lambda: not cluster.supervisor.worker_processes(),
                 "every worker process to stop")
    cluster.wait(lambda: not cluster.supervisor.local_assignments(),
                 "the supervisor's local assignments to empty")
    cluster.wait(lambda: not os.path.exists(cluster.stormdist(storm_a)),
                 "the supervisor to delete %s's code" % storm_a)
    cluster.wait(lambda: all(cluster.heartbeat(storm_a, p) is None for p in ports),
                 "%s's heartbeats to go" % storm_a)
    assert cluster.call("getClusterInfo").topologies == []
    assert cluster.supervisor.alive()
