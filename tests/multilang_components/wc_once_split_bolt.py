"""A pystorm bolt for the worker tests: the first time this task sees a sentence it fails it
(topology conf ``wordcount.first.attempt`` "fail", the default) or neither acks nor fails it
("drop": its tree times out), emitting nothing; afterwards it splits it into words, anchored,
and acks it."""

import os

from pystorm import Bolt


class OnceSplitBolt(Bolt):
    auto_ack = False

    def initialize(self, storm_conf, context):
        self.seen = set()
        self.drop = storm_conf.get("wordcount.first.attempt", "fail") == "drop"

    def process(self, tup):
        sentence = tup.values[0]
        if sentence not in self.seen:
            self.seen.add(sentence)
            if not self.drop:
                self.fail(tup)
            return
        for word in sentence.split():
            self.emit([word], anchors=[tup])
        self.ack(tup)


if __name__ == "__main__":
    OnceSplitBolt(serializer=os.environ.get("MULTILANG_TEST_SERIALIZER", "json")).run()
