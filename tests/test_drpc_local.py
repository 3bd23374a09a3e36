"""DRPC topologies in the test's process (:class:`pynimbus.testing.LocalDRPC` with
:mod:`pynimbus.testing`): Storm 1.2.4's ``drpc_test.clj`` scenarios with topologies (the DRPC
flow, the linear builder, partial counts, the tricky coordination, a failing finish), ported
to Python bolts, and what the linear topologies do with failures, timeouts and many requests
at once.  (Its server-side scenarios are in test_drpc_requests.py.)"""

import pytest
from streamparse import Bolt, Topology

from drpc_programs.basic_drpc import BasicDRPCTopology
from drpc_programs.reach import ReachTopology
from pynimbus.drpc import BaseBatchBolt, FailedException, LinearDRPCTopologyBuilder
from pynimbus.drpc.components import DRPCSpout, ReturnResults
from pynimbus.generated.storm.ttypes import DRPCExceptionType, DRPCExecutionException
from pynimbus.testing import HarnessError, LocalDRPC, LocalTopology, run_topology

# -- test-drpc-flow: the DRPC spout, a bolt, the return bolt


class FlowRequests(DRPCSpout):
    function = "test"


class ExclamationBolt(Bolt):
    outputs = ["result", "return_info"]
    auto_ack = False

    def process(self, tup):
        self.emit([tup.values[0] + "!!!", tup.values[1]], anchors=[tup])
        self.ack(tup)


class DRPCFlow(Topology):
    requests = FlowRequests.spec(name="1")
    exclaim = ExclamationBolt.spec(name="2", inputs=[requests])
    answers = ReturnResults.spec(name="3", inputs=[exclaim])


def test_drpc_flow():
    with LocalDRPC() as drpc:
        topology = run_topology(DRPCFlow, drpc=drpc)
        assert drpc.execute("test", "aaa") == "aaa!!!"
        assert drpc.execute("test", "b") == "b!!!"
        assert drpc.execute("test", "c") == "c!!!"
        assert topology["1"].acked == [("1", 0), ("2", 0), ("3", 0)]  # (request id, server)
        assert topology.pending() == {}


# -- test-drpc-builder


class ExclamationBoltDRPC(Bolt):
    outputs = ["id", "result"]

    def process(self, tup):
        self.emit([tup.values[0], tup.values[1] + "!!!"])


def test_drpc_builder():
    builder = LinearDRPCTopologyBuilder("test")
    builder.add_bolt(ExclamationBoltDRPC, par=3)
    with LocalDRPC() as drpc:
        LocalTopology(builder.create_local_topology(drpc))  # found by the topology's conf
        assert drpc.execute("test", "aaa") == "aaa!!!"
        assert drpc.execute("test", "b") == "b!!!"
        assert drpc.execute("test", "c") == "c!!!"


# -- test-drpc-coordination: partial counts finished per request id


class CreateTuples(Bolt):
    outputs = ["request"]

    def process(self, tup):
        request_id, amount = tup.values[0], int(tup.values[1])
        for _ in range(amount * amount):
            self.emit([request_id])


class PartialCount(Bolt):
    """Counts per request; Storm's FinishedCallback emits the count."""
    outputs = ["request", "count"]

    def initialize(self, conf, context):
        self.counts = {}

    def process(self, tup):
        self.counts[tup.values[0]] = self.counts.get(tup.values[0], 0) + 1

    def finished_id(self, request_id):
        self.emit([request_id, self.counts.pop(request_id, 0)])


class CountAggregator(Bolt):
    outputs = ["request", "total"]

    def initialize(self, conf, context):
        self.counts = {}

    def process(self, tup):
        self.counts[tup.values[0]] = self.counts.get(tup.values[0], 0) + tup.values[1]

    def finished_id(self, request_id):
        self.emit([request_id, self.counts.pop(request_id, 0)])


def square_topology():
    builder = LinearDRPCTopologyBuilder("square")
    builder.add_bolt(CreateTuples, par=3)
    builder.add_bolt(PartialCount, par=3).shuffle_grouping()
    builder.add_bolt(CountAggregator, par=3).fields_grouping(["request"])
    return builder.create_topology("Squared")


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_drpc_coordination(seed):
    with LocalDRPC() as drpc:
        topology = LocalTopology(square_topology(), drpc=drpc, seed=seed)
        assert drpc.execute("square", "2") == "4"
        assert drpc.execute("square", "10") == "100"
        assert drpc.execute("square", "1") == "1"
        assert drpc.execute("square", "0") == "0"
        assert topology.pending() == {}
        # every task of the partial counts reported, those that counted nothing too
        partials = [v for v in topology["bolt1"].emitted_values()]
        assert len(partials) == 4 * 3 and sorted(c for _, c in partials)[-1] > 0


