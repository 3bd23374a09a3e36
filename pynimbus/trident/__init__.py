"""Trident in Python: Storm's Trident API, its planner and its batch runtime.

A program is written as in Storm, in snake case::

    from pynimbus.trident import TridentTopology, Fields, FixedBatchSpout, MemoryMapState
    from pynimbus.trident.builtin import Count

    topology = TridentTopology()
    (topology.new_stream("spout1", FixedBatchSpout(Fields("sentence"), 3, ["a b"], ["b c"]))
        .each(Fields("sentence"), Split(), Fields("word"))
        .group_by(Fields("word"))
        .persistent_aggregate(MemoryMapState.Factory(), Count(), Fields("count")))

``topology.build()`` plans it into the Storm topology Storm 1.2.4's Java planner makes for the
same program (:mod:`pynimbus.trident.topology`).  The API and the planner are pure: no I/O.
"""

from pynimbus.trident.fields import Fields
from pynimbus.trident.graph import DefaultResourceDeclarer, StateSpec
from pynimbus.trident.operation import (
    Assembly, BaseAggregator, BaseFilter, BaseFunction, BaseMultiReducer, BaseOperation,
    CombinerAggregator, Consumer, FailedException, FlatMapFunction, MapFunction,
    ReducerAggregator, ReportedFailedException)
from pynimbus.trident.spout import (
    FixedBatchSpout, IBatchSpout, ICommitterTridentSpout, ITridentSpout,
    OpaquePartitionedTridentSpout, PartitionedTridentSpout)
from pynimbus.trident.state import MemoryMapState, SQLiteMapState
from pynimbus.trident.state.updaters import BaseQueryFunction, BaseStateUpdater
from pynimbus.trident.stream import GroupedStream, Stream, TridentState
from pynimbus.trident.topology import PlanningError, TridentTopology
from pynimbus.trident.transaction_attempt import TransactionAttempt
from pynimbus.trident.tuple import TridentTuple

__all__ = [
    "Assembly", "BaseAggregator", "BaseFilter", "BaseFunction", "BaseMultiReducer",
    "BaseOperation", "BaseQueryFunction", "BaseStateUpdater", "CombinerAggregator", "Consumer",
    "DefaultResourceDeclarer", "FailedException", "Fields", "FixedBatchSpout", "FlatMapFunction",
    "GroupedStream", "IBatchSpout", "ICommitterTridentSpout", "ITridentSpout", "MapFunction",
    "MemoryMapState", "OpaquePartitionedTridentSpout", "PartitionedTridentSpout", "PlanningError",
    "ReducerAggregator", "ReportedFailedException", "SQLiteMapState", "StateSpec", "Stream",
    "TransactionAttempt", "TridentState", "TridentTopology", "TridentTuple",
]
