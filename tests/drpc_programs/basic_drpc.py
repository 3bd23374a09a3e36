"""Storm-starter's BasicDRPCTopology in Python: one bolt adding "!" to the argument (three
tasks), built by :class:`pynimbus.drpc.LinearDRPCTopologyBuilder` for the function
"exclamation"."""

from streamparse import Bolt

from pynimbus.drpc import LinearDRPCTopologyBuilder


class ExclaimBolt(Bolt):
    outputs = ["id", "result"]

    def process(self, tup):
        self.emit([tup.values[0], tup.values[1] + "!"])


def construct():
    builder = LinearDRPCTopologyBuilder("exclamation")
    builder.add_bolt(ExclaimBolt, par=3)
    return builder


BasicDRPCTopology = construct().create_topology("BasicDRPCTopology")
