"""The node graph a Trident program builds, before planning (pure).

Ports of 1.2.4 ``trident/planner/{Node,SpoutNode,ProcessorNode,PartitionNode,NodeStateInfo}``,
``trident/util/IndexedEdge``, ``trident/fluent/UniqueIdGen`` and the part of JGraphT's
``DefaultDirectedGraph`` and ``ConnectivityInspector`` that ``TridentTopology`` uses: vertices
and each vertex's edges kept in insertion order (JGraphT's), at most one edge per ordered pair
of vertices, connected sets found from the vertices in their order.

Nodes compare by identity, as Storm's by their random ids.
"""

import itertools

_creation_index = itertools.count(1)  # Node.INDEX: creation order across topologies

TOPOLOGY_COMPONENT_RESOURCES_ONHEAP_MEMORY_MB = "topology.component.resources.onheap.memory.mb"
TOPOLOGY_COMPONENT_RESOURCES_OFFHEAP_MEMORY_MB = "topology.component.resources.offheap.memory.mb"
TOPOLOGY_COMPONENT_CPU_PCORE_PERCENT = "topology.component.cpu.pcore.percent"


class DefaultResourceDeclarer(object):
    """``DefaultResourceDeclarer``: the memory (on and off heap, MB) and CPU (percent of a
    core) an operation declares, as doubles; a node, or the defaults of a topology."""

    def __init__(self):
        self.resources = {}

    def set_memory_load(self, on_heap, off_heap=None):
        if on_heap is not None:
            self.resources[TOPOLOGY_COMPONENT_RESOURCES_ONHEAP_MEMORY_MB] = float(on_heap)
        if off_heap is not None:
            self.resources[TOPOLOGY_COMPONENT_RESOURCES_OFFHEAP_MEMORY_MB] = float(off_heap)
        return self

    def set_cpu_load(self, amount):
        if amount is not None:
            self.resources[TOPOLOGY_COMPONENT_CPU_PCORE_PERCENT] = float(amount)
        return self

    def get_resources(self):
        return dict(self.resources)


class Node(DefaultResourceDeclarer):
    """``Node``: a stream id (``s<n>``), an optional name (``Stream.name``), the fields of
    its tuples, an optional parallelism hint and state, the resources it declares."""

    def __init__(self, stream_id, name, all_output_fields):
        super().__init__()
        self.stream_id = stream_id
        self.name = name
        self.all_output_fields = all_output_fields
        self.parallelism_hint = None
        self.state_info = None
        self.creation_index = next(_creation_index)

    def __repr__(self):
        return "<%s %s %s>" % (type(self).__name__, self.stream_id,
                               list(self.all_output_fields or ()))


BATCH, DRPC = "batch", "drpc"  # SpoutNode.SpoutType


class SpoutNode(Node):
    """``SpoutNode``: a source; ``tx_id`` names its state under ``/transactional``."""

    def __init__(self, stream_id, all_output_fields, tx_id, spout, spout_type):
        super().__init__(stream_id, None, all_output_fields)
        self.tx_id = tx_id
        self.spout = spout
        self.type = spout_type


class ProcessorNode(Node):
    """``ProcessorNode``: runs a processor; ``committer`` for ``partition_persist``."""

    def __init__(self, stream_id, name, all_output_fields, self_out_fields, processor):
        super().__init__(stream_id, name, all_output_fields)
        self.self_out_fields = self_out_fields
        self.processor = processor
        self.committer = False


class PartitionNode(Node):
    """``PartitionNode``: a repartitioning of its parent's stream by a Thrift ``Grouping``
    (its stream id is its parent's)."""

    def __init__(self, stream_id, name, all_output_fields, grouping):
        super().__init__(stream_id, name, all_output_fields)
        self.thrift_grouping = grouping


class NodeStateInfo(object):
    """``NodeStateInfo``: a state's id (``state<n>``) and spec."""

    def __init__(self, state_id, spec):
        self.id = state_id
        self.spec = spec


class StateSpec(object):
    """``StateSpec``: a state factory and, optionally, the partition count it requires."""

    def __init__(self, state_factory, required_num_partitions=None):
        self.state_factory = state_factory
        self.required_num_partitions = required_num_partitions


