"""In-process tests of pynimbus.nimbus.supervisor_push: the Supervisor Thrift client on a memory
reactor (what it writes, how it ends a call that gets no answer) and its queue (one push in
flight per node, the newest waiting, limits, stop), without a network or sleeps."""
# test-case-name: tests.test_supervisor_push

import logging
import struct

from thrift.protocol.TBinaryProtocol import TBinaryProtocol
from thrift.Thrift import TMessageType
from thrift.transport.TTransport import TMemoryBuffer
from twisted.internet.address import IPv4Address
from twisted.internet.error import ConnectionRefusedError
from twisted.internet.testing import MemoryReactorClock, StringTransport

from pynimbus.clojure_port.supervisor_assignments import NodeAssignments
from pynimbus.generated.storm import Supervisor
from pynimbus.generated.storm.ttypes import (
    Assignment, AuthorizationException, NodeInfo, SupervisorAssignments)
from pynimbus.nimbus.supervisor_push import SupervisorPusher

CONF = {"supervisor.thrift.socket.timeout.ms": 2000, "nimbus.assignments.service.threads": 2,
        "nimbus.assignments.service.thread.queue.size": 2}


def payload(storm_id="t-1-1", node="n1", host="127.0.0.1"):
    return SupervisorAssignments(storm_assignment={storm_id: Assignment(
        master_code_dir="/x", node_host={node: host},
        executor_node_port={(1, 1): NodeInfo(node, {6700})},
        executor_start_time_secs={(1, 1): 1}, worker_resources={})})


def push(node="n1", port=6628, storm_id="t-1-1"):
    return NodeAssignments(node, "127.0.0.1", port, payload(storm_id, node))


class Supervisors:
    """The far ends of the pusher's connections on a MemoryReactorClock."""

    def __init__(self, conf=CONF):
        self.reactor = MemoryReactorClock()
        self.pusher = SupervisorPusher(conf, self.reactor)
        self.seen = 0

    def attempts(self):
        """``[(host, port, timeout)]`` of every connection attempt so far."""
        return [(host, port, timeout) for host, port, _f, timeout, _b in self.reactor.tcpClients]

    def accept(self, index):
        """Complete connection attempt ``index``; return (protocol, transport)."""
        _host, port, factory, _timeout, _bind = self.reactor.tcpClients[index]
        proto = factory.buildProtocol(IPv4Address("TCP", "127.0.0.1", port))
        transport = StringTransport()
        proto.makeConnection(transport)
        self.reactor.advance(0)  # ClientCreator hands the protocol over on the next turn
        return proto, transport

    def refuse(self, index):
        _host, _port, factory, _timeout, _bind = self.reactor.tcpClients[index]
        factory.clientConnectionFailed(None, _failure(ConnectionRefusedError()))
        self.reactor.advance(0)


def _failure(exc):
    from twisted.python.failure import Failure
    return Failure(exc)


def read_call(transport):
    """The one framed call written: ``(name, seqid, SupervisorAssignments)``."""
    data = transport.value()
    (length,) = struct.unpack("!i", data[:4])
    assert len(data) == 4 + length
    prot = TBinaryProtocol(TMemoryBuffer(data[4:]))
    name, mtype, seqid = prot.readMessageBegin()
    assert mtype == TMessageType.CALL
    args = Supervisor.sendSupervisorAssignments_args()
    args.read(prot)
    return name, seqid, args.assignments


def reply(proto, seqid, aze=None):
    buf = TMemoryBuffer()
    prot = TBinaryProtocol(buf)
    prot.writeMessageBegin("sendSupervisorAssignments", TMessageType.REPLY, seqid)
    Supervisor.sendSupervisorAssignments_result(aze=aze).write(prot)
    prot.writeMessageEnd()
    body = buf.getvalue()
    proto.dataReceived(struct.pack("!i", len(body)) + body)


def test_push_sends_one_framed_call_with_the_assignments_then_closes():
    """A push connects to host:server_port with the socket timeout, sends the assignments in
    one sendSupervisorAssignments frame and closes the connection after the reply."""
    sups = Supervisors()
    sups.pusher.push([push()])
    assert sups.attempts() == [("127.0.0.1", 6628, 2.0)]
    proto, transport = sups.accept(0)
    name, seqid, sent = read_call(transport)
    assert (name, sent) == ("sendSupervisorAssignments", payload())
    reply(proto, seqid)
    assert (sups.pusher.sent, sups.pusher.failed) == (1, 0)
    assert transport.disconnecting


def test_node_without_server_port_is_skipped(caplog):
    """No server_port: no connection, a warning naming the node."""
    sups = Supervisors()
    with caplog.at_level(logging.WARNING, "pynimbus.nimbus.supervisor_push"):
        sups.pusher.push([push(port=None)])
    assert sups.attempts() == [] and sups.pusher.dropped == 1
    assert "n1" in caplog.text and "server_port" in caplog.text


