"""Fidelity corner cases of submission, checked on literal data against what the real Nimbus
1.2.4 and 2.8.3 answered (the goldens of tests/compat/reference_topologies.py's fidelity block):
which error is reported first when several parts of a topology are invalid, a spout, a bolt
and a state spout sharing an id, and 1.2.4's lenient reading of component kryo values.
"""

import json

import pytest

from pynimbus.clojure_port import system_topology
from pynimbus.clojure_port.normalize_conf import normalize_conf
from pynimbus.generated.storm.ttypes import (
    Bolt, ComponentCommon, ComponentObject, GlobalStreamId, Grouping, InvalidTopologyException,
    NullStruct, ShellComponent, SpoutSpec, StateSpoutSpec, StormTopology, StreamInfo)

SHELL = ComponentObject(shell=ShellComponent("python", "x.py"))
CONF = {"topology.workers": 1, "topology.acker.executors": None,
        "topology.eventlogger.executors": 0, "topology.message.timeout.secs": 30,
        "topology.metrics.consumer.register": None}


def common(inputs=(), streams=None, conf=None):
    return ComponentCommon(
        inputs={GlobalStreamId(c, s): g for (c, s), g in inputs},
        streams={sid: StreamInfo(list(f), False) for sid, f in (streams or {"default": ["a"]})
                 .items()},
        json_conf=json.dumps(dict({"topology.tasks": 1}, **(conf or {}))))


def shuffle():
    return Grouping(shuffle=NullStruct())


def bolt(inputs=(("src", "default"),), streams=None, grouping=None, conf=None):
    return Bolt(SHELL, common([(i, grouping or shuffle()) for i in inputs], streams, conf))


def spout(conf=None):
    return SpoutSpec(SHELL, common(conf=conf))


def topo(bolts, spouts=None, state_spouts=None):
    return StormTopology(spouts=spouts or {"src": spout()}, bolts=bolts,
                         state_spouts=state_spouts or {})


def first_error(topology, compat, **conf):
    with pytest.raises(InvalidTopologyException) as e:
        system_topology.system_topology(dict(CONF, **conf), topology, compat)
    return e.value.msg


BOTH = pytest.mark.parametrize("compat", ["1.x", "2.x"])


@BOTH
def test_first_missing_source_follows_the_copied_bolts_order(compat):
    """Three bolts subscribing to missing components: both report bolt_k, the first of the
    system topology's bolts map (copied twice, then filled), not the first sent (mid)."""
    t = topo({b: bolt([("nope_" + b, "default")]) for b in ("mid", "bolt_k", "b11")})
    assert first_error(t, compat) == \
        "Component: [bolt_k] subscribes from non-existent component [nope_bolt_k]"


@BOTH
def test_nine_components_stay_an_array_map_in_1x(compat):
    """Five bad bolts and an event logger make 9 components: 1.2.4's persistent array map keeps
    the Java order of the bolts (bolt_d first, where a hash map would give bolt_i), as 2.8.3's
    HashMap also does here."""
    t = topo({"Beta": bolt([("nope_Beta", "default")]),
              "bolt_i": bolt([("src", "nostream_bolt_i")]),
              "bolt_d": bolt(grouping=Grouping(fields=["a", "nofield_bolt_d"])),
              "x1": bolt([("nope_x1", "default")]),
              "b5": bolt([("src", "nostream_b5")])})
    expected = {
        "1.x": 'Component: [bolt_d] subscribes from stream: [default] of component [src] with '
               'non-existent fields: #{"nofield_bolt_d"}',
        "2.x": "Component: [bolt_d] subscribes from stream: [default] of component [src] + with "
               "non-existent fields: [nofield_bolt_d]"}
    assert first_error(t, compat, **{"topology.eventlogger.executors": 1}) == expected[compat]


@BOTH
def test_six_bad_bolts(compat):
    """Six bad bolts: b5 in both (1.x: a hash map's order; 2.x: the copies' order, where a
    single decoded HashMap would put b11 first)."""
    t = topo({b: bolt([("nope_" + b, "default")])
              for b in ("bolt_n", "b5", "b8", "b11", "count", "b19")})
    assert first_error(t, compat) == \
        "Component: [b5] subscribes from non-existent component [nope_b5]"


