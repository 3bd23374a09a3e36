"""Tests of the worker's at-least-once bookkeeping: RotatingMap, message ids, the acker, the
spout's pending trees, on literal data."""

import ast
import os
import random

import msgpack
import pytest

import pynimbus.worker
from purity import imported_modules
from pynimbus.worker.acker import (
    Acker, Emit, bolt_ack, bolt_fail, bolt_reset_timeout)
from pynimbus.worker.message_id import (
    UNANCHORED, MessageId, TupleIds, bit_xor_vals, bolt_emit_message_ids, java_long,
    mk_id_source)
from pynimbus.worker.rotating_map import RotatingMap
from pynimbus.worker.spout_pending import (
    ACK, FAIL, REASON_FAIL_STREAM, REASON_TIMEOUT, SpoutCallback, SpoutPending,
    executor_max_spout_pending)

INIT, ACKS, FAILS, RESET, TICK = (
    "__ack_init", "__ack_ack", "__ack_fail", "__ack_reset_timeout", "__tick")
SPOUT_TASK = 7
# Edge and root ids as Random.nextLong draws them: signed, some negative, some at the limits.
IDS = [-0x7fffffffffffffff - 1, 0x7fffffffffffffff, -2, 0x1234567890abcdef, -0x5555555555555556,
       3, 0x0fedcba987654321, -0x100000000, 99, -77, 0x4000000000000000, -0x3fffffffffffffff]


def id_source(ids=IDS):
    return iter(ids).__next__


# RotatingMap


def test_rotating_map_expires_a_key_on_the_num_buckets_th_rotation_after_its_put():
    """A key lives through num_buckets - 1 rotations; the next one returns it."""
    pending = RotatingMap(3)
    pending.put("a", 1)
    assert pending.rotate() == {} and pending.rotate() == {}
    assert pending.get("a") == 1 and "a" in pending and pending.size() == 1
    assert pending.rotate() == {"a": 1}
    assert pending.get("a") is None and len(pending) == 0


def test_rotating_map_put_restarts_expiry_and_remove_returns_the_value():
    """A put moves the key to the newest bucket (one copy only); remove returns its value."""
    pending = RotatingMap(2)
    pending.put("a", 1)
    pending.put("b", 2)
    pending.rotate()
    pending.put("a", 3)
    assert pending.size() == 2
    assert pending.rotate() == {"b": 2}
    assert pending.remove("a") == 3 and pending.remove("a") is None
    assert pending.size() == 0


def test_rotating_map_refresh_is_get_then_put_of_the_same_value():
    """refresh returns the value and restarts its expiry as a put would; a missing key gives
    the default and stores nothing."""
    pending = RotatingMap(2)
    pending.put("a", 1)
    pending.put("b", 2)
    pending.rotate()
    assert pending.refresh("a") == 1 and pending.refresh("a") == 1
    assert pending.refresh("nope", 0) == 0 and "nope" not in pending
    assert pending.size() == 2
    assert pending.rotate() == {"b": 2}
    assert pending.rotate() == {"a": 1}


def test_rotating_map_refuses_fewer_than_two_buckets():
    """One bucket would expire a key on the first rotation; Storm refuses it too."""
    with pytest.raises(ValueError, match="at least 2 buckets"):
        RotatingMap(1)


# ids on the wire


def test_java_long_wraps_unsigned_draws_into_the_signed_range():
    """Ids are Java longs: unsigned 64-bit draws wrap as two's complement."""
    assert java_long(2 ** 64 - 1) == -1
    assert java_long(2 ** 63) == -2 ** 63
    assert java_long(2 ** 63 - 1) == 2 ** 63 - 1
    assert java_long(-1) == -1
    assert mk_id_source(random.Random(1))() == java_long(random.Random(1).getrandbits(64))


