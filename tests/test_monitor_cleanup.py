"""Tests of the monitor's do-cleanup on real cluster state (embedded and a real ZooKeeper): what
is left of killed topologies goes, and one topology whose cleanup fails never keeps the others'
leftovers."""
# test-case-name: tests.test_monitor_cleanup

import pytest
from twisted.internet import defer

from pynimbus.blobstore.local import LocalFsBlobStore
from pynimbus.common.config import default_config
from pynimbus.generated.storm.ttypes import StormTopology
from pynimbus.nimbus.monitor import Monitor
from pynimbus.nimbus.topology_store import setup_storm_code
from sync_deferreds import result_of, run_now

BAD_KEY = "../../etc/passwd"
# the bad topology sorts between the others, so cleanup meets it mid-round
KILLED = ("alpha-1-1700000000", "bad-2-1700000000", "zeta-3-1700000000")


class CleanupNimbus:
    """What the monitor's cleanup uses of the daemon: conf, state, blob store, leadership."""

    def __init__(self, tmp_path, clock, cluster_state):
        self.conf = default_config("1.x")
        self.clock = clock
        self.state = cluster_state
        self.blob_store = LocalFsBlobStore(base_dir=str(tmp_path / "blobs"), clock=clock)
        self.submit_lock = defer.DeferredLock()
        self.monitor = Monitor(self, run_blocking=run_now)

    def is_leader(self):
        return True


def leave_behind(nimbus, storm_id, dependency_jars=None):
    """Stored code and conf, a worker heartbeat root, an error and a backpressure root of a
    topology that is no longer in /storms (killed and removed)."""
    topology = StormTopology(spouts={}, bolts={}, state_spouts={},
                             dependency_jars=dependency_jars)
    setup_storm_code(nimbus.blob_store, storm_id, None, {"topology.name": storm_id}, topology)
    nimbus.state.setup_heartbeats(storm_id)
    nimbus.state.report_error(storm_id, "spout", "host-a", 6700, "boom")
    nimbus.state.setup_backpressure(storm_id)


def leftovers(nimbus):
    state = nimbus.state
    return (set(state.heartbeat_storms()) | set(state.error_topologies())
            | set(state.backpressure_topologies())
            | {key.split("-storm")[0] for key in nimbus.blob_store.list_keys()})


@pytest.fixture
def nimbus(tmp_path, clock, cluster_state):
    return CleanupNimbus(tmp_path, clock, cluster_state)


def test_a_topology_naming_an_invalid_blob_key_does_not_block_the_others(nimbus):
    """A stored topology whose dependency_jars holds a key no blob can have is cleaned up as
    far as it can be, and the killed topologies after it in the round are cleaned up too."""
    for storm_id in KILLED:
        leave_behind(nimbus, storm_id,
                     dependency_jars=[BAD_KEY] if storm_id.startswith("bad") else None)
    assert leftovers(nimbus) == set(KILLED)
    cleaned = result_of(nimbus.monitor.do_cleanup())
    assert cleaned == sorted(KILLED)
    assert leftovers(nimbus) == set()


def test_a_failing_cleanup_is_logged_and_the_round_goes_on(nimbus, monkeypatch, caplog):
    """When tearing down one topology raises, the round logs it and cleans the next ones; the
    failed one stays a candidate for the next round."""
    for storm_id in KILLED:
        leave_behind(nimbus, storm_id)
    teardown = nimbus.state.teardown_heartbeats

    def failing_teardown(storm_id):
        if storm_id.startswith("bad"):
            raise RuntimeError("ZooKeeper said no")
        teardown(storm_id)

    monkeypatch.setattr(nimbus.state, "teardown_heartbeats", failing_teardown)
    result_of(nimbus.monitor.do_cleanup())
    assert leftovers(nimbus) == {"bad-2-1700000000"}
    assert "bad-2-1700000000" in caplog.text and "ZooKeeper said no" in caplog.text
    monkeypatch.setattr(nimbus.state, "teardown_heartbeats", teardown)
    result_of(nimbus.monitor.do_cleanup())
    assert leftovers(nimbus) == set()
