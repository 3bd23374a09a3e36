"""The DRPC scenarios of Storm 1.2.4's Trident ``integration_test.clj`` as one Python Trident
program, for ``tests/test_trident_drpc.py`` on ``pynimbus dev``.

Storm's tests feed their spouts from the test (``feeder-spout``, ``feeder-committer-spout``);
here each feeder reads the lines a test appends to a file of ``$TRIDENT_FEEDS`` (one JSON
list of values per line), and the test asks through pynimbus's DRPC server.  Each of Storm's
topologies is a part of this one, with its own function names (two of Storm's reuse
"tester" and "words"):

========================  ==========================================  =====================
Storm's test              functions here                              fed from
========================  ==========================================  =====================
test-memory-map-get-      ``all-tuples``                              ``tuples.jsonl``
tuples
test-word-count           ``words``                                   ``words.jsonl``
test-word-count-          ``committed-words``                         ``committed.jsonl``
committer-spout
test-count-agg            ``numwords``
test-split-merge          ``splitter``
test-multiple-groupings-  ``groupings``
same-stream
test-multi-repartition    ``repartition``
(a failed batch)          ``checked``: fails the request "fail"
========================  ==========================================  =====================

and storm-starter's ``TridentReach`` (``reach``: two static states queried, the followers
counted once each).
"""

import json
import os

from pynimbus.trident import (
    BaseAggregator, BaseFilter, BaseFunction, CombinerAggregator, FailedException, Fields,
    MemoryMapState, TridentTopology)
from pynimbus.trident.builtin import Count, MapGet, Sum, TupleCollectionGet
from pynimbus.trident.spout import ICommitterTridentSpout, ITridentSpout
from pynimbus.trident.state.base import ReadOnlyMapState, ReadOnlyState

# storm-starter's TridentReach (and ReachTopology) data
TWEETERS_DB = {
    "foo.com/blog/1": ["sally", "bob", "tim", "george", "nathan"],
    "engineering.twitter.com/blog/5": ["adam", "david", "sally", "nathan"],
    "tech.backtype.com/blog/123": ["tim", "mike", "john"],
}
FOLLOWERS_DB = {
    "sally": ["bob", "tim", "alice", "adam", "jim", "chris", "jai"],
    "bob": ["sally", "nathan", "jim", "mary", "david", "vivian"],
    "tim": ["alex"],
    "nathan": ["sally", "bob", "adam", "harry", "chris", "vivian", "emily", "jordan"],
    "adam": ["david", "carissa"],
    "mike": ["john", "bob"],
    "john": ["alice", "nathan", "jim", "mike", "bob"],
}

FEEDS = "TRIDENT_FEEDS"
SPOUT_COORD_PREFIX = "$spoutcoord-"


class Split(BaseFunction):
    """``trident.testing.Split``: a word per space-separated part."""

    def execute(self, tuple_, collector):
        for word in tuple_[0].split(" "):
            if word:
                collector.emit([word])


class StringLength(BaseFunction):
    def execute(self, tuple_, collector):
        collector.emit([len(tuple_[0])])


class TrueFilter(BaseFilter):
    def is_keep(self, tuple_):
        return True


class FailOnFail(BaseFilter):
    """Fails the batch of the argument "fail" (``FailedException``)."""

    def is_keep(self, tuple_):
        if tuple_[0] == "fail":
            raise FailedException("asked to fail")
        return True


class CountAsAggregator(BaseAggregator):
    """``trident.testing.CountAsAggregator``: the batch's tuple count."""

    def init(self, batch_id, collector):
        return [0]

    def aggregate(self, state, tuple_, collector):
        state[0] += 1

    def complete(self, state, collector):
        collector.emit([state[0]])


class FeedCoordinator(object):
    """Takes the lines appended to the feed since the last batch and splits them among the
    emitter tasks (a batch's metadata: its replays emit the same).  When a batch that took
    lines succeeds (it is processed and committed), the feed's end offset is written to
    ``<feed>.done``: the test's ``feed`` waits for it, as Storm's waits for the fed batch."""

    def __init__(self, path, num_emitters):
        self.path = path
        self.num_emitters = num_emitters
        self.offset = 0
        self.ends = {}  # txid -> the feed's offset after its batch

    def initialize_transaction(self, txid, prev_metadata, curr_metadata):
        if curr_metadata is not None:
            return curr_metadata
        rows = []
        if os.path.exists(self.path):
            with open(self.path, "rb") as f:
                f.seek(self.offset)
                data = f.read()
            complete = data[:data.rfind(b"\n") + 1]
            self.offset += len(complete)
            rows = [json.loads(line) for line in complete.decode().splitlines() if line]
        if rows:
            self.ends[txid] = self.offset
        return {str(i): rows[i::self.num_emitters] for i in range(self.num_emitters)}

    def success(self, txid):
        for done in [t for t in self.ends if t <= txid]:
            end = self.ends.pop(done)
            with open(self.path + ".done.tmp", "w") as f:
                f.write(str(end))
            os.replace(self.path + ".done.tmp", self.path + ".done")

    def is_ready(self, txid):
        return True

    def close(self):
        pass


class FeedEmitter(object):
    def __init__(self, index):
        self.index = index

    def emit_batch(self, tx, coordinator_meta, collector):
        for values in coordinator_meta.get(str(self.index), []):
            collector.emit(values)

    def success(self, tx):
        pass

    def commit(self, tx):
        pass

    def close(self):
        pass


