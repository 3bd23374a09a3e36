"""``/metrics`` on the UI server: the cluster, its topologies and their components in
Prometheus's text format, so a Prometheus (and a Grafana dashboard on it) reads Storm's figures
without an exporter beside the UI.

Each scrape asks the leader Nimbus, as the UI's pages do: ``getClusterInfo``, then
``getTopologyPageInfo`` (all-time, without system components) per topology, in threads.  The
figures are what Storm's UI shows: counts are Storm's all-time counts (counters: a worker that
restarts starts its counts again, which ``rate()`` takes as a reset), latencies and capacity are
gauges.  A Nimbus that cannot be reached gives ``storm_nimbus_reachable 0`` and no cluster
figures, rather than a failed scrape; a topology killed between the two calls is left out.
The UI process's own CPU and memory come from the client library's process collector.
"""

import logging

from prometheus_client import CollectorRegistry, generate_latest
from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily
from prometheus_client.exposition import CONTENT_TYPE_LATEST
from prometheus_client.process_collector import ProcessCollector
from twisted.internet import defer
from twisted.web import resource, server

from pynimbus.generated.storm.ttypes import NotAliveException

log = logging.getLogger(__name__)

ALL_TIME = ":all-time"
TOPOLOGY_LABELS = ["topology", "topology_id"]
COMPONENT_LABELS = TOPOLOGY_LABELS + ["component", "type"]


def gauge(name, doc, labels=()):
    return GaugeMetricFamily(name, doc, labels=list(labels))


def counter(name, doc, labels=()):
    return CounterMetricFamily(name, doc, labels=list(labels))


def cluster_families(summary):
    """The cluster-wide figures of a ``ClusterSummary``."""
    supervisors = summary.supervisors or []
    topologies = summary.topologies or []
    families = [gauge("storm_nimbus_reachable", "1 when the leader Nimbus answered this scrape")]
    families[0].add_metric([], 1)
    totals = (
        ("storm_cluster_supervisors", "Supervisors alive", len(supervisors)),
        ("storm_cluster_topologies", "Topologies submitted", len(topologies)),
        ("storm_cluster_slots_total", "Worker slots of all supervisors",
         sum(s.num_workers or 0 for s in supervisors)),
        ("storm_cluster_slots_used", "Worker slots running a worker",
         sum(s.num_used_workers or 0 for s in supervisors)),
        ("storm_cluster_executors", "Executors of all topologies",
         sum(t.num_executors or 0 for t in topologies)),
        ("storm_cluster_tasks", "Tasks of all topologies",
         sum(t.num_tasks or 0 for t in topologies)))
    for name, doc, value in totals:
        family = gauge(name, doc)
        family.add_metric([], value)
        families.append(family)
    nimbus_up = gauge("storm_nimbus_uptime_seconds", "Uptime of each Nimbus",
                      ["host", "port", "leader"])
    for n in summary.nimbuses or []:
        nimbus_up.add_metric([n.host, str(n.port), "true" if n.isLeader else "false"],
                             n.uptime_secs or 0)
    families.append(nimbus_up)
    slots = gauge("storm_supervisor_slots", "Worker slots of each supervisor",
                  ["supervisor", "host", "state"])
    for s in supervisors:
        used = s.num_used_workers or 0
        slots.add_metric([s.supervisor_id, s.host, "used"], used)
        slots.add_metric([s.supervisor_id, s.host, "free"], (s.num_workers or 0) - used)
    families.append(slots)
    return families


