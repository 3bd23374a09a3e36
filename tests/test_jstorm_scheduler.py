"""``pynimbus.scheduler: jstorm``: mk-assignments places as JStorm 2.2.1 (pure, simulated cluster).

The rounds run through :func:`pynimbus.clojure_port.assignments.compute_new_assignments` on the
simulated cluster of ``test_port_assignments`` (stored Assignments serialized as in ZooKeeper,
workers heartbeating into their slots); each placement is checked against the port run on the
JStorm case the round stands for, whose agreement with JStorm itself the oracle test checks.
"""

import json

import pytest

from pynimbus.clojure_port import assignments as asg
from pynimbus.clojure_port.scheduler.cluster import TopologyDetails, WorkerSlot
from pynimbus.common.config import ConfigError, read_storm_config
from pynimbus.generated.storm import ttypes
from pynimbus.jstorm_port.case_json import place_case
from pynimbus.jstorm_port.storm_scheduler import SchedulingError, raw_topology_of
from test_port_assignments import Sim

WORD_COUNT = {  # executor -> component: Storm's task numbering, components in id order
    (1, 1): "__acker", (2, 2): "count", (3, 3): "count", (4, 4): "count", (5, 5): "split",
    (6, 6): "split", (7, 7): "split", (8, 8): "split", (9, 9): "split", (10, 10): "spout",
    (11, 11): "spout"}


def word_count_topology():
    spout = ttypes.SpoutSpec(common=ttypes.ComponentCommon(inputs={}, json_conf="{}"))
    split = ttypes.Bolt(common=ttypes.ComponentCommon(inputs={
        ttypes.GlobalStreamId("spout", "default"): ttypes.Grouping(shuffle=ttypes.NullStruct())}))
    count = ttypes.Bolt(common=ttypes.ComponentCommon(
        inputs={ttypes.GlobalStreamId("split", "default"): ttypes.Grouping(fields=["word"])},
        json_conf='{"topology.tick.tuple.freq.secs": 5}'))
    return ttypes.StormTopology(spouts={"spout": spout}, bolts={"split": split, "count": count})


def jstorm_sim(supervisors=3, ports=(6700, 6701, 6702, 6703)):
    sim = Sim(pynimbus_scheduler="jstorm")
    for i in range(1, supervisors + 1):
        sim.add_supervisor("sup-%d" % i, ports, host="10.0.0.%d" % i)
    return sim


def submit_word_count(sim, num_workers=4):
    sim.topologies["wc-1-1"] = TopologyDetails(
        "wc-1-1", {"topology.name": "wc"}, num_workers, executor_to_component=WORD_COUNT,
        owner="alice", raw_topology=raw_topology_of(word_count_topology()))


def jstorm_case(sim, num_workers=4):
    """The NEW JStorm case this cluster and topology stand for."""
    return {
        "assign_type": 0,
        "storm_conf": {"topology.name": "wc", "topology.workers": num_workers,
                       "topology.acker.executors": 1, "topology.master.single.worker": False},
        "topology": {"spouts": {"spout": {"parallelism": 2, "conf": {}}},
                     "bolts": {"split": {"parallelism": 5, "inputs": ["spout"], "conf": {}},
                               "count": {"parallelism": 3, "inputs": ["split"],
                                         "conf": {"topology.tick.tuple.freq.secs": 5}}}},
        "task_to_component": dict((str(e[0]), c) for e, c in WORD_COUNT.items()),
        "topology_master_task_id": 0,
        "supervisors": [{"id": sid, "hostname": info.hostname, "ports": info.meta}
                        for sid, info in sorted(sim.supervisors.items())]}


def placement(sim, storm_id="wc-1-1"):
    """The stored assignment as sorted ``(node, port, task ids)``."""
    return sorted((slot.node_id, slot.port, [e[0] for e in executors])
                  for slot, executors in sim.slots(storm_id).items())


def as_slots(jstorm_placement):
    return sorted((w["node_id"], w["port"], w["tasks"]) for w in jstorm_placement)


