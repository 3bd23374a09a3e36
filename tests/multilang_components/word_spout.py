"""A pystorm spout for the multilang host tests: each ``next`` emits one numbered word."""

import os

from pystorm import Spout


class WordSpout(Spout):
    def initialize(self, storm_conf, context):
        self.count = 0

    def next_tuple(self):
        self.count += 1
        self.emit(["word%d" % self.count], tup_id="id%d" % self.count)


if __name__ == "__main__":
    WordSpout(serializer=os.environ.get("MULTILANG_TEST_SERIALIZER", "json")).run()
