"""``pynimbus ui`` as a process, over HTTP, against ``pynimbus dev`` (its own supervisor): the
cluster-wide REST answers equal what Nimbus answers over Thrift, in Storm's fields; JSONP,
unknown paths, and a Nimbus that is gone answer as Storm's UI does."""

import json
import time

import pytest

from nimbus_process import LOOPBACK, NimbusProcess, free_port
from pynimbus.thrift.client import NimbusClient
from ui_process import UIProcess


@pytest.fixture(scope="module")
def cluster(tmp_path_factory):
    local = tmp_path_factory.mktemp("ui-dev")
    nimbus = NimbusProcess(local, dev_supervisor=True,
                           options=["supervisor.slots.ports=[%d, %d]" % (free_port(), free_port())])
    nimbus.start(timeout=60)
    ui = UIProcess(tmp_path_factory.mktemp("ui"), nimbus.port)
    try:
        ui.wait_serving()
        yield nimbus, ui
    finally:
        ui.stop()
        nimbus.stop()


def thrift(nimbus, method, *args):
    with NimbusClient(LOOPBACK, nimbus.port, timeout=10) as client:
        return getattr(client, method)(*args)


def supervisors_registered(nimbus):
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        info = thrift(nimbus, "getClusterInfo")
        if info.supervisors:
            return info
        time.sleep(0.1)  # the supervisor's first heartbeat is the condition
    pytest.fail("dev's supervisor never registered")


def test_cluster_summary_is_nimbus_answer_in_storms_fields(cluster):
    nimbus, ui = cluster
    info = supervisors_registered(nimbus)
    body = ui.json("/api/v1/cluster/summary")
    assert body["stormVersion"] == "1.2.4"
    assert body["supervisors"] == len(info.supervisors) == 1
    assert body["slotsTotal"] == 2 and body["slotsFree"] == 2 - body["slotsUsed"]
    assert body["topologies"] == len(info.topologies)
    assert body["totalMem"] == info.supervisors[0].total_resources[
        "supervisor.memory.capacity.mb"]
    assert {"bugtracker-url", "central-log-url", "user", "memAssignedPercentUtil"} <= set(body)


def test_nimbus_supervisor_and_topology_summaries(cluster):
    nimbus, ui = cluster
    info = supervisors_registered(nimbus)
    nimbuses = ui.json("/api/v1/nimbus/summary")["nimbuses"]
    assert [(n["host"], n["port"], n["status"]) for n in nimbuses] == [
        (n.host, n.port, "Leader" if n.isLeader else "Not a Leader") for n in info.nimbuses]
    supervisors = ui.json("/api/v1/supervisor/summary")
    assert supervisors["logviewerPort"] == 8000
    assert [(s["id"], s["host"], s["slotsTotal"]) for s in supervisors["supervisors"]] == [
        (s.supervisor_id, s.host, s.num_workers) for s in info.supervisors]
    assert ui.json("/api/v1/topology/summary") == {"topologies": [],
                                                   "schedulerDisplayResource": False}


def test_cluster_configuration_is_nimbus_conf_as_it_is(cluster):
    nimbus, ui = cluster
    status, content_type, body = ui.get("/api/v1/cluster/configuration")
    assert status == 200 and content_type == "application/json;charset=utf-8"
    assert json.loads(body) == json.loads(thrift(nimbus, "getNimbusConf"))


def test_a_callback_parameter_gives_javascript(cluster):
    _nimbus, ui = cluster
    status, content_type, body = ui.get("/api/v1/topology/summary?callback=show")
    assert status == 200 and content_type == "application/javascript;charset=utf-8"
    assert body.startswith("show({") and body.endswith("});")
    assert json.loads(body[len("show("):-2])["topologies"] == []


@pytest.mark.parametrize("path", ["/api/v1/no/such/thing", "/api/v2/cluster/summary",
                                  "/elsewhere"])
def test_an_unknown_path_is_not_found(cluster, path):
    _nimbus, ui = cluster
    assert ui.get(path)[0::2] == (404, "Page not found")


def test_without_nimbus_the_api_answers_500_with_the_error(tmp_path):
    ui = UIProcess(tmp_path, free_port())  # nothing listens there
    try:
        ui.wait_serving()
        status, content_type, body = ui.get("/api/v1/cluster/summary")
        assert status == 500 and content_type == "application/json;charset=utf-8"
        error = json.loads(body)
        assert error["error"] == "500 Server Error"
        assert "LeaderNotFound" in error["errorMessage"]
    finally:
        ui.stop()
