"""Storm 1.2.4's nimbus_test.clj scenarios, black-box against a `pynimbus dev` process.

Each test starts its own nimbus on the embedded store with simulated supervisors (SupervisorInfo
nodes written through cluster state, as Storm's simulated local clusters do) and drives it only
through the Thrift API, checking cluster state as the Clojure tests do.  Storm's tests advance a
simulated clock; here the monitor runs every second and the waits are short and bounded.
"""

import base64
import gzip
import json
import time

import pytest

from nimbus_process import NimbusProcess, RawClient
from pynimbus.clojure_port import tasks
from pynimbus.cluster import make_cluster_state
from pynimbus.common.config import read_storm_config
from pynimbus.common.transport_secret import TRANSPORT_SECRET_KEY
from pynimbus.generated.storm.ttypes import (
    AlreadyAliveException, AuthorizationException, Bolt, ComponentCommon, ComponentObject,
    Credentials, GlobalStreamId, Grouping, InvalidTopologyException, KillOptions, NotAliveException,
    NullStruct, RebalanceOptions, ShellComponent, SpoutSpec, StormTopology, StreamInfo,
    SupervisorInfo, TopologyStatus)

NO_ACKERS = ["topology.acker.executors=0", "topology.eventlogger.executors=0",
             "nimbus.monitor.freq.secs=1"]
SHELL = ComponentObject(shell=ShellComponent("python", "component.py"))


def spout(parallelism=None, tasks_=None):
    """A spout like TestPlannerSpout: one output stream with field "field1"."""
    conf = json.dumps({"topology.tasks": tasks_}) if tasks_ is not None else None
    return SpoutSpec(SHELL, ComponentCommon(
        inputs={}, streams={"default": StreamInfo(["field1"], False)},
        parallelism_hint=parallelism, json_conf=conf))


def bolt(inputs, parallelism=None, tasks_=None, grouping=None):
    """A bolt like TestPlannerBolt subscribing to ``inputs`` (component ids)."""
    conf = json.dumps({"topology.tasks": tasks_}) if tasks_ is not None else None
    grouping = grouping or Grouping(none=NullStruct())
    return Bolt(SHELL, ComponentCommon(
        inputs={GlobalStreamId(c, "default"): grouping for c in inputs},
        streams={"default": StreamInfo(["field1"], False)},
        parallelism_hint=parallelism, json_conf=conf))


def topology(spouts, bolts=None):
    return StormTopology(spouts=spouts, bolts=bolts or {}, state_spouts={})


class Cluster:
    """A pynimbus dev process, a cluster-state session on its store, simulated supervisors."""

    compat_options = ()  # subclasses pick a generation

    def __init__(self, tmp_path, supervisors=2, ports_per_supervisor=3, options=()):
        self.options = ["pynimbus.embedded.state.dir=%s" % (tmp_path / "state")] + \
            list(self.compat_options) + NO_ACKERS + list(options)
        self.process = self.make_process(tmp_path)
        self.process.start(timeout=30)
        self.state = make_cluster_state(read_storm_config(options=self.options, environ={}))
        self.next_port = 6700
        for _ in range(supervisors):
            self.add_supervisor(ports_per_supervisor)

    def make_process(self, tmp_path):
        return NimbusProcess(tmp_path, options=self.options)

    def add_supervisor(self, ports):
        supervisor_id = "sup-%d" % self.next_port
        self.state.supervisor_heartbeat(supervisor_id, SupervisorInfo(
            time_secs=int(time.time()), hostname="host-" + supervisor_id,
            assignment_id=supervisor_id, used_ports=[],
            meta=list(range(self.next_port, self.next_port + ports)), scheduler_meta={},
            uptime_secs=0, version="1.2.4"))
        self.next_port += 100

    def call(self, method, **kwargs):
        with RawClient("127.0.0.1", self.process.port) as client:
            return client.call(method, **kwargs)

    def submit(self, name, conf, topo, **kwargs):
        return self.call("submitTopology", name=name, uploadedJarLocation="",
                         jsonConf=json.dumps(conf), topology=topo, **kwargs)

    def storm_id(self, name):
        for storm_id in self.state.active_storms():
            base = self.state.storm_base(storm_id)
            if base is not None and base.name == name:
                return storm_id
        return None

    def wait_for(self, predicate, what, timeout=15.0):
        deadline = time.monotonic() + timeout
        while not predicate():
            if time.monotonic() > deadline:
                pytest.fail("timed out waiting for " + what)
            time.sleep(0.05)

    def assignment(self, name):
        storm_id = self.storm_id(name)
        self.wait_for(lambda: self.state.assignment_info(storm_id) is not None,
                      "the assignment of " + name)
        return self.state.assignment_info(storm_id)

    def task_to_component(self, storm_id):
        return tasks.storm_task_info(self.call("getUserTopology", id=storm_id),
                                     json.loads(self.call("getTopologyConf", id=storm_id)))

    def task_info(self, name):
        """Port of ``storm-component->task-info``: component -> task ids, from the API."""
        component_to_tasks = {}
        for task, component in self.task_to_component(self.storm_id(name)).items():
            component_to_tasks.setdefault(component, []).append(task)
        return component_to_tasks

    def close(self):
        self.state.close()
        self.process.kill()


