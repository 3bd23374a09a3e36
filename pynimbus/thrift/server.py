"""The Twisted Thrift server: framed transport, binary protocol, one Nimbus handler.

Wire behaviour follows Storm's ``SimpleTransportPlugin`` (a THsHaServer over
``TFramedTransport`` and ``TBinaryProtocol``) and libthrift's ``TBaseProcessor``:

* every message is a frame: a 4-byte big-endian length, then the payload; a frame longer than
  ``nimbus.thrift.max_buffer_size`` (or of length 0) is refused, logged, and its connection
  closed, while every other connection goes on being served;
* as libthrift's ``maxReadBufferBytes`` (which Storm sets to ``nimbus.thrift.max_buffer_size``),
  the bytes of frames being received are capped across all connections, here by
  ``pynimbus.thrift.max_buffered_bytes``.  Deliberate differences: to fit a frame, the
  connections whose partial frames went longest without a byte are closed (libthrift stops
  reading the new frame until others finish, so stalled clients stall every reader), and a
  connection that stops sending in the middle of a frame is closed after
  ``pynimbus.thrift.partial_frame.timeout.secs`` (libthrift waits for ever);
* an unknown method gets ``TApplicationException`` UNKNOWN_METHOD "Invalid method name: 'x'",
  arguments that do not decode get PROTOCOL_ERROR, a handler failure that its method does not
  declare gets INTERNAL_ERROR "Internal error processing <method>" (the cause is logged);
* the accelerated codec (``fastbinary``) decodes and encodes every message.

The factory holds shared state (the processor, the limits, the bytes buffered across
connections); a protocol sees one connection's bytes.  Handlers may return Deferreds, so a slow
call never blocks other clients.
"""

import logging
import struct

from thrift.protocol.TBinaryProtocol import TBinaryProtocolAccelerated
from thrift.Thrift import TApplicationException, TMessageType, TType
from thrift.transport.TTransport import TMemoryBuffer
from twisted.internet import defer, protocol
from twisted.protocols.policies import TimeoutMixin

from pynimbus.common.frame_budget import FrameBudget
from pynimbus.thrift.encoded_reply import reply_fast_encode

log = logging.getLogger(__name__)

DEFAULT_MAX_BUFFER_SIZE = 1048576
DEFAULT_MAX_BUFFERED_BYTES = 64 * 1048576
DEFAULT_PARTIAL_FRAME_TIMEOUT_SECS = 30.0

# Unsigned, so a negative length reads as a huge one and is refused by the length limit.
_FRAME_PREFIX = struct.Struct("!I")


