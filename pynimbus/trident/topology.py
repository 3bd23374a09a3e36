"""``TridentTopology``: a Trident program, and ``build()``, its plan as a Storm topology (pure).

Port of 1.2.4 ``trident/TridentTopology`` (``newStream``, ``newDRPCStream``, ``newStaticState``,
``multiReduce``, ``merge``, ``join``, ``build`` and its helpers ``completeDRPC``,
``checkValidJoins``, ``genSpoutIds``, ``genBoltIds``,
``getGroupName``, ``getGroupParallelisms``, ``extraPartitionInputs``, ``makeIdentityPartition``)
and ``trident/graph/{Group,GraphGrouper}``: the same graph, groups, merges, identity partitions,
batch groups, parallelisms and ids as Storm's planner, which
:mod:`pynimbus.trident.topology_builder` turns into the Storm topology.

Deliberate differences: Storm keeps groups and nodes in sets ordered by random ids where their
order changes nothing of the plan; here they keep their insertion order, so a plan is the same
on every run (Storm's is too, for every program checked against it).  ``completeDRPC`` numbers
the streams it adds from a copy of the topology's counter, where Storm's advances the
topology's own: building a program twice gives the same topology twice (Storm's second build
of a DRPC program names those streams anew).
"""

import copy

from pynimbus.trident import partition
from pynimbus.trident.fields import Fields, as_fields, fields_subtract
from pynimbus.trident.graph import (
    BATCH, DRPC, DirectedGraph, IndexedEdge, Node, NodeStateInfo,
    PartitionNode, ProcessorNode, SpoutNode, StateSpec, UniqueIdGen, get_children, get_parent,
    get_parents)
from pynimbus.trident.operation_impl import (
    INNER, FilterExecutor, GroupedMultiReducerExecutor, IdentityMultiReducer,
    JoinerMultiReducer, TrueFilter)
from pynimbus.trident.processors import EachProcessor, MultiReducerProcessor
from pynimbus.trident.spout import (
    BatchSpoutExecutor, ITridentSpout, OpaquePartitionedTridentSpout, PartitionedTridentSpout,
    TOPOLOGY_MAX_TASK_PARALLELISM, is_batch_spout)
from pynimbus.trident.stream import Stream, TridentState
from pynimbus.trident.subtopology import SubtopologyBolt


class PlanningError(ValueError):
    """A program Storm's planner refuses (Storm's message)."""


