"""Bad and hostile input over real loopback sockets: pynimbus drops or answers it and keeps serving.

Each bad input goes on its own TCP connection to the session's ``pynimbus dev``.  Outcomes are
those of Storm's libthrift server: frames it cannot accept close the connection, messages it can
parse but not serve get a ``TApplicationException``.  After every batch a good client still gets
a correct ``getClusterInfo``.  Every wait is a socket timeout or a deadline, never a blind sleep.
"""

import json
import os
import random
import socket
import struct
import threading
import time

import pytest
from thrift.protocol.TBinaryProtocol import TBinaryProtocol
from thrift.Thrift import TApplicationException, TMessageType, TType
from thrift.transport.TTransport import TMemoryBuffer

from nimbus_process import RawClient, recv_exactly

MAX_FRAME = 1048576
IO_TIMEOUT = 10.0


def connect(nimbus):
    sock = socket.create_connection((nimbus.host, nimbus.port), timeout=IO_TIMEOUT)
    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    return sock


def frame(payload):
    return struct.pack("!i", len(payload)) + payload


def encode(method, seqid=1, **kwargs):
    from pynimbus.generated.storm import Nimbus
    buf = TMemoryBuffer()
    prot = TBinaryProtocol(buf)
    prot.writeMessageBegin(method, TMessageType.CALL, seqid)
    getattr(Nimbus, method + "_args")(**kwargs).write(prot)
    prot.writeMessageEnd()
    return buf.getvalue()


def header(method, seqid=1):
    buf = TMemoryBuffer()
    TBinaryProtocol(buf).writeMessageBegin(method, TMessageType.CALL, seqid)
    return buf.getvalue()


def send_then_half_close(sock, data, half_close=True):
    """Send ``data`` (then our FIN); the server may already have closed, which is fine here."""
    try:
        sock.sendall(data)
        if half_close:
            sock.shutdown(socket.SHUT_WR)  # no more bytes are coming
    except (BrokenPipeError, ConnectionResetError, OSError):
        pass


def read_until_closed(sock, timeout=IO_TIMEOUT):
    """Read until the server closes (EOF or reset); return the bytes it sent. Fails on timeout."""
    sock.settimeout(timeout)
    data = b""
    while True:
        try:
            chunk = sock.recv(65536)
        except ConnectionResetError:
            return data
        except socket.timeout:
            pytest.fail("the server neither answered nor closed within %.0fs" % timeout)
        if not chunk:
            return data
        data += chunk


def read_reply(sock):
    """Read one reply frame; return (name, type, seqid, TApplicationException or raw payload)."""
    (length,) = struct.unpack("!i", recv_exactly(sock, 4))
    payload = recv_exactly(sock, length)
    prot = TBinaryProtocol(TMemoryBuffer(payload), strictRead=True)
    name, mtype, seqid = prot.readMessageBegin()
    if mtype == TMessageType.EXCEPTION:
        app = TApplicationException()
        app.read(prot)
        return name, mtype, seqid, app
    return name, mtype, seqid, payload


def assert_good_client_served(nimbus):
    """A fresh well-behaved client gets a correct getClusterInfo."""
    with RawClient(nimbus.host, nimbus.port, timeout=IO_TIMEOUT) as client:
        summary = client.call("getClusterInfo")
    [me] = summary.nimbuses
    assert me.port == nimbus.port and me.isLeader is True


# -- the bad inputs, each on its own connection -----------------------------------------------
# Each function sends one kind of bad input and checks the server's reaction.

def send_random_bytes(nimbus, rng):
    sock = connect(nimbus)
    try:
        garbage = bytes(rng.getrandbits(8) for _ in range(rng.randint(1, 300)))
        send_then_half_close(sock, garbage)  # an incomplete frame is dropped at our FIN
        data = read_until_closed(sock)
    finally:
        sock.close()
    assert data == b"" or data[4:6] == b"\x80\x01", "reply to garbage is not a strict message"


def send_truncated_frame(nimbus, rng):
    good = frame(encode("getClusterInfo"))
    sock = connect(nimbus)
    try:
        send_then_half_close(sock, good[:rng.randint(1, len(good) - 1)])
        assert read_until_closed(sock) == b""
    finally:
        sock.close()


