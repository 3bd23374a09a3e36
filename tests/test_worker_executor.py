"""Executors without processes, on a ``task.Clock``: tick tuples (executor.clj
``setup-ticks!``) through the receive queue, a spout's exchanges with its host, a bolt whose
host stops reading, and acker messages."""
# test-case-name: tests.test_worker_executor

import pytest
from twisted.internet import task

from pynimbus.worker import executor, stats
from pynimbus.worker.spout_pending import ACK, SpoutCallback
from pynimbus.worker.groupings import FieldsGrouper
from pynimbus.worker.message_id import UNANCHORED, MessageId
from pynimbus.worker.multilang.shell_host import PIPELINED_SPOUT_EXCHANGES
from pynimbus.worker.receive_queue import ExecutorLoop


def context(clock, compat="1.x", throttled=lambda: False, room_again=lambda: None, **conf):
    fields = dict.fromkeys(executor.WorkerContext._fields)
    fields.update(reactor=clock, compat=compat, storm_conf=conf, has_ackers=False,
                  generate_id=lambda: 7, now_ms=lambda: int(clock.seconds() * 1000),
                  throttled=throttled, loop=ExecutorLoop(clock.callLater, room_again))
    return executor.WorkerContext(**fields)


class Recording(executor.NoopBoltExecutor):
    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.received = []

    def accept(self, task_id, tuple_):
        self.received.append((task_id, tuple_.source_task, tuple_.source_component,
                              tuple_.stream, tuple_.values))


class RecordingSpout(Recording):
    is_spout = True


def ticked(cls, component_id, component_conf, compat="1.x", seconds=(5, 5)):
    clock = task.Clock()
    recording = cls(context(clock, compat), component_id, [3, 4], {}, component_conf, None)
    recording.start()
    for step in seconds:
        clock.advance(step)
    recording.stop()
    assert not clock.getDelayedCalls()
    return recording.received


def test_a_bolt_gets_a_tick_per_task_every_period():
    """Every task of the executor, every ``topology.tick.tuple.freq.secs``, from task -1 of
    ``__system`` on ``__tick`` with the frequency as its value; none before the first."""
    conf = {"topology.tick.tuple.freq.secs": 5}
    assert ticked(Recording, "counter", conf, seconds=[4.9]) == []
    tick = (-1, "__system", "__tick", [5])
    assert ticked(Recording, "counter", conf) == [
        (3,) + tick, (4,) + tick, (3,) + tick, (4,) + tick]


def test_no_ticks_without_a_frequency():
    assert ticked(Recording, "counter", {}) == []


@pytest.mark.parametrize("compat, acker_ticks", [("1.x", 0), ("2.x", 4)])
def test_system_components_get_no_ticks_but_the_2x_acker(compat, acker_ticks):
    """1.2.4 ticks no system component (its acker logs "Timeouts disabled"); 2.8.8 ticks the
    acker."""
    conf = {"topology.tick.tuple.freq.secs": 5}
    assert ticked(Recording, "__system", conf, compat) == []
    assert len(ticked(Recording, "__acker", conf, compat)) == acker_ticks


def test_a_spout_gets_no_ticks_when_message_timeouts_are_off():
    conf = {"topology.tick.tuple.freq.secs": 30, "topology.enable.message.timeouts": False}
    assert ticked(RecordingSpout, "spout", conf, seconds=[30]) == []
    conf["topology.enable.message.timeouts"] = True
    assert len(ticked(RecordingSpout, "spout", conf, seconds=[30])) == 2


# -- a spout's exchanges with its host


class FakeHost:
    """A host that answers later (as a multilang child): it records what it is asked."""

    def __init__(self, pipelined_exchanges=PIPELINED_SPOUT_EXCHANGES):
        self.written = []
        self.can_pause = False
        self.paused = False
        self.pipelined_exchanges = pipelined_exchanges

    def launch(self):
        from twisted.internet import defer
        return defer.succeed(None)

    def command(self, command, message_id=""):
        self.written.append(command)

    def execute(self, tuple_id, tuple_):
        self.written.append(tuple_id)


def active_spout(clock, throttled=lambda: False, **conf):
    host = FakeHost()
    spout = executor.SpoutExecutor(
        context(clock, throttled=throttled, **conf), "spout", [1], {}, {},
        stats.ExecutorStatsCollector("spout", clock.seconds),
        host_factory=lambda executor, task_id: host, on_child_died=None)
    spout.launch_children()
    spout.active = True
    spout.children_ready()
    return spout


def emit(spout):
    """The host's emit of one unanchored tuple (ShellSpout's handler)."""
    spout.spout_emit(1, "default", ["w"], None)


def test_a_throttled_spout_waits_and_asks_again():
    """While ``throttled()`` says so, no ``next`` is sent; it is asked for again a moment
    later, once the throttle is off."""
    clock = task.Clock()
    throttle = [True]
    spout = active_spout(clock, throttled=lambda: throttle[0])
    spout.sync(1)  # the activate exchange ends
    clock.advance(0)
    assert spout.hosts[1].written == ["activate"]
    throttle[0] = False
    clock.advance(executor.SPOUT_IDLE_WAIT_SECS)
    assert spout.hosts[1].written == ["activate", "next"]