class TridentTopology(object):
    """A Trident program: ``new_stream`` its sources, chain operations on the streams, then
    ``build()``."""

    def __init__(self):
        self._graph = DirectedGraph()
        self._colocate = {}   # state id -> [node], in insertion order
        self._gen = UniqueIdGen()
        self._resource_defaults = {}
        self._master_coord_resources = {}

    def set_resource_defaults(self, defaults):
        """``setResourceDefaults``: what every node declares unless it says otherwise (a
        :class:`~pynimbus.trident.graph.DefaultResourceDeclarer`)."""
        self._resource_defaults = defaults.get_resources()
        return self

    def set_master_coord_resources(self, resources):
        """``setMasterCoordResources``: the master coordinators' resources."""
        self._master_coord_resources = resources.get_resources()
        return self

    # -- sources and states

    def new_stream(self, tx_id, spout):
        """``newStream(txId, spout)``: a batch spout, a Trident spout, or a (opaque)
        partitioned spout; ``tx_id`` names its state under ``/transactional``."""
        from pynimbus.trident.partitioned_spout import (
            OpaquePartitionedTridentSpoutExecutor, PartitionedTridentSpoutExecutor)

        if not isinstance(tx_id, str) or not tx_id:
            raise ValueError("a stream's txId is a non-empty string, not %r" % (tx_id,))
        if isinstance(spout, PartitionedTridentSpout):
            spout = PartitionedTridentSpoutExecutor(spout)
        elif isinstance(spout, OpaquePartitionedTridentSpout):
            spout = OpaquePartitionedTridentSpoutExecutor(spout)
        elif not (is_batch_spout(spout) or isinstance(spout, ITridentSpout)):
            raise TypeError(
                "new_stream takes an IBatchSpout (emit_batch), an ITridentSpout, a "
                "PartitionedTridentSpout or an OpaquePartitionedTridentSpout, not %r" % (spout,))
        fields = as_fields(spout.get_output_fields())
        node = SpoutNode(self._unique_stream_id(), fields, tx_id, spout, BATCH)
        return self._add_node(node)

    def new_drpc_stream(self, function, local_drpc=None):
        """``newDRPCStream(function[, localDrpc])``: the requests of the DRPC ``function``,
        each a batch of one tuple ``[args]``; what the stream's last operation emits for the
        batch is the request's result (a JSON list of the tuples), returned when the batch
        ends.  ``local_drpc``: an in-process DRPC to take the requests from."""
        from pynimbus.trident.drpc import DRPCSpout

        spout = DRPCSpout(function, local_drpc)
        node = SpoutNode(self._unique_stream_id(), spout.get_output_fields(), None, spout, DRPC)
        return self._add_node(node).project(["args"])

    def new_static_state(self, state):
        """``newStaticState``: a state no stream writes, to query."""
        spec = state if isinstance(state, StateSpec) else StateSpec(state)
        state_id = self._unique_state_id()
        node = Node(self._unique_stream_id(), None, Fields())
        node.state_info = NodeStateInfo(state_id, spec)
        self._register_node(node)
        return TridentState(self, node)

    # -- several streams

    def multi_reduce(self, input_fields, streams, function, output_fields):
        """``multiReduce(inputFields, streams, function, outputFields)``: ``function`` (a
        multi-reducer) over the streams, each projected to its input fields."""
        names = [s._name for s in streams if s._name is not None]
        node = ProcessorNode(self._unique_stream_id(), "-".join(names) or None,
                             as_fields(output_fields), as_fields(output_fields),
                             MultiReducerProcessor([as_fields(f) for f in input_fields],
                                                   function))
        return self._add_sourced_node(streams, node)

    def merge(self, *streams, output_fields=None):
        """``merge(streams...)``: every tuple of each stream, as the first stream's fields
        (or ``output_fields``)."""
        if len(streams) == 1 and isinstance(streams[0], (list, tuple)):
            streams = tuple(streams[0])
        if not streams:
            raise ValueError("merge needs at least one stream")
        fields = streams[0].get_output_fields() if output_fields is None else output_fields
        return self.multi_reduce([s.get_output_fields() for s in streams], list(streams),
                                 IdentityMultiReducer(), fields)

    def join(self, *args, join_type=INNER):
        """``join(s1, join_fields1, s2, join_fields2, out_fields)`` or ``join(streams,
        join_fields, out_fields)``: per batch, the tuples of equal join values, as the join
        fields then each stream's other fields (Storm's compact mode), renamed to
        ``out_fields``.  ``join_type``: ``"inner"``, ``"outer"`` or a list of one per stream.
        """
        if len(args) == 5:
            streams, join_fields, out_fields = [args[0], args[2]], [args[1], args[3]], args[4]
        elif len(args) == 3:
            streams, join_fields, out_fields = list(args[0]), list(args[1]), args[2]
        else:
            raise TypeError("join takes (s1, fields1, s2, fields2, out_fields) or (streams, "
                            "join_fields, out_fields)")
        join_fields = [as_fields(f) for f in join_fields]
        types = (list(join_type) if isinstance(join_type, (list, tuple))
                 else [join_type] * len(streams))
        stripped = [fields_subtract(s.get_output_fields(), f)
                    for s, f in zip(streams, join_fields)]
        grouped = [s.group_by(f) for s, f in zip(streams, join_fields)]
        return self._grouped_multi_reduce(
            stripped, grouped, JoinerMultiReducer(types, len(join_fields[0]), stripped),
            as_fields(out_fields))

    def _grouped_multi_reduce(self, input_fields, grouped_streams, reducer, output_fields):
        """``multiReduce(inputFields, groupedStreams, GroupedMultiReducer, outputFields)``."""
        from pynimbus.trident.fields import fields_union

        full_input, streams, group_fields = [], [], []
        for gs, fields in zip(grouped_streams, input_fields):
            group = gs.get_group_fields()
            group_fields.append(group)
            streams.append(gs.to_stream().partition_by(group))
            full_input.append(fields_union(group, fields))
        return self.multi_reduce(
            full_input, streams,
            GroupedMultiReducerExecutor(reducer, group_fields, input_fields), output_fields)

    # -- the graph (TridentTopology's protected methods)

    def _unique_stream_id(self):
        return self._gen.get_unique_stream_id()

    def _unique_state_id(self):
        return self._gen.get_unique_state_id()

    def _register_node(self, node):
        self._graph.add_vertex(node)
        if node.state_info is not None:
            self._colocate.setdefault(node.state_info.id, []).append(node)

    def _add_node(self, node):
        self._register_node(node)
        return Stream(self, node.name, node)

    def _register_sourced_node(self, sources, node):
        self._register_node(node)
        for index, source in enumerate(sources):
            self._graph.add_edge(source._node, node, IndexedEdge(source._node, node, index))

    def _add_sourced_node(self, sources, node):
        if isinstance(sources, Stream):
            sources = [sources]
        self._register_sourced_node(sources, node)
        return Stream(self, node.name, node)

    def _add_sourced_state_node(self, source, node):
        self._register_sourced_node([source], node)
        return TridentState(self, node)

    def _make_identity_node(self, all_output_fields):
        return ProcessorNode(self._unique_stream_id(), None, all_output_fields, Fields(),
                             EachProcessor(Fields(), FilterExecutor(TrueFilter())))

    # -- planning

    def build(self, program=None):
        """``TridentTopology.build()``: the Storm topology (a :class:`TridentPlan`).

        :param program: ``module:attr`` the workers import this program from (each Trident
            component's shell script); None for a plan only looked at.
        :raises PlanningError: a program Storm's planner refuses."""
        from pynimbus.trident.topology_builder import TridentTopologyBuilder

        graph = self._graph.clone()
        _complete_drpc(graph, self._colocate, self._gen)
        spout_nodes, bolt_nodes = [], []
        for n in graph.vertex_set():
            if isinstance(n, SpoutNode):
                spout_nodes.append(n)
            elif not isinstance(n, PartitionNode):
                bolt_nodes.append(n)
        initial_groups = []
        colocated = set()
        for nodes in self._colocate.values():
            initial_groups.append(Group(graph, nodes))
            colocated.update(nodes)
        for n in bolt_nodes:
            if n not in colocated:
                initial_groups.append(Group(graph, [n]))

        grouper = GraphGrouper(graph, initial_groups)
        grouper.merge_fully()
        merged_groups = grouper.get_all_groups()

        # identity partitions between groups (and after spouts)
        for e in graph.edge_set():
            if isinstance(e.source, PartitionNode) or isinstance(e.target, PartitionNode):
                continue
            g1 = grouper.node_group(e.source)
            g2 = grouper.node_group(e.target)
            if g1 is None and not isinstance(e.source, SpoutNode):
                raise PlanningError("Planner exception: Null source group must indicate a "
                                    "spout node at this phase of planning")
            if g1 is None or g1 is not g2:
                graph.remove_edge(e)
                p_node = _make_identity_partition(e.source)
                graph.add_vertex(p_node)
                graph.add_edge(e.source, p_node, IndexedEdge(e.source, p_node, 0))
                graph.add_edge(p_node, e.target, IndexedEdge(p_node, e.target, e.index))

        # a group subscribing to one stream with two groupings gets an identity node per extra
        for_new_groups = []
        for g in list(merged_groups):
            for n in _extra_partition_inputs(g):
                id_node = self._make_identity_node(n.all_output_fields)
                new_partition = PartitionNode(id_node.stream_id, n.name,
                                              id_node.all_output_fields, n.thrift_grouping)
                parent = get_parent(graph, n)
                outgoing = graph.outgoing_edges_of(n)
                graph.remove_vertex(n)
                graph.add_vertex(id_node)
                graph.add_vertex(new_partition)
                graph.add_edge(parent, id_node, IndexedEdge(parent, id_node, 0))
                graph.add_edge(id_node, new_partition, IndexedEdge(id_node, new_partition, 0))
                for e in outgoing:
                    graph.add_edge(new_partition, e.target,
                                   IndexedEdge(new_partition, e.target, e.index))
                parent_group = grouper.node_group(parent)
                if parent_group is None:
                    for_new_groups.append(id_node)
                else:
                    parent_group.nodes.append(id_node)
        for n in for_new_groups:
            grouper.add_group(Group(graph, [n]))
        for n in spout_nodes:
            grouper.add_group(Group(graph, [n]))
        grouper.reindex()
        merged_groups = grouper.get_all_groups()

        batch_group_map = {}
        for i, component in enumerate(graph.connected_sets()):
            for n in component:
                batch_group_map[n] = "bg%d" % i

        parallelisms = _group_parallelisms(graph, grouper, merged_groups)
        spout_ids = _gen_spout_ids(spout_nodes)
        bolt_ids = _gen_bolt_ids(merged_groups)

        builder = TridentTopologyBuilder(program)
        for sn in spout_nodes:
            spout = sn.spout
            if sn.type == DRPC:
                declarer = builder.set_batch_per_tuple_spout(
                    spout_ids[sn], sn.stream_id, spout, parallelisms[grouper.node_group(sn)],
                    batch_group_map[sn])
                declarer.declare_resources(dict(self._resource_defaults, **sn.get_resources()))
                continue
            if is_batch_spout(spout):
                spout = BatchSpoutExecutor(spout)
            declarer = builder.set_spout(spout_ids[sn], sn.stream_id, sn.tx_id, spout,
                                         parallelisms[grouper.node_group(sn)],
                                         batch_group_map[sn])
            declarer.declare_resources(dict(self._resource_defaults, **sn.get_resources()))

        for g in merged_groups:
            if _is_spout_group(g):
                continue
            declarer = builder.set_bolt(
                bolt_ids[g], SubtopologyBolt(graph, list(g.nodes), batch_group_map),
                parallelisms[g], _committer_batches(g, batch_group_map),
                _output_stream_batch_groups(g, batch_group_map))
            declarer.declare_resources(g.get_resources(self._resource_defaults))
            for n in _uniqued_subscriptions(_external_group_inputs(g)):
                parent = get_parent(graph, n)
                component_id = (spout_ids[parent] if isinstance(parent, SpoutNode)
                                else bolt_ids[grouper.node_group(parent)])
                declarer.grouping(component_id, n.stream_id, n.thrift_grouping)
        return builder.build_topology(dict(self._resource_defaults,
                                           **self._master_coord_resources))


