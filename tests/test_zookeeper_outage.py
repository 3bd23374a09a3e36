"""A pynimbus process on a real ZooKeeper that goes away: outages, session expiry, shutdown.

Each test runs its own ZooKeeper (so it can be stopped and started again on the same port and
data) and a ``pynimbus dev`` process pointed at it.  After any outage and after the expiry of its
session, nimbus must serve again by itself, registered under ``/nimbuses`` and leading through
``/leader-lock``; while ZooKeeper is away calls fail at once, saying so; SIGTERM exits.
"""

import contextlib
import logging
import signal
import time

import pytest

from nimbus_process import NimbusProcess, RawClient, RemoteError, zookeeper_options
from test_nimbus_scenarios import spout, topology

# tens of seconds each (tox -e slow, which CI runs, not the default run)
pytestmark = [pytest.mark.zookeeper, pytest.mark.slow]

ROOT = "/outage"


@pytest.fixture
def zookeeper(own_zookeeper):
    return own_zookeeper


def start_nimbus(tmp_path, zookeeper, *options):
    proc = NimbusProcess(tmp_path, options=zookeeper_options(
        zookeeper.servers, zookeeper.port, ROOT) + [
        "nimbus.monitor.freq.secs=1",
        "topology.acker.executors=0",
        "topology.eventlogger.executors=0"] + list(options))
    proc.start(timeout=60)
    return proc


def call(proc, method, timeout=10.0, **kwargs):
    with RawClient("127.0.0.1", proc.port, timeout=timeout) as client:
        return client.call(method, **kwargs)


def submit(proc, name):
    call(proc, "submitTopology", name=name, uploadedJarLocation="", jsonConf="{}",
         topology=topology({"spout": spout(parallelism=1)}))


def registered(zookeeper):
    """(children of /nimbuses, latch participants' data) as a fresh ZooKeeper client sees them."""
    from kazoo.client import KazooClient
    client = KazooClient(hosts="%s:%d%s" % (zookeeper.host, zookeeper.port, ROOT))
    client.start(timeout=10)
    try:
        nimbuses = client.get_children("/nimbuses")
        latch = [client.get("/leader-lock/" + name)[0].decode()
                 for name in client.get_children("/leader-lock")]
        return nimbuses, latch
    finally:
        client.stop()
        client.close()


def serving_as_leader(proc, zookeeper):
    """Nimbus answers as leader, is registered and queued, and accepts a write."""
    try:
        info = call(proc, "getClusterInfo")
        nimbuses, latch = registered(zookeeper)
    except (OSError, RemoteError):
        return False
    own = "localhost:%d" % proc.port
    return ([n.isLeader for n in info.nimbuses if n.port == proc.port] == [True]
            and nimbuses == [own] and latch == [own])


def wait_for(predicate, timeout, what, proc):
    deadline = time.monotonic() + timeout
    while not predicate():
        if proc.process.poll() is not None:
            pytest.fail("nimbus exited while waiting for %s:\n%s" % (what, proc.log_tail()))
        if time.monotonic() > deadline:
            pytest.fail("timed out after %.0f s waiting for %s:\n%s"
                        % (timeout, what, proc.log_tail()))
        time.sleep(0.2)


