"""Tests of pynimbus.supervisor.assignments: what a supervisor runs and which workers it keeps."""
# test-case-name: tests.test_supervisor_assignments

import pytest

from pynimbus.generated.storm.ttypes import (
    Assignment, ExecutorInfo, LocalAssignment, LSWorkerHeartbeat, NodeInfo, WorkerResources)
from pynimbus.supervisor import assignments as sa
from purity import imported_modules

CONF = {"supervisor.worker.timeout.secs": 30, "supervisor.worker.start.timeout.secs": 120}


def assignment(executor_slots, worker_resources=None, owner=None):
    """An Assignment placing each executor ``(s, e)`` on ``(node, port)``."""
    return Assignment(
        master_code_dir="/x", node_host={n: "h-" + n for n, _ in executor_slots.values()},
        executor_node_port={e: NodeInfo(n, {p}) for e, (n, p) in executor_slots.items()},
        executor_start_time_secs={e: 1 for e in executor_slots},
        worker_resources=worker_resources or {}, owner=owner)


def local(storm_id, *executors):
    return LocalAssignment(topology_id=storm_id,
                           executors=[ExecutorInfo(s, e) for s, e in executors])


def beat(storm_id, port, executors, time_secs):
    return LSWorkerHeartbeat(time_secs=time_secs, topology_id=storm_id, port=port,
                             executors=[ExecutorInfo(s, e) for s, e in executors])


def test_read_my_executors_groups_this_nodes_executors_by_port():
    """Only executors on this node, grouped per port, sorted, under the storm id."""
    a = assignment({(3, 3): ("sup-1", 6701), (1, 2): ("sup-1", 6700), (4, 4): ("sup-2", 6700),
                    (5, 5): ("sup-1", 6700)})
    assert sa.read_my_executors("t-1-1", "sup-1", a) == {
        6700: local("t-1-1", (1, 2), (5, 5)),
        6701: local("t-1-1", (3, 3))}


def test_read_my_executors_carries_slot_resources_and_owner():
    """A slot's WorkerResources and the assignment's owner go into its LocalAssignment."""
    resources = WorkerResources(mem_on_heap=768.0, cpu=50.0)
    a = assignment({(1, 1): ("sup-1", 6700), (2, 2): ("sup-1", 6701)},
                   worker_resources={NodeInfo("sup-1", {6700}): resources,
                                     NodeInfo("sup-2", {6701}): WorkerResources(cpu=1.0)},
                   owner="alice")
    mine = sa.read_my_executors("t", "sup-1", a)
    assert mine[6700].resources == resources and mine[6700].owner == "alice"
    assert mine[6701].resources is None


def test_read_my_executors_of_an_assignment_elsewhere_is_empty():
    """A topology with nothing on this node runs nothing here."""
    assert sa.read_my_executors("t", "sup-9", assignment({(1, 1): ("sup-1", 6700)})) == {}


def test_read_assignments_merges_topologies_by_port():
    """Each topology's ports of this supervisor end up in one port map."""
    snapshot = {"a-1-1": assignment({(1, 1): ("sup-1", 6700)}),
                "b-1-1": assignment({(2, 3): ("sup-1", 6701), (4, 4): ("sup-2", 6701)})}
    assert sa.read_assignments(snapshot, "sup-1") == {
        6700: local("a-1-1", (1, 1)), 6701: local("b-1-1", (2, 3))}


def test_read_assignments_refuses_two_topologies_on_one_port():
    """Two topologies on one port is Storm's "multiple topologies" error, naming both."""
    snapshot = {"a-1-1": assignment({(1, 1): ("sup-1", 6700)}),
                "b-1-1": assignment({(1, 1): ("sup-1", 6700)})}
    with pytest.raises(sa.MultipleTopologiesOnPort, match="6700 has a-1-1 and b-1-1"):
        sa.read_assignments(snapshot, "sup-1")


def test_equivalent_ignores_executor_order_but_not_topology_or_resources():
    """Slot.equivalent: executors as a set; topology and resources must match."""
    assert sa.equivalent(local("t", (1, 1), (2, 2)), local("t", (2, 2), (1, 1)))
    assert not sa.equivalent(local("t", (1, 1)), local("u", (1, 1)))
    assert not sa.equivalent(local("t", (1, 1)), local("t", (1, 1), (2, 2)))
    with_resources = local("t", (1, 1))
    with_resources.resources = WorkerResources(cpu=10.0)
    assert not sa.equivalent(local("t", (1, 1)), with_resources)
    assert sa.equivalent(None, None) and not sa.equivalent(None, local("t", (1, 1)))