def _make_identity_partition(basis):
    return PartitionNode(basis.stream_id, basis.name, basis.all_output_fields,
                         partition.identity_grouping())


class Group(object):
    """``trident/graph/Group``: nodes planned into one bolt (a list kept without repeats)."""

    def __init__(self, graph, nodes, more=()):
        self.graph = graph
        self.nodes = list(dict.fromkeys(list(nodes) + list(more)))

    def outgoing_nodes(self):
        ret = {}
        for n in self.nodes:
            ret.update(dict.fromkeys(get_children(self.graph, n)))
        return list(ret)

    def incoming_nodes(self):
        ret = {}
        for n in self.nodes:
            ret.update(dict.fromkeys(get_parents(self.graph, n)))
        return list(ret)

    def get_resources(self, defaults):
        """``Group.getResources``: each resource summed over the group's nodes (each node's
        declarations over ``defaults``); None for an empty group.

        :raises PlanningError: nodes that declare different kinds of resources (Storm's
            messages)."""
        resources = None
        for n in self.nodes:
            node_resources = dict(defaults or {}, **n.get_resources())
            if resources is None:
                resources = node_resources
                continue
            if set(node_resources) != set(resources):
                extra = set(node_resources) - set(resources)
                if extra:
                    raise PlanningError(
                        "Found an operation with resources set which are not set in other "
                        "operations in the group: %s: %s. Either set these resources in all "
                        "other operations in the group, add a default setting, or remove the "
                        "setting from this operation." % (n, sorted(extra)))
                raise PlanningError(
                    "Found an operation with resources unset which are set in other "
                    "operations in the group: %s: %s. Either set these resources in all "
                    "other operations in the group, add a default setting, or remove the "
                    "setting from all other operations."
                    % (n, sorted(set(resources) - set(node_resources))))
            for key, value in node_resources.items():
                resources[key] = float(value) + float(resources[key])
        return resources or {}

    def __repr__(self):
        return "<Group %s>" % self.nodes


