"""``pynimbus ui`` as a process, over HTTP, against ``pynimbus dev`` (its own supervisor): the
cluster-wide REST answers equal what Nimbus answers over Thrift, in Storm's fields; JSONP,
unknown paths, and a Nimbus that is gone answer as Storm's UI does."""

import json
import time

import pytest

from nimbus_process import LOOPBACK, NimbusProcess, free_port
from pynimbus.generated.storm.ttypes import KillOptions
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


@pytest.mark.parametrize("callback", ["alert(1)//", "1x", "a-b", "x" * 129])
def test_a_callback_that_is_no_javascript_name_is_ignored(cluster, callback):
    """As 2.8.8 sanitizes it: the answer is plain JSON, nothing of the parameter in it."""
    _nimbus, ui = cluster
    status, content_type, body = ui.get("/api/v1/topology/summary?callback=" + callback)
    assert status == 200 and content_type == "application/json;charset=utf-8"
    assert json.loads(body)["topologies"] == []


def test_in_2x_mode_failures_answer_as_storm_2_8_8s_exception_mappers(cluster, tmp_path):
    """A message (not a trace), never as JavaScript, with 2.8.8's CORS headers."""
    nimbus, _ui = cluster
    ui = UIProcess(tmp_path, nimbus.port, options=["pynimbus.storm.compat=2.x"])
    try:
        ui.wait_serving()
        status, headers, body = ui.exchange("GET", "/api/v1/topology/nope-1-1?callback=show")
        assert status == 500 and headers["content-type"] == "application/json;charset=utf-8"
        error = json.loads(body)
        assert error["error"] == "500 Server Error"
        assert error["errorMessage"].startswith(
            "org.apache.storm.generated.NotAliveException: ") and "nope-1-1" in (
            error["errorMessage"])
        assert headers["access-control-allow-origin"] == "*"
        assert headers["x-content-type-options"] == "nosniff"
    finally:
        ui.stop()


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
        # Prometheus's scrape still answers: the figure says Nimbus is out of reach
        assert prometheus_samples(ui)[("storm_nimbus_reachable", ())] == 0
    finally:
        ui.stop()


def prometheus_samples(ui):
    """``{(sample name, sorted labels): value}`` of a ``/metrics`` scrape."""
    from prometheus_client.parser import text_string_to_metric_families
    status, content_type, body = ui.get("/metrics")
    assert status == 200 and content_type.startswith("text/plain; version="), body
    return {(sample.name, tuple(sorted(sample.labels.items()))): sample.value
            for family in text_string_to_metric_families(body) for sample in family.samples}


