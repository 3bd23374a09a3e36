"""``pynimbus dev`` with its logviewer: a running topology's worker log is served at the
link Storm's UI builds (the dev UI's ``workerLogLink``), and searching it finds its lines; the
supervisor's ``worker.yaml`` names the live worker, whose logs a cleanup round keeps.  And
``pynimbus supervisor`` serves its workers' logs in its own process."""

import http.client
import json
import os
import time
from urllib.parse import quote, urlsplit

import pytest

from logviewer_process import http_get
from nimbus_process import NimbusProcess, free_port
from pynimbus.generated.storm.ttypes import KillOptions
from pynimbus.logviewer import cleanup
from supervisor_process import SupervisorProcess
from test_ui_server import submit_quickstart, thrift


@pytest.fixture(scope="module")
def dev(tmp_path_factory):
    local = tmp_path_factory.mktemp("logviewer-dev")
    nimbus = NimbusProcess(local, dev_supervisor=True, ui=True, logviewer=True,
                           options=["supervisor.slots.ports=[%d]" % free_port()])
    nimbus.start(timeout=60)
    try:
        yield nimbus
    finally:
        nimbus.stop()


def get(url):
    parts = urlsplit(url)
    return http_get(parts.hostname, parts.port, parts.path + "?" + parts.query)


def test_the_uis_worker_log_link_serves_the_log_and_search_finds_it(dev, tmp_path):
    storm_id = submit_quickstart(dev, tmp_path, "logged")
    try:
        deadline = time.monotonic() + 120
        while True:
            page = json.loads(http_get("127.0.0.1", dev.ui_port,
                                       "/api/v1/topology/%s" % storm_id)[2])
            links = [w["workerLogLink"] for w in page.get("workers") or []]
            if links:
                break
            assert time.monotonic() < deadline, page
            time.sleep(0.5)  # the worker's first heartbeat brings it onto the page
        [link] = links
        assert link.startswith("http://localhost:%d/log?file=" % dev.logviewer_port)
        status, _headers, body = get(link)
        assert status == 200 and b"Storm Log Viewer" in body
        port = urlsplit(link).query.split("%2F")[1]
        download = "/download?file=%s%%2F%s%%2Fworker.log" % (storm_id, port)
        deadline = time.monotonic() + 60
        while True:
            status, _headers, text = http_get("127.0.0.1", dev.logviewer_port, download)
            assert status == 200, text
            lines = [line for line in text.decode("utf-8", "replace").splitlines()
                     if len(line) > 20]
            if lines:
                break
            assert time.monotonic() < deadline, "the worker wrote nothing to its log"
            time.sleep(0.5)  # the worker's first lines are the condition
        wanted = lines[0][-20:]
        found = json.loads(http_get(
            "127.0.0.1", dev.logviewer_port,
            "/deepSearch/%s?search-string=%s&num-matches=1&port=%s"
            % (storm_id, quote(wanted, safe=""), port))[2])
        [match] = found["matches"][0]["matches"]
        assert match["matchString"] == wanted
        assert found["matches"][0]["fileName"] == "%s/%s/worker.log" % (storm_id, port)
        assert text[match["byteOffset"]:].startswith(wanted.encode("utf-8"))
    finally:
        thrift(dev, "killTopologyWithOpts", "logged", KillOptions(wait_secs=0))


