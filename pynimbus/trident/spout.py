"""Trident's spout interfaces, ``FixedBatchSpout`` and ``BatchSpoutExecutor`` (pure).

Ports of 1.2.4 ``trident/spout/{IBatchSpout,ITridentSpout,ICommitterTridentSpout,
IPartitionedTridentSpout,IOpaquePartitionedTridentSpout,BatchSpoutExecutor}`` and
``trident/testing/FixedBatchSpout``, in snake case:

* :class:`IBatchSpout`: ``open(conf, context)``, ``emit_batch(batch_id, collector)`` (the same
  batch again for a replayed txid), ``ack(batch_id)``, ``close()``,
  ``get_component_configuration()``, ``get_output_fields()``;
* :class:`ITridentSpout`: ``get_coordinator(tx_state_id, conf, context)`` (``initialize_
  transaction(txid, prev_metadata, curr_metadata)``, ``success(txid)``, ``is_ready(txid)``,
  ``close()``) and ``get_emitter(tx_state_id, conf, context)`` (``emit_batch(tx,
  coordinator_meta, collector)``, ``success(tx)``, ``close()``);
* :class:`PartitionedTridentSpout` and :class:`OpaquePartitionedTridentSpout`: the partitioned
  interfaces (their executors are :mod:`pynimbus.trident.partitioned_spout`).
"""

from pynimbus.trident.fields import as_fields

TOPOLOGY_MAX_TASK_PARALLELISM = "topology.max.task.parallelism"


class IBatchSpout(object):
    """``IBatchSpout``: batches of tuples by batch id (the txid)."""

    def open(self, conf, context):
        pass

    def emit_batch(self, batch_id, collector):
        raise NotImplementedError

    def ack(self, batch_id):
        pass

    def close(self):
        pass

    def get_component_configuration(self):
        return None

    def get_output_fields(self):
        raise NotImplementedError


class ITridentSpout(object):
    """``ITridentSpout``: a coordinator (one task) and emitters (every task)."""

    def get_coordinator(self, tx_state_id, conf, context):
        raise NotImplementedError

    def get_emitter(self, tx_state_id, conf, context):
        raise NotImplementedError

    def get_component_configuration(self):
        return None

    def get_output_fields(self):
        raise NotImplementedError


class ICommitterTridentSpout(ITridentSpout):
    """``ICommitterTridentSpout``: its emitter's ``commit(tx)`` runs on the ``$commit``
    stream."""


class PartitionedSpout(object):
    """What both partitioned interfaces declare."""

    def get_coordinator(self, conf, context):
        raise NotImplementedError

    def get_emitter(self, conf, context):
        raise NotImplementedError

    def get_component_configuration(self):
        return None

    def get_output_fields(self):
        raise NotImplementedError


class PartitionedTridentSpout(PartitionedSpout):
    """``IPartitionedTridentSpout`` (transactional): a batch of a partition follows from its
    stored metadata, so a replayed txid emits the same tuples.

    ``get_coordinator(conf, context)``: ``get_partitions_for_batch()``, ``is_ready(txid)``,
    ``close()``.  ``get_emitter(conf, context)``: ``get_ordered_partitions(all_partition_info)``
    (partitions with ``.id``), ``emit_partition_batch_new(tx, collector, partition,
    last_meta) -> meta``, ``emit_partition_batch(tx, collector, partition, meta)``,
    ``refresh_partitions(partitions)``, ``close()``."""


class OpaquePartitionedTridentSpout(PartitionedSpout):
    """``IOpaquePartitionedTridentSpout``: a replayed txid may emit other tuples, each tuple
    in exactly one committed batch.

    ``get_coordinator(conf, context)``: ``get_partitions_for_batch()``, ``is_ready(txid)``,
    ``close()``.  ``get_emitter(conf, context)``: ``get_ordered_partitions(all_partition_info)``,
    ``emit_partition_batch(tx, collector, partition, last_meta) -> meta``,
    ``refresh_partitions(partitions)``, ``close()`` (and optionally
    ``get_partitions_for_task(task_index, num_tasks, ordered_partitions)``)."""


class FixedBatchSpout(IBatchSpout):
    """``FixedBatchSpout(fields, max_batch_size, *values)``: the values in batches of at most
    ``max_batch_size``, each batch kept by its id until acked (a replay emits it again); then
    nothing, or from the start again with ``set_cycle(True)``.  Its component conf caps
    ``topology.max.task.parallelism`` at 1."""

    def __init__(self, fields, max_batch_size, *outputs):
        self.fields = as_fields(fields)
        self.max_batch_size = max_batch_size
        self.outputs = [list(values) for values in outputs]
        self.index = 0
        self.cycle = False
        self.batches = {}

    def set_cycle(self, cycle):
        self.cycle = cycle

    def open(self, conf, context):
        self.index = 0

    def emit_batch(self, batch_id, collector):
        batch = self.batches.get(batch_id)
        if batch is None:
            if self.index >= len(self.outputs) and self.cycle:
                self.index = 0
            end = min(self.index + self.max_batch_size, len(self.outputs))
            batch = self.outputs[self.index:end]
            self.index = max(self.index, end)
            self.batches[batch_id] = batch
        for values in batch:
            collector.emit(values)

    def ack(self, batch_id):
        self.batches.pop(batch_id, None)

    def get_component_configuration(self):
        return {TOPOLOGY_MAX_TASK_PARALLELISM: 1}

    def get_output_fields(self):
        return self.fields


class EmptyCoordinator(object):
    """``BatchSpoutExecutor.EmptyCoordinator``: always ready, no metadata."""

    def initialize_transaction(self, txid, prev_metadata, curr_metadata):
        return None

    def success(self, txid):
        pass

    def is_ready(self, txid):
        return True

    def close(self):
        pass


class BatchSpoutEmitter(object):
    """``BatchSpoutExecutor.BatchSpoutEmitter``: the batch spout's batch for the txid."""

    def __init__(self, spout):
        self.spout = spout

    def emit_batch(self, tx, coordinator_meta, collector):
        self.spout.emit_batch(tx.txid, collector)

    def success(self, tx):
        self.spout.ack(tx.txid)

    def close(self):
        self.spout.close()


class BatchSpoutExecutor(ITridentSpout):
    """``BatchSpoutExecutor``: an :class:`IBatchSpout` as an :class:`ITridentSpout`."""

    def __init__(self, spout):
        self.spout = spout

    def get_coordinator(self, tx_state_id, conf, context):
        return EmptyCoordinator()

    def get_emitter(self, tx_state_id, conf, context):
        self.spout.open(conf, context)
        return BatchSpoutEmitter(self.spout)

    def get_component_configuration(self):
        return self.spout.get_component_configuration()

    def get_output_fields(self):
        return self.spout.get_output_fields()


def is_batch_spout(spout):
    """An :class:`IBatchSpout`, or an object with its ``emit_batch``."""
    return isinstance(spout, IBatchSpout) or (
        not isinstance(spout, (ITridentSpout, PartitionedTridentSpout,
                               OpaquePartitionedTridentSpout))
        and hasattr(spout, "emit_batch") and hasattr(spout, "get_output_fields"))