def test_a_running_topologys_page_shows_its_components_counting(cluster, tmp_path):
    """The quickstart word count on dev's Python workers: its page (all-time and 10-minute
    windows) lists its components with what they emitted, as getTopologyPageInfo has it."""
    import subprocess
    import sys

    from pynimbus_path import child_env
    from sparse_projects import quickstart

    nimbus, ui = cluster
    root = quickstart(tmp_path)
    submitted = subprocess.run(
        [sys.executable, "-m", "pynimbus.cli", "submit", "topologies/wordcount.py",
         "--nimbus", "127.0.0.1:%d" % nimbus.port, "--wait"],
        cwd=root, env=child_env(), capture_output=True, text=True, timeout=180)
    assert submitted.returncode == 0, submitted.stdout + submitted.stderr
    try:
        [summary] = thrift(nimbus, "getClusterInfo").topologies
        path = "/api/v1/topology/%s" % summary.id
        deadline = time.monotonic() + 120
        while True:
            page = ui.json(path)
            if page["spouts"] and page["spouts"][0]["emitted"] > 0:
                break
            assert time.monotonic() < deadline, page
            time.sleep(0.5)  # the workers' heartbeats bring the counts
        info = thrift(nimbus, "getTopologyPageInfo", summary.id, ":all-time", False)
        assert page["name"] == "wordcount" and page["status"] == "ACTIVE"
        assert [s["spoutId"] for s in page["spouts"]] == sorted(info.id_to_spout_agg_stats)
        assert sorted(b["boltId"] for b in page["bolts"]) == sorted(info.id_to_bolt_agg_stats)
        assert page["topologyStats"][-1]["window"] == ":all-time"
        assert page["topologyStats"][-1]["emitted"] > 0
        assert [w["port"] for w in page["workers"]] == [w.port for w in info.workers]
        ten_minutes = ui.json(path + "?window=600")
        assert ten_minutes["window"] == "600" and ten_minutes["windowHint"] == "10m 0s"
        assert ten_minutes["spouts"][0]["emitted"] > 0
        bolt = ui.json(path + "/component/count_bolt")
        component = thrift(nimbus, "getComponentPageInfo", summary.id, "count_bolt",
                           ":all-time", False)
        assert (bolt["componentType"], bolt["name"], bolt["executors"]) == (
            "bolt", "wordcount", component.num_executors)
        assert [(i["component"], i["stream"]) for i in bolt["inputStats"]] == [
            ("word_spout", "default")]
        assert sorted(e["id"] for e in bolt["executorStats"]) == sorted(
            "[%d-%d]" % (e.exec_summary.executor_info.task_start,
                         e.exec_summary.executor_info.task_end) for e in component.exec_stats)
        spout = ui.json(path + "/component/word_spout")
        assert spout["componentType"] == "spout" and "spoutSummary" in spout
        graph = ui.json(path + "/visualization")
        assert (graph["word_spout"][":type"], graph["count_bolt"][":type"]) == ("spout", "bolt")
        assert graph["word_spout"][":transferred"] > 0
        assert [(i[":component"], i[":stream"], i[":grouping"])
                for i in graph["count_bolt"][":inputs"]] == [("word_spout", "default", "fields")]
        boxes = ui.json(path + "/visualization-init")["visualizationTable"]
        assert {"default"} <= {b[":stream"] for row in boxes for b in row[":row"]}
        metrics = ui.json(path + "/metrics")
        assert metrics["spouts"][0]["id"] == "word_spout"
        assert metrics["spouts"][0]["emitted"][0]["value"] > 0
        assert ui.json(path + "/lag") == {}
        samples = prometheus_samples(ui)
        topology = (("topology", "wordcount"), ("topology_id", summary.id))
        assert samples[("storm_nimbus_reachable", ())] == 1
        assert samples[("storm_cluster_supervisors", ())] == 1
        status = tuple(sorted(topology + (("status", "ACTIVE"),)))
        assert samples[("storm_topology_status", status)] == 1
        assert samples[("storm_topology_emitted_total", topology)] > 0
        bolt = tuple(sorted(topology + (("component", "count_bolt"), ("type", "bolt"))))
        assert samples[("storm_component_executed_total", bolt)] > 0
        assert samples[("storm_component_executors", bolt)] == component.num_executors
        assert samples[("process_resident_memory_bytes", ())] > 0
    finally:
        thrift(nimbus, "killTopologyWithOpts", "wordcount", KillOptions(wait_secs=0))


def test_an_unknown_topology_answers_500_with_nimbus_error(cluster):
    _nimbus, ui = cluster
    status, _type, body = ui.get("/api/v1/topology/nope-1-1")
    assert status == 500 and "NotAliveException" in json.loads(body)["errorMessage"]


def submit_quickstart(nimbus, tmp_path, name="wordcount", *options):
    """The quickstart word count submitted as ``name`` (and waited for)."""
    import subprocess
    import sys

    from pynimbus_path import child_env
    from sparse_projects import quickstart

    root = quickstart(tmp_path)
    submitted = subprocess.run(
        [sys.executable, "-m", "pynimbus.cli", "submit", "topologies/wordcount.py",
         "--name", name, "--nimbus", "127.0.0.1:%d" % nimbus.port, "--wait"] + list(options),
        cwd=root, env=child_env(), capture_output=True, text=True, timeout=180)
    assert submitted.returncode == 0, submitted.stdout + submitted.stderr
    return next(t.id for t in thrift(nimbus, "getClusterInfo").topologies if t.name == name)


