"""``TridentBoltExecutor`` and ``TridentSpoutExecutor``: the batch bolts of a Trident topology
(pure).

Ports of 1.2.4 ``trident/topology/TridentBoltExecutor`` (``CoordType``, ``CoordSpec``,
``CoordCondition``, ``TrackedBatch``, ``CoordinatedOutputCollector``, the batch bookkeeping of
``execute``, ``checkFinish``, ``finishBatch``, ``failBatch``) and
``trident/spout/TridentSpoutExecutor``.  The planner makes one object per component; each task
runs a copy of it, given its collector by the worker.
"""

from pynimbus.clojure_port.system_topology import (
    SYSTEM_COMPONENT_ID as TICK_COMPONENT, SYSTEM_TICK_STREAM_ID as TICK_STREAM)
from pynimbus.trident.fields import Fields
from pynimbus.trident.operation import FailedException, ReportedFailedException
from pynimbus.trident.transaction_attempt import (
    TransactionAttempt, as_batch_id, as_transaction_attempt)

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


COORD_STREAM_PREFIX = "$coord-"
REGULAR, COMMIT, COORD = "regular", "commit", "coord"  # TupleType


class CoordCondition(object):
    """``CoordCondition``: a batch group's commit stream, how many ``$coord`` reports finish a
    batch, and the tasks this bolt reports to."""

    def __init__(self, commit_stream, expected_task_reports, target_tasks):
        self.commit_stream = commit_stream
        self.expected_task_reports = expected_task_reports
        self.target_tasks = target_tasks


class BatchInfo(object):
    """``BatchInfo``: a batch's group, id and the bolt's state for it."""

    __slots__ = ("batch_group", "batch_id", "state")

    def __init__(self, batch_group, batch_id, state):
        self.batch_group = batch_group
        self.batch_id = batch_id
        self.state = state


class TrackedBatch(object):
    """``TrackedBatch``: what this task has seen of one attempt of a batch."""

    __slots__ = ("attempt_id", "info", "condition", "reported_tasks", "expected_tuple_count",
                 "received_tuples", "task_emitted_tuples", "failed", "received_commit",
                 "delayed_ack")

    def __init__(self, info, condition, attempt_id):
        self.info = info
        self.condition = condition
        self.attempt_id = attempt_id
        self.reported_tasks = 0
        self.expected_tuple_count = 0
        self.received_tuples = 0
        self.task_emitted_tuples = {}
        self.failed = False
        self.received_commit = condition.commit_stream is None
        self.delayed_ack = None


class CoordinatedOutputCollector(object):
    """``CoordinatedOutputCollector`` and ``BatchOutputCollectorImpl``: the batch bolt's
    unanchored emits, counted per target task for the current batch."""

    def __init__(self, collector):
        self.collector = collector
        self.curr_batch = None

    def emit(self, stream, values):
        tasks = self.collector.emit(stream, values, None)
        batch = self.curr_batch
        if batch is not None:
            counts = batch.task_emitted_tuples
            for task in tasks:
                counts[task] = counts.get(task, 0) + 1
        return tasks

    def emit_direct(self, task, stream, values):
        batch = self.curr_batch
        if batch is not None:
            batch.task_emitted_tuples[task] = batch.task_emitted_tuples.get(task, 0) + 1
        self.collector.emit_direct(task, stream, values, None)

    def report_error(self, error):
        self.collector.report_error(error)


class TwoBucketMap(object):
    """``RotatingMap(2)`` of tracked batches by txid: what was not touched for two rotations is
    forgotten (a batch whose coordination never came)."""

    def __init__(self):
        self.buckets = [{}, {}]

    def get(self, key):
        for bucket in self.buckets:
            if key in bucket:
                return bucket[key]
        return None

    def put(self, key, value):
        self.buckets[0][key] = value
        self.buckets[1].pop(key, None)

    def remove(self, key):
        for bucket in self.buckets:
            bucket.pop(key, None)

    def rotate(self):
        self.buckets = [{}, self.buckets[0]]

    def __len__(self):
        return sum(len(b) for b in self.buckets)


