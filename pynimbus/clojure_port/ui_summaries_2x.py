# -*- test-case-name: tests.test_ui_summaries_2x -*-
"""The Storm UI's REST answers as Storm 2.8.8's UI writes them (pure).

Ports of 2.8.8 ``storm-webapp``'s ``UIHelpers``: ``getClusterSummary``, ``getNimbusSummary``,
``getSupervisorSummary`` and ``getPrettifiedSupervisorMap``, ``getSupervisorPageInfo``,
``getAllTopologiesSummary`` with ``getTopologyMap``, ``getOwnerResourceSummaries`` and
``getOwnerResourceSummary`` with ``unpackOwnerResourceSummary``, ``getTopologySummary`` with
``unpackTopologyInfo``, ``getTopologyStatsMap``, ``getCommonAggStatsMap`` and the spout and bolt
rows, ``getComponentPage`` with ``unpackBoltPageInfo``/``unpackSpoutPageInfo`` and their rows,
``getComponentErrors``, ``getActiveAction``, ``getTopologyWorkers``, ``getTopolgoyLogConfig``,
``putTopologyLogLevel``'s log configs, ``getTopologyLag``'s switch, the op responses, the log
links (``getLogviewerLink`` and its kin, under the 2.x logviewer's ``/api/v1/``) and
``prettifyGenericResources``; ``StatsUtil.floatStr`` of 2.8.8 (a double, not a float).

Where 2.8.8 computes what 1.2.4 did, the 1.x helpers of :mod:`.ui_summaries` are reused.
A Thrift field left unset reads as Java's getter reads it (0 for a primitive number, null for
an object); a map 2.8.8 would dereference while null reads as empty rather than failing.
"""

from pynimbus.clojure_port.java_hash_map import (
    java_hash_map_order, java_hashmap_order, string_hash, thrift_map_order)
from pynimbus.clojure_port.java_json import java_double_to_string
from pynimbus.clojure_port.stats import (
    COMMON_CPU, COMMON_OFFHEAP, COMMON_ONHEAP, COMMON_TOTAL_MEMORY)
from pynimbus.clojure_port.system_topology import global_stream_id_hash
from pynimbus.clojure_port.ui_summaries import (
    ERROR_SUBSET_CHARS, LOGVIEWER_PORT, SCHEDULER_DISPLAY_RESOURCE,
    SUPERVISOR_CPU_CAPACITY, SUPERVISOR_MEMORY_CAPACITY_MB, bolt_input_stat, executor_stat,
    java_format_fixed, output_stat, pretty_uptime_sec, requested_log_level,
    topology_op_response, url_encode, url_format, window_hint)
from pynimbus.generated.storm.ttypes import ComponentType, LogConfig, OwnerResourceSummary

LOGVIEWER_HTTPS_PORT = "logviewer.https.port"
BUGTRACKER_URL = "ui.project.bugtracker.url"
CENTRAL_LOG_URL = "ui.central.logging.url"
DISABLE_SPOUT_LAG = "ui.disable.spout.lag.monitoring"
WORKER_PROFILER_ENABLED = "worker.profiler.enabled"
# Storm 2.x's normalized resource names (``Constants.COMMON_*_RESOURCE_NAME``)
CPU, ONHEAP, OFFHEAP, TOTAL_MEMORY = COMMON_CPU, COMMON_ONHEAP, COMMON_OFFHEAP, COMMON_TOTAL_MEMORY
NON_GENERIC_RESOURCES = (ONHEAP, OFFHEAP, TOTAL_MEMORY, CPU)
# ``Utils.isLocalhostAddress``: seeds never listed as "Offline"
LOCALHOST_ADDRESSES = ("localhost", "127.0.0.1", "0:0:0:0:0:0:0:1")
NOT_APPLICABLE = "Not applicable"
UNKNOWN = "Unknown"  # what Storm's VersionInfo says of a field it does not know


def float_str(n):
    """2.8.8 ``StatsUtil.floatStr``: ``String.format("%.3f", n)`` of the double, ``"0"`` for
    null."""
    return "0" if n is None else java_format_fixed(n, 3)