class GraphGrouper(object):
    """``trident/graph/GraphGrouper``: groups merged with their only neighbouring group until
    none can be (a merged group goes to the end of the order)."""

    def __init__(self, graph, initial_groups):
        self.graph = graph
        self.curr_groups = list(initial_groups)
        self.group_index = {}
        self.reindex()

    def get_all_groups(self):
        return self.curr_groups

    def add_group(self, group):
        if group not in self.curr_groups:
            self.curr_groups.append(group)

    def reindex(self):
        self.group_index = {}
        for g in self.curr_groups:
            for n in g.nodes:
                self.group_index[n] = g

    def node_group(self, node):
        return self.group_index.get(node)

    def merge_fully(self):
        something_happened = True
        while something_happened:
            something_happened = False
            for g in self.curr_groups:
                outgoing = self._neighbour_groups(g, g.outgoing_nodes())
                if len(outgoing) == 1 and outgoing[0] is not None:
                    self._merge(g, outgoing[0])
                    something_happened = True
                    break
                incoming = self._neighbour_groups(g, g.incoming_nodes())
                if len(incoming) == 1 and incoming[0] is not None:
                    self._merge(g, incoming[0])
                    something_happened = True
                    break

    def _neighbour_groups(self, g, nodes):
        """``outgoingGroups``/``incomingGroups``: the distinct other groups of ``nodes`` (None
        for a node of no group: a spout or a partition)."""
        ret = []
        for n in nodes:
            other = self.node_group(n)
            if other is not g and not any(other is r for r in ret):
                ret.append(other)
        return ret

    def _merge(self, g1, g2):
        new_group = Group(g1.graph, g1.nodes, g2.nodes)
        self.curr_groups = [g for g in self.curr_groups if g is not g1 and g is not g2]
        self.curr_groups.append(new_group)
        for n in new_group.nodes:
            self.group_index[n] = new_group


