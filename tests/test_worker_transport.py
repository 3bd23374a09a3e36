"""Tuples between workers: the msgpack frame codec (literal data) and the TCP transport over
real loopback sockets in a private reactor (ordering, backpressure, reconnect, dropping)."""
# test-case-name: tests.test_worker_transport

import datetime
import json
import logging
import pickle
import socket
import struct
import subprocess
import sys

import msgpack
import pytest
from twisted.internet import task
from twisted.internet.testing import StringTransport

from loopback_reactor import LOOPBACK, close_reactor, new_reactor, spin_until
from pynimbus.worker import wire_auth
from pynimbus.worker.transport import TupleClient, TupleServerFactory, transport_settings
from pynimbus.worker.wire import (
    AddressedTuple, FrameDecoder, FrameTooLarge, MalformedFrame, UnencodableValue,
    decode_frame, encode_message, frame)

MAX_FRAME = 1 << 20


def _frame_of(*messages):
    packer = msgpack.Packer()
    return frame([encode_message(packer, *m) for m in messages])


def _payloads(data, max_frame_bytes=MAX_FRAME):
    decoder = FrameDecoder(max_frame_bytes)
    decoder.feed(data)
    payloads = []
    while True:
        payload = decoder.next_payload()
        if payload is None:
            return payloads
        payloads.append(payload)


def test_the_codec_imports_no_twisted_and_no_sockets():
    """wire is pure: importing it loads neither Twisted nor the socket module."""
    probe = ("import sys, json, pynimbus.worker.wire; print(json.dumps(sorted("
             "m for m in sys.modules if m.split('.')[0] in ('twisted', 'socket', 'kazoo'))))")
    out = subprocess.run([sys.executable, "-c", probe], check=True, capture_output=True,
                         text=True).stdout
    assert json.loads(out) == []


# -- the codec ------------------------------------------------------------------------------


def test_tuples_round_trip_through_one_frame_with_every_field():
    """A batch of two tuples comes back with destination, source, stream, ids and values."""
    values = [1, -2, "word", b"\x00\xff", 2.5, None, True, [1, [2]], {"k": 1, 3: "v"}]
    data = _frame_of((7, 3, "default", {-5764607523034234880: 42}, values),
                     (8, -1, "__tick", {}, []))
    assert len(data) == 4 + struct.unpack("!I", data[:4])[0]
    [payload] = _payloads(data)
    assert decode_frame(payload) == [
        AddressedTuple(7, 3, "default", {-5764607523034234880: 42}, values),
        AddressedTuple(8, -1, "__tick", {}, []),
    ]


def test_a_tuple_value_arrives_as_a_list():
    """msgpack has one array type, so a Python tuple value is received as a list."""
    [payload] = _payloads(_frame_of((1, 2, "s", {}, (("a", 1),))))
    assert decode_frame(payload)[0].values == [["a", 1]]


@pytest.mark.parametrize("value", [{1, 2}, object(), 2 ** 64, 1j,
                                   datetime.datetime(2026, 12, 1)])
def test_a_value_msgpack_cannot_carry_is_refused_at_the_sender(value):
    """Sets, objects, integers past 64 bits, complex and datetimes are an error naming the
    stream, never pickled or converted."""
    with pytest.raises(UnencodableValue, match="stream 'words'"):
        encode_message(msgpack.Packer(), 1, 2, "words", {}, ["ok", value])


@pytest.mark.parametrize("message_id", [{1: "x"}, {"root": 1}, [1, 2], None])
def test_a_message_id_must_map_root_ids_to_edge_ids(message_id):
    """A message id that is not a map of integers to integers is refused at the sender."""
    with pytest.raises(UnencodableValue, match="message id"):
        encode_message(msgpack.Packer(), 1, 2, "s", message_id, [])


