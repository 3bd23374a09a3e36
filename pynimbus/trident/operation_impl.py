"""The operations Trident's planner puts around a user's ones (pure).

Ports of 1.2.4 ``trident/operation/impl``: ``FilterExecutor``, ``MapFunctionExecutor``,
``FlatMapFunctionExecutor``, ``ConsumerExecutor``, ``TrueFilter``, the combiner's
``CombinerAggregatorInitImpl``/``CombinerAggregatorCombineImpl``, ``ReducerAggregatorImpl``,
``ChainedAggregatorImpl`` (several aggregators on one input, the cross product of their outputs),
``GroupedAggregator`` (one aggregator state per group), ``SingleEmitAggregator`` (a global
aggregation emits once per batch, on one partition), the batch-to-partition choices, and the
multi-reducers of ``merge`` and ``join`` (``IdentityMultiReducer``,
``GroupedMultiReducerExecutor``, ``JoinerMultiReducer``).

Deliberate difference: groups are kept in a dict, so ``complete`` runs per group in the order the
groups first came (Java's ``HashMap`` order of list keys is not kept).
"""

import itertools
import operator

from pynimbus.trident.operation import BaseOperation


class FilterExecutor(BaseOperation):
    """``FilterExecutor``: a filter as a function that appends nothing to kept tuples."""

    def __init__(self, filter_):
        self.filter = filter_

    def prepare(self, conf, context):
        self.filter.prepare(conf, context)

    def execute(self, tuple_, collector):
        if self.filter.is_keep(tuple_):
            collector.emit(())

    def cleanup(self):
        self.filter.cleanup()


class TrueFilter(BaseOperation):
    """``TrueFilter``: keeps every tuple (the planner's identity node)."""

    def is_keep(self, tuple_):
        return True


class _Wrapping(BaseOperation):
    def __init__(self, function):
        self.function = function

    def prepare(self, conf, context):
        prepare = getattr(self.function, "prepare", None)
        if prepare is not None:
            prepare(conf, context)

    def cleanup(self):
        cleanup = getattr(self.function, "cleanup", None)
        if cleanup is not None:
            cleanup()


class MapFunctionExecutor(_Wrapping):
    """``MapFunctionExecutor``: the map function's values as the output tuple."""

    def execute(self, tuple_, collector):
        collector.emit(self.function.execute(tuple_))


class FlatMapFunctionExecutor(_Wrapping):
    """``FlatMapFunctionExecutor``: each of the values the function returns, emitted."""

    def execute(self, tuple_, collector):
        for values in self.function.execute(tuple_):
            collector.emit(values)


class ConsumerExecutor(_Wrapping):
    """``ConsumerExecutor`` (``peek``): the consumer sees the tuple, which passes on."""

    def execute(self, tuple_, collector):
        self.function.accept(tuple_)
        collector.emit(tuple_)


class CombinerAggregatorInitImpl(BaseOperation):
    """``CombinerAggregatorInitImpl``: each tuple's ``init`` value, appended."""

    def __init__(self, agg):
        self.agg = agg

    def execute(self, tuple_, collector):
        collector.emit((self.agg.init(tuple_),))


class Result(object):
    """``Result``: one mutable value."""

    __slots__ = ("obj",)

    def __init__(self, obj=None):
        self.obj = obj


class CombinerAggregatorCombineImpl(BaseOperation):
    """``CombinerAggregatorCombineImpl``: ``zero()``, then each tuple's value combined (a null
    running value is replaced, as in Storm); one value at ``complete``."""

    def __init__(self, agg):
        self.agg = agg

    def init(self, batch_id, collector):
        return Result(self.agg.zero())

    def aggregate(self, val, tuple_, collector):
        v = tuple_[0]
        val.obj = v if val.obj is None else self.agg.combine(val.obj, v)

    def complete(self, val, collector):
        collector.emit((val.obj,))


