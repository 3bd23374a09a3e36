"""What clients can make a ``pynimbus dev`` process hold (prints figures, asserts nothing).

Resident memory (VmRSS) and open file descriptors of the daemon:

* idle, after start;
* under 1,000 connections that each announce a frame of ``nimbus.thrift.max_buffer_size``
  (1 MiB) and send all of it but the last byte (1 GB in all), once the daemon has read what
  the kernel held for it, with the time a good client then waits for an answer;
* after the partial-frame timeout (``pynimbus.thrift.partial_frame.timeout.secs``; the
  figures say how many connections the daemon had closed by then), the clients gone;
* under 2,000 jar uploads and 2,000 blob uploads begun with a 1 KiB chunk each and never
  finished;
* under 2,000 blob downloads and 2,000 jar downloads begun with one chunk each and never
  finished;
* the highest RSS seen in 3 s while one client has sent all 489 downloadBlobChunk calls of a
  32 MB blob without reading a reply (then it reads them all).

``--src DIR`` runs the daemon from another checkout of the package (e.g. the code before a
change, from ``git archive <commit> pynimbus | tar -x -C DIR``), so a before/after pair is two
runs.  The daemon keeps this process's descriptor limit (raised to 4,096 when lower).

    python bench/bench_client_resources.py [--src DIR] [--timeout 30] [--stalled 1000]
        [--uploads 2000] [--downloads 2000]
"""

import argparse
import os
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
sys.path.insert(0, os.path.join(REPO, "tests"))
sys.path.append(REPO)  # an installed pynimbus (maybe compiled: pynimbus.common.compiled) first

from client_resources import (  # noqa: E402
    await_all_closed, await_condition, leave_downloads_pending, leave_uploads_pending, open_fds,
    pipeline_blob_download, raise_fd_limit, read_chunk_replies, stall, unread_bytes)
from nimbus_process import LOOPBACK, NimbusProcess, RawClient  # noqa: E402

FRAME_LIMIT = 1048576


class SourceNimbusProcess(NimbusProcess):
    """``pynimbus dev`` imported from the checkout at ``src`` instead of this one."""

    def __init__(self, local_dir, src, **kwargs):
        super().__init__(local_dir, **kwargs)
        self.src = os.path.abspath(src)

    def command(self):
        cmd = super().command()
        at = cmd.index("-m")
        cmd[at:at + 2] = ["-c", "import sys; sys.path.insert(0, %r); "
                                "from pynimbus.cli.main import main; "
                                "sys.exit(main(sys.argv[1:]))" % self.src]
        return cmd


def figures(proc):
    return "RSS %7.1f MiB   open files %5d" % (proc.rss_kib() / 1024.0,
                                               open_fds(proc.process.pid))


def peak_rss_kib(proc, seconds):
    """The highest RSS sampled every 10 ms for ``seconds``."""
    peak, deadline = 0, time.monotonic() + seconds
    while time.monotonic() < deadline:
        peak = max(peak, proc.rss_kib())
        time.sleep(0.01)
    return peak


def good_call_secs(port):
    start = time.monotonic()
    with RawClient(LOOPBACK, port, timeout=60) as client:
        client.call("getClusterInfo")
    return time.monotonic() - start


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--src", help="checkout whose pynimbus package to run (default: this)")
    parser.add_argument("--timeout", type=float, default=30.0,
                        help="pynimbus.thrift.partial_frame.timeout.secs (default 30, its "
                             "default); the wait for closed connections is this plus 30 s")
    parser.add_argument("--stalled", type=int, default=1000)
    parser.add_argument("--uploads", type=int, default=2000)
    parser.add_argument("--downloads", type=int, default=2000)
    args = parser.parse_args(argv)
    if not raise_fd_limit(max(4096, args.stalled + 200)):
        sys.exit("the descriptor hard limit is below %d" % (args.stalled + 200))

    print("pynimbus from %s" % (os.path.abspath(args.src) if args.src else REPO))
    with tempfile.TemporaryDirectory(prefix="bench-resources-") as local_dir:
        options = ["pynimbus.thrift.partial_frame.timeout.secs=%g" % args.timeout]
        if args.src:
            proc = SourceNimbusProcess(local_dir, args.src, options=options,
                                       log_level="ERROR")
        else:
            proc = NimbusProcess(local_dir, options=options, log_level="ERROR")
        proc.start(timeout=60)
        try:
            print("  idle                                  : %s" % figures(proc))
            idle_fds = open_fds(proc.process.pid)
            socks = [stall(proc.port, FRAME_LIMIT, FRAME_LIMIT - 1)
                     for _ in range(args.stalled)]
            await_condition(lambda: unread_bytes(proc.port) == 0, 120)
            wait = good_call_secs(proc.port)
            print("  %4d stalled partial frames of 1 MiB  : %s   (a good call: %.3f s)"
                  % (args.stalled, figures(proc), wait))
            start = time.monotonic()
            closed = await_all_closed(socks, args.timeout + 30)
            waited = time.monotonic() - start
            for sock in socks:
                sock.close()
            # let nimbus notice the closes before measuring (bounded)
            await_condition(lambda: open_fds(proc.process.pid) <= idle_fds + 5, 30)
            print("  then the clients closed               : %s   (nimbus had closed %d of %d "
                  "within %.1f s)" % (figures(proc), closed, len(socks), waited))
            with RawClient(LOOPBACK, proc.port, timeout=60) as client:
                leave_uploads_pending(client, args.uploads)
                print("  %4d jar + %4d blob uploads pending  : %s"
                      % (args.uploads, args.uploads, figures(proc)))
                leave_downloads_pending(client, args.downloads)
                print("  %4d blob + %4d jar downloads pending: %s"
                      % (args.downloads, args.downloads, figures(proc)))
            data = b"p" * 32000000
            pipelined, calls = pipeline_blob_download(LOOPBACK, proc.port, "pipelined", data,
                                                      65536)
            with pipelined:
                peak = peak_rss_kib(proc, 3.0)
                print("  %d chunk calls of 32 MB, unread      : RSS %7.1f MiB (highest in 3 s)"
                      % (calls, peak / 1024.0))
                try:
                    read_chunk_replies(pipelined, calls)
                except AssertionError as e:
                    print("    replies out of order: (type, seqid, expected) = %s" % (e,))
        finally:
            proc.stop(timeout=30)


if __name__ == "__main__":
    main()
