"""Trident word count on Python workers and, side by side, on Storm 1.2.4's Java workers.

The program (both sides the same): a cycling ``FixedBatchSpout`` over CORPUS_ROWS sentences
(tests/compat/java ``SentenceSpout``'s five, repeated in order: 6 words a sentence on
average), split on " ", group_by(word), persistent_aggregate(Count) into a ``MemoryMapState``
at ``--parallelism``; no DRPC.  Python: bench/trident_wordcount_program.py, planned here and
again in each worker (its parameters travel in ``topology.environment``), submitted with its
module in the jar's ``resources/``.  Java: tests/compat/java ``TridentWordCountBench``
(compiled against storm-core 1.2.4 by tests/compat/topology_jars.py), submitted with the stock
``storm jar`` client.

The cluster is bench_worker_wordcount.py's: a real ZooKeeper, ``pynimbus dev`` in 1.x mode on
it without a supervisor of its own, then for each side in turn one supervisor with two slots
(python: ``pynimbus supervisor``, its workers ``python -m pynimbus.worker``; java: the real
Storm 1.2.4 supervisor, its workers JVMs with Storm's default heap, ``--java-worker-opts``).
Both supervisors and the topologies have ``task.heartbeat.frequency.secs`` 1 (the period at
which the workers write their statistics to ZooKeeper; 3 s upstream), nothing else differs.

Each cell (side, workers 1 or 2, batch size) submits with the same conf on both sides:
``topology.workers``, ``topology.stats.sample.rate`` 1 (every tuple counted),
``topology.trident.batch.emit.interval.millis`` ``--emit-interval-ms`` (1, the least Storm
takes: its ``WindowedTimeThrottler``, ported as is, then lets a batch start at most every 2 ms,
so 500 batches/s is a ceiling on both sides),
``topology.max.spout.pending`` ``--max-pending`` batches in flight (1 for a batch size of 1),
Trident's transactional state in the cluster's ZooKeeper, acking on (one acker per worker).

**What is measured, identically for both sides**: after the first batch commits and
``--warmup`` seconds more, the number of batches acked on the master coordinator's
``$commit`` stream (``$mastercoord-bg0``'s spout stats, all-time, from Nimbus's
``getTopologyInfo``) is polled every ``--poll`` seconds for ``--window`` seconds; the count
changes when a worker's heartbeat lands (about each second), and batches/s is the count's
increase from its first change in the window to its last over the time between them (so
the heartbeat period does not skew it; the poll interval bounds the timing error).
sentences/s = batches/s x the sentences of a batch (batch size, averaged over a cycle of the
corpus when the batch size does not divide CORPUS_ROWS: FixedBatchSpout does not wrap within
a batch), tuples/s = words counted per second = batches/s x the words of a batch.  Per worker
process alone (at the end of the window): resident memory (VmRSS), its peak (VmHWM), the CPU
it used in the window (cores); for Java each LogWriter JVM's RSS apart.  Batch size 1 with one
batch in flight gives the coordination overhead: ms per batch = 1000 / batches/s, the end to
end time of a one-tuple batch (coordinator, spout coordinator, spout, split, the grouped
count and its commit, the acks between them).  Failed batches (all-time, ``$batch`` +
``$commit``) are printed: a failing cell's figures mean little.

The summary gives each cell's median over ``--runs`` and the ratios python/java (targets:
tuples/s >= 0.5 at batch 1000 in one worker, worker RSS <= 0.25).  The machine's load adds
noise: compare medians, and rerun on a quiet machine for figures to quote.  Asserts nothing.

Run: ``python bench/bench_trident_wordcount.py [--sides python,java] [--workers 1,2]
[--batch-sizes 1,100,1000] [--window 20] [--warmup 10] [--runs 1]`` (java needs Java 17, mvn
and the Storm jars, e.g. cached in ``.cache/``; without them the java cells are skipped with
the reason).
"""

