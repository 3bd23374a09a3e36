"""Nanoseconds per recorded event of the executor stats (pynimbus.worker.stats), and per render.

Shapes, each over 200,000 events on 3 streams, with the rotation timer (``rotate_due``) run
before every 1,000 events and the bench clock advancing one second per read (traffic of 1,000
events a second: over the run's 200 s the buckets rotate six times):

- *emit*: ``emitted_to`` (an emit to 2 tasks), at sample rate 1 and at Storm's
  default 0.05 (one event in 20 recorded);
- *spout ack*: ``acked`` with a latency (a count and a latency);
- *bolt execute*: ``executed`` with a latency, keyed by (component, stream).

Also the bench clock's own cost per read (recording reads it only for a key's first event;
the timer reads it once a run), and the
microseconds of one ``render`` of a bolt collector with 3 keys per stat.  The clock is
``time.time``-shaped: a function returning seconds.  Prints the best of 3 runs (the machine is
shared); asserts nothing (benchmarks never assert timings).

Run: ``python bench/bench_stats.py``
"""

import os
import random
import sys
import time

REPO_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.append(REPO_ROOT)  # an installed pynimbus (maybe compiled: pynimbus.common.compiled) first

from pynimbus.worker.stats import ExecutorStatsCollector  # noqa: E402

EVENTS = 200000
REPEATS = 3
STREAMS = ("default", "words", "__ack_init")
TIMER_EVERY = 1000  # events between two runs of the rotation timer


class SteppingClock:
    """Seconds that move one second per reading."""

    def __init__(self):
        self.now = 1700000000.0

    def __call__(self):
        self.now += 1.0
        return self.now


def run_emits(sample_rate):
    collector = ExecutorStatsCollector("spout", SteppingClock(), sample_rate, random.Random(1))
    emitted_to = collector.emitted_to
    streams = STREAMS * (EVENTS // len(STREAMS))
    start = time.perf_counter()
    for chunk in range(0, len(streams), TIMER_EVERY):
        collector.rotate_due()
        for stream in streams[chunk:chunk + TIMER_EVERY]:
            emitted_to(stream, 2)
    return time.perf_counter() - start, len(streams)


def run_spout_acks():
    collector = ExecutorStatsCollector("spout", SteppingClock(), 1.0, random.Random(1))
    acked = collector.acked
    streams = STREAMS * (EVENTS // len(STREAMS))
    start = time.perf_counter()
    for chunk in range(0, len(streams), TIMER_EVERY):
        collector.rotate_due()
        for stream in streams[chunk:chunk + TIMER_EVERY]:
            acked(stream, 12)
    return time.perf_counter() - start, len(streams)


def run_bolt_executes():
    collector = ExecutorStatsCollector("bolt", SteppingClock(), 1.0, random.Random(1))
    executed = collector.executed
    streams = STREAMS * (EVENTS // len(STREAMS))
    start = time.perf_counter()
    for chunk in range(0, len(streams), TIMER_EVERY):
        collector.rotate_due()
        for stream in streams[chunk:chunk + TIMER_EVERY]:
            executed("spout", stream, 3)
    return time.perf_counter() - start, len(streams)


def run_clock():
    clock = SteppingClock()
    start = time.perf_counter()
    for _ in range(EVENTS):
        clock()
    return time.perf_counter() - start, EVENTS


def run_render():
    collector = ExecutorStatsCollector("bolt", SteppingClock(), 1.0, random.Random(1))
    for stream in STREAMS:
        collector.emitted_to(stream, 2)
        collector.executed("spout", stream, 3)
        collector.acked("spout", stream, 4)
        collector.failed("spout", stream, 4)
    renders = 2000
    start = time.perf_counter()
    for _ in range(renders):
        collector.render()
    return time.perf_counter() - start, renders


def best(run, *args):
    """The fastest of REPEATS runs, in seconds per event."""
    ret = None
    for _ in range(REPEATS):
        seconds, events = run(*args)
        ret = seconds / events if ret is None else min(ret, seconds / events)
    return ret


def main():
    print("executor stats, best of %d, %d events on %d streams" % (REPEATS, EVENTS,
                                                                   len(STREAMS)))
    print("  the clock alone (a read):  %6.0f ns/read" % (best(run_clock) * 1e9))
    print("  emit+transfer, rate 1:     %6.0f ns/emit" % (best(run_emits, 1.0) * 1e9))
    print("  emit+transfer, rate 0.05:  %6.0f ns/emit" % (best(run_emits, 0.05) * 1e9))
    print("  spout ack (count+latency): %6.0f ns/ack" % (best(run_spout_acks) * 1e9))
    print("  bolt execute (count+lat.): %6.0f ns/execute" % (best(run_bolt_executes) * 1e9))
    print("  render, bolt, 3 keys/stat: %6.0f us/render" % (best(run_render) * 1e6))


if __name__ == "__main__":
    main()
