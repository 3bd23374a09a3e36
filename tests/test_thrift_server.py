"""In-process tests of pynimbus.thrift.server: framing, dispatch and error mapping, no real network.

Each test builds a ``ThriftServerFactory`` around ``NimbusHandler`` composed of a tiny stub
concern, connects protocols to Twisted's ``StringTransport`` and feeds them bytes written by the
plain (pure Python) Thrift binary protocol, as a Java client would write them.
"""

import logging
import struct

import pytest
from thrift.protocol.TBinaryProtocol import TBinaryProtocol
from thrift.Thrift import TApplicationException, TMessageType, TType
from thrift.transport.TTransport import TMemoryBuffer
from twisted.internet import defer, task
from twisted.internet.address import IPv4Address
from twisted.internet.testing import StringTransport

from pynimbus.generated.storm import Nimbus
from pynimbus.generated.storm.ttypes import AuthorizationException, NotAliveException
from pynimbus.handlers import NimbusHandler, declared_exceptions
from pynimbus.thrift.server import ThriftServerFactory

FRAME_LIMIT = 4096
BUFFERED_LIMIT = 3000
PARTIAL_FRAME_TIMEOUT = 30.0
CONF_JSON = '{"nimbus.thrift.port": 6627}'


class StubConcern:
    """A concern implementing a few methods, with knobs for failures and slow answers."""

    def __init__(self):
        self.pending = []     # Deferreds handed out by getClusterInfo, fired by the test
        self.names_seen = []

    def getNimbusConf(self):
        return CONF_JSON

    def isTopologyNameAllowed(self, name):
        self.names_seen.append(name)
        return name == "good"

    def getClusterInfo(self):
        d = defer.Deferred()
        self.pending.append(d)
        return d

    def getTopologyConf(self, storm_id):
        raise ValueError("a bug inside the handler")

    def getTopologyInfo(self, storm_id):
        raise NotAliveException(msg="%s is not alive" % storm_id)

    def getLeader(self):
        raise AuthorizationException(msg="getLeader is not authorized")


class Connection:
    """One server-side protocol wired to a StringTransport, with client-side helpers."""

    def __init__(self, factory, peer_port):
        self.proto = factory.buildProtocol(IPv4Address("TCP", "127.0.0.1", peer_port))
        self.transport = StringTransport(
            hostAddress=IPv4Address("TCP", "127.0.0.1", 6627),
            peerAddress=IPv4Address("TCP", "127.0.0.1", peer_port))
        self.proto.makeConnection(self.transport)

    def send(self, data):
        self.proto.dataReceived(data)

    def call(self, method, seqid=1, strict=True, **kwargs):
        self.send(frame(call_payload(method, seqid, strict=strict, **kwargs)))

    def replies(self):
        """Split everything written so far into decoded replies; clear the transport."""
        data = self.transport.value()
        self.transport.clear()
        out = []
        while data:
            (length,) = struct.unpack("!i", data[:4])
            assert len(data) >= 4 + length, "the server wrote a partial frame"
            out.append(decode_reply(data[4:4 + length]))
            data = data[4 + length:]
        return out

    @property
    def closed(self):
        return self.transport.disconnecting


class Reply:
    def __init__(self, name, mtype, seqid, body, raw):
        self.name, self.mtype, self.seqid, self.body, self.raw = name, mtype, seqid, body, raw


def frame(payload):
    return struct.pack("!i", len(payload)) + payload


def call_payload(method, seqid, strict=True, **kwargs):
    buf = TMemoryBuffer()
    prot = TBinaryProtocol(buf, strictWrite=strict)
    prot.writeMessageBegin(method, TMessageType.CALL, seqid)
    getattr(Nimbus, method + "_args")(**kwargs).write(prot)
    prot.writeMessageEnd()
    return buf.getvalue()


def decode_reply(payload):
    prot = TBinaryProtocol(TMemoryBuffer(payload), strictRead=True)
    name, mtype, seqid = prot.readMessageBegin()
    if mtype == TMessageType.EXCEPTION:
        body = TApplicationException()
    else:
        body = getattr(Nimbus, name + "_result")()
    body.read(prot)
    prot.readMessageEnd()
    return Reply(name, mtype, seqid, body, payload)


