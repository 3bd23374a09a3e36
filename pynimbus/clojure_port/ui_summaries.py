"""The Storm UI's cluster-wide REST answers, from what Nimbus answers over Thrift (pure).

Ports of 1.2.4 ``ui/core.clj`` (``cluster-summary``, ``nimbus-summary`` with
``convert-to-nimbus-summary``, ``supervisor-summary`` with ``supervisor-summary-to-json``,
``all-topologies-summary``, ``topology-history-info``, ``topology-page`` with
``unpack-topology-page-info``, ``topology-stats``, ``comp-agg-stats-json`` and
``worker-summary-to-json``, ``component-page`` with its ``unpack-*`` helpers and
``component-errors``, the log links), of ``ui/helpers.clj`` (``pretty-uptime-sec``,
``url-format``), of ``stats.clj``'s ``float-str`` and ``error-subset``, and ring's
``url-encode``: each function takes the
Thrift values (``ClusterSummary``, ``NimbusSummary``, ...) and the UI's conf, and gives the
JSON object Storm's UI writes, with its field names and values.  A Thrift field left unset
reads as Java's getter reads it (0 for a number).
"""

import decimal
import json
import re
import struct

from pynimbus.clojure_port.java_hash_map import (
    java_hash_map_order, thrift_map_order)
from pynimbus.clojure_port.log_config import to_log4j_level
from pynimbus.clojure_port.system_topology import global_stream_id_hash
from pynimbus.generated.storm.ttypes import ComponentType, LogConfig, LogLevel, LogLevelAction

SUPERVISOR_MEMORY_CAPACITY_MB = "supervisor.memory.capacity.mb"
SUPERVISOR_CPU_CAPACITY = "supervisor.cpu.capacity"
SCHEDULER_DISPLAY_RESOURCE = "scheduler.display.resource"
LOGVIEWER_PORT = "logviewer.port"
TOPOLOGY_MESSAGE_TIMEOUT_SECS = "topology.message.timeout.secs"
ONHEAP = "topology.component.resources.onheap.memory.mb"
OFFHEAP = "topology.component.resources.offheap.memory.mb"
CPU = "topology.component.cpu.pcore.percent"
ALL_TIME = ":all-time"
ERROR_SUBSET_CHARS = 200

PRETTY_SEC_DIVIDERS = (("s", 60), ("m", 60), ("h", 24), ("d", None))
# ring.util.codec/url-encode keeps these characters and percent-encodes every other byte
_URL_UNRESERVED = re.compile(r"[^A-Za-z0-9_~.+-]+")


def pretty_uptime_sec(secs):
    """``pretty-uptime-sec``: ``"1d 2h 3m 4s"``, from the largest unit present down to
    seconds (``"1h 0m 0s"``); ``""`` for 0."""
    value = int(secs)
    parts = []
    for suffix, divider in PRETTY_SEC_DIVIDERS:
        if value <= 0:
            break
        if divider is None:
            parts.append("%d%s" % (value, suffix))
            value = 0
        else:
            parts.append("%d%s" % (value % divider, suffix))
            value //= divider
    return " ".join(reversed(parts))


def url_encode(text):
    """ring's ``url-encode`` (UTF-8): every byte outside ``A-Za-z0-9_~.+-`` as ``%XX``."""
    return _URL_UNRESERVED.sub(
        lambda m: "".join("%%%02X" % b for b in m.group(0).encode("utf-8")), str(text))


def url_format(fmt, *args):
    """``url-format``: ``fmt`` with each argument url-encoded."""
    return fmt % tuple(url_encode(a) for a in args)


def nimbus_log_link(conf, host):
    return url_format("http://%s:%s/daemonlog?file=nimbus.log", host, conf.get(LOGVIEWER_PORT))


def supervisor_log_link(conf, host):
    return url_format("http://%s:%s/daemonlog?file=supervisor.log", host,
                      conf.get(LOGVIEWER_PORT))


def _resource(resources, key):
    return float((resources or {}).get(key) or 0.0)


