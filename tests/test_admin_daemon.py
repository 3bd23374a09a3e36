"""Log levels, the worker profiler, topology history, owner resources and authorization,
through the Thrift wire against a `pynimbus dev` process, on the embedded store and on a real
ZooKeeper.  Values written to the cluster state are read back raw and decoded field by field.
"""

import json
import os
import time

import pytest

from clocked_nimbus import ClockedNimbusProcess
from conftest import dump_tree
from nimbus_process import NimbusDidNotStart, NimbusProcess, RawClient, RemoteError
from test_nimbus_daemon import _cluster_options
from test_nimbus_scenarios import Cluster, bolt, make_cluster, spout, topology  # noqa: F401
from thrift.Thrift import TApplicationException

from pynimbus.clojure_port import authorization as port_auth
from pynimbus.cluster.serialization import deserialize
from pynimbus.generated.storm.ttypes import (
    AuthorizationException, Credentials, ExecutorInfo, GetInfoOptions, KillOptions, LogConfig,
    LogLevel, LogLevelAction, NodeInfo, NumErrorsChoice, ProfileAction, ProfileRequest,
    RebalanceOptions, SupervisorWorkerHeartbeat, SupervisorWorkerHeartbeats, WorkerMetricList,
    WorkerMetrics)

BACKENDS = ["embedded", pytest.param("zookeeper", marks=pytest.mark.zookeeper)]


@pytest.fixture(params=BACKENDS)
def backend_options(request, tmp_path):
    """The -c options selecting one backend (the ZooKeeper one under a root of its own)."""
    if request.param == "embedded":
        return []
    return _cluster_options("zookeeper", tmp_path, request)


@pytest.fixture
def cluster(tmp_path, backend_options):
    made = Cluster(tmp_path, supervisors=2, ports_per_supervisor=2, options=backend_options)
    yield made
    made.close()


def submit_word_count(cluster, name="wc", workers=2):
    """A spout and a bolt on ``workers`` workers; returns the storm id once it is assigned."""
    cluster.submit(name, {"topology.workers": workers},
                   topology({"words": spout(2)}, {"count": bolt(["words"], 2)}))
    storm_id = cluster.storm_id(name)
    cluster.assignment(name)
    return storm_id


def node_data(cluster, path, cls):
    data = cluster.state.backend.get(path)
    return None if data is None else deserialize(data, cls)


def internal_error(cluster, method, **kwargs):
    with pytest.raises(RemoteError) as e:
        cluster.call(method, **kwargs)
    assert e.value.app.type == TApplicationException.INTERNAL_ERROR
    return e.value.app.message


def test_set_log_config_writes_storms_logconfig_and_merges(cluster):
    """setLogConfig stores a LogConfig at /logconfigs/<id> with expiry = now + timeout; a
    second call marks stored loggers UNCHANGED and REMOVE drops one; getLogConfig reads it."""
    storm_id = submit_word_count(cluster)
    path = "/logconfigs/" + storm_id
    assert cluster.call("getLogConfig", name=storm_id) == LogConfig()
    before_ms = int(time.time() * 1000)
    cluster.call("setLogConfig", name=storm_id, config=LogConfig(named_logger_level={
        "ROOT": LogLevel(LogLevelAction.UPDATE, "DEBUG", 60),
        "com.example": LogLevel(LogLevelAction.UPDATE, "INFO")}))
    after_ms = int(time.time() * 1000)
    stored = node_data(cluster, path, LogConfig)
    root = stored.named_logger_level["ROOT"]
    assert (root.action, root.target_log_level, root.reset_log_level_timeout_secs) == (
        LogLevelAction.UPDATE, "DEBUG", 60)
    assert before_ms + 60000 <= root.reset_log_level_timeout_epoch <= after_ms + 60000
    example = stored.named_logger_level["com.example"]
    assert (example.action, example.target_log_level, example.reset_log_level_timeout_epoch) == (
        LogLevelAction.UPDATE, "INFO", None)
    assert cluster.call("getLogConfig", name=storm_id) == stored

    cluster.call("setLogConfig", name=storm_id, config=LogConfig(named_logger_level={
        "com.example": LogLevel(LogLevelAction.REMOVE)}))
    stored = node_data(cluster, path, LogConfig)
    assert sorted(stored.named_logger_level) == ["ROOT"]
    assert stored.named_logger_level["ROOT"].action == LogLevelAction.UNCHANGED
    assert stored.named_logger_level["ROOT"].target_log_level == "DEBUG"


