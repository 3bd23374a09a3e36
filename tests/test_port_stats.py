"""Tests of the stats aggregation behind the UI page calls, on literal ExecutorStats.

Every expected number below is worked out by hand from stats.clj's formulas (1.2.4), in the
comment next to it.
"""
# test-case-name: tests.test_port_stats

import json

import pytest

from pynimbus.clojure_port import page_order, stats
from pynimbus.cluster.state import ExecutorBeat
from pynimbus.generated.storm.ttypes import (
    Bolt, BoltStats, ComponentCommon, ComponentObject, ComponentType, ErrorInfo,
    ExecutorSpecificStats, ExecutorStats, GlobalStreamId, ShellComponent, SpoutSpec,
    SpoutStats, StormTopology, WorkerResources)

SHELL = ComponentObject(shell=ShellComponent("python", "x.py"))
WORDS = ("words", "default")
GSID = GlobalStreamId("words", "default")


def gsid_windows(m):
    """{window: {(component, stream): v}} as BoltStats wants it (GlobalStreamId keys)."""
    return {w: {GlobalStreamId(*k): v for k, v in streams.items()} for w, streams in m.items()}


def spout_stats(emitted, transferred, acked, failed, complete):
    return ExecutorStats(emitted=emitted, transferred=transferred, rate=1.0,
                         specific=ExecutorSpecificStats(spout=SpoutStats(
                             acked=acked, failed=failed, complete_ms_avg=complete)))


def bolt_stats(emitted, transferred, acked, failed, process, executed, execute):
    return ExecutorStats(emitted=emitted, transferred=transferred, rate=1.0,
                         specific=ExecutorSpecificStats(bolt=BoltStats(
                             acked=gsid_windows(acked), failed=gsid_windows(failed),
                             process_ms_avg=gsid_windows(process),
                             executed=gsid_windows(executed),
                             execute_ms_avg=gsid_windows(execute))))


TOPOLOGY = StormTopology(
    spouts={"words": SpoutSpec(SHELL, ComponentCommon(
        inputs={}, streams={}, parallelism_hint=2,
        json_conf=json.dumps({"topology.tasks": 2,
                              "topology.component.resources.onheap.memory.mb": 256.0})))},
    bolts={"count": Bolt(SHELL, ComponentCommon(
        inputs={}, streams={}, parallelism_hint=2, json_conf=json.dumps({"topology.tasks": 2})))},
    state_spouts={})
TASK_TO_COMPONENT = {1: "__acker", 2: "count", 3: "count", 4: "words", 5: "words"}
EXECUTOR_NODE_PORT = {(1, 1): ("n1", 6700), (2, 2): ("n1", 6700), (3, 3): ("n2", 6701),
                      (4, 4): ("n1", 6700), (5, 5): ("n2", 6701)}
NODE_HOST = {"n1": "host1", "n2": "host2"}
EXECUTOR_HOST_PORT = {e: (NODE_HOST[n], p) for e, (n, p) in EXECUTOR_NODE_PORT.items()}

