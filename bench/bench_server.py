"""Benchmark of pynimbus's Thrift server (prints figures, asserts nothing).

* cold start: ``python -m pynimbus.cli dev`` launched to its first answered ``getClusterInfo``
  (median of 5), and the same for the baseline ``bench/echo_server.py``;
* idle resident memory (VmRSS from /proc/<pid>/status) right after start;
* calls per second and microseconds per call of ``getNimbusConf`` and ``getClusterInfo`` from
  1 client and from 8 concurrent client *processes* (so the client's GIL is not the limit),
  against pynimbus and against the baseline, with the ratio.

Clients use the accelerated binary protocol over framed transport on 127.0.0.1, one connection
each, strictly request/response.  A full run takes about a minute.

    python bench/bench_server.py [--seconds 3] [--starts 5]
"""

import argparse
import json
import multiprocessing
import os
import statistics
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
sys.path.insert(0, os.path.join(REPO, "tests"))
sys.path.append(REPO)  # an installed pynimbus (maybe compiled: pynimbus.common.compiled) first

from thrift.protocol.TBinaryProtocol import TBinaryProtocolAccelerated  # noqa: E402

from nimbus_process import LOOPBACK, NimbusProcess, RawClient  # noqa: E402

METHODS = ("getNimbusConf", "getClusterInfo")


class EchoProcess(NimbusProcess):
    """``bench/echo_server.py`` managed like a pynimbus process (same start poll and stop)."""

    def __init__(self, local_dir, conf_json_path=None, **kwargs):
        super().__init__(local_dir, **kwargs)
        self.conf_json_path = conf_json_path

    def command(self):
        cmd = [self.python, os.path.join(HERE, "echo_server.py"), "--port", str(self.port)]
        if self.conf_json_path:
            cmd += ["--conf-json", self.conf_json_path]
        return cmd


def cold_starts(make_process, count):
    """Median seconds from launch to the first answered getClusterInfo, and RSS after start."""
    times, rss = [], None
    for i in range(count):
        with tempfile.TemporaryDirectory(prefix="bench-nimbus-") as local_dir:
            proc = make_process(local_dir)
            t0 = time.perf_counter()
            proc.start(timeout=60)
            times.append(time.perf_counter() - t0)
            if i == count - 1:
                rss = proc.rss_kib()
            code = proc.stop(timeout=15)
            if code != 0:
                print("  warning: exit code %s after SIGTERM" % code)
    return statistics.median(times), times, rss


def _client_worker(port, method, seconds, barrier, results):
    client = RawClient(LOOPBACK, port, timeout=60, protocol_class=TBinaryProtocolAccelerated)
    for _ in range(50):  # warm-up: connection, caches, branch predictors
        client.call(method)
    barrier.wait()
    calls = 0
    t0 = time.perf_counter()
    end = t0 + seconds
    while True:
        client.call(method)
        calls += 1
        if calls % 16 == 0 and time.perf_counter() >= end:
            break
    elapsed = time.perf_counter() - t0
    client.close()
    results.put((calls, elapsed))


def throughput(port, method, clients, seconds):
    """(calls/s over all clients, mean µs per call as seen by one client)."""
    ctx = multiprocessing.get_context("fork")
    barrier = ctx.Barrier(clients)
    results = ctx.Queue()
    procs = [ctx.Process(target=_client_worker, args=(port, method, seconds, barrier, results))
             for _ in range(clients)]
    for p in procs:
        p.start()
    got = [results.get(timeout=seconds + 60) for _ in procs]
    for p in procs:
        p.join(30)
    total_calls = sum(c for c, _ in got)
    wall = max(e for _, e in got)
    per_call_us = statistics.mean(e / c for c, e in got) * 1e6
    return total_calls / wall, per_call_us


def measure_server(label, make_process, seconds, rows):
    with tempfile.TemporaryDirectory(prefix="bench-nimbus-") as local_dir:
        proc = make_process(local_dir)
        proc.start(timeout=60)
        try:
            for method in METHODS:
                for clients in (1, 8):
                    rate, us = throughput(proc.port, method, clients, seconds)
                    rows[(label, method, clients)] = (rate, us)
                    print("  %-9s %-14s %d client%s: %8.0f calls/s  %7.0f us/call"
                          % (label, method, clients, "s" if clients > 1 else " ", rate, us))
        finally:
            proc.stop(timeout=15)


def main(argv=None):
    parser = argparse.ArgumentParser(description="pynimbus Thrift server benchmark")
    parser.add_argument("--seconds", type=float, default=3.0, help="per throughput figure (3)")
    parser.add_argument("--starts", type=int, default=5, help="cold starts to take a median of")
    parser.add_argument("--nimbus-python", default=sys.executable,
                        help="interpreter that runs `-m pynimbus.cli dev` (default: this one)")
    args = parser.parse_args(argv)

    print("pynimbus server benchmark: %d CPU core(s), Python %s" % (
        os.cpu_count(), sys.version.split()[0]))
    print("note: server and clients share the %d core(s); with 8 client processes the clients "
          "compete with the server for CPU, so 8-client figures are machine-bound, not "
          "server-bound." % os.cpu_count())

    def nimbus(local_dir):
        return NimbusProcess(local_dir, python=args.nimbus_python, log_level="WARNING")

    # Baseline conf: the same JSON pynimbus returns, so both servers send equal payloads.
    with tempfile.TemporaryDirectory(prefix="bench-nimbus-") as local_dir:
        proc = nimbus(local_dir)
        proc.start(timeout=60)
        with RawClient(LOOPBACK, proc.port) as c:
            conf_json = c.call("getNimbusConf")
        proc.stop(timeout=15)
    conf_file = tempfile.NamedTemporaryFile("w", suffix=".json", delete=False)
    conf_file.write(conf_json)
    conf_file.close()

    def echo(local_dir):
        return EchoProcess(local_dir, conf_json_path=conf_file.name)

    try:
        print("\ncold start to first answered getClusterInfo (median of %d):" % args.starts)
        n_med, n_all, n_rss = cold_starts(nimbus, args.starts)
        e_med, e_all, e_rss = cold_starts(echo, args.starts)
        print("  pynimbus dev : %6.0f ms  (runs: %s)" % (
            n_med * 1e3, ", ".join("%.0f" % (t * 1e3) for t in n_all)))
        print("  echo baseline: %6.0f ms  (runs: %s)" % (
            e_med * 1e3, ", ".join("%.0f" % (t * 1e3) for t in e_all)))
        print("\nidle resident memory after start (VmRSS):")
        print("  pynimbus dev : %6.1f MiB" % (n_rss / 1024.0))
        print("  echo baseline: %6.1f MiB" % (e_rss / 1024.0))
        print("  (getNimbusConf payload: %d bytes of JSON, %d keys)" % (
            len(conf_json), len(json.loads(conf_json))))

        print("\nthroughput, %.0f s per figure (one connection per client process):" % args.seconds)
        rows = {}
        measure_server("pynimbus", nimbus, args.seconds, rows)
        measure_server("echo", echo, args.seconds, rows)

        print("\npynimbus relative to the bare echo server (calls/s ratio; 1.00 = as fast):")
        for method in METHODS:
            for clients in (1, 8):
                p_rate, p_us = rows[("pynimbus", method, clients)]
                e_rate, e_us = rows[("echo", method, clients)]
                print("  %-14s %d client%s: %.2f  (%+.0f us/call)" % (
                    method, clients, "s" if clients > 1 else " ", p_rate / e_rate, p_us - e_us))
    finally:
        os.unlink(conf_file.name)
    return 0


if __name__ == "__main__":
    sys.exit(main())
