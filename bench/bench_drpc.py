"""DRPC round trips through ``pynimbus drpc`` and through Storm 1.2.4's ``storm drpc`` daemon,
side by side in one run: requests per second, latency (p50, p99) and the daemon's memory.

Each side is one DRPC server on loopback.  The same load runs against both, so the server is
the only difference: ``--callers`` threads each call ``execute("echo", <n>)`` in a loop through
``DistributedRPC`` (``pynimbus.drpc.DRPCClient``, one connection each), and ``--responders``
threads play the topology: each polls ``fetchRequest("echo")`` on ``DistributedRPCInvocations``
and answers every request with its own arguments (``result``), pausing ``--poll-ms`` when none
waits (the Java DRPC spout's 1 ms idle wait).  The callers and responders are this process's
Python threads on both sides, so the figures are the round trips a Python client and topology
get from each server, not Storm's own best; a run reports after ``--warmup`` seconds for
``--window`` seconds.  Resident memory (VmRSS, VmHWM) is the server process's alone: pynimbus
drpc's Python, Storm's JVM (``-Xmx384m``).

With ``--answerer java-topology`` the requests are ``exclamation`` questions and storm-starter
1.2.2's ``BasicDRPCTopology`` answers them instead of the responder threads: one copy per
server, submitted with the stock ``storm jar`` to pynimbus (1.x mode, on a test ZooKeeper) and
run by a real Storm 1.2.4 supervisor's Java workers, one worker each; the callers are the same.

With ``--answerer python-topology`` the same ``exclamation`` questions are answered by
storm-starter's ManualDRPC in Python (``tests/drpc_programs/exclamation.py``: the DRPC spout,
a bolt adding "!", the return bolt) on ``pynimbus dev``'s Python workers, one copy per server
(``pynimbus submit`` with the server's ``drpc.servers`` and ``drpc.invocations.port``).

With ``--answerer python-linear`` they are answered by storm-starter's BasicDRPCTopology in
Python (``tests/drpc_programs/basic_drpc.py``: built by ``pynimbus.drpc.LinearDRPCTopologyBuilder``
as Storm's builder builds it) on ``pynimbus dev``'s Python workers, one copy per server.

With ``--answerer python-trident`` they are answered by a Trident DRPC stream in Python
(``tests/trident_programs/drpc_exclamation.py``: ``new_drpc_stream`` and a function adding
"!"; each request a batch) on ``pynimbus dev``'s Python workers, one copy per server.

Run: ``python bench/bench_drpc.py [--sides pynimbus,storm] [--callers 4] [--responders 2]
[--answerer python|java-topology|python-topology|python-linear|python-trident] [--window 10]
[--warmup 3] [--runs 1]``.  ``errors`` counts calls that raised or answered something else
than expected.
Storm's side needs Java 17 and the storm-core 1.2.4 jars (Maven Central, cached in
``.cache/``; the Java topology also storm-starter 1.2.2 and Debian's ZooKeeper); without them
it is skipped with the reason.  Asserts nothing.
"""

import argparse
import contextlib
import json
import os
import pathlib
import statistics
import sys
import tempfile
import threading
import time

REPO_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.append(REPO_ROOT)
sys.path.insert(0, os.path.join(REPO_ROOT, "tests"))

from thrift.Thrift import TException  # noqa: E402

from compat import storm_drpc  # noqa: E402
from drpc_process import serving  # noqa: E402
from pynimbus.drpc import DRPCClient, DRPCInvocationsClient  # noqa: E402

LOOPBACK = "127.0.0.1"


def process_memory_kib(pid):
    """``(VmRSS, VmHWM)`` of ``pid`` in KiB."""
    found = {}
    with open("/proc/%d/status" % pid) as f:
        for line in f:
            key, _, value = line.partition(":")
            if key in ("VmRSS", "VmHWM"):
                found[key] = int(value.split()[0])
    return found.get("VmRSS"), found.get("VmHWM")


def expected_answer(function, args, trident=False):
    """What a call should answer: the arguments (echo), with "!" (exclamation), and a
    Trident DRPC stream's as the JSON list of its one result tuple."""
    if function == "echo":
        return args
    return json.dumps([[args + "!"]], separators=(",", ":")) if trident else args + "!"