BEATS = {
    (4, 4): ExecutorBeat(1000, 300, spout_stats(
        emitted={"600": {"default": 100, "__ack_init": 100},
                 ":all-time": {"default": 1000, "__ack_init": 1000}},
        transferred={"600": {"default": 100, "__ack_init": 100},
                     ":all-time": {"default": 1000, "__ack_init": 1000}},
        acked={"600": {"default": 80}, ":all-time": {"default": 900}},
        failed={"600": {"default": 2}, ":all-time": {"default": 10}},
        complete={"600": {"default": 10.0}, ":all-time": {"default": 12.0}})),
    (5, 5): ExecutorBeat(1000, 300, spout_stats(
        emitted={"600": {"default": 50, "__ack_init": 50},
                 ":all-time": {"default": 500, "__ack_init": 500}},
        transferred={"600": {"default": 50, "__ack_init": 50},
                     ":all-time": {"default": 500, "__ack_init": 500}},
        acked={"600": {"default": 20}, ":all-time": {"default": 100}},
        failed={"600": {"default": 0}, ":all-time": {"default": 5}},
        complete={"600": {"default": 20.0}, ":all-time": {"default": 32.0}})),
    (2, 2): ExecutorBeat(1000, 300, bolt_stats(
        emitted={"600": {"default": 60, "__ack_ack": 60},
                 ":all-time": {"default": 600, "__ack_ack": 600}},
        transferred={"600": {"default": 60, "__ack_ack": 60},
                     ":all-time": {"default": 600, "__ack_ack": 600}},
        acked={"600": {WORDS: 60}, ":all-time": {WORDS: 600}},
        failed={"600": {WORDS: 1}, ":all-time": {WORDS: 3}},
        process={"600": {WORDS: 2.0}, ":all-time": {WORDS: 2.5}},
        executed={"600": {WORDS: 60}, ":all-time": {WORDS: 600}},
        execute={"600": {WORDS: 1.5}, ":all-time": {WORDS: 2.0}})),
    (3, 3): ExecutorBeat(1000, 1200, bolt_stats(
        emitted={"600": {"default": 40}, ":all-time": {"default": 400}},
        transferred={"600": {"default": 40}, ":all-time": {"default": 400}},
        acked={"600": {WORDS: 40}, ":all-time": {WORDS: 400}},
        failed={"600": {}, ":all-time": {}},
        process={"600": {WORDS: 3.0}, ":all-time": {WORDS: 4.0}},
        executed={"600": {WORDS: 40}, ":all-time": {WORDS: 400}},
        execute={"600": {WORDS: 4.0}, ":all-time": {WORDS: 5.0}})),
    (1, 1): ExecutorBeat(1000, 300, bolt_stats(
        emitted={"600": {"__ack_ack": 30}, ":all-time": {"__ack_ack": 300}},
        transferred={"600": {"__ack_ack": 30}, ":all-time": {"__ack_ack": 300}},
        acked={"600": {}, ":all-time": {}}, failed={"600": {}, ":all-time": {}},
        process={"600": {}, ":all-time": {}},
        executed={"600": {("words", "__ack_init"): 150}, ":all-time": {}},
        execute={"600": {("words", "__ack_init"): 0.2}, ":all-time": {}})),
}

NO_ERRORS = {}.get


def topo_page(window="600", include_sys=False, beats=BEATS, last_error_fn=NO_ERRORS,
              compat="1.x"):
    return stats.agg_topo_execs_stats("topo-1", EXECUTOR_NODE_PORT, TASK_TO_COMPONENT, beats,
                                      TOPOLOGY, window, include_sys, last_error_fn, compat)


def comp_page(component, window="600", include_sys=False, beats=BEATS, compat="1.x"):
    return stats.agg_comp_execs_stats(EXECUTOR_HOST_PORT, TASK_TO_COMPONENT, beats, window,
                                      include_sys, "topo-1", TOPOLOGY, component, compat)


# Helpers


def test_swap_map_order_swaps_the_two_key_levels():
    """swap-map-order turns {a {x v}} into {x {a v}}, as its docstring example."""
    assert stats.swap_map_order({"a": {"X": "banana", "Y": "pear"},
                                 "b": {"X": "apple", "Y": "orange"}}) == \
        {"X": {"a": "banana", "b": "apple"}, "Y": {"a": "pear", "b": "orange"}}


def test_or_0_helpers_count_nan_infinity_and_none_as_zero():
    """sum-or-0, product-or-0 and max-or-0 treat anything but a finite number as 0."""
    assert stats.sum_or_0(1, None, float("nan"), 2.5) == 3.5
    assert stats.product_or_0(2.0, float("inf")) == 0
    assert stats.max_or_0(None, -1) == 0


def test_agg_bolt_lat_and_count_weights_each_stream_by_its_executed_count():
    """Totals are sum(avg x executed): 1.5*60 + 4*40 = 250 and 2*60 = 120; executed 100."""
    assert stats.agg_bolt_lat_and_count(
        {"a": 1.5, "b": 4.0}, {"a": 2.0}, {"a": 60, "b": 40}) == \
        {"execute_latency_total": 250.0, "process_latency_total": 120.0, "executed": 100}


