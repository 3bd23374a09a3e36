# -*- test-case-name: tests.test_worker_acker -*-
"""A spout executor's pending trees: at-least-once from the spout's side (pure).

Port of the ack bookkeeping of executor.clj's spout ``mk-threads`` (1.2.4): its ``pending``
``RotatingMap`` of root id -> what was emitted, ``send-spout-msg``'s rooting and
``__ack_init``, the ``tuple-action-fn`` cases for ``__tick`` and the acker's three streams,
the expiry callback, and ``executor-max-spout-pending``.  2.8.8 (``SpoutExecutor``,
``SpoutOutputCollectorImpl``) behaves the same in everything kept here.

Nothing here calls a spout: methods return :class:`SpoutCallback` values (which of the spout's
``ack``/``fail`` to call, with which message id, and the latency for the stats) and
:class:`~pynimbus.worker.acker.Emit` values for the acker.
"""

import collections

from pynimbus.clojure_port.system_topology import (
    ACKER_ACK_STREAM_ID, ACKER_FAIL_STREAM_ID, ACKER_INIT_STREAM_ID,
    ACKER_RESET_TIMEOUT_STREAM_ID, SYSTEM_TICK_STREAM_ID)
from pynimbus.worker.acker import Emit
from pynimbus.worker.message_id import UNANCHORED, MessageId, bit_xor_vals
from pynimbus.worker.rotating_map import RotatingMap

TOPOLOGY_MAX_SPOUT_PENDING = "topology.max.spout.pending"

SPOUT_PENDING_BUCKETS = 2
"""executor.clj's spout ``(RotatingMap. 2 ...)`` (2.8.8 too): with ticks every
``topology.message.timeout.secs`` (``add-acker!`` sets a spout's tick frequency to it), a tree
fails with ``TIMEOUT`` on the second tick after its emit, between 1 and 2 timeouts later."""

ACK = "ack"
FAIL = "fail"
REASON_TIMEOUT = "TIMEOUT"
REASON_FAIL_STREAM = "FAIL-STREAM"

SpoutCallback = collections.namedtuple(
    "SpoutCallback", "kind task_id message_id stream time_delta_ms reason")
SpoutCallback.__doc__ = """Call ``ack`` (``kind`` ACK) or ``fail`` (FAIL) of spout task ``task_id``
with ``message_id``, the id the spout gave when it emitted on ``stream``.

``time_delta_ms`` is the complete latency for the stats and hooks (``SpoutAckInfo``,
``SpoutFailInfo``), or None when the emit was not sampled (Storm then counts nothing).
``reason`` is REASON_TIMEOUT, REASON_FAIL_STREAM, or None for an ack (ports of the strings
executor.clj logs with ``topology.debug``).
"""

SpoutSend = collections.namedtuple("SpoutSend", "message_ids acker_emits callbacks")
SpoutSend.__doc__ = """What one spout emit produces: ``message_ids``, the MessageId of the tuple
to each out task (in their order); ``acker_emits``, the ``__ack_init`` to send; ``callbacks``,
an ack to call at once (a tree with no tuple in it)."""

PendingTree = collections.namedtuple("PendingTree", "task_id message_id stream start_time_ms")
PendingTree.__doc__ = """executor.clj's pending value ``[task-id spout-id tuple-info
start-time-ms]`` (``tuple-info`` keeps only the stream; its values are only ever logged)."""


def executor_max_spout_pending(storm_conf, num_tasks, compat="1.x"):
    """Port of executor.clj ``executor-max-spout-pending``: ``topology.max.spout.pending``
    times the executor's task count, or None (no limit) when it is not set.

    1.x takes 0 literally (the spout never gets ``nextTuple``); 2.8.8 ``SpoutExecutor`` reads
    an unset value as 0 and 0 as no limit.  (Submission already refuses 0: the key must be
    positive.)
    """
    per_task = storm_conf.get(TOPOLOGY_MAX_SPOUT_PENDING)
    if compat == "2.x" and not per_task:
        return None
    return None if per_task is None else per_task * num_tasks


