"""Storm's own DRPC clients against ``pynimbus drpc``: Storm 1.2.4's and 2.8.3's Java
``DRPCClient`` (``pynimbus.topologies.DrpcCall`` of ``tests/compat/java``, run by the stock
``storm jar``) and 2.8.3's ``storm drpc-client``, each answered through the invocations
port as a topology answers, or left to time out.

Runs with ``PYNIMBUS_COMPAT=1`` (``tox -e compat``): it needs Java and Maven (the Storm jars
and the reference topologies' build come from Maven Central into ``.cache/``); what is missing
becomes a skip with the reason.
"""

import os
import threading

import pytest

from compat import storm_cli, topology_jars
from compat.oracle import maven
from drpc_process import LOOPBACK, fetch, serving

ENABLED = os.environ.get("PYNIMBUS_COMPAT") == "1"

pytestmark = pytest.mark.skipif(
    not ENABLED, reason="Storm's DRPC clients run with PYNIMBUS_COMPAT=1 (tox -e compat): "
                        "they start Storm's client JVMs")

DRPC_CALL = "pynimbus.topologies.DrpcCall"


@pytest.fixture
def drpc(tmp_path):
    with serving(tmp_path, "drpc.request.timeout.secs=3") as server:
        yield server


def client_jar(version):
    reason = storm_cli.unavailable_reason(version)
    if reason:
        pytest.skip("the Storm %s client cannot run here: %s" % (version, reason))
    try:
        return topology_jars.topology_jar(version)
    except maven.MavenUnavailable as e:
        pytest.skip("the reference topologies cannot be built for Storm %s: %s" % (version, e))


def storm_in_thread(version, conf_dir, *argv):
    """``storm ARGV`` of ``version`` in a thread; returns (thread, outcome list)."""
    outcome = []
    thread = threading.Thread(target=lambda: outcome.append(
        storm_cli.storm(version, str(conf_dir), *argv)), daemon=True)
    thread.start()
    return thread, outcome


def answer(server, function, results):
    for _ in range(len(results)):
        request = fetch(server, function, timeout=120)
        with server.invocations() as invocations:
            invocations.result(request.request_id, results[request.func_args])


@pytest.mark.parametrize("version", [maven.STORM_1X, maven.STORM_2X])
def test_storms_java_drpc_client_gets_answers_and_timeouts(version, drpc, tmp_path):
    jar = client_jar(version)
    conf_dir = tmp_path / "conf"
    conf_dir.mkdir()
    (conf_dir / "storm.yaml").write_text("")
    thread, outcome = storm_in_thread(version, conf_dir, "jar", jar, DRPC_CALL, LOOPBACK,
                                      str(drpc.port), "words", "the cat")
    answer(drpc, "words", {"the cat": "2"})
    thread.join(180)
    done = outcome[0]
    assert done.returncode == 0 and "result: 2" in done.stdout, done.stdout + done.stderr
    done = storm_cli.storm(version, str(conf_dir), "jar", jar, DRPC_CALL, LOOPBACK,
                           str(drpc.port), "nobody-serves-this", "x")
    assert done.returncode == 3, done.stdout + done.stderr
    assert "failed: Request timed out" in done.stdout


def test_storm_2x_drpc_client_command(drpc, tmp_path):
    client_jar(maven.STORM_2X)
    conf_dir = tmp_path / "conf"
    conf_dir.mkdir()
    (conf_dir / "storm.yaml").write_text(
        'drpc.servers: ["%s"]\ndrpc.port: %d\n' % (LOOPBACK, drpc.port))
    thread, outcome = storm_in_thread(maven.STORM_2X, conf_dir, "drpc-client", "-f", "words",
                                      "the cat", "a")
    answer(drpc, "words", {"the cat": "2", "a": "1"})
    thread.join(180)
    done = outcome[0]
    assert done.returncode == 0, done.stdout + done.stderr
    assert 'words "the cat" => "2"' in done.stdout and 'words "a" => "1"' in done.stdout
