# -*- test-case-name: tests.test_worker_stats -*-
"""The executor statistics a worker writes in its heartbeats (pure).

Port of stats.clj's writing side (Storm 1.2.4: ``mk-spout-stats``, ``mk-bolt-stats``, the
``*-tuple!`` recorders, ``render-stats!`` and ``thriftify-executor-stats``) and of the rolling
counters under it (``CountStatAndMetric``, ``LatencyStatAndMetric`` and their ``Multi*`` maps,
``org.apache.storm.metric.internal``).  Nimbus's reading side is
:mod:`pynimbus.clojure_port.stats`.

Make one collector per executor with ``ExecutorStatsCollector(component_kind, clock,
sample_rate)``: ``component_kind`` is ``"spout"`` or ``"bolt"``, ``clock`` a function returning
Unix seconds (``reactor.seconds``, ``time.time``), ``sample_rate`` the topology's
``topology.stats.sample.rate`` (Storm's default 0.05).  Recording, as the executor calls it:

* every emit: ``emitted_to(stream, len(out_tasks))``.  The collector holds Storm's emit
  sampler: a sampled emit counts as emitted and transferred, another as neither (task.clj
  records both or neither);
* spout: ``acked(stream, latency_ms)`` and ``failed(stream, latency_ms)``, ``latency_ms`` the
  complete latency from the emit, or None when ``sample()`` did not pick the emit (as
  :class:`pynimbus.worker.spout_pending.SpoutCallback`'s ``time_delta_ms`` carries it): None
  counts nothing, as upstream;
* bolt: keys are the input tuple's source ``(component, stream)`` (upstream's
  ``GlobalStreamId``): ``executed(component, stream, latency_ms)`` with the time spent in
  ``execute`` when ``sample_execute()`` picked the tuple before it; ``acked(component, stream,
  latency_ms)`` and ``failed(component, stream, latency_ms)`` with the time from the start of
  its execute when ``sample()`` picked it there (the process latency).  None or a negative
  latency (upstream's -1 for "not sampled") counts nothing.  A failure records no latency.

Pass every event with its latency or None: the collector counts only the sampled ones.  The
samplers are Storm's even samplers of ``rate``: ``sample()`` (executor.clj's ``:sampler``) and,
for bolts, ``sample_execute()``; the emit sampler is inside ``emitted_to``.  Deliberate
difference: upstream has one emit sampler per task, here one per executor (the same one in
``rate`` emits either way).  2.8.8's ``CommonStats``/``SpoutExecutorStats``/
``BoltExecutorStats`` record and render the same; its bucket count is ``num.stat.buckets``
(default 20), fixed at 20 here.

Every recorded event counts ``rate = int(1 / sample_rate)`` (config.clj ``sampling-rate``), so
sampled counts estimate the real ones; latencies are plain means of the sampled ones.
``render()`` returns the ``ExecutorStats`` for the heartbeat: counts and average latencies by
window (``"600"``, ``"10800"``, ``"86400"``, ``":all-time"``) then key.

Windows as upstream's counters: every key has 20 buckets per window, rotated every
600000 // 19 ms from the key's first event.  As upstream's ``incBy``, recording adds to the
key's current bucket without reading the clock; upstream's rotation timer is
``rotate_due()``, which runs the rotations due by now, each at its own time (the worker calls
it every ``STATS_ROTATION_SECS`` and ``render`` first calls it, so an event counts in the
bucket that was current up to that long before it: a deliberate difference from a timer that
fires on time);
a window's count adds the buckets that fit in it and pro-rates the oldest one, a window's
latency is total latency over total count of the buckets that reach into it (no pro-rating);
all-time adds everything.  Latencies are whole milliseconds (upstream records a ``long``).
"""

import random

from pynimbus.generated.storm.ttypes import (
    BoltStats, ClusterWorkerHeartbeat, ExecutorInfo, ExecutorSpecificStats, ExecutorStats,
    GlobalStreamId, LSWorkerHeartbeat, SpoutStats)

SPOUT = "spout"
BOLT = "bolt"
TOPOLOGY_STATS_SAMPLE_RATE = "topology.stats.sample.rate"
DEFAULT_SAMPLE_RATE = 0.05  # defaults.yaml, 1.2.4 and 2.8.8