def test_task_ids_and_stream_must_have_their_types():
    """A string task id or a non-string stream id is refused at the sender."""
    with pytest.raises(UnencodableValue, match="task ids"):
        encode_message(msgpack.Packer(), "1", 2, "s", {}, [])
    with pytest.raises(UnencodableValue, match="stream id"):
        encode_message(msgpack.Packer(), 1, 2, 5, {}, [])


def test_frames_fed_one_byte_at_a_time_are_reassembled_in_order():
    """The decoder hands out whole payloads only, in order, whatever the read sizes."""
    data = _frame_of((1, 2, "s", {}, ["a"])) + _frame_of((1, 2, "s", {}, ["b"]))
    decoder = FrameDecoder(MAX_FRAME)
    got = []
    for i in range(len(data)):
        decoder.feed(data[i:i + 1])
        payload = decoder.next_payload()
        if payload is not None:
            got.extend(t.values for t in decode_frame(payload))
    assert got == [["a"], ["b"]]
    assert decoder.buffered_bytes() == 0


@pytest.mark.parametrize("length", [0, MAX_FRAME + 1, 0xFFFFFFFF])
def test_a_frame_length_of_zero_or_over_the_limit_is_refused(length):
    """A length prefix over the limit is refused before any of its bytes are buffered."""
    decoder = FrameDecoder(MAX_FRAME)
    decoder.feed(struct.pack("!I", length))
    with pytest.raises(FrameTooLarge, match="refused"):
        decoder.next_payload()


def test_a_frame_at_the_limit_is_accepted():
    """A frame whose payload is exactly max_frame_bytes long decodes."""
    data = _frame_of((1, 2, "s", {}, ["x"]))
    assert _payloads(data, max_frame_bytes=len(data) - 4)


@pytest.mark.parametrize("payload", [
    b"\xc1",                                                   # never-used msgpack byte
    msgpack.packb({"not": "an array"}),
    msgpack.packb([[1, 2, "s", {}]]),                          # four fields
    msgpack.packb([["1", 2, "s", {}, []]]),                    # string task id
    msgpack.packb([[1, 2, "s", {1: "x"}, []]]),                # bad message id
    msgpack.packb([[1, 2, "s", {}, []]]) + b"\x00",            # trailing bytes
    msgpack.packb([[1, 2, "s", {}, [msgpack.ExtType(5, b"x")]]]),
    pickle.dumps([[1, 2, "s", {}, []]]),
])
def test_a_malformed_payload_is_refused(payload):
    """Bytes that are not an array of five-field messages (pickle included) are refused."""
    with pytest.raises(MalformedFrame):
        decode_frame(payload)


# -- the receiving side without sockets ------------------------------------------------------


def _connected_receiver(factory):
    receiver = factory.buildProtocol(None)
    transport = StringTransport()
    receiver.makeConnection(transport)
    return receiver, transport


def test_an_oversized_frame_closes_only_its_connection():
    """A length prefix over the limit aborts that connection; another one goes on."""
    got = []
    factory = TupleServerFactory({1: got.extend}, max_frame_bytes=1024)
    bad, bad_transport = _connected_receiver(factory)
    good, good_transport = _connected_receiver(factory)
    bad.dataReceived(struct.pack("!I", 1025))
    good.dataReceived(_frame_of((1, 2, "s", {}, ["fine"])))
    assert bad_transport.disconnecting and not good_transport.disconnecting
    assert [t.values for t in got] == [["fine"]]


def test_tuples_for_a_task_not_run_here_are_dropped_and_counted():
    """Only the known task's tuples are delivered; the others are counted as dropped."""
    got = []
    factory = TupleServerFactory({1: got.extend})
    receiver, _ = _connected_receiver(factory)
    receiver.dataReceived(_frame_of((1, 2, "s", {}, ["a"]), (9, 2, "s", {}, ["b"]),
                                    (9, 2, "s", {}, ["c"])))
    assert [t.values for t in got] == [["a"]]
    assert factory.unknown_task_tuples == 2


