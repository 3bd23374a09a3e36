"""Trident's fluent API: ``Stream``, ``GroupedStream``, ``ChainedAggregatorDeclarer`` and
``TridentState`` (pure).

Ports of 1.2.4 ``trident/Stream``, ``trident/fluent/{GroupedStream,ChainedAggregatorDeclarer}``
and ``trident/TridentState``, with snake-case names: every operation adds nodes to its
topology's graph exactly as Storm's does (the same node kinds, stream ids, fields and
processors), so that the planner makes the same Storm topology.  Where Java overloads a method on
its argument types, the Python method reads its arguments the same way: ``each(fields, function,
function_fields)`` or ``each(function, function_fields)``, ``each(fields, filter)``; an
aggregator's kind (:func:`pynimbus.trident.operation.aggregator_kind`) picks the overload.

Fields are :class:`~pynimbus.trident.fields.Fields`, a name, or a list of names.
"""

from pynimbus.trident import partition
from pynimbus.trident.fields import Fields, as_fields, fields_concat, fields_union
from pynimbus.trident.graph import NodeStateInfo, PartitionNode, ProcessorNode, StateSpec
from pynimbus.trident.operation import (
    AGGREGATOR, COMBINER, REDUCER, aggregator_kind, as_consumer, as_filter, as_flat_map_function,
    as_function, as_map_function)
from pynimbus.trident.operation_impl import (
    ChainedAggregatorImpl, CombinerAggregatorCombineImpl, CombinerAggregatorInitImpl,
    ConsumerExecutor, FilterExecutor, FlatMapFunctionExecutor, GlobalBatchToPartition,
    GroupedAggregator, IndexHashBatchToPartition, MapFunctionExecutor, ReducerAggregatorImpl,
    SingleEmitAggregator, TrueFilter)
from pynimbus.trident.processors import (
    AggregateProcessor, EachProcessor, MapProcessor, PartitionPersistProcessor,
    ProjectedProcessor, StateQueryProcessor)


def _state_spec(state):
    """A ``StateSpec`` from a spec or a state factory (Java's two overloads)."""
    return state if isinstance(state, StateSpec) else StateSpec(state)


def checked_hint(hint):
    """``hint`` as a parallelism hint.

    :raises ValueError: not a positive integer."""
    if not isinstance(hint, int) or isinstance(hint, bool) or hint < 1:
        raise ValueError("a parallelism hint is a positive integer, not %r" % (hint,))
    return hint


def _split_operation_args(args, method):
    """``(input_fields, operation, function_fields)`` of ``method(input_fields, op,
    function_fields)`` or ``method(op, function_fields)``."""
    if len(args) == 3:
        return as_fields(args[0]), args[1], as_fields(args[2])
    if len(args) == 2:
        return None, args[0], as_fields(args[1])
    raise TypeError("%s takes (input_fields, operation, function_fields) or (operation, "
                    "function_fields)" % method)


class NodeDeclarer(object):
    """What a stream and a state declare on their current node (``self._node``): its
    parallelism hint and resources (``Stream``'s and ``TridentState``'s
    ``parallelismHint``, ``setCPULoad``, ``setMemoryLoad``)."""

    def parallelism_hint(self, hint):
        """A hint for the current node only."""
        self._node.parallelism_hint = checked_hint(hint)
        return self

    def set_cpu_load(self, load):
        """The current node's CPU (percent of a core)."""
        self._node.set_cpu_load(load)
        return self

    def set_memory_load(self, on_heap, off_heap=None):
        """The current node's memory (MB)."""
        self._node.set_memory_load(on_heap, off_heap)
        return self


