"""The word count's count bolt written against Storm's own ``storm.py`` (beside it in the jar's
resources/): a plain ``storm.Bolt`` that acks each word itself, and appends
``<task> <word> <count>`` to the file named by WORDCOUNT_OUTPUT, as wc_count_bolt.py does."""

import os

import storm
from wc_sentence_spout import append_line


class CountBolt(storm.Bolt):
    def initialize(self, stormconf, context):
        self.counts = {}
        self.task_id = context["taskid"]
        self.output = os.environ["WORDCOUNT_OUTPUT"]

    def process(self, tup):
        word = tup.values[0]
        self.counts[word] = self.counts.get(word, 0) + 1
        append_line(self.output, "%d %s %d" % (self.task_id, word, self.counts[word]))
        storm.ack(tup)


if __name__ == "__main__":
    CountBolt().run()