def test_xor_of_java_longs_stays_a_java_long_and_encodes_as_msgpack_int64():
    """XOR never leaves the signed range, so an ack value encodes as int 64 (0xd3), the
    type a Java peer reads, never as uint 64 (0xcf)."""
    xor = bit_xor_vals([-2 ** 63, 2 ** 63 - 1, -2])
    assert xor == java_long(0x8000000000000000 ^ 0x7fffffffffffffff ^ 0xfffffffffffffffe)
    assert -2 ** 63 <= xor < 2 ** 63
    assert msgpack.packb(java_long(2 ** 64 - 2 ** 40))[:1] == b"\xd3"
    assert msgpack.packb(2 ** 64 - 2 ** 40)[:1] == b"\xcf"
    assert msgpack.unpackb(msgpack.packb(xor)) == xor
    assert bit_xor_vals([]) == 0


# a tree of anchored emits


def build_tree(generate_id):
    """The spout emits to tasks 10 and 11; 10 emits to 20 and 21, 11 emits nothing; 20 and 21
    each emit to 30, which emits one tuple anchored on both of them to 40.  Returns the
    SpoutPending, the spout's ``__ack_init`` and the seven received tuples' TupleIds."""
    spout = SpoutPending(None, True, generate_id)
    sent = spout.send_spout_msg(SPOUT_TASK, "default", "msg-1", [10, 11], start_time_ms=10)
    t10, t11 = (TupleIds(mid) for mid in sent.message_ids)
    t20, t21 = (TupleIds(mid) for mid in bolt_emit_message_ids([t10], [20, 21], generate_id))
    (x,) = (TupleIds(mid) for mid in bolt_emit_message_ids([t20], [30], generate_id))
    (y,) = (TupleIds(mid) for mid in bolt_emit_message_ids([t21], [30], generate_id))
    (t40,) = (TupleIds(mid) for mid in bolt_emit_message_ids([x, y], [40], generate_id))
    return spout, sent.acker_emits, [t10, t11, t20, t21, x, y, t40]


def run_tree(generate_id):
    """build_tree, then every tuple acked: the SpoutPending and every message for the acker
    in the order the executors produced them."""
    spout, messages, tuples = build_tree(generate_id)
    messages = list(messages)
    for acked in tuples:
        messages.extend(bolt_ack(acked))
    return spout, messages


def test_spout_emit_roots_each_out_tuple_and_inits_the_acker_with_the_xor():
    """Root id first, then one edge id per out task; __ack_init carries their XOR."""
    spout = SpoutPending(None, True, id_source())
    sent = spout.send_spout_msg(SPOUT_TASK, "default", "msg-1", [10, 11])
    assert sent.message_ids == [MessageId({IDS[0]: IDS[1]}), MessageId({IDS[0]: IDS[2]})]
    assert sent.acker_emits == (Emit(INIT, [IDS[0], IDS[1] ^ IDS[2], SPOUT_TASK], None),)
    assert sent.callbacks == () and spout.pending_count() == 1


def test_multi_anchored_emit_xors_one_edge_per_anchor_under_each_root():
    """An emit anchored on tuples of two trees gets one edge id per anchor, under each of the
    anchor's roots, and each anchor's ack value takes its own edge id."""
    a = TupleIds(MessageId({100: 1}))
    b = TupleIds(MessageId({200: 2, 100: 4}))
    unrooted = TupleIds(UNANCHORED)
    (mid,) = bolt_emit_message_ids([a, b, unrooted], [5], id_source([16, 32]))
    assert mid == MessageId({100: 16 ^ 32, 200: 32})
    assert (a.ack_val, b.ack_val, unrooted.ack_val) == (16, 32, 0)
    assert bolt_ack(b) == [Emit(ACKS, [200, 2 ^ 32], None), Emit(ACKS, [100, 4 ^ 32], None)]
    assert bolt_emit_message_ids([unrooted], [5, 6], id_source([])) == [UNANCHORED, UNANCHORED]