def test_a_partial_frame_times_out_unless_its_connection_is_paused():
    """A peer that stops in the middle of a frame is closed after the timeout and its bytes
    freed; a connection this worker paused (its receiver is full) is not timed out."""
    clock = task.Clock()
    factory = TupleServerFactory({1: lambda ts: False}, clock=clock,
                                 partial_frame_timeout_secs=30)
    stalled, stalled_transport = _connected_receiver(factory)
    stalled.dataReceived(struct.pack("!I", 1000) + b"x" * 10)
    assert factory.budget.reserved_bytes == 1000
    clock.advance(29)
    stalled.dataReceived(b"y")  # a byte of progress starts the wait again
    clock.advance(29)
    assert not stalled_transport.disconnecting
    clock.advance(2)
    assert stalled_transport.disconnecting and factory.budget.reserved_bytes == 0
    paused, paused_transport = _connected_receiver(factory)
    paused.dataReceived(_frame_of((1, 2, "s", {}, ["a"])) + struct.pack("!I", 500) + b"z")
    assert paused_transport.producerState == "paused"
    clock.advance(120)
    assert not paused_transport.disconnecting


def test_frames_being_received_are_capped_over_all_connections():
    """Past the budget, the connection whose partial frame went longest without a byte is
    closed to make room; a frame longer than the whole budget closes its own connection."""
    clock = task.Clock()
    factory = TupleServerFactory({1: list}, clock=clock, max_buffered_bytes=3000)
    old, old_transport = _connected_receiver(factory)
    new, new_transport = _connected_receiver(factory)
    old.dataReceived(struct.pack("!I", 2000) + b"a")
    new.dataReceived(struct.pack("!I", 2000) + b"b")
    assert old_transport.disconnecting and not new_transport.disconnecting
    assert factory.budget.reserved_bytes == 2000
    huge, huge_transport = _connected_receiver(factory)
    huge.dataReceived(struct.pack("!I", 3001))
    assert huge_transport.disconnecting and factory.budget.reserved_bytes == 2000


def test_connections_past_the_cap_are_refused():
    factory = TupleServerFactory({1: list}, clock=task.Clock(), max_connections=2)
    for _ in range(2):
        _connected_receiver(factory)
    assert factory.buildProtocol(None) is None


def test_a_peer_flooding_unknown_tasks_costs_one_log_line_per_period(caplog):
    clock = task.Clock()
    factory = TupleServerFactory({1: list}, clock=clock)
    receiver, _ = _connected_receiver(factory)
    with caplog.at_level(logging.WARNING, logger="pynimbus.worker.transport"):
        receiver.dataReceived(_frame_of((9, 2, "s", {}, ["x"])) * 1000)
        clock.advance(10)
        receiver.dataReceived(_frame_of((9, 2, "s", {}, ["x"])))
    assert factory.unknown_task_tuples == 1001
    assert [r.getMessage() for r in caplog.records] == [
        "dropping 1 tuples for task 9, which this worker does not run (1 so far)",
        "dropping 1 tuples for task 9, which this worker does not run (1001 so far) (999 more "
        "like it since the last one logged, left out)"]


def test_a_full_receiver_stops_reading_until_resumed():
    """Frames after the one that filled the queue stay buffered until resume_reading."""
    got = []
    factory = TupleServerFactory({1: lambda ts: got.extend(ts) or len(got) < 2})
    receiver, transport = _connected_receiver(factory)
    receiver.dataReceived(b"".join(_frame_of((1, 2, "s", {}, [i])) for i in range(4)))
    assert [t.values for t in got] == [[0], [1]]
    assert transport.producerState == "paused"
    got.clear()
    factory.resume_reading()
    assert [t.values for t in got] == [[2], [3]]
    assert transport.producerState == "paused"


def test_transport_settings_come_from_storms_netty_keys():
    """Batch size, send buffer and reconnect waits are Storm's storm.messaging.netty.* keys."""
    settings = transport_settings({"storm.messaging.netty.transfer.batch.size": 1000,
                                   "storm.messaging.netty.buffer_size": 5000,
                                   "storm.messaging.netty.min_wait_ms": 100,
                                   "storm.messaging.netty.max_wait_ms": 1000})
    assert settings["batch_bytes"] == 1000 and settings["max_buffered_bytes"] == 5000
    assert (settings["min_wait_secs"], settings["max_wait_secs"]) == (0.1, 1.0)