class IndexedEdge(object):
    """``IndexedEdge``: an edge and its index among its target's inputs."""

    __slots__ = ("source", "target", "index")

    def __init__(self, source, target, index):
        self.source = source
        self.target = target
        self.index = index

    def __repr__(self):
        return "<IndexedEdge %r -> %r #%d>" % (self.source, self.target, self.index)


class UniqueIdGen(object):
    """``UniqueIdGen``: ``s1``, ``s2``...; ``state1``...; ``w1``..."""

    def __init__(self):
        self.stream_counter = 0
        self.state_counter = 0
        self.window_counter = 0

    def get_unique_stream_id(self):
        self.stream_counter += 1
        return "s%d" % self.stream_counter

    def get_unique_state_id(self):
        self.state_counter += 1
        return "state%d" % self.state_counter

    def get_unique_window_id(self):
        self.window_counter += 1
        return "w%d" % self.window_counter


class DirectedGraph(object):
    """JGraphT's ``DefaultDirectedGraph`` as Trident uses it."""

    def __init__(self):
        self._vertices = {}   # vertex -> None, in insertion order
        self._out = {}        # vertex -> [edge], in insertion order
        self._in = {}
        self._edges = {}      # edge -> None, in insertion order

    def clone(self):
        copy = DirectedGraph()
        copy._vertices = dict(self._vertices)
        copy._out = {v: list(edges) for v, edges in self._out.items()}
        copy._in = {v: list(edges) for v, edges in self._in.items()}
        copy._edges = dict(self._edges)
        return copy

    def add_vertex(self, vertex):
        if vertex not in self._vertices:
            self._vertices[vertex] = None
            self._out[vertex] = []
            self._in[vertex] = []

    def vertex_set(self):
        return list(self._vertices)

    def contains_vertex(self, vertex):
        return vertex in self._vertices

    def add_edge(self, source, target, edge):
        """Add ``edge``; False (and nothing added) when ``source`` already has an edge to
        ``target`` (no multiple edges)."""
        for existing in self._out[source]:
            if existing.target is target:
                return False
        self._out[source].append(edge)
        self._in[target].append(edge)
        self._edges[edge] = None
        return True

    def remove_edge(self, edge):
        if edge in self._edges:
            del self._edges[edge]
            self._out[edge.source].remove(edge)
            self._in[edge.target].remove(edge)

    def remove_vertex(self, vertex):
        for edge in list(self._out[vertex]) + list(self._in[vertex]):
            self.remove_edge(edge)
        del self._vertices[vertex]
        del self._out[vertex]
        del self._in[vertex]

    def edge_set(self):
        return list(self._edges)

    def incoming_edges_of(self, vertex):
        return list(self._in[vertex])

    def outgoing_edges_of(self, vertex):
        return list(self._out[vertex])

    def connected_sets(self):
        """``ConnectivityInspector.connectedSets``: the weakly connected sets of vertices, in
        the order of each set's first vertex."""
        seen = set()
        sets = []
        for start in self._vertices:
            if start in seen:
                continue
            component = []
            frontier = [start]
            seen.add(start)
            while frontier:
                vertex = frontier.pop(0)
                component.append(vertex)
                for edge in self._out[vertex] + self._in[vertex]:
                    other = edge.target if edge.source is vertex else edge.source
                    if other not in seen:
                        seen.add(other)
                        frontier.append(other)
            sets.append(component)
        return sets


def get_parents(graph, node):
    """``TridentUtils.getParents``: the sources of ``node``'s edges, by edge index."""
    return [e.source for e in sorted(graph.incoming_edges_of(node), key=lambda e: e.index)]


def get_children(graph, node):
    """``TridentUtils.getChildren``: the targets of ``node``'s edges, in insertion order."""
    return [e.target for e in graph.outgoing_edges_of(node)]


def get_parent(graph, node):
    """``TridentUtils.getParent``: the one parent.

    :raises ValueError: not exactly one."""
    parents = get_parents(graph, node)
    if len(parents) != 1:
        raise ValueError("Expected a single parent")
    return parents[0]
