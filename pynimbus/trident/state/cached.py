"""Caches layered over a backing map (pure).

Ports of 1.2.4 ``trident/state/map/{CachedBatchReadsMap,CachedMap}`` (``CachedMap``'s LRU as
``trident/util/LRUMap``: access order, the eldest dropped past the size).
"""

import collections

from pynimbus.trident.state.base import IBackingMap, map_key


class RetVal(collections.namedtuple("RetVal", "val cached")):
    """``CachedBatchReadsMap.RetVal``: a stored value, and whether it was written in this
    batch (``cached``) rather than read from the backing map."""


class CachedBatchReadsMap(object):
    """``CachedBatchReadsMap``: a backing map that remembers what this batch wrote.

    Transactional and opaque maps read through it: a value written earlier in the same batch
    is already this batch's value and must not be treated as a replay of the batch's txid.
    ``reset()`` (at ``begin_commit`` and ``commit``) forgets.

    Unlike Storm, ``multi_get`` asks the backing map only for the keys this batch has not
    written (Storm asks for all and drops the cached ones: its own TODO); the answers are the
    same.
    """

    def __init__(self, delegate):
        self.delegate = delegate
        self._cached = {}

    def reset(self):
        self._cached.clear()

    def multi_get(self, keys):
        """One :class:`RetVal` per key."""
        to_get = [key for key in keys if map_key(key) not in self._cached]
        fetched = iter(self.delegate.multi_get(to_get) if to_get else ())
        ret = []
        for key in keys:
            k = map_key(key)
            if k in self._cached:
                ret.append(RetVal(self._cached[k], True))
            else:
                ret.append(RetVal(next(fetched), False))
        return ret

    def multi_put(self, keys, values):
        self.delegate.multi_put(keys, values)
        for key, value in zip(keys, values):
            self._cached[map_key(key)] = value


class CachedMap(IBackingMap):
    """``CachedMap``: an LRU cache of ``cache_size`` keys over a backing map (for a map state
    over a database: ``OpaqueMap.build(CachedMap(database_map, 1000))``).  It assumes this
    task is the only writer of its keys, as Trident's partitioning makes it."""

    def __init__(self, delegate, cache_size):
        self.delegate = delegate
        self.cache_size = cache_size
        self._cache = collections.OrderedDict()

    def _remember(self, k, value):
        self._cache[k] = value
        self._cache.move_to_end(k)
        while len(self._cache) > self.cache_size:
            self._cache.popitem(last=False)

    def multi_get(self, keys):
        results = {}
        to_get = []
        for key in keys:
            k = map_key(key)
            if k in self._cache:
                self._cache.move_to_end(k)  # a read makes the key recent, as LRUMap's get
                results[k] = self._cache[k]
            else:
                to_get.append(key)
        fetched = self.delegate.multi_get(to_get) if to_get else []
        for key, value in zip(to_get, fetched):
            k = map_key(key)
            self._remember(k, value)
            results[k] = value
        return [results[map_key(key)] for key in keys]

    def multi_put(self, keys, values):
        for key, value in zip(keys, values):
            self._remember(map_key(key), value)
        self.delegate.multi_put(keys, values)