import argparse
import collections
import contextlib
import math
import os
import signal
import subprocess
import sys
import tempfile
import time

BENCH_DIR = os.path.dirname(os.path.abspath(__file__))
REPO_ROOT = os.path.dirname(BENCH_DIR)
sys.path.append(REPO_ROOT)
sys.path.insert(0, os.path.join(REPO_ROOT, "tests"))

import bench_worker_wordcount as wc  # noqa: E402
import trident_wordcount_program as program  # noqa: E402
from compat import real_storm, topology_jars  # noqa: E402
from compat.oracle import maven  # noqa: E402
from compat.oracle.targets import pynimbus_target  # noqa: E402
from test_worker_process import submit  # noqa: E402
from zookeeper_server import ZooKeeperServer  # noqa: E402
from pynimbus.generated.storm.ttypes import KillOptions  # noqa: E402
from pynimbus.thrift.client import NimbusClient  # noqa: E402
from pynimbus.tools.topology_jar import build_topology_jar  # noqa: E402

PROGRAM_MODULE = "trident_wordcount_program"
PROGRAM = PROGRAM_MODULE + ":topology"
JAVA_MAIN = topology_jars.PACKAGE + ".TridentWordCountBench"
MASTER_COORDINATOR = "$mastercoord-bg0"
COMMIT_STREAM = "$commit"
BATCH_STREAM = "$batch"
HEARTBEAT_SECS = 1
START_TIMEOUT = 180
CORPUS_ROWS = 1000
# the modules a Trident worker imports beyond bench_worker_wordcount's WORKER_MODULES,
# compiled into the run's cache before the first worker starts
TRIDENT_MODULES = ("pynimbus.trident", "pynimbus.trident.builtin",
                   "pynimbus.worker.trident.program", "pynimbus.worker.trident.transactional_state",
                   "pynimbus.worker.trident.hosts")

Figures = collections.namedtuple(
    "Figures", "batches_per_sec sentences_per_sec words_per_sec ms_per_batch failed "
               "beat_secs startup_secs executed_per_batch worker_rss worker_hwm worker_cores "
               "children_rss log_writer_rss")


class PythonSide(wc.PythonSide):
    """bench_worker_wordcount's Python side, its statistics written each second and the
    Trident modules compiled beforehand too."""

    def __init__(self, target, zookeeper, workdir, args):
        super().__init__(target, zookeeper, workdir, args)
        self.supervisor.options.append("task.heartbeat.frequency.secs=%d" % HEARTBEAT_SECS)
        self.jar = None

    @contextlib.contextmanager
    def running(self):
        if self.env:
            subprocess.run([sys.executable, "-c", "import " + ", ".join(TRIDENT_MODULES)],
                           env=dict(os.environ, **self.env), cwd=REPO_ROOT, check=True)
        with super().running():
            yield self

    def submit(self, client, nimbus_port, workdir, name, cell, conf, params):
        """Plan the program with ``params`` (as the workers will, from topology.environment)
        and submit it with its jar; return the storm id."""
        if self.jar is None:
            jar_path = os.path.join(workdir, "trident-wordcount.jar")
            build_topology_jar(BENCH_DIR, jar_path, PROGRAM_MODULE)
            with open(jar_path, "rb") as f:
                self.jar = f.read()
        saved = {k: os.environ.get(k) for k in params}
        os.environ.update(params)
        try:
            topology = program.topology().build(PROGRAM).topology
        finally:
            for k, v in saved.items():
                if v is None:
                    os.environ.pop(k, None)
                else:
                    os.environ[k] = v
        return submit(client, name, self.jar, topology,
                      dict(conf, **{"topology.environment": params}))