def test_include_sys_filter_drops_system_streams_only_when_asked():
    """Without include-sys only non-__ string stream ids stay; with it everything stays."""
    streams = {"default": 1, "__ack_init": 2}
    assert stats.mk_include_sys_filter(False)(streams) == {"default": 1}
    assert stats.mk_include_sys_filter(True)(streams) == streams


def test_capacity_uses_the_ten_minute_window_and_the_uptime_when_shorter():
    """1.5 ms x 60 executed over 300 s = 90 / 300000; over 1200 s uptime the window is 600 s."""
    s = stats.clojurify_executor_stats(BEATS[(2, 2)].stats)
    assert stats.compute_agg_capacity(s, 300) == pytest.approx(90 / 300000)
    assert stats.compute_agg_capacity(s, 1200) == pytest.approx(90 / 600000)
    assert stats.compute_agg_capacity(s, 0) == 0.0
    assert stats.compute_agg_capacity(s, None) is None


def test_clojurify_executor_stats_keys_bolt_streams_by_component_and_stream():
    """A bolt's per-stream maps are keyed by (component, stream), a spout's by stream."""
    bolt = stats.clojurify_executor_stats(BEATS[(2, 2)].stats)
    assert bolt["type"] == "bolt"
    assert bolt["executed"]["600"] == {WORDS: 60}
    spout = stats.clojurify_executor_stats(BEATS[(4, 4)].stats)
    assert spout["type"] == "spout"
    assert spout["complete_latencies"]["600"] == {"default": 10.0}


# Topology page


def test_topology_page_counts_tasks_executors_and_workers():
    """All 5 tasks and 5 executors; workers are the slots of non-system executors: 2."""
    page = topo_page()
    assert (page.id, page.num_tasks, page.num_executors, page.num_workers) == \
        ("topo-1", 5, 5, 2)


def test_topology_page_spout_totals_and_weighted_complete_latency():
    """words, 600 s: emitted 100+50 (no __ack_init), acked 80+20, failed 2+0, complete
    latency (10*80 + 20*20) / 100 = 12.0."""
    words = topo_page().id_to_spout_agg_stats["words"]
    assert words.type == ComponentType.SPOUT
    c = words.common_stats
    assert (c.num_executors, c.num_tasks, c.emitted, c.transferred, c.acked, c.failed) == \
        (2, 2, 150, 150, 100, 2)
    assert words.specific_stats.spout.complete_latency_ms == pytest.approx(12.0)


def test_topology_page_bolt_totals_latencies_and_capacity():
    """count, 600 s: emitted 60+40, acked 100, failed 1, executed 100; execute latency
    (1.5*60 + 4*40)/100 = 2.5, process (2*60 + 3*40)/100 = 2.4, capacity the larger of
    90/300000 and 160/600000."""
    count = topo_page().id_to_bolt_agg_stats["count"]
    c = count.common_stats
    assert (c.num_executors, c.num_tasks, c.emitted, c.transferred, c.acked, c.failed) == \
        (2, 2, 100, 100, 100, 1)
    b = count.specific_stats.bolt
    assert b.executed == 100
    assert b.execute_latency_ms == pytest.approx(2.5)
    assert b.process_latency_ms == pytest.approx(2.4)
    assert b.capacity == pytest.approx(0.0003)


def test_topology_page_leaves_system_components_out_unless_asked():
    """__acker is hidden without include-sys; with it, it is a bolt and spout counts include
    the __ack_init stream (600 s: 200 + 100 emitted)."""
    assert set(topo_page().id_to_bolt_agg_stats) == {"count"}
    page = topo_page(include_sys=True)
    assert set(page.id_to_bolt_agg_stats) == {"count", "__acker"}
    assert page.id_to_spout_agg_stats["words"].common_stats.emitted == 300
    assert page.num_workers == 2


