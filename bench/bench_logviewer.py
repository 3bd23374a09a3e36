"""Storm's logviewer from ``pynimbus logviewer`` and from Storm 1.2.4's own logviewer, side by
side on the same 1 GB of worker logs: requests per second and latency (p50, p99) of a search
in one large file and of a deep search across a topology, and each server's memory.

The logs (generated in a temporary directory, deleted at the end): ``--topologies`` topologies
of ``--ports`` ports each; per port a live ``worker.log`` and a rotated ``worker.log.1`` of
``--file-mb`` MB and a gzipped ``worker.log.2.gz`` of the same text size (about 1 GB on disk
with the defaults), made of executor-like log lines in which an exception line comes about
every ``--every-kb`` KB.  The search (``/search/<file>?search-string=...``, 10 matches from
the start, as the UI's search page asks) reads about ten times that; the deep search
(``/deepSearch/<topology>?...&num-matches=20&port=*``) reads each port's newest log.
``--clients`` threads of this process each GET in a loop (one connection per request) for
``--window`` seconds after ``--warmup``; a side is measured alone, one after the other.
Resident memory (VmRSS) is each server process's, read after its runs: pynimbus logviewer's
Python (a plain install: the logviewer has no compiled modules), Storm's JVM (``-Xmx128m``,
1.2.4's ``logviewer.childopts``).

Run: ``python bench/bench_logviewer.py [--topologies 4] [--ports 3] [--file-mb 40]
[--clients 4] [--window 10] [--warmup 3]``.  Storm's side needs Java and the storm-core 1.2.4
jars (cached in ``.cache/``); without them only pynimbus's side runs.  Asserts nothing.
"""

import argparse
import contextlib
import gzip
import os
import pathlib
import random
import shutil
import sys
import tempfile
import time
from urllib.parse import quote

REPO_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.append(REPO_ROOT)
sys.path.insert(0, os.path.join(REPO_ROOT, "tests"))

from bench_ui import load, rss_kib  # noqa: E402
from compat import storm_logviewer  # noqa: E402
from logviewer_process import LogviewerProcess  # noqa: E402
from nimbus_process import LOOPBACK  # noqa: E402

NEEDLE = "java.lang.RuntimeException: bench needle"
COMPONENTS = ["split", "count", "word-spout", "__acker", "__system", "report"]


def log_block(rng, size, every):
    """About ``size`` bytes of worker log lines, an exception line about every ``every``
    bytes."""
    lines, total, since = [], 0, 0
    while total < size:
        if since >= every:
            line = ("2026-12-06 10:%02d:%02d.%03d ERROR o.a.s.d.executor [Thread-%d] %s\n"
                    "\tat org.apache.storm.daemon.executor$fn__5694.invoke(executor.clj:1)\n"
                    % (rng.randrange(60), rng.randrange(60), rng.randrange(1000),
                       rng.randrange(40), NEEDLE))
            since = 0
        else:
            line = ("2026-12-06 10:%02d:%02d.%03d INFO  o.a.s.d.task [Thread-%d-%s-executor"
                    "[%d %d]] Emitting: %s default [%s, %d]\n"
                    % (rng.randrange(60), rng.randrange(60), rng.randrange(1000),
                       rng.randrange(40), rng.choice(COMPONENTS), rng.randrange(9),
                       rng.randrange(9), rng.choice(COMPONENTS),
                       "".join(rng.choice("abcdefghij") for _ in range(rng.randrange(3, 12))),
                       rng.randrange(10 ** 6)))
        lines.append(line)
        total += len(line)
        since += len(line)
    return "".join(lines).encode("utf-8")