class JavaSide(wc.JavaSide):
    """bench_worker_wordcount's Java side (statistics each second); the program is
    ``TridentWordCountBench``, submitted with ``storm jar``."""

    def __init__(self, target, zookeeper, workdir, args):
        super().__init__(target, zookeeper, workdir, args)
        self.jar = None
        if self.supervisor is not None:
            self.supervisor.conf["task.heartbeat.frequency.secs"] = HEARTBEAT_SECS
            try:
                self.jar = topology_jars.topology_jar(maven.STORM_1X)
            except maven.MavenUnavailable as e:
                self.reason = "the Java program cannot be built: %s" % e

    def submit(self, client, nimbus_port, workdir, name, cell, conf, params):
        args = [name, str(cell.workers), params[program.BATCH_SIZE],
                params[program.PARALLELISM], params[program.CORPUS_ROWS]]
        options = {k: v for k, v in conf.items() if k != "topology.workers"}
        real_storm.storm_jar(maven.STORM_1X, nimbus_port,
                             os.path.join(workdir, "client-conf-" + name),
                             real_storm.Topology(self.jar, JAVA_MAIN, args, options, None))
        return next(t.id for t in client.getClusterInfo().topologies if t.name == name)


Cell = collections.namedtuple("Cell", "workers batch_size")


def cell_params(cell, args):
    return {program.BATCH_SIZE: str(cell.batch_size),
            program.PARALLELISM: str(args.parallelism),
            program.CORPUS_ROWS: str(args.corpus_rows)}


def max_pending(cell, args):
    return 1 if cell.batch_size == 1 else args.max_pending


def topology_conf(cell, args, target):
    conf = {"topology.workers": cell.workers,
            "topology.stats.sample.rate": 1.0,
            # a Python worker takes it from the topology conf (into which Nimbus merges its
            # own, 3 s), a Java worker from its storm.yaml: both get 1 s
            "task.heartbeat.frequency.secs": HEARTBEAT_SECS,
            "topology.max.spout.pending": max_pending(cell, args),
            "topology.trident.batch.emit.interval.millis": args.emit_interval_ms,
            "transactional.zookeeper.root":
                target.cluster_conf["storm.zookeeper.root"] + "/transactional"}
    # Storm 1.2.4's ZooKeeper client cannot take an address literal on Java 14+: the name the
    # Java workers' hosts file resolves (tests/compat/test_real_topologies.py); both sides
    conf["transactional.zookeeper.servers"] = ["localhost"]
    return conf


def batch_shape(batch_size, corpus_rows):
    """(sentences, words) of a batch, averaged over a cycle of the corpus."""
    sentences = program.corpus(corpus_rows)
    batches = math.ceil(corpus_rows / batch_size)
    words = sum(len(s.split(" ")) for s in sentences)
    return corpus_rows / batches, words / batches


def coordinator_stats(client, storm_id, info=None):
    """(batches committed, batches failed) all-time, of the master coordinator's spout stats."""
    committed = failed = 0
    info = info or client.getTopologyInfo(storm_id)
    for e in info.executors:
        if e.component_id != MASTER_COORDINATOR or e.stats is None or e.stats.specific is None:
            continue
        spout = e.stats.specific.spout
        if spout is None:
            continue
        committed += (spout.acked or {}).get(":all-time", {}).get(COMMIT_STREAM, 0)
        fails = (spout.failed or {}).get(":all-time", {})
        failed += fails.get(COMMIT_STREAM, 0) + fails.get(BATCH_STREAM, 0)
    return committed, failed


def executed_per_batch(client, storm_id):
    """``{bolt: tuples executed per committed batch}`` (all-time, the data streams only, not
    Trident's ``$``-streams nor the acker's): a check that the batches hold what the figures
    assume (the split's bolt executes the sentences of a batch; the count's, past the groupBy,
    a partial count per distinct word of the batch, as Storm combines a CombinerAggregator
    before the repartition)."""
    info = client.getTopologyInfo(storm_id)
    committed = coordinator_stats(client, storm_id, info)[0]
    executed = collections.Counter()
    for e in info.executors:
        bolt = e.stats.specific.bolt if e.stats and e.stats.specific else None
        if bolt is None:
            continue
        for stream, count in (bolt.executed or {}).get(":all-time", {}).items():
            if not stream.streamId.startswith(("$", "__")):
                executed[e.component_id] += count
    return {c: n / committed for c, n in sorted(executed.items())} if committed else {}


