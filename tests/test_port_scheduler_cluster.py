"""Tests of the scheduler's Cluster model (scheduler_test.clj test-cluster and friends, 1.2.4)."""

import pytest

from pynimbus.clojure_port.scheduler.cluster import (
    Cluster, ResourceRequest, SupervisorDetails, TopologyDetails, WorkerSlot,
    calculate_worker_resources, default_resource_request)
from pynimbus.generated.storm import ttypes

E1, E2, E3 = (1, 5), (6, 10), (11, 15)
E11, E12 = (100, 105), (106, 110)
E21, E22 = (201, 205), (206, 210)


def make_cluster(compat="1.x"):
    """The cluster of scheduler_test.clj test-cluster."""
    supervisors = {
        "supervisor1": SupervisorDetails("supervisor1", "192.168.0.1", None, (1, 3, 5, 7, 9), {}),
        "supervisor2": SupervisorDetails("supervisor2", "192.168.0.2", None, (2, 4, 6, 8, 10),
                                         {}),
    }
    topologies = {
        "topology1": TopologyDetails("topology1", {"topology.name": "topology-name-1"}, 2,
                                     {E1: "spout1", E2: "bolt1", E3: "bolt2"}),
        "topology2": TopologyDetails("topology2", {"topology.name": "topology-name-2"}, 2,
                                     {E11: "spout11", E12: "bolt12"}),
        "topology3": TopologyDetails("topology3", {"topology.name": "topology-name-3"}, 2,
                                     {E21: "spout21", E22: "bolt22"}),
    }
    assignments = {
        "topology1": {E1: ("supervisor1", 1), E2: ("supervisor2", 2)},
        "topology2": {E11: ("supervisor1", 3), E12: ("supervisor2", 4)},
        "topology3": {E21: ("supervisor1", 5), E22: ("supervisor1", 5)},
    }
    return Cluster(supervisors, assignments, topologies, compat), topologies


def test_unassigned_executors_are_those_without_a_slot():
    """topology1's executor [11 15] has no slot; topology2 is complete."""
    cluster, topologies = make_cluster()
    assert cluster.get_unassigned_executors(topologies["topology1"]) == {E3}
    assert cluster.get_unassigned_executors(topologies["topology2"]) == set()


def test_needs_scheduling_when_an_executor_lacks_a_slot_or_workers_are_squeezed():
    """topology1 misses an executor, topology3 has one slot for two workers, topology2 is fine."""
    cluster, topologies = make_cluster()
    assert cluster.needs_scheduling(topologies["topology1"])
    assert not cluster.needs_scheduling(topologies["topology2"])
    assert cluster.needs_scheduling(topologies["topology3"])
    needing = cluster.needs_scheduling_topologies(topologies.values())
    assert [t.topology_id for t in needing] == ["topology1", "topology3"]


def test_used_and_available_ports_per_supervisor():
    """Used ports are held by any assignment; available ports are the rest."""
    cluster, _ = make_cluster()
    supervisor1 = cluster.get_supervisor_by_id("supervisor1")
    supervisor2 = cluster.get_supervisor_by_id("supervisor2")
    assert cluster.get_used_ports(supervisor1) == {1, 3, 5}
    assert cluster.get_used_ports(supervisor2) == {2, 4}
    assert cluster.get_available_ports(supervisor1) == [7, 9]
    assert cluster.get_available_ports(supervisor2) == [6, 8, 10]


def test_available_slots_follow_supervisor_then_port_order():
    """All free slots, supervisor by supervisor, ports in each supervisor's order."""
    cluster, _ = make_cluster()
    assert cluster.get_available_slots(cluster.get_supervisor_by_id("supervisor1")) == [
        ("supervisor1", 7), ("supervisor1", 9)]
    assert cluster.get_available_slots() == [
        ("supervisor1", 7), ("supervisor1", 9),
        ("supervisor2", 6), ("supervisor2", 8), ("supervisor2", 10)]


def test_assigned_num_workers_counts_distinct_slots():
    """Two executors in one slot count as one worker."""
    cluster, topologies = make_cluster()
    assert cluster.get_assigned_num_workers(topologies["topology1"]) == 2
    assert cluster.get_assigned_num_workers(topologies["topology3"]) == 1