def cluster_summary(conf, summary, user, storm_version):
    """``cluster-summary``: the cluster's counts, slots and resources."""
    sups = summary.supervisors or []
    tops = summary.topologies or []
    used_slots = sum(s.num_used_workers or 0 for s in sups)
    total_slots = sum(s.num_workers or 0 for s in sups)
    total_mem = total_cpu = avail_mem = avail_cpu = 0.0
    for s in sups:
        mem = _resource(s.total_resources, SUPERVISOR_MEMORY_CAPACITY_MB)
        cpu = _resource(s.total_resources, SUPERVISOR_CPU_CAPACITY)
        total_mem += mem
        total_cpu += cpu
        avail_mem += max(mem - (s.used_mem or 0.0), 0.0)
        avail_cpu += max(cpu - (s.used_cpu or 0.0), 0.0)
    return {
        "user": user,
        "stormVersion": storm_version,
        "supervisors": len(sups),
        "topologies": len(tops),
        "slotsTotal": total_slots,
        "slotsUsed": used_slots,
        "slotsFree": total_slots - used_slots,
        "executorsTotal": sum(t.num_executors or 0 for t in tops),
        "tasksTotal": sum(t.num_tasks or 0 for t in tops),
        "schedulerDisplayResource": conf.get(SCHEDULER_DISPLAY_RESOURCE),
        "totalMem": total_mem,
        "totalCpu": total_cpu,
        "availMem": avail_mem,
        "availCpu": avail_cpu,
        "memAssignedPercentUtil": _percent_used(total_mem, avail_mem),
        "cpuAssignedPercentUtil": _percent_used(total_cpu, avail_cpu),
    }


def _percent_used(total, available):
    """``(format "%.1f" ...)`` of the share used, or the number 0.0 without a total."""
    if total > 0.0:
        return java_format_fixed((total - available) / total * 100.0, 1)
    return 0.0


def java_format_fixed(value, places):
    """Java's ``String.format("%.Nf", double)``: the double's decimal digits (its shortest
    text) rounded half up."""
    digits = decimal.Decimal(repr(float(value)))
    return str(digits.quantize(decimal.Decimal(1).scaleb(-places),
                               rounding=decimal.ROUND_HALF_UP))


def float_str(n):
    """``float-str``: ``(format "%.3f" (float n))`` (the value as a Java float first), or
    ``"0"`` for null."""
    if n is None:
        return "0"
    return java_format_fixed(struct.unpack("f", struct.pack("f", float(n)))[0], 3)


def offline_nimbus_summary(conf, seed):
    """``convert-to-nimbus-summary``: a seed of ``nimbus.seeds`` no Nimbus reports from."""
    host, _, port = seed.partition(":")
    return {"host": host, "port": port, "nimbusLogLink": nimbus_log_link(conf, host),
            "status": "Offline", "version": "Not applicable",
            "nimbusUpTime": "Not applicable", "nimbusUptimeSeconds": "Not applicable"}


def nimbus_summary(conf, nimbuses):
    """``nimbus-summary``: the seeds no live Nimbus answers for ("Offline"), then each live
    Nimbus (leader or not)."""
    port = conf.get("nimbus.thrift.port")
    seeds = {"%s:%s" % (seed, port) for seed in (conf.get("nimbus.seeds") or [])}
    alive = {"%s:%s" % (n.host, n.port) for n in nimbuses}
    offline = [offline_nimbus_summary(conf, seed) for seed in sorted(seeds - alive)]
    return {"nimbuses": offline + [
        {"host": n.host, "port": n.port, "nimbusLogLink": nimbus_log_link(conf, n.host),
         "status": "Leader" if n.isLeader else "Not a Leader", "version": n.version,
         "nimbusUpTime": pretty_uptime_sec(n.uptime_secs or 0),
         "nimbusUpTimeSeconds": n.uptime_secs}
        for n in nimbuses]}