def test_requests_in_flight_together_are_counted_apart():
    with LocalDRPC() as drpc:
        LocalTopology(square_topology(), drpc=drpc)
        assert drpc.execute_all([("square", str(n)) for n in (3, 0, 7, 5, 1)]) == \
            ["9", "0", "49", "25", "1"]


# -- test-drpc-coordination-tricky: the last bolt finishes on the id, with nothing counted


class IdBolt(Bolt):
    outputs = ["request", "val"]

    def process(self, tup):
        self.emit(list(tup.values))


class EmitFinish(Bolt):
    outputs = ["request", "result"]

    def process(self, tup):
        pass

    def finished_id(self, request_id):
        self.emit([request_id, "done"])


@pytest.mark.parametrize("seed", [0, 1])
def test_drpc_coordination_tricky(seed):
    builder = LinearDRPCTopologyBuilder("tricky")
    builder.add_bolt(IdBolt, par=3)
    builder.add_bolt(IdBolt, par=3).shuffle_grouping()
    builder.add_bolt(EmitFinish, par=3).fields_grouping(["request"])
    with LocalDRPC() as drpc:
        topology = LocalTopology(builder.create_topology(), drpc=drpc, seed=seed)
        assert drpc.execute("tricky", "2") == "done"
        assert drpc.execute("tricky", "3") == "done"
        assert drpc.execute("tricky", "4") == "done"
        assert topology.pending() == {}


# -- test-drpc-fail-finish


class FailFinishBolt(Bolt):
    outputs = ["request", "result"]

    def process(self, tup):
        pass

    def finished_id(self, request_id):
        raise FailedException()


def test_drpc_fail_finish():
    builder = LinearDRPCTopologyBuilder("fail2")
    builder.add_bolt(FailFinishBolt, par=3)
    with LocalDRPC() as drpc:
        topology = LocalTopology(builder.create_topology(), drpc=drpc)
        with pytest.raises(DRPCExecutionException) as failed:
            drpc.execute("fail2", "2")
        assert failed.value == DRPCExecutionException(
            msg="Request failed", type=DRPCExceptionType.FAILED_REQUEST)
        assert topology["spout"].failed == [("1", 0)]


# -- more: storm-starter's topologies, failures, timeouts


def test_storm_starters_reach_and_exclamation_answer_in_process():
    with LocalDRPC() as drpc:
        reach = LocalTopology(ReachTopology, drpc=drpc)
        LocalTopology(BasicDRPCTopology, drpc=drpc)
        assert drpc.execute("reach", "engineering.twitter.com/blog/5") == "14"
        assert drpc.execute("reach", "foo.com/blog/1") == "16"
        assert drpc.execute("reach", "notaurl.com") == "0"
        assert drpc.execute("exclamation", "hello") == "hello!"
        assert drpc.execute_all([("reach", "tech.backtype.com/blog/123"),
                                 ("exclamation", "goodbye"), ("reach", "foo.com/blog/1")]) == \
            ["7", "goodbye!", "16"]
        assert reach.pending() == {} and all(not r.errors for r in reach.records.values())
        # the partial uniquers: one report per task and request, each of its own request
        assert len(reach["bolt2"].emitted_values()) == 6 * 5


def test_the_same_seed_gives_the_same_records():
    def run(seed):
        with LocalDRPC() as drpc:
            topology = LocalTopology(ReachTopology, drpc=drpc, seed=seed)
            drpc.execute("reach", "foo.com/blog/1")
            return {c: [(e.task, e.stream, repr(e.values).replace(drpc.service_id, "drpc"),
                         e.to_tasks) for e in r.emitted]
                    for c, r in topology.records.items()}
    assert run(3) == run(3)
    assert run(3) != run(4)


class FailOnBob(Bolt):
    outputs = ["id", "follower"]

    def process(self, tup):
        if tup.values[1] == "bob":
            raise FailedException("no bob")
        self.emit([tup.values[0], tup.values[1]])


