"""The pystorm word count with its components in process, side by side with the same
components as multilang subprocesses (JSON, msgpack) on the Python worker and on Storm 1.2.4's
Java worker.

One run, on bench/bench_worker_wordcount.py's harness (a real ZooKeeper, ``pynimbus dev`` in
1.x mode on it, then one supervisor per side with two slots: ``pynimbus supervisor`` for the
Python worker, the real Storm 1.2.4 supervisor for the Java one).  Every cell submits the same
jar and the same topology: tests/worker_topologies.py's word count (the pystorm ``sentences``
spout, ``split`` x2 shuffle, ``count`` x2 fields) with each component given as streamparse's
runner gives it (``streamparse_run -s SERIALIZER wc_split_bolt.SplitBolt``), so the Python
worker runs it in process unless ``pynimbus.worker.inprocess`` is false, and the Java worker
runs it through ``ShellBolt``/``ShellSpout`` with ``streamparse_run`` from the virtualenv (put
first on the PATH the supervisors and their workers inherit).  Conf: acking on,
``topology.max.spout.pending`` 500, ``topology.stats.sample.rate`` Storm's default 0.05 (what a
submitted topology gets; ``--sample-rate 1`` samples every tuple, a heavier stats load that
costs the in-process cell the most), the corpus of SENTENCES sentences.

Cells: python in-process; python subprocess JSON; python subprocess msgpack; java subprocess
JSON (Storm 1.2.4 has no multilang msgpack serializer: skipped with the reason, as the harness
does).  Per run it prints acked tuples per second (sentences acked, plus the words they gave,
over the time from the first counted word to the last acked sentence), whether the counts are
exact, and the CPU seconds the workers and their multilang children used meanwhile (so
tuples per CPU second); the summary gives the medians and the ratios in-process/subprocess
JSON (target >= 10) and in-process/java (target > 1) in both.  On a loaded machine the
wall-clock figure favours the subprocess cells (several processes get more of the CPUs than
one), so tuples per CPU second is the fairer comparison there.  Asserts nothing.

``--count-bolt tick`` replaces the count bolt (which appends a line to a file per counted word,
three system calls) with one that counts in memory, as streamparse's quickstart does, and
writes the counts changed at each tick tuple (every second): a word count whose own code is
light, so that the figures are more of the runtime's.

Run: ``python bench/bench_inprocess_wordcount.py [--sentences N] [--runs N] [--workers N]
[--cells python-inprocess,python-json,python-msgpack,java-json] [--count-bolt file|tick]
[--sample-rate R]``.
"""

import argparse
import copy
import json
import os
import signal
import statistics
import sys
import tempfile
import time

import bench_worker_wordcount as harness  # noqa: E402  (puts the repo and tests/ on sys.path)
from compat.oracle.targets import pynimbus_target  # noqa: E402
from test_worker_process import MSGPACK_SERIALIZER, submit  # noqa: E402
from worker_topologies import CORPUS, WORD_COUNT_SCRIPTS, expected_counts  # noqa: E402
from worker_topologies import final_counts  # noqa: E402
from worker_topologies import word_count, word_count_jar  # noqa: E402
from zookeeper_server import ZooKeeperServer  # noqa: E402
from pynimbus.generated.storm.ttypes import KillOptions, ShellComponent  # noqa: E402
from pynimbus.thrift.client import NimbusClient  # noqa: E402

VENV_BIN = os.path.dirname(sys.executable)  # where pip put streamparse_run
CELLS = ("python-inprocess", "python-json", "python-msgpack", "java-json")
# the word count's scripts and the pystorm class each runs
RUNNER_TARGETS = {"wc_sentence_spout.py": "wc_sentence_spout.SentenceSpout",
                  "wc_split_bolt.py": "wc_split_bolt.SplitBolt",
                  "wc_count_bolt.py": "wc_count_bolt.CountBolt",
                  "wc_tick_count_bolt.py": "wc_tick_count_bolt.TickCountBolt"}
# --count-bolt: the count bolt's script, and the tick frequency its component conf gets
COUNT_BOLTS = {"file": ("wc_count_bolt.py", None), "tick": ("wc_tick_count_bolt.py", 1)}
FLUSHED_DEADLINE_SECS = 30  # after the last ack, for the tick count bolt's last flush


