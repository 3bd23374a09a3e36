"""Drop-in latency under a real Storm supervisor: registration to the first worker heartbeat.

Prints figures, asserts nothing.  Per generation, pynimbus (``pynimbus dev`` in 1.x or 2.x mode,
monitor every second) runs on a real ZooKeeper started here.  Each run:

1. submits an ExclamationTopology (one worker; ``real_storm.exclamation_topology``) with the
   stock ``storm jar`` while no supervisor is alive, so it waits unassigned;
2. starts a fresh real Storm supervisor (1.2.4 or 2.8.3; new id, empty ``storm.local.dir``; see
   ``tests/compat/real_storm.py``) and waits for the worker's heartbeat;
3. reads, from ZooKeeper's own clock, the creation time of ``/supervisors/<id>``
   (registration), the last modification of ``/assignments/<storm id>`` (pynimbus's assignment
   of the new slot) and the creation time of ``/workerbeats/<storm id>/<id>-<port>`` (the
   worker's first heartbeat);
4. kills the topology (wait 0) and stops the supervisor and its worker.

Figures per run and the median: JVM start to registration (wall clock), registration to
assignment, assignment to first heartbeat (download of the jar, code and conf from pynimbus,
worker JVM start, its first heartbeat; the download alone as the supervisor's log reports it),
and registration to first heartbeat.

Usage: python bench/bench_real_supervisor.py [--runs N] [--generations 1.x,2.x]
(needs Java, and mvn or the jars already in .cache)
"""

import argparse
import os
import re
import statistics
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
sys.path.insert(0, os.path.join(REPO, "tests"))
sys.path.append(REPO)  # an installed pynimbus (maybe compiled: pynimbus.common.compiled) first

from kazoo.client import KazooClient  # noqa: E402

from compat import real_storm  # noqa: E402
from compat.oracle import maven  # noqa: E402
from compat.oracle.targets import pynimbus_target  # noqa: E402
from nimbus_process import RawClient  # noqa: E402
from pynimbus.cluster import make_cluster_state, paths  # noqa: E402
from pynimbus.generated.storm.ttypes import KillOptions  # noqa: E402
from pynimbus.handlers.lifecycle import storm_id_of  # noqa: E402
from zookeeper_server import ZooKeeperServer  # noqa: E402

TIMEOUT = 180.0
NAN = float("nan")
VERSIONS = {"1.x": maven.STORM_1X, "2.x": maven.STORM_2X}
# A supervisor's Slot logs how long it waited in each state; these are the waits for the jar,
# code and conf downloads (2.8.3 passes through blob-update once while the downloads commit).
DOWNLOAD_RE = {
    "1.x": re.compile(r"STATE WAITING_FOR_BASIC_LOCALIZATION msInState: (\d+) ->"),
    "2.x": re.compile(r"STATE waiting-for-blob-(?:localization|update) msInState: (\d+) ->"),
}


def poll(fn, what, timeout=TIMEOUT, interval=0.05):
    deadline = time.monotonic() + timeout
    while True:
        value = fn()
        if value:
            return value
        if time.monotonic() > deadline:
            raise RuntimeError("timed out after %.0f s waiting for %s" % (timeout, what))
        time.sleep(interval)


def download_secs(generation, log_text):
    """Time the supervisor's slot spent waiting for the topology's blobs, from its own log."""
    found = DOWNLOAD_RE[generation].findall(log_text)
    return sum(int(ms) for ms in found) / 1000.0 if found else NAN


def one_run(generation, index, zookeeper, target, state, zk, workdir):
    version = VERSIONS[generation]
    root = target.cluster_conf["storm.zookeeper.root"]
    name = "bench-exclaim-%d" % index
    real_storm.storm_jar(version, target.port, os.path.join(workdir, "client-conf"),
                         real_storm.exclamation_topology(generation, name))
    storm_id = poll(lambda: storm_id_of(state, name), "%s to be active" % name)
    supervisor = real_storm.RealSupervisor(version, zookeeper.port, root, target.port, slots=1)
    try:
        started = time.monotonic()
        supervisor.start()
        supervisor_id = poll(lambda: supervisor.supervisor_id, "the supervisor's id")
        poll(lambda: state.supervisor_info(supervisor_id), "/supervisors/%s" % supervisor_id)
        registered_wall = time.monotonic() - started
        port = supervisor.ports[0]
        beat_path = root + paths.workerbeat_path(storm_id, supervisor_id, port)
        poll(lambda: zk.exists(beat_path), beat_path)
        reg = zk.exists(root + paths.supervisor_path(supervisor_id)).ctime
        assigned = zk.exists(root + paths.assignment_path(storm_id)).mtime
        beat = zk.exists(beat_path).ctime
        with RawClient(target.host, target.port) as client:
            client.call("killTopologyWithOpts", name=name, options=KillOptions(wait_secs=0))
        poll(lambda: not supervisor.worker_processes(), "the worker to stop")
        download = download_secs(generation, supervisor.log_text())
    finally:
        supervisor.stop()
    return {"jvm start -> registration": registered_wall,
            "registration -> assignment": (assigned - reg) / 1000.0,
            "assignment -> first heartbeat": (beat - assigned) / 1000.0,
            "  of which blob download": download,
            "registration -> first heartbeat": (beat - reg) / 1000.0}


def bench(generation, runs):
    version = VERSIONS[generation]
    reason = real_storm.unavailable_reason(generation)
    if reason:
        print("real Storm %s supervisor unavailable: %s" % (version, reason))
        return
    figures = []
    with ZooKeeperServer() as zookeeper, \
            pynimbus_target(generation, zookeeper) as target, \
            tempfile.TemporaryDirectory(prefix="pynimbus-bench-realsup-") as workdir:
        state = make_cluster_state(target.cluster_conf)
        zk = KazooClient(hosts="%s:%d" % (zookeeper.host, zookeeper.port))
        zk.start()
        try:
            for i in range(runs):
                figures.append(one_run(generation, i, zookeeper, target, state, zk, workdir))
                print("%s run %d: %s" % (version, i + 1, ", ".join(
                    "%s %.2f s" % (k.strip(), v) for k, v in figures[-1].items())))
                sys.stdout.flush()
        finally:
            zk.stop()
            zk.close()
            state.close()
    print("real Storm %s supervisor + pynimbus %s, ExclamationTopology (1 worker), "
          "median of %d:" % (version, generation, len(figures)))
    for key in figures[0]:
        print("  %-32s %6.2f s" % (key, statistics.median(r[key] for r in figures)))
    sys.stdout.flush()


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--generations", default="1.x,2.x",
                        help="comma-separated: 1.x (Storm 1.2.4), 2.x (Storm 2.8.3)")
    args = parser.parse_args()
    for generation in args.generations.split(","):
        bench(generation.strip(), args.runs)


if __name__ == "__main__":
    main()
