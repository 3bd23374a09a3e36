# -*- test-case-name: tests.test_port_stats -*-
"""Aggregated executor statistics for the Storm UI's page calls (pure).

Ports of stats.clj (Storm 1.2.4) as ``getTopologyPageInfo``, ``getComponentPageInfo`` and
``getSupervisorPageInfo`` use it: a topology's executor heartbeats (each carrying the
``ExecutorStats`` its worker wrote, counts and average latencies by window then stream) are
summed per component, per stream, per executor and per worker, for one window, with streams
and components whose id starts with ``__`` left out unless ``include_sys``.  Averages are
weighted by their counts (complete latency by acked, execute and process latency by executed),
and a bolt executor's capacity is ``sum(execute latency x executed) / (1000 x min(uptime,
600))`` over the 10-minute window.  2.8.8's ``StatsUtil`` (storm-server) computes the same
numbers; where it differs (a ``compat`` argument) is noted on the functions: it skips executors
without a heartbeat, and sets every number where 1.2.4 leaves a nil one unset.

Internal values are dicts with snake_case keys named after stats.clj's keywords
(``:executeLatencyTotal`` is ``"execute_latency_total"``); a bolt's per-stream keys are
``(component, stream)`` tuples, a spout's are stream ids.  The ``thriftify_*`` functions turn
them into Storm's Thrift structs.  Executors are walked in the order the caller gives them
(upstream's, :mod:`pynimbus.clojure_port.page_order`), so workers and executor rows come out
in upstream's order.

Deliberate differences, kept small:

* an executor whose first task has no component (not in ``task_to_component``) is skipped
  (Storm fails on it);
* a stream that has an execute latency but no executed count, or the reverse, counts as 0 in
  the capacity (1.2.4 fails; 2.8.8 counts it as 0).
"""

import json
import math

from pynimbus.clojure_port import page_order
from pynimbus.generated.storm.ttypes import (
    BoltAggregateStats, CommonAggregateStats, ComponentAggregateStats, ComponentPageInfo,
    ComponentType, ExecutorAggregateStats, ExecutorInfo, ExecutorSummary, GlobalStreamId,
    SpecificAggregateStats, SpoutAggregateStats, TopologyPageInfo, TopologyStats,
    WorkerSummary)

# The windows a worker reports, in seconds, and all-time.
WINDOWS = ("600", "10800", "86400", ":all-time")
ALL_TIME = ":all-time"
TEN_MIN_IN_SECONDS = 600

BOLT = "bolt"
SPOUT = "spout"

# Component resource keys (Config.java) and their 2.x normalized names (Constants.java).
ONHEAP_MEMORY_MB = "topology.component.resources.onheap.memory.mb"
OFFHEAP_MEMORY_MB = "topology.component.resources.offheap.memory.mb"
CPU_PCORE_PERCENT = "topology.component.cpu.pcore.percent"
COMPONENT_RESOURCES_MAP = "topology.component.resources.map"
COMMON_ONHEAP = "onheap.memory.mb"
COMMON_OFFHEAP = "offheap.memory.mb"
COMMON_CPU = "cpu.pcore.percent"
COMMON_TOTAL_MEMORY = "memory.mb"
_NORMALIZED_NAMES = {
    CPU_PCORE_PERCENT: COMMON_CPU,
    "supervisor.cpu.capacity": COMMON_CPU,
    ONHEAP_MEMORY_MB: COMMON_ONHEAP,
    OFFHEAP_MEMORY_MB: COMMON_OFFHEAP,
    "supervisor.memory.capacity.mb": COMMON_TOTAL_MEMORY,
}
# Per-component defaults 2.8.8 applies before the topology-wide ones.
_SYSTEM_RESOURCE_DEFAULTS = (
    (lambda cid: cid == "__acker", (
        ("topology.acker.resources.onheap.memory.mb", COMMON_ONHEAP),
        ("topology.acker.resources.offheap.memory.mb", COMMON_OFFHEAP),
        ("topology.acker.cpu.pcore.percent", COMMON_CPU))),
    (lambda cid: cid.startswith("__metrics_"), (
        ("topology.metrics.consumer.resources.onheap.memory.mb", COMMON_ONHEAP),
        ("topology.metrics.consumer.resources.offheap.memory.mb", COMMON_OFFHEAP),
        ("topology.metrics.consumer.cpu.pcore.percent", COMMON_CPU))),
)


# Numbers


def is_system_id(identifier):
    """Port of ``Utils.isSystemId``: ids starting with ``__`` are Storm's own."""
    return isinstance(identifier, str) and identifier.startswith("__")


def valid_number(x):
    """Port of stats.clj ``valid-number?``: a number that is neither NaN nor infinite."""
    return (isinstance(x, (int, float)) and not isinstance(x, bool)
            and not (isinstance(x, float) and (math.isnan(x) or math.isinf(x))))


def _or_0(x):
    return x if valid_number(x) else 0


def sum_or_0(*args):
    """Port of stats.clj ``sum-or-0``: the sum, anything but a valid number counting as 0."""
    return sum(_or_0(a) for a in args)


def product_or_0(*args):
    """Port of stats.clj ``product-or-0``: the product, invalid numbers counting as 0."""
    ret = 1
    for a in args:
        ret *= _or_0(a)
    return ret


def max_or_0(*args):
    """Port of stats.clj ``max-or-0``: the largest, invalid numbers counting as 0."""
    return max(_or_0(a) for a in args)


def _div(a, b):
    """Port of util.clj ``div``: floating-point division."""
    return float(a) / b


# Maps


def swap_map_order(m):
    """Port of stats.clj ``swap-map-order``: ``{a: {x: v}}`` -> ``{x: {a: v}}``."""
    ret = {}
    for k, inner in (m or {}).items():
        for k2, v in (inner or {}).items():
            ret.setdefault(k2, {})[k] = v
    return ret


def _merge_with_plus(a, b):
    """Clojure ``(merge-with + a b)``."""
    ret = dict(a or {})
    for k, v in (b or {}).items():
        ret[k] = ret[k] + v if k in ret else v
    return ret


def _merge_with_merge(a, b):
    """Clojure ``(merge-with merge a b)``."""
    ret = dict(a or {})
    for k, v in (b or {}).items():
        ret[k] = dict(ret[k], **v) if k in ret else dict(v)
    return ret


