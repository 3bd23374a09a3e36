"""The system topology Storm builds around a user topology (clojure_port.system_topology).

Expected ids, streams, parallelism, json_conf strings and messages were checked against
Storm 1.2.4's common.clj and 2.8.8's StormCommon run on the same topologies.
"""
# test-case-name: tests.test_port_system_topology

import copy

import pytest

from pynimbus.clojure_port import java_serialized
from pynimbus.clojure_port import system_topology as st
from pynimbus.clojure_port.normalize import normalize_topology
from pynimbus.common.config import default_config
from pynimbus.generated.storm.ttypes import (
    Bolt, ComponentCommon, ComponentObject, GlobalStreamId, Grouping, InvalidTopologyException,
    NullStruct, SpoutSpec, StateSpoutSpec, StormTopology, StreamInfo)

OBJ = ComponentObject(serialized_java=b"\x01")


def common(p=None, json_conf=None, streams=None, inputs=None):
    return ComponentCommon(inputs=inputs or {}, streams=streams or {}, parallelism_hint=p,
                           json_conf=json_conf)


def spout(p=None, json_conf=None, streams=None, inputs=None):
    return SpoutSpec(spout_object=OBJ, common=common(p, json_conf, streams, inputs))


def bolt(p=None, json_conf=None, streams=None, inputs=None):
    return Bolt(bolt_object=OBJ, common=common(p, json_conf, streams, inputs))


def word_count():
    return StormTopology(
        spouts={"words": spout(2, streams={"default": StreamInfo(["word"], False)})},
        bolts={"count": bolt(3, streams={"default": StreamInfo(["word", "count"], False)},
                             inputs={GlobalStreamId("words", "default"):
                                     Grouping(fields=["word"])})},
        state_spouts={})


def total_conf(**overrides):
    conf = default_config()
    conf.update(overrides)
    return conf


def built(topology, compat, **overrides):
    conf = total_conf(**overrides)
    return st.system_topology(conf, normalize_topology(conf, topology, compat), compat)


def streams_of(component):
    return {sid: (list(info.output_fields), bool(info.direct))
            for sid, info in component.common.streams.items()}


def inputs_of(component):
    ret = {}
    for gsid, grouping in component.common.inputs.items():
        kind = ("fields", tuple(grouping.fields)) if grouping.fields is not None else (
            "shuffle" if grouping.shuffle is not None else
            "direct" if grouping.direct is not None else "?")
        ret[(gsid.componentId, gsid.streamId)] = kind
    return ret


@pytest.mark.parametrize("compat", ["1.x", "2.x"])
def test_word_count_gets_acker_and_system_components(compat):
    """Storm adds exactly __acker and __system to a plain topology with default conf."""
    system = built(word_count(), compat, **{"topology.workers": 2})
    assert sorted(st.all_components(system)) == ["__acker", "__system", "count", "words"]


@pytest.mark.parametrize("compat", ["1.x", "2.x"])
def test_acker_has_one_executor_per_worker_and_the_timeout_as_tick(compat):
    """With acker executors unset, __acker gets topology.workers executors and tasks, and ticks
    at the message timeout."""
    acker = st.all_components(built(word_count(), compat, **{"topology.workers": 2}))["__acker"]
    assert acker.common.parallelism_hint == 2
    assert acker.common.json_conf == '{"topology.tasks":2,"topology.tick.tuple.freq.secs":30}'
    assert streams_of(acker) == {
        "__ack_ack": (["id", "time-delta-ms"], True),
        "__ack_fail": (["id", "time-delta-ms"], True),
        "__ack_reset_timeout": (["id", "time-delta-ms"], True),
        "__metrics": (["task-info", "data-points"], False),
        "__system": (["event"], False)}
    assert inputs_of(acker) == {
        ("words", "__ack_init"): ("fields", ("id",)),
        ("count", "__ack_ack"): ("fields", ("id",)),
        ("count", "__ack_fail"): ("fields", ("id",)),
        ("count", "__ack_reset_timeout"): ("fields", ("id",))}


def test_acker_object_is_the_generations_java_serialization():
    """The acker's object is the real Java serialization of org.apache.storm.daemon.acker (1.x)
    / Acker (2.x), as captured from the real Nimbus."""
    for compat, name in (("1.x", b"org.apache.storm.daemon.acker"),
                         ("2.x", b"org.apache.storm.daemon.Acker")):
        acker = st.all_components(built(word_count(), compat))["__acker"]
        data = acker.bolt_object.serialized_java
        assert data.startswith(java_serialized.JAVA_SERIALIZATION_MAGIC) and name in data


