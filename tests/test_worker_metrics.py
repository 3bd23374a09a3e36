"""Built-in metrics and metrics consumers in Python workers (:mod:`pynimbus.worker.metrics`):
the counts and latencies since the last read that ``MultiCountStatAndMetric`` and
``MultiLatencyStatAndMetric`` give, the worker's ``SystemBolt`` metrics, the tick that sends
``[task-info, data-points]`` on ``__metrics``, ``FilterByMetricName`` and
``DataPointExpander``, ``LoggingMetricsConsumer``'s lines; then on ``pynimbus dev``, a Python
consumer registered in the topology's conf receiving a running word count's metrics, Storm's
``LoggingMetricsConsumer`` mapped to ``worker.log.metrics``, and a Java consumer reported as
an error while the worker runs on."""
# test-case-name: tests.test_worker_metrics

import datetime
import json
import os
import re

import pytest
from twisted.internet import defer, task

from test_worker_eventlogger import context
from pynimbus.common.metrics_consumer import DataPoint, IMetricsConsumer, TaskInfo
from pynimbus.worker import executor, stats
from pynimbus.worker.metrics import (
    BuiltinMetrics, ConsumerContext, MetricsConsumerExecutor, MetricsRegistrationError,
    MetricsTicker, WorkerMetrics, data_point_messages, expand_data_points, load_consumer_class,
    metric_name_filter, metrics_line)
from pynimbus.worker.message_id import UNANCHORED


def bolt(clock, transferred=None, task_ids=(2,)):
    return executor.BoltExecutor(
        context(clock, transferred), "split", list(task_ids),
        {"default": {"count": lambda task_id, values: [5]},
         "__metrics": {"__metricsrecorder": lambda task_id, values: [9]}},
        {}, stats.ExecutorStatsCollector("bolt", clock.seconds, 1.0),
        host_factory=None, on_child_died=None)


# -- built-in metrics

def test_bolt_counts_and_latencies_are_those_since_the_last_read():
    """``__ack-count`` by ``component:stream`` of the input, ``__process-latency`` the mean of
    the acks since the previous read (0.0 with none), ``__emit-count`` by stream, each read
    resetting: the next read has only what came after."""
    clock = task.Clock()
    b = bolt(clock)
    metrics = BuiltinMetrics(b, 1024)
    for latency in (10, 20):
        b.stats.acked("sentences", "default", latency)
    b.stats.executed("sentences", "default", 4)
    b.stats.emitted_to("default", 1)
    points = dict(metrics.data_points())
    assert points["__ack-count"] == {"sentences:default": 2}
    assert points["__process-latency"] == {"sentences:default": 15.0}
    assert points["__execute-count"] == {"sentences:default": 1}
    assert points["__execute-latency"] == {"sentences:default": 4.0}
    assert points["__emit-count"] == {"default": 1}
    assert points["__transfer-count"] == {"default": 1}
    assert points["__fail-count"] == {}
    assert points["__receive"] == {"capacity": 1024, "population": 0, "tuple_population": 0}
    assert list(points) == ["__ack-count", "__process-latency", "__fail-count",
                            "__execute-count", "__execute-latency", "__emit-count",
                            "__transfer-count", "__sendqueue", "__receive"]
    clock.advance(3600)  # rotations move counts into the windows: the totals still add up
    b.stats.rotate_due()
    b.stats.acked("sentences", "default", 40)
    again = dict(metrics.data_points())
    assert again["__ack-count"] == {"sentences:default": 1}
    assert again["__process-latency"] == {"sentences:default": 40.0}
    assert again["__execute-count"] == {"sentences:default": 0}
    assert again["__execute-latency"] == {"sentences:default": 0.0}


