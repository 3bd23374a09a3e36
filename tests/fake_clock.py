"""A settable clock for code that takes ``clock`` (a function returning Unix seconds)."""


class FakeClock:
    """Returns ``now``; tests move time by assigning to it."""

    def __init__(self, now=1700000000.0):
        self.now = now

    def __call__(self):
        return self.now
