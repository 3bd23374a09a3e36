"""Time one round of ``compute_new_assignments`` (the pure core of mk-assignments).

Shape: 1,000 supervisors with 4 ports each (4,000 slots), 100 topologies of 100 single-task
executors and 10 workers each (10,000 executors on 1,000 slots).  Two rounds are timed per
generation:

- *from empty*: no assignment yet, every topology is scheduled;
- *from existing*: the result of the first round is the current assignment and every
  executor has a fresh heartbeat, so the round updates 10,000 heartbeat-cache entries, finds
  all executors alive and rebuilds 100 Assignments (none changed);
- *with failures*: as before, but 5 supervisors are gone and 10 topologies stopped
  heartbeating, so their executors are rescheduled.

Prints seconds; asserts nothing (benchmarks never assert timings).  Target: under 2 s a round.

In 2.x the topologies are marked as built by Storm 1.2.4, so 2.x reads their ZooKeeper
heartbeats (a Storm 2 topology would need RPC heartbeats, which this round does not get).

Run: ``python bench/bench_mk_assignments.py``
"""

import os
import sys
import time

REPO_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.append(REPO_ROOT)  # an installed pynimbus (maybe compiled: pynimbus.common.compiled) first

from pynimbus.clojure_port.assignments import compute_new_assignments  # noqa: E402
from pynimbus.clojure_port.scheduler.cluster import TopologyDetails  # noqa: E402
from pynimbus.cluster.state import ExecutorBeat  # noqa: E402
from pynimbus.generated.storm import ttypes  # noqa: E402

SUPERVISORS = 1000
PORTS = (6700, 6701, 6702, 6703)
TOPOLOGIES = 100
EXECUTORS = 100
WORKERS = 10
CONF = {"nimbus.task.timeout.secs": 30, "nimbus.task.launch.secs": 120,
        "storm.local.dir": "/var/storm"}


def make_supervisors():
    return {"%08x-7e1d-4c2b-9a55-supervisor%04d" % (i * 2654435761 % 2 ** 32, i):
            ttypes.SupervisorInfo(time_secs=0, hostname="node%04d.example.com" % i,
                                  assignment_id="sup%d" % i, meta=list(PORTS))
            for i in range(SUPERVISORS)}


def make_topologies(compat):
    out = {}
    executors = [(t, t) for t in range(1, EXECUTORS + 1)]
    for i in range(TOPOLOGIES):
        storm_id = "topology%03d-%d-1700000000" % (i, i)
        out[storm_id] = TopologyDetails(storm_id, {"topology.name": "topology%03d" % i},
                                        WORKERS, executors=executors, owner="bench",
                                        storm_version="1.2.4" if compat == "2.x" else None)
    return out


def beats_for(assignments, time_secs, silent=()):
    return {storm_id: {tuple(e): ExecutorBeat(time_secs, 60, None)
                       for e in a.executor_node_port}
            for storm_id, a in assignments.items() if storm_id not in silent}


def timed(label, *args, **kwargs):
    start = time.perf_counter()
    result = compute_new_assignments(*args, **kwargs)
    print("%-32s %.3f s" % (label, time.perf_counter() - start))
    return result


def run(compat):
    supervisors = make_supervisors()
    topologies = make_topologies(compat)
    first, cache = timed("%s from empty" % compat, topologies, {}, supervisors, {}, {}, 1000,
                         CONF, compat)
    used = sum(len({(ni.node, tuple(ni.port)) for ni in a.executor_node_port.values()})
               for a in first.values())
    print("  %d assignments, %d slots used of %d" % (len(first), used,
                                                     SUPERVISORS * len(PORTS)))
    beats = beats_for(first, 1005)
    second, cache = timed("%s from existing" % compat, topologies, first, supervisors, cache,
                          beats, 1010, CONF, compat)
    for storm_id in list(supervisors)[:5]:
        del supervisors[storm_id]
    silent = list(topologies)[:10]
    beats = beats_for(second, 1200, silent)
    third, cache = timed("%s with failures" % compat, topologies, second, supervisors, cache,
                         beats, 1200, CONF, compat)
    moved = sum(1 for storm_id, a in third.items()
                for e, ni in a.executor_node_port.items()
                if second[storm_id].executor_node_port.get(e) != ni)
    print("  %d executors moved" % moved)


def main():
    print("shape: %d supervisors x %d ports, %d topologies x %d executors, %d workers each"
          % (SUPERVISORS, len(PORTS), TOPOLOGIES, EXECUTORS, WORKERS))
    for compat in ("1.x", "2.x"):
        run(compat)


if __name__ == "__main__":
    main()