def runner_word_count(serializer, count_bolt="file"):
    """The word count with every component run by ``streamparse_run -s serializer``, and
    the count bolt of ``count_bolt`` (a key of COUNT_BOLTS)."""
    count_script, tick_secs = COUNT_BOLTS[count_bolt]
    topology = copy.deepcopy(word_count(count_script=count_script))
    if tick_secs is not None:
        topology.bolts["count"].common.json_conf = json.dumps(
            {"topology.tick.tuple.freq.secs": tick_secs})
    for component in list(topology.spouts.values()) + list(topology.bolts.values()):
        obj = getattr(component, "spout_object", None) or component.bolt_object
        target = RUNNER_TARGETS[obj.shell.script]
        obj.shell = ShellComponent("streamparse_run", "-s %s %s" % (serializer, target))
    return topology


def cell_conf(cell, num_workers, output, acked, sample_rate):
    serializer = cell.split("-")[1]
    serializer = "json" if serializer == "inprocess" else serializer
    conf = harness.topology_conf(num_workers, serializer, output, acked)
    conf["topology.stats.sample.rate"] = sample_rate
    conf["pynimbus.worker.inprocess"] = cell == "python-inprocess"
    if serializer == "msgpack":
        conf["topology.multilang.serializer"] = MSGPACK_SERIALIZER
    return serializer, conf


def process_tree_cpu(pids):
    """``{pid: CPU seconds}`` of ``pids`` and their live children (the multilang ones)."""
    tree = set(pids) | {child for pid in pids for child in harness.children_of(pid)}
    return {pid: harness.cpu_secs(pid) for pid in tree}


def cpu_used(before, after):
    """CPU seconds the processes of ``after`` used since ``before`` (a process that started
    meanwhile: all of it)."""
    return sum(cpu - (before.get(pid) or 0) for pid, cpu in after.items() if cpu is not None)


def one_run(side, nimbus_port, workdir, name, cell, num_workers, corpus, count_bolt,
            sample_rate):
    """Submit, time and kill one word count; return (tuples/s, exact, CPU s of the workers
    and their multilang children, tuples per CPU second).  The time runs from the first
    counted word (the tick count bolt: the first acked sentence, as its counts come out only
    at ticks) to the last acked sentence."""
    output = os.path.join(workdir, name + "-counts.txt")
    acked = os.path.join(workdir, name + "-acked.txt")
    acked_size = sum(len(str(i)) + 1 for i in range(len(corpus)))
    serializer, conf = cell_conf(cell, num_workers, output, acked, sample_rate)
    with NimbusClient("127.0.0.1", nimbus_port, timeout=30) as client:
        storm_id = submit(client, name, word_count_jar(corpus, WORD_COUNT_SCRIPTS + (
            COUNT_BOLTS["tick"][0],)), runner_word_count(serializer, count_bolt), conf)
        try:
            first = acked if count_bolt == "tick" else output
            harness.wait_for(lambda: harness.file_size(first) > 0,
                             "the first count of " + name)
            started = time.monotonic()
            pids = harness.wait_for(lambda: (lambda found: len(found) == num_workers and found)(
                side.worker_pids(storm_id)), "the workers of " + name)
            cpu_at_start = process_tree_cpu(pids)
            harness.wait_for(lambda: harness.file_size(acked) >= acked_size,
                             "every sentence of %s acked" % name)
            elapsed = time.monotonic() - started
            cpu = cpu_used(cpu_at_start, process_tree_cpu(pids))
            tuples = len(corpus) + sum(len(line.split()) for line in corpus)
            exact = counts_reached(output, expected_counts(corpus),
                                   FLUSHED_DEADLINE_SECS if count_bolt == "tick" else 0)
        finally:
            client.killTopologyWithOpts(name, KillOptions(wait_secs=0))
    harness.wait_for(lambda: not side.worker_pids(storm_id),
                     "the workers of %s to stop" % name, 60)
    return tuples / elapsed, exact, cpu, tuples / cpu


def counts_reached(output, expected, deadline_secs):
    """Whether the count bolt's output holds ``expected``, within ``deadline_secs``."""
    try:
        harness.wait_for(lambda: final_counts(output)[0] == expected, "the final counts",
                         deadline_secs, 0.1)
    except RuntimeError:
        return False
    return True


