"""The metrics consumer API of Python workers: what a class named in
``topology.metrics.consumer.register`` implements (port of Storm 1.2.4's
``org.apache.storm.metric.api.IMetricsConsumer`` with its ``TaskInfo`` and ``DataPoint``).

A consumer is registered in the topology's conf by its dotted Python path::

    topology.metrics.consumer.register:
      - class: "mypackage.consumers.PrintingConsumer"   # importable in the worker
        parallelism.hint: 1
        argument: {"any": "value"}

The worker imports the class (from the topology's resources first), makes one instance per
consumer task, calls :meth:`IMetricsConsumer.prepare` once, then
:meth:`IMetricsConsumer.handle_data_points` for each batch of data points a task sends every
``topology.builtin.metrics.bucket.size.secs``, in a thread of its own (a slow consumer never
holds up tuples), and :meth:`IMetricsConsumer.cleanup` when the worker stops.

This module lives on a floor of the package (it imports nothing of pynimbus, Twisted or the
worker), so a consumer's module imports it anywhere: in the worker, in its own tests.
"""

import collections

TaskInfo = collections.namedtuple(
    "TaskInfo", "src_worker_host src_worker_port src_component_id src_task_id timestamp "
    "update_interval_secs")
TaskInfo.__doc__ = """Where and when a batch of data points was taken (``IMetricsConsumer.
TaskInfo``): the worker's host and port, the component and task, Unix seconds, and the
bucket size the metrics were registered with."""

DataPoint = collections.namedtuple("DataPoint", "name value")
DataPoint.__doc__ = """One metric's value (``IMetricsConsumer.DataPoint``): a number, or a map
of key to number (a count per stream, a latency per input)."""


class IMetricsConsumer(object):
    """The methods a metrics consumer class provides; subclass it and override
    :meth:`handle_data_points` (the others do nothing by default)."""

    def prepare(self, storm_conf, registration_argument, context, error_reporter):
        """Called once before any data point: the topology's conf, the registration's
        ``argument`` (None when it has none), the consumer task's context (``storm_id``,
        ``component_id``, ``task_id``, ``worker_port``, ``artifacts_dir``) and a function
        ``error_reporter(text)`` that reports a component error (shown by the UI)."""

    def handle_data_points(self, task_info, data_points):
        """One task's metrics: a :class:`TaskInfo` and a list of :class:`DataPoint`."""
        raise NotImplementedError

    def cleanup(self):
        """Called when the worker stops."""