def _merge_with_sum_or_0(a, b):
    """Clojure ``(merge-with (partial merge-with sum-or-0) a b)``."""
    ret = {k: dict(v) for k, v in (a or {}).items()}
    for k, inner in (b or {}).items():
        if k not in ret:
            ret[k] = dict(inner)
            continue
        merged = ret[k]
        for k2, v in inner.items():
            merged[k2] = sum_or_0(merged[k2], v) if k2 in merged else v
    return ret


def _map_key_str(m):
    return {str(k): v for k, v in (m or {}).items()}


def mk_include_sys_filter(include_sys):
    """Port of stats.clj ``mk-include-sys-filter``: a ``{stream: value}`` filter that keeps
    everything, or (without ``include_sys``) only string ids that are not system ids."""
    if include_sys:
        return lambda m: m
    return lambda m: {k: v for k, v in (m or {}).items()
                      if isinstance(k, str) and not is_system_id(k)}


def sum_vals(m):
    """Clojure ``(sum (vals m))``: the sum of a map's values, 0 for a missing (nil) map."""
    return sum((m or {}).values())


def aggregate_count_streams(stats):
    """Port of stats.clj ``aggregate-count-streams``: ``{window: {stream: n}}`` ->
    ``{window: sum}``."""
    return {w: sum((streams or {}).values()) for w, streams in (stats or {}).items()}


def _sum_streams(m, key):
    return sum_or_0(*(v.get(key) for v in (m or {}).values()))


# Heartbeat stats


def _windows(m):
    return {w: dict(streams or {}) for w, streams in (m or {}).items()}


def _gsid_windows(m):
    return {w: {(g.componentId, g.streamId): v for g, v in (streams or {}).items()}
            for w, streams in (m or {}).items()}


def clojurify_executor_stats(stats):
    """Port of stats.clj ``clojurify-executor-stats``: an ``ExecutorStats`` as a dict.

    Keys ``type`` (``"bolt"``, ``"spout"``, or None when ``specific`` is unset), ``emitted``,
    ``transferred``, ``rate``, ``acked`` and ``failed``, then for a bolt
    ``process_latencies``, ``executed`` and ``execute_latencies`` (streams as ``(component,
    stream)``), for a spout ``complete_latencies``.  Windows map to streams map to numbers.
    """
    ret = {"emitted": _windows(stats.emitted), "transferred": _windows(stats.transferred),
           "rate": stats.rate, "type": None}
    specific = stats.specific
    if specific is not None and specific.bolt is not None:
        bolt = specific.bolt
        ret.update(type=BOLT, acked=_gsid_windows(bolt.acked), failed=_gsid_windows(bolt.failed),
                   process_latencies=_gsid_windows(bolt.process_ms_avg),
                   executed=_gsid_windows(bolt.executed),
                   execute_latencies=_gsid_windows(bolt.execute_ms_avg))
    elif specific is not None and specific.spout is not None:
        spout = specific.spout
        ret.update(type=SPOUT, acked=_windows(spout.acked), failed=_windows(spout.failed),
                   complete_latencies=_windows(spout.complete_ms_avg))
    return ret


def component_type(topology, component_id):
    """Port of stats.clj ``component-type``: ``"bolt"`` for a bolt or a system id,
    ``"spout"`` for a spout, None for an id the topology does not have."""
    if is_system_id(component_id) or component_id in (topology.bolts or {}):
        return BOLT
    if component_id in (topology.spouts or {}):
        return SPOUT
    return None


def extract_data_from_hb(executor_host_port, task_to_component, beats, include_sys, topology,
                         component_id=None, compat="1.x"):
    """Port of stats.clj ``extract-data-from-hb`` (1.2.4) and ``StatsUtil.extractDataFromHb``
    (2.8.8): one dict per executor to aggregate, in ``executor_host_port``'s order.

    :param executor_host_port: ``{(start, end): (host_or_node, port)}``, in the order upstream
        walks it (:func:`pynimbus.clojure_port.page_order.executor_order`).
    :param task_to_component: ``{task: component_id}``.
    :param beats: ``{(start, end): beat}``, a beat having ``uptime`` and ``stats`` (an
        ``ExecutorStats``), as ``StormClusterState.executor_beats`` returns them.
    :param component_id: only this component's executors, when given.
    :returns: dicts with ``exec_id``, ``comp_id``, ``num_tasks``, ``host``, ``port``,
        ``uptime`` and ``stats`` (None without a heartbeat) and ``type``.  1.2.4 includes an
        executor without a heartbeat, with no stats; 2.8.8 skips it.
    """
    ret = []
    for executor, (host, port) in executor_host_port.items():
        start, end = executor
        beat = beats.get(tuple(executor))
        if beat is None and compat == "2.x":
            continue
        cid = task_to_component.get(start)
        if cid is None or (component_id is not None and cid != component_id):
            continue
        if not include_sys and is_system_id(cid):
            continue
        stats = None
        if beat is not None and beat.stats is not None:
            stats = clojurify_executor_stats(beat.stats)
        ret.append({"exec_id": tuple(executor), "comp_id": cid, "num_tasks": end - start + 1,
                    "host": host, "port": port,
                    "uptime": beat.uptime if beat is not None else None, "stats": stats,
                    "type": (stats or {}).get("type") or component_type(topology, cid)})
    return ret


def _at(stats, key, window):
    return ((stats or {}).get(key) or {}).get(window)


# Per-stream latencies and capacity


def agg_bolt_lat_and_count(exec_avg, proc_avg, num_executed):
    """Port of stats.clj ``agg-bolt-lat-and-count``: over all streams, the latency totals
    (average x executed) and the number executed."""
    exec_avg, proc_avg, num_executed = exec_avg or {}, proc_avg or {}, num_executed or {}
    return {
        "execute_latency_total": sum(product_or_0(avg, num_executed.get(k))
                                     for k, avg in exec_avg.items()),
        "process_latency_total": sum(product_or_0(avg, num_executed.get(k))
                                     for k, avg in proc_avg.items()),
        "executed": sum(num_executed.values()),
    }


def agg_spout_lat_and_count(comp_avg, num_acked):
    """Port of stats.clj ``agg-spout-lat-and-count``: over all streams, the complete latency
    total (average x acked) and the number acked."""
    comp_avg, num_acked = comp_avg or {}, num_acked or {}
    return {
        "complete_latency_total": sum(product_or_0(avg, num_acked.get(k))
                                      for k, avg in comp_avg.items()),
        "acked": sum(num_acked.values()),
    }


