"""A pystorm bolt for the worker tests: one tuple per word of each sentence (anchored and
acked by pystorm)."""

import os

from pystorm import Bolt


class SplitBolt(Bolt):
    def process(self, tup):
        for word in tup.values[0].split():
            self.emit([word])


if __name__ == "__main__":
    SplitBolt(serializer=os.environ.get("MULTILANG_TEST_SERIALIZER", "json")).run()