class Count(BaseBatchBolt):
    outputs = ["id", "n"]

    def prepare(self, conf, context, collector, request_id):
        self.collector, self.request_id, self.n = collector, request_id, 0

    def execute(self, tup):
        if tup.values[1] == "tim":
            raise FailedException("no tim")
        self.n += 1

    def finish_batch(self):
        self.collector.emit([self.request_id, self.n])


def test_a_failed_exception_in_a_bolt_fails_the_request_and_the_bolt_goes_on():
    from drpc_programs.reach import GetTweeters

    builder = LinearDRPCTopologyBuilder("failing")
    builder.add_bolt(GetTweeters, par=2)
    builder.add_bolt(FailOnBob, par=2).shuffle_grouping()
    builder.add_bolt(Count, par=2).fields_grouping(["id"])
    with LocalDRPC() as drpc:
        topology = LocalTopology(builder.create_topology(), drpc=drpc)
        with pytest.raises(DRPCExecutionException, match="Request failed"):
            drpc.execute("failing", "foo.com/blog/1")  # bob tweeted it
        assert drpc.execute("failing", "engineering.twitter.com/blog/5") == "4"
        with pytest.raises(DRPCExecutionException, match="Request failed"):
            drpc.execute("failing", "tech.backtype.com/blog/123")  # tim: the batch bolt
        assert all(not r.errors for r in topology.records.values())
        assert len(topology["spout"].failed) == 2 and len(topology["spout"].acked) == 1


class Raising(Bolt):
    outputs = ["id", "result"]

    def process(self, tup):
        raise ValueError("broken")


def test_an_exception_in_a_bolt_is_reported_and_fails_its_tuple():
    builder = LinearDRPCTopologyBuilder("raising")
    builder.add_bolt(Raising)
    with LocalDRPC() as drpc:
        topology = LocalTopology(builder.create_topology(), drpc=drpc)
        with pytest.raises(DRPCExecutionException, match="Request failed"):
            drpc.execute("raising", "x")
        assert len(topology["bolt0"].errors) == 1 and "broken" in topology["bolt0"].errors[0][1]


class Silent(Bolt):
    """Never answers: it acks and emits nothing, and nothing finishes downstream."""
    outputs = ["id", "result"]
    auto_ack = False

    def process(self, tup):
        pass


def test_an_unanswered_request_and_an_unknown_function_time_out():
    builder = LinearDRPCTopologyBuilder("silent")
    builder.add_bolt(Silent)
    with LocalDRPC(timeout_secs=5) as drpc:
        topology = LocalTopology(builder.create_topology(), drpc=drpc)
        for function in ("silent", "nobody"):
            with pytest.raises(DRPCExecutionException) as timed_out:
                drpc.execute(function, "x")
            assert timed_out.value == DRPCExecutionException(
                msg="Request timed out", type=DRPCExceptionType.SERVER_TIMEOUT)
        assert topology.pending() == {"spout": [("1", 0)]}  # (tuples never time out here)
        assert drpc.requests.waiting() == 0


def test_tracked_request_ids_of_tasks_that_never_finish_expire_on_ticks():
    """The aggregators that did not get a request's id tuple never finish it; its tracking
    and the batch bolt made for it go after the message timeout (30 s: at most 45 ticks)."""
    with LocalDRPC() as drpc:
        topology = LocalTopology(ReachTopology, drpc=drpc)
        assert drpc.execute("reach", "foo.com/blog/1") == "16"
        aggregators = [topology.tasks[t] for t in topology.component_to_tasks["bolt3"]]
        assert sum(len(a.coordinator.tracked) for a in aggregators) == 2  # 3 tasks, 1 finished
        assert sum(len(a.delegate.open_transactions) for a in aggregators) == 0
        for _ in range(29):
            topology.tick("bolt3")
        assert sum(len(a.coordinator.tracked) for a in aggregators) == 2
        for _ in range(16):
            topology.tick("bolt3")
        assert sum(len(a.coordinator.tracked) for a in aggregators) == 0
        # 6 partial counts, 6 x 3 reports, the id tuple, and the ticks
        assert len(topology["bolt3"].acked) == 6 + 18 + 1 + 3 * 45


def test_a_topology_naming_a_local_drpc_that_is_gone_is_refused():
    drpc = LocalDRPC()
    topology = square_topology()
    drpc.shutdown()
    with pytest.raises(HarnessError, match="shut down or was never made"):
        LocalTopology(topology, conf={"pynimbus.drpc.local.id": drpc.service_id})
