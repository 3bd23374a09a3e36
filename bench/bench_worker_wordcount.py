"""The pystorm word count on Python workers and, side by side, on Storm 1.2.4's Java workers.

One run: a real ZooKeeper, ``pynimbus dev`` in 1.x mode on it (no supervisor of its own), then
for each side in turn one supervisor with two slots:

* **python**: ``pynimbus supervisor`` (tests/supervisor_process.py), whose workers are
  ``python -m pynimbus.worker``;
* **java**: the real Storm 1.2.4 supervisor (tests/compat/real_storm.py ``RealSupervisor``),
  whose workers are ``org.apache.storm.daemon.worker`` JVMs (each behind its LogWriter JVM),
  started with Storm's default worker heap (``worker.heap.memory.mb`` 768) and the JVM's
  default GC and JIT (``--java-worker-opts`` to change).

The Python side reads compiled modules (``.pyc``) from a cache of the run, as an installed
package and a JVM's class files are read; ``--no-bytecode-cache`` runs it with the environment's
setting instead (with ``PYTHONDONTWRITEBYTECODE`` set, as in this project's sessions, each
worker compiles its modules at start: about 25 MB more RSS per worker).

Each cell (side, one or two workers, JSON or pystorm's msgpack serializer) submits the same
jar and the same Thrift topology (tests/worker_topologies.py ``word_count``: the pystorm
``sentences`` spout, ``split`` x2 shuffle, ``count`` x2 fields; shell components) with the same
conf: acking on, ``topology.max.spout.pending`` 500, stats sample rate 1, the corpus of
SENTENCES sentences, the scripts' output files passed through ``topology.environment`` (both
supervisors hand it to their workers, whose multilang children inherit it).  Storm 1.2.4 has no
multilang msgpack serializer (storm-core ships only ``JsonSerializer``; pystorm's msgpack
needs a third-party Java class), so the java/msgpack cells are skipped with that reason.

Per run it prints: sentences/s and tuples/s (sentences into split + words into count) from the
first counted word to the last acked sentence (start-up excluded); whether the counts are
exact; the spout's complete latency (all-time average of Storm's stats, read once the stats
show every sentence acked); per worker process alone: resident memory at the end (VmRSS), its
peak (VmHWM) and the CPU seconds (user + system) it used while timed; then the multilang children's RSS and, for Java,
each LogWriter JVM's, apart.  The summary gives the median of the runs per cell and the ratios
python/java (throughput: target >= 1; worker RSS: target <= 0.25).  The machine's load adds
noise: compare medians, and rerun on a quiet machine for figures to quote.  Asserts nothing.

Run: ``python bench/bench_worker_wordcount.py [--sentences N] [--runs N] [--sides python,java]
[--serializers json,msgpack] [--workers 1,2]`` (java needs Java 17 and the Storm jars: mvn or
``.cache/maven``; without them the java cells are skipped with the reason).
"""

import argparse
import collections
import contextlib
import os
import signal
import statistics
import subprocess
import sys
import tempfile
import time

REPO_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.append(REPO_ROOT)  # an installed pynimbus (maybe compiled: pynimbus.common.compiled) first
sys.path.insert(0, os.path.join(REPO_ROOT, "tests"))

from bench_real_supervisor import poll  # noqa: E402
from compat import real_storm  # noqa: E402
from compat.oracle import maven  # noqa: E402
from compat.oracle.targets import pynimbus_target  # noqa: E402
from nimbus_process import free_port  # noqa: E402
from supervisor_process import SupervisorProcess  # noqa: E402
from test_worker_process import MSGPACK_SERIALIZER, submit  # noqa: E402
from worker_topologies import (  # noqa: E402
    CORPUS, expected_counts, final_counts, word_count, word_count_jar)
from zookeeper_server import ZooKeeperServer  # noqa: E402
from pynimbus.generated.storm.ttypes import KillOptions  # noqa: E402
from pynimbus.supervisor import worker_dirs  # noqa: E402
from pynimbus.thrift.client import NimbusClient  # noqa: E402

