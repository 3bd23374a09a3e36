"""The word count's count bolt written against Storm's own ``storm.py`` (beside it in the jar's
resources/): a plain ``storm.Bolt`` that acks each word itself, and appends
``<task> <word> <count>`` to the file named by WORDCOUNT_OUTPUT, as wc_count_bolt.py does."""

import os

import storm


class CountBolt(storm.Bolt):
    def initialize(self, stormconf, context):
        self.counts = {}
        self.task_id = context["taskid"]
        self.output = os.environ["WORDCOUNT_OUTPUT"]

    def process(self, tup):
        word = tup.values[0]
        self.counts[word] = self.counts.get(word, 0) + 1
        # one O_APPEND write: lines of several processes never interleave
        fd = os.open(self.output, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
        try:
            os.write(fd, ("%d %s %d\n" % (self.task_id, word, self.counts[word])).encode())
        finally:
            os.close(fd)
        storm.ack(tup)


if __name__ == "__main__":
    CountBolt().run()