def set_fields(result):
    return {k: v for k, v in vars(result).items() if v is not None}


@pytest.fixture
def stub():
    return StubConcern()


def padded_call(length, seqid=3):
    """An isTopologyNameAllowed("good") payload of exactly ``length`` bytes: the args struct
    carries an unknown string field as filler, which the server skips."""
    payload = call_payload("isTopologyNameAllowed", seqid, name="good")
    head, stop = payload[:-1], payload[-1:]
    filler_overhead = 1 + 2 + 4
    filler = b"f" * (length - len(payload) - filler_overhead)
    padded = (head + bytes([TType.STRING, 0x00, 0x63]) + struct.pack("!i", len(filler))
              + filler + stop)
    assert len(padded) == length
    return padded


@pytest.fixture
def clock():
    return task.Clock()


@pytest.fixture
def factory(stub, clock):
    return ThriftServerFactory(Nimbus.Processor(NimbusHandler(stub)), max_frame_size=FRAME_LIMIT,
                               max_buffered_bytes=10 * FRAME_LIMIT,
                               partial_frame_timeout=PARTIAL_FRAME_TIMEOUT, clock=clock)


@pytest.fixture
def conn(factory):
    return Connection(factory, 40001)


def test_framed_call_gets_framed_reply_with_same_seqid_and_name(conn):
    """A framed getNimbusConf CALL is answered by one framed strict REPLY echoing name and seqid."""
    conn.call("getNimbusConf", seqid=0x12345)
    raw = conn.transport.value()
    (length,) = struct.unpack("!i", raw[:4])
    assert length == len(raw) - 4
    assert raw[4:8] == b"\x80\x01\x00\x02"  # strict header, REPLY
    [reply] = conn.replies()
    assert (reply.name, reply.mtype, reply.seqid) == ("getNimbusConf", TMessageType.REPLY, 0x12345)
    assert set_fields(reply.body) == {"success": CONF_JSON}
    assert not conn.closed


def test_consecutive_calls_on_one_connection_are_answered_in_order(conn):
    """Several calls on one connection (even in one TCP segment) get one reply each, in order."""
    conn.send(b"".join(frame(call_payload("getNimbusConf", seqid)) for seqid in (1, 2, 3)))
    assert [r.seqid for r in conn.replies()] == [1, 2, 3]


def test_frame_split_into_single_bytes_is_reassembled(conn):
    """A frame arriving one byte at a time is reassembled and answered once."""
    for byte in frame(call_payload("getNimbusConf", 9)):
        conn.send(bytes([byte]))
    [reply] = conn.replies()
    assert reply.seqid == 9 and reply.body.success == CONF_JSON


def test_old_unversioned_message_header_is_accepted(conn):
    """A CALL with the old non-strict header (strictRead=false on the server) is served."""
    conn.call("getNimbusConf", seqid=5, strict=False)
    [reply] = conn.replies()
    assert reply.mtype == TMessageType.REPLY and reply.body.success == CONF_JSON


def test_unknown_method_gets_unknown_method_exception(conn):
    """An unknown method name gets EXCEPTION UNKNOWN_METHOD "Invalid method name: 'x'"."""
    buf = TMemoryBuffer()
    prot = TBinaryProtocol(buf)
    prot.writeMessageBegin("x", TMessageType.CALL, 77)
    prot.writeStructBegin("x_args")
    prot.writeFieldBegin("a", TType.STRING, 1)
    prot.writeString("ignored")
    prot.writeFieldEnd()
    prot.writeFieldStop()
    prot.writeStructEnd()
    prot.writeMessageEnd()
    conn.send(frame(buf.getvalue()))
    [reply] = conn.replies()
    assert (reply.name, reply.mtype, reply.seqid) == ("x", TMessageType.EXCEPTION, 77)
    assert reply.body.type == TApplicationException.UNKNOWN_METHOD
    assert reply.body.message == "Invalid method name: 'x'"
    conn.call("getNimbusConf", seqid=78)
    assert conn.replies()[0].body.success == CONF_JSON


