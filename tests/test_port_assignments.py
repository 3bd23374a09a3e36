"""Tests of pynimbus.clojure_port.assignments, the pure core of mk-assignments.

Multi-round scenarios port nimbus_test.clj (1.2.4) with a small simulated cluster: stored
Assignments go through pynimbus's ZooKeeper serialization, workers heartbeat into their slots,
and a monitor round runs every ``nimbus.monitor.freq.secs``.  The ``*_like_storm_1_2_4`` tests
hold results a real Storm 1.2.4 Nimbus (its mk-assignments over a scripted cluster state)
produced for the same input.
"""

import copy
import subprocess
import sys

from pynimbus.clojure_port import assignments as asg
from pynimbus.clojure_port.liveness import HeartbeatEntry
from pynimbus.clojure_port.scheduler.cluster import TopologyDetails, WorkerSlot
from pynimbus.cluster.serialization import deserialize, serialize
from pynimbus.cluster.state import ExecutorBeat
from pynimbus.generated.storm import ttypes

CONF = {"nimbus.task.timeout.secs": 30, "nimbus.task.launch.secs": 120,
        "nimbus.monitor.freq.secs": 10, "storm.local.dir": "/var/storm"}


def singles(n, first=1):
    """Executors [i i] for n single-task executors."""
    return [(i, i) for i in range(first, first + n)]


def supervisor_info(sid, ports, host=None):
    return ttypes.SupervisorInfo(time_secs=0, hostname=host or "host-" + sid, assignment_id=sid,
                                 meta=list(ports))


class Sim(object):
    """A simulated cluster driving compute_new_assignments as the monitor timer would."""

    def __init__(self, compat="1.x", **conf):
        self.compat = compat
        self.conf = dict(CONF, **{k.replace("_", "."): v for k, v in conf.items()})
        self.now = 0
        self.supervisors = {}
        self.topologies = {}
        self.stored = {}
        self.beats = {}
        self.cache = {}
        self.writes = 0

    def add_supervisor(self, sid, ports, host=None):
        self.supervisors[sid] = supervisor_info(sid, ports, host)

    def kill_supervisor(self, sid):
        del self.supervisors[sid]

    def submit(self, storm_id, executors, num_workers, owner="alice", storm_version=None):
        self.topologies[storm_id] = TopologyDetails(
            storm_id, {"topology.name": storm_id}, num_workers, executors=executors, owner=owner,
            storm_version=storm_version)

    def assignment(self, storm_id):
        data = self.stored.get(storm_id)
        return None if data is None else deserialize(data, ttypes.Assignment)

    def executor_slot(self, storm_id, executor):
        return asg.executor_to_node_port(self.assignment(storm_id)).get(executor)

    def slots(self, storm_id):
        """{slot: sorted executors} of the stored assignment."""
        out = {}
        for executor, slot in asg.executor_to_node_port(self.assignment(storm_id)).items():
            out.setdefault(slot, []).append(executor)
        return {slot: sorted(executors) for slot, executors in out.items()}

    def distribution(self, storm_id):
        return sorted(len(executors) for executors in self.slots(storm_id).values())

    def start_times(self, storm_id):
        return dict(self.assignment(storm_id).executor_start_time_secs)

    def beat(self, storm_id, *executors):
        """Each executor's worker writes a heartbeat listing it, at the current time."""
        for executor in executors:
            slot = self.executor_slot(storm_id, executor)
            if slot is not None:
                _, listed = self.beats.get((storm_id,) + slot, (None, frozenset()))
                self.beats[(storm_id,) + slot] = (self.now, listed | {executor})

    def executor_beats(self, scratch):
        out = {}
        for storm_id in self.stored:
            if storm_id == scratch:
                continue
            beats = {}
            for executor, slot in asg.executor_to_node_port(self.assignment(storm_id)).items():
                time_secs, listed = self.beats.get((storm_id,) + slot, (None, ()))
                if executor in listed:
                    beats[executor] = ExecutorBeat(time_secs, 10, None)
            out[storm_id] = beats
        return out

    def mk_assignments(self, scratch=None):
        existing = {t: self.assignment(t) for t in self.stored}
        new, self.cache = asg.compute_new_assignments(
            self.topologies, existing, self.supervisors, self.cache,
            self.executor_beats(scratch), self.now, self.conf, self.compat,
            scratch_topology_id=scratch)
        for storm_id, assignment in new.items():
            if asg.assignment_changed(existing.get(storm_id), assignment, self.compat):
                self.stored[storm_id] = serialize(assignment)
                self.writes += 1
        return new

    def advance(self, secs):
        freq = self.conf["nimbus.monitor.freq.secs"]
        for _ in range(secs):
            self.now += 1
            if self.now % freq == 0:
                self.mk_assignments()

    def rebalance(self, storm_id, num_workers=None, executors=None):
        topology = self.topologies[storm_id]
        self.topologies[storm_id] = TopologyDetails(
            storm_id, topology.conf,
            topology.num_workers if num_workers is None else num_workers,
            executors=topology.executors if executors is None else executors,
            owner=topology.owner)
        self.mk_assignments(scratch=storm_id)

    def check_consistency(self, storm_id, assigned=True):
        """nimbus_test.clj check-consistency."""
        assignment = self.assignment(storm_id)
        executor_to_slot = asg.executor_to_node_port(assignment)
        if assigned:
            assert set(executor_to_slot) == self.topologies[storm_id].executor_set
        assert {s.node_id for s in executor_to_slot.values()} == set(assignment.node_host)
        for executor in executor_to_slot:
            assert executor in assignment.executor_start_time_secs


