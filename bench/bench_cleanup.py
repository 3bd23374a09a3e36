"""One do-cleanup round over many killed topologies, one of them naming an invalid blob key.

Prints figures, asserts nothing.  On the embedded store (or a real ZooKeeper with --zookeeper),
N killed topologies (default 100) leave their stored code and conf, a heartbeat root, an error
and a backpressure root; the one in the middle of the id order names ``../../etc/passwd`` in
its ``dependency_jars`` (as pynimbus accepted before submit checked the keys).  The monitor's
cleanup then runs one round with the real Monitor, and the bench prints how long it took and
how many topologies and blob files are left (all should be gone).

Usage: python bench/bench_cleanup.py [--topologies N] [--zookeeper]
"""

import argparse
import os
import pathlib
import sys
import tempfile
import time
import uuid

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
sys.path.insert(0, os.path.join(REPO, "tests"))
sys.path.append(REPO)  # an installed pynimbus (maybe compiled: pynimbus.common.compiled) first

from sync_deferreds import result_of  # noqa: E402
from test_monitor_cleanup import CleanupNimbus, leave_behind, leftovers  # noqa: E402
from pynimbus.cluster import make_cluster_state  # noqa: E402
from pynimbus.common.config import default_config  # noqa: E402
from zookeeper_server import ZooKeeperServer  # noqa: E402

BAD_KEY = "../../etc/passwd"


def state_conf(workdir, zookeeper):
    conf = dict(default_config(), **{"storm.local.dir": os.path.join(workdir, "storm-local")})
    if zookeeper is None:
        conf.update({"storm.zookeeper.servers": [],
                     "pynimbus.embedded.state.dir": os.path.join(workdir, "state")})
    else:
        conf.update(zookeeper.storm_conf())
        conf["storm.zookeeper.root"] = "/bench-cleanup-%s" % uuid.uuid4().hex
    return conf


def blob_files(blob_dir):
    return sum(len(files) for _, _, files in os.walk(blob_dir))


def run(count, zookeeper):
    workdir = tempfile.mkdtemp(prefix="bench-cleanup-")
    state = make_cluster_state(state_conf(workdir, zookeeper))
    try:
        nimbus = CleanupNimbus(pathlib.Path(workdir), time.time, state)
        ids = ["topo%04d-%d-1700000000" % (i, i + 1) for i in range(count)]
        bad = ids[count // 2]
        for storm_id in ids:
            leave_behind(nimbus, storm_id, [BAD_KEY] if storm_id == bad else None)
        files_before = blob_files(os.path.join(workdir, "blobs"))
        started = time.monotonic()
        try:
            outcome = "cleaned %d" % len(result_of(nimbus.monitor.do_cleanup()))
        except Exception as e:  # what a round did before one topology could not stop it
            outcome = "failed with %s" % type(e).__name__
        elapsed = time.monotonic() - started
        print("%d killed topologies (%d blob files), one naming %r: one round %s in %.2f s; "
              "left: %d topologies, %d blob files"
              % (count, files_before, BAD_KEY, outcome, elapsed, len(leftovers(nimbus)),
                 blob_files(os.path.join(workdir, "blobs"))))
    finally:
        state.close()


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--topologies", type=int, default=100)
    parser.add_argument("--zookeeper", action="store_true",
                        help="a real ZooKeeper started here instead of the embedded store")
    args = parser.parse_args(argv)
    if not args.zookeeper:
        run(args.topologies, None)
        return
    zookeeper = ZooKeeperServer()
    zookeeper.start()
    try:
        run(args.topologies, zookeeper)
    finally:
        zookeeper.stop()


if __name__ == "__main__":
    main()
