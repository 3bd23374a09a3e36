"""In-process streamparse components: a spout or bolt whose shell command is streamparse's
runner (``streamparse_run [-s SERIALIZER] module.Class``, as streamparse's DSL writes it) runs
inside the worker process when its class imports, with no subprocess and no serialization.

What a component sees is unchanged: it is an instance of its own pystorm class, set up with
the conf and context the multilang handshake would give (the same JSON values), whose
serializer is the in-memory one of :mod:`pynimbus.worker.pystorm_host`; so ``emit``, anchors,
pystorm's auto-ack and auto-fail, ``need_task_ids``, ticks, ``log``, ``raise_exception`` and
metrics calls run as under Storm.  Where the class keeps pystorm's own loop body and
``emit``/``ack``/``fail`` (:func:`direct_calls`), those are called past: a bolt is fused with
its ShellBolt executor (:class:`DirectInProcessBolt`: the executor's tuple goes straight to
``process``, an emit or ack straight to the executor's bookkeeping), and a spout's command
goes straight to its callback and its emit to ShellSpout's handler
(:class:`DirectInProcessSpout`); the executors of :mod:`pynimbus.worker.executor` keep the
routing, anchoring, acking, max spout pending and stats of every path.  What a class
overrides keeps pystorm's message, read back with the multilang checks (``shell_msg``).
Values travel between the executors of a worker as the Python objects emitted (a copy of the
list), and through the transport's msgpack to other workers.

How it runs (the choice, documented): on the reactor thread, as Storm's executor thread calls
a component.  A bolt's ``process`` runs when its executor takes a tuple (the worker delivers
local tuples in batches, one reactor turn per batch).  A spout's ``next_tuple`` runs in
batches of at most ``NEXT_TUPLE_BATCH`` calls per reactor turn while the spout is active,
below ``topology.max.spout.pending`` and not throttled; a round in which no task emitted
waits ``SPOUT_IDLE_WAIT_SECS`` (Storm's default spout wait strategy).  Nothing here blocks
unless the component's own code does: a component that blocks stops the worker (its
heartbeats included, so its supervisor restarts it after ``supervisor.worker.timeout.secs``;
``topology.subprocess.timeout.secs`` has no subprocess to apply to).

Anything that does not fit falls back to the multilang subprocess: a command that is not
streamparse's runner, a module or class that does not import from the topology's resources
directory (put first on ``sys.path``: a worker runs one topology), a class that is not a
pystorm ``Spout``/``Bolt`` of the component's kind, or a pystorm ``BatchingBolt`` (it emits
from a thread of its own).  ``pynimbus.worker.inprocess: false`` in the topology's conf or the
cluster's turns it off.

A component that raises is handled as pystorm's ``run`` does (logged, reported with
``raise_exception``, its tuple failed), then, with pystorm's ``exit_on_exception`` (the
default), as a multilang child that died: the worker reports the error and exits with code 11.
"""

import collections
import json
import logging
import os
import sys
import traceback

from twisted.internet import defer

from pynimbus.worker.executor import (
    NEXT_EMPTY, SPOUT_IDLE_WAIT_SECS, ShellBoltExecutor, ShellSpoutExecutor)
from pynimbus.worker.groupings import GroupingError
from pynimbus.worker.message_id import MessageId, bolt_emit_message_ids
from pynimbus.worker.multilang.shell_msg import (
    DEFAULT_STREAM_ID, Ack, Emit, Fail, MultilangProtocolError, ShellLog, Sync,
    anchored_after_ack, bolt_action, bolt_msg, not_pending, shell_log_level_name, shell_msg,
    spout_action, spout_msg)
from pynimbus.worker.multilang.shell_process import BOLT, SPOUT
from pynimbus.worker.multilang.topology_context import topology_context_json
from pynimbus.worker.pystorm_host import make_component, setup_component

log = logging.getLogger(__name__)

