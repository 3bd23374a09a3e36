"""JStorm's topology master under ``pynimbus.scheduler: jstorm``: when a topology has one, its
place in the system topology, the Python worker's heartbeat relay and the one cluster-state
record Nimbus reads (``pynimbus.jstorm_port.topology_master``, ``pynimbus.worker.topology_master``).
"""

import json

from pynimbus.clojure_port import system_topology, tasks
from pynimbus.cluster.serialization import deserialize, serialize
from pynimbus.generated.storm import ttypes
from pynimbus.jstorm_port.topology_master import stamp_scheduler
from pynimbus.worker.executor import TupleImpl
from pynimbus.worker.topology_master import (
    HeartbeatRouting, TopologyMasterExecutor, combined_heartbeat, heartbeat_values)
from test_cluster_state import TOPOLOGY, heartbeat, state  # noqa: F401 (the fixture)
from test_nimbus_scenarios import bolt, spout, topology

HB_STREAM = "__master_task_heartbeat"  # the stream as JStorm names it
JSTORM_MASTER = {"topology.workers": 2, "topology.acker.executors": 1,
                 "pynimbus.scheduler": "jstorm", "topology.master.single.worker": False}


def exclaim():
    return topology({"word": spout(parallelism=2, tasks_=2)},
                    {"exclaim": bolt(["word"], parallelism=3, tasks_=3)})


def test_a_jstorm_topology_asking_for_a_master_gets_one_reading_every_heartbeat_stream():
    """``topology.master.single.worker`` set under jstorm: one ``__topology_master`` task,
    reading the heartbeat stream every spout and bolt (the acker included) declares."""
    system = system_topology.system_topology(JSTORM_MASTER, exclaim(), "1.x")
    master = system.bolts["__topology_master"]
    assert sorted((s.componentId, s.streamId) for s in master.common.inputs) == [
        ("__acker", HB_STREAM), ("exclaim", HB_STREAM), ("word", HB_STREAM)]
    assert all(g.all is not None for g in master.common.inputs.values())
    for cid in ("word", "exclaim", "__acker"):
        component = system.spouts.get(cid) or system.bolts[cid]
        assert component.common.streams[HB_STREAM].output_fields == ["hbEvent"]
    task_info = tasks.storm_task_info(exclaim(), JSTORM_MASTER, "1.x")
    assert sorted(t for t, c in task_info.items() if c == "__topology_master") == [4]


def test_no_master_without_the_key_or_without_the_jstorm_scheduler():
    """Without ``topology.master.single.worker``, or under the default scheduler, the system
    topology is Storm's."""
    for conf in (dict(JSTORM_MASTER, **{"topology.master.single.worker": None}),
                 dict(JSTORM_MASTER, **{"pynimbus.scheduler": "default"})):
        system = system_topology.system_topology(conf, exclaim(), "1.x")
        assert "__topology_master" not in system.bolts


def test_the_stored_conf_carries_the_scheduler_only_for_a_topology_asking_for_a_master():
    """The submission stamps Nimbus's ``pynimbus.scheduler`` so every reader of the stored
    conf builds the same system topology (a topology conf naming jstorm itself does not get a
    master from a default Nimbus); other confs are left as they are."""
    asked = {"topology.master.single.worker": True}
    assert stamp_scheduler(asked, {"pynimbus.scheduler": "jstorm"}) == dict(
        asked, **{"pynimbus.scheduler": "jstorm"})
    claimed = dict(asked, **{"pynimbus.scheduler": "jstorm"})
    assert stamp_scheduler(claimed, {"pynimbus.scheduler": "default"}) == dict(
        asked, **{"pynimbus.scheduler": "default"})
    assert stamp_scheduler(claimed, {}) == dict(asked, **{"pynimbus.scheduler": "default"})
    unasked = {"pynimbus.scheduler": "jstorm"}
    assert stamp_scheduler(unasked, {"pynimbus.scheduler": "jstorm"}) is unasked


def test_nimbus_reads_the_masters_record_for_every_executor_it_lists(state):  # noqa: F811
    """One record at the master's slot speaks for the executors of the other workers too; an
    executor's own worker's record wins where there is one."""
    slot_a, slot_b = ttypes.NodeInfo("sup-a", {6700}), ttypes.NodeInfo("sup-b", {6700})
    state.setup_heartbeats(TOPOLOGY)
    state.worker_heartbeat(TOPOLOGY, "sup-a", 6700,
                           heartbeat([(1, 1), (2, 2), (3, 3), (-1, -1)], 50))
    beats = state.executor_beats(TOPOLOGY, {(1, 1): slot_a, (2, 2): slot_b, (3, 3): slot_b})
    assert sorted(beats) == [(1, 1), (2, 2), (3, 3)]
    assert {b.time_secs for b in beats.values()} == {50}
    state.worker_heartbeat(TOPOLOGY, "sup-b", 6700, heartbeat([(2, 2), (-1, -1)], 60))
    beats = state.executor_beats(TOPOLOGY, {(1, 1): slot_a, (2, 2): slot_b, (3, 3): slot_b})
    assert beats[(2, 2)].time_secs == 60 and beats[(3, 3)].time_secs == 50


class RecordingState:
    def __init__(self):
        self.written = []

    def worker_heartbeat(self, storm_id, node, port, info):
        self.written.append((storm_id, node, port, info))


