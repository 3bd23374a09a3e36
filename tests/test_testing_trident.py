"""``pynimbus.testing.trident``: Trident programs in the test's process with a ``LocalDRPC``,
as Storm's own tests run them.  The DRPC scenarios of Storm 1.2.4's Trident
``integration_test.clj``, each as Storm writes it (``feed`` returns once the fed batch is
done), plus what the harness itself promises."""

import collections
import json

import pytest

from pynimbus.generated.storm.ttypes import DRPCExecutionException
from pynimbus.testing import HarnessError, LocalDRPC
from pynimbus.testing.trident import FeederBatchSpout, LocalTridentTopology
from pynimbus.trident import BaseFilter, FailedException, Fields, MemoryMapState, TridentTopology
from pynimbus.trident.builtin import Count, MapGet, Sum, TupleCollectionGet
from trident_programs.drpc_scenarios import (  # the same operations as on pynimbus dev
    CountAsAggregator, FailOnFail, Split, StringLength, TrueFilter)


def ask(drpc, function, args):
    return json.loads(drpc.execute(function, args))


def multiset(rows):
    return collections.Counter(tuple(row) for row in rows)


@pytest.fixture
def drpc():
    with LocalDRPC() as local:
        yield local


def word_counts(topology, feeder):
    return (topology.new_stream("tester", feeder)
            .each(Fields("sentence"), Split(), Fields("word"))
            .group_by(Fields("word"))
            .persistent_aggregate(MemoryMapState.Factory(), Count(), Fields("count"))
            .parallelism_hint(6))


def test_memory_map_get_tuples(drpc):
    topology, feeder = TridentTopology(), FeederBatchSpout(["sentence"])
    counts = word_counts(topology, feeder)
    (topology.new_drpc_stream("all-tuples", drpc)
        .broadcast()
        .state_query(counts, Fields("args"), TupleCollectionGet(), Fields("word", "count"))
        .project(Fields("word", "count")))
    local = LocalTridentTopology(topology)
    local.feed(feeder, [["hello the man said"], ["the"]])
    assert multiset(ask(drpc, "all-tuples", "man")) == multiset(
        [["hello", 1], ["said", 1], ["the", 2], ["man", 1]])
    local.feed(feeder, [["the foo"]])
    assert multiset(ask(drpc, "all-tuples", "man")) == multiset(
        [["hello", 1], ["said", 1], ["the", 3], ["man", 1], ["foo", 1]])


def test_word_count(drpc):
    topology, feeder = TridentTopology(), FeederBatchSpout(["sentence"])
    counts = word_counts(topology, feeder)
    (topology.new_drpc_stream("words", drpc)
        .each(Fields("args"), Split(), Fields("word"))
        .group_by(Fields("word"))
        .state_query(counts, Fields("word"), MapGet(), Fields("count"))
        .aggregate(Fields("count"), Sum(), Fields("sum"))
        .project(Fields("sum")))
    local = LocalTridentTopology(topology)
    local.feed(feeder, [["hello the man said"], ["the"]])
    assert ask(drpc, "words", "the") == [[2]]
    assert ask(drpc, "words", "hello") == [[1]]
    local.feed(feeder, [["the man on the moon"], ["where are you"]])
    assert ask(drpc, "words", "the") == [[4]]
    assert ask(drpc, "words", "man") == [[2]]
    assert ask(drpc, "words", "man where you the") == [[8]]


def test_count_agg(drpc):
    topology = TridentTopology()
    (topology.new_drpc_stream("numwords", drpc)
        .each(Fields("args"), Split(), Fields("word"))
        .aggregate(CountAsAggregator(), Fields("count"))
        .parallelism_hint(2)
        .project(Fields("count")))
    LocalTridentTopology(topology)
    for _ in range(100):
        assert ask(drpc, "numwords", "the") == [[1]]
    assert ask(drpc, "numwords", "") == [[0]]
    assert ask(drpc, "numwords", "1 2 3 4 5 6 7 8") == [[8]]


