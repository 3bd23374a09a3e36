# -*- test-case-name: tests.test_worker_acker -*-
"""Storm's acker: which tuple trees are complete, failed or reset (pure).

Port of acker.clj ``mk-acker-bolt`` (1.2.4; 2.8.8 ``Acker``), and of the messages a bolt's
``OutputCollector`` sends it (executor.clj bolt ``ack``, ``fail``, ``resetTimeout``).

The protocol, keyed by a tree's root id (a Java long drawn by the spout):

- the spout sends ``__ack_init`` ``[root, xor of the edge ids it emitted, spout task]``;
- each bolt acking a tuple sends ``__ack_ack`` ``[root, edge id of the tuple ^ edge ids of the
  tuples it anchored to it]``, for every root of the tuple;
- a bolt failing a tuple sends ``__ack_fail`` ``[root]``; ``__ack_reset_timeout`` ``[root]``
  restarts the timeout.

Every edge id enters the XOR twice (once when emitted, once when acked), so the XOR is 0 exactly
when the whole tree has been acked, in whatever order the messages arrive.  The acker then
tells the spout task directly (``__ack_ack``/``__ack_fail``/``__ack_reset_timeout``
``[root, ms since ack-init]``).  Entries live in a :class:`RotatingMap` rotated on each
``__tick`` (every ``topology.message.timeout.secs``, set by ``add-acker!``); an expired tree
is dropped silently, since the spout times it out from its own pending map.

Nothing here emits: :meth:`Acker.execute` returns :class:`Emit` values for the executor to send.
"""

import collections

from pynimbus.clojure_port.system_topology import (
    ACKER_ACK_STREAM_ID, ACKER_FAIL_STREAM_ID, ACKER_INIT_STREAM_ID,
    ACKER_RESET_TIMEOUT_STREAM_ID, SYSTEM_TICK_STREAM_ID)
from pynimbus.worker.rotating_map import RotatingMap

Emit = collections.namedtuple("Emit", "stream values task")
Emit.__doc__ = """A tuple to send: ``values`` on ``stream``.

``task`` is the target task of a direct emit, or None to route by the stream's grouping (the
acker's inputs are fields-grouped on ``id``, so a tree's messages all reach one acker task).
"""

TIMEOUT_BUCKET_NUM_1X = 2
"""acker.clj prepares ``(RotatingMap. 2)``: a tree expires after 1 to 2 tick periods."""
TIMEOUT_BUCKET_NUM_2X = 3
"""2.8.8 ``Acker.TIMEOUT_BUCKET_NUM``: 2 to 3 tick periods."""

_NO_EMITS = ()


class AckEntry(object):
    """One tree's state: acker.clj's map ``{:val :spout-task :start-time :failed}``
    (2.8.8 ``Acker.AckObject``).  ``spout_task`` is None until ``__ack_init`` arrives."""

    __slots__ = ("val", "spout_task", "start_time", "failed")

    def __init__(self, start_time=None):
        self.val = 0
        self.spout_task = None
        self.start_time = start_time
        self.failed = False


