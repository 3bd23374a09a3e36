"""`storm jar` with the stock client: pynimbus beside the real Nimbus of the same Storm version.

Prints figures, asserts nothing.  For each Storm version (1.2.4 and 2.8.3 by default), on one
real ZooKeeper started here, with two fake supervisors of 8 ports each, against pynimbus (in the
matching compat mode) and against the real Nimbus of that version:

* `storm jar` to running: the stock client (``tests/compat/storm_cli.py``) submits
  ``ExclamationTopology`` from the reference topology jar; the time runs from starting the
  client until the StormBase says ACTIVE and ``/assignments/<id>`` exists in ZooKeeper
  (polled every 20 ms).  Median of N runs (default 5) after one unmeasured warm-up run; each
  topology is killed (wait 0) and its removal awaited before the next run.  The client JVM's
  own run time (start-up, connecting, uploading, exit) is printed separately, since it is most
  of the total for both daemons.
* memory: the resident set (VmRSS) of the daemon process while it serves three topologies
  (Exclamation, WordCount, TridentWordCount, submitted with `storm jar` and assigned), after
  the assignments have been stable for two seconds.

Both daemons run their monitor every second (``nimbus.monitor.freq.secs: 1``, as in the oracle
harness); the real Nimbus writes an assignment from its monitor timer, so its figure can include
up to a second of waiting for that timer.

Usage: python bench/bench_storm_jar.py [--runs N] [--versions 1.2.4,2.8.3]
"""

import argparse
import os
import statistics
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
sys.path.insert(0, os.path.join(REPO, "tests"))
sys.path.insert(0, REPO)

from compat import storm_cli, topology_jars  # noqa: E402
from compat.oracle import maven  # noqa: E402
from compat.oracle.supervisors import FakeSupervisors, SupervisorSpec  # noqa: E402
from compat.oracle.targets import java_target, pynimbus_target  # noqa: E402
from nimbus_process import RawClient  # noqa: E402
from pynimbus.cluster import make_cluster_state  # noqa: E402
from pynimbus.generated.storm.ttypes import KillOptions, TopologyStatus  # noqa: E402
from pynimbus.handlers.lifecycle import storm_id_of  # noqa: E402
from zookeeper_server import ZooKeeperServer  # noqa: E402

SUPERVISORS = [SupervisorSpec("bench-jar-a", "127.0.0.2", list(range(6700, 6708))),
               SupervisorSpec("bench-jar-b", "127.0.0.3", list(range(6700, 6708)))]
SERVED = (topology_jars.EXCLAMATION, topology_jars.WORD_COUNT, topology_jars.TRIDENT_WORD_COUNT)
POLL = 0.02


def rss_mib(pid):
    with open("/proc/%d/status" % pid) as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024.0
    return float("nan")


def running(state, name):
    """The storm id once the StormBase is ACTIVE and the Assignment exists, else None."""
    storm_id = storm_id_of(state, name)
    if storm_id is None:
        return None
    base = state.storm_base(storm_id)
    if base is None or base.status != TopologyStatus.ACTIVE:
        return None
    return storm_id if state.assignment_info(storm_id) is not None else None


def wait(fn, timeout, what):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = fn()
        if value is not None:
            return value
        time.sleep(POLL)
    raise RuntimeError("timed out after %.0f s waiting for %s" % (timeout, what))


def storm_jar(version, conf_dir, jar, main_class, name):
    result = storm_cli.storm(version, conf_dir, "jar", jar, main_class, name)
    if result.returncode != 0:
        raise RuntimeError("storm jar %s failed:\n%s" % (name, (result.stdout + result.stderr)
                                                         [-3000:]))


def jar_to_running(version, conf_dir, jar, state, name):
    """(seconds from client start to ACTIVE + assigned, seconds the client ran), storm id."""
    started = time.perf_counter()
    storm_jar(version, conf_dir, jar, topology_jars.EXCLAMATION, name)
    client_secs = time.perf_counter() - started
    storm_id = wait(lambda: running(state, name), 60.0, "%s to run" % name)
    return time.perf_counter() - started, client_secs, storm_id