def test_log_config_refusals_change_nothing(cluster):
    """An unknown id and a blank logger name are internal errors saying why; nothing written."""
    storm_id = submit_word_count(cluster)
    assert internal_error(cluster, "getLogConfig", name="nope-1-1") == "nope-1-1 is not alive"
    assert internal_error(cluster, "setLogConfig", name="nope-1-1", config=LogConfig(
        named_logger_level={"ROOT": LogLevel(LogLevelAction.UPDATE, "DEBUG")})) == \
        "nope-1-1 is not alive"
    assert cluster.state.backend.get("/logconfigs/nope-1-1") is None
    assert "Use ROOT" in internal_error(
        cluster, "setLogConfig", name=storm_id,
        config=LogConfig(named_logger_level={"": LogLevel(LogLevelAction.UPDATE, "DEBUG")}))
    assert cluster.state.backend.get("/logconfigs/" + storm_id) is None


def test_worker_profiler_requests_and_pending_actions(cluster):
    """setWorkerProfiler writes /profilerconfigs/<id>/<host>_<port>_<ACTION>; the component's
    pending actions are the newest request per worker running it."""
    storm_id = submit_word_count(cluster)
    assignment = cluster.assignment("wc")
    spout_tasks = set(cluster.task_info("wc")["words"])
    (start, end), node_info = next((e, n) for e, n in sorted(assignment.executor_node_port.items())
                                   if e[0] in spout_tasks)
    host, port = assignment.node_host[node_info.node], next(iter(node_info.port))
    old = ProfileRequest(NodeInfo(host, {port}), ProfileAction.JSTACK_DUMP, 1000)
    new = ProfileRequest(NodeInfo(host, {port}), ProfileAction.JSTACK_DUMP, 2000)
    other = ProfileRequest(NodeInfo("elsewhere", {port}), ProfileAction.JSTACK_DUMP, 3000)
    for request in (old, other):
        cluster.call("setWorkerProfiler", id=storm_id, profileRequest=request)
    path = "/profilerconfigs/%s/%s_%d_JSTACK_DUMP" % (storm_id, host, port)
    stored = node_data(cluster, path, ProfileRequest)
    assert (stored.nodeInfo.node, stored.nodeInfo.port, stored.action, stored.time_stamp) == (
        host, {port}, ProfileAction.JSTACK_DUMP, 1000)
    cluster.call("setWorkerProfiler", id=storm_id, profileRequest=new)  # same node: replaced
    assert node_data(cluster, path, ProfileRequest).time_stamp == 2000
    assert cluster.call("getComponentPendingProfileActions", id=storm_id, component_id="words",
                        action=ProfileAction.JSTACK_DUMP) == [new]
    assert cluster.call("getComponentPendingProfileActions", id=storm_id, component_id="words",
                        action=ProfileAction.JMAP_DUMP) == []
    assert internal_error(cluster, "setWorkerProfiler", id="nope-1-1",
                          profileRequest=new) == "nope-1-1 is not alive"
    assert internal_error(cluster, "getComponentPendingProfileActions", id="nope-1-1",
                          component_id="words", action=ProfileAction.JSTACK_DUMP) == \
        "nope-1-1 is not alive"
    assert cluster.state.backend.get("/profilerconfigs/nope-1-1") is None


