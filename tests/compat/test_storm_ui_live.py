"""Storm 1.2.4's UI and ``pynimbus ui`` read one cluster whose workers ran a topology: every
page that carries the executors' counts and latencies is equal field by field.

Two clusters: ``pynimbus dev`` (its own supervisor, Python workers) running the quickstart word
count, and pynimbus in 1.x mode with a real Storm 1.2.4 supervisor whose Java workers run
storm-starter's ExclamationTopology (submitted by the stock ``storm jar``).  Each runs until its
spout has emitted and a bolt executed, then the topology is deactivated so that the counts
settle.  Each page is
read from our UI, then Storm's, then ours again: when our two reads agree (no heartbeat
brought new counts in between), Storm's read must equal them, uptimes and the figures derived
from them (capacity divides by the uptime) aside.  This checks the stats' aggregation (the
topology and component pages, the graph's ``/visualization`` and ``/visualization-init``, the
per-stream ``/metrics`` page) on real counts, which the fake-supervisor cluster of
``test_storm_ui.py`` cannot have.

Runs with ``PYNIMBUS_COMPAT=1``; needs Java and storm-core 1.2.4 (see ``storm_ui.py``).
"""

import contextlib
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
PAGES = ("", "?window=600", "?sys=true", "/component/{spout}", "/component/{bolt}?window=600",
         "/component/__acker?sys=true", "/visualization", "/visualization?sys=true",
         "/visualization-init", "/metrics", "/metrics?sys=true&window=600")
# each cluster's topology: its spout and one of its bolts
COMPONENTS = {"python-workers": {"spout": "word_spout", "bolt": "count_bolt"},
              "java-workers": {"spout": "word", "bolt": "exclaim1"}}


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


@pytest.fixture(scope="module", params=sorted(COMPONENTS))
def cluster(request, tmp_path_factory):
    """``(our UI, Storm's UI, storm id, components)`` of a settled topology."""
    reason = storm_ui.unavailable_reason("1.x")
    if reason:
        pytest.skip(reason)
    runs = python_workers if request.param == "python-workers" else java_workers
    with runs(request, tmp_path_factory) as (nimbus_port, storm_id, name):
        ours = UIProcess(tmp_path_factory.mktemp("live-our-ui"), nimbus_port,
                         nimbus_host=LOOPBACK)
        try:
            ours.wait_serving()
            wait_for_counts(ours, storm_id)
            with NimbusClient(LOOPBACK, nimbus_port, timeout=30) as nimbus:
                nimbus.deactivate(name)
            with storm_ui.StormUI(LOOPBACK, nimbus_port, "1.x") as theirs:
                yield ours, theirs, storm_id, COMPONENTS[request.param]
        finally:
            ours.stop()


@contextlib.contextmanager
def python_workers(request, tmp_path_factory):
    """``pynimbus dev`` running the quickstart word count: ``(port, storm id, name)``."""
    import subprocess
    import sys

    from pynimbus_path import child_env
    from sparse_projects import quickstart

    nimbus = NimbusProcess(tmp_path_factory.mktemp("live-ui-dev"), dev_supervisor=True,
                           options=["supervisor.slots.ports=[%d, %d]" % (free_port(),
                                                                         free_port())])
    nimbus.start(timeout=60)
    try:
        root = quickstart(tmp_path_factory.mktemp("live-project"))
        submitted = subprocess.run(
            [sys.executable, "-m", "pynimbus.cli", "submit", "topologies/wordcount.py",
             "--nimbus", "127.0.0.1:%d" % nimbus.port, "--wait"],
            cwd=root, env=child_env(), capture_output=True, text=True, timeout=180)
        assert submitted.returncode == 0, submitted.stdout + submitted.stderr
        [summary] = thrift(nimbus, "getClusterInfo").topologies
        yield nimbus.port, summary.id, summary.name
        thrift(nimbus, "killTopologyWithOpts", summary.name, KillOptions(wait_secs=0))
    finally:
        nimbus.stop()


@contextlib.contextmanager
def java_workers(request, tmp_path_factory):
    """pynimbus (1.x) and a real 1.2.4 supervisor running storm-starter's
    ExclamationTopology on a Java worker: ``(port, storm id, name)``."""
    from compat import real_storm
    from compat.test_real_supervisor import RealCluster
    reason = real_storm.unavailable_reason("1.x")
    if reason:
        pytest.skip(reason)
    zookeeper_server = request.getfixturevalue("zookeeper_server")
    name = "live-exclamation"
    with RealCluster.started("1.x", zookeeper_server, str(tmp_path_factory.mktemp("live-java")),
                             [name], slots=2) as real:
        storm_id = real.wait(lambda: real.storm_id(name), "the topology's id")
        yield real.target.port, storm_id, name


def wait_for_counts(ui, storm_id):
    """Until the spout's emits and the counting bolt's executes are in the page."""
    deadline = time.monotonic() + 180
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
    ours, theirs, storm_id, components = cluster
    path = "/api/v1/topology/%s%s" % (urllib.parse.quote(storm_id), suffix.format(**components))
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
