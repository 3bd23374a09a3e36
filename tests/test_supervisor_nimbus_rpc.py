"""The values a 2.x supervisor exchanges with Nimbus (pynimbus.supervisor.nimbus_rpc): pushed
and pulled assignments are taken whole or refused whole, and the workers' LocalState
heartbeats become the report ``sendSupervisorWorkerHeartbeats`` carries."""
# test-case-name: tests.test_supervisor_nimbus_rpc

import pytest

from pynimbus.generated.storm.ttypes import (
    Assignment, ExecutorInfo, LSWorkerHeartbeat, NodeInfo, SupervisorAssignments,
    SupervisorWorkerHeartbeat, SupervisorWorkerHeartbeats, WorkerResources)
from pynimbus.supervisor.nimbus_rpc import (
    BadAssignments, assigned_assignments_to_local, checked_storm_assignments,
    supervisor_worker_heartbeats)


def assignment(executor_node_port=None, node_host=None, worker_resources=None):
    return Assignment(
        master_code_dir="/nimbus/stormdist/wc-1-1",
        node_host={"sup-a": "host-a"} if node_host is None else node_host,
        executor_node_port=({(1, 2): NodeInfo("sup-a", {6700}), (3, 3): NodeInfo("sup-a", {6701})}
                            if executor_node_port is None else executor_node_port),
        executor_start_time_secs={(1, 2): 10, (3, 3): 10},
        worker_resources=({NodeInfo("sup-a", {6700}): WorkerResources(mem_on_heap=128.0)}
                          if worker_resources is None else worker_resources))


def test_a_well_formed_push_is_taken_as_it_came():
    """Every topology's Assignment, unchanged, keyed by its storm id."""
    pushed = SupervisorAssignments(storm_assignment={"wc-1-1": assignment(),
                                                     "other-2-2": assignment()})
    assert checked_storm_assignments(pushed) == pushed.storm_assignment


def test_an_empty_push_is_an_empty_copy():
    """No topology for this host: the local copy becomes empty (what was there is gone)."""
    assert checked_storm_assignments(SupervisorAssignments(storm_assignment={})) == {}


@pytest.mark.parametrize("storm_assignment, named", [
    ({"..": assignment()}, "'..'"),
    ({"": assignment()}, "''"),
    ({7: assignment()}, "7"),
    ({"wc-1-1": "not an assignment"}, "wc-1-1"),
    ({"wc-1-1": assignment({(1,): NodeInfo("sup-a", {6700})})}, "(1,)"),
    ({"wc-1-1": assignment({(3, 1): NodeInfo("sup-a", {6700})})}, "(3, 1)"),
    ({"wc-1-1": assignment({(1, 1): NodeInfo(None, {6700})})}, "NodeInfo"),
    ({"wc-1-1": assignment({(1, 1): NodeInfo("sup-a", set())})}, "no port"),
    ({"wc-1-1": assignment({(1, 1): NodeInfo("sup-a", {70000})})}, "70000"),
    ({"wc-1-1": assignment(node_host={"sup-a": 5})}, "node_host"),
    ({"wc-1-1": assignment(worker_resources={"sup-a": WorkerResources()})}, "worker_resources"),
])
def test_a_push_with_one_bad_entry_is_refused_whole(storm_assignment, named):
    """An entry the sync or a worker could not use (or a storm id that cannot name a
    directory) refuses the push, with a message naming it, beside good entries too."""
    storm_assignment = dict(storm_assignment, **{"good-1-1": assignment()})
    with pytest.raises(BadAssignments) as e:
        checked_storm_assignments(SupervisorAssignments(storm_assignment=storm_assignment))
    assert named in str(e.value)


@pytest.mark.parametrize("pushed", [None, SupervisorAssignments(storm_assignment=None), "x"])
def test_a_push_without_a_map_is_refused(pushed):
    """No ``storm_assignment`` map: refused (2.8.8 fails on it with a NullPointerException)."""
    with pytest.raises(BadAssignments):
        checked_storm_assignments(pushed)


def test_a_pull_replaces_the_copy_and_an_empty_answer_list_changes_nothing():
    """Port of assignedAssignmentsToLocal: the answers merged (a None answer skipped); no
    answers at all is nothing to apply."""
    first = SupervisorAssignments(storm_assignment={"wc-1-1": assignment()})
    second = SupervisorAssignments(storm_assignment={"other-2-2": assignment()})
    assert assigned_assignments_to_local([first, None, second]) == {
        "wc-1-1": first.storm_assignment["wc-1-1"],
        "other-2-2": second.storm_assignment["other-2-2"]}
    assert assigned_assignments_to_local([None]) == {}
    assert assigned_assignments_to_local([]) is None
    with pytest.raises(BadAssignments):
        assigned_assignments_to_local([SupervisorAssignments(storm_assignment={"..": first})])


def test_the_report_carries_each_written_worker_heartbeat():
    """Storm id, executors (the system executor included) and time of each worker that has
    written a heartbeat, under this supervisor's id; a worker without one is left out."""
    executors = [ExecutorInfo(1, 2), ExecutorInfo(-1, -1)]
    report = supervisor_worker_heartbeats("sup-a", {
        "w2": LSWorkerHeartbeat(time_secs=20, topology_id="wc-1-1", executors=executors,
                                port=6701),
        "w1": LSWorkerHeartbeat(time_secs=10, topology_id="wc-1-1",
                                executors=[ExecutorInfo(3, 3)], port=6700),
        "w3": None})
    assert report == SupervisorWorkerHeartbeats(supervisor_id="sup-a", worker_heartbeats=[
        SupervisorWorkerHeartbeat(storm_id="wc-1-1", executors=[ExecutorInfo(3, 3)],
                                  time_secs=10),
        SupervisorWorkerHeartbeat(storm_id="wc-1-1", executors=executors, time_secs=20)])


def test_no_worker_is_an_empty_report():
    """A supervisor without workers still reports (its id tells a new leader it is full)."""
    assert supervisor_worker_heartbeats("sup-a", {}) == SupervisorWorkerHeartbeats(
        supervisor_id="sup-a", worker_heartbeats=[])