def local_cluster(supervisors, ports_per_supervisor, compat="1.x", **conf):
    sim = Sim(compat, **conf)
    for i in range(supervisors):
        sim.add_supervisor("sup-%d" % i, range(1024 + 3 * i, 1024 + 3 * i + ports_per_supervisor))
    return sim


def by_port(assignment):
    out = {}
    for executor, node_info in assignment.executor_node_port.items():
        out.setdefault(next(iter(node_info.port)), []).append(executor)
    return {port: sorted(executors) for port, executors in out.items()}


# One round


def test_worked_example_two_workers_seven_executors():
    """scheduling.md: one supervisor, 2 workers, 7 executors over ports 6700 and 6701."""
    topology = TopologyDetails("topo-1-1", {}, 2, executors=singles(7), owner="alice")
    supervisors = {"sup1": supervisor_info("sup1", [6700, 6701, 6702, 6703], "host1")}
    for compat in ("1.x", "2.x"):
        new, _ = asg.compute_new_assignments({"topo-1-1": topology}, {}, supervisors, {}, {},
                                             1000, CONF, compat)
        assignment = new["topo-1-1"]
        assert by_port(assignment) == {6700: [(1, 1), (3, 3), (5, 5), (7, 7)],
                                       6701: [(2, 2), (4, 4), (6, 6)]}
        assert assignment.node_host == {"sup1": "host1"}
        assert assignment.executor_start_time_secs == {e: 1000 for e in singles(7)}
        assert assignment.master_code_dir == "/var/storm"
        assert assignment.owner == "alice"


def test_1x_assignment_writes_zero_resources_and_no_shared_off_heap():
    """1.2.4 writes WorkerResources 0.0 x 3 per slot and has no total_shared_off_heap."""
    topology = TopologyDetails("t", {}, 1, executors=singles(2))
    new, _ = asg.compute_new_assignments(
        {"t": topology}, {}, {"s": supervisor_info("s", [6700])}, {}, {}, 5, CONF, "1.x")
    assert new["t"].total_shared_off_heap is None
    assert new["t"].worker_resources == {
        ttypes.NodeInfo("s", {6700}): ttypes.WorkerResources(mem_on_heap=0.0, mem_off_heap=0.0,
                                                             cpu=0.0)}