def test_kill_removes_log_and_profiler_configs_and_records_history(cluster, tmp_path):
    """After kill the remove transition deletes /logconfigs/<id> and /profilerconfigs/<id>,
    and the topology stays in the history (LocalState under storm.local.dir/nimbus/history)."""
    storm_id = submit_word_count(cluster)
    cluster.call("setLogConfig", name=storm_id, config=LogConfig(named_logger_level={
        "ROOT": LogLevel(LogLevelAction.UPDATE, "DEBUG")}))
    cluster.call("setWorkerProfiler", id=storm_id, profileRequest=ProfileRequest(
        NodeInfo("host-x", {6700}), ProfileAction.JSTACK_DUMP, 1))
    assert cluster.call("getTopologyHistory", user=None).topo_ids == [storm_id]
    cluster.call("killTopologyWithOpts", name="wc", options=KillOptions(wait_secs=0))
    backend = cluster.state.backend
    cluster.wait_for(lambda: backend.get("/storms/" + storm_id) is None, "the removal")
    assert backend.get("/logconfigs/" + storm_id) is None
    assert not backend.exists("/profilerconfigs/" + storm_id)
    assert cluster.call("getTopologyHistory", user=None).topo_ids == [storm_id]
    # a user no topology names sees nothing
    assert cluster.call("getTopologyHistory", user="nobody-at-all").topo_ids == []
    history_dir = os.path.join(str(tmp_path), "nimbus", "history")
    assert any(name.endswith(".version") for name in os.listdir(history_dir))


def test_owner_resource_summaries(cluster):
    """getOwnerResourceSummaries sums the owner's topologies as 2.8.8 does."""
    submit_word_count(cluster, workers=2)
    owner = cluster.state.storm_base(cluster.storm_id("wc")).owner
    [summary] = cluster.call("getOwnerResourceSummaries", owner=None)
    assignment = cluster.assignment("wc")
    assert (summary.owner, summary.total_topologies, summary.total_executors,
            summary.total_workers) == (owner, 1, len(assignment.executor_node_port), 2)
    assert summary.total_tasks == sum(e - s + 1 for s, e in assignment.executor_node_port)
    # the figures are the topology's own, as getTopologySummary shows them
    topo = cluster.call("getTopologySummary", id=cluster.storm_id("wc"))
    assert (summary.requested_on_heap_memory, summary.requested_off_heap_memory,
            summary.requested_cpu, summary.assigned_on_heap_memory,
            summary.assigned_off_heap_memory, summary.cpu_usage) == (
        topo.requested_memonheap, topo.requested_memoffheap, topo.requested_cpu,
        topo.assigned_memonheap, topo.assigned_memoffheap, topo.assigned_cpu)
    assert summary.requested_total_memory == (summary.requested_on_heap_memory
                                              + summary.requested_off_heap_memory)
    assert summary.memory_usage == (summary.assigned_on_heap_memory
                                    + summary.assigned_off_heap_memory) > 0
    [nobody] = cluster.call("getOwnerResourceSummaries", owner="nobody")
    assert (nobody.owner, nobody.total_topologies, nobody.total_executors) == ("nobody", 0, 0)


class AuthorizedNimbusProcess(NimbusProcess):
    """A nimbus whose authorizer may refuse getClusterInfo: it is serving once it answers
    getTopologyHistory, which Storm never authorizes."""

    def wait_until_serving(self, timeout):
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise NimbusDidNotStart("exited during start-up:\n" + self.log_tail())
            try:
                with RawClient("127.0.0.1", self.port, timeout=5.0) as client:
                    client.call("getTopologyHistory", user=None)
                return
            except OSError:
                time.sleep(0.02)  # not listening yet
        raise NimbusDidNotStart("no answer within %.0fs:\n%s" % (timeout, self.log_tail()))


def _restart(cluster, *options):
    """Stop the cluster's nimbus and start another on the same state and local dir."""
    cluster.process.stop()
    cluster.process = AuthorizedNimbusProcess(cluster.process.local_dir,
                                              options=cluster.options + list(options))
    cluster.process.start(timeout=30)


