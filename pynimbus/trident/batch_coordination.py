"""The coordinators of Trident's batches: ``MasterBatchCoordinator`` (the topology's only
Storm spout per batch group) and ``TridentSpoutCoordinator`` (pure).

Ports of 1.2.4 ``trident/topology/MasterBatchCoordinator`` (attempts, at most
``topology.max.spout.pending`` batches in flight, commits in txid order, ``$success``, the
``WindowedTimeThrottler`` of ``topology.trident.batch.emit.interval.millis``, ``currtx`` and
``currattempts`` in its transactional state) and ``trident/spout/TridentSpoutCoordinator`` (a
batch's metadata, stored under ``meta/<txid>``).  Their collectors and transactional states
come from the worker (``context.new_transactional_state(id, subroot)``).
"""

from pynimbus.trident.fields import Fields
from pynimbus.trident.spout import TOPOLOGY_MAX_TASK_PARALLELISM

BATCH_STREAM_ID = "$batch"
COMMIT_STREAM_ID = "$commit"
SUCCESS_STREAM_ID = "$success"
TOPOLOGY_KRYO_REGISTER = "topology.kryo.register"
TRANSACTION_ATTEMPT_CLASS = "org.apache.storm.trident.topology.TransactionAttempt"


INIT_TXID = 1
CURRENT_TX = "currtx"
CURRENT_ATTEMPTS = "currattempts"
META_DIR = "meta"
PROCESSING, PROCESSED, COMMITTING = "processing", "processed", "committing"
TOPOLOGY_MAX_SPOUT_PENDING = "topology.max.spout.pending"
TOPOLOGY_TRIDENT_BATCH_EMIT_INTERVAL_MILLIS = "topology.trident.batch.emit.interval.millis"


class WindowedTimeThrottler(object):
    """``WindowedTimeThrottler``: at most ``max_amount`` events per tumbling window of
    ``window_millis``.  Each check may be given the instant it is about (``now``), else it
    reads the clock."""

    def __init__(self, window_millis, max_amount, now_ms):
        self.window_millis = window_millis
        self.max_amount = max_amount
        self.now_ms = now_ms
        self.window_start = now_ms()
        self.window_events = 0

    def _reset_if_necessary(self, now):
        if now is None:
            now = self.now_ms()
        if now - self.window_start > self.window_millis:
            self.window_start = now
            self.window_events = 0

    def mark_event(self, now=None):
        self._reset_if_necessary(now)
        self.window_events += 1

    def is_throttled(self, now=None):
        self._reset_if_necessary(now)
        return self.window_events >= self.max_amount