def write_logs(root, topologies, ports, file_mb, every):
    """The log directory; returns the topology ids and the byte count written."""
    rng = random.Random(32)
    blocks = [log_block(rng, 4 << 20, every) for _ in range(4)]
    ids, written = [], 0
    for t in range(topologies):
        storm_id = "bench-%d-17000000%02d" % (t, t)
        ids.append(storm_id)
        for port in range(6700, 6700 + ports):
            port_dir = root / "workers-artifacts" / storm_id / str(port)
            port_dir.mkdir(parents=True)
            (port_dir / "worker.yaml").write_text("worker-id: w-%s-%d\n" % (storm_id, port))
            for age, name in enumerate(["worker.log", "worker.log.1", "worker.log.2.gz"]):
                path = port_dir / name
                opener = gzip.open if name.endswith(".gz") else open
                with opener(str(path), "wb", **({"compresslevel": 1} if
                                                name.endswith(".gz") else {})) as f:
                    left = file_mb << 20
                    while left > 0:
                        chunk = blocks[rng.randrange(len(blocks))][:left]
                        f.write(chunk)
                        left -= len(chunk)
                written += path.stat().st_size
                when = 1_700_000_000 - age * 3600
                os.utime(str(path), (when, when))
    return ids, written


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--topologies", type=int, default=4)
    parser.add_argument("--ports", type=int, default=3)
    parser.add_argument("--file-mb", type=int, default=40)
    parser.add_argument("--every-kb", type=int, default=512)
    parser.add_argument("--clients", type=int, default=4)
    parser.add_argument("--window", type=float, default=10.0)
    parser.add_argument("--warmup", type=float, default=3.0)
    args = parser.parse_args(argv)
    reason = storm_logviewer.unavailable_reason()
    with contextlib.ExitStack() as stack:
        tmp = pathlib.Path(tempfile.mkdtemp(prefix="bench-logviewer-"))
        stack.callback(shutil.rmtree, str(tmp), True)
        log_dir = tmp / "logs"
        started = time.monotonic()
        ids, written = write_logs(log_dir, args.topologies, args.ports, args.file_mb,
                                  args.every_kb << 10)
        print("logs: %d topologies x %d ports x 3 files, %.2f GB on disk, written in %.0f s"
              % (args.topologies, args.ports, written / 1e9, time.monotonic() - started))
        print("clients %d, warm-up %.0f s, window %.0f s"
              % (args.clients, args.warmup, args.window))
        conf = ["storm.local.hostname=localhost", "supervisor.slots.ports=[%s]" % ", ".join(
            str(p) for p in range(6700, 6700 + args.ports)),
            "logviewer.cleanup.interval.secs=null"]
        ours = LogviewerProcess(tmp, log_dir, options=conf)
        stack.callback(ours.stop)
        ours.wait_serving()
        sides = [("pynimbus", "http://%s:%d" % (LOOPBACK, ours.port), ours.process.pid)]
        if reason:
            print("storm: skipped: %s" % reason)
        else:
            theirs = stack.enter_context(storm_logviewer.StormLogviewer(
                log_dir, conf={"storm.local.hostname": "localhost",
                               "supervisor.slots.ports": list(range(6700, 6700 + args.ports))},
                heap="-Xmx128m"))
            sides.append(("storm", theirs.base_url, theirs.process.pid))
        needle = quote(NEEDLE, safe="")
        paths = [("search", "/search/%s%%2F6700%%2Fworker.log?search-string=%s&num-matches=10"
                  % (ids[0], needle)),
                 ("deepSearch", "/deepSearch/%s?search-string=%s&num-matches=20&port=*"
                  % (ids[-1], needle))]
        results = {}
        for label, path in paths:
            for side, base_url, pid in sides:
                rate, p50, p99, errors = load(base_url, path, args.clients, args.warmup,
                                              args.window)
                rss = rss_kib(pid)
                results[(label, side)] = (rate, p50 or 0, p99 or 0, rss)
                print("%-10s %-8s %8.1f req/s  p50 %8.1f ms  p99 %8.1f ms  RSS %s KiB  "
                      "errors %d" % (label, side, rate, p50 or 0, p99 or 0, rss, errors))
        for label, _path in paths:
            if (label, "storm") in results:
                o, t = results[(label, "pynimbus")], results[(label, "storm")]
                print("%s pynimbus/storm: req/s %.2f, p50 %.2f, p99 %.2f, RSS %.3f"
                      % (label, o[0] / t[0] if t[0] else 0, o[1] / t[1] if t[1] else 0,
                         o[2] / t[2] if t[2] else 0, o[3] / t[3]))
    print("generated logs removed: %s" % (not os.path.exists(str(tmp))))


if __name__ == "__main__":
    main()
