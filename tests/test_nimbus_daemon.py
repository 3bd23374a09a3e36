"""Two Nimbus processes on one cluster state: registration, one leader, failover on death.

Each backend is exercised: the embedded store shared through a directory, and a real
ZooKeeper started by the session fixture.
"""


import pytest

from nimbus_process import NimbusProcess, RawClient, zookeeper_options


def _cluster_options(kind, tmp_path, request):
    if kind == "embedded":
        return ["pynimbus.embedded.state.dir=%s" % (tmp_path / "shared-state")]
    zk = request.getfixturevalue("zookeeper_server")
    conf = zk.storm_conf()
    return zookeeper_options(conf["storm.zookeeper.servers"], conf["storm.zookeeper.port"],
                             "/daemon-test-%s" % tmp_path.name) + [
        "storm.zookeeper.session.timeout=4000"]


@pytest.fixture(params=["embedded", pytest.param("zookeeper", marks=pytest.mark.zookeeper)])
def two_nimbuses(request, tmp_path):
    """Two `pynimbus dev` processes sharing one cluster state, each with its own local dir."""
    options = _cluster_options(request.param, tmp_path, request)
    procs = []
    for name in ("a", "b"):
        local = tmp_path / name
        local.mkdir()
        proc = NimbusProcess(local, options=options)
        proc.start(timeout=30)
        procs.append(proc)
    yield procs
    for proc in procs:
        proc.kill()


def _call(proc, method, **kwargs):
    with RawClient("127.0.0.1", proc.port) as client:
        return client.call(method, **kwargs)


def test_both_nimbuses_register_and_exactly_one_leads(two_nimbuses, wait_until):
    """Each nimbus lists both under /nimbuses and both agree on one leader, the first."""
    first, second = two_nimbuses
    for proc in two_nimbuses:
        # the first reads /nimbuses from its watch-kept cache: the second's entry comes soon
        wait_until(lambda: len(_call(proc, "getClusterInfo").nimbuses) == 2, 10,
                   "both nimbuses in the answer")
        info = _call(proc, "getClusterInfo")
        assert sorted(n.port for n in info.nimbuses) == sorted([first.port, second.port])
        assert [n.port for n in info.nimbuses if n.isLeader] == [first.port]
        assert _call(proc, "getLeader").port == first.port


def test_leadership_moves_when_the_leader_is_killed(two_nimbuses, wait_until):
    """After SIGKILL of the leader, the survivor reports itself leader and alone."""
    first, second = two_nimbuses
    first.kill()

    def second_leads_alone():
        info = _call(second, "getClusterInfo")
        return [(n.port, n.isLeader) for n in info.nimbuses] == [(second.port, True)]

    wait_until(second_leads_alone, timeout=30, what="the survivor to lead alone")
    assert _call(second, "getLeader").port == second.port


@pytest.fixture(params=["embedded", pytest.param("zookeeper", marks=pytest.mark.zookeeper)])
def nimbus_and_state(request, tmp_path):
    """A `pynimbus dev` process and a StormClusterState of our own on the same cluster state."""
    from pynimbus.cluster import make_cluster_state
    from pynimbus.common.config import read_storm_config
    options = _cluster_options(request.param, tmp_path, request)
    local = tmp_path / "nimbus"
    local.mkdir()
    proc = NimbusProcess(local, options=options)
    proc.start(timeout=30)
    state = make_cluster_state(read_storm_config(options=options, environ={}))
    yield proc, state
    state.close()
    proc.kill()


def _supervisor_info(host, ports, used=()):
    from pynimbus.generated.storm.ttypes import SupervisorInfo
    return SupervisorInfo(time_secs=1700000000, hostname=host, assignment_id=host + "-id",
                          used_ports=list(used), meta=list(ports), scheduler_meta={},
                          uptime_secs=42, version="1.2.4", resources_map={"cpu": 400})


