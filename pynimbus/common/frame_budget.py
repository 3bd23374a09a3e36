"""The bytes that frames being received may hold, summed over a server's connections (pure).

Both of pynimbus's servers of length-prefixed frames (Nimbus's Thrift server and a worker's
tuple port) reserve a frame's declared length here before they buffer its bytes, so that no
set of peers can make the process hold more than ``max_bytes`` of unfinished frames: to fit a
new frame, the connections whose partial frames went longest without a byte give theirs up
(their ``evict(length)`` is called, which must close them and call :meth:`release`).
"""

import collections


class FrameBudget:
    """Reservations of frame lengths per connection, at most ``max_bytes`` in all."""

    def __init__(self, max_bytes):
        self.max_bytes = max_bytes
        self.reserved_bytes = 0
        # connection -> its frame's reserved length, the longest without progress first
        self._receiving = collections.OrderedDict()

    def reserve(self, connection, length):
        """Reserve ``length`` bytes for the frame ``connection`` is about to receive, evicting
        the connections whose partial frames went longest without a byte until it fits; False
        when it is longer than the whole budget."""
        if length > self.max_bytes:
            return False
        while self.reserved_bytes + length > self.max_bytes:
            stalest = next(iter(self._receiving))
            stalest.evict(length)  # releases its reservation
        self._receiving[connection] = length
        self.reserved_bytes += length
        return True

    def progressed(self, connection):
        """``connection`` received more of its frame: it is now the last to be evicted."""
        self._receiving.move_to_end(connection)

    def release(self, connection):
        """``connection``'s frame is whole (or given up): its bytes are free again."""
        self.reserved_bytes -= self._receiving.pop(connection, 0)
