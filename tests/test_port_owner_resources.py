"""Tests for pynimbus.clojure_port.owner_resources: getOwnerResourceSummaries' sums."""
# test-case-name: tests.test_port_owner_resources

from pynimbus.clojure_port.owner_resources import owner_resource_summaries
from pynimbus.generated.storm.ttypes import Assignment, NodeInfo, StormBase, TopologyStatus


def base(name, owner):
    return StormBase(name=name, status=TopologyStatus.ACTIVE, num_workers=1, owner=owner)


BASES = {"a-1-1": base("a", "alice"), "b-2-2": base("b", "alice"), "c-3-3": base("c", "bob")}
ASSIGNMENTS = {
    "a-1-1": Assignment(master_code_dir="/x", executor_node_port={
        (1, 1): NodeInfo("s1", {6700}), (2, 4): NodeInfo("s1", {6700}),
        (5, 5): NodeInfo("s2", {6701})}),
    "c-3-3": Assignment(master_code_dir="/x", executor_node_port={(1, 2): NodeInfo("s1", {6702})}),
}
RESOURCES = {"a-1-1": [128.0, 0.0, 10.0, 256.0, 64.0, 20.0],
             "b-2-2": [64.0, 32.0, 5.0, 0.0, 0.0, 0.0],
             "c-3-3": [1.0, 2.0, 3.0, 4.0, 5.0, 6.0]}


def test_one_owner_sums_figures_and_counts_executors_workers_tasks():
    """alice: two topologies, the executors/workers/tasks of a's assignment, summed figures."""
    [alice] = owner_resource_summaries("alice", BASES, ASSIGNMENTS, RESOURCES)
    assert (alice.owner, alice.total_topologies, alice.total_executors, alice.total_workers,
            alice.total_tasks) == ("alice", 2, 3, 2, 5)
    assert (alice.requested_on_heap_memory, alice.requested_off_heap_memory,
            alice.requested_total_memory, alice.requested_cpu) == (192.0, 32.0, 224.0, 15.0)
    assert (alice.assigned_on_heap_memory, alice.assigned_off_heap_memory, alice.memory_usage,
            alice.cpu_usage) == (256.0, 64.0, 320.0, 20.0)
    assert alice.memory_guarantee is None and alice.isolated_node_guarantee is None


def test_all_owners_and_an_owner_without_topologies():
    """None lists each owner (sorted); a named owner without topologies gets zeros."""
    assert [s.owner for s in owner_resource_summaries(None, BASES, ASSIGNMENTS, RESOURCES)] == [
        "alice", "bob"]
    [nobody] = owner_resource_summaries("nobody", BASES, ASSIGNMENTS, RESOURCES)
    assert (nobody.total_topologies, nobody.total_executors, nobody.memory_usage) == (0, 0, 0.0)


def test_a_topology_without_figures_counts_but_adds_nothing():
    """Storm's NotAliveException branch: counted in total_topologies only."""
    [alice] = owner_resource_summaries("alice", BASES, ASSIGNMENTS, {"b-2-2": RESOURCES["b-2-2"]})
    assert (alice.total_topologies, alice.total_executors, alice.requested_cpu) == (2, 0, 5.0)
