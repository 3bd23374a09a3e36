# -*- test-case-name: tests.test_worker_eventlogger -*-
"""The event logger and ``topology.debug`` of a Python worker.

Three parts, as in Storm 1.2.4:

* the *sampling* of emits (executor.clj ``send-to-eventlogger``): while the storm base's
  ``component->debug`` enables debugging of the topology (its key is the storm id) or of a
  component (its key is the component id, which wins), each emit of that component's
  executors is sent, with probability ``samplingpct``/100, as ``[component-id, message-id,
  ts, values]`` on stream ``__eventlog`` to an ``__eventlogger`` task;
* the ``__eventlogger`` bolt (``EventLoggerBolt``): each event goes to the Python loggers of
  ``topology.event.logger.register`` (:mod:`pynimbus.common.event_logger`) or, with none,
  ``FileBasedEventLogger``'s: a line of ``events.log`` in the worker's artifacts directory,
  ``IEventLogger.EventInfo.toString``'s ``<Date.toString of ts>,<source component>,<source
  task>,<message id or nothing>,<values as a Java list>``, flushed once a second when
  something was written;
* ``topology.debug: true``: task.clj's ``Emitting: <component> <stream> <values>`` (and
  ``Emitting direct: <task>; ...``), executor.clj's ``BOLT ack TASK: ...``, ``BOLT fail
  TASK: ...``, ``SPOUT Acking message ...`` and ``SPOUT Failing ...`` lines in the worker log
  (deliberate differences: the spout's lines name its task where Storm prints the tree's root
  id, and a tuple prints without its sample start times; no ``TRANSFERING tuple`` line per
  out task, nor ``Processing received message`` per input, which would cost the hot path a
  check per tuple more).

Both watches reach the executor as one attribute, its ``watch``: None (the hot path's only
cost then is that check) or a :class:`TupleWatch`, which the worker sets from the conf at start
and from the storm base at each refresh.
"""

import logging
import os
import random
import time

from twisted.internet import task

from pynimbus.clojure_port.java_json import java_str
from pynimbus.clojure_port.system_topology import EVENTLOGGER_STREAM_ID
from pynimbus.common.event_logger import EventInfo
from pynimbus.worker.executor import Executor
from pynimbus.worker.user_classes import RegisteredClassError, load_registered_class

log = logging.getLogger(__name__)

EVENTS_LOG = "events.log"
TOPOLOGY_EVENT_LOGGER_REGISTER = "topology.event.logger.register"
FILE_BASED_EVENT_LOGGER = "org.apache.storm.metric.FileBasedEventLogger"
FLUSH_INTERVAL_SECS = 1.0  # FileBasedEventLogger.FLUSH_INTERVAL_MILLIS
TOPOLOGY_DEBUG = "topology.debug"


# -- the sampling

def debug_sampling_pct(component_to_debug, storm_id, component_id):
    """The percentage of ``component_id``'s emits to sample under the storm base's
    ``component_debug`` (``{component id or storm id: DebugOptions}``): the component's own
    options, else the topology's; 0 when they are absent or not enabled (``send-to-eventlogger``
    reads them the same way)."""
    options = (component_to_debug or {}).get(component_id)
    if options is None:
        options = (component_to_debug or {}).get(storm_id)
    if options is None or not options.enable:
        return 0.0
    return float(options.samplingpct or 0)


class EventSampler(object):
    """``send-to-eventlogger``'s test: an emit is sent when ``100 * random() < pct``."""

    __slots__ = ("pct", "_random")

    def __init__(self, pct, rng=None):
        self.pct = pct
        self._random = (rng or random.Random()).random

    def __call__(self):
        return 100 * self._random() < self.pct


# -- the lines

def java_text(value):
    """``String.valueOf`` of a tuple value as a Java worker would hold it: a ``List`` as
    ``[a, b]``, a ``Map`` as ``{k=v, ...}``, a scalar as :func:`java_str` prints it (``null``,
    ``true``, a ``Double``, a ``Long``)."""
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(java_text(v) for v in value) + "]"
    if isinstance(value, dict):
        return "{" + ", ".join("%s=%s" % (java_text(k), java_text(v))
                               for k, v in value.items()) + "}"
    return java_str(value, "1.x")