def test_matches_an_assignment_ignores_the_system_executor():
    """A heartbeat listing the assigned executors plus __system's (-1, -1) matches."""
    assigned = {6700: local("t", (1, 1), (2, 2))}
    assert sa.matches_an_assignment(beat("t", 6700, [(2, 2), (-1, -1), (1, 1)], 0), assigned)
    assert not sa.matches_an_assignment(beat("t", 6700, [(1, 1)], 0), assigned)
    assert not sa.matches_an_assignment(beat("u", 6700, [(1, 1), (2, 2)], 0), assigned)
    assert not sa.matches_an_assignment(beat("t", 6701, [(1, 1), (2, 2)], 0), assigned)


ASSIGNED = {6700: local("t", (1, 1)), 6701: local("t", (2, 2))}


def test_read_allocated_workers_states():
    """Each worker gets read-allocated-workers' state, in its order of checks."""
    heartbeats = {
        "fresh": beat("t", 6700, [(1, 1)], 1000),
        "no-beat": None,
        "stranger": beat("t", 6701, [(2, 2)], 1000),           # not approved
        "reassigned": beat("t", 6701, [(9, 9)], 1000),        # executors moved
        "stale": beat("t", 6701, [(2, 2)], 969),              # 31 s old
        "died": beat("t", 6701, [(2, 2)], 1000),
    }
    approved = {"fresh", "no-beat", "reassigned", "stale", "died"}
    allocated = sa.read_allocated_workers(heartbeats, approved, ASSIGNED, 1000, CONF,
                                          dead_workers={"died"})
    assert {w: state for w, (state, _) in allocated.items()} == {
        "fresh": "valid", "no-beat": "not-started", "stranger": "disallowed",
        "reassigned": "disallowed", "stale": "timed-out", "died": "timed-out"}
    assert allocated["fresh"][1] is heartbeats["fresh"]


def test_heartbeat_exactly_at_the_timeout_is_valid():
    """Only a heartbeat older than supervisor.worker.timeout.secs times out."""
    allocated = sa.read_allocated_workers({"w": beat("t", 6700, [(1, 1)], 970)}, {"w"},
                                          ASSIGNED, 1000, CONF)
    assert allocated["w"][0] == "valid"


def test_sync_processes_kills_the_invalid_and_launches_uncovered_ports():
    """Valid workers stay; the others are killed; ports nobody valid serves are launched."""
    allocated = {"keep": ("valid", beat("t", 6700, [(1, 1)], 1000)),
                 "old": ("timed-out", beat("t", 6701, [(2, 2)], 900)),
                 "gone": ("disallowed", beat("x", 6702, [(7, 7)], 1000))}
    actions = sa.sync_processes(allocated, ASSIGNED, 1000, CONF)
    assert actions.to_kill == [("gone", "disallowed"), ("old", "timed-out")]
    assert actions.keepers == {"keep": 6700}
    assert actions.to_launch == {6701: ASSIGNED[6701]}


def test_sync_processes_keeps_a_worker_within_its_start_timeout():
    """A just-launched worker without a heartbeat is neither killed nor launched again."""
    launched = {"new": sa.LaunchedWorker(6701, local("t", (2, 2)), 1000)}
    actions = sa.sync_processes({"new": ("not-started", None)}, ASSIGNED, 1120, CONF, launched)
    assert actions.to_kill == [] and actions.keepers == {"new": 6701}
    assert actions.to_launch == {6700: ASSIGNED[6700]}


def test_sync_processes_kills_a_worker_that_never_started_in_time():
    """Past supervisor.worker.start.timeout.secs without a heartbeat: killed and relaunched."""
    launched = {"new": sa.LaunchedWorker(6701, local("t", (2, 2)), 1000)}
    actions = sa.sync_processes({"new": ("not-started", None)}, ASSIGNED, 1121, CONF, launched)
    assert actions.to_kill == [("new", "not-started")]
    assert actions.to_launch == ASSIGNED


def test_sync_processes_kills_a_starting_worker_whose_port_was_reassigned():
    """A starting worker launched for what its port no longer runs is killed at once."""
    launched = {"new": sa.LaunchedWorker(6701, local("old-topology", (2, 2)), 1000)}
    actions = sa.sync_processes({"new": ("not-started", None)}, ASSIGNED, 1001, CONF, launched)
    assert actions.to_kill == [("new", "not-started")]
    assert actions.to_launch == ASSIGNED


def test_sync_processes_kills_an_unknown_worker_without_heartbeat():
    """A worker dir this supervisor did not launch and that never beat is killed."""
    actions = sa.sync_processes({"orphan": ("not-started", None)}, {}, 1000, CONF)
    assert actions == sa.SyncActions([("orphan", "not-started")], {}, {})


def test_assignments_module_is_pure():
    """The core imports no Twisted, sockets, files or clock: only values go in and out."""
    import ast
    imported = imported_modules(sa)
    assert imported == {"collections", "pynimbus.generated.storm.ttypes"}
    with open(sa.__file__) as f:
        tree = ast.parse(f.read())
    called = {node.func.id for node in ast.walk(tree)
              if isinstance(node, ast.Call) and isinstance(node.func, ast.Name)}
    assert "open" not in called