WORKER_INPROCESS = "pynimbus.worker.inprocess"
STREAMPARSE_RUN = "streamparse_run"
# The runner's options that take a value (streamparse/run.py); any other option: not ours.
_RUNNER_VALUE_OPTIONS = ("-s", "--serializer")
# nextTuple calls of one spout executor per reactor turn, at most.
NEXT_TUPLE_BATCH = 100
_LOG_LEVELS = {"TRACE": 5, "DEBUG": logging.DEBUG, "INFO": logging.INFO,
               "WARN": logging.WARNING, "ERROR": logging.ERROR}


class InProcessStartError(Exception):
    """A component's ``initialize`` (or pystorm's set-up) raised; the message has the
    traceback."""


def inprocess_enabled(conf):
    """``pynimbus.worker.inprocess`` of the worker's conf (the topology's over the cluster's);
    on unless false."""
    return conf.get(WORKER_INPROCESS, True) not in (False, "false", "False")


def streamparse_target(command):
    """The ``module.Class`` that ``command`` (argv) has streamparse's runner start, or None
    when ``command`` is not ``streamparse_run [-s SERIALIZER] module.Class``.  Storm passes
    the script as one argument, which the runner splits on spaces: so is it here."""
    if not command or os.path.basename(command[0]) != STREAMPARSE_RUN:
        return None
    args = " ".join(command[1:]).split()
    targets = []
    while args:
        arg = args.pop(0)
        if arg in _RUNNER_VALUE_OPTIONS and args:
            args.pop(0)
        elif arg.startswith("-"):
            return None
        else:
            targets.append(arg)
    if len(targets) != 1 or "." not in targets[0]:
        return None
    return targets[0]


def import_component_class(resources_dir, target, is_spout):
    """``(class, None)`` for ``target`` imported from ``resources_dir``, or ``(None, why
    not)``.  Blocking (it imports user code)."""
    import importlib
    from pystorm import Bolt, Spout
    from pystorm.bolt import BatchingBolt

    if resources_dir not in sys.path:
        sys.path.insert(0, resources_dir)
    module_name, class_name = target.rsplit(".", 1)
    try:
        component_class = getattr(importlib.import_module(module_name), class_name)
    except Exception as e:  # anything user code raises: the subprocess path will show it
        return None, "%s does not import: %s: %s" % (target, type(e).__name__, e)
    kind = Spout if is_spout else Bolt
    if not (isinstance(component_class, type) and issubclass(component_class, kind)):
        return None, "%s is not a pystorm %s" % (target, kind.__name__)
    if issubclass(component_class, BatchingBolt):
        return None, "%s is a BatchingBolt, which emits from a thread of its own" % target
    return component_class, None


def inprocess_component_classes(conf, commands, resources_dir, environment):
    """``{component id: class}`` of the components of ``commands`` (``{component id: (argv,
    is_spout)}``) that run in process; the others are logged with the reason and left to
    their subprocess.  The worker's environment first becomes ``environment`` (the one its
    multilang children would get: the topology's ``topology.environment``), as a component
    reads it there.  Blocking (imports user code)."""
    if not inprocess_enabled(conf):
        return {}
    targets = {component_id: (streamparse_target(argv), is_spout)
               for component_id, (argv, is_spout) in commands.items()}
    if not any(target for target, _is_spout in targets.values()):
        return {}
    os.environ.update(environment)
    classes = {}
    for component_id, (target, is_spout) in sorted(targets.items()):
        if target is None:
            continue
        component_class, why_not = import_component_class(resources_dir, target, is_spout)
        if component_class is None:
            log.info("component %s runs as a multilang subprocess: %s", component_id, why_not)
        else:
            log.info("component %s runs in process: %s", component_id, target)
            classes[component_id] = component_class
    return classes


def mk_shell_executor(args, is_spout, component_class, **kwargs):
    """The executor of a shell component: in process when its class was imported
    (``component_class``), else with its multilang children."""
    if component_class is None:
        cls = ShellSpoutExecutor if is_spout else ShellBoltExecutor
        return cls(*args, **kwargs)
    cls = InProcessSpoutExecutor if is_spout else InProcessBoltExecutor
    return cls(*args, component_class=component_class, **kwargs)


_SYNC = Sync()


