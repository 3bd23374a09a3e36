"""A pystorm bolt for the word count benchmarks: counts words in memory, as streamparse's
quickstart does, and at each tick tuple appends ``<task> <word> <count>`` for every word
counted since the last tick to the file named by WORDCOUNT_OUTPUT, in one write (the last
line of a word is its count; the component's ``topology.tick.tuple.freq.secs`` sets how
often)."""

import os

from pystorm import Bolt


class TickCountBolt(Bolt):
    def initialize(self, storm_conf, context):
        self.counts = {}
        self.changed = set()
        self.task_id = context["taskid"]
        self.output = os.environ["WORDCOUNT_OUTPUT"]

    def process(self, tup):
        word = tup.values[0]
        self.counts[word] = self.counts.get(word, 0) + 1
        self.changed.add(word)

    def process_tick(self, tup):
        if not self.changed:
            return
        lines = "".join("%d %s %d\n" % (self.task_id, word, self.counts[word])
                        for word in sorted(self.changed))
        self.changed.clear()
        fd = os.open(self.output, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
        try:
            os.write(fd, lines.encode())
        finally:
            os.close(fd)


if __name__ == "__main__":
    TickCountBolt(serializer=os.environ.get("MULTILANG_TEST_SERIALIZER", "json")).run()
