"""The Storm UI's answers as 2.8.8's ``UIHelpers`` computes them (:mod:`pynimbus.clojure_port.
ui_summaries_2x` and the ``_2x`` graph of :mod:`pynimbus.clojure_port.ui_visualization`), on
hand-made Thrift values: 2.x's log links, generic resources, formats, orders and the fields 1.2.4
did not have.  The comparison with the real 2.8.8 UI is ``tests/compat/test_storm_ui.py``."""

import json

import pytest

from pynimbus.clojure_port import ui_summaries as ui1
from pynimbus.clojure_port import ui_summaries_2x as ui
from pynimbus.clojure_port import ui_visualization as viz
from pynimbus.generated.storm.ttypes import (
    Bolt, BoltAggregateStats, ClusterSummary, CommonAggregateStats, ComponentAggregateStats,
    ComponentCommon, ComponentPageInfo, ComponentType, DebugOptions, ErrorInfo,
    ExecutorAggregateStats, ExecutorInfo, ExecutorSummary, GlobalStreamId, Grouping, LogConfig,
    LogLevel, LogLevelAction, NimbusSummary, NodeInfo, NullStruct, OwnerResourceSummary,
    ProfileAction, ProfileRequest, SpecificAggregateStats, SpoutAggregateStats, SpoutSpec,
    StormTopology, SupervisorSummary, TopologyPageInfo, TopologyStats, TopologySummary)

CONF = {"logviewer.port": 8000, "nimbus.thrift.port": 6627,
        "scheduler.display.resource": False, "ui.project.bugtracker.url": "https://bugs",
        "nimbus.seeds": ["localhost", "nimbus2", "nimbus3"]}
SECURE = dict(CONF, **{"logviewer.https.port": 8443})


def test_float_str_formats_the_double_not_a_float():
    """2.8.8's floatStr rounds the double (0.1235 -> 0.124); 1.2.4's cast it to a float first
    (0.12349999 -> 0.123)."""
    assert ui.float_str(0.1235) == "0.124"
    assert ui1.float_str(0.1235) == "0.123"
    assert (ui.float_str(None), ui.float_str(0.0), ui.float_str(12.5)) == ("0", "0.000",
                                                                           "12.500")


def test_generic_resources_leave_out_cpu_and_memory_and_sort_by_name():
    resources = {"cpu.pcore.percent": 100.0, "memory.mb": 1.0, "onheap.memory.mb": 2.0,
                 "offheap.memory.mb": 3.0, "gpu.count": 2.0, "a.b": 1.5, "fpga": 1e7}
    assert ui.prettify_generic_resources(resources) == "a.b=1.5 fpga=1.0E7 gpu.count=2.0"
    assert ui.prettify_generic_resources({}) == ""
    assert ui.prettify_generic_resources(None) is None
    assert ui.subtract_resource_map({"gpu": 2.0}, None) == {}
    assert ui.subtract_resource_map({"gpu": 2.0}, {"gpu": 0.5, "x": 1.0}) == {
        "gpu": 1.5, "x": -1.0}


def test_log_links_are_the_2x_logviewers_and_https_with_its_port():
    assert ui.nimbus_log_link(CONF, "n1") == "http://n1:8000/api/v1/daemonlog?file=nimbus.log"
    assert ui.supervisor_log_link(SECURE, "s1") == \
        "https://s1:8443/api/v1/daemonlog?file=supervisor.log"
    assert ui.worker_log_link(CONF, "h", 6700, "t-1-2") == \
        "http://h:8000/api/v1/log?file=t-1-2%2F6700%2Fworker.log"
    assert ui.worker_log_link(CONF, "", 0, "t-1-2") == \
        "http://:8000/api/v1/log?file=t-1-2%2F0%2Fworker.log"  # always a link in 2.x
    assert ui.worker_dump_link(CONF, "h", 6700, "a b") == \
        "http://h:8000/api/v1/dumps/a%2520b/h%3A6700"
    assert ui.logviewer_info(CONF) == {"logviewerPort": 8000, "logviewerScheme": "http"}
    assert ui.logviewer_info(SECURE) == {"logviewerPort": 8443, "logviewerScheme": "https"}
    assert not ui.is_secure_logviewer(dict(CONF, **{"logviewer.https.port": -1}))