def pystorm_action(message, kind):
    """The action of an emit, ack, fail or sync as pystorm builds them, without the checks a
    child's bytes need (``shell_msg``): the same action ``bolt_action``/``spout_action`` give.
    None for any other command, or for a field not of the type pystorm gives it: those take
    the checked path."""
    command = message.get("command")
    if command == "emit":
        stream = message.get("stream", DEFAULT_STREAM_ID)
        values = message.get("tuple")
        direct_task = message.get("task")
        need_task_ids = message.get("need_task_ids")
        if not (stream.__class__ is str and values.__class__ in (list, tuple)
                and (direct_task is None or direct_task.__class__ is int)
                and (need_task_ids is None or need_task_ids.__class__ is bool)):
            return None
        if kind == BOLT:
            anchors = message.get("anchors") or ()
            if not (anchors.__class__ is list and all(a.__class__ is str for a in anchors)
                    or anchors == ()):
                return None
            anchors, message_id = tuple(anchors), None
        else:
            anchors, message_id = (), message.get("id")
        # the receivers' values must not change when the emitter reuses its list
        return Emit(stream, list(values), anchors, direct_task or None,
                    need_task_ids is not False, message_id)
    if command == "sync":
        return _SYNC
    if kind == BOLT and command in ("ack", "fail") and message.get("id").__class__ is str:
        return Ack(message["id"]) if command == "ack" else Fail(message["id"])
    return None


def handshake_value(value):
    """``value`` as a child reads it from the JSON handshake (a fresh copy, JSON's types)."""
    return json.loads(json.dumps(value, default=str))


class InProcessComponent(object):
    """One task's pystorm component behind the interface of a multilang
    :class:`~pynimbus.worker.multilang.shell_process.ShellProcess`: the executor writes
    messages, and the component's answers come back through ``on_action`` before the write
    returns.  A message written while the component runs (task ids for its emit, an ack
    queued behind its exchange) is taken by the loop already running, so calls never nest.
    """

    def __init__(self, component_id, component_class, kind, on_action, on_died):
        self.component_id = component_id
        self.pid = os.getpid()
        self.ended = defer.succeed(None)
        self._kind = kind
        self._to_action = bolt_action if kind == BOLT else spout_action
        self._on_action = on_action
        self._on_died = on_died
        self._logger = logging.getLogger("pynimbus.shell." + component_id)
        self._running = False
        self._dead = False
        self.component = make_component(component_class, self._received)

    def launch(self, storm_conf, context):
        """The handshake's aftermath (pystorm's set-up, then ``initialize``), with the conf and
        context a child would read.

        :raises InProcessStartError: the component's set-up raised.
        """
        try:
            setup_component(self.component, handshake_value(storm_conf),
                            handshake_value(context), logger=self._logger)
        except Exception:
            raise InProcessStartError("%s: initialize raised in process:\n%s"
                                      % (self._process_info(), traceback.format_exc()))

    # -- what the executor writes

    def write_bolt_msg(self, tuple_id, source_component, source_stream, source_task, values):
        self._deliver(bolt_msg(tuple_id, source_component, source_stream, source_task, values))

    def write_spout_msg(self, command, message_id=""):
        self._deliver(spout_msg(command, message_id))

    def write_task_ids(self, task_ids):
        self._deliver(list(task_ids))

    def _deliver(self, message):
        if self._dead:
            return
        component = self.component
        inbox = component.serializer.inbox
        inbox.append(message)
        if self._running:
            return  # the loop below, further up the stack, takes it
        self._running = True
        try:
            # a message in the inbox, or one pystorm put aside while it read task ids
            while not self._dead and (inbox or component._pending_commands):
                self._run_once()
        finally:
            self._running = False

    def _run_once(self):
        """One turn of pystorm's ``run`` loop; an exception is handled as ``run`` does."""
        try:
            self.component._run()
        except (SystemExit, Exception) as e:
            self._handle_run_exception(e)

    def _handle_run_exception(self, e):
        """What pystorm's ``run`` does with an exception of its loop body: a SystemExit
        ends the component; another is logged, reported and its tuple failed (pystorm's
        ``_handle_run_exception``), then, with ``exit_on_exception``, ends the component."""
        component = self.component
        if isinstance(e, SystemExit):
            self._die("%s exited with code %s" % (self._process_info(), e.code))
            return
        component.logger.error("Exception in %s.run()", type(component).__name__,
                               exc_info=True)
        text = traceback.format_exc()
        try:
            component._handle_run_exception(e)
        except Exception:
            component.logger.error("While trying to handle previous exception...",
                                   exc_info=True)
        component._current_tups = []
        if component.exit_on_exception:
            # the exception's own line first (a log shows first lines), the traceback after
            exception = "".join(traceback.format_exception_only(type(e), e)).strip()
            self._die("%s raised in process: %s\n%s" % (self._process_info(), exception, text))

    # -- what the component sends

    def _received(self, message):
        if self._dead:
            return
        action = pystorm_action(message, self._kind)
        if action is not None:
            self._on_action(action)
            return
        try:
            action = self._to_action(shell_msg(message))
        except MultilangProtocolError as e:
            self._die_and_kill("%s %s" % (self._process_info(), e))
            return
        if action is None:
            return
        if isinstance(action, ShellLog):
            self._logger.log(_LOG_LEVELS[shell_log_level_name(action.level)],
                             "ShellLog %s %s", self._process_info(), action.msg)
            return
        self._on_action(action)

    # -- lifecycle

    def kill(self):
        """The component gets no more messages."""
        self._dead = True
        return self.ended

    def _die_and_kill(self, message):
        self._die(message)
        self.kill()

    def _die(self, message):
        if self._on_died is None:
            return
        self._dead = True
        on_died, self._on_died = self._on_died, None
        log.debug("in-process component died: %s", message)  # reported by on_died
        on_died(message)

    def _process_info(self):
        return "pid:%s (in process), name:%s" % (self.pid, self.component_id)


