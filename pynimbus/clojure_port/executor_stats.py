# -*- test-case-name: tests.test_ui_visualization -*-
"""Storm 1.2.4's aggregation of executor summaries' stats, as its UI's visualization and
metrics pages use it (pure).

Ports of ``stats.clj``'s older, per-``ExecutorSummary`` functions (the topology and component
pages use Nimbus's aggregated page info instead: :mod:`pynimbus.clojure_port.stats`):
``expand-averages``, ``aggregate-averages``, ``aggregate-avg-streams``, ``pre-process``,
``aggregate-counts``, ``aggregate-bolt-stats``, ``aggregate-spout-stats``,
``aggregate-bolt-streams``, ``aggregate-spout-streams``, ``bolt-streams-stats``,
``spout-streams-stats``, ``compute-executor-capacity`` and ``compute-bolt-capacity``.

Stats are ``{window: {stream: value}}`` maps (a bolt's acks and latencies keyed by
``GlobalStreamId``).  Numbers keep Clojure's kinds: a count is an int (a Long), an average a
float (a Double) or the int 0 where Storm's ``val-avg`` gives the Long 0, because the JSON
writes ``0`` and ``0.0`` differently.
"""

from pynimbus.clojure_port.stats import aggregate_count_streams, mk_include_sys_filter

TEN_MIN_IN_SECONDS = 600


def add_pairs(a, b):
    """``add-pairs``: ``[total count]`` pairs added."""
    return (a[0] + b[0], a[1] + b[1])


def val_avg(pair):
    """``val-avg``: total / count as a float, the int 0 for no count."""
    total, count = pair
    return 0 if count == 0 else float(total) / count


def expand_averages(avg, counts):
    """``expand-averages``: ``{window: {stream: [count * average, count]}}``.  A count
    without its average counts nothing (Storm's would throw)."""
    avg = avg or {}
    return {window: {stream: (c * (avg.get(window) or {}).get(stream, 0), c)
                     for stream, c in (streams or {}).items()}
            for window, streams in (counts or {}).items()}


def _merge_with(f, maps):
    """Clojure ``(apply merge-with f maps)``: later maps' values folded into earlier ones."""
    merged = {}
    for m in maps:
        for key, value in (m or {}).items():
            merged[key] = f(merged[key], value) if key in merged else value
    return merged


def _merge_pairs(a, b):
    return _merge_with(add_pairs, (a, b))


def aggregate_averages(average_seq, counts_seq):
    """``aggregate-averages``: executors' per-stream averages weighted by their counts."""
    expanded = _merge_with(_merge_pairs, (expand_averages(a, c)
                                          for a, c in zip(average_seq, counts_seq)))
    return {window: {stream: val_avg(pair) for stream, pair in streams.items()}
            for window, streams in expanded.items()}


def aggregate_avg_streams(avg, counts):
    """``aggregate-avg-streams``: ``{window: average over every stream}``."""
    result = {}
    for window, streams in expand_averages(avg, counts).items():
        total = (0, 0)
        for pair in streams.values():
            total = add_pairs(total, pair)
        result[window] = val_avg(total)
    return result


def aggregate_counts(counts_seq):
    """``aggregate-counts``: ``{window: {stream: n}}`` maps summed."""
    return _merge_with(lambda a, b: _merge_with(lambda x, y: x + y, (a, b)), counts_seq)


def pre_process(stats, include_sys):
    """``pre-process``: the emitted and transferred streams kept by ``include_sys``."""
    keep = mk_include_sys_filter(include_sys)
    for key in ("emitted", "transferred"):
        stats[key] = {window: keep(streams) for window, streams in stats[key].items()}
    return stats


def aggregate_common_stats(stats_seq):
    """``aggregate-common-stats``."""
    return {"emitted": aggregate_counts(s.emitted for s in stats_seq),
            "transferred": aggregate_counts(s.transferred for s in stats_seq)}


