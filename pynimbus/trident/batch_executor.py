"""``TridentBoltExecutor`` and ``TridentSpoutExecutor``: the batch bolts of a Trident topology
(pure).

Ports of 1.2.4 ``trident/topology/TridentBoltExecutor`` (its ``CoordType``, ``CoordSpec``) and
``trident/spout/TridentSpoutExecutor``: here what the planner needs (streams, component confs,
coordination specs); their runtime is in the worker's Trident room.
"""

from pynimbus.trident.fields import Fields

TOPOLOGY_TICK_TUPLE_FREQ_SECS = "topology.tick.tuple.freq.secs"
TICK_FREQ_SECS = 5  # TridentBoltExecutor.getComponentConfiguration
ID_FIELD = "$tx"    # TridentSpoutExecutor.ID_FIELD


def coord_stream(batch_group):
    """``TridentBoltExecutor.COORD_STREAM``: ``$coord-<batch group>``."""
    return "$coord-" + batch_group


class CoordType(object):
    """``CoordType``: ``single_count`` for a DRPC batch-per-tuple spout (one report), else a
    report from every task of the component."""

    __slots__ = ("single_count",)

    def __init__(self, single_count):
        self.single_count = single_count

    @classmethod
    def single(cls):
        return cls(True)

    @classmethod
    def all(cls):
        return cls(False)

    def __eq__(self, other):
        return isinstance(other, CoordType) and other.single_count == self.single_count

    def __repr__(self):
        return "CoordType(single_count=%r)" % self.single_count


class CoordSpec(object):
    """``CoordSpec``: the coordinating components of a batch group (component id ->
    :class:`CoordType`) and its commit stream ``(component, stream)`` or None."""

    def __init__(self):
        self.coords = {}
        self.commit_stream = None


class TridentBoltExecutor(object):
    """``TridentBoltExecutor(bolt, batchGroupIds, coordinationSteps)``: runs a batch bolt
    (``TridentSpoutExecutor`` or ``SubtopologyBolt``) with Trident's batch coordination.

    ``batch_group_ids``: ``{(component, stream): batch group}`` of the whole topology;
    ``coord_specs``: ``{batch group: CoordSpec}`` of the groups this bolt is in."""

    def __init__(self, bolt, batch_group_ids, coord_specs):
        self.bolt = bolt
        self.batch_group_ids = batch_group_ids
        self.coord_specs = coord_specs

    def declare_output_fields(self):
        streams = dict(self.bolt.declare_output_fields())
        for batch_group in self.coord_specs:
            streams[coord_stream(batch_group)] = (Fields("id", "count"), True)
        return streams

    def get_component_configuration(self):
        conf = dict(self.bolt.get_component_configuration() or {})
        conf[TOPOLOGY_TICK_TUPLE_FREQ_SECS] = TICK_FREQ_SECS
        return conf


class TridentSpoutExecutor(object):
    """``TridentSpoutExecutor(txStateId, streamName, spout)``: a spout's emitter, batch by
    batch, on ``stream_name`` (``$tx`` then the spout's fields)."""

    def __init__(self, tx_state_id, stream_name, spout):
        self.tx_state_id = tx_state_id
        self.stream_name = stream_name
        self.spout = spout

    def declare_output_fields(self):
        fields = [ID_FIELD] + list(self.spout.get_output_fields())
        return {self.stream_name: (Fields(fields), False)}

    def get_component_configuration(self):
        return self.spout.get_component_configuration()