def test_a_new_topology_is_placed_as_jstorm_places_it():
    sim = jstorm_sim()
    submit_word_count(sim)
    sim.mk_assignments()
    expected = as_slots(place_case(jstorm_case(sim)))
    assert placement(sim) == expected
    assert len(expected) == 4
    for component in ("spout", "split", "count"):
        per_worker = [sum(1 for t in tasks if WORD_COUNT[(t, t)] == component)
                      for _, _, tasks in expected]
        assert max(per_worker) - min(per_worker) <= 1, component
    sim.check_consistency("wc-1-1")


def test_the_default_scheduler_stays_the_default():
    sim = jstorm_sim()
    del sim.conf["pynimbus.scheduler"]
    submit_word_count(sim)
    sim.mk_assignments()
    assert placement(sim) != as_slots(place_case(jstorm_case(sim)))


def lose_supervisor(sim, lost):
    """Every worker beats once, then ``lost`` is gone and the others beat every second, with a
    monitor round every 10 s, until its executors have timed out (past
    ``nimbus.task.launch.secs``, 120)."""
    for executors in sim.slots("wc-1-1").values():
        sim.beat("wc-1-1", *executors)
    sim.kill_supervisor(lost)
    for _ in range(160):
        sim.now += 1
        for slot, executors in sim.slots("wc-1-1").items():
            if slot.node_id != lost:
                sim.beat("wc-1-1", *executors)
        if sim.now % 10 == 0:
            sim.mk_assignments()


def test_a_lost_supervisor_moves_its_executors_and_every_other_worker_stays():
    sim = jstorm_sim()
    submit_word_count(sim)
    sim.mk_assignments()
    before = placement(sim)
    lost = before[0][0]
    lose_supervisor(sim, lost)
    after = placement(sim)
    kept = [w for w in before if w[0] != lost]
    moved = [w for w in before if w[0] == lost]
    assert [w for w in after if w in kept] == kept
    assert not [w for w in after if w[0] == lost]
    assert sorted(t for w in after if w not in kept for t in w[2]) == \
        sorted(t for w in moved for t in w[2])
    sim.check_consistency("wc-1-1")


def stored_workers(sim, storm_id="wc-1-1"):
    """The stored assignment's workers as a case lists them: slots in the stored map's order."""
    workers = {}
    assignment = sim.assignment(storm_id)
    for executor, node_info in assignment.executor_node_port.items():
        slot = (node_info.node, next(iter(node_info.port)))
        worker = workers.setdefault(slot, {
            "node_id": slot[0], "port": slot[1], "hostname": assignment.node_host[slot[0]],
            "tasks": [], "mem": 2 * 1024 ** 3, "cpu": 1})
        worker["tasks"].append(executor[0])
    return list(workers.values())


def test_the_monitor_round_places_as_jstorm_on_the_case_it_stands_for():
    sim = jstorm_sim()
    submit_word_count(sim)
    sim.mk_assignments()
    case = jstorm_case(sim)
    case["assign_type"] = 2
    case["old_assignment"] = {"workers": stored_workers(sim)}
    lost = placement(sim)[0][0]
    case["dead_tasks"] = [t for node, _, tasks in placement(sim) if node == lost for t in tasks]
    case["dead_tasks"].sort()
    case["supervisors"] = [
        dict(s, used_ports=[w[1] for w in placement(sim) if w[0] == s["id"]])
        for s in case["supervisors"] if s["id"] != lost]
    lose_supervisor(sim, lost)
    assert placement(sim) == as_slots(place_case(case))


def test_a_round_with_every_executor_alive_changes_nothing():
    sim = jstorm_sim()
    submit_word_count(sim)
    sim.mk_assignments()
    writes = sim.writes
    for slot, executors in sim.slots("wc-1-1").items():
        sim.beat("wc-1-1", *executors)
    sim.now += 10
    sim.mk_assignments()
    assert sim.writes == writes


def test_a_rebalance_keeps_the_slots_jstorm_keeps():
    sim = jstorm_sim()
    submit_word_count(sim)
    sim.mk_assignments()
    before = placement(sim)
    sim.mk_assignments(scratch="wc-1-1")  # the rebalance transition's round
    assert placement(sim) == before