class Load(object):
    """Callers and responders against one server until :meth:`stop`."""

    def __init__(self, port, invocations_port, callers, responders, poll_secs,
                 function="echo", trident=False):
        self.port, self.invocations_port = port, invocations_port
        self.function = function
        self.trident = trident
        self.poll_secs = poll_secs
        self.callers = callers
        self.stopping = threading.Event()            # the callers'
        self.responders_stopping = threading.Event()  # after the callers' last answers
        self.lock = threading.Lock()
        self.samples = []       # (end time, latency s) of every answered call
        self.errors = 0
        self.threads = ([threading.Thread(target=self.call_loop, args=(i,), daemon=True)
                         for i in range(callers)]
                        + [threading.Thread(target=self.respond_loop, daemon=True)
                           for _ in range(responders)])

    def start(self):
        for thread in self.threads:
            thread.start()

    def stop(self):
        self.stopping.set()
        for thread in self.threads[:self.callers]:
            thread.join(30)
        self.responders_stopping.set()
        for thread in self.threads[self.callers:]:
            thread.join(30)

    def call_loop(self, index):
        with DRPCClient(LOOPBACK, self.port, timeout=60) as client:
            n = 0
            while not self.stopping.is_set():
                n += 1
                args = "%d-%d" % (index, n)
                started = time.monotonic()
                try:
                    answer = client.execute(self.function, args)
                except TException:
                    with self.lock:
                        self.errors += 1
                    continue
                ended = time.monotonic()
                with self.lock:
                    if answer != expected_answer(self.function, args, self.trident):
                        self.errors += 1
                    self.samples.append((ended, ended - started))

    def respond_loop(self):
        with DRPCInvocationsClient(LOOPBACK, self.invocations_port, timeout=60) as client:
            while not self.responders_stopping.is_set():
                request = client.fetchRequest("echo")
                if request.request_id:
                    client.result(request.request_id, request.func_args)
                else:
                    self.responders_stopping.wait(self.poll_secs)

    def window(self, start, end):
        """``(calls/s, p50 ms, p99 ms)`` of the calls answered within ``[start, end)``."""
        with self.lock:
            latencies = sorted(lat for t, lat in self.samples if start <= t < end)
        if not latencies:
            return 0.0, None, None
        p99 = latencies[min(len(latencies) - 1, int(len(latencies) * 0.99))]
        return (len(latencies) / (end - start), 1000 * statistics.median(latencies),
                1000 * p99)


def measure(port, invocations_port, pid, args, responders=None, function="echo"):
    load = Load(port, invocations_port, args.callers,
                args.responders if responders is None else responders,
                args.poll_ms / 1000.0, function, args.answerer == "python-trident")
    load.start()
    try:
        time.sleep(args.warmup)
        start = time.monotonic()
        time.sleep(args.window)
        end = time.monotonic()
        rss, hwm = process_memory_kib(pid)
    finally:
        load.stop()
    rate, p50, p99 = load.window(start, end)
    return {"rate": rate, "p50": p50, "p99": p99, "rss": rss, "hwm": hwm,
            "errors": load.errors}


def run_pynimbus(args, workdir):
    with serving(pathlib.Path(workdir), "drpc.request.timeout.secs=60") as server:
        return measure(server.port, server.invocations_port, server.process.pid, args)


def run_storm(args, workdir):
    server = storm_drpc.StormDRPC(conf={"drpc.request.timeout.secs": 60})
    server.start()
    try:
        return measure(server.port, server.invocations_port, server.process.pid, args)
    finally:
        server.stop()


def print_run(side, run, figures):
    print("%-8s run %d: %8.0f calls/s  p50 %6.2f ms  p99 %6.2f ms  RSS %s KiB (peak %s)  "
          "errors %d" % (side, run + 1, figures["rate"], figures["p50"] or 0,
                         figures["p99"] or 0, figures["rss"], figures["hwm"],
                         figures["errors"]))


def measure_topologies(args, ours, theirs):
    """``{side: [figures]}`` of the exclamation topologies answering behind each server."""
    out = {}
    for side, server in (("pynimbus", ours), ("storm", theirs)):
        with DRPCClient(LOOPBACK, server.port, timeout=300) as client:
            answer = client.execute("exclamation", "warm")  # the topology is up
        print("%s: exclamation(warm) = %r" % (side, answer))
        out[side] = [measure(server.port, server.invocations_port, server.process.pid, args,
                             responders=0, function="exclamation")
                     for _ in range(args.runs)]
    return out


@contextlib.contextmanager
def both_servers(workdir):
    """pynimbus drpc and Storm 1.2.4's DRPC daemon, started."""
    with contextlib.ExitStack() as stack:
        ours = stack.enter_context(serving(pathlib.Path(workdir),
                                           "drpc.request.timeout.secs=240"))
        theirs = storm_drpc.StormDRPC(conf={"drpc.request.timeout.secs": 240})
        theirs.start()
        stack.callback(theirs.stop)
        yield ours, theirs


def run_java_topologies(args):
    """Both servers at once, each answered by its own BasicDRPCTopology on real Java workers;
    ``{side: figures}`` measured one side after the other."""
    from compat import real_storm
    from compat.test_real_drpc import DRPCCluster
    from zookeeper_server import ZooKeeperServer
    reason = real_storm.unavailable_reason("1.x") or storm_drpc.unavailable_reason()
    if reason:
        print("java-topology: skipped: %s" % reason)
        return {}
    with tempfile.TemporaryDirectory(prefix="pynimbus-bench-drpc-") as workdir, \
            ZooKeeperServer() as zookeeper, both_servers(workdir) as (ours, theirs):
        DRPCCluster.invocation_ports = {"exclamation-pynimbus": ours.invocations_port,
                                        "exclamation-storm": theirs.invocations_port}
        names = sorted(DRPCCluster.invocation_ports)
        with DRPCCluster.started("1.x", zookeeper, workdir, names, slots=2, parallel=2):
            return measure_topologies(args, ours, theirs)


