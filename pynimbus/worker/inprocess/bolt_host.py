"""A bolt in the worker's process, as a component host: its executor's input goes to the
bolt's ``process`` (``process_tick`` for a tick) as pystorm's ``Tuple``, pystorm's auto-ack and
auto-fail after it, as pystorm's ``Bolt._run`` does; the bolt's ``emit``, ``ack`` and ``fail``
are captured into the executor's ``bolt_emit``, ``ack_input`` and ``fail_input`` (ShellBolt's
``handleEmit``, ``handleAck``, ``handleFail``), with no message, action or copy beyond the
emitted values' list."""

import collections
import re

from pynimbus.worker.groupings import GroupingError
from pynimbus.worker.inprocess.component import InProcessComponent, emitted_task_ids
from pynimbus.worker.multilang.shell_msg import (
    DEFAULT_STREAM_ID, Ack, Emit, Fail, MultilangProtocolError, ReportError, bolt_action,
    needs_task_ids_reply)

TICK_COMPONENT, TICK_STREAM = "__system", "__tick"
# pystorm's names for the namedtuple of a source stream's values (pystorm.bolt)
_IDENTIFIER = re.compile(r"\W|^(?=\d)")
# What a namedtuple's generated __new__ calls, without the call through it.
_new_tuple = tuple.__new__
# What pystorm's emit takes as a tuple's values as they are (anything else: its own checks).
_SEQUENCES = (list, tuple)


def values_types(context):
    """``{source: {stream: namedtuple class}}`` of the handshake context's
    ``source->stream->fields``, named as pystorm names them: what ``Tuple.values`` is."""
    types = collections.defaultdict(dict)
    for source, stream_fields in (context.get("source->stream->fields") or {}).items():
        for stream, fields in stream_fields.items():
            name = (_IDENTIFIER.sub("_", source.title()) + _IDENTIFIER.sub("_", stream.title())
                    + "Tuple")
            types[source][stream] = collections.namedtuple(name, fields)
    return types


def bolt_host_factory(component_class):
    """``host_factory(executor, task_id)`` of bolts of ``component_class``."""
    def make(executor, task_id):
        return InProcessBolt(executor, task_id, component_class)
    return make


class InProcessBolt(InProcessComponent):
    """One task's bolt (see the module docstring)."""

    def __init__(self, executor, task_id, component_class):
        super().__init__(executor, task_id, component_class, bolt_action)
        from pystorm import Bolt, Tuple

        self._tuple = Tuple
        self._pystorm_emit = Bolt.emit
        self._values_types = collections.defaultdict(dict)
        self._current = None  # the pystorm Tuple being processed
        self._current_ids = ()
        self._bolt_emit = executor.bolt_emit
        self._ack_input = executor.ack_input
        self._fail_input = executor.fail_input
        component = self.component
        component.emit = self.emit
        if component_class.ack is Bolt.ack:
            component.ack = self.ack
        if component_class.fail is Bolt.fail:
            component.fail = self.fail

    def prepared(self, context):
        self._values_types = values_types(context)  # a defaultdict: a source not in it: {}

    # -- what the executor gives

    def execute(self, tuple_id, tuple_):
        """pystorm's ``Bolt._run`` on one input."""
        if self.dead:
            return
        source_component = tuple_.source_component
        stream = tuple_.stream
        component = self.component
        tup = None
        try:
            values = tuple_.values
            values_type = self._values_types[source_component].get(stream)
            if values_type is None:
                values = tuple(values)
            elif len(values) == len(values_type._fields):
                values = _new_tuple(values_type, values)  # values_type(*values), unchecked
            else:
                values = values_type(*values)  # raises as pystorm's read_tuple does
            tup = _new_tuple(self._tuple, (tuple_id, source_component, stream,
                                           tuple_.source_task, values))
            self._current = tup
            self._current_ids = (tuple_id,)
            if source_component == TICK_COMPONENT and stream == TICK_STREAM:
                component.process_tick(tup)
            else:
                component.process(tup)
            if component.auto_ack:
                component.ack(tup)
        except (SystemExit, Exception) as e:
            self.component_raised(e, tup)
        finally:
            self._current = None
            self._current_ids = ()

    def report_raised(self, e, tup):
        """pystorm's ``Bolt._handle_run_exception``: reported with the tuple, which is failed
        when ``auto_fail``."""
        component = self.component
        if tup is None:
            component.raise_exception(e)
            return
        component.raise_exception(e, tup)
        if component.auto_fail:
            component.fail(tup)

    # -- what the bolt calls

    def emit(self, tup, stream=None, anchors=None, direct_task=None, need_task_ids=False):
        """pystorm's ``Bolt.emit`` into ShellBolt's ``handleEmit``."""
        component = self.component
        if anchors is None:
            anchor_ids = self._current_ids if component.auto_anchor else ()
        else:
            anchor_ids = self._anchor_ids(anchors)
        if (anchor_ids is None or tup.__class__ not in _SEQUENCES
                or not (stream is None or stream.__class__ is str)
                or not (direct_task is None or direct_task.__class__ is int)):
            # pystorm's own emit, whose checks then speak (its message comes back here)
            if anchors is None:
                anchors = ([self._current] if component.auto_anchor and self._current
                           else [])
            return self._pystorm_emit(component, tup, stream, anchors, direct_task,
                                      need_task_ids)
        if self.dead:
            return None
        try:
            targets = self._bolt_emit(self.task_id,
                                      DEFAULT_STREAM_ID if stream is None else stream,
                                      list(tup), anchor_ids, direct_task)
        except (MultilangProtocolError, GroupingError) as e:
            self.die("%s %s" % (self.component_id, e))
            return None
        return emitted_task_ids(targets, direct_task, need_task_ids)

    def _anchor_ids(self, anchors):
        """The ids of ``anchors`` (pystorm ``Tuple``s or ids) as pystorm's ``emit`` reads
        them; None when one is not a str (pystorm's emit then says what is wrong)."""
        tuple_class = self._tuple
        ids = [a.id if isinstance(a, tuple_class) else a for a in anchors]
        for anchor_id in ids:
            if anchor_id.__class__ is not str:
                return None
        return ids

    def ack(self, tup):
        """pystorm's ``Bolt.ack`` into ShellBolt's ``handleAck``."""
        self._take(tup, "ack", self._ack_input)

    def fail(self, tup):
        """pystorm's ``Bolt.fail`` into ShellBolt's ``handleFail``."""
        self._take(tup, "fail", self._fail_input)

    def _take(self, tup, command, take_input):
        tup_id = tup.id if isinstance(tup, self._tuple) else tup
        if tup_id.__class__ is not str:  # the checked path says what is wrong with it
            self._received({"command": command, "id": tup_id})
            return
        if self.dead:
            return
        try:
            take_input(self.task_id, tup_id)
        except MultilangProtocolError as e:
            self.die("%s %s" % (self.component_id, e))

    # -- what pystorm sent by itself

    def take_action(self, action):
        executor = self.executor
        if isinstance(action, Emit):
            targets = executor.bolt_emit(self.task_id, action.stream, action.values,
                                         action.anchors, action.direct_task)
            return targets if needs_task_ids_reply(action) else None
        if isinstance(action, Ack):
            executor.ack_input(self.task_id, action.id)
        elif isinstance(action, Fail):
            executor.fail_input(self.task_id, action.id)
        elif isinstance(action, ReportError):
            executor.report_error(action.message)
        return None