def prettify_generic_resources(resources):
    """``prettifyGenericResources``: the resources other than cpu and memory, sorted by name,
    as ``"name=1.0 other=2.0"`` (a ``TreeMap``'s text without braces and commas); None for
    none."""
    if resources is None:
        return None
    text = "{%s}" % ", ".join("%s=%s" % (name, java_double_to_string(float(value)))
                              for name, value in sorted(resources.items())
                              if name not in NON_GENERIC_RESOURCES)
    return text.replace("{", "").replace("}", "").replace(",", "")


def add_resource_map(resources1, resources2):
    """``NormalizedResourceRequest.addResourceMap``."""
    total = dict(resources1)
    for name, value in (resources2 or {}).items():
        total[name] = total.get(name, 0.0) + value
    return total


def subtract_resource_map(resources1, resources2):
    """``NormalizedResourceRequest.subtractResourceMap``: empty when either is null."""
    if resources1 is None or resources2 is None:
        return {}
    difference = dict(resources1)
    for name, value in resources2.items():
        difference[name] = difference.get(name, 0.0) - value
    return difference


# -- the logviewer's links (2.x serves them under /api/v1/)


def is_secure_logviewer(conf):
    """``isSecureLogviewer``: ``logviewer.https.port`` set and not negative."""
    port = conf.get(LOGVIEWER_HTTPS_PORT)
    return port is not None and int(port) >= 0


def logviewer_base(conf, host):
    """``scheme://host:port`` of the logviewer on ``host``, each part url-encoded."""
    if is_secure_logviewer(conf):
        return url_format("https://%s:%s", host, conf.get(LOGVIEWER_HTTPS_PORT))
    return url_format("http://%s:%s", host, conf.get(LOGVIEWER_PORT))


def logviewer_link(conf, host, fname):
    """``getLogviewerLink``."""
    return logviewer_base(conf, host) + url_format("/api/v1/log?file=%s", fname)


def nimbus_log_link(conf, host):
    """``getNimbusLogLink``."""
    return logviewer_base(conf, host) + "/api/v1/daemonlog?file=nimbus.log"


def supervisor_log_link(conf, host):
    """``getSupervisorLogLink``."""
    return logviewer_base(conf, host) + "/api/v1/daemonlog?file=supervisor.log"


def worker_log_link(conf, host, port, topology_id):
    """``getWorkerLogLink``: always a link (1.2.4 gave "" without a host)."""
    return logviewer_link(conf, host, "%s/%s/worker.log" % (topology_id, port))


def worker_dump_link(conf, host, port, topology_id):
    """``getWorkerDumpLink``: host, topology id and port encoded twice, as 2.8.8 does."""
    secure = is_secure_logviewer(conf)
    fmt = "https://%s:%s/api/v1/dumps/%s/%s" if secure else "http://%s:%s/api/v1/dumps/%s/%s"
    return url_format(fmt, url_encode(host),
                      conf.get(LOGVIEWER_HTTPS_PORT if secure else LOGVIEWER_PORT),
                      url_encode(topology_id), "%s:%s" % (url_encode(host), url_encode(port)))


def logviewer_info(conf):
    """``addLogviewerInfo``'s fields: the logviewer's port and scheme."""
    secure = is_secure_logviewer(conf)
    return {"logviewerPort": conf.get(LOGVIEWER_HTTPS_PORT if secure else LOGVIEWER_PORT),
            "logviewerScheme": "https" if secure else "http"}


# -- cluster, Nimbus, supervisors, topologies


def version_info(storm_version):
    """``toJsonStruct`` of the UI's own version: pynimbus knows only the release it follows."""
    return {"version": storm_version, "revision": UNKNOWN, "branch": UNKNOWN, "date": UNKNOWN,
            "srcChecksum": UNKNOWN}


def total_memory(supervisor):
    """A supervisor's memory: ``memory.mb``, else ``supervisor.memory.capacity.mb``."""
    resources = supervisor.total_resources or {}
    return float(resources.get(TOTAL_MEMORY, resources.get(SUPERVISOR_MEMORY_CAPACITY_MB)) or 0.0)


def total_cpu(supervisor):
    """A supervisor's cpu: ``cpu.pcore.percent``, else ``supervisor.cpu.capacity``."""
    resources = supervisor.total_resources or {}
    return float(resources.get(CPU, resources.get(SUPERVISOR_CPU_CAPACITY)) or 0.0)


