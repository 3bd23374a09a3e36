"""The linear DRPC topology builder (:mod:`pynimbus.drpc.linear`), without a cluster: the
topology it makes against what Storm 1.2.4's ``LinearDRPCTopologyBuilder.createTopology``
makes (component ids, streams, fields, groupings), and ``CoordinatedBolt``'s counting
(:class:`~pynimbus.drpc.linear.Coordinator`) and ``TimeCacheMap`` on their own."""

import json

import pytest
from pystorm.component import Tuple
from streamparse import Bolt, Stream

from drpc_programs.basic_drpc import BasicDRPCTopology
from drpc_programs.reach import ReachTopology
from pynimbus.drpc.linear import (
    COORDINATED_STREAM_ID, LINEAR_CONF, BaseBatchBolt, Coordinator, FailedException,
    IllegalStateError, LinearDRPCTopologyBuilder, TimeCacheMap)
from pynimbus.testing import validate_as_nimbus
from pynimbus.tools.sparse_project import submitted_topology

COORD = COORDINATED_STREAM_ID


def grouping_of(grouping):
    """A Thrift grouping as ``"none"``, ``"shuffle"``, ``"direct"``, ``("fields", [...])``."""
    for kind in ("none", "shuffle", "direct", "all", "local_or_shuffle"):
        if getattr(grouping, kind) is not None:
            return kind
    return ("fields", list(grouping.fields))


def shape(topology_class):
    """``{component: (kind, script, parallelism, {(source, stream): grouping},
    {stream: (fields, direct)})}`` of the topology as submitted."""
    topology = submitted_topology(topology_class)
    validate_as_nimbus(topology)
    ret = {}
    for kind, components in (("spout", topology.spouts), ("bolt", topology.bolts)):
        for component_id, component in components.items():
            obj = component.spout_object if kind == "spout" else component.bolt_object
            common = component.common
            ret[component_id] = (
                kind, obj.shell.script, common.parallelism_hint,
                {(g.componentId, g.streamId): grouping_of(grouping)
                 for g, grouping in (common.inputs or {}).items()},
                {stream: (list(info.output_fields), info.direct)
                 for stream, info in (common.streams or {}).items()})
    return ret


SPOUT = ("spout", "pynimbus.drpc.components.DRPCSpout", 1, {},
         {"default": (["args", "return_info"], False)})
PREPARE = ("bolt", "pynimbus.drpc.linear.PrepareRequest", 1,
           {("spout", "default"): "none"},
           {"default": (["request", "args"], False),
            "ret": (["request", "return_info"], False),
            "id": (["request"], False)})
COORDINATED = "pynimbus.drpc.linear.CoordinatedBolt"
COORD_STREAM = (["id", "count"], True)


def join(source):
    return ("bolt", "pynimbus.drpc.linear.JoinResult", 1,
            {(source, "default"): ("fields", ["id"]),
             ("prepare-request", "ret"): ("fields", ["request"])},
            {"default": (["result", "return_info"], False)})


def returner(source):
    return ("bolt", "pynimbus.drpc.components.ReturnResults", 1,
            {(source, "default"): "none"}, {})


def test_reach_has_the_components_streams_and_groupings_storms_builder_makes():
    assert shape(ReachTopology) == {
        "spout": SPOUT,
        "prepare-request": PREPARE,
        "bolt0": ("bolt", COORDINATED, 4, {("prepare-request", "default"): "none"},
                  {"default": (["id", "tweeter"], False), COORD: COORD_STREAM}),
        "bolt1": ("bolt", COORDINATED, 12, {("bolt0", "default"): "shuffle",
                                            ("bolt0", COORD): "direct"},
                  {"default": (["id", "follower"], False), COORD: COORD_STREAM}),
        "bolt2": ("bolt", COORDINATED, 6, {("bolt1", "default"): ("fields", ["id", "follower"]),
                                           ("bolt1", COORD): "direct"},
                  {"default": (["id", "partial_count"], False), COORD: COORD_STREAM}),
        # the last bolt finishes (a batch bolt): it also reads the request ids
        "bolt3": ("bolt", COORDINATED, 3, {("prepare-request", "id"): ("fields", ["request"]),
                                           ("bolt2", "default"): ("fields", ["id"]),
                                           ("bolt2", COORD): "direct"},
                  {"default": (["id", "reach"], False), COORD: COORD_STREAM}),
        "bolt4": join("bolt3"),
        "bolt5": returner("bolt4"),
    }
    assert COORD == "org.apache.storm.coordination.CoordinatedBolt/coord-stream"


