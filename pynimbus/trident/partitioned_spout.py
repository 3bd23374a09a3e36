"""The executors of partitioned Trident spouts (pure).

Ports of 1.2.4 ``trident/spout/PartitionedTridentSpoutExecutor`` (transactional: a txid's
batch of a partition is emitted again from its stored metadata, so a replay emits the same
tuples) and ``trident/spout/OpaquePartitionedTridentSpoutExecutor`` (opaque: a replay emits
from the last committed metadata, which the emitter stores on ``$commit``).  Each task emits
the partitions ``i``, ``i + n``, ... of the ordered partitions (``i`` its index, ``n`` the
task count); a partition's metadata is kept per txid under
``<transactional root>/<txId>/user/<partition id>/<txid>``.
"""

from pynimbus.trident.spout import ICommitterTridentSpout, ITridentSpout
from pynimbus.trident.transactional_state import USER, RotatingTransactionalState


def partition_id(partition):
    """A partition's id, checked: it names a node of the store.

    :raises ValueError: not a non-empty string, or one with ``/``, or ``.``/``..``."""
    pid = partition.id if hasattr(partition, "id") else partition.get_id()
    if not isinstance(pid, str) or not pid or "/" in pid or pid in (".", ".."):
        raise ValueError("a spout partition's id is a non-empty string without '/' (it names "
                         "a node under /transactional), not %r" % (pid,))
    return pid


def partitions_for_task(task_index, num_tasks, ordered_partitions):
    """``getPartitionsForTask``'s default: every ``num_tasks``-th from ``task_index``."""
    return list(ordered_partitions)[task_index::num_tasks]


class _PartitionCoordinator(object):
    """The ``Coordinator`` of both executors: ready when the spout's coordinator is; the
    metadata is the spout's partitions (a transactional replay keeps the stored one)."""

    def __init__(self, coordinator, keep_stored):
        self.coordinator = coordinator
        self.keep_stored = keep_stored

    def initialize_transaction(self, txid, prev_metadata, curr_metadata):
        if self.keep_stored and curr_metadata is not None:
            return curr_metadata
        return self.coordinator.get_partitions_for_batch()

    def success(self, txid):
        pass

    def is_ready(self, txid):
        return self.coordinator.is_ready(txid)

    def close(self):
        self.coordinator.close()


class _PartitionState(object):
    __slots__ = ("rotating_state", "partition")

    def __init__(self, rotating_state, partition):
        self.rotating_state = rotating_state
        self.partition = partition


class PartitionedEmitter(object):
    """``PartitionedTridentSpoutExecutor.Emitter``: a partition's metadata for a txid is made
    once (``emit_partition_batch_new(tx, collector, partition, last_meta)``, stored), and a
    replay of the txid re-emits from it (``emit_partition_batch``)."""

    def __init__(self, spout, tx_state_id, conf, context):
        self.emitter = spout.get_emitter(conf, context)
        self.state = context.new_transactional_state(tx_state_id, USER)
        self.index = context.get_this_task_index()
        self.num_tasks = len(context.get_component_tasks(context.get_this_component_id()))
        self.partition_states = {}
        self.saved_coordinator_meta = None

    def emit_batch(self, tx, coordinator_meta, collector):
        if self.saved_coordinator_meta is None or self.saved_coordinator_meta != coordinator_meta:
            partitions = self.emitter.get_ordered_partitions(coordinator_meta)
            self.partition_states = {}
            mine = list(partitions)[self.index::self.num_tasks]
            for p in mine:
                pid = partition_id(p)
                self.partition_states[pid] = _PartitionState(
                    RotatingTransactionalState(self.state, pid), p)
            self.emitter.refresh_partitions(mine)
            self.saved_coordinator_meta = coordinator_meta
        for s in self.partition_states.values():
            partition = s.partition
            meta = s.rotating_state.get_state_or_create(
                tx.txid, lambda txid, last: self.emitter.emit_partition_batch_new(
                    tx, collector, partition, last))
            if meta is not None:
                self.emitter.emit_partition_batch(tx, collector, partition, meta)

    def success(self, tx):
        for s in self.partition_states.values():
            s.rotating_state.cleanup_before(tx.txid)

    def close(self):
        self.state.close()
        self.emitter.close()