def scheduling_errors(sim):
    """The errors of one round on the simulated cluster (nothing is stored)."""
    existing = dict((t, sim.assignment(t)) for t in sim.stored)
    _, _, errors = asg.compute_new_assignments_and_errors(
        sim.topologies, existing, sim.supervisors, sim.cache, sim.executor_beats(None), sim.now,
        sim.conf, sim.compat)
    return errors


def test_too_few_slots_leaves_the_topology_unassigned_with_jstorms_message():
    """The error is JStorm's, filed under the acker (the topology names no component and has no
    topology master)."""
    sim = jstorm_sim(supervisors=1, ports=(6700, 6701))
    submit_word_count(sim, num_workers=4)
    sim.mk_assignments()
    assert sim.assignment("wc-1-1") is None
    assert scheduling_errors(sim) == {"wc-1-1": SchedulingError(
        "there's no enough worker. allocWorkerNum=4, availableWorkerNum=2", "__acker")}


def test_too_few_supervisors_for_task_on_differ_node_names_the_component():
    """``task.on.differ.node`` on count (3 executors) with two supervisors: JStorm's message,
    filed under count; with a third supervisor the topology is placed and the error is gone."""
    sim = jstorm_sim(supervisors=2)
    submit_word_count(sim, num_workers=4)
    sim.topologies["wc-1-1"].raw_topology["bolts"]["count"]["conf"]["task.on.differ.node"] = True
    sim.mk_assignments()
    assert sim.assignment("wc-1-1") is None
    assert scheduling_errors(sim) == {"wc-1-1": SchedulingError(
        "there's no enough supervisor for making component: count 's tasks on different node",
        "count")}
    sim.add_supervisor("sup-3", (6700, 6701, 6702, 6703), host="10.0.0.3")
    assert scheduling_errors(sim) == {}
    sim.mk_assignments()
    count_nodes = [slot.node_id for slot, executors in sim.slots("wc-1-1").items()
                   for e in executors if WORD_COUNT[e] == "count"]
    assert sorted(count_nodes) == ["sup-1", "sup-2", "sup-3"]


def test_a_user_defined_worker_on_a_missing_supervisor_waits_for_it():
    """A ``use.userdefine.assignment`` entry naming a supervisor that is not registered: JStorm's
    message, no assignment; once that supervisor registers, the worker (count's first two
    executors, and what JStorm adds) is placed on it."""
    sim = jstorm_sim(supervisors=2)
    submit_word_count(sim, num_workers=4)
    sim.topologies["wc-1-1"].conf["use.userdefine.assignment"] = [json.dumps({
        "nodeId": "sup-3", "hostName": "10.0.0.3", "port": "6702",
        "componentToNum": json.dumps({"count": 2})})]
    sim.mk_assignments()
    assert sim.assignment("wc-1-1") is None
    assert scheduling_errors(sim) == {"wc-1-1": SchedulingError(
        "Node sup-3 doesn't in the supervisor list", "__acker")}
    sim.add_supervisor("sup-3", (6700, 6701, 6702, 6703), host="10.0.0.3")
    sim.mk_assignments()
    assert {(2, 2), (3, 3)} <= set(sim.slots("wc-1-1")[WorkerSlot("sup-3", 6702)])


def test_the_scheduler_setting_names_an_unknown_value():
    assert read_storm_config(options=["pynimbus.scheduler=jstorm"])["pynimbus.scheduler"] == \
        "jstorm"
    assert read_storm_config()["pynimbus.scheduler"] == "default"
    with pytest.raises(ConfigError) as e:
        read_storm_config(options=["pynimbus.scheduler=round-robin"])
    assert '"round-robin"' in str(e.value) and "default, jstorm" in str(e.value)