def supervisor(sid, host, slots, used, used_mem=0.0, used_cpu=0.0, **more):
    return SupervisorSummary(
        host=host, uptime_secs=3725, num_workers=slots, num_used_workers=used,
        supervisor_id=sid, version="2.8.8", used_mem=used_mem, used_cpu=used_cpu,
        total_resources={"supervisor.memory.capacity.mb": 4096.0,
                         "supervisor.cpu.capacity": 400.0, "gpu": 2.0}, **more)


def test_cluster_summary_has_2x_fields_and_formats():
    summary = ClusterSummary(
        supervisors=[supervisor("a", "h1", 4, 1, used_mem=1024.0, used_cpu=100.0,
                                fragmented_mem=10.0, used_generic_resources={"gpu": 1.0}),
                     supervisor("b", "h2", 2, 2, used_mem=5000.0, used_cpu=50.0)],
        topologies=[TopologySummary(num_tasks=10, num_executors=8)], nimbuses=[])
    assert ui.cluster_summary(CONF, summary, "alice", "2.8.8") == {
        "user": "alice", "stormVersion": "2.8.8",
        "stormVersionInfo": {"version": "2.8.8", "revision": "Unknown", "branch": "Unknown",
                             "date": "Unknown", "srcChecksum": "Unknown"},
        "supervisors": 2, "topologies": 1, "slotsUsed": 3, "slotsTotal": 6, "slotsFree": 3,
        "tasksTotal": 10, "executorsTotal": 8, "totalMem": 8192.0, "totalCpu": 800.0,
        # no floor at 0 in 2.x: a supervisor used beyond its capacity lowers the total
        "availMem": 8192.0 - 6024.0, "availCpu": 650.0,
        "fragmentedMem": 10.0, "fragmentedCpu": 0.0, "schedulerDisplayResource": False,
        "memAssignedPercentUtil": "73.535", "cpuAssignedPercentUtil": "18.750",
        "bugtracker-url": "https://bugs", "central-log-url": None,
        # Storm 1.x's capacity names are not cpu or memory to 2.x: shown as generic
        "availGenerics": "gpu=3.0 supervisor.cpu.capacity=800.0 "
                         "supervisor.memory.capacity.mb=8192.0",
        "totalGenerics": "gpu=4.0 supervisor.cpu.capacity=800.0 "
                         "supervisor.memory.capacity.mb=8192.0"}
    empty = ui.cluster_summary(CONF, ClusterSummary(supervisors=[], topologies=[]), None, "x")
    assert (empty["memAssignedPercentUtil"], empty["totalGenerics"]) == ("0.0", "")


def test_nimbus_summary_lists_live_nimbuses_then_remote_offline_seeds_in_seed_order():
    body = ui.nimbus_summary(CONF, [NimbusSummary("nimbus3", 6627, 65, True, "2.8.8")])
    assert body["nimbuses"] == [
        {"host": "nimbus3", "port": 6627, "status": "Leader", "version": "2.8.8",
         "nimbusUpTimeSeconds": 65, "nimbusUpTime": "1m 5s",
         "nimbusLogLink": "http://nimbus3:8000/api/v1/daemonlog?file=nimbus.log"},
        {"host": "nimbus2", "port": "6627", "status": "Offline", "version": "Not applicable",
         "nimbusUpTimeSeconds": "Not applicable", "nimbusUpTime": "Not applicable",
         "nimbusLogLink": "http://nimbus2:8000/api/v1/daemonlog?file=nimbus.log"}]


def test_supervisor_json_has_blacklisting_and_generic_resources():
    body = ui.supervisor_json(CONF, supervisor("a", "h1", 4, 5, used_mem=5000.0,
                                               blacklisted=True))
    assert (body["blacklisted"], body["slotsFree"], body["availMem"]) == (True, 0, -904.0)
    assert (body["totalGenericResources"], body["usedGenericResources"],
            body["availGenericResources"]) == (
        "gpu=2.0 supervisor.cpu.capacity=400.0 supervisor.memory.capacity.mb=4096.0", None, "")
    assert body["logLink"] == "http://h1:8000/api/v1/daemonlog?file=supervisor.log"
    page = ui.supervisor_summary(CONF, [supervisor("a", "h1", 4, 0)])
    assert (page["logviewerPort"], page["logviewerScheme"], len(page["supervisors"])) == (
        8000, "http", 1)


