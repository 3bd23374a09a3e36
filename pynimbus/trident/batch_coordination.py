"""The coordinators of Trident's batches: ``MasterBatchCoordinator`` (the topology's only
Storm spout per batch group) and ``TridentSpoutCoordinator`` (pure).

Ports of 1.2.4 ``trident/topology/MasterBatchCoordinator`` and
``trident/spout/TridentSpoutCoordinator``: here what the planner needs of them (their streams
and component confs); their runtime is in the worker's Trident room.
"""

from pynimbus.trident.fields import Fields
from pynimbus.trident.spout import TOPOLOGY_MAX_TASK_PARALLELISM

BATCH_STREAM_ID = "$batch"
COMMIT_STREAM_ID = "$commit"
SUCCESS_STREAM_ID = "$success"
TOPOLOGY_KRYO_REGISTER = "topology.kryo.register"
TRANSACTION_ATTEMPT_CLASS = "org.apache.storm.trident.topology.TransactionAttempt"


class MasterBatchCoordinator(object):
    """``MasterBatchCoordinator(txStateIds, spouts)``: starts, commits and retires the batches
    of one batch group, for the spouts of ``tx_state_ids`` (in that order)."""

    def __init__(self, tx_state_ids, spouts):
        if not tx_state_ids:
            raise ValueError("Must manage at least one managed spout id")
        self.managed_spout_ids = list(tx_state_ids)
        self.spouts = list(spouts)

    def declare_output_fields(self):
        tx = Fields("tx")
        return {BATCH_STREAM_ID: (tx, False), COMMIT_STREAM_ID: (tx, False),
                SUCCESS_STREAM_ID: (tx, False)}

    def get_component_configuration(self):
        return {TOPOLOGY_MAX_TASK_PARALLELISM: 1,
                TOPOLOGY_KRYO_REGISTER: [TRANSACTION_ATTEMPT_CLASS]}


class TridentSpoutCoordinator(object):
    """``TridentSpoutCoordinator(txStateId, spout)``: the metadata of each batch of one spout
    (a basic bolt, one task)."""

    def __init__(self, tx_state_id, spout):
        self.tx_state_id = tx_state_id
        self.spout = spout

    def declare_output_fields(self):
        return {BATCH_STREAM_ID: (Fields("tx", "metadata"), False)}

    def get_component_configuration(self):
        return {TOPOLOGY_MAX_TASK_PARALLELISM: 1}