def _header(method, seqid):
    buf = TMemoryBuffer()
    TBinaryProtocol(buf).writeMessageBegin(method, TMessageType.CALL, seqid)
    return buf.getvalue()


@pytest.mark.parametrize("args_bytes", [
    pytest.param(bytes([0x63, 0x00, 0x01, 0x00]), id="unknown-field-type"),
    pytest.param(bytes([TType.STRING, 0x00, 0x01]) + struct.pack("!i", 100) + b"abc",
                 id="string-longer-than-frame"),
    pytest.param(bytes([TType.LIST, 0x00, 0x01, 0x77]) + struct.pack("!i", 1),
                 id="list-of-unknown-type"),
])
def test_undecodable_arguments_get_protocol_error(conn, stub, args_bytes):
    """Arguments whose bytes cannot be decoded get EXCEPTION PROTOCOL_ERROR; the handler is not called."""
    conn.send(frame(_header("isTopologyNameAllowed", 31) + args_bytes))
    [reply] = conn.replies()
    assert (reply.name, reply.mtype, reply.seqid) == (
        "isTopologyNameAllowed", TMessageType.EXCEPTION, 31)
    assert reply.body.type == TApplicationException.PROTOCOL_ERROR
    assert stub.names_seen == []
    assert not conn.closed
    conn.call("getNimbusConf", seqid=32)
    assert conn.replies()[0].body.success == CONF_JSON


def test_argument_of_mismatched_type_is_skipped_like_java(conn, stub):
    """A decodable argument of the wrong Thrift type is skipped (as Java does), so the handler sees None."""
    args = bytes([TType.I32, 0x00, 0x01]) + struct.pack("!i", 5) + bytes([TType.STOP])
    conn.send(frame(_header("isTopologyNameAllowed", 33) + args))
    [reply] = conn.replies()
    assert reply.mtype == TMessageType.REPLY and reply.body.success is False
    assert stub.names_seen == [None]


def test_oversized_frame_closes_connection_and_logs(conn, caplog):
    """A frame length above nimbus.thrift.max_buffer_size closes the connection and is logged."""
    with caplog.at_level(logging.WARNING, logger="pynimbus.thrift.server"):
        conn.send(struct.pack("!i", FRAME_LIMIT + 1) + b"\x80\x01\x00\x01")
    assert conn.closed
    assert conn.transport.value() == b""
    assert any("exceeds" in r.getMessage() and str(FRAME_LIMIT + 1) in r.getMessage()
               for r in caplog.records)


def test_negative_frame_length_closes_connection(conn):
    """A frame length with the sign bit set (e.g. an HTTP or TLS client) closes the connection."""
    conn.send(b"\xff\xff\xff\xf0" + b"x" * 16)
    assert conn.closed and conn.transport.value() == b""


def test_frame_at_the_limit_is_served(conn):
    """A frame exactly nimbus.thrift.max_buffer_size long is accepted and answered."""
    conn.send(frame(padded_call(FRAME_LIMIT)))
    [reply] = conn.replies()
    assert reply.body.success is True and not conn.closed


def test_zero_length_frame_closes_connection(conn, caplog):
    """A zero-length frame closes the connection (as libthrift's server does) and is logged."""
    with caplog.at_level(logging.WARNING, logger="pynimbus.thrift.server"):
        conn.send(b"\x00\x00\x00\x00")
    assert conn.closed and conn.transport.value() == b""
    assert any("empty frame" in r.getMessage() for r in caplog.records)


def test_garbage_message_header_closes_connection(conn):
    """A frame whose message header cannot be read closes the connection without a reply."""
    conn.send(frame(b"\x80\x01\x00\x01\x7f\xff\xff\xff"))
    assert conn.closed and conn.transport.value() == b""