def test_topology_stats_cover_every_window_with_acks_from_spouts_only():
    """Topology stats sum spouts and bolts for emitted (600: 150+100, all-time: 1500+1000) but
    acked, failed and complete latency from spouts only: all-time complete latency is
    (12*900 + 32*100) / 1000 = 14.0."""
    t = topo_page().topology_stats
    assert t.window_to_emitted == {"600": 250, ":all-time": 2500}
    assert t.window_to_transferred == {"600": 250, ":all-time": 2500}
    assert t.window_to_acked == {"600": 100, ":all-time": 1000}
    assert t.window_to_failed == {"600": 2, ":all-time": 15}
    assert t.window_to_complete_latencies_ms == pytest.approx({"600": 12.0, ":all-time": 14.0})


def test_topology_page_window_selects_the_component_numbers():
    """All-time count: emitted 1000, executed 1000, execute latency (2*600 + 5*400)/1000."""
    count = topo_page(window=":all-time").id_to_bolt_agg_stats["count"]
    assert count.common_stats.emitted == 1000
    assert count.specific_stats.bolt.executed == 1000
    assert count.specific_stats.bolt.execute_latency_ms == pytest.approx(3.2)


def test_topology_page_sets_each_components_last_error():
    """The last-error function is asked per component and its ErrorInfo is set."""
    error = ErrorInfo(error="boom", error_time_secs=5, host="h", port=1)
    page = topo_page(last_error_fn={"count": error}.get)
    assert page.id_to_bolt_agg_stats["count"].last_error == error
    assert page.id_to_spout_agg_stats["words"].last_error is None


def test_executors_without_heartbeat_count_with_zero_stats():
    """As 1.2.4: an executor with no beat still counts (executors, tasks) with zeros."""
    beats = {e: b for e, b in BEATS.items() if e != (3, 3)}
    count = topo_page(beats=beats).id_to_bolt_agg_stats["count"]
    assert count.common_stats.num_executors == 2
    assert count.common_stats.emitted == 60
    assert count.specific_stats.bolt.execute_latency_ms == pytest.approx(1.5)
    page = topo_page(beats={})
    assert page.id_to_spout_agg_stats["words"].common_stats.emitted == 0
    assert page.topology_stats.window_to_emitted == {}


def test_topology_page_with_system_stats_counts_executors_without_heartbeat_as_zero():
    """With include-sys the filter is the identity: an executor with no beat has no emitted
    map, which 1.2.4 sums to 0 (``(sum (vals nil))``) instead of failing."""
    beats = {e: b for e, b in BEATS.items() if e not in ((3, 3), (5, 5))}
    page = topo_page(include_sys=True, beats=beats)
    assert page.id_to_bolt_agg_stats["count"].common_stats.emitted == 120  # 60 + __ack_ack 60
    assert page.id_to_spout_agg_stats["words"].common_stats.emitted == 200  # 100 + 100
    assert topo_page(include_sys=True, beats={}).id_to_bolt_agg_stats[
        "__acker"].common_stats.transferred == 0


# Component page


def test_bolt_component_page_per_window_stats():
    """count per window: 600 s as on the topology page; all-time failed 3, execute latency
    3.2, process (2.5*600 + 4*400)/1000 = 3.1."""
    page = comp_page("count")
    assert (page.component_id, page.component_type, page.topology_id) == \
        ("count", ComponentType.BOLT, "topo-1")
    assert (page.num_executors, page.num_tasks) == (2, 2)
    ten = page.window_to_stats["600"]
    assert (ten.common_stats.emitted, ten.common_stats.acked, ten.common_stats.failed) == \
        (100, 100, 1)
    assert ten.specific_stats.bolt.execute_latency_ms == pytest.approx(2.5)
    every = page.window_to_stats[":all-time"]
    assert every.common_stats.failed == 3
    assert every.specific_stats.bolt.executed == 1000
    assert every.specific_stats.bolt.process_latency_ms == pytest.approx(3.1)


