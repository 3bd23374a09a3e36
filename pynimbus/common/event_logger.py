"""The event logger API of Python workers: what a class named in
``topology.event.logger.register`` implements (port of Storm 1.2.4's
``org.apache.storm.metric.IEventLogger`` with its ``EventInfo``).

An event logger is registered in the topology's conf by its dotted Python path::

    topology.event.logger.register:
      - class: "mypackage.loggers.KafkaEventLogger"   # importable in the worker
        arguments: {"any": "value"}
      - class: "org.apache.storm.metric.FileBasedEventLogger"   # Storm's events.log, kept

With no registration, the ``__eventlogger`` tasks write ``events.log`` as Storm's
``FileBasedEventLogger`` does.  The worker imports each class (from the topology's resources
first), makes one instance per ``__eventlogger`` task, calls :meth:`IEventLogger.prepare`
once, then :meth:`IEventLogger.log` for each sampled event, in a thread of its own, a second's
events at a time (a slow logger never holds up tuples), and :meth:`IEventLogger.close` when
the worker stops.

This module lives on a floor of the package (it imports nothing of pynimbus, Twisted or the
worker), so a logger's module imports it anywhere.
"""

import collections

EventInfo = collections.namedtuple("EventInfo", "ts component task message_id values")
EventInfo.__doc__ = """One sampled emit (``IEventLogger.EventInfo``): when (milliseconds since
the epoch), the emitting component and task, the message id (None when unanchored) and the
tuple's values (a list)."""


class IEventLogger(object):
    """The methods an event logger class provides; subclass it and override :meth:`log`."""

    def prepare(self, storm_conf, arguments, context):
        """Called once before any event: the topology's conf, the registration's
        ``arguments`` (None when it has none) and the task's context (``storm_id``,
        ``component_id``, ``task_id``, ``worker_port``, ``artifacts_dir``)."""

    def log(self, event_info):
        """One :class:`EventInfo`."""
        raise NotImplementedError

    def close(self):
        """Called when the worker stops."""
