"""Linear DRPC topologies for pystorm/streamparse bolts: a chain of bolts answering one DRPC
function, with the request-id coordination Storm builds around them::

    from pynimbus.drpc import BaseBatchBolt, LinearDRPCTopologyBuilder

    builder = LinearDRPCTopologyBuilder("reach")
    builder.add_bolt(GetTweeters, par=4)
    builder.add_bolt(GetFollowers, par=12).shuffle_grouping()
    builder.add_bolt(PartialUniquer, par=6).fields_grouping(["id", "follower"])
    builder.add_bolt(CountAggregator, par=3).fields_grouping(["id"])
    ReachTopology = builder.create_topology("ReachTopology")  # `pynimbus submit m:ReachTopology`

Ports of 1.2.4 ``drpc/LinearDRPCTopologyBuilder`` (with ``LinearDRPCInputDeclarer``),
``drpc/PrepareRequest``, ``drpc/JoinResult``, ``coordination/CoordinatedBolt`` (with its
``CoordinatedOutputCollector``, ``TrackingInfo``, ``SourceArgs`` and ``IdStreamSpec``),
``coordination/BatchBoltExecutor``, ``coordination/BatchOutputCollectorImpl``,
``topology/base/BaseBatchBolt`` (``IBatchBolt``) and ``utils/TimeCacheMap``.  The topology
has Storm's components, streams, fields and groupings:

* ``spout``: the DRPC spout of the function (:class:`pynimbus.drpc.components.DRPCSpout`);
* ``prepare-request`` (none grouping from ``spout``): a random request id per request, emitted
  as ``[request, args]`` on ``default``, ``[request, return_info]`` on ``ret`` and
  ``[request]`` on ``id``;
* ``bolt0`` ... ``bolt<n-1>``: each added bolt wrapped in a :class:`CoordinatedBolt`.  The first
  reads ``prepare-request``'s ``default`` stream (none grouping unless declared otherwise), the
  others what their declarer says of the previous bolt, plus the previous bolt's coordination
  stream (``org.apache.storm.coordination.CoordinatedBolt/coord-stream``, ``[id, count]``,
  direct); the last, when it has a ``finished_id`` (a batch bolt has), also
  ``prepare-request``'s ``id`` stream, fields grouped on ``request``;
* ``bolt<n>``: :class:`JoinResult`, fields grouping on the last bolt's only stream by its
  first field and on ``prepare-request``'s ``ret`` by ``request``;
* ``bolt<n+1>``: :class:`pynimbus.drpc.components.ReturnResults` (none grouping).

The first value of every tuple between the bolts is the request id, as in Storm.  A bolt is a
pystorm/streamparse ``Bolt`` class (pystorm's auto-ack and auto-anchor make it Storm's
``BaseBasicBolt``; a ``finished_id(self, request_id)`` method makes it Storm's
``FinishedCallback``, a ``timeout_id(self, request_id)`` its ``TimeoutCallback``), or a
:class:`BaseBatchBolt` class: a new instance per request id, ``prepare(conf, context,
collector, request_id)``, ``execute(tup)``, then ``finish_batch()`` once every upstream task
has reported the request done.  A :class:`FailedException` raised by a bolt fails its tuple
(and, from ``finish_batch`` or ``finished_id``, the request); any other exception is the
component's, as pystorm's.

Deliberate differences from Storm:

* field names are Python identifiers (pystorm makes them a namedtuple's): the return info is
  ``return_info`` on the spout, on ``prepare-request``'s ``ret`` stream (Storm: ``return``, a
  Python keyword) and on :class:`JoinResult` (Storm: ``return-info``);
* Storm serializes each bolt object into the topology; here each coordinated component runs
  the class ``pynimbus.drpc.linear.CoordinatedBolt``, and which bolt it wraps (``module.Class``,
  so a bolt must be a module-level class), with its source counts and id stream, is read from
  the topology conf's ``pynimbus.drpc.linear`` (``{component id: ...}``); the function is the
  conf's ``pynimbus.drpc.function``, which the DRPC spout reads;
* the tracked request ids expire (Storm's ``TimeCacheMap`` of ``topology.message.timeout.secs``,
  three buckets) on tick tuples the coordinated component asks for each second, not on a thread
  of their own; a bolt gets ticks only when its own ``config`` asks for them, and a batch bolt
  never (Storm would hand them to the bolt as a request);
* every emit of a wrapped bolt asks for the tasks it went to (Storm's emit returns them), which
  on a multilang subprocess costs a round trip;
* streamparse gives every component a parallelism hint (1 where Storm's builder sets none), and
  the declarer has no ``partial_key_grouping`` (``custom_grouping`` takes a streamparse
  ``Grouping``);
* :class:`JoinResult` writes the result as Java's ``"" + value`` would for a string, an integer,
  a boolean or null; other values as Python's ``str``.
"""