def test_an_emit_on_one_anchor_of_two_trees_takes_one_edge_per_task_under_both_roots():
    """One anchor (pystorm's auto-anchor): each out task's tuple gets its own edge id under
    every root of the anchor, and the anchor's ack value takes them all."""
    anchor = TupleIds(MessageId({100: 1, 200: 2}), ack_val=8)
    mids = bolt_emit_message_ids([anchor], [5, 6, 7], id_source([16, 32, 64]))
    assert mids == [MessageId({100: 16, 200: 16}), MessageId({100: 32, 200: 32}),
                    MessageId({100: 64, 200: 64})]
    assert anchor.ack_val == 8 ^ 16 ^ 32 ^ 64
    assert bolt_emit_message_ids([anchor], [], id_source([])) == []


@pytest.mark.parametrize("compat", ["1.x", "2.x"])
def test_tree_acked_in_any_order_completes_exactly_once(compat):
    """Whatever order the init and the seven acks reach the acker in, it tells the spout task
    once, on the last message, and the spout acks its message id once."""
    _spout, messages = run_tree(id_source())
    orders = [list(messages), list(reversed(messages))]
    rng = random.Random(9)
    for _ in range(300):
        order = list(messages)
        rng.shuffle(order)
        orders.append(order)
    for order in orders:
        acker = Acker(compat)
        outputs = [acker.execute(m.stream, m.values, lambda i=i: 5000 + i)
                   for i, m in enumerate(order)]
        assert all(out == () for out in outputs[:-1]), order
        (done,) = outputs[-1]
        assert (done.stream, done.task, done.values[0]) == (ACKS, SPOUT_TASK, IDS[0])
        assert acker.pending_count() == 0
    spout, messages = run_tree(id_source())
    acker = Acker(compat)
    outputs = [out for m in messages for out in acker.execute(m.stream, m.values, lambda: 1500)]
    (done,) = outputs
    assert spout.execute(SPOUT_TASK, done.stream, done.values, 1600) == (
        SpoutCallback(ACK, SPOUT_TASK, "msg-1", "default", 0, None),)
    assert spout.pending_count() == 0
    assert spout.execute(SPOUT_TASK, done.stream, done.values, 1700) == ()


@pytest.mark.parametrize("compat", ["1.x", "2.x"])
def test_ack_is_execute_of_an_ack_tuple(compat):
    """``Acker.ack(root, val, clock)`` gives what ``execute`` of ``__ack_ack [root, val]`` at
    ``clock()`` gives, and leaves the same state, in every order of a tree's messages."""
    _spout, messages = run_tree(id_source())
    rng = random.Random(4)
    for _ in range(50):
        order = list(messages)
        rng.shuffle(order)
        by_execute, by_ack = Acker(compat), Acker(compat)
        for i, m in enumerate(order):
            expected = by_execute.execute(m.stream, m.values, lambda i=i: 100 + i)
            got = (by_ack.ack(m.values[0], m.values[1], lambda: 100 + i) if m.stream == ACKS
                   else by_ack.execute(m.stream, m.values, lambda i=i: 100 + i))
            assert got == expected, order
            assert by_ack.pending_count() == by_execute.pending_count()
    with pytest.raises(TypeError):
        by_ack.ack(IDS[0], "12", lambda: 0)
    assert by_ack.pending_count() == 0


def test_acker_reports_ms_since_ack_init_and_the_spout_counts_it_only_when_sampled():
    """The acker's time delta is the latency; an unsampled emit reports none."""
    spout = SpoutPending(None, True, id_source())
    sent = spout.send_spout_msg(SPOUT_TASK, "s", "m", [10])
    acker = Acker()
    acker.execute(INIT, sent.acker_emits[0].values, lambda: 1000)
    (done,) = acker.execute(ACKS, [IDS[0], IDS[1]], lambda: 1250)
    assert done == Emit(ACKS, [IDS[0], 250], SPOUT_TASK)
    assert spout.execute(SPOUT_TASK, ACKS, done.values, 1300) == (
        SpoutCallback(ACK, SPOUT_TASK, "m", "s", None, None),)


