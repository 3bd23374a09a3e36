"""Storm 1.2.4's own logviewer and ``pynimbus logviewer`` on the same log directory: their
``/search``, ``/deepSearch``, ``/listLogs`` and ``/searchLogs`` JSON answers are equal field
by field (the ``logviewerURL``s name each server's own port, so that port is read as one).

The log directory holds three topologies' worker logs (live, rotated plain and rotated
gzipped files, several ports, matches straddling Storm's 1024-byte buffer halves, multibyte
text) and a daemon log.  Runs with ``PYNIMBUS_COMPAT=1`` and needs Java and storm-core 1.2.4
(``.cache/maven``, see ``storm_logviewer.py``).
"""

import gzip
import json
import os
import random

import pytest

from compat import storm_logviewer
from logviewer_process import LogviewerProcess, http_get
from nimbus_process import LOOPBACK

ENABLED = os.environ.get("PYNIMBUS_COMPAT") == "1"

pytestmark = pytest.mark.skipif(
    not ENABLED, reason="Storm logviewer tests run with PYNIMBUS_COMPAT=1 (tox -e compat): "
                        "they start the logviewer's JVM")

PORTS = [6700, 6701, 6702]
TOPOLOGIES = ["wordcount-1-1700000000", "exclaim-2-1700000100", "trident-3-1700000200"]
CONF = ["storm.local.hostname=localhost", "supervisor.slots.ports=%s" % json.dumps(PORTS)]


def log_text(seed, lines):
    rng = random.Random(seed)
    words = ["needle", "hay", "straw", "Exception", "\u03b1\u03b2\u03b3", "tuple", "ack"]
    return "".join("2026-12-06 10:%02d:%02d.%03d INFO o.a.s.d.executor [%d] %s\n"
                   % (i // 60 % 60, i % 60, i % 1000, i,
                      " ".join(rng.choice(words) for _ in range(rng.randint(3, 30))))
                   for i in range(lines)).encode("utf-8")


def write_log_dir(log_dir):
    mtime = 1_700_000_000
    for t, topology in enumerate(TOPOLOGIES):
        for p, port in enumerate(PORTS[:2 + t % 2]):
            port_dir = log_dir / "workers-artifacts" / topology / str(port)
            port_dir.mkdir(parents=True)
            seed = t * 10 + p
            (port_dir / "worker.log").write_bytes(log_text(seed, 3000 + 500 * p))
            (port_dir / "worker.log.1").write_bytes(log_text(seed + 100, 2000))
            with gzip.open(str(port_dir / "worker.log.2.gz"), "wb") as f:
                f.write(log_text(seed + 200, 1500))
            (port_dir / "worker.yaml").write_text("worker-id: w-%d-%d\n" % (t, p))
            for age, name in enumerate(["worker.log", "worker.log.1", "worker.log.2.gz"]):
                when = mtime - 1000 * age - seed
                os.utime(str(port_dir / name), (when, when))
    (log_dir / "nimbus.log").write_bytes(log_text(99, 500))


@pytest.fixture(scope="module")
def servers(tmp_path_factory):
    reason = storm_logviewer.unavailable_reason()
    if reason:
        pytest.skip(reason)
    tmp = tmp_path_factory.mktemp("logviewer-compat")
    log_dir = tmp / "logs"
    write_log_dir(log_dir)
    storm = storm_logviewer.StormLogviewer(
        log_dir, conf={"storm.local.hostname": "localhost", "supervisor.slots.ports": PORTS})
    ours = LogviewerProcess(tmp, log_dir, options=CONF)
    try:
        storm.start()
        ours.wait_serving()
        yield storm, ours
    finally:
        ours.stop()
        storm.stop()


def answers(servers, path):
    """Both servers' ``(status, JSON)`` for ``path``, each one's port in its URLs as
    ``PORT``."""
    storm, ours = servers
    found = []
    for port in (storm.port, ours.port):
        status, _headers, body = http_get(LOOPBACK, port, path)
        text = json.dumps(json.loads(body)).replace(":%d/" % port, ":PORT/")
        found.append((status, json.loads(text)))
    return found


FILES = ["%s/%d/%s" % (TOPOLOGIES[0], 6700, name)
         for name in ("worker.log", "worker.log.1", "worker.log.2.gz")] + [
    "%s/%d/worker.log" % (TOPOLOGIES[1], 6702)]


@pytest.mark.parametrize("fname", FILES)
@pytest.mark.parametrize("query", [
    "search-string=needle", "search-string=needle&num-matches=1",
    "search-string=needle&num-matches=50", "search-string=Exception+hay&num-matches=7",
    "search-string=%CE%B1%CE%B2%CE%B3&num-matches=13",
    "search-string=needle&num-matches=5&start-byte-offset=1023",
    "search-string=needle&num-matches=3&start-byte-offset=40000",
    "search-string=nothing+like+this", "search-string=INFO&num-matches=400"])
def test_search_is_storms(servers, fname, query):
    storm, ours = answers(servers, "/search/%s?%s" % (fname.replace("/", "%2F"), query))
    assert storm[0] == 200 and ours == storm


def test_daemon_search_is_storms(servers):
    storm, ours = answers(servers, "/search/nimbus.log?search-string=needle&is-daemon=yes"
                                   "&num-matches=20")
    assert storm[0] == 200 and ours == storm


@pytest.mark.parametrize("query", [
    "port=*&num-matches=5", "port=*&num-matches=500", "port=*&num-matches=5&search-archived=1",
    "port=6700&num-matches=20", "port=6700&num-matches=5000&search-archived=1",
    "port=6701&num-matches=30&search-archived=1&start-file-offset=1",
    "port=6701&num-matches=30&search-archived=1&start-file-offset=1&start-byte-offset=512",
    "port=6702&num-matches=3", "port=7000&num-matches=3"])
@pytest.mark.parametrize("topology", TOPOLOGIES[:2] + ["missing-9-9"])
def test_deep_search_is_storms(servers, topology, query):
    storm, ours = answers(servers, "/deepSearch/%s?search-string=needle&%s" % (topology, query))
    assert storm[0] == 200 and ours == storm


@pytest.mark.parametrize("path", [
    "/listLogs", "/listLogs?topoId=%s" % TOPOLOGIES[1], "/listLogs?port=6701",
    "/listLogs?topoId=%s&port=6702" % TOPOLOGIES[2], "/listLogs?topoId=missing-9-9",
    "/searchLogs?topoId=%s" % TOPOLOGIES[0]])
def test_listings_are_storms(servers, path):
    storm, ours = answers(servers, path)
    assert storm[0] == 200 and ours == storm
