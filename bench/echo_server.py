"""Baseline for bench_server.py: the barest Twisted framed/binary Thrift server for Nimbus.

It answers ``getNimbusConf`` with a constant string and ``getClusterInfo`` with a constant
one-nimbus ``ClusterSummary``, through the same generated code (``pynimbus.generated.storm``,
accelerated binary protocol) but none of pynimbus's layers: no handler composition, no error
mapping, no cluster-state reads, no threads.  Any other call gets no answer logic beyond what the
generated processor does.  It runs until SIGTERM/SIGINT and then exits 0.

    python bench/echo_server.py --port 16627 [--conf-json FILE]
"""

import argparse
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from thrift.protocol.TBinaryProtocol import TBinaryProtocolAccelerated  # noqa: E402
from thrift.transport.TTransport import TMemoryBuffer  # noqa: E402
from twisted.internet import protocol  # noqa: E402
from twisted.protocols.basic import IntNStringReceiver  # noqa: E402
from zope.interface import implementer  # noqa: E402

from pynimbus.generated.storm import Nimbus  # noqa: E402
from pynimbus.generated.storm.ttypes import ClusterSummary, NimbusSummary  # noqa: E402


@implementer(Nimbus.Iface)
class EchoHandler:
    def __init__(self, conf_json, port):
        self.conf_json = conf_json
        self.port = port
        self.started = int(time.time())

    def getNimbusConf(self):
        return self.conf_json

    def getClusterInfo(self):
        return ClusterSummary(
            supervisors=[], topologies=[], nimbus_uptime_secs=int(time.time()) - self.started,
            nimbuses=[NimbusSummary(host="localhost", port=self.port, isLeader=True,
                                    uptime_secs=int(time.time()) - self.started,
                                    version="1.2.4")])


class EchoProtocol(IntNStringReceiver):
    structFormat = "!I"
    prefixLength = 4
    MAX_LENGTH = 1048576

    def stringReceived(self, frame):
        iprot = TBinaryProtocolAccelerated(TMemoryBuffer(frame))
        name, _, seqid = iprot.readMessageBegin()
        otrans = TMemoryBuffer()
        process = self.factory.processor._processMap[name]
        d = process(self.factory.processor, seqid, iprot, TBinaryProtocolAccelerated(otrans))
        d.addCallback(lambda _: self.sendString(otrans.getvalue()))


class EchoFactory(protocol.ServerFactory):
    protocol = EchoProtocol

    def __init__(self, processor):
        self.processor = processor


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--conf-json", help="file whose content getNimbusConf returns")
    args = parser.parse_args(argv)
    conf_json = '{"nimbus.thrift.port": %d}' % args.port
    if args.conf_json:
        with open(args.conf_json) as f:
            conf_json = f.read()
    from twisted.internet import reactor
    handler = EchoHandler(conf_json, args.port)
    reactor.listenTCP(args.port, EchoFactory(Nimbus.Processor(handler)), interface="127.0.0.1")
    reactor.run()
    return 0


if __name__ == "__main__":
    sys.exit(main())
