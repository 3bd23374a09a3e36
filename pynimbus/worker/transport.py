"""Tuples between workers over TCP: the Twisted shell around ``pynimbus.worker.wire``.

Plays the part of Storm 1.2.4's ``messaging/netty`` ``Server`` and ``Client``; the framing and
the encoding are ours (see ``wire``).  Both sides hold bounded memory and push back:

* **Receiving** (``TupleServerFactory``, one per worker port): each frame's tuples are handed,
  grouped by destination task and in their order, to that task's receiver callback.  A
  callback that answers False ("my queue is full") makes its connection stop reading the
  socket (``pauseProducing``) until ``resume_reading`` is called, so TCP pushes back to the
  sender, as 1.2.4's netty thread blocks on a full executor receive queue.  A queue thus holds
  at most its limit plus one frame per connection.  Tuples for a task the worker does not run
  are dropped and counted (1.2.4 worker.clj logs "Received invalid messages for unknown
  tasks").  A frame over ``max_frame_bytes`` or that does not decode closes its connection.
* **Sending** (``TupleClient``, one per remote worker): tuples are encoded as they are sent
  (a value msgpack cannot carry is an error at once) and kept in a send buffer of at most
  ``max_buffered_bytes``, written as frames of up to ``batch_bytes`` (1.2.4 ``MessageBatch``
  and ``storm.messaging.netty.transfer.batch.size``) whenever the socket takes them: the
  connection is the transport's push producer, so Twisted's own write buffer stays near its
  64 KiB.  When the send buffer is full, ``backpressure`` goes up (and ``on_backpressure(True)``
  is called) so the executor can stop calling nextTuple; it goes down at half full.  A tuple
  sent while the buffer is full is dropped, counted in ``messages_lost``, and ``send`` answers
  False: Storm's at-least-once replay recovers it, as Storm relies on.
* **Authenticating** (with the topology's transport key, :func:`authentication`): the
  receiving worker opens each connection with a hello and reads frames only after the
  sender's answer proves it holds the topology's secret (:mod:`pynimbus.worker.wire_auth`);
  one that cannot answer, or does not in time, is closed with a rate-limited line, and at the
  connection cap the oldest connection still to authenticate makes room for a new one.
* **Reconnecting**: a lost or refused connection is retried for ever (until ``close``) after
  an exponential delay from ``storm.messaging.netty.min_wait_ms`` to ``max_wait_ms`` with
  jitter, as 1.2.4 ``Client`` (whose ``reconnectingAllowed`` ignores ``max_retries``).

Deliberate differences: 1.2.4 ``Client.send`` (and 2.8.8's) drops every tuple at once while
its connection is down, to avoid holding memory for a peer that may never come back; we keep
them in the bounded send buffer and drop only once it is full, so a worker restarting within
the buffer's reach loses nothing and memory stays bounded all the same.  2.8.8 also tells
upstream workers of a full receive queue with ``BackPressureStatus`` messages; we rely on
TCP's own flow control instead, so no message of ours crosses in that direction.

The reactor is passed in; nothing here blocks it.
"""

import collections
import logging
import os

import msgpack
from twisted.internet import protocol
from twisted.internet.interfaces import IPushProducer, ITCPTransport
from twisted.protocols.policies import TimeoutMixin
from zope.interface import implementer

from pynimbus.common.frame_budget import FrameBudget
from pynimbus.common.log_limit import RateLimitedLog
from pynimbus.common.transport_secret import transport_key
from pynimbus.worker.wire import (
    MAX_ARRAY_HEADER_BYTES, FrameDecoder, FrameTooLarge, MalformedFrame, decode_frame,
    encode_message, frame)
from pynimbus.worker.wire_auth import (
    HELLO_BYTES, NONCE_BYTES, RESPONSE_BYTES, HandshakeError, hello, nonce_of, response,
    response_is_valid)

log = logging.getLogger(__name__)

DEFAULT_MAX_FRAME_BYTES = 16 * 1048576
DEFAULT_MAX_BUFFERED_BYTES = 64 * 1048576
DEFAULT_PARTIAL_FRAME_TIMEOUT_SECS = 30.0
DEFAULT_MAX_CONNECTIONS = 512


