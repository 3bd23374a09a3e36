"""Tests of pynimbus.clojure_port.supervisor_assignments: which 2.x supervisor is told what."""
# test-case-name: tests.test_port_supervisor_assignments

from pynimbus.clojure_port import supervisor_assignments as sa
from pynimbus.generated.storm.ttypes import (
    Assignment, NodeInfo, SupervisorAssignments, SupervisorInfo)


def assignment(executor_slots, node_host):
    """An Assignment placing each executor ``(s, e)`` on ``(node, port)``."""
    return Assignment(
        master_code_dir="/x", node_host=dict(node_host),
        executor_node_port={e: NodeInfo(n, {p}) for e, (n, p) in executor_slots.items()},
        executor_start_time_secs={e: 1 for e in executor_slots}, worker_resources={})


def supervisor(host, server_port=None):
    return SupervisorInfo(time_secs=1, hostname=host, meta=[6700], server_port=server_port)


HOSTS = {"n1": "h1", "n2": "h2", "n3": "h3"}


def test_new_topology_changes_all_its_nodes():
    """A topology that appears tells every node of its node_host."""
    new = assignment({(1, 1): ("n1", 6700), (2, 2): ("n2", 6700)}, {"n1": "h1", "n2": "h2"})
    assert sa.assignment_changed_nodes(None, new) == {"n1": "h1", "n2": "h2"}


def test_removed_topology_changes_all_its_old_nodes():
    """A topology that goes away tells every node it had."""
    old = assignment({(1, 1): ("n1", 6700)}, {"n1": "h1"})
    assert sa.assignment_changed_nodes(old, None) == {"n1": "h1"}


def test_unchanged_assignment_changes_no_node():
    """The same executors on the same slots: nobody is told."""
    a = assignment({(1, 1): ("n1", 6700), (2, 2): ("n2", 6700)}, {"n1": "h1", "n2": "h2"})
    b = assignment({(1, 1): ("n1", 6700), (2, 2): ("n2", 6700)}, {"n1": "h1", "n2": "h2"})
    assert sa.assignment_changed_nodes(a, b) == {}


def test_moved_executor_changes_its_old_and_new_node_only():
    """An executor that moved tells the node it left and the node it went to."""
    old = assignment({(1, 1): ("n1", 6700), (2, 2): ("n2", 6700)}, {"n1": "h1", "n2": "h2"})
    new = assignment({(1, 1): ("n3", 6700), (2, 2): ("n2", 6700)}, {"n3": "h3", "n2": "h2"})
    assert sa.assignment_changed_nodes(old, new) == {"n1": "h1", "n3": "h3"}


def test_port_change_on_one_node_changes_that_node():
    """Another port on the same node is a change for that node."""
    old = assignment({(1, 1): ("n1", 6700)}, {"n1": "h1"})
    new = assignment({(1, 1): ("n1", 6701)}, {"n1": "h1"})
    assert sa.assignment_changed_nodes(old, new) == {"n1": "h1"}


def test_node_that_only_lost_executors_is_not_told():
    """As 2.8.8: only executors of the new assignment are compared."""
    old = assignment({(1, 1): ("n1", 6700), (2, 2): ("n2", 6700)}, {"n1": "h1", "n2": "h2"})
    new = assignment({(1, 1): ("n1", 6700)}, {"n1": "h1"})
    assert sa.assignment_changed_nodes(old, new) == {}


def test_assignments_for_host_picks_by_host_name():
    """Every assignment with a node on the host, whichever node of the host."""
    a = assignment({(1, 1): ("n1", 6700)}, {"n1": "h1"})
    b = assignment({(1, 1): ("n2", 6700)}, {"n2": "h2"})
    c = assignment({(1, 1): ("n4", 6700), (2, 2): ("n2", 6701)}, {"n4": "h1", "n2": "h2"})
    assert sa.assignments_for_host({"a": a, "b": b, "c": c}, "h1") == {"a": a, "c": c}
    assert sa.assignments_for_host({"a": a, "b": b, "c": c}, "h9") == {}


def test_round_pushes_each_changed_node_its_hosts_assignments():
    """A round tells only the nodes whose share changed, each with all of its host's
    assignments, at the SupervisorInfo's server_port (None when it has none)."""
    kept = assignment({(1, 1): ("n1", 6700)}, {"n1": "h1"})
    new_topology = assignment({(1, 1): ("n1", 6701), (2, 2): ("n2", 6700)},
                              {"n1": "h1", "n2": "h2"})
    existing = {"kept": kept}
    new = {"kept": kept, "new": new_topology}
    supervisors = {"n1": supervisor("h1", 6628), "n2": supervisor("h2")}
    pushes = sa.round_node_assignments(existing, new, supervisors)
    assert pushes == [
        sa.NodeAssignments("n1", "h1", 6628, SupervisorAssignments(
            storm_assignment={"kept": kept, "new": new_topology})),
        sa.NodeAssignments("n2", "h2", None, SupervisorAssignments(
            storm_assignment={"new": new_topology}))]


def test_round_without_change_pushes_nothing():
    """Nothing moved: no push at all."""
    kept = assignment({(1, 1): ("n1", 6700)}, {"n1": "h1"})
    assert sa.round_node_assignments({"kept": kept}, {"kept": kept},
                                     {"n1": supervisor("h1", 6628)}) == []


def test_node_missing_from_supervisors_gets_no_server_port():
    """A node whose supervisor is gone cannot be reached: server_port None."""
    new = assignment({(1, 1): ("n1", 6700)}, {"n1": "h1"})
    [push] = sa.round_node_assignments({}, {"t": new}, {})
    assert push.server_port is None and push.assignments.storm_assignment == {"t": new}


def test_killed_topology_tells_its_nodes_what_remains():
    """After a removal every node of the old assignment gets its host's remaining ones."""
    gone = assignment({(1, 1): ("n1", 6700), (2, 2): ("n2", 6700)}, {"n1": "h1", "n2": "h2"})
    other = assignment({(1, 1): ("n2", 6701)}, {"n2": "h2"})
    pushes = sa.killed_node_assignments(gone, {"other": other},
                                        {"n1": supervisor("h1", 1), "n2": supervisor("h2", 2)})
    assert [(p.node, p.server_port, p.assignments.storm_assignment) for p in pushes] == [
        ("n1", 1, {}), ("n2", 2, {"other": other})]
    assert sa.killed_node_assignments(None, {"other": other}, {}) == []


def test_arguments_are_left_unchanged():
    """The pure functions never change the assignments they are given."""
    old = assignment({(1, 1): ("n1", 6700)}, {"n1": "h1"})
    new = assignment({(1, 1): ("n2", 6700)}, {"n2": "h2"})
    before = (repr(old), repr(new))
    sa.round_node_assignments({"t": old}, {"t": new}, {"n2": supervisor("h2", 1)})
    sa.killed_node_assignments(old, {"t": new}, {})
    assert (repr(old), repr(new)) == before
