"""The executor's timers without processes: tick tuples (executor.clj ``setup-ticks!``) on a
``task.Clock``."""
# test-case-name: tests.test_worker_executor

import pytest
from twisted.internet import task

from pynimbus.worker import executor, stats
from pynimbus.worker.spout_pending import ACK, SpoutCallback
from pynimbus.worker.groupings import FieldsGrouper
from pynimbus.worker.message_id import UNANCHORED, MessageId
from pynimbus.worker.multilang.shell_msg import Ack, Emit, Sync


def context(clock, compat="1.x"):
    fields = dict.fromkeys(executor.WorkerContext._fields)
    fields.update(reactor=clock, compat=compat)
    return executor.WorkerContext(**fields)


class Recording(executor.NoopBoltExecutor):
    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.received = []

    def receive(self, tuple_, task_id=None):
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


# -- throttling: a full bolt stops the spouts, and says when it has room again


class FakeProcess:
    def __init__(self):
        self.written = []

    def write_spout_msg(self, command, message_id=""):
        self.written.append(command)

    def write_bolt_msg(self, tuple_id, source_component, source_stream, source_task, values):
        self.written.append(tuple_id)


def shell_context(clock, throttled=lambda: False, room_again=lambda: None, **conf):
    fields = dict.fromkeys(executor.WorkerContext._fields)
    fields.update(reactor=clock, compat="1.x", storm_conf=conf, has_ackers=False,
                  generate_id=lambda: 7, now_ms=lambda: int(clock.seconds() * 1000),
                  throttled=throttled, room_again=room_again)
    return executor.WorkerContext(**fields)


def active_spout(clock, throttled=lambda: False, **conf):
    spout = executor.ShellSpoutExecutor(
        shell_context(clock, throttled=throttled, **conf), "spout", [1], {}, {},
        stats.ExecutorStatsCollector("spout", clock.seconds), command=None, on_child_died=None)
    spout.processes = {1: FakeProcess()}
    spout.active = True
    spout.children_ready()
    return spout


EMIT = Emit("default", ["w"], (), None, False, None)


def test_a_throttled_spout_waits_and_asks_again():
    """While ``throttled()`` says so, no ``next`` is sent; it is asked for again a moment
    later, once the throttle is off."""
    clock = task.Clock()
    throttle = [True]
    spout = active_spout(clock, throttled=lambda: throttle[0])
    spout.on_action(1, Sync())  # the activate exchange ends
    clock.advance(0)
    assert spout.processes[1].written == ["activate"]
    throttle[0] = False
    clock.advance(executor.SPOUT_IDLE_WAIT_SECS)
    assert spout.processes[1].written == ["activate", "next"]


def test_nexts_under_way_double_with_each_that_emitted_up_to_the_pipeline():
    """One next at first; each that emits doubles how many may be under way, up to
    PIPELINED_NEXTS."""
    clock = task.Clock()
    spout = active_spout(clock)
    spout.on_action(1, Sync())  # the activate exchange ends: a next at once
    under_way = []
    for _ in range(8):
        under_way.append(spout._nexts[1])
        spout.on_action(1, EMIT)
        spout.on_action(1, Sync())
    assert under_way == [1, 2, 4, 8, 16, 32, 32, 32]
    assert executor.PIPELINED_NEXTS == 32


def test_a_spout_waits_only_after_a_next_that_emitted_nothing():
    """Storm's spout wait strategy counts only empty ``nextTuple`` calls: after the activate
    exchange (ack and fail alike) and after a next that emitted, the spout is asked again
    at once (no reactor turn); after one that emitted nothing, once, a moment later (an idle
    spout is asked once per wait, as in Storm)."""
    clock = task.Clock()
    spout = active_spout(clock)
    written = spout.processes[1].written
    spout.on_action(1, Sync())  # the activate exchange ends
    assert written == ["activate", "next"]
    spout.on_action(1, EMIT)
    spout.on_action(1, Sync())  # it emitted: two in its place
    assert written == ["activate"] + ["next"] * 3
    spout.on_action(1, Sync())  # one emitted nothing: no more until the wait is over
    spout.on_action(1, Sync())
    clock.advance(0)
    assert written == ["activate"] + ["next"] * 3
    for _ in range(3):
        clock.advance(executor.SPOUT_IDLE_WAIT_SECS)
        assert written[-1] == "next"
        spout.on_action(1, Sync())  # nothing again
    assert written == ["activate"] + ["next"] * 6


def test_nexts_under_way_count_toward_max_spout_pending():
    """With ``topology.max.spout.pending`` 3 and no tree pending, at most three nexts are
    under way however many emitted."""
    clock = task.Clock()
    spout = active_spout(clock, **{"topology.max.spout.pending": 3})
    spout.on_action(1, Sync())
    for _ in range(6):
        spout.on_action(1, EMIT)
        spout.on_action(1, Sync())
        assert spout._nexts[1] <= 3
    assert spout._nexts[1] == 3