def test_uncaptured_metrics_consumer_gets_a_placeholder():
    """A consumer registration never captured from a real Nimbus gets the placeholder."""
    data = java_serialized.serialized_component(java_serialized.METRICS_CONSUMER, "1.x",
                                                {"class": "Never.Captured"})
    assert java_serialized.is_placeholder(data)


@pytest.mark.parametrize("compat", ["1.x", "2.x"])
def test_spouts_and_bolts_get_the_ack_streams(compat):
    """Spouts get __ack_init and direct inputs from the acker; bolts get the three ack
    streams; every component gets __metrics and __system."""
    components = st.all_components(built(word_count(), compat, **{"topology.workers": 2}))
    words, count = components["words"], components["count"]
    assert streams_of(words) == {
        "default": (["word"], False),
        "__ack_init": (["id", "init-val", "spout-task"], False),
        "__metrics": (["task-info", "data-points"], False),
        "__system": (["event"], False)}
    assert inputs_of(words) == {("__acker", "__ack_ack"): "direct",
                                ("__acker", "__ack_fail"): "direct",
                                ("__acker", "__ack_reset_timeout"): "direct"}
    assert words.common.json_conf == '{"topology.tasks":2,"topology.tick.tuple.freq.secs":30}'
    assert streams_of(count) == {
        "default": (["word", "count"], False),
        "__ack_ack": (["id", "ack-val"], False),
        "__ack_fail": (["id"], False),
        "__ack_reset_timeout": (["id"], False),
        "__metrics": (["task-info", "data-points"], False),
        "__system": (["event"], False)}
    assert count.common.json_conf == '{"topology.tasks":3}'


def test_system_bolt_streams_differ_by_generation():
    """__system has p 0, 0 tasks, and __credentials (1.x) or __flush (2.x)."""
    one = st.all_components(built(word_count(), "1.x"))["__system"]
    two = st.all_components(built(word_count(), "2.x"))["__system"]
    for system in (one, two):
        assert system.common.parallelism_hint == 0
        assert system.common.json_conf == '{"topology.tasks":0}'
        assert system.common.inputs == {}
    assert streams_of(one) == {"__tick": (["rate_secs"], False),
                               "__metrics_tick": (["interval"], False),
                               "__credentials": (["creds"], False),
                               "__metrics": (["task-info", "data-points"], False),
                               "__system": (["event"], False)}
    assert streams_of(two) == {"__tick": (["rate_secs"], False),
                               "__flush": ([], False),
                               "__metrics_tick": (["interval"], False),
                               "__metrics": (["task-info", "data-points"], False),
                               "__system": (["event"], False)}


@pytest.mark.parametrize("compat", ["1.x", "2.x"])
def test_acker_with_zero_executors_is_still_added(compat):
    """topology.acker.executors 0 still adds __acker, with 0 executors and tasks."""
    acker = st.all_components(built(word_count(), compat, **{
        "topology.acker.executors": 0}))["__acker"]
    assert acker.common.parallelism_hint == 0
    assert acker.common.json_conf == '{"topology.tasks":0,"topology.tick.tuple.freq.secs":30}'


@pytest.mark.parametrize("compat", ["1.x", "2.x"])
def test_eventlogger_is_added_when_its_executors_are_null(compat):
    """Eventlogger executors null means one per worker, fed by every spout and bolt, and
    every component present gets the __eventlog stream."""
    system = built(word_count(), compat, **{"topology.workers": 3,
                                            "topology.eventlogger.executors": None})
    components = st.all_components(system)
    logger = components["__eventlogger"]
    assert logger.common.parallelism_hint == 3
    assert logger.common.json_conf == '{"topology.tasks":3,"topology.tick.tuple.freq.secs":30}'
    assert inputs_of(logger) == {(c, "__eventlog"): ("fields", ("component-id",))
                                 for c in ("words", "count", "__acker")}
    assert streams_of(components["words"])["__eventlog"] == (
        ["component-id", "message-id", "ts", "values"], False)
    assert "__eventlog" not in streams_of(components["__system"])