class Acker(object):
    """Port of acker.clj ``mk-acker-bolt`` (1.2.4) and 2.8.8 ``Acker``, per ``compat``.

    The generations differ in small ways, kept here:

    - buckets: 2 in 1.x, 3 in 2.x;
    - 1.x puts the entry back after every message, so each ack or fail restarts the tree's
      acker timeout; 2.x puts it only when it creates it, on a fail and on a reset;
    - start time (of the ``time-delta-ms`` sent to the spout): 1.x sets it at each
      ``__ack_init``; 2.x when the entry is created (by whichever message comes first).

    Deliberate differences: a ``__ack_reset_timeout`` for an unknown root stores nothing (1.x
    stores nil under the root until it expires, which nothing can observe); a tuple of any other
    stream is ignored, as 2.x does (1.x's ``condp`` would throw and kill the executor).
    """

    __slots__ = ("compat", "pending")

    def __init__(self, compat="1.x"):
        self.compat = compat
        buckets = TIMEOUT_BUCKET_NUM_2X if compat == "2.x" else TIMEOUT_BUCKET_NUM_1X
        self.pending = RotatingMap(buckets)

    def execute(self, stream_id, values, clock_ms):
        """Take one input tuple; returns the :class:`Emit` values to send (none or one).

        ``clock_ms()`` is the current time in milliseconds, read once when the stream needs
        it (as :meth:`ack` reads it).  A ``__tick`` expires the trees not heard of for a
        rotation period (returned by :meth:`tick`, not emitted).

        :raises ValueError: ``values`` has the wrong length for ``stream_id``.
        :raises TypeError: an ack value is not an int.
        Either way the acker's state is as it was.
        """
        if stream_id == SYSTEM_TICK_STREAM_ID:
            self.tick()
            return _NO_EMITS
        if stream_id == ACKER_INIT_STREAM_ID:
            root_id, ack_val, spout_task = values
            now_ms = clock_ms()
            curr = self._update_ack(root_id, ack_val, now_ms)
            curr.spout_task = spout_task
            if self.compat != "2.x":
                curr.start_time = now_ms
        elif stream_id == ACKER_ACK_STREAM_ID:
            root_id, ack_val = values
            return self.ack(root_id, ack_val, clock_ms)
        elif stream_id == ACKER_FAIL_STREAM_ID:
            (root_id,) = values
            curr = self.pending.get(root_id)
            if curr is None:
                curr = AckEntry(clock_ms() if self.compat == "2.x" else None)
            curr.failed = True
            self.pending.put(root_id, curr)
        elif stream_id == ACKER_RESET_TIMEOUT_STREAM_ID:
            (root_id,) = values
            curr = self.pending.get(root_id)
            if curr is None:
                return _NO_EMITS
            self.pending.put(root_id, curr)
        else:
            return _NO_EMITS
        return self._outcome(stream_id, root_id, curr, clock_ms)

    def ack(self, root_id, ack_val, clock_ms):
        """An ``__ack_ack`` ``[root_id, ack_val]``: :meth:`execute` of it without the stream's
        dispatch (the path of every acked tuple), the time read from ``clock_ms()`` only
        where it is used (a 2.x tree's entry made, the tree's end), as acker.clj reads it.

        :raises TypeError: ``ack_val`` is not an int (the state is as it was)."""
        curr = self._update_ack(root_id, ack_val, clock_ms() if self.compat == "2.x" else None)
        return self._outcome(ACKER_ACK_STREAM_ID, root_id, curr, clock_ms)

    def _update_ack(self, root_id, ack_val, now_ms):
        """XOR ``ack_val`` into the root's entry, creating it; 1.x refreshes its bucket."""
        pending = self.pending
        two = self.compat == "2.x"
        curr = pending.get(root_id) if two else pending.refresh(root_id)
        val = (0 if curr is None else curr.val) ^ ack_val  # raises before any change
        if curr is None:
            curr = AckEntry(now_ms if two else None)
            pending.put(root_id, curr)
        curr.val = val
        return curr

    def _outcome(self, stream_id, root_id, curr, clock_ms):
        """What the spout is told, once it is known (after ``__ack_init``); the time is read
        from ``clock_ms()`` only then."""
        if curr.spout_task is None:
            return _NO_EMITS
        if curr.val == 0:
            self.pending.remove(root_id)
            stream = ACKER_ACK_STREAM_ID
        elif curr.failed:
            self.pending.remove(root_id)
            stream = ACKER_FAIL_STREAM_ID
        elif stream_id == ACKER_RESET_TIMEOUT_STREAM_ID:
            stream = ACKER_RESET_TIMEOUT_STREAM_ID
        else:
            return _NO_EMITS
        return (Emit(stream, [root_id, _time_delta_ms(curr.start_time, clock_ms())],
                     curr.spout_task),)

    def tick(self):
        """Rotate the pending trees; returns the expired ones, ``{root: AckEntry}``."""
        return self.pending.rotate()

    def pending_count(self):
        return self.pending.size()


def _time_delta_ms(start_ms, now_ms):
    # 1.x: an entry made by an ack that never saw its ack-init cannot get here (no spout task).
    return now_ms - start_ms


def bolt_ack(tuple_ids):
    """Port of executor.clj bolt ``ack``: one ``__ack_ack`` ``[root, id ^ ack_val]`` per root
    of the acked tuple (none for an unanchored one)."""
    ack_val = tuple_ids.ack_val
    return [Emit(ACKER_ACK_STREAM_ID, [root_id, edge_id ^ ack_val], None)
            for root_id, edge_id in tuple_ids.message_id.anchors_to_ids.items()]


def bolt_fail(tuple_ids):
    """Port of executor.clj bolt ``fail``: one ``__ack_fail`` ``[root]`` per root."""
    return [Emit(ACKER_FAIL_STREAM_ID, [root_id], None)
            for root_id in tuple_ids.message_id.anchors()]


def bolt_reset_timeout(tuple_ids):
    """Port of executor.clj bolt ``resetTimeout``: one ``__ack_reset_timeout`` ``[root]`` per
    root."""
    return [Emit(ACKER_RESET_TIMEOUT_STREAM_ID, [root_id], None)
            for root_id in tuple_ids.message_id.anchors()]