def test_acks_are_written_behind_the_exchanges_under_way():
    """Acks go to the child while a next waits for its sync (the child answers in order),
    and a next goes behind them once the first one ends."""
    clock = task.Clock()
    spout = active_spout(clock, **{"topology.max.spout.pending": 1})
    written = spout.processes[1].written
    spout.on_action(1, Sync())
    assert written == ["activate", "next"]
    spout._call_back([SpoutCallback(ACK, 1, m, "default", None, None) for m in ("a", "b")])
    assert written == ["activate", "next", "ack", "ack"]
    spout.on_action(1, EMIT)  # the next's emit
    spout.on_action(1, Sync())  # the next ends: another behind the acks
    assert written == ["activate", "next", "ack", "ack", "next"]
    spout.on_action(1, Sync())
    spout.on_action(1, Sync())
    assert written == ["activate", "next", "ack", "ack", "next"]


def test_spout_exchanges_past_the_pipeline_wait_in_order():
    clock = task.Clock()
    spout = active_spout(clock, **{"topology.max.spout.pending": 1})
    spout.on_action(1, Sync())
    written = spout.processes[1].written
    depth = executor.PIPELINED_SPOUT_EXCHANGES
    spout._call_back([SpoutCallback(ACK, 1, m, "default", None, None)
                      for m in range(depth + 2)])
    assert written.count("ack") == depth - 1  # the next under way is one of the depth
    spout.on_action(1, Sync())
    assert written.count("ack") == depth
    assert list(spout._queued[1]) == [("ack", depth), ("ack", depth + 1)]


def test_a_full_shell_bolt_has_no_room_until_an_ack():
    """``topology.executor.receive.buffer.size`` unfinished tuples fill a task; the ack of
    one calls ``room_again`` once."""
    clock = task.Clock()
    rooms = []
    bolt = executor.ShellBoltExecutor(
        shell_context(clock, room_again=lambda: rooms.append(1),
                      **{"topology.executor.receive.buffer.size": 2}),
        "split", [5], {}, {}, stats.ExecutorStatsCollector("bolt", clock.seconds),
        command=None, on_child_died=None)
    bolt.processes = {5: FakeProcess()}
    for _ in range(2):
        bolt.receive(executor.TupleImpl(1, "spout", "default", ["a"], UNANCHORED), 5)
    assert not bolt.has_room()
    bolt.on_action(5, Ack(bolt.processes[5].written[0]))
    assert bolt.has_room() and rooms == [1]
    bolt.on_action(5, Ack(bolt.processes[5].written[1]))
    assert rooms == [1]


# -- acker messages: to the acker task the fields grouping picks, at once when it is local


def test_an_ack_goes_at_once_to_a_local_acker_and_by_transfer_to_a_remote_one():
    """With two acker tasks (Storm's default of one acker per worker, two workers), each
    root's ``__ack_ack`` goes to the task the fields grouping on its root id picks: the
    local acker's entry takes it in the bolt's call, the other task's goes by ``transfer``;
    both are counted as emitted on ``__ack_ack``."""
    clock = task.Clock()
    transferred = []
    fields = dict.fromkeys(executor.WorkerContext._fields)
    fields.update(reactor=clock, compat="1.x", storm_conf={}, has_ackers=True,
                  now_ms=lambda: 1000,
                  transfer=lambda *message: transferred.append(message))
    ctx = executor.WorkerContext(**fields)
    to_ackers = FieldsGrouper(["id", "ack-val"], ["id"], [7, 8])
    bolt_stats = stats.ExecutorStatsCollector("bolt", clock.seconds, 1.0)
    bolt = executor.ShellBoltExecutor(
        ctx, "split", [2], {"__ack_ack": {"__acker": to_ackers}}, {}, bolt_stats,
        command=None, on_child_died=None)
    local_acker = executor.AckerExecutor(ctx, "__acker", [7], {}, {},
                                         stats.ExecutorStatsCollector("bolt", clock.seconds))
    bolt.found_local_executors({2: bolt, 7: local_acker})
    roots = {}
    for root in range(100, 200):
        roots.setdefault(to_ackers(2, [root, 0])[0], root)
    local_root, remote_root = roots[7], roots[8]
    input_tuple = executor.TupleImpl(1, "sentences", "default", ["x"],
                                     MessageId({local_root: 5, remote_root: 9}))
    input_tuple.ack_val = 3
    bolt.acked(2, input_tuple)
    assert local_acker.acker.pending.get(local_root).val == 5 ^ 3
    assert transferred == [(8, 2, "__ack_ack", UNANCHORED, [remote_root, 9 ^ 3])]
    assert bolt_stats.emitted_counts["__ack_ack"].current == 2
