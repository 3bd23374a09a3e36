"""A real Storm 1.2.4 worker's ``events.log`` and ``LoggingMetricsConsumer`` lines, written
again by the Python worker's formatters (:mod:`pynimbus.worker.event_logger`,
:mod:`pynimbus.worker.metrics`) from the fields parsed out of them: the same text.

pynimbus (1.x) and a real 1.2.4 supervisor share the session's ZooKeeper; the reference
``WordCountTopology`` (a Java spout, the multilang ``split``, a Java ``count``) is submitted by
the stock ``storm jar`` with an ``__eventlogger``, Storm's ``LoggingMetricsConsumer`` and a 2 s
metrics bucket; pynimbus's ``debug`` call turns the event logger on for the whole topology at
100%.  The Java worker writes ``events.log`` beside its log; the test harness's worker.xml
(:mod:`compat.real_storm`) has no METRICS appender, so the consumer's messages land in
worker.log, where their message part is what upstream's METRICS layout prints after its date
and uptime.  Also compared: the built-in metric names a Java bolt and spout send, with the
Python worker's (:class:`pynimbus.worker.metrics.BuiltinMetrics`).

Opt-in, like ``test_real_supervisor.py``: ``PYNIMBUS_COMPAT=1`` (``tox -e compat``), plus Java,
``mvn``, Debian's ZooKeeper and the Storm jars; otherwise skipped with the reason.
"""

import calendar
import os
import re
import time

import pytest
from twisted.internet import task

from compat import real_storm, topology_jars
from compat.oracle import maven
from compat.test_real_supervisor import ENABLED, RealCluster
from pynimbus.common.metrics_consumer import DataPoint, TaskInfo
from pynimbus.worker import executor, stats
from pynimbus.worker.event_logger import event_line, java_date
from pynimbus.worker.metrics import BuiltinMetrics, data_point_messages
from pynimbus.worker.receive_queue import ExecutorLoop

pytestmark = [
    pytest.mark.compat,
    pytest.mark.skipif(not ENABLED, reason="real Storm worker tests run with PYNIMBUS_COMPAT=1 "
                                           "(tox -e compat): they start Java supervisors and "
                                           "workers"),
]

NAME = "logged-wordcount"
EVENT = re.compile(r"^(\w{3} \w{3} \d\d \d\d:\d\d:\d\d \S+ \d{4}),([^,]+),(-?\d+),([^,]*),"
                   r"\[(.*)\]$")
METRIC = re.compile(r"^(\d+)\t *(\S+):(\d+) *\t *(-?\d+):(\S+) *\t(.{23})\t(.*)$")
CONSUMER_LOGGER = "o.a.s.m.LoggingMetricsConsumer - "


OPTIONS = {"topology.eventlogger.executors": 1,
           "topology.builtin.metrics.bucket.size.secs": 2,
           "topology.metrics.consumer.register": [
               {"class": "org.apache.storm.metric.LoggingMetricsConsumer",
                "parallelism.hint": 1}]}


class LoggedCluster(RealCluster):
    def topology(self, name):
        return real_storm.reference_topology(
            self.generation, topology_jars.WORD_COUNT, name, workers=1, options=OPTIONS)


@pytest.fixture(scope="module")
def cluster(zookeeper_server, tmp_path_factory):
    reason = real_storm.unavailable_reason("1.x")
    if not reason:
        try:
            topology_jars.topology_jar(maven.STORM_1X)
        except maven.MavenUnavailable as e:
            reason = str(e)
    if reason:
        pytest.skip("a real Storm 1.2.4 worker cannot run here: %s" % reason)
    workdir = str(tmp_path_factory.mktemp("worker-log-shapes"))
    with LoggedCluster.started("1.x", zookeeper_server, workdir, [NAME], slots=1) as real:
        yield real


def artifact(cluster, storm_id, name):
    text = ""
    for port in sorted(cluster.slots(storm_id) or {}):
        path = os.path.join(cluster.supervisor.log_dir, "workers-artifacts", storm_id,
                            str(port), name)
        if os.path.exists(path):
            with open(path, encoding="utf-8") as f:
                text += f.read()
    return text


@pytest.fixture(scope="module")
def java_lines(cluster):
    """``(events.log lines, LoggingMetricsConsumer messages)`` of the Java worker, once both
    have some of split's."""
    storm_id = cluster.wait(lambda: cluster.storm_id(NAME), "the topology's id")
    cluster.wait(lambda: cluster.slots(storm_id), "the assignment")
    cluster.call("debug", name=NAME, component="", enable=True, samplingPercentage=100.0)

    def both():
        events = artifact(cluster, storm_id, "events.log").splitlines()
        messages = [line.split(CONSUMER_LOGGER, 1)[1] for line in
                    artifact(cluster, storm_id, "worker.log").splitlines()
                    if CONSUMER_LOGGER in line]
        if any(",split," in e for e in events) and any(":split" in m for m in messages) \
                and any(":spout" in m for m in messages):
            return events, messages
        return None
    return cluster.wait(both, "events.log and the metrics lines of the Java worker",
                        timeout=180, interval=1)


def test_our_event_line_is_the_java_workers(java_lines):
    """Each Java ``events.log`` line (``EventInfo.toString``) is :func:`event_line` of its own
    fields: Date.toString of the time stamp, component, task, message id, values."""
    events, _ = java_lines
    for line in events:
        match = EVENT.match(line)
        assert match, line
        date, component, task_id, message_id, values = match.groups()
        ts_ms = calendar.timegm(time.strptime(date, "%a %b %d %H:%M:%S %Z %Y")) * 1000
        assert java_date(ts_ms) == date  # the worker's time zone, as the JVM's
        assert event_line(ts_ms, component, int(task_id), message_id or None,
                          values.split(", ") if values else []) == line


def test_our_metrics_message_is_the_java_consumers(java_lines):
    """Each ``LoggingMetricsConsumer`` message of the Java worker is
    :func:`data_point_messages` of its own fields (the format string's widths, the name
    padded or cut to 23)."""
    _, messages = java_lines
    for message in messages:
        match = METRIC.match(message)
        assert match, repr(message)
        ts, host, port, task_id, component, name, value = match.groups()
        info = TaskInfo(host, int(port), component, int(task_id), int(ts), 2)
        assert data_point_messages(info, [DataPoint(name.rstrip(), value)]) == [message]


def names_sent(messages, component):
    return {METRIC.match(m).group(6).rstrip() for m in messages
            if METRIC.match(m).group(5) == component}


def our_builtin_names(is_spout):
    clock = task.Clock()
    fields = dict.fromkeys(executor.WorkerContext._fields)
    fields.update(reactor=clock, storm_conf={}, loop=ExecutorLoop(clock.callLater, None))
    kind = executor.SpoutExecutor if is_spout else executor.BoltExecutor
    one = kind(executor.WorkerContext(**fields), "c", [1], {}, {},
               stats.ExecutorStatsCollector("spout" if is_spout else "bolt", clock.seconds),
               host_factory=None, on_child_died=None)
    return {name for name, _ in BuiltinMetrics(one, 1024).data_points()}


def test_the_builtin_metric_names_are_the_java_workers(java_lines):
    """A bolt and a spout send the same built-in metrics as a Java bolt and spout."""
    _, messages = java_lines
    assert names_sent(messages, "split") == our_builtin_names(False)
    assert names_sent(messages, "spout") == our_builtin_names(True)