class TridentBoltExecutor(object):
    """``TridentBoltExecutor(bolt, batchGroupIds, coordinationSteps)``: runs a batch bolt
    (``TridentSpoutExecutor`` or ``SubtopologyBolt``) with Trident's batch coordination.

    ``batch_group_ids``: ``{(component, stream): batch group}`` of the whole topology;
    ``coord_specs``: ``{batch group: CoordSpec}`` of the groups this bolt is in.

    Each task runs its own copy, :meth:`prepare`d with its collector: ``emit(stream, values,
    anchor) -> tasks``, ``emit_direct(task, stream, values, anchor)``, ``ack(tuple)``,
    ``fail(tuple)``, ``report_error(error)``.  A received tuple has ``source_component``,
    ``stream`` and ``values``.  ``now_ms()`` is the clock."""

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

    def prepare(self, conf, context, collector, now_ms):
        """``TridentBoltExecutor.prepare``: each batch group's ``CoordCondition``, then the
        bolt's own ``prepare``."""
        self.collector = collector
        self.now_ms = now_ms
        self.message_timeout_ms = int(conf.get("topology.message.timeout.secs", 30)) * 1000
        self.last_rotate = now_ms()
        self.batches = TwoBucketMap()
        self.coord_collector = CoordinatedOutputCollector(collector)
        targets = context.get_this_targets()
        self.coord_conditions = {}
        for batch_group, spec in self.coord_specs.items():
            expected = 0
            for component, coord_type in spec.coords.items():
                expected += (1 if coord_type.single_count
                             else len(context.get_component_tasks(component)))
            target_tasks = []
            for component in targets.get(coord_stream(batch_group), {}):
                target_tasks.extend(context.get_component_tasks(component))
            self.coord_conditions[batch_group] = CoordCondition(
                spec.commit_stream, expected, sorted(set(target_tasks)))
        self.bolt.prepare(conf, context, self.coord_collector)

    def cleanup(self):
        self.bolt.cleanup()

    def _fail_batch(self, tracked, error=None):
        if isinstance(error, ReportedFailedException):
            self.collector.report_error(error)
        tracked.failed = True
        if tracked.delayed_ack is not None:
            self.collector.fail(tracked.delayed_ack)
            tracked.delayed_ack = None

    def _finish_batch(self, tracked, finish_tuple):
        success = True
        try:
            self.bolt.finish_batch(tracked.info)
            stream = coord_stream(tracked.info.batch_group)
            batch_id = tracked.info.batch_id
            counts = tracked.task_emitted_tuples
            for task in tracked.condition.target_tasks:
                self.collector.emit_direct(task, stream, [batch_id, counts.get(task, 0)],
                                           finish_tuple)
            if tracked.delayed_ack is not None:
                self.collector.ack(tracked.delayed_ack)
                tracked.delayed_ack = None
        except FailedException as e:
            self._fail_batch(tracked, e)
            success = False
        self.batches.remove(tracked.info.batch_id.get_id())
        return success

    def _check_finish(self, tracked, tuple_, tuple_type):
        if tracked.failed:
            self._fail_batch(tracked)
            self.collector.fail(tuple_)
            return
        cond = tracked.condition
        delayed = tracked.delayed_ack is None and (
            cond.commit_stream is None or tuple_type == COMMIT)
        if delayed:
            tracked.delayed_ack = tuple_
        failed = False
        if tracked.received_commit and tracked.reported_tasks == cond.expected_task_reports:
            if tracked.received_tuples == tracked.expected_tuple_count:
                self._finish_batch(tracked, tuple_)
            else:
                held = tracked.delayed_ack
                self._fail_batch(tracked)
                if held is not tuple_:  # Storm fails it twice; a tuple is failed once here
                    self.collector.fail(tuple_)
                failed = True
        if not delayed and not failed:
            self.collector.ack(tuple_)

    def execute(self, tuple_):
        """``TridentBoltExecutor.execute``."""
        source, stream = tuple_.source_component, tuple_.stream
        if source == TICK_COMPONENT and stream == TICK_STREAM:
            now = self.now_ms()
            if now - self.last_rotate > self.message_timeout_ms:
                self.batches.rotate()
                self.last_rotate = now
            return
        batch_group = self.batch_group_ids.get((source, stream))
        if batch_group is None:
            self.coord_collector.curr_batch = None
            self.bolt.execute(None, tuple_)
            self.collector.ack(tuple_)
            return
        batch_id = tuple_.values[0]
        if batch_id.__class__ is TransactionAttempt:
            key = batch_id.txid
        else:  # a DRPC request's batch, or an id from another worker
            batch_id = as_batch_id(batch_id)
            key = batch_id.get_id()
        tracked = self.batches.get(key)
        if tracked is not None:
            if batch_id.attempt_id > tracked.attempt_id:
                self.batches.remove(key)
                tracked = None
            elif batch_id.attempt_id < tracked.attempt_id:
                return  # an older attempt's tuple: dropped, never acked (as in Storm)
        if tracked is None:
            tracked = TrackedBatch(
                BatchInfo(batch_group, batch_id, self.bolt.init_batch_state(batch_group,
                                                                            batch_id)),
                self.coord_conditions[batch_group], batch_id.attempt_id)
            self.batches.put(key, tracked)
        self.coord_collector.curr_batch = tracked
        try:
            cond = tracked.condition
            if cond.commit_stream is not None and (source, stream) == cond.commit_stream:
                tracked.received_commit = True
                self._check_finish(tracked, tuple_, COMMIT)
            elif cond.expected_task_reports > 0 and stream.startswith(COORD_STREAM_PREFIX):
                tracked.reported_tasks += 1
                tracked.expected_tuple_count += tuple_.values[1]
                self._check_finish(tracked, tuple_, COORD)
            else:
                tracked.received_tuples += 1
                success = True
                try:
                    self.bolt.execute(tracked.info, tuple_)
                    if cond.expected_task_reports == 0:
                        success = self._finish_batch(tracked, tuple_)
                except FailedException as e:
                    self._fail_batch(tracked, e)
                if success:
                    self.collector.ack(tuple_)
                else:
                    self.collector.fail(tuple_)
        finally:
            self.coord_collector.curr_batch = None


