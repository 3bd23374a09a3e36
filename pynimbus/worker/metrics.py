# -*- test-case-name: tests.test_worker_metrics -*-
"""Built-in metrics and metrics consumers in a Python worker.

Ports of Storm 1.2.4:

* ``daemon/builtin_metrics.clj`` (``make-data``, ``register-all``, ``register-queue-metrics``)
  and the metric side of ``MultiCountStatAndMetric``/``MultiLatencyStatAndMetric``:
  :class:`BuiltinMetrics` reads an executor's statistics (:mod:`pynimbus.worker.stats`) as
  counts and mean latencies *since the last read*, by stream (spouts) or by
  ``component:stream`` of the input (bolts), without touching the hot path: it keeps the
  totals it saw last.  A spout's ``__skipped-max-spout``, ``__skipped-throttle`` and
  ``__skipped-inactive`` count the times its loop asked for no tuple for that reason
  (adding the stats' rate each time, as upstream); the loop here is driven by events, not a
  spin with a wait strategy, so they grow much more slowly than a Java spout's;
* ``metric/SystemBolt.java``: :class:`WorkerMetrics`, the worker-level metrics its
  ``__system`` task (-1) sends;
* executor.clj ``setup-metrics!`` and ``metrics-tick``: :class:`MetricsTicker` sends, every
  ``topology.builtin.metrics.bucket.size.secs``, each task's ``[task-info, data-points]`` on
  stream ``__metrics`` to the consumer tasks.  Deliberate difference: the tick calls the
  executors from the reactor instead of through their receive queues (one thread here: the
  order is the same);
* ``metric/MetricsConsumerBolt.java`` with ``FilterByMetricName`` and ``DataPointExpander``:
  :class:`MetricsConsumerExecutor` runs a registered Python class
  (:class:`pynimbus.common.metrics_consumer.IMetricsConsumer`) in a thread, keeping at most
  ``max.retain.metric.tuples`` batches waiting (the oldest dropped);
* ``metric/LoggingMetricsConsumer.java``: :class:`LoggingMetricsConsumer`, which
  ``org.apache.storm.metric.LoggingMetricsConsumer`` maps to, writes Storm's lines to
  ``worker.log.metrics`` in the worker's artifacts directory, with log4j2 ``worker.xml``'s
  METRICS layout ``%d %-8r %m%n``.

On the wire a task-info is the list ``[host, port, component id, task id, timestamp secs,
interval secs]`` and the data points a list of ``[name, value]`` (msgpack carries no Java
objects); consumers get them back as ``TaskInfo`` and ``DataPoint``.
"""

import collections
import datetime
import gc
import logging
import os
import re
import resource
import sys

from twisted.internet import task

from pynimbus.clojure_port.system_topology import METRICS_STREAM_ID
from pynimbus.common.metrics_consumer import DataPoint, IMetricsConsumer, TaskInfo
from pynimbus.worker.event_logger import java_text
from pynimbus.worker.executor import Executor, receive_buffer_size
from pynimbus.worker.user_classes import RegisteredClassError, load_registered_class

log = logging.getLogger(__name__)

TOPOLOGY_BUILTIN_METRICS_BUCKET_SIZE_SECS = "topology.builtin.metrics.bucket.size.secs"
DEFAULT_BUCKET_SIZE_SECS = 60
TOPOLOGY_EXECUTOR_SEND_BUFFER_SIZE = "topology.executor.send.buffer.size"
DEFAULT_SEND_BUFFER_SIZE = 1024  # 1.2.4 defaults.yaml
DEFAULT_MAX_RETAIN_METRIC_TUPLES = 100  # common.clj metrics-consumer-bolt-specs
JAVA_LOGGING_METRICS_CONSUMER = "org.apache.storm.metric.LoggingMetricsConsumer"
METRICS_LOG = "worker.log.metrics"  # log4j2/worker.xml: ${logfile.name}.metrics


def bucket_size_secs(storm_conf):
    return int(storm_conf.get(TOPOLOGY_BUILTIN_METRICS_BUCKET_SIZE_SECS)
               or DEFAULT_BUCKET_SIZE_SECS)


# -- built-in metrics of an executor

def _key_text(key):
    """``keyToString``: a bolt's ``(component, stream)`` as ``component:stream``."""
    return "%s:%s" % key if isinstance(key, tuple) else str(key)


