"""``pynimbus dev`` with its logviewer: a running topology's worker log is served at the
link Storm's UI builds (the dev UI's ``workerLogLink``), and searching it finds its lines."""

import json
import time
from urllib.parse import quote, urlsplit

import pytest

from logviewer_process import http_get
from nimbus_process import NimbusProcess, free_port
from pynimbus.generated.storm.ttypes import KillOptions
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
