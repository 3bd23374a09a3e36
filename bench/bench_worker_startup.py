"""What a Python worker costs before it runs a tuple: the modules it imports and the memory of
an idle worker.

Two parts, both on the installed pynimbus (compiled where setup.py could):

* **imports**: a fresh interpreter imports the worker's entry point
  (``pynimbus.worker.__main__``, what ``python -m pynimbus.worker`` loads before it reads its
  conf) from outside the repository; printed: the modules in ``sys.modules`` (all, pynimbus's,
  and pynimbus's that are not the worker's own or the shared floors', by room), the import's
  wall time and the interpreter's VmRSS after it.
* **idle worker**: on bench/bench_worker_wordcount.py's harness (a real ZooKeeper,
  ``pynimbus dev`` in 1.x mode, one ``pynimbus supervisor`` with two slots, compiled-module
  cache on), the word count is submitted with a corpus of one sentence, once with multilang
  children and once in process (``streamparse_run`` components); when that sentence is acked the
  worker is idle, and its VmRSS (the worker process alone, its children apart) is read until
  three readings one second apart agree (at most 30).

Run: ``python bench/bench_worker_startup.py [--runs N] [--parts imports,idle]``.
Prints figures; asserts nothing.
"""

import argparse
import json
import os
import signal
import statistics
import subprocess
import sys
import tempfile
import time

import bench_worker_wordcount as harness  # noqa: E402  (puts the repo and tests/ on sys.path)
from bench_inprocess_wordcount import runner_word_count  # noqa: E402
from compat.oracle.targets import pynimbus_target  # noqa: E402
from test_worker_process import submit  # noqa: E402
from worker_topologies import CORPUS, word_count, word_count_jar  # noqa: E402
from zookeeper_server import ZooKeeperServer  # noqa: E402
from pynimbus.client import NimbusClient  # noqa: E402
from pynimbus.generated.storm.ttypes import KillOptions  # noqa: E402

IMPORT_PROBE = r"""
import json, sys, time
started = time.perf_counter()
import pynimbus.worker.__main__
elapsed = time.perf_counter() - started
rss = [int(l.split()[1]) for l in open("/proc/self/status") if l.startswith("VmRSS:")][0]
print(json.dumps({"secs": elapsed, "rss_kib": rss, "modules": sorted(sys.modules)}))
"""
# the rooms a worker may load (its own, the shared floors and the pure ports) under this
# layout and the one before it (whose root held the shared modules loose)
WORKER_ROOMS = ("pynimbus.worker", "pynimbus.common", "pynimbus.cluster", "pynimbus.thrift",
                "pynimbus.generated", "pynimbus.clojure_port", "pynimbus.jstorm_port")
STABLE_READINGS = 3
MAX_READINGS = 30


def import_figures(runs):
    """Median import time and RSS of ``runs`` fresh interpreters, and the last one's modules."""
    results = []
    with tempfile.TemporaryDirectory() as outside:  # not the repo: the installed package
        for _ in range(runs):
            out = subprocess.run([sys.executable, "-c", IMPORT_PROBE], cwd=outside, check=True,
                                 capture_output=True, text=True).stdout
            results.append(json.loads(out))
    modules = results[-1]["modules"]
    ours = [m for m in modules if m == "pynimbus" or m.startswith("pynimbus.")]
    foreign = [m for m in ours if m != "pynimbus" and not m.startswith(WORKER_ROOMS)]
    return {"secs": statistics.median(r["secs"] for r in results),
            "rss_kib": statistics.median(r["rss_kib"] for r in results),
            "modules": len(modules), "pynimbus": len(ours), "foreign": foreign}


def settled_rss(pid):
    """The worker's VmRSS once STABLE_READINGS readings a second apart agree (or the last)."""
    readings = []
    for _ in range(MAX_READINGS):
        readings.append(harness.proc_status(pid, "VmRSS"))
        if len(readings) >= STABLE_READINGS and len(set(readings[-STABLE_READINGS:])) == 1:
            break
        time.sleep(1)
    return readings[-1]


def idle_worker_rss(side, nimbus_port, workdir, name, topology, conf):
    """Submit ``topology`` with one sentence, wait for its ack, then the idle worker's VmRSS
    and its children's."""
    corpus = CORPUS[:1]
    acked = os.path.join(workdir, name + "-acked.txt")
    conf = dict(conf, **{"topology.environment": {
        "WORDCOUNT_OUTPUT": os.path.join(workdir, name + "-counts.txt"),
        "WORDCOUNT_ACKED": acked, "MULTILANG_TEST_SERIALIZER": "json"}})
    with NimbusClient("127.0.0.1", nimbus_port, timeout=30) as client:
        storm_id = submit(client, name, word_count_jar(corpus), topology, conf)
        try:
            harness.wait_for(lambda: harness.file_size(acked) > 0, "the ack of " + name)
            (pid,) = harness.wait_for(lambda: side.worker_pids(storm_id), "the worker of " + name)
            rss = settled_rss(pid)
            children = sorted(harness.proc_status(c, "VmRSS") or 0
                              for c in harness.children_of(pid))
            return rss, children
        finally:
            client.killTopologyWithOpts(name, KillOptions(wait_secs=0))
            # the supervisor leaves its workers running when it stops: see this one go first
            harness.wait_for(lambda: not side.worker_pids(storm_id), "the end of " + name)


def idle_figures(runs):
    cells = {"multilang": (word_count(), {"pynimbus.worker.inprocess": False}),
             "in-process": (runner_word_count("json"), {})}
    figures = {cell: [] for cell in cells}
    args = argparse.Namespace(bytecode_cache=True)
    with ZooKeeperServer() as zookeeper, pynimbus_target("1.x", zookeeper) as target, \
            tempfile.TemporaryDirectory(prefix="pynimbus-bench-startup-") as workdir:
        side = harness.PythonSide(target, zookeeper, workdir, args)
        with side.running():
            for run in range(runs):
                for cell, (topology, conf) in cells.items():
                    name = "idle-%s-%d" % (cell, run)
                    conf = dict(conf, **{"topology.workers": 1, "topology.acker.executors": 1})
                    rss, children = idle_worker_rss(side, target.port, workdir, name,
                                                    topology, conf)
                    figures[cell].append(rss)
                    print("idle worker, %-10s run %d: worker VmRSS %6d KiB; children %s KiB"
                          % (cell, run + 1, rss, children))
                    sys.stdout.flush()
    return {cell: statistics.median(values) for cell, values in figures.items()}


def main():
    signal.signal(signal.SIGTERM, lambda signum, frame: sys.exit(128 + signum))
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--parts", default="imports,idle")
    args = parser.parse_args()
    parts = args.parts.split(",")
    print(harness.pynimbus_build())
    if "imports" in parts:
        f = import_figures(max(args.runs, 5))
        print("imports of pynimbus.worker.__main__: %d modules, %d of pynimbus, import %.3f s "
              "(median), VmRSS after %d KiB (median)"
              % (f["modules"], f["pynimbus"], f["secs"], f["rss_kib"]))
        print("  pynimbus modules outside the worker's rooms and the floors (%d): %s"
              % (len(f["foreign"]), ", ".join(f["foreign"]) or "none"))
    if "idle" in parts:
        for cell, rss in idle_figures(args.runs).items():
            print("idle worker VmRSS, %-10s median %d KiB" % (cell, rss))


if __name__ == "__main__":
    main()
