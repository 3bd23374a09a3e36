"""The UI's graph, metrics and lag answers (pure): Storm 1.2.4's ``ui/core.clj`` and the
executor-summary aggregation of ``stats.clj``, on hand-made Thrift values.  The live
comparison with Storm's own UI is ``tests/compat/test_storm_ui_live.py``."""

import json

import pytest

from pynimbus.clojure_port import executor_stats, ui_visualization as viz
from pynimbus.generated.storm.ttypes import (
    Bolt, BoltStats, ComponentCommon, ExecutorInfo, ExecutorSpecificStats, ExecutorStats,
    ExecutorSummary, GlobalStreamId, Grouping, NullStruct, SpoutSpec, SpoutStats,
    StormTopology)

# (name, what Clojure 1.7's sanitize-stream-name gives: run on the JVM once)
SANITIZED = [("default", "default722480637"), ("__ack_ack", "s__ack_ack643800921"),
             ("1word", "s_word-1236306590"), ("a b/c", "a_b_c-4217776"), ("", "s0"),
             ("words-out", "words-out1739987227"), ("\u00fcn\u00ef", "s_n_-191151071")]


@pytest.mark.parametrize("name, sanitized", SANITIZED)
def test_sanitize_stream_name_is_clojures(name, sanitized):
    assert viz.sanitize_stream_name(name) == sanitized


def test_clojure_max_keeps_the_later_of_equal_values():
    # (max 0 0.0) is 0.0 and (max 0.0 0) is 0: JSON writes them differently
    assert repr(executor_stats.clojure_max([0, 0.0])) == "0.0"
    assert repr(executor_stats.clojure_max([0.0, 0])) == "0"
    assert executor_stats.clojure_max([0.1, 0.5, 0]) == 0.5


def window_map(value, stream="default"):
    return {w: {stream: value} for w in ("600", ":all-time")}


def bolt_executor(task, executed, latency, acked=None, uptime=100, port=6700):
    gsid = GlobalStreamId("spout", "default")
    stats = ExecutorStats(
        emitted=window_map(executed), transferred=window_map(executed),
        specific=ExecutorSpecificStats(bolt=BoltStats(
            acked=window_map(executed if acked is None else acked, gsid),
            failed=window_map(0, gsid), process_ms_avg=window_map(latency, gsid),
            executed=window_map(executed, gsid), execute_ms_avg=window_map(latency, gsid))),
        rate=0.0)
    return ExecutorSummary(ExecutorInfo(task, task), "bolt", "h", port, uptime, stats)


def spout_executor(task, emitted, latency, acked):
    stats = ExecutorStats(
        emitted=window_map(emitted), transferred=window_map(emitted),
        specific=ExecutorSpecificStats(spout=SpoutStats(
            acked=window_map(acked), failed=window_map(0),
            complete_ms_avg=window_map(latency))), rate=0.0)
    return ExecutorSummary(ExecutorInfo(task, task), "spout", "h", 6700, 50, stats)


def topology():
    common = ComponentCommon(inputs={}, streams={})
    bolt_common = ComponentCommon(
        inputs={GlobalStreamId("spout", "default"): Grouping(shuffle=NullStruct()),
                GlobalStreamId("spout", "__ack_init"): Grouping(fields=["id"])},
        streams={})
    return StormTopology(spouts={"spout": SpoutSpec(None, common)},
                         bolts={"bolt": Bolt(None, bolt_common)}, state_spouts={})


def test_latencies_are_averages_weighted_by_counts():
    executors = [bolt_executor(1, 30, 2.0), bolt_executor(2, 10, 6.0)]
    streams = executor_stats.bolt_streams_stats(executors, True)
    assert streams["execute-latencies"]["600"] == pytest.approx((30 * 2.0 + 10 * 6.0) / 40)
    assert streams["executed"][":all-time"] == 40
    # no count at all: Storm's integer 0, not 0.0
    idle = executor_stats.bolt_streams_stats([bolt_executor(1, 0, 0.0)], True)
    assert repr(idle["process-latencies"]["600"]) == "0"


