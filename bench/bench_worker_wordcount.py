"""The pystorm word count on Python worker processes: tuples per second, complete latency and
worker memory.

For one worker and two workers, with the JSON and pystorm's msgpack multilang serializers:
a ``pynimbus dev`` on the embedded store (no ZooKeeper, shared with this script across
processes), a supervisor registered as tests/test_worker_process.py does it, the word count of
tests/worker_topologies.py over a corpus of SENTENCES sentences with acking on, and the worker
processes launched with the supervisor's command.  Timing runs from the first counted word to
the last acked sentence (start-up excluded).  Prints, per run: sentences per second, tuples
per second (sentences into split + words into count), the spout's complete
latency (the average Storm's stats give, sample rate 1), and each worker's resident memory
(VmRSS, its multilang children not included; they are printed apart).  Asserts nothing.

Run: ``python bench/bench_worker_wordcount.py [sentences]``
"""

import json
import os
import shutil
import sys
import tempfile
import time

REPO_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, REPO_ROOT)
sys.path.insert(0, os.path.join(REPO_ROOT, "tests"))

from nimbus_process import NimbusProcess  # noqa: E402
from test_worker_process import MSGPACK_SERIALIZER, WorkerRun  # noqa: E402
from worker_topologies import CORPUS, word_count, word_count_jar  # noqa: E402

SENTENCES = 2000
DEADLINE_SECS = 300


def wait_for(predicate, timeout, what):
    deadline = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > deadline:
            raise RuntimeError("timed out waiting for " + what)
        time.sleep(0.01)


def line_count(path):
    try:
        with open(path) as f:
            return sum(1 for _ in f)
    except FileNotFoundError:
        return 0


def rss_kib(pid):
    try:
        with open("/proc/%d/status" % pid) as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1])
    except FileNotFoundError:
        return None
    return None


def one_run(workdir, nimbus, embedded_dir, num_workers, serializer, corpus):
    cluster_conf = {"storm.zookeeper.servers": [], "pynimbus.embedded.state.dir": embedded_dir}
    run = WorkerRun(nimbus, cluster_conf, workdir, num_workers)
    try:
        topo_conf = {"topology.workers": num_workers, "topology.stats.sample.rate": 1.0,
                     "topology.max.spout.pending": 500}
        if serializer == "msgpack":
            topo_conf["topology.multilang.serializer"] = MSGPACK_SERIALIZER
        run.submit(lambda predicate, timeout, what: wait_for(predicate, timeout, what),
                   "bench-%d-%s" % (num_workers, serializer), word_count_jar(corpus),
                   word_count(), topo_conf)
        run.launch(MULTILANG_TEST_SERIALIZER=serializer)
        wait_for(lambda: line_count(run.output) > 0, DEADLINE_SECS, "the first count")
        started = time.monotonic()
        wait_for(lambda: line_count(run.acked) >= len(corpus), DEADLINE_SECS,
                 "every sentence acked")
        elapsed = time.monotonic() - started
        words = sum(len(line.split()) for line in corpus)
        worker_rss = [rss_kib(process.pid) for _wid, process, _path in run.workers]
        child_rss = [rss_kib(pid) for pid in run.pids()
                     if pid not in {process.pid for _w, process, _p in run.workers}]

        def complete_ms():
            info = run.topology_info()
            for e in info.executors:
                if e.component_id == "sentences" and e.stats is not None:
                    return e.stats.specific.spout.complete_ms_avg.get(":all-time", {}).get(
                        "default")
            return None
        latency = None
        deadline = time.monotonic() + 30
        while latency is None and time.monotonic() < deadline:
            latency = complete_ms()
            time.sleep(0.2)
        print("%d worker(s), %-7s: %7.0f sentences/s  %8.0f tuples/s  complete latency %s ms"
              "  worker RSS %s KiB  multilang children RSS %s KiB"
              % (num_workers, serializer, len(corpus) / elapsed,
                 (len(corpus) + words) / elapsed,
                 "%.1f" % latency if latency is not None else "n/a",
                 worker_rss, sorted(r for r in child_rss if r is not None)))
    finally:
        run.close()


def main():
    sentences = int(sys.argv[1]) if len(sys.argv) > 1 else SENTENCES
    corpus = (CORPUS * (sentences // len(CORPUS) + 1))[:sentences]
    print("pystorm word count, %d sentences, acking on, max spout pending 500" % sentences)
    for num_workers, serializer in ((1, "json"), (2, "json"), (1, "msgpack"), (2, "msgpack")):
        workdir = tempfile.mkdtemp(prefix="bench-worker-")
        try:
            embedded_dir = os.path.join(workdir, "embedded-state")
            os.makedirs(os.path.join(workdir, "nimbus"))
            nimbus = NimbusProcess(os.path.join(workdir, "nimbus"), options=[
                "pynimbus.embedded.state.dir=" + json.dumps(embedded_dir),
                "nimbus.monitor.freq.secs=1"], log_level="WARNING")
            nimbus.start(timeout=60)
            try:
                one_run(_Path(workdir), nimbus, embedded_dir, num_workers, serializer, corpus)
            finally:
                nimbus.stop()
        finally:
            shutil.rmtree(workdir, ignore_errors=True)


class _Path(str):
    """``tmp_path / name`` for WorkerRun, on a plain directory name."""

    def __truediv__(self, name):
        return _Path(os.path.join(self, name))


if __name__ == "__main__":
    main()
