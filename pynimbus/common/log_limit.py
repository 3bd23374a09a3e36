# -*- test-case-name: tests.test_worker_inbound -*-
"""Log lines a peer can cause, at most one per kind per period, with what was left out.

A worker logs what it refuses from the network (tuples for tasks it does not run, tuples that
do not match the topology, broken frames); a peer sending such messages in a loop must not be
able to fill the disk through the worker's log.  :class:`RateLimitedLog` lets the first line of
a kind through, then counts the others until ``period_secs`` have passed, and the next line
says how many were left out.
"""

import time


class _MonotonicClock:
    @staticmethod
    def seconds():
        return time.monotonic()


class Throttle:
    """Lets one event per ``kind`` through per ``period_secs`` of ``clock`` (a ``seconds()``
    source: the reactor; the monotonic clock when None), counting the others."""

    def __init__(self, clock=None, period_secs=10.0):
        self.clock = clock or _MonotonicClock()
        self.period_secs = period_secs
        self._next_secs = {}    # {kind: when an event of that kind may pass again}
        self._left_out = {}     # {kind: events held back since the last one let through}

    def allow(self, kind):
        """``(passes, held back before it)``: whether this event of ``kind`` passes, and
        when it does, how many of its kind were held back since the last that passed."""
        now = self.clock.seconds()
        if now < self._next_secs.get(kind, now):
            self._left_out[kind] = self._left_out.get(kind, 0) + 1
            return False, 0
        self._next_secs[kind] = now + self.period_secs
        return True, self._left_out.pop(kind, 0)


class RateLimitedLog:
    """``warning(kind, message, *args)`` through ``logger``, one line per ``kind`` per
    ``period_secs`` (a :class:`Throttle`)."""

    def __init__(self, logger, clock=None, period_secs=10.0):
        self.logger = logger
        self.throttle = Throttle(clock, period_secs)

    def warning(self, kind, message, *args):
        """Log ``message % args`` at WARNING unless a line of ``kind`` was logged less than
        ``period_secs`` ago; return whether it was logged."""
        passes, left_out = self.throttle.allow(kind)
        if not passes:
            return False
        if left_out:
            message += " (%d more like it since the last one logged, left out)"
            args += (left_out,)
        self.logger.warning(message, *args)
        return True
