"""Storm-starter's BasicDRPCTopology question as a Trident DRPC stream: ``exclamation``
answers ``[["<args>!"]]`` (for ``bench/bench_drpc.py --answerer python-trident``)."""

from pynimbus.trident import BaseFunction, Fields, TridentTopology


class Exclaim(BaseFunction):
    def execute(self, tuple_, collector):
        collector.emit([tuple_[0] + "!"])


def topology():
    t = TridentTopology()
    (t.new_drpc_stream("exclamation")
        .each(Fields("args"), Exclaim(), Fields("result"))
        .project(Fields("result")))
    return t