class _SinceLastRead(object):
    """``getValueAndReset`` of a ``Multi*StatAndMetric`` over ``{key: stat}``: each key's
    ``since(totals now, totals at the previous read)``, ``totals(stat)`` what the stat holds
    in all (rotated or not)."""

    def __init__(self, key_to_stat, totals, since):
        self.key_to_stat = key_to_stat
        self.totals = totals
        self.since = since
        self.last = {}

    def value_and_reset(self):
        ret = {}
        for key, stat in list(self.key_to_stat.items()):
            now = self.totals(stat)
            ret[_key_text(key)] = self.since(now, self.last.get(key, (0, 0)))
            self.last[key] = now
        return ret


def _count_totals(stat):
    return (stat.all_time + stat.current, 0)


def _count_since(now, last):
    """``MultiCountStatAndMetric``: the count since the previous read."""
    return now[0] - last[0]


def _latency_totals(stat):
    return (stat.all_time_lat + stat.current_lat, stat.all_time_count + stat.current_count)


def _latency_since(now, last):
    """``MultiLatencyStatAndMetric``: the mean latency (ms, a float) of the events since the
    previous read, 0.0 when none (``zeroIfNaNOrInf``)."""
    count = now[1] - last[1]
    return float(now[0] - last[0]) / count if count > 0 else 0.0


def _counts_since_last_read(key_to_stat):
    return _SinceLastRead(key_to_stat, _count_totals, _count_since)


def _latencies_since_last_read(key_to_stat):
    return _SinceLastRead(key_to_stat, _latency_totals, _latency_since)


class QueueMetric(object):
    """``StateMetric`` of a queue (DisruptorQueue's state, the keys a Python queue has):
    capacity, population and tuple population."""

    def __init__(self, capacity, population):
        self.capacity = capacity
        self.population = population

    def value_and_reset(self):
        population = self.population()
        return {"capacity": self.capacity, "population": population,
                "tuple_population": population}


class _SkippedSinceLastRead(object):
    """A spout throttling ``CountMetric`` (``__skipped-*``): how much the executor's counter
    ``attribute`` grew since the previous read."""

    def __init__(self, executor, attribute):
        self.executor = executor
        self.attribute = attribute
        self.last = 0

    def value_and_reset(self):
        now = getattr(self.executor, self.attribute)
        ret, self.last = now - self.last, now
        return ret


def _spout_stat_maps(stats):
    return [("__ack-count", _counts_since_last_read(stats.acked_counts)),
            ("__complete-latency", _latencies_since_last_read(stats.complete_latencies)),
            ("__fail-count", _counts_since_last_read(stats.failed_counts)),
            ("__emit-count", _counts_since_last_read(stats.emitted_counts)),
            ("__transfer-count", _counts_since_last_read(stats.transferred_counts))]


def _bolt_stat_maps(stats):
    return [("__ack-count", _counts_since_last_read(stats.acked_counts)),
            ("__process-latency", _latencies_since_last_read(stats.process_latencies)),
            ("__fail-count", _counts_since_last_read(stats.failed_counts)),
            ("__execute-count", _counts_since_last_read(stats.executed_counts)),
            ("__execute-latency", _latencies_since_last_read(stats.execute_latencies)),
            ("__emit-count", _counts_since_last_read(stats.emitted_counts)),
            ("__transfer-count", _counts_since_last_read(stats.transferred_counts))]


class BuiltinMetrics(object):
    """builtin_metrics.clj ``make-data`` and ``register-all`` of one executor, plus its queue
    metrics (``__sendqueue``, ``__receive``): ``{name: metric}`` in registration order.

    An executor's tasks share its statistics, as in Storm: the first task read after an event
    gets it, the others a zero."""

    def __init__(self, executor, send_buffer_size):
        stats = executor.stats
        pairs = (_spout_stat_maps(stats) if executor.is_spout else _bolt_stat_maps(stats))
        if executor.is_spout and hasattr(executor, "skipped_inactive"):
            pairs.extend(("__" + attribute.replace("_", "-"),
                          _SkippedSinceLastRead(executor, attribute))
                         for attribute in ("skipped_max_spout", "skipped_throttle",
                                           "skipped_inactive"))
        queue = executor.queue
        # emits route at once: nothing ever waits in a send queue here
        pairs.append(("__sendqueue", QueueMetric(send_buffer_size, lambda: 0)))
        pairs.append(("__receive", QueueMetric(
            receive_buffer_size(executor.context.storm_conf), lambda: len(queue.items))))
        self.metrics = collections.OrderedDict(pairs)

    def data_points(self):
        """``[[name, value], ...]`` of every metric read now (``metrics-tick``)."""
        return [[name, metric.value_and_reset()] for name, metric in self.metrics.items()]


