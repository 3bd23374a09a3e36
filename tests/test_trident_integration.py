"""The scenarios of Storm 1.2.4's Trident ``integration_test.clj`` that need no cluster:
``test-stream-projection-validation`` (an operation on a field the stream does not have is
refused while the program is built) and ``test-set-component-resources`` (the resources each
operation declares reach its component's conf, summed per bolt).  The scenarios that ask
DRPC questions of a running topology are in ``test_trident_drpc.py``."""

import json

import pytest

from pynimbus.trident import (
    BaseFunction, DefaultResourceDeclarer, Fields, FixedBatchSpout, MemoryMapState, StateSpec,
    TridentTopology)
from pynimbus.trident.builtin import Count, MapGet
from pynimbus.trident.state.updaters import CombinerAggStateUpdater

ONHEAP = "topology.component.resources.onheap.memory.mb"
OFFHEAP = "topology.component.resources.offheap.memory.mb"
CPU = "topology.component.cpu.pcore.percent"


class Split(BaseFunction):
    def execute(self, tuple_, collector):
        for word in tuple_[0].split(" "):
            collector.emit([word])


def feeder():
    return FixedBatchSpout(Fields("sentence"), 3, ["the cow"])


@pytest.fixture
def topology_and_stream():
    topology = TridentTopology()
    word_counts = (topology.new_stream("tester", feeder())
                   .each(Fields("sentence"), Split(), Fields("word"))
                   .group_by(Fields("word"))
                   .persistent_aggregate(MemoryMapState.Factory(), Count(), Fields("count"))
                   .parallelism_hint(6))
    return topology, topology.new_stream("tester", feeder()), word_counts


NON_EXISTENT = "Trying to select non-existent field: '%s' from stream containing fields"


def words(stream):
    return stream.each(Fields("sentence"), Split(), Fields("word"))


@pytest.mark.parametrize("operation, field", [
    (lambda s, _: s.each(Fields("sentence1"), Split(), Fields("word")), "sentence1"),
    (lambda s, _: words(s).group_by(Fields("word1")), "word1"),
    (lambda s, _: words(s).group_by(Fields("word")).aggregate(
        Fields("word1"), Count(), Fields("count")), "word1"),
    (lambda s, _: s.project(Fields("sentence1")), "sentence1"),
    (lambda s, _: s.partition_by(Fields("sentence1")), "sentence1"),
    (lambda s, _: words(s).partition_aggregate(Fields("word1"), Count(), Fields("count")),
     "word1"),
    (lambda s, _: words(s).group_by(Fields("word")).persistent_aggregate(
        StateSpec(MemoryMapState.Factory()), Fields("non-existent"), Count(),
        Fields("count")), "non-existent"),
    (lambda s, _: words(s).partition_persist(
        StateSpec(MemoryMapState.Factory()), Fields("non-existent"),
        CombinerAggStateUpdater(Count()), Fields("count")), "non-existent"),
])
def test_stream_projection_validation(topology_and_stream, operation, field):
    _topology, stream, word_counts = topology_and_stream
    with pytest.raises(ValueError, match=NON_EXISTENT % field):
        operation(stream, word_counts)


def test_stream_projection_validation_of_a_state_query_on_a_drpc_stream(topology_and_stream):
    topology, _stream, word_counts = topology_and_stream
    with pytest.raises(ValueError, match=NON_EXISTENT % "word1"):
        (topology.new_drpc_stream("words")
            .each(Fields("args"), Split(), Fields("word"))
            .group_by(Fields("word"))
            .state_query(word_counts, Fields("word1"), MapGet(), Fields("count")))


def test_set_component_resources():
    """Storm's scenario: the spout's resources reach its executor and its coordinator; a bolt
    sums its operations' (over the defaults); the aggregation after the partition has its
    own."""
    topology = TridentTopology()
    topology.set_resource_defaults(
        DefaultResourceDeclarer().set_memory_load(0, 0).set_cpu_load(0))
    (topology.new_stream("words", feeder()).parallelism_hint(5)
        .set_cpu_load(20).set_memory_load(512, 256)
        .each(Fields("sentence"), Split(), Fields("word"))
        .set_cpu_load(10).set_memory_load(512)
        .each(Fields("word"), lambda t, c: c.emit([t[0] + "!"]), Fields("word!"))
        .parallelism_hint(10).set_cpu_load(50).set_memory_load(1024)
        .group_by(Fields("word!"))
        .persistent_aggregate(MemoryMapState.Factory(), Count(), Fields("count"))
        .set_cpu_load(100).set_memory_load(2048))
    bolts = topology.build().topology.bolts
    confs = {cid: json.loads(b.common.json_conf) for cid, b in bolts.items()}
    for component in ("spout-words", "$spoutcoord-spout-words"):
        assert (confs[component][ONHEAP], confs[component][OFFHEAP], confs[component][CPU]) \
            == (512.0, 256.0, 20.0), component
    assert (confs["b-1"][ONHEAP], confs["b-1"][CPU]) == (1024.0 + 512.0, 60.0)
    assert (confs["b-0"][ONHEAP], confs["b-0"][CPU]) == (2048.0, 100.0)
    assert json.loads(bolts["b-0"].common.json_conf)["topology.tick.tuple.freq.secs"] == 5


def test_operations_declaring_different_resources_in_one_bolt_are_refused():
    from pynimbus.trident import PlanningError

    topology = TridentTopology()
    (topology.new_stream("words", feeder())
        .each(Fields("sentence"), Split(), Fields("word")).set_cpu_load(10)
        .each(Fields("word"), lambda t, c: c.emit([1]), Fields("one")).set_memory_load(64))
    with pytest.raises(PlanningError, match="resources set which are not set in other"):
        topology.build()
