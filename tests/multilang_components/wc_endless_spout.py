"""A pystorm spout for tests that watch live statistics: emits the lines of ``corpus.txt``
(beside it) round and round, each with a fresh message id, at most ``wordcount.sentences.per.sec``
(topology conf, default 20) a second, so the counts keep growing without taking the CPU."""

import os
import time

from pystorm import Spout


class EndlessSentenceSpout(Spout):
    def initialize(self, storm_conf, context):
        with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "corpus.txt")) as f:
            self.lines = [line.rstrip("\n") for line in f if line.strip()]
        self.interval = 1.0 / float(storm_conf.get("wordcount.sentences.per.sec", 20))
        self.emitted = 0
        self.next_at = time.monotonic()

    def next_tuple(self):
        # Pacing, not waiting on a condition: a slot every interval, never a burst to catch up.
        delay = self.next_at - time.monotonic()
        if delay > 0:
            time.sleep(delay)
        self.next_at = max(self.next_at, time.monotonic() - self.interval) + self.interval
        self.emit([self.lines[self.emitted % len(self.lines)]], tup_id=self.emitted)
        self.emitted += 1


if __name__ == "__main__":
    EndlessSentenceSpout(serializer=os.environ.get("MULTILANG_TEST_SERIALIZER", "json")).run()