# -- the worker's own metrics (SystemBolt)

def rss_bytes():
    """The worker's resident set size now (``/proc/self/statm``), or its peak where there is
    no procfs."""
    try:
        with open("/proc/self/statm") as f:
            return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
    except (OSError, ValueError, IndexError):
        peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        return peak if sys.platform == "darwin" else peak * 1024


def memory_limit_bytes():
    """The address-space limit (``RLIMIT_AS``), -1 when unlimited (Java's undefined max)."""
    soft, _hard = resource.getrlimit(resource.RLIMIT_AS)
    return -1 if soft == resource.RLIM_INFINITY else soft


class WorkerMetrics(object):
    """``SystemBolt``'s metrics, with the closest figures a Python process has:

    * ``uptimeSecs``, ``startTimeSecs`` (floats, as ``RuntimeMXBean``'s ms / 1000.0), and
      ``newWorkerEvent`` (1 once, then 0);
    * ``memory/heap``: the process's resident set stands for the heap (``usedBytes`` and
      ``committedBytes`` the RSS now, ``initBytes`` the RSS at the worker's start,
      ``maxBytes`` the address-space limit or -1); no ``memory/nonHeap`` (CPython has no
      such split);
    * ``GC/gen0``, ``GC/gen1``, ``GC/gen2``: collections of each of CPython's generations
      since the previous read (``count``; no ``timeMs``, which CPython does not keep), None
      at the first read, as ``GarbageCollectorMetric``.
    """

    def __init__(self, start_secs, clock, rss=rss_bytes):
        self.start_secs = start_secs
        self.clock = clock
        self.rss = rss
        self.init_rss = rss()
        self.new_worker_event = True
        self.last_collections = None

    def data_points(self):
        points = [["uptimeSecs", float(self.clock() - self.start_secs)],
                  ["startTimeSecs", float(self.start_secs)],
                  ["newWorkerEvent", 1 if self.new_worker_event else 0],
                  ["memory/heap", self._memory()]]
        self.new_worker_event = False
        collections_now = [generation["collections"] for generation in gc.get_stats()]
        if self.last_collections is not None:
            for generation, (now, last) in enumerate(zip(collections_now,
                                                         self.last_collections)):
                points.append(["GC/gen%d" % generation, {"count": now - last}])
        self.last_collections = collections_now
        return points

    def _memory(self):
        used = self.rss()
        most = memory_limit_bytes()
        return {"maxBytes": most, "committedBytes": used, "initBytes": self.init_rss,
                "usedBytes": used, "virtualFreeBytes": most - used, "unusedBytes": 0}


# -- the tick

class MetricsTicker(object):
    """executor.clj ``setup-metrics!`` and ``metrics-tick`` for a worker's executors: every
    ``interval_secs``, each task of each executor sends its data points (when it has some)
    on ``__metrics``; the ``__system`` executor's task -1 sends the worker's too.

    ``executor_to_metrics``: ``[(executor, [metrics objects with data_points()])]``."""

    def __init__(self, reactor, executor_to_metrics, interval_secs, host, port, clock):
        self.reactor = reactor
        self.executor_to_metrics = executor_to_metrics
        self.interval_secs = interval_secs
        self.host = host
        self.port = port
        self.clock = clock
        self._loop = None

    def start(self):
        self._loop = task.LoopingCall(self.tick)
        self._loop.clock = self.reactor
        self._loop.start(self.interval_secs, now=False)

    def stop(self):
        if self._loop is not None and self._loop.running:
            self._loop.stop()

    def tick(self):
        now = int(self.clock())
        for executor, metrics in self.executor_to_metrics:
            for task_id in executor.task_ids:
                points = [point for metric in metrics for point in metric.data_points()
                          if point[1] is not None]
                if not points:
                    continue
                task_info = [self.host, self.port, executor.component_id, task_id, now,
                             self.interval_secs]
                try:
                    executor.emit(task_id, METRICS_STREAM_ID, [task_info, points])
                except Exception as e:  # a grouping error is the component's, not the tick's
                    log.warning("metrics of task %d not sent: %s", task_id, e)


