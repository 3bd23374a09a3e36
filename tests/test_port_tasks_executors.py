"""Task ids and executors of a topology (tasks.storm_task_info, executors.*)."""
# test-case-name: tests.test_port_tasks_executors

import pytest

from pynimbus.clojure_port import executors, tasks
from pynimbus.clojure_port.normalize import normalize_topology
from pynimbus.clojure_port.system_topology import component_executors, system_topology
from pynimbus.common.config import default_config
from pynimbus.generated.storm.ttypes import (
    Bolt, ComponentCommon, ComponentObject, GlobalStreamId, Grouping, NullStruct, SpoutSpec,
    StormTopology, StreamInfo)

OBJ = ComponentObject(serialized_java=b"\x01")


def spout(p=None, json_conf=None):
    return SpoutSpec(spout_object=OBJ, common=ComponentCommon(
        inputs={}, streams={"default": StreamInfo(["word"], False)}, parallelism_hint=p,
        json_conf=json_conf))


def bolt(source, p=None, json_conf=None):
    return Bolt(bolt_object=OBJ, common=ComponentCommon(
        inputs={GlobalStreamId(source, "default"): Grouping(shuffle=NullStruct())},
        streams={"default": StreamInfo(["word"], False)}, parallelism_hint=p,
        json_conf=json_conf))


def submitted(topology, compat="1.x", **topology_conf):
    """(normalized user topology, total conf) as a submission would store them."""
    total = default_config()
    total.update(topology_conf)
    return normalize_topology(total, topology, compat), total


def count_by_component(task_info):
    counts = {}
    for component in task_info.values():
        counts[component] = counts.get(component, 0) + 1
    return counts


@pytest.mark.parametrize("compat", ["1.x", "2.x"])
def test_worked_example_gives_acker_then_count_then_words(compat):
    """Spout words p2, bolt count p3, 2 workers: __acker 1-2, count 3-5, words 6-7."""
    user, conf = submitted(StormTopology(spouts={"words": spout(2)},
                                         bolts={"count": bolt("words", 3)}, state_spouts={}),
                           compat, **{"topology.workers": 2})
    assert tasks.storm_task_info(user, conf, compat) == {
        1: "__acker", 2: "__acker", 3: "count", 4: "count", 5: "count", 6: "words", 7: "words"}


def test_ids_sort_by_utf16_code_units_so_dollar_digits_and_capitals_come_first():
    """Components sort as Java strings: $coord, 1, Upper, __acker, lower-case ids."""
    user, conf = submitted(StormTopology(
        spouts={"$coord": spout(1), "zeta": spout(1)},
        bolts={"1": bolt("zeta", 1), "Upper": bolt("zeta", 1), "alpha": bolt("zeta", 1)},
        state_spouts={}), **{"topology.workers": 1})
    info = tasks.storm_task_info(user, conf)
    assert [info[t] for t in sorted(info)] == ["$coord", "1", "Upper", "__acker", "alpha", "zeta"]


def test_java_string_order_compares_utf16_code_units():
    """A character beyond U+FFFF sorts by its high surrogate, before U+FFFF itself."""
    ids = ["\uffff", "\U0001f600", "a"]
    assert sorted(ids, key=executors.java_string_order) == ["a", "\U0001f600", "\uffff"]


def test_assignment_task_counts_follow_hints_and_the_max_task_parallelism():
    """nimbus_test test-assignment: a spout of hint 3 capped at max parallelism 1 (a local
    TestPlannerSpout), bolts of hint 4 and unset: 1, 4 and 1 tasks."""
    user, conf = submitted(StormTopology(
        spouts={"1": spout(3, '{"topology.max.task.parallelism":1}')},
        bolts={"2": bolt("1", 4), "3": bolt("2")}, state_spouts={}),
        **{"topology.workers": 4, "topology.acker.executors": 0,
           "topology.eventlogger.executors": 0})
    assert count_by_component(tasks.storm_task_info(user, conf)) == {"1": 1, "2": 4, "3": 1}


def test_assignment_second_topology_task_counts():
    """nimbus_test test-assignment storm2: spout 12, bolts 6, 8 and 4 tasks."""
    user, conf = submitted(StormTopology(
        spouts={"1": spout(12)},
        bolts={"2": bolt("1", 6), "3": bolt("1", 8), "4": bolt("1", 4)}, state_spouts={}),
        **{"topology.workers": 20, "topology.acker.executors": 0,
           "topology.eventlogger.executors": 0})
    assert count_by_component(tasks.storm_task_info(user, conf)) == {
        "1": 12, "2": 6, "3": 8, "4": 4}


def test_zero_tasks_and_explicit_task_counts():
    """nimbus_test test-zero-executor-or-tasks: tasks 0, 2 and 5; the zero-task spout has none."""
    user, conf = submitted(StormTopology(
        spouts={"1": spout(3, '{"topology.max.task.parallelism":1,"topology.tasks":0}')},
        bolts={"2": bolt("1", 1, '{"topology.tasks":2}'), "3": bolt("2", None,
                                                                    '{"topology.tasks":5}')},
        state_spouts={}), **{"topology.workers": 4, "topology.acker.executors": 0,
                             "topology.eventlogger.executors": 0})
    info = tasks.storm_task_info(user, conf)
    assert count_by_component(info) == {"2": 2, "3": 5}
    by_component = executors.compute_executors(
        info, component_executors(system_topology(conf, user)))
    assert by_component == {"2": [(1, 2)], "3": [(3, 7)]}