class Stream(NodeDeclarer):
    """``Stream``: a node of the graph and the name its next nodes get."""

    def __init__(self, topology, name, node):
        self._topology = topology
        self._node = node
        self._name = name

    # -- naming and resources

    def name(self, name):
        """``Stream.name``: the nodes made after this are labelled ``name`` (their bolt's id
        gets it)."""
        return Stream(self._topology, name, self._node)

    def get_output_fields(self):
        return self._node.all_output_fields

    output_fields = property(get_output_fields)

    def to_stream(self):
        return self

    # -- operations

    def project(self, keep_fields):
        keep_fields = as_fields(keep_fields)
        self._projection_validation(keep_fields)
        return self._topology._add_sourced_node(self, ProcessorNode(
            self._topology._unique_stream_id(), self._name, keep_fields, Fields(),
            ProjectedProcessor(keep_fields)))

    def group_by(self, fields):
        fields = as_fields(fields)
        self._projection_validation(fields)
        return GroupedStream(self, fields)

    def partition_by(self, fields):
        fields = as_fields(fields)
        self._projection_validation(fields)
        return self.partition(partition.fields_grouping(fields))

    def shuffle(self):
        return self.partition(partition.shuffle_grouping())

    def local_or_shuffle(self):
        return self.partition(partition.local_or_shuffle_grouping())

    def global_(self):
        """``Stream.global()``: every tuple of every batch to one partition."""
        return self.partition(partition.global_grouping())

    def batch_global(self):
        """``Stream.batchGlobal()``: a batch's tuples to one partition, batches spread."""
        return self.partition(partition.index_hash_grouping(0))

    def broadcast(self):
        return self.partition(partition.all_grouping())

    def identity_partition(self):
        return self.partition(partition.identity_grouping())

    def partition(self, grouping):
        """``Stream.partition(Grouping)``: a partition node (after an identity ``each`` when
        this node is a partition already)."""
        if isinstance(self._node, PartitionNode):
            return self.each(Fields(), TrueFilter()).partition(grouping)
        return self._topology._add_sourced_node(self, PartitionNode(
            self._node.stream_id, self._name, self.get_output_fields(), grouping))

    def apply_assembly(self, assembly):
        return assembly.apply(self)

    def each(self, *args):
        """``each(input_fields, function, function_fields)``, ``each(function,
        function_fields)`` (all fields in) or ``each(input_fields, filter)``."""
        if len(args) == 2 and not isinstance(args[1], (Fields, list, tuple, str)):
            input_fields, filter_ = as_fields(args[0]), as_filter(args[1])
            return self._each(input_fields, FilterExecutor(filter_), Fields())
        input_fields, function, function_fields = _split_operation_args(args, "each")
        return self._each(input_fields, as_function(function), function_fields)

    def _each(self, input_fields, function, function_fields):
        self._projection_validation(input_fields)
        return self._topology._add_sourced_node(self, ProcessorNode(
            self._topology._unique_stream_id(), self._name,
            fields_concat(self.get_output_fields(), function_fields), function_fields,
            EachProcessor(input_fields, function)))

    def filter(self, *args):
        """``filter(filter)`` (all fields in) or ``filter(input_fields, filter)``."""
        if len(args) == 1:
            return self.each(self.get_output_fields(), args[0])
        if len(args) == 2:
            return self.each(args[0], args[1])
        raise TypeError("filter takes (filter) or (input_fields, filter)")

    def map(self, function, output_fields=None):
        """``map(function[, output_fields])``: each tuple replaced by the function's values."""
        return self._map_node(MapFunctionExecutor(as_map_function(function)), output_fields)

    def flat_map(self, function, output_fields=None):
        return self._map_node(FlatMapFunctionExecutor(as_flat_map_function(function)),
                              output_fields)

    def peek(self, action):
        return self._map_node(ConsumerExecutor(as_consumer(action)), None)

    def _map_node(self, executor, output_fields):
        fields = self.get_output_fields()
        self._projection_validation(fields)
        out = fields if output_fields is None else as_fields(output_fields)
        return self._topology._add_sourced_node(self, ProcessorNode(
            self._topology._unique_stream_id(), self._name, out, out,
            MapProcessor(fields, executor)))

    def chained_agg(self):
        return ChainedAggregatorDeclarer(self, BatchGlobalAggScheme())

    def partition_aggregate(self, *args):
        """``partition_aggregate([input_fields,] aggregator, function_fields)``: per batch and
        partition; a combiner or reducer goes through a chain as in Storm."""
        input_fields, agg, function_fields = _split_operation_args(args, "partition_aggregate")
        kind = aggregator_kind(agg)
        self._projection_validation(input_fields)
        if kind != AGGREGATOR:
            return (self.chained_agg().partition_aggregate(input_fields, agg, function_fields)
                    .chain_end())
        return self._topology._add_sourced_node(self, ProcessorNode(
            self._topology._unique_stream_id(), self._name, function_fields, function_fields,
            AggregateProcessor(input_fields, agg)))

    def aggregate(self, *args):
        """``aggregate([input_fields,] aggregator, function_fields)``: per batch, across every
        partition."""
        input_fields, agg, function_fields = _split_operation_args(args, "aggregate")
        aggregator_kind(agg)
        self._projection_validation(input_fields)
        return self.chained_agg().aggregate(input_fields, agg, function_fields).chain_end()

    def state_query(self, *args):
        """``state_query(state, [input_fields,] query_function, function_fields)``."""
        if len(args) == 4:
            state, input_fields, function, function_fields = args
        elif len(args) == 3:
            (state, function, function_fields), input_fields = args, None
        else:
            raise TypeError("state_query takes (state, [input_fields,] function, "
                            "function_fields)")
        input_fields, function_fields = as_fields(input_fields), as_fields(function_fields)
        self._projection_validation(input_fields)
        state_id = state._node.state_info.id
        node = ProcessorNode(self._topology._unique_stream_id(), self._name,
                             fields_concat(self.get_output_fields(), function_fields),
                             function_fields, StateQueryProcessor(state_id, input_fields,
                                                                  function))
        self._topology._colocate[state_id].append(node)
        return self._topology._add_sourced_node(self, node)

    def partition_persist(self, state, *args):
        """``partition_persist(state_factory_or_spec, [input_fields,] updater[,
        function_fields])``: a TridentState."""
        if len(args) == 3:
            input_fields, updater, function_fields = args
        elif len(args) == 2 and hasattr(args[1], "update_state"):
            input_fields, updater, function_fields = args[0], args[1], Fields()
        elif len(args) == 2:
            input_fields, (updater, function_fields) = None, args
        elif len(args) == 1:
            input_fields, updater, function_fields = None, args[0], Fields()
        else:
            raise TypeError("partition_persist takes (state, [input_fields,] updater[, "
                            "function_fields])")
        input_fields, function_fields = as_fields(input_fields), as_fields(function_fields)
        self._projection_validation(input_fields)
        state_id = self._topology._unique_state_id()
        node = ProcessorNode(self._topology._unique_stream_id(), self._name, function_fields,
                             function_fields,
                             PartitionPersistProcessor(state_id, input_fields, updater))
        node.committer = True
        node.state_info = NodeStateInfo(state_id, _state_spec(state))
        return self._topology._add_sourced_state_node(self, node)

    def persistent_aggregate(self, state, *args):
        """``persistent_aggregate(state_factory_or_spec, [input_fields,] aggregator,
        function_fields)``: the batch's aggregate folded into one global value."""
        from pynimbus.trident.state.updaters import (
            CombinerAggStateUpdater, ReducerAggStateUpdater)

        input_fields, agg, function_fields = _split_operation_args(
            args, "persistent_aggregate")
        kind = aggregator_kind(agg)
        self._projection_validation(input_fields)
        if kind == COMBINER:
            return (ChainedAggregatorDeclarer(self, GlobalAggScheme())
                    .aggregate(input_fields, agg, function_fields).chain_end()
                    .partition_persist(state, function_fields, CombinerAggStateUpdater(agg),
                                       function_fields))
        if kind == AGGREGATOR:
            raise TypeError("persistent_aggregate takes a CombinerAggregator or a "
                            "ReducerAggregator, not %r" % (agg,))
        return self.global_().partition_persist(state, input_fields,
                                                ReducerAggStateUpdater(agg), function_fields)

    def _projection_validation(self, fields):
        """``Stream.projectionValidation``.

        :raises ValueError: a field the stream does not have (Storm's message)."""
        if fields is None:
            return
        all_fields = self.get_output_fields()
        for name in fields:
            if not all_fields.contains(name):
                raise ValueError("Trying to select non-existent field: '%s' from stream "
                                 "containing fields fields: <%s>" % (name, all_fields))


