# -*- test-case-name: tests.test_worker_receive_queue -*-
"""Each executor's receive queue and the loop that drains them: the one path every tuple takes
from its arrival to its execution, and the one source of the worker's backpressure.

Storm gives each executor a bounded receive queue (1.2.4: a ``DisruptorQueue`` of
``topology.executor.receive.buffer.size``; 2.8.8: a ``JCQueue`` of the same setting) that every
arrival goes through (a tuple from a local or remote task, an acker message, a tick) and
one thread per executor that consumes it, calling the executor's ``accept`` per tuple and
``flush`` after each batch.  Here the reactor thread is every executor's thread: a queue that
receives while empty puts itself on the loop's ready list, and one reactor call drains the
ready queues, a batch of at most ``BATCH`` tuples each in turn, until none is ready or a turn
has executed ``TURN_BUDGET`` tuples (then the next turn goes on, so timers and sockets are
served between).  Nothing is executed in its sender's call: a component never runs inside
another's emit.

Backpressure, derived from the queues alone:

* a queue holding ``backpressure.disruptor.high.watermark`` (0.9) of its capacity or more is
  *full*; it stops being full once it holds ``backpressure.disruptor.low.watermark`` (0.4) or
  less, as 1.2.4's disruptor queue raises and clears its backpressure flag;
* while any queue of the worker is full, its spouts are throttled (1.2.4: the worker's
  backpressure flag pauses the topology's spouts; 2.8.8: a full ``JCQueue`` makes its
  producers wait, and ``BackPressureStatus`` messages stop the spouts of other workers);
* a connection from another worker that delivers to a full queue stops being read until the
  queue is no longer full, so TCP fills the sender's buffer, whose transport then throttles
  the sender's spouts in turn (2.8.8's backpressure between workers, carried by TCP);
* a local sender is never refused: its tuple goes in over the mark (as 2.8.8's producers that
  cannot wait keep an overflow), so a queue passes its capacity only by what the tuples
  already in flight emit.

An executor may also stop taking tuples for a while (``can_accept`` false: a multilang bolt
whose child holds ``topology.shellbolt.max.pending`` inputs, as ShellBolt's full write queue
blocks its executor thread); its queue then fills, and :meth:`ReceiveQueue.wake` resumes it.
"""

import collections

# tuples one queue hands its executor per turn of the loop, at most (then the next ready one)
BATCH = 100
# tuples executed per reactor turn, at most, before the loop yields to the reactor
TURN_BUDGET = 10000
HIGH_WATERMARK_KEY = "backpressure.disruptor.high.watermark"
LOW_WATERMARK_KEY = "backpressure.disruptor.low.watermark"
DEFAULT_HIGH_WATERMARK = 0.9  # 1.2.4 defaults.yaml
DEFAULT_LOW_WATERMARK = 0.4


def watermarks(conf, capacity):
    """``(high, low)`` in tuples for a queue of ``capacity`` under ``conf``'s marks."""
    high = conf.get(HIGH_WATERMARK_KEY, DEFAULT_HIGH_WATERMARK)
    low = conf.get(LOW_WATERMARK_KEY, DEFAULT_LOW_WATERMARK)
    high_tuples = max(1, int(capacity * float(high)))
    return high_tuples, min(high_tuples - 1, max(0, int(capacity * float(low))))


class ReceiveQueue(object):
    """One executor's receive queue: ``(task id, tuple)`` pairs, oldest first.

    :param executor: what consumes it (``accept(task_id, tuple_)``, ``flush()``,
        ``can_accept(task_id)`` when ``executor.limits_accepting``).
    :param loop: the worker's :class:`ExecutorLoop`.
    :param high, low: the marks in tuples (:func:`watermarks`).
    """

    def __init__(self, executor, loop, high, low):
        self.executor = executor
        self.loop = loop
        self.high = high
        self.low = low
        # task id and tuple in consecutive slots: no pair built per tuple
        self.items = collections.deque()
        self.full = False
        self.waiting = False  # on the loop's ready list

    def __len__(self):
        return len(self.items) >> 1

    def put(self, task_id, tuple_):
        """Receive one tuple for ``task_id`` (never refused; see the module docstring)."""
        items = self.items
        items.append(task_id)
        items.append(tuple_)
        if not self.waiting:
            self.waiting = True
            self.loop.ready(self)
        if not self.full and len(items) >= self.high << 1:
            self.full = True
            self.loop.full_count += 1

    def consume(self, most):
        """Hand the executor up to ``most`` tuples (fewer when it stops accepting), then its
        ``flush``; returns how many it took."""
        items = self.items
        executor = self.executor
        limits = executor.limits_accepting
        accept = executor.accept
        taken = 0
        while items and taken < most:
            task_id = items[0]
            if limits and not executor.can_accept(task_id):
                break
            items.popleft()
            accept(task_id, items.popleft())
            taken += 1
        if taken:
            executor.flush()
        if self.full and len(items) <= self.low << 1:
            self.full = False
            self.loop.room_again()
        return taken

    def wake(self):
        """The executor accepts again: drain what waited."""
        if self.items and not self.waiting:
            self.waiting = True
            self.loop.ready(self)


class ExecutorLoop(object):
    """The consumer of every receive queue of a worker (Storm's executor threads).

    :param call_later: the reactor's ``callLater``.
    :param on_room_again: called when a full queue stops being full (the worker then reads
        again from the connections paused for it).
    """

    def __init__(self, call_later, on_room_again, batch=BATCH, turn_budget=TURN_BUDGET):
        self._call_later = call_later
        self._on_room_again = on_room_again
        self.batch = batch
        self.turn_budget = turn_budget
        self._ready = collections.deque()
        self._call = None
        self.full_count = 0  # queues that are full now
        self.halted = False

    def ready(self, queue):
        """``queue`` has tuples to hand over (its ``waiting`` is set by the caller)."""
        self._ready.append(queue)
        if self._call is None and not self.halted:
            self._call = self._call_later(0, self.run)

    def halt(self):
        """Hand nothing over any more (the worker is dying)."""
        self.halted = True
        if self._call is not None and self._call.active():
            self._call.cancel()
        self._call = None

    def room_again(self):
        self.full_count -= 1
        self._on_room_again()

    def run(self):
        """One reactor turn of draining: batches from the ready queues in turn."""
        self._call = None
        if self.halted:
            return
        ready = self._ready
        budget = self.turn_budget
        batch = self.batch
        while ready and budget > 0:
            queue = ready.popleft()
            taken = queue.consume(batch)
            budget -= taken
            if taken and queue.items:
                ready.append(queue)  # more to take: after the others' batches
            else:
                queue.waiting = False  # empty, or waiting for the executor to accept
            if self.halted:
                return
        if ready and self._call is None:
            self._call = self._call_later(0, self.run)
