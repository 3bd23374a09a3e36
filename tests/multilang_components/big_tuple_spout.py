"""A pystorm spout for the big-tuple test: emits one tuple of ``test.big.tuple.bytes`` (from
the topology conf) characters, then one small tuple, then nothing."""

from pystorm import Spout


class BigTupleSpout(Spout):
    def initialize(self, storm_conf, context):
        self.pending = ["x" * int(storm_conf["test.big.tuple.bytes"]), "small"]

    def next_tuple(self):
        if self.pending:
            self.emit([self.pending.pop(0)])


if __name__ == "__main__":
    BigTupleSpout().run()