class ThriftFrameProtocol(protocol.Protocol, TimeoutMixin):
    """One client connection: Thrift frames in, one processed reply frame out per call.

    An int32 length-prefixed receiver like Twisted's ``IntNStringReceiver``, but with one
    growing buffer (that class copies everything buffered on each read) and with the frame's
    declared length reserved from the factory's budget before its bytes are buffered.  While
    part of a frame is buffered, the connection is closed after
    ``factory.partial_frame_timeout`` seconds without more bytes, or earlier if the factory
    needs its bytes for another frame and it is the one that sent nothing for longest.

    As libthrift's non-blocking servers, a connection has one call in progress at a time: while
    a call's reply is pending no further call is taken (bytes that arrive pause the
    connection's reading until the reply is written), nor while the transport holds more
    unsent reply bytes than its buffer size (the protocol is the transport's producer), so a
    client that sends calls without reading the replies cannot make nimbus hold them.
    """

    MAX_LENGTH = DEFAULT_MAX_BUFFER_SIZE

    def connectionMade(self):
        self.MAX_LENGTH = self.factory.max_frame_size
        self.callLater = self.factory.clock.callLater  # TimeoutMixin's timer, injectable
        self._buffer = bytearray()
        self._frame_length = None  # declared length of the frame being received
        self._closing = False
        self._awaiting_reply = False
        self._write_blocked = False  # the transport's write buffer is full
        self._paused = False  # the transport is not read
        self.transport.registerProducer(self, True)
        self.factory.connection_opened(self)

    def connectionLost(self, reason=protocol.connectionDone):
        self.setTimeout(None)
        self._release_frame()
        self._buffer = bytearray()
        self.factory.connection_closed(self)

    def dataReceived(self, data):
        self._buffer += data
        while not self._closing and self._reading_wanted():
            if self._frame_length is None:
                if len(self._buffer) < _FRAME_PREFIX.size:
                    break
                (length,) = _FRAME_PREFIX.unpack_from(self._buffer)
                if not self._admit_frame(length):
                    return
                del self._buffer[:_FRAME_PREFIX.size]
                self._frame_length = length
            if len(self._buffer) < self._frame_length:
                self.factory.budget.progressed(self)
                break
            with memoryview(self._buffer) as view:
                frame = bytes(view[:self._frame_length])
            del self._buffer[:self._frame_length]
            self._release_frame()
            self.stringReceived(frame)
        if not self._closing:
            self._follow_reading()
            # Only a partial frame the client is still to send is timed out: neither an idle
            # client between calls nor bytes that wait for this connection's pending reply.
            partial = self._buffer and not self._paused
            self.setTimeout(self.factory.partial_frame_timeout if partial else None)

    def _admit_frame(self, length):
        if length == 0:
            self._close("empty frame")
            return False
        if length > self.MAX_LENGTH:
            self.lengthLimitExceeded(length)
            return False
        if not self.factory.budget.reserve(self, length):
            self._close("a frame of %d bytes is more than pynimbus.thrift.max_buffered_bytes "
                        "(%d) allows for all connections" % (length,
                                                             self.factory.max_buffered_bytes))
            return False
        return True

    def _release_frame(self):
        if self._frame_length is not None:
            self.factory.budget.release(self)
            self._frame_length = None

    def evict(self, length):
        """Give up this connection's partial frame so another of ``length`` bytes fits."""
        self._close("its partial frame (%d of %d bytes) was the longest without progress when "
                    "a frame of %d bytes needed room under pynimbus.thrift.max_buffered_bytes "
                    "(%d)" % (len(self._buffer), self._frame_length, length,
                              self.factory.max_buffered_bytes))

    def lengthLimitExceeded(self, length):
        self._close("frame of %d bytes exceeds %s (%d)"
                    % (length, self.factory.max_frame_size_key, self.MAX_LENGTH))

    def timeoutConnection(self):
        self._close("no bytes for %gs in the middle of a frame (%d of %s bytes received; "
                    "pynimbus.thrift.partial_frame.timeout.secs)"
                    % (self.factory.partial_frame_timeout, len(self._buffer),
                       self._frame_length if self._frame_length is not None else "?"))

    def _close(self, why):
        log.warning("closing connection from %s: %s", self._peer(), why)
        self._closing = True
        self.setTimeout(None)
        self._release_frame()
        self._buffer = bytearray()
        self.transport.abortConnection()

    def stringReceived(self, frame):
        self._awaiting_reply = True
        d = self.factory.dispatcher.process_frame(frame)
        d.addCallback(self._reply)

    def _reply(self, payload):
        self._awaiting_reply = False
        if payload is None:
            self._close("undecodable message")
        elif self.transport.connected and not self._closing:
            self.transport.writeSequence([_FRAME_PREFIX.pack(len(payload)), payload])
            self._resume_reading()

    # -- reading only while no reply is pending and the replies written are being sent --------

    def _reading_wanted(self):
        return not (self._awaiting_reply or self._write_blocked)

    def _follow_reading(self):
        """Pause or resume reading the transport as wanted; True when it was resumed.

        A pending reply alone does not pause the transport: a client that waits for its
        reply sends nothing meanwhile, and pausing and resuming cost two ``epoll_ctl``
        calls per call.  Bytes that do arrive meanwhile (one read's worth at most) pause it
        until the reply is written."""
        wanted = self._reading_wanted()
        if wanted and self._paused:
            self._paused = False
            self.transport.resumeProducing()
            return True
        if not wanted and not self._paused and (self._write_blocked or self._buffer):
            self._paused = True
            self.transport.pauseProducing()
        return False

    def _resume_reading(self):
        if not self._closing and self.transport.connected and self._follow_reading():
            self.dataReceived(b"")  # calls that arrived meanwhile

    def pauseProducing(self):
        """The transport's write buffer is full: read no more calls until it drains."""
        self._write_blocked = True
        self._follow_reading()

    def resumeProducing(self):
        self._write_blocked = False
        self._resume_reading()

    def stopProducing(self):
        pass  # the connection is going; connectionLost cleans up

    def _peer(self):
        peer = self.transport.getPeer()
        return "%s:%s" % (getattr(peer, "host", "?"), getattr(peer, "port", "?"))


