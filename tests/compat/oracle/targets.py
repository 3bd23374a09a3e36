"""A Nimbus to capture from: a real Java Nimbus or ``pynimbus``, on one test ZooKeeper.

Both are context managers yielding a :class:`Target`: what :mod:`.capture` needs to talk to the
daemon (Thrift on ``host:port``) and to read the state it writes (``cluster_conf`` for
pynimbus's ``StormClusterState``), plus the strings to normalise out of captures (work
directories).
"""

import collections
import contextlib
import getpass
import json
import os
import shutil
import tempfile
import time

from . import maven
from .java_nimbus import JavaNimbus
from nimbus_process import LOOPBACK, NimbusProcess, RawClient, RemoteError

Target = collections.namedtuple("Target", [
    "label",          # "1.2.4", "2.8.3", "pynimbus-1.x" ...
    "kind",           # "java" or "pynimbus"
    "generation",     # "1.x" or "2.x"
    "storm_version",  # version written into fake SupervisorInfo.version
    "host", "port",
    "cluster_conf",   # storm.zookeeper.* to read the state with StormClusterState
    "local_dir",      # storm.local.dir of the daemon
    "workdir",        # directory holding everything of the daemon
    "os_user",        # user Nimbus runs as (topology.submitter.user)
    "describe",       # dict: what ran, with which flags
    "handle",         # the JavaNimbus or NimbusProcess
])


def unique_root(prefix):
    return "/%s-%d-%d" % (prefix, os.getpid(), time.monotonic_ns() % 10 ** 9)


@contextlib.contextmanager
def java_target(version, zookeeper, conf=None, start_timeout=120.0):
    """Run the real Nimbus of Storm ``version`` on ``zookeeper`` (a ZooKeeperServer)."""
    nimbus = JavaNimbus(version, zookeeper.port, zk_root=unique_root("oracle-" + version),
                        conf=conf)
    try:
        nimbus.start(timeout=start_timeout)
        yield Target(version, "java", nimbus.generation, version, nimbus.host, nimbus.port,
                     nimbus.cluster_conf(), nimbus.local_dir, nimbus.workdir,
                     getpass.getuser(), nimbus.describe(), nimbus)
    finally:
        nimbus.stop()


def wait_for_leader(host, port, timeout=30.0):
    deadline = time.monotonic() + timeout
    last = None
    while time.monotonic() < deadline:
        try:
            with RawClient(host, port, timeout=5.0) as client:
                leader = client.call("getLeader")
            if leader is not None and leader.port == port:
                return leader
            last = leader
        except (OSError, RemoteError) as e:
            last = e
        time.sleep(0.2)
    raise RuntimeError("pynimbus on %s:%d did not become leader within %.0f s (last: %r)"
                       % (host, port, timeout, last))


@contextlib.contextmanager
def pynimbus_target(generation, zookeeper, conf=None, start_timeout=60.0, keep_workdir=None,
                    port=None):
    """Run ``pynimbus dev`` in compatibility mode ``generation`` ("1.x"/"2.x") on ZooKeeper
    (on ``port``, a free one by default)."""
    if keep_workdir is None:
        keep_workdir = bool(os.environ.get("PYNIMBUS_ORACLE_KEEP"))
    workdir = tempfile.mkdtemp(prefix="pynimbus-oracle-py%s-" % generation[0])
    local_dir = os.path.join(workdir, "storm-local")
    os.makedirs(local_dir)
    root = unique_root("oracle-pynimbus-" + generation[0])
    options = {
        "pynimbus.storm.compat": generation,
        "storm.zookeeper.servers": [LOOPBACK],
        "storm.zookeeper.port": zookeeper.port,
        "storm.zookeeper.root": root,
        "nimbus.seeds": [LOOPBACK],
        "storm.local.hostname": LOOPBACK,
        "nimbus.monitor.freq.secs": 1,
    }
    options.update(conf or {})
    proc = NimbusProcess(local_dir, port=port, options=["%s=%s" % (k, json.dumps(v))
                                             for k, v in options.items()])
    storm_version = maven.STORM_1X if generation == "1.x" else maven.TARGET_2X
    try:
        proc.start(timeout=start_timeout)
        wait_for_leader(LOOPBACK, proc.port)
        cluster_conf = {"storm.zookeeper.servers": [LOOPBACK],
                        "storm.zookeeper.port": zookeeper.port, "storm.zookeeper.root": root,
                        "storm.zookeeper.connection.timeout": 15000,
                        "storm.zookeeper.session.timeout": 20000}
        yield Target("pynimbus-" + generation, "pynimbus", generation, storm_version, LOOPBACK,
                     proc.port, cluster_conf, local_dir, workdir, getpass.getuser(),
                     {"kind": "pynimbus", "generation": generation, "command": proc.command()},
                     proc)
    finally:
        try:
            proc.stop()
        except Exception:
            proc.kill()
        if not keep_workdir:
            shutil.rmtree(workdir, ignore_errors=True)
