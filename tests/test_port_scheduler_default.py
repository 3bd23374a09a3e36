"""Tests of the default scheduler (DefaultScheduler.clj 1.2.4, DefaultScheduler.java 2.8.8)."""

from pynimbus.clojure_port.scheduler.cluster import (
    Cluster, SupervisorDetails, TopologyDetails, WorkerSlot)
from pynimbus.clojure_port.scheduler.default import (
    bad_slots, default_schedule, integer_divided, slots_can_reassign)


def test_integer_divided_splits_as_evenly_as_possible():
    """9 over 4 is three 2s and one 3; 6 over 3 is three 2s; 2 over 4 leaves two empty."""
    assert integer_divided(9, 4) == {2: 3, 3: 1}
    assert integer_divided(6, 3) == {2: 3}
    assert integer_divided(2, 4) == {0: 2, 1: 2}


def test_bad_slots_keeps_slots_the_distribution_still_wants():
    """Three slots of 3 over 4 workers: the first 3-slot is kept, the other two are bad."""
    existing = {("a", 1): [1, 2, 3], ("b", 1): [4, 5, 6], ("c", 1): [7, 8, 9]}
    assert bad_slots(existing, 9, 4) == [("b", 1), ("c", 1)]


def test_bad_slots_rejects_an_overloaded_slot():
    """One slot with all 9 executors does not fit a split over 3 workers."""
    assert bad_slots({("a", 1): list(range(9))}, 9, 3) == [("a", 1)]


def test_bad_slots_of_zero_workers_is_empty():
    """No worker to use: nothing is freed."""
    assert bad_slots({("a", 1): [1]}, 1, 0) == []


def test_bad_slots_returns_worker_slots():
    """The bad slots are WorkerSlot tuples."""
    assert bad_slots({("a", 1): [1, 2]}, 2, 2) == [WorkerSlot("a", 1)]


def test_slots_can_reassign_needs_a_live_supervisor_offering_the_port():
    """Slots on a dead supervisor, a dead port or a blacklisted host cannot be kept."""
    cluster = Cluster({"s1": SupervisorDetails("s1", "h1", None, (1, 2), {}),
                       "s2": SupervisorDetails("s2", "h2", None, (1,), {})},
                      blacklisted_hosts={"h2"})
    slots = [("s1", 1), ("s1", 3), ("gone", 1), ("s2", 1)]
    assert slots_can_reassign(cluster, slots) == [("s1", 1)]


def squeezed_cluster(ports_b=(6700, 6701)):
    supervisors = {"sup-a": SupervisorDetails("sup-a", "host-a", None, (6700,), {}),
                   "sup-b": SupervisorDetails("sup-b", "host-b", None, ports_b, {})}
    assignment = {(i, i): ("sup-a", 6700) for i in range(1, 10)}
    return Cluster(supervisors, {"t": assignment})


def test_default_schedule_frees_an_overloaded_slot_when_more_slots_appear():
    """nimbus_test.clj test-reassign-squeezed-topology: 9 executors in one slot become 3 x 3."""
    topology = TopologyDetails("t", {}, 4, executors=[(i, i) for i in range(1, 10)])
    result = default_schedule([topology], squeezed_cluster())
    by_slot = {}
    for executor, slot in result.get_assignment_by_id("t").items():
        by_slot.setdefault(slot, []).append(executor)
    assert sorted(len(v) for v in by_slot.values()) == [3, 3, 3]


def test_default_schedule_leaves_a_healthy_topology_alone():
    """A topology with all executors alive in num_workers slots is not rescheduled."""
    cluster = Cluster({"s": SupervisorDetails("s", "h", None, (1, 2, 3), {})},
                      {"t": {(1, 1): ("s", 1), (2, 2): ("s", 2)}})
    topology = TopologyDetails("t", {}, 2, executors=[(1, 1), (2, 2)])
    result = default_schedule([topology], cluster)
    assert result.get_assignments() == cluster.get_assignments()


def test_default_schedule_moves_only_the_lost_executor():
    """A dead executor goes to a fresh slot; the alive one keeps its slot."""
    cluster = Cluster({"s": SupervisorDetails("s", "h", None, (1, 3), {})},
                      {"t": {(1, 1): ("s", 1)}})
    topology = TopologyDetails("t", {}, 2, executors=[(1, 1), (2, 2)])
    result = default_schedule([topology], cluster)
    assert result.get_assignment_by_id("t") == {(1, 1): ("s", 1), (2, 2): ("s", 3)}


def test_default_schedule_packs_into_the_last_slot_when_constrained():
    """nimbus_test.clj test-reassignment-to-constrained-cluster: both executors share one slot."""
    cluster = Cluster({"a": SupervisorDetails("a", "h", None, (1,), {})},
                      {"t": {(1, 1): ("a", 1)}})
    topology = TopologyDetails("t", {}, 2, executors=[(1, 1), (2, 2)])
    result = default_schedule([topology], cluster)
    assert result.get_assignment_by_id("t") == {(1, 1): ("a", 1), (2, 2): ("a", 1)}