def test_is_slot_occupied():
    """A slot is occupied when any assignment holds it."""
    cluster, _ = make_cluster()
    for port in (1, 3, 5):
        assert cluster.is_slot_occupied(("supervisor1", port))
    for port in (7, 9):
        assert not cluster.is_slot_occupied(("supervisor1", port))
    assert cluster.is_slot_occupied(WorkerSlot("supervisor2", 4))
    assert not cluster.is_slot_occupied(WorkerSlot("supervisor2", 10))


def test_assign_then_free_slot_restores_the_cluster():
    """Assigning the missing executor completes topology1; freeing the slot undoes it."""
    cluster, topologies = make_cluster()
    cluster.assign(("supervisor1", 7), "topology1", [E3])
    assert not cluster.needs_scheduling(topologies["topology1"])
    assert cluster.is_slot_occupied(("supervisor1", 7))
    cluster.free_slot(("supervisor1", 7))
    assert not cluster.is_slot_occupied(("supervisor1", 7))
    assert cluster.get_unassigned_executors(topologies["topology1"]) == {E3}


def test_assign_refuses_an_assigned_executor():
    """An executor with a slot cannot get a second one."""
    cluster, _ = make_cluster()
    with pytest.raises(RuntimeError, match="already assigned"):
        cluster.assign(("supervisor1", 9), "topology1", [E1])


def test_assign_refuses_an_occupied_slot():
    """A slot held by another topology cannot be assigned."""
    cluster, _ = make_cluster()
    with pytest.raises(RuntimeError, match=r"slot: \[supervisor2, 4\] is already occupied."):
        cluster.assign(("supervisor2", 4), "topology1", [E3])


def test_free_slots_empties_every_listed_slot():
    """freeSlots frees each slot of every topology holding it."""
    cluster, _ = make_cluster()
    cluster.free_slots([("supervisor1", 1), ("supervisor1", 3), ("supervisor1", 5)])
    for port in (1, 3, 5):
        assert not cluster.is_slot_occupied(("supervisor1", port))
    assert cluster.get_assignment_by_id("topology3") == {}
    assert cluster.get_assignment_by_id("topology1") == {E2: ("supervisor2", 2)}


def test_assign_and_unassign_like_scheduler_assignment_impl():
    """scheduler_test.clj test-supervisor-details: assign adds, unassign by slot removes."""
    supervisors = {s: SupervisorDetails(s, None, None, (1, 2), {})
                   for s in ("supervisor1", "supervisor2")}
    cluster = Cluster(supervisors, {"topology1": {(1, 5): ("supervisor1", 1),
                                                  (6, 10): ("supervisor2", 2)}})
    cluster.free_slot(("supervisor1", 1))
    cluster.assign(("supervisor1", 1), "topology1", [(11, 15), (16, 20)])
    assert cluster.get_assignment_by_id("topology1") == {
        (6, 10): ("supervisor2", 2), (11, 15): ("supervisor1", 1), (16, 20): ("supervisor1", 1)}
    cluster.free_slot(("supervisor1", 1))
    assert cluster.get_assignment_by_id("topology1") == {(6, 10): ("supervisor2", 2)}


def test_copy_is_independent():
    """Changing a copy leaves the original as it was."""
    cluster, _ = make_cluster()
    copy = cluster.copy()
    copy.assign(("supervisor1", 7), "topology1", [E3])
    copy.free_slot(("supervisor2", 4))
    assert not cluster.is_slot_occupied(("supervisor1", 7))
    assert cluster.is_slot_occupied(("supervisor2", 4))
    assert cluster.get_assignment_by_id("topology2") == {E11: ("supervisor1", 3),
                                                         E12: ("supervisor2", 4)}


def test_blacklisted_host_offers_no_slot_and_cannot_keep_slots():
    """A supervisor on a blacklisted host has no assignable port."""
    cluster = Cluster({"s1": SupervisorDetails("s1", "bad-host", None, (1, 2), {}),
                       "s2": SupervisorDetails("s2", "good-host", None, (1,), {})},
                      blacklisted_hosts={"bad-host"})
    assert cluster.is_blacklisted("s1") and not cluster.is_blacklisted("s2")
    assert cluster.get_available_slots() == [("s2", 1)]


