"""Tests for pynimbus.worker.stats: executor stats as Storm 1.2.4's stats.clj writes them."""

import json
import random

import pytest

from pynimbus.clojure_port import stats as page_stats
from pynimbus.cluster import serialization
from pynimbus.cluster.state import convert_executor_beats
from pynimbus.generated.storm.ttypes import (
    Bolt, ClusterWorkerHeartbeat, ComponentCommon, ComponentObject, ExecutorInfo,
    GlobalStreamId, LSWorkerHeartbeat, ShellComponent, SpoutSpec, StormTopology)
from pynimbus.worker import stats
from tests.fake_clock import FakeClock
from tests.purity import imported_modules

T0 = 1700000000.0
BUCKET_S = stats.ROTATE_PERIOD_MS / 1000.0  # 31.578 s
WINDOWS = ("600", "10800", "86400", ":all-time")


def spout(clock, rate=1.0):
    return stats.ExecutorStatsCollector("spout", clock, rate, random.Random(7))


def bolt(clock, rate=1.0):
    return stats.ExecutorStatsCollector("bolt", clock, rate, random.Random(7))


def emitted(collector, stream="default"):
    """{window: count} of one stream's emits, as rendered."""
    return {w: streams[stream] for w, streams in collector.render().emitted.items()}


def complete_latency(collector, stream="default"):
    return {w: streams[stream]
            for w, streams in collector.render().specific.spout.complete_ms_avg.items()}


def emit_n(collector, n, stream="default", out_tasks=1):
    for _ in range(n):
        collector.emitted_to(stream, out_tasks)


def move_clock(clock, collector, now):
    """Time passes and the rotation timer runs (a worker runs it every second)."""
    clock.now = now
    collector.rotate_due()


# Rendering


def test_a_fresh_collector_renders_empty_windows_and_its_rate():
    """Before any event every map is empty (no key, so no window), as Storm's Multi* maps."""
    rendered = spout(FakeClock(T0), 0.05).render()
    assert (rendered.emitted, rendered.transferred, rendered.rate) == ({}, {}, 20.0)
    assert (rendered.specific.spout.acked, rendered.specific.spout.failed,
            rendered.specific.spout.complete_ms_avg) == ({}, {}, {})
    assert rendered.specific.bolt is None


def test_events_show_in_every_window_at_once():
    """An emit is counted in the 10-minute, 3-hour, 1-day and all-time windows."""
    clock = FakeClock(T0)
    collector = spout(clock)
    emit_n(collector, 5, out_tasks=3)
    assert emitted(collector) == dict.fromkeys(WINDOWS, 5)
    assert collector.render().transferred == {w: {"default": 15} for w in WINDOWS}


def test_bolt_stats_are_keyed_by_source_component_and_stream():
    """Bolt counts and latencies are per input GlobalStreamId; a failure records no latency."""
    clock = FakeClock(T0)
    collector = bolt(clock)
    collector.executed("words", "default", 2)
    collector.executed("words", "default", 4)
    collector.executed("__system", "__tick", 1)
    collector.acked("words", "default", 9)
    collector.failed("words", "default", 50)
    specific = collector.render().specific.bolt
    words, tick = GlobalStreamId("words", "default"), GlobalStreamId("__system", "__tick")
    assert specific.executed["600"] == {words: 2, tick: 1}
    assert specific.execute_ms_avg["600"] == {words: 3.0, tick: 1.0}
    assert specific.acked[":all-time"] == {words: 1}
    assert specific.process_ms_avg[":all-time"] == {words: 9.0}
    assert specific.failed["86400"] == {words: 1}
    assert collector.render().specific.spout is None


# Windows


def test_the_ten_minute_window_drops_a_bucket_after_twenty_rotations():
    """A count leaves the 600 s window once 20 rotations (19 full buckets) have passed it;
    the longer windows and all-time keep it."""
    clock = FakeClock(T0)
    collector = spout(clock)
    emit_n(collector, 5)
    clock.now = T0 + 19 * BUCKET_S
    assert emitted(collector) == dict.fromkeys(WINDOWS, 5)
    clock.now = T0 + 20 * BUCKET_S
    assert emitted(collector) == {"600": 0, "10800": 5, "86400": 5, ":all-time": 5}


