"""The pure port of JStorm 2.2.1's placement (``pynimbus.jstorm_port``), without a JVM.

Every expectation below is what JStorm 2.2.1 itself gives on the same case (checked with the
oracle of ``tests/compat/test_jstorm_placement.py``); the committed goldens
(``tests/compat/goldens/jstorm-2.2.1/placements.json``, written by
``scripts/recapture_jstorm_goldens.py`` from the real ``DefaultTopologyScheduler``) are checked
case by case.
"""

import copy
import json
import os

import pytest

import pynimbus.jstorm_port
from jstorm_cases import numbered_tasks
from purity import imported_modules
from pynimbus.jstorm_port.case_json import place_case
from pynimbus.jstorm_port.java_collections import JavaIntSet

GOLDENS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "compat", "goldens",
                       "jstorm-2.2.1", "placements.json")


def _goldens():
    with open(GOLDENS) as f:
        return json.load(f)["cases"]


@pytest.mark.parametrize("golden", _goldens(), ids=lambda g: g["name"])
def test_port_places_as_the_recorded_jstorm(golden):
    assert place_case(golden["case"]) == golden["jstorm"]


def word_count_case(workers=6, supervisors=3):
    """spout (3) -> split (7) -> count (5) and the topology master (task 1, first in id order)
    on ``supervisors`` supervisors of four ports."""
    return {
        "assign_type": 0,
        "storm_conf": {"topology.workers": workers, "topology.acker.executors": 0},
        "topology": {"spouts": {"spout": {"parallelism": 3}},
                     "bolts": {"split": {"parallelism": 7, "inputs": ["spout"]},
                               "count": {"parallelism": 5, "inputs": ["split"]}}},
        "task_to_component": numbered_tasks(
            {"spout": 3, "split": 7, "count": 5, "__topology_master": 1}),
        "topology_master_task_id": 1,
        "supervisors": [{"id": "sup-%d" % i, "hostname": "10.0.0.%d" % i,
                         "ports": [6700, 6701, 6702, 6703]} for i in range(1, supervisors + 1)]}


def slots(placement):
    return [(w["node_id"], w["port"], w["tasks"]) for w in placement]


def after(case, placement, assign_type):
    """The next round's case: ``placement`` is the old assignment, its ports taken."""
    follow = copy.deepcopy(case)
    follow["assign_type"] = assign_type
    follow["old_assignment"] = {"workers": placement}
    for s in follow["supervisors"]:
        s["used_ports"] = [w["port"] for w in placement if w["node_id"] == s["id"]]
    return follow


def test_new_topology_balances_each_component_over_workers_and_supervisors():
    placement = place_case(word_count_case())
    assert slots(placement) == [
        ("sup-1", 6700, [1, 4, 10]), ("sup-1", 6701, [7, 13, 14]),
        ("sup-2", 6700, [5, 11]), ("sup-2", 6701, [3, 9, 16]),
        ("sup-3", 6700, [2, 8, 15]), ("sup-3", 6701, [6, 12])]
    tasks = word_count_case()["task_to_component"]
    for component in ("spout", "split", "count"):
        per_worker = [sum(1 for t in w["tasks"] if tasks[str(t)] == component) for w in placement]
        assert max(per_worker) - min(per_worker) <= 1, component
    assert all(w["mem"] == 2 * 1024 ** 3 and w["cpu"] == 1 for w in placement)


def test_the_first_free_port_is_java_hash_set_order():
    """Ports 6700-6705 iterate 6704, 6705, 6700... in a ``HashSet`` of 16 buckets."""
    case = {"assign_type": 0, "storm_conf": {"topology.workers": 1},
            "topology": {"spouts": {"s": {"parallelism": 1}}, "bolts": {}},
            "task_to_component": {"1": "__topology_master", "2": "s"},
            "topology_master_task_id": 1,
            "supervisors": [{"id": "only", "hostname": "h",
                             "ports": [6700, 6701, 6702, 6703, 6704, 6705]}]}
    assert slots(place_case(case)) == [("only", 6704, [1, 2])]
    assert list(JavaIntSet([6700, 6701, 6702, 6703, 6704, 6705])) == [
        6704, 6705, 6700, 6701, 6702, 6703]


