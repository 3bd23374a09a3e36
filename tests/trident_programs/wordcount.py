"""Trident word count over a known corpus, with a function that raises FailedException the
first time it meets some words in its process (their batch fails and replays), counts kept in
a MemoryMapState and every new count written to $TRIDENT_OUTPUT as ``word count``."""

import collections
import os

from pynimbus.trident import (
    BaseFilter, BaseFunction, FailedException, Fields, FixedBatchSpout, MemoryMapState,
    TridentTopology)
from pynimbus.trident.builtin import Count

SENTENCES = [
    "the cow jumped over the moon",
    "the man went to the store and bought some candy",
    "four score and seven years ago",
    "how many apples can you eat",
    "to be or not to be the person",
    "the moon is made of green cheese",
]
FAIL_ONCE = ("candy", "apples", "cheese")
_failed = set()  # per worker process: a word's first meeting fails its batch


class Split(BaseFunction):
    def execute(self, tuple_, collector):
        for word in tuple_[0].split(" "):
            collector.emit([word])


class FailOnFirstMeeting(BaseFilter):
    def is_keep(self, tuple_):
        word = tuple_[0]
        if word in FAIL_ONCE and word not in _failed:
            _failed.add(word)
            raise FailedException("first meeting of %r" % word)
        return True


class Report(BaseFunction):
    def prepare(self, conf, context):
        self.path = os.environ["TRIDENT_OUTPUT"]

    def execute(self, tuple_, collector):
        with open(self.path, "a") as f:
            f.write("%s %d\n" % (tuple_[0], tuple_[1]))


def topology():
    spout = FixedBatchSpout(Fields("sentence"), 2, *([s] for s in SENTENCES))
    t = TridentTopology()
    (t.new_stream("sentences", spout)
        .each(Fields("sentence"), Split(), Fields("word"))
        .filter(Fields("word"), FailOnFirstMeeting())
        .group_by(Fields("word"))
        .persistent_aggregate(MemoryMapState.Factory(), Count(), Fields("count"))
        .parallelism_hint(2)
        .new_values_stream()
        .each(Fields("word", "count"), Report(), Fields()))
    return t


def expected_counts():
    return dict(collections.Counter(w for s in SENTENCES for w in s.split(" ")))


def final_counts(path):
    """The last count written for each word."""
    counts = {}
    with open(path) as f:
        for line in f:
            word, count = line.split()
            counts[word] = int(count)
    return counts