def test_1x_new_slots_have_zero_worker_resources():
    """1.2.4's default scheduler writes WorkerResources 0.0/0.0/0.0 for a new slot."""
    cluster, _ = make_cluster()
    cluster.assign(("supervisor1", 7), "topology1", [E3])
    assert cluster.get_slot_resources("topology1")[("supervisor1", 7)] == ttypes.WorkerResources(
        mem_on_heap=0.0, mem_off_heap=0.0, cpu=0.0)


def test_2x_new_slots_sum_the_executor_requests():
    """2.x sums the requests of the slot's executors into WorkerResources."""
    cluster, topologies = make_cluster("2.x")
    topologies["topology1"].executor_resources.update({
        E3: ResourceRequest(128.0, 0.0, 10.0), E2: ResourceRequest(64.0, 32.0, 5.0, {"gpu": 1.0})})
    cluster = Cluster(cluster.supervisors, {}, topologies, "2.x")
    cluster.assign(("supervisor1", 7), "topology1", [E3, E2])
    assert cluster.get_slot_resources("topology1")[("supervisor1", 7)] == ttypes.WorkerResources(
        mem_on_heap=192.0, mem_off_heap=32.0, cpu=15.0, shared_mem_on_heap=0.0,
        shared_mem_off_heap=0.0, shared_resources={},
        resources={"gpu": 1.0, "cpu.pcore.percent": 15.0, "offheap.memory.mb": 32.0,
                   "onheap.memory.mb": 192.0})


def test_2x_worker_cpu_is_raised_to_the_minimum():
    """storm.worker.min.cpu.pcore.percent is a floor on a worker's cpu."""
    topology = TopologyDetails("t", {}, 1, executors=[(1, 1)])
    resources = calculate_worker_resources(topology, [(1, 1)], 50.0)
    assert resources.cpu == 50.0
    assert resources.resources["cpu.pcore.percent"] == 50.0


def test_topology_details_take_executors_from_the_component_map():
    """Executors default to the keys of executor -> component, lists become tuples."""
    topology = TopologyDetails("t", {"topology.name": "name"}, 1, {(1, 2): "a"})
    assert topology.executors == ((1, 2),)
    assert topology.name == "name"
    assert TopologyDetails("t", executors=[[3, 4]]).executor_set == {(3, 4)}


def test_2x_cluster_reassigns_existing_slots_and_recomputes_their_resources():
    """2.8's constructor assigns every slot again: resources come from the topology, a slot of
    an unknown topology is dropped, a topology left with no slot has no assignment."""
    supervisors = {"s": SupervisorDetails("s", "h", None, (1, 2, 3), {})}
    topology = TopologyDetails("t", {"topology.component.resources.onheap.memory.mb": 100.0},
                               1, {(1, 1): "c", (2, 2): "c"})
    stale = ttypes.WorkerResources(mem_on_heap=1.0, mem_off_heap=0.0, cpu=0.0)
    cluster = Cluster(supervisors,
                      {"t": {(1, 1): ("s", 1), (2, 2): ("s", 1)}, "gone": {(1, 1): ("s", 2)},
                       "empty": {}},
                      {"t": topology, "empty": TopologyDetails("empty", {}, 1, {(1, 1): "c"})},
                      "2.x", slot_resources={"t": {("s", 1): stale}})
    assert cluster.get_slot_resources("t")[("s", 1)].mem_on_heap == 200.0
    assert cluster.get_assignment_by_id("gone") is None
    assert not cluster.is_slot_occupied(("s", 2))
    assert cluster.get_assignment_by_id("empty") is None


def test_default_resource_request_prefers_acker_settings():
    """The acker's own resource settings override the component defaults in 2.x."""
    conf = {"topology.component.resources.onheap.memory.mb": 128.0,
            "topology.component.cpu.pcore.percent": 10.0,
            "topology.acker.resources.onheap.memory.mb": 64.0,
            "topology.component.resources.map": {"gpu.count": 1}}
    assert default_resource_request(conf, "__acker") == ResourceRequest(
        64.0, 0.0, 10.0, {"gpu.count": 1.0})
    assert default_resource_request(conf, "split") == ResourceRequest(
        128.0, 0.0, 10.0, {"gpu.count": 1.0})