# pystorm's plumbing: the loop body, reading and sending (each overridable by a component)
_RUN_PLUMBING = ("_run", "read_tuple", "read_command", "read_message", "read_task_ids",
                 "send_message", "is_heartbeat", "is_tick")


def direct_calls(component_class, kind):
    """Which of pystorm's plumbing :class:`DirectInProcessComponent` may call past for
    ``component_class``: a set of ``"run"`` (the loop body), ``"emit"``, and for a bolt
    ``"ack"`` and ``"fail"``; each only where the class (and every class between it and
    pystorm's ``Bolt``/``Spout``) keeps pystorm's own method, so an override always runs.
    Empty when the loop body is not pystorm's."""
    from pystorm import Bolt, Spout

    base = Bolt if kind == BOLT else Spout
    mro = component_class.__mro__
    if base not in mro or mro[mro.index(base):] != base.__mro__:
        return frozenset()

    def own(name):
        return getattr(component_class, name, None) is getattr(base, name, None)

    if not all(own(name) for name in _RUN_PLUMBING):
        return frozenset()
    methods = ("emit", "ack", "fail") if kind == BOLT else ("emit",)
    return frozenset(["run"] + [name for name in methods if own(name)])


class DirectInProcessComponent(InProcessComponent):
    """An in-process component whose pystorm plumbing is called past (the bolt's or the
    spout's kind below): used only where :func:`direct_calls` allows it; what it does not
    call past (a component's own ``emit``, a value of an unexpected type) takes the message
    path of :class:`InProcessComponent`, whose checks it then gets.  Calls never nest: what
    arrives while the component runs waits in ``_calls`` (see :meth:`_run_in_turn`).
    """

    def __init__(self, component_id, component_class, kind, on_action, on_died, executor,
                 task_id):
        super().__init__(component_id, component_class, kind, on_action, on_died)
        from pystorm.component import Tuple

        self._executor = executor
        self._task_id = task_id
        self._calls = collections.deque()
        self._tuple = Tuple

    def _run_in_turn(self, item, task_id=None):
        """``_run_one(item)`` now, or queued behind a call under way, then whatever was
        queued meanwhile, in order.  Takes the executor's ``receive`` arguments, so that a
        one-task bolt executor's ``receive`` can be a bolt's :meth:`execute` itself."""
        if self._running or self._dead:
            self._calls.append(item)
            return
        self._running = True
        try:
            run_one = self._run_one
            run_one(item)
            calls = self._calls
            while calls and not self._dead:
                run_one(calls.popleft())
        finally:
            self._running = False

    def _run_one(self, item):
        raise NotImplementedError