class AddIdCollector(object):
    """``TridentSpoutExecutor.AddIdCollector``: the batch id put before each emitted
    tuple's values, on the spout's stream."""

    def __init__(self, stream, collector):
        self.stream = stream
        self.collector = collector
        self.batch_id = None

    def emit(self, values):
        self.collector.emit(self.stream, [self.batch_id] + list(values))

    def report_error(self, error):
        self.collector.report_error(error)


class TridentSpoutExecutor(object):
    """``TridentSpoutExecutor(txStateId, streamName, spout)`` (an ``ITridentBatchBolt``): a
    ``$batch`` tuple ``[attempt, metadata]`` becomes the emitter's batch on ``stream_name``
    (``$tx`` then the spout's fields); ``$commit`` commits a committer spout's attempt;
    ``$success`` retires the batches before it."""

    def __init__(self, tx_state_id, stream_name, spout):
        self.tx_state_id = tx_state_id
        self.stream_name = stream_name
        self.spout = spout
        self.emitter = None
        self.collector = None
        self.active_batches = {}   # txid -> TransactionAttempt

    def declare_output_fields(self):
        fields = [ID_FIELD] + list(self.spout.get_output_fields())
        return {self.stream_name: (Fields(fields), False)}

    def get_component_configuration(self):
        return self.spout.get_component_configuration()

    def prepare(self, conf, context, collector):
        self.emitter = self.spout.get_emitter(self.tx_state_id, conf, context)
        self.collector = AddIdCollector(self.stream_name, collector)

    def execute(self, info, tuple_):
        from pynimbus.trident.batch_coordination import COMMIT_STREAM_ID, SUCCESS_STREAM_ID

        attempt = as_transaction_attempt(tuple_.values[0])
        if tuple_.stream == COMMIT_STREAM_ID:
            if self.active_batches.get(attempt.txid) == attempt:
                self.emitter.commit(attempt)
                del self.active_batches[attempt.txid]
            else:
                raise FailedException("Received commit for different transaction attempt")
        elif tuple_.stream == SUCCESS_STREAM_ID:
            # batches before it will never be asked for again
            for txid in [t for t in self.active_batches if t < attempt.txid]:
                del self.active_batches[txid]
            self.emitter.success(attempt)
        else:
            self.collector.batch_id = info.batch_id
            self.emitter.emit_batch(attempt, tuple_.values[1], self.collector)
            self.active_batches[attempt.txid] = attempt

    def finish_batch(self, info):
        pass

    def init_batch_state(self, batch_group, batch_id):
        return None

    def cleanup(self):
        self.emitter.close()