SENTENCES = 3000
RUNS = 3
DEADLINE_SECS = 300
MAX_SPOUT_PENDING = 500
# Storm 1.2.4's default worker.childopts is "-Xmx%HEAP-MEM%m" plus Java 8 GC-logging flags that
# Java 17 refuses; the heap is worker.heap.memory.mb, 768 by default.
JAVA_WORKER_OPTS = "-Xmx%HEAP-MEM%m -Djava.net.preferIPv4Stack=true"
JAVA_WORKER_HEAP_MB = 768
NO_JAVA_MSGPACK = ("Storm 1.2.4 ships no multilang msgpack serializer (storm-core has only "
                   "org.apache.storm.multilang.JsonSerializer)")
# what a Python worker and its pystorm children import, compiled before the first run
WORKER_MODULES = ("pynimbus.worker.__main__", "pystorm", "msgpack")
PYTHON_SUPERVISOR_OPTIONS = ["supervisor.monitor.frequency.secs=1",
                             "supervisor.worker.shutdown.sleep.secs=1",
                             "supervisor.heartbeat.frequency.secs=1"]

Figures = collections.namedtuple(
    "Figures", "sentences_per_sec tuples_per_sec exact complete_ms worker_rss worker_hwm "
               "worker_cpu children_rss log_writer_rss")


def pynimbus_build():
    """Which pynimbus this bench and the workers it starts run (the figures depend on it)."""
    import pynimbus
    from pynimbus.common.compiled import describe
    return "pynimbus from %s; the worker's hot modules: %s" % (
        os.path.dirname(pynimbus.__file__), describe())


def wait_for(predicate, what, timeout=DEADLINE_SECS, interval=0.02):
    """Poll ``predicate`` until it returns something truthy (returned), or raise."""
    return poll(predicate, what, timeout, interval)


def file_size(path):
    try:
        return os.stat(path).st_size
    except FileNotFoundError:
        return 0


def proc_status(pid, key):
    """A ``kB`` field of /proc/<pid>/status (VmRSS, VmHWM), or None once the process is gone."""
    try:
        with open("/proc/%d/status" % pid) as f:
            for line in f:
                if line.startswith(key + ":"):
                    return int(line.split()[1])
    except FileNotFoundError:
        return None
    return None


def stat_fields(pid):
    """The fields of /proc/<pid>/stat after the command name (state is [0], ppid [1])."""
    try:
        with open("/proc/%d/stat" % pid) as f:
            stat = f.read()
    except FileNotFoundError:
        return None
    return stat[stat.rfind(")") + 2:].split()


def cpu_secs(pid):
    fields = stat_fields(pid)
    if fields is None:
        return None
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def children_of(pid):
    """Pids of the live processes whose parent is ``pid``."""
    out = []
    for name in os.listdir("/proc"):
        if name.isdigit():
            fields = stat_fields(int(name))
            if fields is not None and fields[0] != "Z" and int(fields[1]) == pid:
                out.append(int(name))
    return out


def parent_of(pid):
    fields = stat_fields(pid)
    return int(fields[1]) if fields is not None else None


class PythonSide:
    """``pynimbus supervisor`` with two slots; its workers are found through their pids dirs.

    With ``bytecode_cache``, the supervisor, its workers and their children read compiled
    modules from a cache of this run (``PYTHONPYCACHEPREFIX``, filled before the first worker
    starts), as an installed package has them; without, they run with the environment's
    setting (where ``PYTHONDONTWRITEBYTECODE`` is set, every worker compiles pynimbus and the
    Thrift types from source at start, which costs tens of MB of RSS).
    """

    name = "python"

    def __init__(self, target, zookeeper, workdir, args):
        self.env = {}
        if args.bytecode_cache:
            self.env = {"PYTHONPYCACHEPREFIX": os.path.join(workdir, "pycache"),
                        "PYTHONDONTWRITEBYTECODE": ""}
        self.supervisor = SupervisorProcess(
            os.path.join(workdir, "python-supervisor"), target.local_dir, target.port,
            ports=[free_port(), free_port()], env=self.env,
            options=PYTHON_SUPERVISOR_OPTIONS + [
                "storm.zookeeper.servers=[\"127.0.0.1\"]",
                "storm.zookeeper.port=%d" % zookeeper.port,
                "storm.zookeeper.root=%s" % target.cluster_conf["storm.zookeeper.root"],
                "storm.local.hostname=127.0.0.1"])

    def unavailable_reason(self, serializer):
        return None

    @contextlib.contextmanager
    def running(self):
        if self.env:
            subprocess.run([sys.executable, "-c", "import " + ", ".join(WORKER_MODULES)],
                           env=dict(os.environ, **self.env), cwd=REPO_ROOT, check=True)
        self.supervisor.start()
        try:
            yield self
        finally:
            self.supervisor.stop()

    def worker_pids(self, storm_id):
        conf = {"storm.local.dir": self.supervisor.local_dir}
        pids = []
        for worker_id in worker_dirs.worker_ids(conf):
            for pid in worker_dirs.worker_pids(conf, worker_id):
                args = real_storm.cmdline(pid)
                if "pynimbus.worker" in args and storm_id in args:
                    pids.append(pid)
        return sorted(pids)

    def log_writer_pids(self, worker_pids):
        return []