def transport_settings(conf):
    """The keyword arguments of ``TupleClient`` from a topology conf: Storm's
    ``storm.messaging.netty.*`` keys and ours, with the topology's transport key and id
    (:func:`authentication`)."""
    return dict(authentication(conf), **{
        "max_frame_bytes": conf.get("pynimbus.worker.transport.max_frame_bytes",
                                    DEFAULT_MAX_FRAME_BYTES),
        "batch_bytes": conf.get("storm.messaging.netty.transfer.batch.size", 262144),
        "max_buffered_bytes": conf.get("storm.messaging.netty.buffer_size", 5242880),
        "min_wait_secs": conf.get("storm.messaging.netty.min_wait_ms", 100) / 1000.0,
        "max_wait_secs": conf.get("storm.messaging.netty.max_wait_ms", 1000) / 1000.0,
    })


def authentication(conf):
    """The keyword arguments of ``TupleClient`` and ``TupleServerFactory`` that authenticate
    a topology's tuple connections: its transport key (None: no handshake) and id."""
    return {"key": transport_key(conf), "storm_id": conf.get("storm.id", "")}


def receiving_limits(supervisor_conf):
    """The keyword arguments of ``TupleServerFactory`` that bound what peers can make a worker
    hold, from its supervisor's conf (the host's protection is the operator's, never a
    topology's choice)."""
    return {
        "max_buffered_bytes": int(supervisor_conf.get(
            "pynimbus.worker.transport.max_buffered_bytes") or DEFAULT_MAX_BUFFERED_BYTES),
        "partial_frame_timeout_secs": float(supervisor_conf.get(
            "pynimbus.worker.transport.partial_frame.timeout.secs")
            or DEFAULT_PARTIAL_FRAME_TIMEOUT_SECS),
        "max_connections": int(supervisor_conf.get(
            "pynimbus.worker.transport.max_connections") or DEFAULT_MAX_CONNECTIONS),
    }


def send_small_writes_at_once(transport):
    """Turn Nagle's algorithm off on a TCP connection, as Storm's netty transport does: a small
    batch is not held back until the peer's delayed ACK (up to 40 ms on Linux)."""
    if ITCPTransport.providedBy(transport):
        transport.setTcpNoDelay(True)


class _TupleReceiverProtocol(protocol.Protocol, TimeoutMixin):
    """One connection from a remote worker: frames in, tuples to the factory's receivers.

    A frame's declared length is reserved from the factory's :class:`FrameBudget` before its
    bytes are kept, and a connection that stops sending in the middle of a frame is closed
    after ``partial_frame_timeout_secs`` (but not while this worker paused it: that wait is
    its own)."""

    reserved = False
    closing = False
    authenticated = True

    def connectionMade(self):
        send_small_writes_at_once(self.transport)  # 1.2.4 netty Server: child.tcpNoDelay
        self.callLater = self.factory.clock.callLater  # TimeoutMixin's timer, injectable
        self.decoder = FrameDecoder(self.factory.max_frame_bytes)
        self.paused = False
        self.factory.connections[self] = None
        if self.factory.key is not None:
            self.authenticated = False
            self.nonce = self.factory.random_bytes(NONCE_BYTES)
            self.answer = bytearray()
            self.transport.write(hello(self.nonce))
            self.setTimeout(self.factory.partial_frame_timeout_secs)

    def connectionLost(self, reason):
        self.setTimeout(None)
        self._release()
        self.factory.connections.pop(self, None)
        self.factory.paused.discard(self)

    def dataReceived(self, data):
        if self.closing:
            return
        if not self.authenticated:
            data = self._authenticate(data)
            if data is None:
                return
        self.decoder.feed(data)
        self._deliver_buffered_frames()

    def _authenticate(self, data):
        """Take the peer's response from ``data``: the bytes after it (a peer that proved it
        is a worker of this topology), or None (not all of it yet, or refused)."""
        needed = RESPONSE_BYTES - len(self.answer)
        self.answer += data[:needed]
        if len(self.answer) < RESPONSE_BYTES:
            return None
        if not response_is_valid(self.factory.key, self.factory.storm_id, self.nonce,
                                 self.answer):
            self.close("its first bytes do not prove it knows the transport secret of %s "
                       "(pynimbus.worker.transport.secret): it is not one of its workers"
                       % self.factory.storm_id)
            return None
        self.authenticated = True
        self.setTimeout(None)
        return data[needed:]

    def _deliver_buffered_frames(self):
        try:
            while not self.paused and not self.closing:
                length = self.decoder.frame_length()
                if length is not None and not self.reserved:
                    if not self.factory.budget.reserve(self, length):
                        self.close("a frame of %d bytes is more than "
                                   "pynimbus.worker.transport.max_buffered_bytes (%d)"
                                   % (length, self.factory.budget.max_bytes))
                        return
                    self.reserved = True
                payload = self.decoder.next_payload()
                if payload is None:
                    if self.reserved:
                        self.factory.budget.progressed(self)
                    break
                self._release()
                if not self.factory.deliver(decode_frame(payload)):
                    self.pause_reading()
        except (FrameTooLarge, MalformedFrame) as e:
            self.close(str(e))
            return
        if not self.closing:
            partial = self.decoder.buffered_bytes() and not self.paused
            self.setTimeout(self.factory.partial_frame_timeout_secs if partial else None)

    def _release(self):
        if self.reserved:
            self.reserved = False
            self.factory.budget.release(self)

    def evict(self, length):
        """Give up this connection's partial frame so another of ``length`` bytes fits."""
        self.close("its partial frame was the longest without progress when a frame of %d "
                   "bytes needed room under pynimbus.worker.transport.max_buffered_bytes (%d)"
                   % (length, self.factory.budget.max_bytes))

    def timeoutConnection(self):
        if not self.authenticated:
            self.close("it did not answer the worker's hello within %gs "
                       "(pynimbus.worker.transport.partial_frame.timeout.secs)"
                       % self.factory.partial_frame_timeout_secs)
            return
        self.close("no bytes for %gs in the middle of a frame "
                   "(pynimbus.worker.transport.partial_frame.timeout.secs)"
                   % self.factory.partial_frame_timeout_secs)

    def close(self, why):
        self.factory.refusals.warning("closed connection", "closing the tuple connection from "
                                      "%s: %s", self.transport.getPeer(), why)
        self.closing = True
        self.setTimeout(None)
        self._release()
        self.transport.abortConnection()

    def pause_reading(self):
        self.paused = True
        self.factory.paused.add(self)
        self.transport.pauseProducing()

    def resume_reading(self):
        self.paused = False
        self.factory.paused.discard(self)
        self.transport.resumeProducing()
        self._deliver_buffered_frames()