def test_each_coordinated_bolt_knows_its_bolt_sources_and_id_stream_from_the_conf():
    conf = ReachTopology.config
    assert conf["pynimbus.drpc.function"] == "reach"
    assert conf[LINEAR_CONF] == {
        "bolt0": {"bolt": "drpc_programs.reach.GetTweeters", "batch": False, "source_args": {},
                  "id_stream": None, "delegate_ticks": False},
        "bolt1": {"bolt": "drpc_programs.reach.GetFollowers", "batch": False,
                  "source_args": {"bolt0": "single"}, "id_stream": None,
                  "delegate_ticks": False},
        "bolt2": {"bolt": "drpc_programs.reach.PartialUniquer", "batch": True,
                  "source_args": {"bolt1": "all"}, "id_stream": None, "delegate_ticks": False},
        "bolt3": {"bolt": "drpc_programs.reach.CountAggregator", "batch": True,
                  "source_args": {"bolt2": "all"}, "id_stream": ["prepare-request", "id"],
                  "delegate_ticks": False},
    }
    json.dumps(conf)  # it travels in the topology's JSON conf
    topology = submitted_topology(ReachTopology)
    # the coordinated bolts tick each second (their request ids expire on ticks)
    assert {c: json.loads(topology.bolts[c].common.json_conf)
            for c in ("bolt0", "bolt3", "bolt5")} == {
        c: {"topology.tick.tuple.freq.secs": 1} for c in ("bolt0", "bolt3", "bolt5")}


def test_one_bolt_that_does_not_finish_reads_only_the_args():
    assert shape(BasicDRPCTopology) == {
        "spout": SPOUT,
        "prepare-request": PREPARE,
        "bolt0": ("bolt", COORDINATED, 3, {("prepare-request", "default"): "none"},
                  {"default": (["id", "result"], False), COORD: COORD_STREAM}),
        "bolt1": join("bolt0"),
        "bolt2": returner("bolt1"),
    }


class Finishing(Bolt):
    outputs = ["request", "result"]

    def process(self, tup):
        pass

    def finished_id(self, request_id):
        self.emit([request_id, "done"])


class Many(Bolt):
    outputs = [Stream(["request", "a"]), Stream(["request", "b"], "other")]

    def process(self, tup):
        pass


class ThreeFields(Bolt):
    outputs = ["request", "a", "b"]

    def process(self, tup):
        pass


class Batch(BaseBatchBolt):
    outputs = ["request", "n"]
    config = {"topology.tick.tuple.freq.secs": 5, "some.setting": "x"}


def test_a_single_finishing_bolt_reads_the_args_and_the_ids_and_declarations_apply_to_it():
    builder = LinearDRPCTopologyBuilder("f")
    builder.add_bolt(Finishing, par=3)
    bolt0 = shape(builder.create_topology())["bolt0"]
    assert bolt0[3] == {("prepare-request", "id"): ("fields", ["request"]),
                        ("prepare-request", "default"): "none"}
    builder = LinearDRPCTopologyBuilder("f")
    builder.add_bolt(Finishing).shuffle_grouping().all_grouping("ret")
    assert shape(builder.create_topology())["bolt0"][3] == {
        ("prepare-request", "id"): ("fields", ["request"]),
        ("prepare-request", "default"): "shuffle", ("prepare-request", "ret"): "all"}