def percent_used(used, total):
    """``memAssignedPercentUtil``'s text: ``floatStr`` of the share, ``"0.0"`` without a
    total."""
    return float_str(used * 100.0 / total) if total > 0 else "0.0"


def cluster_summary(conf, summary, user, storm_version):
    """``getClusterSummary``."""
    sups = summary.supervisors or []
    tops = summary.topologies or []
    used_slots = sum(s.num_used_workers or 0 for s in sups)
    total_slots = sum(s.num_workers or 0 for s in sups)
    mem = sum(total_memory(s) for s in sups)
    cpu = sum(total_cpu(s) for s in sups)
    used_mem = sum(s.used_mem or 0.0 for s in sups)
    used_cpu = sum(s.used_cpu or 0.0 for s in sups)
    used_generics, total_generics = {}, {}
    for s in sups:
        used_generics = add_resource_map(used_generics, s.used_generic_resources)
        total_generics = add_resource_map(total_generics, s.total_resources)
    return {
        "user": user,
        "stormVersion": storm_version,
        "stormVersionInfo": version_info(storm_version),
        "supervisors": len(sups),
        "topologies": len(tops),
        "slotsUsed": used_slots,
        "slotsTotal": total_slots,
        "slotsFree": total_slots - used_slots,
        "tasksTotal": sum(t.num_tasks or 0 for t in tops),
        "executorsTotal": sum(t.num_executors or 0 for t in tops),
        "totalMem": mem,
        "totalCpu": cpu,
        "availMem": mem - used_mem,
        "availCpu": cpu - used_cpu,
        "fragmentedMem": sum(s.fragmented_mem or 0.0 for s in sups),
        "fragmentedCpu": sum(s.fragmented_cpu or 0.0 for s in sups),
        "schedulerDisplayResource": conf.get(SCHEDULER_DISPLAY_RESOURCE),
        "memAssignedPercentUtil": percent_used(used_mem, mem),
        "cpuAssignedPercentUtil": percent_used(used_cpu, cpu),
        "bugtracker-url": conf.get(BUGTRACKER_URL),
        "central-log-url": conf.get(CENTRAL_LOG_URL),
        "availGenerics": prettify_generic_resources(
            subtract_resource_map(total_generics, used_generics)),
        "totalGenerics": prettify_generic_resources(total_generics),
    }


def nimbus_summary(conf, nimbuses):
    """``getNimbusSummary``: each live Nimbus, then the seeds (but the local host's) no live
    Nimbus answers for, "Offline", in ``nimbus.seeds`` order."""
    seeds = ["%s:%s" % (seed, conf.get("nimbus.thrift.port"))
             for seed in conf.get("nimbus.seeds") or [] if seed not in LOCALHOST_ADDRESSES]
    rows = []
    for n in nimbuses:
        rows.append({"host": n.host, "port": n.port,
                     "status": "Leader" if n.isLeader else "Not a Leader",
                     "version": n.version, "nimbusUpTimeSeconds": n.uptime_secs or 0,
                     "nimbusUpTime": pretty_uptime_sec(n.uptime_secs or 0),
                     "nimbusLogLink": nimbus_log_link(conf, n.host)})
        live = "%s:%s" % (n.host, n.port)
        if live in seeds:
            seeds.remove(live)  # List.remove: the first one only
    for seed in seeds:
        host, port = seed.split(":")[:2]
        rows.append({"host": host, "port": port, "status": "Offline",
                     "version": NOT_APPLICABLE, "nimbusUpTimeSeconds": NOT_APPLICABLE,
                     "nimbusUpTime": NOT_APPLICABLE,
                     "nimbusLogLink": nimbus_log_link(conf, host)})
    return {"nimbuses": rows}