def test_topology_summary_requested_total_is_2x_sum_of_requested_off_and_assigned_on():
    t = TopologySummary(id="t 1", name="t", requested_memonheap=100.0, requested_memoffheap=5.0,
                        assigned_memonheap=300.0, assigned_memoffheap=7.0,
                        requested_generic_resources={}, storm_version="2.8.8")
    body = ui.topology_summary_json(t)
    assert (body["encodedId"], body["requestedTotalMem"], body["assignedTotalMem"]) == (
        "t%201", 305.0, 307.0)
    assert (body["requestedGenericResources"], body["assignedGenericResources"],
            body["stormVersion"], body["topologyVersion"]) == ("", None, "2.8.8", None)


def test_owner_resources_say_na_for_unset_guarantees_and_list_the_owners_topologies():
    summary = OwnerResourceSummary(owner="alice", total_topologies=1, memory_usage=512.0,
                                   memory_guarantee=1024.0, cpu_guarantee=-1.0,
                                   isolated_node_guarantee=2)
    body = ui.owner_resource_summaries(CONF, [summary])
    [row] = body["owners"]
    assert (row["memoryGuarantee"], row["cpuGuarantee"], row["memoryGuaranteeRemaining"],
            row["isolatedNodes"], row["totalMemoryUsage"]) == (1024.0, "N/A", "N/A", 2, 512.0)
    mine = TopologySummary(id="a-1-1", name="a", owner="alice")
    page = ui.owner_resource_summary(CONF, "alice", [summary],
                                     [mine, TopologySummary(id="b-2-2", owner="bob")])
    assert [t["id"] for t in page["topologies"]] == ["a-1-1"]
    assert page["schedulerDisplayResource"] is False
    unknown = ui.owner_resource_summary(CONF, "carol", [], [mine])
    assert (unknown["owner"], unknown["isolatedNodes"], unknown["totalTopologies"]) == (
        "carol", -1, 0)
    assert "topologies" not in unknown and "schedulerDisplayResource" not in unknown


def common_stats(resources=None):
    return CommonAggregateStats(num_executors=2, num_tasks=2, emitted=10, transferred=10,
                                acked=3, failed=1, resources_map=resources)


def spout_agg(error=None, resources=None, latency=1.2345):
    return ComponentAggregateStats(
        type=ComponentType.SPOUT, common_stats=common_stats(resources),
        specific_stats=SpecificAggregateStats(spout=SpoutAggregateStats(latency)),
        last_error=error)


def bolt_agg(resources=None):
    return ComponentAggregateStats(
        type=ComponentType.BOLT, common_stats=common_stats(resources),
        specific_stats=SpecificAggregateStats(bolt=BoltAggregateStats(
            execute_latency_ms=0.5, process_latency_ms=0.25, executed=4, capacity=0.0015)))


def page_info(**more):
    return TopologyPageInfo(
        id="wc-1-2", name="wc", owner="alice", status="ACTIVE", uptime_secs=61,
        topology_conf='{"topology.message.timeout.secs": 30}', **more)