def test_spout_metrics_are_by_stream_with_the_complete_latency():
    clock = task.Clock()
    spout = executor.SpoutExecutor(
        context(clock), "sentences", [1], {}, {},
        stats.ExecutorStatsCollector("spout", clock.seconds, 1.0),
        host_factory=None, on_child_died=None)
    spout.stats.acked("default", 30)
    metrics = BuiltinMetrics(spout, 1024)
    spout._ask_next(1)  # inactive: the loop asks for nothing
    points = dict(metrics.data_points())
    assert points["__ack-count"] == {"default": 1}
    assert points["__complete-latency"] == {"default": 30.0}
    assert "__execute-count" not in points and "__process-latency" not in points
    assert (points["__skipped-inactive"], points["__skipped-throttle"],
            points["__skipped-max-spout"]) == (1, 0, 0)
    assert dict(metrics.data_points())["__skipped-inactive"] == 0


def test_the_sampled_counts_stand_for_rate_events():
    """With ``topology.stats.sample.rate`` 0.5 a sampled ack counts 2, as Storm's stats do."""
    clock = task.Clock()
    b = executor.BoltExecutor(context(clock), "split", [2], {}, {},
                              stats.ExecutorStatsCollector("bolt", clock.seconds, 0.5),
                              host_factory=None, on_child_died=None)
    b.stats.acked("sentences", "default", 1)
    assert dict(BuiltinMetrics(b, 1024).data_points())["__ack-count"] == {
        "sentences:default": 2}


def test_worker_metrics_say_a_new_worker_once_and_count_collections_from_the_second_read():
    clock = task.Clock()
    clock.advance(1000)
    metrics = WorkerMetrics(990.0, clock.seconds, rss=lambda: 50 << 20)
    first = dict(metrics.data_points())
    assert first["uptimeSecs"] == 10.0 and first["startTimeSecs"] == 990.0
    assert first["newWorkerEvent"] == 1
    assert first["memory/heap"]["usedBytes"] == 50 << 20
    assert not any(name.startswith("GC/") for name in first)
    second = dict(metrics.data_points())
    assert second["newWorkerEvent"] == 0
    assert sorted(name for name in second if name.startswith("GC/")) == [
        "GC/gen0", "GC/gen1", "GC/gen2"]
    assert all(value["count"] >= 0 for name, value in second.items() if name.startswith("GC/"))


def test_the_tick_sends_each_tasks_data_points_on_metrics():
    """Every interval, ``[[host, port, component, task, now, interval], [[name, value],
    ...]]`` from each task to the consumer task; the second task of an executor gets the
    shared counts reset to zero by the first, as Storm's shared executor stats do."""
    clock = task.Clock()
    clock.advance(100)
    transferred = []
    b = bolt(clock, transferred, task_ids=(2, 3))
    b.stats.acked("sentences", "default", 5)
    ticker = MetricsTicker(clock, [(b, [BuiltinMetrics(b, 1024)])], 2, "host1", 6700,
                           clock.seconds)
    ticker.start()
    clock.advance(1.9)
    assert transferred == []
    clock.advance(0.1)
    sent = [m for m in transferred if m[2] == "__metrics"]
    assert [(m[0], m[1]) for m in sent] == [(9, 2), (9, 3)]
    (task_info, points), (_, points_3) = sent[0][4], sent[1][4]
    assert task_info == ["host1", 6700, "split", 2, 102, 2]
    assert dict(points)["__ack-count"] == {"sentences:default": 1}
    assert dict(points_3)["__ack-count"] == {"sentences:default": 0}
    ticker.stop()
    assert not clock.getDelayedCalls()


# -- consumers

def test_a_whitelist_keeps_matches_and_a_blacklist_drops_them():
    """``FilterByMetricName``: patterns found anywhere in the name; neither list keeps
    everything; both is an error."""
    keep = metric_name_filter(["^__ack", "latency"], None)
    assert [n for n in ("__ack-count", "__emit-count", "__process-latency") if keep(n)] == [
        "__ack-count", "__process-latency"]
    drop = metric_name_filter(None, ["^__ack"])
    assert [n for n in ("__ack-count", "__emit-count") if drop(n)] == ["__emit-count"]
    assert metric_name_filter(None, None) is None
    with pytest.raises(MetricsRegistrationError, match="not both"):
        metric_name_filter(["a"], ["b"])