@BOTH
def test_first_missing_input_follows_the_inputs_hash_order(compat):
    """One bolt with four missing sources sent a, b, c, d: Storm meets nope_c first (the
    GlobalStreamId hash order of the copied inputs map)."""
    t = topo({"b": bolt([("nope_%s" % c, "default") for c in "abcd"])})
    assert first_error(t, compat) == "Component: [b] subscribes from non-existent component " \
                                     "[nope_c]"


@BOTH
def test_first_system_id_follows_the_normalized_copy(compat):
    """validate-basic walks the normalized topology's copy: __count before __x and __b1."""
    stop = "." if compat == "2.x" else ""
    t = topo({cid: bolt() for cid in ("__b1", "__x", "__count")})
    assert first_error(t, compat) == "__count is not a valid component id" + stop
    t = topo({"b": bolt(streams={sid: ["a"] for sid in ("__b1", "__x", "__count")})})
    assert first_error(t, compat) == "__count is not a valid stream id" + stop


@pytest.mark.parametrize("spouts, bolts, state_spouts, expected_1x, expected_2x", [
    (["x"], ["x"], [], "[__ack_ack] of component [x]", "[x]"),
    (["x", "y"], ["y", "x"], [], "[__ack_ack] of component [x]", "[x, y]"),
    (["x"], [], ["x"], "[__ack_init] of component [x]", "[x]"),
    ([], ["x"], ["x"], "[__ack_ack] of component [x]", "[x]"),
])
def test_shared_ids(spouts, bolts, state_spouts, expected_1x, expected_2x):
    """1.2.4 lets the state spout, else the spout, shadow the bolt of the same id, and its
    acker then subscribes to a stream the winner lacks; 2.8.3 lists the repeated ids."""
    t = topo({b: bolt() for b in bolts}, dict({"src": spout()}, **{s: spout() for s in spouts}),
             {s: StateSpoutSpec(SHELL, common()) for s in state_spouts})
    assert first_error(t, "1.x") == \
        "Component: [__acker] subscribes from non-existent stream: " + expected_1x
    assert first_error(t, "2.x") == "Duplicate component ids: " + expected_2x


def normalized_kryo(compat, spout_conf=None, bolt_conf=None):
    kryo_topology = topo({"b": bolt([("s", "default")], conf=bolt_conf)},
                         {"s": spout(conf=spout_conf)})
    conf = normalize_conf(
        {"topology.kryo.register": None, "topology.kryo.decorators": []}, {}, kryo_topology,
        compat)
    return conf["topology.kryo.register"], conf["topology.kryo.decorators"]


@pytest.mark.parametrize("value, registered", [
    ("com.example.A", {c: None for c in "com.example.A"}),
    ({"com.example.A": "com.example.ASer"}, {'["com.example.A" "com.example.ASer"]': None}),
    (["com.example.A", 7, ["com.example.L"]],
     {"com.example.A": None, "7": None, '["com.example.L"]': None}),
])
def test_1x_registers_what_mapcat_makes_of_a_component_value(value, registered):
    """1.2.4 mapcats each component's topology.kryo.register: a string gives its characters,
    a map its entries; entries that are no map become keys as Java prints them."""
    register, decorators = normalized_kryo("1.x", spout_conf={"topology.kryo.register": value})
    assert register == registered
    assert decorators == []


@pytest.mark.parametrize("compat", ["1.x", "2.x"])
def test_kryo_values_storm_fails_on_are_refused_with_their_component(compat):
    """A number (both) or a string of decorators (1.2.4 writes its characters unquoted; 2.8.3
    cannot cast it) is an InvalidTopologyException naming the key and the component."""
    with pytest.raises(InvalidTopologyException, match="topology.kryo.register of component b"):
        normalized_kryo(compat, bolt_conf={"topology.kryo.register": 5})
    with pytest.raises(InvalidTopologyException, match="topology.kryo.decorators"):
        normalized_kryo(compat, bolt_conf={"topology.kryo.decorators": "com.example.Deco"})


@pytest.mark.parametrize("value", ["com.example.A", {"com.example.A": "com.example.ASer"},
                                   ["com.example.A", 7]])
def test_2x_refuses_component_registrations_it_cannot_cast(value):
    """2.8.3 casts the value to a List and each entry to a String or a Map."""
    with pytest.raises(InvalidTopologyException, match="topology.kryo.register of component s"):
        normalized_kryo("2.x", spout_conf={"topology.kryo.register": value})