def supervisor_json(conf, s):
    """``getPrettifiedSupervisorMap``."""
    mem, cpu = total_memory(s), total_cpu(s)
    used_mem, used_cpu = s.used_mem or 0.0, s.used_cpu or 0.0
    total_generics = dict(s.total_resources or {})
    return {
        "id": s.supervisor_id,
        "host": s.host,
        "uptime": pretty_uptime_sec(s.uptime_secs or 0),
        "blacklisted": bool(s.blacklisted),
        "uptimeSeconds": s.uptime_secs or 0,
        "slotsTotal": s.num_workers or 0,
        "slotsUsed": s.num_used_workers or 0,
        "slotsFree": max((s.num_workers or 0) - (s.num_used_workers or 0), 0),
        "totalMem": mem,
        "totalCpu": cpu,
        "usedMem": used_mem,
        "usedCpu": used_cpu,
        "logLink": supervisor_log_link(conf, s.host),
        "availMem": mem - used_mem,
        "availCpu": cpu - used_cpu,
        "version": s.version,
        "totalGenericResources": prettify_generic_resources(total_generics),
        "usedGenericResources": prettify_generic_resources(s.used_generic_resources),
        "availGenericResources": prettify_generic_resources(
            subtract_resource_map(total_generics, s.used_generic_resources)),
    }


def supervisor_summary(conf, supervisors):
    """``getSupervisorSummary``."""
    body = logviewer_info(conf)
    body.update({"supervisors": [supervisor_json(conf, s) for s in supervisors],
                 "schedulerDisplayResource": conf.get(SCHEDULER_DISPLAY_RESOURCE)})
    return body


def worker_json(conf, w):
    """``getWorkerSummaryMap``."""
    return {
        "supervisorId": w.supervisor_id,
        "host": w.host,
        "port": w.port or 0,
        "topologyId": w.topology_id,
        "topologyName": w.topology_name,
        "executorsTotal": w.num_executors or 0,
        "assignedMemOnHeap": w.assigned_memonheap or 0.0,
        "assignedMemOffHeap": w.assigned_memoffheap or 0.0,
        "assignedCpu": w.assigned_cpu or 0.0,
        "componentNumTasks": w.component_to_num_tasks,
        "uptime": pretty_uptime_sec(w.uptime_secs or 0),
        "uptimeSeconds": w.uptime_secs or 0,
        "workerLogLink": worker_log_link(conf, w.host, w.port or 0, w.topology_id),
        "owner": w.owner,
    }


def supervisor_page(conf, info):
    """``getSupervisorPageInfo``."""
    body = {"workers": [worker_json(conf, w) for w in info.worker_summaries or []],
            "schedulerDisplayResource": conf.get(SCHEDULER_DISPLAY_RESOURCE),
            "supervisors": [supervisor_json(conf, s) for s in info.supervisor_summaries or []]}
    body.update(logviewer_info(conf))
    return body


def topology_summary_json(t):
    """``getTopologyMap``; its ``requestedTotalMem`` adds the requested off-heap to the
    *assigned* on-heap memory, as 2.8.8 does."""
    return {
        "id": t.id,
        "encodedId": url_encode(t.id),
        "owner": t.owner,
        "name": t.name,
        "status": t.status,
        "uptime": pretty_uptime_sec(t.uptime_secs or 0),
        "uptimeSeconds": t.uptime_secs or 0,
        "tasksTotal": t.num_tasks or 0,
        "workersTotal": t.num_workers or 0,
        "executorsTotal": t.num_executors or 0,
        "replicationCount": t.replication_count or 0,
        "schedulerInfo": t.sched_status,
        "requestedMemOnHeap": t.requested_memonheap or 0.0,
        "requestedMemOffHeap": t.requested_memoffheap or 0.0,
        "requestedTotalMem": (t.requested_memoffheap or 0.0) + (t.assigned_memonheap or 0.0),
        "requestedCpu": t.requested_cpu or 0.0,
        "requestedGenericResources": prettify_generic_resources(
            t.requested_generic_resources),
        "assignedMemOnHeap": t.assigned_memonheap or 0.0,
        "assignedMemOffHeap": t.assigned_memoffheap or 0.0,
        "assignedTotalMem": (t.assigned_memoffheap or 0.0) + (t.assigned_memonheap or 0.0),
        "assignedCpu": t.assigned_cpu or 0.0,
        "assignedGenericResources": prettify_generic_resources(t.assigned_generic_resources),
        "topologyVersion": t.topology_version,
        "stormVersion": t.storm_version,
    }


def all_topologies_summary(conf, topologies):
    """``getAllTopologiesSummary`` of ``getTopologySummaries``."""
    return {"topologies": [topology_summary_json(t) for t in topologies],
            "schedulerDisplayResource": conf.get(SCHEDULER_DISPLAY_RESOURCE)}