class JavaSide:
    """The real Storm 1.2.4 supervisor with two slots and Storm's default worker heap."""

    name = "java"

    def __init__(self, target, zookeeper, workdir, args):
        self.reason = real_storm.unavailable_reason("1.x")
        self.supervisor = None
        if self.reason is None:
            self.supervisor = real_storm.RealSupervisor(
                maven.STORM_1X, zookeeper.port, target.cluster_conf["storm.zookeeper.root"],
                target.port, slots=2, conf={"worker.heap.memory.mb": JAVA_WORKER_HEAP_MB,
                                            "supervisor.worker.shutdown.sleep.secs": 1})
            # the hosts-file workaround of the harness (Java 14+ and 1.2.4's ZooKeeper client)
            self.supervisor.conf["worker.childopts"] = "%s -Djdk.net.hosts.file=%s" % (
                args.java_worker_opts, self.supervisor.home.hosts_file)

    def unavailable_reason(self, serializer):
        if self.reason is not None:
            return "no real Storm 1.2.4 supervisor here: " + self.reason
        if serializer == "msgpack":
            return NO_JAVA_MSGPACK
        return None

    @contextlib.contextmanager
    def running(self):
        with self.supervisor:
            wait_for(lambda: self.supervisor.supervisor_id, "the Java supervisor's id", 120)
            yield self

    def worker_pids(self, storm_id):
        return [w.pid for w in self.supervisor.worker_processes() if w.storm_id == storm_id]

    def log_writer_pids(self, worker_pids):
        return [parent_of(pid) for pid in worker_pids]


def spout_stats(client, storm_id):
    """(all-time acked, complete latency ms) of the ``sentences`` spout, from Nimbus."""
    acked, latency = 0, None
    for e in client.getTopologyInfo(storm_id).executors:
        if e.component_id == "sentences" and e.stats is not None:
            spout = e.stats.specific.spout
            acked += sum(spout.acked.get(":all-time", {}).values())
            latency = spout.complete_ms_avg.get(":all-time", {}).get("default")
    return acked, latency


def topology_conf(num_workers, serializer, output, acked):
    conf = {"topology.workers": num_workers, "topology.stats.sample.rate": 1.0,
            "topology.max.spout.pending": MAX_SPOUT_PENDING,
            # multilang children on both sides (the scripts are no streamparse_run commands,
            # which a Python worker could run in process; Storm ignores the key)
            "pynimbus.worker.inprocess": False,
            "topology.environment": {"WORDCOUNT_OUTPUT": output, "WORDCOUNT_ACKED": acked,
                                     "MULTILANG_TEST_SERIALIZER": serializer}}
    if serializer == "msgpack":
        conf["topology.multilang.serializer"] = MSGPACK_SERIALIZER
    return conf