# Every method Storm authorizes, with arguments naming the live topology "wc" (or its id).
def checked_calls(storm_id):
    return [
        ("submitTopology", dict(name="wc2", uploadedJarLocation="", jsonConf="{}",
                                topology=topology({"s": spout(1)}))),
        ("killTopology", dict(name="wc")),
        ("killTopologyWithOpts", dict(name="wc", options=KillOptions(wait_secs=0))),
        ("activate", dict(name="wc")),
        ("deactivate", dict(name="wc")),
        ("rebalance", dict(name="wc", options=RebalanceOptions(wait_secs=0))),
        ("debug", dict(name="wc", component="", enable=True, samplingPercentage=10.0)),
        ("uploadNewCredentials", dict(name="wc", creds=Credentials({"a": "b"}))),
        ("beginFileUpload", {}),
        ("uploadChunk", dict(location="x", chunk=b"x")),
        ("finishFileUpload", dict(location="x")),
        ("beginFileDownload", dict(file="x")),
        ("downloadChunk", dict(id="x")),
        ("getNimbusConf", {}),
        ("getClusterInfo", {}),
        ("getLeader", {}),
        ("isTopologyNameAllowed", dict(name="other")),
        ("getTopologySummaries", {}),
        ("getTopologySummary", dict(id=storm_id)),
        ("getTopologySummaryByName", dict(name="wc")),
        ("getTopologyConf", dict(id=storm_id)),
        ("getTopology", dict(id=storm_id)),
        ("getUserTopology", dict(id=storm_id)),
        ("getTopologyInfo", dict(id=storm_id)),
        ("getTopologyInfoWithOpts", dict(id=storm_id, options=GetInfoOptions(
            num_err_choice=NumErrorsChoice.ALL))),
        ("getTopologyInfoByName", dict(name="wc")),
        ("getTopologyInfoByNameWithOpts", dict(name="wc", options=GetInfoOptions())),
        ("getTopologyPageInfo", dict(id=storm_id, window=":all-time", is_include_sys=False)),
        ("getComponentPageInfo", dict(topology_id=storm_id, component_id="words",
                                      window=":all-time", is_include_sys=False)),
        ("getSupervisorPageInfo", dict(id="sup-6700", host=None, is_include_sys=False)),
        ("getOwnerResourceSummaries", dict(owner=None)),
        ("getSupervisorAssignments", dict(node="sup-6700")),
        ("setLogConfig", dict(name=storm_id, config=LogConfig(named_logger_level={
            "ROOT": LogLevel(LogLevelAction.UPDATE, "DEBUG")}))),
        ("getLogConfig", dict(name=storm_id)),
        ("setWorkerProfiler", dict(id=storm_id, profileRequest=ProfileRequest(
            NodeInfo("h", {6700}), ProfileAction.JSTACK_DUMP, 1))),
        ("getComponentPendingProfileActions", dict(id=storm_id, component_id="words",
                                                   action=ProfileAction.JSTACK_DUMP)),
        ("sendSupervisorWorkerHeartbeats", dict(heartbeats=SupervisorWorkerHeartbeats(
            "sup-6700", [SupervisorWorkerHeartbeat(storm_id, [ExecutorInfo(1, 1)], 1)]))),
        ("sendSupervisorWorkerHeartbeat", dict(heatbeat=SupervisorWorkerHeartbeat(
            storm_id, [ExecutorInfo(1, 1)], 1))),
        ("processWorkerMetrics", dict(metrics=WorkerMetrics(storm_id, 6700, "h",
                                                            WorkerMetricList([])))),
    ]