import collections
import importlib
import io
import logging
import random

from pystorm.serializers.serializer import Serializer
from streamparse import Bolt, Grouping, Stream, Topology
from streamparse.dsl.bolt import ShellBoltSpec
from streamparse.dsl.spout import ShellSpoutSpec
from streamparse.thrift import GlobalStreamId

from pynimbus.drpc.components import FUNCTION_CONF, DRPCSpout, ReturnResults
from pynimbus.drpc.local import LOCAL_DRPC_ID
from pynimbus.trident.operation import FailedException, ReportedFailedException

log = logging.getLogger(__name__)

SPOUT_ID = "spout"
PREPARE_ID = "prepare-request"
ARGS_STREAM = "default"
RETURN_STREAM = "ret"
ID_STREAM = "id"
# 1.2.4 Constants.COORDINATED_STREAM_ID: CoordinatedBolt's class name and "/coord-stream"
COORDINATED_STREAM_ID = "org.apache.storm.coordination.CoordinatedBolt/coord-stream"
# What the coordinated components read of the topology conf: {component id: their setting}.
LINEAR_CONF = "pynimbus.drpc.linear"
# Seeds prepare-request's random ids (with the task id); unset: the system's randomness.
REQUEST_ID_SEED_CONF = "pynimbus.drpc.request.id.seed"
TOPOLOGY_TICK_TUPLE_FREQ_SECS = "topology.tick.tuple.freq.secs"
TOPOLOGY_MESSAGE_TIMEOUT_SECS = "topology.message.timeout.secs"
TRACKING_TICK_SECS = 1
SINGLE, ALL = "single", "all"  # CoordinatedBolt.SourceArgs: one report, or one per task
REGULAR, ID, COORD = "regular", "id", "coord"  # CoordinatedBolt.TupleType
SHELL_COMMAND = "streamparse_run"


def bolt_id(index):
    return "bolt%d" % index


class IllegalStateError(RuntimeError):
    """Storm's ``IllegalStateException`` of ``CoordinatedBolt``: a request finished on a
    tuple that is no coordination tuple, which the coordination rules out (a wrapped bolt
    that acks its input later than when it comes, with an upstream bolt, can cause it)."""


# -- Storm's TimeCacheMap, rotated by the caller


class TimeCacheMap(object):
    """Port of 1.2.4 ``utils/TimeCacheMap`` on a ``RotatingMap``: ``num_buckets`` dicts, a new
    entry in the newest; every ``expiration_secs / (num_buckets - 1)`` seconds the oldest
    bucket is dropped and ``callback(key, value)`` called for each of its entries, so an entry
    lives between ``expiration_secs`` and ``expiration_secs * (1 + 1 / (num_buckets - 1))``.

    Deliberate difference: no cleaner thread; :meth:`advance` says how much time passed."""

    def __init__(self, expiration_secs, num_buckets=3, callback=None):
        if num_buckets < 2:
            raise ValueError("num_buckets must be >= 2")
        self.buckets = collections.deque({} for _ in range(num_buckets))
        self.rotate_secs = max(float(expiration_secs) / (num_buckets - 1), 1e-3)
        self.elapsed = 0.0
        self.callback = callback

    def get(self, key):
        for bucket in self.buckets:
            if key in bucket:
                return bucket[key]
        return None

    def put(self, key, value):
        buckets = iter(self.buckets)
        next(buckets)[key] = value
        for bucket in buckets:
            bucket.pop(key, None)

    def remove(self, key):
        for bucket in self.buckets:
            if key in bucket:
                return bucket.pop(key)
        return None

    def __contains__(self, key):
        return any(key in bucket for bucket in self.buckets)

    def __len__(self):
        return sum(len(bucket) for bucket in self.buckets)

    def advance(self, secs):
        """``secs`` seconds passed: rotate as often as they cover the rotation period."""
        self.elapsed += secs
        while self.elapsed >= self.rotate_secs:
            self.elapsed -= self.rotate_secs
            dead = self.buckets.pop()
            self.buckets.appendleft({})
            if self.callback is not None:
                for key, value in dead.items():
                    self.callback(key, value)


# -- CoordinatedBolt's logic (pure: tuples in, collector calls out)


class TrackingInfo(object):
    """Port of ``CoordinatedBolt.TrackingInfo``: what one request id's coordination knows."""

    __slots__ = ("report_count", "expected_tuple_count", "received_tuples", "failed",
                 "task_emitted_tuples", "received_id", "finished", "ack_tuples")

    def __init__(self):
        self.report_count = 0
        self.expected_tuple_count = 0
        self.received_tuples = 0
        self.failed = False
        self.task_emitted_tuples = collections.Counter()
        self.received_id = False
        self.finished = False
        self.ack_tuples = []

    def __repr__(self):
        return ("<TrackingInfo reports=%d expected=%d received=%d failed=%s id=%s emitted=%s>"
                % (self.report_count, self.expected_tuple_count, self.received_tuples,
                   self.failed, self.received_id, dict(self.task_emitted_tuples)))


