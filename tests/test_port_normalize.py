"""Task counts written into a submitted topology (clojure_port.normalize).

The expected json_conf strings were checked against Storm 1.2.4's normalize-topology and
2.8.8's Nimbus.normalizeTopology run on the same input.
"""
# test-case-name: tests.test_port_normalize

import copy

import pytest

from pynimbus.clojure_port.normalize import component_parallelism, normalize_topology
from pynimbus.common.config import default_config
from pynimbus.generated.storm.ttypes import (
    Bolt, ComponentCommon, ComponentObject, SpoutSpec, StateSpoutSpec, StormTopology)

OBJ = ComponentObject(serialized_java=b"\x01")


def common(p=None, json_conf=None):
    return ComponentCommon(inputs={}, streams={}, parallelism_hint=p, json_conf=json_conf)


def conf(**overrides):
    ret = default_config()
    ret.update(overrides)
    return ret


@pytest.mark.parametrize("compat", ["1.x", "2.x"])
def test_tasks_default_to_the_parallelism_hint(compat):
    """Without topology.tasks anywhere, a component has as many tasks as its hint."""
    assert component_parallelism(conf(), common(3), compat) == 3


@pytest.mark.parametrize("compat", ["1.x", "2.x"])
def test_unset_hint_means_one_task(compat):
    """A component without a parallelism hint has one task."""
    assert component_parallelism(conf(), common(None), compat) == 1


@pytest.mark.parametrize("compat", ["1.x", "2.x"])
def test_component_tasks_beat_the_hint(compat):
    """The component's own topology.tasks wins over its hint, 0 included."""
    assert component_parallelism(conf(), common(3, '{"topology.tasks":5}'), compat) == 5
    assert component_parallelism(conf(), common(3, '{"topology.tasks":0}'), compat) == 0


@pytest.mark.parametrize("compat", ["1.x", "2.x"])
def test_topology_level_tasks_apply_to_components_without_their_own(compat):
    """topology.tasks in the topology conf sets every component lacking its own."""
    total = conf(**{"topology.tasks": 4})
    assert component_parallelism(total, common(1), compat) == 4
    assert component_parallelism(total, common(1, '{"topology.tasks":2}'), compat) == 2


@pytest.mark.parametrize("compat", ["1.x", "2.x"])
def test_max_task_parallelism_caps_the_tasks(compat):
    """topology.max.task.parallelism (topology or component level) caps the task count."""
    assert component_parallelism(conf(**{"topology.max.task.parallelism": 2}), common(5),
                                 compat) == 2
    assert component_parallelism(conf(), common(3, '{"topology.max.task.parallelism":1}'),
                                 compat) == 1


def test_2x_reads_a_numeric_string_and_refuses_a_double():
    """2.x ObjectReader.getInt takes "3" and refuses 2.5 (an internal error in Storm)."""
    assert component_parallelism(conf(), common(1, '{"topology.tasks":"3"}'), "2.x") == 3
    with pytest.raises(ValueError):
        component_parallelism(conf(), common(1, '{"topology.tasks":2.5}'), "2.x")


def test_compat_comes_from_the_conf_when_not_given():
    """Without a compat argument the conf's pynimbus.storm.compat decides: 2.x reads a string
    task count as a number, 1.x copies it as it is."""
    topology = StormTopology(
        spouts={}, bolts={"b": Bolt(OBJ, common(1, '{"topology.tasks":"3"}'))}, state_spouts={})
    one = normalize_topology(conf(**{"pynimbus.storm.compat": "1.x"}), topology)
    two = normalize_topology(conf(**{"pynimbus.storm.compat": "2.x"}), topology)
    assert one.bolts["b"].common.json_conf == '{"topology.tasks":"3"}'
    assert two.bolts["b"].common.json_conf == '{"topology.tasks":3}'


def sample():
    return StormTopology(
        spouts={"s1": SpoutSpec(OBJ, common(2, (
            '{"a":1,"b":2,"c":3,"d":4,"e":5,"f":6,"g":7,"zz":"x/y",'
            '"topology.kryo.register":["k1",{"k2":"s2"}]}'))),
            "$coord": SpoutSpec(OBJ, common(None, '{"topology.tasks":4,"z":1.5,"y":1e10}'))},
        bolts={"Upper": Bolt(OBJ, common(1, '{"topology.max.task.parallelism":1,"a":[1,2]}')),
               "b2": Bolt(OBJ, common(5, '{"topology.tasks":2}')),
               "plain": Bolt(OBJ, common(3))},
        state_spouts={"st": StateSpoutSpec(OBJ, common(2))})


def test_1x_writes_json_conf_as_a_clojure_map():
    """1.x appends topology.tasks (or replaces it in place) and uses hash order past 8 keys;
    doubles print as Java doubles and / is escaped."""
    out = normalize_topology(conf(), sample(), "1.x")
    assert out.spouts["s1"].common.json_conf == (
        '{"d":4,"f":6,"e":5,"topology.tasks":2,"a":1,"b":2,"zz":"x\\/y","g":7,'
        '"topology.kryo.register":["k1",{"k2":"s2"}],"c":3}')
    assert out.spouts["$coord"].common.json_conf == '{"y":1.0E10,"z":1.5,"topology.tasks":4}'
    assert out.bolts["Upper"].common.json_conf == (
        '{"a":[1,2],"topology.max.task.parallelism":1,"topology.tasks":1}')
    assert out.bolts["b2"].common.json_conf == '{"topology.tasks":2}'
    assert out.bolts["plain"].common.json_conf == '{"topology.tasks":3}'
    assert out.state_spouts["st"].common.json_conf == '{"topology.tasks":2}'


def test_2x_writes_json_conf_as_a_java_hashmap():
    """2.x writes the conf in HashMap order with topology.tasks put last."""
    out = normalize_topology(conf(), sample(), "2.x")
    assert out.spouts["s1"].common.json_conf == (
        '{"zz":"x\\/y","a":1,"b":2,"c":3,"d":4,"e":5,"f":6,'
        '"topology.kryo.register":["k1",{"k2":"s2"}],"g":7,"topology.tasks":2}')
    assert out.spouts["$coord"].common.json_conf == '{"y":1.0E10,"z":1.5,"topology.tasks":4}'
    assert out.bolts["Upper"].common.json_conf == (
        '{"topology.tasks":1,"a":[1,2],"topology.max.task.parallelism":1}')


@pytest.mark.parametrize("compat", ["1.x", "2.x"])
def test_normalize_leaves_executors_and_its_argument_alone(compat):
    """Parallelism hints are unchanged and the input topology is not modified."""
    topology = sample()
    before = copy.deepcopy(topology)
    out = normalize_topology(conf(), topology, compat)
    assert topology == before
    assert out is not topology
    assert out.bolts["b2"].common.parallelism_hint == 5
    assert out.spouts["$coord"].common.parallelism_hint is None