def test_expanding_map_values_names_each_key():
    """``DataPointExpander``: ``name.key`` per key of a map, others as they are, None gone."""
    assert expand_data_points([DataPoint("__ack-count", {"default": 3, "other": 1}),
                               DataPoint("uptimeSecs", 2.0), DataPoint("gone", None)], "/") == [
        DataPoint("__ack-count/default", 3), DataPoint("__ack-count/other", 1),
        DataPoint("uptimeSecs", 2.0)]


def test_a_java_class_or_an_unimportable_one_says_what_to_register_instead(tmp_path):
    with pytest.raises(MetricsRegistrationError) as raised:
        load_consumer_class("org.apache.storm.metrics.graphite.GraphiteMetricsConsumer",
                            str(tmp_path))
    assert "Java class, which a Python worker cannot run" in str(raised.value)
    assert "register a Python class, module.Class" in str(raised.value)
    with pytest.raises(MetricsRegistrationError, match="no dotted class name"):
        load_consumer_class("Consumer", str(tmp_path))
    assert load_consumer_class("org.apache.storm.metric.LoggingMetricsConsumer",
                               None).__name__ == "LoggingMetricsConsumer"


class Recording(IMetricsConsumer):
    def prepare(self, storm_conf, registration_argument, context, error_reporter):
        self.argument = registration_argument
        self.context = context
        self.got = []

    def handle_data_points(self, task_info, data_points):
        self.got.append((task_info, data_points))


def test_the_consumer_executor_prepares_each_task_and_hands_it_filtered_points(monkeypatch):
    """``MetricsConsumerBolt``: the class prepared with the registration's argument and the
    task's context, then each ``__metrics`` tuple as a ``TaskInfo`` and the ``DataPoint`` the
    whitelist keeps."""
    clock = task.Clock()
    import pynimbus.worker.metrics as metrics_module
    monkeypatch.setattr(metrics_module, "load_consumer_class", lambda name, where: Recording)
    consumer = MetricsConsumerExecutor(
        context(clock), "__metricsrec", [9], {}, {},
        stats.ExecutorStatsCollector("bolt", clock.seconds),
        registration={"class": "x.Recording", "argument": {"a": 1}, "whitelist": ["^__ack"]},
        consumer_context=ConsumerContext("t-1-1", "__metricsrec", None, 6700, "/a", 0.0),
        run_blocking=lambda f, *a: defer.maybeDeferred(f, *a))
    consumer.start()
    [recording] = consumer.consumers.values()
    assert recording.argument == {"a": 1} and recording.context.task_id == 9
    consumer.receive(9, executor.TupleImpl(
        2, "split", "__metrics", [["h", 6700, "split", 2, 100, 2],
                                  [["__ack-count", {"s:default": 1}], ["__emit-count", {}]]],
        UNANCHORED))
    clock.advance(0)
    assert recording.got == [(TaskInfo("h", 6700, "split", 2, 100, 2),
                              [DataPoint("__ack-count", {"s:default": 1})])]


# -- LoggingMetricsConsumer's lines

def test_logging_metrics_consumer_lines_follow_the_java_format_string():
    """``"%d\\t%15s:%-4d\\t%3d:%-11s\\t"`` then the name padded (or cut) to 23, a tab and the
    value as Java prints it."""
    info = TaskInfo("host1", 6700, "split", 3, 1700000000, 60)
    assert data_point_messages(info, [DataPoint("__ack-count", {"default": 5}),
                                      DataPoint("a-very-long-metric-name-indeed", 1.5)]) == [
        "1700000000\t          host1:6700\t  3:split      \t__ack-count            \t"
        "{default=5}",
        "1700000000\t          host1:6700\t  3:split      \ta-very-long-metric-name\t1.5"]


def test_the_metrics_log_layout_is_log4j2s_date_uptime_message():
    """worker.xml's METRICS pattern ``%d %-8r %m``."""
    now = datetime.datetime(2026, 12, 6, 20, 1, 2, 345678)
    assert metrics_line(now, 1234, "m") == "2026-12-06 20:01:02,345 1234     m"


# -- on pynimbus dev

def batches(path):
    try:
        with open(path) as f:
            return [json.loads(line) for line in f]
    except FileNotFoundError:
        return []