class Coordinator(object):
    """Port of 1.2.4 ``coordination/CoordinatedBolt``'s logic, apart from any component.

    Per request id (a tuple's first value) it counts what the delegate acks, what each
    upstream task reported having sent (``[id, count]`` on the coordination stream), and what
    the delegate emitted to each downstream task; once every upstream report came, the counts
    match and (with an id stream) the request's id tuple came, it calls the delegate's
    ``finished_id(id)``, emits ``[id, count]`` to every task of :attr:`count_out_tasks`
    directly, anchored to the tuple that finished it, and acks the coordination tuples it held
    (the id tuple, with an id stream) so that the request's tuple tree completes only then.

    :param delegate: has ``execute(tup)``, and may have ``finished_id(id)`` and
        ``timeout_id(id)`` (Storm's ``FinishedCallback`` and ``TimeoutCallback``).
    :param collector: the component's own: ``emit(values, stream, anchors, direct_task)``
        returning the task ids, ``ack(tup)``, ``fail(tup)``.
    :param source_reports: how many ``[id, count]`` reports finish a request (Storm's
        ``_numSourceReports``); None: no coordinating sources (the first bolt).
    :param id_stream: ``(component, stream)`` of the request's id tuples, or None.
    :param count_out_tasks: the downstream tasks told the counts.
    :param expiration_secs: how long a request id is tracked
        (``context.maxTopologyMessageTimeout()``).

    The delegate emits, acks and fails through :attr:`output_collector` (Storm's
    ``CoordinatedOutputCollector``).  Tuples are anything with ``values``, ``component`` and
    ``stream`` (pystorm's ``Tuple``).
    """

    def __init__(self, delegate, collector, source_reports=None, id_stream=None,
                 count_out_tasks=(), expiration_secs=30):
        self.delegate = delegate
        self.collector = collector
        self.source_reports = source_reports
        self.id_stream = tuple(id_stream) if id_stream is not None else None
        self.count_out_tasks = list(count_out_tasks)
        self.finished_callback = getattr(delegate, "finished_id", None)
        self.timeout_callback = getattr(delegate, "timeout_id", None)
        self.tracked = TimeCacheMap(expiration_secs, callback=(
            self._expired if self.timeout_callback is not None else None))
        self.output_collector = CoordinatedOutputCollector(self)

    def tuple_type(self, tup):
        if self.id_stream is not None and (tup.component, tup.stream) == self.id_stream:
            return ID
        if self.source_reports is not None and tup.stream == COORDINATED_STREAM_ID:
            return COORD
        return REGULAR

    def execute(self, tup):
        """``CoordinatedBolt.execute``: an id tuple, a report, or the delegate's input."""
        request_id = tup.values[0]
        kind = self.tuple_type(tup)
        track = self.tracked.get(request_id)
        if track is None:
            track = TrackingInfo()
            if self.id_stream is None:
                track.received_id = True
            self.tracked.put(request_id, track)
        if kind == ID:
            track.received_id = True
            self.check_finish_id(tup, kind)
        elif kind == COORD:
            track.report_count += 1
            track.expected_tuple_count += int(tup.values[1])
            self.check_finish_id(tup, kind)
        else:
            self.delegate.execute(tup)

    def check_finish_id(self, tup, kind):
        """``CoordinatedBolt.checkFinishId``; True when the request failed."""
        request_id = tup.values[0]
        track = self.tracked.get(request_id)
        if track is None:
            if kind != REGULAR:
                self.collector.fail(tup)
            return False
        failed = False
        try:
            delayed = False
            if (self.id_stream is None and kind == COORD
                    or self.id_stream is not None and kind == ID):
                track.ack_tuples.append(tup)
                delayed = True
            if track.failed:
                failed = True
                for held in track.ack_tuples:
                    self.collector.fail(held)
                self.tracked.remove(request_id)
            elif track.received_id and (
                    self.source_reports is None
                    or track.report_count == self.source_reports
                    and track.expected_tuple_count == track.received_tuples):
                if self.finished_callback is not None:
                    self.finished_callback(request_id)
                if not (self.source_reports is None or kind != REGULAR):
                    raise IllegalStateError(
                        "request %r finished on a tuple that is not a coordination tuple"
                        % (request_id,))
                for task in self.count_out_tasks:
                    self.collector.emit([request_id, track.task_emitted_tuples[task]],
                                        COORDINATED_STREAM_ID, [tup], task)
                for held in track.ack_tuples:
                    self.collector.ack(held)
                track.finished = True
                self.tracked.remove(request_id)
            if not delayed and kind != REGULAR:
                if track.failed:
                    self.collector.fail(tup)
                else:
                    self.collector.ack(tup)
        except FailedException:
            log.error("Failed to finish batch of request %r", request_id, exc_info=True)
            for held in track.ack_tuples:
                self.collector.fail(held)
            self.tracked.remove(request_id)
            failed = True
        return failed

    # CoordinatedOutputCollector's bookkeeping

    def emitted(self, request_id, tasks):
        """``updateTaskCounts``: the delegate emitted a tuple of ``request_id`` to ``tasks``."""
        track = self.tracked.get(request_id)
        if track is not None:
            for task in tasks:
                track.task_emitted_tuples[task] += 1

    def ack(self, tup):
        track = self.tracked.get(tup.values[0])
        if track is not None:
            track.received_tuples += 1
        if self.check_finish_id(tup, REGULAR):
            self.collector.fail(tup)
        else:
            self.collector.ack(tup)

    def fail(self, tup):
        track = self.tracked.get(tup.values[0])
        if track is not None:
            track.failed = True
        self.check_finish_id(tup, REGULAR)
        self.collector.fail(tup)

    # expiry

    def advance(self, secs):
        """``secs`` seconds passed (a tick): request ids tracked too long expire."""
        self.tracked.advance(secs)

    def _expired(self, request_id, track):
        """``CoordinatedBolt.TimeoutItems``."""
        track.failed = True
        if not track.finished:
            self.timeout_callback(request_id)