def test_the_oldest_bucket_is_pro_rated():
    """Half-way through the bucket after, 15807 of the oldest bucket's 31578 ms still fall in
    the 10-minute window: int(15807 / 31578 * 100) = 50 of its 100 emits count."""
    clock = FakeClock(T0)
    collector = spout(clock)
    emit_n(collector, 100)
    move_clock(clock, collector, T0 + (19 * stats.ROTATE_PERIOD_MS + 15789) / 1000.0)
    emit_n(collector, 1)
    assert emitted(collector)["600"] == 51
    assert emitted(collector)[":all-time"] == 101


def test_the_three_hour_window_moves_on_every_nineteenth_rotation():
    """The 10800 s window's buckets (568421 ms each) shift once 19 timer periods have filled
    the first: after 342 rotations the emits sit in the 18th bucket, still inside the window;
    after 361 in the 19th, of which only 324 ms still fall inside (int(5 x 324 / 599982) = 0)."""
    clock = FakeClock(T0)
    collector = spout(clock)
    emit_n(collector, 5)
    clock.now = T0 + 342 * BUCKET_S
    assert emitted(collector) == {"600": 0, "10800": 5, "86400": 5, ":all-time": 5}
    clock.now = T0 + 361 * BUCKET_S
    assert emitted(collector) == {"600": 0, "10800": 0, "86400": 5, ":all-time": 5}


def test_all_time_keeps_what_the_day_window_forgot():
    """Two days on, the 1-day window holds only the new emits; all-time holds them all."""
    clock = FakeClock(T0)
    collector = spout(clock)
    emit_n(collector, 7)
    move_clock(clock, collector, T0 + 2 * 86400)
    emit_n(collector, 3)
    assert emitted(collector) == {"600": 3, "10800": 3, "86400": 3, ":all-time": 10}


def test_each_key_rotates_from_its_own_first_event():
    """A stream first seen later has its own buckets: its emits stay in its 600 s window
    while an older stream's have left."""
    clock = FakeClock(T0)
    collector = spout(clock)
    emit_n(collector, 2, stream="a")
    clock.now = T0 + 10 * BUCKET_S
    emit_n(collector, 4, stream="b")
    clock.now = T0 + 20 * BUCKET_S
    rendered = collector.render().emitted
    assert rendered["600"] == {"a": 0, "b": 4}
    assert rendered[":all-time"] == {"a": 2, "b": 4}


# Latencies


def test_latencies_are_weighted_by_count_across_buckets():
    """A window's latency is total latency over total count of its buckets, not a mean of
    bucket means; an old bucket leaves the 10-minute window but not all-time."""
    clock = FakeClock(T0)
    collector = spout(clock)
    collector.acked("default", 10)
    collector.acked("default", 20)
    move_clock(clock, collector, T0 + 5 * BUCKET_S)
    collector.acked("default", 60)
    assert complete_latency(collector) == dict.fromkeys(WINDOWS, 30.0)
    clock.now = T0 + 20 * BUCKET_S
    assert complete_latency(collector) == {"600": 60.0, "10800": 30.0, "86400": 30.0,
                                           ":all-time": 30.0}


def test_latency_windows_take_the_oldest_bucket_whole():
    """Where a count is pro-rated, the latency of a bucket reaching into the window counts
    whole (upstream: "Don't pro-rate anything")."""
    clock = FakeClock(T0)
    collector = spout(clock)
    collector.acked("default", 10)
    move_clock(clock, collector, T0 + (19 * stats.ROTATE_PERIOD_MS + 15789) / 1000.0)
    collector.acked("default", 30)
    assert complete_latency(collector)["600"] == 20.0
    assert collector.render().specific.spout.acked["600"] == {"default": 1}