class DirectInProcessBolt(DirectInProcessComponent):
    """A bolt called past pystorm's plumbing and fused with its ShellBolt executor.

    The executor's ``receive`` for this task is :meth:`execute`, which does what
    ``ShellBoltExecutor.receive`` and pystorm's ``Bolt._run`` do one after the other: the
    input pending under a new id (sampled for its process latency), pystorm's ``Tuple`` to
    ``process`` (``process_tick``, a heartbeat's sync), pystorm's auto-ack, the execute
    counted.  ``emit``/``ack``/``fail`` (each where :func:`direct_calls` allows) do what
    pystorm's do with ShellBolt's ``handleEmit``/``handleAck``/``handleFail``: the anchors
    found among the pending inputs by their ids, the emit routed by the executor's
    per-stream task functions and ``send``; the acked or failed input taken out of the
    pending ones and given to the executor's ``acked``/``failed``.  The bookkeeping (pending
    inputs, message ids, acker messages, stats, back pressure) is the executor's own, shared
    with the message path; only the layers between are gone.
    """

    def __init__(self, component_id, component_class, on_action, on_died, executor, task_id,
                 calls):
        super().__init__(component_id, component_class, BOLT, on_action, on_died, executor,
                         task_id)
        from pystorm import Bolt

        self._pystorm_emit = Bolt.emit
        self._inputs = executor.inputs[task_id]
        self._tasks_fns = executor.tasks_fns
        self._send = executor.send
        self._transfer = executor.context.transfer
        self._generate_id = executor.context.generate_id
        self._now_ms = executor.context.now_ms
        self._stats = executor.stats
        self._acked = executor.acked
        self._input_taken = executor.input_taken
        self._next_id = 0
        component = self.component
        if "emit" in calls:
            component.emit = self.emit
        if "ack" in calls:
            component.ack = self.ack
        if "fail" in calls:
            component.fail = self.fail

    # -- what the executor calls

    def execute(self, tuple_, task_id=None):
        """``ShellBolt.execute`` of a tuple with pystorm's ``Bolt._run`` on it, never nested
        (the executor's ``receive`` arguments, so that it can be a one-task executor's)."""
        self._run_in_turn(tuple_)

    def _run_one(self, tuple_):
        """One input, as the class docstring says: pending, processed, auto-acked, counted."""
        self._next_id += 1
        tuple_id = str(self._next_id)
        self._inputs[tuple_id] = tuple_
        stats = self._stats
        # executor.clj: the process latency runs from here to the ack
        if stats.every_event or stats.sample():
            tuple_.process_sample_start_ms = self._now_ms()
        source_component = tuple_.source_component
        stream = tuple_.stream
        component = self.component
        try:
            values = tuple_.values
            # read_tuple's namedtuple of the values
            values_type = component._source_tuple_types[source_component].get(stream)
            if values_type is None:
                values = tuple(values)
            elif len(values) == len(values_type._fields):
                values = _new_tuple(values_type, values)  # values_type(*values), unchecked
            else:
                values = values_type(*values)  # raises as pystorm's read_tuple does
            source_task = tuple_.source_task
            tup = _new_tuple(self._tuple, (tuple_id, source_component, stream, source_task,
                                           values))
            component._current_tups = [tup]
            # is_heartbeat and is_tick, pystorm's own (direct_calls checked)
            if source_task == -1 and stream == "__heartbeat":
                component.send_message({"command": "sync"})
            elif source_component == "__system" and stream == "__tick":
                component.process_tick(tup)
                if component.auto_ack:
                    component.ack(tup)
            else:
                component.process(tup)
                if component.auto_ack:
                    component.ack(tup)
            component._current_tups = []
        except (SystemExit, Exception) as e:
            self._handle_run_exception(e)
        # ShellBolt.execute only hands the tuple over: no execute latency
        if stats.every_event or stats.sample_execute():
            stats.executed(source_component, stream, 0)

    # -- what the component calls

    def emit(self, tup, stream=None, anchors=None, direct_task=None, need_task_ids=False):
        """pystorm's ``Bolt.emit`` with ``ShellBolt.handleEmit``."""
        component = self.component
        if anchors is None:
            anchors = component._current_tups if component.auto_anchor else ()
        anchor_ids = _anchor_ids(anchors, self._tuple)
        if (anchor_ids is None or tup.__class__ not in _SEQUENCES
                or not (stream is None or stream.__class__ is str)
                or not (direct_task is None or direct_task.__class__ is int)):
            # pystorm's own emit, whose checks then speak
            return self._pystorm_emit(component, tup, stream, anchors, direct_task,
                                      need_task_ids)
        if self._dead:
            return None
        task_id = self._task_id
        if stream is None:
            stream = DEFAULT_STREAM_ID
        values = list(tup)
        inputs = self._inputs
        try:
            anchor_tuples = [inputs[anchor_id] for anchor_id in anchor_ids]
        except KeyError as e:
            self._executor._protocol_error(task_id, anchored_after_ack(e.args[0]))
            return None
        try:
            if direct_task is None:
                tasks_fn = self._tasks_fns.get(stream)
                targets = tasks_fn(task_id, values) if tasks_fn is not None else ()
            else:
                targets = self._executor.out_tasks(task_id, stream, values, direct_task)
        except GroupingError as e:
            self._executor._protocol_error(task_id, e)
            return None
        if len(anchor_tuples) == 1 and anchor_tuples[0].message_id.anchors_to_ids:
            self._send_anchored_to_one(task_id, stream, values, targets, anchor_tuples[0])
        else:  # unanchored: every tuple UNANCHORED, no ids drawn
            self._send(task_id, stream, values, targets,
                       bolt_emit_message_ids(anchor_tuples, targets, self._generate_id)
                       if anchor_tuples else None)
        return _emitted_task_ids(targets, direct_task, need_task_ids)

    def _send_anchored_to_one(self, task_id, stream, values, targets, anchor):
        """The executor's ``send`` of an emit anchored to one input of a tree (pystorm's
        auto-anchor), with the message ids of :func:`bolt_emit_message_ids` drawn in the same
        loop (as executor.clj's ``bolt-emit`` does)."""
        root_ids = anchor.message_id.anchors_to_ids
        transfer = self._transfer
        generate_id = self._generate_id
        for target in targets:
            edge_id = generate_id()
            anchor.ack_val ^= edge_id
            transfer(target, task_id, stream, MessageId(dict.fromkeys(root_ids, edge_id)),
                     values)
        self._stats.emitted_to(stream, len(targets))

    def ack(self, tup):
        """pystorm's ``Bolt.ack`` with ``ShellBolt.handleAck``."""
        tuple_ = self._take(tup, "ack", "Acked")
        if tuple_ is not None:
            self._acked(self._task_id, tuple_)

    def fail(self, tup):
        """pystorm's ``Bolt.fail`` with ``ShellBolt.handleFail``."""
        tuple_ = self._take(tup, "fail", "Failed")
        if tuple_ is not None:
            self._executor.failed(self._task_id, tuple_)

    def _take(self, tup, command, verb):
        """The pending input of ``tup`` (a pystorm ``Tuple`` or its id), taken out; None when
        there is none, what is wrong said as the message path says it (nothing once dead)."""
        tup_id = tup.id if isinstance(tup, self._tuple) else tup
        tuple_ = (self._inputs.pop(tup_id, None)
                  if tup_id.__class__ is str and not self._dead else None)
        if tuple_ is None:
            if tup_id.__class__ is not str:  # the checked path says what is wrong with it
                self._received({"command": command, "id": tup_id})
            elif not self._dead:
                self._executor._protocol_error(self._task_id, not_pending(verb, tup_id))
            return None
        self._input_taken()
        return tuple_