def agg_bolt_streams_lat_and_count(exec_avg, proc_avg, executed):
    """Port of stats.clj ``agg-bolt-streams-lat-and-count``: the same per stream."""
    proc_avg, executed = proc_avg or {}, executed or {}
    return {k: {"execute_latency_total": product_or_0(avg, executed.get(k)),
                "process_latency_total": product_or_0(proc_avg.get(k), executed.get(k)),
                "executed": executed.get(k)}
            for k, avg in (exec_avg or {}).items()}


def agg_spout_streams_lat_and_count(comp_avg, acked):
    """Port of stats.clj ``agg-spout-streams-lat-and-count``: the same per stream."""
    acked = acked or {}
    return {k: {"complete_latency_total": product_or_0(avg, acked.get(k)),
                "acked": acked.get(k)}
            for k, avg in (comp_avg or {}).items()}


def compute_agg_capacity(stats, uptime):
    """Port of stats.clj ``compute-agg-capacity``: the share of the last 10 minutes (or of the
    uptime, if shorter) a bolt executor spent executing; None without an uptime, 0.0 for 0."""
    if uptime is None:
        return None
    latencies = _at(stats, "execute_latencies", str(TEN_MIN_IN_SECONDS)) or {}
    executed = _at(stats, "executed", str(TEN_MIN_IN_SECONDS)) or {}
    weighted = 0.0
    for k in set(latencies) | set(executed):
        weighted += _or_0(latencies.get(k)) * _or_0(executed.get(k))
    if uptime > 0:
        return _div(weighted, 1000 * min(uptime, TEN_MIN_IN_SECONDS))
    return 0.0


# Topology page


def agg_pre_merge_topo_page_bolt(data, window, include_sys):
    """Port of stats.clj ``agg-pre-merge-topo-page-bolt``: ``{component: totals}`` of one
    bolt executor for ``window``."""
    stats = data["stats"]
    sys_filter = mk_include_sys_filter(include_sys)
    totals = agg_bolt_lat_and_count(_at(stats, "execute_latencies", window),
                                    _at(stats, "process_latencies", window),
                                    _at(stats, "executed", window))
    totals.update(
        num_executors=1,
        num_tasks=data["num_tasks"],
        emitted=sum_vals(sys_filter(_at(stats, "emitted", window))),
        transferred=sum_vals(sys_filter(_at(stats, "transferred", window))),
        capacity=compute_agg_capacity(stats, data["uptime"]),
        acked=sum_vals(_at(stats, "acked", window)),
        failed=sum_vals(_at(stats, "failed", window)))
    return {data["comp_id"]: totals}


def agg_pre_merge_topo_page_spout(data, window, include_sys):
    """Port of stats.clj ``agg-pre-merge-topo-page-spout``: the spout version."""
    stats = data["stats"]
    sys_filter = mk_include_sys_filter(include_sys)
    totals = agg_spout_lat_and_count(_at(stats, "complete_latencies", window),
                                     _at(stats, "acked", window))
    totals.update(
        num_executors=1,
        num_tasks=data["num_tasks"],
        emitted=sum_vals(sys_filter(_at(stats, "emitted", window))),
        transferred=sum_vals(sys_filter(_at(stats, "transferred", window))),
        failed=sum_vals(_at(stats, "failed", window)))
    return {data["comp_id"]: totals}


def merge_agg_comp_stats_topo_page_bolt(acc, new):
    """Port of stats.clj ``merge-agg-comp-stats-topo-page-bolt``: sums, and the largest
    capacity."""
    ret = {"num_executors": (acc.get("num_executors") or 0) + 1,
           "capacity": max_or_0(acc.get("capacity"), new.get("capacity"))}
    for key in ("num_tasks", "emitted", "transferred", "execute_latency_total",
                "process_latency_total", "executed", "acked", "failed"):
        ret[key] = sum_or_0(acc.get(key), new.get(key))
    return ret


def merge_agg_comp_stats_topo_page_spout(acc, new):
    """Port of stats.clj ``merge-agg-comp-stats-topo-page-spout``: sums."""
    ret = {"num_executors": (acc.get("num_executors") or 0) + 1}
    for key in ("num_tasks", "emitted", "transferred", "complete_latency_total", "acked",
                "failed"):
        ret[key] = sum_or_0(acc.get(key), new.get(key))
    return ret


_TOPO_PAGE_STEPS = {
    BOLT: (agg_pre_merge_topo_page_bolt, merge_agg_comp_stats_topo_page_bolt, "bolt_id_stats"),
    SPOUT: (agg_pre_merge_topo_page_spout, merge_agg_comp_stats_topo_page_spout,
            "spout_id_stats"),
}


def agg_topo_exec_stats(window, include_sys, acc, data):
    """Port of stats.clj ``agg-topo-exec-stats``: ``acc`` with one executor added.

    The executor's component totals for ``window`` merge into ``bolt_id_stats`` or
    ``spout_id_stats``; its counts for every window add to the topology's ``window_*`` maps
    (acked, failed and complete latency from spouts only).  Returns a new dict.
    """
    if data["type"] not in _TOPO_PAGE_STEPS:
        return acc
    pre_merge, merge, comp_key = _TOPO_PAGE_STEPS[data["type"]]
    stats = data["stats"] or {}
    sys_filter = mk_include_sys_filter(include_sys)
    w_comp_lat_wgt_avg = None
    w_acked = None
    if stats.get("complete_latencies") is not None:
        swapped = swap_map_order({
            w: agg_spout_lat_and_count(stats["complete_latencies"].get(w), acked)
            for w, acked in (stats.get("acked") or {}).items()})
        w_comp_lat_wgt_avg = swapped.get("complete_latency_total")
        w_acked = swapped.get("acked")
    is_spout = stats.get("type") == SPOUT
    ret = dict(acc)
    ret["workers_set"] = acc["workers_set"] | {(data["host"], data["port"])}
    ret["window_emitted"] = _merge_with_plus(acc["window_emitted"], aggregate_count_streams(
        {w: sys_filter(s) for w, s in (stats.get("emitted") or {}).items()}))
    ret["window_transferred"] = _merge_with_plus(acc["window_transferred"], aggregate_count_streams(
        {w: sys_filter(s) for w, s in (stats.get("transferred") or {}).items()}))
    ret["window_comp_lat_wgt_avg"] = _merge_with_plus(acc["window_comp_lat_wgt_avg"],
                                                      w_comp_lat_wgt_avg)
    if is_spout:
        ret["window_acked"] = _merge_with_plus(acc["window_acked"], w_acked)
        ret["window_failed"] = _merge_with_plus(acc["window_failed"],
                                                aggregate_count_streams(stats.get("failed")))
    components = dict(acc[comp_key])
    for cid, totals in pre_merge(data, window, include_sys).items():
        components[cid] = totals if cid not in components else merge(components[cid], totals)
    ret[comp_key] = components
    ret["type"] = stats.get("type")
    return ret


