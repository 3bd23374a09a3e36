"""Storm's UI REST API from ``pynimbus ui`` and from Storm 1.2.4's own UI, side by side in one
run against the same cluster: requests per second and latency (p50, p99) of
``/api/v1/topology/summary`` and ``/api/v1/topology/<id>``, and each UI's memory.

The cluster: ``pynimbus dev`` in 1.x mode on a test ZooKeeper (Debian's), fake supervisors
(``tests/compat/oracle/supervisors.py``: 4 hosts of 25 slots) and ``--topologies`` topologies
(storm-starter's word-count shape, one worker each) submitted over Thrift, as the compat UI
test builds it.  Both UIs read the same Nimbus: the Nimbus's Thrift answers are shared work,
so the figures compare what each UI adds.  ``--clients`` threads of this process each GET in a
loop over one keep-alive-less connection per request, for ``--window`` seconds after
``--warmup``; a side is measured alone, one after the other.  Resident memory (VmRSS) is each
UI process's: pynimbus ui's Python, Storm's JVM (``-Xmx384m``).

Run: ``python bench/bench_ui.py [--topologies 100] [--clients 4] [--window 10] [--warmup 3]
[--runs 1] [--ui-option KEY=VALUE ...]``.  Storm's side needs Java 17 and the storm-core 1.2.4
jars (Maven Central, cached in ``.cache/``); without them only pynimbus's side runs.  Asserts
nothing.
"""

import argparse
import contextlib
import os
import pathlib
import statistics
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request

REPO_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.append(REPO_ROOT)
sys.path.insert(0, os.path.join(REPO_ROOT, "tests"))

from compat import reference_topologies as refs  # noqa: E402
from compat import storm_ui  # noqa: E402
from compat.oracle.capture import Capturer  # noqa: E402
from compat.oracle.supervisors import FakeSupervisors, SupervisorSpec  # noqa: E402
from compat.oracle.targets import pynimbus_target  # noqa: E402
from nimbus_process import LOOPBACK  # noqa: E402
from ui_process import UIProcess  # noqa: E402
from zookeeper_server import ZooKeeperServer  # noqa: E402

SUPERVISORS = tuple(SupervisorSpec("sup-%d" % i, "127.0.0.%d" % (i + 2),
                                   list(range(6700, 6725))) for i in range(4))


def rss_kib(pid):
    with open("/proc/%d/status" % pid) as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return None


def load(base_url, path, clients, warmup, window):
    """``(requests/s, p50 ms, p99 ms, errors)`` of ``clients`` threads GETting ``path``."""
    stopping = threading.Event()
    lock = threading.Lock()
    samples, errors = [], [0]

    def client():
        while not stopping.is_set():
            started = time.monotonic()
            try:
                with urllib.request.urlopen(base_url + path, timeout=30) as response:
                    response.read()
            except (OSError, urllib.error.URLError):
                with lock:
                    errors[0] += 1
                continue
            ended = time.monotonic()
            with lock:
                samples.append((ended, ended - started))

    threads = [threading.Thread(target=client, daemon=True) for _ in range(clients)]
    for thread in threads:
        thread.start()
    time.sleep(warmup)
    start = time.monotonic()
    time.sleep(window)
    end = time.monotonic()
    stopping.set()
    for thread in threads:
        thread.join(60)
    with lock:
        latencies = sorted(lat for t, lat in samples if start <= t < end)
    if not latencies:
        return 0.0, None, None, errors[0]
    return (len(latencies) / (end - start), statistics.median(latencies) * 1000,
            latencies[min(len(latencies) - 1, int(len(latencies) * 0.99))] * 1000, errors[0])


def submit_topologies(target, count):
    """``count`` word-count topologies submitted; their ids."""
    ids = []
    with Capturer(target) as capturer:
        for i in range(count):
            ref = refs.reference("bench_ui_%03d" % i, topology=refs.wordcount(),
                                 conf={"topology.workers": 1})
            result, _location = capturer.submit(ref)
            if "error" in result:
                raise RuntimeError("submitting %s: %r" % (ref.name, result))
            ids.append(capturer.find_storm_id(ref.name))
    return ids


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--topologies", type=int, default=100)
    parser.add_argument("--clients", type=int, default=4)
    parser.add_argument("--window", type=float, default=10.0)
    parser.add_argument("--warmup", type=float, default=3.0)
    parser.add_argument("--runs", type=int, default=1)
    parser.add_argument("--ui-option", action="append", default=[], metavar="KEY=VALUE",
                        help="a -c option of pynimbus ui (e.g. pynimbus.ui.leader.cache.secs=0:"
                             " the leader looked up for every request, as Storm's UI does)")
    args = parser.parse_args(argv)
    reason = storm_ui.unavailable_reason("1.x")
    print("UI REST requests: %d topologies, %d clients, warm-up %.0f s, window %.0f s, %d run(s)"
          % (args.topologies, args.clients, args.warmup, args.window, args.runs))
    with contextlib.ExitStack() as stack:
        zookeeper = stack.enter_context(ZooKeeperServer())
        target = stack.enter_context(pynimbus_target("1.x", zookeeper))
        stack.enter_context(FakeSupervisors(target.cluster_conf, SUPERVISORS, "1.2.4"))
        ids = submit_topologies(target, args.topologies)
        ours = UIProcess(pathlib.Path(stack.enter_context(tempfile.TemporaryDirectory())),
                         target.port, nimbus_host=target.host, options=args.ui_option)
        stack.callback(ours.stop)
        ours.wait_serving()
        sides = [("pynimbus", "http://%s:%d" % (LOOPBACK, ours.port), ours.process.pid)]
        if reason:
            print("storm: skipped: %s" % reason)
        else:
            theirs = stack.enter_context(storm_ui.StormUI(target.host, target.port, "1.x"))
            sides.append(("storm", theirs.base_url, theirs.process.pid))
        paths = [("topology/summary", "/api/v1/topology/summary"),
                 ("topology/<id>", "/api/v1/topology/%s" % ids[len(ids) // 2])]
        results = {}
        for label, path in paths:
            for side, base_url, pid in sides:
                for run in range(args.runs):
                    rate, p50, p99, errors = load(base_url, path, args.clients, args.warmup,
                                                  args.window)
                    rss = rss_kib(pid)
                    results.setdefault((label, side), []).append((rate, p50, p99, rss))
                    print("%-16s %-8s run %d: %7.0f req/s  p50 %7.2f ms  p99 %7.2f ms  "
                          "RSS %s KiB  errors %d" % (label, side, run + 1, rate, p50 or 0,
                                                     p99 or 0, rss, errors))
        print("\nmedian of %d run(s)" % args.runs)
        print("%-16s %-8s %9s %9s %9s %12s" % ("page", "side", "req/s", "p50 ms", "p99 ms",
                                               "RSS KiB"))
        medians = {}
        for (label, side), runs in results.items():
            medians[(label, side)] = [statistics.median(r[i] for r in runs) for i in range(4)]
            rate, p50, p99, rss = medians[(label, side)]
            print("%-16s %-8s %9.0f %9.2f %9.2f %12.0f" % (label, side, rate, p50, p99, rss))
        for label, _path in paths:
            if (label, "storm") in medians:
                o, t = medians[(label, "pynimbus")], medians[(label, "storm")]
                print("%s pynimbus/storm: req/s %.2f, p50 %.2f, p99 %.2f, RSS %.3f"
                      % (label, o[0] / t[0], o[1] / t[1], o[2] / t[2], o[3] / t[3]))


if __name__ == "__main__":
    main()
