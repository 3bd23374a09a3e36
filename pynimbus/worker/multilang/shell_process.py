"""One multilang child process per task, on the reactor (the thin shell).

Port of Storm 1.2.4 ``org.apache.storm.utils.ShellProcess`` with the I/O halves of
``task.ShellBolt`` (writer, reader, heartbeat timer) and ``spout.ShellSpout`` (an exchange ends
at ``sync``; the heartbeat counts only while waiting for it). Instead of Storm's threads, bytes
arrive in ``childDataReceived`` and decoded actions go to a callback; time comes from the clock
passed in. What Storm does after ``die`` (report the error, exit the worker with code 11) is the
caller's, through ``on_died``.
"""

import logging
import os
import random

from twisted.internet import defer, error, protocol, task

from pynimbus.worker.log_levels import PYTHON_LEVELS
from pynimbus.worker.multilang.serializers import MultilangSerializerError
from pynimbus.worker.multilang.shell_msg import (
    MultilangProtocolError,
    ShellLog,
    Sync,
    bolt_action,
    bolt_msg,
    handshake_pid,
    heartbeat_bolt_msg,
    setup_msg,
    shell_log_level_name,
    shell_msg,
    spout_action,
    spout_msg,
)

log = logging.getLogger(__name__)

HEARTBEAT_PERIOD_SECS = 1.0
# How much of the child's stderr is kept for the report when it dies.
STDERR_TAIL_BYTES = 4096
BOLT = "bolt"
SPOUT = "spout"


class ShellProcessDied(Exception):
    """The child exited, stopped answering, or broke the protocol; the message says which."""


def child_env(worker_env, component_env):
    """``ShellProcess.modifyEnvironment``: the worker's environment with the component's
    entries; ``PATH`` is appended to, every other entry replaced."""
    env = dict(worker_env)
    for key, value in component_env.items():
        if key == "PATH" and "PATH" in env:
            env["PATH"] = env["PATH"] + os.pathsep + value
        else:
            env[key] = value
    return env


def random_tuple_id():
    """A ``BoltMsg`` id as ShellBolt makes one: a random long as a string."""
    return str(random.getrandbits(64) - 2**63)