def test_a_tuple_too_large_for_a_frame_is_refused_at_the_sender():
    """send raises FrameTooLarge for a tuple that no frame could carry, and keeps nothing."""
    client = TupleClient(None, LOOPBACK, 1, batch_bytes=100, max_frame_bytes=200)
    with pytest.raises(FrameTooLarge, match="a tuple on stream 'big' from task 2 is "):
        client.send(1, 2, "big", {}, [b"x" * 300])
    assert client.buffered_bytes() == 0


def test_a_tuple_larger_than_the_send_buffer_but_within_a_frame_goes_alone():
    """The frame limit says what may cross: a tuple bigger than the whole send buffer is
    taken when nothing else waits (it was dropped for ever before), and holds the buffer."""
    client = TupleClient(None, LOOPBACK, 1, batch_bytes=100, max_frame_bytes=10000,
                         max_buffered_bytes=1000)
    assert client.send(1, 2, "big", {}, [b"x" * 5000]) is True
    assert client.backpressure and client.buffered_bytes() > 5000
    assert client.send(1, 2, "small", {}, [b"y"]) is False


def test_a_tuple_that_cannot_cross_is_the_emitters_error_and_the_emit_goes_on():
    """TransferFn hands a tuple no frame could carry to on_unsendable (with its size, the
    limit and the setting that raises it) and goes on with the next one."""
    from pynimbus.worker.message_id import MessageId
    from pynimbus.worker.transfer import TransferFn
    client = TupleClient(None, LOOPBACK, 1, batch_bytes=100, max_frame_bytes=200)
    unsendable = []
    transfer = TransferFn({}, on_unsendable=lambda task, e: unsendable.append((task, str(e))))
    transfer.task_to_client = {7: client}
    transfer.transfer(7, 3, "big", MessageId({}), [b"x" * 300])
    transfer.transfer(7, 3, "small", MessageId({}), [b"y"])
    assert unsendable == [(3, "a tuple on stream 'big' from task 3 is %d bytes, more than a "
                              "frame between workers may hold (200, pynimbus.worker.transport."
                              "max_frame_bytes in the topology's conf raises it); it was not "
                              "sent" % len(msgpack.packb([7, 3, "big", {}, [b"x" * 300]])))]
    assert client.buffered_bytes() > 0  # the small one is queued


def test_buffered_tuples_go_out_in_frames_of_at_most_batch_bytes_in_order():
    """Tuples buffered before the connection are written once it is made: as many whole
    frames of up to ``batch_bytes`` as they need (the last, or only, one holding what is
    left), every tuple once and in order."""
    for count in (3, 40):  # one frame's worth, then many frames' worth
        client = TupleClient(None, LOOPBACK, 1, batch_bytes=100, max_frame_bytes=200)
        for i in range(count):
            assert client.send(1, 2, "s", {}, ["word%d" % i])
        written = []

        class Connection:
            transport = type("Transport", (), {"write": staticmethod(written.append)})

        client.connected(Connection())
        decoder = FrameDecoder(105)  # batch_bytes and an array header: any more is refused
        decoder.feed(b"".join(written))
        frames = list(iter(decoder.next_payload, None))
        assert len(written) == len(frames)
        assert (len(frames) == 1) if count == 3 else (len(frames) > 1)
        assert [t.values for payload in frames for t in decode_frame(payload)] == [
            ["word%d" % i] for i in range(count)]
        assert client.buffered_bytes() == 0 and client.messages_sent == count


# -- real loopback TCP -----------------------------------------------------------------------


@pytest.fixture
def reactor():
    reactor = new_reactor()
    yield reactor
    close_reactor(reactor)