@pytest.mark.parametrize("compat", ["1.x", "2.x"])
def test_no_eventlogger_by_default(compat):
    """The default topology.eventlogger.executors of 0 adds no __eventlogger."""
    assert "__eventlogger" not in st.all_components(built(word_count(), compat))


def test_add_eventlogger_in_2x_adds_nothing_for_zero_executors():
    """2.x addEventLogger returns early for 0 executors; 1.x add-eventlogger! adds one of 0."""
    conf = total_conf(**{"topology.eventlogger.executors": 0})
    assert "__eventlogger" not in st.add_eventlogger(conf, word_count(), "2.x").bolts
    assert st.add_eventlogger(conf, word_count(), "1.x").bolts[
        "__eventlogger"].common.parallelism_hint == 0


@pytest.mark.parametrize("compat,ids", [
    ("1.x", ["__metricsorg.x.C", "__metricsorg.x.C#2", "__metricsorg.y.D"]),
    ("2.x", ["__metrics_org.x.C", "__metrics_org.x.C#2", "__metrics_org.y.D"])])
def test_metrics_consumers_are_numbered_per_class(compat, ids):
    """Consumer ids are the prefix plus the class, with #2 for a repeated class."""
    register = [{"class": "org.x.C", "parallelism.hint": 2}, {"class": "org.x.C"},
                {"class": "org.y.D", "argument": "a/b"}]
    system = built(word_count(), compat, **{"topology.metrics.consumer.register": register})
    components = st.all_components(system)
    assert [c for c in sorted(components) if c.startswith("__metrics")] == ids
    first = components[ids[0]]
    assert first.common.parallelism_hint == 2
    assert first.common.json_conf == '{"topology.tasks":2}'
    assert components[ids[1]].common.parallelism_hint == 1
    assert inputs_of(first) == {(c, "__metrics"): "shuffle"
                                for c in ("words", "count", "__acker", "__system")}
    assert streams_of(first) == {"__metrics": (["task-info", "data-points"], False),
                                 "__system": (["event"], False)}


def test_spout_conf_keeps_storms_key_order_past_eight_keys():
    """A spout conf of 10 keys is written in Clojure hash order (1.x) / HashMap order (2.x)."""
    conf = ('{"a":1,"b":2,"c":3,"d":4,"e":5,"f":6,"g":7,"zz":"x/y",'
            '"topology.kryo.register":["k1",{"k2":"s2"}]}')
    topology = StormTopology(spouts={"s1": spout(2, conf, {"default": StreamInfo(["w"], False)})},
                             bolts={}, state_spouts={})
    one = st.all_components(built(topology, "1.x"))["s1"]
    two = st.all_components(built(topology, "2.x"))["s1"]
    assert one.common.json_conf == (
        '{"d":4,"f":6,"e":5,"topology.tasks":2,"a":1,"b":2,'
        '"topology.tick.tuple.freq.secs":30,"zz":"x\\/y","g":7,'
        '"topology.kryo.register":["k1",{"k2":"s2"}],"c":3}')
    assert two.common.json_conf == (
        '{"zz":"x\\/y","a":1,"b":2,"c":3,"d":4,"e":5,"f":6,'
        '"topology.kryo.register":["k1",{"k2":"s2"}],"g":7,"topology.tasks":2,'
        '"topology.tick.tuple.freq.secs":30}')


@pytest.mark.parametrize("compat", ["1.x", "2.x"])
def test_system_topology_leaves_its_argument_alone(compat):
    """Building the system topology does not change the topology passed in."""
    conf = total_conf()
    user = normalize_topology(conf, word_count(), compat)
    before = copy.deepcopy(user)
    st.system_topology(conf, user, compat)
    assert user == before


def test_each_step_returns_a_new_topology():
    """add_acker, add_system_components and the stream steps return copies."""
    conf = total_conf()
    topology = word_count()
    before = copy.deepcopy(topology)
    for result in (st.add_acker(conf, topology), st.add_metric_components(conf, topology),
                   st.add_system_components(conf, topology), st.add_metric_streams(topology),
                   st.add_system_streams(topology)):
        assert result is not topology
    assert topology == before
    assert "__metrics" in st.add_metric_streams(
        st.add_system_components(conf, topology)).bolts["__system"].common.streams


def _error(topology, compat, **conf):
    with pytest.raises(InvalidTopologyException) as info:
        built(topology, compat, **conf)
    return info.value.msg