class CoordinatedOutputCollector(object):
    """Port of ``CoordinatedBolt.CoordinatedOutputCollector``: what the delegate emits is
    counted per task, what it acks or fails counts towards its request."""

    def __init__(self, coordinator):
        self.coordinator = coordinator

    def emit(self, values, stream=None, anchors=(), direct_task=None):
        """Emit ``values`` (the request id first); returns the task ids it went to."""
        coordinator = self.coordinator
        if direct_task is not None:
            coordinator.emitted(values[0], [direct_task])
        tasks = coordinator.collector.emit(values, stream, list(anchors), direct_task)
        if direct_task is None:
            coordinator.emitted(values[0], tasks)
        return tasks

    def ack(self, tup):
        self.coordinator.ack(tup)

    def fail(self, tup):
        self.coordinator.fail(tup)

    def report_error(self, error):
        self.coordinator.collector.report_error(error)


# -- batch bolts


class BaseBatchBolt(object):
    """Port of 1.2.4 ``topology/base/BaseBatchBolt`` (``coordination/IBatchBolt``): one
    instance per request id, made by the coordinated component.

    ``outputs`` (as a streamparse component's: field names, or ``Stream`` s) and ``config``
    (component conf) are class attributes.  ``prepare`` is called first with the
    :class:`BatchOutputCollector` and the request id, ``execute(tup)`` for each tuple of the
    request (acked after it returns; a :class:`FailedException` fails it), ``finish_batch()``
    once the request is done upstream (a :class:`FailedException` fails the request)."""

    outputs = None
    config = None

    def prepare(self, conf, context, collector, request_id):
        pass

    def execute(self, tup):
        raise NotImplementedError

    def finish_batch(self):
        raise NotImplementedError


class BatchOutputCollector(object):
    """Port of ``coordination/BatchOutputCollectorImpl``: a batch bolt's emits, unanchored,
    as Storm's are; ``emit`` returns the task ids."""

    def __init__(self, collector):
        self.collector = collector

    def emit(self, values, stream=None):
        return self.collector.emit(list(values), stream)

    def emit_direct(self, task, values, stream=None):
        self.collector.emit(list(values), stream, (), task)

    def report_error(self, error):
        self.collector.report_error(error)

    def ack(self, tup):
        self.collector.ack(tup)

    def fail(self, tup):
        self.collector.fail(tup)


class BatchBoltExecutor(object):
    """Port of 1.2.4 ``coordination/BatchBoltExecutor``: a batch bolt class run per request
    id, as the delegate of a :class:`Coordinator`."""

    def __init__(self, batch_bolt_class):
        self.batch_bolt_class = batch_bolt_class
        self.open_transactions = {}

    def prepare(self, conf, context, collector):
        self.conf = conf
        self.context = context
        self.collector = BatchOutputCollector(collector)
        self.open_transactions = {}

    def execute(self, tup):
        bolt = self.batch_bolt(tup.values[0])
        try:
            bolt.execute(tup)
            self.collector.ack(tup)
        except FailedException:
            log.error("Failed to process tuple in batch", exc_info=True)
            self.collector.fail(tup)

    def finished_id(self, request_id):
        bolt = self.batch_bolt(request_id)
        del self.open_transactions[request_id]
        bolt.finish_batch()

    def timeout_id(self, request_id):
        self.open_transactions.pop(request_id, None)

    def batch_bolt(self, request_id):
        bolt = self.open_transactions.get(request_id)
        if bolt is None:
            bolt = self.batch_bolt_class()
            bolt.prepare(self.conf, self.context, self.collector, request_id)
            self.open_transactions[request_id] = bolt
        return bolt


