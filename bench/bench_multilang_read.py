"""How long the worker takes to read one big tuple from a multilang child: JSON vs msgpack.

Feeds an ``emit`` of one string of 1, 10 and 50 MB to the worker's incremental readers
(:mod:`pynimbus.worker.multilang.serializers`) in pipe-sized reads (8 KiB and 64 KiB, what a
child's writes arrive as), as the worker's process protocol does, and prints the seconds each
takes (best of 3) and the JSON/msgpack ratio.  A reader linear in the message's size reads
50 MB in well under a second; the one before issue 28 re-split the whole unfinished line on
each read (24.9 s for 50 MB at 64 KiB).  Asserts nothing.

    python bench/bench_multilang_read.py
"""

import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from pynimbus.worker.multilang.serializers import JsonSerializer, MsgpackSerializer  # noqa: E402

SIZES_MB = (1, 10, 50)
READ_BYTES = (8192, 65536)


def read_secs(serializer, encoded, read_bytes):
    best = None
    for _ in range(3):
        reader = serializer.reader(max_message_bytes=len(encoded) + 1)
        started = time.perf_counter()
        messages = []
        for i in range(0, len(encoded), read_bytes):
            messages += reader.feed(encoded[i:i + read_bytes])
        took = time.perf_counter() - started
        assert len(messages) == 1
        best = took if best is None else min(best, took)
    return best


def main():
    print("%-8s %-10s %12s %12s %8s" % ("tuple", "reads of", "JSON s", "msgpack s", "ratio"))
    for mb in SIZES_MB:
        message = {"command": "emit", "tuple": ["x" * (mb * 1000000)], "anchors": []}
        encoded = {s: s.encode(message) for s in (JsonSerializer, MsgpackSerializer)}
        for read_bytes in READ_BYTES:
            json_secs = read_secs(JsonSerializer, encoded[JsonSerializer], read_bytes)
            msgpack_secs = read_secs(MsgpackSerializer, encoded[MsgpackSerializer], read_bytes)
            print("%-8s %-10s %12.3f %12.3f %7.1fx" % (
                "%d MB" % mb, "%d KiB" % (read_bytes // 1024), json_secs, msgpack_secs,
                json_secs / msgpack_secs))


if __name__ == "__main__":
    main()