@pytest.mark.parametrize("failing", range(7))
def test_a_fail_anywhere_fails_the_tree_once(failing):
    """A bolt failing any tuple of the tree makes the acker fail it to the spout, once; the
    messages still to come tell the spout nothing."""
    spout, messages, tuples = build_tree(id_source())
    messages = list(messages)
    for i, received in enumerate(tuples):
        messages.extend(bolt_fail(received) if i == failing else bolt_ack(received))
    acker = Acker()
    outputs = [out for m in messages for out in acker.execute(m.stream, m.values, lambda: 40)]
    assert outputs == [Emit(FAILS, [IDS[0], 0], SPOUT_TASK)]
    assert spout.execute(SPOUT_TASK, FAILS, outputs[0].values, 50) == (
        SpoutCallback(FAIL, SPOUT_TASK, "msg-1", "default", 0, REASON_FAIL_STREAM),)
    assert spout.pending_count() == 0
    # Acks after the fail make a new entry without spout task, as in Storm: it only expires.
    assert acker.execute(TICK, [30], lambda: 60) == ()
    assert acker.execute(TICK, [30], lambda: 70) == ()
    assert acker.pending_count() == 0


@pytest.mark.parametrize("compat,delta", [("1.x", 100), ("2.x", 200)])
def test_latency_starts_at_the_ack_init_in_1x_and_at_the_first_message_in_2x(compat, delta):
    """An ack overtaking the init: 1.x counts from the init, 2.x from the entry's making."""
    acker = Acker(compat)
    assert acker.execute(ACKS, [5, 3], lambda: 100) == ()
    assert acker.execute(INIT, [5, 3 ^ 4, SPOUT_TASK], lambda: 200) == ()
    assert acker.execute(ACKS, [5, 4], lambda: 300) == (Emit(ACKS, [5, delta], SPOUT_TASK),)


def test_a_fail_before_the_ack_init_fails_the_tree_when_the_init_arrives():
    """The acker remembers a fail of a root it has not seen; the init then fails it."""
    acker = Acker()
    assert acker.execute(FAILS, [5], lambda: 100) == ()
    assert acker.execute(INIT, [5, 12, SPOUT_TASK], lambda: 130) == (
        Emit(FAILS, [5, 0], SPOUT_TASK),)


# timeouts


def test_spout_fails_a_tree_with_timeout_on_the_second_tick():
    """2 buckets: the first tick after the emit keeps the tree, the second fails it, with the
    latency from the sampled start time."""
    spout = SpoutPending(None, True, id_source())
    spout.send_spout_msg(SPOUT_TASK, "s", "m", [10], start_time_ms=1000)
    assert spout.execute(SPOUT_TASK, TICK, [30], 31000) == []
    assert spout.execute(SPOUT_TASK, TICK, [30], 61000) == [
        SpoutCallback(FAIL, SPOUT_TASK, "m", "s", 60000, REASON_TIMEOUT)]
    assert spout.pending_count() == 0
    assert spout.execute(SPOUT_TASK, ACKS, [IDS[0], 5], 61001) == ()


@pytest.mark.parametrize("compat,ticks", [("1.x", 2), ("2.x", 3)])
def test_acker_drops_a_tree_after_its_bucket_count_of_ticks(compat, ticks):
    """1.x keeps an idle tree through 1 tick (2 buckets), 2.x through 2 (3 buckets); the tick
    emits nothing (the spout times the tree out itself)."""
    acker = Acker(compat)
    acker.execute(INIT, [5, 12, SPOUT_TASK], lambda: 0)
    for _ in range(ticks - 1):
        assert acker.execute(TICK, [30], lambda: 0) == ()
        assert acker.pending_count() == 1
    expired = acker.tick()
    assert list(expired) == [5] and acker.pending_count() == 0
    assert acker.execute(ACKS, [5, 12], lambda: 0) == ()