class FeederSpout(ITridentSpout):
    """Stands for Storm's ``FeederBatchSpout``: the lines a test appends to
    ``$TRIDENT_FEEDS/<name>.jsonl`` (with ``setWaitToEmit(false)``: a batch whenever asked,
    empty when nothing was fed)."""

    def __init__(self, name, fields):
        self.name = name
        self.fields = Fields(fields)

    def get_coordinator(self, tx_state_id, conf, context):
        spout_id = context.get_this_component_id()[len(SPOUT_COORD_PREFIX):]
        path = os.path.join(os.environ[FEEDS], self.name + ".jsonl")
        return FeedCoordinator(path, len(context.get_component_tasks(spout_id)))

    def get_emitter(self, tx_state_id, conf, context):
        return FeedEmitter(context.get_this_task_index())

    def get_output_fields(self):
        return self.fields


class FeederCommitterSpout(FeederSpout, ICommitterTridentSpout):
    """Stands for Storm's ``FeederCommitterBatchSpout``: a feeder whose emitters are told of
    each commit."""


class StaticSingleKeyMapState(ReadOnlyState, ReadOnlyMapState):
    """TridentReach's read-only map state over a dict."""

    def __init__(self, values):
        self.values = values

    def multi_get(self, keys):
        return [self.values.get(key[0]) for key in keys]

    class Factory(object):
        def __init__(self, values):
            self.values = values

        def make_state(self, conf, metrics, partition_index, num_partitions):
            return StaticSingleKeyMapState(self.values)


class One(CombinerAggregator):
    def init(self, tuple_):
        return 1

    def combine(self, value1, value2):
        return 1

    def zero(self):
        return 1


class ExpandList(BaseFunction):
    def execute(self, tuple_, collector):
        for value in tuple_[0] or ():
            collector.emit([value])


def reach(t):
    """storm-starter's ``TridentReach.buildTopology``."""
    url_to_tweeters = t.new_static_state(StaticSingleKeyMapState.Factory(TWEETERS_DB))
    tweeters_to_followers = t.new_static_state(StaticSingleKeyMapState.Factory(FOLLOWERS_DB))
    (t.new_drpc_stream("reach")
        .state_query(url_to_tweeters, Fields("args"), MapGet(), Fields("tweeters"))
        .each(Fields("tweeters"), ExpandList(), Fields("tweeter"))
        .shuffle()
        .state_query(tweeters_to_followers, Fields("tweeter"), MapGet(), Fields("followers"))
        .each(Fields("followers"), ExpandList(), Fields("follower"))
        .group_by(Fields("follower"))
        .aggregate(One(), Fields("one"))
        .aggregate(Fields("one"), Sum(), Fields("reach")))


def word_counts(t, tx_id, spout, spout_parallelism=None):
    stream = t.new_stream(tx_id, spout)
    if spout_parallelism is not None:
        stream = stream.parallelism_hint(spout_parallelism)
    return (stream.each(Fields("sentence"), Split(), Fields("word"))
            .group_by(Fields("word"))
            .persistent_aggregate(MemoryMapState.Factory(), Count(), Fields("count"))
            .parallelism_hint(6))


def sum_of_counts(t, function, counts):
    (t.new_drpc_stream(function)
        .each(Fields("args"), Split(), Fields("word"))
        .group_by(Fields("word"))
        .state_query(counts, Fields("word"), MapGet(), Fields("count"))
        .aggregate(Fields("count"), Sum(), Fields("sum"))
        .project(Fields("sum")))


def topology():
    t = TridentTopology()
    # test-memory-map-get-tuples
    tuples = word_counts(t, "tuples", FeederSpout("tuples", ["sentence"]))
    (t.new_drpc_stream("all-tuples")
        .broadcast()
        .state_query(tuples, Fields("args"), TupleCollectionGet(), Fields("word", "count"))
        .project(Fields("word", "count")))
    # test-word-count
    sum_of_counts(t, "words", word_counts(t, "tester", FeederSpout("words", ["sentence"])))
    # test-word-count-committer-spout
    sum_of_counts(t, "committed-words", word_counts(
        t, "committed", FeederCommitterSpout("committed", ["sentence"]), spout_parallelism=2))
    # test-count-agg
    (t.new_drpc_stream("numwords")
        .each(Fields("args"), Split(), Fields("word"))
        .aggregate(CountAsAggregator(), Fields("count"))
        .parallelism_hint(2)
        .project(Fields("count")))
    # test-split-merge
    splitter = t.new_drpc_stream("splitter")
    t.merge(splitter.each(Fields("args"), Split(), Fields("word")).project(Fields("word")),
            splitter.each(Fields("args"), StringLength(), Fields("len")).project(Fields("len")))
    # test-multiple-groupings-same-stream
    same = t.new_drpc_stream("groupings").each(Fields("args"), TrueFilter())
    t.merge(same.group_by(Fields("args")).aggregate(CountAsAggregator(), Fields("count")),
            same.group_by(Fields("args")).aggregate(CountAsAggregator(), Fields("count")))
    # test-multi-repartition
    (t.new_drpc_stream("repartition")
        .each(Fields("args"), Split(), Fields("word"))
        .local_or_shuffle()
        .shuffle()
        .aggregate(CountAsAggregator(), Fields("count")))
    # a request whose batch fails is failed
    t.new_drpc_stream("checked").each(Fields("args"), FailOnFail())
    reach(t)
    return t
