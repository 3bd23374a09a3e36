"""A spout's or a bolt's multilang child as a component host
(:class:`pynimbus.worker.component_host.ComponentHost`): a
:class:`~pynimbus.worker.multilang.shell_process.ShellProcess` whose actions become calls of
its executor, as ``ShellBolt``'s and ``ShellSpout``'s handlers (``handleEmit``, ``handleAck``,
``handleFail``, ``handleError``, the spout's ``sync``) turn the child's messages into the
executor's."""

from pynimbus.worker.component_host import ComponentHost
from pynimbus.worker.groupings import GroupingError
from pynimbus.worker.multilang.serializers import serializer_for
from pynimbus.worker.multilang.shell_msg import (
    Ack, Emit, Fail, MultilangProtocolError, ReportError, Sync, needs_task_ids_reply,
    subprocess_timeout_secs)
from pynimbus.worker.multilang.shell_process import BOLT, SPOUT, ShellProcess, child_env
from pynimbus.worker.multilang.topology_context import topology_context_json

# Exchanges written to a spout's child before their syncs come back (more wait in the
# executor).
PIPELINED_SPOUT_EXCHANGES = 64


def shell_host_factory(command, env=None):
    """``host_factory(executor, task_id)`` of the children running ``command`` (argv) in the
    resources directory with ``env`` added to the worker's environment
    (``ShellProcess.modifyEnvironment``)."""
    def make(executor, task_id):
        return ShellHost(executor, task_id, command, env or {})
    return make


class ShellHost(ComponentHost):
    """One task's multilang child.  A bolt's host is the producer of its child's stdin: while
    Twisted holds more than its buffer (64 KiB) of writes the child has not read, the host is
    ``paused`` and its executor takes no tuple (Storm: ShellBolt's writer blocks on the full
    pipe, its ``topology.shellbolt.max.pending`` queue fills, then its executor thread
    blocks)."""

    def __init__(self, executor, task_id, command, env):
        super().__init__()
        self.pipelined_exchanges = PIPELINED_SPOUT_EXCHANGES
        self.executor = executor
        self.task_id = task_id
        self.command_argv = command
        self.env = env
        conf = executor.context.storm_conf
        self.kind = SPOUT if executor.is_spout else BOLT
        self.can_pause = self.kind == BOLT
        self.process = ShellProcess(
            executor.component_id, serializer_for(conf), self.kind,
            on_action=self._bolt_action if self.kind == BOLT else self._spout_action,
            on_died=executor.child_died, clock=executor.context.reactor,
            timeout_secs=subprocess_timeout_secs(conf))

    def launch(self):
        ctx = self.executor.context
        context_json = topology_context_json(ctx.user_topology, ctx.task_to_component,
                                             self.task_id)
        handshake = self.process.launch(
            ctx.reactor, self.command_argv, ctx.resources_dir,
            child_env(ctx.child_env, self.env), ctx.pid_dir, ctx.storm_conf, context_json)
        if self.can_pause:
            self.process.transport.registerProducer(self, True)
        return handshake

    def execute(self, tuple_id, tuple_):
        self.process.write_bolt_msg(tuple_id, tuple_.source_component, tuple_.stream,
                                    tuple_.source_task, tuple_.values)

    def command(self, command, message_id=""):
        self.process.write_spout_msg(command, message_id)

    def kill(self):
        return self.process.kill()

    # -- the child's stdin as a push producer's consumer

    def pauseProducing(self):
        self.paused = True

    def resumeProducing(self):
        self.paused = False
        self.executor.host_resumed()

    def stopProducing(self):
        self.paused = True

    # -- what the child sends

    def _bolt_action(self, action):
        executor = self.executor
        task_id = self.task_id
        try:
            if isinstance(action, Emit):
                targets = executor.bolt_emit(task_id, action.stream, action.values,
                                             action.anchors, action.direct_task)
                if needs_task_ids_reply(action):
                    self.process.write_task_ids(targets)
            elif isinstance(action, Ack):
                executor.ack_input(task_id, action.id)
            elif isinstance(action, Fail):
                executor.fail_input(task_id, action.id)
            elif isinstance(action, ReportError):
                executor.report_error(action.message)
        except (MultilangProtocolError, GroupingError) as e:
            self._protocol_error(e)

    def _spout_action(self, action):
        executor = self.executor
        try:
            if isinstance(action, Emit):
                reply = self.process.write_task_ids if needs_task_ids_reply(action) else None
                executor.spout_emit(self.task_id, action.stream, action.values,
                                    action.message_id, action.direct_task, reply)
            elif isinstance(action, Sync):
                executor.sync(self.task_id)
            elif isinstance(action, ReportError):
                executor.report_error(action.message)
        except GroupingError as e:
            self._protocol_error(e)

    def _protocol_error(self, error):
        self.process.die_and_kill("%s %s" % (self.executor.component_id, error))