def test_1x_acker_restarts_a_trees_timeout_on_each_ack_and_2x_does_not():
    """acker.clj puts the entry back after every message; 2.x Acker only when it makes it."""
    for compat, kept in (("1.x", True), ("2.x", False)):
        acker = Acker(compat)
        acker.execute(INIT, [5, 12, SPOUT_TASK], lambda: 0)
        acker.tick()
        acker.tick()
        acker.execute(ACKS, [5, 4], lambda: 0)
        acker.tick()
        assert (acker.pending_count() == 1) is kept, compat


def test_reset_timeout_is_passed_to_the_spout_which_restarts_the_tree():
    """A bolt's resetTimeout reaches the acker, which tells the spout; the spout's tree then
    survives the tick that would have failed it.  An unknown root is ignored by both."""
    spout = SpoutPending(None, True, id_source())
    sent = spout.send_spout_msg(SPOUT_TASK, "s", "m", [10])
    acker = Acker()
    acker.execute(INIT, sent.acker_emits[0].values, lambda: 100)
    (reset,) = bolt_reset_timeout(TupleIds(sent.message_ids[0]))
    assert reset == Emit(RESET, [IDS[0]], None)
    spout.tick(0)
    (told,) = acker.execute(RESET, reset.values, lambda: 400)
    assert told == Emit(RESET, [IDS[0], 300], SPOUT_TASK)
    assert spout.execute(SPOUT_TASK, RESET, told.values, 400) == ()
    assert spout.tick(0) == [] and spout.pending_count() == 1
    assert acker.execute(RESET, [12345], lambda: 0) == () and acker.pending_count() == 1
    assert spout.execute(SPOUT_TASK, RESET, [12345, 0], 0) == ()


# max spout pending, unreliable emits, unknown roots, bad input


def test_executor_max_spout_pending_is_per_task_times_tasks():
    """topology.max.spout.pending counts per task; unset means no limit."""
    assert executor_max_spout_pending({"topology.max.spout.pending": 2}, 3) == 6
    assert executor_max_spout_pending({"topology.max.spout.pending": None}, 3) is None
    assert executor_max_spout_pending({}, 3) is None
    assert executor_max_spout_pending({"topology.max.spout.pending": 2}, 3, "2.x") == 6


def test_max_spout_pending_zero_holds_every_1x_spout_and_none_in_2x():
    """1.x's (if p ...) takes 0 as a limit of 0; 2.x's SpoutExecutor takes 0 as no limit."""
    zero = {"topology.max.spout.pending": 0}
    assert SpoutPending(executor_max_spout_pending(zero, 2), True, id_source()
                        ).reached_max_spout_pending()
    assert executor_max_spout_pending(zero, 2, "2.x") is None


def test_max_spout_pending_stops_next_tuple_until_a_tree_completes():
    """At the limit nextTuple is held back; an ack frees a place."""
    spout = SpoutPending(2, True, id_source())
    spout.send_spout_msg(SPOUT_TASK, "s", "m1", [10])
    assert not spout.reached_max_spout_pending()
    spout.send_spout_msg(SPOUT_TASK, "s", "m2", [10])
    assert spout.reached_max_spout_pending()
    spout.execute(SPOUT_TASK, ACKS, [IDS[0], 1], 0)
    assert not spout.reached_max_spout_pending() and spout.pending_count() == 1
    assert not SpoutPending(None, True, id_source()).reached_max_spout_pending()


def test_unreliable_emits_and_trees_without_tuples_are_acked_at_once():
    """No message id: nothing to track.  A message id without ackers, or reaching no task:
    the spout's ack is due at once, latency 0 if sampled; no ids are drawn."""
    spout = SpoutPending(1, True, id_source([]))
    assert spout.send_spout_msg(SPOUT_TASK, "s", None, [10, 11]) == (
        [UNANCHORED, UNANCHORED], (), ())
    assert spout.send_spout_msg(SPOUT_TASK, "s", "m", [], start_time_ms=5).callbacks == (
        SpoutCallback(ACK, SPOUT_TASK, "m", "s", 0, None),)
    no_ackers = SpoutPending(1, False, id_source([]))
    sent = no_ackers.send_spout_msg(SPOUT_TASK, "s", 0, [10])
    assert sent.message_ids == [UNANCHORED] and sent.acker_emits == ()
    assert sent.callbacks == (SpoutCallback(ACK, SPOUT_TASK, 0, "s", None, None),)
    assert spout.pending_count() == 0 and no_ackers.pending_count() == 0