PYTHON_PROGRAMS = {"python-topology": "exclamation:ExclamationDRPC",
                   "python-linear": "basic_drpc:BasicDRPCTopology",
                   "python-trident": "drpc_exclamation:topology"}


def run_python_topologies(args):
    """Both servers at once, each answered by the Python program of ``args.answerer`` on
    pynimbus dev's Python workers; ``{side: figures}``."""
    from nimbus_process import NimbusProcess, free_port
    from test_drpc_topologies import submit
    from trident_cluster import submit as submit_trident
    reason = storm_drpc.unavailable_reason()
    if reason:
        print("python-topology: skipped: %s" % reason)
        return {}
    with tempfile.TemporaryDirectory(prefix="pynimbus-bench-drpc-") as workdir, \
            both_servers(workdir) as (ours, theirs):
        dev = NimbusProcess(workdir, dev_supervisor=True, options=[
            "supervisor.slots.ports=[%d, %d]" % (free_port(), free_port())])
        dev.start(timeout=60)
        try:
            for side, server in (("pynimbus", ours), ("storm", theirs)):
                project = pathlib.Path(workdir) / side
                project.mkdir()
                where = ['drpc.servers=["%s"]' % LOOPBACK,
                         "drpc.invocations.port=%d" % server.invocations_port]
                program = PYTHON_PROGRAMS[args.answerer]
                if args.answerer == "python-trident":
                    submit_trident(dev, project, program, "exclamation-" + side, {},
                                   "topology.workers=1", *where)
                else:
                    submit(dev, project, program, "exclamation-" + side,
                           *[a for option in where for a in ("-c", option)])
            return measure_topologies(args, ours, theirs)
        finally:
            dev.stop()


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sides", default="pynimbus,storm")
    parser.add_argument("--callers", type=int, default=4)
    parser.add_argument("--responders", type=int, default=2)
    parser.add_argument("--poll-ms", type=float, default=1.0)
    parser.add_argument("--window", type=float, default=10.0)
    parser.add_argument("--warmup", type=float, default=3.0)
    parser.add_argument("--runs", type=int, default=1)
    parser.add_argument("--answerer", default="python",
                        choices=("python", "java-topology") + tuple(PYTHON_PROGRAMS))
    args = parser.parse_args(argv)
    import logging
    # thrift's socket logs each refused connection while a server starts
    logging.getLogger("thrift.transport.TSocket").setLevel(logging.CRITICAL)
    sides = [s.strip() for s in args.sides.split(",") if s.strip()]
    print("DRPC echo round trips: %d callers, %d responders (idle poll %.1f ms), warm-up %.0f s, "
          "window %.0f s, %d run(s) per side" % (args.callers, args.responders, args.poll_ms,
                                                 args.warmup, args.window, args.runs))
    results = {}
    if args.answerer != "python":
        if args.answerer == "java-topology":
            print("answered by storm-starter's BasicDRPCTopology on real Storm 1.2.4 workers")
            results = run_java_topologies(args)
        else:
            print("answered by %s in Python on pynimbus dev's Python workers"
                  % PYTHON_PROGRAMS[args.answerer])
            results = run_python_topologies(args)
        for side, runs in results.items():
            for run, figures in enumerate(runs):
                print_run(side, run, figures)
        sides = []
    for side in sides:
        if side == "storm":
            reason = storm_drpc.unavailable_reason()
            if reason:
                print("storm: skipped: %s" % reason)
                continue
        for run in range(args.runs):
            with tempfile.TemporaryDirectory(prefix="pynimbus-bench-drpc-") as workdir:
                figures = (run_pynimbus if side == "pynimbus" else run_storm)(args, workdir)
            results.setdefault(side, []).append(figures)
            print_run(side, run, figures)
    medians = {side: {k: statistics.median(r[k] for r in runs if r[k] is not None)
                      for k in ("rate", "p50", "p99", "rss")}
               for side, runs in results.items()}
    print("\nmedian of %d run(s)" % args.runs)
    print("%-8s %10s %9s %9s %12s" % ("side", "calls/s", "p50 ms", "p99 ms", "RSS KiB"))
    for side, m in medians.items():
        print("%-8s %10.0f %9.2f %9.2f %12.0f" % (side, m["rate"], m["p50"], m["p99"], m["rss"]))
    if "pynimbus" in medians and "storm" in medians:
        p, s = medians["pynimbus"], medians["storm"]
        print("\npynimbus/storm: calls/s %.2f, p50 %.2f, p99 %.2f, RSS %.3f"
              % (p["rate"] / s["rate"], p["p50"] / s["p50"], p["p99"] / s["p99"],
                 p["rss"] / s["rss"]))


if __name__ == "__main__":
    main()