def test_deny_authorizer_denies_every_checked_method_and_writes_nothing(tmp_path,
                                                                        backend_options):
    """With DenyAuthorizer every method Storm authorizes fails with Storm's message (an
    internal error where the IDL declares no AuthorizationException) and the cluster state is
    unchanged; unchecked methods still answer."""
    cluster = Cluster(tmp_path, supervisors=2, ports_per_supervisor=2, options=backend_options)
    try:
        storm_id = submit_word_count(cluster)
        _restart(cluster, "nimbus.authorizer=" + port_auth.DENY_AUTHORIZER,
                 "nimbus.do.not.reassign=true")
        before = dump_tree(cluster.state.backend)
        inbox = os.path.join(str(tmp_path), "nimbus", "inbox")
        inbox_before = sorted(os.listdir(inbox)) if os.path.isdir(inbox) else []
        for method, kwargs in checked_calls(storm_id):
            operation = port_auth.operation_of(method)
            expected = operation + (" on topology wc" if method in (
                "killTopology", "killTopologyWithOpts", "activate", "deactivate", "rebalance",
                "debug", "uploadNewCredentials", "getTopologySummary",
                "getTopologySummaryByName", "getTopologyConf", "getTopology",
                "getUserTopology", "getTopologyInfo", "getTopologyInfoWithOpts",
                "getTopologyInfoByName", "getTopologyInfoByNameWithOpts",
                "getTopologyPageInfo", "getComponentPageInfo", "getSupervisorPageInfo",
                "setLogConfig", "getLogConfig", "setWorkerProfiler",
                "getComponentPendingProfileActions", "sendSupervisorWorkerHeartbeat") else (
                " on topology wc2" if method == "submitTopology" else "")) + " is not authorized"
            if method in ("setLogConfig", "getLogConfig", "setWorkerProfiler",
                          "getComponentPendingProfileActions", "processWorkerMetrics"):
                assert internal_error(cluster, method, **kwargs) == expected, method
            else:
                with pytest.raises(AuthorizationException) as e:
                    cluster.call(method, **kwargs)
                assert e.value.msg == expected, method
        assert dump_tree(cluster.state.backend) == before
        assert (sorted(os.listdir(inbox)) if os.path.isdir(inbox) else []) == inbox_before
        assert cluster.call("getTopologyHistory", user=None).topo_ids == [storm_id]
        assert cluster.call("listBlobs", session="").keys is not None
    finally:
        cluster.close()


def test_unknown_authorizer_stops_nimbus_start_with_a_clear_message(tmp_path):
    """nimbus.authorizer naming a class pynimbus lacks: start-up fails, saying which."""
    proc = NimbusProcess(tmp_path, options=[
        "pynimbus.embedded.state.dir=%s" % (tmp_path / "state"),
        "nimbus.authorizer=com.example.NoSuchAuthorizer"])
    with pytest.raises(NimbusDidNotStart):
        proc.start(timeout=30)
    assert proc.process.returncode == 1
    assert "com.example.NoSuchAuthorizer" in proc.log_tail()
    assert "Nimbus could not start" in proc.log_tail()


def test_simple_acl_authorizer_with_the_debug_transport_user(make_cluster):
    """SimpleACLAuthorizer decides on debug.simple.transport.user: with nimbus.users not
    naming it the user commands are denied; the topology's users may still read it."""
    cluster = make_cluster()
    storm_id = submit_word_count(cluster)
    _restart(cluster, "nimbus.authorizer=" + port_auth.SIMPLE_ACL_AUTHORIZER,
             "debug.simple.transport.user=alice", 'nimbus.users=["bob"]',
             "nimbus.do.not.reassign=true")
    with pytest.raises(AuthorizationException) as e:
        cluster.call("getClusterInfo")
    assert e.value.msg == "getClusterInfo is not authorized"
    with pytest.raises(AuthorizationException):
        cluster.submit("wc2", {}, topology({"s": spout(1)}))
    with pytest.raises(AuthorizationException) as e:
        cluster.call("getTopologyConf", id=storm_id)
    assert e.value.msg == "getTopologyConf on topology wc is not authorized"
    _restart(cluster, "nimbus.authorizer=" + port_auth.SIMPLE_ACL_AUTHORIZER,
             "debug.simple.transport.user=alice", 'nimbus.admins=["alice"]',
             "nimbus.do.not.reassign=true")
    assert json.loads(cluster.call("getTopologyConf", id=storm_id))["topology.name"] == "wc"


def test_simple_acl_authorizer_without_principal_fails_every_checked_call(make_cluster):
    """Without debug.simple.transport.user the request has no principal: Storm's
    SimpleACLAuthorizer fails (an internal error); pynimbus says why."""
    cluster = make_cluster()
    _restart(cluster, "nimbus.authorizer=" + port_auth.SIMPLE_ACL_AUTHORIZER)
    assert "no principal" in internal_error(cluster, "getClusterInfo")
    assert cluster.call("getTopologyHistory", user=None).topo_ids == []


