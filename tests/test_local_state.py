"""Tests for pynimbus.common.local_state: Storm's LocalState files and nimbus's topology history."""
# test-case-name: tests.test_local_state

import os

from thrift import TSerialization
from thrift.protocol.TBinaryProtocol import TBinaryProtocolFactory

from pynimbus.common.local_state import LocalState
from pynimbus.generated.storm.ttypes import (
    LocalStateData, LSTopoHistory, LSTopoHistoryList)
from pynimbus.nimbus.topology_history import TopologyHistory, nimbus_topo_history_dir

from fake_clock import FakeClock


def test_put_writes_a_version_file_and_its_token_in_storms_format(tmp_path):
    """The newest version is Thrift binary LocalStateData holding the struct under its Java
    class name, with an empty <version>.version token beside it."""
    clock = FakeClock(1700000000.5)
    state = LocalState(str(tmp_path), clock)
    value = LSTopoHistoryList([LSTopoHistory("a-1-1", 10, ["u"], ["g"])])
    state.put("topo-hist", value)
    assert sorted(os.listdir(tmp_path)) == ["1700000000500", "1700000000500.version"]
    with open(tmp_path / "1700000000500", "rb") as f:
        data = TSerialization.deserialize(LocalStateData(), f.read(), TBinaryProtocolFactory())
    part = data.serialized_parts["topo-hist"]
    assert part.name == "org.apache.storm.generated.LSTopoHistoryList"
    assert TSerialization.deserialize(LSTopoHistoryList(), part.bits,
                                      TBinaryProtocolFactory()) == value
    assert state.get("topo-hist") == value
    assert state.get("other") is None


def test_versions_increase_and_four_are_kept(tmp_path):
    """A write in the same millisecond takes the next number; older versions are removed."""
    clock = FakeClock(1000.0)
    state = LocalState(str(tmp_path), clock)
    for i in range(6):
        state.put("k", LSTopoHistoryList([LSTopoHistory("t-%d" % i, i, [], [])]))
    versions = sorted(n for n in os.listdir(tmp_path) if n.isdigit())
    assert versions == ["1000002", "1000003", "1000004", "1000005"]
    assert state.get("k").topo_history[0].topology_id == "t-5"


def test_a_version_without_token_is_ignored(tmp_path):
    """An interrupted write (no .version token) leaves the previous version current."""
    state = LocalState(str(tmp_path), FakeClock(1.0))
    state.put("k", LSTopoHistoryList([]))
    with open(tmp_path / "999999999", "wb") as f:
        f.write(b"garbage")
    assert state.get("k") == LSTopoHistoryList([])


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
