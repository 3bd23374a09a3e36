# -*- test-case-name: tests.compat.test_nimbus_failover -*-
"""A real Storm 1.2.4 supervisor runs a topology from the nimbus that took over.

Two ``pynimbus dev`` nimbuses share the session's ZooKeeper and one Thrift port on two loopback
addresses (127.0.0.1 and 127.0.0.2: Storm's clients find nimbuses by ``nimbus.seeds`` hosts on
one ``nimbus.thrift.port``).  The stock ``storm jar`` submits ExclamationTopology to the leader;
the follower copies its jar, code and conf; the leader is killed with SIGKILL and its local
directory deleted.  A real 1.2.4 supervisor started afterwards (empty local directory, both
addresses as seeds) downloads the topology from the new leader and its worker JVM heartbeats.

Opt-in: ``PYNIMBUS_COMPAT=1`` (``tox -e compat``), plus Java and the Storm jars.
"""

import os
import shutil
import time

import pytest

from compat import real_storm
from compat.oracle import maven
from nimbus_process import NimbusProcess, RawClient, RemoteError, free_port, zookeeper_options
from pynimbus.cluster import make_cluster_state
from pynimbus.common.config import default_config
from pynimbus.handlers.lifecycle import storm_id_of

ENABLED = os.environ.get("PYNIMBUS_COMPAT") == "1"

pytestmark = [
    pytest.mark.compat,
    pytest.mark.zookeeper,
    pytest.mark.skipif(not ENABLED, reason="real Storm supervisor tests run with "
                                           "PYNIMBUS_COMPAT=1 (tox -e compat)"),
]

FIRST, SECOND = "127.0.0.1", "127.0.0.2"
WAIT = 180.0


class NimbusOn(NimbusProcess):
    """A ``pynimbus dev`` bound to, and named by, one loopback address."""

    def __init__(self, host, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.host = host
        self.options += ["storm.local.hostname=%s" % host,
                         "pynimbus.thrift.bind.address=%s" % host]

    def wait_until_serving(self, timeout):
        wait_for(lambda: self.answers() or self.process.poll() is not None, timeout,
                 "nimbus on %s to serve" % self.host)
        if self.process.poll() is not None:
            pytest.fail("nimbus on %s exited:\n%s" % (self.host, self.log_tail()))

    def answers(self):
        try:
            with RawClient(self.host, self.port, timeout=5.0) as client:
                client.call("getClusterInfo")
            return True
        except (OSError, RemoteError):
            return False

    def leads(self):
        try:
            with RawClient(self.host, self.port, timeout=10.0) as client:
                leader = client.call("getLeader")
            return (leader.host, leader.port) == (self.host, self.port)
        except (OSError, RemoteError):
            return False


def wait_for(predicate, timeout, what):
    deadline = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > deadline:
            pytest.fail("timed out after %.0f s waiting for %s" % (timeout, what))
        time.sleep(0.25)


def holds(nimbus, keys):
    from pynimbus.generated.storm.ttypes import KeyNotFoundException
    try:
        with RawClient(nimbus.host, nimbus.port, timeout=10.0) as client:
            for key in keys:
                client.call("getBlobMeta", key=key)
        return True
    except KeyNotFoundException:
        return False


@pytest.fixture
def cluster(zookeeper_server, tmp_path):
    reason = real_storm.unavailable_reason("1.x")
    if reason:
        pytest.skip(reason)
    root = "/pynimbus-failover-%d" % os.getpid()
    port = free_port()
    options = zookeeper_options([FIRST], zookeeper_server.port, root) + [
        "nimbus.code.sync.freq.secs=1", "nimbus.monitor.freq.secs=1",
        "storm.zookeeper.session.timeout=4000",
        # a worker JVM may start slowly on a loaded machine: Storm's launch timeout
        "nimbus.task.launch.secs=120", "nimbus.task.timeout.secs=30"]
    nimbuses = []
    for host in (FIRST, SECOND):
        local = tmp_path / host
        local.mkdir()
        nimbuses.append(NimbusOn(host, local, port=port, options=options))
    state = make_cluster_state(dict(default_config(), **{
        "storm.zookeeper.servers": [FIRST], "storm.zookeeper.port": zookeeper_server.port,
        "storm.zookeeper.root": root}))
    try:
        yield nimbuses, state, zookeeper_server, root, tmp_path
    finally:
        state.close()
        for nimbus in nimbuses:
            nimbus.kill()


def test_real_supervisor_runs_the_topology_from_the_new_leader(cluster):
    """After the leader's SIGKILL and the loss of its disk, a new real 1.2.4 supervisor gets
    the topology's code from the follower that took over, and its worker runs."""
    (first, second), state, zookeeper, root, tmp_path = cluster
    first.start(timeout=60)
    wait_for(first.leads, 60, "the first nimbus to lead")
    second.start(timeout=60)
    topology = real_storm.exclamation_topology("1.x", "failover")
    output = real_storm.storm_jar(maven.STORM_1X, first.port, str(tmp_path / "client-conf"),
                                  topology)
    assert "Finished submitting topology: failover" in output, output
    storm_id = storm_id_of(state, "failover")
    keys = [storm_id + s for s in ("-stormjar.jar", "-stormcode.ser", "-stormconf.ser")]
    wait_for(lambda: holds(second, keys), 60, "the follower to copy the blobs")

    first.kill()
    shutil.rmtree(first.local_dir)
    wait_for(second.leads, 60, "the follower to lead")

    with real_storm.RealSupervisor(maven.STORM_1X, zookeeper.port, root, second.port, slots=1,
                                   conf={"nimbus.seeds": [FIRST, SECOND]}) as supervisor:
        def worker_beats():
            return (supervisor.worker_processes()
                    and state.backend.exists("/workerbeats/" + storm_id)
                    and state.backend.get_children("/workerbeats/" + storm_id))

        deadline = time.monotonic() + WAIT
        while not worker_beats():
            if not supervisor.alive() or time.monotonic() > deadline:
                pytest.fail("no worker heartbeat from the real supervisor\n%s\n== nimbus ==\n%s"
                            % (supervisor.log_tail(), second.log_tail()))
            time.sleep(0.5)
        [worker] = supervisor.worker_processes()
        assert worker.storm_id == storm_id