def send_oversized_frame(nimbus, rng):
    length = rng.choice([MAX_FRAME + 1, 2 * MAX_FRAME, 0x7FFFFFFF])
    sock = connect(nimbus)
    try:
        # Our side stays open: the server itself must close on the length alone.
        send_then_half_close(sock, struct.pack("!i", length) + header("getClusterInfo"),
                             half_close=False)
        assert read_until_closed(sock) == b""
    finally:
        sock.close()


def send_zero_length_frame(nimbus, rng):
    sock = connect(nimbus)
    try:
        send_then_half_close(sock, b"\x00\x00\x00\x00", half_close=False)
        assert read_until_closed(sock) == b""
    finally:
        sock.close()


def send_unframed_or_foreign_protocol(nimbus, rng):
    data = rng.choice([encode("getClusterInfo"),                       # unframed strict binary
                       b"GET / HTTP/1.1\r\nHost: localhost\r\n\r\n",    # a browser
                       b"\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03",  # a TLS ClientHello
                       b"\x01\x00\x00\x00\x05PLAIN"])                   # a SASL START
    sock = connect(nimbus)
    try:
        send_then_half_close(sock, data)
        assert read_until_closed(sock) == b""
    finally:
        sock.close()


def send_undecodable_arguments(nimbus, rng):
    bad_args = rng.choice([
        bytes([0x63, 0x00, 0x01, 0x00]),                                   # unknown field type
        bytes([TType.STRING, 0x00, 0x01]) + struct.pack("!i", 1000) + b"x",  # string past the end
        bytes([TType.LIST, 0x00, 0x01, 0x77]) + struct.pack("!i", 3),        # list of bad type
    ])
    sock = connect(nimbus)
    try:
        sock.sendall(frame(header("isTopologyNameAllowed", 41) + bad_args))
        name, mtype, seqid, app = read_reply(sock)
        assert (name, mtype, seqid) == ("isTopologyNameAllowed", TMessageType.EXCEPTION, 41)
        assert app.type == TApplicationException.PROTOCOL_ERROR
        # The connection is still good for a correct call.
        sock.sendall(frame(encode("getNimbusConf", 42)))
        assert read_reply(sock)[1:3] == (TMessageType.REPLY, 42)
    finally:
        sock.close()


def send_unknown_method(nimbus, rng):
    name = rng.choice(["x", "getClusterInfoo", "submitTopologyAs", "ping", "é-unicode"])
    sock = connect(nimbus)
    try:
        sock.sendall(frame(header(name, 51) + b"\x00"))  # empty args struct
        got = read_reply(sock)
        assert got[:3] == (name, TMessageType.EXCEPTION, 51)
        assert got[3].type == TApplicationException.UNKNOWN_METHOD
        assert got[3].message == "Invalid method name: '%s'" % name
        sock.sendall(frame(encode("getNimbusConf", 52)))
        assert read_reply(sock)[1:3] == (TMessageType.REPLY, 52)
    finally:
        sock.close()


BAD_INPUTS = [send_random_bytes, send_truncated_frame, send_oversized_frame,
              send_zero_length_frame, send_unframed_or_foreign_protocol,
              send_undecodable_arguments, send_unknown_method]


@pytest.mark.parametrize("bad_input", BAD_INPUTS, ids=lambda f: f.__name__)
def test_bad_input_is_refused_and_server_keeps_serving(nimbus_alive, bad_input):
    """Each kind of bad input (20 variants) is refused or answered as libthrift would, and a good client is served after."""
    rng = random.Random(bad_input.__name__)
    for _ in range(20):
        bad_input(nimbus_alive, rng)
    assert_good_client_served(nimbus_alive)


def test_mismatched_argument_type_is_answered_and_connection_survives(nimbus_alive):
    """A decodable argument of the wrong Thrift type (skipped, as in Java) gets a REPLY or INTERNAL_ERROR, never a hang."""
    sock = connect(nimbus_alive)
    try:
        args = bytes([TType.I32, 0x00, 0x01]) + struct.pack("!i", 5) + bytes([TType.STOP])
        sock.sendall(frame(header("isTopologyNameAllowed", 61) + args))
        name, mtype, seqid, body = read_reply(sock)
        assert (name, seqid) == ("isTopologyNameAllowed", 61)
        if mtype == TMessageType.EXCEPTION:
            assert body.type == TApplicationException.INTERNAL_ERROR
        sock.sendall(frame(encode("getNimbusConf", 62)))
        assert read_reply(sock)[1:3] == (TMessageType.REPLY, 62)
    finally:
        sock.close()