def test_a_later_bolt_declaring_nothing_reads_only_the_coordination_stream():
    """As Storm's builder: no declaration, no input from the previous bolt's streams."""
    builder = LinearDRPCTopologyBuilder("f")
    builder.add_bolt(Finishing, par=2)
    builder.add_bolt(Batch, par=2)
    assert shape(builder.create_topology())["bolt1"][3] == {
        ("prepare-request", "id"): ("fields", ["request"]), ("bolt0", COORD): "direct"}


def test_component_conf_is_the_bolts_own_then_the_declared_ones():
    builder = LinearDRPCTopologyBuilder("f")
    builder.add_bolt(Batch).add_configuration("some.setting", "y").add_configurations(
        {"other": 1})
    topology = submitted_topology(builder.create_topology())
    assert json.loads(topology.bolts["bolt0"].common.json_conf) == {
        "topology.tick.tuple.freq.secs": 5, "some.setting": "y", "other": 1}


@pytest.mark.parametrize("last, message", [
    (Many, "must declare one output stream"), (ThreeFields, "must have two fields")])
def test_the_last_bolt_must_emit_one_stream_of_id_and_result(last, message):
    builder = LinearDRPCTopologyBuilder("f")
    builder.add_bolt(last)
    with pytest.raises(ValueError, match=message):
        builder.create_topology()


def test_bolts_must_be_module_level_pystorm_or_batch_bolt_classes():
    class Local(Bolt):
        outputs = ["id", "x"]
    builder = LinearDRPCTopologyBuilder("f")
    with pytest.raises(ValueError, match="not a module-level class"):
        builder.add_bolt(Local)
    with pytest.raises(TypeError, match="neither a pystorm Bolt class nor a BaseBatchBolt"):
        builder.add_bolt(object)
    with pytest.raises(ValueError, match="at least one bolt"):
        builder.create_topology()


# -- the coordination, pure


class Collector(object):
    """The coordinated component's own emit, ack and fail, recorded in order."""

    def __init__(self, fanout=None):
        self.calls = []
        self.fanout = fanout or {}  # stream -> the tasks a grouped emit goes to

    def emit(self, values, stream, anchors, direct_task=None):
        tasks = [direct_task] if direct_task is not None else self.fanout.get(stream, [])
        self.calls.append(("emit", stream, list(values), [a.id for a in anchors], direct_task))
        return tasks

    def ack(self, tup):
        self.calls.append(("ack", tup.id))

    def fail(self, tup):
        self.calls.append(("fail", tup.id))

    def report_error(self, error):
        self.calls.append(("error", str(error)))


class Delegate(object):
    """A wrapped bolt driven by the test: what it receives, and when it finishes."""

    def __init__(self, on_execute=None, on_finish=None):
        self.executed, self.finished, self.timed_out = [], [], []
        self.on_execute = on_execute
        self.on_finish = on_finish
        self.collector = None

    def execute(self, tup):
        self.executed.append(tup.id)
        if self.on_execute:
            self.on_execute(self, tup)

    def finished_id(self, request_id):
        self.finished.append(request_id)
        if self.on_finish:
            self.on_finish(self, request_id)

    def timeout_id(self, request_id):
        self.timed_out.append(request_id)


def tup(tuple_id, component, stream, *values):
    return Tuple(tuple_id, component, stream, 1, tuple(values))


def coordinated(delegate, collector, **kwargs):
    coordinator = Coordinator(delegate, collector, **kwargs)
    delegate.collector = coordinator.output_collector
    return coordinator