def made_clusters(tmp_path, cluster_class):
    """Yield a factory of ``cluster_class`` instances, each in a directory of its own; close
    them all afterwards (the body of the ``make_cluster``-style fixtures)."""
    made = []

    def make(**kwargs):
        directory = tmp_path / ("c%d" % len(made))
        directory.mkdir()
        made.append(cluster_class(directory, **kwargs))
        return made[-1]
    yield make
    for cluster in made:
        cluster.close()


@pytest.fixture
def make_cluster(tmp_path):
    yield from made_clusters(tmp_path, Cluster)


def num_workers(assignment):
    """Port of ``storm-num-workers``: distinct slots of the assignment."""
    return len({(n.node, tuple(n.port)) for n in assignment.executor_node_port.values()})


def check_consistency(cluster, name, task_info):
    """Port of ``check-consistency``: every task assigned, hosts and start times present."""
    assignment = cluster.assignment(name)
    assigned = sorted(t for s, e in assignment.executor_node_port for t in range(s, e + 1))
    assert assigned == sorted(t for ts in task_info.values() for t in ts)
    nodes = {n.node for n in assignment.executor_node_port.values()}
    assert nodes == set(assignment.node_host)
    assert set(assignment.executor_start_time_secs) >= set(assignment.executor_node_port)


def executor_sizes(assignment, task_info, component):
    tasks_of = set(task_info[component])
    return sorted(e - s + 1 for s, e in assignment.executor_node_port if s in tasks_of)


def test_bogus_id(make_cluster):
    """Port of test-bogusId: every per-topology call on an unknown id is NotAliveException."""
    cluster = make_cluster(supervisors=4)
    for method in ("getTopologyConf", "getTopology", "getUserTopology", "getTopologyInfo"):
        with pytest.raises(NotAliveException):
            cluster.call(method, id="bogus-id")


def test_assignment(make_cluster):
    """Port of test-assignment: task counts and workers used for two topologies."""
    cluster = make_cluster(supervisors=4, ports_per_supervisor=3)
    cluster.submit("mystorm", {"topology.workers": 4}, topology(
        {"1": spout(3)}, {"2": bolt(["1"], 4), "3": bolt(["2"])}))
    info = cluster.task_info("mystorm")
    check_consistency(cluster, "mystorm", info)
    assert [len(info[c]) for c in "123"] == [3, 4, 1]
    assert num_workers(cluster.assignment("mystorm")) == 4
    cluster.submit("storm2", {"topology.workers": 20}, topology(
        {"1": spout(12)},
        {"2": bolt(["1"], 6), "3": bolt(["1"], 8, grouping=Grouping(fields=[])),
         "4": bolt(["1", "2"], 4)}))
    info = cluster.task_info("storm2")
    check_consistency(cluster, "storm2", info)
    assert len(cluster.state.assignments()) == 2
    assert [len(info[c]) for c in "1234"] == [12, 6, 8, 4]
    assert num_workers(cluster.assignment("storm2")) == 8  # the 8 slots left of 12