def _is_spout_group(g):
    return len(g.nodes) == 1 and isinstance(g.nodes[0], SpoutNode)


def _external_group_inputs(g):
    return [n for n in g.incoming_nodes() if isinstance(n, PartitionNode)]


def _external_group_outputs(g):
    return [n for n in g.outgoing_nodes() if isinstance(n, PartitionNode)]


def _uniqued_subscriptions(subscriptions):
    """``uniquedSubscriptions``: one partition node per stream id."""
    ret = {}
    for n in subscriptions:
        curr = ret.get(n.stream_id)
        if curr is not None and curr.thrift_grouping != n.thrift_grouping:
            raise PlanningError("Multiple subscriptions to the same stream with different "
                                "groupings. Should be impossible since that is explicitly "
                                "guarded against.")
        ret[n.stream_id] = n
    return list(ret.values())


def _extra_partition_inputs(g):
    """``extraPartitionInputs``: the partitions of a stream the group already takes with
    another grouping."""
    grouped = {}
    for n in _external_group_inputs(g):
        grouped.setdefault(n.stream_id, []).append(n)
    ret = []
    for nodes in grouped.values():
        anchor = nodes[0]
        ret.extend(n for n in nodes[1:] if n.thrift_grouping != anchor.thrift_grouping)
    return ret


def _gen_spout_ids(spout_nodes):
    """``genSpoutIds``: ``spout-<txId>``, and ``spout-<function><n>`` for DRPC streams."""
    ret = {}
    counter = 0
    for n in spout_nodes:
        if n.type == BATCH:
            ret[n] = "spout-%s" % n.tx_id
        else:
            ret[n] = "spout-%s%d" % (n.spout.get_function(), counter)
            counter += 1
    return ret


