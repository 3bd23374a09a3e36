# -*- test-case-name: tests.test_worker_acker -*-
"""A map whose entries expire after a number of rotations (pure).

Port of ``org.apache.storm.utils.RotatingMap`` (1.2.4; 2.8.8 is the same).  The keys live in
``num_buckets`` buckets, newest first.  ``put`` writes to the newest bucket (and takes the key
out of the others, so a put refreshes it); ``rotate`` drops the oldest bucket and returns its
entries, which have expired.  A key put just before a rotation therefore lives through
``num_buckets - 1`` rotations and expires on the next one: with a rotation every T seconds, an
entry expires between ``(num_buckets - 1) * T`` and ``num_buckets * T`` seconds after its
last put.

Deliberate difference: Storm's optional ``ExpiredCallback`` is not ported; :meth:`rotate`
returns the expired entries (as Storm's ``rotate`` also does) and the caller acts on them.
"""

import collections

DEFAULT_NUM_BUCKETS = 3


class RotatingMap(object):
    """Port of ``RotatingMap``: keys expire ``num_buckets`` rotations after their last put."""

    __slots__ = ("_buckets",)

    def __init__(self, num_buckets=DEFAULT_NUM_BUCKETS):
        """:raises ValueError: ``num_buckets`` is below 2 (one bucket would expire a key on the
        first rotation after its put, however late the put came)."""
        if num_buckets < 2:
            raise ValueError("RotatingMap needs at least 2 buckets, not %r" % (num_buckets,))
        self._buckets = collections.deque({} for _ in range(num_buckets))

    def rotate(self):
        """Drop the oldest bucket, add an empty newest one; returns the dropped entries."""
        dead = self._buckets.pop()
        self._buckets.appendleft({})
        return dead

    def contains_key(self, key):
        for bucket in self._buckets:
            if key in bucket:
                return True
        return False

    def __contains__(self, key):
        return self.contains_key(key)

    def get(self, key, default=None):
        for bucket in self._buckets:
            if key in bucket:
                return bucket[key]
        return default

    def put(self, key, value):
        """Store ``value`` under ``key`` in the newest bucket, restarting its expiry."""
        buckets = iter(self._buckets)
        next(buckets)[key] = value
        for bucket in buckets:
            bucket.pop(key, None)

    def refresh(self, key, default=None):
        """``get`` then ``put`` of the same value in one pass: the value of ``key`` (moved to
        the newest bucket, restarting its expiry), or ``default`` if it is not there."""
        buckets = self._buckets
        newest = buckets[0]
        if key in newest:
            return newest[key]
        for bucket in buckets:
            if key in bucket:
                value = newest[key] = bucket.pop(key)
                return value
        return default

    def remove(self, key, default=None):
        """Take ``key`` out; returns its value, or ``default`` if it was not there."""
        for bucket in self._buckets:
            if key in bucket:
                return bucket.pop(key)
        return default

    def size(self):
        return sum(len(bucket) for bucket in self._buckets)

    def __len__(self):
        return self.size()