def test_bolt_component_page_input_output_and_executor_stats():
    """Inputs per (component, stream), outputs per stream (no __ack_ack), one row per
    executor with its own latencies and capacity."""
    page = comp_page("count")
    inputs = page.gsid_to_input_stats[GSID]
    assert (inputs.common_stats.acked, inputs.common_stats.failed) == (100, 1)
    assert inputs.specific_stats.bolt.executed == 100
    assert inputs.specific_stats.bolt.process_latency_ms == pytest.approx(2.4)
    assert set(page.sid_to_output_stats) == {"default"}
    assert page.sid_to_output_stats["default"].common_stats.transferred == 100
    rows = {(r.exec_summary.executor_info.task_start, r.exec_summary.host,
             r.exec_summary.port, r.exec_summary.uptime_secs): r for r in page.exec_stats}
    assert set(rows) == {(2, "host1", 6700, 300), (3, "host2", 6701, 1200)}
    first = rows[(2, "host1", 6700, 300)].stats
    assert (first.common_stats.emitted, first.common_stats.acked) == (60, 60)
    assert first.specific_stats.bolt.execute_latency_ms == pytest.approx(1.5)
    assert first.specific_stats.bolt.capacity == pytest.approx(0.0003)
    second = rows[(3, "host2", 6701, 1200)].stats
    assert second.specific_stats.bolt.capacity == pytest.approx(160 / 600000)


def test_spout_component_page_output_stats_with_complete_latency():
    """words, all-time: stream default emitted 1500, acked 1000, failed 15, complete latency
    14.0; executor (4,4): acked 900, complete latency 12.0."""
    page = comp_page("words", window=":all-time")
    assert page.component_type == ComponentType.SPOUT
    assert page.gsid_to_input_stats is None
    out = page.sid_to_output_stats["default"]
    assert (out.common_stats.emitted, out.common_stats.acked, out.common_stats.failed) == \
        (1500, 1000, 15)
    assert out.specific_stats.spout.complete_latency_ms == pytest.approx(14.0)
    assert page.window_to_stats["600"].specific_stats.spout.complete_latency_ms == \
        pytest.approx(12.0)
    row = next(r for r in page.exec_stats if r.exec_summary.executor_info.task_start == 4)
    assert (row.stats.common_stats.acked, row.stats.common_stats.failed) == (900, 10)
    assert row.stats.specific_stats.spout.complete_latency_ms == pytest.approx(12.0)


def test_spout_page_shows_system_streams_only_with_include_sys():
    """The __ack_init output stream appears only when system streams are included."""
    assert set(comp_page("words").sid_to_output_stats) == {"default"}
    assert set(comp_page("words", include_sys=True).sid_to_output_stats) == \
        {"default", "__ack_init"}


def test_system_component_page_needs_include_sys_for_its_executors():
    """__acker is a bolt by its id; its executor is aggregated only with include-sys.  Without
    executors 1.2.4 leaves the counts unset (nil), 2.8.8 sets 0."""
    hidden = comp_page("__acker")
    assert (hidden.component_type, hidden.num_executors, hidden.exec_stats) == \
        (ComponentType.BOLT, None, [])
    assert comp_page("__acker", compat="2.x").num_executors == 0
    shown = comp_page("__acker", include_sys=True)
    assert shown.num_executors == 1
    assert shown.window_to_stats["600"].specific_stats.bolt.executed == 150


def test_unknown_component_fails_as_storm():
    """A component the topology lacks fails (1.2.4: no matching clause, an internal error)."""
    with pytest.raises(stats.UnknownComponent):
        comp_page("nope")


# Workers


