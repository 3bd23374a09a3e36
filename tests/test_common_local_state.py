"""Tests for pynimbus.common.local_state: Storm's LocalState files."""
# test-case-name: tests.test_common_local_state

import os

from thrift import TSerialization
from thrift.protocol.TBinaryProtocol import TBinaryProtocolFactory

from pynimbus.common.local_state import LocalState
from pynimbus.generated.storm.ttypes import (
    LocalStateData, LSTopoHistory, LSTopoHistoryList)

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
