"""``SubtopologyBolt``: the processor nodes of one planned group, run as one batch bolt (pure).

Port of 1.2.4 ``trident/planner/{SubtopologyBolt,BridgeReceiver}``: at ``prepare`` each node's
state is made (``make_state(conf, context, task index, task count)``), the nodes are ordered
topologically, each processor is told its parents (inside the bolt, or an *initial receiver* per
stream from another component, which drops the batch id) and its receivers (the next
processors, and a *bridge* that emits ``[batch id] + tuple`` on the node's stream when a child is
in another bolt).  Per batch: ``init_batch_state`` starts every processor of the batch group,
``execute`` routes a tuple through its initial receiver, ``finish_batch`` finishes the group's
processors in topological order.
"""

from pynimbus.trident.fields import Fields
from pynimbus.trident.graph import ProcessorNode, get_children, get_parents
from pynimbus.trident.processors import ProcessorContext, TridentContext
from pynimbus.trident.tuple import RootFactory

BATCH_ID_FIELD = "$batchId"


class InitialReceiver(object):
    """``SubtopologyBolt.InitialReceiver``: a stream from another component as tuples of its
    fields without the batch id, to the processors that take it."""

    def __init__(self, stream, all_fields):
        self.stream = stream
        self.factory = RootFactory(Fields(list(all_fields)[1:]))
        self.receivers = []

    def receive(self, processor_context, values):
        t = self.factory.create(values[1:])
        for r in self.receivers:
            r.execute(processor_context, self.stream, t)


class BridgeReceiver(object):
    """``BridgeReceiver``: a node's tuples to the bolts downstream, after their batch id."""

    def __init__(self, collector):
        self.collector = collector

    def execute(self, processor_context, stream_id, tuple_):
        values = [processor_context.batch_id]
        values.extend(tuple_)
        self.collector.emit(stream_id, values)


def topological_order(graph, nodes):
    """The nodes, parents first (JGraphT's ``TopologicalOrderIterator`` on the subgraph;
    among nodes ready at once, the earliest created first)."""
    members = set(nodes)
    indegree = {n: 0 for n in nodes}
    for n in nodes:
        for p in get_parents(graph, n):
            if p in members:
                indegree[n] += 1
    ready = sorted((n for n in nodes if indegree[n] == 0), key=lambda n: n.creation_index)
    order = []
    while ready:
        n = ready.pop(0)
        order.append(n)
        for c in get_children(graph, n):
            if c in members:
                indegree[c] -= 1
                if indegree[c] == 0:
                    ready.append(c)
                    ready.sort(key=lambda n: n.creation_index)
    return order


class SubtopologyBolt(object):
    """``SubtopologyBolt(graph, nodes, batchGroups)``."""

    def __init__(self, graph, nodes, batch_groups):
        self.graph = graph
        self.nodes = list(nodes)
        self.batch_groups = batch_groups
        self.roots = {}
        self.ordered = {}   # batch group -> [processor], topologically

    def declare_output_fields(self):
        """One stream per node: ``$batchId`` then the node's fields."""
        return {n.stream_id: (Fields([BATCH_ID_FIELD] + list(n.all_output_fields)), False)
                for n in self.nodes}

    def get_component_configuration(self):
        return None

    def prepare(self, conf, context, batch_collector):
        num_tasks = len(context.get_component_tasks(context.get_this_component_id()))
        for n in self.nodes:
            if n.state_info is not None:
                state = n.state_info.spec.state_factory.make_state(
                    conf, context, context.get_this_task_index(), num_tasks)
                context.set_task_data(n.state_info.id, state)
        members = set(self.nodes)
        output_factories = {}
        sources = context.get_this_sources()
        for state_index, n in enumerate(topological_order(self.graph, self.nodes)):
            if not isinstance(n, ProcessorNode):
                continue
            self.ordered.setdefault(self.batch_groups[n], []).append(n.processor)
            parent_streams, parent_factories = [], []
            for p in get_parents(self.graph, n):
                parent_streams.append(p.stream_id)
                if p in members:
                    parent_factories.append(output_factories[p])
                else:
                    root = self.roots.get(p.stream_id)
                    if root is None:
                        root = self.roots[p.stream_id] = InitialReceiver(
                            p.stream_id, _source_output_fields(context, sources, p.stream_id))
                    root.receivers.append(n.processor)
                    parent_factories.append(root.factory)
            targets = []
            outgoing = False
            for c in get_children(self.graph, n):
                if c in members:
                    targets.append(c.processor)
                else:
                    outgoing = True
            if outgoing:
                targets.append(BridgeReceiver(batch_collector))
            n.processor.prepare(conf, context, TridentContext(
                n.self_out_fields, parent_factories, parent_streams, targets, n.stream_id,
                state_index, batch_collector))
            output_factories[n] = n.processor.get_output_factory()
        self.size = len(self.nodes)
        for processors in self.ordered.values():  # every receiver is prepared by now
            for p in processors:
                fuse = getattr(p, "fuse", None)
                if fuse is not None:
                    fuse()

    def execute(self, batch_info, tuple_):
        root = self.roots.get(tuple_.stream)
        if root is None:
            raise ValueError("Received unexpected tuple on stream %s from %s"
                             % (tuple_.stream, tuple_.source_component))
        root.receive(batch_info.state, tuple_.values)

    def finish_batch(self, batch_info):
        for p in self.ordered.get(batch_info.batch_group, ()):
            p.finish_batch(batch_info.state)

    def init_batch_state(self, batch_group, batch_id):
        ctx = ProcessorContext(batch_id, self.size)
        for p in self.ordered.get(batch_group, ()):
            p.start_batch(ctx)
        return ctx

    def cleanup(self):
        for processors in self.ordered.values():
            for p in processors:
                p.cleanup()


def _source_output_fields(context, sources, stream):
    """``getSourceOutputFields``: the fields of ``stream`` as the component sending it
    declares them.

    :raises ValueError: no subscribed component sends it."""
    for component, source_stream in sources:
        if source_stream == stream:
            return context.get_component_output_fields(component, stream)
    raise ValueError("Could not find fields for source stream %s" % stream)
