"""A pystorm bolt for the big-tuple tests: for each tuple ``[n]`` emits one tuple of ``n``
characters."""

import os

from pystorm import Bolt


class BigEmitBolt(Bolt):
    def process(self, tup):
        self.emit(["x" * int(tup.values[0])], anchors=[tup])


if __name__ == "__main__":
    BigEmitBolt(serializer=os.environ.get("MULTILANG_TEST_SERIALIZER", "json")).run()
