"""Tests of the even scheduler (EvenScheduler.clj 1.2.4, EvenScheduler.java 2.8.8)."""

from pynimbus.clojure_port.scheduler.cluster import Cluster, SupervisorDetails, TopologyDetails
from pynimbus.clojure_port.scheduler.even import (
    interleave_all, schedule_topologies_evenly, schedule_topology, sort_slots)

TWO_NODES = [("supervisor1", 6700), ("supervisor1", 6701),
             ("supervisor2", 6700), ("supervisor2", 6701), ("supervisor2", 6702)]
THREE_NODES = [("supervisor1", 6700), ("supervisor1", 6701),
               ("supervisor2", 6700), ("supervisor2", 6701), ("supervisor2", 6702),
               ("supervisor3", 6700), ("supervisor3", 6703), ("supervisor3", 6702),
               ("supervisor3", 6701)]


def test_sort_slots_puts_the_node_with_most_free_slots_first():
    """scheduler_test.clj test-sort-slots: supervisor2 has more free slots."""
    expected = [("supervisor2", 6700), ("supervisor1", 6700), ("supervisor2", 6701),
                ("supervisor1", 6701), ("supervisor2", 6702)]
    assert sort_slots(TWO_NODES) == expected
    assert sort_slots(TWO_NODES, "2.x") == expected


def test_sort_slots_1x_keeps_each_nodes_port_order():
    """scheduler_test.clj test-sort-slots: 1.x interleaves supervisor3's ports as given."""
    assert sort_slots(THREE_NODES) == [
        ("supervisor3", 6700), ("supervisor2", 6700), ("supervisor1", 6700),
        ("supervisor3", 6703), ("supervisor2", 6701), ("supervisor1", 6701),
        ("supervisor3", 6702), ("supervisor2", 6702),
        ("supervisor3", 6701)]


def test_sort_slots_2x_sorts_nodes_and_ports():
    """EvenScheduler.sortSlots (2.8.8) sorts each node's ports, as its comment shows."""
    assert sort_slots(THREE_NODES, "2.x") == [
        ("supervisor3", 6700), ("supervisor2", 6700), ("supervisor1", 6700),
        ("supervisor3", 6701), ("supervisor2", 6701), ("supervisor1", 6701),
        ("supervisor3", 6702), ("supervisor2", 6702),
        ("supervisor3", 6703)]


def test_sort_slots_2x_orders_equal_groups_by_node_id():
    """2.x takes equally sized groups in node-id order whatever order they came in."""
    slots = [("b", 2), ("a", 1), ("c", 1)]
    assert sort_slots(slots, "2.x") == [("a", 1), ("b", 2), ("c", 1)]
    assert sort_slots(slots) == [("b", 2), ("a", 1), ("c", 1)]


def test_sort_slots_1x_past_eight_nodes_uses_clojure_hash_order():
    """With ten nodes, group-by is a hash map: the order Storm 1.2.4's sort-slots printed."""
    slots = [(n, p) for n in "abcdefghij"
             for p in ((6700, 6701) if n in "ch" else (6700,))]
    slots = [("node-" + n, p) for n, p in slots]
    assert sort_slots(slots) == [
        ("node-h", 6700), ("node-c", 6700), ("node-f", 6700), ("node-b", 6700),
        ("node-j", 6700), ("node-a", 6700), ("node-i", 6700), ("node-e", 6700),
        ("node-d", 6700), ("node-g", 6700), ("node-h", 6701), ("node-c", 6701)]


def test_sort_slots_of_nothing_is_empty():
    """No slot gives an empty list in both generations."""
    assert sort_slots([]) == []
    assert sort_slots([], "2.x") == []


def test_interleave_all_skips_exhausted_lists():
    """interleave-all takes round after round until every list is used up."""
    assert interleave_all([[1, 4, 6], [2, 5], [3]]) == [1, 2, 3, 4, 5, 6]


def one_supervisor_cluster(compat="1.x"):
    return Cluster({"sup1": SupervisorDetails("sup1", "host1", None,
                                              (6700, 6701, 6702, 6703), {})}, compat=compat)


