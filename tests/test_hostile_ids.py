"""Ids Storm accepts but no path segment can hold, forged ids, and dependency keys no blob can
have, against a `pynimbus dev` process on a real ZooKeeper.

Storm accepts any component id but ``__``-prefixed ones; its error paths URL-encode the
component id, so only the empty id (and "." / "..") is no path segment after encoding.  Forged
topology ids (``/``, NUL, "..") and unknown components get the exception Storm declares, with a
message, never an internal error.
"""
# test-case-name: tests.test_hostile_ids

import uuid

import pytest

from nimbus_process import zookeeper_options
from pynimbus.generated.storm.ttypes import (
    Bolt, ComponentCommon, GlobalStreamId, Grouping, InvalidTopologyException,
    NotAliveException, NullStruct, SpoutSpec, StormTopology, StreamInfo)
from test_nimbus_scenarios import SHELL
from test_nimbus_scenarios import Cluster as ScenarioCluster
from test_nimbus_scenarios import made_clusters

FORGED_IDS = ["a/b", "../../etc", "x\x00y", "..", ".", "", "wc-1-1/../../x"]


class ZooKeeperCluster(ScenarioCluster):
    """The scenario cluster, its state on the session's real ZooKeeper under a root of its own."""

    zookeeper = None  # set by the fixture

    def __init__(self, tmp_path, **kwargs):
        conf = self.zookeeper.storm_conf()
        options = zookeeper_options(conf["storm.zookeeper.servers"], conf["storm.zookeeper.port"],
                                    "/hostile-ids-%s" % uuid.uuid4().hex)
        super().__init__(tmp_path, options=options + list(kwargs.pop("options", ())), **kwargs)


@pytest.fixture
def make_cluster(tmp_path, zookeeper_server):
    cluster_class = type("Cluster", (ZooKeeperCluster,), {"zookeeper": zookeeper_server})
    yield from made_clusters(tmp_path, cluster_class)


def two_components(spout_id, bolt_id):
    return StormTopology(
        spouts={spout_id: SpoutSpec(SHELL, ComponentCommon(
            inputs={}, streams={"default": StreamInfo(["w"], False)}, parallelism_hint=1))},
        bolts={bolt_id: Bolt(SHELL, ComponentCommon(
            inputs={GlobalStreamId(spout_id, "default"): Grouping(shuffle=NullStruct())},
            streams={}, parallelism_hint=1))},
        state_spouts={})


def submit(cluster, name, topology):
    cluster.submit(name, {"topology.workers": 1}, topology)
    cluster.assignment(name)
    return cluster.storm_id(name)


@pytest.mark.zookeeper
def test_dependency_keys_that_no_blob_can_have_are_refused_at_submit(make_cluster):
    """A topology whose dependency_jars or dependency_artifacts names an invalid blob key is
    refused with InvalidTopologyException naming the key, and nothing is stored."""
    cluster = make_cluster()
    for field in ("dependency_jars", "dependency_artifacts"):
        topology = two_components("s", "b")
        setattr(topology, field, ["ok-dep.jar", "../../etc/passwd"])
        with pytest.raises(InvalidTopologyException) as refused:
            cluster.submit("deps", {}, topology)
        assert field in refused.value.msg and "../../etc/passwd" in refused.value.msg
        assert cluster.state.active_storms() == []
        assert cluster.call("listBlobs", session="").keys == []


