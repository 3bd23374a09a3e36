"""Trident's states: the updaters and query functions the API puts on them, and the map states
(pure)."""

from pynimbus.trident.state.base import (
    IBackingMap, ITupleCollection, MapState, ReadOnlyMapState, ReadOnlySnapshottable,
    ReadOnlyState, RemovableMapState, Snapshottable, State, StateFactory, StateType,
    ValueUpdater)
from pynimbus.trident.state.cached import CachedBatchReadsMap, CachedMap
from pynimbus.trident.state.maps import (
    NonTransactionalMap, OpaqueMap, SnapshottableMap, TransactionalMap)
from pynimbus.trident.state.memory import MemoryBackingMap, MemoryMapState
from pynimbus.trident.state.serializers import (
    JSONNonTransactionalSerializer, JSONOpaqueSerializer, JSONTransactionalSerializer,
    Serializer)
from pynimbus.trident.state.sqlite import SQLiteBackingMap, SQLiteMapState
from pynimbus.trident.state.values import OpaqueValue, TransactionalValue

__all__ = [
    "CachedBatchReadsMap", "CachedMap", "IBackingMap", "ITupleCollection",
    "JSONNonTransactionalSerializer", "JSONOpaqueSerializer", "JSONTransactionalSerializer",
    "MapState", "MemoryBackingMap", "MemoryMapState", "NonTransactionalMap", "OpaqueMap",
    "OpaqueValue", "ReadOnlyMapState", "ReadOnlySnapshottable", "ReadOnlyState",
    "RemovableMapState", "SQLiteBackingMap", "SQLiteMapState", "Serializer", "SnapshottableMap",
    "Snapshottable", "State", "StateFactory", "StateType", "TransactionalMap",
    "TransactionalValue", "ValueUpdater",
]
