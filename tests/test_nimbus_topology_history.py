"""Tests for pynimbus.nimbus.topology_history: Nimbus's topology history in its LocalState."""
# test-case-name: tests.test_nimbus_topology_history

from pynimbus.nimbus.topology_history import TopologyHistory, nimbus_topo_history_dir

from fake_clock import FakeClock


def test_history_add_and_clean_use_the_clock(tmp_path):
    """Kills are recorded with the clock's time; clean forgets those older than the age."""
    clock = FakeClock(10000.0)
    conf = {"storm.local.dir": str(tmp_path)}
    history = TopologyHistory(conf, clock)
    history.add("a-1-1", {"topology.users": ["alice"]})
    clock.now = 10600.0
    history.add("b-2-2", {})
    assert [(e.topology_id, e.time_stamp, e.users) for e in history.entries()] == [
        ("a-1-1", 10000, ["alice"]), ("b-2-2", 10600, [])]
    clock.now = 10000.0 + 11 * 60
    history.clean(10)
    assert [e.topology_id for e in TopologyHistory(conf, clock).entries()] == ["b-2-2"]
    assert nimbus_topo_history_dir(conf) == str(tmp_path / "nimbus" / "history")
