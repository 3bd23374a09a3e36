# -*- test-case-name: tests.test_ui_visualization -*-
"""The Storm UI's topology graph data, metrics page and spout lag (pure).

Ports of 1.2.4 ``ui/core.clj``: ``sanitize-stream-name``, ``sanitize-transferred``,
``visualization-data`` (behind ``mk-visualization-data``, the ``/visualization`` answer),
``stream-boxes`` (``build-visualization``, ``/visualization-init``),
``merge-executor-stats`` and its helpers (``topology-metrics-page``, ``/metrics``), and
``TopologySpoutLag.lag`` (``/lag``); and of 2.8.8 ``UIHelpers``' graph (``sanitizeStreamName``,
``getVisualizationData``, ``getBuildVisualization``), the ``_2x`` functions.  Each takes the
Thrift values the UI fetched (the system topology from ``getTopology``, ``TopologyInfo`` from
``getTopologyInfoWithOpts``) and gives the JSON value Storm's UI writes: its maps keyed by
Clojure keywords print their keys with the colon (``":type"``), as json-simple writes them.
"""

import json
import re

from pynimbus.clojure_port.executor_stats import (
    bolt_streams_stats, compute_bolt_capacity, spout_streams_stats)
from pynimbus.clojure_port.java_hash_map import int32, java_hash_map_order, thrift_map_order
from pynimbus.clojure_port.java_json import java_double_to_string
from pynimbus.clojure_port.java_order import (
    ARRAY_MAP_MAX_PERSISTENT, clojure_hasheq, clojure_hasheq_string, clojure_map_order,
    clojure_set_order)
from pynimbus.clojure_port.stats import (
    BOLT, SPOUT, component_type, is_system_id, mk_include_sys_filter)
from pynimbus.clojure_port.ui_summaries import (
    ALL_TIME, float_str, url_format, window_hint)
from pynimbus.clojure_port.system_topology import global_stream_id_hash

# a character Storm's graph cannot use in a DOM id
_UNSAFE_STREAM_CHAR = re.compile(r"[^A-Za-z_\-:.]")
_GROUPING_NAMES = (("fields", "fields"), ("shuffle", "shuffle"), ("all", "all"),
                   ("none", "none"), ("custom_serialized", "custom-serialized"),
                   ("custom_object", "custom-object"), ("direct", "direct"),
                   ("local_or_shuffle", "local-or-shuffle"))


def sanitize_stream_name(name):
    """``sanitize-stream-name``: a DOM-safe name (``s`` before one that does not start with a
    letter, ``_`` for each unsafe character) followed by the name's Clojure ``hash``."""
    safe = name if re.match(r"[A-Za-z]", name) else "s" + name
    return _UNSAFE_STREAM_CHAR.sub("_", safe) + str(int32(clojure_hasheq_string(name)))


def sanitize_transferred(transferred, sanitize=sanitize_stream_name):
    """``sanitize-transferred``: an executor's ``{window: {stream: n}}`` with sanitized
    stream names."""
    return {window: {sanitize(s): n for s, n in (streams or {}).items()}
            for window, streams in (transferred or {}).items()}


def grouping_type(grouping):
    """``thrift/grouping-type``'s name: the set field of a ``Grouping`` union."""
    for field, name in _GROUPING_NAMES:
        if getattr(grouping, field) is not None:
            return name
    return None


def component_ids(topology):
    """``(merge (hashmap-to-persistent spouts) (hashmap-to-persistent bolts))``'s keys in
    the order Storm's UI iterates them."""
    spouts, bolts = topology.spouts or {}, topology.bolts or {}
    in_order = []
    for specs in (spouts, bolts):
        in_order = clojure_map_order(in_order + clojure_map_order(
            thrift_map_order(specs), array_map_max=ARRAY_MAP_MAX_PERSISTENT),
            array_map_max=ARRAY_MAP_MAX_PERSISTENT)
    return clojure_map_order(in_order)


def group_by_component(summaries):
    """``group-by-comp``: ``{component id: [executor summary]}`` sorted by id."""
    grouped = {}
    for summary in summaries:
        grouped.setdefault(summary.component_id, []).append(summary)
    return dict(sorted(grouped.items()))