def supervisor_summary_to_json(conf, s):
    """``supervisor-summary-to-json``."""
    total_mem = _resource(s.total_resources, SUPERVISOR_MEMORY_CAPACITY_MB)
    total_cpu = _resource(s.total_resources, SUPERVISOR_CPU_CAPACITY)
    used_mem, used_cpu = s.used_mem or 0.0, s.used_cpu or 0.0
    return {
        "id": s.supervisor_id,
        "host": s.host,
        "uptime": pretty_uptime_sec(s.uptime_secs or 0),
        "uptimeSeconds": s.uptime_secs,
        "slotsTotal": s.num_workers,
        "slotsUsed": s.num_used_workers,
        "slotsFree": max((s.num_workers or 0) - (s.num_used_workers or 0), 0),
        "totalMem": total_mem,
        "totalCpu": total_cpu,
        "usedMem": used_mem,
        "usedCpu": used_cpu,
        "logLink": supervisor_log_link(conf, s.host),
        "availMem": max(total_mem - used_mem, 0),
        "availCpu": max(total_cpu - used_cpu, 0),
        "version": s.version,
    }


def supervisor_summary(conf, supervisors):
    """``supervisor-summary``."""
    return {"supervisors": [supervisor_summary_to_json(conf, s) for s in supervisors],
            "schedulerDisplayResource": conf.get(SCHEDULER_DISPLAY_RESOURCE)}


def all_topologies_summary(conf, topologies):
    """``all-topologies-summary``."""
    return {"topologies": [_topology_summary(t) for t in topologies],
            "schedulerDisplayResource": conf.get(SCHEDULER_DISPLAY_RESOURCE)}


def _topology_summary(t):
    requested_on, requested_off = t.requested_memonheap or 0.0, t.requested_memoffheap or 0.0
    assigned_on, assigned_off = t.assigned_memonheap or 0.0, t.assigned_memoffheap or 0.0
    return {
        "id": t.id,
        "encodedId": url_encode(t.id),
        "owner": t.owner,
        "name": t.name,
        "status": t.status,
        "uptime": pretty_uptime_sec(t.uptime_secs or 0),
        "uptimeSeconds": t.uptime_secs,
        "tasksTotal": t.num_tasks,
        "workersTotal": t.num_workers,
        "executorsTotal": t.num_executors,
        "replicationCount": t.replication_count or 0,
        "schedulerInfo": t.sched_status,
        "requestedMemOnHeap": requested_on,
        "requestedMemOffHeap": requested_off,
        "requestedTotalMem": requested_on + requested_off,
        "requestedCpu": t.requested_cpu or 0.0,
        "assignedMemOnHeap": assigned_on,
        "assignedMemOffHeap": assigned_off,
        "assignedTotalMem": assigned_on + assigned_off,
        "assignedCpu": t.assigned_cpu or 0.0,
    }


def topology_history_info(history):
    """``topology-history-info``: the ids of the topologies the user ran."""
    return {"topo-history": list(history.topo_ids or [])}


# -- the topology page


def logviewer_link(conf, host, fname):
    """``logviewer-link`` over plain HTTP."""
    return url_format("http://%s:%s/log?file=%s", host, conf.get(LOGVIEWER_PORT), fname)


def worker_log_link(conf, host, port, topology_id):
    """``worker-log-link``: the worker's log in the logviewer, or ``""`` without a host or
    port."""
    if not host or str(port) in ("", "0", "None"):
        return ""
    return logviewer_link(conf, host, "%s/%s/worker.log" % (topology_id, port))


def worker_dump_link(conf, host, port, topology_id):
    """``worker-dump-link``: Storm encodes its arguments twice (and the ``:`` between host
    and port once)."""
    return url_format("http://%s:%s/dumps/%s/%s", url_encode(host), conf.get(LOGVIEWER_PORT),
                      url_encode(topology_id), "%s:%s" % (url_encode(host), url_encode(port)))


def worker_summary_to_json(conf, w):
    """``worker-summary-to-json``."""
    return {
        "supervisorId": w.supervisor_id,
        "host": w.host,
        "port": w.port,
        "topologyId": w.topology_id,
        "topologyName": w.topology_name,
        "executorsTotal": w.num_executors,
        "assignedMemOnHeap": w.assigned_memonheap or 0.0,
        "assignedMemOffHeap": w.assigned_memoffheap or 0.0,
        "assignedCpu": w.assigned_cpu or 0.0,
        "componentNumTasks": w.component_to_num_tasks,
        "uptime": pretty_uptime_sec(w.uptime_secs or 0),
        "uptimeSeconds": w.uptime_secs,
        "workerLogLink": worker_log_link(conf, w.host, w.port, w.topology_id),
    }


