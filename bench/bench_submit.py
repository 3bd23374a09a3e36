"""Submit end to end and getClusterInfo under load: pynimbus beside the real Storm Nimbus.

Prints figures, asserts nothing.  For each target (pynimbus in 1.x and 2.x mode, and the real
Nimbus of Storm 1.2.4 and 2.8.x when Java and the cached jars are available), on one real
ZooKeeper started here, with 50 fake supervisors of 4 ports each:

* submit end to end: upload a 1 MB jar in 307,200-byte chunks, submitTopology, then poll
  ZooKeeper until /assignments/<id> exists; median and p90 of N runs (default 50), each
  topology killed (wait 0) afterwards;
* getClusterInfo calls per second from one client, with 100 live topologies.

Java Nimbus writes assignments from its monitor timer, which the harness runs every second
(pynimbus writes one right after the submission and on every tick), so the Java median includes
up to a second of waiting for the timer: the figure is what a user of `storm jar` sees.

Usage: python bench/bench_submit.py [--runs N] [--targets pynimbus-1.x,1.2.4,...]
"""

import argparse
import os
import statistics
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
sys.path.insert(0, os.path.join(REPO, "tests"))
sys.path.append(REPO)  # an installed pynimbus (maybe compiled: pynimbus.common.compiled) first

from compat.oracle import maven  # noqa: E402
from compat.oracle.supervisors import FakeSupervisors, SupervisorSpec  # noqa: E402
from compat.oracle.targets import java_target, pynimbus_target  # noqa: E402
from nimbus_process import RawClient  # noqa: E402
from pynimbus.cluster import make_cluster_state  # noqa: E402
from pynimbus.generated.storm.ttypes import (  # noqa: E402
    ComponentCommon, ComponentObject, KillOptions, ShellComponent, SpoutSpec, StormTopology,
    StreamInfo)
from zookeeper_server import ZooKeeperServer  # noqa: E402

CHUNK = 307200
JAR = os.urandom(1 << 20)
SUPERVISORS = [SupervisorSpec("bench-sup-%02d" % i, "127.0.1.%d" % (i + 1),
                              [6700, 6701, 6702, 6703]) for i in range(50)]


def small_topology():
    shell = ComponentObject(shell=ShellComponent("python", "spout.py"))
    return StormTopology(spouts={"spout": SpoutSpec(shell, ComponentCommon(
        inputs={}, streams={"default": StreamInfo(["word"], False)}, parallelism_hint=1))},
        bolts={}, state_spouts={})


def upload_jar(client):
    location = client.call("beginFileUpload")
    for i in range(0, len(JAR), CHUNK):
        client.call("uploadChunk", location=location, chunk=JAR[i:i + CHUNK])
    client.call("finishFileUpload", location=location)
    return location


def storm_id_of(state, name):
    for storm_id in state.active_storms():
        base = state.storm_base(storm_id)
        if base is not None and base.name == name:
            return storm_id
    return None


def submit_and_wait(client, state, name, timeout=30.0):
    """Seconds from the first upload call to the Assignment being readable in ZooKeeper."""
    started = time.perf_counter()
    location = upload_jar(client)
    client.call("submitTopology", name=name, uploadedJarLocation=location,
                jsonConf='{"topology.workers": 1, "topology.acker.executors": 0}',
                topology=small_topology())
    storm_id = None
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        storm_id = storm_id or storm_id_of(state, name)
        if storm_id and state.assignment_info(storm_id) is not None:
            return time.perf_counter() - started, storm_id
        time.sleep(0.002)
    raise RuntimeError("no assignment for %s within %.0fs" % (name, timeout))


def calls_per_second(client, method, secs=3.0):
    n, started = 0, time.perf_counter()
    while time.perf_counter() - started < secs:
        client.call(method)
        n += 1
    return n / (time.perf_counter() - started)


def bench_target(label, make_target, runs):
    with make_target() as target:
        with FakeSupervisors(target.cluster_conf, SUPERVISORS, target.storm_version):
            state = make_cluster_state(target.cluster_conf)
            try:
                with RawClient(target.host, target.port, timeout=60) as client:
                    times = []
                    for i in range(runs):
                        secs, storm_id = submit_and_wait(client, state, "bench-%s-%d" % (
                            label.replace(".", "").replace("-", ""), i))
                        times.append(secs)
                        client.call("killTopologyWithOpts", name=state.storm_base(storm_id).name,
                                    options=KillOptions(wait_secs=0))
                    for i in range(100):
                        submit_and_wait(client, state, "live-%d" % i)
                    rate = calls_per_second(client, "getClusterInfo")
            finally:
                state.close()
    times.sort()
    return {"median": statistics.median(times), "p90": times[int(0.9 * (len(times) - 1))],
            "cluster_info_per_sec": rate}


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=50)
    parser.add_argument("--targets", default="pynimbus-1.x,pynimbus-2.x," + ",".join(
        maven.configured_versions()))
    args = parser.parse_args(argv)
    zookeeper = ZooKeeperServer()
    zookeeper.start()
    results = {}
    try:
        for label in args.targets.split(","):
            if label.startswith("pynimbus-"):
                gen = label.split("-", 1)[1]

                def make(gen=gen):
                    return pynimbus_target(gen, zookeeper)
            else:
                reason = maven.unavailable_reason(label)
                if reason:
                    print("%-14s skipped: %s" % (label, reason))
                    continue

                def make(label=label):
                    return java_target(label, zookeeper)
            print("%-14s running %d submissions ..." % (label, args.runs), flush=True)
            results[label] = bench_target(label, make, args.runs)
            r = results[label]
            print("%-14s submit end to end: median %7.1f ms  p90 %7.1f ms;  getClusterInfo with "
                  "100 topologies, 50 supervisors: %7.1f calls/s"
                  % (label, r["median"] * 1e3, r["p90"] * 1e3, r["cluster_info_per_sec"]),
                  flush=True)
    finally:
        zookeeper.stop()
    for py, java in (("pynimbus-1.x", "1.2.4"), ("pynimbus-2.x", maven.STORM_2X)):
        if py in results and java in results:
            print("ratio %s / %s: submit median %.2f, getClusterInfo calls/s %.2f" % (
                py, java, results[py]["median"] / results[java]["median"],
                results[py]["cluster_info_per_sec"] / results[java]["cluster_info_per_sec"]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