def split_by_type(topology, executors, include_sys):
    """The spout and bolt executors by component, system bolts kept only with ``sys``."""
    spouts, bolts = [], []
    for summary in executors or ():
        kind = component_type(topology, summary.component_id)
        if kind == SPOUT:
            spouts.append(summary)
        elif kind == BOLT:
            bolts.append(summary)
    return (group_by_component(spouts),
            mk_include_sys_filter(include_sys)(group_by_component(bolts)))


def component_inputs(spec, sanitize=sanitize_stream_name, grouping_name=grouping_type):
    """A component's inputs in the order of its decoded Java ``HashMap`` (2.8.8's
    ``getInputMap`` with its sanitizer and grouping names)."""
    inputs = spec.common.inputs or {}
    order = java_hash_map_order(list(inputs), global_stream_id_hash, 2 * len(inputs))
    return [{":component": g.componentId, ":stream": g.streamId,
             ":sani-stream": sanitize(g.streamId),
             ":grouping": grouping_name(inputs[g])} for g in order]


def executor_graph_stats(summary, sanitize=sanitize_stream_name):
    """An executor in the graph (2.8.8 ``getStatMapFromExecutorSummary``)."""
    stats = summary.stats
    return {":host": summary.host, ":port": summary.port, ":uptime_secs": summary.uptime_secs,
            ":transferred": (sanitize_transferred(stats.transferred, sanitize)
                             if stats is not None else None)}


def graph_node(kind, capacity, latency, transferred, summaries, spec, component_id, storm_id,
               sanitize=sanitize_stream_name, grouping_name=grouping_type):
    """One component of the graph, its keys in Storm's order."""
    return {":type": kind, ":capacity": capacity, ":latency": latency,
            ":transferred": transferred,
            ":stats": [executor_graph_stats(s, sanitize) for s in summaries],
            ":link": url_format("/component.html?id=%s&topology_id=%s", component_id,
                                storm_id),
            ":inputs": component_inputs(spec, sanitize, grouping_name)}


def visualization_data(topology, executors, window, include_sys, storm_id):
    """``visualization-data`` over ``mk-visualization-data``'s grouping: ``{component id:
    {":type", ":capacity", ":latency", ":transferred", ":stats", ":link", ":inputs"}}``.
    A system bolt left out by ``sys`` shows as Storm shows it: a "spout" with no stats."""
    window = window or ALL_TIME
    spout_summaries, bolt_summaries = split_by_type(topology, executors, include_sys)
    specs = dict(topology.spouts or {})
    specs.update(topology.bolts or {})
    data = {}
    for component_id in component_ids(topology):
        bolts = bolt_summaries.get(component_id)
        spouts = spout_summaries.get(component_id)
        spout_streams = spout_streams_stats(spouts, True)
        bolt_streams = bolt_streams_stats(bolts, True)
        if bolts:
            latency = bolt_streams["process-latencies"].get(window)
        else:
            latency = spout_streams["complete-latencies"].get(window)
        transferred = spout_streams["transferred"].get(window)
        if transferred is None:  # Clojure's ``or``: nil falls through, 0 does not
            transferred = bolt_streams["transferred"].get(window)
        data[component_id] = graph_node(
            "bolt" if bolts else "spout", compute_bolt_capacity(bolts) if bolts else 0,
            latency, transferred, bolts or spouts or (), specs[component_id], component_id,
            storm_id)
    return data


def stream_boxes(data):
    """``stream-boxes``: the distinct input streams of the graph, four to a row, each
    checked unless it is a system stream (``/visualization-init``'s table)."""
    streams = []
    for component in data.values():
        for put in component[":inputs"]:
            box = {":stream": put[":stream"], ":sani-stream": put[":sani-stream"],
                   ":checked": not is_system_id(put[":stream"])}
            if box not in streams:
                streams.append(box)
    return [{":row": streams[i:i + 4]} for i in range(0, len(streams), 4)]


def build_visualization(topology, executors, window, include_sys, storm_id):
    """``build-visualization``: ``{"visualizationTable": [rows]}``."""
    return {"visualizationTable": stream_boxes(
        visualization_data(topology, executors, window, include_sys, storm_id))}


# -- the graph as 2.8.8's UIHelpers draws it

# 2.8.8's ``sanitizeStreamName``: every character but these (and a line end, which Java's
# ``.`` does not match) becomes "_"
_UNSAFE_STREAM_CHAR_2X = re.compile("(?![A-Za-z_\\-.])[^\n\r\u0085\u2028\u2029]")


