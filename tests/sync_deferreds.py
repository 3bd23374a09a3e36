"""Call handlers synchronously in tests: a runner that runs at once, and fired Deferreds' results."""

from twisted.python.failure import Failure


def run_now(function, *args):
    """A ``run_blocking`` that runs ``function`` on the spot (no thread)."""
    return function(*args)


def result_of(d):
    """The result of an already-fired Deferred; raises its failure's exception."""
    box = []
    d.addBoth(box.append)
    assert box, "Deferred has not fired"
    if isinstance(box[0], Failure):
        box[0].raiseException()
    return box[0]