class Transfers:
    def __init__(self):
        self.sent = []

    def __call__(self, dest_task, source_task, stream, message_id, values):
        self.sent.append((dest_task, source_task, stream, values))


TASK_TO_COMPONENT = {1: "__acker", 2: "__topology_master", 3: "word"}


def routing(master=None, node="sup-b", port=6701, task_to_component=TASK_TO_COMPONENT):
    """A worker's HeartbeatRouting at ``node:port`` (at 130 s, started at 100 s), with its
    transfers and writes recorded."""
    return HeartbeatRouting(task_to_component, master, Transfers(), RecordingState(), TOPOLOGY,
                            node, port, lambda: 130.0, 100)


def master_context():
    """What the master's executor reads of its worker here: a conf and a loop."""
    from twisted.internet import task

    from pynimbus.worker.executor import WorkerContext
    from pynimbus.worker.receive_queue import ExecutorLoop
    fields = dict.fromkeys(WorkerContext._fields)
    fields.update(storm_conf={}, loop=ExecutorLoop(task.Clock().callLater, lambda: None))
    return WorkerContext(**fields)


def master_executor():
    return TopologyMasterExecutor(master_context(), "__topology_master", [2], {}, {}, None)


def test_a_worker_without_the_master_sends_its_heartbeat_to_it_and_writes_nothing():
    worker = routing()
    own = heartbeat([(3, 3), (-1, -1)], 120)
    assert worker.writer(own) is None
    [(dest, source, stream, values)] = worker.transfer.sent
    assert (dest, source, stream) == (2, -1, HB_STREAM)
    master = master_executor()
    master.accept(2, TupleImpl(-1, "__system", HB_STREAM, values, None))
    [stored] = master.take_relayed().values()
    assert deserialize(stored, ttypes.ClusterWorkerHeartbeat) == own
    assert master.take_relayed() == {}
    assert worker.cluster_state.written == []


def test_without_a_master_a_worker_writes_its_own_heartbeat_at_its_slot():
    worker = routing(task_to_component={1: "__acker", 3: "word"})
    own = heartbeat([(3, 3), (-1, -1)], 120)
    worker.writer(own)()
    assert worker.cluster_state.written == [(TOPOLOGY, "sup-b", 6701, own)]
    assert worker.writer(None) is None


def test_the_masters_worker_writes_one_record_of_the_period():
    """Its own executors and every heartbeat relayed since the last record, at its time and
    uptime; the relayed ones are taken (a worker that stops sending drops out)."""
    master = master_executor()
    relayed = heartbeat([(3, 3), (-1, -1)], 120)
    master.accept(2, TupleImpl(-1, "__system", HB_STREAM,
                               heartbeat_values(relayed, "sup-b", 6701), None))
    worker = routing(master, node="sup-a", port=6700)
    worker.writer(heartbeat([(1, 1), (2, 2), (-1, -1)], 130))()
    [(_, node, port, record)] = worker.cluster_state.written
    assert (node, port) == ("sup-a", 6700)
    assert sorted((e.task_start, e.task_end) for e in record.executor_stats) == [
        (-1, -1), (1, 1), (2, 2), (3, 3)]
    assert (record.time_secs, record.uptime_secs) == (130, 30)
    worker.writer(heartbeat([(1, 1), (2, 2), (-1, -1)], 133))()
    again = worker.cluster_state.written[-1][3]
    assert (3, 3) not in [(e.task_start, e.task_end) for e in again.executor_stats]
    assert worker.transfer.sent == []


def test_a_malformed_heartbeat_tuple_is_dropped():
    master = master_executor()
    master.accept(2, TupleImpl(7, "word", HB_STREAM, ["too few"], None))
    master.accept(2, TupleImpl(7, "word", HB_STREAM, [[b"", "sup-b"]], None))
    master.accept(2, TupleImpl(7, "word", HB_STREAM, [[b"", "sup-b", "port"]], None))
    assert master.take_relayed() == {}
    assert combined_heartbeat(TOPOLOGY, None, {}, 1, 1) is None


def test_the_record_holds_every_executor_once():
    """An executor sent by two slots is read once, as the later report (own worker's last); a
    heartbeat that does not decode is left out."""
    a = heartbeat([(3, 3), (4, 4), (-1, -1)], 5)
    own = heartbeat([(1, 1), (4, 4), (-1, -1)], 6)
    [[stored, _, _]] = heartbeat_values(a, "sup-b", 6701)
    record = combined_heartbeat(TOPOLOGY, own, {("sup-b", 6701): stored,
                                                ("sup-c", 6702): b"not a heartbeat"}, 130, 30)
    assert (record.storm_id, record.time_secs, record.uptime_secs) == (TOPOLOGY, 130, 30)
    assert sorted((e.task_start, e.task_end) for e in record.executor_stats) == [
        (-1, -1), (1, 1), (3, 3), (4, 4)]
    assert record.executor_stats[ttypes.ExecutorInfo(4, 4)] == own.executor_stats[
        ttypes.ExecutorInfo(4, 4)]
    assert deserialize(serialize(record), ttypes.ClusterWorkerHeartbeat) == record


def test_json_conf_of_the_master_sets_one_task():
    system = system_topology.system_topology(JSTORM_MASTER, exclaim(), "1.x")
    conf = json.loads(system.bolts["__topology_master"].common.json_conf)
    assert conf["topology.tasks"] == 1
