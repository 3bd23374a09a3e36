"""The processors a Trident node runs inside its ``SubtopologyBolt`` (pure).

Ports of 1.2.4 ``trident/planner/processor``: ``EachProcessor``, ``MapProcessor``,
``ProjectedProcessor``, ``AggregateProcessor``, ``PartitionPersistProcessor``,
``StateQueryProcessor``, ``MultiReducerProcessor``, their ``AppendCollector`` and
``FreshCollector``, and ``TridentContext`` (what ``SubtopologyBolt`` tells each processor).

A processor is made by the planner with its operation and input fields, ``prepare``d once per
task, then per batch: ``start_batch``, ``execute`` for each tuple from a parent, ``finish_batch``;
what it emits goes to its receivers (the next processors, or the bridge to another bolt).
The per-batch values live in the batch's ``ProcessorContext``, at the node's state index.
"""

from pynimbus.trident.context import TridentMultiReducerContext, TridentOperationContext
from pynimbus.trident.tuple import FreshOutputFactory, OperationOutputFactory, ProjectionFactory

_new_tuple = tuple.__new__


class ProcessorContext(object):
    """``ProcessorContext``: a batch's id and one state slot per node of the bolt."""

    __slots__ = ("batch_id", "state")

    def __init__(self, batch_id, size):
        self.batch_id = batch_id
        self.state = [None] * size


class TridentContext(object):
    """``TridentContext``: a processor's own output fields, its parents' tuple factories and
    stream ids, its receivers, its stream id, its state slot, the bolt's collector."""

    def __init__(self, self_out_fields, parent_factories, parent_streams, receivers,
                 out_stream_id, state_index, delegate_collector):
        self.self_out_fields = self_out_fields
        self.parent_factories = parent_factories
        self.parent_streams = parent_streams
        self.receivers = receivers
        self.out_stream_id = out_stream_id
        self.state_index = state_index
        self.delegate_collector = delegate_collector


def _one_parent(trident_context, what):
    parents = trident_context.parent_factories
    if len(parents) != 1:
        raise ValueError("%s operation can only have one parent" % what)
    return parents[0]


class AppendCollector(object):
    """``AppendCollector``: emitted values appended to the current input tuple, passed to
    every receiver."""

    def __init__(self, trident_context):
        self.trident_context = trident_context
        self.factory = OperationOutputFactory(trident_context.parent_factories[0],
                                              trident_context.self_out_fields)
        self.tuple_class = self.factory.tuple_class
        self.receivers = trident_context.receivers
        self.out_stream = trident_context.out_stream_id
        self.context = None
        self.tuple = None

    def set_context(self, processor_context, tuple_):
        self.context = processor_context
        self.tuple = tuple_

    def emit(self, values):
        # OperationOutputFactory.create, inlined: this is every each's per-tuple path
        out = _new_tuple(self.tuple_class,
                         self.tuple + (() if values is None else tuple(values)))
        context, stream = self.context, self.out_stream
        for receiver in self.receivers:
            receiver.execute(context, stream, out)

    def report_error(self, error):
        self.trident_context.delegate_collector.report_error(error)


class FreshCollector(object):
    """``FreshCollector``: emitted values as a tuple of the processor's own fields."""

    def __init__(self, trident_context):
        self.trident_context = trident_context
        self.factory = FreshOutputFactory(trident_context.self_out_fields)
        self.receivers = trident_context.receivers
        self.out_stream = trident_context.out_stream_id
        self.context = None

    def set_context(self, processor_context):
        self.context = processor_context

    def emit(self, values):
        out = self.factory.create(values)
        for receiver in self.receivers:
            receiver.execute(self.context, self.out_stream, out)

    def report_error(self, error):
        self.trident_context.delegate_collector.report_error(error)


class TridentProcessor(object):
    """What every processor does by default."""

    input_fields = None
    collector = None

    def cleanup(self):
        pass

    def start_batch(self, processor_context):
        pass

    def finish_batch(self, processor_context):
        pass

    def get_output_factory(self):
        return self.collector.factory