def test_default_schedule_does_not_change_its_arguments():
    """The cluster passed in keeps its assignment."""
    cluster = squeezed_cluster()
    before = cluster.get_assignments()
    default_schedule([TopologyDetails("t", {}, 4, executors=[(i, i) for i in range(1, 10)])],
                     cluster)
    assert cluster.get_assignments() == before


def test_default_schedule_keeps_the_first_slot_in_upstream_order():
    """Adding 8 ports to a 3 x 3 topology keeps one 3-slot: the first in 1.2.4's map order."""
    supervisors = {"sup-b": SupervisorDetails("sup-b", "host-b", None, (6700, 6701), {}),
                   "sup-a": SupervisorDetails("sup-a", "host-a", None, (6700,), {}),
                   "sup-c": SupervisorDetails("sup-c", "host-c", None,
                                              tuple(range(6700, 6708)), {})}
    assignment = {(1, 1): ("sup-b", 6700), (4, 4): ("sup-b", 6700), (7, 7): ("sup-b", 6700),
                  (2, 2): ("sup-a", 6700), (5, 5): ("sup-a", 6700), (8, 8): ("sup-a", 6700),
                  (3, 3): ("sup-b", 6701), (6, 6): ("sup-b", 6701), (9, 9): ("sup-b", 6701)}
    cluster = Cluster(supervisors, {"squeezed-1-1": assignment})
    topology = TopologyDetails("squeezed-1-1", {}, 4, executors=sorted(assignment))
    result = default_schedule([topology], cluster)
    kept = {e: s for e, s in result.get_assignment_by_id("squeezed-1-1").items()
            if s == ("sup-a", 6700)}
    assert kept == {(2, 2): ("sup-a", 6700), (5, 5): ("sup-a", 6700), (8, 8): ("sup-a", 6700)}


def test_2x_default_schedule_keeps_the_first_slot_in_2_8_order():
    """Storm 2.8's scheduler on this input kept port 6701's two executors and freed 6700."""
    supervisors = {"s0": SupervisorDetails("s0", "host-s0", None, (6700, 6701, 6702), {})}
    conf = {"topology.component.resources.onheap.memory.mb": 128.0,
            "topology.component.resources.offheap.memory.mb": 16.0,
            "topology.component.cpu.pcore.percent": 10.0}
    topology = TopologyDetails("topo-2", conf, 6, {(i, i): "c" for i in range(1, 5)})
    wire = [((3, 3), ("s0", 6701)), ((4, 4), ("s0", 6700)), ((1, 1), ("s0", 6701)),
            ((2, 2), ("s0", 6700))]
    cluster = Cluster(supervisors, {"topo-2": dict(wire)}, {"topo-2": topology}, "2.x",
                      wire_orders={"topo-2": wire})
    result = default_schedule([topology], cluster)
    assert result.get_assignment_by_id("topo-2") == {
        (1, 1): ("s0", 6701), (2, 2): ("s0", 6700), (3, 3): ("s0", 6701),
        (4, 4): ("s0", 6702)}
    resources = result.get_slot_resources("topo-2")
    assert (resources[("s0", 6701)].mem_on_heap, resources[("s0", 6701)].mem_off_heap,
            resources[("s0", 6701)].cpu) == (256.0, 32.0, 20.0)
    assert resources[("s0", 6702)].resources == {
        "cpu.pcore.percent": 10.0, "offheap.memory.mb": 16.0, "onheap.memory.mb": 128.0}


def two_topologies_one_slot(compat):
    supervisors = {"s0": SupervisorDetails("s0", "host-s0", None, (6700,), {})}
    t0 = TopologyDetails("t0", {}, 3, {(1, 1): "c"})
    t1 = TopologyDetails("t1", {}, 2, {(1, 1): "c", (2, 2): "c"})
    cluster = Cluster(supervisors, {"t1": {(2, 2): ("s0", 6700)}}, {"t0": t0, "t1": t1}, compat)
    return default_schedule([t0, t1], cluster)


def test_2x_evenly_serves_every_topology_once_bad_slots_are_freed():
    """2.8's even scheduler walks all topologies: t0 takes the slot t1 just freed."""
    result = two_topologies_one_slot("2.x")
    assert result.get_assignment_by_id("t0") == {(1, 1): ("s0", 6700)}
    assert result.get_assignment_by_id("t1") == {}


def test_1x_evenly_serves_only_the_topology_whose_slots_were_freed():
    """1.2.4 reschedules t1 right after freeing its slot, so t1 keeps it."""
    result = two_topologies_one_slot("1.x")
    assert result.get_assignment_by_id("t0") is None
    assert result.get_assignment_by_id("t1") == {(1, 1): ("s0", 6700), (2, 2): ("s0", 6700)}
