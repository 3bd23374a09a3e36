"""What one client can make nimbus hold (issue 8, "Nimbus hardening", finding 4), measured on a
real ``pynimbus dev`` process over loopback.

* 1,000 connections that each send part of a frame and stall: the frames being received are
  capped across connections (``pynimbus.thrift.max_buffered_bytes``), so nimbus's memory does
  not grow with them, and every one is closed after
  ``pynimbus.thrift.partial_frame.timeout.secs``; the descriptors go back to where they were.
* 2,000 jar uploads and 2,000 blob uploads begun with a chunk each and never finished, on a
  nimbus limited to 1,024 file descriptors (where each used to hold a file open, so submits
  failed with "Too many open files"): the descriptors do not grow and nimbus still serves.
* The same for 1,000 blob and 1,000 jar downloads begun and never finished.
* A client that sends many calls without reading the replies gets them all, in order.
* An upload past ``pynimbus.upload.max.bytes`` is refused with a message naming the setting.

The figures themselves (RSS and open files before and after) are printed by
``bench/bench_client_resources.py``.
"""

import resource

import pytest
from thrift.Thrift import TApplicationException

from client_resources import (
    await_all_closed, await_condition, blob_meta, leave_downloads_pending,
    leave_uploads_pending, open_fds, pipeline_blob_download, raise_fd_limit, read_chunk_replies,
    stall, unread_bytes)
from nimbus_process import LOOPBACK, NimbusProcess, RawClient, RemoteError

STALLED = 1000
PENDING_UPLOADS = 2000
PENDING_DOWNLOADS = 1000         # of a blob, and as many of a jar
FRAME_LIMIT = 1048576            # nimbus.thrift.max_buffer_size, Storm's default
SENT_PER_STALLED = 256 * 1024    # of each 1 MiB frame: 256 MB in all, were it all kept
BUFFERED_LIMIT = 16 * 1048576
PARTIAL_FRAME_TIMEOUT = 3
UPLOAD_LIMIT = 64 * 1048576
FD_LIMIT = 1024                  # a common default soft limit, where the finding was seen
IO_TIMEOUT = 10.0
DEADLINE = 120.0


class FdLimitedNimbusProcess(NimbusProcess):
    """A ``pynimbus dev`` process whose soft file-descriptor limit is :data:`FD_LIMIT`."""

    def command(self):
        cmd = super().command()
        at = cmd.index("-m")
        cmd[at:at + 2] = ["-c", "import resource, sys; "
                                "resource.setrlimit(resource.RLIMIT_NOFILE, (%d, %d)); "
                                "from pynimbus.cli.main import main; sys.exit(main(sys.argv[1:]))"
                                % (FD_LIMIT, resource.getrlimit(resource.RLIMIT_NOFILE)[1])]
        return cmd


@pytest.fixture
def nimbus(tmp_path):
    if not raise_fd_limit(STALLED + 200):
        pytest.skip("needs %d file descriptors, more than the hard limit" % (STALLED + 200))
    process = FdLimitedNimbusProcess(tmp_path, options=[
        "pynimbus.thrift.max_buffered_bytes=%d" % BUFFERED_LIMIT,
        "pynimbus.thrift.partial_frame.timeout.secs=%d" % PARTIAL_FRAME_TIMEOUT,
        "pynimbus.upload.max.bytes=%d" % UPLOAD_LIMIT])
    process.start(timeout=30)
    yield process
    process.stop(timeout=15)


def assert_served(nimbus):
    with RawClient(LOOPBACK, nimbus.port, timeout=IO_TIMEOUT) as client:
        assert client.call("isTopologyNameAllowed", name="still-served") is True