def java_date(ts_ms):
    """``new Date(ts).toString()``: ``EEE MMM dd HH:mm:ss zzz yyyy`` in the local time zone."""
    return time.strftime("%a %b %d %H:%M:%S %Z %Y", time.localtime(ts_ms / 1000.0))


def event_line(ts_ms, component_id, task_id, message_id, values):
    """``IEventLogger.EventInfo.toString``: one line of ``events.log`` (without its newline)."""
    return "%s,%s,%d,%s,%s" % (java_date(ts_ms), component_id, task_id,
                               "" if message_id is None else java_text(message_id),
                               java_text(values))


# -- the __eventlogger bolt

class ThreadedBatches(object):
    """Items gathered on the reactor and handed to ``hand_over(batch)`` in a thread
    (``run_blocking``) once a second when some came, one batch at a time, and only once
    ``ready()``; a failed batch goes to ``on_error(failure)``.  ``stop`` returns what was
    not handed over."""

    def __init__(self, reactor, run_blocking, hand_over, ready, on_error):
        self.reactor = reactor
        self.run_blocking = run_blocking
        self.hand_over = hand_over
        self.ready = ready
        self.on_error = on_error
        self.items = []
        self._handing = None
        self._loop = None

    def start(self):
        self._loop = task.LoopingCall(self.flush)
        self._loop.clock = self.reactor
        self._loop.start(FLUSH_INTERVAL_SECS, now=False)

    def add(self, item):
        self.items.append(item)

    def flush(self):
        """Hand over what came since the last batch (nothing: nothing to do)."""
        if not self.items or not self.ready() or self._handing is not None:
            return self._handing
        batch, self.items = self.items, []
        self._handing = self.run_blocking(self.hand_over, batch)

        def handed(result):
            self._handing = None
            return result
        self._handing.addBoth(handed).addErrback(self.on_error)
        return self._handing

    def stop(self):
        if self._loop is not None and self._loop.running:
            self._loop.stop()
        rest, self.items = self.items, []
        return rest


class EventLogFile(object):
    """``FileBasedEventLogger``: lines appended to ``path`` (its directory made), written and
    flushed once a second when some came (``dirty``), in a thread; the rest on ``close``."""

    def __init__(self, path, reactor, run_blocking):
        self.path = path
        self._file = None
        self.run_blocking = run_blocking
        self.batches = ThreadedBatches(
            reactor, run_blocking, self._write, lambda: self._file is not None,
            lambda f: log.error("Error flushing %s: %s", self.path, f.getErrorMessage()))

    def open(self):
        """Open the file (in a thread); a Deferred.  Lines logged before it opens wait."""
        log.info("Event log path %s", self.path)
        d = self.run_blocking(self._open_file)
        self.batches.start()
        return d

    def _open_file(self):
        os.makedirs(os.path.dirname(self.path), exist_ok=True)
        self._file = open(self.path, "a", encoding="utf-8")

    def log(self, line):
        self.batches.add(line)

    def _write(self, lines):
        self._file.write("".join(line + "\n" for line in lines))
        self._file.flush()

    def close(self):
        """Stop the flush timer, write what is left and close (blocking: the worker stops)."""
        rest = self.batches.stop()
        if self._file is not None:
            if rest:
                self._write(rest)
            self._file.close()
            self._file = None


class FileEventLogger(object):
    """``FileBasedEventLogger``: each event a line of ``events.log`` (:func:`event_line`)."""

    def __init__(self, path, reactor, run_blocking):
        self.events = EventLogFile(path, reactor, run_blocking)

    def open(self):
        """A Deferred failing with what to report when the file cannot be written."""
        return self.events.open().addErrback(self._not_opened)

    def _not_opened(self, failure):
        raise OSError("the event log %s cannot be written: %s" % (self.events.path,
                                                                  failure.getErrorMessage()))

    def log_to(self, _task_id, info):
        self.events.log(event_line(*info))

    def close(self):
        self.events.close()