def test_undeclared_handler_exception_gives_internal_error(conn, caplog):
    """A handler raising an undeclared Python exception gives INTERNAL_ERROR "Internal error processing <method>"."""
    with caplog.at_level(logging.ERROR):
        conn.call("getTopologyConf", seqid=11, id="t-1-1")
    [reply] = conn.replies()
    assert (reply.mtype, reply.seqid) == (TMessageType.EXCEPTION, 11)
    assert reply.body.type == TApplicationException.INTERNAL_ERROR
    assert reply.body.message == "Internal error processing getTopologyConf"
    assert "a bug inside the handler" not in reply.raw.decode("latin-1")
    assert any("a bug inside the handler" in r.getMessage() for r in caplog.records)


def test_declared_exception_comes_back_in_result_struct(conn):
    """A declared exception is a REPLY whose result struct carries it at its declared field."""
    conn.call("getTopologyInfo", seqid=12, id="t-1-1")
    [reply] = conn.replies()
    assert reply.mtype == TMessageType.REPLY
    assert set(set_fields(reply.body)) == {"e"}
    assert isinstance(reply.body.e, NotAliveException)
    assert reply.body.e.msg == "t-1-1 is not alive"
    conn.call("getLeader", seqid=13)
    [reply] = conn.replies()
    assert set(set_fields(reply.body)) == {"aze"}
    assert reply.body.aze.msg == "getLeader is not authorized"


@pytest.mark.parametrize("method", ["killTopology", "submitTopology", "beginFileUpload",
                                    "deleteBlob", "getTopologyHistory"])
def test_not_supported_method_gets_its_declared_exception(conn, method):
    """A method no concern implements answers a REPLY with one of its declared exceptions saying "not supported yet"."""
    conn.call(method, seqid=21)
    [reply] = conn.replies()
    assert (reply.name, reply.mtype, reply.seqid) == (method, TMessageType.REPLY, 21)
    fields = set_fields(reply.body)
    assert len(fields) == 1 and "success" not in fields
    [exc] = fields.values()
    assert type(exc) in declared_exceptions(method)
    assert "not supported yet" in exc.msg


def test_not_supported_method_without_declared_exception_gets_application_exception(conn):
    """A not-supported method that declares no exception gets EXCEPTION UNKNOWN saying "not supported yet"."""
    conn.call("getLogConfig", seqid=22, name="t-1-1")
    [reply] = conn.replies()
    assert (reply.mtype, reply.seqid) == (TMessageType.EXCEPTION, 22)
    assert reply.body.type == TApplicationException.UNKNOWN
    assert "not supported yet" in reply.body.message


def test_unfired_deferred_does_not_block_another_connection(factory, stub):
    """While one connection's handler Deferred is pending, another connection's call is answered."""
    slow = Connection(factory, 40002)
    fast = Connection(factory, 40003)
    slow.call("getClusterInfo", seqid=1)
    assert len(stub.pending) == 1 and slow.replies() == []
    fast.call("getNimbusConf", seqid=2)
    [reply] = fast.replies()
    assert reply.body.success == CONF_JSON
    assert slow.replies() == []
    from pynimbus.generated.storm.ttypes import ClusterSummary
    stub.pending[0].callback(ClusterSummary(supervisors=[], topologies=[], nimbuses=[]))
    [reply] = slow.replies()
    assert reply.seqid == 1 and reply.body.success.nimbuses == []


def test_reply_after_client_disconnected_is_dropped(factory, stub):
    """A reply ready after its client went away is dropped without writing or failing."""
    conn = Connection(factory, 40004)
    conn.call("getClusterInfo", seqid=1)
    conn.transport.connected = False
    conn.proto.connectionLost(None)
    from pynimbus.generated.storm.ttypes import ClusterSummary
    stub.pending[0].callback(ClusterSummary(supervisors=[], topologies=[], nimbuses=[]))
    assert conn.transport.value() == b""
    assert conn.proto not in factory.connections


