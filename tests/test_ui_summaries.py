"""The Storm UI's cluster-wide answers from Thrift values (:mod:`pynimbus.clojure_port.
ui_summaries`), as 1.2.4's ``ui/core.clj`` computes them: counts, slots, resources and their
percentages, Offline seeds, log links, uptimes as ``pretty-uptime-sec`` writes them."""

import pytest

from pynimbus.clojure_port import ui_summaries as ui
from pynimbus.generated.storm.ttypes import (
    ClusterSummary, NimbusSummary, SupervisorSummary, TopologyHistoryInfo, TopologySummary)

CONF = {"logviewer.port": 8000, "nimbus.thrift.port": 6627, "scheduler.display.resource": False,
        "nimbus.seeds": ["localhost", "nimbus2"]}


@pytest.mark.parametrize("secs, text", [
    (0, ""), (5, "5s"), (60, "1m 0s"), (3600, "1h 0m 0s"), (3725, "1h 2m 5s"),
    (93784, "1d 2h 3m 4s"), (86400 * 400, "400d 0h 0m 0s")])
def test_pretty_uptime_sec(secs, text):
    assert ui.pretty_uptime_sec(secs) == text


@pytest.mark.parametrize("text, encoded", [
    ("wc-1-1700000000", "wc-1-1700000000"), ("a b/c", "a%20b%2Fc"), ("x+y~z.q_", "x+y~z.q_"),
    ("caf\u00e9", "caf%C3%A9")])
def test_url_encode_is_rings(text, encoded):
    assert ui.url_encode(text) == encoded


def supervisor(sid, host, slots, used, mem=4096.0, cpu=400.0, used_mem=0.0, used_cpu=0.0):
    return SupervisorSummary(
        host=host, uptime_secs=3725, num_workers=slots, num_used_workers=used,
        supervisor_id=sid, version="1.2.4",
        total_resources={"supervisor.memory.capacity.mb": mem, "supervisor.cpu.capacity": cpu},
        used_mem=used_mem, used_cpu=used_cpu)


def topology(tid, name, tasks, executors, workers, on=0.0, off=0.0, cpu=0.0):
    return TopologySummary(
        id=tid, name=name, num_tasks=tasks, num_executors=executors, num_workers=workers,
        uptime_secs=61, status="ACTIVE", owner="alice", sched_status="",
        requested_memonheap=on, requested_memoffheap=off, requested_cpu=cpu,
        assigned_memonheap=on, assigned_memoffheap=off, assigned_cpu=cpu)


def test_cluster_summary_counts_slots_and_resources():
    summary = ClusterSummary(
        supervisors=[supervisor("a", "h1", 4, 1, used_mem=1024.0, used_cpu=100.0),
                     supervisor("b", "h2", 2, 2, used_mem=5000.0, used_cpu=50.0)],
        topologies=[topology("wc-1-1", "wc", 10, 8, 2), topology("x-2-2", "x", 3, 3, 1)],
        nimbuses=[])
    body = ui.cluster_summary(CONF, summary, None, "1.2.4")
    assert body == {
        "user": None, "stormVersion": "1.2.4", "supervisors": 2, "topologies": 2,
        "slotsTotal": 6, "slotsUsed": 3, "slotsFree": 3, "executorsTotal": 11,
        "tasksTotal": 13, "schedulerDisplayResource": False,
        "totalMem": 8192.0, "totalCpu": 800.0,
        "availMem": 3072.0 + 0.0, "availCpu": 300.0 + 350.0,  # used beyond capacity: 0 left
        "memAssignedPercentUtil": "62.5", "cpuAssignedPercentUtil": "18.8"}


def test_percentages_round_half_up_as_javas_format():
    summary = ClusterSummary(supervisors=[supervisor("a", "h", 1, 0, mem=400.0, used_mem=1.0)],
                             topologies=[], nimbuses=[])
    assert ui.cluster_summary(CONF, summary, None, "1.2.4")["memAssignedPercentUtil"] == "0.3"