class RegisteredEventLogger(object):
    """A Python class of ``topology.event.logger.register``
    (:class:`pynimbus.common.event_logger.IEventLogger`): one instance per task, loaded and
    prepared in a thread; the events wait and are handed to their task's instance in a
    thread, a second's at a time, one batch at a time.

    :param registration: the entry (``class``, ``arguments``).
    :param context: what ``prepare`` gets as the context, its ``task_id`` set per task (or
        None).
    """

    def __init__(self, registration, task_ids, storm_conf, context, reactor, run_blocking,
                 resources_dir):
        self.class_name = registration.get("class")
        self.arguments = registration.get("arguments")
        self.task_ids = task_ids
        self.storm_conf = storm_conf
        self.context = context
        self.run_blocking = run_blocking
        self.resources_dir = resources_dir
        self.loggers = None  # {task id: its prepared instance}
        self.failed = False
        # (task id, EventInfo) not handed over yet
        self.batches = ThreadedBatches(
            reactor, run_blocking, self._hand_over, lambda: self.loggers is not None,
            lambda f: log.error("event logger %s: %s", self.class_name, f.getTraceback()))

    def open(self):
        """Load and prepare (in a thread); a Deferred failing with what to report."""
        self.batches.start()
        return self.run_blocking(self._prepare_all).addCallbacks(self._prepared, self._failed)

    def _prepare_all(self):
        logger_class = load_registered_class(
            self.class_name, self.resources_dir, "log", "the event logger",
            "register a Python class, module.Class, importable from the topology's resources "
            "(a subclass of pynimbus.common.event_logger.IEventLogger), or %s"
            % FILE_BASED_EVENT_LOGGER)
        loggers = {}
        for task_id in self.task_ids:
            logger = logger_class()
            logger.prepare(self.storm_conf, self.arguments,
                           self.context._replace(task_id=task_id)
                           if self.context is not None else None)
            loggers[task_id] = logger
        return loggers

    def _prepared(self, loggers):
        self.loggers = loggers

    def _failed(self, failure):
        self.failed = True
        self.batches.stop()  # its events are dropped
        error = failure.value
        if isinstance(error, RegisteredClassError):
            return failure
        raise RegisteredClassError("the event logger %s failed to prepare: %s: %s" % (
            self.class_name, type(error).__name__, error))

    def log_to(self, task_id, info):
        if not self.failed:
            self.batches.add((task_id, info))

    def _hand_over(self, batch):
        for task_id, info in batch:
            self.loggers[task_id].log(info)

    def close(self):
        """Stop the timer, hand over what waits and close each instance (blocking: the
        worker stops)."""
        rest = self.batches.stop()
        if self.loggers is None:
            return
        try:
            self._hand_over(rest)
        finally:
            for logger in self.loggers.values():
                logger.close()


class EventLoggerExecutor(Executor):
    """The ``__eventlogger`` bolt (``EventLoggerBolt``): each ``__eventlog`` tuple becomes an
    ``EventInfo`` naming the tuple's source component and task, given to the loggers of
    ``topology.event.logger.register`` or, with none, written as a line of
    ``<artifacts dir>/events.log`` (``FileBasedEventLogger``).  A registration that does not
    load is reported as the component's error; the other loggers go on."""

    def __init__(self, context, component_id, task_ids, groupers, component_conf, stats,
                 events_path, run_blocking, logger_context=None):
        super().__init__(context, component_id, task_ids, groupers, component_conf, stats)
        registrations = [r if isinstance(r, dict) else {} for r in
                         context.storm_conf.get(TOPOLOGY_EVENT_LOGGER_REGISTER) or []]
        python_ones = [r for r in registrations if r.get("class") != FILE_BASED_EVENT_LOGGER]
        self.loggers = [RegisteredEventLogger(r, task_ids, context.storm_conf, logger_context,
                                              context.reactor, run_blocking,
                                              context.resources_dir) for r in python_ones]
        if len(python_ones) < len(registrations) or not registrations:
            self.loggers.insert(0, FileEventLogger(events_path, context.reactor, run_blocking))

    def start(self):
        super().start()
        for logger in self.loggers:
            logger.open().addErrback(lambda f: self.report_error(f.getErrorMessage()))

    def accept(self, task_id, tuple_):
        if tuple_.stream != EVENTLOGGER_STREAM_ID:
            return
        try:
            _component_id, message_id, ts_ms, values = tuple_.values
            info = EventInfo(int(ts_ms), tuple_.source_component, tuple_.source_task,
                             message_id, list(values))
            for logger in self.loggers:
                logger.log_to(task_id, info)
        except (TypeError, ValueError) as e:
            log.warning("event logger %d: dropped a malformed event: %s", task_id, e)

    def stop(self):
        super().stop()
        for logger in self.loggers:
            try:
                logger.close()
            except Exception:
                log.exception("event logger %s did not close", type(logger).__name__)
        return None


