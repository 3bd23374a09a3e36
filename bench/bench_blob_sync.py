"""Benchmark of blob replication between two pynimbus nimbuses (prints figures, asserts nothing).

A real ZooKeeper on 127.0.0.1, two ``pynimbus dev`` processes on it (``nimbus.code.sync.freq.secs``
120, Storm's default: the follower copies on the ``/blobstore`` watch), and for each jar size:

* submit: seconds for ``submitTopology`` (upload excluded) on the leader;
* copied: seconds from the submit's return until the follower answers ``getBlobMeta`` for the
  jar, code and conf (polled every 10 ms), and the jar's MB/s over that time;
* the follower's resident memory (VmRSS) after the largest copy.

    python bench/bench_blob_sync.py [--sizes-mb 1 16 64]
"""

import argparse
import json
import os
import sys
import tempfile
import time
import uuid

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
sys.path.insert(0, os.path.join(REPO, "tests"))
sys.path.append(REPO)  # an installed pynimbus (maybe compiled: pynimbus.common.compiled) first

from nimbus_process import LOOPBACK, NimbusProcess, zookeeper_options  # noqa: E402
from test_nimbus_scenarios import spout, topology  # noqa: E402
from zookeeper_server import ZooKeeperServer, unavailable_reason  # noqa: E402

from pynimbus.generated.storm.ttypes import KeyNotFoundException  # noqa: E402
from pynimbus.thrift.client import NimbusClient  # noqa: E402

UPLOAD_CHUNK = 307200  # what the storm client sends


def start_nimbus(local_dir, zk, root):
    options = zookeeper_options(["127.0.0.1"], zk.port, root) + [
        "storm.local.hostname=%s" % LOOPBACK, "pynimbus.thrift.bind.address=%s" % LOOPBACK,
        "topology.acker.executors=0", "pynimbus.upload.max.bytes=%d" % (1 << 30)]
    proc = NimbusProcess(local_dir, options=options, log_level="WARNING")
    proc.start(timeout=60)
    return proc


def leads(proc):
    with NimbusClient(LOOPBACK, proc.port) as nimbus:
        try:
            return nimbus.getLeader().port == proc.port
        except Exception:
            return False


def upload(nimbus, jar):
    location = nimbus.beginFileUpload()
    for start in range(0, len(jar), UPLOAD_CHUNK):
        nimbus.uploadChunk(location, jar[start:start + UPLOAD_CHUNK])
    nimbus.finishFileUpload(location)
    return location


def holds(proc, keys):
    with NimbusClient(LOOPBACK, proc.port) as nimbus:
        for key in keys:
            try:
                nimbus.getBlobMeta(key)
            except KeyNotFoundException:
                return False
    return True


def measure(leader, follower, size_mb, name):
    jar = os.urandom(size_mb << 20)
    with NimbusClient(LOOPBACK, leader.port, timeout=300) as nimbus:
        location = upload(nimbus, jar)
        t0 = time.perf_counter()
        nimbus.submitTopology(name, location, json.dumps({}), topology({"s": spout()}))
        submitted = time.perf_counter()
        [storm_id] = [t.id for t in nimbus.getClusterInfo().topologies if t.name == name]
    keys = [storm_id + s for s in ("-stormjar.jar", "-stormcode.ser", "-stormconf.ser")]
    deadline = submitted + 600
    while not holds(follower, keys):
        if time.perf_counter() > deadline:
            raise RuntimeError("the follower did not copy %s within 600 s" % storm_id)
        time.sleep(0.01)
    copied = time.perf_counter() - submitted
    return submitted - t0, copied, size_mb / copied


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes-mb", type=int, nargs="+", default=[1, 16, 64])
    args = parser.parse_args()
    reason = unavailable_reason()
    if reason:
        sys.exit("needs a real ZooKeeper: " + reason)
    zk = ZooKeeperServer()
    zk.start()
    root = "/bench-blob-sync-%s" % uuid.uuid4().hex
    with tempfile.TemporaryDirectory(prefix="bench-blob-sync-") as tmp:
        a_dir, b_dir = os.path.join(tmp, "a"), os.path.join(tmp, "b")
        os.mkdir(a_dir)
        os.mkdir(b_dir)
        leader = start_nimbus(a_dir, zk, root)
        follower = None
        try:
            deadline = time.monotonic() + 30
            while not leads(leader) and time.monotonic() < deadline:
                time.sleep(0.05)
            follower = start_nimbus(b_dir, zk, root)
            print("%8s %10s %10s %10s" % ("jar MB", "submit s", "copied s", "MB/s"))
            for i, size in enumerate(args.sizes_mb):
                submit_s, copied_s, rate = measure(leader, follower, size, "bench%d" % i)
                print("%8d %10.3f %10.3f %10.1f" % (size, submit_s, copied_s, rate))
            print("follower VmRSS after the copies: %.1f MiB" % (follower.rss_kib() / 1024.0))
        finally:
            for proc in (follower, leader):
                if proc is not None:
                    proc.stop()
            zk.stop()


if __name__ == "__main__":
    main()
