"""The Twisted Thrift server: framed transport, binary protocol, one Nimbus handler.

Wire behaviour follows Storm's ``SimpleTransportPlugin`` (a THsHaServer over
``TFramedTransport`` and ``TBinaryProtocol``) and libthrift's ``TBaseProcessor``:

* every message is a frame: a 4-byte big-endian length, then the payload; a frame longer than
  ``nimbus.thrift.max_buffer_size`` (or of length 0) is refused, logged, and its connection
  closed, while every other connection goes on being served;
* an unknown method gets ``TApplicationException`` UNKNOWN_METHOD "Invalid method name: 'x'",
  arguments that do not decode get PROTOCOL_ERROR, a handler failure that its method does not
  declare gets INTERNAL_ERROR "Internal error processing <method>" (the cause is logged);
* the accelerated codec (``fastbinary``) decodes and encodes every message.

The factory holds shared state (the processor, the frame limit); a protocol sees one
connection's bytes.  Handlers may return Deferreds, so a slow call never blocks other clients.
"""

import logging

from thrift.protocol.TBinaryProtocol import TBinaryProtocolAccelerated
from thrift.Thrift import TApplicationException, TMessageType, TType
from thrift.transport.TTransport import TMemoryBuffer
from twisted.internet import defer, protocol
from twisted.protocols.basic import IntNStringReceiver

log = logging.getLogger(__name__)

DEFAULT_MAX_BUFFER_SIZE = 1048576


class ThriftFrameProtocol(IntNStringReceiver):
    """One client connection: Thrift frames in, one processed reply frame out per call."""

    # Unsigned, so a negative length reads as a huge one and is refused by the length limit.
    structFormat = "!I"
    prefixLength = 4

    def connectionMade(self):
        self.MAX_LENGTH = self.factory.max_frame_size
        self.factory.connection_opened(self)

    def connectionLost(self, reason=protocol.connectionDone):
        self.factory.connection_closed(self)

    def lengthLimitExceeded(self, length):
        log.warning("closing connection from %s: frame of %d bytes exceeds "
                    "nimbus.thrift.max_buffer_size (%d)", self._peer(), length, self.MAX_LENGTH)
        self.transport.abortConnection()

    def stringReceived(self, frame):
        if not frame:
            log.warning("closing connection from %s: empty frame", self._peer())
            self.transport.abortConnection()
            return
        d = self.factory.dispatcher.process_frame(frame)
        d.addCallback(self._reply)

    def _reply(self, payload):
        if payload is None:
            log.warning("closing connection from %s: undecodable message", self._peer())
            self.transport.abortConnection()
        elif self.transport.connected:
            self.sendString(payload)

    def _peer(self):
        peer = self.transport.getPeer()
        return "%s:%s" % (getattr(peer, "host", "?"), getattr(peer, "port", "?"))


class _ReplyProtocol(TBinaryProtocolAccelerated):
    """The output protocol of one call; notices a second message begun in the same buffer.

    The generated processor writes a REPLY in a callback and, should that write fail (a result
    that cannot be encoded), writes an EXCEPTION from its errback into the same buffer, after
    the half-written REPLY.  ``restarted`` tells the dispatcher to send a clean error instead.
    """

    restarted = False
    _begun = False

    def writeMessageBegin(self, name, message_type, seqid):
        self.restarted = self._begun
        self._begun = True
        super().writeMessageBegin(name, message_type, seqid)


class ThriftDispatcher:
    """Decode one message, call the generated processor, encode the reply (or an exception).

    ``process_frame`` returns a Deferred firing with the reply payload, or with None when the
    message header itself cannot be read (the connection is then closed, as libthrift does).
    """

    def __init__(self, processor, protocol_class=TBinaryProtocolAccelerated,
                 reply_protocol_class=_ReplyProtocol):
        self.processor = processor
        self.protocol_class = protocol_class
        self.reply_protocol_class = reply_protocol_class

    def process_frame(self, frame):
        iprot = self.protocol_class(TMemoryBuffer(frame))
        try:
            name, message_type, seqid = iprot.readMessageBegin()
        except Exception as e:  # any garbage: libthrift drops the connection
            log.debug("unreadable message header: %r", e)
            return defer.succeed(None)
        process = self.processor._processMap.get(name)
        if process is None:
            return defer.succeed(self._unknown_method(iprot, name, seqid))
        otrans = TMemoryBuffer()
        oprot = self.reply_protocol_class(otrans)
        try:
            d = process(self.processor, seqid, iprot, oprot)
        except Exception as e:  # the arguments did not decode
            log.info("bad arguments for %s: %r", name, e)
            return defer.succeed(application_exception_payload(
                self.protocol_class, name, seqid, TApplicationException.PROTOCOL_ERROR,
                "Bad arguments for %s: %s" % (name, str(e) or type(e).__name__)))
        d.addCallback(self._reply_payload, oprot, otrans, name, seqid)
        d.addErrback(self._write_failed, name, seqid)
        return d

    def _reply_payload(self, _, oprot, otrans, name, seqid):
        if oprot.restarted:
            raise RuntimeError("the reply of %s could not be encoded" % name)
        return otrans.getvalue()

    def _unknown_method(self, iprot, name, seqid):
        try:
            iprot.skip(TType.STRUCT)
        except Exception:
            return None
        return application_exception_payload(
            self.protocol_class, name, seqid, TApplicationException.UNKNOWN_METHOD,
            "Invalid method name: '%s'" % name)

    def _write_failed(self, failure, name, seqid):
        # The handler's result could not be encoded (e.g. a wrong type): report, don't hang.
        log.error("cannot encode the reply of %s: %s", name, failure.getTraceback())
        return application_exception_payload(
            self.protocol_class, name, seqid, TApplicationException.INTERNAL_ERROR,
            "Internal error processing %s" % name)


def application_exception_payload(protocol_class, name, seqid, kind, message):
    """Return the bytes of an EXCEPTION message carrying ``TApplicationException(kind)``."""
    otrans = TMemoryBuffer()
    oprot = protocol_class(otrans)
    oprot.writeMessageBegin(name, TMessageType.EXCEPTION, seqid)
    TApplicationException(kind, message).write(oprot)
    oprot.writeMessageEnd()
    return otrans.getvalue()


class ThriftServerFactory(protocol.ServerFactory):
    """Shared state of the server: the dispatcher, the frame limit, the open connections."""

    protocol = ThriftFrameProtocol
    noisy = False  # one log line per start is enough (NimbusDaemon logs it)

    def __init__(self, processor, max_frame_size=DEFAULT_MAX_BUFFER_SIZE):
        self.dispatcher = ThriftDispatcher(processor)
        self.max_frame_size = max_frame_size
        self.connections = set()

    def connection_opened(self, proto):
        self.connections.add(proto)

    def connection_closed(self, proto):
        self.connections.discard(proto)

    def close_connections(self):
        for proto in list(self.connections):
            proto.transport.loseConnection()