def aggregate_topo_stats(window, include_sys, data):
    """Port of stats.clj ``aggregate-topo-stats``: every executor through
    :func:`agg_topo_exec_stats`."""
    acc = {"workers_set": frozenset(), "bolt_id_stats": {}, "spout_id_stats": {},
           "window_emitted": {}, "window_transferred": {}, "window_comp_lat_wgt_avg": {},
           "window_acked": {}, "window_failed": {}}
    for executor_data in data:
        acc = agg_topo_exec_stats(window, include_sys, acc, executor_data)
    return acc


def compute_weighted_averages_per_window(acc, wgt_avg_key, divisor_key):
    """Port of stats.clj ``compute-weighted-averages-per-window``: total / count per window,
    for windows whose count is positive."""
    ret = {}
    divisors = acc.get(divisor_key) or {}
    for window, wgt_avg in (acc.get(wgt_avg_key) or {}).items():
        divisor = divisors.get(window)
        if divisor is not None and divisor > 0:
            ret[str(window)] = _div(wgt_avg, divisor)
    return ret


def _average(total, count):
    return _div(total or 0, count) if count is not None and count > 0 else 0


def post_aggregate_topo_stats(task_to_component, executor_node_port, last_error_fn, acc):
    """Port of stats.clj ``post-aggregate-topo-stats``: averages from totals, each
    component's last error, and the topology's counts of tasks, workers and executors."""
    bolts = {}
    for cid, m in acc["bolt_id_stats"].items():
        m = dict(m)
        m["execute_latency"] = _average(m.pop("execute_latency_total", 0), m.get("executed"))
        m["process_latency"] = _average(m.pop("process_latency_total", 0), m.get("executed"))
        m["last_error"] = last_error_fn(cid)
        bolts[cid] = m
    spouts = {}
    for cid, m in acc["spout_id_stats"].items():
        m = dict(m)
        m["complete_latency"] = _average(m.pop("complete_latency_total", 0), m.get("acked"))
        m["last_error"] = last_error_fn(cid)
        spouts[cid] = m
    return {
        "num_tasks": len(task_to_component),
        "num_workers": len(acc["workers_set"]),
        "num_executors": len(executor_node_port or {}),
        "bolt_id_stats": bolts,
        "spout_id_stats": spouts,
        "window_emitted": _map_key_str(acc["window_emitted"]),
        "window_transferred": _map_key_str(acc["window_transferred"]),
        "window_complete_latency": compute_weighted_averages_per_window(
            acc, "window_comp_lat_wgt_avg", "window_acked"),
        "window_acked": _map_key_str(acc["window_acked"]),
        "window_failed": _map_key_str(acc["window_failed"]),
    }


# Thrift structs


def _field(m, key, convert, compat):
    """A stats value as a Thrift field.  2.x (``getByKeyOr0``) sets 0 for a missing or invalid
    number; 1.x (``(and x (.set_x ...))``) leaves a missing (nil) one unset: None."""
    value = m.get(key)
    if value is None and compat != "2.x":
        return None
    if valid_number(value):
        return convert(value)
    if convert is float and compat != "2.x" and isinstance(value, float):
        return value  # 1.x sets NaN and infinities as they are
    return convert(0)


def thriftify_common_agg_stats(m, compat="1.x"):
    """Port of stats.clj ``thriftify-common-agg-stats`` (1.2.4) and
    ``StatsUtil.thriftifyCommonAggStats`` (2.8.8): a ``CommonAggregateStats``."""
    return CommonAggregateStats(**{
        name: _field(m, name, int, compat)
        for name in ("num_executors", "num_tasks", "emitted", "transferred", "acked",
                     "failed")})


def thriftify_bolt_agg_stats(m, compat="1.x"):
    """Port of stats.clj ``thriftify-bolt-agg-stats`` (1.2.4) and
    ``StatsUtil.thriftifyBoltAggStats`` (2.8.8): a bolt's ``ComponentAggregateStats``."""
    stats = ComponentAggregateStats(
        type=ComponentType.BOLT, common_stats=thriftify_common_agg_stats(m, compat),
        specific_stats=SpecificAggregateStats(bolt=BoltAggregateStats(
            execute_latency_ms=_field(m, "execute_latency", float, compat),
            process_latency_ms=_field(m, "process_latency", float, compat),
            executed=_field(m, "executed", int, compat),
            capacity=_field(m, "capacity", float, compat))))
    if m.get("last_error") is not None:
        stats.last_error = m["last_error"]
    return stats


def thriftify_spout_agg_stats(m, compat="1.x"):
    """Port of stats.clj ``thriftify-spout-agg-stats`` (1.2.4) and
    ``StatsUtil.thriftifySpoutAggStats`` (2.8.8): a spout's ``ComponentAggregateStats``."""
    stats = ComponentAggregateStats(
        type=ComponentType.SPOUT, common_stats=thriftify_common_agg_stats(m, compat),
        specific_stats=SpecificAggregateStats(spout=SpoutAggregateStats(
            complete_latency_ms=_field(m, "complete_latency", float, compat))))
    if m.get("last_error") is not None:
        stats.last_error = m["last_error"]
    return stats