# -- owners' resources (2.x only)


def guarantee(value):
    """An owner's guarantee, or "N/A" when none is set (or it is -1)."""
    return "N/A" if value is None or value == -1 else value


def owner_resource_json(summary):
    """``unpackOwnerResourceSummary``."""
    isolated = summary.isolated_node_guarantee
    return {
        "owner": summary.owner,
        "totalTopologies": summary.total_topologies or 0,
        "totalExecutors": summary.total_executors or 0,
        "totalWorkers": summary.total_workers or 0,
        "totalTasks": summary.total_tasks or 0,
        "totalMemoryUsage": summary.memory_usage or 0.0,
        "totalCpuUsage": summary.cpu_usage or 0.0,
        "memoryGuarantee": guarantee(summary.memory_guarantee),
        "cpuGuarantee": guarantee(summary.cpu_guarantee),
        "isolatedNodes": -1 if isolated is None else isolated,
        "memoryGuaranteeRemaining": guarantee(summary.memory_guarantee_remaining),
        "cpuGuaranteeRemaining": guarantee(summary.cpu_guarantee_remaining),
        "totalReqOnHeapMem": summary.requested_on_heap_memory or 0.0,
        "totalReqOffHeapMem": summary.requested_off_heap_memory or 0.0,
        "totalReqMem": summary.requested_total_memory or 0.0,
        "totalReqCpu": summary.requested_cpu or 0.0,
        "totalAssignedOnHeapMem": summary.assigned_on_heap_memory or 0.0,
        "totalAssignedOffHeapMem": summary.assigned_off_heap_memory or 0.0,
    }


def owner_resource_summaries(conf, summaries):
    """``getOwnerResourceSummaries``: ``/owner-resources``."""
    return {"schedulerDisplayResource": conf.get(SCHEDULER_DISPLAY_RESOURCE),
            "owners": [owner_resource_json(s) for s in summaries]}


def owner_resource_summary(conf, owner, summaries, topologies):
    """``getOwnerResourceSummary``: ``/owner-resources/<owner>``, the owner's first summary
    and topologies; an owner Nimbus knows nothing of gets empty figures (and, as in 2.8.8,
    neither topologies nor ``schedulerDisplayResource``)."""
    if not summaries:
        return owner_resource_json(OwnerResourceSummary(owner=owner))
    body = {"schedulerDisplayResource": conf.get(SCHEDULER_DISPLAY_RESOURCE)}
    body.update(owner_resource_json(summaries[0]))
    body["topologies"] = [topology_summary_json(t) for t in topologies if t.owner == owner]
    return body


# -- the topology page


def topology_stats(stats):
    """``getTopologyStatsMap``: a row per window the emitted counts have (none without
    stats), in the order of their ``HashMap``."""
    if stats is None:
        return []
    emitted = stats.window_to_emitted or {}
    transferred = stats.window_to_transferred or {}
    acked = stats.window_to_acked or {}
    failed = stats.window_to_failed or {}
    latencies = stats.window_to_complete_latencies_ms or {}
    latency_by_hint = {window_hint(w): latencies[w] for w in thrift_map_order(latencies)}
    return [{"windowPretty": window_hint(w), "window": w, "emitted": emitted[w],
             "transferred": transferred.get(w),
             "completeLatency": float_str(latency_by_hint.get(window_hint(w))),
             "acked": acked.get(w, 0), "failed": failed.get(w, 0)}
            # getStatDisplayMapLong copies the decoded map into a new HashMap
            for w in java_hashmap_order(thrift_map_order(emitted))]


def common_agg_stats_json(common):
    """``getCommonAggStatsMap``: the resource fields only when the stats carry resources."""
    body = {"executors": common.num_executors or 0, "tasks": common.num_tasks or 0,
            "emitted": common.emitted or 0, "transferred": common.transferred or 0,
            "acked": common.acked or 0, "failed": common.failed or 0}
    resources = common.resources_map
    if resources is not None:
        body.update({"requestedMemOnHeap": resources.get(ONHEAP),
                     "requestedMemOffHeap": resources.get(OFFHEAP),
                     "requestedCpu": resources.get(CPU),
                     "requestedGenericResourcesComp": prettify_generic_resources(resources)})
    return body