def test_latencies_are_whole_milliseconds():
    """Latencies are recorded as Java longs: fractions are dropped."""
    collector = spout(FakeClock(T0))
    collector.acked("default", 14.9)
    collector.acked("default", 13.2)
    assert complete_latency(collector)[":all-time"] == 13.5


def test_an_idle_collector_with_no_events_in_a_window_reports_zero_latency():
    """A window whose buckets hold no latency reports 0.0 (zeroIfNaNOrInf), not NaN."""
    clock = FakeClock(T0)
    collector = spout(clock)
    collector.acked("default", 8)
    clock.now = T0 + 20 * BUCKET_S
    assert complete_latency(collector)["600"] == 0.0


# Sampling


def test_sampling_rate_is_the_truncated_inverse():
    """config.clj sampling-rate: int(1 / rate)."""
    assert [stats.sampling_rate(r) for r in (1, 0.5, 0.3, 0.05)] == [1, 2, 3, 20]


@pytest.mark.parametrize("bad", [0, -0.1, 1.5, "0.05", None, True])
def test_a_sample_rate_outside_zero_to_one_is_refused_by_name(bad):
    """A rate Storm's worker would fail on is a ValueError naming the setting."""
    with pytest.raises(ValueError, match="topology.stats.sample.rate"):
        stats.ExecutorStatsCollector("spout", FakeClock(T0), bad)


def test_an_unknown_component_kind_is_refused():
    """Only spouts and bolts have stats."""
    with pytest.raises(ValueError, match="'state_spout'"):
        stats.ExecutorStatsCollector("state_spout", FakeClock(T0))


def test_the_even_sampler_picks_exactly_one_call_in_each_run():
    """util.clj even-sampler: one True per run of freq calls."""
    sampler = stats.EvenSampler(4, random.Random(3))
    picks = [sampler() for _ in range(40)]
    assert [sum(picks[i:i + 4]) for i in range(0, 40, 4)] == [1] * 10


def test_sampled_counts_are_scaled_by_the_rate():
    """At rate 0.25 one emit in four is recorded, as four; transferred follows its emit."""
    collector = spout(FakeClock(T0), 0.25)
    sampled = sum(collector.emitted_to("default", 3) for _ in range(40))
    rendered = collector.render()
    assert sampled == 10
    assert rendered.emitted[":all-time"] == {"default": 40}
    assert rendered.transferred[":all-time"] == {"default": 120}
    assert rendered.rate == 4.0


def test_events_count_in_the_bucket_current_until_the_timer_rotates():
    """As upstream's ``incBy``, an event goes to its key's current bucket: one recorded after
    a rotation fell due but before the timer ran counts in the bucket that rotation closes;
    once the timer ran, events count in the new bucket.  A key's buckets start at its first
    event."""
    clock = FakeClock(T0)
    collector = spout(clock)
    emit_n(collector, 3)
    clock.now = T0 + 20 * BUCKET_S + 1  # twenty rotations due, the timer has not run
    emit_n(collector, 2)
    assert emitted(collector) == {"600": 0, "10800": 5, "86400": 5, ":all-time": 5}
    emit_n(collector, 4)  # render ran the timer: these are in the current bucket
    assert emitted(collector) == {"600": 4, "10800": 9, "86400": 9, ":all-time": 9}


def test_rotate_due_rotates_every_key_of_every_stat_on_its_own_schedule():
    """The timer runs each key's rotations at their times (a key starts at its first event)
    and nothing before the earliest one is due."""
    clock = FakeClock(T0)
    collector = bolt(clock)
    collector.emitted_to("default", 2)
    collector.executed("words", "default", 3)
    clock.now = T0 + 10 * BUCKET_S
    collector.acked("words", "default", 5)  # its buckets start here
    stat_maps = (collector.emitted_counts, collector.transferred_counts,
                 collector.executed_counts, collector.execute_latencies)
    before = [stat.bucket_start for stats_ in stat_maps for stat in stats_.values()]
    collector.rotate_due()
    after = [stat.bucket_start for stats_ in stat_maps for stat in stats_.values()]
    assert after == [b + 10 * stats.ROTATE_PERIOD_MS for b in before]
    (acked,) = collector.acked_counts.values()
    assert acked.bucket_start == int(T0 * 1000 + 10 * stats.ROTATE_PERIOD_MS)
    clock.now = T0 + 11 * BUCKET_S - 0.001  # the next rotation is not due yet
    collector.rotate_due()
    assert [stat.bucket_start for stats_ in stat_maps
            for stat in stats_.values()] == after