class ReducerAggregatorImpl(BaseOperation):
    """``ReducerAggregatorImpl``: ``init()``, each tuple reduced in; one value at ``complete``."""

    def __init__(self, agg):
        self.agg = agg

    def init(self, batch_id, collector):
        return Result(self.agg.init())

    def aggregate(self, val, tuple_, collector):
        val.obj = self.agg.reduce(val.obj, tuple_)

    def complete(self, val, collector):
        collector.emit((val.obj,))


class CaptureCollector(object):
    """``CaptureCollector``: keeps what is emitted; errors go through."""

    def __init__(self):
        self.captured = []
        self.collector = None

    def emit(self, values):
        self.captured.append(values)

    def report_error(self, error):
        self.collector.report_error(error)


class ChainedResult(object):
    """``ChainedResult``: each aggregator's state and collector (its own capture when there
    are several)."""

    def __init__(self, collector, size):
        self.objs = [None] * size
        self.collectors = ([collector] if size == 1
                           else [CaptureCollector() for _ in range(size)])

    def set_follow_through_collector(self, collector):
        if len(self.collectors) > 1:
            for c in self.collectors:
                c.collector = collector


class ChainedAggregatorImpl(BaseOperation):
    """``ChainedAggregatorImpl``: several aggregators on the same tuples, each on its own input
    fields; one emits directly, several emit the cross product of their captured outputs."""

    def __init__(self, aggs, input_fields):
        if len(aggs) != len(input_fields):
            raise ValueError("Require input fields for each aggregator")
        self.aggs = list(aggs)
        self.input_fields = list(input_fields)
        self.input_factories = None

    def prepare(self, conf, context):
        self.input_factories = []
        for agg, fields in zip(self.aggs, self.input_fields):
            factory = context.make_projection_factory(fields)
            self.input_factories.append(factory)
            agg.prepare(conf, context.with_projection(factory))

    def init(self, batch_id, collector):
        initted = ChainedResult(collector, len(self.aggs))
        for i, agg in enumerate(self.aggs):
            initted.objs[i] = agg.init(batch_id, initted.collectors[i])
        return initted

    def aggregate(self, val, tuple_, collector):
        val.set_follow_through_collector(collector)
        for i, agg in enumerate(self.aggs):
            agg.aggregate(val.objs[i], self.input_factories[i].create(tuple_), val.collectors[i])

    def complete(self, val, collector):
        val.set_follow_through_collector(collector)
        for i, agg in enumerate(self.aggs):
            agg.complete(val.objs[i], val.collectors[i])
        if len(self.aggs) > 1:  # otherwise the one aggregator emitted directly
            for combination in itertools.product(*(c.captured for c in val.collectors)):
                collector.emit([v for values in combination for v in values])

    def cleanup(self):
        for agg in self.aggs:
            agg.cleanup()


class GroupCollector(object):
    """``GroupCollector``: what a group's aggregator emits, after the group's values."""

    def __init__(self, collector):
        self.collector = collector
        self.curr_group = ()

    def emit(self, values):
        self.collector.emit(tuple(self.curr_group) + tuple(values))

    def report_error(self, error):
        self.collector.report_error(error)


def combiner_of(agg):
    """The ``CombinerAggregator`` a chain of just one ``CombinerAggregatorCombineImpl`` runs,
    else None."""
    if (isinstance(agg, ChainedAggregatorImpl) and len(agg.aggs) == 1
            and type(agg.aggs[0]) is CombinerAggregatorCombineImpl):
        return agg.aggs[0].agg
    return None


def _one_item_key(position):
    return lambda values: (values[position],)


def _no_key(values):
    return ()