def aggregate_bolt_stats(stats_seq, include_sys):
    """``aggregate-bolt-stats``: ``ExecutorStats`` of bolt executors aggregated."""
    bolts = [s.specific.bolt for s in stats_seq]
    stats = pre_process(aggregate_common_stats(stats_seq), include_sys)
    stats.update({
        "acked": aggregate_counts(b.acked for b in bolts),
        "failed": aggregate_counts(b.failed for b in bolts),
        "executed": aggregate_counts(b.executed for b in bolts),
        "process-latencies": aggregate_averages([b.process_ms_avg for b in bolts],
                                                [b.acked for b in bolts]),
        "execute-latencies": aggregate_averages([b.execute_ms_avg for b in bolts],
                                                [b.executed for b in bolts])})
    return stats


def aggregate_spout_stats(stats_seq, include_sys):
    """``aggregate-spout-stats``: ``ExecutorStats`` of spout executors aggregated."""
    spouts = [s.specific.spout for s in stats_seq]
    stats = pre_process(aggregate_common_stats(stats_seq), include_sys)
    stats.update({
        "acked": aggregate_counts(s.acked for s in spouts),
        "failed": aggregate_counts(s.failed for s in spouts),
        "complete-latencies": aggregate_averages([s.complete_ms_avg for s in spouts],
                                                 [s.acked for s in spouts])})
    return stats


def aggregate_spout_streams(stats):
    """``aggregate-spout-streams``."""
    return {"acked": aggregate_count_streams(stats["acked"]),
            "failed": aggregate_count_streams(stats["failed"]),
            "emitted": aggregate_count_streams(stats["emitted"]),
            "transferred": aggregate_count_streams(stats["transferred"]),
            "complete-latencies": aggregate_avg_streams(stats["complete-latencies"],
                                                        stats["acked"])}


def aggregate_bolt_streams(stats):
    """``aggregate-bolt-streams``."""
    return {"acked": aggregate_count_streams(stats["acked"]),
            "failed": aggregate_count_streams(stats["failed"]),
            "emitted": aggregate_count_streams(stats["emitted"]),
            "transferred": aggregate_count_streams(stats["transferred"]),
            "process-latencies": aggregate_avg_streams(stats["process-latencies"],
                                                       stats["acked"]),
            "executed": aggregate_count_streams(stats["executed"]),
            "execute-latencies": aggregate_avg_streams(stats["execute-latencies"],
                                                       stats["executed"])}


def filled_stats(summaries):
    """``get-filled-stats``: the executors' stats, those without none left out."""
    return [s.stats for s in summaries or () if s.stats is not None]


def spout_streams_stats(summaries, include_sys):
    """``spout-streams-stats``."""
    return aggregate_spout_streams(aggregate_spout_stats(filled_stats(summaries), include_sys))


def bolt_streams_stats(summaries, include_sys):
    """``bolt-streams-stats``."""
    return aggregate_bolt_streams(aggregate_bolt_stats(filled_stats(summaries), include_sys))


def compute_executor_capacity(summary):
    """``compute-executor-capacity``: executed x execute latency over the last ten minutes
    (or the uptime, if shorter), None for an executor up for no time."""
    executed, latency = 0, 0
    if summary.stats is not None:
        streams = aggregate_bolt_streams(aggregate_bolt_stats([summary.stats], True))
        window = str(TEN_MIN_IN_SECONDS)
        executed = streams["executed"].get(window) or 0
        latency = streams["execute-latencies"].get(window) or 0
    uptime = summary.uptime_secs or 0
    window_secs = uptime if uptime < TEN_MIN_IN_SECONDS else TEN_MIN_IN_SECONDS
    if window_secs > 0:
        return float(executed * latency) / (1000 * window_secs)
    return None


def clojure_max(values):
    """Clojure's ``(apply max values)``: on a tie the later value (0 and 0.0 differ in JSON)."""
    values = iter(values)
    best = next(values)
    for value in values:
        best = best if best > value else value
    return best


def compute_bolt_capacity(summaries):
    """``compute-bolt-capacity``: the busiest executor's capacity."""
    return clojure_max(c if c is not None else 0
                       for c in map(compute_executor_capacity, summaries))
