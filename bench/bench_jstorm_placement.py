"""One placement under ``pynimbus.scheduler: jstorm`` vs the even scheduler vs JStorm's own Java.

Shape (issue 12): 1,000 supervisors with 4 ports each, 100 topologies of 100 single-task
executors (spout 10 -> split 40 -> count 45, 5 ackers) and 10 workers each, all new.  Timed:

- *pynimbus default*: one round of ``compute_new_assignments`` with Storm's default scheduler;
- *pynimbus jstorm*: the same round with ``pynimbus.scheduler: jstorm``;
- *port alone*: the 100 ``assign_tasks`` calls of the JStorm port on the cases the jstorm round
  stands for (each topology sees the ports the earlier ones took);
- *JStorm 2.2.1 (Java)*: JStorm's ``DefaultTopologyScheduler.assignTasks`` on the same 100
  cases in one JVM (the oracle harness of ``tests/compat/oracle/jstorm.py``): the run's wall
  time minus that of a run on no case (JVM start, class loading), so JSON parsing and the JIT's
  warm-up are included.  Skipped with the reason when Java or the jars cannot be had.

Also printed: whether the port and JStorm placed every topology the same.  Prints seconds;
asserts nothing.  Run: ``python bench/bench_jstorm_placement.py``
"""

import os
import sys
import time

REPO_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.append(REPO_ROOT)  # an installed pynimbus (maybe compiled: pynimbus.common.compiled) first
sys.path.insert(0, os.path.join(REPO_ROOT, "tests"))

from pynimbus.clojure_port import java_order  # noqa: E402
from pynimbus.clojure_port.assignments import compute_new_assignments  # noqa: E402
from pynimbus.clojure_port.scheduler.cluster import TopologyDetails  # noqa: E402
from pynimbus.generated.storm import ttypes  # noqa: E402
from pynimbus.jstorm_port.case_json import place_case  # noqa: E402

SUPERVISORS = 1000
PORTS = [6700, 6701, 6702, 6703]
TOPOLOGIES = 100
WORKERS = 10
COMPONENTS = (("__acker", 5), ("count", 45), ("split", 40), ("spout", 10))  # id order
RAW_TOPOLOGY = {"spouts": {"spout": {"conf": {}}},
                "bolts": {"split": {"inputs": ["spout"], "conf": {}},
                          "count": {"inputs": ["split"], "conf": {}}}}
CONF = {"nimbus.task.timeout.secs": 30, "nimbus.task.launch.secs": 120,
        "storm.local.dir": "/var/storm"}


def task_to_component():
    tasks, next_id = {}, 1
    for component, count in COMPONENTS:
        for _ in range(count):
            tasks[next_id] = component
            next_id += 1
    return tasks


def supervisor_id(i):
    return "%08x-sup-%04d" % ((i * 2654435761) & 0xFFFFFFFF, i)


def storm_round(scheduler):
    supervisors = dict((supervisor_id(i), ttypes.SupervisorInfo(
        time_secs=0, hostname="10.0.%d.%d" % (i // 250, i % 250), assignment_id=supervisor_id(i),
        meta=list(PORTS))) for i in range(SUPERVISORS))
    tasks = task_to_component()
    topologies = dict(("topo-%03d-1" % i, TopologyDetails(
        "topo-%03d-1" % i, {"topology.name": "topo-%03d" % i}, WORKERS,
        executor_to_component=dict(((t, t), c) for t, c in tasks.items()),
        owner="bench", raw_topology=RAW_TOPOLOGY)) for i in range(TOPOLOGIES))
    conf = dict(CONF, **{"pynimbus.scheduler": scheduler})
    start = time.perf_counter()
    new, _ = compute_new_assignments(topologies, {}, supervisors, {}, {}, 0, conf, "1.x")
    return time.perf_counter() - start, new


def jstorm_cases():
    """The 100 NEW cases in the round's topology order, each on the ports the port's earlier
    placements left: ``[(topology id, case, the port's placement)]`` and the port's seconds."""
    used = dict((supervisor_id(i), []) for i in range(SUPERVISORS))
    parallelism = dict(COMPONENTS)
    topology = {"spouts": {"spout": {"parallelism": parallelism["spout"], "conf": {}}},
                "bolts": {"split": {"parallelism": parallelism["split"], "inputs": ["spout"],
                                    "conf": {}},
                          "count": {"parallelism": parallelism["count"], "inputs": ["split"],
                                    "conf": {}}}}
    cases, seconds = [], 0.0
    ids = java_order.topology_order(["topo-%03d-1" % i for i in range(TOPOLOGIES)], "1.x")
    for topology_id in ids:
        case = {"assign_type": 0, "topology": topology,
                "storm_conf": {"topology.workers": WORKERS, "topology.acker.executors": 5,
                               "topology.master.single.worker": False},
                "task_to_component": dict((str(t), c) for t, c in task_to_component().items()),
                "topology_master_task_id": 0,
                "supervisors": [{"id": sid, "hostname": "10.0.%d.%d" % (n // 250, n % 250),
                                 "ports": PORTS, "used_ports": list(used[sid])}
                                for n, sid in ((n, supervisor_id(n)) for n in range(SUPERVISORS))]}
        start = time.perf_counter()
        placement = place_case(case)
        seconds += time.perf_counter() - start
        for worker in placement:
            used[worker["node_id"]].append(worker["port"])
        cases.append((topology_id, case, placement))
    return cases, seconds


def slots_of(assignment):
    """Sorted ``(node, port, first tasks of its executors)`` of a Storm Assignment."""
    slots = {}
    for executor, node_info in assignment.executor_node_port.items():
        slots.setdefault((node_info.node, next(iter(node_info.port))), []).append(executor[0])
    return sorted((node, port, sorted(tasks)) for (node, port), tasks in slots.items())


def java_seconds(cases):
    from compat.oracle import jstorm
    try:
        start = time.perf_counter()
        jstorm.jstorm_placements([])
        idle = time.perf_counter() - start
        start = time.perf_counter()
        placements = jstorm.jstorm_placements([case for _, case, _ in cases])
        busy = time.perf_counter() - start
    except jstorm.OracleUnavailable as e:
        return None, str(e)
    same = all(p == port for p, (_, _, port) in zip(placements, cases))
    return busy - idle, "same placement as the port on every topology: %s" % same


def main():
    print("%d supervisors x %d ports, %d topologies x %d executors, %d workers each"
          % (SUPERVISORS, len(PORTS), TOPOLOGIES, sum(c for _, c in COMPONENTS), WORKERS))
    seconds, new = storm_round("default")
    print("pynimbus default (even) scheduler, one round: %.2f s (%d topologies placed)"
          % (seconds, len(new)))
    seconds, new = storm_round("jstorm")
    print("pynimbus jstorm scheduler, one round:         %.2f s (%d topologies placed)"
          % (seconds, len(new)))
    cases, seconds = jstorm_cases()
    print("JStorm port alone, 100 assign_tasks:          %.2f s" % seconds)
    print("the jstorm round placed as the port on the 100 cases: %s" % all(
        slots_of(new[topology_id]) == sorted((w["node_id"], w["port"], w["tasks"]) for w in port)
        for topology_id, _, port in cases))
    java, note = java_seconds(cases)
    if java is None:
        print("JStorm 2.2.1 (Java): skipped: %s" % note)
    else:
        print("JStorm 2.2.1 (Java), 100 assignTasks:         %.2f s (%s)" % (java, note))


if __name__ == "__main__":
    main()
