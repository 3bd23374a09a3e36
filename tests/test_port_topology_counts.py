"""Counts a client chooses: Storm's validators per component, and the cap on a topology's tasks
(conf.validate_component_counts, normalize_topology, tasks.num_storm_tasks and
tasks.validate_num_tasks; issue 8, finding 2).  The same cases end to end, under a memory cap,
are in test_topology_counts.py."""
# test-case-name: tests.test_port_topology_counts

import json

import pytest

from pynimbus.clojure_port import tasks
from pynimbus.clojure_port.conf_validation import validate_component_counts, validate_topology_conf
from pynimbus.clojure_port.normalize import normalize_topology, validate_component_confs
from pynimbus.clojure_port.system_topology import system_topology
from pynimbus.common.config import default_config
from pynimbus.generated.storm.ttypes import (
    Bolt, ComponentCommon, ComponentObject, GlobalStreamId, Grouping, InvalidTopologyException,
    NullStruct, SpoutSpec, StormTopology, StreamInfo)

OBJ = ComponentObject(serialized_java=b"\x01")
BOTH = pytest.mark.parametrize("compat", ["1.x", "2.x"])
NOT_INT32 = "must be an Integer within type range"


def words(hint=1, words_conf=None, count_hint=1):
    """Spout ``words`` (own conf ``words_conf``) and bolt ``count`` reading it."""
    return StormTopology(
        spouts={"words": SpoutSpec(spout_object=OBJ, common=ComponentCommon(
            inputs={}, streams={"default": StreamInfo(["word"], False)},
            parallelism_hint=hint,
            json_conf=None if words_conf is None else json.dumps(words_conf)))},
        bolts={"count": Bolt(bolt_object=OBJ, common=ComponentCommon(
            inputs={GlobalStreamId("words", "default"): Grouping(shuffle=NullStruct())},
            streams={}, parallelism_hint=count_hint))},
        state_spouts={})


def total_conf(compat, **topology_conf):
    conf = default_config(compat)
    conf.update(topology_conf)
    return conf


def system_of(topology, compat, **topology_conf):
    conf = total_conf(compat, **topology_conf)
    return system_topology(conf, normalize_topology(conf, topology, compat), compat)


COUNT_CONSTANTS = [("topology.workers", "TOPOLOGY_WORKERS"), ("topology.tasks", "TOPOLOGY_TASKS"),
                   ("topology.acker.executors", "TOPOLOGY_ACKER_EXECUTORS"),
                   ("topology.eventlogger.executors", "TOPOLOGY_EVENTLOGGER_EXECUTORS"),
                   ("topology.max.task.parallelism", "TOPOLOGY_MAX_TASK_PARALLELISM")]


@BOTH
@pytest.mark.parametrize("key, constant", COUNT_CONSTANTS)
def test_every_topology_count_past_int32_is_refused(compat, key, constant):
    """Each count of the topology conf is @isInteger in 1.2.4 and 2.8.8: 2**31 is refused."""
    with pytest.raises(InvalidTopologyException) as e:
        validate_topology_conf({key: 2 ** 31}, compat)
    assert e.value.msg == "Field %s %s." % (constant, NOT_INT32)


# -- Storm's validators on a component's own counts -----------------------------------------

@BOTH
@pytest.mark.parametrize("key, constant", [("topology.tasks", "TOPOLOGY_TASKS"), (
    "topology.max.task.parallelism", "TOPOLOGY_MAX_TASK_PARALLELISM")])
def test_component_count_past_int32_is_refused_naming_component_and_key(compat, key, constant):
    """2**31 in a component's conf fails isInteger, with the component's id before Storm's
    message."""
    with pytest.raises(InvalidTopologyException) as e:
        validate_component_counts("words", {key: 2 ** 31}, compat)
    assert e.value.msg == "Component words: Field %s %s." % (constant, NOT_INT32)


@BOTH
@pytest.mark.parametrize("conf, message", [
    ({"topology.tasks": -1}, "Field TOPOLOGY_TASKS must be a Positive Number"),
    ({"topology.max.task.parallelism": 0},
     "Field TOPOLOGY_MAX_TASK_PARALLELISM must be a Positive Number"),
    ({"topology.tasks": True}, "Field TOPOLOGY_TASKS " + NOT_INT32),
])
def test_component_count_outside_storms_range_is_refused(compat, conf, message):
    """A negative task count, a zero cap or a non-number fail the key's validators."""
    with pytest.raises(InvalidTopologyException, match="Component words: " + message):
        validate_component_counts("words", conf, compat)


@BOTH
def test_component_counts_storm_accepts_pass(compat):
    """0 tasks, int32's maximum and keys that are not counts are left alone (one past
    int32's maximum is not)."""
    assert validate_component_counts(
        "words", {"topology.tasks": 0, "topology.workers": 2 ** 40,
                  "topology.max.task.parallelism": 2 ** 31 - 1}, compat) is None
    with pytest.raises(InvalidTopologyException):
        validate_component_counts("words", {"topology.max.task.parallelism": 2 ** 31}, compat)


