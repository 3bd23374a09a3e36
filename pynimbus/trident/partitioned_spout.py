"""The executors of partitioned Trident spouts (pure).

Ports of 1.2.4 ``trident/spout/PartitionedTridentSpoutExecutor`` (transactional: an
``ITridentSpout``) and ``trident/spout/OpaquePartitionedTridentSpoutExecutor`` (opaque: an
``ICommitterTridentSpout``, whose emitter stores the partitions' metadata on ``$commit``).
"""

from pynimbus.trident.spout import ICommitterTridentSpout, ITridentSpout


class PartitionedTridentSpoutExecutor(ITridentSpout):
    """``PartitionedTridentSpoutExecutor(spout)``."""

    def __init__(self, spout):
        self.spout = spout

    def get_partitioned_spout(self):
        return self.spout

    def get_component_configuration(self):
        return self.spout.get_component_configuration()

    def get_output_fields(self):
        return self.spout.get_output_fields()


class OpaquePartitionedTridentSpoutExecutor(ICommitterTridentSpout):
    """``OpaquePartitionedTridentSpoutExecutor(spout)``."""

    def __init__(self, spout):
        self.spout = spout

    def get_component_configuration(self):
        return self.spout.get_component_configuration()

    def get_output_fields(self):
        return self.spout.get_output_fields()
