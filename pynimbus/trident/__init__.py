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

import importlib

# Each public name and the module that defines it: imported on first use (PEP 562), so that a
# worker that only asks whether a topology is a Trident one loads none of this.
_PUBLIC = {
    "Fields": "fields",
    "DefaultResourceDeclarer": "graph", "StateSpec": "graph",
    "Assembly": "operation", "BaseAggregator": "operation", "BaseFilter": "operation",
    "BaseFunction": "operation", "BaseMultiReducer": "operation", "BaseOperation": "operation",
    "CombinerAggregator": "operation", "Consumer": "operation",
    "FailedException": "operation", "FlatMapFunction": "operation", "MapFunction": "operation",
    "ReducerAggregator": "operation", "ReportedFailedException": "operation",
    "FixedBatchSpout": "spout", "IBatchSpout": "spout", "ICommitterTridentSpout": "spout",
    "ITridentSpout": "spout", "OpaquePartitionedTridentSpout": "spout",
    "PartitionedTridentSpout": "spout",
    "MemoryMapState": "state", "SQLiteMapState": "state",
    "BaseQueryFunction": "state.updaters", "BaseStateUpdater": "state.updaters",
    "GroupedStream": "stream", "Stream": "stream", "TridentState": "stream",
    "PlanningError": "topology", "TridentTopology": "topology",
    "TransactionAttempt": "transaction_attempt",
    "TridentTuple": "tuple",
}


def __getattr__(name):
    module = _PUBLIC.get(name)
    if module is None:
        raise AttributeError("module %r has no attribute %r" % (__name__, name))
    value = getattr(importlib.import_module("pynimbus.trident." + module), name)
    globals()[name] = value
    return value


def __dir__():
    return sorted(list(globals()) + list(_PUBLIC))


__all__ = [
    "Assembly", "BaseAggregator", "BaseFilter", "BaseFunction", "BaseMultiReducer",
    "BaseOperation", "BaseQueryFunction", "BaseStateUpdater", "CombinerAggregator", "Consumer",
    "DefaultResourceDeclarer", "FailedException", "Fields", "FixedBatchSpout", "FlatMapFunction",
    "GroupedStream", "IBatchSpout", "ICommitterTridentSpout", "ITridentSpout", "MapFunction",
    "MemoryMapState", "OpaquePartitionedTridentSpout", "PartitionedTridentSpout", "PlanningError",
    "ReducerAggregator", "ReportedFailedException", "SQLiteMapState", "StateSpec", "Stream",
    "TransactionAttempt", "TridentState", "TridentTopology", "TridentTuple",
]