def test_the_first_bolt_reports_its_counts_per_task_once_its_input_is_acked():
    """No sources: a request finishes when the delegate acks its tuple; each downstream task
    is told how many tuples of the request it was sent (0 included), anchored to that tuple,
    after ``finished_id``."""
    def emit_three(delegate, t):
        delegate.collector.emit([t.values[0], "a"])  # grouped: to task 7
        delegate.collector.emit([t.values[0], "b"])  # grouped: to task 7
        delegate.collector.emit([t.values[0], "c"], direct_task=8)
        assert delegate.finished == []
        delegate.collector.ack(t)
    collector = Collector({None: [7]})
    delegate = Delegate(on_execute=emit_three)
    coordinator = coordinated(delegate, collector, count_out_tasks=[7, 8, 9])
    coordinator.execute(tup("t1", "prepare-request", "default", 42, "args"))
    assert delegate.finished == [42]
    assert collector.calls == [
        ("emit", None, [42, "a"], [], None), ("emit", None, [42, "b"], [], None),
        ("emit", None, [42, "c"], [], 8),
        ("emit", COORD, [42, 2], ["t1"], 7), ("emit", COORD, [42, 1], ["t1"], 8),
        ("emit", COORD, [42, 0], ["t1"], 9), ("ack", "t1")]
    assert len(coordinator.tracked) == 0


def test_a_middle_bolt_finishes_when_every_source_task_reported_and_the_counts_match():
    """Two upstream tasks (``all``): the reports are held (not acked) until the request
    finishes, then acked after the counts went downstream."""
    def ack_it(delegate, t):
        delegate.collector.emit([t.values[0], t.values[1] * 2])
        delegate.collector.ack(t)
    collector = Collector({None: [5]})
    delegate = Delegate(on_execute=ack_it)
    coordinator = coordinated(delegate, collector, source_reports=2, count_out_tasks=[5])
    coordinator.execute(tup("r1", "bolt0", "default", 1, 10))
    coordinator.execute(tup("c1", "bolt0", COORD, 1, 2))  # task A sent 2: one not here yet
    coordinator.execute(tup("c2", "bolt0", COORD, 1, 0))  # task B sent none
    assert delegate.finished == [] and ("ack", "c1") not in collector.calls
    with pytest.raises(IllegalStateError):  # it would finish on a regular tuple's ack:
        coordinator.execute(tup("r2", "bolt0", "default", 1, 20))  # Storm's "impossible"
    # what normally happens: the last report comes after the tuples it counts
    collector = Collector({None: [5]})
    delegate = Delegate(on_execute=ack_it)
    coordinator = coordinated(delegate, collector, source_reports=2, count_out_tasks=[5])
    for t in (tup("r1", "bolt0", "default", 1, 10), tup("c1", "bolt0", COORD, 1, 1),
              tup("r2", "bolt0", "default", 1, 20)):
        coordinator.execute(t)
    assert delegate.finished == []
    coordinator.execute(tup("c2", "bolt0", COORD, 1, 1))
    assert delegate.finished == [1]
    assert collector.calls[-3:] == [("emit", COORD, [1, 2], ["c2"], 5), ("ack", "c1"),
                                    ("ack", "c2")]


def test_requests_are_counted_apart():
    def forward(delegate, t):
        delegate.collector.emit([t.values[0], "x"])
        delegate.collector.ack(t)
    collector = Collector({None: [3]})
    delegate = Delegate(on_execute=forward)
    coordinator = coordinated(delegate, collector, source_reports=1, count_out_tasks=[3, 4])
    for t in (tup("a1", "bolt0", "default", "A", 0), tup("b1", "bolt0", "default", "B", 0),
              tup("a2", "bolt0", "default", "A", 0)):
        coordinator.execute(t)
    coordinator.execute(tup("cb", "bolt0", COORD, "B", 2))  # B: one more to come
    assert delegate.finished == []
    coordinator.execute(tup("ca", "bolt0", COORD, "A", 2))
    assert delegate.finished == ["A"]
    assert coordinator.tracked.get("B").received_tuples == 1
    assert [c for c in collector.calls if c[1] == COORD] == [
        ("emit", COORD, ["A", 2], ["ca"], 3), ("emit", COORD, ["A", 0], ["ca"], 4)]