class OpaquePartitionedEmitter(object):
    """``OpaquePartitionedTridentSpoutExecutor.Emitter``: each batch of a partition starts
    from the metadata of the partition's previous batch in this worker, else from its last
    committed one; the batch's metadata is stored on ``$commit``."""

    def __init__(self, spout, tx_state_id, conf, context):
        self.emitter = spout.get_emitter(conf, context)
        self.index = context.get_this_task_index()
        self.num_tasks = len(context.get_component_tasks(context.get_this_component_id()))
        self.state = context.new_transactional_state(tx_state_id, USER)
        self.cached_metas = {}   # txid -> {partition id: meta}
        self.partition_states = {}
        self.saved_coordinator_meta = None
        self.changed_meta = False

    def emit_batch(self, tx, coordinator_meta, collector):
        if self.saved_coordinator_meta is None or self.saved_coordinator_meta != coordinator_meta:
            self.partition_states = {}
            ordered = self.emitter.get_ordered_partitions(coordinator_meta)
            for_task = getattr(self.emitter, "get_partitions_for_task", None)
            mine = (for_task(self.index, self.num_tasks, ordered) if for_task is not None
                    else partitions_for_task(self.index, self.num_tasks, ordered))
            for p in mine:
                pid = partition_id(p)
                self.partition_states[pid] = _PartitionState(
                    RotatingTransactionalState(self.state, pid), p)
            self.emitter.refresh_partitions(mine)
            self.saved_coordinator_meta = coordinator_meta
            self.changed_meta = True
        metas = {}
        self.cached_metas[tx.txid] = metas
        earlier = [t for t in self.cached_metas if t < tx.txid]
        prev_cached = self.cached_metas[max(earlier)] if earlier else {}
        for pid, s in self.partition_states.items():
            s.rotating_state.remove_state(tx.txid)
            last_meta = prev_cached.get(pid)
            if last_meta is None:
                last_meta = s.rotating_state.get_last_state()
            metas[pid] = self.emitter.emit_partition_batch(tx, collector, s.partition, last_meta)

    def success(self, tx):
        for s in self.partition_states.values():
            s.rotating_state.cleanup_before(tx.txid)

    def commit(self, attempt):
        """The batch committed: its partitions' metadata stored (the first task also drops
        partitions that no longer exist)."""
        if self.changed_meta and self.index == 0:
            valid = {partition_id(p)
                     for p in self.emitter.get_ordered_partitions(self.saved_coordinator_meta)}
            for existing in self.state.list(""):
                if existing not in valid:
                    RotatingTransactionalState(self.state, existing).remove_state(attempt.txid)
            self.changed_meta = False
        metas = self.cached_metas.pop(attempt.txid, {})
        for pid, meta in metas.items():
            self.partition_states[pid].rotating_state.override_state(attempt.txid, meta)

    def close(self):
        self.emitter.close()


class _Wrapping(object):
    """An executor's spout's conf and fields are the spout's own."""

    def __init__(self, spout):
        self.spout = spout

    def get_partitioned_spout(self):
        return self.spout

    def get_component_configuration(self):
        return self.spout.get_component_configuration()

    def get_output_fields(self):
        return self.spout.get_output_fields()


class PartitionedTridentSpoutExecutor(_Wrapping, ITridentSpout):
    """``PartitionedTridentSpoutExecutor(spout)``: a transactional partitioned spout as an
    ``ITridentSpout``."""

    def get_coordinator(self, tx_state_id, conf, context):
        return _PartitionCoordinator(self.spout.get_coordinator(conf, context), True)

    def get_emitter(self, tx_state_id, conf, context):
        return PartitionedEmitter(self.spout, tx_state_id, conf, context)


class OpaquePartitionedTridentSpoutExecutor(_Wrapping, ICommitterTridentSpout):
    """``OpaquePartitionedTridentSpoutExecutor(spout)``: an opaque partitioned spout as an
    ``ICommitterTridentSpout``."""

    def get_coordinator(self, tx_state_id, conf, context):
        return _PartitionCoordinator(self.spout.get_coordinator(conf, context), False)

    def get_emitter(self, tx_state_id, conf, context):
        return OpaquePartitionedEmitter(self.spout, tx_state_id, conf, context)