def _complete_drpc(graph, colocate, gen):
    """``completeDRPC``: each part of ``graph`` fed by a DRPC stream ends in the reducer that
    returns its last operation's tuples to the request's server.

    :raises PlanningError: a part mixing DRPC and batch spouts (Storm's message)."""
    from pynimbus.trident.drpc import ReturnResultsReducer

    connected = graph.connected_sets()
    for g in connected:
        _check_valid_joins(g)
    helper = TridentTopology()
    helper._graph, helper._colocate, helper._gen = graph, colocate, copy.copy(gen)
    for g in connected:
        drpc_node = next((n for n in g if isinstance(n, SpoutNode) and n.type == DRPC), None)
        if drpc_node is None:
            continue
        last = max(g, key=lambda n: n.creation_index)
        streams = [Stream(helper, None, drpc_node).project(["return-info"]).batch_global(),
                   Stream(helper, None, last).batch_global()]
        helper.multi_reduce([s.get_output_fields() for s in streams], streams,
                            ReturnResultsReducer(), [])


def _check_valid_joins(nodes):
    """``checkValidJoins``."""
    types = {n.type for n in nodes if isinstance(n, SpoutNode)}
    if BATCH in types and DRPC in types:
        raise PlanningError("Cannot join DRPC stream with streams originating from other spouts")


def _gen_bolt_ids(groups):
    """``genBoltIds``: ``b-<n>`` in the groups' order, with the group's names appended."""
    ret = {}
    counter = 0
    for g in groups:
        if _is_spout_group(g):
            continue
        name = ["b", str(counter)]
        group_name = _group_name(g)
        if group_name:
            name.append(group_name)
        ret[g] = "-".join(name)
        counter += 1
    return ret


def _group_name(g):
    """``getGroupName``: the names of the group's nodes by creation, repeats in a row once."""
    names = []
    for n in sorted(g.nodes, key=lambda n: n.creation_index):
        if n.name is not None and (not names or names[-1] != n.name):
            names.append(n.name)
    return "-".join(names)


def _output_stream_batch_groups(g, batch_group_map):
    return {n.stream_id: batch_group_map[n] for n in _external_group_outputs(g)}


def _committer_batches(g, batch_group_map):
    return list(dict.fromkeys(batch_group_map[n] for n in g.nodes
                              if isinstance(n, ProcessorNode) and n.committer))


def _group_parallelisms(graph, grouper, groups):
    """``getGroupParallelisms``: groups linked by identity partitions share one parallelism:
    the largest hint of their nodes (at least 1), capped by their spouts'
    ``topology.max.task.parallelism``, or the partition count a state requires."""
    neighbours = {id(g): [] for g in groups}
    for g in groups:
        for n in _external_group_inputs(g):
            if partition.is_identity_partition(n.thrift_grouping):
                parent_group = grouper.node_group(get_parent(graph, n))
                if parent_group is not None and parent_group is not g:
                    neighbours[id(g)].append(parent_group)
                    neighbours[id(parent_group)].append(g)
    ret = {}
    seen = set()
    for start in groups:
        if id(start) in seen:
            continue
        equiv, frontier = [], [start]
        seen.add(id(start))
        while frontier:
            g = frontier.pop()
            equiv.append(g)
            for other in neighbours[id(g)]:
                if id(other) not in seen:
                    seen.add(id(other))
                    frontier.append(other)
        fixed = _fixed_parallelism(equiv)
        most = _max_parallelism(equiv)
        if fixed is not None and most is not None and most < fixed:
            raise PlanningError("Parallelism is fixed to %d but max parallelism is less than "
                                "that: %d" % (fixed, most))
        p = 1
        for g in equiv:
            for n in g.nodes:
                if n.parallelism_hint is not None:
                    p = max(p, n.parallelism_hint)
        if most is not None:
            p = min(most, p)
        if fixed is not None:
            p = fixed
        for g in equiv:
            ret[g] = p
    return ret


def _max_parallelism(groups):
    ret = None
    for g in groups:
        if _is_spout_group(g):
            conf = g.nodes[0].spout.get_component_configuration() or {}
            most = conf.get(TOPOLOGY_MAX_TASK_PARALLELISM)
            if most is not None:
                ret = int(most) if ret is None else min(ret, int(most))
    return ret


def _fixed_parallelism(groups):
    ret = None
    for g in groups:
        for n in g.nodes:
            if n.state_info is not None and n.state_info.spec.required_num_partitions is not None:
                required = n.state_info.spec.required_num_partitions
                if ret is not None and ret != required:
                    raise PlanningError("Cannot have one group have fixed parallelism of two "
                                        "different values")
                ret = required
    return ret