def test_split_merge(drpc):
    topology = TridentTopology()
    stream = topology.new_drpc_stream("splitter", drpc)
    topology.merge(stream.each(Fields("args"), Split(), Fields("word")).project(Fields("word")),
                   stream.each(Fields("args"), StringLength(), Fields("len"))
                   .project(Fields("len")))
    LocalTridentTopology(topology)
    assert multiset(ask(drpc, "splitter", "the man")) == multiset([[7], ["the"], ["man"]])
    assert multiset(ask(drpc, "splitter", "hello")) == multiset([[5], ["hello"]])


def test_multiple_groupings_same_stream(drpc):
    topology = TridentTopology()
    stream = topology.new_drpc_stream("tester", drpc).each(Fields("args"), TrueFilter())
    topology.merge(stream.group_by(Fields("args")).aggregate(CountAsAggregator(),
                                                             Fields("count")),
                   stream.group_by(Fields("args")).aggregate(CountAsAggregator(),
                                                             Fields("count")))
    LocalTridentTopology(topology)
    assert multiset(ask(drpc, "tester", "the")) == multiset([["the", 1], ["the", 1]])
    assert multiset(ask(drpc, "tester", "aaaaa")) == multiset([["aaaaa", 1], ["aaaaa", 1]])


def test_multi_repartition(drpc):
    topology = TridentTopology()
    (topology.new_drpc_stream("tester", drpc)
        .each(Fields("args"), Split(), Fields("word"))
        .local_or_shuffle()
        .shuffle()
        .aggregate(CountAsAggregator(), Fields("count")))
    LocalTridentTopology(topology)
    assert ask(drpc, "tester", "the man") == [[2]]
    assert ask(drpc, "tester", "aaa") == [[1]]


# -- the harness


def test_the_topologys_drpc_answers_streams_naming_none_and_a_failed_batch_fails_the_call():
    topology = TridentTopology()
    topology.new_drpc_stream("checked").each(Fields("args"), FailOnFail())
    with LocalDRPC() as drpc:
        LocalTridentTopology(topology, drpc=drpc)
        assert ask(drpc, "checked", "fine") == [["fine"]]
        with pytest.raises(DRPCExecutionException) as failed:
            drpc.execute("checked", "fail")
        assert failed.value.msg == "Request failed"
        assert ask(drpc, "checked", "again") == [["again"]]


def test_a_function_nothing_answers_times_out(drpc):
    topology = TridentTopology()
    topology.new_drpc_stream("known", drpc).each(Fields("args"), TrueFilter())
    LocalTridentTopology(topology)
    with pytest.raises(DRPCExecutionException) as timed_out:
        drpc.execute("unknown", "x")
    assert timed_out.value.msg == "Request timed out"


def test_a_drpc_stream_without_a_local_drpc_is_refused_at_start():
    topology = TridentTopology()
    topology.new_drpc_stream("nowhere").each(Fields("args"), TrueFilter())
    with pytest.raises(HarnessError, match="has no local DRPC"):
        LocalTridentTopology(topology)


def test_a_feed_waits_for_its_batch_and_a_replayed_batch_is_the_same():
    seen = []

    class FailFirstTime(BaseFilter):
        def is_keep(self, tuple_):
            seen.append(tuple_[0])
            if seen.count(tuple_[0]) == 1 and tuple_[0] == "b":
                raise FailedException("first time")
            return True

    topology, feeder = TridentTopology(), FeederBatchSpout(["x"])
    topology.new_stream("s", feeder).each(Fields("x"), FailFirstTime())
    local = LocalTridentTopology(topology)
    local.feed(feeder, [["a"], ["b"]])
    assert seen == ["a", "b", "a", "b"]  # the failed batch went again, the same
    local.feed(feeder, [["c"]])
    assert seen[4:] == ["c"]
