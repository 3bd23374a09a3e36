"""The in-process word count's executors driven in this process: the worker's hot path alone
(executor routing, message ids, acker, spout pending, stats, the in-process components), with
no ZooKeeper, no supervisor and no transport.

A ``WorkerDaemon`` builds the executors of the pystorm word count (tests/worker_topologies.py,
every component by ``streamparse_run``, so each runs in process: ``sentences`` spout, ``split``
x2, ``count`` x2, one acker) exactly as a worker does, on a ``task.Clock`` reactor that the
loop here advances until every sentence is acked (the clock's time stands still; stats read
the wall clock).  Conf: acking on, max spout pending 500, ``topology.stats.sample.rate`` as
given (Storm's 0.05 by default; the end-to-end bench uses 1).  The count bolt writes each
count to a file, as in the end-to-end bench.

The collector is settled as a running worker settles it (``settle_garbage_collector``)
unless ``--gc default``.  Prints, per run, acked tuples per second (sentences plus the words
they gave) and the process time per tuple; then the median, the median CPU time per tuple
of the components' own code run with no runtime at all (``components_alone``: the floor under
any runtime's figure), of that code with the least bookkeeping Storm's semantics need,
written inline (``least_runtime``: what a runtime with no framework cost would spend), and of
it on the worker's own pure parts (groupers, ids, acker, spout pending, stats) with the
executors' layers written inline as one loop (``pure_parts_inline``: what fusing those layers
could gain at best).  ``--only`` runs one of them alone, for a profiler or callgrind;
``--profile`` prints a cProfile of one more run instead.
Asserts nothing but the counts (and, inline, that every tree completed).

Run: ``python bench/bench_inprocess_executors.py [--sentences N] [--runs N]
[--sample-rate R] [--gc worker|default] [--profile] [--only worker|alone|least|inline]``.
Instructions per tuple, whatever the machine's load: ``valgrind --tool=callgrind
--callgrind-out-file=/dev/null`` of ``--only X --runs 1 --sentences 500`` and ``1500``, the
difference over the 7,400 tuples of 1,000 sentences.
"""

import argparse
import collections
import cProfile
import os
import pstats
import random
import statistics
import sys
import tempfile
import time

from twisted.internet import task

import bench_worker_wordcount as harness  # noqa: F401,E402  (puts the repo and tests/ on sys.path)
from bench_inprocess_wordcount import runner_word_count  # noqa: E402
from worker_topologies import COMPONENTS_DIR, CORPUS, WORD_COUNT_SCRIPTS  # noqa: E402
from pynimbus.clojure_port.normalize import normalize_topology  # noqa: E402
from pynimbus.clojure_port.system_topology import system_topology  # noqa: E402
from pynimbus.clojure_port.tasks import storm_task_info  # noqa: E402
from pynimbus.common.config import default_config  # noqa: E402
from pynimbus.worker.acker import Acker  # noqa: E402
from pynimbus.worker.daemon import (  # noqa: E402
    WorkerDaemon, millis_clock, settle_garbage_collector)
from pynimbus.worker.executor import TupleImpl  # noqa: E402
from pynimbus.worker.groupings import (  # noqa: E402
    FieldsGrouper, mk_grouper_context, mk_shuffle_grouper)
from pynimbus.worker.inprocess.selection import inprocess_component_classes  # noqa: E402
from pynimbus.worker.message_id import MessageId, mk_id_source  # noqa: E402
from pynimbus.worker.spout_pending import SpoutPending  # noqa: E402
from pynimbus.worker.stats import BoltStatsCollector, SpoutStatsCollector  # noqa: E402