def stats_times(window_map):
    """``stats-times``: the windows of a stat other than all-time, by their seconds."""
    return sorted((w for w in (window_map or {}) if w != ALL_TIME), key=int)


def window_hint(window):
    return "All time" if window == ALL_TIME else pretty_uptime_sec(int(window))


def topology_stats(stats):
    """``topology-stats``: per window of the emitted counts (then all-time), each stat."""
    rows = []
    for w in stats_times(stats.window_to_emitted) + [ALL_TIME]:
        rows.append({
            "windowPretty": window_hint(w),
            "window": w,
            "emitted": (stats.window_to_emitted or {}).get(w),
            "transferred": (stats.window_to_transferred or {}).get(w),
            "completeLatency": float_str(
                (stats.window_to_complete_latencies_ms or {}).get(w)),
            "acked": (stats.window_to_acked or {}).get(w),
            "failed": (stats.window_to_failed or {}).get(w),
        })
    return rows


def error_json(conf, topology_id, error, now_secs):
    """``get-error-json``: a component's last error, with its worker's log link."""
    host = error.host if error else ""
    port = error.port if error else ""
    error_time = error.error_time_secs if error else None
    return {"lastError": error.error[:ERROR_SUBSET_CHARS] if error else "",
            "errorTime": error_time,
            "errorHost": host,
            "errorPort": port,
            "errorLapsedSecs": now_secs - error_time if error_time is not None else None,
            "errorWorkerLogLink": worker_log_link(conf, host, port, topology_id)}


def common_agg_stats_json(common):
    """``common-agg-stats-json``."""
    resources = common.resources_map or {}
    return {"executors": common.num_executors or 0, "tasks": common.num_tasks or 0,
            "emitted": common.emitted or 0, "transferred": common.transferred or 0,
            "acked": common.acked or 0, "failed": common.failed or 0,
            "requestedMemOnHeap": resources.get(ONHEAP),
            "requestedMemOffHeap": resources.get(OFFHEAP),
            "requestedCpu": resources.get(CPU)}


def spout_agg_stats_json(conf, topology_id, component_id, stats, now_secs):
    """``comp-agg-stats-json`` of a spout."""
    body = common_agg_stats_json(stats.common_stats)
    body.update(error_json(conf, topology_id, stats.last_error, now_secs))
    body.update({"spoutId": component_id, "encodedSpoutId": url_encode(component_id),
                 "completeLatency": float_str(
                     stats.specific_stats.spout.complete_latency_ms or 0.0)})
    return body


def bolt_agg_stats_json(conf, topology_id, component_id, stats, now_secs):
    """``comp-agg-stats-json`` of a bolt."""
    bolt = stats.specific_stats.bolt
    body = common_agg_stats_json(stats.common_stats)
    body.update(error_json(conf, topology_id, stats.last_error, now_secs))
    body.update({"boltId": component_id, "encodedBoltId": url_encode(component_id),
                 "capacity": float_str(bolt.capacity or 0.0),
                 "executeLatency": float_str(bolt.execute_latency_ms or 0.0),
                 "executed": bolt.executed or 0,
                 "processLatency": float_str(bolt.process_latency_ms or 0.0)})
    return body