def test_monitor_moves_the_dead_worker_and_keeps_every_other():
    case = word_count_case()
    placement = place_case(case)
    monitor = after(case, placement, 2)
    monitor["dead_tasks"] = [7]  # sup-1:6701 holds 7, 13 and 14
    moved = place_case(monitor)
    assert slots(moved) == [
        ("sup-1", 6700, [1, 4, 10]), ("sup-1", 6702, [7, 13, 14]),
        ("sup-2", 6700, [5, 11]), ("sup-2", 6701, [3, 9, 16]),
        ("sup-3", 6700, [2, 8, 15]), ("sup-3", 6701, [6, 12])]


def test_monitor_with_nothing_dead_is_jstorms_error():
    case = word_count_case()
    assert place_case(after(case, place_case(case), 2)) == {
        "error": "FailedAssignTopologyException",
        "message": "Don't need assign worker, all workers are fine "}


def test_rebalance_keeps_the_old_slots_and_scaling_down_regroups():
    case = word_count_case()
    placement = place_case(case)
    rebalance = after(case, placement, 1)
    assert place_case(rebalance) == placement
    rebalance["storm_conf"]["topology.workers"] = 3
    assert slots(place_case(rebalance)) == [
        ("sup-1", 6700, [1, 4, 7, 10, 13, 14]), ("sup-2", 6701, [3, 6, 9, 12, 16]),
        ("sup-3", 6700, [2, 5, 8, 11, 15])]


def test_too_few_slots_is_jstorms_error():
    """13 workers of 15 tasks: from 10 workers up the topology master gets one more."""
    assert place_case(word_count_case(workers=13)) == {
        "error": "FailedAssignTopologyException",
        "message": "there's no enough worker. allocWorkerNum=14, availableWorkerNum=12"}


def test_task_on_differ_node_without_enough_supervisors_is_jstorms_error():
    case = word_count_case()
    case["topology"]["bolts"]["count"]["conf"] = {"task.on.differ.node": True}
    assert place_case(case) == {
        "error": "FailedAssignTopologyException",
        "message": "there's no enough supervisor for making component: count 's tasks on "
                   "different node"}


def test_task_on_differ_node_puts_each_task_on_its_own_supervisor():
    case = word_count_case(supervisors=3)
    case["topology"]["bolts"]["count"]["parallelism"] = 3
    case["task_to_component"] = numbered_tasks(
        {"spout": 3, "split": 7, "count": 3, "__topology_master": 1})
    case["topology"]["bolts"]["count"]["conf"] = {"task.on.differ.node": True}
    placement = place_case(case)
    count_nodes = [w["node_id"] for w in placement for t in w["tasks"]
                   if case["task_to_component"][str(t)] == "count"]
    assert sorted(count_nodes) == ["sup-1", "sup-2", "sup-3"]


def test_user_defined_worker_is_placed_as_asked():
    case = word_count_case()
    case["storm_conf"]["use.userdefine.assignment"] = [json.dumps(
        {"hostName": "10.0.0.3", "port": "6702",
         "componentToNum": json.dumps({"count": 2, "spout": 1})})]
    placement = place_case(case)
    assert ("sup-3", 6702, [2, 3, 14]) in slots(placement)  # count's first two, spout's first
    assert len(placement) == 6


def test_topology_master_gets_a_worker_of_its_own_from_ten_workers():
    case = word_count_case(workers=10)
    case["topology"]["bolts"]["split"]["parallelism"] = 12
    case["task_to_component"] = numbered_tasks(
        {"spout": 3, "split": 12, "count": 5, "__topology_master": 1})
    case["storm_conf"]["topology.master.worker.memory.size"] = 512 * 1024 ** 2
    placement = place_case(case)
    assert len(placement) == 11
    master = [w for w in placement if 1 in w["tasks"]]
    assert [(w["node_id"], w["port"], w["tasks"], w["mem"]) for w in master] == [
        ("sup-3", 6700, [1], 512 * 1024 ** 2)]


def test_the_port_does_no_io():
    forbidden = ("twisted", "kazoo", "sqlite3", "socket", "os", "subprocess", "io")
    package_dir = os.path.dirname(pynimbus.jstorm_port.__file__)
    for name in sorted(os.listdir(package_dir)):
        if name.endswith(".py"):
            imported = imported_modules(os.path.join(package_dir, name))
            assert not [m for m in imported if m.split(".")[0] in forbidden], name
