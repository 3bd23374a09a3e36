"""A pystorm bolt for the worker tests: counts words and appends ``<task> <word> <count>``
to the file named by WORDCOUNT_OUTPUT after each one (the last line of a word is its count)."""

import os

from pystorm import Bolt


class CountBolt(Bolt):
    def initialize(self, storm_conf, context):
        self.counts = {}
        self.task_id = context["taskid"]
        self.output = os.environ["WORDCOUNT_OUTPUT"]

    def process(self, tup):
        word = tup.values[0]
        self.counts[word] = self.counts.get(word, 0) + 1
        fd = os.open(self.output, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
        try:
            os.write(fd, ("%d %s %d\n" % (self.task_id, word, self.counts[word])).encode())
        finally:
            os.close(fd)


if __name__ == "__main__":
    CountBolt(serializer=os.environ.get("MULTILANG_TEST_SERIALIZER", "json")).run()