def test_the_lifecycle_actions_reach_nimbus(cluster, tmp_path):
    """POST deactivate, activate, debug (topology and component), rebalance with options
    and kill, each answered as Storm's UI answers; a wait time that is no number changes
    nothing."""
    nimbus, ui = cluster
    storm_id = submit_quickstart(nimbus, tmp_path, "actions")
    base = "/api/v1/topology/%s/" % storm_id

    def status():
        return thrift(nimbus, "getTopologyInfo", storm_id).status

    assert ui.post(base + "deactivate") == (200, {
        "topologyOperation": "deactivate", "topologyId": storm_id, "status": "success"})
    assert status() == "INACTIVE"
    assert ui.post(base + "activate")[0] == 200 and status() == "ACTIVE"
    assert ui.post(base + "debug/enable/20")[1]["topologyOperation"] == "debug/enable"
    debug = thrift(nimbus, "getTopologyInfo", storm_id).component_debug
    assert debug[storm_id].enable and debug[storm_id].samplingpct == 20.0  # the topology's
    assert ui.post(base + "component/count_bolt/debug/enable/5")[1] == {
        "topologyOperation": "/debug/enable", "topologyId": storm_id,
        "componentId": "count_bolt", "status": "success"}
    debug = thrift(nimbus, "getTopologyInfo", storm_id).component_debug
    assert debug["count_bolt"].enable and debug["count_bolt"].samplingpct == 5.0
    code, error = ui.post(base + "kill/soon")
    assert code == 500 and 'For input string: \\"soon\\"' in json.dumps(error), error
    assert status() == "ACTIVE"
    assert ui.post(base + "rebalance/0", {"rebalanceOptions": {"numWorkers": 1}})[0] == 200
    assert status() == "REBALANCING"
    assert ui.post(base + "kill/0")[1]["topologyOperation"] == "kill"
    deadline = time.monotonic() + 60
    while any(t.id == storm_id for t in thrift(nimbus, "getClusterInfo").topologies):
        assert time.monotonic() < deadline, "the topology was never removed"
        time.sleep(0.2)  # removal after the kill's wait is the condition


def test_a_cross_site_action_is_refused_and_the_same_sites_is_not(cluster, tmp_path):
    """A browser's POST from another site's page (its Origin) changes nothing; scripts (no
    Origin) and the UI's own pages (same Origin) act."""
    nimbus, ui = cluster
    storm_id = submit_quickstart(nimbus, tmp_path, "forged")
    path = "/api/v1/topology/%s/deactivate" % storm_id
    for origin in ("http://evil.example", "null", "http://127.0.0.1:1"):
        code, error = ui.post(path, headers={"Origin": origin})
        assert code == 403 and error["error"] == "Forbidden action.", error
        assert "cross-site request refused" in error["errorMessage"]
    assert thrift(nimbus, "getTopologyInfo", storm_id).status == "ACTIVE"
    own = "http://%s:%d" % (LOOPBACK, ui.port)
    assert ui.post(path, headers={"Origin": own})[0] == 200
    assert thrift(nimbus, "getTopologyInfo", storm_id).status == "INACTIVE"
    thrift(nimbus, "killTopologyWithOpts", "forged", KillOptions(wait_secs=0))


def test_with_anti_forgery_on_an_action_needs_the_sessions_token(cluster, tmp_path):
    """``pynimbus.ui.anti.forgery``: Storm 0.10's token, from /api/v1/token or the topology
    page, in x-csrf-token with the session's cookie."""
    nimbus, _ui = cluster
    storm_id = submit_quickstart(nimbus, tmp_path, "guarded")
    ui = UIProcess(tmp_path, nimbus.port, options=["pynimbus.ui.anti.forgery=true"])
    try:
        ui.wait_serving()
        path = "/api/v1/topology/%s/deactivate" % storm_id
        assert ui.post(path) == (403, {"error": "Forbidden action.",
                                       "errorMessage": "missing CSRF token."})
        status, headers, body = ui.exchange("GET", "/api/v1/token")
        assert status == 200
        token = json.loads(body)["antiForgeryToken"]
        cookie = headers["Set-Cookie"].split(";")[0]
        assert ui.post(path, headers={"x-csrf-token": token})[0] == 403  # no session
        assert ui.post(path, headers={"Cookie": cookie, "x-csrf-token": "0" * 64})[0] == 403
        assert thrift(nimbus, "getTopologyInfo", storm_id).status == "ACTIVE"
        assert ui.post(path, headers={"Cookie": cookie, "x-csrf-token": token})[0] == 200
        assert thrift(nimbus, "getTopologyInfo", storm_id).status == "INACTIVE"
        status, _headers, body = ui.exchange("GET", "/api/v1/topology/" + storm_id,
                                             headers={"Cookie": cookie})
        assert json.loads(body)["antiForgeryToken"] == token
    finally:
        ui.stop()
        thrift(nimbus, "killTopologyWithOpts", "guarded", KillOptions(wait_secs=0))