def test_2x_assignment_has_empty_shared_off_heap_and_2x_resources():
    """2.8.8 leaves total_shared_off_heap at the struct default and fills the 2.x fields."""
    topology = TopologyDetails("t", {}, 1, executors=singles(2))
    new, _ = asg.compute_new_assignments(
        {"t": topology}, {}, {"s": supervisor_info("s", [6700])}, {}, {}, 5, CONF, "2.x")
    assert new["t"].total_shared_off_heap == {}
    resources = new["t"].worker_resources[ttypes.NodeInfo("s", {6700})]
    assert resources.shared_mem_on_heap == 0.0
    assert resources.resources == {"cpu.pcore.percent": 0.0, "offheap.memory.mb": 0.0,
                                   "onheap.memory.mb": 0.0}


def test_master_code_dir_can_be_given():
    """master_code_dir overrides storm.local.dir."""
    topology = TopologyDetails("t", {}, 1, executors=singles(1))
    new, _ = asg.compute_new_assignments(
        {"t": topology}, {}, {"s": supervisor_info("s", [6700])}, {}, {}, 5, CONF, "1.x",
        master_code_dir="/abs/storm-local")
    assert new["t"].master_code_dir == "/abs/storm-local"


def test_topology_that_never_got_a_slot_gets_no_assignment():
    """Without a supervisor nothing is assigned and no Assignment is made."""
    topology = TopologyDetails("t", {}, 2, executors=singles(3))
    new, cache = asg.compute_new_assignments({"t": topology}, {}, {}, {}, {}, 5, CONF, "1.x")
    assert new == {} and cache == {}


def test_assignment_of_an_unknown_topology_is_left_alone():
    """An assignment without topology details gets no new Assignment; its slots are free."""
    stale = ttypes.Assignment(master_code_dir="/var/storm",
                              executor_node_port={(1, 1): ttypes.NodeInfo("s", {6700})},
                              executor_start_time_secs={(1, 1): 0})
    topology = TopologyDetails("t", {}, 1, executors=singles(1))
    new, _ = asg.compute_new_assignments({"t": topology}, {"gone": stale},
                                         {"s": supervisor_info("s", [6700])}, {}, {}, 5, CONF,
                                         "1.x")
    assert list(new) == ["t"]
    assert by_port(new["t"]) == {6700: [(1, 1)]}


def test_compute_new_assignments_does_not_change_its_arguments():
    """Topologies, assignments, supervisors, cache and beats are left as they were."""
    sim = local_cluster(2, 3)
    sim.submit("t", singles(5), 2)
    sim.advance(10)
    sim.beat("t", (1, 1))
    args = ({"t": sim.topologies["t"]}, {"t": sim.assignment("t")}, dict(sim.supervisors),
            sim.cache, sim.executor_beats(None))
    before = copy.deepcopy(args)
    asg.compute_new_assignments(*args, now=100, conf=CONF, compat="1.x")
    assert args[1:] == before[1:]
    assert args[0]["t"].executors == before[0]["t"].executors


def test_unchanged_round_writes_nothing():
    """A healthy topology's next round gives an equal Assignment: nothing to write."""
    sim = local_cluster(2, 3)
    sim.submit("t", singles(5), 2)
    sim.advance(10)
    writes = sim.writes
    sim.beat("t", *singles(5))
    sim.advance(10)
    assert sim.writes == writes


def test_heartbeat_cache_covers_assigned_topologies():
    """After a round the cache holds an entry per executor of each assigned topology."""
    sim = local_cluster(1, 2)
    sim.submit("t", singles(2), 1)
    sim.advance(10)
    sim.beat("t", (1, 1))
    sim.advance(10)
    assert sim.cache == {"t": {(1, 1): HeartbeatEntry(20, 10, False, ExecutorBeat(10, 10, None)),
                               (2, 2): HeartbeatEntry(20, 0, False, None)}}


# nimbus_test.clj (1.2.4) scenarios