def open_fds(pid):
    return len(os.listdir("/proc/%d/fd" % pid))


def test_a_thousand_bad_inputs_in_a_row(nimbus_alive):
    """1,000 bad inputs in a row (mixed kinds, bounded to 180 s) leave the server serving and leak no sockets."""
    pid = nimbus_alive.process.pid
    assert_good_client_served(nimbus_alive)
    fds_before = open_fds(pid)
    rng = random.Random(1000)
    deadline = time.monotonic() + 180
    for i in range(1000):
        assert time.monotonic() < deadline, "only %d bad inputs handled in 180 s" % i
        rng.choice(BAD_INPUTS)(nimbus_alive, rng)
        if i % 250 == 249:
            assert_good_client_served(nimbus_alive)
    assert_good_client_served(nimbus_alive)
    # Every bad connection was closed by now (we saw EOF on each), so the daemon's descriptors
    # return to where they were; poll briefly for the reactor to finish closing.
    poll_deadline = time.monotonic() + 10
    while open_fds(pid) > fds_before and time.monotonic() < poll_deadline:
        time.sleep(0.05)
    assert open_fds(pid) <= fds_before


def test_many_concurrent_clients_all_get_correct_answers(nimbus_alive):
    """50 concurrent clients making 20 getNimbusConf calls each all get the correct JSON."""
    results, errors = [], []
    start = threading.Barrier(50, timeout=30)

    def worker(n):
        try:
            with RawClient(nimbus_alive.host, nimbus_alive.port, timeout=30) as client:
                start.wait()
                for _ in range(20):
                    conf = json.loads(client.call("getNimbusConf"))
                    results.append(conf["nimbus.thrift.port"])
        except Exception as e:  # reported below, with the thread number
            errors.append((n, repr(e)))

    threads = [threading.Thread(target=worker, args=(n,), daemon=True) for n in range(50)]
    for t in threads:
        t.start()
    deadline = time.monotonic() + 120
    for t in threads:
        t.join(max(0.0, deadline - time.monotonic()))
    assert not any(t.is_alive() for t in threads), "some clients did not finish within 120 s"
    assert errors == []
    assert results == [nimbus_alive.port] * 1000


def test_stalled_half_frame_does_not_block_others(nimbus_alive):
    """A client that sends half a frame and stalls does not block another client; it is served when it finishes."""
    call = frame(encode("getNimbusConf", 71))
    stalled = connect(nimbus_alive)
    try:
        stalled.sendall(call[:len(call) // 2])
        assert_good_client_served(nimbus_alive)
        with RawClient(nimbus_alive.host, nimbus_alive.port, timeout=IO_TIMEOUT) as other:
            assert json.loads(other.call("getNimbusConf"))
        stalled.sendall(call[len(call) // 2:])
        name, mtype, seqid, _ = read_reply(stalled)
        assert (name, mtype, seqid) == ("getNimbusConf", TMessageType.REPLY, 71)
    finally:
        stalled.close()


def test_many_stalled_connections_do_not_block_a_good_client(nimbus_alive):
    """100 connections each holding an incomplete frame do not stop a good client from being served."""
    socks = []
    try:
        for i in range(100):
            s = connect(nimbus_alive)
            s.sendall(struct.pack("!i", 1000) + b"\x80\x01")  # promises 1000 bytes, sends 2
            socks.append(s)
        assert_good_client_served(nimbus_alive)
        with RawClient(nimbus_alive.host, nimbus_alive.port, timeout=IO_TIMEOUT) as client:
            for _ in range(10):
                assert client.call("isTopologyNameAllowed", name="fine-name") is True
    finally:
        for s in socks:
            s.close()
    assert_good_client_served(nimbus_alive)


def test_good_call_after_remote_error_on_same_connection(nimbus_alive):
    """A TApplicationException (unknown method) does not desynchronise the connection: seqids keep matching."""
    with RawClient(nimbus_alive.host, nimbus_alive.port, timeout=IO_TIMEOUT) as client:
        client.seqid = 99
        client.sock.sendall(frame(header("noSuchMethod", 100) + b"\x00"))
        got = read_reply(client.sock)
        assert got[2] == 100 and got[3].type == TApplicationException.UNKNOWN_METHOD
        client.seqid = 100
        for _ in range(5):
            assert json.loads(client.call("getNimbusConf"))