def test_zero_executor_or_tasks(make_cluster):
    """Port of test-zero-executor-or-tasks: 0 tasks give no executors; 2 executors, 2 workers."""
    cluster = make_cluster()
    cluster.submit("mystorm", {"topology.workers": 4}, topology(
        {"1": spout(3, tasks_=0)}, {"2": bolt(["1"], 1, tasks_=2), "3": bolt(["2"], tasks_=5)}))
    info = cluster.task_info("mystorm")
    check_consistency(cluster, "mystorm", info)
    assert [len(info.get(c, [])) for c in "123"] == [0, 2, 5]
    assert num_workers(cluster.assignment("mystorm")) == 2


def test_executor_assignments(make_cluster):
    """Port of test-executor-assignments: tasks split over executors as partition-fixed."""
    cluster = make_cluster()
    cluster.submit("mystorm", {"topology.workers": 4}, topology(
        {"1": spout(3, tasks_=5)}, {"2": bolt(["1"], 8, tasks_=2), "3": bolt(["2"], 3)}))
    info = cluster.task_info("mystorm")
    check_consistency(cluster, "mystorm", info)
    assignment = cluster.assignment("mystorm")
    assert [len(info[c]) for c in "123"] == [5, 2, 3]
    assert executor_sizes(assignment, info, "1") == [1, 2, 2]
    assert executor_sizes(assignment, info, "2") == [1, 1]
    assert executor_sizes(assignment, info, "3") == [1, 1, 1]


def test_over_parallelism_assignment(make_cluster):
    """Port of test-over-parallelism-assignment: 42 executors over 7 workers of 10 slots."""
    cluster = make_cluster(supervisors=2, ports_per_supervisor=5)
    cluster.submit("test", {"topology.workers": 7}, topology(
        {"1": spout(21)}, {"2": bolt(["1"], 9), "3": bolt(["1"], 2), "4": bolt(["1"], 10)}))
    info = cluster.task_info("test")
    check_consistency(cluster, "test", info)
    assert [len(info[c]) for c in "1234"] == [21, 9, 2, 10]
    assert num_workers(cluster.assignment("test")) == 7


def test_kill_storm(make_cluster):
    """Port of test-kill-storm: KILLED during the wait, then removed and cleaned up."""
    cluster = make_cluster(supervisors=2, ports_per_supervisor=5,
                           options=["nimbus.task.timeout.secs=30"])
    cluster.submit("test", {"topology.message.timeout.secs": 2}, topology({"1": spout(14)}))
    storm_id = cluster.storm_id("test")
    cluster.assignment("test")
    cluster.call("killTopology", name="test")
    assert cluster.state.storm_base(storm_id).status == TopologyStatus.KILLED
    assert cluster.state.assignment_info(storm_id) is not None
    assert storm_id in cluster.state.heartbeat_storms()
    with pytest.raises(AlreadyAliveException):  # a killed topology keeps its name
        cluster.submit("test", {}, topology({"1": spout(1)}))
    cluster.wait_for(lambda: cluster.state.storm_base(storm_id) is None, "removal")
    assert cluster.state.assignment_info(storm_id) is None
    cluster.wait_for(lambda: cluster.state.heartbeat_storms() == [], "cleanup")
    # do-cleanup deletes the blobs after the heartbeats, in the same round: wait for them too
    cluster.wait_for(lambda: cluster.call("listBlobs", session="").keys == [], "blob cleanup")

    with pytest.raises(NotAliveException):
        cluster.call("killTopology", name="lalala")

    cluster.submit("test4", {"topology.message.timeout.secs": 100}, topology({"1": spout(1)}))
    storm_id4 = cluster.storm_id("test4")
    cluster.assignment("test4")
    started = time.monotonic()
    cluster.call("killTopologyWithOpts", name="test4", options=KillOptions(wait_secs=2))
    assert cluster.state.assignment_info(storm_id4) is not None
    cluster.wait_for(lambda: cluster.state.assignment_info(storm_id4) is None, "kill with opts")
    assert time.monotonic() - started >= 1.5  # the given wait, not the 100 s timeout