NUM_STAT_BUCKETS = 20
WINDOW_NAMES = ("600", "10800", "86400")
ALL_TIME = ":all-time"
_WINDOW_MS = (600 * 1000, 10800 * 1000, 86400 * 1000)
# One bucket fewer than there are, so the buckets cover the whole window.
_BUCKET_MS = tuple(window // (NUM_STAT_BUCKETS - 1) for window in _WINDOW_MS)
ROTATE_PERIOD_MS = _BUCKET_MS[0]
"""Upstream's timer period: every stat rotates at this rate; a longer window's buckets move on
only once its first bucket holds a bucket's worth of time."""


def sampling_rate(sample_rate):
    """Port of config.clj ``sampling-rate``: how many events each sampled one stands for.

    :raises ValueError: ``sample_rate`` is not a number in (0, 1] (Storm's worker fails on it).
    """
    if (isinstance(sample_rate, bool) or not isinstance(sample_rate, (int, float))
            or not 0 < sample_rate <= 1):
        raise ValueError("%s must be a number in (0, 1], not %r"
                         % (TOPOLOGY_STATS_SAMPLE_RATE, sample_rate))
    return int(1 / sample_rate)


class EvenSampler:
    """Port of util.clj ``even-sampler``: exactly one call in each run of ``freq`` calls says
    True, at a random place in the run."""

    __slots__ = ("freq", "_randrange", "_curr", "_target")

    def __init__(self, freq, rng):
        self.freq = freq
        self._randrange = rng.randrange
        self._curr = -1
        self._target = self._randrange(freq)

    def __call__(self):
        self._curr += 1
        if self._curr >= self.freq:
            self._curr = 0
            self._target = self._randrange(self.freq)
        return self._curr == self._target


def _always():
    return True


def mk_stats_sampler(rate, rng):
    """Port of config.clj ``mk-stats-sampler`` (rate 1 answers True without bookkeeping)."""
    return _always if rate == 1 else EvenSampler(rate, rng)


# Rolling counters


def _rotate(target_ms, time_spent, times, buckets, values):
    """Port of the counters' ``rotate``: add the finished interval to the first bucket and,
    once that bucket holds ``target_ms``, shift every bucket one older (the oldest drops)."""
    times[0] += time_spent
    for bucket, value in zip(buckets, values):
        bucket[0] += value
    if times[0] >= target_ms:
        times.insert(0, 0)
        times.pop()
        for bucket in buckets:
            bucket.insert(0, 0)
            bucket.pop()


class CountStat:
    """One key's rolling count (port of ``CountStatAndMetric``)."""

    __slots__ = ("current", "bucket_start", "next_rotation", "times", "counts", "all_time")

    def __init__(self, now_ms):
        self.current = 0
        self.bucket_start = now_ms
        self.next_rotation = now_ms + ROTATE_PERIOD_MS
        self.times = [[0] * NUM_STAT_BUCKETS for _ in _WINDOW_MS]
        self.counts = [[0] * NUM_STAT_BUCKETS for _ in _WINDOW_MS]
        self.all_time = 0

    def catch_up(self, now_ms):
        """Run the timer's rotations due by ``now_ms`` (``rotateSched``), each at its time."""
        while self.next_rotation <= now_ms:
            at_ms = self.next_rotation
            value, self.current = self.current, 0
            time_spent, self.bucket_start = at_ms - self.bucket_start, at_ms
            for target_ms, times, counts in zip(_BUCKET_MS, self.times, self.counts):
                _rotate(target_ms, time_spent, times, (counts,), (value,))
            self.all_time += value
            self.next_rotation = at_ms + ROTATE_PERIOD_MS

    def time_counts(self, now_ms):
        """Port of ``getTimeCounts``: ``{window: count}`` at ``now_ms`` (after ``catch_up``)."""
        time_spent = now_ms - self.bucket_start
        ret = {name: _approximate_count(self.current, time_spent, times, counts, window_ms)
               for name, window_ms, times, counts
               in zip(WINDOW_NAMES, _WINDOW_MS, self.times, self.counts)}
        ret[ALL_TIME] = self.current + self.all_time
        return ret


def _approximate_count(value, time_spent, times, counts, window_ms):
    """Port of ``readApproximateTime``: the current count plus the buckets that fit in the
    window, the first one that does not fit taken in proportion (truncated, as Java's cast)."""
    time_needed = window_ms - time_spent
    total = value
    for bucket_time, count in zip(times, counts):
        if time_needed < bucket_time:
            total += int(time_needed / bucket_time * count)
            break
        total += count
        time_needed -= bucket_time
    return total


class LatencyStat:
    """One key's rolling latency sum and count (port of ``LatencyStatAndMetric``)."""

    __slots__ = ("current_lat", "current_count", "bucket_start", "next_rotation", "times",
                 "lats", "counts", "all_time_lat", "all_time_count")

    def __init__(self, now_ms):
        self.current_lat = 0
        self.current_count = 0
        self.bucket_start = now_ms
        self.next_rotation = now_ms + ROTATE_PERIOD_MS
        self.times = [[0] * NUM_STAT_BUCKETS for _ in _WINDOW_MS]
        self.lats = [[0] * NUM_STAT_BUCKETS for _ in _WINDOW_MS]
        self.counts = [[0] * NUM_STAT_BUCKETS for _ in _WINDOW_MS]
        self.all_time_lat = 0
        self.all_time_count = 0

    def catch_up(self, now_ms):
        """Run the timer's rotations due by ``now_ms`` (``rotateSched``), each at its time."""
        while self.next_rotation <= now_ms:
            at_ms = self.next_rotation
            lat, count = self.current_lat, self.current_count
            self.current_lat = self.current_count = 0
            time_spent, self.bucket_start = at_ms - self.bucket_start, at_ms
            for target_ms, times, lats, counts in zip(_BUCKET_MS, self.times, self.lats,
                                                      self.counts):
                _rotate(target_ms, time_spent, times, (lats, counts), (lat, count))
            self.all_time_lat += lat
            self.all_time_count += count
            self.next_rotation = at_ms + ROTATE_PERIOD_MS

    def time_lat_avg(self, now_ms):
        """Port of ``getTimeLatAvg``: ``{window: mean latency}`` at ``now_ms`` (after
        ``catch_up``)."""
        time_spent = now_ms - self.bucket_start
        ret = {name: _approximate_lat_avg(self.current_lat, self.current_count, time_spent,
                                          times, lats, counts, window_ms)
               for name, window_ms, times, lats, counts
               in zip(WINDOW_NAMES, _WINDOW_MS, self.times, self.lats, self.counts)}
        ret[ALL_TIME] = _mean(self.current_lat + self.all_time_lat,
                              self.current_count + self.all_time_count)
        return ret


def _mean(total, count):
    """``Utils.zeroIfNaNOrInf(total / count)``."""
    return float(total) / count if count else 0.0


def _approximate_lat_avg(lat, count, time_spent, times, lats, counts, window_ms):
    """Port of ``readApproximateLatAvg``: the mean over the current bucket and every bucket
    that reaches into the window, whole (upstream does not pro-rate latencies)."""
    time_needed = window_ms - time_spent
    total_lat, total_count = lat, count
    for bucket_time, bucket_lat, bucket_count in zip(times, lats, counts):
        if time_needed <= 0:
            break
        total_lat += bucket_lat
        total_count += bucket_count
        time_needed -= bucket_time
    return _mean(total_lat, total_count)


def _by_window(key_to_stat, read, now_ms, thrift_key):
    """Port of ``Multi*StatAndMetric.getTime*``: ``{window: {key: value}}`` over the keys seen
    (no window at all before the first event)."""
    ret = {}
    for key, stat in key_to_stat.items():
        stat.catch_up(now_ms)
        out_key = thrift_key(key)
        for window, value in read(stat, now_ms).items():
            ret.setdefault(window, {})[out_key] = value
    return ret


def _same(key):
    return key


def _global_stream_id(key):
    component, stream = key
    return GlobalStreamId(componentId=component, streamId=stream)


# Collectors


_NEVER = float("inf")
_NO_STREAMS = {}  # a component with no event yet (never written)
STATS_ROTATION_SECS = 1.0
"""How often a worker runs its collectors' ``rotate_due`` (upstream's timer runs each key's
rotation on time)."""


class _CountAndLatency:
    """One key's count and latency of the same events (acks with their latency, executes
    with theirs)."""

    __slots__ = ("count", "latency")

    def __init__(self, count, latency):
        self.count = count
        self.latency = latency

    def record(self, amount, latency_ms):
        """``incBy(amount)`` and ``record(latency_ms)``."""
        self.count.current += amount
        latency = self.latency
        latency.current_lat += int(latency_ms)
        latency.current_count += 1


class _CommonStats:
    """stats.clj ``CommonStats``: emitted and transferred counts by stream, and the rate.

    Recording adds to a key's current bucket and reads no clock (but for a key's first event,
    which starts its buckets); :meth:`rotate_due` is upstream's rotation timer.
    """

    def __init__(self, clock, sample_rate, rng):
        self.clock = clock
        self.rate = sampling_rate(sample_rate)
        self.rng = rng if rng is not None else random.Random()
        self.emit_sampler = mk_stats_sampler(self.rate, self.rng)
        self.sample = mk_stats_sampler(self.rate, self.rng)
        self.every_event = self.rate == 1  # no sampler to ask
        self.emitted_counts = {}
        self.transferred_counts = {}
        self._emit_stats = {}  # stream -> (its emitted CountStat, its transferred CountStat)
        self._next_rotation = _NEVER  # the earliest rotation due of any key

    def _now_ms(self):
        # Nearest, not truncated: a float of Unix seconds can fall a hair short of a whole ms.
        return int(self.clock() * 1000 + 0.5)

    def _stat_maps(self):
        return [self.emitted_counts, self.transferred_counts]

    def rotate_due(self):
        """Upstream's rotation timer, run now: every key's rotations due by the clock's now,
        each at its time.  Events recorded since the last call are in the bucket the first
        of those rotations closes (upstream's timer fires on time; the worker runs this
        every ``STATS_ROTATION_SECS`` and before each render)."""
        now_ms = self._now_ms()
        if now_ms < self._next_rotation:
            return
        next_rotation = _NEVER
        for key_to_stat in self._stat_maps():
            for stat in key_to_stat.values():
                stat.catch_up(now_ms)
                if stat.next_rotation < next_rotation:
                    next_rotation = stat.next_rotation
        self._next_rotation = next_rotation

    def _new_stat(self, key_to_stat, key, stat_class):
        """A key's first event: its buckets start now."""
        stat = key_to_stat[key] = stat_class(self._now_ms())
        if stat.next_rotation < self._next_rotation:
            self._next_rotation = stat.next_rotation
        return stat

    def _count(self, key_to_stat, key):
        """``incBy`` of ``rate`` into ``key``'s current bucket."""
        stat = key_to_stat.get(key)
        if stat is None:
            stat = self._new_stat(key_to_stat, key, CountStat)
        stat.current += self.rate

    def _new_pair(self, pairs, key_to_count, key_to_latency, pair_key, key):
        """A key's first event counted with a latency: its CountStat and LatencyStat, kept
        together under ``pair_key`` in ``pairs``."""
        pair = pairs[pair_key] = _CountAndLatency(
            self._new_stat(key_to_count, key, CountStat),
            self._new_stat(key_to_latency, key, LatencyStat))
        return pair

    def emitted_to(self, stream, count):
        """Port of ``emitted-tuple!`` then ``transferred-tuples!`` behind task.clj's emit
        sampler: one emit on ``stream`` to ``count`` tasks.  When sampled (upstream records
        both or neither) it counts as ``rate`` emits and ``rate * count`` transfers; returns
        whether it was."""
        if not (self.every_event or self.emit_sampler()):
            return False
        stats = self._emit_stats.get(stream)
        if stats is None:
            stats = self._emit_stats[stream] = (
                self._new_stat(self.emitted_counts, stream, CountStat),
                self._new_stat(self.transferred_counts, stream, CountStat))
        stats[0].current += self.rate
        stats[1].current += self.rate * count
        return True

    def _render_common(self, now_ms):
        return (_by_window(self.emitted_counts, CountStat.time_counts, now_ms, _same),
                _by_window(self.transferred_counts, CountStat.time_counts, now_ms, _same))


class SpoutStatsCollector(_CommonStats):
    """Port of stats.clj ``SpoutExecutorStats`` (``mk-spout-stats``): keys are stream ids."""

    kind = SPOUT

    def __init__(self, clock, sample_rate=DEFAULT_SAMPLE_RATE, rng=None):
        super().__init__(clock, sample_rate, rng)
        self.acked_counts = {}
        self.failed_counts = {}
        self.complete_latencies = {}
        self._acked = {}  # stream -> its _CountAndLatency (one lookup per event)

    def _stat_maps(self):
        return [self.emitted_counts, self.transferred_counts, self.acked_counts,
                self.failed_counts, self.complete_latencies]

    def acked(self, stream, latency_ms):
        """Port of ``spout-acked-tuple!`` as ``ack-spout-msg`` calls it: a tree from ``stream``
        completed after ``latency_ms``; None (its emit was not sampled) counts nothing."""
        if latency_ms is not None:
            pair = self._acked.get(stream) or self._new_pair(
                self._acked, self.acked_counts, self.complete_latencies, stream, stream)
            pair.record(self.rate, latency_ms)

    def failed(self, stream, latency_ms):
        """Port of ``spout-failed-tuple!`` as ``fail-spout-msg`` calls it: a tree from
        ``stream`` failed; None counts nothing, else one failure (upstream keeps no failure
        latency)."""
        if latency_ms is not None:
            self._count(self.failed_counts, stream)

    def render(self):
        """Port of ``render-stats!`` then ``thriftify-executor-stats``: the ``ExecutorStats``
        as of the clock's now (the rotations due run first)."""
        self.rotate_due()
        now_ms = self._now_ms()
        emitted, transferred = self._render_common(now_ms)
        spout = SpoutStats(
            acked=_by_window(self.acked_counts, CountStat.time_counts, now_ms, _same),
            failed=_by_window(self.failed_counts, CountStat.time_counts, now_ms, _same),
            complete_ms_avg=_by_window(self.complete_latencies, LatencyStat.time_lat_avg,
                                       now_ms, _same))
        return ExecutorStats(emitted=emitted, transferred=transferred,
                             specific=ExecutorSpecificStats(spout=spout), rate=float(self.rate))


class BoltStatsCollector(_CommonStats):
    """Port of stats.clj ``BoltExecutorStats`` (``mk-bolt-stats``): keys are the input's
    source ``(component, stream)``, rendered as ``GlobalStreamId``."""

    kind = BOLT

    def __init__(self, clock, sample_rate=DEFAULT_SAMPLE_RATE, rng=None):
        super().__init__(clock, sample_rate, rng)
        self.sample_execute = mk_stats_sampler(self.rate, self.rng)
        self.acked_counts = {}
        self.failed_counts = {}
        self.process_latencies = {}
        self.executed_counts = {}
        self.execute_latencies = {}
        # component -> stream -> its _CountAndLatency (two lookups of strings per event)
        self._executed = {}
        self._acked = {}

    def _stat_maps(self):
        return [self.emitted_counts, self.transferred_counts, self.acked_counts,
                self.failed_counts, self.process_latencies, self.executed_counts,
                self.execute_latencies]

    def executed(self, component, stream, latency_ms):
        """Port of ``bolt-execute-tuple!`` as the bolt's ``tuple-action-fn`` calls it: an input
        from ``component``/``stream`` took ``latency_ms`` in ``execute``; None or negative
        (not picked by ``sample_execute``; upstream's -1) counts nothing."""
        if latency_ms is not None and latency_ms >= 0:
            pair = self._executed.get(component, _NO_STREAMS).get(stream)
            if pair is None:
                pair = self._new_source_pair(self._executed, self.executed_counts,
                                             self.execute_latencies, component, stream)
            pair.record(self.rate, latency_ms)

    def acked(self, component, stream, latency_ms):
        """Port of ``bolt-acked-tuple!`` as the bolt's ``ack`` calls it: an input was acked
        ``latency_ms`` after its execute began (the process latency); None or negative (not
        picked by ``sample`` at its execute) counts nothing."""
        if latency_ms is not None and latency_ms >= 0:
            pair = self._acked.get(component, _NO_STREAMS).get(stream)
            if pair is None:
                pair = self._new_source_pair(self._acked, self.acked_counts,
                                             self.process_latencies, component, stream)
            pair.record(self.rate, latency_ms)

    def _new_source_pair(self, pairs, key_to_count, key_to_latency, component, stream):
        """An input source's first event counted with a latency: ``_new_pair`` under
        ``pairs[component][stream]`` (no key tuple to build and hash per event)."""
        return self._new_pair(pairs.setdefault(component, {}), key_to_count, key_to_latency,
                              stream, (component, stream))

    def failed(self, component, stream, latency_ms):
        """Port of ``bolt-failed-tuple!`` as the bolt's ``fail`` calls it: an input failed
        ``latency_ms`` after its execute began; None or negative counts nothing, else one
        failure (upstream keeps no failure latency)."""
        if latency_ms is not None and latency_ms >= 0:
            self._count(self.failed_counts, (component, stream))

    def render(self):
        """Port of ``render-stats!`` then ``thriftify-executor-stats``: the ``ExecutorStats``
        as of the clock's now (the rotations due run first)."""
        self.rotate_due()
        now_ms = self._now_ms()
        emitted, transferred = self._render_common(now_ms)
        counts, latencies = CountStat.time_counts, LatencyStat.time_lat_avg
        bolt = BoltStats(
            acked=_by_window(self.acked_counts, counts, now_ms, _global_stream_id),
            failed=_by_window(self.failed_counts, counts, now_ms, _global_stream_id),
            process_ms_avg=_by_window(self.process_latencies, latencies, now_ms,
                                      _global_stream_id),
            executed=_by_window(self.executed_counts, counts, now_ms, _global_stream_id),
            execute_ms_avg=_by_window(self.execute_latencies, latencies, now_ms,
                                      _global_stream_id))
        return ExecutorStats(emitted=emitted, transferred=transferred,
                             specific=ExecutorSpecificStats(bolt=bolt), rate=float(self.rate))


_COLLECTORS = {SPOUT: SpoutStatsCollector, BOLT: BoltStatsCollector}


def ExecutorStatsCollector(component_kind, clock, sample_rate=DEFAULT_SAMPLE_RATE, rng=None):
    """Port of executor.clj ``mk-executor-stats``: a spout's or a bolt's collector.

    :param rng: a ``random.Random`` for the samplers (tests seed it).
    :raises ValueError: ``component_kind`` is neither ``"spout"`` nor ``"bolt"``, or
        ``sample_rate`` is not in (0, 1].
    """
    collector = _COLLECTORS.get(component_kind)
    if collector is None:
        raise ValueError("component kind must be %r or %r, not %r"
                         % (SPOUT, BOLT, component_kind))
    return collector(clock, sample_rate, rng)


# Heartbeats


def _executor_info(executor):
    if isinstance(executor, ExecutorInfo):
        return executor
    start, end = executor
    return ExecutorInfo(task_start=start, task_end=end)


def worker_heartbeat(storm_id, executor_to_stats, time_secs, uptime_secs):
    """Port of worker.clj ``do-executor-heartbeats``' heartbeat and converter.clj
    ``thriftify-zk-worker-hb``: the ``ClusterWorkerHeartbeat`` for
    ``StormClusterState.worker_heartbeat``.

    :param executor_to_stats: ``{executor: ExecutorStats or None}``, executors as
        ``ExecutorInfo`` or ``(start, end)``; None for an executor not built yet.
    :returns: the heartbeat without the executors that have no stats, or None when none has
        any (upstream then writes nothing).
    """
    executor_stats = {_executor_info(executor): stats
                      for executor, stats in executor_to_stats.items() if stats is not None}
    if not executor_stats:
        return None
    return ClusterWorkerHeartbeat(storm_id=storm_id, executor_stats=executor_stats,
                                  time_secs=int(time_secs), uptime_secs=int(uptime_secs))


def ls_worker_heartbeat(time_secs, storm_id, executors, port):
    """Port of local_state.clj ``ls-worker-heartbeat!``'s value: the ``LSWorkerHeartbeat`` a
    worker puts under ``worker-heartbeat`` in its heartbeats LocalState.

    :param executors: ``ExecutorInfo`` or ``(start, end)``, the system executor included.
    """
    return LSWorkerHeartbeat(time_secs=int(time_secs), topology_id=storm_id,
                             executors=[_executor_info(e) for e in executors], port=int(port))