# -- a pystorm bolt as a coordinated bolt's delegate


class _DelegateMessages(Serializer):
    """The wrapped pystorm bolt's serializer: what it sends goes to ``send``, what it reads
    (the task ids of an emit) comes from ``inbox``."""

    def __init__(self, send):
        super(_DelegateMessages, self).__init__(None, None, None, None)
        self.inbox = collections.deque()
        self.send_message = send

    def read_message(self):
        return self.inbox.popleft()


class PystormBolt(object):
    """A pystorm ``Bolt`` class as a :class:`Coordinator`'s delegate (Storm's ``IRichBolt``;
    with pystorm's auto-ack, its ``BasicBoltExecutor``).

    The bolt is made without pipes; its own ``emit``, ``ack``, ``fail``, ``log`` and
    ``raise_exception`` run unchanged and what they send comes here: an emit goes out through
    the coordinated collector (its tasks counted, and handed back when the bolt asked for
    them), an ack or fail of an input counts towards its request, anything else (logs,
    errors, metrics) goes out as the coordinated component's own.  ``process`` runs as
    pystorm's loop runs it (``_current_tups`` for auto-anchoring, auto-ack after it,
    auto-fail before an exception leaves); a :class:`FailedException` fails the tuple, as
    Storm's ``BasicBoltExecutor`` does, and processing goes on."""

    def __init__(self, bolt_class):
        self.bolt_class = bolt_class
        self.bolt = bolt_class(input_stream=io.StringIO(), output_stream=io.StringIO(),
                               rdb_signal=None)
        self.messages = _DelegateMessages(self._received)
        self.bolt.serializer = self.messages
        self.pending = {}  # input tuple id -> pystorm Tuple, until acked or failed
        self.collector = None
        self.host = None
        if callable(getattr(bolt_class, "finished_id", None)):
            self.finished_id = self.bolt.finished_id
        if callable(getattr(bolt_class, "timeout_id", None)):
            self.timeout_id = self.bolt.timeout_id

    def prepare(self, conf, context, collector, host):
        """``host``: the coordinated component, whose set-up the bolt shares (no log handler
        of its own)."""
        self.collector = collector
        self.host = host
        bolt = self.bolt
        for name in ("topology_name", "task_id", "component_name", "debug", "storm_conf",
                     "context", "logger", "_source_tuple_types"):
            setattr(bolt, name, getattr(host, name))
        bolt.initialize(conf, context)

    def execute(self, tup):
        bolt = self.bolt
        self.pending[tup.id] = tup
        bolt._current_tups = [tup]
        try:
            bolt.process(tup)
            if bolt.auto_ack:
                bolt.ack(tup)
        except FailedException as e:
            if isinstance(e, ReportedFailedException):
                self.collector.report_error(e)
            bolt.fail(tup)
        except Exception:
            if bolt.auto_fail:
                bolt.fail(tup)
            raise
        finally:
            bolt._current_tups = []

    def process_tick(self, tup):
        """A tick the bolt asked for (its acks of it are not counted: the host acks it)."""
        bolt = self.bolt
        bolt._current_tups = [tup]
        try:
            bolt.process_tick(tup)
        finally:
            bolt._current_tups = []

    def _received(self, message):
        command = message.get("command")
        if command == "emit":
            values = message["tuple"]
            direct_task = message.get("task")
            tasks = self.collector.emit(list(values), message.get("stream"),
                                        message.get("anchors") or (), direct_task)
            if message.get("need_task_ids", True) and direct_task is None:
                self.messages.inbox.append(list(tasks))
        elif command in ("ack", "fail"):
            tup = self.pending.pop(message["id"], None)
            if tup is not None:  # (acked twice, or a tick: nothing to count)
                (self.collector.ack if command == "ack" else self.collector.fail)(tup)
        elif command != "sync":
            self.host.send_message(message)


# -- the components of the topology


def resolve_class(path):
    """The class ``module.Class`` names (imported)."""
    module_name, _, class_name = path.rpartition(".")
    return getattr(importlib.import_module(module_name), class_name)


def class_path(cls):
    """``module.Class`` of a module-level class.

    :raises ValueError: a class defined in a function or another class (no worker could
        import it)."""
    if cls.__qualname__ != cls.__name__:
        raise ValueError("%s (%s.%s) is not a module-level class: a worker imports the bolts "
                         "of a linear DRPC topology by module and name"
                         % (cls.__name__, cls.__module__, cls.__qualname__))
    return "%s.%s" % (cls.__module__, cls.__name__)