def test_system_component_ids_are_refused():
    """A component id starting with __ is refused; 2.x ends the message with a full stop."""
    topology = StormTopology(spouts={"__x": spout()}, bolts={}, state_spouts={})
    assert _error(topology, "1.x") == "__x is not a valid component id"
    assert _error(topology, "2.x") == "__x is not a valid component id."


def test_system_stream_ids_are_refused():
    """A declared stream id starting with __ is refused."""
    topology = StormTopology(spouts={"x": spout(streams={"__s": StreamInfo(["a"], False)})},
                             bolts={}, state_spouts={})
    assert _error(topology, "1.x") == "__s is not a valid stream id"
    assert _error(topology, "2.x") == "__s is not a valid stream id."


@pytest.mark.parametrize("compat", ["1.x", "2.x"])
def test_spouts_may_not_declare_inputs(compat):
    """A spout with an input is refused."""
    topology = StormTopology(
        spouts={"x": spout(streams={"default": StreamInfo(["a"], False)},
                           inputs={GlobalStreamId("y", "default"):
                                   Grouping(shuffle=NullStruct())}),
                "y": spout(streams={"default": StreamInfo(["a"], False)})},
        bolts={}, state_spouts={})
    assert _error(topology, compat) == "May not declare inputs for a spout"


@pytest.mark.parametrize("compat", ["1.x", "2.x"])
def test_state_spouts_may_not_declare_inputs(compat):
    """A state spout with an input is refused too."""
    topology = StormTopology(spouts={}, bolts={}, state_spouts={"x": StateSpoutSpec(
        state_spout_object=OBJ,
        common=common(inputs={GlobalStreamId("y", "s"): Grouping(shuffle=NullStruct())}))})
    with pytest.raises(InvalidTopologyException) as info:
        st.validate_basic(topology, compat)
    assert info.value.msg == "May not declare inputs for a spout"


@pytest.mark.parametrize("compat", ["1.x", "2.x"])
def test_tasks_without_executors_are_refused(compat):
    """topology.tasks 2 with parallelism hint 0 is refused."""
    topology = StormTopology(spouts={"x": spout(0, '{"topology.tasks":2}')}, bolts={},
                             state_spouts={})
    assert _error(topology, compat) == (
        "Number of executors must be greater than 0 when number of tasks is greater than 0")


def test_duplicate_ids_are_refused_only_by_2x():
    """2.x refuses an id used by a spout and a bolt; 1.x shadows the bolt, which then fails
    validate-structure because the acker subscribes to its ack streams."""
    topology = StormTopology(
        spouts={"x": spout(2, streams={"default": StreamInfo(["a"], False)})},
        bolts={"x": bolt(3, streams={"default": StreamInfo(["a"], False)})}, state_spouts={})
    assert _error(topology, "2.x") == "Duplicate component ids: [x]"
    assert _error(topology, "1.x") == (
        "Component: [__acker] subscribes from non-existent stream: [__ack_ack] of component [x]")


def _one_input(source, stream, fields):
    return StormTopology(
        spouts={"1": spout(3, streams={"default": StreamInfo(["word"], False),
                                       "other": StreamInfo(["x"], False)})},
        bolts={"2": bolt(4, inputs={GlobalStreamId(source, stream): Grouping(fields=fields)})},
        state_spouts={})


@pytest.mark.parametrize("compat", ["1.x", "2.x"])
def test_subscribing_to_a_missing_component_is_refused(compat):
    """integration_test mk-invalidate-topology-1: bolt 2 reads from component 3."""
    assert _error(_one_input("3", "default", ["word"]), compat) == (
        "Component: [2] subscribes from non-existent component [3]")


@pytest.mark.parametrize("compat", ["1.x", "2.x"])
def test_subscribing_to_a_missing_stream_is_refused(compat):
    """integration_test mk-invalidate-topology-3: bolt 2 reads a stream 1 does not declare."""
    assert _error(_one_input("1", "non-exists-stream", ["word"]), compat) == (
        "Component: [2] subscribes from non-existent stream: [non-exists-stream] of component [1]")