def test_assignment_spreads_over_nodes_then_fills_free_slots():
    """test-assignment: 6 executors on 4 workers, then 30 executors get the 8 slots left."""
    sim = local_cluster(4, 3)
    sim.submit("mystorm", singles(6), 4)
    sim.advance(11)
    sim.check_consistency("mystorm")
    assert len(sim.slots("mystorm")) == 4
    assert len({slot.node_id for slot in sim.slots("mystorm")}) == 4
    assert sim.distribution("mystorm") == [1, 1, 2, 2]
    sim.submit("storm2", singles(30), 20)
    sim.advance(11)
    sim.check_consistency("storm2")
    assert len(sim.stored) == 2
    assert len(sim.slots("storm2")) == 8


def test_zero_executor_or_tasks_uses_one_worker_per_executor():
    """test-zero-executor-or-tasks: 2 executors and 4 workers wanted give 2 workers."""
    sim = local_cluster(2, 3)
    sim.submit("mystorm", [(1, 2), (3, 7)], 4)
    sim.advance(11)
    sim.check_consistency("mystorm")
    assert len(sim.slots("mystorm")) == 2


def test_executor_assignments_place_every_executor():
    """test-executor-assignments: executors of several tasks each get a slot."""
    sim = local_cluster(2, 3)
    sim.submit("mystorm", [(1, 2), (3, 4), (5, 5), (6, 6), (7, 7), (8, 8), (9, 9), (10, 10)], 4)
    sim.advance(11)
    sim.check_consistency("mystorm")
    assert sim.distribution("mystorm") == [2, 2, 2, 2]


def test_over_parallelism_assignment_uses_num_workers_slots():
    """test-over-parallelism-assignment: 42 executors on 7 workers of 10 slots."""
    sim = local_cluster(2, 5)
    sim.submit("test", singles(42), 7)
    sim.advance(11)
    sim.check_consistency("test")
    assert len(sim.slots("test")) == 7
    assert sim.distribution("test") == [6] * 7


def test_reassignment_follows_heartbeat_and_launch_timeouts():
    """test-reassignment: timed-out executors move, heartbeating ones stay even when their
    supervisor is gone, and a cluster with no supervisor leaves an empty assignment."""
    sim = local_cluster(2, 5, nimbus_task_launch_secs=60, nimbus_task_timeout_secs=20)
    sim.submit("test", singles(2), 2)
    sim.advance(11)
    sim.check_consistency("test")
    e1, e2 = (1, 1), (2, 2)
    ass1, ass2 = sim.executor_slot("test", e1), sim.executor_slot("test", e2)

    sim.advance(30)
    sim.beat("test", e1, e2)
    sim.advance(13)
    assert (sim.executor_slot("test", e1), sim.executor_slot("test", e2)) == (ass1, ass2)
    sim.beat("test", e1)
    sim.advance(11)
    sim.beat("test", e1)
    assert sim.executor_slot("test", e1) == ass1
    sim.check_consistency("test")
    sim.advance(11)
    sim.beat("test", e1)
    assert sim.executor_slot("test", e1) == ass1
    sim.check_consistency("test")
    sim.advance(11)
    assert sim.executor_slot("test", e1) == ass1
    assert sim.executor_slot("test", e2) != ass2
    ass2 = sim.executor_slot("test", e2)
    sim.check_consistency("test")

    sim.advance(31)
    assert sim.executor_slot("test", e1) != ass1
    assert sim.executor_slot("test", e2) == ass2  # still within the launch grace
    sim.check_consistency("test")

    ass1 = sim.executor_slot("test", e1)
    active_supervisor = ass2.node_id
    sim.kill_supervisor(active_supervisor)
    for _ in range(12):
        sim.beat("test", e1, e2)
        sim.advance(10)
    assert (sim.executor_slot("test", e1), sim.executor_slot("test", e2)) == (ass1, ass2)
    sim.check_consistency("test")

    sim.advance(30)
    assert sim.executor_slot("test", e1).node_id != active_supervisor
    assert sim.executor_slot("test", e2).node_id != active_supervisor
    sim.check_consistency("test")

    for sid in list(sim.supervisors):
        sim.kill_supervisor(sid)
    sim.advance(90)
    assert sim.executor_slot("test", e1) is None and sim.executor_slot("test", e2) is None
    sim.check_consistency("test", assigned=False)

    sim.add_supervisor("sup-new", [1100, 1101])
    sim.advance(11)
    sim.check_consistency("test")