class DirectInProcessSpout(DirectInProcessComponent):
    """A spout called past pystorm's plumbing: the executor's command goes to its callback
    as pystorm's ``Spout._run`` does, then the sync; an ``emit`` (where :func:`direct_calls`
    allows) goes straight to the executor's ``spout_emit`` (ShellSpout's), with no message
    dict, no action and no copy beyond the emitted values' list."""

    def __init__(self, component_id, component_class, on_action, on_died, executor, task_id,
                 calls):
        super().__init__(component_id, component_class, SPOUT, on_action, on_died, executor,
                         task_id)
        from pystorm import Spout

        self._pystorm_emit = Spout.emit
        self._sync = executor._sync
        self._executor_emit = executor.spout_emit
        if "emit" in calls:
            self.component.emit = self._spout_emit

    # -- what the executor writes

    def write_spout_msg(self, command, message_id=""):
        self._run_in_turn((command, message_id))

    def _run_one(self, exchange):
        """pystorm's ``Spout._run`` on one command (and its message id), then its sync."""
        command, message_id = exchange
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
            self._handle_run_exception(e)
            return
        if not self._dead:
            self._sync(self._task_id)  # the executor's on_action of a Sync, called past

    # -- what the component calls

    def _spout_emit(self, tup, tup_id=None, stream=None, direct_task=None,
                    need_task_ids=False):
        """pystorm's ``Spout.emit`` into ``ShellSpout``'s emit."""
        if not _plain_emit(tup, stream, direct_task):
            return self._pystorm_emit(self.component, tup, tup_id, stream, direct_task,
                                      need_task_ids)
        if self._dead:
            return None
        try:
            targets = self._executor_emit(
                self._task_id, DEFAULT_STREAM_ID if stream is None else stream, list(tup),
                tup_id, direct_task)
        except GroupingError as e:
            self._executor._protocol_error(self._task_id, e)
            return None
        return _emitted_task_ids(targets, direct_task, need_task_ids)