def one_run(side, nimbus_port, workdir, name, num_workers, serializer, corpus):
    """Submit, time, measure and kill one word count on ``side``; return its Figures."""
    output = os.path.join(workdir, name + "-counts.txt")
    acked = os.path.join(workdir, name + "-acked.txt")
    # each sentence acked once: "<index>\n" per line
    acked_size = sum(len(str(i)) + 1 for i in range(len(corpus)))
    with NimbusClient("127.0.0.1", nimbus_port, timeout=30) as client:
        storm_id = submit(client, name, word_count_jar(corpus), word_count(),
                          topology_conf(num_workers, serializer, output, acked))
        try:
            wait_for(lambda: file_size(output) > 0, "the first count of " + name)
            started = time.monotonic()
            pids = wait_for(lambda: (lambda found: len(found) == num_workers and found)(
                side.worker_pids(storm_id)), "the workers of " + name)
            cpu_at_start = [cpu_secs(pid) for pid in pids]
            wait_for(lambda: file_size(acked) >= acked_size, "every sentence of %s acked" % name)
            elapsed = time.monotonic() - started
            figures = Figures(
                len(corpus) / elapsed,
                (len(corpus) + sum(len(line.split()) for line in corpus)) / elapsed,
                final_counts(output)[0] == expected_counts(corpus),
                None,
                [proc_status(pid, "VmRSS") for pid in pids],
                [proc_status(pid, "VmHWM") for pid in pids],
                [cpu_secs(pid) - start for pid, start in zip(pids, cpu_at_start)],
                sorted(proc_status(child, "VmRSS") or 0
                       for pid in pids for child in children_of(pid)),
                [proc_status(pid, "VmRSS") for pid in side.log_writer_pids(pids)])
            try:
                latency = wait_for(
                    lambda: (lambda a, ms: a >= len(corpus) and ms is not None and (ms,))(
                        *spout_stats(client, storm_id)), "the stats of " + name, 30, 0.5)[0]
                figures = figures._replace(complete_ms=latency)
            except RuntimeError:
                pass
        finally:
            client.killTopologyWithOpts(name, KillOptions(wait_secs=0))
    wait_for(lambda: not side.worker_pids(storm_id), "the workers of %s to stop" % name, 60)
    return figures


def mean(values):
    values = [v for v in values if v is not None]
    return sum(values) / len(values) if values else None


def describe(figures):
    return ("%7.0f sentences/s %8.0f tuples/s  counts %s  complete latency %s ms  "
            "worker RSS %s KiB (peak %s)  worker CPU %s s  multilang children RSS %s KiB%s"
            % (figures.sentences_per_sec, figures.tuples_per_sec,
               "exact" if figures.exact else "WRONG",
               "%.1f" % figures.complete_ms if figures.complete_ms is not None else "n/a",
               figures.worker_rss, figures.worker_hwm,
               ["%.1f" % c for c in figures.worker_cpu if c is not None], figures.children_rss,
               "  LogWriter RSS %s KiB" % figures.log_writer_rss
               if figures.log_writer_rss else ""))


def median_of(runs, pick):
    values = [pick(f) for f in runs]
    values = [v for v in values if v is not None]
    return statistics.median(values) if values else None


def summary(cells, args):
    """The median per cell and the python/java ratios, as printed lines."""
    lines = ["", "median of %d run(s) per cell; worker RSS = mean over the cell's workers "
             "at the end of the run, the process alone" % args.runs,
             "%-8s %-7s %-8s %11s %10s %12s %15s %12s" % (
                 "workers", "format", "side", "sentences/s", "tuples/s", "complete ms",
                 "worker RSS KiB", "worker CPU s")]
    medians = {}
    for (num_workers, serializer, side), runs in sorted(cells.items()):
        if isinstance(runs, str):
            lines.append("%-8d %-7s %-8s skipped: %s" % (num_workers, serializer, side, runs))
            continue
        m = medians[num_workers, serializer, side] = {
            "sentences": median_of(runs, lambda f: f.sentences_per_sec),
            "tuples": median_of(runs, lambda f: f.tuples_per_sec),
            "complete": median_of(runs, lambda f: f.complete_ms),
            "rss": median_of(runs, lambda f: mean(f.worker_rss)),
            "cpu": median_of(runs, lambda f: sum(c for c in f.worker_cpu if c is not None))}
        lines.append("%-8d %-7s %-8s %11.0f %10.0f %12s %15.0f %12.2f" % (
            num_workers, serializer, side, m["sentences"], m["tuples"],
            "%.1f" % m["complete"] if m["complete"] is not None else "n/a", m["rss"], m["cpu"]))
    lines.append("")
    lines.append("python/java ratios (targets: throughput >= 1, worker RSS <= 0.25):")
    for num_workers in args.workers:
        for serializer in args.serializers:
            py = medians.get((num_workers, serializer, "python"))
            java = medians.get((num_workers, "json", "java"))
            if py is None or java is None:
                continue
            lines.append("  %d worker(s), python %-7s vs java json: throughput %.2f, "
                         "worker RSS %.3f, complete latency %s" % (
                             num_workers, serializer, py["tuples"] / java["tuples"],
                             py["rss"] / java["rss"],
                             "%.2f" % (py["complete"] / java["complete"])
                             if py["complete"] and java["complete"] else "n/a"))
    return lines