def test_unencodable_handler_result_gives_internal_error(factory):
    """A handler result that cannot be encoded (wrong type) gives INTERNAL_ERROR, not a hang."""
    class BadConcern:
        def getNimbusConf(self):
            return 12345  # not a string

    bad = ThriftServerFactory(Nimbus.Processor(NimbusHandler(BadConcern())), FRAME_LIMIT)
    conn = Connection(bad, 40005)
    conn.call("getNimbusConf", seqid=4)
    [reply] = conn.replies()
    assert reply.mtype == TMessageType.EXCEPTION and reply.seqid == 4
    assert reply.body.type == TApplicationException.INTERNAL_ERROR
    assert reply.body.message == "Internal error processing getNimbusConf"


def test_partial_frame_without_more_bytes_for_the_timeout_closes_the_connection(
        conn, factory, clock, caplog):
    """A connection that stops sending in the middle of a frame is closed (and logged) once
    pynimbus.thrift.partial_frame.timeout.secs pass without a byte; each byte restarts the
    wait, and the frame's reserved bytes are given back."""
    payload = frame(padded_call(2000))
    conn.send(payload[:100])
    clock.advance(PARTIAL_FRAME_TIMEOUT - 1)
    conn.send(payload[100:200])
    clock.advance(PARTIAL_FRAME_TIMEOUT - 1)
    assert not conn.closed and factory.buffered_bytes == 2000
    with caplog.at_level(logging.WARNING, logger="pynimbus.thrift.server"):
        clock.advance(1)
    assert conn.closed and conn.transport.value() == b""
    assert factory.buffered_bytes == 0
    assert any("partial_frame.timeout.secs" in r.getMessage() for r in caplog.records)


def test_part_of_a_length_prefix_also_times_out(conn, clock):
    """Three bytes of a length prefix are a partial frame too."""
    conn.send(b"\x00\x00\x01")
    clock.advance(PARTIAL_FRAME_TIMEOUT)
    assert conn.closed


def test_connection_idle_between_calls_is_never_timed_out(conn, clock):
    """A client that holds its connection open between whole calls keeps it (the UI and
    supervisors do), and no timer is left pending for it."""
    conn.call("getNimbusConf", seqid=1)
    assert len(conn.replies()) == 1
    clock.advance(100 * PARTIAL_FRAME_TIMEOUT)
    assert not conn.closed and clock.getDelayedCalls() == []
    conn.call("getNimbusConf", seqid=2)
    assert conn.replies()[0].seqid == 2


@pytest.fixture
def budget_factory(stub, clock):
    return ThriftServerFactory(Nimbus.Processor(NimbusHandler(stub)), FRAME_LIMIT,
                               max_buffered_bytes=BUFFERED_LIMIT, clock=clock)


def test_frame_that_does_not_fit_the_budget_closes_the_stalest_partial_frame(
        budget_factory, caplog):
    """When a frame would take the bytes buffered across connections past
    pynimbus.thrift.max_buffered_bytes, the connection whose partial frame went longest
    without a byte is closed (logged) and the new frame is served; a connection that sent
    more since keeps its frame."""
    stalest, active = Connection(budget_factory, 40010), Connection(budget_factory, 40011)
    stalest_frame, active_frame = frame(padded_call(1500)), frame(padded_call(1000, seqid=4))
    stalest.send(stalest_frame[:500])
    active.send(active_frame[:100])
    active.send(active_frame[100:200])
    newcomer = Connection(budget_factory, 40012)
    with caplog.at_level(logging.WARNING, logger="pynimbus.thrift.server"):
        newcomer.send(frame(padded_call(1001)))
    assert stalest.closed and not active.closed and not newcomer.closed
    assert newcomer.replies()[0].body.success is True
    assert any("longest without progress" in r.getMessage() for r in caplog.records)
    active.send(active_frame[200:])
    assert active.replies()[0].seqid == 4
    assert budget_factory.buffered_bytes == 0


def test_frame_longer_than_the_whole_budget_is_refused(budget_factory, caplog):
    """A frame within nimbus.thrift.max_buffer_size but longer than
    pynimbus.thrift.max_buffered_bytes closes its own connection and nobody else's."""
    other = Connection(budget_factory, 40013)
    other.send(frame(padded_call(2000))[:100])
    greedy = Connection(budget_factory, 40014)
    with caplog.at_level(logging.WARNING, logger="pynimbus.thrift.server"):
        greedy.send(struct.pack("!I", BUFFERED_LIMIT + 1))
    assert greedy.closed and not other.closed
    assert any("max_buffered_bytes" in r.getMessage() for r in caplog.records)
    assert budget_factory.buffered_bytes == 2000