def test_rebalance(make_cluster):
    """Port of test-rebalance: after new supervisors join, rebalance spreads 3 workers to 3."""
    cluster = make_cluster(supervisors=1, ports_per_supervisor=3)
    cluster.submit("test", {"topology.workers": 3, "topology.message.timeout.secs": 60},
                   topology({"1": spout(3)}))
    before = cluster.assignment("test")
    assert len({n.node for n in before.executor_node_port.values()}) == 1
    assert num_workers(before) == 3
    cluster.add_supervisor(3)
    cluster.add_supervisor(3)
    storm_id = cluster.storm_id("test")
    cluster.call("rebalance", name="test", options=RebalanceOptions(wait_secs=1))
    assert cluster.state.storm_base(storm_id).status == TopologyStatus.REBALANCING

    def spread():
        a = cluster.state.assignment_info(storm_id)
        return len({n.node for n in a.executor_node_port.values()}) == 3
    cluster.wait_for(spread, "the rebalance to spread the workers")
    cluster.wait_for(lambda: cluster.state.storm_base(storm_id).status == TopologyStatus.ACTIVE,
                     "the status to return to ACTIVE")
    assert num_workers(cluster.state.assignment_info(storm_id)) == 3
    with pytest.raises(InvalidTopologyException, match="greater than 0"):
        cluster.call("rebalance", name="test", options=RebalanceOptions(num_executors={"1": 0}))


def test_submit_invalid(make_cluster):
    """Port of test-submit-invalid: bad names and size limits; nothing is left behind."""
    cluster = make_cluster(options=["nimbus.executors.perTopology=8",
                                    "nimbus.slots.perTopology=8"])
    with pytest.raises(InvalidTopologyException):
        cluster.submit("test/aaa", {}, topology({"1": spout(1, tasks_=1)}))
    with pytest.raises(InvalidTopologyException, match="more than 8 executors"):
        cluster.submit("test", {"topology.workers": 3}, topology({"1": spout(16, tasks_=16)}))
    with pytest.raises(InvalidTopologyException, match="more than 8 workers"):
        cluster.submit("test", {"topology.workers": 16}, topology({"1": spout(5, tasks_=5)}))
    assert cluster.state.active_storms() == []
    assert cluster.state.heartbeat_storms() == []
    assert cluster.call("listBlobs", session="").keys == []
    assert cluster.submit("test", {"topology.workers": 8}, topology({"1": spout(5, tasks_=5)})) \
        is None


def test_file_bogus_download(make_cluster):
    """Port of test-file-bogus-download: bad names are AuthorizationException."""
    cluster = make_cluster()
    for name in ("", "/bogus-path/foo"):
        with pytest.raises(AuthorizationException):
            cluster.call("beginFileDownload", file=name)


def test_upload_new_credentials_on_bogus_id(make_cluster):
    """test-bogusId's last case: uploadNewCredentials on an unknown name is NotAliveException."""
    cluster = make_cluster()
    with pytest.raises(NotAliveException):
        cluster.call("uploadNewCredentials", name="bogus-id", creds=Credentials(creds={}))


def test_debug_on_component_and_on_topology(make_cluster):
    """Port of test-debug-on-component/-global: component_debug keyed by component or id."""
    cluster = make_cluster()
    cluster.submit("t", {}, topology({"1": spout(1)}))
    storm_id = cluster.storm_id("t")
    cluster.call("debug", name="t", component="1", enable=True, samplingPercentage=150.0)
    cluster.call("debug", name="t", component="", enable=True, samplingPercentage=20.0)
    debug = cluster.state.storm_base(storm_id).component_debug
    assert (debug["1"].enable, debug["1"].samplingpct) == (True, 100.0)
    assert (debug[storm_id].enable, debug[storm_id].samplingpct) == (True, 20.0)


def test_upload_new_credentials(make_cluster):
    """uploadNewCredentials overwrites /credentials/<id>; an unknown name is NotAlive."""
    cluster = make_cluster()
    cluster.submit("t", {}, topology({"1": spout(1)}))
    cluster.call("uploadNewCredentials", name="t", creds=Credentials(creds={"k": "v"}))
    assert cluster.state.credentials(cluster.storm_id("t")).creds == {"k": "v"}