def test_2x_reads_a_numeric_string_as_getint_does():
    """2.x: "5" is the count 5 (ObjectReader.getInt); "2147483648" and 5.0 getInt refuses."""
    validate_component_counts("words", {"topology.tasks": "5"}, "2.x")
    with pytest.raises(InvalidTopologyException, match='Component words: For input string'):
        validate_component_counts("words", {"topology.tasks": "2147483648"}, "2.x")
    with pytest.raises(InvalidTopologyException, match="Component words: Don.t know how"):
        validate_component_counts("words", {"topology.tasks": 5.0}, "2.x")


def test_1x_takes_an_integral_double_as_storms_isinteger_does():
    """1.x: 5.0 passes isInteger; a numeric string does not."""
    validate_component_counts("words", {"topology.tasks": 5.0}, "1.x")
    with pytest.raises(InvalidTopologyException, match=NOT_INT32):
        validate_component_counts("words", {"topology.tasks": "5"}, "1.x")


@BOTH
def test_every_component_conf_is_checked_naming_the_component(compat):
    """validate_component_confs finds the bad count in the bolt's conf as in the spout's."""
    validate_component_confs(words(words_conf={"topology.tasks": 7}), compat)
    bad = words()
    bad.bolts["count"].common.json_conf = json.dumps({"topology.max.task.parallelism": -2})
    with pytest.raises(InvalidTopologyException,
                       match="Component count: .*TOPOLOGY_MAX_TASK_PARALLELISM"):
        validate_component_confs(bad, compat)


# -- the cap on a topology's tasks ----------------------------------------------------------

@BOTH
def test_num_storm_tasks_counts_what_storm_task_info_hands_out(compat):
    """User, acker, event logger and metrics consumer tasks, without listing them."""
    conf = total_conf(compat, **{
        "topology.workers": 3, "topology.eventlogger.executors": None,
        "topology.metrics.consumer.register": [
            {"class": "org.example.Consumer", "parallelism.hint": 2}]})
    user = normalize_topology(conf, words(hint=4, words_conf={"topology.tasks": 6}), compat)
    system = system_topology(conf, user, compat)
    assert tasks.num_storm_tasks(system) == len(tasks.storm_task_info(user, conf, compat))
    # words 6, count 1, __acker and __eventlogger one per worker, the consumer 2
    assert tasks.num_storm_tasks(system) == 6 + 1 + 3 + 3 + 2


@BOTH
def test_a_topology_at_the_cap_is_accepted_one_more_task_is_refused(compat):
    """words 8 + count 1 + __acker 1 = 10 tasks: accepted under a cap of 10, refused under 9
    with a message naming the setting."""
    system = system_of(words(hint=8), compat, **{"topology.eventlogger.executors": 0})
    tasks.validate_num_tasks(system, {tasks.MAX_TASKS_PER_TOPOLOGY: 10})
    with pytest.raises(InvalidTopologyException) as e:
        tasks.validate_num_tasks(system, {tasks.MAX_TASKS_PER_TOPOLOGY: 9})
    assert e.value.msg == ("Failed to submit topology. Topology requests 10 tasks, more than "
                           "the 9 allowed per topology (pynimbus.topology.max.tasks).")


def test_no_cap_when_the_setting_is_none():
    """``pynimbus.topology.max.tasks: null`` turns the cap off (a cap of a million refuses
    the same topology)."""
    system = system_of(words(hint=10 ** 6), "1.x")
    assert tasks.validate_num_tasks(system, {tasks.MAX_TASKS_PER_TOPOLOGY: None}) is None
    with pytest.raises(InvalidTopologyException):
        tasks.validate_num_tasks(system, {tasks.MAX_TASKS_PER_TOPOLOGY: 10 ** 6})


@BOTH
@pytest.mark.parametrize("case, topology, conf", [
    ("workers size the ackers and event loggers", words(), {"topology.workers": 10 ** 9}),
    ("ackers", words(), {"topology.acker.executors": 10 ** 9}),
    ("event loggers", words(), {"topology.eventlogger.executors": 10 ** 9}),
    ("a hint of 10**6", words(hint=10 ** 6), {}),
    ("a hint of 10**9", words(count_hint=10 ** 9), {}),
    ("a component's tasks", words(words_conf={"topology.tasks": 2 ** 31 - 1}), {}),
    ("a metrics consumer", words(), {"topology.metrics.consumer.register": [
        {"class": "org.example.Consumer", "parallelism.hint": 10 ** 9}]}),
])
def test_every_client_chosen_count_is_capped_by_default(compat, case, topology, conf):
    """Each way a client sizes a topology is refused under the default cap (100,000 tasks),
    counted from the numbers alone (listing 10**9 tasks would not finish)."""
    with pytest.raises(InvalidTopologyException, match=r"pynimbus\.topology\.max\.tasks"):
        tasks.validate_num_tasks(system_of(topology, compat, **conf), default_config(compat))