def test_the_debug_switchs_events_open_at_the_components_event_log_link(dev, tmp_path):
    """With an event logger, the UI's debug action samples the word count's emits into
    events.log, and the component page's ``eventLogLink`` opens it in the logviewer."""
    storm_id = submit_quickstart(dev, tmp_path, "debugged",
                                 "-c", "topology.eventlogger.executors=1")
    try:
        ui = http.client.HTTPConnection("127.0.0.1", dev.ui_port, timeout=60)
        try:
            ui.request("POST", "/api/v1/topology/%s/debug/enable/100" % storm_id)
            response = ui.getresponse()
            assert response.status == 200, response.read()
        finally:
            ui.close()
        page = "/api/v1/topology/%s/component/count_bolt" % storm_id
        deadline = time.monotonic() + 120
        while True:
            link = json.loads(http_get("127.0.0.1", dev.ui_port, page)[2])["eventLogLink"]
            status, _headers, body = get(link)
            if status == 200 and b",word_spout," in body:
                break
            assert time.monotonic() < deadline, (link, status, body[-2000:])
            time.sleep(0.5)  # the flush of the sampled events is the condition
        assert link.startswith("http://localhost:%d/log?file=%s%%2F" % (dev.logviewer_port,
                                                                        storm_id))
        assert link.endswith("%2Fevents.log")
    finally:
        thrift(dev, "killTopologyWithOpts", "debugged", KillOptions(wait_secs=0))


def test_worker_yaml_names_the_live_worker_and_cleanup_keeps_its_logs(dev, tmp_path):
    """The supervisor writes Storm's ``worker.yaml`` (worker id, submitter, log users); the
    worker's heartbeat makes it alive, so a cleanup round that finds every directory old
    (age 0) removes the dead worker's directory and keeps the live one."""
    storm_id = submit_quickstart(dev, tmp_path, "kept")
    root = os.path.join(dev.local_dir, "logs", "workers-artifacts")
    try:
        [port] = os.listdir(os.path.join(root, storm_id))
        metadata = os.path.join(root, storm_id, port, "worker.yaml")
        conf = {"storm.local.dir": dev.local_dir, "supervisor.worker.timeout.secs": 30,
                "logviewer.cleanup.age.mins": 0,
                "logviewer.max.sum.worker.logs.size.mb": 4096,
                "logviewer.max.per.worker.logs.size.mb": 2048}
        deadline = time.monotonic() + 60
        while True:
            data = cleanup.read_yaml(metadata) or {}
            beats = cleanup.read_heartbeat_times(conf)
            if data.get("worker-id") and beats.get(data["worker-id"]):
                break
            assert time.monotonic() < deadline, (data, beats)
            time.sleep(0.2)  # the worker's first LocalState heartbeat is the condition
        assert data["logs.users"] == [] and data["logs.groups"] == []
        assert "topology.submitter.user" in data
        dead = os.path.join(root, "gone-1-1", "6799")
        os.makedirs(dead)
        with open(os.path.join(dead, "worker.log"), "w") as f:
            f.write("an old worker\n")
        old = time.time() - 60
        os.utime(os.path.join(dead, "worker.log"), (old, old))
        os.utime(dead, (old, old))
        removed, _deleted = cleanup.cleanup_fn(conf, root, time.time())
        # (a killed topology's worker, of another test here, is dead too)
        assert dead in removed and not os.path.exists(os.path.dirname(dead))
        assert os.path.join(root, storm_id, port) not in removed
        assert os.path.exists(os.path.join(root, storm_id, port, "worker.log"))
    finally:
        thrift(dev, "killTopologyWithOpts", "kept", KillOptions(wait_secs=0))


def test_pynimbus_supervisor_serves_its_logs(dev, tmp_path):
    """``pynimbus supervisor`` with ``pynimbus.supervisor.logviewer`` runs a logviewer in its
    process, on its own log directory."""
    port = free_port()
    supervisor = SupervisorProcess(tmp_path / "sup", dev.local_dir, dev.port, options=[
        "pynimbus.supervisor.logviewer=true", "logviewer.port=%d" % port,
        "pynimbus.logviewer.bind.address=127.0.0.1"])
    supervisor.start()
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                status, _headers, body = http_get("127.0.0.1", port,
                                                  "/daemonlog?file=supervisor.log")
                break
            except OSError:
                assert supervisor.process.poll() is None
                assert time.monotonic() < deadline, "the supervisor's logviewer never served"
                time.sleep(0.1)  # listening is the condition
        assert status == 200 and b"supervisor.log - Storm Log Viewer" in body
    finally:
        supervisor.stop()