class CoordinatedBolt(Bolt):
    """Port of 1.2.4 ``coordination/CoordinatedBolt`` as the pystorm component of each
    ``bolt<i>`` of a linear DRPC topology: the bolt it wraps, its coordinating sources and id
    stream come from the topology conf's ``pynimbus.drpc.linear`` entry of its component id
    (see the module docstring); the rest is :class:`Coordinator`."""

    auto_ack = False
    auto_fail = False
    auto_anchor = False
    outputs = []

    def initialize(self, storm_conf, context):
        entry = (storm_conf.get(LINEAR_CONF) or {}).get(self.component_name)
        if entry is None:
            raise RuntimeError(
                "%s: the topology conf's %s has no entry for this component: a coordinated "
                "bolt runs in a topology made by LinearDRPCTopologyBuilder.create_topology"
                % (self.component_name, LINEAR_CONF))
        delegate_class = resolve_class(entry["bolt"])
        if entry.get("batch"):
            self.delegate = BatchBoltExecutor(delegate_class)
            self.ticks_to_delegate = False
        else:
            self.delegate = PystormBolt(delegate_class)
            self.exit_on_exception = self.delegate.bolt.exit_on_exception
            self.ticks_to_delegate = bool(entry.get("delegate_ticks"))
        task_to_component = {int(task): component for task, component
                             in (context.get("task->component") or {}).items()}
        tasks_of = collections.defaultdict(list)
        for task, component in sorted(task_to_component.items()):
            tasks_of[component].append(task)
        source_args = entry.get("source_args") or {}
        source_reports = None
        if source_args:
            source_reports = sum(1 if how == SINGLE else len(tasks_of[source])
                                 for source, how in source_args.items())
        targets = (context.get("stream->target->grouping") or {}).get(COORDINATED_STREAM_ID)
        count_out_tasks = [task for component in sorted(targets or {})
                           for task in tasks_of[component]]
        self.coordinator = Coordinator(
            self.delegate, _BoltCollector(self), source_reports, entry.get("id_stream"),
            count_out_tasks, int(storm_conf.get(TOPOLOGY_MESSAGE_TIMEOUT_SECS) or 30))
        if entry.get("batch"):
            self.delegate.prepare(storm_conf, context, self.coordinator.output_collector)
        else:
            self.delegate.prepare(storm_conf, context, self.coordinator.output_collector, self)

    def process(self, tup):
        self.coordinator.execute(tup)

    def process_tick(self, tup):
        try:
            self.coordinator.advance(tup.values[0])
            if self.ticks_to_delegate:
                self.delegate.process_tick(tup)
        finally:
            self.ack(tup)


class _BoltCollector(object):
    """A pystorm bolt's own emit, ack and fail, as :class:`Coordinator` calls them."""

    def __init__(self, bolt):
        self.bolt = bolt

    def emit(self, values, stream, anchors, direct_task=None):
        return self.bolt.emit(values, stream=stream, anchors=list(anchors),
                              direct_task=direct_task, need_task_ids=True)

    def ack(self, tup):
        self.bolt.ack(tup)

    def fail(self, tup):
        self.bolt.fail(tup)

    def report_error(self, error):
        self.bolt.raise_exception(error)


class PrepareRequest(Bolt):
    """Port of 1.2.4 ``drpc/PrepareRequest``: ``[args, return_info]`` in; a random 64-bit
    request id out with the args (``default``), the return info (``ret``) and alone (``id``),
    anchored and acked as a basic bolt's."""

    outputs = [Stream(["request", "args"], ARGS_STREAM),
               Stream(["request", "return_info"], RETURN_STREAM),
               Stream(["request"], ID_STREAM)]

    def initialize(self, storm_conf, context):
        seed = storm_conf.get(REQUEST_ID_SEED_CONF)
        self.rand = random.Random(None if seed is None else "%s/%s" % (seed, self.task_id))

    def process(self, tup):
        args, info = tup.values[0], tup.values[1]
        request_id = self.rand.getrandbits(64) - (1 << 63)  # Java's nextLong range
        self.emit([request_id, args], stream=ARGS_STREAM)
        self.emit([request_id, info], stream=RETURN_STREAM)
        self.emit([request_id], stream=ID_STREAM)


