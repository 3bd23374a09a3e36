"""Storm-starter's ManualDRPC in Python: the DRPC spout, a bolt adding "!" (two tasks), and
the return bolt; the function is "exclamation".  A request whose argument is "fail" has its
tuple failed by the bolt, so that the caller gets the failure."""

from streamparse import Bolt, Topology

from pynimbus.drpc.components import DRPCSpout, ReturnResults


class ExclamationRequests(DRPCSpout):
    function = "exclamation"


class Exclaim(Bolt):
    outputs = ["result", "return_info"]
    auto_ack = False  # it acks or fails each tuple itself

    def process(self, tup):
        args, info = tup.values
        if args == "fail":
            self.fail(tup)
            return
        self.emit([args + "!", info], anchors=[tup])
        self.ack(tup)


class ExclamationDRPC(Topology):
    requests = ExclamationRequests.spec()
    exclaim = Exclaim.spec(inputs=[requests], par=2)
    answers = ReturnResults.spec(inputs=[exclaim])