def sanitize_stream_name_2x(name):
    """2.8.8 ``UIHelpers.sanitizeStreamName``: unsafe characters (digits and ``:`` among
    them) as ``_``, and ``_s`` before a name that does not start with a letter; no hash."""
    safe = _UNSAFE_STREAM_CHAR_2X.sub("_", name)
    return safe if name[:1].isalpha() else "_s" + safe


def grouping_field_name(grouping):
    """``Grouping.getSetField().getFieldName()``: the set field's Thrift name."""
    for spec in grouping.thrift_spec:
        if spec is not None and getattr(grouping, spec[2]) is not None:
            return spec[2]
    return None


# 2.8.8's stream sanitizer and grouping names in the graph
GRAPH_NAMES_2X = {"sanitize": sanitize_stream_name_2x, "grouping_name": grouping_field_name}


def visualization_data_2x(topology, executors, window, include_sys, storm_id):
    """2.8.8 ``UIHelpers.getVisualizationData``: ``{component id: {":type", ":capacity",
    ":latency", ":transferred", ":stats", ":link", ":inputs"}}`` of the components that have
    executors; system bolts only with ``sys``."""
    window = window or ALL_TIME
    spout_summaries, bolt_summaries = split_by_type(topology, executors, include_sys)
    data = {}
    for component_id, spec in (topology.spouts or {}).items():
        summaries = spout_summaries.get(component_id)
        if summaries:
            streams = spout_streams_stats(summaries, include_sys)
            data[component_id] = graph_node(
                "spout", 0, streams["complete-latencies"].get(window),
                streams["transferred"].get(window), summaries, spec, component_id, storm_id,
                **GRAPH_NAMES_2X)
    for component_id, spec in (topology.bolts or {}).items():
        summaries = bolt_summaries.get(component_id)
        if summaries:  # system bolts are left out without sys (split_by_type)
            streams = bolt_streams_stats(summaries, include_sys)
            data[component_id] = graph_node(
                "bolt", float(compute_bolt_capacity(summaries)),
                streams["process-latencies"].get(window), streams["transferred"].get(window),
                summaries, spec, component_id, storm_id, **GRAPH_NAMES_2X)
    return data


def build_visualization_2x(topology, executors, window, include_sys, storm_id):
    """``/visualization-init`` in 2.x: 2.8.8's ``getBuildVisualization`` fails with a
    ``ClassCastException`` (``getStreamBox`` casts a map entry to a map), so pynimbus answers
    what it meant: the distinct input streams of :func:`visualization_data_2x` as
    ``{"stream", "sani-stream", "checked"}`` (checked unless a system stream), four to a row
    (``Lists.partition``)."""
    boxes = []
    data = visualization_data_2x(topology, executors, window, include_sys, storm_id)
    for component in data.values():
        for put in component[":inputs"]:
            box = {"stream": put[":stream"], "sani-stream": put[":sani-stream"],
                   "checked": not is_system_id(put[":stream"])}
            if box not in boxes:
                boxes.append(box)
    return {"visualizationTable": [boxes[i:i + 4] for i in range(0, len(boxes), 4)]}


# -- the metrics page


def _java_str(key):
    """Clojure's ``str`` of a stats key."""
    if isinstance(key, float):
        return java_double_to_string(key)
    return str(key)


def _stream_fields(key):
    """``reduce-conj-specific-stats-by-field``'s key: a stream id, or a bolt input's
    component and stream."""
    if isinstance(key, str):
        return {"stream_id": key}
    if hasattr(key, "componentId"):
        return {"component_id": key.componentId, "stream_id": key.streamId}
    return {"stream_id": _java_str(key)}


def float_str_of_average(values):
    """``#(float-str (average %))``: the mean as Java's ``%.3f`` of a float."""
    return float_str(sum(values) / len(values))


