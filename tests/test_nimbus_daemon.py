"""Two Nimbus processes on one cluster state: registration, one leader, failover on death.

Each backend is exercised: the embedded store shared through a directory, and a real
ZooKeeper started by the session fixture.
"""

import json

import pytest

from nimbus_process import NimbusProcess, RawClient


def _cluster_options(kind, tmp_path, request):
    if kind == "embedded":
        return ["pynimbus.embedded.state.dir=%s" % (tmp_path / "shared-state")]
    zk = request.getfixturevalue("zookeeper_server")
    conf = zk.storm_conf()
    return ["storm.zookeeper.servers=%s" % json.dumps(conf["storm.zookeeper.servers"]),
            "storm.zookeeper.port=%d" % conf["storm.zookeeper.port"],
            "storm.zookeeper.root=/daemon-test-%s" % tmp_path.name,
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


def test_both_nimbuses_register_and_exactly_one_leads(two_nimbuses):
    """Each nimbus lists both under /nimbuses and both agree on one leader, the first."""
    first, second = two_nimbuses
    for proc in two_nimbuses:
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