def test_acks_count_the_rate_but_latencies_are_plain_means():
    """A sampled ack stands for rate acks; its latency is averaged as is."""
    collector = bolt(FakeClock(T0), 0.5)
    collector.acked("words", "default", 4)
    collector.acked("words", "default", 8)
    specific = collector.render().specific.bolt
    assert specific.acked["600"] == {GlobalStreamId("words", "default"): 4}
    assert specific.process_ms_avg["600"] == {GlobalStreamId("words", "default"): 6.0}


def test_unsampled_events_count_nothing():
    """A None latency (spout: emit not sampled) or a negative one (bolt: upstream's -1)
    records nothing, so callers pass every ack, fail and execute through."""
    clock = FakeClock(T0)
    words, count = spout(clock, 0.5), bolt(clock, 0.5)
    words.acked("default", None)
    words.failed("default", None)
    words.failed("default", 0)
    for latency in (None, -1):
        count.executed("words", "default", latency)
        count.acked("words", "default", latency)
        count.failed("words", "default", latency)
    count.failed("words", "default", 3)
    spout_stats, bolt_stats = words.render().specific.spout, count.render().specific.bolt
    assert (spout_stats.acked, spout_stats.failed) == ({}, {w: {"default": 2} for w in WINDOWS})
    assert (bolt_stats.executed, bolt_stats.acked, bolt_stats.process_ms_avg) == ({}, {}, {})
    assert bolt_stats.failed == {w: {GlobalStreamId("words", "default"): 2} for w in WINDOWS}


def test_the_executor_samplers_pick_one_in_rate():
    """sample() and a bolt's sample_execute() are even samplers of the collector's rate."""
    collector = bolt(FakeClock(T0), 0.2)
    assert sum(collector.sample() for _ in range(50)) == 10
    assert sum(collector.sample_execute() for _ in range(50)) == 10
    always = spout(FakeClock(T0), 1.0)
    assert all(always.sample() for _ in range(5))


# Round trip through Nimbus's side


SHELL = ComponentObject(shell=ShellComponent("python", "x.py"))
TOPOLOGY = StormTopology(
    spouts={"words": SpoutSpec(SHELL, ComponentCommon(
        inputs={}, streams={}, parallelism_hint=1, json_conf=json.dumps({})))},
    bolts={"count": Bolt(SHELL, ComponentCommon(
        inputs={}, streams={}, parallelism_hint=1, json_conf=json.dumps({})))},
    state_spouts={})
TASK_TO_COMPONENT = {1: "__acker", 2: "count", 3: "words"}
EXECUTOR_NODE_PORT = {(1, 1): ("n1", 6700), (2, 2): ("n1", 6700), (3, 3): ("n1", 6700)}


def run_word_count(clock):
    """4 sentences from the spout, each to one count task, acked 3 times and failed once."""
    words, count, acker = spout(clock), bolt(clock), bolt(clock)
    for _ in range(4):
        emit_n(words, 1)
        emit_n(words, 1, stream="__ack_init")
        count.executed("words", "default", 2)
        emit_n(count, 1, stream="__ack_ack")
    for latency in (5, 7, 9):
        count.acked("words", "default", latency)
    for latency in (10, 20, 30):
        words.acked("default", latency)
    words.failed("default", 40)
    for _ in range(4):
        acker.executed("words", "__ack_init", 1)
    return {(3, 3): words.render(), (2, 2): count.render(), (1, 1): acker.render()}