class TupleServerFactory(protocol.ServerFactory):
    """Receives tuples on a worker's port: 1.2.4 ``messaging/netty/Server`` with the receive
    side of worker.clj (``mk-transfer-local-fn``), over our framing.

    ``task_to_receiver`` maps each task this worker runs to a callable taking a list of
    ``AddressedTuple``s (in the order they were sent) and answering whether its queue has room
    for more; False pauses the connection that brought them until ``resume_reading``.

    With a ``key`` (the topology's transport key, :func:`authentication`), a connection is
    read only once its peer answered the hello (:mod:`pynimbus.worker.wire_auth`) within
    ``partial_frame_timeout_secs``; a wrong answer closes it with a rate-limited line.
    """

    protocol = _TupleReceiverProtocol

    def __init__(self, task_to_receiver, max_frame_bytes=DEFAULT_MAX_FRAME_BYTES, clock=None,
                 max_buffered_bytes=DEFAULT_MAX_BUFFERED_BYTES,
                 partial_frame_timeout_secs=DEFAULT_PARTIAL_FRAME_TIMEOUT_SECS,
                 max_connections=DEFAULT_MAX_CONNECTIONS, key=None, storm_id="",
                 random_bytes=os.urandom):
        if clock is None:
            from twisted.internet import reactor as clock
        self.task_to_receiver = task_to_receiver
        self.max_frame_bytes = max_frame_bytes
        self.clock = clock
        self.budget = FrameBudget(max_buffered_bytes)
        self.partial_frame_timeout_secs = partial_frame_timeout_secs
        self.max_connections = max_connections
        self.key = key
        self.storm_id = storm_id
        self.random_bytes = random_bytes
        self.connections = {}  # in the order they were opened
        self.paused = set()
        self.unknown_task_tuples = 0
        # what a peer causes is logged at most once per kind per period (RateLimitedLog)
        self.refusals = RateLimitedLog(log, clock)

    def buildProtocol(self, addr):
        """A protocol for a new connection, or None (Twisted closes it) past the cap.  At the
        cap the oldest connection still to authenticate makes room, so peers that never
        answer cannot keep the topology's own workers out."""
        if len(self.connections) >= self.max_connections:
            waiting = next((c for c in self.connections if not c.authenticated), None)
            if waiting is not None:
                waiting.close("it had not authenticated when %s connected at the cap of %d "
                              "(pynimbus.worker.transport.max_connections)"
                              % (addr, self.max_connections))
                self.connections.pop(waiting, None)
                return super().buildProtocol(addr)
            self.refusals.warning("connection cap", "refusing the tuple connection from %s: "
                                  "%d are open (pynimbus.worker.transport.max_connections)",
                                  addr, len(self.connections))
            return None
        return super().buildProtocol(addr)

    def deliver(self, tuples):
        """Hand one frame's tuples to their tasks' receivers; False when any has no more room."""
        task_to_tuples = {}
        for addressed in tuples:
            task_to_tuples.setdefault(addressed.dest_task, []).append(addressed)
        room = True
        for task, task_tuples in task_to_tuples.items():
            receiver = self.task_to_receiver.get(task)
            if receiver is None:
                self.unknown_task_tuples += len(task_tuples)
                self.refusals.warning(
                    "unknown task", "dropping %d tuples for task %r, which this worker does "
                    "not run (%d so far)", len(task_tuples), task, self.unknown_task_tuples)
            elif receiver(task_tuples) is False:
                room = False
        return room

    def resume_reading(self):
        """Read again from every connection paused by a full receiver (call when it drains)."""
        for connection in list(self.paused):
            connection.resume_reading()

    def close_connections(self):
        for connection in list(self.connections):
            connection.transport.abortConnection()