def one_run(side, target, workdir, name, cell, args):
    """Submit, measure over the window and kill one cell on ``side``; return its Figures."""
    params = cell_params(cell, args)
    with NimbusClient("127.0.0.1", target.port, timeout=30) as client:
        submitted = time.monotonic()
        storm_id = side.submit(client, target.port, workdir, name, cell,
                               topology_conf(cell, args, target), params)
        try:
            wc.wait_for(lambda: coordinator_stats(client, storm_id)[0] > 0,
                        "the first batch of %s committed" % name, START_TIMEOUT, 0.25)
            startup = time.monotonic() - submitted
            time.sleep(args.warmup)
            pids = wc.wait_for(lambda: (lambda found: len(found) == cell.workers and found)(
                side.worker_pids(storm_id)), "the workers of " + name, 30)
            changes = []  # (time, committed, cpu of each worker) at each change of the count
            last = None
            end = time.monotonic() + args.window
            while time.monotonic() < end:
                committed, _ = coordinator_stats(client, storm_id)
                now = time.monotonic()
                if committed != last:
                    changes.append((now, committed, [wc.cpu_secs(pid) for pid in pids]))
                    last = committed
                time.sleep(args.poll)
            failed = coordinator_stats(client, storm_id)[1]
            figures = measured(changes[1:], cell, args, failed, startup)
            figures = figures._replace(
                executed_per_batch=executed_per_batch(client, storm_id),
                worker_rss=[wc.proc_status(pid, "VmRSS") for pid in pids],
                worker_hwm=[wc.proc_status(pid, "VmHWM") for pid in pids],
                children_rss=sorted(wc.proc_status(child, "VmRSS") or 0
                                    for pid in pids for child in wc.children_of(pid)),
                log_writer_rss=[wc.proc_status(pid, "VmRSS")
                                for pid in side.log_writer_pids(pids)])
        finally:
            client.killTopologyWithOpts(name, KillOptions(wait_secs=0))
    wc.wait_for(lambda: not side.worker_pids(storm_id), "the workers of %s to stop" % name, 60)
    return figures


def measured(changes, cell, args, failed, startup):
    """Figures from the changes of the committed count seen in the window (the first poll's
    value is left out: it may be an old heartbeat)."""
    none = Figures(None, None, None, None, failed, None, startup, {}, [], [], [], [], [])
    if len(changes) < 2:
        return none
    (t0, c0, cpu0), (t1, c1, cpu1) = changes[0], changes[-1]
    if c1 <= c0 or t1 <= t0:
        return none
    batches = (c1 - c0) / (t1 - t0)
    sentences, words = batch_shape(cell.batch_size, args.corpus_rows)
    cores = [(b - a) / (t1 - t0) if a is not None and b is not None else None
             for a, b in zip(cpu0, cpu1)]
    return none._replace(batches_per_sec=batches, sentences_per_sec=batches * sentences,
                         words_per_sec=batches * words, ms_per_batch=1000.0 / batches,
                         beat_secs=(t1 - t0) / (len(changes) - 1), worker_cores=cores)


def fmt(value, spec):
    return spec % value if value is not None else "n/a"


def describe(figures):
    return ("%s batches/s %s sentences/s %s tuples/s  %s ms/batch  failed %d  (count changed "
            "each %s s; first commit %.1f s after submit)  executed per batch: %s  "
            "worker RSS %s KiB (peak %s)  "
            "worker CPU %s cores%s%s" % (
                fmt(figures.batches_per_sec, "%.1f"), fmt(figures.sentences_per_sec, "%.0f"),
                fmt(figures.words_per_sec, "%.0f"), fmt(figures.ms_per_batch, "%.2f"),
                figures.failed, fmt(figures.beat_secs, "%.2f"), figures.startup_secs,
                " ".join("%s %.0f" % kv for kv in figures.executed_per_batch.items()),
                figures.worker_rss, figures.worker_hwm,
                ["%.2f" % c for c in figures.worker_cores if c is not None],
                "  children RSS %s KiB" % figures.children_rss if figures.children_rss else "",
                "  LogWriter RSS %s KiB" % figures.log_writer_rss
                if figures.log_writer_rss else ""))