def settle(state, storm_ids, secs=2.0, timeout=60.0):
    """Until every assignment is unchanged for ``secs``."""
    deadline = time.monotonic() + timeout
    last, since = None, time.monotonic()
    while time.monotonic() < deadline:
        now = [state.assignment_info(s) for s in storm_ids]
        if now != last:
            last, since = now, time.monotonic()
        elif time.monotonic() - since >= secs:
            return
        time.sleep(0.1)


def bench_target(version, make_target, runs, jar, pid_of):
    with make_target() as target, \
            FakeSupervisors(target.cluster_conf, SUPERVISORS, target.storm_version):
        state = make_cluster_state(target.cluster_conf)
        conf_dir = tempfile.mkdtemp(prefix="bench-storm-jar-conf-")
        storm_cli.write_client_conf(conf_dir, target.port)
        try:
            totals, clients = [], []
            for i in range(-1, runs):  # run -1 warms up (page cache, first-call paths)
                name = "bench-jar-%d" % i if i >= 0 else "bench-jar-warm-up"
                total, client_secs, storm_id = jar_to_running(version, conf_dir, jar, state,
                                                              name)
                if i >= 0:
                    totals.append(total)
                    clients.append(client_secs)
                with RawClient(target.host, target.port, timeout=60) as client:
                    client.call("killTopologyWithOpts", name=name,
                                options=KillOptions(wait_secs=0))
                wait(lambda: True if state.storm_base(storm_id) is None else None, 60.0,
                     "%s to be removed" % name)
            served = []
            for main_class in SERVED:
                name = "served-" + main_class.rsplit(".", 1)[1].lower()
                storm_jar(version, conf_dir, jar, main_class, name)
                served.append(wait(lambda: running(state, name), 60.0, name))
            settle(state, served)
            rss = rss_mib(pid_of(target))
        finally:
            state.close()
    return {"median": statistics.median(totals), "client_median": statistics.median(clients),
            "after_client_median": statistics.median(t - c for t, c in zip(totals, clients)),
            "samples": totals, "rss_mib": rss}


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--versions", default="%s,%s" % (maven.STORM_1X, maven.STORM_2X))
    args = parser.parse_args(argv)
    zookeeper = ZooKeeperServer()
    zookeeper.start()
    try:
        for version in args.versions.split(","):
            reason = storm_cli.unavailable_reason(version) or maven.unavailable_reason(version)
            if reason:
                print("Storm %s skipped: %s" % (version, reason))
                continue
            jar = topology_jars.topology_jar(version)
            generation = maven.generation(version)
            results = {}
            for label, make, pid_of in (
                    ("pynimbus-" + generation, lambda: pynimbus_target(generation, zookeeper),
                     lambda t: t.handle.process.pid),
                    ("nimbus-" + version, lambda: java_target(version, zookeeper),
                     lambda t: t.handle.process.pid)):
                print("%-16s %d x storm jar (client %s) ..." % (label, args.runs, version),
                      flush=True)
                r = results[label] = bench_target(version, make, args.runs, jar, pid_of)
                print("%-16s storm jar -> ACTIVE + assigned: median %6.0f ms (client JVM %6.0f "
                      "ms, then %5.0f ms; samples %s);  RSS serving 3 topologies: %6.1f MiB"
                      % (label, r["median"] * 1e3, r["client_median"] * 1e3,
                         r["after_client_median"] * 1e3,
                         " ".join("%.0f" % (s * 1e3) for s in r["samples"]), r["rss_mib"]),
                      flush=True)
            py, java = results["pynimbus-" + generation], results["nimbus-" + version]
            print("ratio pynimbus-%s / nimbus-%s: storm jar to running %.2f, after the client "
                  "exited %.2f, RSS %.2f" % (
                      generation, version, py["median"] / java["median"],
                      py["after_client_median"] / max(java["after_client_median"], 1e-3),
                      py["rss_mib"] / java["rss_mib"]), flush=True)
    finally:
        zookeeper.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