@implementer(IPushProducer)
class _TupleSenderProtocol(protocol.Protocol):
    """The connection to a remote worker; the transport pauses it when its buffer is full.
    With a key, tuples go only after the receiver's hello is answered."""

    hello = None  # the hello's bytes so far, while waiting for it
    hello_timer = None

    def connectionMade(self):
        send_small_writes_at_once(self.transport)  # 1.2.4 netty Client: tcpNoDelay
        self.factory.resetDelay()
        client = self.factory.client
        if client.key is None:
            self._ready()
            return
        self.hello = bytearray()
        self.hello_timer = client.reactor.callLater(client.handshake_timeout_secs,
                                                    self._no_hello)

    def _ready(self):
        self.transport.registerProducer(self, True)
        self.factory.client.connected(self)

    def connectionLost(self, reason):
        self._cancel_hello_timer()
        self.factory.client.disconnected(self)

    def dataReceived(self, data):
        # Past the hello a receiving worker never writes; whatever comes is ignored.
        if self.hello is None:
            return
        self.hello += data
        if len(self.hello) < HELLO_BYTES:
            return
        client = self.factory.client
        try:
            nonce = nonce_of(self.hello[:HELLO_BYTES])
        except HandshakeError as e:
            self._give_up(str(e))
            return
        self._cancel_hello_timer()
        self.hello = None
        self.transport.write(response(client.key, client.storm_id, nonce))
        self._ready()

    def _no_hello(self):
        self.hello_timer = None
        self._give_up("no hello within %gs" % self.factory.client.handshake_timeout_secs)

    def _give_up(self, why):
        client = self.factory.client
        client.refusals.warning("handshake", "the tuple connection to %s:%d failed: %s; "
                                "retrying", client.host, client.port, why)
        self._cancel_hello_timer()
        self.transport.abortConnection()

    def _cancel_hello_timer(self):
        if self.hello_timer is not None and self.hello_timer.active():
            self.hello_timer.cancel()
        self.hello_timer = None

    def pauseProducing(self):
        self.factory.client.writable = False

    def resumeProducing(self):
        self.factory.client.writable = True
        self.factory.client.flush()

    def stopProducing(self):
        pass


class _TupleClientFactory(protocol.ReconnectingClientFactory):
    protocol = _TupleSenderProtocol
    noisy = False