def test_worker_summaries_per_slot():
    """Slot n1:6700 runs (1,1) (2,2) (4,4): 3 executors, tasks count and words (plus __acker
    with include-sys), uptime of its first beat, resources from the assignment."""
    resources = {("n1", 6700): WorkerResources(mem_on_heap=512.0, mem_off_heap=0.0, cpu=50.0)}
    workers = stats.agg_worker_stats("topo-1", "wc", TASK_TO_COMPONENT, BEATS,
                                     EXECUTOR_NODE_PORT, NODE_HOST, resources, False, True)
    assert [(w.supervisor_id, w.host, w.port) for w in workers] == \
        [("n1", "host1", 6700), ("n2", "host2", 6701)]
    first = workers[0]
    assert (first.num_executors, first.uptime_secs, first.topology_id, first.topology_name) == \
        (3, 300, "topo-1", "wc")
    assert first.component_to_num_tasks == {"count": 1, "words": 1}
    assert (first.assigned_memonheap, first.assigned_cpu) == (512.0, 50.0)
    assert workers[1].assigned_memonheap == 0.0
    with_sys = stats.agg_worker_stats("topo-1", "wc", TASK_TO_COMPONENT, BEATS,
                                      EXECUTOR_NODE_PORT, NODE_HOST, {}, True, True,
                                      filter_supervisor="n1")
    assert len(with_sys) == 1
    assert with_sys[0].component_to_num_tasks == {"__acker": 1, "count": 1, "words": 1}


def test_worker_summaries_hide_tasks_from_unauthorized_users():
    """component_to_num_tasks is only set for an authorized user (2.8.8: set, but empty)."""
    workers = stats.agg_worker_stats("topo-1", "wc", TASK_TO_COMPONENT, BEATS,
                                     EXECUTOR_NODE_PORT, NODE_HOST, {}, False, False)
    assert all(w.component_to_num_tasks is None for w in workers)
    workers = stats.agg_worker_stats("topo-1", "wc", TASK_TO_COMPONENT, BEATS,
                                     EXECUTOR_NODE_PORT, NODE_HOST, {}, False, False,
                                     compat="2.x")
    assert all(w.component_to_num_tasks == {} for w in workers)


def test_worker_uptime_first_beat_in_1x_last_executor_in_2x():
    """1.2.4 takes the first executor with a beat (select-keys order), 2.8.8 the beat of the
    slot's last executor walked, 0 when that one has none."""
    executor_node_port = {(2, 2): ("n1", 6700), (4, 4): ("n1", 6700)}
    beats = {(2, 2): BEATS[(2, 2)]._replace(uptime=50)}
    args = ("topo-1", "wc", TASK_TO_COMPONENT, beats, executor_node_port, NODE_HOST, {},
            False, True)
    assert [w.uptime_secs for w in stats.agg_worker_stats(*args)] == [50]
    assert [w.uptime_secs for w in stats.agg_worker_stats(*args, compat="2.x")] == [0]


# Generations


def test_2x_skips_executors_without_heartbeat():
    """2.8.8's extractDataFromHb skips an executor without a beat: no component stats from
    it, no worker counted for it, no executor row; 1.2.4 counts it with no stats."""
    beats = {e: b for e, b in BEATS.items() if e not in ((3, 3), (5, 5))}  # all of n2:6701
    page = topo_page(beats=beats, compat="2.x")
    assert page.num_workers == 1
    assert page.num_executors == 5  # the assignment's executors
    assert page.id_to_bolt_agg_stats["count"].common_stats.num_executors == 1
    assert topo_page(beats=beats).num_workers == 2
    rows = comp_page("count", beats=beats, compat="2.x").exec_stats
    assert [r.exec_summary.executor_info.task_start for r in rows] == [2]
    assert len(comp_page("count", beats=beats).exec_stats) == 2
    nobody = topo_page(beats={}, compat="2.x")
    assert (nobody.num_workers, nobody.id_to_bolt_agg_stats, nobody.id_to_spout_agg_stats) == \
        (0, {}, {})