def test_cluster_info_shows_supervisors_and_topologies_from_cluster_state(nimbus_and_state,
                                                                          wait_until):
    """Supervisors and topologies written by others appear in getClusterInfo as Storm sums them."""
    from pynimbus.generated.storm.ttypes import (
        Assignment, NodeInfo, StormBase, TopologyStatus)
    proc, state = nimbus_and_state
    state.supervisor_heartbeat("sup-a", _supervisor_info("host-a", [6700, 6701], used=[6700]))
    state.activate_storm("wordcount-1-1700000000", StormBase(
        name="wordcount", status=TopologyStatus.ACTIVE, num_workers=2,
        launch_time_secs=1700000000, owner="alice"))
    state.set_assignment("wordcount-1-1700000000", Assignment(
        master_code_dir="/x", node_host={"sup-a": "host-a"},
        executor_node_port={(1, 1): NodeInfo("sup-a", {6700}), (2, 4): NodeInfo("sup-a", {6701})},
        executor_start_time_secs={(1, 1): 1700000000, (2, 4): 1700000000}, worker_resources={}))
    state.activate_storm("idle-2-1700000001", StormBase(
        name="idle", status=TopologyStatus.INACTIVE, num_workers=1,
        launch_time_secs=1700000001))

    # nimbus reads from its watch-kept cache: the next answers have them, once it has read them
    wait_until(lambda: len(_call(proc, "getClusterInfo").topologies) == 2
               and _call(proc, "getClusterInfo").supervisors, 10, "nimbus to see the writes")
    info = _call(proc, "getClusterInfo")
    [supervisor] = info.supervisors
    assert (supervisor.host, supervisor.supervisor_id, supervisor.num_workers,
            supervisor.num_used_workers, supervisor.uptime_secs, supervisor.version) == (
        "host-a", "sup-a", 2, 1, 42, "1.2.4")
    summaries = {t.name: t for t in info.topologies}
    wordcount = summaries["wordcount"]
    assert (wordcount.id, wordcount.num_tasks, wordcount.num_executors, wordcount.num_workers,
            wordcount.status, wordcount.owner) == (
        "wordcount-1-1700000000", 4, 2, 2, "ACTIVE", "alice")
    assert (summaries["idle"].num_executors, summaries["idle"].status) == (0, "INACTIVE")
    assert sorted(t.id for t in _call(proc, "getTopologySummaries")) == sorted(
        ["wordcount-1-1700000000", "idle-2-1700000001"])
    assert _call(proc, "getTopologySummaryByName", name="idle").id == "idle-2-1700000001"
    assert _call(proc, "isTopologyNameAllowed", name="wordcount") is False
    assert _call(proc, "isTopologyNameAllowed", name="wordcount2") is True


def test_unknown_topology_queries_raise_not_alive(nimbus_and_state):
    """Look-ups of an id or name nobody submitted raise NotAliveException naming it."""
    from pynimbus.generated.storm.ttypes import NotAliveException
    proc, _state = nimbus_and_state
    for method, kwargs in [("getTopologyInfo", {"id": "nope-1-1"}),
                           ("getTopologyConf", {"id": "nope-1-1"}),
                           ("getTopology", {"id": "nope-1-1"}),
                           ("getUserTopology", {"id": "nope-1-1"}),
                           ("getTopologySummary", {"id": "nope-1-1"}),
                           ("getTopologyInfoByName", {"name": "nope"})]:
        with pytest.raises(NotAliveException, match="nope"):
            _call(proc, method, **kwargs)


@pytest.mark.parametrize("signal_name", ["SIGINT", "SIGTERM"])
def test_ctrl_c_and_sigterm_stop_nimbus_cleanly(tmp_path, signal_name):
    """SIGINT (Ctrl-C) and SIGTERM stop nimbus with exit code 0 and unregister it."""
    import signal as signals

    from pynimbus.cluster import make_cluster_state
    from pynimbus.common.config import read_storm_config
    options = _cluster_options("embedded", tmp_path, None)
    proc = NimbusProcess(tmp_path, options=options)
    proc.start(timeout=30)
    proc.process.send_signal(getattr(signals, signal_name))
    try:
        assert proc.process.wait(15) == 0, proc.log_tail()
    finally:
        proc.kill()
    state = make_cluster_state(read_storm_config(options=options, environ={}))
    try:
        assert state.nimbuses() == []
        assert state.backend.get_children("/leader-lock") == []
    finally:
        state.close()


@pytest.mark.parametrize("compat", ["1.x", "2.x"])
def test_registration_names_follow_the_generation(tmp_path, request, compat):
    """1.2.4 registers /nimbuses/<host>:<port> and queues as host:port; 2.8.8 registers
    /nimbuses/<host> and queues as NimbusInfo.toHostPortString, host:port:tlsPort."""
    from pynimbus.cluster import make_cluster_state
    from pynimbus.common.config import read_storm_config
    options = _cluster_options("embedded", tmp_path, request) + [
        "pynimbus.storm.compat=%s" % compat]
    local = tmp_path / "nimbus"
    local.mkdir()
    proc = NimbusProcess(local, options=options)
    proc.start(timeout=30)
    state = make_cluster_state(read_storm_config(options=options, environ={}))
    try:
        leader = _call(proc, "getLeader")
        host_port = "%s:%d" % (leader.host, proc.port)
        expected_child, expected_participant = {
            "1.x": (host_port, host_port),
            "2.x": (leader.host, host_port + ":0"),
        }[compat]
        assert state.backend.get_children("/nimbuses") == [expected_child]
        latch_nodes = state.backend.get_children("/leader-lock")
        assert [state.backend.get("/leader-lock/" + n).decode() for n in latch_nodes] == [
            expected_participant]
        assert leader.port == proc.port and leader.isLeader
        assert [n.isLeader for n in _call(proc, "getClusterInfo").nimbuses] == [True]
    finally:
        state.close()
        proc.kill()