def _listen(reactor, task_to_receiver, port=0, **kwargs):
    factory = TupleServerFactory(task_to_receiver, **kwargs)
    listening = reactor.listenTCP(port, factory, interface=LOOPBACK)
    return factory, listening


def _client(reactor, listening, **kwargs):
    kwargs.setdefault("min_wait_secs", 0.01)
    kwargs.setdefault("max_wait_secs", 0.05)
    client = TupleClient(reactor, LOOPBACK, listening.getHost().port, **kwargs)
    client.start()
    return client


def test_ten_thousand_tuples_cross_each_way_in_order(reactor):
    """Two workers' factories and clients in one reactor: 10,000 tuples each way, in order."""
    count = 10000
    at_a, at_b = [], []
    factory_a, listening_a = _listen(reactor, {1: at_a.extend})
    factory_b, listening_b = _listen(reactor, {2: at_b.extend, 3: at_b.extend})
    a_to_b = _client(reactor, listening_b, batch_bytes=4096)
    b_to_a = _client(reactor, listening_a, batch_bytes=4096)
    for i in range(count):
        assert a_to_b.send(2 + i % 2, 1, "default", {i: i + 1}, [i, "w%d" % i])
        assert b_to_a.send(1, 2, "default", {}, [i])
    spin_until(reactor, lambda: len(at_a) == count and len(at_b) == count,
               what="20,000 tuples")
    assert [t.values[0] for t in at_a] == list(range(count))
    assert [t.values[0] for t in at_b if t.dest_task == 2] == list(range(0, count, 2))
    assert [t.values[0] for t in at_b if t.dest_task == 3] == list(range(1, count, 2))
    assert AddressedTuple(3, 1, "default", {1: 2}, [1, "w1"]) in at_b
    assert a_to_b.messages_sent == count and a_to_b.messages_lost == 0
    a_to_b.close()
    b_to_a.close()
    listening_a.stopListening()
    listening_b.stopListening()


def test_a_receiver_that_stops_consuming_raises_the_senders_flag_with_bounded_memory(reactor):
    """A full receiver stops reading; the sender's buffer fills to its limit, its flag goes
    up and later tuples are refused; once the receiver drains, every taken tuple arrives."""
    queue = []
    queue_limit = 8
    consuming = [False]

    def receive(tuples):
        queue.extend(tuples)
        return consuming[0] or len(queue) < queue_limit

    flags = []
    factory, listening = _listen(reactor, {1: receive})
    value = b"v" * 16384
    client = _client(reactor, listening, max_buffered_bytes=256 * 1024,
                     batch_bytes=64 * 1024, on_backpressure=flags.append)
    spin_until(reactor, lambda: client.writable, what="the connection")
    taken = 0
    for i in range(2000):
        if client.send(1, 2, "s", {}, [i, value]):
            taken += 1
        if client.backpressure:
            break
        reactor.iterate(0)
    assert client.backpressure and flags == [True]
    assert client.buffered_bytes() <= 256 * 1024
    lost = client.messages_lost
    assert not client.send(1, 2, "s", {}, [-1, value])
    assert client.messages_lost == lost + 1
    assert factory.paused
    # The receiver holds its limit plus at most one frame (64 KiB of 16 KiB tuples).
    assert queue_limit <= len(queue) < queue_limit + 5
    consuming[0] = True
    factory.resume_reading()
    spin_until(reactor, lambda: len(queue) == taken, what="every taken tuple")
    assert [t.values[0] for t in queue] == list(range(taken))
    assert flags == [True, False]
    client.close()
    listening.stopListening()


def test_both_ends_of_a_tuple_connection_send_small_writes_at_once(reactor):
    """Nagle's algorithm is off at both ends (TCP_NODELAY, as Storm's netty Client and Server
    set ``tcpNoDelay``): a small batch leaves at once instead of waiting for the peer's
    delayed ACK."""
    factory, listening = _listen(reactor, {1: [].extend})
    client = _client(reactor, listening)
    spin_until(reactor, lambda: client.writable and factory.connections,
               what="the connection")
    [receiving] = factory.connections
    for transport in (client._connection.transport, receiving.transport):
        assert transport.getHandle().getsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY)
    client.close()
    listening.stopListening()