def summary(cells, args):
    """The median per cell and the python/java ratios, as printed lines."""
    lines = ["", "median of %d run(s) per cell; tuples/s = words counted per second; worker "
             "RSS = mean over the cell's workers at the end of the window, the process alone; "
             "worker CPU = cores used by all the cell's workers" % args.runs,
             "%-8s %-6s %-7s %10s %12s %10s %9s %7s %15s %10s" % (
                 "workers", "batch", "side", "batches/s", "sentences/s", "tuples/s",
                 "ms/batch", "failed", "worker RSS KiB", "CPU cores")]
    medians = {}
    for (cell, side), runs in sorted(cells.items()):
        if isinstance(runs, str):
            lines.append("%-8d %-6d %-7s skipped: %s" % (cell.workers, cell.batch_size, side,
                                                         runs))
            continue
        m = medians[cell, side] = {
            "batches": wc.median_of(runs, lambda f: f.batches_per_sec),
            "sentences": wc.median_of(runs, lambda f: f.sentences_per_sec),
            "words": wc.median_of(runs, lambda f: f.words_per_sec),
            "ms": wc.median_of(runs, lambda f: f.ms_per_batch),
            "failed": wc.median_of(runs, lambda f: f.failed),
            "rss": wc.median_of(runs, lambda f: wc.mean(f.worker_rss)),
            "cores": wc.median_of(runs, lambda f: sum(c for c in f.worker_cores
                                                      if c is not None) or None)}
        lines.append("%-8d %-6d %-7s %10s %12s %10s %9s %7s %15s %10s" % (
            cell.workers, cell.batch_size, side, fmt(m["batches"], "%.1f"),
            fmt(m["sentences"], "%.0f"), fmt(m["words"], "%.0f"), fmt(m["ms"], "%.2f"),
            fmt(m["failed"], "%d"), fmt(m["rss"], "%.0f"), fmt(m["cores"], "%.2f")))
    lines.append("")
    lines.append("python/java ratios (targets: tuples/s >= 0.5 at batch 1000 in one worker, "
                 "worker RSS <= 0.25; ms/batch at batch 1 is the coordination overhead):")
    for cell in sorted({c for c, _ in cells}):
        py, java = medians.get((cell, "python")), medians.get((cell, "java"))
        if py is None or java is None:
            continue

        def ratio(key):
            return ("%.2f" % (py[key] / java[key])
                    if py[key] is not None and java[key] else "n/a")
        lines.append("  %d worker(s), batch %4d: tuples/s %s, batches/s %s, ms/batch %s, "
                     "worker RSS %s" % (cell.workers, cell.batch_size, ratio("words"),
                                        ratio("batches"), ratio("ms"),
                                        "%.3f" % (py["rss"] / java["rss"])
                                        if py["rss"] and java["rss"] else "n/a"))
    return lines


