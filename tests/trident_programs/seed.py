"""The issue's seed example: per batch, each user's count and total, written by PrintEachFunc
to the file $TRIDENT_OUTPUT (one line per emitted value)."""

import os

from pynimbus.trident import (
    BaseAggregator, BaseFunction, Fields, FixedBatchSpout, TridentTopology)

SCORES = [["alice", 3], ["bob", 5], ["alice", 7], ["carol", 1], ["bob", 2], ["alice", 4],
          ["dave", 9]]
BATCH_SIZE = 3


class UserCountAggregator(BaseAggregator):
    def init(self, batch_id, collector):
        return {"user": None, "count": 0, "total": 0}

    def aggregate(self, state, tuple_, collector):
        state["user"] = tuple_.get_value_by_field("user")
        state["count"] += 1
        state["total"] += tuple_.get_value_by_field("score")

    def complete(self, state, collector):
        collector.emit(["%s count=%d total=%d" % (state["user"], state["count"],
                                                  state["total"])])


class PrintEachFunc(BaseFunction):
    def prepare(self, conf, context):
        self.path = os.environ["TRIDENT_OUTPUT"]

    def execute(self, tuple_, collector):
        with open(self.path, "a") as f:
            f.write("%s\n" % tuple_[0])


def topology():
    spout = FixedBatchSpout(Fields("user", "score"), BATCH_SIZE, *SCORES)
    t = TridentTopology()
    (t.new_stream("spout1", spout)
        .group_by(Fields("user"))
        .aggregate(Fields("user", "score"), UserCountAggregator(), Fields("val"))
        .to_stream()
        .parallelism_hint(1)
        .each(Fields("val"), PrintEachFunc(), Fields()))
    return t


def expected_lines():
    """What the program prints: per batch of the input, one line per user."""
    lines = []
    for start in range(0, len(SCORES), BATCH_SIZE):
        users = {}
        for user, score in SCORES[start:start + BATCH_SIZE]:
            count, total = users.get(user, (0, 0))
            users[user] = (count + 1, total + score)
        lines.extend("%s count=%d total=%d" % (u, c, t) for u, (c, t) in users.items())
    return sorted(lines)