class BatchGlobalAggScheme(object):
    """``Stream.BatchGlobalAggScheme`` (``aggregate``): a batch to one partition."""

    def agg_partition(self, stream):
        return stream.batch_global()

    def single_emit_partitioner(self):
        return IndexHashBatchToPartition()


class GlobalAggScheme(object):
    """``Stream.GlobalAggScheme`` (``persistent_aggregate``): all to one partition."""

    def agg_partition(self, stream):
        return stream.global_()

    def single_emit_partitioner(self):
        return GlobalBatchToPartition()


class GroupedStream(object):
    """``GroupedStream``: a stream and its group fields; aggregations run per group."""

    def __init__(self, stream, group_fields):
        self._stream = stream
        self._group_fields = group_fields

    def name(self, name):
        return GroupedStream(self._stream.name(name), self._group_fields)

    def get_group_fields(self):
        return self._group_fields

    def get_output_fields(self):
        return self._stream.get_output_fields()

    output_fields = property(get_output_fields)

    def to_stream(self):
        return self._stream

    def chained_agg(self):
        return ChainedAggregatorDeclarer(self, self)

    def aggregate(self, *args):
        input_fields, agg, function_fields = _split_operation_args(args, "aggregate")
        aggregator_kind(agg)
        return (ChainedAggregatorDeclarer(self, self)
                .aggregate(input_fields, agg, function_fields).chain_end())

    def persistent_aggregate(self, state, *args):
        """``persistent_aggregate(state_factory_or_spec, [input_fields,] aggregator,
        function_fields)``: a map state of group -> aggregate."""
        from pynimbus.trident.state.updaters import (
            MapCombinerAggStateUpdater, MapReducerAggStateUpdater)

        input_fields, agg, function_fields = _split_operation_args(
            args, "persistent_aggregate")
        kind = aggregator_kind(agg)
        group = self._group_fields
        if kind == COMBINER:
            return self.aggregate(input_fields, agg, function_fields).partition_persist(
                state, fields_union(group, function_fields),
                MapCombinerAggStateUpdater(agg, group, function_fields),
                fields_concat(group, function_fields))
        if kind == AGGREGATOR:
            raise TypeError("persistent_aggregate takes a CombinerAggregator or a "
                            "ReducerAggregator, not %r" % (agg,))
        return self._stream.partition_by(group).partition_persist(
            state, fields_union(group, input_fields),
            MapReducerAggStateUpdater(agg, group, input_fields),
            fields_concat(group, function_fields))

    def state_query(self, state, *args):
        return self._stream.partition_by(self._group_fields).state_query(state, *args)

    # -- IAggregatableStream, as the chained aggregator uses it

    def each(self, input_fields, function, function_fields):
        return GroupedStream(self._stream.each(input_fields, function, function_fields),
                             self._group_fields)

    def partition_aggregate(self, input_fields, agg, function_fields):
        grouped = GroupedAggregator(agg, self._group_fields, input_fields,
                                    len(function_fields))
        all_in = fields_union(self._group_fields, input_fields)
        all_out = fields_concat(self._group_fields, function_fields)
        return GroupedStream(self._stream.partition_aggregate(all_in, grouped, all_out),
                             self._group_fields)

    # -- GlobalAggregationScheme

    def agg_partition(self, grouped):
        return GroupedStream(grouped._stream.partition_by(self._group_fields),
                             self._group_fields)

    def single_emit_partitioner(self):
        return None