class EachProcessor(TridentProcessor):
    """``EachProcessor`` (``each``, ``filter``): a function's values appended to its input."""

    def __init__(self, input_fields, function):
        self.input_fields = input_fields
        self.function = function
        self.projection = None
        self.fused = None

    def fuse(self):
        """A combiner's ``init`` each (``CombinerAggregatorInitImpl``) whose only receiver is
        the partial aggregation that folds it (a grouped combiner reading its input as it
        is): each value goes into the fold directly, without the tuple it would append."""
        from pynimbus.trident.operation_impl import CombinerAggregatorInitImpl

        receivers = self.collector.receivers
        if (type(self.function) is CombinerAggregatorInitImpl and len(receivers) == 1
                and isinstance(receivers[0], AggregateProcessor)
                and receivers[0].projection is None
                and getattr(receivers[0].agg, "combine_into", None) is not None):
            self.fused = receivers[0]

    def prepare(self, conf, context, trident_context):
        parent = _one_parent(trident_context, "Each")
        self.collector = AppendCollector(trident_context)
        self.projection = ProjectionFactory(parent, self.input_fields)
        self.function.prepare(conf, TridentOperationContext(context, self.projection))

    def cleanup(self):
        self.function.cleanup()

    def execute(self, processor_context, stream_id, tuple_):
        fused = self.fused
        if fused is not None:
            value = self.function.agg.init(self.projection.create(tuple_))
            fused.agg.combine_into(processor_context.state[fused.state_index], tuple_, value)
            return
        collector = self.collector
        collector.context = processor_context
        collector.tuple = tuple_
        self.function.execute(self.projection.create(tuple_), collector)


class MapProcessor(TridentProcessor):
    """``MapProcessor`` (``map``, ``flat_map``, ``peek``): the function's values as tuples of
    the node's fields."""

    def __init__(self, input_fields, function):
        self.input_fields = input_fields
        self.function = function
        self.projection = None

    def prepare(self, conf, context, trident_context):
        parent = _one_parent(trident_context, "Map")
        self.collector = FreshCollector(trident_context)
        self.projection = ProjectionFactory(parent, self.input_fields)
        self.function.prepare(conf, TridentOperationContext(context, self.projection))

    def cleanup(self):
        self.function.cleanup()

    def execute(self, processor_context, stream_id, tuple_):
        self.collector.set_context(processor_context)
        self.function.execute(self.projection.create(tuple_), self.collector)


class ProjectedProcessor(TridentProcessor):
    """``ProjectedProcessor`` (``project``): the kept fields of each tuple."""

    def __init__(self, project_fields):
        self.project_fields = project_fields
        self.factory = None
        self.receivers = ()
        self.out_stream = None

    def prepare(self, conf, context, trident_context):
        parent = _one_parent(trident_context, "Projection")
        self.factory = ProjectionFactory(parent, self.project_fields)
        self.receivers = trident_context.receivers
        self.out_stream = trident_context.out_stream_id

    def execute(self, processor_context, stream_id, tuple_):
        out = self.factory.create(tuple_)
        for receiver in self.receivers:
            receiver.execute(processor_context, self.out_stream, out)

    def get_output_factory(self):
        return self.factory


class AggregateProcessor(TridentProcessor):
    """``AggregateProcessor``: an aggregator's ``init`` per batch, ``aggregate`` per tuple,
    ``complete`` at the batch's end (fresh fields)."""

    def __init__(self, input_fields, agg):
        self.input_fields = input_fields
        self.agg = agg
        self.projection = None
        self.state_index = None

    def prepare(self, conf, context, trident_context):
        parent = _one_parent(trident_context, "Aggregate")
        self.collector = FreshCollector(trident_context)
        self.projection = ProjectionFactory(parent, self.input_fields)
        self.state_index = trident_context.state_index
        self.agg.prepare(conf, TridentOperationContext(context, self.projection))
        # an aggregator of the planner's own that reads the parent's tuples as they are
        # (no projection to make per tuple): it says so, given their layout
        reads_parent = getattr(self.agg, "reads_layout", None)
        if reads_parent is not None and reads_parent(parent.output_fields):
            self.projection = None

    def cleanup(self):
        self.agg.cleanup()

    def start_batch(self, processor_context):
        self.collector.set_context(processor_context)
        processor_context.state[self.state_index] = self.agg.init(processor_context.batch_id,
                                                                  self.collector)

    def execute(self, processor_context, stream_id, tuple_):
        self.collector.context = processor_context
        projection = self.projection
        self.agg.aggregate(processor_context.state[self.state_index],
                           tuple_ if projection is None else projection.create(tuple_),
                           self.collector)

    def finish_batch(self, processor_context):
        self.collector.set_context(processor_context)
        self.agg.complete(processor_context.state[self.state_index], self.collector)