def thriftify_topo_page_data(topology_id, data, compat="1.x"):
    """Port of stats.clj ``thriftify-topo-page-data``: the ``TopologyPageInfo`` part that comes
    from the stats (id, counts, per-component stats, per-window topology stats)."""
    return TopologyPageInfo(
        id=topology_id,
        num_tasks=data["num_tasks"], num_workers=data["num_workers"],
        num_executors=data["num_executors"],
        id_to_spout_agg_stats={cid: thriftify_spout_agg_stats(m, compat)
                               for cid, m in data["spout_id_stats"].items()},
        id_to_bolt_agg_stats={cid: thriftify_bolt_agg_stats(m, compat)
                              for cid, m in data["bolt_id_stats"].items()},
        topology_stats=TopologyStats(
            window_to_emitted=data["window_emitted"],
            window_to_transferred=data["window_transferred"],
            window_to_complete_latencies_ms=data["window_complete_latency"],
            window_to_acked=data["window_acked"],
            window_to_failed=data["window_failed"]))


def agg_topo_execs_stats(topology_id, executor_node_port, task_to_component, beats, topology,
                         window, include_sys, last_error_fn, compat="1.x"):
    """Port of stats.clj ``agg-topo-execs-stats`` (1.2.4) and ``StatsUtil.aggTopoExecsStats``
    (2.8.8): the stats of a ``TopologyPageInfo``.

    :param executor_node_port: ``{(start, end): (node, port)}``, in upstream's order.
    :param topology: the stored user topology (component types).
    :param last_error_fn: ``component_id -> ErrorInfo or None``.
    :param compat: ``"2.x"`` skips executors without a heartbeat (so ``num_workers`` counts
        only slots with one) and sets every number (0 for a missing one).
    """
    data = extract_data_from_hb(executor_node_port, task_to_component, beats, include_sys,
                                topology, compat=compat)
    acc = aggregate_topo_stats(window, include_sys, data)
    return thriftify_topo_page_data(
        topology_id,
        post_aggregate_topo_stats(task_to_component, executor_node_port, last_error_fn, acc),
        compat)


# Component page


def agg_pre_merge_comp_page_bolt(data, window, include_sys):
    """Port of stats.clj ``agg-pre-merge-comp-page-bolt``: one bolt executor's input stats
    per ``(component, stream)`` and output stats per stream, for ``window``."""
    stats = data["stats"]
    sys_filter = mk_include_sys_filter(include_sys)
    inputs = _merge_with_merge(
        swap_map_order({"acked": _at(stats, "acked", window),
                        "failed": _at(stats, "failed", window)}),
        agg_bolt_streams_lat_and_count(_at(stats, "execute_latencies", window),
                                       _at(stats, "process_latencies", window),
                                       _at(stats, "executed", window)))
    outputs = swap_map_order({"emitted": sys_filter(_at(stats, "emitted", window)),
                              "transferred": sys_filter(_at(stats, "transferred", window))})
    return {"executor_id": data["exec_id"], "host": data["host"], "port": data["port"],
            "uptime": data["uptime"], "num_executors": 1, "num_tasks": data["num_tasks"],
            "capacity": compute_agg_capacity(stats, data["uptime"]),
            "cid_sid_input_stats": inputs, "sid_output_stats": outputs}


def agg_pre_merge_comp_page_spout(data, window, include_sys):
    """Port of stats.clj ``agg-pre-merge-comp-page-spout``: one spout executor's output stats
    per stream, for ``window``."""
    stats = data["stats"]
    sys_filter = mk_include_sys_filter(include_sys)
    outputs = _merge_with_merge(
        agg_spout_streams_lat_and_count(_at(stats, "complete_latencies", window),
                                        _at(stats, "acked", window)),
        swap_map_order({"acked": _at(stats, "acked", window),
                        "failed": _at(stats, "failed", window),
                        "emitted": sys_filter(_at(stats, "emitted", window)),
                        "transferred": sys_filter(_at(stats, "transferred", window))}))
    return {"executor_id": data["exec_id"], "host": data["host"], "port": data["port"],
            "uptime": data["uptime"], "num_executors": 1, "num_tasks": data["num_tasks"],
            "sid_output_stats": outputs}


def merge_agg_comp_stats_comp_page_bolt(acc, new):
    """Port of stats.clj ``merge-agg-comp-stats-comp-page-bolt``: stream stats summed, and
    one row of totals for the new executor, appended (see :func:`aggregate_comp_stats`)."""
    acc = acc or {}
    new_in, new_out = new["cid_sid_input_stats"], new["sid_output_stats"]
    executed = _sum_streams(new_in, "executed")
    row = {k: new.get(k) for k in ("executor_id", "uptime", "host", "port", "capacity")}
    row.update(emitted=_sum_streams(new_out, "emitted"),
               transferred=_sum_streams(new_out, "transferred"),
               acked=_sum_streams(new_in, "acked"), failed=_sum_streams(new_in, "failed"),
               executed=executed, execute_latency=None, process_latency=None)
    if executed > 0:
        row["execute_latency"] = _div(_sum_streams(new_in, "execute_latency_total"), executed)
        row["process_latency"] = _div(_sum_streams(new_in, "process_latency_total"), executed)
    return {"num_executors": (acc.get("num_executors") or 0) + 1,
            "num_tasks": sum_or_0(acc.get("num_tasks"), new.get("num_tasks")),
            "sid_output_stats": _merge_with_sum_or_0(acc.get("sid_output_stats"), new_out),
            "cid_sid_input_stats": _merge_with_sum_or_0(acc.get("cid_sid_input_stats"), new_in),
            "executor_stats": list(acc.get("executor_stats") or ()) + [row]}


def merge_agg_comp_stats_comp_page_spout(acc, new):
    """Port of stats.clj ``merge-agg-comp-stats-comp-page-spout``: the spout version."""
    acc = acc or {}
    new_out = new["sid_output_stats"]
    acked = _sum_streams(new_out, "acked")
    row = {k: new.get(k) for k in ("executor_id", "uptime", "host", "port")}
    row.update(emitted=_sum_streams(new_out, "emitted"),
               transferred=_sum_streams(new_out, "transferred"),
               acked=acked, failed=_sum_streams(new_out, "failed"),
               complete_latency=(_div(_sum_streams(new_out, "complete_latency_total"), acked)
                                 if acked > 0 else None))
    return {"num_executors": (acc.get("num_executors") or 0) + 1,
            "num_tasks": sum_or_0(acc.get("num_tasks"), new.get("num_tasks")),
            "sid_output_stats": _merge_with_sum_or_0(acc.get("sid_output_stats"), new_out),
            "executor_stats": list(acc.get("executor_stats") or ()) + [row]}


