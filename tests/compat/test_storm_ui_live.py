"""Storm 1.2.4's UI and ``pynimbus ui`` read one cluster whose Python workers ran a topology:
every page that carries the executors' counts and latencies is equal field by field.

``pynimbus dev`` (its own supervisor, Python workers) runs the quickstart word count until its
spout has emitted, then the topology is deactivated so that the counts settle.  Each page is
read from our UI, then Storm's, then ours again: when our two reads agree (no heartbeat
brought new counts in between), Storm's read must equal them, uptimes and the figures derived
from them (capacity divides by the uptime) aside.  This checks the stats' aggregation (the
topology and component pages, the graph's ``/visualization`` and ``/visualization-init``, the
per-stream ``/metrics`` page) on real counts, which the fake-supervisor cluster of
``test_storm_ui.py`` cannot have.

Runs with ``PYNIMBUS_COMPAT=1``; needs Java and storm-core 1.2.4 (see ``storm_ui.py``).
"""

import json
import os
import time
import urllib.parse

import pytest

from compat import storm_ui
from nimbus_process import LOOPBACK, NimbusProcess, free_port
from pynimbus.generated.storm.ttypes import KillOptions
from pynimbus.thrift.client import NimbusClient
from ui_process import UIProcess

pytestmark = pytest.mark.skipif(
    os.environ.get("PYNIMBUS_COMPAT") != "1",
    reason="Storm UI tests run with PYNIMBUS_COMPAT=1 (tox -e compat): they start the UI's JVM")

# what changes from one read to the next without any tuple moving
MOVING_FIELDS = ("uptime", "uptimeSeconds", "nimbusUpTime", "nimbusUpTimeSeconds",
                 "errorLapsedSecs", ":uptime_secs", "capacity", ":capacity")
PAGES = ("", "?window=600", "?sys=true", "/component/word_spout",
         "/component/count_bolt?window=600", "/component/__acker?sys=true",
         "/visualization", "/visualization?sys=true", "/visualization-init", "/metrics",
         "/metrics?sys=true&window=600")


def thrift(nimbus, method, *args):
    with NimbusClient(LOOPBACK, nimbus.port, timeout=30) as client:
        return getattr(client, method)(*args)


def without_moving_fields(value):
    if isinstance(value, dict):
        return {k: without_moving_fields(v) for k, v in value.items()
                if k not in MOVING_FIELDS}
    if isinstance(value, list):
        return [without_moving_fields(v) for v in value]
    return value


@pytest.fixture(scope="module")
def cluster(tmp_path_factory):
    reason = storm_ui.unavailable_reason("1.x")
    if reason:
        pytest.skip(reason)
    import subprocess
    import sys

    from pynimbus_path import child_env
    from sparse_projects import quickstart

    nimbus = NimbusProcess(tmp_path_factory.mktemp("live-ui-dev"), dev_supervisor=True,
                           options=["supervisor.slots.ports=[%d, %d]" % (free_port(),
                                                                         free_port())])
    nimbus.start(timeout=60)
    ours = UIProcess(tmp_path_factory.mktemp("live-our-ui"), nimbus.port,
                     nimbus_host=LOOPBACK)
    try:
        ours.wait_serving()
        root = quickstart(tmp_path_factory.mktemp("live-project"))
        submitted = subprocess.run(
            [sys.executable, "-m", "pynimbus.cli", "submit", "topologies/wordcount.py",
             "--nimbus", "127.0.0.1:%d" % nimbus.port, "--wait"],
            cwd=root, env=child_env(), capture_output=True, text=True, timeout=180)
        assert submitted.returncode == 0, submitted.stdout + submitted.stderr
        [summary] = thrift(nimbus, "getClusterInfo").topologies
        wait_for_counts(ours, summary.id)
        thrift(nimbus, "deactivate", summary.name)
        with storm_ui.StormUI(LOOPBACK, nimbus.port, "1.x") as theirs:
            yield ours, theirs, summary.id
        thrift(nimbus, "killTopologyWithOpts", summary.name, KillOptions(wait_secs=0))
    finally:
        ours.stop()
        nimbus.stop()


def wait_for_counts(ui, storm_id):
    """Until the spout's emits and the counting bolt's executes are in the page."""
    deadline = time.monotonic() + 120
    path = "/api/v1/topology/%s" % urllib.parse.quote(storm_id)
    while True:
        page = ui.json(path)
        if page["spouts"] and page["spouts"][0]["emitted"] > 0 and any(
                b["executed"] > 0 for b in page["bolts"]):
            return
        assert time.monotonic() < deadline, page
        time.sleep(0.5)  # the workers' heartbeats bring the counts


@pytest.mark.parametrize("suffix", PAGES)
def test_pages_with_counts_equal_storms(cluster, suffix):
    ours, theirs, storm_id = cluster
    path = "/api/v1/topology/%s%s" % (urllib.parse.quote(storm_id), suffix)
    deadline = time.monotonic() + 90
    while True:
        before = without_moving_fields(ours.json(path))
        status, storms = theirs.get(path)
        assert status == 200, storms
        after = without_moving_fields(ours.json(path))
        if before == after:  # no heartbeat changed the counts while Storm's UI read them
            break
        assert time.monotonic() < deadline, "the counts never settled"
    storms = without_moving_fields(storms)
    for key in sorted(set(after) | set(storms)):
        assert after.get(key) == storms.get(key), (key, json.dumps(after.get(key))[:3000],
                                                   json.dumps(storms.get(key))[:3000])
    assert after == storms