class GroupedAggregator(BaseOperation):
    """``GroupedAggregator``: the aggregator run per value of the group fields."""

    def __init__(self, agg, group_fields, input_fields, out_size):
        self.agg = agg
        self.group_fields = group_fields
        self.input_fields = input_fields
        self.out_size = out_size
        self.group_factory = self.input_factory = None

    def prepare(self, conf, context):
        self.input_factory = context.make_projection_factory(self.input_fields)
        self.group_factory = context.make_projection_factory(self.group_fields)
        self.agg.prepare(conf, context.with_projection(self.input_factory))
        self.combiner = combiner_of(self.agg)
        if self.combiner is not None:
            self.reads_layout(context.factory.output_fields)

    def reads_layout(self, layout):
        """Read the tuples of fields ``layout`` from now on (the aggregate processor's input,
        unprojected); True when this aggregator can: one combiner, folded without the chain
        (:meth:`combine_into`)."""
        if self.combiner is None:
            return False
        positions = [layout.field_index(f) for f in self.group_fields]
        self.group_key = (operator.itemgetter(*positions) if len(positions) > 1
                          else _one_item_key(positions[0]) if positions else _no_key)
        self.value_position = layout.field_index(self.agg.input_fields[0][0])
        return True

    def init(self, batch_id, collector):
        return [GroupCollector(collector), {}, batch_id]

    def aggregate(self, arr, tuple_, collector):
        if self.combiner is not None:
            self.combine_into(arr, tuple_, tuple_[self.value_position])
            return
        group_collector, groups, batch_id = arr
        group = self.group_factory.create(tuple_)
        try:
            curr = groups[group]
        except KeyError:
            curr = groups[group] = self.agg.init(batch_id, group_collector)
        group_collector.curr_group = group
        self.agg.aggregate(curr, self.input_factory.create(tuple_), group_collector)

    def combine_into(self, arr, parent, value):
        """The one combiner of a chain, folded per group without the chain's objects: its
        ``zero()`` when a group starts, ``combine`` per value (``CombinerAggregatorCombineImpl``
        in ``ChainedAggregatorImpl``, which would emit the same).  ``parent`` is the tuple read,
        or the one the combiner's ``init`` each read to make ``value`` (the group's fields are
        where they are in the each's output, which appends)."""
        groups = arr[1]
        key = self.group_key(parent)
        try:
            curr = groups[key]
        except KeyError:
            curr = self.combiner.zero()
        groups[key] = value if curr is None else self.combiner.combine(curr, value)

    def complete(self, arr, collector):
        group_collector, groups, _batch_id = arr
        if self.combiner is not None:
            for key, value in groups.items():
                collector.emit(key + (value,))
            return
        for key, value in groups.items():
            group_collector.curr_group = key
            self.agg.complete(value, group_collector)

    def cleanup(self):
        self.agg.cleanup()


class SingleEmitState(object):
    __slots__ = ("received", "state", "batch_id")

    def __init__(self, batch_id):
        self.received = False
        self.state = None
        self.batch_id = batch_id


class SingleEmitAggregator(BaseOperation):
    """``SingleEmitAggregator``: a global aggregation whose partition saw no tuple of the batch
    still emits the aggregator's empty result, but only on the one partition the batch maps to
    (so exactly one result per batch)."""

    def __init__(self, agg, batch_to_partition):
        self.agg = agg
        self.batch_to_partition = batch_to_partition
        self.my_partition_index = 0
        self.total_partitions = 1

    def prepare(self, conf, context):
        self.agg.prepare(conf, context)
        self.my_partition_index = context.get_partition_index()
        self.total_partitions = context.num_partitions()

    def init(self, batch_id, collector):
        return SingleEmitState(batch_id)

    def aggregate(self, val, tuple_, collector):
        if not val.received:
            val.state = self.agg.init(val.batch_id, collector)
            val.received = True
        self.agg.aggregate(val.state, tuple_, collector)

    def complete(self, val, collector):
        if not val.received:
            if self.my_partition_index == self.batch_to_partition.partition_index(
                    val.batch_id, self.total_partitions):
                val.state = self.agg.init(val.batch_id, collector)
                self.agg.complete(val.state, collector)
        else:
            self.agg.complete(val.state, collector)

    def cleanup(self):
        self.agg.cleanup()


