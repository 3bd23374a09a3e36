"""A private Twisted reactor for tests of real loopback TCP, turned by hand, never run.

Each test gets a fresh reactor instance (not installed as the global one), iterates it until
a condition holds (bounded by a deadline), and closes every descriptor it opened afterwards.
"""

import time

from twisted.internet.selectreactor import SelectReactor

LOOPBACK = "127.0.0.1"


def new_reactor():
    return SelectReactor()


def spin_until(reactor, condition, timeout=10.0, what="the condition"):
    """Turn ``reactor`` until ``condition()`` is true; fail after ``timeout`` seconds."""
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError("timed out after %ss waiting for %s" % (timeout, what))
        reactor.iterate(0.005)


def close_reactor(reactor):
    """Cancel pending calls and close every socket and the waker of ``reactor``."""
    for call in reactor.getDelayedCalls():
        call.cancel()
    for selectable in reactor.removeAll():
        sock = getattr(selectable, "socket", None)
        if sock is not None:
            sock.close()
    waker = getattr(reactor, "waker", None)
    if waker is not None:
        waker.connectionLost(None)