def test_topology_page_without_stats_has_no_stats_rows_and_null_error_port():
    info = page_info(id_to_spout_agg_stats={"s": spout_agg(resources={
                         "onheap.memory.mb": 128.0, "offheap.memory.mb": 0.0,
                         "cpu.pcore.percent": 10.0})},
                     id_to_bolt_agg_stats={"b": bolt_agg()},
                     topology_stats=TopologyStats(window_to_emitted={}),
                     debug_options=DebugOptions(enable=False, samplingpct=20.0))
    body = ui.topology_page(CONF, info, {"topology.message.timeout.secs": 30}, ":all-time",
                            None, 1000)
    assert body["topologyStats"] == []
    spout, bolt = body["spouts"][0], body["bolts"][0]
    assert (spout["requestedMemOnHeap"], spout["requestedCpu"],
            spout["requestedGenericResourcesComp"], spout["completeLatency"]) == (
        128.0, 10.0, "", "1.235")
    assert (spout["errorPort"], spout["errorHost"], spout["lastError"],
            spout["errorWorkerLogLink"]) == (None, "", "", "")
    assert "requestedMemOnHeap" not in bolt  # no resources map: no resource fields
    assert (bolt["capacity"], bolt["executeLatency"]) == ("0.002", "0.500")
    # debugging off: 2.8.8 shows 10 whatever rate is kept
    assert (body["debug"], body["samplingPct"], body["msgTimeout"]) == (False, 10.0, 30)
    assert {"requestedRegularOnHeapMem", "assignedSharedOffHeapMem", "bugtracker-url",
            "central-log-url", "topologyVersion", "stormVersion"} <= set(body)


def test_topology_stats_rows_follow_the_java_hash_map_of_windows():
    stats = TopologyStats(
        window_to_emitted={":all-time": 9, "600": 1, "10800": 3, "86400": 5},
        window_to_transferred={"600": 1},
        window_to_complete_latencies_ms={"600": 0.1235},
        window_to_acked={"600": 2})
    rows = ui.topology_stats(stats)
    # String hash order in a 16-bucket HashMap (as 2.8.8's UI lists them)
    assert [r["window"] for r in rows] == ["10800", "600", "86400", ":all-time"]
    by_window = {r["window"]: r for r in rows}
    assert by_window["600"] == {"windowPretty": "10m 0s", "window": "600", "emitted": 1,
                                "transferred": 1, "completeLatency": "0.124", "acked": 2,
                                "failed": 0}
    assert (by_window[":all-time"]["transferred"], by_window[":all-time"]["acked"],
            by_window[":all-time"]["completeLatency"]) == (None, 0, "0")


def test_a_last_error_links_its_worker_and_is_cut_to_200_characters():
    error = ErrorInfo(error="x" * 300, error_time_secs=900, host="h", port=6701)
    body = ui.last_error_json(CONF, "wc-1-2", error, 1000)
    assert body == {"lastError": "x" * 200, "errorTime": 900, "errorHost": "h",
                    "errorPort": 6701, "errorLapsedSecs": 100,
                    "errorWorkerLogLink": "http://h:8000/api/v1/log?file=wc-1-2%2F6701%2F"
                                          "worker.log"}


def component_info(kind, **more):
    fields = dict(component_id="c", component_type=kind, topology_id="wc-1-2",
                  topology_name="wc", num_executors=1, num_tasks=1, topology_status="ACTIVE",
                  exec_stats=[], sid_to_output_stats={}, window_to_stats={},
                  gsid_to_input_stats={})
    fields.update(more)
    return ComponentPageInfo(**fields)


def test_component_page_lists_errors_oldest_first_and_links_event_logs_only_with_a_host():
    errors = [ErrorInfo("late", 300, "h", 6700), ErrorInfo("early", 100, "h", 6700)]
    info = component_info(ComponentType.SPOUT, errors=errors,
                          resources_map={"onheap.memory.mb": 128.0, "gpu": 1.0},
                          window_to_stats={":all-time": spout_agg(latency=2.5)},
                          debug_options=DebugOptions(enable=False, samplingpct=20.0))
    request = ProfileRequest(NodeInfo("h", {6700}), ProfileAction.JPROFILE_STOP, 400000)
    body = ui.component_page(CONF, info, "wc-1-2", "c", ":all-time", None, 1000, [request])
    assert [e["error"] for e in body["componentErrors"]] == ["early", "late"]
    assert "eventLogLink" not in body
    assert body["spoutSummary"][0]["completeLatency"] == 2.5  # the double, not floatStr
    assert (body["requestedMemOnHeap"], body["requestedMemOffHeap"],
            body["requestedGenericResources"]) == (128.0, None, "gpu=1.0")
    # options set: their rate, even with debugging off
    assert (body["debug"], body["samplingPct"]) == (False, 20.0)
    assert body["profilerActive"] == [{
        "host": "h", "port": "6700", "timestamp": 600000,
        "dumplink": "http://h:8000/api/v1/dumps/wc-1-2/h%3A6700"}]
    with_logger = component_info(ComponentType.BOLT, eventlog_host="h", eventlog_port=6701)
    body = ui.component_page(CONF, with_logger, "wc-1-2", "c", "600", None, 1000)
    assert body["eventLogLink"] == "http://h:8000/api/v1/log?file=wc-1-2%2F6701%2Fevents.log"
    assert (body["boltStats"], body["inputStats"], body["samplingPct"]) == ([], [], 10.0)