def _windowed_counts(acc, new_stats, include_sys):
    sys_filter = mk_include_sys_filter(include_sys)
    return {
        "window_emitted": _merge_with_plus(acc.get("window_emitted"), aggregate_count_streams(
            {w: sys_filter(s) for w, s in (new_stats.get("emitted") or {}).items()})),
        "window_transferred": _merge_with_plus(
            acc.get("window_transferred"), aggregate_count_streams(
                {w: sys_filter(s) for w, s in (new_stats.get("transferred") or {}).items()})),
        "window_acked": _merge_with_plus(acc.get("window_acked"),
                                         aggregate_count_streams(new_stats.get("acked"))),
        "window_failed": _merge_with_plus(acc.get("window_failed"),
                                          aggregate_count_streams(new_stats.get("failed"))),
    }


def agg_bolt_exec_win_stats(acc, new_stats, include_sys):
    """Port of stats.clj ``agg-bolt-exec-win-stats``: one bolt executor's counts and latency
    totals added to ``acc``, for every window."""
    new_stats = new_stats or {}
    latencies = new_stats.get("execute_latencies") or {}
    processing = new_stats.get("process_latencies") or {}
    swapped = swap_map_order({
        w: agg_bolt_lat_and_count(latencies.get(w), processing.get(w), executed)
        for w, executed in (new_stats.get("executed") or {}).items()})
    ret = _windowed_counts(acc, new_stats, include_sys)
    ret.update(
        window_exec_lat_wgt_avg=_merge_with_plus(acc.get("window_exec_lat_wgt_avg"),
                                                 swapped.get("execute_latency_total")),
        window_proc_lat_wgt_avg=_merge_with_plus(acc.get("window_proc_lat_wgt_avg"),
                                                 swapped.get("process_latency_total")),
        window_executed=_merge_with_plus(acc.get("window_executed"), swapped.get("executed")))
    return ret


def agg_spout_exec_win_stats(acc, new_stats, include_sys):
    """Port of stats.clj ``agg-spout-exec-win-stats``: the spout version."""
    new_stats = new_stats or {}
    latencies = new_stats.get("complete_latencies") or {}
    swapped = swap_map_order({
        w: agg_spout_lat_and_count(latencies.get(w), acked)
        for w, acked in (new_stats.get("acked") or {}).items()})
    ret = _windowed_counts(acc, new_stats, include_sys)
    ret["window_comp_lat_wgt_avg"] = _merge_with_plus(acc.get("window_comp_lat_wgt_avg"),
                                                      swapped.get("complete_latency_total"))
    return ret


def agg_comp_exec_stats(window, include_sys, acc, data):
    """Port of stats.clj ``agg-comp-exec-stats``: ``acc`` (of type bolt or spout) with one
    executor added.  Returns a new dict."""
    if acc["type"] == BOLT:
        ret = agg_bolt_exec_win_stats(acc, data["stats"], include_sys)
        ret["stats"] = merge_agg_comp_stats_comp_page_bolt(
            acc.get("stats"), agg_pre_merge_comp_page_bolt(data, window, include_sys))
    else:
        ret = agg_spout_exec_win_stats(acc, data["stats"], include_sys)
        ret["stats"] = merge_agg_comp_stats_comp_page_spout(
            acc.get("stats"), agg_pre_merge_comp_page_spout(data, window, include_sys))
    ret["type"] = acc["type"]
    return ret


def aggregate_comp_stats(window, include_sys, data, compat="1.x"):
    """Port of stats.clj ``aggregate-comp-stats``: every executor of one component through
    :func:`agg_comp_exec_stats`; ``{}`` without executors (or of an unknown type).

    The executor rows come out last executor first in 1.x (1.2.4 ``conj``-es each onto a
    list), in executor order in 2.x (2.8.8 adds each to an ``ArrayList``).
    """
    if not data or data[0]["type"] not in (BOLT, SPOUT):
        return {}
    acc = {"type": data[0]["type"]}
    for executor_data in data:
        acc = agg_comp_exec_stats(window, include_sys, acc, executor_data)
    if compat != "2.x":
        acc["stats"] = dict(acc["stats"],
                            executor_stats=list(reversed(acc["stats"]["executor_stats"])))
    return acc


def post_aggregate_comp_stats(data):
    """Port of stats.clj ``post-aggregate-comp-stats``: averages per stream and per window."""
    if data.get("type") not in (BOLT, SPOUT):
        return {}
    stats = data["stats"]
    ret = {"type": data["type"], "num_tasks": stats.get("num_tasks"),
           "num_executors": stats.get("num_executors"),
           "executor_stats": stats.get("executor_stats"),
           "window_emitted": _map_key_str(data.get("window_emitted")),
           "window_transferred": _map_key_str(data.get("window_transferred")),
           "window_acked": _map_key_str(data.get("window_acked")),
           "window_failed": _map_key_str(data.get("window_failed"))}
    if data["type"] == BOLT:
        inputs = {}
        for k, m in (stats.get("cid_sid_input_stats") or {}).items():
            m = dict(m)
            m["execute_latency"] = _average(m.pop("execute_latency_total", 0), m.get("executed"))
            m["process_latency"] = _average(m.pop("process_latency_total", 0), m.get("executed"))
            inputs[k] = m
        ret.update(
            cid_sid_input_stats=inputs,
            sid_output_stats=stats.get("sid_output_stats"),
            window_executed=_map_key_str(data.get("window_executed")),
            window_execute_latency=compute_weighted_averages_per_window(
                data, "window_exec_lat_wgt_avg", "window_executed"),
            window_process_latency=compute_weighted_averages_per_window(
                data, "window_proc_lat_wgt_avg", "window_executed"))
    else:
        outputs = {}
        for k, m in (stats.get("sid_output_stats") or {}).items():
            m = dict(m)
            m["complete_latency"] = _average(m.pop("complete_latency_total", 0), m.get("acked"))
            outputs[k] = m
        ret.update(
            sid_output_stats=outputs,
            window_complete_latency=compute_weighted_averages_per_window(
                data, "window_comp_lat_wgt_avg", "window_acked"))
    return ret