def test_the_client_reconnects_after_the_server_restarts(reactor):
    """Tuples sent while the receiving worker is down are kept (within the buffer) and
    arrive once it listens again on its port."""
    first, second = [], []
    factory, listening = _listen(reactor, {1: first.extend})
    port = listening.getHost().port
    client = _client(reactor, listening)
    client.send(1, 2, "s", {}, ["before"])
    spin_until(reactor, lambda: first, what="the first tuple")
    listening.stopListening()
    factory.close_connections()
    spin_until(reactor, lambda: not client.writable and not factory.connections,
               what="the connection to drop")
    assert client.send(1, 2, "s", {}, ["while down"])
    for _ in range(3):   # let a few reconnect attempts be refused
        reactor.iterate(0.02)
    factory, listening = _listen(reactor, {1: second.extend}, port=port)
    spin_until(reactor, lambda: second, what="the tuple sent while down")
    assert [t.values for t in second] == [["while down"]]
    assert client.send(1, 2, "s", {}, ["after"])
    spin_until(reactor, lambda: len(second) == 2, what="the tuple sent after")
    assert [t.values for t in first + second] == [["before"], ["while down"], ["after"]]
    client.close()
    listening.stopListening()


def test_tuples_for_an_unreachable_worker_are_dropped_once_the_buffer_is_full(reactor):
    """With nothing listening, tuples are kept up to the buffer's limit, then dropped and
    counted, and the flag is up."""
    factory, listening = _listen(reactor, {})
    port = listening.getHost().port
    listening.stopListening()
    client = TupleClient(reactor, LOOPBACK, port, max_buffered_bytes=1000, batch_bytes=500,
                         min_wait_secs=0.01, max_wait_secs=0.05)
    client.start()
    results = [client.send(1, 2, "s", {}, [b"x" * 90]) for _ in range(20)]
    reactor.iterate(0.02)
    assert results[0] and not results[-1]
    assert client.backpressure
    assert client.buffered_bytes() <= 1000
    assert client.messages_lost == results.count(False) > 0
    client.close()


# -- authentication (pynimbus.worker.wire_auth) ----------------------------------------------

KEY = b"the topology's secret"
STORM_ID = "wordcount-1-1700000000"


def _authenticating_factory(got, clock=None, **kwargs):
    return TupleServerFactory({1: got.extend}, clock=clock or task.Clock(), key=KEY,
                              storm_id=STORM_ID, random_bytes=lambda n: b"\x07" * n, **kwargs)


def test_a_connection_is_read_only_after_it_answers_the_hello():
    """The receiver opens with its hello; a peer that answers it proves it knows the key,
    and its frames, even in the same write as the answer, are delivered."""
    got = []
    receiver, transport = _connected_receiver(_authenticating_factory(got))
    assert transport.value() == wire_auth.hello(b"\x07" * 32)
    answer = wire_auth.response(KEY, STORM_ID, b"\x07" * 32)
    receiver.dataReceived(answer[:5])
    receiver.dataReceived(answer[5:] + _frame_of((1, 2, "s", {}, ["in"])))
    assert [t.values for t in got] == [["in"]] and not transport.disconnecting


@pytest.mark.parametrize("first_bytes", [
    # a forged tuple without the handshake: its frame is read as a wrong answer
    _frame_of((1, 2, "s", {}, ["forged"])) + b"\x00" * 32,
    # the right key for another topology, and another key for this one
    wire_auth.response(KEY, "other-1-1", b"\x07" * 32),
    wire_auth.response(b"another key", STORM_ID, b"\x07" * 32),
    # an answer to another hello (a replayed one)
    wire_auth.response(KEY, STORM_ID, b"\x08" * 32),
], ids=["raw frame", "other topology", "other key", "replayed"])
def test_a_peer_that_cannot_answer_the_hello_is_closed_and_nothing_delivered(first_bytes,
                                                                             caplog):
    got = []
    receiver, transport = _connected_receiver(_authenticating_factory(got))
    with caplog.at_level(logging.WARNING, logger="pynimbus.worker.transport"):
        receiver.dataReceived(first_bytes + _frame_of((1, 2, "s", {}, ["after"])))
    assert got == [] and transport.disconnecting
    assert "do not prove it knows the transport secret of %s" % STORM_ID in caplog.text


