"""What one topology of N tasks costs nimbus's monitor: time and peak memory per round.

For the default of ``pynimbus.topology.max.tasks`` (the cap on a topology's tasks, issue 8).
Each size runs in a child process of its own (so peak RSS is that size's): a spout of N
single-task executors over 8 supervisors of 4 ports, the monitor's steps on it -
``storm_task_info``, ``compute_executors``, ``compute_new_assignments`` and the Assignment's
serialization (Thrift + gzip, what is written to ZooKeeper).  Prints seconds, the peak RSS of
the child and the Assignment's size; asserts nothing.

Run: ``python bench/bench_topology_counts.py [N ...]`` (default 10000 50000 100000 200000)
"""

import json
import os
import resource
import subprocess
import sys
import time

REPO_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.append(REPO_ROOT)  # an installed pynimbus (maybe compiled: pynimbus.common.compiled) first

SIZES = (10000, 50000, 100000, 200000)
PORTS = (6700, 6701, 6702, 6703)


def measure(num_tasks, compat):
    """Run the monitor's steps for one topology of ``num_tasks`` tasks; return figures."""
    from pynimbus.clojure_port import executors, normalize, tasks
    from pynimbus.clojure_port.assignments import compute_new_assignments
    from pynimbus.clojure_port.scheduler.cluster import TopologyDetails
    from pynimbus.cluster.serialization import serialize
    from pynimbus.common.config import default_config
    from pynimbus.generated.storm import ttypes

    conf = dict(default_config(compat), **{
        "topology.workers": 8, "topology.acker.executors": 0,
        "topology.eventlogger.executors": 0, "storm.local.dir": "/var/storm"})
    shell = ttypes.ComponentObject(shell=ttypes.ShellComponent("python", "spout.py"))
    user = ttypes.StormTopology(spouts={"words": ttypes.SpoutSpec(shell, ttypes.ComponentCommon(
        inputs={}, streams={"default": ttypes.StreamInfo(["word"], False)},
        parallelism_hint=num_tasks))}, bolts={}, state_spouts={})
    user = normalize.normalize_topology(conf, user, compat)
    supervisors = {"supervisor-%d" % i: ttypes.SupervisorInfo(
        time_secs=0, hostname="node%d" % i, assignment_id="supervisor-%d" % i, meta=list(PORTS))
        for i in range(8)}
    started = time.perf_counter()
    task_info = tasks.storm_task_info(user, conf, compat)
    component_executors = executors.compute_executors(task_info, {"words": num_tasks,
                                                                  "__acker": 0, "__system": 0})
    details = TopologyDetails(
        "words-1-1", conf, 8, launch_time_secs=0, owner="bench",
        executor_to_component=executors.executor_to_component(component_executors))
    assignments, _cache = compute_new_assignments({"words-1-1": details}, {}, supervisors, {},
                                                  {}, 1000, conf, compat)
    data = serialize(assignments["words-1-1"])
    seconds = time.perf_counter() - started
    peak_kib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return {"seconds": seconds, "peak_rss_mib": peak_kib / 1024.0,
            "assignment_kib": len(data) / 1024.0}


def main(argv):
    if argv[:1] == ["--child"]:
        print(json.dumps(measure(int(argv[1]), argv[2])))
        return
    sizes = [int(a) for a in argv] or SIZES
    print("%-5s %8s %10s %14s %16s" % ("compat", "tasks", "seconds", "peak RSS MiB",
                                       "Assignment KiB"))
    for compat in ("1.x", "2.x"):
        for size in sizes:
            out = subprocess.run([sys.executable, __file__, "--child", str(size), compat],
                                 check=True, capture_output=True, text=True).stdout
            figures = json.loads(out)
            print("%-6s %8d %10.2f %14.0f %16.0f" % (
                compat, size, figures["seconds"], figures["peak_rss_mib"],
                figures["assignment_kib"]))


if __name__ == "__main__":
    main(sys.argv[1:])
