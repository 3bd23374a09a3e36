# -*- test-case-name: tests.test_topology_status -*-
"""What ``pynimbus status NAME`` and ``pynimbus list`` print: a topology's components and errors
as text, from the answers the Storm UI reads (``getTopologyPageInfo``, ``getTopologyInfo``).

Pure: Thrift structs and the time in, lines out.  The figures are those of the UI's topology
page for the window asked (Storm's ``:all-time`` by default), system components and streams
left out unless asked for, as the UI's ``sys`` parameter does.
"""

import time

from pynimbus.common.text import one_line

ALL_TIME = ":all-time"
# The windows Storm's stats keep (seconds, as strings), with the UI's names.
WINDOWS = {"600": "10m 0s", "10800": "3h 0m 0s", "86400": "1d 0h 0m 0s", ALL_TIME: "All time"}

COMPONENT_FORMAT = "%-20s %-6s %9s %11s %11s %11s %9s %11s  %s"


def pretty_uptime(secs):
    """Storm UI's ``pretty-uptime-sec``: ``1d 2h 3m 4s``, leading zero units left out."""
    secs = max(0, int(secs or 0))
    days, rest = divmod(secs, 86400)
    hours, rest = divmod(rest, 3600)
    minutes, seconds = divmod(rest, 60)
    parts = [(days, "d"), (hours, "h"), (minutes, "m")]
    while parts and parts[0][0] == 0:
        parts.pop(0)
    return " ".join("%d%s" % p for p in parts + [(seconds, "s")])


def counted(n, noun):
    """``1 worker``, ``2 workers``."""
    n = n or 0
    return "%d %s%s" % (n, noun, "" if n == 1 else "s")


def error_age(error, now):
    """How long ago ``error`` (an ``ErrorInfo``) was reported, as ``12s ago``."""
    return "%s ago" % pretty_uptime(now - (error.error_time_secs or now))


def latency(stats):
    """A component's latency in ms, as the UI shows it: a spout's complete latency, a bolt's
    process latency; ``""`` when none is known."""
    specific = stats.specific_stats
    if specific is None:
        return ""
    if specific.spout is not None:
        value = specific.spout.complete_latency_ms
    elif specific.bolt is not None:
        value = specific.bolt.process_latency_ms
    else:
        value = None
    return "" if value is None else "%.3f" % value


def component_rows(page, components=None):
    """``(component, type, stats)`` of a ``TopologyPageInfo``'s spouts then bolts, by name;
    those of ``components`` (``{id: "spout" or "bolt"}``) the page leaves out (no executor of
    theirs beats yet) with ``None`` stats, after the others of their type."""
    rows = []
    for kind, by_id in (("spout", page.id_to_spout_agg_stats),
                        ("bolt", page.id_to_bolt_agg_stats)):
        by_id = by_id or {}
        for component_id in sorted(by_id):
            rows.append((component_id, kind, by_id[component_id]))
        for component_id in sorted(c for c, k in (components or {}).items()
                                   if k == kind and c not in by_id):
            rows.append((component_id, kind, None))
    return rows


def all_errors(info):
    """``[(component, ErrorInfo)]`` of a ``TopologyInfo``, newest first."""
    found = [(component, error) for component, errors in (info.errors or {}).items()
             for error in errors or ()]
    return sorted(found, key=lambda pair: (-(pair[1].error_time_secs or 0), pair[0]))


def status_lines(page, info, now=None, window=ALL_TIME, errors_shown=5, width=120,
                 components=None):
    """The lines of ``pynimbus status``: the topology's summary, one row per component (its
    executors, emitted, transferred, acked and failed tuples, latency and the age of its last
    error; ``-`` for a component none of whose executors beats yet), then its newest errors,
    each with where it happened.

    :param page: the ``TopologyPageInfo`` of the window.
    :param info: the same topology's ``TopologyInfo`` (executors' heartbeats, errors).
    :param components: ``{id: "spout" or "bolt"}`` of the user's topology, so that those not
        on the page yet are shown too.
    """
    now = time.time() if now is None else now
    executors = info.executors or []
    beating = sum(1 for e in executors if e.stats is not None)
    lines = ["Topology %s (%s): %s, up %s, %s, %s (%d with a heartbeat), %s" % (
                 page.name, page.id, page.status, pretty_uptime(page.uptime_secs),
                 counted(page.num_workers, "worker"), counted(len(executors), "executor"),
                 beating, counted(page.num_tasks, "task")),
             "Window: %s" % WINDOWS.get(window, window), ""]
    lines.append(COMPONENT_FORMAT % ("Component", "Type", "Executors", "Emitted", "Transferred",
                                     "Acked", "Failed", "Latency_ms", "Last_error"))
    newest = {}
    for component_id, error in reversed(all_errors(info)):
        newest[component_id] = error
    for component_id, kind, stats in component_rows(page, components):
        if stats is None:
            assigned = sum(1 for e in executors if e.component_id == component_id)
            last = newest.get(component_id)
            lines.append(COMPONENT_FORMAT % (
                component_id, kind, assigned, "-", "-", "-", "-", "-",
                "" if last is None else error_age(last, now)))
            continue
        common = stats.common_stats
        last = "" if stats.last_error is None else error_age(stats.last_error, now)
        lines.append(COMPONENT_FORMAT % (
            component_id, kind, common.num_executors or 0, common.emitted or 0,
            common.transferred or 0, common.acked or 0, common.failed or 0, latency(stats),
            last))
    errors = all_errors(info)
    if errors:
        lines += ["", "Errors (%d, newest first):" % len(errors)]
        for component_id, error in errors[:errors_shown]:
            where = "%s:%s" % (error.host, error.port) if error.host else "?"
            lines.append("  %s %s on %s: %s" % (
                component_id, error_age(error, now), where, one_line(error.error, width)))
        if len(errors) > errors_shown:
            lines.append("  ... %d more (pynimbus status --errors %d)"
                         % (len(errors) - errors_shown, len(errors)))
    return lines


def error_summary(info, now=None, width=100):
    """One line of a ``TopologyInfo``'s newest error for ``pynimbus list``, or None."""
    errors = all_errors(info)
    if not errors:
        return None
    now = time.time() if now is None else now
    component_id, error = errors[0]
    return "%s %s: %s" % (component_id, error_age(error, now), one_line(error.error, width))