def test_nexts_under_way_double_with_each_that_emitted_up_to_the_pipeline():
    """One next at first; each that emits doubles how many may be under way, up to
    PIPELINED_NEXTS."""
    clock = task.Clock()
    spout = active_spout(clock)
    spout.sync(1)  # the activate exchange ends: a next at once
    under_way = []
    for _ in range(8):
        under_way.append(spout._nexts[1])
        emit(spout)
        spout.sync(1)
    assert under_way == [1, 2, 4, 8, 16, 32, 32, 32]
    assert executor.PIPELINED_NEXTS == 32


def test_a_spout_waits_only_after_a_next_that_emitted_nothing():
    """Storm's spout wait strategy counts only empty ``nextTuple`` calls: after the activate
    exchange (ack and fail alike) and after a next that emitted, the spout is asked again
    at once (no reactor turn); after one that emitted nothing, once, a moment later (an idle
    spout is asked once per wait, as in Storm)."""
    clock = task.Clock()
    spout = active_spout(clock)
    written = spout.hosts[1].written
    spout.sync(1)  # the activate exchange ends
    assert written == ["activate", "next"]
    emit(spout)
    spout.sync(1)  # it emitted: two in its place
    assert written == ["activate"] + ["next"] * 3
    spout.sync(1)  # one emitted nothing: no more until the wait is over
    spout.sync(1)
    clock.advance(0)
    assert written == ["activate"] + ["next"] * 3
    for _ in range(3):
        clock.advance(executor.SPOUT_IDLE_WAIT_SECS)
        assert written[-1] == "next"
        spout.sync(1)  # nothing again
    assert written == ["activate"] + ["next"] * 6


def test_nexts_under_way_count_toward_max_spout_pending():
    """With ``topology.max.spout.pending`` 3 and no tree pending, at most three nexts are
    under way however many emitted."""
    clock = task.Clock()
    spout = active_spout(clock, **{"topology.max.spout.pending": 3})
    spout.sync(1)
    for _ in range(6):
        emit(spout)
        spout.sync(1)
        assert spout._nexts[1] <= 3
    assert spout._nexts[1] == 3


def test_acks_are_written_behind_the_exchanges_under_way():
    """Acks go to the host while a next waits for its sync (the child answers in order),
    and a next goes behind them once the first one ends."""
    clock = task.Clock()
    spout = active_spout(clock, **{"topology.max.spout.pending": 1})
    written = spout.hosts[1].written
    spout.sync(1)
    assert written == ["activate", "next"]
    spout._call_back([SpoutCallback(ACK, 1, m, "default", None, None) for m in ("a", "b")])
    assert written == ["activate", "next", "ack", "ack"]
    emit(spout)  # the next's emit
    spout.sync(1)  # the next ends: another behind the acks
    assert written == ["activate", "next", "ack", "ack", "next"]
    spout.sync(1)
    spout.sync(1)
    assert written == ["activate", "next", "ack", "ack", "next"]


def test_spout_exchanges_past_the_pipeline_wait_in_order():
    clock = task.Clock()
    spout = active_spout(clock, **{"topology.max.spout.pending": 1})
    spout.sync(1)
    written = spout.hosts[1].written
    depth = PIPELINED_SPOUT_EXCHANGES
    spout._call_back([SpoutCallback(ACK, 1, m, "default", None, None)
                      for m in range(depth + 2)])
    assert written.count("ack") == depth - 1  # the next under way is one of the depth
    spout.sync(1)
    assert written.count("ack") == depth
    assert list(spout._queued[1]) == [("ack", depth), ("ack", depth + 1)]


def test_acks_reach_the_spout_through_its_receive_queue():
    """The acker's ``__ack_ack`` for a tree the spout emitted becomes an ``ack`` exchange
    only when the loop hands it over, and the spout is asked for more after the batch."""
    clock = task.Clock()
    host = FakeHost()
    transferred = []
    ctx = context(clock, **{"topology.max.spout.pending": 1})._replace(
        has_ackers=True, generate_id=lambda: 11,
        transfer=lambda *message: transferred.append(message))
    spout = executor.SpoutExecutor(
        ctx, "spout", [1], {"default": {"split": lambda task_id, values: [9]},
                            "__ack_init": {"__acker": lambda task_id, values: [7]}}, {},
        stats.ExecutorStatsCollector("spout", clock.seconds),
        host_factory=lambda executor, task_id: host, on_child_died=None)
    spout.launch_children()
    spout.active = True
    spout.children_ready()
    spout.sync(1)
    spout.spout_emit(1, "default", ["w"], "m1")
    spout.sync(1)  # at max spout pending: no next now
    assert host.written == ["activate", "next"]
    [(acker_task, _, stream, _, (root, _, _))] = [m for m in transferred if m[0] == 7]
    assert stream == "__ack_init"
    spout.receive(1, executor.TupleImpl(7, "__acker", "__ack_ack", [root, 3], UNANCHORED))
    assert host.written == ["activate", "next"]  # queued, not yet handed over
    clock.advance(0)
    assert host.written == ["activate", "next", "ack", "next"]


