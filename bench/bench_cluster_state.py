"""Time one write and one read through StormClusterState on each backend.

    python bench/bench_cluster_state.py [--repetitions 200]

For the embedded store (a temporary directory) and for a real ZooKeeper (started as the tests
start it: Debian's zookeeper package, 127.0.0.1, a temporary data directory), prints the
median and 90th percentile of ``set_assignment`` / ``activate_storm`` (a write) and
``assignment_info`` / ``storm_base`` (a read) over the repetitions.  Prints figures; asserts
nothing.
"""

import argparse
import os
import statistics
import sys
import tempfile
import time

REPO_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.append(REPO_ROOT)  # an installed pynimbus (maybe compiled: pynimbus.common.compiled) first
sys.path.insert(0, os.path.join(REPO_ROOT, "tests"))

from pynimbus.cluster import StormClusterState, make_backend  # noqa: E402
from pynimbus.common.config import default_config  # noqa: E402
from pynimbus.generated.storm import ttypes  # noqa: E402
from zookeeper_server import ZooKeeperServer, unavailable_reason  # noqa: E402

TOPOLOGY = "wordcount-1-1700000000"


def sample_assignment(executors=32):
    """An Assignment of ``executors`` executors over four slots of two supervisors."""
    slots = [ttypes.NodeInfo(node="sup-%d" % (i % 2), port={6700 + i // 2}) for i in range(4)]
    return ttypes.Assignment(
        master_code_dir="/var/storm",
        node_host={"sup-0": "host-0", "sup-1": "host-1"},
        executor_node_port={(t, t): slots[t % 4] for t in range(1, executors + 1)},
        executor_start_time_secs={(t, t): 1700000000 for t in range(1, executors + 1)},
        worker_resources={slot: ttypes.WorkerResources(0.0, 0.0, 0.0) for slot in slots},
        owner="alice", total_shared_off_heap=None)


def sample_storm_base():
    return ttypes.StormBase(name="wordcount", status=ttypes.TopologyStatus.ACTIVE, num_workers=4,
                            component_executors={"spout": 8, "split": 12, "count": 12},
                            launch_time_secs=1700000000, owner="alice")


def time_calls(call, repetitions):
    """Return the durations in microseconds of ``repetitions`` calls of ``call``."""
    durations = []
    for _ in range(repetitions):
        start = time.perf_counter()
        call()
        durations.append((time.perf_counter() - start) * 1e6)
    return durations


def report(backend_name, operation, durations):
    ordered = sorted(durations)
    p90 = ordered[int(len(ordered) * 0.9) - 1]
    print("%-10s %-32s median %9.1f us   p90 %9.1f us   (n=%d)"
          % (backend_name, operation, statistics.median(durations), p90, len(durations)))


def bench(backend_name, conf, repetitions):
    state = StormClusterState(make_backend(conf))
    try:
        assignment, base = sample_assignment(), sample_storm_base()
        state.set_assignment(TOPOLOGY, assignment)  # first write creates; measure updates
        state.activate_storm(TOPOLOGY, base)
        report(backend_name, "write set_assignment",
               time_calls(lambda: state.set_assignment(TOPOLOGY, assignment), repetitions))
        report(backend_name, "read  assignment_info",
               time_calls(lambda: state.assignment_info(TOPOLOGY), repetitions))
        report(backend_name, "write activate_storm (StormBase)",
               time_calls(lambda: state.activate_storm(TOPOLOGY, base), repetitions))
        report(backend_name, "read  storm_base",
               time_calls(lambda: state.storm_base(TOPOLOGY), repetitions))
    finally:
        state.close()


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repetitions", type=int, default=200)
    args = parser.parse_args(argv)

    with tempfile.TemporaryDirectory(prefix="pynimbus-bench-") as tmp:
        conf = default_config()
        conf.update({"storm.local.dir": tmp, "storm.zookeeper.servers": [],
                     "pynimbus.embedded.state.dir": os.path.join(tmp, "state")})
        bench("embedded", conf, args.repetitions)

    reason = unavailable_reason()
    if reason:
        print("zookeeper  skipped: %s" % reason)
        return
    with ZooKeeperServer() as server:
        conf = default_config()
        conf.update(server.storm_conf())
        conf["storm.zookeeper.root"] = "/storm"
        bench("zookeeper", conf, args.repetitions)


if __name__ == "__main__":
    main()
