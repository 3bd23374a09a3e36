"""A pystorm bolt for the worker tests: the first time this task sees a sentence it neither
acks nor fails it (so its tree times out), afterwards splits it into words and acks."""

import os

from pystorm import Bolt


class SilentSplitBolt(Bolt):
    auto_ack = False

    def initialize(self, storm_conf, context):
        self.seen = set()

    def process(self, tup):
        sentence = tup.values[0]
        if sentence not in self.seen:
            self.seen.add(sentence)
            return
        for word in sentence.split():
            self.emit([word], anchors=[tup])
        self.ack(tup)


if __name__ == "__main__":
    SilentSplitBolt(serializer=os.environ.get("MULTILANG_TEST_SERIALIZER", "json")).run()