def test_1x_leaves_nil_numbers_unset_2x_sets_zero():
    """An executor without a beat has no uptime, so no capacity, and no latency: 1.2.4
    leaves those fields (and a row's executor and task counts) unset, 2.8.8 sets 0."""
    beats = {e: b for e, b in BEATS.items() if e != (3, 3)}
    row = next(r for r in comp_page("count", beats=beats).exec_stats
               if r.exec_summary.executor_info.task_start == 3).stats
    assert (row.common_stats.num_executors, row.common_stats.num_tasks,
            row.common_stats.emitted) == (None, None, 0)
    assert (row.specific_stats.bolt.capacity, row.specific_stats.bolt.execute_latency_ms,
            row.specific_stats.bolt.executed) == (None, None, 0)
    alone = topo_page(beats={}).id_to_spout_agg_stats["words"]  # two executors: merged
    assert alone.common_stats.failed == 0
    one = stats.agg_topo_execs_stats(
        "topo-1", {(2, 2): ("n1", 6700)}, TASK_TO_COMPONENT, {}, TOPOLOGY, "600", False,
        NO_ERRORS)
    assert one.id_to_bolt_agg_stats["count"].specific_stats.bolt.capacity is None
    row_2x = next(r for r in comp_page("count", beats=BEATS, compat="2.x").exec_stats
                  if r.exec_summary.executor_info.task_start == 3).stats
    assert (row_2x.common_stats.num_executors, row_2x.common_stats.num_tasks) == (0, 0)


def test_executor_rows_last_first_in_1x_in_order_in_2x():
    """1.2.4 conj-es each executor's row onto a list; 2.8.8 appends to an ArrayList."""
    ordered = {(3, 3): ("host2", 6701), (2, 2): ("host1", 6700)}

    def starts(compat):
        page = stats.agg_comp_execs_stats(ordered, TASK_TO_COMPONENT, BEATS, "600", False,
                                          "topo-1", TOPOLOGY, "count", compat)
        return [r.exec_summary.executor_info.task_start for r in page.exec_stats]
    assert starts("1.x") == [2, 3]
    assert starts("2.x") == [3, 2]


# Orders.  The expected lists are what the real Nimbus 1.2.4 and 2.8.3 answered
# (TopologyInfo executors, TopologyPageInfo workers) for the Storm UI test's topologies, given
# which slot each executor has.


def slots_of(*slots, executors=12):
    """``{(e, e): slot}``: executor 1 in the first slot, 2 in the next, ... round robin."""
    return {(e, e): slots[(e - 1) % len(slots)] for e in range(1, executors + 1)}


WORDCOUNT_1X = slots_of(("sup-b", 6700), ("sup-a", 6700), ("sup-b", 6701))
WORDCOUNT_2X = slots_of(("sup-a", 6700), ("sup-b", 6700), ("sup-a", 6701))


def starts(executors):
    return [s for s, _e in executors]


def test_1x_executor_order_of_a_clojure_hash_map():
    """12 executors: 1.2.4 writes and reads them back through Clojure hash maps, so the order
    follows their hashes."""
    order = page_order.executor_order(WORDCOUNT_1X, "1.x")
    assert starts(order) == [8, 12, 2, 7, 3, 1, 6, 9, 11, 5, 10, 4]
    assert page_order.wire_order_1x(page_order.assign_order(WORDCOUNT_1X, "1.x")) == order


def test_1x_executor_order_of_small_topologies_follows_the_java_maps():
    """Up to 8 executors the Clojure maps keep the order of the Java maps before them
    (executorToSlot's HashMap(0), then Thrift's HashMap(2n))."""
    one_slot = slots_of(("sup-a", 6701), executors=3)
    assert starts(page_order.executor_order(one_slot, "1.x")) == [2, 1, 3]
    two_slots = slots_of(("sup-b", 6703), ("sup-a", 6703), executors=7)
    assert starts(page_order.executor_order(two_slots, "1.x")) == [7, 6, 5, 4, 3, 2, 1]


