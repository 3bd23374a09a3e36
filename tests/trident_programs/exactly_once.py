"""Word count from partitioned spouts over a fixed corpus into a SQLite map state: the opaque
spout with an opaque state, the transactional spout with a transactional state.  A partition's
metadata is its offsets ``{"offset": first, "next": after the last}``.  The state's file is
$TRIDENT_DB (an absolute path)."""

import collections
import json
import os
import sqlite3

from pynimbus.trident import (
    BaseFunction, Fields, OpaquePartitionedTridentSpout, PartitionedTridentSpout,
    SQLiteMapState, TridentTopology)
from pynimbus.trident.builtin import Count

WORDS = ["apple", "banana", "cherry", "date", "elder", "fig", "grape"]
PARTITIONS = 3
SENTENCES_PER_PARTITION = 180  # long enough to outlast the kills at 250 ms a batch
PER_BATCH = 2  # sentences of a partition per batch


def corpus(partition):
    return ["%s %s %s" % (WORDS[(partition + i) % 7], WORDS[(3 * i) % 7],
                          WORDS[(partition * i + 1) % 7])
            for i in range(SENTENCES_PER_PARTITION)]


class Partition(object):
    def __init__(self, index):
        self.id = "partition-%d" % index
        self.index = index


class Coordinator(object):
    def get_partitions_for_batch(self):
        return PARTITIONS

    def is_ready(self, txid):
        return True

    def close(self):
        pass


class CorpusEmitter(object):
    def get_ordered_partitions(self, all_partition_info):
        return [Partition(i) for i in range(all_partition_info)]

    def refresh_partitions(self, partitions):
        pass

    def _emit(self, collector, partition, start, end):
        for sentence in corpus(partition.index)[start:end]:
            collector.emit([sentence])

    def _next_batch(self, collector, partition, last_meta):
        start = last_meta["next"] if last_meta else 0
        end = min(start + PER_BATCH, SENTENCES_PER_PARTITION)
        self._emit(collector, partition, start, end)
        return {"offset": start, "next": end}

    def close(self):
        pass


class OpaqueEmitter(CorpusEmitter):
    def emit_partition_batch(self, tx, collector, partition, last_meta):
        return self._next_batch(collector, partition, last_meta)


class TransactionalEmitter(CorpusEmitter):
    def emit_partition_batch_new(self, tx, collector, partition, last_meta):
        return self._next_batch(collector, partition, last_meta)

    def emit_partition_batch(self, tx, collector, partition, meta):
        self._emit(collector, partition, meta["offset"], meta["next"])


class OpaqueCorpusSpout(OpaquePartitionedTridentSpout):
    def get_output_fields(self):
        return Fields("sentence")

    def get_coordinator(self, conf, context):
        return Coordinator()

    def get_emitter(self, conf, context):
        return OpaqueEmitter()


class TransactionalCorpusSpout(PartitionedTridentSpout):
    def get_output_fields(self):
        return Fields("sentence")

    def get_coordinator(self, conf, context):
        return Coordinator()

    def get_emitter(self, conf, context):
        return TransactionalEmitter()


class Split(BaseFunction):
    def execute(self, tuple_, collector):
        for word in tuple_[0].split(" "):
            collector.emit([word])


def _topology(spout, kind):
    t = TridentTopology()
    # its own txId: the spout's metadata under /transactional/<txId> outlives the topology
    (t.new_stream("corpus-" + kind, spout).parallelism_hint(2)
        .each(Fields("sentence"), Split(), Fields("word"))
        .group_by(Fields("word"))
        .persistent_aggregate(SQLiteMapState.Factory(os.environ["TRIDENT_DB"], kind=kind),
                              Count(), Fields("count"))
        .parallelism_hint(2))
    return t


def opaque():
    return _topology(OpaqueCorpusSpout(), "opaque")


def transactional():
    return _topology(TransactionalCorpusSpout(), "transactional")


def expected_counts():
    return dict(collections.Counter(w for p in range(PARTITIONS) for s in corpus(p)
                                    for w in s.split(" ")))


def stored_counts(path, kind):
    """``{word: count}`` read from the state's rows (Storm's JSON layouts)."""
    if not os.path.exists(path):
        return {}
    with sqlite3.connect(path, timeout=30) as db:
        try:
            rows = db.execute("SELECT key, value FROM trident_state").fetchall()
        except sqlite3.OperationalError:
            return {}
    counts = {}
    for key, value in rows:
        word = json.loads(key)
        stored = json.loads(bytes(value).decode("utf-8"))
        if not isinstance(word, list) or len(word) != 1:
            continue  # the global key of a snapshot, not a word
        counts[word[0]] = stored[1]  # [txid, val] and [currTxid, curr, prev] alike
    return counts