def topology_page(conf, info, window, user, now_secs):
    """``topology-page``: a ``TopologyPageInfo`` for ``window`` (``":all-time"`` or
    seconds) as the UI shows it; components in the order Storm's UI lists them (its decoded
    Thrift map's)."""
    topology_id = info.id
    debug = info.debug_options
    on, off = info.assigned_memonheap or 0.0, info.assigned_memoffheap or 0.0
    topology_conf = json.loads(info.topology_conf) if info.topology_conf else {}
    spouts = info.id_to_spout_agg_stats or {}
    bolts = info.id_to_bolt_agg_stats or {}
    return {
        "id": topology_id,
        "encodedId": url_encode(topology_id),
        "owner": info.owner,
        "name": info.name,
        "status": info.status,
        "uptime": pretty_uptime_sec(info.uptime_secs or 0),
        "uptimeSeconds": info.uptime_secs,
        "tasksTotal": info.num_tasks,
        "workersTotal": info.num_workers,
        "executorsTotal": info.num_executors,
        "schedulerInfo": info.sched_status,
        "requestedMemOnHeap": info.requested_memonheap or 0.0,
        "requestedMemOffHeap": info.requested_memoffheap or 0.0,
        "requestedCpu": info.requested_cpu or 0.0,
        "assignedMemOnHeap": on,
        "assignedMemOffHeap": off,
        "assignedTotalMem": on + off,
        "assignedCpu": info.assigned_cpu or 0.0,
        "topologyStats": topology_stats(info.topology_stats),
        "workers": [worker_summary_to_json(conf, w) for w in info.workers or []],
        "spouts": [spout_agg_stats_json(conf, topology_id, c, spouts[c], now_secs)
                   for c in thrift_map_order(spouts)],
        "bolts": [bolt_agg_stats_json(conf, topology_id, c, bolts[c], now_secs)
                  for c in thrift_map_order(bolts)],
        # an unset field reads as Java's getter gives it (false, 0.0); no options: 10 %
        "debug": bool(debug.enable) if debug is not None else False,
        "samplingPct": (debug.samplingpct or 0.0) if debug is not None else 10,
        "replicationCount": info.replication_count or 0,
        "user": user,
        "window": window,
        "windowHint": window_hint(window),
        "msgTimeout": topology_conf.get(TOPOLOGY_MESSAGE_TIMEOUT_SECS),
        "configuration": topology_conf,
        "visualizationTable": [],
        "schedulerDisplayResource": conf.get(SCHEDULER_DISPLAY_RESOURCE),
    }


# -- the other topology pages and the actions

def worker_host_port(executors):
    """``worker-host-port``: the distinct ``{"host", "port"}`` of the executors, in their
    order."""
    seen, ret = set(), []
    for e in executors or []:
        if (e.host, e.port) not in seen:
            seen.add((e.host, e.port))
            ret.append({"host": e.host, "port": e.port})
    return ret


def supervisor_page(conf, info):
    """``supervisor-page-info``: the supervisors asked for and their workers."""
    return {"supervisors": [supervisor_summary_to_json(conf, s)
                            for s in info.supervisor_summaries or []],
            "schedulerDisplayResource": conf.get(SCHEDULER_DISPLAY_RESOURCE),
            "workers": [worker_summary_to_json(conf, w) for w in info.worker_summaries or []]}


def level_to_dict(level):
    """``level-to-dict``."""
    return {"target_level": to_log4j_level(level.target_log_level),
            "reset_level": to_log4j_level(level.reset_log_level),
            "timeout": level.reset_log_level_timeout_secs or 0,
            "timeout_epoch": level.reset_log_level_timeout_epoch or 0}


def log_config(config):
    """``log-config``: each named logger's levels."""
    return {"namedLoggerLevels": {str(name): level_to_dict(level) for name, level in
                                  (config.named_logger_level or {}).items()}}


def requested_log_level(target, timeout_secs):
    """The ``LogLevel`` a POST of ``/logconfig`` asks for a logger: updated to ``target``
    (log4j2's name for it) for ``timeout_secs`` (0: until changed), removed without one."""
    if target is None:
        return LogLevel(action=LogLevelAction.REMOVE)
    return LogLevel(action=LogLevelAction.UPDATE, target_log_level=to_log4j_level(str(target)),
                    reset_log_level_timeout_secs=int(timeout_secs))


def new_log_config(named_logger_levels):
    """The ``LogConfig`` the POST of ``/logconfig`` sets (:func:`requested_log_level` for
    each logger)."""
    return LogConfig(named_logger_level={
        str(name): requested_log_level((asked or {}).get("target_level"),
                                       (asked or {}).get("timeout") or 0)
        for name, asked in (named_logger_levels or {}).items()})