def test_component_page_rows_use_2x_formats_and_links():
    """Inputs, outputs and executors as 1.2.4 lists them, but with 2.8.8's ``floatStr``
    and worker links."""
    stats = bolt_agg()
    info = component_info(
        ComponentType.BOLT, gsid_to_input_stats={GlobalStreamId("src", "default"): stats},
        sid_to_output_stats={"default": stats},
        exec_stats=[ExecutorAggregateStats(ExecutorSummary(
            ExecutorInfo(3, 4), "c", "h", 6700, 5), stats)])
    body = ui.component_page(CONF, info, "wc-1-2", "c", ":all-time", None, 1000)
    assert body["inputStats"] == [{
        "component": "src", "encodedComponentId": "src", "stream": "default",
        "executeLatency": "0.500", "processLatency": "0.250", "executed": 4, "acked": 3,
        "failed": 1}]
    assert body["outputStats"] == [{"stream": "default", "emitted": 10, "transferred": 10}]
    [executor] = body["executorStats"]
    assert (executor["id"], executor["capacity"], executor["workerLogLink"]) == (
        "[3-4]", "0.002", "http://h:8000/api/v1/log?file=wc-1-2%2F6700%2Fworker.log")


def test_topology_workers_go_through_a_hash_set_as_2_8_8_lists_them():
    """The order the real 2.8.8 UI answered for these three slots, whatever their order."""
    slots = [("127.0.0.2", 6700), ("127.0.0.3", 6700), ("127.0.0.2", 6701),
             ("127.0.0.2", 6700)]
    expected = [{"host": "127.0.0.3", "port": 6700}, {"host": "127.0.0.2", "port": 6700},
                {"host": "127.0.0.2", "port": 6701}]
    for order in (slots, list(reversed(slots))):
        executors = [ExecutorSummary(ExecutorInfo(i, i), "c", h, p, 1)
                     for i, (h, p) in enumerate(order)]
        body = ui.topology_workers(CONF, executors)
        assert body == {"hostPortList": expected, "logviewerPort": 8000,
                        "logviewerScheme": "http"}


def test_log_config_shows_levels_as_nimbus_keeps_them():
    config = LogConfig(named_logger_level={"com.x": LogLevel(
        action=LogLevelAction.UPDATE, target_log_level="warn", reset_log_level="INFO",
        reset_log_level_timeout_secs=30, reset_log_level_timeout_epoch=123)})
    assert ui.log_config(config) == {"namedLoggerLevels": {"com.x": {
        "target_level": "warn", "reset_level": "INFO", "timeout": 30, "timeout_epoch": 123}}}
    assert ui.log_config(LogConfig()) == {"namedLoggerLevels": {}}


def test_new_log_configs_are_one_per_logger_and_need_a_timeout():
    configs = ui.new_log_configs({"a": {"target_level": "warn", "timeout": 30},
                                  "b": {"target_level": None, "timeout": 0}})
    assert [list(c.named_logger_level) for c in configs] == [["a"], ["b"]]
    a, b = configs[0].named_logger_level["a"], configs[1].named_logger_level["b"]
    assert (a.action, a.target_log_level, a.reset_log_level_timeout_secs) == (
        LogLevelAction.UPDATE, "WARN", 30)
    assert (b.action, b.target_log_level) == (LogLevelAction.REMOVE, None)
    with pytest.raises(ValueError, match='namedLoggerLevels.c needs a number "timeout"'):
        ui.new_log_configs({"c": {"target_level": "INFO"}})


