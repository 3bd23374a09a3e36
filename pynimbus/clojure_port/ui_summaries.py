"""The Storm UI's cluster-wide REST answers, from what Nimbus answers over Thrift (pure).

Ports of 1.2.4 ``ui/core.clj`` (``cluster-summary``, ``nimbus-summary`` with
``convert-to-nimbus-summary``, ``supervisor-summary`` with ``supervisor-summary-to-json``,
``all-topologies-summary``, ``topology-history-info``, the log links) and of ``ui/helpers.clj``
(``pretty-uptime-sec``, ``url-format``) and ring's ``url-encode``: each function takes the
Thrift values (``ClusterSummary``, ``NimbusSummary``, ...) and the UI's conf, and gives the
JSON object Storm's UI writes, with its field names and values.  A Thrift field left unset
reads as Java's getter reads it (0 for a number).
"""

import decimal
import re

SUPERVISOR_MEMORY_CAPACITY_MB = "supervisor.memory.capacity.mb"
SUPERVISOR_CPU_CAPACITY = "supervisor.cpu.capacity"
SCHEDULER_DISPLAY_RESOURCE = "scheduler.display.resource"
LOGVIEWER_PORT = "logviewer.port"

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
    """``(format "%.1f" ...)`` of the share used (Java's formatter rounds the double's exact
    value half up), or the number 0.0 without a total."""
    if total > 0.0:
        exact = decimal.Decimal((total - available) / total * 100.0)
        return str(exact.quantize(decimal.Decimal("0.1"), rounding=decimal.ROUND_HALF_UP))
    return 0.0


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
