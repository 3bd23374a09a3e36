"""A pystorm bolt for the worker tests: counts words and appends ``<task> <word> <count>``
to the file named by WORDCOUNT_OUTPUT after each one (the last line of a word is its count)."""

import os

from pystorm import Bolt
from wc_sentence_spout import append_line  # beside it in the jar


class CountBolt(Bolt):
    def initialize(self, storm_conf, context):
        self.counts = {}
        self.task_id = context["taskid"]
        self.output = os.environ["WORDCOUNT_OUTPUT"]

    def process(self, tup):
        word = tup.values[0]
        self.counts[word] = self.counts.get(word, 0) + 1
        append_line(self.output, "%d %s %d" % (self.task_id, word, self.counts[word]))


if __name__ == "__main__":
    CountBolt(serializer=os.environ.get("MULTILANG_TEST_SERIALIZER", "json")).run()