def test_lost_connection_gives_back_its_reserved_bytes(factory, clock):
    """A client that disconnects in the middle of a frame frees its share of the budget and
    its timer."""
    conn = Connection(factory, 40013)
    conn.send(frame(padded_call(2000))[:100])
    assert factory.buffered_bytes == 2000
    conn.proto.connectionLost(None)
    assert factory.buffered_bytes == 0 and clock.getDelayedCalls() == []


def test_factory_takes_its_limits_from_the_configuration(stub, clock):
    """from_conf reads nimbus.thrift.max_buffer_size and the two pynimbus.thrift limits."""
    factory = ThriftServerFactory.from_conf(
        Nimbus.Processor(NimbusHandler(stub)),
        {"nimbus.thrift.max_buffer_size": 2048, "pynimbus.thrift.max_buffered_bytes": 8192,
         "pynimbus.thrift.partial_frame.timeout.secs": 5}, clock=clock)
    assert (factory.max_frame_size, factory.max_buffered_bytes, factory.partial_frame_timeout,
            factory.clock) == (2048, 8192, 5.0, clock)


def test_calls_sent_without_waiting_are_taken_one_at_a_time(conn, stub, clock):
    """A client that sends calls without waiting for replies has one in progress: its
    connection is not read until that reply is written (and is not timed out meanwhile), then
    the next call is answered, in order."""
    from pynimbus.generated.storm.ttypes import ClusterSummary
    conn.send(frame(call_payload("getClusterInfo", 1)) + frame(call_payload("getNimbusConf", 2)))
    assert len(stub.pending) == 1 and conn.replies() == []
    assert conn.transport.producerState == "paused"
    clock.advance(10 * PARTIAL_FRAME_TIMEOUT)
    assert not conn.closed
    stub.pending[0].callback(ClusterSummary(supervisors=[], topologies=[], nimbuses=[]))
    assert [r.seqid for r in conn.replies()] == [1, 2]
    assert conn.transport.producerState == "producing"


def test_a_call_in_progress_alone_leaves_the_connection_read(conn, stub):
    """A client waiting for its reply sends nothing, so a pending call does not pause the
    connection (pausing and resuming cost two epoll_ctl calls a call); bytes arriving
    meanwhile pause it until the reply is written, and are then answered."""
    from pynimbus.generated.storm.ttypes import ClusterSummary
    conn.send(frame(call_payload("getClusterInfo", 1)))
    assert len(stub.pending) == 1 and conn.transport.producerState == "producing"
    conn.send(frame(call_payload("getNimbusConf", 2))[:3])
    assert conn.transport.producerState == "paused" and conn.replies() == []
    stub.pending[0].callback(ClusterSummary(supervisors=[], topologies=[], nimbuses=[]))
    assert [r.seqid for r in conn.replies()] == [1]
    assert conn.transport.producerState == "producing"
    conn.send(frame(call_payload("getNimbusConf", 2))[3:])
    assert [r.seqid for r in conn.replies()] == [2]


def test_calls_are_not_read_while_replies_wait_to_be_sent(conn):
    """While the transport holds more unsent reply bytes than its buffer (it pauses its
    producer, the protocol), the connection is not read; when they drain, waiting calls are
    answered."""
    conn.proto.pauseProducing()
    assert conn.transport.producerState == "paused"
    conn.call("getNimbusConf", seqid=7)
    assert conn.replies() == []
    conn.proto.resumeProducing()
    assert [r.seqid for r in conn.replies()] == [7]
    assert conn.transport.producerState == "producing"


def test_shutdown_closes_connections_whose_replies_wait(factory, conn):
    """close_connections unregisters the protocol as producer first, so a paused connection
    still closes once its replies are sent."""
    conn.proto.pauseProducing()
    factory.close_connections()
    assert conn.transport.producer is None and conn.closed