PARTITION, FULL, FULL_COMBINE = "partition", "full", "full_combine"  # AggType


class ChainedAggregatorDeclarer(object):
    """``ChainedAggregatorDeclarer``: several aggregations on one stream, ended by
    ``chain_end()``, which adds the partial and the global aggregation nodes."""

    def __init__(self, stream, global_scheme):
        self._stream = stream
        self._global_scheme = global_scheme
        self._aggs = []   # (input fields, aggregator, output fields)
        self._type = None

    def chain_end(self):
        input_fields, aggs, all_out, all_in = [], [], [], []
        for in_fields, agg, out_fields in self._aggs:
            in_fields = in_fields if in_fields is not None else Fields()
            out_fields = out_fields if out_fields is not None else Fields()
            input_fields.append(in_fields)
            aggs.append(agg)
            all_out.extend(out_fields)
            all_in.extend(in_fields)
        if len(set(all_out)) != len(all_out):
            raise ValueError("Output fields for chained aggregators must be distinct: [%s]"
                             % ", ".join(all_out))
        in_fields = fields_union(Fields(list(dict.fromkeys(all_in))))
        out_fields = Fields(all_out)
        combined = ChainedAggregatorImpl(aggs, input_fields)
        if self._type != FULL:
            self._stream = self._stream.partition_aggregate(in_fields, combined, out_fields)
        if self._type != PARTITION:
            self._stream = self._global_scheme.agg_partition(self._stream)
            single_emit = self._global_scheme.single_emit_partitioner()
            to_agg = combined
            if single_emit is not None:
                to_agg = SingleEmitAggregator(combined, single_emit)
            self._stream = self._stream.partition_aggregate(in_fields, to_agg, out_fields)
        return self._stream.to_stream()

    def partition_aggregate(self, *args):
        input_fields, agg, function_fields = _split_operation_args(args, "partition_aggregate")
        kind = aggregator_kind(agg)
        if kind == COMBINER:
            self._init_combiner(input_fields, agg, function_fields)
            return self._add(PARTITION, function_fields, CombinerAggregatorCombineImpl(agg),
                             function_fields)
        if kind == AGGREGATOR:
            return self._add(PARTITION, input_fields, agg, function_fields)
        return self._add(PARTITION, input_fields, ReducerAggregatorImpl(agg), function_fields)

    def aggregate(self, *args):
        input_fields, agg, function_fields = _split_operation_args(args, "aggregate")
        kind = aggregator_kind(agg)
        if kind == COMBINER:
            self._init_combiner(input_fields, agg, function_fields)
            if self._type is None:
                self._type = FULL_COMBINE
            self._aggs.append((function_fields, CombinerAggregatorCombineImpl(agg),
                               function_fields))
            return self
        if kind == REDUCER:
            agg = ReducerAggregatorImpl(agg)
        return self._add(FULL, input_fields, agg, function_fields)

    def _add(self, agg_type, input_fields, agg, function_fields):
        self._type = agg_type
        self._aggs.append((input_fields, agg, function_fields))
        return self

    def _init_combiner(self, input_fields, agg, function_fields):
        self._stream = self._stream.each(input_fields, CombinerAggregatorInitImpl(agg),
                                         function_fields)


class TridentState(NodeDeclarer):
    """``TridentState``: a state node; ``new_values_stream()`` is the stream of what its
    updater emits."""

    def __init__(self, topology, node):
        self._topology = topology
        self._node = node

    def new_values_stream(self):
        return Stream(self._topology, self._node.name, self._node)