def thriftify_exec_agg_stats(component_id, comp_type, stats, compat="1.x"):
    """Port of stats.clj ``thriftify-exec-agg-stats``: one executor's row."""
    start, end = stats["executor_id"]
    thriftify = thriftify_bolt_agg_stats if comp_type == BOLT else thriftify_spout_agg_stats
    return ExecutorAggregateStats(
        exec_summary=ExecutorSummary(
            executor_info=ExecutorInfo(start, end), component_id=component_id,
            host=stats.get("host") or "", port=int(stats.get("port") or 0),
            uptime_secs=int(stats.get("uptime") or 0)),
        stats=thriftify(stats, compat))


class UnknownComponent(ValueError):
    """A component page was asked for an id the topology does not have."""


def thriftify_comp_page_data(topology_id, topology, component_id, data, compat="1.x"):
    """Port of stats.clj ``thriftify-comp-page-data``: the stats part of a
    ``ComponentPageInfo``.

    :raises UnknownComponent: for an id that is neither a spout, a bolt nor a system id
        (1.2.4 fails there with an undeclared exception, an internal error on the wire).
    """
    comp_type = component_type(topology, component_id)
    if comp_type is None:
        raise UnknownComponent("topology %s has no component %r" % (topology_id, component_id))
    windowed = {"emitted": data.get("window_emitted"),
                "transferred": data.get("window_transferred"),
                "acked": data.get("window_acked"), "failed": data.get("window_failed")}
    if data.get("type") == BOLT:
        windowed.update(execute_latency=data.get("window_execute_latency"),
                        process_latency=data.get("window_process_latency"),
                        executed=data.get("window_executed"))
    elif data.get("type") == SPOUT:
        windowed["complete_latency"] = data.get("window_complete_latency")
    window_stats = swap_map_order(windowed)
    thriftify = thriftify_bolt_agg_stats if comp_type == BOLT else thriftify_spout_agg_stats
    page = ComponentPageInfo(
        component_id=component_id,
        component_type=ComponentType.BOLT if comp_type == BOLT else ComponentType.SPOUT,
        topology_id=topology_id,
        num_executors=_field(data, "num_executors", int, compat),
        num_tasks=_field(data, "num_tasks", int, compat),
        window_to_stats={w: thriftify(m, compat) for w, m in window_stats.items()},
        sid_to_output_stats={sid: thriftify(m, compat)
                             for sid, m in (data.get("sid_output_stats") or {}).items()},
        exec_stats=[thriftify_exec_agg_stats(component_id, comp_type, row, compat)
                    for row in data.get("executor_stats") or ()])
    if comp_type == BOLT:
        page.gsid_to_input_stats = {
            GlobalStreamId(componentId=c, streamId=s): thriftify_bolt_agg_stats(m, compat)
            for (c, s), m in (data.get("cid_sid_input_stats") or {}).items()}
    return page


def agg_comp_execs_stats(executor_host_port, task_to_component, beats, window, include_sys,
                         topology_id, topology, component_id, compat="1.x"):
    """Port of stats.clj ``agg-comp-execs-stats`` (1.2.4) and ``StatsUtil.aggCompExecsStats``
    (2.8.8): the stats of a ``ComponentPageInfo``.

    :param executor_host_port: ``{(start, end): (host, port)}``, in upstream's order.
    :param compat: ``"2.x"`` lists only executors with a heartbeat, in executor order, and
        sets every number; 1.x lists every executor, last first, and leaves nil ones unset.
    :raises UnknownComponent: see :func:`thriftify_comp_page_data`.
    """
    data = extract_data_from_hb(executor_host_port, task_to_component, beats, include_sys,
                                topology, component_id, compat)
    return thriftify_comp_page_data(
        topology_id, topology, component_id,
        post_aggregate_comp_stats(aggregate_comp_stats(window, include_sys, data, compat)),
        compat)


# Workers


def agg_worker_stats(storm_id, storm_name, task_to_component, beats, executor_node_port,
                     node_host, worker_resources, include_sys, user_authorized,
                     filter_supervisor=None, owner=None, compat="1.x"):
    """Port of stats.clj ``agg-worker-stats`` (1.2.4) and ``StatsUtil.aggWorkerStats``
    (2.8.8): one ``WorkerSummary`` per assigned slot, every executor counted (with a
    heartbeat or not).

    :param executor_node_port: ``{(start, end): (node, port)}``, in upstream's order
        (:func:`pynimbus.clojure_port.page_order.executor_order`).
    :param node_host: ``{node: host}``.
    :param worker_resources: ``{(node, port): WorkerResources}``; a slot without one gets 0.0s.
    :param user_authorized: whether to tell the tasks per component.
    :param filter_supervisor: only this supervisor's slots, when given.
    :param owner: the topology owner, set as the 2.x-only ``owner`` when given.
    :param compat: the workers come in upstream's order (``reverse-map`` in 1.x, a ``HashMap``
        keyed by ``WorkerSlot`` in 2.x).  A worker's uptime is, in 1.x, that of the first of
        its executors with a heartbeat (``select-keys`` order, 0 without); in 2.x that of the
        last executor walked (0 if it has none).  ``component_to_num_tasks`` leaves system
        components out unless ``include_sys``; without ``user_authorized`` it is unset (1.x)
        or empty (2.x).
    """
    slot_executors = {}
    for executor, slot in executor_node_port.items():
        slot_executors.setdefault(tuple(slot), []).append(tuple(executor))
    order = page_order.worker_slot_order(list(executor_node_port), executor_node_port, compat)
    summaries = []
    for node, port in order:
        if filter_supervisor is not None and node != filter_supervisor:
            continue
        executors = slot_executors[(node, port)]
        if compat == "2.x":
            beat = beats.get(executors[-1])
        else:
            beat = next((beats[e] for e in page_order.select_keys_order(executors)
                         if beats.get(e) is not None), None)
        counts = {}
        for start, end in executors:
            for task in range(start, end + 1):
                cid = task_to_component.get(task)
                if cid is None or (not include_sys and is_system_id(cid)):
                    continue
                counts[cid] = counts.get(cid, 0) + 1
        resources = (worker_resources or {}).get((node, port))
        summary = WorkerSummary(
            supervisor_id=node, host=node_host.get(node), port=port, topology_id=storm_id,
            topology_name=storm_name, num_executors=len(executors),
            uptime_secs=int((beat.uptime if beat is not None else 0) or 0),
            assigned_memonheap=float(getattr(resources, "mem_on_heap", None) or 0.0),
            assigned_memoffheap=float(getattr(resources, "mem_off_heap", None) or 0.0),
            assigned_cpu=float(getattr(resources, "cpu", None) or 0.0))
        if user_authorized:
            summary.component_to_num_tasks = counts
        elif compat == "2.x":
            summary.component_to_num_tasks = {}
        if owner is not None:
            summary.owner = owner
        summaries.append(summary)
    return summaries