def java_string(value):
    """``"" + value`` in Java for what a bolt emits as a result (see the module docstring)."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


class JoinResult(Bolt):
    """Port of 1.2.4 ``drpc/JoinResult``: a request's result (from the last bolt) and its
    return info (from ``prepare-request``, :attr:`return_component`), whichever comes first
    held until the other, then ``[result, return_info]`` anchored to both, and both acked."""

    outputs = ["result", "return_info"]
    auto_ack = False
    auto_fail = False
    auto_anchor = False
    return_component = PREPARE_ID

    def initialize(self, storm_conf, context):
        self.returns = {}
        self.results = {}

    def process(self, tup):
        request_id = tup.values[0]
        if tup.component == self.return_component:
            self.returns[request_id] = tup
        else:
            self.results[request_id] = tup
        if request_id in self.returns and request_id in self.results:
            result = self.results.pop(request_id)
            returner = self.returns.pop(request_id)
            self.emit([java_string(result.values[1]), returner.values[1]],
                      anchors=[result, returner])
            self.ack(result)
            self.ack(returner)


# -- the builder


def _streams_of(outputs):
    """``{stream: [fields]}`` of a streamparse ``outputs`` list (as streamparse reads it)."""
    streams = collections.OrderedDict()
    for output in outputs or ():
        if isinstance(output, Stream):
            streams[output.name] = list(output.fields)
        elif isinstance(output, str):
            streams.setdefault("default", []).append(output)
        else:
            raise TypeError("outputs must be field names or Streams, not %r" % (output,))
    return streams


def _is_batch_bolt(cls):
    return isinstance(cls, type) and issubclass(cls, BaseBatchBolt)


class _Component(object):
    """``LinearDRPCTopologyBuilder.Component``."""

    def __init__(self, bolt_class, par):
        self.bolt_class = bolt_class
        self.par = par
        self.component_confs = []
        self.declarations = []  # (stream of the previous component, grouping)


class LinearDRPCInputDeclarer(object):
    """Port of 1.2.4 ``drpc/LinearDRPCInputDeclarer``: how a bolt reads the previous one
    (``prepare-request`` for the first); each method returns the declarer.  ``stream_id`` is
    the previous component's stream; ``fields`` a list of field names."""

    def __init__(self, component):
        self._component = component

    def _declare(self, stream_id, grouping):
        self._component.declarations.append((stream_id, grouping))
        return self

    def fields_grouping(self, fields, stream_id="default"):
        if isinstance(fields, str):
            fields = [fields]
        return self._declare(stream_id, Grouping.fields(list(fields)))

    def global_grouping(self, stream_id="default"):
        return self._declare(stream_id, Grouping.GLOBAL)

    def shuffle_grouping(self, stream_id="default"):
        return self._declare(stream_id, Grouping.SHUFFLE)

    def local_or_shuffle_grouping(self, stream_id="default"):
        return self._declare(stream_id, Grouping.LOCAL_OR_SHUFFLE)

    def none_grouping(self, stream_id="default"):
        return self._declare(stream_id, Grouping.NONE)

    def all_grouping(self, stream_id="default"):
        return self._declare(stream_id, Grouping.ALL)

    def direct_grouping(self, stream_id="default"):
        return self._declare(stream_id, Grouping.DIRECT)

    def custom_grouping(self, grouping, stream_id="default"):
        """``grouping``: a streamparse ``Grouping`` (``custom_object``/``custom_serialized``)."""
        return self._declare(stream_id, grouping)

    def add_configurations(self, conf):
        """Component conf of the coordinated component (over the bolt's own ``config``)."""
        self._component.component_confs.append(dict(conf))
        return self

    def add_configuration(self, key, value):
        return self.add_configurations({key: value})


