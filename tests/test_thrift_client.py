"""pynimbus.thrift.client.NimbusClient, the synchronous client for scripts, against a real
process."""

import pytest
from thrift.Thrift import TApplicationException

from nimbus_process import NimbusProcess
from pynimbus.generated.storm.ttypes import (
    InvalidTopologyException, KillOptions, NotAliveException)
from pynimbus.thrift.client import NimbusClient
from test_nimbus_scenarios import spout, topology


@pytest.fixture(scope="module")
def nimbus(tmp_path_factory):
    proc = NimbusProcess(tmp_path_factory.mktemp("client"), options=[
        "topology.acker.executors=0", "topology.eventlogger.executors=0"])
    proc.start(timeout=30)
    yield proc
    proc.kill()


def test_calls_take_the_idl_arguments_and_return_results(nimbus):
    """Each IDL method is a method; arguments go positionally or by name."""
    with NimbusClient("127.0.0.1", nimbus.port, timeout=10) as client:
        client.submitTopology("scripted", "", "{}", topology({"spout": spout(parallelism=1)}))
        [summary] = [t for t in client.getClusterInfo().topologies if t.name == "scripted"]
        assert summary.status == "ACTIVE"
        assert client.getTopologyInfoByName(name="scripted").id == summary.id
        client.deactivate("scripted")
        assert client.getTopologyInfo(summary.id).status == "INACTIVE"
        client.killTopologyWithOpts("scripted", KillOptions(wait_secs=0))
        assert client.getLeader().port == nimbus.port


def test_declared_and_undeclared_failures_are_raised(nimbus):
    """Declared exceptions come as themselves, undeclared ones as TApplicationException, and
    names outside the IDL are refused before anything is sent."""
    with NimbusClient("127.0.0.1", nimbus.port, timeout=10) as client:
        with pytest.raises(NotAliveException):
            client.getTopologyInfo("nope-1-1")
        with pytest.raises(InvalidTopologyException, match="blank"):
            client.submitTopology(" ", "", "{}", topology({"spout": spout()}))
        client.submitTopology("doomed", "", "{}", topology({"spout": spout(parallelism=1)}))
        client.killTopologyWithOpts("doomed", KillOptions(wait_secs=30))
        with pytest.raises(TApplicationException, match="No transition"):
            client.activate("doomed")
        with pytest.raises(AttributeError, match="not a method of service Nimbus"):
            client.getClusterInfoo()
        assert client.getClusterInfo() is not None  # the connection is still usable
