"""A spout in the worker's process, as a component host: each exchange its executor starts goes
to the spout's ``next_tuple``, ``ack``, ``fail``, ``activate`` or ``deactivate``, as pystorm's
``Spout._run`` does, and ends with the executor's ``sync`` before :meth:`command` returns.  The
spout's ``emit`` (pystorm's own: a class's override calls it and its message comes back here)
is captured into the executor's ``spout_emit`` (ShellSpout's emit)."""

from pynimbus.worker.groupings import GroupingError
from pynimbus.worker.inprocess.component import (
    InProcessComponent, emitted_task_ids, plain_emit)
from pynimbus.worker.multilang.shell_msg import (
    DEFAULT_STREAM_ID, Emit, ReportError, needs_task_ids_reply, spout_action)


def spout_host_factory(component_class):
    """``host_factory(executor, task_id)`` of spouts of ``component_class``."""
    def make(executor, task_id):
        return InProcessSpout(executor, task_id, component_class)
    return make


class InProcessSpout(InProcessComponent):
    """One task's spout (see the module docstring)."""

    def __init__(self, executor, task_id, component_class):
        super().__init__(executor, task_id, component_class, spout_action)
        from pystorm import Spout

        self._pystorm_emit = Spout.emit
        self._spout_emit = executor.spout_emit
        self._sync = executor.sync
        if component_class.emit is Spout.emit:
            self.component.emit = self.emit

    # -- what the executor asks

    def command(self, command, message_id=""):
        """pystorm's ``Spout._run`` on one command, then its sync."""
        if self.dead:
            return
        component = self.component
        try:
            if command == "next":
                component.next_tuple()
            elif command == "ack":
                component.ack(message_id)
            elif command == "fail":
                component.fail(message_id)
            elif command == "activate":
                component.activate()
            elif command == "deactivate":
                component.deactivate()
        except (SystemExit, Exception) as e:
            self.component_raised(e)  # pystorm reports it and syncs: the exchange ends
        if not self.dead:
            self._sync(self.task_id)

    # -- what the spout calls

    def emit(self, tup, tup_id=None, stream=None, direct_task=None, need_task_ids=False):
        """pystorm's ``Spout.emit`` into ``ShellSpout``'s emit."""
        if not plain_emit(tup, stream, direct_task):
            return self._pystorm_emit(self.component, tup, tup_id, stream, direct_task,
                                      need_task_ids)
        if self.dead:
            return None
        try:
            targets = self._spout_emit(
                self.task_id, DEFAULT_STREAM_ID if stream is None else stream, list(tup),
                tup_id, direct_task)
        except GroupingError as e:
            self.die("%s %s" % (self.component_id, e))
            return None
        return emitted_task_ids(targets, direct_task, need_task_ids)

    # -- what pystorm sent by itself

    def take_action(self, action):
        executor = self.executor
        if isinstance(action, Emit):
            targets = executor.spout_emit(self.task_id, action.stream, action.values,
                                          action.message_id, action.direct_task)
            return targets if needs_task_ids_reply(action) else None
        if isinstance(action, ReportError):
            executor.report_error(action.message)
        # a Sync (raise_exception sends one) changes nothing: the exchange ends when the
        # spout's call returns
        return None