def test_a_peer_that_never_answers_the_hello_is_closed_after_the_timeout():
    clock = task.Clock()
    receiver, transport = _connected_receiver(
        _authenticating_factory([], clock=clock, partial_frame_timeout_secs=5))
    receiver.dataReceived(b"\x00" * 31)
    clock.advance(4.9)
    assert not transport.disconnecting
    clock.advance(0.2)
    assert transport.disconnecting


def test_at_the_cap_a_connection_still_to_authenticate_makes_room():
    """Peers that connect and say nothing cannot keep a worker's own peers out: at the cap the
    oldest unauthenticated connection is closed for the new one; authenticated ones stay."""
    factory = _authenticating_factory([], max_connections=2)
    trusted, trusted_transport = _connected_receiver(factory)
    trusted.dataReceived(wire_auth.response(KEY, STORM_ID, b"\x07" * 32))
    silent, silent_transport = _connected_receiver(factory)
    assert factory.buildProtocol(None) is not None
    assert silent_transport.disconnecting and not trusted_transport.disconnecting


def test_workers_of_one_topology_authenticate_over_loopback(reactor):
    """A client with the topology's key and id answers the hello and its tuples arrive; one
    with another key is closed at each attempt and delivers nothing."""
    got = []
    factory, listening = _listen(reactor, {1: got.extend}, key=KEY, storm_id=STORM_ID)
    trusted = _client(reactor, listening, key=KEY, storm_id=STORM_ID)
    forger = _client(reactor, listening, key=b"a guess", storm_id=STORM_ID)
    assert trusted.send(1, 2, "s", {}, ["trusted"]) and forger.send(1, 2, "s", {}, ["forged"])
    spin_until(reactor, lambda: got, what="the trusted tuple")
    for _ in range(5):
        reactor.iterate(0.02)
    assert [t.values for t in got] == [["trusted"]]
    assert trusted.messages_sent == 1
    trusted.close()
    forger.close()
    listening.stopListening()


def test_a_client_gives_up_on_a_port_that_sends_no_hello_and_retries(reactor):
    """A port that accepts and stays silent (no worker of this topology) holds no tuple for
    ever: the client drops the connection after its handshake timeout and reconnects."""
    factory, listening = _listen(reactor, {1: [].extend})  # no key: sends no hello
    client = _client(reactor, listening, key=KEY, storm_id=STORM_ID,
                     handshake_timeout_secs=0.05)
    client.send(1, 2, "s", {}, ["waits"])
    spin_until(reactor, lambda: factory.connections, what="a connection")
    first = next(iter(factory.connections))
    spin_until(reactor, lambda: first not in factory.connections, what="the client to give up")
    assert not client.writable and client.buffered_bytes() > 0
    client.close()
    listening.stopListening()


def test_transport_settings_carry_the_topologys_key_and_id():
    """The key is the stored conf's secret; switched off by the topology, or absent (a conf
    stored by a Nimbus that stamps none), there is no handshake."""
    conf = {"storm.id": STORM_ID, "pynimbus.worker.transport.secret": "c2VjcmV0"}
    assert (transport_settings(conf)["key"], transport_settings(conf)["storm_id"]) == (
        b"c2VjcmV0", STORM_ID)
    assert transport_settings(dict(conf, **{
        "pynimbus.worker.transport.authentication": False}))["key"] is None
    assert transport_settings({"storm.id": STORM_ID})["key"] is None