# Component resources


def _double(value):
    """``Utils.getDouble(value, null)`` for a JSON value: a float, or None."""
    return float(value) if valid_number(value) else None


def parse_resources(json_conf):
    """Port of ``ResourceUtils.parseResources`` (1.2.4): the three resource keys a
    component's json_conf sets (a key with a non-number value is left out)."""
    try:
        conf = json.loads(json_conf) if json_conf else {}
    except ValueError:
        return {}
    if not isinstance(conf, dict):
        return {}
    ret = {}
    for key in (ONHEAP_MEMORY_MB, OFFHEAP_MEMORY_MB, CPU_PCORE_PERCENT):
        if _double(conf.get(key)) is not None:
            ret[key] = _double(conf[key])
    return ret


def _component_common(topology, component_id):
    for mapping in (topology.spouts, topology.bolts):
        if component_id in (mapping or {}):
            return mapping[component_id].common
    return None


def component_resources(topology, topology_conf, component_id, compat="1.x"):
    """Port of nimbus.clj ``set-resources-default-if-not-set`` (1.2.4) and of 2.8.8
    ``NormalizedResourceRequest.toNormalizedMap``: a component's ``resources_map``.

    1.x: as ``set-resources-default-if-not-set`` over
    ``ResourceUtils.getSpoutsResources``/``getBoltsResources``: the component's own
    ``topology.component.resources.onheap.memory.mb``, ``...offheap.memory.mb`` and
    ``topology.component.cpu.pcore.percent``, else the topology conf's.  Deliberate
    difference: a key the conf lacks too is left out (Storm writes a null and fails).

    2.x: port of ``NormalizedResourceRequest(...).toNormalizedMap()``: names normalized to
    ``onheap.memory.mb``, ``offheap.memory.mb``, ``cpu.pcore.percent`` (plus generic
    resources), ``topology.component.resources.map`` and the acker and metrics-consumer
    defaults honoured, 0.0 for a missing memory or cpu figure.

    :param topology: the topology whose spouts and bolts carry json_conf (the user topology
        for 1.x, the system topology for 2.x).
    """
    common = _component_common(topology, component_id)
    json_conf = common.json_conf if common is not None else None
    if compat != "2.x":
        ret = parse_resources(json_conf)
        for key in (ONHEAP_MEMORY_MB, OFFHEAP_MEMORY_MB, CPU_PCORE_PERCENT):
            if key not in ret and _double(topology_conf.get(key)) is not None:
                ret[key] = _double(topology_conf[key])
        return ret
    normalized = _normalized_resources(topology_conf.get(COMPONENT_RESOURCES_MAP))
    for applies, keys in _SYSTEM_RESOURCE_DEFAULTS:
        if applies(component_id):
            for conf_key, name in keys:
                if _double(topology_conf.get(conf_key)) is not None:
                    normalized[name] = _double(topology_conf[conf_key])
    for conf_key in (CPU_PCORE_PERCENT, OFFHEAP_MEMORY_MB, ONHEAP_MEMORY_MB):
        name = _NORMALIZED_NAMES[conf_key]
        if name not in normalized and _double(topology_conf.get(conf_key)) is not None:
            normalized[name] = _double(topology_conf[conf_key])
    own = parse_resources(json_conf)
    try:
        conf = json.loads(json_conf) if json_conf else {}
    except ValueError:
        conf = {}
    if isinstance(conf, dict) and isinstance(conf.get(COMPONENT_RESOURCES_MAP), dict):
        own.update({k: v for k, v in conf[COMPONENT_RESOURCES_MAP].items()
                    if valid_number(v)})
    normalized.update(_normalized_resources(own))
    ret = {k: v for k, v in normalized.items()
           if k not in (COMMON_CPU, COMMON_ONHEAP, COMMON_OFFHEAP, COMMON_TOTAL_MEMORY)}
    ret[COMMON_CPU] = normalized.get(COMMON_CPU, 0.0)
    ret[COMMON_OFFHEAP] = normalized.get(COMMON_OFFHEAP, 0.0)
    ret[COMMON_ONHEAP] = normalized.get(COMMON_ONHEAP, 0.0)
    return ret


def _normalized_resources(resources):
    """Port of ``ResourceNameNormalizer.normalizedResourceMap`` (2.8.8)."""
    return {_NORMALIZED_NAMES.get(k, k): float(v) for k, v in (resources or {}).items()
            if valid_number(v)}


def placeholder_agg_stats(component, comp_type, resources_map):
    """Port of 2.8.8 ``Nimbus.getPlaceholderCommonAggregateStats`` with ``addSpoutAggStats`` /
    ``addBoltAggStats``: the zero stats 2.x shows for a component before any heartbeat.

    ``num_executors`` is the parallelism hint (1 unset), ``num_tasks`` the component's
    ``topology.tasks`` (else the executors).
    """
    hint = component.common.parallelism_hint
    num_executors = 1 if hint is None else hint
    try:
        conf = json.loads(component.common.json_conf) if component.common.json_conf else {}
    except ValueError:
        conf = {}
    num_tasks = conf.get("topology.tasks") if isinstance(conf, dict) else None
    if not valid_number(num_tasks):
        num_tasks = num_executors
    common = CommonAggregateStats(num_executors=int(num_executors), num_tasks=int(num_tasks),
                                  emitted=0, transferred=0, acked=0,
                                  resources_map=dict(resources_map))
    if comp_type == SPOUT:
        specific = SpecificAggregateStats(spout=SpoutAggregateStats(complete_latency_ms=0.0))
        kind = ComponentType.SPOUT
    else:
        specific = SpecificAggregateStats(bolt=BoltAggregateStats(
            execute_latency_ms=0.0, process_latency_ms=0.0, executed=0, capacity=0.0))
        kind = ComponentType.BOLT
    return ComponentAggregateStats(type=kind, common_stats=common, specific_stats=specific)
