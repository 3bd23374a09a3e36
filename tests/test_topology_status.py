"""What ``pynimbus status`` and ``pynimbus list`` print, from literal Thrift answers (pure:
pynimbus.tools.topology_status, storm_commands.topology_table), and the port messages."""

import socket

from pynimbus.common.ports import port_in_use_message, ports_in_use
from pynimbus.generated.storm.ttypes import (
    BoltAggregateStats, CommonAggregateStats, ComponentAggregateStats, ErrorInfo,
    ExecutorInfo, ExecutorStats, ExecutorSummary, SpecificAggregateStats, SpoutAggregateStats,
    TopologyInfo, TopologyPageInfo, TopologySummary)
from pynimbus.tools.storm_commands import topology_table
from pynimbus.tools.topology_status import error_summary, pretty_uptime, status_lines

NOW = 1_800_000_000


def component(executors, emitted, acked, failed, spout_latency=None, bolt_latency=None,
              last_error=None):
    specific = SpecificAggregateStats(
        spout=SpoutAggregateStats(complete_latency_ms=spout_latency)) \
        if spout_latency is not None else SpecificAggregateStats(
            bolt=BoltAggregateStats(process_latency_ms=bolt_latency, executed=acked))
    return ComponentAggregateStats(
        common_stats=CommonAggregateStats(num_executors=executors, num_tasks=executors,
                                          emitted=emitted, transferred=emitted, acked=acked,
                                          failed=failed),
        specific_stats=specific, last_error=last_error)


def error(text, ago, port=6700):
    return ErrorInfo(error=text, error_time_secs=NOW - ago, host="localhost", port=port)


def word_count_answers():
    crash = error("Worker on localhost:6700 exited with code 1 after 0 s: ValueError: bad\n"
                  "second line", ago=12)
    page = TopologyPageInfo(
        id="wc-1-1", name="wc", uptime_secs=3725, status="ACTIVE", num_tasks=5, num_workers=1,
        id_to_spout_agg_stats={"words": component(1, 2000, 1900, 3, spout_latency=4.25)},
        id_to_bolt_agg_stats={"count": component(2, 1500, 1500, 0, bolt_latency=0.5,
                                                 last_error=crash)})
    executors = [ExecutorSummary(executor_info=ExecutorInfo(i, i), component_id="c",
                                 host="localhost", port=6700, uptime_secs=1,
                                 stats=ExecutorStats() if i < 3 else None)
                 for i in range(1, 4)]
    info = TopologyInfo(id="wc-1-1", name="wc", uptime_secs=3725, executors=executors,
                        status="ACTIVE", errors={"count": [crash, error("older", ago=70)],
                                                 "words": []})
    return page, info


def test_status_shows_the_summary_each_component_and_the_newest_errors():
    page, info = word_count_answers()
    lines = status_lines(page, info, now=NOW)
    assert lines[0] == ("Topology wc (wc-1-1): ACTIVE, up 1h 2m 5s, 1 worker, 3 executors "
                        "(2 with a heartbeat), 5 tasks")
    assert lines[1] == "Window: All time"
    header, words, count = lines[3:6]
    assert header.split() == ["Component", "Type", "Executors", "Emitted", "Transferred",
                              "Acked", "Failed", "Latency_ms", "Last_error"]
    assert words.split() == ["words", "spout", "1", "2000", "2000", "1900", "3", "4.250"]
    assert count.split() == ["count", "bolt", "2", "1500", "1500", "1500", "0", "0.500",
                             "12s", "ago"]
    assert lines[6:] == [
        "", "Errors (2, newest first):",
        "  count 12s ago on localhost:6700: Worker on localhost:6700 exited with code 1 "
        "after 0 s: ValueError: bad",
        "  count 1m 10s ago on localhost:6700: older"]


def test_status_shows_only_the_newest_errors_asked_for():
    page, info = word_count_answers()
    lines = status_lines(page, info, now=NOW, errors_shown=1)
    assert lines[-2:] == [
        "  count 12s ago on localhost:6700: Worker on localhost:6700 exited with code 1 "
        "after 0 s: ValueError: bad",
        "  ... 1 more (pynimbus status --errors 2)"]


def test_list_has_storms_columns_then_errors_and_the_newest_error():
    summary = TopologySummary(id="wc-1-1", name="wc", num_tasks=4, num_executors=4,
                              num_workers=1, uptime_secs=12, status="ACTIVE")
    assert topology_table([summary], {"wc-1-1": 2}) == [
        "Topology_name        Status     Num_tasks  Num_workers  Uptime_secs Errors",
        "-" * 74,
        "wc                   ACTIVE     4          1            12         2"]
    _, info = word_count_answers()
    assert error_summary(info, now=NOW) == (
        "count 12s ago: Worker on localhost:6700 exited with code 1 after 0 s: ValueError: bad")
    assert error_summary(TopologyInfo(id="x", errors={}), now=NOW) is None


def test_uptimes_read_as_storms_ui_writes_them():
    assert [pretty_uptime(s) for s in (0, 59, 60, 3600, 90061)] == [
        "0s", "59s", "1m 0s", "1h 0m 0s", "1d 1h 1m 1s"]


def test_a_port_in_use_is_found_and_the_message_says_which_setting_and_what_to_do():
    holder = socket.socket()
    holder.bind(("127.0.0.1", 0))
    holder.listen(1)
    taken = holder.getsockname()[1]
    free = socket.socket()
    free.bind(("127.0.0.1", 0))
    free_port = free.getsockname()[1]
    free.close()
    try:
        assert ports_in_use([taken, free_port], "127.0.0.1") == [taken]
    finally:
        holder.close()
    assert port_in_use_message("nimbus.thrift.port", [6627], "127.0.0.1") == (
        "Port 6627 on 127.0.0.1 (nimbus.thrift.port) is in use (Address already in use): is "
        "another pynimbus dev, Nimbus or Storm daemon running? Stop it, or choose other ports "
        "with -c nimbus.thrift.port=6628")
    assert port_in_use_message("supervisor.slots.ports", [6701, 6700], "127.0.0.1",
                               listed=True) == (
        "Ports 6700, 6701 on 127.0.0.1 (supervisor.slots.ports) are in use (Address already in "
        "use): is another pynimbus dev, Nimbus or Storm daemon running? Stop it, or choose "
        "other ports with -c 'supervisor.slots.ports=[6710,6711]'")


def test_components_without_a_beating_executor_are_shown_with_dashes():
    """A component the page leaves out (its executors never beat: its worker cannot start)
    is a row of dashes with its assigned executors and its last error's age."""
    page, info = word_count_answers()
    page.id_to_bolt_agg_stats = {}
    info.executors[2].component_id = "count"
    lines = status_lines(page, info, now=NOW, components={"words": "spout", "count": "bolt"})
    assert lines[5].split() == ["count", "bolt", "1", "-", "-", "-", "-", "-", "12s", "ago"]