def test_executor_assignments_distribute_tasks_over_executors():
    """nimbus_test test-executor-assignments: 5 tasks on 3 executors are 2,2,1; 2 on 8 are 1,1."""
    user, conf = submitted(StormTopology(
        spouts={"1": spout(3, '{"topology.tasks":5}')},
        bolts={"2": bolt("1", 8, '{"topology.tasks":2}'), "3": bolt("2", 3)}, state_spouts={}),
        **{"topology.workers": 4, "topology.acker.executors": 0,
           "topology.eventlogger.executors": 0})
    info = tasks.storm_task_info(user, conf)
    by_component = executors.compute_executors(
        info, component_executors(system_topology(conf, user)))
    sizes = {c: [len(executors.executor_tasks(e)) for e in es] for c, es in by_component.items()}
    assert sizes == {"1": [2, 2, 1], "2": [1, 1], "3": [1, 1, 1]}


def test_over_parallelism_keeps_every_task():
    """nimbus_test test-over-parallelism-assignment: 21, 9, 2 and 10 tasks."""
    user, conf = submitted(StormTopology(
        spouts={"1": spout(21)},
        bolts={"2": bolt("1", 9), "3": bolt("1", 2), "4": bolt("1", 10)}, state_spouts={}),
        **{"topology.workers": 7, "topology.acker.executors": 0,
           "topology.eventlogger.executors": 0})
    assert count_by_component(tasks.storm_task_info(user, conf)) == {
        "1": 21, "2": 9, "3": 2, "4": 10}


def test_task_info_refuses_a_topology_that_was_not_normalized():
    """A component without topology.tasks cannot be counted (Storm fails there too)."""
    raw = StormTopology(spouts={"s": spout(1)}, bolts={}, state_spouts={})
    with pytest.raises(ValueError):
        tasks.storm_task_info(raw, default_config())


def test_integer_divided_gives_base_and_one_more():
    """7 into 3 is one 3 and two 2s; 6 into 3 is three 2s; 2 into 5 is three 0s and two 1s."""
    assert executors.integer_divided(7, 3) == {2: 2, 3: 1}
    assert executors.integer_divided(6, 3) == {2: 3}
    assert executors.integer_divided(2, 5) == {0: 3, 1: 2}


def test_partition_fixed_puts_bigger_chunks_first():
    """5 items in 2 chunks are 3 then 2; 7 in 3 are 3, 2, 2; 2 in 5 are two singletons."""
    assert executors.partition_fixed(2, [1, 2, 3, 4, 5]) == [[1, 2, 3], [4, 5]]
    assert executors.partition_fixed(3, range(1, 8)) == [[1, 2, 3], [4, 5], [6, 7]]
    assert executors.partition_fixed(5, [1, 2]) == [[1], [2]]


def test_partition_fixed_of_zero_chunks_or_no_items_is_empty():
    """Zero chunks or nothing to cut gives no chunks."""
    assert executors.partition_fixed(0, [1, 2]) == []
    assert executors.partition_fixed(3, []) == []


def test_compute_executors_cuts_each_components_tasks():
    """Tasks 1-5 of a on 2 executors and 6-7 of b on 5 executors; __system with 0 gets none."""
    task_info = {1: "a", 2: "a", 3: "a", 4: "a", 5: "a", 6: "b", 7: "b"}
    assert executors.compute_executors(task_info, {"a": 2, "b": 5, "__system": 0}) == {
        "a": [(1, 3), (4, 5)], "b": [(6, 6), (7, 7)]}


def test_compute_executors_without_executor_counts_is_empty():
    """A StormBase without component executors yields no executors."""
    assert executors.compute_executors({1: "a"}, None) == {}


def test_compute_executors_skips_a_component_without_an_executor_count():
    """A component missing from component_executors has no executors (2.8.8 behaviour)."""
    assert executors.compute_executors({1: "a", 2: "b"}, {"a": 1}) == {"a": [(1, 1)]}


def test_executor_to_component_and_all_executors():
    """Each executor maps to its component; all executors come sorted by task range."""
    by_component = {"b": [(3, 4)], "a": [(1, 1), (2, 2)]}
    assert executors.executor_to_component(by_component) == {
        (1, 1): "a", (2, 2): "a", (3, 4): "b"}
    assert executors.all_executors(by_component) == [(1, 1), (2, 2), (3, 4)]


def test_executor_tasks_lists_the_range_inclusive():
    """Executor [3 5] runs tasks 3, 4 and 5."""
    assert executors.executor_tasks((3, 5)) == [3, 4, 5]
    assert executors.executor_tasks((7, 7)) == [7]
