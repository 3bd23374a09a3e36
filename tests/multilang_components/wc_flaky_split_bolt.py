"""A pystorm bolt for the worker tests: fails a sentence the first time this task sees it
(emitting nothing), splits it into words afterwards; acks by hand."""

import os

from pystorm import Bolt


class FlakySplitBolt(Bolt):
    auto_ack = False

    def initialize(self, storm_conf, context):
        self.seen = set()

    def process(self, tup):
        sentence = tup.values[0]
        if sentence not in self.seen:
            self.seen.add(sentence)
            self.fail(tup)
            return
        for word in sentence.split():
            self.emit([word], anchors=[tup])
        self.ack(tup)


if __name__ == "__main__":
    FlakySplitBolt(serializer=os.environ.get("MULTILANG_TEST_SERIALIZER", "json")).run()