def topology_op_response(topology_id, op):
    return {"topologyOperation": op, "topologyId": topology_id, "status": "success"}


def component_op_response(topology_id, component_id, op):
    return {"topologyOperation": op, "topologyId": topology_id, "componentId": component_id,
            "status": "success"}


# -- the component page


def _text(value):
    """Clojure's ``str``: nil is the empty string."""
    return "" if value is None else str(value)


def event_log_link(conf, topology_id, host, port):
    """``event-log-link``: the component's event log in the logviewer."""
    return logviewer_link(conf, _text(host), "%s/%s/events.log" % (topology_id, _text(port)))


def component_errors(conf, errors, topology_id, now_secs):
    """``component-errors``: newest first."""
    ordered = list(reversed(sorted(errors or [], key=lambda e: e.error_time_secs or 0)))
    return {"componentErrors": [
        {"errorTime": e.error_time_secs, "errorHost": e.host, "errorPort": e.port,
         "errorWorkerLogLink": worker_log_link(conf, e.host, e.port, topology_id),
         "errorLapsedSecs": (now_secs - e.error_time_secs
                             if e.error_time_secs is not None else None),
         "error": e.error}
        for e in ordered]}


def window_agg_stat(window, stats):
    """``unpack-comp-agg-stat``."""
    common, specific = stats.common_stats, stats.specific_stats
    body = {"window": window, "windowPretty": window_hint(window),
            "emitted": common.emitted or 0, "transferred": common.transferred or 0,
            "acked": common.acked or 0, "failed": common.failed or 0}
    if stats.type == ComponentType.BOLT:
        bolt = specific.bolt
        body.update({"executeLatency": float_str(bolt.execute_latency_ms or 0.0),
                     "processLatency": float_str(bolt.process_latency_ms or 0.0),
                     "executed": bolt.executed or 0,
                     "capacity": float_str(bolt.capacity or 0.0)})
    else:
        body["completeLatency"] = float_str(specific.spout.complete_latency_ms or 0.0)
    return body


def bolt_input_stat(stream, stats, fmt=float_str):
    """``unpack-bolt-input-stat`` (``fmt``: the latencies' format; 2.8.8's
    ``getBoltInputStats`` is this with its ``floatStr``)."""
    bolt, common = stats.specific_stats.bolt, stats.common_stats
    return {"component": stream.componentId, "encodedComponentId": url_encode(stream.componentId),
            "stream": stream.streamId,
            "executeLatency": fmt(bolt.execute_latency_ms or 0.0),
            "processLatency": fmt(bolt.process_latency_ms or 0.0),
            "executed": bolt.executed or 0, "acked": common.acked or 0,
            "failed": common.failed or 0}


def output_stat(stream, stats, fmt=float_str):
    """``unpack-comp-output-stat`` (2.8.8's ``getBoltOutputStats`` and
    ``getSpoutOutputStats`` with its ``floatStr`` as ``fmt``)."""
    common = stats.common_stats
    body = {"stream": stream, "emitted": common.emitted or 0,
            "transferred": common.transferred or 0}
    if stats.type == ComponentType.SPOUT:
        body.update({"completeLatency": fmt(
                         stats.specific_stats.spout.complete_latency_ms or 0.0),
                     "acked": common.acked or 0, "failed": common.failed or 0})
    return body


def executor_stat(conf, topology_id, executor_stats, fmt=float_str, log_link=worker_log_link):
    """``unpack-comp-exec-stat`` (2.8.8's ``getBoltExecutorStats`` and
    ``getSpoutExecutorStats`` with its ``floatStr`` as ``fmt`` and its worker log link)."""
    summary, stats = executor_stats.exec_summary, executor_stats.stats
    info, common = summary.executor_info, stats.common_stats
    executor_id = "[%d-%d]" % (info.task_start, info.task_end)
    body = {"id": executor_id, "encodedId": url_encode(executor_id),
            "uptime": pretty_uptime_sec(summary.uptime_secs or 0),
            "uptimeSeconds": summary.uptime_secs, "host": summary.host, "port": summary.port,
            "emitted": common.emitted or 0, "transferred": common.transferred or 0}
    if stats.type == ComponentType.BOLT:
        bolt = stats.specific_stats.bolt
        body.update({"capacity": fmt(bolt.capacity or 0.0),
                     "executeLatency": fmt(bolt.execute_latency_ms or 0.0),
                     "executed": bolt.executed or 0,
                     "processLatency": fmt(bolt.process_latency_ms or 0.0)})
    else:
        body["completeLatency"] = fmt(stats.specific_stats.spout.complete_latency_ms or 0.0)
    body.update({"acked": common.acked or 0, "failed": common.failed or 0,
                 "workerLogLink": log_link(conf, summary.host, summary.port, topology_id)})
    return body