def summary(results):
    lines = ["", "medians per cell: acked tuples/s (sentences + words, first count to last "
             "ack), CPU s of the workers and their multilang children, tuples per CPU s:"]
    medians = {}
    for cell in CELLS:
        runs = results.get(cell)
        if isinstance(runs, str):
            lines.append("  %-17s skipped: %s" % (cell, runs))
        elif runs:
            medians[cell] = (statistics.median(r[0] for r in runs),
                             statistics.median(r[3] for r in runs))
            lines.append("  %-17s %9.0f tuples/s  CPU %6.2f s  %9.0f tuples/CPU s  counts %s"
                         % (cell, medians[cell][0], statistics.median(r[2] for r in runs),
                            medians[cell][1], "exact" if all(r[1] for r in runs) else "WRONG"))
    inprocess = medians.get("python-inprocess")
    if inprocess:
        lines.append("python-inprocess over each (targets: >= 10 over python-json, > 1 over "
                     "java-json), in tuples/s and in tuples per CPU s:")
        for cell in CELLS[1:]:
            if cell in medians:
                lines.append("  vs %-17s %5.1fx  %5.1fx" % (
                    cell, inprocess[0] / medians[cell][0], inprocess[1] / medians[cell][1]))
    return lines


def bench(args):
    os.environ["PATH"] = VENV_BIN + os.pathsep + os.environ.get("PATH", "")
    corpus = (CORPUS * (args.sentences // len(CORPUS) + 1))[:args.sentences]
    print("pystorm word count by streamparse_run: %d sentences (%d words), count bolt %s, "
          "%d worker(s), acking on, max spout pending %d, stats sample rate %g, %d run(s) per "
          "cell; noisy shared machine: compare medians"
          % (len(corpus), sum(len(line.split()) for line in corpus), args.count_bolt,
             args.workers, harness.MAX_SPOUT_PENDING, args.sample_rate, args.runs))
    print(harness.pynimbus_build())
    sys.stdout.flush()
    results = {}
    with ZooKeeperServer() as zookeeper, pynimbus_target("1.x", zookeeper) as target, \
            tempfile.TemporaryDirectory(prefix="pynimbus-bench-inproc-") as workdir:
        for side_class in (harness.PythonSide, harness.JavaSide):
            cells = [c for c in args.cells if c.startswith(side_class.name + "-")]
            if not cells:
                continue
            side = side_class(target, zookeeper, workdir, args)
            runnable = []
            for cell in cells:
                reason = side.unavailable_reason(cell.split("-")[1])
                if reason:
                    results[cell] = reason
                    print("%s: skipped: %s" % (cell, reason))
                else:
                    runnable.append(cell)
            if not runnable:
                continue
            with side.running():
                for run in range(args.runs):
                    for cell in runnable:
                        name = "inproc-%s-%d" % (cell, run)
                        figures = one_run(side, target.port, workdir, name, cell,
                                          args.workers, corpus, args.count_bolt,
                                          args.sample_rate)
                        results.setdefault(cell, []).append(figures)
                        print("%-17s run %d: %8.0f tuples/s  counts %s  CPU %.2f s  "
                              "%8.0f tuples/CPU s" % (cell, run + 1, figures[0],
                                                      "exact" if figures[1] else "WRONG",
                                                      figures[2], figures[3]))
                        sys.stdout.flush()
    print("\n".join(summary(results)))


def main():
    signal.signal(signal.SIGTERM, lambda signum, frame: sys.exit(128 + signum))
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sentences", type=int, default=harness.SENTENCES)
    parser.add_argument("--runs", type=int, default=harness.RUNS)
    parser.add_argument("--workers", type=int, default=1)
    parser.add_argument("--sample-rate", type=float, default=0.05,
                        help="topology.stats.sample.rate of every cell (default: Storm's)")
    parser.add_argument("--cells", default=",".join(CELLS))
    parser.add_argument("--count-bolt", choices=sorted(COUNT_BOLTS), default="file",
                        help="file: a line per counted word (wc_count_bolt.py); tick: counts "
                        "in memory, the changed ones written at each tick, every second "
                        "(wc_tick_count_bolt.py)")
    parser.add_argument("--no-bytecode-cache", dest="bytecode_cache", action="store_false")
    parser.add_argument("--java-worker-opts", default=harness.JAVA_WORKER_OPTS)
    args = parser.parse_args()
    args.cells = [c for c in args.cells.split(",") if c]
    unknown = set(args.cells) - set(CELLS)
    if unknown:
        parser.error("unknown cells %s; the cells are %s" % (sorted(unknown), ", ".join(CELLS)))
    bench(args)


if __name__ == "__main__":
    main()
