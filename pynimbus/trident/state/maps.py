"""Map states over a backing map: transactional, opaque, non-transactional, and the
snapshottable view of one key (pure).

Ports of 1.2.4 ``trident/state/map/{TransactionalMap,OpaqueMap,NonTransactionalMap,
SnapshottableMap}``.  A transactional or opaque map reads and writes its backing map through a
:class:`~pynimbus.trident.state.cached.CachedBatchReadsMap`, as Storm's do.
"""

from pynimbus.trident.state.base import MapState, Snapshottable
from pynimbus.trident.state.cached import CachedBatchReadsMap
from pynimbus.trident.state.values import OpaqueValue, TransactionalValue


class _TxidMap(MapState):
    """What the transactional and opaque maps share: the backing map behind a cache of the
    batch's reads, and the txid being committed (set by ``begin_commit``)."""

    @classmethod
    def build(cls, backing):
        return cls(backing)

    def __init__(self, backing):
        self.backing = CachedBatchReadsMap(backing)
        self.curr_tx = None

    def begin_commit(self, txid):
        self.curr_tx = txid
        self.backing.reset()

    def commit(self, txid):
        self.curr_tx = None
        self.backing.reset()


class TransactionalMap(_TxidMap):
    """``TransactionalMap``: each key's :class:`TransactionalValue` records the txid that
    wrote it; a replayed txid (the same batch again, as a transactional spout guarantees) finds
    its own write and leaves it as it is."""

    def multi_get(self, keys):
        return [None if ret.val is None else ret.val.val for ret in self.backing.multi_get(keys)]

    def multi_update(self, keys, updaters):
        new_keys, new_vals, ret = [], [], []
        for key, stored, updater in zip(keys, self.backing.multi_get(keys), updaters):
            val = stored.val
            if val is None:
                new_val = TransactionalValue(self.curr_tx, updater.update(None))
            elif (self.curr_tx is not None and self.curr_tx == val.txid
                  and not stored.cached):
                # written by an earlier try of this txid: already applied
                ret.append(val.val)
                continue
            else:
                new_val = TransactionalValue(self.curr_tx, updater.update(val.val))
            ret.append(new_val.val)
            new_keys.append(key)
            new_vals.append(new_val)
        if new_keys:
            self.backing.multi_put(new_keys, new_vals)
        return ret

    def multi_put(self, keys, values):
        self.backing.multi_put(keys, [TransactionalValue(self.curr_tx, v) for v in values])


class _ReplaceUpdater(object):
    """``OpaqueMap.ReplaceUpdater``: the stored value replaced by ``value``."""

    def __init__(self, value):
        self.value = value

    def update(self, stored):
        return self.value


class OpaqueMap(_TxidMap):
    """``OpaqueMap``: each key's :class:`OpaqueValue` keeps the value from before the txid
    that last wrote it, so a replayed txid (which may carry another batch, as an opaque spout
    allows) recomputes from that value."""

    def _current(self, stored):
        """The value this batch sees: what it wrote itself, else the value from before it."""
        if stored.val is None:
            return None
        return stored.val.curr if stored.cached else stored.val.get(self.curr_tx)

    def multi_get(self, keys):
        return [self._current(stored) for stored in self.backing.multi_get(keys)]

    def multi_update(self, keys, updaters):
        new_vals, ret = [], []
        for stored, updater in zip(self.backing.multi_get(keys), updaters):
            new_val = updater.update(self._current(stored))
            ret.append(new_val)
            if stored.val is None:
                new_vals.append(OpaqueValue(self.curr_tx, new_val))
            else:
                new_vals.append(stored.val.update(self.curr_tx, new_val))
        self.backing.multi_put(keys, new_vals)
        return ret

    def multi_put(self, keys, values):
        self.multi_update(keys, [_ReplaceUpdater(v) for v in values])


class NonTransactionalMap(MapState):
    """``NonTransactionalMap``: values stored as they are; a replayed batch is applied again."""

    @classmethod
    def build(cls, backing):
        return cls(backing)

    def __init__(self, backing):
        self.backing = backing

    def multi_get(self, keys):
        return self.backing.multi_get(keys)

    def multi_update(self, keys, updaters):
        ret = [updater.update(stored)
               for stored, updater in zip(self.backing.multi_get(keys), updaters)]
        self.backing.multi_put(keys, ret)
        return ret

    def multi_put(self, keys, values):
        self.backing.multi_put(keys, values)

    def begin_commit(self, txid):
        pass

    def commit(self, txid):
        pass


class SnapshottableMap(MapState, Snapshottable):
    """``SnapshottableMap``: a map state that is also a :class:`Snapshottable` whose one value
    lives under ``global_key`` (a key: a list of values), so that ``persistent_aggregate`` of
    an ungrouped stream works on a map state."""

    def __init__(self, delegate, global_key):
        if not isinstance(global_key, (list, tuple)):
            raise TypeError("SnapshottableMap's global key is a key, a list of values such as "
                            "['$GLOBAL$'], not %r" % (global_key,))
        self.delegate = delegate
        self.global_key = list(global_key)

    def multi_get(self, keys):
        return self.delegate.multi_get(keys)

    def multi_update(self, keys, updaters):
        return self.delegate.multi_update(keys, updaters)

    def multi_put(self, keys, values):
        self.delegate.multi_put(keys, values)

    def begin_commit(self, txid):
        self.delegate.begin_commit(txid)

    def commit(self, txid):
        self.delegate.commit(txid)

    def get(self):
        return self.multi_get([self.global_key])[0]

    def update(self, updater):
        return self.multi_update([self.global_key], [updater])[0]

    def set(self, value):
        self.multi_put([self.global_key], [value])