class GlobalBatchToPartition(object):
    """``GlobalBatchToPartition``: partition 0 (``global``'s lowest task)."""

    def partition_index(self, batch_id, num_partitions):
        return 0


class IndexHashBatchToPartition(object):
    """``IndexHashBatchToPartition``: the partition ``batchGlobal`` sends the batch to."""

    def partition_index(self, batch_id, num_partitions):
        from pynimbus.trident.partition import object_to_index
        return object_to_index(batch_id, num_partitions)


class IdentityMultiReducer(BaseOperation):
    """``IdentityMultiReducer`` (``merge``): every input tuple of every stream, emitted."""

    def init(self, collector):
        return None

    def execute(self, state, stream_index, tuple_, collector):
        collector.emit(tuple_)

    def complete(self, state, collector):
        pass


class GroupedMultiReducerExecutor(BaseOperation):
    """``GroupedMultiReducerExecutor``: a grouped multi-reducer run per group value."""

    def __init__(self, reducer, group_fields, input_fields):
        if len(group_fields) != len(input_fields):
            raise ValueError("Multireducer groupFields and inputFields must be the same size")
        self.reducer = reducer
        self.group_fields = group_fields
        self.input_fields = input_fields
        self.group_factories = []
        self.input_factories = []

    def prepare(self, conf, context):
        for i, (group, inputs) in enumerate(zip(self.group_fields, self.input_fields)):
            self.group_factories.append(context.make_projection_factory(i, group))
            self.input_factories.append(context.make_projection_factory(i, inputs))
        self.reducer.prepare(conf, context.with_factories(self.input_factories))

    def init(self, collector):
        return {}

    def execute(self, state, stream_index, full, collector):
        group = self.group_factories[stream_index].create(full)
        inputs = self.input_factories[stream_index].create(full)
        key = tuple(group)
        try:
            curr = state[key]
        except KeyError:
            curr = state[key] = self.reducer.init(collector, group)
        self.reducer.execute(curr, stream_index, group, inputs, collector)

    def complete(self, state, collector):
        for key, value in state.items():
            self.reducer.complete(value, key, collector)

    def cleanup(self):
        self.reducer.cleanup()


INNER, OUTER = "inner", "outer"  # JoinType


class JoinState(object):
    def __init__(self, num_sides, group):
        self.group = group
        self.sides = [[] for _ in range(num_sides)]
        self.num_sides_received = 0


class JoinerMultiReducer(BaseOperation):
    """``JoinerMultiReducer`` (``join``, compact out-fields): per group, the cross product of
    the sides' tuples as group fields + each side's other fields; an ``outer`` side that saw
    nothing counts as one tuple of nulls."""

    def __init__(self, types, num_group_fields, side_fields):
        self.types = list(types)
        self.num_group_fields = num_group_fields
        self.side_fields = list(side_fields)

    def init(self, collector, group):
        return JoinState(len(self.types), group)

    def execute(self, state, stream_index, group, tuple_, collector):
        side = state.sides[stream_index]
        if not side:
            state.num_sides_received += 1
        side.append(tuple_)
        if state.num_sides_received == len(state.sides):
            self._emit_cross_join(state, collector, stream_index, tuple_)

    def complete(self, state, group, collector):
        was_empty = state.num_sides_received < len(state.sides)
        for i, side in enumerate(state.sides):
            if not side and self.types[i] == OUTER:
                state.num_sides_received += 1
                side.append((None,) * len(self.side_fields[i]))
        if was_empty and state.num_sides_received == len(state.sides):
            self._emit_cross_join(state, collector, -1, None)

    def _emit_cross_join(self, state, collector, override_index, override_tuple):
        choices = [[override_tuple] if i == override_index else side
                   for i, side in enumerate(state.sides)]
        group = tuple(state.group)
        for combination in itertools.product(*choices):
            collector.emit(group + tuple(v for values in combination for v in values))