def submit_master_word_count(sim):
    """The word count with a ``__topology_master`` (task 12) in a worker of its own."""
    executors = dict(WORD_COUNT)
    executors[(12, 12)] = "__topology_master"
    sim.topologies["wc-1-1"] = TopologyDetails(
        "wc-1-1", {"topology.name": "wc", "topology.master.single.worker": True}, 4,
        executor_to_component=executors, owner="alice",
        raw_topology=raw_topology_of(word_count_topology()))


def test_a_topology_master_asking_for_its_own_worker_gets_one():
    """``topology.master.single.worker: true``: the ``__topology_master`` executor alone in a
    worker, the other four workers holding the rest, as the port places the case."""
    sim = jstorm_sim()
    submit_master_word_count(sim)
    sim.mk_assignments()
    slots = sim.slots("wc-1-1")
    assert len(slots) == 5
    assert [(12, 12)] in slots.values()
    case = jstorm_case(sim)
    case["storm_conf"].update({"topology.master.single.worker": True})
    case["task_to_component"]["12"] = "__topology_master"
    case["topology_master_task_id"] = 12
    expected = place_case(case)
    assert sorted((WorkerSlot(w["node_id"], w["port"]), [(t, t) for t in w["tasks"]])
                  for w in expected) == sorted(slots.items())


def run_rounds(sim, secs, beating):
    """``secs`` seconds with a monitor round every 10 s; each second the executors
    ``beating()`` names beat (the master writes every executor's heartbeat)."""
    for _ in range(secs):
        sim.now += 1
        sim.beat("wc-1-1", *beating())
        if sim.now % 10 == 0:
            sim.mk_assignments()


def test_a_dead_topology_master_moves_alone_and_the_others_wait_for_its_launch():
    """JStorm's MonitorRunnable rule: every heartbeat goes through the master, so when its
    worker dies they all stop; only the master's worker is placed again, every other worker
    keeps its slot, and while the new master is younger than nimbus.task.launch.secs nothing
    else moves, even as the others' heartbeats are still missing; then they beat again and
    the placement stays."""
    sim = jstorm_sim(supervisors=4)
    submit_master_word_count(sim)
    sim.mk_assignments()
    before = sim.slots("wc-1-1")
    [master_slot] = [slot for slot, executors in before.items() if executors == [(12, 12)]]
    others = {slot: executors for slot, executors in before.items() if slot != master_slot}
    everyone = [e for executors in before.values() for e in executors]
    run_rounds(sim, 130, lambda: everyone)  # all running, past the launch grace
    assert sim.slots("wc-1-1") == before
    run_rounds(sim, 40, lambda: [])  # the master's worker died: no heartbeat at all
    after = sim.slots("wc-1-1")
    moved = {slot: executors for slot, executors in after.items() if slot not in others}
    assert {slot: after.get(slot) for slot in others} == others
    assert list(moved.values()) == [[(12, 12)]] and master_slot not in after
    run_rounds(sim, 100, lambda: [(12, 12)])  # the new master runs; the rest not yet heard of
    assert sim.slots("wc-1-1") == after
    run_rounds(sim, 60, lambda: everyone)
    assert sim.slots("wc-1-1") == after
    sim.check_consistency("wc-1-1")


def test_executors_dead_under_a_living_master_are_placed_again_once_it_is_launched():
    """With the master alive past nimbus.task.launch.secs, dead executors are re-placed as
    JStorm's MONITOR does (the master's worker stays)."""
    sim = jstorm_sim(supervisors=4)
    submit_master_word_count(sim)
    sim.mk_assignments()
    before = sim.slots("wc-1-1")
    [master_slot] = [slot for slot, executors in before.items() if executors == [(12, 12)]]
    lost_slot = min(slot for slot in before if slot != master_slot)
    everyone = [e for executors in before.values() for e in executors]
    run_rounds(sim, 130, lambda: everyone)
    survivors = [e for slot, executors in before.items() if slot != lost_slot
                 for e in executors]
    run_rounds(sim, 40, lambda: survivors)
    after = sim.slots("wc-1-1")
    assert after[master_slot] == [(12, 12)] and lost_slot not in after
    assert sorted(e for executors in after.values() for e in executors) == sorted(everyone)
    sim.check_consistency("wc-1-1")
