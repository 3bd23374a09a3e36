"""Most of Trident's operations on two small spouts, each result written to $TRIDENT_OUTPUT as
``tag json-of-values`` lines: lambdas for each/filter/map/flat_map/peek, project, grouped and
global aggregations (combiner, reducer, chained), FirstN, partition_aggregate, join, merge, a
state query beside the persist it reads, and the repartitionings between bolts."""

import json
import os

from pynimbus.trident import (
    BaseFunction, Fields, FixedBatchSpout, MemoryMapState, ReducerAggregator, TridentTopology)
from pynimbus.trident.builtin import Count, FirstN, MapGet, Sum

ROWS = [["a", 1], ["b", 2], ["a", 3], ["c", 4], ["b", 5]]      # one batch
LABELS = [["a", "x"], ["b", "y"], ["a", "w"]]                 # two batches: 2, then 1


class Record(BaseFunction):
    def __init__(self, tag):
        self.tag = tag

    def prepare(self, conf, context):
        self.path = os.environ["TRIDENT_OUTPUT"]

    def execute(self, tuple_, collector):
        with open(self.path, "a") as f:
            f.write("%s %s\n" % (self.tag, json.dumps(list(tuple_))))


class SumReducer(ReducerAggregator):
    def init(self):
        return 0

    def reduce(self, current, tuple_):
        return current + tuple_[0]


def record(stream, tag):
    stream.each(stream.get_output_fields(), Record(tag), Fields())


def topology():
    t = TridentTopology()
    s = t.new_stream("rows", FixedBatchSpout(Fields("word", "n"), 10, *ROWS))
    labels = t.new_stream("labels", FixedBatchSpout(Fields("word", "label"), 2, *LABELS))
    record(s.each(Fields("word"), lambda tup, out: out.emit([tup[0].upper()]), Fields("up")),
           "each")
    record(s.filter(lambda tup: tup[1] > 2), "filter")
    record(s.map(lambda tup: [tup[0] * 2, tup[1]]), "map")
    record(s.flat_map(lambda tup: [[tup[0], tup[1]], [tup[0], -tup[1]]]), "flat_map")
    record(s.peek(lambda tup: None).project(Fields("n")), "project")
    record(s.group_by(Fields("word")).aggregate(Fields("n"), Sum(), Fields("sum"))
           .parallelism_hint(2), "group_sum")
    record(s.aggregate(Fields("n"), Sum(), Fields("total")), "global_sum")
    record(s.aggregate(Fields("n"), SumReducer(), Fields("rtotal")), "reducer_sum")
    record(s.aggregate(Count(), Fields("count")), "count")
    record(s.group_by(Fields("word")).chained_agg()
           .aggregate(Fields("n"), Sum(), Fields("sum"))
           .aggregate(Count(), Fields("count"))
           .chain_end(), "chained")
    record(s.apply_assembly(FirstN(2, "n", True)), "first2")
    record(s.partition_by(Fields("word")).partition_aggregate(Fields("n"), Sum(), Fields("p"))
           .global_().aggregate(Fields("p"), Sum(), Fields("all")), "partition_sums")
    record(t.join(s, Fields("word"), labels, Fields("word"), Fields("word", "n", "label")),
           "join")
    record(t.merge(s.project(Fields("word")), labels.project(Fields("word"))), "merge")
    counts = s.group_by(Fields("word")).persistent_aggregate(
        MemoryMapState.Factory(), Count(), Fields("count"))
    record(labels.state_query(counts, Fields("word"), MapGet(), Fields("count")), "query")
    return t


GLOBAL = ("global_sum", "reducer_sum", "count", "partition_sums")


def expected():
    """``{tag: value lists in the order of their JSON}``; a global aggregation's results of
    the empty batches (``[0]``, one per batch) left out (see :func:`recorded`)."""
    by_word = {}
    for w, n in ROWS:
        by_word.setdefault(w, []).append(n)
    total = sum(n for _, n in ROWS)
    return {k: sorted(v, key=json.dumps) for k, v in {
        "each": [[w, n, w.upper()] for w, n in ROWS],
        "filter": [[w, n] for w, n in ROWS if n > 2],
        "map": [[w * 2, n] for w, n in ROWS],
        "flat_map": [r for w, n in ROWS for r in ([w, n], [w, -n])],
        "project": [[n] for _, n in ROWS],
        "group_sum": [[w, sum(ns)] for w, ns in by_word.items()],
        "global_sum": [[total]],
        "reducer_sum": [[total]],
        "count": [[len(ROWS)]],
        "chained": [[w, sum(ns), len(ns)] for w, ns in by_word.items()],
        "first2": sorted([[w, n] for w, n in ROWS], key=lambda r: -r[1])[:2],
        "partition_sums": [[total]],
        "join": [[w, n, label] for w, n in ROWS for lw, label in LABELS[:2] if w == lw],
        "merge": [[w] for w, _ in ROWS] + [[w] for w, _ in LABELS],
        # the query finishes after the persist beside it (pynimbus finishes a bolt's nodes
        # in the order they were made; Storm leaves it open): batch 1 sees its own counts
        "query": [["a", "x", 2], ["b", "y", 2], ["a", "w", 2]],
    }.items()}


def recorded(path):
    """``(results, empty)``: what was written, by tag, in the order of their JSON, the global
    aggregations' ``[0]`` of empty batches apart (``empty``: how many per tag)."""
    ret, empty = {}, {}
    if os.path.exists(path):
        with open(path) as f:
            for line in f:
                tag, values = line.split(" ", 1)
                values = json.loads(values)
                if tag in GLOBAL and values == [0]:
                    empty[tag] = empty.get(tag, 0) + 1
                else:
                    ret.setdefault(tag, []).append(values)
    return {k: sorted(v, key=json.dumps) for k, v in ret.items()}, empty