def test_unanswered_call_is_dropped_after_the_timeout_and_logged(caplog):
    """No reply within supervisor.thrift.socket.timeout.ms: the connection is aborted, the
    failure logged, and nothing is retried."""
    sups = Supervisors()
    sups.pusher.push([push()])
    proto, transport = sups.accept(0)
    with caplog.at_level(logging.ERROR, "pynimbus.nimbus.supervisor_push"):
        sups.reactor.advance(1.9)
        assert sups.pusher.failed == 0 and not transport.disconnecting
        sups.reactor.advance(0.2)
        assert transport.disconnecting
        proto.connectionLost(_failure(ConnectionRefusedError()))
    assert (sups.pusher.sent, sups.pusher.failed) == (0, 1)
    assert "n1" in caplog.text and "within 2.0 s" in caplog.text
    sups.reactor.advance(10)
    assert len(sups.attempts()) == 1


def test_refused_connection_and_supervisor_exception_are_logged_failures(caplog):
    """A refused connection or an AuthorizationException reply counts as one failure each."""
    sups = Supervisors()
    with caplog.at_level(logging.ERROR, "pynimbus.nimbus.supervisor_push"):
        sups.pusher.push([push("n1"), push("n2")])
        sups.refuse(0)
        proto, transport = sups.accept(1)
        _name, seqid, _sent = read_call(transport)
        reply(proto, seqid, aze=AuthorizationException(msg="denied"))
    assert (sups.pusher.sent, sups.pusher.failed) == (0, 2)
    assert "n1" in caplog.text and "n2" in caplog.text


def test_a_node_gets_only_the_newest_of_the_pushes_made_while_one_is_in_flight():
    """One push per node in flight; newer pushes replace the waiting one, so the node never
    receives older assignments after newer ones."""
    sups = Supervisors()
    sups.pusher.push([push(storm_id="a-1-1")])
    sups.pusher.push([push(storm_id="b-1-1")])
    sups.pusher.push([push(storm_id="c-1-1")])
    assert len(sups.attempts()) == 1
    proto, transport = sups.accept(0)
    _name, seqid, sent = read_call(transport)
    assert list(sent.storm_assignment) == ["a-1-1"]
    reply(proto, seqid)
    assert len(sups.attempts()) == 2
    proto, transport = sups.accept(1)
    _name, seqid, sent = read_call(transport)
    assert list(sent.storm_assignment) == ["c-1-1"]
    reply(proto, seqid)
    assert sups.pusher.sent == 2 and len(sups.attempts()) == 2


def test_in_flight_pushes_are_limited_by_the_service_threads():
    """nimbus.assignments.service.threads pushes at a time; the others wait their turn."""
    sups = Supervisors()
    sups.pusher.push([push("n1"), push("n2"), push("n3")])
    assert [a[1] for a in sups.attempts()] == [6628, 6628]
    sups.refuse(0)
    assert len(sups.attempts()) == 3


def test_pushes_beyond_the_queue_are_dropped(caplog):
    """At most threads x queue size pushes wait; more are dropped with a warning."""
    sups = Supervisors(dict(CONF, **{"nimbus.assignments.service.threads": 1,
                                     "nimbus.assignments.service.thread.queue.size": 1}))
    with caplog.at_level(logging.WARNING, "pynimbus.nimbus.supervisor_push"):
        sups.pusher.push([push("n1"), push("n2"), push("n3")])
    assert sups.pusher.dropped == 1 and "n3" in caplog.text


def test_stop_aborts_what_is_in_flight_and_drops_what_waits():
    """stop() aborts connections, cancels connection attempts, forgets waiting pushes."""
    sups = Supervisors(dict(CONF, **{"nimbus.assignments.service.threads": 2}))
    sups.pusher.push([push("n1"), push("n2"), push("n3")])
    proto, transport = sups.accept(0)
    done = sups.pusher.stop()
    assert transport.disconnecting
    proto.connectionLost(_failure(ConnectionRefusedError()))
    sups.reactor.advance(0)
    assert done.called
    assert len(sups.attempts()) == 2
    sups.pusher.push([push("n4")])
    assert len(sups.attempts()) == 2


def test_only_a_2x_nimbus_pushes():
    """1.2.4 supervisors read ZooKeeper: a 1.x nimbus has no pusher; a 2.x one has."""
    from pynimbus.common.config import default_config
    from pynimbus.nimbus.daemon import NimbusDaemon
    reactor = MemoryReactorClock()
    assert NimbusDaemon(default_config("1.x"), reactor).supervisor_push is None
    pusher = NimbusDaemon(default_config("2.x"), reactor).supervisor_push
    assert isinstance(pusher, SupervisorPusher) and pusher.timeout_secs == 5.0