# -- a bolt whose host stops reading: its queue fills, the worker is throttled


def test_a_bolt_whose_host_is_paused_fills_its_queue_until_the_host_resumes():
    """No tuple goes to a paused host; the queue that holds the high watermark's share of
    ``topology.executor.receive.buffer.size`` is full (the spouts of the worker are
    throttled); when the host resumes, the queue drains and, below the low watermark, is no
    longer full (the worker reads its connections again)."""
    clock = task.Clock()
    rooms = []
    host = FakeHost()
    host.can_pause = True
    bolt = executor.BoltExecutor(
        context(clock, room_again=lambda: rooms.append(1),
                **{"topology.executor.receive.buffer.size": 10}),
        "split", [5], {}, {}, stats.ExecutorStatsCollector("bolt", clock.seconds),
        host_factory=lambda executor, task_id: host, on_child_died=None)
    bolt.launch_children()
    loop = bolt.context.loop
    host.paused = True
    for n in range(9):
        assert not bolt.queue.full
        bolt.receive(5, executor.TupleImpl(1, "spout", "default", [n], UNANCHORED))
    clock.advance(0)
    assert host.written == [] and bolt.queue.full and loop.full_count == 1 and rooms == []
    host.paused = False
    bolt.host_resumed()
    clock.advance(0)
    assert host.written == [str(n) for n in range(1, 10)]
    assert not bolt.queue.full and loop.full_count == 0 and rooms == [1]


# -- acker messages: to the acker task the fields grouping picks


def test_an_ack_goes_to_the_acker_task_its_root_picks():
    """With two acker tasks (Storm's default of one acker per worker, two workers), each
    root's ``__ack_ack`` goes by ``transfer`` to the task the fields grouping on its root id
    picks; both are counted as emitted on ``__ack_ack``."""
    clock = task.Clock()
    transferred = []
    ctx = context(clock)._replace(has_ackers=True, now_ms=lambda: 1000,
                                  transfer=lambda *message: transferred.append(message))
    to_ackers = FieldsGrouper(["id", "ack-val"], ["id"], [7, 8])
    bolt_stats = stats.ExecutorStatsCollector("bolt", clock.seconds, 1.0)
    bolt = executor.BoltExecutor(
        ctx, "split", [2], {"__ack_ack": {"__acker": to_ackers}}, {}, bolt_stats,
        host_factory=None, on_child_died=None)
    roots = {}
    for root in range(100, 200):
        roots.setdefault(to_ackers(2, [root, 0])[0], root)
    seven, eight = roots[7], roots[8]
    input_tuple = executor.TupleImpl(1, "sentences", "default", ["x"],
                                     MessageId({seven: 5, eight: 9}))
    input_tuple.ack_val = 3
    bolt.acked(2, input_tuple)
    assert sorted(transferred) == [(7, 2, "__ack_ack", UNANCHORED, [seven, 5 ^ 3]),
                                   (8, 2, "__ack_ack", UNANCHORED, [eight, 9 ^ 3])]
    assert bolt_stats.emitted_counts["__ack_ack"].current == 2


def test_the_acker_executes_what_its_queue_hands_over():
    clock = task.Clock()
    acker = executor.AckerExecutor(context(clock)._replace(now_ms=lambda: 1000), "__acker",
                                   [7], {}, {},
                                   stats.ExecutorStatsCollector("bolt", clock.seconds))
    acker.receive(7, executor.TupleImpl(2, "split", "__ack_ack", [42, 5], UNANCHORED))
    assert acker.acker.pending.get(42) is None
    clock.advance(0)
    assert acker.acker.pending.get(42).val == 5


def test_a_halted_spout_asks_for_nothing_and_tells_its_host_nothing():
    clock = task.Clock()
    spout = active_spout(clock)
    spout.sync(1)  # the activate exchange ends: a next
    written = list(spout.hosts[1].written)
    spout.halt()
    emit(spout)
    spout.sync(1)
    clock.advance(1)
    assert spout.hosts[1].written == written == ["activate", "next"]


def test_the_acker_drops_a_malformed_ack_and_keeps_its_state(caplog):
    clock = task.Clock()
    acker = executor.AckerExecutor(context(clock)._replace(now_ms=lambda: 1000), "__acker",
                                   [7], {}, {},
                                   stats.ExecutorStatsCollector("bolt", clock.seconds))
    acker.receive(7, executor.TupleImpl(2, "split", "__ack_ack", [42, 5], UNANCHORED))
    acker.receive(7, executor.TupleImpl(2, "split", "__ack_ack", [42, 5, 6], UNANCHORED))
    acker.receive(7, executor.TupleImpl(2, "split", "__ack_ack", [42, "x"], UNANCHORED))
    clock.advance(0)
    assert acker.acker.pending.get(42).val == 5
    assert caplog.text.count("dropped a malformed tuple on __ack_ack") == 2
