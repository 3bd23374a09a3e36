"""What ``persistent_aggregate`` writes into a state with (pure).

Ports of 1.2.4 ``trident/state/{BaseStateUpdater,BaseQueryFunction,CombinerValueUpdater,
ReducerValueUpdater}``, ``trident/operation/impl/{CombinerAggStateUpdater,ReducerAggStateUpdater}``
and ``trident/state/map/{MapCombinerAggStateUpdater,MapReducerAggStateUpdater}``.
"""

from pynimbus.trident.operation import BaseOperation


class BaseStateUpdater(BaseOperation):
    """``StateUpdater``: ``update_state(state, tuples, collector)`` once per batch and
    partition, between the state's ``begin_commit`` and ``commit``."""

    def update_state(self, state, tuples, collector):
        raise NotImplementedError


class BaseQueryFunction(BaseOperation):
    """``QueryFunction``: ``batch_retrieve(state, tuples)`` answers a batch's tuples (one
    result each); ``execute(tuple, result, collector)`` emits what to append to each."""

    def batch_retrieve(self, state, tuples):
        raise NotImplementedError

    def execute(self, tuple_, result, collector):
        raise NotImplementedError


class CombinerValueUpdater(object):
    """``CombinerValueUpdater``: a stored value combined with ``arg`` (``arg`` if none)."""

    def __init__(self, agg, arg):
        self.agg = agg
        self.arg = arg

    def update(self, stored):
        return self.arg if stored is None else self.agg.combine(stored, self.arg)


class ReducerValueUpdater(object):
    """``ReducerValueUpdater``: ``tuples`` reduced into a stored value (``init()`` if none)."""

    def __init__(self, agg, tuples):
        self.agg = agg
        self.tuples = tuples

    def update(self, stored):
        value = self.agg.init() if stored is None else stored
        for tuple_ in self.tuples:
            value = self.agg.reduce(value, tuple_)
        return value


class CombinerAggStateUpdater(BaseStateUpdater):
    """``CombinerAggStateUpdater``: a global aggregate (one tuple a batch) combined into a
    snapshottable state; the new value emitted."""

    def __init__(self, agg):
        self.agg = agg

    def update_state(self, state, tuples, collector):
        if len(tuples) != 1:
            raise ValueError("Combiner state updater should receive a single tuple. Received: "
                             "%r" % (tuples,))
        collector.emit((state.update(CombinerValueUpdater(self.agg, tuples[0][0])),))


class ReducerAggStateUpdater(BaseStateUpdater):
    """``ReducerAggStateUpdater``: the batch's tuples reduced into a snapshottable state."""

    def __init__(self, agg):
        self.agg = agg

    def update_state(self, state, tuples, collector):
        collector.emit((state.update(ReducerValueUpdater(self.agg, tuples)),))


class _MapStateUpdater(BaseStateUpdater):
    """What both map updaters keep: the aggregator, the group's and the input's layouts."""

    def __init__(self, agg, group_fields, input_fields):
        self.agg = agg
        self.group_fields = group_fields
        self.input_fields = input_fields
        self.group_factory = self.input_factory = None

    def prepare(self, conf, context):
        self.group_factory = context.make_projection_factory(self.group_fields)
        self.input_factory = context.make_projection_factory(self.input_fields)


class MapCombinerAggStateUpdater(_MapStateUpdater):
    """``MapCombinerAggStateUpdater``: each group's partial aggregate combined into its key of
    a map state; emits group fields + the new value.

    :raises ValueError: more than one input field (Storm's message)."""

    def __init__(self, agg, group_fields, input_fields):
        if len(input_fields) != 1:
            raise ValueError("Combiner aggs only take a single field as input. Got this "
                             "instead: %s" % (input_fields,))
        super().__init__(agg, group_fields, input_fields)

    def update_state(self, map_state, tuples, collector):
        groups = [list(self.group_factory.create(t)) for t in tuples]
        updaters = [CombinerValueUpdater(self.agg, self.input_factory.create(t)[0])
                    for t in tuples]
        new_values = map_state.multi_update(groups, updaters)
        for key, result in zip(groups, new_values):
            collector.emit(key + [result])


class MapReducerAggStateUpdater(_MapStateUpdater):
    """``MapReducerAggStateUpdater``: each group's tuples reduced into its key of a map state;
    emits group fields + the new value."""

    def update_state(self, map_state, tuples, collector):
        grouped = {}
        for t in tuples:
            grouped.setdefault(tuple(self.group_factory.create(t)), []).append(
                self.input_factory.create(t))
        groups = [list(key) for key in grouped]
        results = map_state.multi_update(
            groups, [ReducerValueUpdater(self.agg, ts) for ts in grouped.values()])
        for key, result in zip(groups, results):
            collector.emit(key + [result])