# -- consumers

class MetricsRegistrationError(Exception):
    """A ``topology.metrics.consumer.register`` entry a Python worker cannot run."""


def expand_data_points(data_points, separator):
    """``DataPointExpander`` with ``expandMapType``: a map value becomes one data point per
    key, ``<name><separator><key>``; a None value is dropped."""
    ret = []
    for point in data_points:
        if point.value is None:
            log.warning("Data point with name %s is null. Discarding.", point.name)
        elif isinstance(point.value, dict):
            ret.extend(DataPoint("%s%s%s" % (point.name, separator, java_text(key)), value)
                       for key, value in point.value.items())
        else:
            ret.append(point)
    return ret


def metric_name_filter(whitelist, blacklist):
    """``FilterByMetricName``: a predicate on a metric's name (``re.search``, as Java's
    ``Matcher.find``), or None when neither list is given.

    :raises MetricsRegistrationError: both are given, or a pattern does not compile."""
    if whitelist and blacklist:
        raise MetricsRegistrationError(
            "give a whitelist or a blacklist of metric names, not both")
    patterns, keep_when_matched = (whitelist, True) if whitelist else (blacklist, False)
    if not patterns:
        return None
    try:
        compiled = [re.compile(p) for p in patterns]
    except (re.error, TypeError) as e:
        raise MetricsRegistrationError("a metric name pattern does not compile: %s" % e)
    cache = {}

    def keep(name):
        kept = cache.get(name)
        if kept is None:
            matched = any(p.search(name) for p in compiled)
            kept = cache[name] = matched if keep_when_matched else not matched
        return kept
    return keep


def load_consumer_class(class_name, resources_dir):
    """The Python class a registration's ``class`` names: ours for Storm's
    ``LoggingMetricsConsumer``, else ``module.Class`` imported with the topology's resources
    first on ``sys.path``.  Blocking (imports user code).

    :raises MetricsRegistrationError: it does not name an importable class."""
    if class_name == JAVA_LOGGING_METRICS_CONSUMER:
        return LoggingMetricsConsumer
    advice = ("register a Python class, module.Class, importable from the topology's "
              "resources (a subclass of pynimbus.common.metrics_consumer.IMetricsConsumer), "
              "or %s" % JAVA_LOGGING_METRICS_CONSUMER)
    try:
        return load_registered_class(class_name, resources_dir, "handle_data_points",
                                     "the metrics consumer", advice)
    except RegisteredClassError as e:
        raise MetricsRegistrationError(str(e))


ConsumerContext = collections.namedtuple(
    "ConsumerContext", "storm_id component_id task_id worker_port artifacts_dir "
    "worker_start_secs")
ConsumerContext.__doc__ = """What a consumer's ``prepare`` gets as its context."""