def test_reassignment_to_constrained_cluster_packs_one_worker():
    """test-reassignment-to-constrained-cluster: with supervisor b gone, both executors share
    a's only slot."""
    sim = Sim(nimbus_task_launch_secs=60, nimbus_task_timeout_secs=20)
    sim.add_supervisor("a", [1024])
    sim.add_supervisor("b", [1025])
    sim.submit("test", singles(2), 2)
    sim.advance(11)
    sim.check_consistency("test")
    e1, e2 = (1, 1), (2, 2)
    ass1, ass2 = sim.executor_slot("test", e1), sim.executor_slot("test", e2)
    sim.advance(30)
    sim.beat("test", e1, e2)
    sim.advance(13)
    assert (sim.executor_slot("test", e1), sim.executor_slot("test", e2)) == (ass1, ass2)
    sim.kill_supervisor("b")
    sim.beat("test", e1)
    for _ in range(4):
        sim.advance(11)
        sim.beat("test", e1)
    sim.check_consistency("test")
    assert len(sim.slots("test")) == 1


def test_reassign_squeezed_topology_keeps_one_slot_and_its_start_times():
    """test-reassign-squeezed-topology: [9] -> [3 3 3] -> [2 2 2 3]; the kept 3-slot keeps its
    executors and start times, every other executor restarts."""
    sim = Sim(nimbus_task_launch_secs=60, nimbus_task_timeout_secs=20)
    sim.add_supervisor("sup-a", [6700])
    sim.submit("test", singles(9), 4)
    sim.advance(11)
    assert sim.distribution("test") == [9]
    sim.check_consistency("test")

    sim.add_supervisor("sup-b", [6700, 6701])
    sim.advance(11)
    slot_executors = sim.slots("test")
    start = sim.start_times("test")
    assert sim.distribution("test") == [3, 3, 3]
    sim.check_consistency("test")

    sim.add_supervisor("sup-c", range(6700, 6708))
    sim.advance(11)
    slot_executors2 = sim.slots("test")
    start2 = sim.start_times("test")
    assert sim.distribution("test") == [2, 2, 2, 3]
    sim.check_consistency("test")
    common = [slot for slot, executors in slot_executors2.items() if len(executors) == 3]
    assert len(common) == 1
    assert slot_executors2[common[0]] == slot_executors[common[0]]
    for executor in slot_executors2[common[0]]:
        assert start2[executor] == start[executor]
    for slot, executors in slot_executors2.items():
        if slot != common[0]:
            for executor in executors:
                assert start2[executor] != start[executor]


def test_reassign_squeezed_topology_like_storm_1_2_4():
    """The squeezed topology's slots in each round, as a real 1.2.4 Nimbus placed them."""
    sim = Sim(nimbus_task_launch_secs=60, nimbus_task_timeout_secs=20)
    sim.add_supervisor("sup-a", [6700], "host-a")
    sim.submit("squeezed-1-1", singles(9), 4)
    sim.advance(10)
    sim.add_supervisor("sup-b", [6700, 6701], "host-b")
    sim.beat("squeezed-1-1", *singles(9))
    sim.advance(10)
    assert sim.slots("squeezed-1-1") == {
        ("sup-b", 6700): [(1, 1), (4, 4), (7, 7)], ("sup-a", 6700): [(2, 2), (5, 5), (8, 8)],
        ("sup-b", 6701): [(3, 3), (6, 6), (9, 9)]}
    sim.add_supervisor("sup-c", range(6700, 6708), "host-c")
    sim.beat("squeezed-1-1", *singles(9))
    sim.advance(10)
    assert sim.slots("squeezed-1-1") == {
        ("sup-c", 6704): [(1, 1), (6, 6)], ("sup-a", 6700): [(2, 2), (5, 5), (8, 8)],
        ("sup-b", 6700): [(3, 3), (7, 7)], ("sup-c", 6705): [(4, 4), (9, 9)]}
    assert sim.start_times("squeezed-1-1") == {
        (1, 1): 30, (2, 2): 20, (3, 3): 30, (4, 4): 30, (5, 5): 20, (6, 6): 30, (7, 7): 30,
        (8, 8): 20, (9, 9): 30}