# What a namedtuple's generated __new__ calls, without the call through it.
_new_tuple = tuple.__new__


def _plain_emit(tup, stream, direct_task):
    """Whether an emit's arguments are of the types pystorm's checks let through as they are
    (anything else takes pystorm's own emit, whose checks then speak)."""
    return (tup.__class__ in (list, tuple) and (stream is None or stream.__class__ is str)
            and (direct_task is None or direct_task.__class__ is int))


_SEQUENCES = (list, tuple)


def _anchor_ids(anchors, tuple_class):
    """The ids of ``anchors`` (pystorm ``Tuple``s or ids) as pystorm's ``emit`` reads them; None
    when one is not a str (pystorm's emit then says what is wrong)."""
    if anchors.__class__ is list and len(anchors) == 1:  # pystorm's auto-anchor
        anchor_id = anchors[0]
        if anchor_id.__class__ is tuple_class:
            anchor_id = anchor_id.id
        return (anchor_id,) if anchor_id.__class__ is str else None
    anchor_ids = [a.id if isinstance(a, tuple_class) else a for a in anchors]
    return anchor_ids if _all_str(anchor_ids) else None


def _all_str(values):
    for value in values:
        if value.__class__ is not str:
            return False
    return True


def _emitted_task_ids(targets, direct_task, need_task_ids):
    """What pystorm's ``emit`` returns: the task ids only when asked for (a direct emit's
    own task, as pystorm gives it)."""
    if not need_task_ids:
        return None
    return [direct_task] if direct_task is not None else list(targets)  # never a grouper's own


def launch_in_process(executor):
    """What replaces launching ``executor``'s multilang children: one
    :class:`InProcessComponent` per task, set up at once (``ShellBolt.prepare``/
    ``ShellSpout.open``).  A Deferred, failed if a component's set-up raised."""
    conf = executor.context.storm_conf
    component_class = executor.component_class
    kind = executor.kind
    calls = direct_calls(component_class, kind)
    direct = DirectInProcessBolt if kind == BOLT else DirectInProcessSpout
    for task_id in executor.task_ids:
        on_action = (lambda action, task_id=task_id: executor.on_action(task_id, action))
        if calls:
            component = direct(executor.component_id, component_class, on_action,
                               executor._died, executor, task_id, calls)
        else:
            component = InProcessComponent(executor.component_id, component_class, kind,
                                           on_action, executor._died)
        executor.processes[task_id] = component
        context = topology_context_json(executor.context.user_topology,
                                        executor.context.task_to_component, task_id)
        try:
            component.launch(conf, context)
        except InProcessStartError as e:
            return defer.fail(e)
    return defer.succeed(None)