def test_a_thousand_stalled_partial_frames_are_bounded_and_dropped(nimbus):
    """1,000 connections each holding 256 KiB of a 1 MiB frame grow nimbus's memory by less
    than the 256 MB they sent, all are closed once the partial-frame timeout passes, nimbus's
    descriptors come back to where they were, and a good client is served throughout."""
    pid = nimbus.process.pid
    assert_served(nimbus)
    rss_before, fds_before = nimbus.rss_kib(), open_fds(pid)
    socks = [stall(nimbus.port, FRAME_LIMIT, SENT_PER_STALLED) for _ in range(STALLED)]
    try:
        assert await_condition(lambda: unread_bytes(nimbus.port) == 0, DEADLINE), (
            "nimbus did not read what the stalled clients sent")
        assert_served(nimbus)
        grown_mib = (nimbus.rss_kib() - rss_before) / 1024.0
        assert grown_mib < 128, "RSS grew by %.0f MiB under %d stalled frames" % (
            grown_mib, STALLED)
        closed = await_all_closed(socks, PARTIAL_FRAME_TIMEOUT + 60)
        assert closed == STALLED, "only %d of %d stalled connections were closed" % (
            closed, STALLED)
    finally:
        for sock in socks:
            sock.close()
    assert await_condition(lambda: open_fds(pid) <= fds_before + 2, DEADLINE), (
        "nimbus kept descriptors of the stalled connections")
    assert_served(nimbus)


def test_two_thousand_unfinished_uploads_hold_no_open_files(nimbus):
    """2,000 jar and 2,000 blob uploads left unfinished after one chunk each leave nimbus's
    open descriptors where they were (it may hold only 1,024), and a whole upload still
    works after them."""
    pid = nimbus.process.pid
    with RawClient(LOOPBACK, nimbus.port, timeout=IO_TIMEOUT) as client:
        fds_before = open_fds(pid)
        leave_uploads_pending(client, PENDING_UPLOADS)
        assert open_fds(pid) <= fds_before + 2
        location = client.call("beginFileUpload")
        client.call("uploadChunk", location=location, chunk=b"whole jar")
        client.call("finishFileUpload", location=location)
    assert_served(nimbus)


def test_two_thousand_unfinished_downloads_hold_no_open_files(nimbus):
    """1,000 blob and 1,000 jar downloads left unfinished after one chunk each leave nimbus's
    open descriptors where they were (it may hold only 1,024)."""
    pid = nimbus.process.pid
    with RawClient(LOOPBACK, nimbus.port, timeout=IO_TIMEOUT) as client:
        fds_before = open_fds(pid)
        leave_downloads_pending(client, PENDING_DOWNLOADS)
        assert open_fds(pid) <= fds_before + 2
    assert_served(nimbus)


def test_calls_sent_without_reading_replies_are_all_answered_in_order(nimbus):
    """A client that sends all 489 downloadBlobChunk calls of a 32 MB blob (more than the
    kernel's socket buffers hold) at once and reads only afterwards gets every reply, in order,
    and the blob byte for byte: nimbus stops reading while replies wait to be sent and takes
    up the calls again as they drain."""
    data = bytes(range(256)) * (32 * 1000000 // 256)
    client, calls = pipeline_blob_download(LOOPBACK, nimbus.port, "pipelined", data, 65536)
    with client:
        assert_served(nimbus)
        assert b"".join(read_chunk_replies(client, calls)) == data
    assert_served(nimbus)


def assert_refused_past_the_limit(call):
    with pytest.raises(RemoteError) as info:
        call()
    assert info.value.app.type == TApplicationException.INTERNAL_ERROR
    assert "pynimbus.upload.max.bytes (%d bytes)" % UPLOAD_LIMIT in info.value.app.message


def test_uploads_past_the_size_limit_are_refused(nimbus):
    """A jar or blob upload whose chunks pass pynimbus.upload.max.bytes gets INTERNAL_ERROR
    naming the setting; the upload is gone and the connection goes on serving."""
    chunk = b"x" * 307200
    with RawClient(LOOPBACK, nimbus.port, timeout=IO_TIMEOUT) as client:
        location = client.call("beginFileUpload")
        for _ in range(UPLOAD_LIMIT // len(chunk)):
            client.call("uploadChunk", location=location, chunk=chunk)
        assert_refused_past_the_limit(
            lambda: client.call("uploadChunk", location=location, chunk=chunk))
        with pytest.raises(RemoteError):
            client.call("finishFileUpload", location=location)
        session = client.call("beginCreateBlob", key="too-big", meta=blob_meta())
        for _ in range(UPLOAD_LIMIT // len(chunk)):
            client.call("uploadBlobChunk", session=session, chunk=chunk)
        assert_refused_past_the_limit(
            lambda: client.call("uploadBlobChunk", session=session, chunk=chunk))
        assert client.call("isRemoteBlobExists", blobKey="too-big") is False
        assert client.call("isTopologyNameAllowed", name="fine") is True