def test_rebalance_spreads_a_topology_over_new_nodes():
    """test-rebalance: nothing moves when supervisors join; a rebalance spreads 3 workers over
    3 nodes."""
    sim = local_cluster(1, 3)
    sim.submit("test", singles(3), 3)
    sim.advance(11)
    sim.add_supervisor("sup-x", [2000, 2001, 2002])
    sim.add_supervisor("sup-y", [3000, 3001, 3002])
    sim.beat("test", *singles(3))
    sim.advance(11)
    assert sim.distribution("test") == [1, 1, 1]
    assert len({s.node_id for s in sim.slots("test")}) == 1
    sim.rebalance("test")
    assert sim.distribution("test") == [1, 1, 1]
    assert len({s.node_id for s in sim.slots("test")}) == 3
    assert set(sim.start_times("test").values()) == {sim.now}


def test_rebalance_change_parallelism():
    """test-rebalance-change-parallelism: 6 executors of 12 tasks on 3, then 6 workers, then 1
    executor, then 8 executors on 4 workers."""
    sim = local_cluster(4, 3)
    six = [(1, 2), (3, 4), (5, 6), (7, 8), (9, 10), (11, 12)]
    sim.submit("test", six, 3)
    sim.advance(11)
    assert sim.distribution("test") == [2, 2, 2]
    sim.rebalance("test", num_workers=6)
    assert sim.distribution("test") == [1, 1, 1, 1, 1, 1]
    sim.rebalance("test", executors=[(1, 12)])
    assert sim.distribution("test") == [1]
    eight = [(1, 2), (3, 4), (5, 6), (7, 8), (9, 9), (10, 10), (11, 11), (12, 12)]
    sim.rebalance("test", num_workers=4, executors=eight)
    assert sim.distribution("test") == [2, 2, 2, 2]
    sim.check_consistency("test")


def slot_owners(sim):
    owners = {}
    for storm_id in sim.stored:
        for slot in sim.slots(storm_id):
            owners.setdefault(slot, []).append(storm_id)
    return owners


def test_no_overlapping_slots_on_a_constrained_cluster():
    """test-rebalance-constrained-cluster: three topologies on 4 slots never share a slot, the
    one left out gets no Assignment, and a rebalance to 4 workers keeps it so."""
    sim = local_cluster(1, 4)
    for name in ("test", "test2", "test3"):
        sim.submit(name, singles(3), 3)
    sim.advance(11)
    assert all(len(owners) == 1 for owners in slot_owners(sim).values())
    assert len(sim.stored) == 2
    sim.rebalance("test", num_workers=4)
    assert all(len(owners) == 1 for owners in slot_owners(sim).values())
    for name in sim.stored:
        for executor in sim.topologies[name].executors:
            sim.beat(name, executor)
    sim.advance(30)
    assert all(len(owners) == 1 for owners in slot_owners(sim).values())


def test_node_host_keeps_the_host_of_a_vanished_supervisor():
    """An alive executor on a supervisor that vanished keeps its slot and node_host entry."""
    sim = Sim()
    sim.add_supervisor("a", [1], "host-a")
    sim.add_supervisor("b", [1], "host-b")
    sim.submit("t", singles(2), 2)
    sim.advance(10)
    sim.kill_supervisor("b")
    sim.beat("t", *singles(2))
    sim.advance(10)
    assert sim.assignment("t").node_host == {"a": "host-a", "b": "host-b"}