def through_zookeeper(executor_to_stats, now):
    """The heartbeat as Nimbus reads it back: serialized, deserialized, converted."""
    heartbeat = stats.worker_heartbeat("topo-1", executor_to_stats, now, 42)
    stored = serialization.deserialize(serialization.serialize(heartbeat),
                                       ClusterWorkerHeartbeat)
    return convert_executor_beats(list(EXECUTOR_NODE_PORT), stored)


def test_rendered_stats_aggregate_on_the_topology_page_as_recorded():
    """getTopologyPageInfo's sums and weighted means come out of a worker's heartbeat."""
    clock = FakeClock(T0)
    beats = through_zookeeper(run_word_count(clock), clock())
    page = page_stats.agg_topo_execs_stats("topo-1", EXECUTOR_NODE_PORT, TASK_TO_COMPONENT,
                                           beats, TOPOLOGY, "600", False, {}.get)
    topology_stats = page.topology_stats
    assert topology_stats.window_to_emitted["600"] == 4
    assert topology_stats.window_to_transferred["600"] == 4
    assert topology_stats.window_to_acked["600"] == 3
    assert topology_stats.window_to_failed["600"] == 1
    assert topology_stats.window_to_complete_latencies_ms["600"] == 20.0
    words = page.id_to_spout_agg_stats["words"]
    assert (words.common_stats.emitted, words.common_stats.acked,
            words.common_stats.failed) == (4, 3, 1)
    assert words.specific_stats.spout.complete_latency_ms == 20.0
    count = page.id_to_bolt_agg_stats["count"]
    assert count.specific_stats.bolt.executed == 4
    assert count.specific_stats.bolt.execute_latency_ms == 2.0
    assert count.specific_stats.bolt.process_latency_ms == 7.0
    assert count.common_stats.acked == 3


def test_rendered_stats_aggregate_on_the_component_page_with_system_streams():
    """getComponentPageInfo with system streams counts the acker traffic too."""
    clock = FakeClock(T0)
    beats = through_zookeeper(run_word_count(clock), clock())
    executor_host_port = {e: ("host1", p) for e, (_n, p) in EXECUTOR_NODE_PORT.items()}
    page = page_stats.agg_comp_execs_stats(executor_host_port, TASK_TO_COMPONENT, beats,
                                           ":all-time", True, "topo-1", TOPOLOGY, "words")
    stream_emitted = {s: agg.common_stats.emitted
                      for s, agg in page.sid_to_output_stats.items()}
    assert stream_emitted == {"default": 4, "__ack_init": 4}


# Heartbeats


def test_worker_heartbeat_keeps_only_executors_with_stats():
    """An executor not built yet (None) is left out, as thriftify-zk-worker-hb does."""
    rendered = spout(FakeClock(T0)).render()
    heartbeat = stats.worker_heartbeat("topo-1", {(3, 3): rendered, (-1, -1): None},
                                       T0 + 0.7, 12.4)
    assert heartbeat == ClusterWorkerHeartbeat(
        storm_id="topo-1", executor_stats={ExecutorInfo(3, 3): rendered},
        time_secs=int(T0), uptime_secs=12)


def test_worker_heartbeat_is_none_without_any_stats():
    """Upstream writes nothing before the executors exist."""
    assert stats.worker_heartbeat("topo-1", {(3, 3): None}, T0, 0) is None


def test_ls_worker_heartbeat_lists_the_executors():
    """The LocalState value names the topology, executors and port."""
    assert stats.ls_worker_heartbeat(T0 + 0.5, "topo-1", [(-1, -1), ExecutorInfo(2, 3)],
                                      6700) == LSWorkerHeartbeat(
        time_secs=int(T0), topology_id="topo-1",
        executors=[ExecutorInfo(-1, -1), ExecutorInfo(2, 3)], port=6700)


def test_stats_module_is_pure():
    """No Twisted, sockets, files or clocks: the stdlib's random and the generated structs."""
    imported = imported_modules(stats)
    assert imported == {"random", "pynimbus.generated.storm.ttypes"}