def test_2x_executor_order_follows_the_java_hash_maps():
    """2.8.8's leader walks HashMaps keyed by ExecutorDetails, then by List<Long>; ties in a
    bucket keep the even scheduler's assignment order (slots in WorkerSlot hash order)."""
    assert starts(page_order.executor_order(WORDCOUNT_2X, "2.x")) == \
        [8, 6, 4, 12, 10, 2, 7, 5, 11, 3, 1, 9]
    assert starts(page_order.executor_order(slots_of(("sup-b", 6701), executors=3), "2.x")) \
        == [3, 2, 1]
    # the goldens' word count, the same placement on other node ids: executors 2 and 10 share
    # a bucket, and the order of their slots' hashes puts them the other way round
    golden = slots_of(("wordcount-a", 6700), ("wordcount-b", 6700), ("wordcount-a", 6701))
    assert starts(page_order.executor_order(golden, "2.x", "info")) == \
        [8, 6, 4, 12, 2, 10, 7, 5, 11, 3, 1, 9]


def test_2x_executor_order_through_tree_bins():
    """25 single-task executors: their List hash codes share two buckets of a 64-slot table,
    which become red-black trees; 2.8.3 stored and listed them in this order."""
    groupings = slots_of(("sup-a", 6702), ("sup-b", 6702), executors=25)
    assert starts(page_order.executor_order(groupings, "2.x", "info")) == [
        14, 10, 8, 24, 22, 6, 20, 2, 4, 16, 18, 12, 13, 11, 7, 9, 19, 23, 21, 25, 5, 1, 3, 15,
        17]


def test_worker_order_per_generation():
    """The word count's three workers: reverse-map first-appearance order (1.x), a HashMap of
    WorkerSlot (2.x)."""
    order_1x = page_order.executor_order(WORDCOUNT_1X, "1.x")
    assert page_order.worker_slot_order(order_1x, WORDCOUNT_1X, "1.x") == [
        ("sup-a", 6700), ("sup-b", 6701), ("sup-b", 6700)]
    order_2x = page_order.executor_order(WORDCOUNT_2X, "2.x")
    assert page_order.worker_slot_order(order_2x, WORDCOUNT_2X, "2.x") == [
        ("sup-a", 6700), ("sup-b", 6700), ("sup-a", 6701)]


# Resources


def test_component_resources_1x_own_values_then_topology_defaults():
    """words sets on-heap 256; the rest, and system components, come from the conf."""
    conf = {stats.ONHEAP_MEMORY_MB: 128.0, stats.OFFHEAP_MEMORY_MB: 0.0,
            stats.CPU_PCORE_PERCENT: 10.0}
    assert stats.component_resources(TOPOLOGY, conf, "words") == {
        stats.ONHEAP_MEMORY_MB: 256.0, stats.OFFHEAP_MEMORY_MB: 0.0,
        stats.CPU_PCORE_PERCENT: 10.0}
    assert stats.component_resources(TOPOLOGY, conf, "__acker") == conf


def test_component_resources_2x_are_normalized_with_acker_defaults():
    """2.x names are onheap.memory.mb, offheap.memory.mb, cpu.pcore.percent; the acker takes
    topology.acker.* before the component defaults."""
    conf = {stats.ONHEAP_MEMORY_MB: 128.0, stats.OFFHEAP_MEMORY_MB: 0.0,
            stats.CPU_PCORE_PERCENT: 10.0, "topology.acker.cpu.pcore.percent": 5.0}
    assert stats.component_resources(TOPOLOGY, conf, "words", "2.x") == {
        "onheap.memory.mb": 256.0, "offheap.memory.mb": 0.0, "cpu.pcore.percent": 10.0}
    assert stats.component_resources(TOPOLOGY, conf, "__acker", "2.x")["cpu.pcore.percent"] \
        == 5.0


def test_placeholder_agg_stats_use_parallelism_and_tasks():
    """2.x placeholders: executors from the parallelism hint, tasks from topology.tasks."""
    placeholder = stats.placeholder_agg_stats(TOPOLOGY.spouts["words"], stats.SPOUT,
                                              {"cpu.pcore.percent": 10.0})
    assert (placeholder.common_stats.num_executors, placeholder.common_stats.num_tasks) == (2, 2)
    assert placeholder.specific_stats.spout.complete_latency_ms == 0.0