class PartitionPersistProcessor(TridentProcessor):
    """``PartitionPersistProcessor``: a batch's projected tuples, at the batch's end and when
    there are any, handed to the updater between the state's ``begin_commit(txid)`` and
    ``commit(txid)`` (a committer: its bolt finishes the batch on ``$commit``)."""

    def __init__(self, state_id, input_fields, updater):
        self.state_id = state_id
        self.input_fields = input_fields
        self.updater = updater
        self.state = None
        self.projection = None
        self.state_index = None

    def prepare(self, conf, context, trident_context):
        parent = _one_parent(trident_context, "Partition persist")
        self.state = context.get_task_data(self.state_id)
        self.projection = ProjectionFactory(parent, self.input_fields)
        self.collector = FreshCollector(trident_context)
        self.state_index = trident_context.state_index
        self.updater.prepare(conf, TridentOperationContext(context, self.projection))

    def cleanup(self):
        self.updater.cleanup()

    def start_batch(self, processor_context):
        processor_context.state[self.state_index] = []

    def execute(self, processor_context, stream_id, tuple_):
        processor_context.state[self.state_index].append(self.projection.create(tuple_))

    def finish_batch(self, processor_context):
        self.collector.set_context(processor_context)
        buffer = processor_context.state[self.state_index]
        if buffer:
            batch_id = processor_context.batch_id
            txid = getattr(batch_id, "txid", None)
            self.state.begin_commit(txid)
            self.updater.update_state(self.state, buffer, self.collector)
            self.state.commit(txid)


class StateQueryProcessor(TridentProcessor):
    """``StateQueryProcessor``: a batch's tuples queried against the state at the batch's end
    (one ``batch_retrieve``), each result given to the function with its tuple."""

    def __init__(self, state_id, input_fields, function):
        self.state_id = state_id
        self.input_fields = input_fields
        self.function = function
        self.state = None
        self.projection = None
        self.state_index = None

    def prepare(self, conf, context, trident_context):
        parent = _one_parent(trident_context, "State query")
        self.state = context.get_task_data(self.state_id)
        self.projection = ProjectionFactory(parent, self.input_fields)
        self.collector = AppendCollector(trident_context)
        self.state_index = trident_context.state_index
        self.function.prepare(conf, TridentOperationContext(context, self.projection))

    def cleanup(self):
        self.function.cleanup()

    def start_batch(self, processor_context):
        processor_context.state[self.state_index] = ([], [])

    def execute(self, processor_context, stream_id, tuple_):
        tuples, args = processor_context.state[self.state_index]
        tuples.append(tuple_)
        args.append(self.projection.create(tuple_))

    def finish_batch(self, processor_context):
        tuples, args = processor_context.state[self.state_index]
        if not tuples:
            return
        results = self.function.batch_retrieve(self.state, list(args))
        if len(results) != len(tuples):
            raise ValueError("Results size is different than argument size: %d vs %d"
                             % (len(results), len(tuples)))
        for tuple_, arg, result in zip(tuples, args, results):
            self.collector.set_context(processor_context, tuple_)
            self.function.execute(arg, result, self.collector)


class MultiReducerProcessor(TridentProcessor):
    """``MultiReducerProcessor`` (``merge``, ``join``, ``multi_reduce``): one reducer over the
    parent streams, each projected to its input fields; fresh output."""

    def __init__(self, input_fields, reducer):
        self.input_fields = input_fields
        self.reducer = reducer
        self.stream_to_index = {}
        self.projections = []
        self.state_index = None

    def prepare(self, conf, context, trident_context):
        parents = trident_context.parent_factories
        self.stream_to_index = {stream: i
                                for i, stream in enumerate(trident_context.parent_streams)}
        self.projections = [ProjectionFactory(parents[i], fields)
                            for i, fields in enumerate(self.input_fields)]
        self.collector = FreshCollector(trident_context)
        self.state_index = trident_context.state_index
        self.reducer.prepare(conf, TridentMultiReducerContext(self.projections, context))

    def cleanup(self):
        self.reducer.cleanup()

    def start_batch(self, processor_context):
        self.collector.set_context(processor_context)
        processor_context.state[self.state_index] = self.reducer.init(self.collector)

    def execute(self, processor_context, stream_id, tuple_):
        self.collector.set_context(processor_context)
        i = self.stream_to_index[stream_id]
        self.reducer.execute(processor_context.state[self.state_index], i,
                             self.projections[i].create(tuple_), self.collector)

    def finish_batch(self, processor_context):
        self.collector.set_context(processor_context)
        self.reducer.complete(processor_context.state[self.state_index], self.collector)
