"""The Trident programs of the planner goldens, written with pynimbus's API.

Each function builds the same program as the scenario of the same name in
``tests/compat/java/src/main/java/pynimbus/topologies/TridentPlans.java``, whose plans by Storm
1.2.4's Java planner are the goldens under ``tests/compat/goldens/1.2.4/trident_plans/``.  The
spouts and operations stand for the Java ones: what the planner reads of them (output fields,
component confs, which interface they keep) is the same.
"""

from pynimbus.trident import (
    BaseAggregator, BaseFilter, BaseFunction, BaseStateUpdater, Consumer, FixedBatchSpout,
    FlatMapFunction, IBatchSpout, MapFunction, ReducerAggregator, TridentTopology)
from pynimbus.trident.builtin import Count, FilterNull, FirstN, MapGet, Sum
from pynimbus.trident.fields import Fields

SCORE_ROWS = [["alice", 3], ["bob", 5], ["alice", 7], ["carol", 1], ["bob", 2]]
WORD_ROWS = [["the", 1], ["cow", 2], ["the", 3]]
SENTENCE_ROWS = [["the cow jumped over the moon"], ["the man went to the store"],
                 ["four score and seven years ago"]]


class BatchSpout(IBatchSpout):
    """``pynimbus.topologies.BatchSpout``: rows in a cycle, ``batch_size`` a batch; no
    component conf."""

    def __init__(self, fields, rows, batch_size):
        self.fields = Fields(fields)
        self.rows = rows
        self.batch_size = batch_size
        self.next = 0

    def emit_batch(self, batch_id, collector):
        for _ in range(self.batch_size):
            collector.emit(self.rows[self.next])
            self.next = (self.next + 1) % len(self.rows)

    def get_output_fields(self):
        return self.fields


class UserCountAggregator(BaseAggregator):
    def init(self, batch_id, collector):
        return {"user": None, "count": 0, "total": 0}

    def aggregate(self, state, tuple_, collector):
        state["user"] = tuple_[0]
        state["count"] += 1
        state["total"] += tuple_[1]

    def complete(self, state, collector):
        collector.emit(["%s count=%d total=%d" % (state["user"], state["count"],
                                                  state["total"])])


class PrintEachFunc(BaseFunction):
    def execute(self, tuple_, collector):
        print("PrintEachFunc: %s" % list(tuple_))


class Split(BaseFunction):
    def execute(self, tuple_, collector):
        for word in tuple_[0].split(" "):
            collector.emit([word])


class StringLength(BaseFunction):
    def execute(self, tuple_, collector):
        collector.emit([len(tuple_[0])])


class TrueFilter(BaseFilter):
    def is_keep(self, tuple_):
        return True


class UpperCaseMap(MapFunction):
    def execute(self, tuple_):
        return [tuple_[0].upper(), tuple_[1], tuple_[2]]


class DuplicateFlatMap(FlatMapFunction):
    def execute(self, tuple_):
        return [list(tuple_), list(tuple_)]


class PrintPeek(Consumer):
    def accept(self, tuple_):
        print(list(tuple_))


class SumReducer(ReducerAggregator):
    def init(self):
        return 0

    def reduce(self, current, tuple_):
        return current + tuple_[0]


class NoopUpdater(BaseStateUpdater):
    def update_state(self, state, tuples, collector):
        for t in tuples:
            collector.emit([t[0]])


class PlanOnlyStateFactory(object):
    """Stands for ``MemoryMapState.Factory``: the planner never calls a state factory."""

    def make_state(self, conf, metrics, partition_index, num_partitions):
        raise AssertionError("planning makes no state")


def fixed(fields, max_batch_size, rows):
    return FixedBatchSpout(Fields(fields), max_batch_size, *rows)


def seed_example(t):
    (t.new_stream("spout1", fixed(["user", "score"], 3, SCORE_ROWS))
        .group_by(Fields("user"))
        .aggregate(Fields("user", "score"), UserCountAggregator(), Fields("val"))
        .to_stream().parallelism_hint(1)
        .each(Fields("val"), PrintEachFunc(), Fields()))


def seed_example_uncapped(t):
    (t.new_stream("spout1", BatchSpout(["user", "score"], SCORE_ROWS, 3))
        .parallelism_hint(3)
        .group_by(Fields("user"))
        .aggregate(Fields("user", "score"), UserCountAggregator(), Fields("val"))
        .to_stream().parallelism_hint(2)
        .each(Fields("val"), PrintEachFunc(), Fields()))


def word_count(t):
    spout = fixed(["sentence"], 3, SENTENCE_ROWS)
    spout.set_cycle(True)
    (t.new_stream("spout1", spout).parallelism_hint(16)
        .each(Fields("sentence"), Split(), Fields("word"))
        .group_by(Fields("word"))
        .persistent_aggregate(PlanOnlyStateFactory(), Count(), Fields("count"))
        .parallelism_hint(16))


def word_count_uncapped(t):
    (t.new_stream("spout1", BatchSpout(["sentence"], SENTENCE_ROWS, 3)).parallelism_hint(16)
        .each(Fields("sentence"), Split(), Fields("word"))
        .group_by(Fields("word"))
        .persistent_aggregate(PlanOnlyStateFactory(), Count(), Fields("count"))
        .parallelism_hint(16))


def _two_streams(t):
    a = t.new_stream("a", BatchSpout(["key", "x"], WORD_ROWS, 2))
    b = t.new_stream("b", BatchSpout(["key", "y"], WORD_ROWS, 2))
    return a, b


def join(t):
    a, b = _two_streams(t)
    (t.join(a, Fields("key"), b, Fields("key"), Fields("key", "x", "y"))
        .each(Fields("key", "x", "y"), PrintEachFunc(), Fields()))