# -- the watch on an executor's emits, acks and fails

class TupleWatch(object):
    """What an executor does besides routing when it emits, acks or fails: logs the tuple
    (``topology.debug``) and samples emits for the event logger (``sampler``, or None).

    ``now_ms()`` stamps events."""

    __slots__ = ("component_id", "log_tuples", "sampler", "now_ms")

    def __init__(self, component_id, log_tuples, sampler, now_ms):
        self.component_id = component_id
        self.log_tuples = log_tuples
        self.sampler = sampler
        self.now_ms = now_ms

    def emitted(self, executor, task_id, stream, values, message_id, direct_task):
        """One emit of ``task_id`` routed (task.clj's debug line, then
        ``send-to-eventlogger``)."""
        if self.log_tuples:
            if direct_task is None:
                log.info("Emitting: %s %s %s", self.component_id, stream, java_text(values))
            else:
                log.info("Emitting direct: %s; %s %s %s", direct_task, self.component_id,
                         stream, java_text(values))
        sampler = self.sampler
        if sampler is not None and sampler():
            executor.emit(task_id, EVENTLOGGER_STREAM_ID,
                          [self.component_id, message_id, self.now_ms(), values])

    def bolt_acked(self, task_id, tuple_, delta_ms):
        if self.log_tuples:
            log.info("BOLT ack TASK: %s TIME: %s TUPLE: %s", task_id, delta_ms,
                     tuple_text(tuple_))

    def bolt_failed(self, task_id, tuple_, delta_ms):
        if self.log_tuples:
            log.info("BOLT fail TASK: %s TIME: %s TUPLE: %s", task_id, delta_ms,
                     tuple_text(tuple_))

    def spout_called_back(self, callback, acked):
        if self.log_tuples:
            if acked:
                log.info("SPOUT Acking message %s %s", callback.task_id,
                         java_text(callback.message_id))
            else:
                log.info("SPOUT Failing %s: %s REASON: %s MSG-ID: %s", callback.task_id,
                         callback.stream, callback.reason, java_text(callback.message_id))


def tuple_text(tuple_):
    """``TupleImpl.toString`` (without its sample start times): source, stream, id, values."""
    anchors = getattr(tuple_.message_id, "anchors_to_ids", None) or {}
    return "source: %s:%s, stream: %s, id: %s, %s" % (
        tuple_.source_component, tuple_.source_task, tuple_.stream, java_text(anchors),
        java_text(tuple_.values))


def tuple_watch(component_id, storm_conf, sampling_pct, now_ms, rng=None):
    """The watch of an executor of ``component_id``: None when ``topology.debug`` is off and
    ``sampling_pct`` is 0 (nothing to do)."""
    log_tuples = storm_conf.get(TOPOLOGY_DEBUG) is True
    sampler = EventSampler(sampling_pct, rng) if sampling_pct > 0 else None
    if not log_tuples and sampler is None:
        return None
    return TupleWatch(component_id, log_tuples, sampler, now_ms)
