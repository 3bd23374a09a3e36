"""`storm jar` with the stock client: pynimbus beside the real Nimbus of the same Storm version.

Prints figures, asserts nothing.  For each Storm version (1.2.4 and 2.8.3 by default), on one
real ZooKeeper started here, with two fake supervisors of 8 ports each, against pynimbus (in the
matching compat mode) and against the real Nimbus of that version:

* `storm jar` to running: the stock client (``tests/compat/storm_cli.py``) submits
  ``ExclamationTopology`` from the reference topology jar; the time runs from starting the
  client until the StormBase says ACTIVE and ``/assignments/<id>`` exists in ZooKeeper
  (polled every 20 ms).  Both daemons run at once and the runs alternate between them, so the
  machine's load weighs on both alike; median of N runs each (default 5) after one unmeasured
  warm-up run each; each topology is killed (wait 0) and its removal awaited before the next.
  The client JVM's own run time (start-up, connecting, uploading, exit) is printed separately,
  since it is most of the total for both daemons.
* memory: the resident set (VmRSS) of the daemon process while it serves three topologies
  (Exclamation, WordCount, TridentWordCount, submitted with `storm jar` and assigned), after
  the assignments have been stable for two seconds.

Both daemons run their monitor every second (``nimbus.monitor.freq.secs: 1``, as in the oracle
harness); the real Nimbus writes an assignment from its monitor timer, so its figure can include
up to a second of waiting for that timer.

Usage: python bench/bench_storm_jar.py [--runs N] [--versions 1.2.4,2.8.3]
"""

import argparse
import contextlib
import os
import shutil
import statistics
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
sys.path.insert(0, os.path.join(REPO, "tests"))
sys.path.append(REPO)  # an installed pynimbus (maybe compiled: pynimbus.common.compiled) first

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


class Daemon:
    """One Nimbus (pynimbus or Java) with its fake supervisors and a client conf dir."""

    def __init__(self, label, version, target, jar):
        self.label = label
        self.version = version
        self.target = target
        self.jar = jar
        self.state = make_cluster_state(target.cluster_conf)
        self.conf_dir = tempfile.mkdtemp(prefix="bench-storm-jar-conf-")
        storm_cli.write_client_conf(self.conf_dir, target.port)
        self.totals, self.clients = [], []

    def close(self):
        self.state.close()
        shutil.rmtree(self.conf_dir, ignore_errors=True)

    def run(self, name, measured=True):
        """One `storm jar` to running, then kill (wait 0) and wait for the removal."""
        total, client_secs, storm_id = jar_to_running(self.version, self.conf_dir, self.jar,
                                                      self.state, name)
        if measured:
            self.totals.append(total)
            self.clients.append(client_secs)
        with RawClient(self.target.host, self.target.port, timeout=60) as client:
            client.call("killTopologyWithOpts", name=name, options=KillOptions(wait_secs=0))
        wait(lambda: True if self.state.storm_base(storm_id) is None else None, 60.0,
             "%s to be removed" % name)

    def serve_three(self):
        """Submit and wait for the three served topologies; return the daemon's RSS in MiB."""
        served = []
        for main_class in SERVED:
            name = "served-" + main_class.rsplit(".", 1)[1].lower()
            storm_jar(self.version, self.conf_dir, self.jar, main_class, name)
            served.append(wait(lambda: running(self.state, name), 60.0, name))
        settle(self.state, served)
        return rss_mib(self.target.handle.process.pid)

    def figures(self):
        return {"median": statistics.median(self.totals),
                "client_median": statistics.median(self.clients),
                "after_client_median": statistics.median(
                    t - c for t, c in zip(self.totals, self.clients)),
                "samples": self.totals}


def bench_version(version, zookeeper, runs):
    """Both daemons of ``version`` up at once; runs alternate between them (the machine's load
    then weighs on both alike)."""
    jar = topology_jars.topology_jar(version)
    generation = maven.generation(version)
    with contextlib.ExitStack() as stack:
        daemons = []
        for label, target in (
                ("pynimbus-" + generation, pynimbus_target(generation, zookeeper)),
                ("nimbus-" + version, java_target(version, zookeeper))):
            target = stack.enter_context(target)
            stack.enter_context(FakeSupervisors(target.cluster_conf, SUPERVISORS,
                                                target.storm_version))
            daemon = Daemon(label, version, target, jar)
            stack.callback(daemon.close)
            daemons.append(daemon)
        print("Storm %s: %d x storm jar on each of %s, alternating ..."
              % (version, runs, " and ".join(d.label for d in daemons)), flush=True)
        for daemon in daemons:  # warm-up (page cache, first-call paths), not measured
            daemon.run("bench-jar-warm-up", measured=False)
        for i in range(runs):
            for daemon in daemons if i % 2 == 0 else daemons[::-1]:
                daemon.run("bench-jar-%d" % i)
        results = {}
        for daemon in daemons:
            results[daemon.label] = dict(daemon.figures(), rss_mib=daemon.serve_three())
    return results


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
            results = bench_version(version, zookeeper, args.runs)
            for label, r in results.items():
                print("%-16s storm jar -> ACTIVE + assigned: median %6.0f ms (client JVM %6.0f "
                      "ms, then %5.0f ms; samples %s);  RSS serving 3 topologies: %6.1f MiB"
                      % (label, r["median"] * 1e3, r["client_median"] * 1e3,
                         r["after_client_median"] * 1e3,
                         " ".join("%.0f" % (s * 1e3) for s in r["samples"]), r["rss_mib"]),
                      flush=True)
            generation = maven.generation(version)
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
