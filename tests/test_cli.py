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

from test_nimbus_daemon import two_nimbuses  # noqa: F401  (a fixture: one store, two nimbuses)
from test_nimbus_scenarios import Cluster, spout, topology


def _call(proc, method, **kwargs):
    with RawClient("127.0.0.1", proc.port) as client:
        return client.call(method, **kwargs)


def _log_lines(proc):
    with open(proc.log_path, encoding="utf-8", errors="replace") as f:
        return f.read().splitlines()


def test_a_non_leader_refusal_logs_one_warning_line_without_traceback(two_nimbuses,
                                                                      wait_until):
    """submitTopology and killTopology on a non-leader each log one WARN line naming the call
    and the leader, and no ERROR or traceback; the client still gets INTERNAL_ERROR."""
    leader, follower = two_nimbuses
    _call(leader, "submitTopology", name="alive", uploadedJarLocation="", jsonConf="{}",
          topology=topology({"1": spout(1)}))
    # the follower's read cache sees another nimbus's write a moment later; killTopology checks
    # that the topology is alive before it checks leadership, as Storm's does
    wait_until(lambda: [t.name for t in _call(follower, "getClusterInfo").topologies]
               == ["alive"], timeout=10, what="the follower to list the submitted topology")
    refusals = [
        ("submitTopology", dict(name="fresh", uploadedJarLocation="", jsonConf="{}",
                                topology=topology({"1": spout(1)}))),
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
    from pynimbus.cli import main as cli
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


NO_SUPERVISOR = "No supervisor is registered"


def test_dev_says_nothing_will_run_while_no_supervisor_is_registered(tmp_path, monkeypatch):
    """`pynimbus dev` warns at start and at each submission while no supervisor is registered
    that nothing will run the topology and how to get a supervisor, and stops once one is; its
    log also names the storm.yaml it read."""
    conf_dir = tmp_path / "conf"
    conf_dir.mkdir()
    (conf_dir / "storm.yaml").write_text("topology.workers: 1\n")
    monkeypatch.setenv("STORM_CONF_DIR", str(conf_dir))
    cluster = Cluster(tmp_path, supervisors=0)
    try:
        def notices():
            return [line for line in _log_lines(cluster.process) if NO_SUPERVISOR in line]

        [at_start] = notices()
        cluster.submit("lonely", {}, topology({"1": spout(1)}))
        cluster.wait_for(lambda: len(notices()) == 2, "the notice after the submission")
        notice = notices()[-1]
        for fact in (" WARNING ", "nothing will run", "embedded store", "storm supervisor",
                     "storm.zookeeper.servers", "nimbus.seeds"):
            assert fact in notice, notice

        cluster.add_supervisor(2)
        cluster.submit("served", {}, topology({"1": spout(1)}))
        # the supervisors are read for the notice before the round that assigns "served" is
        # requested, and a call answered after that round is answered after the notice's turn
        cluster.assignment("served")
        cluster.call("getClusterInfo")
        assert len(notices()) == 2, "\n".join(_log_lines(cluster.process))
        assert any("Read storm.yaml from %s" % (conf_dir / "storm.yaml") in line
                   for line in _log_lines(cluster.process))
    finally:
        cluster.close()


def test_the_notice_names_the_zookeeper_a_supervisor_must_join():
    """With ZooKeeper configured, the notice gives the storm.yaml settings a supervisor needs
    to join this nimbus: its ZooKeeper servers, port and root, and this nimbus's host and port."""
    from pynimbus.common.config import default_config
    from pynimbus.cli.dev_cluster import no_supervisor_message
    conf = dict(default_config("2.x"), **{
        "storm.zookeeper.servers": ["zk1", "zk2"], "storm.zookeeper.port": 2182,
        "storm.zookeeper.root": "/dev-storm", "storm.local.hostname": "localhost",
        "nimbus.thrift.port": 7000})
    message = no_supervisor_message(conf)
    for fact in ("nothing will run", "Storm 2.8.8's `storm supervisor`",
                 'storm.zookeeper.servers: ["zk1", "zk2"]', "storm.zookeeper.port: 2182",
                 'storm.zookeeper.root: "/dev-storm"', 'nimbus.seeds: ["localhost"]',
                 "nimbus.thrift.port: 7000"):
        assert fact in message, message
    assert "embedded" not in message


def _processor_log(error):
    """Log ``error`` as the generated ``write_results_exception_<method>`` does; return the
    record after the filter."""
    from pynimbus.thrift.errors import RefusalLogFilter
    records = []

    class Keep(logging.Handler):
        def emit(self, record):
            records.append(record)

    logger = logging.getLogger("test_cli.processor")
    logger.propagate = False
    refusal_filter, keep = RefusalLogFilter(), Keep()
    logger.addFilter(refusal_filter)
    logger.addHandler(keep)

    def write_results_exception_killTopology():
        try:
            raise error
        except TApplicationException:
            logger.exception("TApplication exception in handler")

    try:
        write_results_exception_killTopology()
    finally:
        logger.removeFilter(refusal_filter)
        logger.removeHandler(keep)
    [record] = records
    return record


def test_the_refusal_filter_rewrites_only_deliberate_refusals():
    """A StormRuntimeException becomes one WARNING line naming the method; any other
    TApplicationException keeps its ERROR and traceback."""
    from pynimbus.thrift.errors import as_application_error
    refused = _processor_log(as_application_error("not a leader, current leader is h:1"))
    assert (refused.levelname, refused.getMessage(), refused.exc_info) == (
        "WARNING", "killTopology refused: not a leader, current leader is h:1", None)
    fault = _processor_log(TApplicationException(TApplicationException.INTERNAL_ERROR, "bug"))
    assert fault.levelname == "ERROR" and fault.exc_info is not None