class MetricsConsumerExecutor(Executor):
    """A ``__metrics<class>`` bolt (``MetricsConsumerBolt``): one consumer per task, prepared
    and fed in a thread (``run_blocking``), one batch at a time; at most
    ``max.retain.metric.tuples`` batches wait, the oldest dropped.  A registration that does
    not load is reported as the component's error and its tuples are dropped: the worker runs
    on."""

    def __init__(self, context, component_id, task_ids, groupers, component_conf, stats,
                 registration, consumer_context, run_blocking):
        super().__init__(context, component_id, task_ids, groupers, component_conf, stats)
        self.registration = registration or {}
        self.consumer_context = consumer_context
        self.run_blocking = run_blocking
        retain = self.registration.get("max.retain.metric.tuples",
                                       DEFAULT_MAX_RETAIN_METRIC_TUPLES)
        self.waiting = collections.deque(maxlen=retain if retain and retain > 0 else None)
        self.consumers = {}  # task id -> its prepared consumer
        self.keep = None
        self.expand = bool(self.registration.get("expandMapType"))
        self.separator = str(self.registration.get("metricNameSeparator") or ".")
        self.failed = False
        self._busy = False

    def start(self):
        super().start()
        try:
            self.keep = metric_name_filter(self.registration.get("whitelist"),
                                           self.registration.get("blacklist"))
        except MetricsRegistrationError as e:
            self._fail(str(e))
            return
        self._busy = True
        self.run_blocking(self._prepare_all).addCallbacks(self._prepared, self._not_loaded)

    def _prepare_all(self):
        """Load the class and prepare one consumer per task.  Blocking."""
        consumer_class = load_consumer_class(self.registration.get("class"),
                                             self.context.resources_dir)
        consumers = {}
        for task_id in self.task_ids:
            consumer = consumer_class()
            consumer.prepare(self.context.storm_conf, self.registration.get("argument"),
                             self.consumer_context._replace(task_id=task_id),
                             self.report_error_from_thread)
            consumers[task_id] = consumer
        return consumers

    def report_error_from_thread(self, text):
        self.context.reactor.callFromThread(self.report_error, str(text))

    def _prepared(self, consumers):
        self.consumers = consumers
        self._busy = False
        self._pump()

    def _not_loaded(self, failure):
        self._busy = False
        error = failure.value
        text = (str(error) if isinstance(error, MetricsRegistrationError) else
                "the metrics consumer %s failed to prepare: %s: %s" % (
                    self.registration.get("class"), type(error).__name__, error))
        self._fail(text)

    def _fail(self, text):
        self.failed = True
        self.waiting.clear()
        self.report_error(text)

    def accept(self, task_id, tuple_):
        if self.failed or tuple_.stream != METRICS_STREAM_ID:
            return
        try:
            task_info = TaskInfo(*tuple_.values[0])
            points = [DataPoint(*point) for point in tuple_.values[1]]
        except (TypeError, ValueError, IndexError) as e:
            log.warning("metrics consumer %s: dropped a malformed tuple: %s",
                        self.component_id, e)
            return
        if self.expand:
            points = expand_data_points(points, self.separator)
        if self.keep is not None:
            points = [point for point in points if self.keep(point.name)]
        self.waiting.append((task_id, task_info, points))
        self._pump()

    def _pump(self):
        if self._busy or not self.waiting or not self.consumers:
            return
        task_id, task_info, points = self.waiting.popleft()
        self._busy = True
        consumer = self.consumers[task_id]
        d = self.run_blocking(consumer.handle_data_points, task_info, points)
        d.addErrback(lambda f: log.error("Exception occurred during handle metrics: %s",
                                         f.getTraceback()))
        d.addBoth(self._handled)

    def _handled(self, _result):
        self._busy = False
        self._pump()

    def stop(self):
        super().stop()
        for consumer in self.consumers.values():
            try:
                consumer.cleanup()
            except Exception as e:
                log.warning("metrics consumer %s: cleanup failed: %s", self.component_id, e)
        self.consumers = {}
        return None


class LoggingMetricsConsumer(IMetricsConsumer):
    """``LoggingMetricsConsumer``: one line per data point, ``<timestamp>\\t<host>:<port>\\t
    <task>:<component>\\t<name padded to 23>\\t<value>`` (the Java format string's widths), in
    ``<artifacts dir>/worker.log.metrics`` behind log4j2's METRICS layout (:func:`metrics_line`).
    Runs in the consumer's thread: it writes the file directly."""

    def prepare(self, storm_conf, registration_argument, context, error_reporter):
        self.start_secs = context.worker_start_secs
        path = os.path.join(context.artifacts_dir, METRICS_LOG)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        self.out = open(path, "a", encoding="utf-8")

    def handle_data_points(self, task_info, data_points):
        now = datetime.datetime.now()
        elapsed_ms = int((now.timestamp() - self.start_secs) * 1000)
        self.out.write("".join(metrics_line(now, elapsed_ms, message) + "\n"
                               for message in data_point_messages(task_info, data_points)))
        self.out.flush()

    def cleanup(self):
        self.out.close()


def data_point_messages(task_info, data_points):
    """``LoggingMetricsConsumer.handleDataPoints``'s messages, one per data point."""
    header = "%d\t%15s:%-4d\t%3d:%-11s\t" % (
        task_info.timestamp, task_info.src_worker_host, task_info.src_worker_port,
        task_info.src_task_id, task_info.src_component_id)
    return ["%s%-23.23s\t%s" % (header, point.name, java_text(point.value))
            for point in data_points]


def metrics_line(now, elapsed_ms, message):
    """log4j2's ``%d %-8r %m``: the date as ``yyyy-MM-dd HH:mm:ss,SSS``, the ms since the
    process started left-aligned in 8, the message."""
    return "%s,%03d %-8d %s" % (now.strftime("%Y-%m-%d %H:%M:%S"), now.microsecond // 1000,
                                elapsed_ms, message)