class SpoutPending(object):
    """The pending trees of one spout executor (all its tasks).

    ``has_ackers`` is ``has-ackers?`` of the topology conf; ``generate_id`` draws root and edge
    ids (see :func:`pynimbus.worker.message_id.mk_id_source`).
    """

    __slots__ = ("max_spout_pending", "has_ackers", "generate_id", "pending")

    def __init__(self, max_spout_pending, has_ackers, generate_id):
        self.max_spout_pending = max_spout_pending
        self.has_ackers = has_ackers
        self.generate_id = generate_id
        self.pending = RotatingMap(SPOUT_PENDING_BUCKETS)

    def reached_max_spout_pending(self):
        """True when ``nextTuple`` must not be called: as many trees pending as allowed."""
        return (self.max_spout_pending is not None
                and self.pending.size() >= self.max_spout_pending)

    def pending_count(self):
        """``SpoutOutputCollector.getPendingCount``."""
        return self.pending.size()

    def send_spout_msg(self, task_id, stream, message_id, out_tasks, start_time_ms=None):
        """The bookkeeping of executor.clj ``send-spout-msg`` for one emit of spout task
        ``task_id`` on ``stream`` to ``out_tasks`` (already chosen by the grouping).

        ``message_id`` None means unreliable.  ``start_time_ms`` is the emit time when the
        stats sampler picked this emit, else None.  A reliable emit (``message_id`` and ackers)
        draws a root id, then one edge id per out task, remembers the tree and sends
        ``__ack_init`` ``[root, xor of the edge ids, task_id]``; if it reaches no task, or the
        topology has no ackers, the spout's ``ack`` is due at once (latency 0 if sampled).
        """
        rooted = message_id is not None and self.has_ackers
        if not (rooted and out_tasks):
            callbacks = ()
            if message_id is not None:
                callbacks = (SpoutCallback(ACK, task_id, message_id, stream,
                                           None if start_time_ms is None else 0, None),)
            return SpoutSend([UNANCHORED] * len(out_tasks), (), callbacks)
        generate_id = self.generate_id
        root_id = generate_id()
        out_ids = [generate_id() for _task in out_tasks]
        self.pending.put(root_id, PendingTree(task_id, message_id, stream, start_time_ms))
        init = Emit(ACKER_INIT_STREAM_ID, [root_id, bit_xor_vals(out_ids), task_id], None)
        return SpoutSend([MessageId.make_root_id(root_id, edge_id) for edge_id in out_ids],
                         (init,), ())

    def tick(self, now_ms):
        """A ``__tick``: rotate; returns a FAIL callback (REASON_TIMEOUT) per expired tree, its
        latency measured from the emit when sampled."""
        return [SpoutCallback(FAIL, tree.task_id, tree.message_id, tree.stream,
                              None if tree.start_time_ms is None
                              else now_ms - tree.start_time_ms, REASON_TIMEOUT)
                for tree in self.pending.rotate().values()]

    def execute(self, task_id, stream_id, values, now_ms):
        """Take a tuple for spout task ``task_id``: a ``__tick`` or a message from the acker.
        Returns the callbacks due (none for an unknown root: it timed out or was never ours).

        The latency of an ack or fail is the acker's ``time-delta-ms``, counted only when the
        emit was sampled.

        :raises ValueError: the root belongs to another task of this executor (Storm's "Fatal
            error, mismatched task ids"); the tree stays pending.  Or ``values`` has the wrong
            length.
        """
        if stream_id == SYSTEM_TICK_STREAM_ID:
            return self.tick(now_ms)
        if stream_id == ACKER_RESET_TIMEOUT_STREAM_ID:
            root_id = values[0]
            tree = self.pending.get(root_id)
            if tree is not None:
                self.pending.put(root_id, tree)
            return ()
        if stream_id == ACKER_ACK_STREAM_ID:
            kind, reason = ACK, None
        elif stream_id == ACKER_FAIL_STREAM_ID:
            kind, reason = FAIL, REASON_FAIL_STREAM
        else:
            return ()
        root_id, time_delta_ms = values
        tree = self.pending.get(root_id)
        if tree is None:
            return ()
        if tree.task_id != task_id:
            raise ValueError("Fatal error, mismatched task ids: %r %r" % (task_id, tree.task_id))
        self.pending.remove(root_id)
        return (SpoutCallback(kind, task_id, tree.message_id, tree.stream,
                              None if tree.start_time_ms is None else time_delta_ms, reason),)