def test_cluster_info_follows_status_workers_and_uptime_of_a_topology(make_cluster):
    """getClusterInfo's topology summary changes with its StormBase (deactivate, a rebalance
    to fewer workers) and its assignment, and its uptime grows between calls: a summary kept
    from an earlier call is never served stale."""
    cluster = make_cluster(supervisors=2, ports_per_supervisor=3)
    cluster.submit("summed", {"topology.workers": 3},
                   topology({"1": spout(6)}))
    storm_id = cluster.storm_id("summed")

    def summary():
        [found] = [t for t in cluster.call("getClusterInfo").topologies if t.id == storm_id]
        return found

    cluster.wait_for(lambda: summary().num_workers == 3, "three workers")
    first = summary()
    assert (first.status, first.num_executors, first.num_tasks) == ("ACTIVE", 6, 6)
    cluster.call("deactivate", name="summed")
    cluster.wait_for(lambda: summary().status == "INACTIVE", "the INACTIVE status")
    cluster.call("rebalance", name="summed",
                 options=RebalanceOptions(wait_secs=0, num_workers=2))
    cluster.wait_for(lambda: summary().num_workers == 2, "two workers after the rebalance")
    cluster.wait_for(lambda: summary().uptime_secs > first.uptime_secs, "a later uptime")


def test_cluster_info_follows_a_supervisors_heartbeats(make_cluster):
    """getClusterInfo's supervisor summary changes with each new SupervisorInfo (uptime,
    used ports, version) and goes with the supervisor: a summary kept from an earlier call is
    never served stale."""
    cluster = make_cluster(supervisors=1)

    def summary(supervisor_id):
        found = [s for s in cluster.call("getClusterInfo").supervisors
                 if s.supervisor_id == supervisor_id]
        return found[0] if found else None

    cluster.wait_for(lambda: summary("sup-6700") is not None, "the supervisor")
    first = summary("sup-6700")
    assert (first.uptime_secs, first.num_used_workers, first.num_workers) == (0, 0, 3)
    cluster.state.supervisor_heartbeat("sup-6700", SupervisorInfo(
        time_secs=int(time.time()), hostname="host-sup-6700", assignment_id="sup-6700",
        used_ports=[6700, 6701], meta=[6700, 6701, 6702], scheduler_meta={},
        uptime_secs=42, version="1.2.5"))
    cluster.wait_for(lambda: summary("sup-6700").uptime_secs == 42, "the new uptime")
    later = summary("sup-6700")
    assert (later.num_used_workers, later.version) == (2, "1.2.5")
    cluster.state.backend.delete("/supervisors/sup-6700")
    cluster.wait_for(lambda: summary("sup-6700") is None, "the supervisor's removal")


def stored_conf(cluster, storm_id):
    """The topology's conf blob as a supervisor downloads it."""
    with RawClient("127.0.0.1", cluster.process.port) as client:
        session = client.call("beginBlobDownload", key=storm_id + "-stormconf.ser").session
        chunks = []
        while True:
            chunk = client.call("downloadBlobChunk", session=session)
            if not chunk:
                break
            chunks.append(chunk)
    return json.loads(gzip.decompress(b"".join(chunks)))


def test_each_topology_gets_a_transport_secret_no_client_is_shown(make_cluster):
    """Nimbus stamps a fresh 32-byte secret on every topology's stored conf (a submitted
    value is replaced), which getTopologyConf and the topology page leave out."""
    cluster = make_cluster(supervisors=1, ports_per_supervisor=2)
    cluster.submit("a", {TRANSPORT_SECRET_KEY: "chosen by the submitter"},
                   topology({"1": spout(1)}))
    cluster.submit("b", {}, topology({"1": spout(1)}))
    secrets = []
    for name in ("a", "b"):
        storm_id = cluster.storm_id(name)
        assert TRANSPORT_SECRET_KEY not in json.loads(cluster.call("getTopologyConf",
                                                                   id=storm_id))
        page = cluster.call("getTopologyPageInfo", id=storm_id, window=":all-time",
                            is_include_sys=False)
        assert TRANSPORT_SECRET_KEY not in json.loads(page.topology_conf)
        secrets.append(stored_conf(cluster, storm_id)[TRANSPORT_SECRET_KEY])
    assert [len(base64.b64decode(secret)) for secret in secrets] == [32, 32]
    assert secrets[0] != secrets[1]