def test_an_empty_cluster_has_no_percentages():
    body = ui.cluster_summary(CONF, ClusterSummary(supervisors=[], topologies=[], nimbuses=[]),
                              None, "1.2.4")
    assert (body["totalMem"], body["memAssignedPercentUtil"], body["slotsFree"]) == (0.0, 0.0, 0)


def test_nimbus_summary_lists_seeds_no_nimbus_reports_from_as_offline_first():
    body = ui.nimbus_summary(CONF, [NimbusSummary(host="localhost", port=6627, uptime_secs=5,
                                                  isLeader=True, version="1.2.4")])
    assert body == {"nimbuses": [
        {"host": "nimbus2", "port": "6627", "status": "Offline", "version": "Not applicable",
         "nimbusUpTime": "Not applicable", "nimbusUptimeSeconds": "Not applicable",
         "nimbusLogLink": "http://nimbus2:8000/daemonlog?file=nimbus.log"},
        {"host": "localhost", "port": 6627, "status": "Leader", "version": "1.2.4",
         "nimbusUpTime": "5s", "nimbusUpTimeSeconds": 5,
         "nimbusLogLink": "http://localhost:8000/daemonlog?file=nimbus.log"}]}


def test_supervisor_summary():
    body = ui.supervisor_summary(CONF, [supervisor("a", "h1", 4, 1, used_mem=832.0,
                                                   used_cpu=500.0)])
    assert body == {"schedulerDisplayResource": False, "supervisors": [{
        "id": "a", "host": "h1", "uptime": "1h 2m 5s", "uptimeSeconds": 3725,
        "slotsTotal": 4, "slotsUsed": 1, "slotsFree": 3, "totalMem": 4096.0, "totalCpu": 400.0,
        "usedMem": 832.0, "usedCpu": 500.0, "availMem": 3264.0, "availCpu": 0,
        "logLink": "http://h1:8000/daemonlog?file=supervisor.log", "version": "1.2.4"}]}


def test_topology_summary():
    body = ui.all_topologies_summary(CONF, [topology("my topo-1-2", "my topo", 3, 2, 1,
                                                     on=128.0, off=64.0, cpu=20.0)])
    [t] = body["topologies"]
    assert t == {
        "id": "my topo-1-2", "encodedId": "my%20topo-1-2", "owner": "alice", "name": "my topo",
        "status": "ACTIVE", "uptime": "1m 1s", "uptimeSeconds": 61, "tasksTotal": 3,
        "workersTotal": 1, "executorsTotal": 2, "replicationCount": 0, "schedulerInfo": "",
        "requestedMemOnHeap": 128.0, "requestedMemOffHeap": 64.0, "requestedTotalMem": 192.0,
        "requestedCpu": 20.0, "assignedMemOnHeap": 128.0, "assignedMemOffHeap": 64.0,
        "assignedTotalMem": 192.0, "assignedCpu": 20.0}
    assert body["schedulerDisplayResource"] is False


def test_history_summary():
    assert ui.topology_history_info(TopologyHistoryInfo(topo_ids=["a-1-1", "b-2-2"])) == {
        "topo-history": ["a-1-1", "b-2-2"]}


# -- the topology page

@pytest.mark.parametrize("value, text", [
    (None, "0"), (0.0, "0.000"), (2.0, "2.000"), (0.1, "0.100"), (12.3456, "12.346"),
    (0.0005, "0.001")])  # as a Java float, 0.0005 is 0.000500000023...: up
def test_float_str(value, text):
    assert ui.float_str(value) == text


def test_java_format_rounds_the_shortest_digits_half_up():
    assert ui.java_format_fixed(0.15, 1) == "0.2"  # Python's "%.1f" gives 0.1
    assert ui.java_format_fixed(0.25, 1) == "0.3"