def test_a_python_consumer_gets_the_word_counts_metrics_on_dev(
        tmp_path, monkeypatch, wait_until):
    """Registered in the topology's conf with a 2 s bucket, on two workers: the Python
    consumer (shipped in the jar's resources) gets every component's built-in metrics from
    both workers with the acks growing, and each worker's own from its task -1; Storm's
    LoggingMetricsConsumer writes its lines to worker.log.metrics; a Java consumer class is
    the component's error and the rest runs."""
    from dev_word_count import word_count_on_dev

    recorded = str(tmp_path / "metrics.jsonl")
    with open(os.path.join(os.path.dirname(__file__), "metrics_consumers",
                           "recording_consumer.py"), "rb") as f:
        consumer_source = f.read()
    conf = {"topology.builtin.metrics.bucket.size.secs": 2, "topology.stats.sample.rate": 1.0,
            "topology.metrics.consumer.register": [
                {"class": "recording_consumer.RecordingConsumer", "parallelism.hint": 1,
                 "argument": recorded},
                {"class": "org.apache.storm.metric.LoggingMetricsConsumer",
                 "parallelism.hint": 1},
                {"class": "org.apache.storm.metrics.graphite.GraphiteMetricsConsumer",
                 "parallelism.hint": 1}]}
    with word_count_on_dev(tmp_path, monkeypatch, wait_until, "metered", conf, workers=2,
                           files={"recording_consumer.py": consumer_source}) as running:
        def acked_by_count():
            return [sum(b["data_points"]["__ack-count"].values()) for b in batches(recorded)
                    if b["task_info"][2] == "count"]
        wait_until(lambda: len([n for n in acked_by_count() if n > 0]) >= 4, timeout=60,
                   interval=0.5, what="count's acks in the consumer's batches:\n%s"
                   % running.worker_log()[-3000:])
        got = batches(recorded)
        assert {b["task_info"][2] for b in got} >= {
            "sentences", "split", "count", "__acker", "__system"}
        assert got[0]["prepared"]["component_id"] == "__metricsrecording_consumer." \
            "RecordingConsumer" and got[0]["prepared"]["bucket"] == 2
        for b in got:
            host, port, component, task_id, timestamp, interval = b["task_info"]
            assert port in running.ports and interval == 2
        # the consumer task is in one worker: the other's metrics crossed between workers
        assert {b["task_info"][1] for b in got} == set(running.ports)
        spout = [b for b in got if b["task_info"][2] == "sentences"]
        assert sum(b["data_points"]["__emit-count"].get("default", 0) for b in spout) > 0
        assert all(set(b["data_points"]["__complete-latency"]) <= {"default"} for b in spout)
        system = [b["data_points"] for b in got if b["task_info"][2] == "__system"]
        assert system[0]["newWorkerEvent"] == 1 and system[0]["uptimeSecs"] > 0
        assert system[0]["memory/heap"]["usedBytes"] > 1 << 20
        assert all(b["task_info"][3] == -1 for b in got if b["task_info"][2] == "__system")
        assert {b["task_info"][1] for b in got if b["task_info"][2] == "__system"} == set(
            running.ports)  # each worker's own

        metrics_log = running.artifact("worker.log.metrics")
        line = re.compile(r"^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d,\d{3} \d+ +\d+\t +[\w.-]+:\d+ *\t"
                          r" *-?\d+:\S+ *\t\S+ *\t.*$")
        assert metrics_log and all(line.match(text) for text in metrics_log.splitlines()), \
            metrics_log[:2000]
        assert re.search(r"\t *\d+:count +\t__ack-count +\t\{", metrics_log)

        wait_until(lambda: "__metricsorg.apache.storm.metrics.graphite."
                   "GraphiteMetricsConsumer" in running.errors(), timeout=30, interval=0.5,
                   what="the Java consumer's error")
        [error] = running.errors()["__metricsorg.apache.storm.metrics.graphite."
                                   "GraphiteMetricsConsumer"][:1]
        assert "Java class, which a Python worker cannot run" in error
        before = running.counted()
        wait_until(lambda: running.counted() > before + 100, timeout=60, interval=0.5,
                   what="the word count to go on")
