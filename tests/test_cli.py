"""The ``pynimbus`` command as an operator meets it: its log lines, its refusals, its signals.

Each daemon here is a real ``pynimbus dev`` subprocess on 127.0.0.1 with its own
``storm.local.dir``; what is checked is what it writes to stderr.
"""

import logging
import signal
import subprocess

import pytest
from thrift.Thrift import TApplicationException

from nimbus_process import NimbusProcess, RawClient, RemoteError

from pynimbus.generated.storm.ttypes import StormBase, StormTopology, TopologyStatus


def _call(proc, method, **kwargs):
    with RawClient("127.0.0.1", proc.port) as client:
        return client.call(method, **kwargs)


def _log_lines(proc):
    with open(proc.log_path, encoding="utf-8", errors="replace") as f:
        return f.read().splitlines()


@pytest.fixture
def leader_and_follower(tmp_path):
    """Two `pynimbus dev` processes on one embedded store: the first leads, the second not."""
    options = ["pynimbus.embedded.state.dir=%s" % (tmp_path / "shared-state")]
    procs = []
    try:
        for name in ("leader", "follower"):
            local = tmp_path / name
            local.mkdir()
            proc = NimbusProcess(local, options=options)
            proc.start(timeout=30)
            procs.append(proc)
        yield procs
    finally:
        for proc in procs:
            proc.kill()


def test_a_non_leader_refusal_logs_one_warning_line_without_traceback(leader_and_follower,
                                                                      tmp_path):
    """submitTopology and killTopology on a non-leader each log one WARN line naming the call
    and the leader, and no ERROR or traceback; the client still gets INTERNAL_ERROR."""
    from pynimbus.cluster import make_cluster_state
    from pynimbus.config import read_storm_config
    leader, follower = leader_and_follower
    state = make_cluster_state(read_storm_config(
        options=["pynimbus.embedded.state.dir=%s" % (tmp_path / "shared-state"),
                 "storm.local.dir=%s" % (tmp_path / "reader")], environ={}))
    try:
        state.activate_storm("alive-1-1700000000", StormBase(
            name="alive", status=TopologyStatus.ACTIVE, num_workers=1,
            launch_time_secs=1700000000))
    finally:
        state.close()
    refusals = [
        ("submitTopology", dict(name="fresh", uploadedJarLocation="nowhere", jsonConf="{}",
                                topology=StormTopology(spouts={}, bolts={}, state_spouts={}))),
        ("killTopology", dict(name="alive")),
    ]
    for method, kwargs in refusals:
        with pytest.raises(RemoteError) as refused:
            _call(follower, method, **kwargs)
        assert refused.value.app.type == TApplicationException.INTERNAL_ERROR
        assert refused.value.app.message == (
            "not a leader, current leader is localhost:%d" % leader.port)

    lines = _log_lines(follower)
    mentions = [line for line in lines if "not a leader" in line]
    assert len(mentions) == len(refusals), "\n".join(lines)
    for (method, _), line in zip(refusals, mentions):
        assert " WARNING " in line and method in line, line
    assert not [line for line in lines if " ERROR " in line or "Traceback" in line], \
        "\n".join(lines)


def test_sigterm_again_while_stopping_logs_no_critical_traceback(tmp_path):
    """SIGTERMs that arrive while Nimbus is already stopping are noted, not a CRITICAL
    "Can't stop reactor that isn't running" traceback."""
    proc = NimbusProcess(tmp_path)
    proc.start(timeout=30)
    try:
        # The first signal starts the shutdown; the rest keep coming until the process is gone,
        # so some land while it stops (signals sent at once would merge into one).
        for _ in range(5000):
            if proc.process.poll() is not None:
                break
            proc.process.send_signal(signal.SIGTERM)
            try:
                proc.process.wait(0.0005)
            except subprocess.TimeoutExpired:
                pass
        status = proc.process.wait(15)
    finally:
        proc.kill()
    lines = _log_lines(proc)
    assert any("SIGTERM" in line and "shutting down" in line for line in lines), "\n".join(lines)
    assert not [line for line in lines if "CRITICAL" in line or "ReactorNotRunning" in line], \
        "\n".join(lines)
    # a signal during the interpreter's own teardown (after the reactor) still ends it at once
    assert status in (0, -signal.SIGTERM)


def _storm_yaml_log(caplog, config_file=None, environ=None):
    from pynimbus import cli
    with caplog.at_level(logging.INFO, logger="pynimbus"):
        cli.log_storm_yaml(config_file, environ={} if environ is None else environ)
    return [(r.levelname, r.getMessage()) for r in caplog.records]


def test_the_log_names_the_storm_yaml_given_with_config(tmp_path, caplog):
    """--config FILE: the log names the file read, even with a stale $STORM_CONF_DIR."""
    yaml_file = tmp_path / "mine.yaml"
    yaml_file.write_text("{}\n")
    [(level, message)] = _storm_yaml_log(caplog, str(yaml_file),
                                         {"STORM_CONF_DIR": str(tmp_path / "gone")})
    assert level == "INFO" and str(yaml_file) in message


def test_the_log_names_the_storm_yaml_found_in_storm_conf_dir(tmp_path, caplog):
    """$STORM_CONF_DIR/storm.yaml: the log names it."""
    (tmp_path / "storm.yaml").write_text("{}\n")
    [(level, message)] = _storm_yaml_log(caplog, environ={"STORM_CONF_DIR": str(tmp_path)})
    assert level == "INFO" and str(tmp_path / "storm.yaml") in message


def test_a_storm_conf_dir_that_does_not_exist_is_a_warning(tmp_path, caplog):
    """$STORM_CONF_DIR naming no directory: a WARNING says so and that no storm.yaml was read."""
    missing = tmp_path / "no-such-dir"
    [(level, message)] = _storm_yaml_log(caplog, environ={"STORM_CONF_DIR": str(missing)})
    assert level == "WARNING" and str(missing) in message and "does not exist" in message


@pytest.mark.parametrize("with_dir", [False, True])
def test_the_log_says_when_no_storm_yaml_was_read(tmp_path, caplog, with_dir):
    """No --config and no storm.yaml in $STORM_CONF_DIR (or none set): the log says so."""
    environ = {"STORM_CONF_DIR": str(tmp_path)} if with_dir else {}
    [(level, message)] = _storm_yaml_log(caplog, environ=environ)
    assert level == "INFO" and "no storm.yaml" in message.lower()