def test_worked_example_deals_seven_executors_over_two_slots():
    """scheduling.md: 2 workers, 7 executors: 6700 gets [1 1] [3 3] [5 5] [7 7], 6701 the rest."""
    topology = TopologyDetails("t", {}, 2, executors=[(i, i) for i in range(7, 0, -1)])
    for compat in ("1.x", "2.x"):
        reassignment = schedule_topology(topology, one_supervisor_cluster(compat))
        assert reassignment == {(1, 1): ("sup1", 6700), (2, 2): ("sup1", 6701),
                                (3, 3): ("sup1", 6700), (4, 4): ("sup1", 6701),
                                (5, 5): ("sup1", 6700), (6, 6): ("sup1", 6701),
                                (7, 7): ("sup1", 6700)}


def test_schedule_topology_without_free_slot_places_nothing():
    """No available slot: the topology keeps what it has."""
    cluster = Cluster({"sup1": SupervisorDetails("sup1", "h", None, (), {})})
    assert schedule_topology(TopologyDetails("t", {}, 2, executors=[(1, 1)]), cluster) == {}


def test_schedule_topology_only_adds_the_missing_workers():
    """With one alive slot and 3 workers wanted, two more slots take the unassigned executors."""
    cluster = Cluster({"sup1": SupervisorDetails("sup1", "h", None, (6700, 6701, 6702, 6703),
                                                 {})},
                      {"t": {(1, 1): ("sup1", 6701)}})
    topology = TopologyDetails("t", {}, 3, executors=[(1, 1), (2, 2), (3, 3), (4, 4)])
    assert schedule_topology(topology, cluster) == {
        (2, 2): ("sup1", 6700), (3, 3): ("sup1", 6702), (4, 4): ("sup1", 6700)}


def test_schedule_topology_takes_no_slot_when_alive_slots_exceed_the_total():
    """More alive slots than may be used: no new slot (1.2.4's take of a negative count)."""
    cluster = Cluster({"sup1": SupervisorDetails("sup1", "h", None, (6700, 6701, 6702), {})},
                      {"t": {(1, 1): ("sup1", 6700), (2, 2): ("sup1", 6701)}})
    topology = TopologyDetails("t", {}, 1, executors=[(1, 1), (2, 2), (3, 3)])
    assert schedule_topology(topology, cluster) == {}


def test_schedule_topologies_evenly_returns_a_new_cluster():
    """The cluster passed in is left unchanged; the result holds the assignment."""
    cluster = one_supervisor_cluster()
    topology = TopologyDetails("t", {}, 2, executors=[(1, 1), (2, 2), (3, 3)])
    result = schedule_topologies_evenly([topology], cluster)
    assert cluster.get_assignments() == {}
    assert result.get_assignments() == {"t": {(1, 1): ("sup1", 6700), (2, 2): ("sup1", 6701),
                                              (3, 3): ("sup1", 6700)}}


def test_schedule_topologies_evenly_serves_topologies_in_order():
    """Two topologies wanting 3 of 4 slots: the first gets 3, the second the last one."""
    first = TopologyDetails("first", {}, 3, executors=[(1, 1), (2, 2), (3, 3)])
    second = TopologyDetails("second", {}, 3, executors=[(1, 1), (2, 2)])
    result = schedule_topologies_evenly([first, second], one_supervisor_cluster())
    assert set(result.get_assignment_by_id("first").values()) == {
        ("sup1", 6700), ("sup1", 6701), ("sup1", 6702)}
    assert result.get_assignment_by_id("second") == {(1, 1): ("sup1", 6703),
                                                     (2, 2): ("sup1", 6703)}


def test_sort_slots_limit_gives_the_prefix_of_the_full_order():
    """Asking for the first k slots gives the first k of the full order in both generations."""
    slots = [("n%d" % (i % 11), 6700 + (7 * i) % 13) for i in range(40)]
    slots = list(dict.fromkeys(slots))
    for compat in ("1.x", "2.x"):
        full = sort_slots(slots, compat)
        for k in (0, 1, 5, 11, 12, len(slots), len(slots) + 3):
            assert sort_slots(slots, compat, k) == full[:k]


def test_interleave_all_prepares_each_list_before_taking_from_it():
    """The prepare hook (2.x sorts a node's ports) runs on a list before its first item is used."""
    assert interleave_all([[3, 1], [2]], prepare=sorted) == [1, 2, 3]
