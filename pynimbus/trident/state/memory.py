"""Map states held in memory, for tests and local runs (pure).

Ports of 1.2.4 ``trident/testing/{MemoryBackingMap,MemoryMapState}``.
"""

from pynimbus.trident.state.base import (
    IBackingMap, ITupleCollection, MapState, RemovableMapState, Snapshottable, StateFactory,
    map_key)
from pynimbus.trident.state.maps import OpaqueMap, SnapshottableMap


class MemoryBackingMap(IBackingMap):
    """``MemoryBackingMap``: a backing map over a dict (``values``, keyed by
    :func:`~pynimbus.trident.state.base.map_key`) that stores what it is given as it is."""

    def __init__(self, values=None):
        self.values = {} if values is None else values

    def multi_get(self, keys):
        return [self.values.get(map_key(key)) for key in keys]

    def multi_put(self, keys, values):
        for key, value in zip(keys, values):
            self.values[map_key(key)] = value

    def multi_remove(self, keys):
        for key in keys:
            self.values.pop(map_key(key), None)

    def get_tuples(self):
        """``MemoryMapStateBacking.getTuples``: each key's values and its current value (the
        dict holds :class:`~pynimbus.trident.state.values.OpaqueValue` s)."""
        for key, value in list(self.values.items()):
            yield list(key) + [value.curr]


class MemoryMapState(MapState, Snapshottable, RemovableMapState, ITupleCollection):
    """``MemoryMapState``: an :class:`~pynimbus.trident.state.maps.OpaqueMap` over a dict,
    snapshottable under the key ``["$MEMORY-MAP-STATE-GLOBAL$"]``.

    ``db`` is the dict (a fresh one if None); every state given the same dict sees the same
    values.  :class:`MemoryMapState.Factory` gives the states of one partition index the same
    dict, as Storm's static map keyed by factory id and partition index does.
    """

    GLOBAL_KEY = ["$MEMORY-MAP-STATE-GLOBAL$"]

    def __init__(self, db=None):
        self.backing = MemoryBackingMap(db)
        self.delegate = SnapshottableMap(OpaqueMap.build(self.backing), self.GLOBAL_KEY)
        self.removed = []
        self.curr_tx = None

    def update(self, updater):
        return self.delegate.update(updater)

    def set(self, value):
        self.delegate.set(value)

    def get(self):
        return self.delegate.get()

    def begin_commit(self, txid):
        self.delegate.begin_commit(txid)
        # The keys multi_remove set to None in the last batch are dropped only once a later
        # batch begins: a replay of that batch still needs their OpaqueValue's prev.
        if txid is None or txid != self.curr_tx:
            self.backing.multi_remove(self.removed)
        self.removed = []
        self.curr_tx = txid

    def commit(self, txid):
        self.delegate.commit(txid)

    def get_tuples(self):
        return self.backing.get_tuples()

    def multi_update(self, keys, updaters):
        return self.delegate.multi_update(keys, updaters)

    def multi_put(self, keys, values):
        self.delegate.multi_put(keys, values)

    def multi_get(self, keys):
        return self.delegate.multi_get(keys)

    def multi_remove(self, keys):
        """The keys set to None now, and dropped at the next batch's ``begin_commit``."""
        self.multi_put(keys, [None] * len(keys))
        self.removed.extend(keys)

    class Factory(StateFactory):
        """``MemoryMapState.Factory``: the dicts live in the factory object, one per partition
        index (Storm keeps them in a static map under the factory's id and the index).  Every
        task of a worker is given the same factory object, so a ``persistent_aggregate`` task
        and the ``state_query`` task of the same partition share values; another worker (or a
        copy of the factory) has its own."""

        def __init__(self):
            self._dbs = {}

        def backing(self, partition_index=0):
            """The dict (map key -> OpaqueValue) of ``partition_index``'s states."""
            return self._dbs.setdefault(partition_index, {})

        def make_state(self, conf, metrics_context, partition_index, num_partitions):
            return MemoryMapState(self.backing(partition_index))
