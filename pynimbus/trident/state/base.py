"""The interfaces of Trident's states (pure).

Ports of 1.2.4 ``trident/state/{State,StateType,StateFactory,ValueUpdater,ReadOnlyState,
ITupleCollection}``, ``trident/state/snapshot/{ReadOnlySnapshottable,Snapshottable}`` and
``trident/state/map/{IBackingMap,ReadOnlyMapState,MapState,RemovableMapState}``.

A key of a map state is a list of values (a group's values, in group-field order); a tuple of
values is the same key.  Dict-based maps hold it as :func:`map_key`.
"""

import enum


def map_key(key):
    """A key (a list of values) as a dict key: lists and tuples become tuples, at any depth,
    so that ``["a", [1]]`` and ``("a", (1,))`` are the same key, as equal Java lists are."""
    if isinstance(key, (list, tuple)):
        return tuple(map_key(v) for v in key)
    return key


class State(object):
    """``State``: ``begin_commit(txid)`` before a batch's updates, ``commit(txid)`` after.

    ``txid`` is the batch's transaction id, or None for a batch outside a transaction (a DRPC
    stream's ``partition_persist``).  Three kinds (:class:`StateType`): a non-transactional
    state applies every update (a replay counts twice); a transactional state is idempotent
    when a txid's batch is always the same; an opaque state is idempotent even when a replayed
    txid's batch differs, because it keeps the value from before the txid.
    """

    def begin_commit(self, txid):
        raise NotImplementedError

    def commit(self, txid):
        raise NotImplementedError


class ReadOnlyState(State):
    """``ReadOnlyState``: a state that refuses to be committed to."""

    def begin_commit(self, txid):
        raise NotImplementedError("This state is read-only: it takes no updates")

    def commit(self, txid):
        raise NotImplementedError("This state is read-only: it takes no updates")


class StateType(enum.Enum):
    """``StateType``: how a state behaves when a batch is replayed (see :class:`State`).
    ``StateType("opaque")`` reads the snake-case name."""

    NON_TRANSACTIONAL = "non_transactional"
    TRANSACTIONAL = "transactional"
    OPAQUE = "opaque"


class StateFactory(object):
    """``StateFactory``: made at planning time (and shipped with the topology);
    ``make_state(conf, metrics_context, partition_index, num_partitions)`` is called in the
    worker, once per task and state."""

    def make_state(self, conf, metrics_context, partition_index, num_partitions):
        raise NotImplementedError


class ValueUpdater(object):
    """``ValueUpdater``: ``update(stored) -> new value`` (``stored`` is None for no value).
    Any object with that method will do (:mod:`pynimbus.trident.state.updaters`)."""

    def update(self, stored):
        raise NotImplementedError


class ReadOnlySnapshottable(State):
    """``ReadOnlySnapshottable``: ``get()`` the one value."""

    def get(self):
        raise NotImplementedError


class Snapshottable(ReadOnlySnapshottable):
    """``Snapshottable``: a state of one value (``persistent_aggregate`` of an ungrouped
    stream): ``get()``, ``set(value)``, ``update(updater) -> new value``."""

    def update(self, updater):
        raise NotImplementedError

    def set(self, value):
        raise NotImplementedError


class ITupleCollection(object):
    """``ITupleCollection``: ``get_tuples()`` iterates the state's content as lists of
    values."""

    def get_tuples(self):
        raise NotImplementedError


class IBackingMap(object):
    """``IBackingMap``: the storage under a map state, with no notion of batches.

    ``multi_get(keys)`` returns one stored value per key (None where there is none);
    ``multi_put(keys, values)`` stores them.  What a value is depends on the map state over it
    (:class:`~pynimbus.trident.state.values.TransactionalValue` under a transactional map,
    :class:`~pynimbus.trident.state.values.OpaqueValue` under an opaque one)."""

    def multi_get(self, keys):
        raise NotImplementedError

    def multi_put(self, keys, values):
        raise NotImplementedError


class ReadOnlyMapState(State):
    """``ReadOnlyMapState``: ``multi_get(keys)`` (what ``state_query(MapGet())`` calls)."""

    def multi_get(self, keys):
        raise NotImplementedError


class MapState(ReadOnlyMapState):
    """``MapState``: ``multi_update(keys, updaters) -> new values`` (each key's value given to
    its updater; what ``persistent_aggregate`` calls) and ``multi_put(keys, values)``."""

    def multi_update(self, keys, updaters):
        raise NotImplementedError

    def multi_put(self, keys, values):
        raise NotImplementedError


class RemovableMapState(State):
    """``RemovableMapState``: ``multi_remove(keys)``."""

    def multi_remove(self, keys):
        raise NotImplementedError
