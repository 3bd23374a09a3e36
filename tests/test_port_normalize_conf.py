"""normalize-conf (clojure_port.normalize_conf): the orders were checked against Storm's own
functions."""
# test-case-name: tests.test_port_normalize_conf

import copy

import pytest

from pynimbus.clojure_port.java_json import to_json
from pynimbus.clojure_port.normalize_conf import normalize_conf
from pynimbus.common.config import default_config
from pynimbus.generated.storm.ttypes import (
    Bolt, ComponentCommon, ComponentObject, SpoutSpec, StormTopology)


OBJ = ComponentObject(serialized_java=b"\x01")


def component(json_conf):
    return ComponentCommon(inputs={}, streams={}, json_conf=json_conf)


def kryo_topology():
    return StormTopology(
        spouts={"s1": SpoutSpec(OBJ, component(
                    '{"topology.kryo.register":["a.B",{"c.D":"c.DSer"}],'
                    '"topology.kryo.decorators":["dec1","dec2"]}')),
                "s2": SpoutSpec(OBJ, component(
                    '{"topology.kryo.register":["e.F"],'
                    '"topology.kryo.decorators":["dec2","dec3"]}'))},
        bolts={"b1": Bolt(OBJ, component(
            '{"topology.kryo.register":[{"g.H":"g.HSer","i.J":"i.JSer"}]}'))},
        state_spouts={})


def empty_topology():
    return StormTopology(spouts={}, bolts={}, state_spouts={})


SUBMITTED = {"topology.kryo.register": ["z.Z", "a.B"], "storm.id": "x-1-2",
             "topology.name": "x"}


def test_1x_merges_kryo_registrations_in_clojure_order():
    """1.x merges every component's registrations and the topology's into one map."""
    ret = normalize_conf(default_config(), dict(SUBMITTED), kryo_topology(), "1.x")
    assert to_json(ret["topology.kryo.register"]) == (
        '{"a.B":null,"c.D":"c.DSer","e.F":null,"g.H":"g.HSer","i.J":"i.JSer","z.Z":null}')
    assert ret["topology.kryo.decorators"] == ["dec1", "dec2", "dec3"]


def test_2x_merges_kryo_registrations_into_a_hashmap():
    """2.x builds the registrations as a HashMap, so they come in hash order."""
    ret = normalize_conf(default_config(), dict(SUBMITTED), kryo_topology(), "2.x")
    assert to_json(ret["topology.kryo.register"]) == (
        '{"g.H":"g.HSer","a.B":null,"i.J":"i.JSer","z.Z":null,"c.D":"c.DSer","e.F":null}')
    assert ret["topology.kryo.decorators"] == ["dec1", "dec2", "dec3"]


def test_empty_kryo_register_is_null_in_1x_and_empty_in_2x():
    """With nothing registered 1.x writes null and 2.x {}; decorators are [] in both."""
    one = normalize_conf(default_config(), {"storm.id": "x"}, empty_topology(), "1.x")
    two = normalize_conf(default_config(), {"storm.id": "x"}, empty_topology(), "2.x")
    assert one["topology.kryo.register"] is None and two["topology.kryo.register"] == {}
    assert one["topology.kryo.decorators"] == [] == two["topology.kryo.decorators"]


def test_1x_falls_back_to_nimbus_lists_when_the_topology_has_none():
    """The topology's own list wins over nimbus's; nimbus's is used when the topology's is
    missing."""
    nimbus = dict(default_config(), **{"topology.kryo.decorators": ["n.Dec"]})
    assert normalize_conf(nimbus, {}, empty_topology(), "1.x")[
        "topology.kryo.decorators"] == ["n.Dec"]
    assert normalize_conf(nimbus, {"topology.kryo.decorators": ["t.Dec"]},
                          empty_topology(), "1.x")["topology.kryo.decorators"] == [
        "t.Dec"]


@pytest.mark.parametrize("compat", ["1.x", "2.x"])
def test_executor_counts_come_from_the_merged_conf(compat):
    """Acker, eventlogger and max parallelism are the topology's values, else nimbus's."""
    ret = normalize_conf(default_config(), {"topology.acker.executors": 3},
                         empty_topology(), compat)
    assert (ret["topology.acker.executors"], ret["topology.eventlogger.executors"],
            ret["topology.max.task.parallelism"]) == (3, 0, None)


@pytest.mark.parametrize("compat", ["1.x", "2.x"])
def test_normalize_conf_leaves_its_arguments_alone(compat):
    """The topology conf, nimbus conf and topology passed in are not modified."""
    nimbus, submitted, topology = default_config(), dict(SUBMITTED), kryo_topology()
    copies = copy.deepcopy((nimbus, submitted, topology))
    normalize_conf(nimbus, submitted, topology, compat)
    assert (nimbus, submitted, topology) == copies


def test_2x_forces_cluster_settings():
    """2.x drops the artifacts dir, ORs netty auth and TLS, and forces cgroup and metrics."""
    nimbus = dict(default_config(), **{
        "storm.messaging.netty.authentication": False,
        "storm.cgroup.hierarchy.dir": "/cg", "worker.metrics": {"m": "c"},
        "storm.metrics.reporters": [{"class": "R"}],
        "storm.topology.metrics.system.reporters": [{"class": "S"}]})
    ret = normalize_conf(nimbus, {
        "storm.workers.artifacts.dir": "/x", "storm.messaging.netty.authentication": True,
        "storm.cgroup.hierarchy.dir": "/mine", "topology.worker.timeout.secs": 900},
        empty_topology(), "2.x")
    assert "storm.workers.artifacts.dir" not in ret
    assert ret["storm.messaging.netty.authentication"] is True
    assert ret["topology.worker.nimbus.thrift.client.use.tls"] is False
    assert ret["nimbus.thrift.client.use.tls"] is False
    assert ret["storm.cgroup.hierarchy.dir"] == "/cg"
    assert ret["worker.metrics"] == {"m": "c"}
    assert ret["topology.metrics.reporters"] == [{"class": "R"}, {"class": "S"}]
    assert ret["topology.worker.timeout.secs"] == 600
    assert nimbus["storm.metrics.reporters"] == [{"class": "R"}]


def test_1x_adds_none_of_the_2x_cluster_settings():
    """1.x keeps the artifacts dir and adds no TLS or cgroup keys."""
    ret = normalize_conf(default_config(), {"storm.workers.artifacts.dir": "/x"},
                         empty_topology(), "1.x")
    assert ret["storm.workers.artifacts.dir"] == "/x"
    assert "nimbus.thrift.client.use.tls" not in ret