def resources_dir(workdir, sentences):
    """The jar's resources/: the word count's scripts and a corpus of ``sentences`` lines."""
    path = os.path.join(workdir, "resources")
    os.makedirs(path)
    for script in WORD_COUNT_SCRIPTS:
        with open(os.path.join(COMPONENTS_DIR, script)) as f, \
                open(os.path.join(path, script), "w") as out:
            out.write(f.read())
    corpus = (CORPUS * (sentences // len(CORPUS) + 1))[:sentences]
    with open(os.path.join(path, "corpus.txt"), "w") as f:
        f.write("".join(line + "\n" for line in corpus))
    return path, corpus


class DrivenWorker(WorkerDaemon):
    """A worker whose resources, conf and topology are given, not read from a supervisor."""

    def __init__(self, reactor, conf, resources):
        super().__init__(reactor, {"storm.local.dir": os.path.dirname(resources)}, "wordcount-1-1", "supervisor", 6700, "0a1b2c3d-0000-4000-8000-000000000000", None,
                         clock=time.time)
        self._resources = resources
        self.conf, self.compat = conf, "1.x"
        self.user_topology = normalize_topology(conf, runner_word_count("json"), "1.x")
        self.system_topology = system_topology(conf, self.user_topology, "1.x")
        self.task_to_component = storm_task_info(self.user_topology, conf, "1.x")
        tasks = sorted(self.task_to_component)
        self.executor_ids = [(t, t) for t in tasks]
        self.inprocess_classes = inprocess_component_classes(
            conf, self._my_shell_commands(), resources, self._child_env())
        self._build_executors(None)

    def _resources_dir(self):
        return self._resources

    def throttled(self):
        return False

    def room_again(self):
        pass


def one_run(sentences, sample_rate, workdir, name, gc_mode="worker"):
    resources, corpus = resources_dir(os.path.join(workdir, name), sentences)
    output, acked = (os.path.join(workdir, name + ext) for ext in ("-counts", "-acked"))
    conf = dict(default_config(), **{
        "topology.name": "wordcount", "topology.acker.executors": 1,
        "topology.max.spout.pending": 500, "topology.stats.sample.rate": sample_rate,
        "topology.environment": {"WORDCOUNT_OUTPUT": output, "WORDCOUNT_ACKED": acked}})
    sys.modules.pop("wc_sentence_spout", None)
    sys.modules.pop("wc_split_bolt", None)
    sys.modules.pop("wc_count_bolt", None)
    sys.path[:] = [p for p in sys.path if not p.endswith("/resources")]
    reactor = task.Clock()
    worker = DrivenWorker(reactor, conf, resources)
    assert len(worker.inprocess_classes) == 3, worker.inprocess_classes
    if gc_mode == "worker":
        settle_garbage_collector()  # as run_worker does once the worker runs
    for executor in worker.executors:
        launch = getattr(executor, "launch_children", None)
        if launch is not None:
            launch()
    words = sum(len(line.split()) for line in corpus)
    acked_size = sum(len(str(i)) + 1 for i in range(sentences))  # "<index>\n" per sentence
    started_wall, started_cpu = time.perf_counter(), time.process_time()
    for spout in worker._spouts:
        spout.children_ready()
        spout.set_active(True)
    for _ in range(100 * (sentences + words)):
        if not reactor.getDelayedCalls():
            break
        if os.path.exists(acked) and os.path.getsize(acked) >= acked_size:
            break
        reactor.advance(min(c.getTime() for c in reactor.getDelayedCalls()) - reactor.seconds())
    wall, cpu = time.perf_counter() - started_wall, time.process_time() - started_cpu
    for executor in worker.executors:
        executor.stop()
    counts = collections.Counter()
    with open(output) as f:
        last = {}
        for line in f:
            task_id, word, count = line.split()
            last[(task_id, word)] = int(count)
    for (_task, word), count in last.items():
        counts[word] += count
    exact = counts == collections.Counter(w for line in corpus for w in line.split())
    return (sentences + words) / wall, cpu / (sentences + words) * 1e6, exact


def word_count_modules(sentences, workdir, name):
    """The word count's spout, split and count modules, imported afresh from a resources
    directory of ``sentences`` lines, their output files under ``workdir``."""
    resources, _corpus = resources_dir(os.path.join(workdir, name), sentences)
    os.environ["WORDCOUNT_OUTPUT"] = os.path.join(workdir, name + "-counts")
    os.environ["WORDCOUNT_ACKED"] = os.path.join(workdir, name + "-acked")
    for module in ("wc_sentence_spout", "wc_split_bolt", "wc_count_bolt"):
        sys.modules.pop(module, None)
    sys.path.insert(0, resources)
    try:
        import wc_count_bolt
        import wc_sentence_spout
        import wc_split_bolt
    finally:
        sys.path.remove(resources)
    return wc_sentence_spout, wc_split_bolt, wc_count_bolt


def components_alone(sentences, workdir, name):
    """The word count's own code with no runtime at all: the spout's ``next_tuple`` and
    ``ack``, the split and count bolts' ``process`` on pystorm ``Tuple``s of namedtuple values,
    emits caught in a list, one task each.  Returns CPU microseconds per tuple: what any
    runtime must spend on top of its own work, the floor of the in-process figure."""
    from pystorm.component import Tuple

    wc_sentence_spout, wc_split_bolt, wc_count_bolt = word_count_modules(
        sentences, workdir, name)
    sentence_values = collections.namedtuple("SentencesDefaultTuple", "sentence")
    word_values = collections.namedtuple("SplitDefaultTuple", "word")
    spout = object.__new__(wc_sentence_spout.SentenceSpout)
    split = object.__new__(wc_split_bolt.SplitBolt)
    count = object.__new__(wc_count_bolt.CountBolt)
    spout.initialize({}, {})
    count.initialize({}, {"taskid": 4})
    spouted, words = [], []
    spout.emit = lambda tup, tup_id=None, **kwargs: spouted.append((tup, tup_id))
    split.emit = lambda tup, **kwargs: words.append(tup)
    tuples = 0
    started = time.process_time()
    for i in range(sentences):
        spout.next_tuple()
        (values, tup_id), = spouted
        spouted.clear()
        split.process(Tuple(str(i), "sentences", "default", 1, sentence_values(*values)))
        for word in words:
            count.process(Tuple(str(i), "split", "default", 2, word_values(*word)))
        tuples += 1 + len(words)
        words.clear()
        spout.ack(tup_id)
    return (time.process_time() - started) / tuples * 1e6


def least_runtime(sentences, workdir, name):
    """The word count's own code plus the least bookkeeping any Python runtime keeping
    Storm's semantics must add to it, written inline with no framework: two tasks per bolt
    (split by shuffle, count by a fields grouping on ``hash``), a pystorm ``Tuple`` of
    namedtuple values per input, every emit anchored to the input (one random signed
    64-bit edge id each, XORed into the input's ack value), auto ack, the acker's XOR per
    root, the spout's pending map with its start time, and a count per emit, execute and
    ack.  No queues, no stats windows, no latencies but the complete latency, no error
    handling.  Returns CPU microseconds per tuple: a lower bound for the in-process figure
    (the worker keeps all of that and more)."""
    from pystorm.component import Tuple

    wc_sentence_spout, wc_split_bolt, wc_count_bolt = word_count_modules(
        sentences, workdir, name)
    sentence_values = collections.namedtuple("SentencesDefaultTuple", "sentence")
    word_values = collections.namedtuple("SplitDefaultTuple", "word")
    spout = object.__new__(wc_sentence_spout.SentenceSpout)
    splits = [object.__new__(wc_split_bolt.SplitBolt) for _ in range(2)]
    counts = [object.__new__(wc_count_bolt.CountBolt) for _ in range(2)]
    spout.initialize({}, {})
    for task, count in enumerate(counts, 4):
        count.initialize({}, {"taskid": task})
    getrandbits = random.Random(7).getrandbits
    span, long_max = 1 << 64, (1 << 63) - 1
    now = time.time
    spouted, queue = [], collections.deque()
    current = [None, 0, 0]  # the input being processed: root id, ack value, its split task
    acker, pending, stats = {}, {}, collections.Counter()

    def split_emit(tup, **kwargs):
        edge = getrandbits(64)
        edge = edge - span if edge > long_max else edge
        current[1] ^= edge
        queue.append((hash(tup[0]) % 2, tup, current[0], edge))
        stats["split-emitted"] += 1

    spout.emit = lambda tup, tup_id=None, **kwargs: spouted.append((tup, tup_id))
    for split in splits:
        split.emit = split_emit
    tuples = next_id = 0
    started = time.process_time()
    for i in range(sentences):
        spout.next_tuple()
        (values, tup_id), = spouted
        spouted.clear()
        root, edge = getrandbits(64), getrandbits(64)
        root = root - span if root > long_max else root
        edge = edge - span if edge > long_max else edge
        pending[root] = (tup_id, now())
        acker[root] = edge
        stats["spout-emitted"] += 1
        next_id += 1
        current[:] = root, 0, i % 2
        splits[i % 2].process(Tuple(str(next_id), "sentences", "default", 1,
                                    sentence_values(*values)))
        acker[root] ^= edge ^ current[1]
        stats["split-executed"] += 1
        stats["split-acked"] += 1
        tuples += 1 + len(queue)
        while queue:
            task, word, root, edge = queue.popleft()
            next_id += 1
            counts[task].process(Tuple(str(next_id), "split", "default", 2 + task,
                                       word_values(*word)))
            stats["count-executed"] += 1
            stats["count-acked"] += 1
            value = acker[root] ^ edge
            if value:
                acker[root] = value
            else:
                del acker[root]
                tup_id, start = pending.pop(root)
                spout.ack(tup_id)
                stats["spout-acked"] += 1
                stats["complete-ms"] += int((now() - start) * 1000)
    assert not pending and not acker
    return (time.process_time() - started) / tuples * 1e6


def pure_parts_inline(sentences, workdir, name):
    """The word count run on the worker's own pure parts with the executors' glue written
    inline in one loop: the groupers (load-aware shuffle to two split tasks, the fields
    grouping to two count tasks), the id source, ``Acker`` (1.x), ``SpoutPending`` (max
    pending 500) and the stats collectors at rate 1 (every emit, execute, ack and latency
    recorded), a ``TupleImpl`` per delivered tuple in one queue drained in order, pending
    inputs by their string id, pystorm ``Tuple``s, pystorm's auto-anchor and auto-ack.  No
    error handling, no re-entrancy guard, no back pressure, no dead components, no direct
    emits: what a runtime that fused the executors' layers into one pass would cost at best.
    Returns CPU microseconds per tuple."""
    from pystorm.component import Tuple

    wc_sentence_spout, wc_split_bolt, wc_count_bolt = word_count_modules(
        sentences, workdir, name)
    sentence_values = collections.namedtuple("SentencesDefaultTuple", "sentence")
    word_values = collections.namedtuple("SplitDefaultTuple", "word")
    now_ms = millis_clock(time.time)
    generate_id = mk_id_source(random.Random(7))
    grouper_context = mk_grouper_context([1, 2, 3, 4, 5, 6], {}, random.Random(7), now_ms)
    to_split = mk_shuffle_grouper([2, 3], grouper_context)
    to_count = FieldsGrouper(["word"], ["word"], [4, 5])
    acker = Acker("1.x")
    pending = SpoutPending(500, True, generate_id)
    spout_stats = SpoutStatsCollector(time.time, 1.0)
    spout = object.__new__(wc_sentence_spout.SentenceSpout)
    spout.initialize({}, {})
    spouted, queue = [], collections.deque()
    spout.emit = lambda tup, tup_id=None, **kwargs: spouted.append((list(tup), tup_id))
    tasks = {}

    class BoltTask(object):
        def __init__(self, task_id, component_class, component_id, grouper, values_type):
            self.task_id, self.component_id = task_id, component_id
            self.grouper, self.values_type = grouper, values_type
            self.component = object.__new__(component_class)
            self.component.auto_ack = self.component.auto_anchor = True
            self.component.emit, self.component.ack = self.emit, self.ack
            self.inputs, self.next_id, self.current = {}, 0, None
            self.stats = BoltStatsCollector(time.time, 1.0)

        def emit(self, tup, stream=None, anchors=None, direct_task=None, need_task_ids=False):
            values = list(tup)
            targets = self.grouper(self.task_id, values)
            anchor = self.current
            root_ids = anchor.message_id.anchors_to_ids
            for target in targets:
                edge_id = generate_id()
                anchor.ack_val ^= edge_id
                queue.append((target, TupleImpl(self.task_id, self.component_id, "default",
                                                values, MessageId(dict.fromkeys(root_ids,
                                                                                edge_id)))))
            self.stats.emitted_to("default", len(targets))

        def ack(self, tup):
            input_tuple = self.inputs.pop(tup.id)
            ack_val = input_tuple.ack_val
            for root_id, edge_id in input_tuple.message_id.anchors_to_ids.items():
                for done in acker.ack(root_id, edge_id ^ ack_val, now_ms):
                    for callback in pending.execute(1, done.stream, done.values, now_ms()):
                        spout.ack(callback.message_id)
                        spout_stats.acked(callback.stream, callback.time_delta_ms)
                self.stats.emitted_to("__ack_ack", 1)
            self.stats.acked(input_tuple.source_component, input_tuple.stream,
                             now_ms() - input_tuple.process_sample_start_ms)

    for task_id, component_class, component_id, grouper, values_type in (
            (2, wc_split_bolt.SplitBolt, "split", to_count, sentence_values),
            (3, wc_split_bolt.SplitBolt, "split", to_count, sentence_values),
            (4, wc_count_bolt.CountBolt, "count", None, word_values),
            (5, wc_count_bolt.CountBolt, "count", None, word_values)):
        tasks[task_id] = BoltTask(task_id, component_class, component_id, grouper, values_type)
    for task_id in (4, 5):
        tasks[task_id].component.initialize({}, {"taskid": task_id})
    tuples = emitted = 0
    started = time.process_time()
    while emitted < sentences or queue:
        while emitted < sentences and not pending.reached_max_spout_pending():
            spout.next_tuple()
            emitted += 1
            for values, tup_id in spouted:
                targets = to_split(1, values)
                send = pending.send_spout_msg(1, "default", tup_id, targets, now_ms())
                for init in send.acker_emits:
                    acker.execute(init.stream, init.values, now_ms)
                for target, message_id in zip(targets, send.message_ids):
                    queue.append((target, TupleImpl(1, "sentences", "default", values,
                                                    message_id)))
                spout_stats.emitted_to("default", len(targets))
            spouted.clear()
            if len(queue) >= 100:
                break
        while queue:
            task_id, input_tuple = queue.popleft()
            task = tasks[task_id]
            component = task.component
            task.next_id += 1
            tuple_id = str(task.next_id)
            task.inputs[tuple_id] = input_tuple
            input_tuple.process_sample_start_ms = now_ms()
            task.current = input_tuple
            tup = tuple.__new__(Tuple, (tuple_id, input_tuple.source_component,
                                        input_tuple.stream, input_tuple.source_task,
                                        tuple.__new__(task.values_type, input_tuple.values)))
            component._current_tups = [tup]
            component.process(tup)
            if component.auto_ack:
                component.ack(tup)
            component._current_tups = []
            task.stats.executed(input_tuple.source_component, input_tuple.stream, 0)
            tuples += 1
    assert pending.pending_count() == 0 and acker.pending_count() == 0
    return (time.process_time() - started) / tuples * 1e6


# The figures under the worker's: the word count with no runtime, with the least one, and on
# the worker's pure parts glued inline.
FLOORS = {"alone": components_alone, "least": least_runtime, "inline": pure_parts_inline}


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sentences", type=int, default=5000)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--sample-rate", type=float, default=0.05)
    parser.add_argument("--profile", action="store_true")
    parser.add_argument("--gc", choices=("worker", "default"), default="worker",
                        help="the collector as a worker settles it, or CPython's defaults")
    parser.add_argument("--only", choices=["worker"] + sorted(FLOORS),
                        help="run only this one, --runs times (for a profiler, or valgrind "
                        "--tool=callgrind: the difference of two --sentences gives the "
                        "instructions per tuple)")
    args = parser.parse_args()
    print(harness.pynimbus_build())
    with tempfile.TemporaryDirectory() as workdir:
        if args.only:
            for run in range(args.runs):
                name = "%s%d" % (args.only, run)
                figure = (one_run(args.sentences, args.sample_rate, workdir, name, args.gc)[1]
                          if args.only == "worker"
                          else FLOORS[args.only](args.sentences, workdir, name))
                print("%s run %d: %6.1f us CPU/tuple" % (args.only, run, figure))
            return
        if args.profile:
            profile = cProfile.Profile()
            profile.runcall(one_run, args.sentences, args.sample_rate, workdir, "profile",
                            args.gc)
            pstats.Stats(profile).sort_stats(os.environ.get("SORT", "tottime")).print_stats(int(os.environ.get("LINES", "35")))
            return
        rates, us = [], []
        for run in range(args.runs):
            rate, us_per_tuple, exact = one_run(args.sentences, args.sample_rate, workdir,
                                                "run%d" % run, args.gc)
            rates.append(rate)
            us.append(us_per_tuple)
            print("run %d: %8.0f acked tuples/s  %6.1f us CPU/tuple  exact counts: %s"
                  % (run, rate, us_per_tuple, exact))
        floors = {key: statistics.median(floor(args.sentences, workdir, "%s%d" % (key, run))
                                         for run in range(args.runs))
                  for key, floor in FLOORS.items()}
    print("median of %d (%d sentences, sample rate %s, gc %s): %8.0f acked tuples/s  "
          "%6.1f us/tuple" % (args.runs, args.sentences, args.sample_rate, args.gc,
                              statistics.median(rates), statistics.median(us)))
    print("the components' own code alone (no runtime), median of %d: %6.1f us CPU/tuple"
          % (args.runs, floors["alone"]))
    print("the same with the least runtime keeping Storm's semantics, median of %d: %6.1f us "
          "CPU/tuple" % (args.runs, floors["least"]))
    print("the same on the worker's pure parts with the executors' glue inline, median of %d: "
          "%6.1f us CPU/tuple" % (args.runs, floors["inline"]))


if __name__ == "__main__":
    main()