def test_grouping_on_missing_fields_is_refused_in_each_generations_words():
    """1.x prints the missing fields as a Clojure set, 2.x as a Java list after '+ with'."""
    topology = _one_input("1", "default", ["z", "word", "a", "q"])
    assert _error(topology, "1.x") == (
        'Component: [2] subscribes from stream: [default] of component [1] with non-existent '
        'fields: #{"z" "q" "a"}')
    assert _error(topology, "2.x") == (
        "Component: [2] subscribes from stream: [default] of component [1] + with non-existent "
        "fields: [z, a, q]")


def test_2x_accepts_grouping_fields_of_another_stream_of_the_source():
    """2.x checks fields against every stream of the source, 1.x against that stream only."""
    topology = _one_input("1", "default", ["x"])
    built(topology, "2.x")
    assert _error(topology, "1.x") == (
        'Component: [2] subscribes from stream: [default] of component [1] with non-existent '
        'fields: #{"x"}')


@pytest.mark.parametrize("compat", ["1.x", "2.x"])
def test_valid_fields_grouping_passes(compat):
    """integration_test mk-validate-topology-1: grouping on an existing field is accepted (a
    missing one is not)."""
    system = built(_one_input("1", "default", ["word"]), compat)
    assert system.bolts["2"].common.inputs[GlobalStreamId("1", "default")].fields == ["word"]
    with pytest.raises(InvalidTopologyException):
        built(_one_input("1", "default", ["nope"]), compat)


def test_component_executors_are_the_parallelism_hints():
    """start-storm's component executors: every system component's hint, unset meaning 1."""
    topology = StormTopology(
        spouts={"words": spout(2, streams={"default": StreamInfo(["word"], False)})},
        bolts={"count": bolt(None, inputs={GlobalStreamId("words", "default"):
                                           Grouping(shuffle=NullStruct())})},
        state_spouts={})
    system = built(topology, "1.x", **{"topology.workers": 2})
    assert st.component_executors(system) == {"words": 2, "count": 1, "__acker": 2,
                                              "__system": 0}


def test_num_start_executors_defaults_to_one():
    """A component without a parallelism hint starts one executor."""
    assert st.num_start_executors(bolt()) == 1
    assert st.num_start_executors(bolt(5)) == 5


def test_all_components_lets_spouts_shadow_bolts_of_the_same_id():
    """all_components merges bolts, spouts, state spouts; a later map wins an id."""
    s = spout(1)
    topology = StormTopology(spouts={"x": s}, bolts={"x": bolt(2), "y": bolt(3)},
                             state_spouts={})
    assert st.all_components(topology) == {"x": s, "y": bolt(3)}


def one_spout(p, tasks=None):
    conf = None if tasks is None else '{"topology.tasks":%d}' % tasks
    return StormTopology(spouts={"1": spout(p, conf)}, bolts={}, state_spouts={})


@pytest.mark.parametrize("compat", ["1.x", "2.x"])
def test_topology_size_within_limits_passes(compat):
    """nimbus_test test-submit-invalid: 5 executors and 8 workers fit limits of 8 and 8 (and
    not limits of 4)."""
    limits = {"nimbus.executors.perTopology": 8, "nimbus.slots.perTopology": 8}
    assert st.validate_topology_size({"topology.workers": 8}, limits, one_spout(5, 5),
                                     compat) is None
    for key in limits:
        with pytest.raises(InvalidTopologyException):
            st.validate_topology_size({"topology.workers": 8}, dict(limits, **{key: 4}),
                                      one_spout(5, 5), compat)


@pytest.mark.parametrize("compat", ["1.x", "2.x"])
def test_too_many_executors_are_refused(compat):
    """nimbus_test test-submit-invalid: 16 executors exceed a limit of 8."""
    limits = {"nimbus.executors.perTopology": 8, "nimbus.slots.perTopology": 8}
    with pytest.raises(InvalidTopologyException) as info:
        st.validate_topology_size({"topology.workers": 3}, limits, one_spout(16, 16), compat)
    assert info.value.msg == (
        "Failed to submit topology. Topology requests more than 8 executors.")


@pytest.mark.parametrize("compat", ["1.x", "2.x"])
def test_too_many_workers_are_refused(compat):
    """nimbus_test test-submit-invalid: 16 workers exceed a limit of 8."""
    limits = {"nimbus.executors.perTopology": 8, "nimbus.slots.perTopology": 8}
    with pytest.raises(InvalidTopologyException) as info:
        st.validate_topology_size({"topology.workers": 16}, limits, one_spout(5, 5), compat)
    assert info.value.msg == "Failed to submit topology. Topology requests more than 8 workers."