class TupleClient:
    """Sends tuples to one remote worker (host, port): 1.2.4 ``messaging/netty/Client``.

    ``send`` answers True when the tuple was taken, False when it was dropped because the send
    buffer is full; ``backpressure`` tells whether the buffer is full, and ``on_backpressure``
    (if given) is called with the new value when it changes.  Call ``start`` to connect and
    ``close`` to stop.  With a ``key``, each connection first answers the receiver's hello
    for ``storm_id`` (:mod:`pynimbus.worker.wire_auth`); one with no hello within
    ``handshake_timeout_secs`` is dropped and retried.
    """

    def __init__(self, reactor, host, port, max_buffered_bytes=5242880, batch_bytes=262144,
                 max_frame_bytes=DEFAULT_MAX_FRAME_BYTES, min_wait_secs=0.1, max_wait_secs=1.0,
                 on_backpressure=None, key=None, storm_id="",
                 handshake_timeout_secs=DEFAULT_PARTIAL_FRAME_TIMEOUT_SECS):
        if max_frame_bytes < batch_bytes + MAX_ARRAY_HEADER_BYTES:
            raise ValueError("max_frame_bytes (%d) must exceed batch_bytes (%d)"
                             % (max_frame_bytes, batch_bytes))
        self.reactor = reactor
        self.host = host
        self.port = port
        self.max_buffered_bytes = max_buffered_bytes
        self.batch_bytes = batch_bytes
        self.max_frame_bytes = max_frame_bytes
        self.on_backpressure = on_backpressure
        self.key = key
        self.storm_id = storm_id
        self.handshake_timeout_secs = handshake_timeout_secs
        self.refusals = RateLimitedLog(log, reactor)
        self.backpressure = False
        self.writable = False
        self.messages_sent = 0
        self.messages_lost = 0
        self.bytes_sent = 0
        self._packer = msgpack.Packer()
        self._pending = collections.deque()
        self._pending_bytes = 0
        self._connection = None
        self._flush_call = None
        self._closing = False
        self._factory = _TupleClientFactory()
        self._factory.client = self
        self._factory.clock = reactor
        self._factory.initialDelay = self._factory.delay = min_wait_secs
        self._factory.maxDelay = max_wait_secs
        self._factory.factor = 2.0

    def start(self):
        self.reactor.connectTCP(self.host, self.port, self._factory)

    def buffered_bytes(self):
        """Bytes of tuples taken and not yet handed to the socket."""
        return self._pending_bytes

    def send(self, dest_task, source_task, stream_id, message_id, values):
        """Queue one tuple for ``dest_task`` on the remote worker; see the class docstring.

        :raises UnencodableValue: when a field is not of msgpack's types.
        :raises FrameTooLarge: when the tuple alone does not fit in a frame.
        """
        message = encode_message(self._packer, dest_task, source_task, stream_id, message_id,
                                 values)
        size = len(message)
        if size + MAX_ARRAY_HEADER_BYTES > self.max_frame_bytes:
            raise FrameTooLarge(
                "a tuple on stream %r from task %d is %d bytes, more than a frame between "
                "workers may hold (%d, pynimbus.worker.transport.max_frame_bytes in the "
                "topology's conf raises it); it was not sent"
                % (stream_id, source_task, size, self.max_frame_bytes))
        pending_bytes = self._pending_bytes + size
        # one tuple larger than the whole send buffer still goes, alone: the frame limit, not
        # the buffer's size, says what may cross
        if self._closing or (pending_bytes > self.max_buffered_bytes and self._pending_bytes):
            self.messages_lost += 1
            self._set_backpressure(True)
            return False
        self._pending.append(message)
        self._pending_bytes = pending_bytes
        if pending_bytes >= self.max_buffered_bytes:
            self._set_backpressure(True)
        if pending_bytes >= self.batch_bytes:
            self.flush()
        elif self._flush_call is None and self.writable:
            # Like 1.2.4 Client.send: write the unfilled batch soon, to keep latency low.
            self._flush_call = self.reactor.callLater(0, self._scheduled_flush)
        return True

    def _scheduled_flush(self):
        self._flush_call = None
        self.flush()

    def flush(self):
        """Write buffered tuples as frames of up to ``batch_bytes`` while the socket takes them."""
        while self._pending and self.writable:
            self._connection.transport.write(self._next_frame())
        if self.backpressure and self._pending_bytes <= self.max_buffered_bytes // 2:
            self._set_backpressure(False)

    def _next_frame(self):
        pending = self._pending
        if self._pending_bytes <= self.batch_bytes:  # all of it: the usual flush of a turn
            batch = list(pending)
            pending.clear()
            batch_bytes = self._pending_bytes
        else:
            batch = [pending.popleft()]
            batch_bytes = len(batch[0])
            while pending and batch_bytes + len(pending[0]) <= self.batch_bytes:
                message = pending.popleft()
                batch.append(message)
                batch_bytes += len(message)
        self._pending_bytes -= batch_bytes
        self.messages_sent += len(batch)
        data = frame(batch)
        self.bytes_sent += len(data)
        return data

    def _set_backpressure(self, value):
        if value != self.backpressure:
            self.backpressure = value
            if self.on_backpressure is not None:
                self.on_backpressure(value)

    def connected(self, connection):
        self._connection = connection
        self.writable = True
        if self._closing:
            connection.transport.loseConnection()
        else:
            self.flush()

    def disconnected(self, connection):
        if self._connection is connection:
            self._connection = None
            self.writable = False

    def close(self):
        """Stop reconnecting; what the socket took is sent, the rest is dropped and counted."""
        self._closing = True
        self._factory.stopTrying()
        self.flush()
        self.messages_lost += len(self._pending)
        self._pending.clear()
        self._pending_bytes = 0
        if self._flush_call is not None:
            self._flush_call.cancel()
            self._flush_call = None
        if self._connection is not None:
            self._connection.transport.unregisterProducer()
            self._connection.transport.loseConnection()