def wait_out(seconds, proc):
    """Let an outage last ``seconds`` (its length is what is under test), watching nimbus."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        assert proc.process.poll() is None, proc.log_tail()
        time.sleep(min(1.0, max(0.0, deadline - time.monotonic())))


@pytest.mark.parametrize("outage_secs", [25, 60])
def test_nimbus_serves_again_after_a_zookeeper_outage(tmp_path, zookeeper, outage_secs):
    """After ZooKeeper was away for ``outage_secs`` (longer than the session timeout and the
    retry policy), nimbus reconnects, is registered and leads again, and takes submissions;
    during the outage a call fails at once with a message naming ZooKeeper."""
    proc = start_nimbus(tmp_path, zookeeper)
    try:
        submit(proc, "before")
        wait_for(lambda: serving_as_leader(proc, zookeeper), 30, "nimbus to lead", proc)
        zookeeper.pause()
        wait_out(3, proc)
        with pytest.raises(RemoteError, match="ZooKeeper"):
            call(proc, "getClusterInfo", timeout=10)
        with pytest.raises(RemoteError, match="ZooKeeper"):
            submit(proc, "during")
        wait_out(outage_secs - 3, proc)
        zookeeper.resume()
        wait_for(lambda: serving_as_leader(proc, zookeeper), 60,
                 "nimbus to serve again after the outage", proc)
        submit(proc, "after")
        names = sorted(t.name for t in call(proc, "getClusterInfo").topologies)
        assert names == ["after", "before"]
    finally:
        proc.kill()


def test_nimbus_registers_and_leads_again_after_its_session_expires(tmp_path, zookeeper):
    """Nimbus frozen (SIGSTOP) past its session timeout loses its session and so its
    ephemeral nodes; resumed, it gets a new session, registers and queues again, and leads."""
    proc = start_nimbus(tmp_path, zookeeper, "storm.zookeeper.session.timeout=3000")
    try:
        wait_for(lambda: serving_as_leader(proc, zookeeper), 30, "nimbus to lead", proc)
        proc.process.send_signal(signal.SIGSTOP)
        try:
            deadline = time.monotonic() + 30
            while registered(zookeeper) != ([], []):
                assert time.monotonic() < deadline, "ZooKeeper did not expire the session"
                time.sleep(0.2)
        finally:
            proc.process.send_signal(signal.SIGCONT)
        wait_for(lambda: serving_as_leader(proc, zookeeper), 60,
                 "nimbus to register and lead with a new session", proc)
        submit(proc, "after-expiry")
    finally:
        proc.kill()


def test_sigterm_while_zookeeper_is_away_exits(tmp_path, zookeeper):
    """SIGTERM during an outage stops nimbus within a few seconds, with exit code 0."""
    proc = start_nimbus(tmp_path, zookeeper)
    try:
        wait_for(lambda: serving_as_leader(proc, zookeeper), 30, "nimbus to lead", proc)
        zookeeper.pause()
        wait_out(3, proc)
        assert proc.stop(timeout=10) == 0, proc.log_tail()
    finally:
        proc.kill()


class ConnectionAttempts(logging.Handler):
    """Counts kazoo's "Connecting to ..." lines: one per connection attempt."""

    def __init__(self):
        super().__init__(logging.INFO)
        self.count = 0

    def emit(self, record):
        if record.getMessage().startswith("Connecting to"):
            self.count += 1

    @contextlib.contextmanager
    def counted(self):
        logger = logging.getLogger("kazoo")
        level = logger.level
        logger.setLevel(logging.INFO)
        logger.addHandler(self)
        try:
            yield self
        finally:
            logger.removeHandler(self)
            logger.setLevel(level)


def backend_conf(zookeeper, tmp_path, **overrides):
    from pynimbus.common.config import default_config
    conf = default_config()
    conf.update(zookeeper.storm_conf())
    conf.update({"storm.local.dir": str(tmp_path), "storm.zookeeper.root": ROOT})
    conf.update(overrides)
    return conf


def test_backend_fails_at_once_during_an_outage_and_reconnects_after_it(tmp_path, zookeeper,
                                                                        wait_until):
    """While ZooKeeper is down every operation raises ConnectionLostError naming ZooKeeper
    (no retry loop waits it out); the session outlives the retry policy, and the listeners
    hear SUSPENDED, then CONNECTED when it is back."""
    from pynimbus.cluster.backend import ConnectionLostError
    from pynimbus.cluster.zk_backend import ZooKeeperBackend
    backend = ZooKeeperBackend(backend_conf(zookeeper, tmp_path,
                                            **{"storm.zookeeper.retry.times": 2}))
    heard = []
    backend.add_connection_listener(heard.append)
    attempts = ConnectionAttempts()
    try:
        backend.set_data("/kept", b"1")
        zookeeper.pause()
        wait_until(lambda: not backend.connected, 15, "the backend to notice the outage")
        for operation in (lambda: backend.get("/kept"), lambda: backend.set_data("/x", b""),
                          lambda: backend.get_many(["/kept"]),
                          lambda: backend.get_children("/")):
            with pytest.raises(ConnectionLostError, match="ZooKeeper at .* is unreachable"):
                operation()
        # the outage outlasts the retry policy (2 tries), which once ended the reconnecting
        with attempts.counted():
            wait_until(lambda: attempts.count > 4, 60,
                       "more connection attempts during the outage than the policy's tries")
        zookeeper.resume()
        wait_until(lambda: backend.connected, 30, "the backend to reconnect")
        assert backend.get("/kept") == b"1"
        wait_until(lambda: heard[-1:] == [backend.CONNECTED], 10, "the CONNECTED event")
        assert backend.SUSPENDED in heard
    finally:
        backend.close()


def test_backend_opens_a_new_session_after_expiry(tmp_path, zookeeper, wait_until):
    """An expired session is replaced: listeners hear LOST then CONNECTED, its ephemeral
    nodes are gone, and the backend works on in the new session."""
    from kazoo.client import KazooClient

    from pynimbus.cluster.zk_backend import ZooKeeperBackend
    backend = ZooKeeperBackend(backend_conf(zookeeper, tmp_path))
    heard = []
    backend.add_connection_listener(heard.append)
    try:
        backend.set_ephemeral_node("/mine", b"")
        # a second client on the same session, closed, expires it for the backend
        twin = KazooClient(hosts=backend.hosts, client_id=backend._client.client_id)
        twin.start(timeout=10)
        twin.stop()
        twin.close()
        wait_until(lambda: backend.LOST in heard, 15, "the LOST event")
        wait_until(lambda: backend.connected, 15, "a new session")
        assert not backend.exists("/mine")
        backend.set_ephemeral_node("/mine", b"again")
        assert backend.get("/mine") == b"again"
    finally:
        backend.close()