def page_info():
    from pynimbus.generated.storm.ttypes import (
        BoltAggregateStats, CommonAggregateStats, ComponentAggregateStats, ComponentType,
        DebugOptions, ErrorInfo, SpecificAggregateStats, SpoutAggregateStats, TopologyPageInfo,
        TopologyStats, WorkerSummary)

    def common(emitted):
        return CommonAggregateStats(num_executors=2, num_tasks=2, emitted=emitted,
                                    transferred=emitted, acked=5, failed=1,
                                    resources_map={ui.ONHEAP: 128.0, ui.CPU: 10.0})
    spout = ComponentAggregateStats(
        type=ComponentType.SPOUT, common_stats=common(100),
        specific_stats=SpecificAggregateStats(spout=SpoutAggregateStats(
            complete_latency_ms=3.25)))
    bolt = ComponentAggregateStats(
        type=ComponentType.BOLT, common_stats=common(40),
        specific_stats=SpecificAggregateStats(bolt=BoltAggregateStats(
            capacity=0.5, execute_latency_ms=1.0, process_latency_ms=2.0, executed=40)),
        last_error=ErrorInfo(error="x" * 300, error_time_secs=990, host="h1", port=6700))
    windows = {"600": 10, "10800": 20, ":all-time": 30, "86400": 25}
    return TopologyPageInfo(
        id="wc-1-2", name="wc", uptime_secs=61, status="ACTIVE", num_tasks=4, num_workers=1,
        num_executors=4, topology_conf='{"topology.message.timeout.secs": 30}',
        id_to_spout_agg_stats={"sentences": spout}, id_to_bolt_agg_stats={"count": bolt},
        sched_status="", owner="alice", replication_count=1,
        topology_stats=TopologyStats(
            window_to_emitted=windows, window_to_transferred=windows,
            window_to_complete_latencies_ms={"600": 1.5, ":all-time": 2.0},
            window_to_acked=windows, window_to_failed={}),
        workers=[WorkerSummary(supervisor_id="s", host="h1", port=6700, topology_id="wc-1-2",
                               topology_name="wc", num_executors=4, uptime_secs=60,
                               component_to_num_tasks={"count": 2})],
        debug_options=DebugOptions(enable=True, samplingpct=20.0))


def test_topology_page():
    body = ui.topology_page(CONF, page_info(), "600", None, now_secs=1000)
    assert [(w["window"], w["windowPretty"], w["emitted"], w["completeLatency"], w["failed"])
            for w in body["topologyStats"]] == [
        ("600", "10m 0s", 10, "1.500", None), ("10800", "3h 0m 0s", 20, "0", None),
        ("86400", "1d 0h 0m 0s", 25, "0", None), (":all-time", "All time", 30, "2.000", None)]
    [spout], [bolt], [worker] = body["spouts"], body["bolts"], body["workers"]
    assert spout == {
        "spoutId": "sentences", "encodedSpoutId": "sentences", "executors": 2, "tasks": 2,
        "emitted": 100, "transferred": 100, "acked": 5, "failed": 1,
        "requestedMemOnHeap": 128.0, "requestedMemOffHeap": None, "requestedCpu": 10.0,
        "completeLatency": "3.250", "lastError": "", "errorTime": None, "errorHost": "",
        "errorPort": "", "errorLapsedSecs": None, "errorWorkerLogLink": ""}
    assert (bolt["capacity"], bolt["executeLatency"], bolt["processLatency"],
            bolt["executed"]) == ("0.500", "1.000", "2.000", 40)
    assert (bolt["lastError"], bolt["errorLapsedSecs"], bolt["errorWorkerLogLink"]) == (
        "x" * 200, 10, "http://h1:8000/log?file=wc-1-2%2F6700%2Fworker.log")
    assert worker["workerLogLink"] == "http://h1:8000/log?file=wc-1-2%2F6700%2Fworker.log"
    assert (body["window"], body["windowHint"], body["msgTimeout"], body["debug"],
            body["samplingPct"], body["configuration"]) == (
        "600", "10m 0s", 30, True, 20.0, {"topology.message.timeout.secs": 30})