def test_ack_of_an_unknown_root_is_ignored():
    """An ack for a root the acker never initialised emits nothing (it waits for an init that
    may still come, then expires); the spout ignores acker messages for roots it lacks."""
    acker = Acker()
    assert acker.execute(ACKS, [424242, 17], lambda: 0) == ()
    acker.tick()
    acker.tick()
    assert acker.pending_count() == 0
    assert acker.execute(ACKS, [424242, 17], lambda: 0) == ()
    assert acker.execute(INIT, [424242, 17, SPOUT_TASK], lambda: 0) == (
        Emit(ACKS, [424242, 0], SPOUT_TASK),)
    spout = SpoutPending(None, True, id_source())
    assert spout.execute(SPOUT_TASK, ACKS, [424242, 0], 0) == ()
    assert spout.execute(SPOUT_TASK, FAILS, [424242, 0], 0) == ()


def test_bad_acker_input_raises_and_leaves_the_acker_as_it_was():
    """Wrong lengths or a non-integer ack value raise before any change."""
    acker = Acker()
    acker.execute(INIT, [5, 12, SPOUT_TASK], lambda: 0)
    with pytest.raises(ValueError):
        acker.execute(INIT, [6, 1], lambda: 0)
    with pytest.raises(ValueError):
        acker.execute(ACKS, [5], lambda: 0)
    with pytest.raises(TypeError):
        acker.execute(ACKS, [5, "12"], lambda: 0)
    with pytest.raises(TypeError):
        acker.execute(ACKS, [6, 1.5], lambda: 0)
    assert acker.pending_count() == 1
    assert acker.execute("some_stream", [5, 12], lambda: 0) == ()
    assert acker.execute(ACKS, [5, 12], lambda: 0) == (Emit(ACKS, [5, 0], SPOUT_TASK),)


def test_spout_refuses_an_acker_message_for_another_task_and_keeps_the_tree():
    """Storm's "mismatched task ids" is raised; the tree stays pending for its own task."""
    spout = SpoutPending(None, True, id_source())
    spout.send_spout_msg(SPOUT_TASK, "s", "m", [10])
    with pytest.raises(ValueError, match="mismatched task ids: 8 7"):
        spout.execute(8, ACKS, [IDS[0], 0], 0)
    assert spout.pending_count() == 1
    assert spout.execute(SPOUT_TASK, ACKS, [IDS[0], 0], 0)[0].kind == ACK


def test_the_ack_modules_are_pure():
    """No Twisted, sockets, files or clocks: time and ids come in as parameters."""
    forbidden = {"twisted", "socket", "time", "datetime", "os", "io", "random", "kazoo"}
    folder = os.path.dirname(pynimbus.worker.__file__)
    for name in ("acker.py", "message_id.py", "rotating_map.py", "spout_pending.py"):
        path = os.path.join(folder, name)
        assert not {m.split(".")[0] for m in imported_modules(path)} & forbidden, name
        with open(path) as source:
            tree = ast.parse(source.read())
        for node in ast.walk(tree):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
                assert node.func.id != "open", name


@pytest.mark.parametrize("bits", [0, 1, (1 << 63) - 1, 1 << 63, (1 << 64) - 1])
def test_a_drawn_id_is_the_java_long_of_the_random_bits(bits):
    """The id source's quick wrap equals java_long at both ends of each half of the range."""
    class Bits:
        def getrandbits(self, n):
            assert n == 64
            return bits
    assert mk_id_source(Bits())() == java_long(bits)