def test_an_action_on_an_unknown_topology_or_path(cluster):
    _nimbus, ui = cluster
    code, error = ui.post("/api/v1/topology/nope-1-1/activate")
    assert code == 500 and "NotAliveException" in error["errorMessage"]
    assert ui.post("/api/v1/topology/nope-1-1/explode") == (404, "Page not found")


def test_topology_workers_supervisor_page_and_log_config(cluster, tmp_path):
    nimbus, ui = cluster
    storm_id = submit_quickstart(nimbus, tmp_path, "pages")
    try:
        info = thrift(nimbus, "getTopologyInfo", storm_id)
        workers = ui.json("/api/v1/topology-workers/%s" % storm_id)
        assert workers["hostPortList"] == [
            dict(t) for t in dict.fromkeys((("host", e.host), ("port", e.port))
                                           for e in info.executors)]
        [supervisor] = thrift(nimbus, "getClusterInfo").supervisors
        page = ui.json("/api/v1/supervisor?id=%s" % supervisor.supervisor_id)
        assert [s["id"] for s in page["supervisors"]] == [supervisor.supervisor_id]
        assert {w["topologyId"] for w in page["workers"]} == {storm_id}
        logconfig = "/api/v1/topology/%s/logconfig" % storm_id
        assert ui.json(logconfig) == {"namedLoggerLevels": {}}
        code, body = ui.post(logconfig, {"namedLoggerLevels": {
            "ROOT": {"target_level": "debug", "timeout": 30},
            "streamparse": {"target_level": "WARN"}}})
        assert code == 200, body
        levels = body["namedLoggerLevels"]
        assert (levels["ROOT"]["target_level"], levels["ROOT"]["timeout"]) == ("DEBUG", 30)
        assert levels["streamparse"]["target_level"] == "WARN"
        stored = thrift(nimbus, "getLogConfig", storm_id).named_logger_level
        assert stored["ROOT"].target_log_level == "DEBUG"
        code, body = ui.post(logconfig, {"namedLoggerLevels": {
            "streamparse": {"target_level": None}}})
        assert code == 200 and "streamparse" not in body["namedLoggerLevels"], body
        assert ui.json(logconfig) == body
    finally:
        thrift(nimbus, "killTopologyWithOpts", "pages", KillOptions(wait_secs=0))


def test_profiling_requests(cluster, tmp_path):
    """start, stop and dumpprofile answer 501 without worker.profiler.enabled; a jstack dump
    goes to Nimbus as a ProfileRequest for the worker, as 1.2.4's UI sends it."""
    nimbus, ui = cluster
    storm_id = submit_quickstart(nimbus, tmp_path, "profiled")
    try:
        [worker] = thrift(nimbus, "getTopologyPageInfo", storm_id, ":all-time", False).workers
        host_port = "%s:%d" % (worker.host, worker.port)
        base = "/api/v1/topology/%s/profiling/" % storm_id
        for verb in ("start/%s/10" % host_port, "stop/" + host_port,
                     "dumpprofile/" + host_port):
            status, _type, body = ui.get(base + verb)
            assert (status, json.loads(body)) == (501, {
                "status": "disabled", "message": "Profiling is not enabled on this server"})
        status, _type, body = ui.get(base + "dumpjstack/" + host_port)
        assert (status, json.loads(body)) == (200, {"status": "ok", "id": host_port})
        status, _type, body = ui.get(base + "dumpheap/%s:soon" % worker.host)
        assert status == 500 and "soon" in json.loads(body)["errorMessage"]
    finally:
        thrift(nimbus, "killTopologyWithOpts", "profiled", KillOptions(wait_secs=0))