# Results of a real Storm 1.2.4 Nimbus


SUPERVISOR_IDS = ["b3c1e7a2-0f4d-4c1b-9a55-%012d" % i for i in range(10)]


def test_ten_supervisors_three_topologies_like_storm_1_2_4():
    """Ten supervisors (four with ports 6700-6711) and three topologies: 1.2.4's slots."""
    supervisors = {}
    for i, sid in enumerate(SUPERVISOR_IDS):
        ports = range(6700, 6704) if i % 3 else range(6700, 6712)
        supervisors[sid] = supervisor_info(sid, ports, "node%d.example.com" % i)
    topologies = {
        "wordcount-1-1700000000": TopologyDetails(
            "wordcount-1-1700000000", {}, 6, executors=[(1, 2), (3, 4)] + singles(13, 5),
            owner="bob"),
        "exclaim-2-1700000100": TopologyDetails("exclaim-2-1700000100", {}, 3,
                                                executors=singles(7), owner="bob"),
        "trident-3-1700000200": TopologyDetails("trident-3-1700000200", {}, 12,
                                                executors=singles(29), owner="carol"),
    }
    new, _ = asg.compute_new_assignments(topologies, {}, supervisors, {}, {}, 10, CONF, "1.x")

    def slots(storm_id):
        out = {}
        for executor, slot in asg.executor_to_node_port(new[storm_id]).items():
            out.setdefault((int(slot.node_id[-1]), slot.port), []).append(executor)
        return {k: sorted(v) for k, v in out.items()}

    assert slots("exclaim-2-1700000100") == {
        (9, 6704): [(1, 1), (4, 4), (7, 7)], (6, 6704): [(2, 2), (5, 5)],
        (0, 6704): [(3, 3), (6, 6)]}
    assert slots("trident-3-1700000200") == {
        (3, 6704): [(1, 1), (13, 13), (25, 25)], (9, 6705): [(2, 2), (14, 14), (26, 26)],
        (6, 6705): [(3, 3), (15, 15), (27, 27)], (0, 6705): [(4, 4), (16, 16), (28, 28)],
        (8, 6700): [(5, 5), (17, 17), (29, 29)], (4, 6700): [(6, 6), (18, 18)],
        (1, 6700): [(7, 7), (19, 19)], (2, 6700): [(8, 8), (20, 20)],
        (5, 6700): [(9, 9), (21, 21)], (7, 6700): [(10, 10), (22, 22)],
        (3, 6705): [(11, 11), (23, 23)], (9, 6706): [(12, 12), (24, 24)]}
    assert slots("wordcount-1-1700000000") == {
        (6, 6706): [(1, 2), (9, 9), (15, 15)], (0, 6706): [(3, 4), (10, 10), (16, 16)],
        (3, 6706): [(5, 5), (11, 11), (17, 17)], (9, 6707): [(6, 6), (12, 12)],
        (8, 6701): [(7, 7), (13, 13)], (4, 6701): [(8, 8), (14, 14)]}


def test_topologies_competing_for_slots_are_served_like_storm_1_2_4():
    """Ten one-worker topologies and four slots: 1.2.4's Topologies order picks the winners."""
    topologies = {}
    for i in range(10):
        storm_id = "topo%d-%d-1700000000" % (i, i)
        topologies[storm_id] = TopologyDetails(storm_id, {}, 1, executors=[(1, 1)], owner="o")
    supervisors = {"only": supervisor_info("only", [6700, 6701, 6702, 6703], "h")}
    new, _ = asg.compute_new_assignments(topologies, {}, supervisors, {}, {}, 10, CONF, "1.x")
    assert {t: next(iter(a.executor_node_port.values())).port for t, a in new.items()} == {
        "topo8-8-1700000000": {6700}, "topo9-9-1700000000": {6701},
        "topo6-6-1700000000": {6702}, "topo0-0-1700000000": {6703}}


