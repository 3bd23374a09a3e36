"""The worker's millisecond clock, read several times per tuple by the executors (apart from
the daemon so that setup.py can compile it: pynimbus.common.compiled)."""

import time


def millis_clock(clock):
    """A function giving ``clock``'s time (seconds, a float) in whole milliseconds, as
    ``int(clock() * 1000)``; for ``time.time`` itself, ``time.time_ns`` divided in integers
    (the same millisecond but where a float rounds across one, and half the cost: the
    executors read it several times per tuple)."""
    if clock is time.time:
        time_ns = time.time_ns
        return lambda: time_ns() // 1000000
    return lambda: int(clock() * 1000)