def topology_families(pages):
    """The figures of each topology and of its components, from ``TopologyPageInfo``s."""
    f = {
        "status": gauge("storm_topology_status", "1 for the topology's status",
                        TOPOLOGY_LABELS + ["status"]),
        "uptime": gauge("storm_topology_uptime_seconds", "Since the topology was submitted",
                        TOPOLOGY_LABELS),
        "workers": gauge("storm_topology_workers", "Workers", TOPOLOGY_LABELS),
        "executors": gauge("storm_topology_executors", "Executors", TOPOLOGY_LABELS),
        "tasks": gauge("storm_topology_tasks", "Tasks", TOPOLOGY_LABELS),
        "complete": gauge("storm_topology_complete_latency_ms",
                          "Spouts' complete latency, all time", TOPOLOGY_LABELS),
    }
    topology_counts = {key: counter("storm_topology_%s" % key, "Tuples %s, all time" % key,
                                    TOPOLOGY_LABELS)
                       for key in ("emitted", "transferred", "acked", "failed")}
    component_counts = {key: counter("storm_component_%s" % key,
                                     "Tuples %s by the component, all time" % key,
                                     COMPONENT_LABELS)
                        for key in ("emitted", "transferred", "acked", "failed", "executed")}
    component_gauges = {
        "executors": gauge("storm_component_executors", "Executors", COMPONENT_LABELS),
        "tasks": gauge("storm_component_tasks", "Tasks", COMPONENT_LABELS),
        "capacity": gauge("storm_component_capacity",
                          "A bolt's busiest executor's share of the last 10 minutes spent "
                          "executing", COMPONENT_LABELS),
        "execute": gauge("storm_component_execute_latency_ms", "A bolt's execute latency",
                         COMPONENT_LABELS),
        "process": gauge("storm_component_process_latency_ms", "A bolt's process latency",
                         COMPONENT_LABELS),
        "complete": gauge("storm_component_complete_latency_ms",
                          "A spout's complete latency", COMPONENT_LABELS),
        "error": gauge("storm_component_last_error_timestamp_seconds",
                       "When the component last reported an error", COMPONENT_LABELS),
    }
    for page in pages:
        labels = [page.name, page.id]
        f["status"].add_metric(labels + [page.status or ""], 1)
        for key, value in (("uptime", page.uptime_secs), ("workers", page.num_workers),
                           ("executors", page.num_executors), ("tasks", page.num_tasks)):
            f[key].add_metric(labels, value or 0)
        stats = page.topology_stats
        if stats is not None:
            for key in topology_counts:
                windows = getattr(stats, "window_to_" + key) or {}
                topology_counts[key].add_metric(labels, windows.get(ALL_TIME) or 0)
            latency = (stats.window_to_complete_latencies_ms or {}).get(ALL_TIME)
            f["complete"].add_metric(labels, latency or 0.0)
        for kind, components in (("spout", page.id_to_spout_agg_stats),
                                 ("bolt", page.id_to_bolt_agg_stats)):
            for component_id, agg in sorted((components or {}).items()):
                add_component(labels + [component_id, kind], agg, component_counts,
                              component_gauges)
    return (list(f.values()) + list(topology_counts.values())
            + list(component_counts.values()) + list(component_gauges.values()))


def add_component(labels, agg, counts, gauges):
    common = agg.common_stats
    if common is not None:
        for key in ("emitted", "transferred", "acked", "failed"):
            counts[key].add_metric(labels, getattr(common, key) or 0)
        gauges["executors"].add_metric(labels, common.num_executors or 0)
        gauges["tasks"].add_metric(labels, common.num_tasks or 0)
    specific = agg.specific_stats
    if specific is not None and specific.bolt is not None:
        bolt = specific.bolt
        counts["executed"].add_metric(labels, bolt.executed or 0)
        gauges["capacity"].add_metric(labels, bolt.capacity or 0.0)
        gauges["execute"].add_metric(labels, bolt.execute_latency_ms or 0.0)
        gauges["process"].add_metric(labels, bolt.process_latency_ms or 0.0)
    elif specific is not None and specific.spout is not None:
        gauges["complete"].add_metric(labels, specific.spout.complete_latency_ms or 0.0)
    if agg.last_error is not None and agg.last_error.error_time_secs:
        gauges["error"].add_metric(labels, agg.last_error.error_time_secs)


class OneScrape(object):
    """A collector of families already fetched (the client library's collector protocol)."""

    def __init__(self, families):
        self.families = families

    def collect(self):
        return iter(self.families)


def exposition(families, process_collector=True):
    """The text format of ``families`` (and of this process's CPU and memory)."""
    registry = CollectorRegistry(auto_describe=False)
    registry.register(OneScrape(families))
    if process_collector:
        ProcessCollector(registry=registry)
    return generate_latest(registry)


def unreachable_families():
    family = gauge("storm_nimbus_reachable", "1 when the leader Nimbus answered this scrape")
    family.add_metric([], 0)
    return [family]


class PrometheusResource(resource.Resource):
    """``/metrics``: a scrape, answered once Nimbus has (the reactor serves meanwhile)."""

    isLeaf = True

    def __init__(self, nimbus):
        super().__init__()
        self.nimbus = nimbus

    @defer.inlineCallbacks
    def scrape(self):
        try:
            summary = yield self.nimbus("getClusterInfo")
        except Exception as e:  # any failure to reach Nimbus is a figure, not an error
            log.warning("Prometheus scrape: Nimbus did not answer: %s", e)
            return unreachable_families()
        answers = yield defer.DeferredList(
            [self.nimbus("getTopologyPageInfo", t.id, ALL_TIME, False)
             for t in summary.topologies or []], consumeErrors=True)
        pages = []
        for ok, value in answers:
            if ok:
                pages.append(value)
            elif not value.check(NotAliveException):  # killed since: left out
                log.warning("Prometheus scrape: a topology page failed: %s", value.value)
        return cluster_families(summary) + topology_families(pages)

    def render_GET(self, request):
        finished = []
        request.notifyFinish().addBoth(finished.append)

        def write(families):
            if finished:
                return
            request.setHeader(b"content-type", CONTENT_TYPE_LATEST.encode("ascii"))
            request.write(exposition(families))
            request.finish()

        def failed(failure):
            log.error("Prometheus scrape failed: %s", failure.getTraceback())
            if not finished:
                request.setResponseCode(500)
                request.setHeader(b"content-type", b"text/plain; charset=utf-8")
                request.write(("scrape failed: %s\n" % failure.getErrorMessage()).encode())
                request.finish()

        self.scrape().addCallback(write).addErrback(failed)
        return server.NOT_DONE_YET