def error_json(conf, topology_id, error, now_secs, as_last_error):
    """``getComponentErrorInfo``."""
    port = error.port or 0
    body = {"errorTime": error.error_time_secs or 0, "errorHost": error.host,
            "errorPort": port,
            "errorWorkerLogLink": worker_log_link(conf, error.host, port, topology_id),
            "errorLapsedSecs": now_secs - (error.error_time_secs or 0)}
    if as_last_error:
        body["lastError"] = (error.error or "")[:ERROR_SUBSET_CHARS]
    else:
        body["error"] = error.error
    return body


def last_error_json(conf, topology_id, error, now_secs):
    """``getComponentLastErrorInfo``: empty fields without an error."""
    if error is None:
        return {"lastError": "", "errorHost": "", "errorPort": None, "errorWorkerLogLink": "",
                "errorTime": None, "errorLapsedSecs": None}
    return error_json(conf, topology_id, error, now_secs, True)


def spout_agg_stats_json(conf, topology_id, component_id, stats, now_secs):
    """``getTopologySpoutAggStatsMap``."""
    body = common_agg_stats_json(stats.common_stats)
    body.update({"spoutId": component_id, "encodedSpoutId": url_encode(component_id),
                 "completeLatency": float_str(
                     stats.specific_stats.spout.complete_latency_ms or 0.0)})
    body.update(last_error_json(conf, topology_id, stats.last_error, now_secs))
    return body


def bolt_agg_stats_json(conf, topology_id, component_id, stats, now_secs):
    """``getTopologyBoltAggStatsMap``."""
    bolt = stats.specific_stats.bolt
    body = common_agg_stats_json(stats.common_stats)
    body.update({"boltId": component_id, "encodedBoltId": url_encode(component_id),
                 "capacity": float_str(bolt.capacity or 0.0),
                 "executeLatency": float_str(bolt.execute_latency_ms or 0.0),
                 "executed": bolt.executed or 0,
                 "processLatency": float_str(bolt.process_latency_ms or 0.0)})
    body.update(last_error_json(conf, topology_id, stats.last_error, now_secs))
    return body


def topology_page(conf, info, topology_conf, window, user, now_secs):
    """``getTopologySummary`` over ``unpackTopologyInfo``: a ``TopologyPageInfo`` for
    ``window``; ``topology_conf`` is its parsed ``topology_conf``."""
    topology_id = info.id
    spouts = info.id_to_spout_agg_stats or {}
    bolts = info.id_to_bolt_agg_stats or {}
    debug = info.debug_options
    debugging = debug is not None and bool(debug.enable)
    on, off = info.requested_memonheap or 0.0, info.requested_memoffheap or 0.0
    assigned_on, assigned_off = info.assigned_memonheap or 0.0, info.assigned_memoffheap or 0.0
    return {
        "id": topology_id,
        "encodedId": url_encode(topology_id),
        "owner": info.owner,
        "name": info.name,
        "status": info.status,
        "uptime": pretty_uptime_sec(info.uptime_secs or 0),
        "uptimeSeconds": info.uptime_secs or 0,
        "tasksTotal": info.num_tasks or 0,
        "workersTotal": info.num_workers or 0,
        "executorsTotal": info.num_executors or 0,
        "schedulerInfo": info.sched_status,
        "requestedMemOnHeap": on,
        "requestedMemOffHeap": off,
        "requestedCpu": info.requested_cpu or 0.0,
        "requestedTotalMem": on + off,
        "assignedMemOnHeap": assigned_on,
        "assignedMemOffHeap": assigned_off,
        "assignedTotalMem": assigned_on + assigned_off,
        "assignedCpu": info.assigned_cpu or 0.0,
        "requestedRegularOnHeapMem": info.requested_regular_on_heap_memory or 0.0,
        "requestedSharedOnHeapMem": info.requested_shared_on_heap_memory or 0.0,
        "requestedRegularOffHeapMem": info.requested_regular_off_heap_memory or 0.0,
        "requestedSharedOffHeapMem": info.requested_shared_off_heap_memory or 0.0,
        "requestedGenericResources": prettify_generic_resources(
            info.requested_generic_resources),
        "assignedRegularOnHeapMem": info.assigned_regular_on_heap_memory or 0.0,
        "assignedSharedOnHeapMem": info.assigned_shared_on_heap_memory or 0.0,
        "assignedRegularOffHeapMem": info.assigned_regular_off_heap_memory or 0.0,
        "assignedSharedOffHeapMem": info.assigned_shared_off_heap_memory or 0.0,
        "assignedGenericResources": prettify_generic_resources(
            info.assigned_generic_resources),
        "topologyStats": topology_stats(info.topology_stats),
        "workers": [worker_json(conf, w) for w in info.workers or []],
        "spouts": [spout_agg_stats_json(conf, topology_id, c, spouts[c], now_secs)
                   for c in thrift_map_order(spouts)],
        "bolts": [bolt_agg_stats_json(conf, topology_id, c, bolts[c], now_secs)
                  for c in thrift_map_order(bolts)],
        "debug": debugging,
        # the rate shows only while debugging is on
        "samplingPct": (debug.samplingpct or 0.0) if debugging else 10.0,
        "replicationCount": info.replication_count or 0,
        "topologyVersion": info.topology_version,
        "stormVersion": info.storm_version,
        "user": user,
        "window": window,
        "windowHint": window_hint(window),
        "msgTimeout": topology_conf.get("topology.message.timeout.secs"),
        "configuration": topology_conf,
        "visualizationTable": [],
        "schedulerDisplayResource": conf.get(SCHEDULER_DISPLAY_RESOURCE),
        "bugtracker-url": conf.get(BUGTRACKER_URL),
        "central-log-url": conf.get(CENTRAL_LOG_URL),
    }