def test_size_checks_run_in_each_generations_order():
    """With both limits exceeded 1.x reports executors first, 2.x workers first."""
    limits = {"nimbus.executors.perTopology": 1, "nimbus.slots.perTopology": 1}
    messages = {}
    for compat in ("1.x", "2.x"):
        with pytest.raises(InvalidTopologyException) as info:
            st.validate_topology_size({"topology.workers": 2}, limits, one_spout(2), compat)
        messages[compat] = info.value.msg
    assert messages == {
        "1.x": "Failed to submit topology. Topology requests more than 1 executors.",
        "2.x": "Failed to submit topology. Topology requests more than 1 workers."}


def test_2x_skips_the_workers_limit_under_the_resource_aware_scheduler():
    """Under RAS 2.x does not check nimbus.slots.perTopology (under the default scheduler
    it does)."""
    limits = {"nimbus.slots.perTopology": 1,
              "storm.scheduler": "org.apache.storm.scheduler.resource.ResourceAwareScheduler"}
    assert st.validate_topology_size({"topology.workers": 5}, limits, one_spout(1),
                                     "2.x") is None
    with pytest.raises(InvalidTopologyException):
        st.validate_topology_size({"topology.workers": 5}, {"nimbus.slots.perTopology": 1},
                                  one_spout(1), "2.x")


def test_missing_workers_count_as_one():
    """A conf without topology.workers counts as one worker (1.2.4 would crash)."""
    st.validate_topology_size({}, {"nimbus.slots.perTopology": 1}, one_spout(1), "1.x")
    with pytest.raises(InvalidTopologyException):
        st.validate_topology_size({}, {"nimbus.slots.perTopology": 0}, one_spout(1), "1.x")


def test_metrics_consumer_ids_number_repeats():
    """Three registrations of two classes give C, C#2 and D."""
    conf = {"topology.metrics.consumer.register": [{"class": "C"}, {"class": "C"},
                                                   {"class": "D"}]}
    assert st.metrics_consumer_ids(conf, "1.x") == ["__metricsC", "__metricsC#2", "__metricsD"]
    assert st.metrics_consumer_ids(conf, "2.x") == ["__metrics_C", "__metrics_C#2",
                                                    "__metrics_D"]


def test_has_eventloggers_and_has_ackers():
    """Null or a positive count means present; 0 means absent."""
    assert st.has_eventloggers({"topology.eventlogger.executors": None})
    assert not st.has_eventloggers({"topology.eventlogger.executors": 0})
    assert st.has_ackers({}) and st.has_ackers({"topology.acker.executors": 2})
    assert not st.has_ackers({"topology.acker.executors": 0}, "2.x")


def test_placeholders_name_the_class_and_never_look_like_java_serialization():
    """A placeholder names the Java class (and a consumer's registration) and lacks AC ED."""
    data = java_serialized.placeholder(java_serialized.METRICS_CONSUMER, "2.x",
                                       {"class": "C", "parallelism.hint": 1})
    assert data == (b"pynimbus:java-serialized-placeholder:org.apache.storm.metric."
                    b'MetricsConsumerBolt;{"class":"C","parallelism.hint":1}')
    assert not data.startswith(java_serialized.JAVA_SERIALIZATION_MAGIC)
    assert java_serialized.is_placeholder(data)
    assert not java_serialized.is_placeholder(b"\xac\xed\x00\x05")


def test_registered_golden_bytes_replace_the_placeholder():
    """Bytes captured from a real Nimbus are used once registered; non-Java bytes are refused."""
    golden = b"\xac\xed\x00\x05sr\x00\x1aorg.apache.storm.metric.SystemBolt"
    details = {"class": "Test.Consumer"}
    try:
        java_serialized.register_golden("1.x", java_serialized.METRICS_CONSUMER, golden, details)
        assert java_serialized.serialized_component(
            java_serialized.METRICS_CONSUMER, "1.x", details) == golden
        assert java_serialized.is_placeholder(java_serialized.serialized_component(
            java_serialized.METRICS_CONSUMER, "2.x", details))
    finally:
        java_serialized._GOLDEN.clear()
        java_serialized.load_captured_goldens()
    with pytest.raises(ValueError):
        java_serialized.register_golden("1.x", java_serialized.SYSTEM, b"not java")