def test_in_2x_mode_the_pages_and_actions_are_storm_2_8_8s(tmp_path_factory):
    """A UI with ``pynimbus.storm.compat=2.x`` before a 2.x ``pynimbus dev`` running the word
    count: 2.8.8's fields (logviewer links under ``/api/v1/``, the scheme, owners, generic
    resources), its stats rows, ``/metrics`` as the topology page, log levels as Nimbus keeps
    them, a component's debug answered as the topology's, and profiling as a POST."""
    from conftest import poll_until

    two = ["pynimbus.storm.compat=2.x"]
    nimbus = NimbusProcess(tmp_path_factory.mktemp("ui-dev-2x"), dev_supervisor=True,
                           options=two + ["supervisor.slots.ports=[%d]" % free_port()])
    nimbus.start(timeout=60)
    ui = UIProcess(tmp_path_factory.mktemp("ui-2x"), nimbus.port, options=two)
    try:
        ui.wait_serving()
        summary = ui.json("/api/v1/cluster/summary")
        assert summary["stormVersion"] == "2.8.8"
        assert {"fragmentedMem", "availGenerics", "stormVersionInfo"} <= set(summary)
        storm_id = submit_quickstart(nimbus, tmp_path_factory.mktemp("q-2x"), "wc2")
        path = "/api/v1/topology/%s" % storm_id
        poll_until(lambda: ui.json(path)["topologyStats"], timeout=120,
                   what="the workers' first stats")  # none before a heartbeat, in 2.x
        page = ui.json(path)
        info = thrift(nimbus, "getTopologyPageInfo", storm_id, ":all-time", False)
        assert {r["window"] for r in page["topologyStats"]} == set(
            info.topology_stats.window_to_emitted)
        [worker] = page["workers"]
        assert worker["owner"] == info.workers[0].owner
        assert "/api/v1/log?file=" in worker["workerLogLink"]
        assert {"requestedRegularOnHeapMem", "topologyVersion", "bugtracker-url"} <= set(page)
        assert all(s["errorPort"] is None for s in page["spouts"] if not s["lastError"])
        metrics = ui.json(path + "/metrics")
        assert (metrics["id"], metrics["name"]) == (storm_id, "wc2")
        workers = ui.json("/api/v1/topology-workers/%s" % storm_id)
        assert workers["logviewerScheme"] == "http"
        assert workers["hostPortList"] == [{"host": worker["host"], "port": worker["port"]}]
        bolt = ui.json(path + "/component/count_bolt")
        assert bolt["profilerActive"] == [] and "requestedGenericResources" in bolt
        graph = ui.json(path + "/visualization")
        assert "__acker" not in graph  # a system bolt, without sys
        assert graph["count_bolt"][":inputs"][0][":sani-stream"] == "default"

        logconfig = path + "/logconfig"
        code, body = ui.post(logconfig, {"namedLoggerLevels": {
            "ROOT": {"target_level": "debug", "timeout": 30}}})
        assert code == 200 and body["namedLoggerLevels"]["ROOT"]["target_level"] == "DEBUG"
        code, body = ui.post(logconfig, {"namedLoggerLevels": {"ROOT": {"target_level": "x"}}})
        assert code == 500 and '"timeout"' in body["errorMessage"]
        assert ui.post(path + "/component/count_bolt/debug/enable/5") == (200, {
            "topologyOperation": "debug/enable", "topologyId": storm_id, "status": "success"})
        host_port = "%s:%d" % (worker["host"], worker["port"])
        assert ui.post(path + "/profiling/dumpjstack/" + host_port) == (
            200, {"status": "ok", "id": host_port})
        assert ui.get(path + "/profiling/dumpjstack/" + host_port)[0] == 404
    finally:
        ui.stop()
        nimbus.stop()