def test_the_last_bolt_holds_the_id_tuple_and_acks_reports_at_once():
    """With an id stream the request's id tuple is what is held, and it must come too."""
    collector = Collector()
    delegate = Delegate(on_execute=lambda d, t: d.collector.ack(t))
    coordinator = coordinated(delegate, collector, source_reports=1,
                              id_stream=("prepare-request", "id"))
    coordinator.execute(tup("r1", "bolt1", "default", 9, "x"))
    coordinator.execute(tup("c1", "bolt1", COORD, 9, 1))
    assert collector.calls == [("ack", "r1"), ("ack", "c1")] and delegate.finished == []
    coordinator.execute(tup("i1", "prepare-request", "id", 9))
    assert delegate.finished == [9] and collector.calls[-1] == ("ack", "i1")
    # the id first, then the reports: finished on the report
    coordinator.execute(tup("i2", "prepare-request", "id", 10))
    assert delegate.finished == [9] and ("ack", "i2") not in collector.calls
    coordinator.execute(tup("c2", "bolt1", COORD, 10, 0))
    assert delegate.finished == [9, 10]
    assert collector.calls[-2:] == [("ack", "i2"), ("ack", "c2")]


def test_a_failed_tuple_fails_what_the_request_held():
    collector = Collector()
    delegate = Delegate(on_execute=lambda d, t: d.collector.fail(t))
    coordinator = coordinated(delegate, collector, source_reports=2)
    coordinator.execute(tup("c1", "bolt0", COORD, 1, 1))  # held
    coordinator.execute(tup("r1", "bolt0", "default", 1, "x"))  # failed by the bolt
    assert collector.calls == [("fail", "c1"), ("fail", "r1")]
    assert delegate.finished == [] and len(coordinator.tracked) == 0


def test_a_failed_finish_fails_the_request():
    def refuse(delegate, request_id):
        raise FailedException("no")
    collector = Collector()
    delegate = Delegate(on_finish=refuse)
    coordinator = coordinated(delegate, collector, id_stream=("prepare-request", "id"))
    coordinator.execute(tup("i1", "prepare-request", "id", 3))
    assert delegate.finished == [3] and collector.calls == [("fail", "i1")]
    assert len(coordinator.tracked) == 0


def test_a_report_for_a_request_no_longer_tracked_is_failed():
    collector = Collector()
    delegate = Delegate(on_execute=lambda d, t: d.collector.fail(t))
    coordinator = coordinated(delegate, collector, source_reports=1)
    coordinator.execute(tup("r1", "bolt0", "default", 1, "x"))  # fails: no longer tracked
    assert coordinator.check_finish_id(tup("c1", "bolt0", COORD, 1, 0), "coord") is False
    assert collector.calls == [("fail", "r1"), ("fail", "c1")]


def test_tracked_requests_expire_after_the_message_timeout_and_tell_the_bolt():
    """A TimeCacheMap of 30 s in three buckets: a request id waits 30 to 45 s; one that
    finished is not timed out."""
    collector = Collector()
    delegate = Delegate(on_execute=lambda d, t: d.collector.ack(t))
    coordinator = coordinated(delegate, collector, source_reports=1, expiration_secs=30)
    coordinator.execute(tup("r1", "bolt0", "default", "stuck", 0))
    coordinator.execute(tup("r2", "bolt0", "default", "done", 0))
    coordinator.execute(tup("c2", "bolt0", COORD, "done", 1))
    assert delegate.finished == ["done"]
    for _ in range(29):
        coordinator.advance(1)
    assert "stuck" in coordinator.tracked and delegate.timed_out == []
    coordinator.advance(16)
    assert "stuck" not in coordinator.tracked and delegate.timed_out == ["stuck"]


def test_time_cache_map_rotates_its_buckets_and_a_put_renews_an_entry():
    expired = []
    cache = TimeCacheMap(10, callback=lambda k, v: expired.append((k, v)))
    cache.put("a", 1)
    cache.advance(5)
    cache.put("b", 2)
    cache.advance(5)
    cache.put("a", 3)  # newest bucket again
    cache.advance(5)
    assert expired == [] and cache.get("a") == 3 and cache.get("b") == 2
    cache.advance(5)
    assert expired == [("b", 2)] and len(cache) == 1
    assert cache.remove("a") == 3 and cache.remove("a") is None
