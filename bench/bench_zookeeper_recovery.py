"""How soon Nimbus serves again after ZooKeeper trouble: pynimbus beside the real Nimbus.

    python bench/bench_zookeeper_recovery.py [--outage-secs 30] [--versions 1.2.4 2.8.3]

On one ZooKeeper (Debian's package, 127.0.0.1, as the tests start it), for each Storm version
a real Nimbus of that version (resolved from Maven Central into .cache/, as the compat harness
does) and a pynimbus of the same generation run side by side, each under its own
``storm.zookeeper.root``, both with a 6 s session timeout.  Two events hit both at once:

* an outage: ZooKeeper is stopped for ``--outage-secs`` and started again on the same port
  and data;
* a session expiry: both daemons are frozen (SIGSTOP) until ZooKeeper has expired their
  sessions (their ``/nimbuses`` entries are gone), then thawed (SIGCONT).

Each event gets a fresh pair of daemons.  After it, the script prints how long each daemon took to serve again as leader (``getClusterInfo``
answered, listing itself as leader, and its ``/nimbuses`` entry back), or that it exited or
did not recover within the limit.  Prints figures; asserts nothing.
"""

import argparse
import os
import signal
import sys
import tempfile
import time

REPO_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.append(REPO_ROOT)  # an installed pynimbus (maybe compiled: pynimbus.common.compiled) first
sys.path.insert(0, os.path.join(REPO_ROOT, "tests"))

from kazoo.client import KazooClient  # noqa: E402

from nimbus_process import NimbusProcess, RawClient, RemoteError, zookeeper_options  # noqa: E402
from zookeeper_server import ZooKeeperServer, unavailable_reason  # noqa: E402

SESSION_TIMEOUT_MS = 6000
RECOVERY_LIMIT_SECS = 120.0
GENERATION = {"1.2.4": "1.x", "2.8.3": "2.x"}


class Daemon:
    """One Nimbus under test: its label, process, Thrift port and ZooKeeper root."""

    def __init__(self, label, process, port, root, stop):
        self.label, self.process, self.port, self.root, self._stop = (
            label, process, port, root, stop)

    def alive(self):
        return self.process.poll() is None

    def signal(self, signum):
        if self.alive():
            self.process.send_signal(signum)

    def stop(self):
        self._stop()


def nimbus_entries(zk, root):
    client = KazooClient(hosts="%s:%d%s" % (zk.host, zk.port, root))
    client.start(timeout=10)
    try:
        return client.get_children("/nimbuses") if client.exists("/nimbuses") else []
    finally:
        client.stop()
        client.close()


def serving_as_leader(zk, daemon):
    try:
        with RawClient("127.0.0.1", daemon.port, timeout=5.0) as client:
            info = client.call("getClusterInfo")
        if not any(n.port == daemon.port and n.isLeader for n in info.nimbuses):
            return False
        return bool(nimbus_entries(zk, daemon.root))
    except (OSError, RemoteError):
        return False


def time_recovery(zk, daemons, since):
    """Seconds from ``since`` until each daemon serves as leader again (or why not)."""
    results = {}
    deadline = since + RECOVERY_LIMIT_SECS
    while len(results) < len(daemons) and time.monotonic() < deadline:
        for d in daemons:
            if d.label in results:
                continue
            if not d.alive():
                results[d.label] = "exited (code %s)" % d.process.returncode
            elif serving_as_leader(zk, d):
                results[d.label] = "%.1f s" % (time.monotonic() - since)
        time.sleep(0.1)
    for d in daemons:
        results.setdefault(d.label, "not serving after %.0f s" % RECOVERY_LIMIT_SECS)
    return results


def start_pynimbus(zk, generation, workdir, root):
    proc = NimbusProcess(workdir, options=zookeeper_options(zk.servers, zk.port, root) + [
        "storm.zookeeper.session.timeout=%d" % SESSION_TIMEOUT_MS,
        "pynimbus.storm.compat=" + generation], log_level="WARNING")
    proc.start(timeout=60)
    return Daemon("pynimbus %s" % generation, proc.process, proc.port, root, proc.kill)


def start_storm(zk, version):
    from compat.oracle.java_nimbus import JavaNimbus
    nimbus = JavaNimbus(version, zk.port, conf={
        "storm.zookeeper.session.timeout": SESSION_TIMEOUT_MS})
    nimbus.start()
    return Daemon("Storm %s Nimbus" % version, nimbus.process, nimbus.port, nimbus.zk_root,
                  nimbus.stop)


def outage(zk, daemons, seconds):
    zk.pause()
    time.sleep(seconds)  # the outage's length is the thing measured against
    zk.resume()
    return time_recovery(zk, daemons, time.monotonic())


def session_expiry(zk, daemons):
    for d in daemons:
        d.signal(signal.SIGSTOP)
    try:
        deadline = time.monotonic() + 60
        while any(nimbus_entries(zk, d.root) for d in daemons) and time.monotonic() < deadline:
            time.sleep(0.2)
    finally:
        for d in daemons:
            d.signal(signal.SIGCONT)
    return time_recovery(zk, daemons, time.monotonic())


def report(title, results):
    print(title)
    for label, figure in results.items():
        print("  %-22s %s" % (label, figure))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--outage-secs", type=float, default=30.0)
    parser.add_argument("--versions", nargs="+", default=["1.2.4", "2.8.3"])
    args = parser.parse_args()
    reason = unavailable_reason()
    if reason:
        print("skipped: needs a real ZooKeeper: " + reason)
        return
    events = [
        ("ZooKeeper outage of %.0f s, time to serve again after ZooKeeper is back"
         % args.outage_secs, lambda zk, daemons: outage(zk, daemons, args.outage_secs)),
        ("Session expiry (frozen past the %d ms session timeout), time to serve again after "
         "thawing" % SESSION_TIMEOUT_MS, session_expiry),
    ]
    for version in args.versions:
        for title, event in events:
            with ZooKeeperServer() as zk, tempfile.TemporaryDirectory() as workdir:
                daemons = start_pair(zk, version, workdir)
                try:
                    report("%s (Storm %s generation):" % (title, version), event(zk, daemons))
                finally:
                    for d in daemons:
                        d.stop()


def start_pair(zk, version, workdir):
    """A fresh pynimbus and, where it can run, the real Nimbus of ``version``."""
    daemons = [start_pynimbus(zk, GENERATION[version], workdir, "/bench-pynimbus")]
    try:
        daemons.append(start_storm(zk, version))
    except Exception as e:  # no java, no Maven Central: pynimbus alone
        print("Storm %s Nimbus not run: %s" % (version, str(e).splitlines()[0]))
    return daemons


if __name__ == "__main__":
    main()