class InProcessBoltExecutor(ShellBoltExecutor):
    """A streamparse bolt in process: ShellBolt's executor, its child replaced
    (:func:`launch_in_process`); a task's :class:`DirectInProcessBolt` takes its tuples
    itself."""

    kind = BOLT

    def __init__(self, *args, component_class, **kwargs):
        super().__init__(*args, **kwargs)
        self.component_class = component_class

    def launch_children(self):
        started = launch_in_process(self)
        if len(self.task_ids) == 1:
            process = self.processes.get(self.task_ids[0])
            if process.__class__ is DirectInProcessBolt:
                self.receive = process.execute  # one call fewer per tuple
        return started

    def receive(self, tuple_, task_id=None):
        process = self.processes.get(self.task_ids[0] if task_id is None else task_id)
        if process.__class__ is DirectInProcessBolt:
            process.execute(tuple_)
        else:
            super().receive(tuple_, task_id)


class InProcessSpoutExecutor(ShellSpoutExecutor):
    """A streamparse spout in process: ShellSpout's executor, its child replaced
    (:func:`launch_in_process`), and ``nextTuple`` called in batches (the module docstring
    says how)."""

    kind = SPOUT

    def __init__(self, *args, component_class, **kwargs):
        super().__init__(*args, **kwargs)
        self.component_class = component_class
        self._command = {task_id: None for task_id in self.task_ids}
        self._next_emitted = {task_id: False for task_id in self.task_ids}
        self._in_batch = False

    def launch_children(self):
        return launch_in_process(self)

    def _exchange(self, task_id, command, message_id=""):
        """One exchange, never inside another (in process the spout's call is under way
        until its sync): one asked for meanwhile, an ack from a local acker say, waits."""
        if self._in_flight[task_id] or self._queued[task_id]:
            self._queued[task_id].append((command, message_id))
            return
        self._start_exchange(task_id, command, message_id)

    def _start_exchange(self, task_id, command, message_id):
        self._command[task_id] = command
        # the base's, named: a compiled cpdef method has no super()
        ShellSpoutExecutor._start_exchange(self, task_id, command, message_id)

    def _sync(self, task_id):
        """The end of an exchange, which in process comes before ``_exchange`` returns:
        whether a ``next`` emitted is kept for :meth:`_next_tuples`, which alone paces the
        spout."""
        asked_in_vain = self._end_exchange(task_id) == NEXT_EMPTY
        if self._command[task_id] == "next":
            self._next_emitted[task_id] = not asked_in_vain
        queued = self._queued[task_id]
        if queued:
            self._start_exchange(task_id, *queued.popleft())
        elif not self._in_batch:
            self._schedule_next(0)

    def _next_tuples(self):
        """executor.clj's spout loop, up to ``NEXT_TUPLE_BATCH`` rounds in one reactor turn:
        ``nextTuple`` on every idle task while active, below max spout pending and not
        throttled; after a round in which no task emitted, the idle wait."""
        self._next_call = None
        self._in_batch = True
        try:
            for _ in range(NEXT_TUPLE_BATCH):
                if not self.active or self.pending.reached_max_spout_pending():
                    return  # an ack, a fail or the activation schedules the next round
                if self.context.throttled():
                    self._schedule_next(SPOUT_IDLE_WAIT_SECS)
                    return
                emitted = False
                for task_id in self.task_ids:
                    if not self._in_flight[task_id]:
                        self._next_emitted[task_id] = False
                        self._exchange(task_id, "next")
                        emitted = emitted or self._next_emitted[task_id]
                if not emitted:
                    self._schedule_next(SPOUT_IDLE_WAIT_SECS)
                    return
        finally:
            self._in_batch = False
        self._schedule_next(0)
