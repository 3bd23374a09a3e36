"""``SubtopologyBolt``: the processor nodes of one planned group, run as one bolt (pure).

Port of 1.2.4 ``trident/planner/SubtopologyBolt``: here what the planner needs (the graph, the
group's nodes, each node's batch group, its streams); its runtime follows.
"""

from pynimbus.trident.fields import Fields

BATCH_ID_FIELD = "$batchId"


class SubtopologyBolt(object):
    """``SubtopologyBolt(graph, nodes, batchGroups)``."""

    def __init__(self, graph, nodes, batch_groups):
        self.graph = graph
        self.nodes = list(nodes)
        self.batch_groups = batch_groups

    def declare_output_fields(self):
        """One stream per node: ``$batchId`` then the node's fields."""
        return {n.stream_id: (Fields([BATCH_ID_FIELD] + list(n.all_output_fields)), False)
                for n in self.nodes}

    def get_component_configuration(self):
        return None
