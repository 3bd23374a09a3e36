"""Cluster-state heartbeat writes per period with and without JStorm's topology master.

For a topology of W workers with E executors each (bolt statistics on 3 streams, rendered by
the worker's own collector), one stats-heartbeat period:

- *without a master*: every worker writes its ``ClusterWorkerHeartbeat`` (W writes);
- *with a master* (``pynimbus.scheduler: jstorm``, ``topology.master.single.worker`` set): the
  other workers send theirs to the master over the worker transport and the master's worker
  writes one record (``pynimbus.worker.topology_master.combined_heartbeat``): 1 write.

Prints, per shape, the writes and the bytes written to cluster state per period (gzip Thrift,
as stored), the bytes sent over the transport to the master (each worker's heartbeat as
stored), the microseconds the master's task spends on the reactor keeping them (it never
decodes them) and the milliseconds the master's worker spends in its write thread decoding
them, merging their executors and encoding the record (best of 5).  Asserts nothing.

Run: ``python bench/bench_jstorm_master_heartbeats.py``
"""

import os
import sys
import time

REPO_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.append(REPO_ROOT)  # an installed pynimbus (maybe compiled: pynimbus.common.compiled) first

from pynimbus.cluster.serialization import serialize  # noqa: E402
from pynimbus.worker.executor import TupleImpl  # noqa: E402
from pynimbus.worker.stats import BOLT, ExecutorStatsCollector, worker_heartbeat  # noqa: E402
from pynimbus.worker.topology_master import (  # noqa: E402
    TOPOLOGY_MASTER_HB_STREAM_ID, TopologyMasterExecutor, combined_heartbeat, heartbeat_values)

SHAPES = ((4, 5), (10, 10), (50, 20))  # (workers, executors per worker)
STREAMS = ("default", "words", "__ack_ack")
STORM_ID = "wc-1-1700000000"


def rendered_stats(clock):
    collector = ExecutorStatsCollector(BOLT, clock, 1.0)
    for i in range(300):
        stream = STREAMS[i % len(STREAMS)]
        collector.emitted_to(stream, 1)
        collector.executed("spout", stream, 2)
        collector.acked("spout", stream, 3)
    return collector.render()


def worker_beats(workers, executors, clock):
    stats = rendered_stats(clock)
    beats = {}
    for w in range(workers):
        first = w * executors + 1
        executor_to_stats = {(t, t): stats for t in range(first, first + executors)}
        executor_to_stats[(-1, -1)] = stats
        beats[("sup-%d" % (w % 3), 6700 + w)] = worker_heartbeat(STORM_ID, executor_to_stats,
                                                                 clock(), 60)
    return beats


def master_context():
    """What the master's executor reads of its worker here: a conf and a loop."""
    from twisted.internet import task

    from pynimbus.worker.executor import WorkerContext
    from pynimbus.worker.receive_queue import ExecutorLoop
    fields = dict.fromkeys(WorkerContext._fields)
    fields.update(storm_conf={}, loop=ExecutorLoop(task.Clock().callLater, lambda: None))
    return WorkerContext(**fields)


def master_period(beats, own_slot, tuples):
    """``(seconds on the reactor, seconds in the write thread, record bytes)``."""
    master = TopologyMasterExecutor(master_context(), "__topology_master", [0], {}, {}, None)
    started = time.perf_counter()
    for tuple_ in tuples:
        master.accept(0, tuple_)
    relayed = master.take_relayed()
    kept = time.perf_counter()
    record = serialize(combined_heartbeat(STORM_ID, beats[own_slot], relayed, 0, 60))
    return kept - started, time.perf_counter() - kept, len(record)


def main():
    clock = time.time
    print("%-20s %14s %14s %12s %16s %12s %14s" % (
        "workers x executors", "writes/period", "bytes (no TM)", "bytes (TM)",
        "to master (net)", "reactor us", "write-thread ms"))
    for workers, executors in SHAPES:
        beats = worker_beats(workers, executors, clock)
        plain_bytes = sum(len(serialize(b)) for b in beats.values())
        own_slot = next(iter(beats))
        tuples = [TupleImpl(-1, "__system", TOPOLOGY_MASTER_HB_STREAM_ID,
                            heartbeat_values(beat, *slot), None)
                  for slot, beat in beats.items() if slot != own_slot]
        sent = sum(len(t.values[0][0]) for t in tuples)
        runs = [master_period(beats, own_slot, tuples) for _ in range(5)]
        print("%-20s %14s %14d %12d %16d %12.0f %14.1f" % (
            "%d x %d" % (workers, executors), "%d -> 1" % workers, plain_bytes, runs[0][2],
            sent, min(r[0] for r in runs) * 1e6, min(r[1] for r in runs) * 1e3))


if __name__ == "__main__":
    main()