@pytest.mark.zookeeper
@pytest.mark.parametrize("component_id", ["", ".", ".."])
def test_components_no_path_segment_can_hold_are_served(make_cluster, component_id):
    """A topology with such a component id answers getTopologyInfo and both pages; the
    component's errors are read from where Storm's workers write them."""
    cluster = make_cluster()
    storm_id = submit(cluster, "odd", two_components(component_id, "b"))
    info = cluster.call("getTopologyInfo", id=storm_id)
    assert info.errors[component_id] == [] and info.errors["b"] == []
    cluster.state.report_error(storm_id, component_id, "host-a", 6700, "boom")
    cluster.state.report_error(storm_id, "b", "host-a", 6700, "bang")

    def errors():
        info = cluster.call("getTopologyInfo", id=storm_id)
        return ([e.error for e in info.errors[component_id]],
                [e.error for e in info.errors["b"]])
    # another process's writes reach nimbus's read cache after a watch round trip
    cluster.wait_for(lambda: errors() == (["boom"], ["bang"]), "both errors in getTopologyInfo")
    page = cluster.call("getTopologyPageInfo", id=storm_id, window=":all-time",
                        is_include_sys=False)
    assert component_id in page.id_to_spout_agg_stats
    component_page = cluster.call("getComponentPageInfo", topology_id=storm_id,
                                  component_id=component_id, window=":all-time",
                                  is_include_sys=False)
    assert [e.error for e in component_page.errors] == ["boom"]


@pytest.mark.zookeeper
def test_the_empty_component_errors_are_where_storm_stores_them(make_cluster):
    """Storm's error path for "" normalizes to the topology's errors root: its errors are
    ``e`` nodes there and its last error is ``-last-error``; other components' are apart."""
    cluster = make_cluster()
    storm_id = submit(cluster, "empty", two_components("", "b"))
    cluster.state.report_error(storm_id, "b", "host-a", 6700, "bang")
    for i in range(12):
        cluster.state.report_error(storm_id, "", "host-a", 6700, "boom %d" % i)
    root = "/errors/" + storm_id
    children = cluster.state.backend.get_children(root)
    assert "b" in children and "b-last-error" in children and "-last-error" in children
    assert len([c for c in children if c.startswith("e")]) == 10  # ten kept, as Storm

    def errors():
        info = cluster.call("getTopologyInfo", id=storm_id)
        # the same second: Storm's order is then ZooKeeper's child order
        return (sorted(e.error for e in info.errors[""]),
                [e.error for e in info.errors["b"]])
    # another process's writes reach nimbus's read cache after a watch round trip
    cluster.wait_for(lambda: errors() == (sorted("boom %d" % i for i in range(2, 12)), ["bang"]),
                     "the errors in getTopologyInfo")


@pytest.mark.zookeeper
@pytest.mark.parametrize("method", ["getTopologyInfo", "getTopologySummary", "getTopology",
                                    "getTopologyConf", "getUserTopology",
                                    "getTopologyPageInfo"])
def test_forged_topology_ids_are_not_alive(make_cluster, method):
    """Forged ids get NotAliveException naming the id (Storm's message for an unknown id),
    never an internal error."""
    cluster = make_cluster()
    submit(cluster, "wc", two_components("s", "b"))
    for forged in FORGED_IDS:
        kwargs = {"id": forged}
        if method == "getTopologyPageInfo":
            kwargs.update(window=":all-time", is_include_sys=False)
        with pytest.raises(NotAliveException) as refused:
            cluster.call(method, **kwargs)
        expected = forged + " is not alive" if method == "getTopologySummary" else forged
        assert refused.value.msg == expected, method


@pytest.mark.zookeeper
def test_forged_users_get_an_empty_topology_history(make_cluster):
    """getTopologyHistory with a user no topology has (``/``, NUL) lists nothing."""
    cluster = make_cluster()
    submit(cluster, "wc", two_components("s", "b"))
    for forged in ("a/b", "x\x00y", "../.."):
        assert cluster.call("getTopologyHistory", user=forged).topo_ids == []


@pytest.mark.zookeeper
def test_unknown_component_page_is_not_alive_with_a_message(make_cluster):
    """getComponentPageInfo of a component the topology does not have (or a forged one) gets
    NotAliveException naming the component and the topology."""
    cluster = make_cluster()
    storm_id = submit(cluster, "wc", two_components("s", "b"))
    for component in ("nope", "a/b", "x\x00y", ""):
        with pytest.raises(NotAliveException) as refused:
            cluster.call("getComponentPageInfo", topology_id=storm_id, component_id=component,
                         window=":all-time", is_include_sys=False)
        assert repr(component)[1:-1] in refused.value.msg and storm_id in refused.value.msg