def test_component_debug_answers_the_topology_response():
    assert ui.component_debug_response("t-1", "enable") == {
        "topologyOperation": "debug/enable", "topologyId": "t-1", "status": "success"}


# -- the graph


@pytest.mark.parametrize("name, sanitized", [
    ("default", "default"), ("__ack_ack", "_s__ack_ack"), ("side-1.x", "side-_.x"),
    ("a:b9", "a_b_"), ("9x", "_s_x"), ("", "_s"), ("\u00fcn", "_n")])
def test_sanitize_stream_name_2x_keeps_ascii_letters_dots_dashes_and_has_no_hash(
        name, sanitized):
    assert viz.sanitize_stream_name_2x(name) == sanitized


def graph_topology():
    spout = SpoutSpec(spout_object=None, common=ComponentCommon(inputs={
        GlobalStreamId("__acker", "__ack_ack"): Grouping(direct=NullStruct())}, streams={}))

    def bolt(inputs):
        return Bolt(bolt_object=None, common=ComponentCommon(inputs=inputs, streams={}))
    return StormTopology(spouts={"src": spout}, bolts={
        "b": bolt({GlobalStreamId("src", "default"): Grouping(
            local_or_shuffle=NullStruct())}),
        "idle": bolt({GlobalStreamId("src", "default"): Grouping(shuffle=NullStruct())}),
        "__acker": bolt({GlobalStreamId("src", "__ack_init"): Grouping(fields=["id"])}),
        "__system": bolt({})})


def graph_executors():
    return [ExecutorSummary(ExecutorInfo(1, 1), "src", "h", 6700, 5),
            ExecutorSummary(ExecutorInfo(2, 2), "b", "h", 6700, 5),
            ExecutorSummary(ExecutorInfo(3, 3), "__acker", "h", 6700, 5)]


def test_visualization_2x_shows_components_with_executors_and_system_ones_only_with_sys():
    data = viz.visualization_data_2x(graph_topology(), graph_executors(), None, False, "t")
    assert sorted(data) == ["b", "src"]  # "idle" has no executor, __acker is a system bolt
    assert data["b"][":inputs"] == [{":component": "src", ":stream": "default",
                                     ":sani-stream": "default",
                                     ":grouping": "local_or_shuffle"}]
    assert (data["b"][":type"], data["b"][":capacity"], data["src"][":type"]) == (
        "bolt", 0.0, "spout")
    assert data["src"][":stats"] == [{":host": "h", ":port": 6700, ":uptime_secs": 5,
                                      ":transferred": None}]
    with_sys = viz.visualization_data_2x(graph_topology(), graph_executors(), None, True, "t")
    assert sorted(with_sys) == ["__acker", "b", "src"]
    assert with_sys["__acker"][":inputs"][0][":sani-stream"] == "_s__ack_init"


def test_visualization_init_2x_gives_distinct_streams_four_to_a_row():
    body = viz.build_visualization_2x(graph_topology(), graph_executors(), None, True, "t")
    boxes = [box for row in body["visualizationTable"] for box in row]
    assert sorted((b["stream"], b["sani-stream"], b["checked"]) for b in boxes) == [
        ("__ack_ack", "_s__ack_ack", False), ("__ack_init", "_s__ack_init", False),
        ("default", "default", True)]
    assert all(len(row) <= 4 for row in body["visualizationTable"])


def test_lag_in_2x_is_only_for_the_new_kafka_spout():
    """2.8.8's ``TopologySpoutLag`` reads the new spout's conf; 1.2.4's also the old one's."""
    def spout(conf):
        return SpoutSpec(spout_object=None, common=ComponentCommon(
            inputs={}, streams={}, json_conf=json.dumps(conf)))
    topology = StormTopology(bolts={}, spouts={
        "new": spout({"config.topics": "t", "config.groupid": "g",
                      "config.bootstrap.servers": "k:9092"}),
        "old": spout({"config.topics": "t", "config.zkRoot": "/kafka"}),
        "plain": spout({})})
    assert sorted(viz.topology_lag(topology)) == ["new", "old"]
    assert list(viz.topology_lag(topology, kinds=("new",))) == ["new"]