# 2.x liveness in mk-assignments


def test_2x_rpc_topology_without_rpc_beats_is_rescheduled_after_launch_grace():
    """2.x ignores ZooKeeper beats of a Storm 2 topology: without RPC beats it moves."""
    sim = Sim("2.x", nimbus_task_launch_secs=60, nimbus_task_timeout_secs=20)
    sim.add_supervisor("a", [1, 2])
    sim.submit("t", singles(1), 1)
    sim.advance(10)
    slot = sim.executor_slot("t", (1, 1))
    for _ in range(7):
        sim.beat("t", (1, 1))
        sim.advance(10)
    assert sim.executor_slot("t", (1, 1)) != slot


def test_2x_zookeeper_topology_stays_while_it_beats():
    """2.x still reads ZooKeeper beats for a topology built by Storm 1.x."""
    sim = Sim("2.x", nimbus_task_launch_secs=60, nimbus_task_timeout_secs=20)
    sim.add_supervisor("a", [1, 2])
    sim.submit("t", singles(1), 1, storm_version="1.2.4")
    sim.advance(10)
    slot = sim.executor_slot("t", (1, 1))
    for _ in range(10):
        sim.beat("t", (1, 1))
        sim.advance(10)
    assert sim.executor_slot("t", (1, 1)) == slot


# Helpers


def test_changed_executors_lists_executors_of_changed_slots():
    """A slot whose executor set changed brings all its executors; identical slots none."""
    old = {(1, 1): ("a", 1), (2, 2): ("a", 1), (3, 3): ("b", 1)}
    new = {(1, 1): ("a", 1), (2, 2): ("a", 1), (3, 3): ("c", 1), (4, 4): ("c", 1)}
    assert asg.changed_executors(old, new) == [(3, 3), (4, 4)]
    assert asg.changed_executors(None, {(1, 1): ("a", 1)}) == [(1, 1)]


def test_newly_added_slots_are_slots_not_used_before():
    """newly-added-slots: the slots of the new assignment missing from the old one."""
    old = ttypes.Assignment("d", executor_node_port={(1, 1): ttypes.NodeInfo("a", {1})})
    new = ttypes.Assignment("d", executor_node_port={(1, 1): ttypes.NodeInfo("a", {1}),
                                                     (2, 2): ttypes.NodeInfo("b", {7})})
    assert asg.newly_added_slots(old, new) == {WorkerSlot("b", 7)}
    assert asg.newly_added_slots(None, new) == {("a", 1), ("b", 7)}


def test_assignment_changed_ignores_total_shared_off_heap_in_1x_only():
    """A stored 1.x Assignment decodes with total_shared_off_heap {}; 1.x does not compare it."""
    new = ttypes.Assignment("d", owner="o", total_shared_off_heap=None)
    stored = deserialize(serialize(new), ttypes.Assignment)
    assert not asg.assignment_changed(stored, new)
    assert asg.assignment_changed(None, new)
    assert asg.assignment_changed(stored, ttypes.Assignment("d", owner="p"))
    assert asg.assignment_changed(ttypes.Assignment("d", total_shared_off_heap={"n": 1.0}),
                                  ttypes.Assignment("d"), "2.x")
    assert not asg.assignment_changed(ttypes.Assignment("d", total_shared_off_heap={"n": 1.0}),
                                      ttypes.Assignment("d"))


def test_pure_core_imports_neither_twisted_nor_kazoo():
    """The scheduling half of clojure_port loads without Twisted or kazoo."""
    code = ("import sys\n"
            "import pynimbus.clojure_port.assignments, pynimbus.clojure_port.liveness\n"
            "import pynimbus.clojure_port.scheduler, pynimbus.clojure_port.java_order\n"
            "print(' '.join(m for m in sys.modules if m.split('.')[0] in ('twisted', 'kazoo')))\n")
    loaded = subprocess.run([sys.executable, "-c", code], check=True, capture_output=True,
                            text=True).stdout.split()
    assert loaded == []