class ShellProcess(protocol.ProcessProtocol):
    """One multilang child: launch, handshake, write messages, read actions, watch it.

    ``kind`` is ``BOLT`` (heartbeat tuples every second; silent past the timeout = dead) or
    ``SPOUT`` (dead only when an exchange waits for ``sync`` past the timeout).
    ``on_action(action)`` gets each ``shell_msg`` action except logs, which are logged here
    (``Sync`` included: it ends a spout exchange). ``on_died(message)`` is called once.
    """

    def __init__(self, component_id, serializer, kind, on_action, on_died, clock, timeout_secs,
                 new_tuple_id=random_tuple_id):
        if kind not in (BOLT, SPOUT):
            raise ValueError("kind must be %r or %r, not %r" % (BOLT, SPOUT, kind))
        self.component_id = component_id
        self.pid = None
        self.handshake = defer.Deferred()
        self.ended = defer.Deferred()
        self._serializer = serializer
        self._reader = serializer.reader()
        self._to_action = bolt_action if kind == BOLT else spout_action
        self._kind = kind
        self._on_action = on_action
        self._on_died = on_died
        self._clock = clock
        self._timeout_secs = timeout_secs
        self._new_tuple_id = new_tuple_id
        self._shell_logger = logging.getLogger("pynimbus.shell." + component_id)
        self._stderr_tail = b""
        self._setup = None
        self._last_heartbeat = clock.seconds()
        self._awaiting_syncs = 0  # spout exchanges written and not yet answered
        self._heartbeat_timer = None
        self._handshake_timer = None
        self._dead = False

    def launch(self, reactor, command, cwd, env, pid_dir, storm_conf, context):
        """``ShellProcess.launch``: start ``command`` (argv as given, no shell) in ``cwd`` with
        exactly ``env``, then handshake. Returns ``self.handshake``, which fires with the pid
        the child answered (Storm reads only that). A command that cannot be run, or a missing
        ``cwd``, fails in the forked child, which exits: reported through ``on_died`` with the
        child's stderr, and the handshake fails.

        Deliberate difference: the host writes the spawned process's pid file in ``pid_dir``
        itself, so the supervisor can kill the child through the pids dir whether the child
        writes its own before answering (pystorm), after (Storm's storm.py) or never.

        Deliberate difference: a child that has not answered the handshake after
        ``timeout_secs`` (the subprocess timeout) is killed and reported, as one that stops
        answering later is; Storm's ``ShellProcess.launch`` waits for the answer for ever.
        """
        self._setup = setup_msg(pid_dir, storm_conf, context)
        reactor.spawnProcess(self, command[0], list(command), env=env, path=cwd)
        self._write_pid_file(pid_dir, self.transport.pid)
        self._handshake_timer = self._clock.callLater(self._timeout_secs,
                                                      self._handshake_timed_out)
        return self.handshake

    def _handshake_timed_out(self):
        self._handshake_timer = None
        self.die_and_kill("%s did not answer the handshake within %s s "
                          "(topology.subprocess.timeout.secs)"
                          % (self._process_info(), self._timeout_secs))

    def _write_pid_file(self, pid_dir, pid):
        try:
            open(os.path.join(pid_dir, str(pid)), "w").close()
        except OSError as exc:
            log.warning("%s: could not write the pid file of child %d: %s",
                        self.component_id, pid, exc)

    # -- writing

    def write_bolt_msg(self, tuple_id, source_component, source_stream, source_task, values):
        """``writeBoltMsg``: one input tuple for a bolt."""
        self._write(bolt_msg(tuple_id, source_component, source_stream, source_task, values))

    def write_spout_msg(self, command, message_id=""):
        """``writeSpoutMsg``: start a spout exchange, which ends when the child sends sync
        (``markWaitingSubprocess`` restarts the silence count).  Several may be under way:
        the child answers each with its own sync, in order."""
        if not self._awaiting_syncs:
            self._last_heartbeat = self._clock.seconds()
        self._awaiting_syncs += 1
        self._write(spout_msg(command, message_id))
        self._flush()

    def write_task_ids(self, task_ids):
        """``writeTaskIds``: the answer to an emit that wanted its target tasks."""
        self._write(list(task_ids))

    def _write(self, message):
        if not self._dead:
            self.transport.write(self._serializer.encode(message))

    def _flush(self):
        """Hand what was written to the child's stdin pipe now, not on the reactor's next poll
        (Twisted's default): a spout exchange is one message and the executor waits for its
        ``sync``, so the poll would only add a reactor turn to every exchange.  A write error
        stays with the pipe, whose next poll reports it as Twisted does."""
        stdin = self.transport.pipes.get(0) if not self._dead else None
        if stdin is not None:
            stdin.doWrite()

    # -- lifecycle

    def kill(self):
        """``ShellProcess.destroy``: SIGTERM the child; ``self.ended`` fires when it is gone."""
        self._dead = True
        self._stop_heartbeats()
        if not self.handshake.called:
            self.handshake.errback(
                ShellProcessDied("%s killed before the handshake" % self._process_info())
            )
        try:
            self.transport.signalProcess("TERM")
        except error.ProcessExitedAlready:
            pass
        return self.ended

    def connectionMade(self):
        self.transport.write(self._serializer.encode(self._setup))

    def childDataReceived(self, fd, data):
        if fd == 2:
            self._log_stderr(data)
        elif fd == 1 and not self._dead:
            # bytes arriving are a sign of life (Storm counts whole messages only): a tuple of
            # many megabytes is being written, not a hung child
            self._last_heartbeat = self._clock.seconds()
            self._read(data)

    def processEnded(self, reason):
        self._stop_heartbeats()
        exit_code = getattr(reason.value, "exitCode", None)
        signal = getattr(reason.value, "signal", None)
        if not self._dead:
            self._die(
                "Pipe to subprocess seems to be broken! %s %s exitCode:%s, signal:%s, "
                "errorString:%s"
                % (self._process_info(), self._output_read(), exit_code, signal,
                   self._stderr_tail.decode("utf-8", "replace"))
            )
        self.ended.callback(exit_code)

    # -- reading

    def _read(self, data):
        try:
            for message in self._reader.feed(data):
                self._last_heartbeat = self._clock.seconds()
                if self.pid is None:
                    self._finish_handshake(message)
                else:
                    self._dispatch(self._to_action(shell_msg(message)))
                if self._dead:
                    return
        except (MultilangSerializerError, MultilangProtocolError) as exc:
            self.die_and_kill("%s %s" % (self._process_info(), exc))

    def _finish_handshake(self, message):
        self.pid = handshake_pid(message)
        self._cancel_handshake_timer()
        self._heartbeat_timer = task.LoopingCall(self._check_heartbeat)
        self._heartbeat_timer.clock = self._clock
        self._heartbeat_timer.start(HEARTBEAT_PERIOD_SECS, now=False)
        self.handshake.callback(self.pid)

    def _dispatch(self, action):
        if isinstance(action, ShellLog):
            self._shell_logger.log(
                PYTHON_LEVELS[shell_log_level_name(action.level)],
                "ShellLog %s %s", self._process_info(), action.msg,
            )
            return
        if action is None:
            return
        if isinstance(action, Sync) and self._awaiting_syncs:
            self._awaiting_syncs -= 1
        self._on_action(action)

    def _log_stderr(self, data):
        self._stderr_tail = (self._stderr_tail + data)[-STDERR_TAIL_BYTES:]
        self._shell_logger.info("%s", data.decode("utf-8", "replace").rstrip("\n"))

    # -- heartbeats

    def _check_heartbeat(self):
        """``BoltHeartbeatTimerTask``/``SpoutHeartbeatTimerTask``."""
        silent_for = self._clock.seconds() - self._last_heartbeat
        counts = self._kind == BOLT or self._awaiting_syncs
        if counts and silent_for > self._timeout_secs:
            self.die_and_kill("%s subprocess heartbeat timeout" % self._process_info())
        elif self._kind == BOLT:
            self._write(heartbeat_bolt_msg(self._new_tuple_id()))

    def _stop_heartbeats(self):
        self._cancel_handshake_timer()
        if self._heartbeat_timer is not None and self._heartbeat_timer.running:
            self._heartbeat_timer.stop()

    def _cancel_handshake_timer(self):
        if self._handshake_timer is not None and self._handshake_timer.active():
            self._handshake_timer.cancel()
        self._handshake_timer = None

    # -- death

    def die_and_kill(self, message):
        self._die(message)
        self.kill()

    def _die(self, message):
        if self._on_died is None:
            return
        self._dead = True
        on_died, self._on_died = self._on_died, None
        log.debug("multilang subprocess died: %s", message)  # reported by on_died
        if not self.handshake.called:
            self.handshake.errback(ShellProcessDied(message))
        if on_died is not None:
            on_died(message)

    def _output_read(self):
        """``JsonSerializer.readString``'s account of an unfinished message at EOF."""
        pending = self._reader.pending_output()
        return "Currently read output: %s" % pending if pending else "No output read."

    def _process_info(self):
        """``getProcessInfoString``."""
        return "pid:%s, name:%s" % (self.pid, self.component_id)