def merge_stats_by_stream(window, maps, aggregate):
    """``merge-stats-specific-field-by-stream``: each stream's values across the executors'
    ``{window: {stream: value}}`` maps, aggregated, as ``[{"stream_id"[, "component_id"],
    "value"}]``."""
    by_stream = {}
    for m in maps:
        for stream, value in ((m or {}).get(window) or {}).items():
            by_stream.setdefault(stream, []).insert(0, value)  # ``conj`` onto a list
    # the streams as the set of keys orders them, each row ``conj``-ed first
    order = clojure_set_order(list(by_stream), stats_key_hasheq)
    return [dict(_stream_fields(s), value=aggregate(by_stream[s])) for s in reversed(order)]


def stats_key_hasheq(key):
    """Clojure ``hasheq`` of a stats key: a stream id, or a ``GlobalStreamId`` (its Java
    ``hashCode``)."""
    if hasattr(key, "componentId"):
        return global_stream_id_hash(key) & 0xFFFFFFFF
    return clojure_hasheq(key)


def merge_executor_stats(window, component_id, summaries):
    """``merge-executor-stats``: a component's per-stream figures for ``window``."""
    stats = [s.stats for s in summaries]
    body = {"id": component_id,
            "emitted": merge_stats_by_stream(window, [s.emitted for s in stats], sum),
            "transferred": merge_stats_by_stream(window, [s.transferred for s in stats], sum)}
    specific = [s.specific for s in stats]
    if specific and specific[0].spout is not None:
        spouts = [s.spout for s in specific]
        body.update({
            "acked": merge_stats_by_stream(window, [s.acked for s in spouts], sum),
            "failed": merge_stats_by_stream(window, [s.failed for s in spouts], sum),
            "complete_ms_avg": merge_stats_by_stream(
                window, [s.complete_ms_avg for s in spouts], float_str_of_average)})
    else:
        bolts = [s.bolt for s in specific]
        body.update({
            "acked": merge_stats_by_stream(window, [b.acked for b in bolts], sum),
            "failed": merge_stats_by_stream(window, [b.failed for b in bolts], sum),
            "process_ms_avg": merge_stats_by_stream(
                window, [b.process_ms_avg for b in bolts], float_str_of_average),
            "executed": merge_stats_by_stream(window, [b.executed for b in bolts], sum),
            "executed_ms_avg": merge_stats_by_stream(
                window, [b.execute_ms_avg for b in bolts], float_str_of_average)})
    return body


def topology_metrics_page(topology, executors, window, include_sys):
    """``topology-metrics-page``: ``{"window", "window-hint", "spouts", "bolts"}``.

    Executors without stats are left out (Storm's page fails on them with a 500)."""
    window = window or ALL_TIME
    with_stats = [e for e in executors or () if e.stats is not None]
    spouts, bolts = split_by_type(topology, with_stats, include_sys)
    return {"window": window, "window-hint": window_hint(window),
            "spouts": [merge_executor_stats(window, c, s) for c, s in spouts.items()],
            # ``filter-key`` rebuilt the sorted map with ``into {}``
            "bolts": [merge_executor_stats(window, c, bolts[c])
                      for c in clojure_map_order(list(bolts))]}


# -- spout lag

KAFKA_LAG_UNSUPPORTED = (
    "pynimbus does not run storm-kafka-monitor (a JVM tool), so it cannot read this Kafka "
    "spout's offset lag; Storm's UI reads it with that tool.")


def kafka_spout_kind(json_conf):
    """``addLagResultForKafkaSpout``'s test: "new" or "old" for a Kafka spout's component
    JSON conf, None for another spout."""
    try:
        conf = json.loads(json_conf) if json_conf else None
    except ValueError:
        return None
    if not isinstance(conf, dict) or "config.topics" not in conf:
        return None
    if "config.groupid" in conf and "config.bootstrap.servers" in conf:
        return "new"
    return "old" if "config.zkRoot" in conf else None


def topology_lag(topology, kinds=("new", "old")):
    """``TopologySpoutLag.lag``: ``{spout id: lag info}`` for the Kafka spouts of ``kinds``
    (2.8.8 knows only the "new" one), each with Storm's ``errorInfo`` saying why there is no
    figure (other spouts have no lag)."""
    lag = {}
    for spout_id in thrift_map_order(topology.spouts or {}):
        common = topology.spouts[spout_id].common
        if kafka_spout_kind(common.json_conf if common is not None else None) in kinds:
            lag[spout_id] = {"spoutId": spout_id, "spoutType": "KAFKA",
                             "errorInfo": KAFKA_LAG_UNSUPPORTED}
    return lag