class TransactionStatus(object):
    __slots__ = ("attempt", "status")

    def __init__(self, attempt):
        self.attempt = attempt
        self.status = PROCESSING

    def __repr__(self):
        return "%s <%s>" % (self.attempt, self.status)


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

    def open(self, conf, context, collector, now_ms):
        """``MasterBatchCoordinator.open``: resume from the stored txid and attempts."""
        from pynimbus.trident.transactional_state import COORDINATOR

        self.throttler = WindowedTimeThrottler(
            conf.get(TOPOLOGY_TRIDENT_BATCH_EMIT_INTERVAL_MILLIS) or 0, 1, now_ms)
        self.states = [context.new_transactional_state(spout_id, COORDINATOR)
                       for spout_id in self.managed_spout_ids]
        self.curr_transaction = self._stored_curr_transaction()
        self.collector = collector
        active = conf.get(TOPOLOGY_MAX_SPOUT_PENDING)
        self.max_transaction_active = 1 if active is None else int(active)
        self.attempt_ids = self._stored_curr_attempts(self.curr_transaction,
                                                      self.max_transaction_active)
        self.active_tx = {}   # txid -> TransactionStatus
        self.active = True
        self.coordinators = [spout.get_coordinator(spout_id, conf, context)
                             for spout_id, spout in zip(self.managed_spout_ids, self.spouts)]

    def close(self):
        for state in self.states:
            state.close()

    def activate(self):
        self.active = True

    def deactivate(self):
        self.active = False

    def next_tuple(self):
        self._sync()

    def ack(self, tx):
        """The tuple tree of ``tx``'s ``$batch`` or ``$commit`` completed."""
        status = self.active_tx.get(tx.txid)
        if status is None or status.attempt != tx:
            return
        if status.status == PROCESSING:
            status.status = PROCESSED
        elif status.status == COMMITTING:
            del self.active_tx[tx.txid]
            self.attempt_ids.pop(tx.txid, None)
            # The next txid stored before ``$success`` goes out (Java emits first): on
            # ``$success`` the spouts drop the metadata of the batches before this one, so
            # a restart must never replay this committed batch from it.
            self.curr_transaction = tx.txid + 1
            for state in self.states:
                state.set_data(CURRENT_TX, self.curr_transaction)
            self.collector.emit(SUCCESS_STREAM_ID, [tx], None)
        self._sync()

    def fail(self, tx):
        """``tx`` failed (or timed out): it and every later active batch go again."""
        stored = self.active_tx.pop(tx.txid, None)
        if stored is not None and stored.attempt == tx:
            for txid in [t for t in self.active_tx if t >= tx.txid]:
                del self.active_tx[txid]
            self._sync()

    def _sync(self):
        from pynimbus.trident.transaction_attempt import TransactionAttempt

        maybe_commit = self.active_tx.get(self.curr_transaction)
        if maybe_commit is not None and maybe_commit.status == PROCESSED:
            maybe_commit.status = COMMITTING
            self.collector.emit(COMMIT_STREAM_ID, [maybe_commit.attempt], maybe_commit.attempt)
        if self.active and len(self.active_tx) < self.max_transaction_active:
            # One instant for the whole loop (Java reads the clock at each txid): were the
            # throttle's window to open between two txids, a later txid would start before
            # an earlier one, and a partitioned spout's emitter, which starts a batch from
            # the metadata of the batch before it, would give both the same tuples.
            now = self.throttler.now_ms()
            curr = self.curr_transaction
            for _ in range(self.max_transaction_active):
                if curr not in self.active_tx and self._is_ready(curr, now):
                    attempt_id = self.attempt_ids.get(curr)
                    attempt_id = 0 if attempt_id is None else attempt_id + 1
                    self.attempt_ids[curr] = attempt_id
                    stored = {str(t): a for t, a in sorted(self.attempt_ids.items())}
                    for state in self.states:
                        state.set_data(CURRENT_ATTEMPTS, stored)
                    attempt = TransactionAttempt(curr, attempt_id)
                    self.active_tx[curr] = TransactionStatus(attempt)
                    self.collector.emit(BATCH_STREAM_ID, [attempt], attempt)
                    self.throttler.mark_event(now)
                curr += 1

    def _is_ready(self, txid, now):
        if self.throttler.is_throttled(now):
            return False
        return any(coordinator.is_ready(txid) for coordinator in self.coordinators)

    def _stored_curr_transaction(self):
        ret = INIT_TXID
        for state in self.states:
            curr = state.get_data(CURRENT_TX)
            if curr is not None and curr > ret:
                ret = curr
        return ret

    def _stored_curr_attempts(self, curr_transaction, max_batches):
        """The stored attempt ids of the txids that may be active again."""
        ret = {}
        for state in self.states:
            for txid, attempt_id in (state.get_data(CURRENT_ATTEMPTS) or {}).items():
                txid, attempt_id = int(txid), int(attempt_id)
                if ret.get(txid) is None or attempt_id > ret[txid]:
                    ret[txid] = attempt_id
        return {t: a for t, a in ret.items()
                if curr_transaction <= t < curr_transaction + max_batches - 1}


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

    def prepare(self, conf, context):
        from pynimbus.trident.transactional_state import (
            COORDINATOR, RotatingTransactionalState)

        self.coord = self.spout.get_coordinator(self.tx_state_id, conf, context)
        self.underlying_state = context.new_transactional_state(self.tx_state_id, COORDINATOR)
        self.state = RotatingTransactionalState(self.underlying_state, META_DIR)

    def execute(self, tuple_, collector):
        """``$success``: metadata before it dropped, the coordinator told; ``$batch``: the
        batch's metadata (the stored one for a replay), stored, then emitted."""
        from pynimbus.trident.transaction_attempt import as_transaction_attempt

        attempt = as_transaction_attempt(tuple_.values[0])
        if tuple_.stream == SUCCESS_STREAM_ID:
            self.state.cleanup_before(attempt.txid)
            self.coord.success(attempt.txid)
        else:
            txid = attempt.txid
            prev_meta = self.state.get_previous_state(txid)
            meta = self.coord.initialize_transaction(txid, prev_meta, self.state.get_state(txid))
            self.state.override_state(txid, meta)
            collector.emit(BATCH_STREAM_ID, [attempt, meta])

    def cleanup(self):
        self.coord.close()
        self.underlying_state.close()