def merge(t):
    a, b = _two_streams(t)
    t.merge(a, b).each(Fields("key"), PrintEachFunc(), Fields())


def named(t):
    (t.new_stream("spout1", BatchSpout(["sentence"], SENTENCE_ROWS, 3))
        .name("split-stage")
        .each(Fields("sentence"), Split(), Fields("word"))
        .name("count-stage")
        .group_by(Fields("word"))
        .persistent_aggregate(PlanOnlyStateFactory(), Count(), Fields("count")))


def state_query_beside_persist(t):
    counts = (t.new_stream("words", BatchSpout(["word"], SENTENCE_ROWS, 3))
              .group_by(Fields("word"))
              .persistent_aggregate(PlanOnlyStateFactory(), Count(), Fields("count")))
    (t.new_stream("queries", BatchSpout(["word"], SENTENCE_ROWS, 3))
        .state_query(counts, Fields("word"), MapGet(), Fields("count"))
        .each(Fields("word", "count"), PrintEachFunc(), Fields()))


def two_batch_groups(t):
    t.new_stream("s1", BatchSpout(["a"], SENTENCE_ROWS, 2)).each(
        Fields("a"), PrintEachFunc(), Fields())
    t.new_stream("s2", fixed(["b"], 2, SENTENCE_ROWS)).each(
        Fields("b"), PrintEachFunc(), Fields())


def operations(t):
    (t.new_stream("ops", BatchSpout(["word", "n"], WORD_ROWS, 2)).parallelism_hint(2)
        .each(Fields("word"), StringLength(), Fields("len"))
        .filter(Fields("word"), TrueFilter())
        .map(UpperCaseMap())
        .flat_map(DuplicateFlatMap())
        .peek(PrintPeek())
        .project(Fields("word", "n"))
        .shuffle()
        .each(Fields("word"), StringLength(), Fields("len2")).parallelism_hint(3)
        .partition_by(Fields("word"))
        .partition_aggregate(Fields("word"), Count(), Fields("c"))
        .global_()
        .each(Fields("c"), PrintEachFunc(), Fields())
        .batch_global()
        .each(Fields("c"), PrintEachFunc(), Fields())
        .broadcast()
        .each(Fields("c"), PrintEachFunc(), Fields()))


def aggregations(t):
    s = t.new_stream("agg", BatchSpout(["word", "n"], WORD_ROWS, 2))
    s.aggregate(Fields("n"), Sum(), Fields("sum")).each(Fields("sum"), PrintEachFunc(), Fields())
    s.aggregate(Fields("n"), SumReducer(), Fields("rsum")).each(
        Fields("rsum"), PrintEachFunc(), Fields())
    (s.group_by(Fields("word")).chained_agg()
        .aggregate(Fields("n"), Sum(), Fields("sum"))
        .aggregate(Count(), Fields("count"))
        .chain_end()
        .each(Fields("word", "sum", "count"), PrintEachFunc(), Fields()))
    (s.chained_agg()
        .partition_aggregate(Count(), Fields("c"))
        .partition_aggregate(Fields("n"), Sum(), Fields("s"))
        .chain_end()
        .each(Fields("c", "s"), PrintEachFunc(), Fields()))
    s.apply_assembly(FirstN(2, "n")).each(Fields("word", "n"), PrintEachFunc(), Fields())


def persist_and_values(t):
    state = t.new_stream("p", BatchSpout(["word"], SENTENCE_ROWS, 3)).partition_persist(
        PlanOnlyStateFactory(), Fields("word"), NoopUpdater(), Fields("word"))
    state.new_values_stream().each(Fields("word"), PrintEachFunc(), Fields())
    (t.new_stream("q", BatchSpout(["word"], SENTENCE_ROWS, 3))
        .group_by(Fields("word"))
        .persistent_aggregate(PlanOnlyStateFactory(), Count(), Fields("count"))
        .new_values_stream()
        .each(Fields("word", "count"), PrintEachFunc(), Fields()))


def drpc_word_count(t):
    spout = fixed(["sentence"], 3, SENTENCE_ROWS)
    spout.set_cycle(True)
    counts = (t.new_stream("spout1", spout).parallelism_hint(16)
              .each(Fields("sentence"), Split(), Fields("word"))
              .group_by(Fields("word"))
              .persistent_aggregate(PlanOnlyStateFactory(), Count(), Fields("count"))
              .parallelism_hint(16))
    (t.new_drpc_stream("words")
        .each(Fields("args"), Split(), Fields("word"))
        .group_by(Fields("word"))
        .state_query(counts, Fields("word"), MapGet(), Fields("count"))
        .each(Fields("count"), FilterNull())
        .aggregate(Fields("count"), Sum(), Fields("sum")))


def drpc_streams(t):
    (t.new_drpc_stream("lengths")
        .each(Fields("args"), StringLength(), Fields("len"))
        .project(Fields("len")))
    (t.new_drpc_stream("counts").parallelism_hint(3)
        .each(Fields("args"), Split(), Fields("word"))
        .shuffle()
        .group_by(Fields("word"))
        .aggregate(Count(), Fields("count")).parallelism_hint(2))
    (t.new_drpc_stream("same")
        .name("same-stage")
        .each(Fields("args"), TrueFilter()))


SCENARIOS = {f.__name__: f for f in (
    seed_example, seed_example_uncapped, word_count, word_count_uncapped, join, merge, named,
    state_query_beside_persist, two_batch_groups, operations, aggregations,
    persist_and_values, drpc_word_count, drpc_streams)}


def build(name):
    topology = TridentTopology()
    SCENARIOS[name](topology)
    return topology.build("tests.trident_plans:" + name)