def active_profile_action(conf, request, topology_id, now_ms):
    """One of ``get-active-profile-actions``: a pending recording of the component's
    workers, its ``timestamp`` the milliseconds left, as text."""
    port = str(sorted(request.nodeInfo.port or [0])[0])
    return {"host": request.nodeInfo.node, "port": port,
            "dumplink": worker_dump_link(conf, request.nodeInfo.node, port, topology_id),
            "timestamp": str((request.time_stamp or 0) - now_ms)}


def component_page(conf, info, topology_id, component_id, window, user, now_secs,
                   profile_requests=(), now_ms=None):
    """``component-page``: a ``ComponentPageInfo`` for ``window`` as the UI shows it; maps
    in the order Storm's UI iterates them (its decoded Thrift maps').  ``profile_requests``:
    ``getComponentPendingProfileActions``' answer for ``JPROFILE_STOP`` (Storm asks only with
    ``worker.profiler.enabled``); ``now_ms`` the time their ``timestamp`` counts from
    (``now_secs`` by default)."""
    windows = info.window_to_stats or {}
    window_stats = [window_agg_stat(w, windows[w]) for w in thrift_map_order(windows)]
    outputs = info.sid_to_output_stats or {}
    body = {"outputStats": [output_stat(s, outputs[s]) for s in thrift_map_order(outputs)],
            "executorStats": [executor_stat(conf, topology_id, e)
                              for e in info.exec_stats or []]}
    if info.component_type == ComponentType.BOLT:
        inputs = info.gsid_to_input_stats or {}
        order = java_hash_map_order(list(inputs), global_stream_id_hash, 2 * len(inputs))
        body.update({"boltStats": window_stats,
                     "inputStats": [bolt_input_stat(g, inputs[g]) for g in order]})
    else:
        body["spoutSummary"] = window_stats
    body.update(component_errors(conf, info.errors, topology_id, now_secs))
    debug = info.debug_options
    resources = info.resources_map or {}
    body.update({
        "user": user,
        "id": component_id,
        "encodedId": url_encode(component_id),
        "name": info.topology_name,
        "executors": info.num_executors or 0,
        "tasks": info.num_tasks or 0,
        "requestedMemOnHeap": resources.get(ONHEAP),
        "requestedMemOffHeap": resources.get(OFFHEAP),
        "requestedCpu": resources.get(CPU),
        "schedulerDisplayResource": conf.get(SCHEDULER_DISPLAY_RESOURCE),
        "topologyId": topology_id,
        "topologyStatus": info.topology_status,
        "encodedTopologyId": url_encode(topology_id),
        "window": window,
        "componentType": ComponentType._VALUES_TO_NAMES[info.component_type].lower(),
        "windowHint": window_hint(window),
        "debug": bool(debug.enable) if debug is not None else False,
        "samplingPct": (debug.samplingpct or 0.0) if debug is not None else 10,
        # an unset port reads as Java's int getter gives it: 0
        "eventLogLink": event_log_link(conf, topology_id, info.eventlog_host,
                                       info.eventlog_port or 0),
        "profilingAndDebuggingCapable": True,
        "profileActionEnabled": conf.get("worker.profiler.enabled"),
        "profilerActive": [active_profile_action(
            conf, r, topology_id, now_secs * 1000 if now_ms is None else now_ms)
            for r in profile_requests],
    })
    return body
