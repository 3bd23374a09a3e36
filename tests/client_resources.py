"""Clients that hold nimbus's resources, and what a nimbus process holds: for
``tests/test_client_resources.py`` and ``bench/bench_client_resources.py``.

* :func:`stall` - a connection that announces a frame, sends part of it and stops;
* :func:`await_all_closed` - wait (bounded) until the server has closed given sockets;
* :func:`unread_bytes` - what the kernel still holds unread for a local port, so a caller can
  wait until the server has read everything before measuring it;
* :func:`open_fds`, :func:`raise_fd_limit`, :func:`leave_uploads_pending`,
  :func:`leave_downloads_pending`, :func:`pipeline_blob_download`.
"""

import os
import resource
import selectors
import socket
import struct
import time

from thrift.Thrift import TMessageType
from thrift.transport.TTransport import TMemoryBuffer

from nimbus_process import LOOPBACK, RawClient
from pynimbus.generated.storm.ttypes import AccessControl, AccessControlType, SettableBlobMeta


def open_fds(pid):
    """How many file descriptors process ``pid`` has open."""
    return len(os.listdir("/proc/%d/fd" % pid))


def raise_fd_limit(wanted):
    """Raise this process's soft descriptor limit to ``wanted``; False when the hard limit is
    lower."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft == resource.RLIM_INFINITY or soft >= wanted:
        return True
    if hard != resource.RLIM_INFINITY and hard < wanted:
        return False
    resource.setrlimit(resource.RLIMIT_NOFILE, (wanted, hard))
    return True


def unread_bytes(port):
    """Bytes the kernel holds for sockets on local ``port`` that their process has not read
    (the rx_queue column of /proc/net/tcp)."""
    total = 0
    with open("/proc/net/tcp") as f:
        next(f)
        for line in f:
            fields = line.split()
            if int(fields[1].rsplit(":", 1)[1], 16) == port:
                total += int(fields[4].split(":")[1], 16)
    return total


def await_condition(condition, deadline_secs, interval=0.05):
    """Poll ``condition`` until it is true or ``deadline_secs`` pass; return whether it was."""
    deadline = time.monotonic() + deadline_secs
    while not condition():
        if time.monotonic() >= deadline:
            return False
        time.sleep(interval)
    return True


def stall(port, frame_length, sent, timeout=10.0):
    """Connect, announce a frame of ``frame_length`` bytes, send ``sent`` of them and stop;
    return the socket (still open on this side)."""
    sock = socket.create_connection((LOOPBACK, port), timeout=timeout)
    try:
        sock.sendall(struct.pack("!I", frame_length) + b"\x80" * sent)
    except OSError:
        pass  # closed by the server while sending
    return sock


def await_all_closed(socks, deadline_secs):
    """Wait until the server has closed every socket in ``socks`` (EOF or reset), or the
    deadline passes; return how many it closed."""
    selector = selectors.DefaultSelector()
    for sock in socks:
        sock.setblocking(False)
        selector.register(sock, selectors.EVENT_READ)
    still_open = len(socks)
    deadline = time.monotonic() + deadline_secs
    while still_open and time.monotonic() < deadline:
        for key, _ in selector.select(timeout=max(0.0, deadline - time.monotonic())):
            try:
                data = key.fileobj.recv(65536)
            except (ConnectionResetError, BrokenPipeError):
                data = b""
            if not data:
                selector.unregister(key.fileobj)
                still_open -= 1
    selector.close()
    return len(socks) - still_open


def blob_meta():
    """A SettableBlobMeta anyone may use."""
    return SettableBlobMeta(acl=[AccessControl(type=AccessControlType.OTHER, access=7)])


def leave_uploads_pending(client, count, chunk=b"p" * 1024, key_prefix="pending-"):
    """Begin ``count`` jar uploads and ``count`` blob creates on ``client`` (a RawClient),
    send one chunk to each and never finish them."""
    for i in range(count):
        location = client.call("beginFileUpload")
        client.call("uploadChunk", location=location, chunk=chunk)
        session = client.call("beginCreateBlob", key="%s%d" % (key_prefix, i), meta=blob_meta())
        client.call("uploadBlobChunk", session=session, chunk=chunk)


def leave_downloads_pending(client, count, size=4096):
    """Create a blob and upload a jar of ``size`` bytes on ``client`` (a RawClient), then begin
    ``count`` downloads of each, take one chunk of each and never finish them."""
    session = client.call("beginCreateBlob", key="downloaded", meta=blob_meta())
    client.call("uploadBlobChunk", session=session, chunk=b"d" * size)
    client.call("finishBlobUpload", session=session)
    location = client.call("beginFileUpload")
    client.call("uploadChunk", location=location, chunk=b"j" * size)
    client.call("finishFileUpload", location=location)
    for _ in range(count):
        download = client.call("beginBlobDownload", key="downloaded")
        client.call("downloadBlobChunk", session=download.session)
        download_id = client.call("beginFileDownload", file=location)
        client.call("downloadChunk", id=download_id)


def pipeline_blob_download(host, port, key, data, chunk_size, timeout=30.0):
    """Store ``data`` as blob ``key``, then on a new connection send every downloadBlobChunk
    call of its download at once, without reading a reply.  Returns ``(client, calls)``, the
    RawClient whose socket holds the replies and how many there are to read with
    :func:`read_chunk_replies`."""
    with RawClient(host, port, timeout=timeout) as client:
        session = client.call("beginCreateBlob", key=key, meta=blob_meta())
        for offset in range(0, len(data), 1000000):
            client.call("uploadBlobChunk", session=session, chunk=data[offset:offset + 1000000])
        client.call("finishBlobUpload", session=session)
        download = client.call("beginBlobDownload", key=key)
    calls = -(-len(data) // chunk_size)
    client = RawClient(host, port, timeout=timeout)
    client.sock.sendall(b"".join(
        client.encode_call("downloadBlobChunk", seqid, session=download.session)
        for seqid in range(1, calls + 1)))
    return client, calls


def read_chunk_replies(client, calls):
    """Read ``calls`` downloadBlobChunk replies from ``client``'s socket; return the chunks in
    order (an EXCEPTION or a seqid out of order raises AssertionError)."""
    chunks = []
    for seqid in range(1, calls + 1):
        prot = client.protocol_class(TMemoryBuffer(client.read_frame()))
        _, mtype, got = prot.readMessageBegin()
        assert (mtype, got) == (TMessageType.REPLY, seqid), (mtype, got, seqid)
        result = client.nimbus.downloadBlobChunk_result()
        result.read(prot)
        chunks.append(result.success)
    return chunks