class LinearDRPCTopologyBuilder(object):
    """Port of 1.2.4 ``drpc/LinearDRPCTopologyBuilder``: see the module docstring."""

    def __init__(self, function):
        self.function = function
        self.components = []

    def add_bolt(self, bolt, par=1):
        """Add a pystorm/streamparse ``Bolt`` class or a :class:`BaseBatchBolt` class with
        ``par`` tasks; returns its :class:`LinearDRPCInputDeclarer`."""
        pystorm_bolt = isinstance(bolt, type) and issubclass(bolt, Bolt)
        if not (pystorm_bolt or _is_batch_bolt(bolt)):
            raise TypeError("%r is neither a pystorm Bolt class nor a BaseBatchBolt class"
                            % (bolt,))
        class_path(bolt)
        component = _Component(bolt, 1 if par is None else par)
        self.components.append(component)
        return LinearDRPCInputDeclarer(component)

    def create_topology(self, name="LinearDRPCTopology", config=None):
        """The streamparse ``Topology`` class named ``name`` (``config``: more topology conf,
        over the builder's own entries)."""
        return self._create(name, dict(config or {}))

    def create_local_topology(self, drpc, name="LinearDRPCTopology", config=None):
        """The topology whose DRPC spout and return bolt use ``drpc`` (a
        :class:`pynimbus.testing.LocalDRPC`) in the test's process."""
        config = dict(config or {})
        config[LOCAL_DRPC_ID] = drpc.service_id
        return self._create(name, config)

    def _create(self, name, extra_config):
        if not self.components:
            raise ValueError("a linear DRPC topology needs at least one bolt")
        specs = collections.OrderedDict()
        linear = {}
        specs[SPOUT_ID] = ShellSpoutSpec(
            DRPCSpout, name=SPOUT_ID, command=SHELL_COMMAND, script=class_path(DRPCSpout),
            par=1, config={}, outputs=DRPCSpout.outputs)
        specs[PREPARE_ID] = ShellBoltSpec(
            PrepareRequest, name=PREPARE_ID, command=SHELL_COMMAND,
            script=class_path(PrepareRequest), par=1, config={},
            inputs={GlobalStreamId(SPOUT_ID, "default"): Grouping.NONE},
            outputs=PrepareRequest.outputs)
        last = len(self.components) - 1
        for i, component in enumerate(self.components):
            bolt_class = component.bolt_class
            batch = _is_batch_bolt(bolt_class)
            source_args = {}
            if i == 1:
                source_args[bolt_id(i - 1)] = SINGLE
            elif i >= 2:
                source_args[bolt_id(i - 1)] = ALL
            id_stream = None
            if i == last and (batch or callable(getattr(bolt_class, "finished_id", None))):
                id_stream = [PREPARE_ID, ID_STREAM]
            inputs = {}
            if id_stream is not None:
                inputs[GlobalStreamId(PREPARE_ID, ID_STREAM)] = Grouping.fields(["request"])
            if i == 0 and not component.declarations:
                inputs[GlobalStreamId(PREPARE_ID, ARGS_STREAM)] = Grouping.NONE
            else:
                previous = PREPARE_ID if i == 0 else bolt_id(i - 1)
                for stream_id, grouping in component.declarations:
                    inputs[GlobalStreamId(previous, stream_id)] = grouping
            if i > 0:
                inputs[GlobalStreamId(bolt_id(i - 1), COORDINATED_STREAM_ID)] = Grouping.DIRECT
            conf = dict(getattr(bolt_class, "config", None) or {})
            for more in component.component_confs:
                conf.update(more)
            delegate_ticks = conf.get(TOPOLOGY_TICK_TUPLE_FREQ_SECS) is not None
            if not delegate_ticks:
                conf[TOPOLOGY_TICK_TUPLE_FREQ_SECS] = TRACKING_TICK_SECS
            outputs = list(bolt_class.outputs or []) + [
                Stream(["id", "count"], COORDINATED_STREAM_ID, direct=True)]
            specs[bolt_id(i)] = ShellBoltSpec(
                CoordinatedBolt, name=bolt_id(i), command=SHELL_COMMAND,
                script=class_path(CoordinatedBolt), par=component.par, config=conf,
                inputs=inputs, outputs=outputs)
            linear[bolt_id(i)] = {
                "bolt": class_path(bolt_class), "batch": batch, "source_args": source_args,
                "id_stream": id_stream, "delegate_ticks": delegate_ticks and not batch}
        streams = _streams_of(self.components[-1].bolt_class.outputs)
        if len(streams) != 1:
            raise ValueError("the last bolt of a linear DRPC topology must declare one output "
                             "stream; %s declares %d" % (
                                 self.components[-1].bolt_class.__name__, len(streams)))
        output_stream, fields = next(iter(streams.items()))
        if len(fields) != 2:
            raise ValueError("the output stream of the last bolt of a linear DRPC topology "
                             "must have two fields, the request id and the result; %s's "
                             "has %s" % (self.components[-1].bolt_class.__name__, fields))
        join_id, return_id = bolt_id(last + 1), bolt_id(last + 2)
        specs[join_id] = ShellBoltSpec(
            JoinResult, name=join_id, command=SHELL_COMMAND, script=class_path(JoinResult),
            par=1, config={}, outputs=JoinResult.outputs, inputs={
                GlobalStreamId(bolt_id(last), output_stream): Grouping.fields([fields[0]]),
                GlobalStreamId(PREPARE_ID, RETURN_STREAM): Grouping.fields(["request"])})
        specs[return_id] = ShellBoltSpec(
            ReturnResults, name=return_id, command=SHELL_COMMAND,
            script=class_path(ReturnResults), par=1,
            config={TOPOLOGY_TICK_TUPLE_FREQ_SECS: TRACKING_TICK_SECS},  # (ReturnResults.spec's)
            inputs={GlobalStreamId(join_id, "default"): Grouping.NONE}, outputs=[])
        config = {FUNCTION_CONF: self.function, LINEAR_CONF: linear}
        config.update(extra_config)
        attrs = dict(specs)
        attrs["config"] = config
        attrs["__module__"] = __name__
        return type(Topology)(name, (Topology,), attrs)


__all__ = [
    "ALL", "ARGS_STREAM", "BaseBatchBolt", "BatchBoltExecutor", "BatchOutputCollector",
    "COORDINATED_STREAM_ID", "CoordinatedBolt", "CoordinatedOutputCollector", "Coordinator",
    "FailedException", "ID_STREAM", "IllegalStateError", "JoinResult", "LINEAR_CONF",
    "LinearDRPCInputDeclarer", "LinearDRPCTopologyBuilder", "PREPARE_ID", "PrepareRequest",
    "PystormBolt", "REQUEST_ID_SEED_CONF", "RETURN_STREAM", "ReportedFailedException",
    "SINGLE", "SPOUT_ID", "TimeCacheMap", "TrackingInfo", "bolt_id",
]