def bench(args):
    plan = [Cell(w, b) for w in args.workers for b in args.batch_sizes]
    cells = {}
    sentences, words = batch_shape(1, args.corpus_rows)
    print("Trident word count: a cycling FixedBatchSpout over %d sentences (%.1f words a "
          "sentence), split, group_by, persistent_aggregate(Count) into a MemoryMapState at "
          "parallelism %d; emit interval %d ms, max spout pending %d (1 at batch size 1), "
          "stats sample rate 1, stats heartbeat each %d s; warm-up %.0f s, window %.0f s, "
          "poll %.2f s, %d run(s) per cell; python: compiled-module cache %s; java worker "
          "opts %r, worker.heap.memory.mb %d"
          % (args.corpus_rows, words / sentences, args.parallelism, args.emit_interval_ms,
             args.max_pending, HEARTBEAT_SECS, args.warmup, args.window, args.poll,
             args.runs, "on" if args.bytecode_cache else "off (the environment's setting)",
             args.java_worker_opts, wc.JAVA_WORKER_HEAP_MB))
    print(wc.pynimbus_build())
    sys.stdout.flush()
    with ZooKeeperServer() as zookeeper, pynimbus_target("1.x", zookeeper) as target, \
            tempfile.TemporaryDirectory(prefix="pynimbus-bench-twc-") as workdir:
        for side_class in (PythonSide, JavaSide):
            if side_class.name not in args.sides:
                continue
            side = side_class(target, zookeeper, workdir, args)
            reason = side.unavailable_reason("json")
            if reason:
                for cell in plan:
                    cells[cell, side.name] = reason
                print("%s: skipped: %s" % (side.name, reason))
                continue
            with side.running():
                for run in range(args.runs):
                    for cell in plan:
                        name = "twc-%s-w%d-b%d-%d" % (side.name, cell.workers, cell.batch_size,
                                                      run)
                        try:
                            figures = one_run(side, target, workdir, name, cell, args)
                        except (RuntimeError, real_storm.RealStormError) as e:
                            print("%-6s %d worker(s) batch %4d run %d: FAILED: %s"
                                  % (side.name, cell.workers, cell.batch_size, run + 1, e))
                            sys.stdout.flush()
                            continue
                        cells.setdefault((cell, side.name), []).append(figures)
                        print("%-6s %d worker(s) batch %4d run %d: %s" % (
                            side.name, cell.workers, cell.batch_size, run + 1,
                            describe(figures)))
                        sys.stdout.flush()
    print("\n".join(summary(cells, args)))


def int_list(text):
    return [int(v) for v in text.split(",")]


def main():
    # a SIGTERM unwinds like Ctrl-C, so the supervisors and their workers are stopped
    signal.signal(signal.SIGTERM, lambda signum, frame: sys.exit(128 + signum))
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sides", default="python,java", help="python, java or both")
    parser.add_argument("--workers", type=int_list, default=[1, 2],
                        help="worker counts, e.g. 1,2")
    parser.add_argument("--batch-sizes", type=int_list, default=[1, 100, 1000],
                        help="FixedBatchSpout batch sizes (1: the coordination overhead)")
    parser.add_argument("--window", type=float, default=20.0, help="seconds measured")
    parser.add_argument("--warmup", type=float, default=10.0,
                        help="seconds after the first commit before the window")
    parser.add_argument("--runs", type=int, default=1)
    parser.add_argument("--poll", type=float, default=0.25,
                        help="seconds between two reads of the statistics")
    parser.add_argument("--max-pending", type=int, default=5,
                        help="topology.max.spout.pending: batches in flight (batch size > 1)")
    parser.add_argument("--emit-interval-ms", type=int, default=1,
                        help="topology.trident.batch.emit.interval.millis")
    parser.add_argument("--parallelism", type=int, default=2,
                        help="the persistent aggregate's parallelism")
    parser.add_argument("--corpus-rows", type=int, default=CORPUS_ROWS,
                        help="sentences the spout cycles over")
    parser.add_argument("--no-bytecode-cache", dest="bytecode_cache", action="store_false",
                        help="run the Python side without a compiled-module cache of its own")
    parser.add_argument("--java-worker-opts", default=wc.JAVA_WORKER_OPTS,
                        help="worker.childopts of the Java workers (%%HEAP-MEM%% is "
                             "worker.heap.memory.mb)")
    args = parser.parse_args()
    args.sides = args.sides.split(",")
    bench(args)


if __name__ == "__main__":
    main()