# -- the component page


def common_window_stat(window, common):
    return {"window": window, "windowPretty": window_hint(window),
            "emitted": common.emitted or 0, "transferred": common.transferred or 0,
            "acked": common.acked or 0, "failed": common.failed or 0}


def spout_window_stat(window, stats):
    """``getSpoutAggStatsMap``: its latency as the double itself, not ``floatStr``."""
    body = common_window_stat(window, stats.common_stats)
    body["completeLatency"] = stats.specific_stats.spout.complete_latency_ms or 0.0
    body["lastError"] = ("" if stats.last_error is None
                         else (stats.last_error.error or "")[:ERROR_SUBSET_CHARS])
    return body


def bolt_window_stat(window, stats):
    """``getBoltAggStatsMap``."""
    bolt = stats.specific_stats.bolt
    body = common_window_stat(window, stats.common_stats)
    body.update({"executeLatency": float_str(bolt.execute_latency_ms or 0.0),
                 "executed": bolt.executed or 0,
                 "processLatency": float_str(bolt.process_latency_ms or 0.0),
                 "capacity": float_str(bolt.capacity or 0.0)})
    return body


def component_errors(conf, errors, topology_id, now_secs):
    """``getComponentErrors``: oldest first (a stable sort by time)."""
    ordered = sorted(errors or [], key=lambda e: e.error_time_secs or 0)
    return [error_json(conf, topology_id, e, now_secs, False) for e in ordered]


def active_action(conf, request, topology_id, now_ms):
    """``getActiveAction``: a pending profiling request of the component's workers."""
    port = sorted(request.nodeInfo.port or [0])[0]
    return {"host": request.nodeInfo.node, "port": str(port),
            "dumplink": worker_dump_link(conf, request.nodeInfo.node, port, topology_id),
            "timestamp": now_ms - (request.time_stamp or 0)}