class ClockedCluster(Cluster):
    """A Cluster whose Nimbus reads the time the test sets (from ``START``)."""

    START = 1700000000.0

    def make_process(self, tmp_path):
        process = ClockedNimbusProcess(tmp_path, options=self.options)
        process.set_clock(self.START)
        return process


def test_history_cleaner_forgets_old_kills_when_its_interval_is_set(tmp_path):
    """With logviewer.cleanup.interval.secs set, killed topologies older than
    logviewer.cleanup.age.mins (1, the least Storm's validator allows) leave the history at the
    next run once Nimbus's clock has moved past it."""
    cluster = ClockedCluster(tmp_path, options=["logviewer.cleanup.interval.secs=1",
                                                "logviewer.cleanup.age.mins=1"])
    try:
        storm_id = submit_word_count(cluster)
        cluster.call("killTopologyWithOpts", name="wc", options=KillOptions(wait_secs=0))
        backend = cluster.state.backend
        cluster.wait_for(lambda: backend.get("/storms/" + storm_id) is None, "the removal")
        cluster.wait_for(
            lambda: cluster.call("getTopologyHistory", user=None).topo_ids == [storm_id],
            "the kill in the history")
        cluster.process.set_clock(ClockedCluster.START + 120)
        cluster.wait_for(lambda: cluster.call("getTopologyHistory", user=None).topo_ids == [],
                         "the history cleaner")
    finally:
        cluster.close()


def test_2x_log_config_owner_summaries_and_deny_names(make_cluster):
    """In 2.x mode the same calls work, and getLeader / isTopologyNameAllowed are denied
    under their own operation names (1.2.4 checks both as getClusterInfo)."""
    cluster = make_cluster(options=["pynimbus.storm.compat=2.x"])
    storm_id = submit_word_count(cluster)
    cluster.call("setLogConfig", name=storm_id, config=LogConfig(named_logger_level={
        "ROOT": LogLevel(LogLevelAction.UPDATE, "WARN", 5),
        "x": LogLevel(LogLevelAction.UNCHANGED)}))  # 2.8.8 ignores UNCHANGED
    stored = node_data(cluster, "/logconfigs/" + storm_id, LogConfig)
    assert sorted(stored.named_logger_level) == ["ROOT"]
    assert stored.named_logger_level["ROOT"].reset_log_level_timeout_epoch is not None
    [summary] = cluster.call("getOwnerResourceSummaries", owner=None)
    assert (summary.total_topologies, summary.total_workers) == (1, 2)
    _restart(cluster, "nimbus.authorizer=" + port_auth.DENY_AUTHORIZER,
             "nimbus.do.not.reassign=true")
    for method, kwargs, message in [
            ("getLeader", {}, "getLeader is not authorized"),
            ("isTopologyNameAllowed", dict(name="x"),
             "isTopologyNameAllowed on topology x is not authorized"),
            ("getTopologySummary", dict(id=storm_id),
             "getTopologySummary on topology wc is not authorized")]:
        with pytest.raises(AuthorizationException) as e:
            cluster.call(method, **kwargs)
        assert e.value.msg == message


@pytest.mark.parametrize("compat", ["1.x", "2.x"])
def test_debug_transport_user_is_recorded_as_the_submitter(make_cluster, compat):
    """With debug.simple.transport.user set the request has that principal, and submit
    stamps it into the stored conf (1.2.4: principal + user + topology.users; 2.8.8: the
    local user as principal) whatever the authorizer."""
    cluster = make_cluster(options=["debug.simple.transport.user=alice",
                                    "pynimbus.storm.compat=%s" % compat])
    storm_id = submit_word_count(cluster)
    conf = json.loads(cluster.call("getTopologyConf", id=storm_id))
    assert conf["topology.submitter.principal"] == "alice"
    assert conf["topology.submitter.user"] == "alice"
    assert "alice" in conf["topology.users"]
    summary = cluster.call("getTopologyInfo", id=storm_id)
    assert summary.owner == "alice"
