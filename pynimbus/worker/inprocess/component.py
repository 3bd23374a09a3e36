"""What the in-process bolt and spout hosts share: making and setting up one task's pystorm
component, the messages pystorm sends by itself, what happens when the component raises, and
its death.  A host subclasses :class:`InProcessComponent` (``bolt_host``, ``spout_host``)."""

import json
import logging
import os
import traceback

from twisted.internet import defer

from pynimbus.worker.component_host import ComponentHost
from pynimbus.worker.groupings import GroupingError
from pynimbus.worker.inprocess.pystorm_host import make_component, setup_component
from pynimbus.worker.log_levels import PYTHON_LEVELS
from pynimbus.worker.multilang.shell_msg import (
    MultilangProtocolError, ShellLog, shell_log_level_name, shell_msg)
from pynimbus.worker.multilang.topology_context import topology_context_json

log = logging.getLogger(__name__)

class InProcessStartError(Exception):
    """A component's ``initialize`` (or pystorm's set-up) raised; the message has the
    traceback."""


def handshake_value(value):
    """``value`` as a child reads it from the JSON handshake (a fresh copy, JSON's types)."""
    return json.loads(json.dumps(value, default=str))


class InProcessComponent(ComponentHost):
    """One task's pystorm component in the worker's process.

    :param executor: the task's executor (its callbacks: see
        :mod:`pynimbus.worker.component_host`).
    :param task_id: the task.
    :param component_class: the imported pystorm class.
    :param to_action: ``bolt_action`` or ``spout_action`` of ``shell_msg``: reads a message
        pystorm sent by itself.
    """

    def __init__(self, executor, task_id, component_class, to_action):
        super().__init__()
        self.executor = executor
        self.task_id = task_id
        self.component_id = executor.component_id
        self.pid = os.getpid()
        self.dead = False
        self._to_action = to_action
        self._logger = logging.getLogger("pynimbus.shell." + self.component_id)
        self.component = make_component(component_class, self._received)

    def launch(self):
        """The handshake's aftermath (pystorm's set-up, then ``initialize``) with the conf and
        context a child would read; a Deferred, failed with :class:`InProcessStartError` if
        the component's set-up raised."""
        ctx = self.executor.context
        context = topology_context_json(ctx.user_topology, ctx.task_to_component, self.task_id)
        try:
            setup_component(self.component, handshake_value(ctx.storm_conf),
                            handshake_value(context), logger=self._logger)
        except Exception:
            return defer.fail(InProcessStartError(
                "%s: initialize raised in process:\n%s"
                % (self.process_info(), traceback.format_exc())))
        self.prepared(context)
        return defer.succeed(self.pid)

    def prepared(self, context):
        """The component is set up with ``context`` (the handshake's JSON)."""

    def kill(self):
        """The component gets no more calls."""
        self.dead = True
        return defer.succeed(None)

    # -- what pystorm sends by itself

    def _received(self, message):
        """A message pystorm's own code sent (a log, an error, metrics, the emit, ack or fail
        of arguments pystorm's checks had to see), read as a child's would be."""
        if self.dead:
            return
        try:
            action = self._to_action(shell_msg(message))
        except MultilangProtocolError as e:
            self.die("%s %s" % (self.process_info(), e))
            return
        if action is None:
            return
        if isinstance(action, ShellLog):
            self._logger.log(PYTHON_LEVELS[shell_log_level_name(action.level)],
                             "ShellLog %s %s", self.process_info(), action.msg)
            return
        try:
            task_ids = self.take_action(action)
        except (MultilangProtocolError, GroupingError) as e:
            self.die("%s %s" % (self.component_id, e))
            return
        if task_ids is not None:  # pystorm's emit reads them next (read_task_ids)
            self.component.serializer.inbox.append(list(task_ids))

    def take_action(self, action):
        """Give ``action`` to the executor; the task ids to answer an emit with, or None."""
        raise NotImplementedError

    # -- failures

    def component_raised(self, e, tup=None):
        """What pystorm's ``run`` does with an exception of its loop body: a SystemExit ends
        the component; another is logged and reported (``raise_exception``), a bolt's tuple
        failed when ``auto_fail``, then, with ``exit_on_exception``, the component ends."""
        component = self.component
        if isinstance(e, SystemExit):
            self.die("%s exited with code %s" % (self.process_info(), e.code))
            return
        component.logger.error("Exception in %s.run()", type(component).__name__,
                               exc_info=True)
        text = traceback.format_exc()
        try:
            self.report_raised(e, tup)
        except Exception:
            component.logger.error("While trying to handle previous exception...",
                                   exc_info=True)
        if component.exit_on_exception:
            # the exception's own line first (a log shows first lines), the traceback after
            exception = "".join(traceback.format_exception_only(type(e), e)).strip()
            self.die("%s raised in process: %s\n%s" % (self.process_info(), exception, text))

    def report_raised(self, e, tup):
        """pystorm's ``_handle_run_exception`` of the component's kind, by its public
        methods."""
        self.component.raise_exception(e)

    def die(self, message):
        """The component is dead: it gets no more calls; the executor is told once."""
        if self.dead:
            return
        self.dead = True
        log.debug("in-process component died: %s", message)  # reported by child_died
        self.executor.child_died(message)

    def process_info(self):
        return "pid:%s (in process), name:%s" % (self.pid, self.component_id)


def emitted_task_ids(targets, direct_task, need_task_ids):
    """What pystorm's ``emit`` returns: the task ids only when asked for (a direct emit's
    own task, as pystorm gives it)."""
    if not need_task_ids:
        return None
    return [direct_task] if direct_task is not None else list(targets)  # never a grouper's own


def plain_emit(tup, stream, direct_task):
    """Whether an emit's arguments are of the types pystorm's checks let through as they are
    (anything else takes pystorm's own emit, whose checks then speak)."""
    return (tup.__class__ in (list, tuple) and (stream is None or stream.__class__ is str)
            and (direct_task is None or direct_task.__class__ is int))