def bench(args):
    corpus = (CORPUS * (args.sentences // len(CORPUS) + 1))[:args.sentences]
    cells = {}
    print("pystorm word count: %d sentences (%d words), acking on, max spout pending %d, "
          "stats sample rate 1, %d run(s) per cell; python: compiled-module cache %s; java "
          "worker opts %r, worker.heap.memory.mb %d"
          % (len(corpus), sum(len(line.split()) for line in corpus), MAX_SPOUT_PENDING,
             args.runs, "on" if args.bytecode_cache else "off (the environment's setting)",
             args.java_worker_opts, JAVA_WORKER_HEAP_MB))
    print(pynimbus_build())
    sys.stdout.flush()
    with ZooKeeperServer() as zookeeper, pynimbus_target("1.x", zookeeper) as target, \
            tempfile.TemporaryDirectory(prefix="pynimbus-bench-wc-") as workdir:
        for side_class in (PythonSide, JavaSide):
            if side_class.name not in args.sides:
                continue
            side = side_class(target, zookeeper, workdir, args)
            plan = []
            for num_workers in args.workers:
                for serializer in args.serializers:
                    reason = side.unavailable_reason(serializer)
                    if reason:
                        cells[num_workers, serializer, side.name] = reason
                        print("%s %d worker(s) %s: skipped: %s"
                              % (side.name, num_workers, serializer, reason))
                    else:
                        plan.append((num_workers, serializer))
            if not plan:
                continue
            with side.running():
                for run in range(args.runs):
                    for num_workers, serializer in plan:
                        name = "wc-%s-%d-%s-%d" % (side.name, num_workers, serializer, run)
                        figures = one_run(side, target.port, workdir, name, num_workers,
                                          serializer, corpus)
                        cells.setdefault((num_workers, serializer, side.name), []).append(
                            figures)
                        print("%-6s %d worker(s) %-7s run %d: %s" % (
                            side.name, num_workers, serializer, run + 1, describe(figures)))
                        sys.stdout.flush()
    print("\n".join(summary(cells, args)))


def main():
    # a SIGTERM unwinds like Ctrl-C, so the supervisors and their workers are stopped
    signal.signal(signal.SIGTERM, lambda signum, frame: sys.exit(128 + signum))
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sentences", type=int, default=SENTENCES)
    parser.add_argument("--runs", type=int, default=RUNS)
    parser.add_argument("--sides", default="python,java", help="python, java or both")
    parser.add_argument("--serializers", default="json,msgpack")
    parser.add_argument("--workers", default="1,2", help="worker counts, e.g. 1,2")
    parser.add_argument("--no-bytecode-cache", dest="bytecode_cache", action="store_false",
                        help="run the Python side without a compiled-module cache of its own")
    parser.add_argument("--java-worker-opts", default=JAVA_WORKER_OPTS,
                        help="worker.childopts of the Java workers (%%HEAP-MEM%% is "
                             "worker.heap.memory.mb)")
    args = parser.parse_args()
    args.sides = args.sides.split(",")
    args.serializers = args.serializers.split(",")
    args.workers = [int(w) for w in args.workers.split(",")]
    bench(args)


if __name__ == "__main__":
    main()