class _ReplyProtocol(TBinaryProtocolAccelerated):
    """The output protocol of one call; notices a second message begun in the same buffer.

    The generated processor writes a REPLY in a callback and, should that write fail (a result
    that cannot be encoded), writes an EXCEPTION from its errback into the same buffer, after
    the half-written REPLY.  ``restarted`` tells the dispatcher to send a clean error instead.
    A handler's result made with :func:`pynimbus.thrift.encoded_reply.with_encoding` is written from
    the encoding it carries.
    """

    restarted = False
    _begun = False

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        if self._fast_encode is not None:  # a success value may carry its encoding
            self._fast_encode = reply_fast_encode(self._fast_encode)

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
    """Shared state of the server: the dispatcher, the frame limits, the open connections and
    the bytes reserved for partial frames across them.

    :param max_frame_size: the longest frame (``nimbus.thrift.max_buffer_size``).
    :param max_buffered_bytes: the most bytes of frames being received, summed over all
        connections (``pynimbus.thrift.max_buffered_bytes``).  To fit a new frame, the
        connections whose partial frames went longest without a byte are closed; a frame
        longer than the whole budget is refused and its own connection closed.
    :param partial_frame_timeout: seconds a connection may hold part of a frame without
        sending more (``pynimbus.thrift.partial_frame.timeout.secs``).
    :param clock: schedules the timeouts (default: the global reactor).
    """

    protocol = ThriftFrameProtocol
    noisy = False  # one log line per start is enough (NimbusDaemon logs it)
    max_frame_size_key = "nimbus.thrift.max_buffer_size"  # the setting named in the log

    def __init__(self, processor, max_frame_size=DEFAULT_MAX_BUFFER_SIZE,
                 max_buffered_bytes=DEFAULT_MAX_BUFFERED_BYTES,
                 partial_frame_timeout=DEFAULT_PARTIAL_FRAME_TIMEOUT_SECS, clock=None):
        if clock is None:
            from twisted.internet import reactor as clock
        self.dispatcher = ThriftDispatcher(processor)
        self.max_frame_size = max_frame_size
        self.max_buffered_bytes = max_buffered_bytes
        self.partial_frame_timeout = partial_frame_timeout
        self.clock = clock
        self.budget = FrameBudget(max_buffered_bytes)
        self.connections = set()

    @classmethod
    def from_conf(cls, processor, conf, clock=None):
        """The factory with the limits ``conf`` sets (Storm's and pynimbus's keys)."""
        return cls(processor,
                   max_frame_size=int(conf.get("nimbus.thrift.max_buffer_size")
                                      or DEFAULT_MAX_BUFFER_SIZE),
                   max_buffered_bytes=int(conf.get("pynimbus.thrift.max_buffered_bytes")
                                          or DEFAULT_MAX_BUFFERED_BYTES),
                   partial_frame_timeout=float(
                       conf.get("pynimbus.thrift.partial_frame.timeout.secs")
                       or DEFAULT_PARTIAL_FRAME_TIMEOUT_SECS),
                   clock=clock)

    @property
    def buffered_bytes(self):
        """Bytes reserved for the frames being received on every connection."""
        return self.budget.reserved_bytes

    def connection_opened(self, proto):
        self.connections.add(proto)

    def connection_closed(self, proto):
        self.connections.discard(proto)

    def close_connections(self):
        for proto in list(self.connections):
            # a paused producer would keep the transport from closing once its buffer drains
            proto.transport.unregisterProducer()
            proto.transport.loseConnection()
