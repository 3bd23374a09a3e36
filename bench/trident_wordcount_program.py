"""The Trident word count of bench/bench_trident_wordcount.py, as a program ``pynimbus submit``
takes (``trident_wordcount_program:topology``): a cycling ``FixedBatchSpout`` over CORPUS_ROWS
sentences, split, group_by(word), persistent_aggregate(Count) into a ``MemoryMapState``.

The Java side is tests/compat/java ``TridentWordCountBench``, the same program: the same
sentences (``SentenceSpout.SENTENCES``, repeated in order), the same spout, split on " " and
the same parallelism (the spout and the split at 1, the aggregate at $TRIDENT_BENCH_PARALLELISM).

The parameters are environment variables read when the topology is planned: the bench sets
them in its own process before planning and passes them in ``topology.environment``, which
a worker applies to its environment before importing this module, so both plan the same
topology.
"""

import os

from pynimbus.trident import BaseFunction, Fields, FixedBatchSpout, MemoryMapState
from pynimbus.trident import TridentTopology
from pynimbus.trident.builtin import Count

# tests/compat/java/src/main/java/pynimbus/topologies/SentenceSpout.java SENTENCES
SENTENCES = [
    "nimbus assigns executors to worker slots",
    "supervisors download the topology jar",
    "spouts emit tuples and bolts process them",
    "storm keeps its state in zookeeper",
    "tuples flow along the stream groupings",
]

BATCH_SIZE = "TRIDENT_BENCH_BATCH_SIZE"
PARALLELISM = "TRIDENT_BENCH_PARALLELISM"
CORPUS_ROWS = "TRIDENT_BENCH_CORPUS_ROWS"
DEFAULTS = {BATCH_SIZE: 1000, PARALLELISM: 2, CORPUS_ROWS: 1000}


def setting(name):
    return int(os.environ.get(name) or DEFAULTS[name])


def corpus(rows):
    """``rows`` sentences: SENTENCES repeated in order (as the Java side builds them)."""
    return [SENTENCES[i % len(SENTENCES)] for i in range(rows)]


class Split(BaseFunction):
    def execute(self, tuple_, collector):
        for word in tuple_[0].split(" "):
            collector.emit([word])


def topology():
    spout = FixedBatchSpout(Fields("sentence"), setting(BATCH_SIZE),
                            *[[s] for s in corpus(setting(CORPUS_ROWS))])
    spout.set_cycle(True)
    t = TridentTopology()
    (t.new_stream("spout1", spout)
        .each(Fields("sentence"), Split(), Fields("word"))
        .group_by(Fields("word"))
        .persistent_aggregate(MemoryMapState.Factory(), Count(), Fields("count"))
        .parallelism_hint(setting(PARALLELISM)))
    return t