def test_capacity_is_the_busiest_executors_share_of_its_window():
    busy = bolt_executor(1, 1000, 50.0, uptime=100)   # 1000 x 50 ms over 100 s: 0.5
    calm = bolt_executor(2, 1000, 10.0, uptime=1000)  # over 600 s (the window): 1/60
    assert executor_stats.compute_bolt_capacity([calm, busy]) == pytest.approx(0.5)
    assert executor_stats.compute_executor_capacity(bolt_executor(3, 5, 1.0, uptime=0)) is None


def test_visualization_data_of_a_spout_and_a_bolt():
    executors = [spout_executor(3, 40, 12.5, 40), bolt_executor(1, 30, 2.0),
                 bolt_executor(2, 10, 6.0)]
    data = viz.visualization_data(topology(), executors, "600", False, "t-1-1")
    assert list(data) == ["spout", "bolt"]
    spout, bolt = data["spout"], data["bolt"]
    assert (spout[":type"], spout[":latency"], spout[":transferred"]) == ("spout", 12.5, 40)
    assert spout[":capacity"] == 0 and spout[":inputs"] == []
    assert bolt[":type"] == "bolt" and bolt[":transferred"] == 40
    assert bolt[":latency"] == pytest.approx(3.0)
    assert bolt[":link"] == "/component.html?id=bolt&topology_id=t-1-1"
    assert [s[":transferred"]["600"] for s in bolt[":stats"]] == [
        {"default722480637": 30}, {"default722480637": 10}]
    assert sorted((i[":stream"], i[":grouping"]) for i in bolt[":inputs"]) == [
        ("__ack_init", "fields"), ("default", "shuffle")]


def test_stream_boxes_are_rows_of_four_distinct_streams():
    data = {"a": {":inputs": [{":stream": "s%d" % i, ":sani-stream": "x%d" % i}
                              for i in range(5)]},
            "b": {":inputs": [{":stream": "s1", ":sani-stream": "x1"},
                              {":stream": "__ack_ack", ":sani-stream": "y"}]}}
    rows = viz.stream_boxes(data)
    assert [[b[":stream"] for b in row[":row"]] for row in rows] == [
        ["s0", "s1", "s2", "s3"], ["s4", "__ack_ack"]]
    assert [b[":checked"] for b in rows[1][":row"]] == [True, False]


def test_metrics_page_sums_counts_and_averages_latencies_per_stream():
    no_heartbeat_yet = ExecutorSummary(ExecutorInfo(4, 4), "bolt", "h", 6701, 1, None)
    executors = [bolt_executor(1, 30, 2.0), bolt_executor(2, 10, 6.0),
                 spout_executor(3, 40, 12.5, 40), no_heartbeat_yet]
    page = viz.topology_metrics_page(topology(), executors, "600", False)
    assert (page["window"], page["window-hint"]) == ("600", "10m 0s")
    [bolt] = page["bolts"]
    assert bolt["executed"] == [{"component_id": "spout", "stream_id": "default",
                                 "value": 40}]
    assert bolt["executed_ms_avg"][0]["value"] == "4.000"  # the executors' plain mean
    [spout] = page["spouts"]
    assert spout["emitted"] == [{"stream_id": "default", "value": 40}]
    assert spout["complete_ms_avg"] == [{"stream_id": "default", "value": "12.500"}]


def test_lag_names_kafka_spouts_only():
    conf = json.dumps({"config.topics": "t", "config.groupid": "g",
                       "config.bootstrap.servers": "k:9092"})
    t = StormTopology(spouts={"kafka": SpoutSpec(None, ComponentCommon({}, {}, json_conf=conf)),
                              "plain": SpoutSpec(None, ComponentCommon({}, {}))},
                      bolts={}, state_spouts={})
    lag = viz.topology_lag(t)
    assert list(lag) == ["kafka"]
    assert lag["kafka"]["spoutType"] == "KAFKA" and "storm-kafka-monitor" in (
        lag["kafka"]["errorInfo"])