def component_page(conf, info, topology_id, component_id, window, user, now_secs,
                   profile_requests=(), now_ms=None):
    """``getComponentPage``: a ``ComponentPageInfo`` for ``window``; ``profile_requests``:
    ``getComponentPendingProfileActions``' answer, their ``timestamp`` counted from
    ``now_ms`` (``now_secs`` by default)."""
    windows = info.window_to_stats or {}
    outputs = info.sid_to_output_stats or {}
    body = {"outputStats": [output_stat(s, outputs[s], float_str)
                            for s in thrift_map_order(outputs)],
            "executorStats": [executor_stat(conf, topology_id, e, float_str, worker_log_link)
                              for e in info.exec_stats or []],
            "componentErrors": component_errors(conf, info.errors, topology_id, now_secs)}
    if info.component_type == ComponentType.BOLT:
        inputs = info.gsid_to_input_stats or {}
        order = java_hash_map_order(list(inputs), global_stream_id_hash, 2 * len(inputs))
        body.update({"boltStats": [bolt_window_stat(w, windows[w])
                                   for w in thrift_map_order(windows)],
                     "inputStats": [bolt_input_stat(g, inputs[g], float_str) for g in order]})
    else:
        body["spoutSummary"] = [spout_window_stat(w, windows[w])
                                for w in thrift_map_order(windows)]
    resources = info.resources_map or {}
    debug = info.debug_options
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
        "requestedGenericResources": prettify_generic_resources(resources),
        "schedulerDisplayResource": conf.get(SCHEDULER_DISPLAY_RESOURCE),
        "topologyId": topology_id,
        "topologyStatus": info.topology_status,
        "encodedTopologyId": url_encode(topology_id),
        "window": window,
        "componentType": ComponentType._VALUES_TO_NAMES[info.component_type].lower(),
        "windowHint": window_hint(window),
        "debug": debug is not None and bool(debug.enable),
        "samplingPct": (debug.samplingpct or 0.0) if debug is not None else 10.0,
        "profilingAndDebuggingCapable": True,
        "profileActionEnabled": conf.get(WORKER_PROFILER_ENABLED),
        "profilerActive": [active_action(
            conf, r, topology_id, now_secs * 1000 if now_ms is None else now_ms)
            for r in profile_requests],
    })
    if info.eventlog_host:  # no event logger: no link
        body["eventLogLink"] = logviewer_link(
            conf, info.eventlog_host,
            "%s/%s/events.log" % (topology_id, info.eventlog_port or 0))
    return body


# -- the other topology pages and the actions


def topology_workers(conf, executors):
    """``getTopologyWorkers``: the executors' distinct ``{"host", "port"}`` in the order of
    the ``HashSet`` 2.8.8 puts them through."""
    slots = [(e.host, e.port or 0) for e in executors or []]
    order = java_hash_map_order(slots, host_port_map_hash)
    body = {"hostPortList": [{"host": host, "port": port} for host, port in order]}
    body.update(logviewer_info(conf))
    return body


HOST_KEY_HASH, PORT_KEY_HASH = string_hash("host"), string_hash("port")


def host_port_map_hash(slot):
    """``hashCode`` of the ``HashMap`` ``{"host": host, "port": port}``: the sum of its
    entries' key hash xor value hash (an Integer's hash is itself)."""
    host, port = slot
    host_hash = string_hash(host) if host is not None else 0
    return (HOST_KEY_HASH ^ host_hash) + (PORT_KEY_HASH ^ port)


def log_config(config):
    """``getTopolgoyLogConfig``: each named logger's levels as Nimbus keeps them."""
    return {"namedLoggerLevels": {
        name: {"target_level": level.target_log_level, "reset_level": level.reset_log_level,
               "timeout": level.reset_log_level_timeout_secs or 0,
               "timeout_epoch": level.reset_log_level_timeout_epoch or 0}
        for name, level in (config.named_logger_level or {}).items()}}


def new_log_configs(named_logger_levels):
    """``putTopologyLogLevel``'s ``LogConfig`` per logger, each set on its own: a
    ``target_level`` updates to log4j2's name of it for ``timeout`` seconds, none removes it.

    :raises ValueError: a logger without a whole-number ``timeout`` (2.8.8 requires one)."""
    configs = []
    for name, asked in (named_logger_levels or {}).items():
        asked = asked if isinstance(asked, dict) else {}
        timeout = asked.get("timeout")
        if isinstance(timeout, bool) or not isinstance(timeout, (int, float)):
            raise ValueError("namedLoggerLevels.%s needs a number \"timeout\" (seconds, 0 for "
                             "no reset), not %r" % (name, timeout))
        configs.append(LogConfig(named_logger_level={
            str(name): requested_log_level(asked.get("target_level"), timeout)}))
    return configs


def lag_monitoring_disabled(conf):
    """``getTopologyLag``'s switch: ``ui.disable.spout.lag.monitoring`` answers ``{}``."""
    return bool(conf.get(DISABLE_SPOUT_LAG))


def component_debug_response(topology_id, action):
    """``putTopologyDebugActionSpct`` of a component: the topology's response, without the
    component."""
    return topology_op_response(topology_id, "debug/" + action)
