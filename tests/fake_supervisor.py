"""A stand-in 2.x supervisor Thrift server, in its own process, that records what it is sent.

``python tests/fake_supervisor.py DIR`` serves the generated ``Supervisor`` service (framed
transport, binary protocol, through pynimbus's own Twisted server) on 127.0.0.1, on a free
port it writes to ``DIR/port``.  Each ``sendSupervisorAssignments`` call is appended to
``DIR/received`` as one line: the hex of the SupervisorAssignments in Thrift binary.
:class:`FakeSupervisorProcess` starts it, waits for the port and reads the calls back.
"""

import os
import subprocess
import sys
import time

from thrift.protocol.TBinaryProtocol import TBinaryProtocol
from thrift.transport.TTransport import TMemoryBuffer

from pynimbus_path import child_env

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)


def encode(struct):
    buf = TMemoryBuffer()
    struct.write(TBinaryProtocol(buf))
    return buf.getvalue()


def decode(data, struct):
    struct.read(TBinaryProtocol(TMemoryBuffer(data)))
    return struct


class FakeSupervisorProcess:
    """Start with :meth:`start`; :meth:`received` lists the SupervisorAssignments sent."""

    def __init__(self, directory):
        self.directory = str(directory)
        os.makedirs(self.directory, exist_ok=True)
        self.process = None
        self.port = None

    def start(self, timeout=20.0):
        env = child_env()
        self._log = open(os.path.join(self.directory, "out"), "ab")
        self.process = subprocess.Popen(
            [sys.executable, os.path.abspath(__file__), self.directory], cwd=REPO, env=env,
            stdin=subprocess.DEVNULL, stdout=self._log, stderr=subprocess.STDOUT)
        path = os.path.join(self.directory, "port")
        deadline = time.monotonic() + timeout
        while not os.path.exists(path):
            if self.process.poll() is not None or time.monotonic() > deadline:
                self.stop()
                raise RuntimeError("fake supervisor did not start")
            time.sleep(0.02)
        with open(path) as f:
            self.port = int(f.read())
        return self

    def received(self):
        """Every SupervisorAssignments received so far, oldest first."""
        from pynimbus.generated.storm.ttypes import SupervisorAssignments
        try:
            with open(os.path.join(self.directory, "received")) as f:
                lines = [line.strip() for line in f if line.endswith("\n")]
        except FileNotFoundError:
            return []
        return [decode(bytes.fromhex(line), SupervisorAssignments()) for line in lines if line]

    def stop(self):
        if self.process is not None and self.process.poll() is None:
            self.process.kill()
            self.process.wait(10)
        self._log.close()


def serve(directory):
    from twisted.internet import reactor
    from zope.interface import implementer

    from pynimbus.generated.storm import Supervisor
    from pynimbus.thrift.server import ThriftServerFactory

    @implementer(Supervisor.Iface)
    class Recorder:
        def sendSupervisorAssignments(self, assignments):
            with open(os.path.join(directory, "received"), "a") as f:
                f.write(encode(assignments).hex() + "\n")

        def getLocalAssignmentForStorm(self, id):
            return None

        def sendSupervisorWorkerHeartbeat(self, heartbeat):
            return None

    port = reactor.listenTCP(0, ThriftServerFactory(Supervisor.Processor(Recorder())),
                             interface="127.0.0.1")
    tmp = os.path.join(directory, "port.tmp")
    with open(tmp, "w") as f:
        f.write(str(port.getHost().port))
    os.replace(tmp, os.path.join(directory, "port"))
    reactor.run()


if __name__ == "__main__":
    serve(sys.argv[1])
