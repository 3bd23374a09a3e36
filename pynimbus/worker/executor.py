"""One executor per assigned task range: the loop a spout, a bolt, the acker and the
``__system`` component plug into (the thin shell around the pure ack bookkeeping).

Follows Storm 1.2.4 executor.clj ``mk-executor``/``mk-threads`` for spouts and bolts, with
``task.ShellBolt`` and ``spout.ShellSpout`` as the only user components a Python worker runs.
Instead of a disruptor queue and a thread per executor, tuples arrive as calls on the reactor
thread (``receive``), and an emit is routed at once through the worker's ``transfer``
(local tasks are queued and run on a later reactor turn; remote ones go to the transport).

The worker hands each executor a :class:`WorkerContext`: what ``mk-executor-data`` reads
from the worker (conf, system topology, task ids, routing, time, error reporting).
"""

import collections
import logging

from twisted.internet import defer

from pynimbus.clojure_port.system_topology import (
    ACKER_ACK_STREAM_ID, ACKER_COMPONENT_ID, ACKER_INIT_STREAM_ID, SYSTEM_COMPONENT_ID,
    SYSTEM_TICK_STREAM_ID, is_system_id)
from pynimbus.worker.acker import Acker, bolt_fail
from pynimbus.worker.groupings import (
    GroupingError, only_target_task, out_tasks_direct, stream_tasks_fns)
from pynimbus.worker.message_id import UNANCHORED, MessageId, bolt_emit_message_ids
from pynimbus.worker.multilang.serializers import serializer_for
from pynimbus.worker.multilang.shell_msg import (
    Ack, Emit, Fail, MultilangProtocolError, ReportError, ShellBoltInputs, Sync,
    needs_task_ids_reply, subprocess_timeout_secs)
from pynimbus.worker.multilang.shell_process import BOLT, SPOUT, ShellProcess, child_env
from pynimbus.worker.multilang.topology_context import topology_context_json
from pynimbus.worker.spout_pending import ACK, SpoutPending, executor_max_spout_pending

log = logging.getLogger(__name__)

SYSTEM_TASK_ID = -1  # Constants.SYSTEM_TASK_ID: the source task of tick tuples
TOPOLOGY_TICK_TUPLE_FREQ_SECS = "topology.tick.tuple.freq.secs"
TOPOLOGY_ENABLE_MESSAGE_TIMEOUTS = "topology.enable.message.timeouts"
TOPOLOGY_EXECUTOR_RECEIVE_BUFFER_SIZE = "topology.executor.receive.buffer.size"
DEFAULT_RECEIVE_BUFFER_SIZE = 1024  # 1.2.4 defaults.yaml
# ShellSpout under Storm's default spout wait strategy: after a nextTuple that emitted
# nothing, wait a millisecond before asking again.
SPOUT_IDLE_WAIT_SECS = 0.001
# Exchanges written to a spout's child before their syncs come back (more acks and fails wait
# in the executor), and how many of them may be nexts.
PIPELINED_SPOUT_EXCHANGES = 64
PIPELINED_NEXTS = 32
# what each exchange under way is: an ack, fail, activate or deactivate; a next that has
# emitted nothing so far; a next that emitted
OTHER_EXCHANGE, NEXT_EMPTY, NEXT_EMITTED = 0, 1, 2

WorkerContext = collections.namedtuple(
    "WorkerContext",
    "storm_id storm_conf system_topology user_topology task_to_component transfer "
    "report_error reactor now_ms generate_id has_ackers resources_dir pid_dir child_env "
    "compat throttled room_again")
WorkerContext.__doc__ = """What an executor reads from its worker.

``transfer(dest_task, source_task, stream, message_id, values)`` delivers one tuple (local or
remote); ``report_error(component_id, text)`` writes a component error; ``now_ms()`` the time;
``generate_id()`` a random 64-bit id; ``child_env`` the environment of multilang children.
``throttled()`` tells a spout to wait (a full queue somewhere in the worker); an executor
calls ``room_again()`` when its queue drains below its limit.
``user_topology`` is the topology as submitted: user components see it in their context
(worker.clj ``user-topology-context`` reads ``:topology``, not ``:system-topology``), so a
multilang child is never told of the acker's streams.
"""


class TupleImpl(object):
    """A received tuple: where it came from, its values and its ack bookkeeping
    (``message_id``, ``ack_val`` as :mod:`pynimbus.worker.message_id` reads them)."""

    __slots__ = ("source_task", "source_component", "stream", "values", "message_id",
                 "ack_val", "process_sample_start_ms")

    def __init__(self, source_task, source_component, stream, values, message_id):
        self.source_task = source_task
        self.source_component = source_component
        self.stream = stream
        self.values = values
        self.message_id = message_id
        self.ack_val = 0
        self.process_sample_start_ms = None


class Executor(object):
    """The shared part of every executor: its tasks, its outbound groupers and emitting.

    ``stream_to_component_to_grouper`` is ``outbound_components`` of the component;
    ``stats`` its :mod:`pynimbus.worker.stats` collector (executor.clj ``mk-executor-stats``).
    """

    is_spout = False
    # Whether the worker hands a local task's tuples to ``receive_values`` at once, in the
    # sender's call, rather than queued for a later reactor turn (see ``receive_values``).
    receives_at_once = False

    def __init__(self, context, component_id, task_ids, stream_to_component_to_grouper,
                 component_conf, stats):
        self.context = context
        self.component_id = component_id
        self.task_ids = list(task_ids)
        self.groupers = stream_to_component_to_grouper
        # {stream: tasks function} (task.clj mk-tasks-fn, one per stream)
        self.tasks_fns = stream_tasks_fns(stream_to_component_to_grouper)
        # a bolt's __ack_ack and a spout's __ack_init go to the same acker tasks
        self._acker_task = only_target_task(
            stream_to_component_to_grouper.get(ACKER_ACK_STREAM_ID)
            or stream_to_component_to_grouper.get(ACKER_INIT_STREAM_ID))
        self._local_ackers = {}  # {task: acker executor}, see found_local_executors
        self.component_conf = component_conf
        self.stats = stats
        self._tick_loop = None

    # -- lifecycle

    def start(self):
        self._start_ticks()

    def stop(self):
        """Stop timers and children; a Deferred (or None) that fires once they are gone."""
        if self._tick_loop is not None and self._tick_loop.active():
            self._tick_loop.cancel()
        self._tick_loop = None
        return None

    def ticks_enabled(self):
        """executor.clj ``setup-ticks!`` (1.2.4): no ticks for a system component (the
        acker included; 2.8.8 excepts the acker), nor for a spout when
        ``topology.enable.message.timeouts`` is false."""
        if is_system_id(self.component_id):
            return self.context.compat == "2.x" and self.component_id == ACKER_COMPONENT_ID
        return not (self.is_spout
                    and not self.component_conf.get(TOPOLOGY_ENABLE_MESSAGE_TIMEOUTS, True))

    def _start_ticks(self):
        """executor.clj ``setup-ticks!``: a ``__tick`` tuple (``[freq]`` from task -1) to
        every task every ``topology.tick.tuple.freq.secs`` of the component's conf (which
        is over the topology's)."""
        freq = self.component_conf.get(TOPOLOGY_TICK_TUPLE_FREQ_SECS)
        if freq is None or not self.ticks_enabled():
            return
        reactor = self.context.reactor

        def tick():
            self._tick_loop = reactor.callLater(freq, tick)
            for task_id in self.task_ids:
                self.receive(TupleImpl(SYSTEM_TASK_ID, SYSTEM_COMPONENT_ID,
                                       SYSTEM_TICK_STREAM_ID, [freq], UNANCHORED), task_id)
        self._tick_loop = reactor.callLater(freq, tick)

    # -- receiving

    def receive(self, tuple_, task_id=None):
        """Take one tuple for ``task_id`` (None: the executor's first task): by default
        :meth:`receive_values` of its source, stream and values."""
        self.receive_values(tuple_.source_task, tuple_.stream, tuple_.values,
                            self.task_ids[0] if task_id is None else task_id)

    def receive_values(self, source_task, stream, values, task_id):
        """Take one tuple from a task of this worker at once, in its sender's call (only
        where ``receives_at_once``): for executors whose input is the acker protocol's
        bookkeeping (the acker, spouts), which never runs user code on a tuple's values
        and so needs neither a ``TupleImpl`` nor a queue."""
        raise NotImplementedError

    def has_room(self):
        """False while the executor holds as many unfinished tuples as it may
        (``topology.executor.receive.buffer.size``, the size of Storm's receive queue)."""
        return True

    # -- emitting

    def emit(self, task_id, stream, values, direct_task=None):
        """Route one unanchored emit of ``task_id``: its out tasks by the groupings (or
        ``direct_task``), then :meth:`send`.  Returns the out tasks."""
        targets = self.out_tasks(task_id, stream, values, direct_task)
        self.send(task_id, stream, values, targets)
        return targets

    def out_tasks(self, task_id, stream, values, direct_task=None):
        """task.clj ``mk-tasks-fn``: the tasks an emit of ``values`` on ``stream`` goes to.

        :raises GroupingError: the stream's grouping does not allow this emit."""
        if direct_task is None:
            tasks_fn = self.tasks_fns.get(stream)
            return tasks_fn(task_id, values) if tasks_fn is not None else ()
        return out_tasks_direct(self.groupers, self.context.task_to_component, direct_task,
                                stream)

    def send(self, task_id, stream, values, targets, message_ids=None):
        """One transfer per out task (with its message id from ``message_ids``, in the
        order of ``targets``; unanchored when None), then the emit counted."""
        transfer = self.context.transfer
        if message_ids is None:
            for target in targets:
                transfer(target, task_id, stream, UNANCHORED, values)
        else:
            for target, message_id in zip(targets, message_ids):
                transfer(target, task_id, stream, message_id, values)
        self.stats.emitted_to(stream, len(targets))

    def found_local_executors(self, task_to_executor):
        """The worker built its executors (``{task: executor}``): the local acker tasks,
        which take tuples at once, get this executor's acker messages by a direct call."""
        self._local_ackers = {task: executor for task, executor in task_to_executor.items()
                              if executor.component_id == ACKER_COMPONENT_ID
                              and executor.receives_at_once}

    def send_to_acker(self, task_id, stream, values):
        """An unanchored emit of ``task_id`` on one of the acker's streams, to the acker task
        its fields grouping picks (the topology's only acker task without the hash, as the
        grouping has no other choice): at once when that task is local (an ``__ack_ack`` as
        ``receive_ack``: its ids are this worker's ints), else by ``transfer``."""
        acker_task = self._acker_task
        if acker_task is None:
            targets = self.out_tasks(task_id, stream, values)
            if len(targets) != 1:
                self.send(task_id, stream, values, targets)
                return
            acker_task = targets[0]
        acker = self._local_ackers.get(acker_task)
        if acker is not None:
            if stream == ACKER_ACK_STREAM_ID:
                acker.receive_ack(values[0], values[1], acker_task)
            else:
                acker.receive_values(task_id, stream, values, acker_task)
        else:
            self.context.transfer(acker_task, task_id, stream, UNANCHORED, values)
        self.stats.emitted_to(stream, 1)

    def emit_acker_messages(self, task_id, acker_emits):
        """Send the acker's ``Emit`` values (to the acker by grouping, or to a spout task)."""
        for acker_emit in acker_emits:
            self.emit(task_id, acker_emit.stream, acker_emit.values, acker_emit.task)

    def report_error(self, text):
        self.context.report_error(self.component_id, text)


class NoopBoltExecutor(Executor):
    """``__system``, ``__eventlogger`` and metrics consumers: take tuples, do nothing (the
    worker's system bolt answers only ticks in Storm; the others have nowhere to write)."""

    receives_at_once = True

    def receive_values(self, source_task, stream, values, task_id):
        pass


class AckerExecutor(Executor):
    """The ``__acker`` bolt: acker.clj on :class:`~pynimbus.worker.acker.Acker`."""

    receives_at_once = True

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.acker = Acker(self.context.compat)

    def receive_values(self, source_task, stream, values, task_id):
        try:
            emits = self.acker.execute(stream, values, self.context.now_ms)
        except (ValueError, TypeError) as e:
            log.warning("acker %d: dropped a malformed tuple on %s: %s", task_id, stream, e)
            return
        if emits:
            self.emit_acker_messages(task_id, emits)

    def receive_ack(self, root_id, ack_val, task_id):
        """A local bolt's ``__ack_ack`` ``[root_id, ack_val]`` for acker task ``task_id``
        (its ack value an int): what :meth:`receive_values` does with it, without the
        stream's dispatch or the values' list."""
        emits = self.acker.ack(root_id, ack_val, self.context.now_ms)
        if emits:
            self.emit_acker_messages(task_id, emits)


class ShellExecutor(Executor):
    """The common part of shell spouts and bolts: one :class:`ShellProcess` per task,
    running ``command`` (argv) in the resources directory with ``env`` added to the
    worker's environment (``ShellProcess.modifyEnvironment``)."""

    kind = None

    def __init__(self, context, component_id, task_ids, groupers, component_conf, stats,
                 command, on_child_died, env=None):
        super().__init__(context, component_id, task_ids, groupers, component_conf, stats)
        self.command = command
        self.env = env or {}
        self.on_child_died = on_child_died
        self.processes = {}

    def launch_children(self):
        """``ShellBolt.prepare``/``ShellSpout.open``: start and handshake every task's child;
        a Deferred that fires when all answered."""
        conf = self.context.storm_conf
        serializer = serializer_for(conf)
        timeout = subprocess_timeout_secs(conf)
        env = child_env(self.context.child_env, self.env)
        handshakes = []
        for task_id in self.task_ids:
            process = ShellProcess(
                self.component_id, serializer, self.kind,
                on_action=lambda action, task_id=task_id: self.on_action(task_id, action),
                on_died=self._died, clock=self.context.reactor, timeout_secs=timeout)
            self.processes[task_id] = process
            context_json = topology_context_json(self.context.user_topology,
                                                 self.context.task_to_component, task_id)
            handshakes.append(process.launch(
                self.context.reactor, self.command, self.context.resources_dir,
                env, self.context.pid_dir, conf, context_json))
        return defer.DeferredList(handshakes, fireOnOneErrback=True, consumeErrors=True)

    def stop(self):
        super().stop()
        ended = [process.kill() for process in self.processes.values()]
        return defer.DeferredList(ended) if ended else None

    def _died(self, message):
        """ShellBolt's ``die``: the worker reports the error, then exits (Storm: code 11)."""
        self.on_child_died(self.component_id, message)

    def on_action(self, task_id, action):
        raise NotImplementedError

    def _protocol_error(self, task_id, error):
        self.processes[task_id]._die_and_kill("%s %s" % (self.component_id, error))


class ShellBoltExecutor(ShellExecutor):
    """A ``ShellComponent`` bolt: executor.clj's bolt side with ``ShellBolt``'s handlers."""

    kind = BOLT

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.inputs = {task_id: ShellBoltInputs() for task_id in self.task_ids}
        self._next_tuple_id = 0
        self.receive_buffer_size = self.context.storm_conf.get(
            TOPOLOGY_EXECUTOR_RECEIVE_BUFFER_SIZE, DEFAULT_RECEIVE_BUFFER_SIZE)
        self._full = False  # has_room said no, and the worker is not yet told of room again

    def has_room(self):
        size = self.receive_buffer_size
        for inputs in self.inputs.values():
            if len(inputs) >= size:
                self._full = True
                return False
        return True

    def receive(self, tuple_, task_id=None):
        task_id = self.task_ids[0] if task_id is None else task_id
        process = self.processes.get(task_id)
        if process is None:
            return
        self._next_tuple_id += 1
        tuple_id = str(self._next_tuple_id)
        self.inputs[task_id].put(tuple_id, tuple_)
        stats = self.stats
        # executor.clj: the process latency runs from here to the ack
        if stats.every_event or stats.sample():
            tuple_.process_sample_start_ms = self.context.now_ms()
        process.write_bolt_msg(tuple_id, tuple_.source_component, tuple_.stream,
                               tuple_.source_task, tuple_.values)
        # ShellBolt.execute only hands the tuple to the child
        if stats.every_event or stats.sample_execute():
            stats.executed(tuple_.source_component, tuple_.stream, 0)

    def on_action(self, task_id, action):
        try:
            if isinstance(action, Emit):
                targets = self.bolt_emit(task_id, action.stream, action.values,
                                         action.anchors, action.direct_task)
                if needs_task_ids_reply(action):
                    self.processes[task_id].write_task_ids(targets)
            elif isinstance(action, Ack):
                self.ack_input(task_id, action.id)
            elif isinstance(action, Fail):
                self.fail_input(task_id, action.id)
            elif isinstance(action, ReportError):
                self.report_error(action.message)
        except (MultilangProtocolError, GroupingError) as e:
            self._protocol_error(task_id, e)

    def bolt_emit(self, task_id, stream, values, anchor_ids, direct_task=None):
        """``ShellBolt.handleEmit``: route what ``task_id`` emitted anchored to the inputs of
        ``anchor_ids``; returns the out tasks.

        :raises MultilangProtocolError: an anchor is no pending input.
        :raises GroupingError: the stream's grouping does not allow this emit."""
        anchors = self.inputs[task_id].anchors(anchor_ids) if anchor_ids else None
        targets = self.out_tasks(task_id, stream, values, direct_task)
        # unanchored: every tuple UNANCHORED, no ids drawn
        self.send(task_id, stream, values, targets,
                  bolt_emit_message_ids(anchors, targets, self.context.generate_id)
                  if anchors else None)
        return targets

    def ack_input(self, task_id, tuple_id):
        """``ShellBolt.handleAck``: the pending input of ``tuple_id`` :meth:`acked`.

        :raises MultilangProtocolError: ``tuple_id`` is no pending input."""
        self.acked(task_id, self._take_input(task_id, tuple_id, "Acked"))

    def fail_input(self, task_id, tuple_id):
        """``ShellBolt.handleFail``: the pending input of ``tuple_id`` :meth:`failed`.

        :raises MultilangProtocolError: ``tuple_id`` is no pending input."""
        self.failed(task_id, self._take_input(task_id, tuple_id, "Failed"))

    def acked(self, task_id, tuple_):
        """executor.clj bolt ``ack`` of an input taken out of the pending ones (the acker's
        messages as :func:`~pynimbus.worker.acker.bolt_ack` gives them), the process latency
        counted for a sampled tuple."""
        if self.context.has_ackers:
            ack_val = tuple_.ack_val
            for root_id, edge_id in tuple_.message_id.anchors_to_ids.items():
                self.send_to_acker(task_id, ACKER_ACK_STREAM_ID, [root_id, edge_id ^ ack_val])
        self._record_input(tuple_, self.stats.acked)

    def failed(self, task_id, tuple_):
        """executor.clj bolt ``fail`` of an input taken out of the pending ones, counted for a
        sampled tuple."""
        if self.context.has_ackers:
            self.emit_acker_messages(task_id, bolt_fail(tuple_))
        self._record_input(tuple_, self.stats.failed)

    def _take_input(self, task_id, tuple_id, verb):
        """The pending input of ``tuple_id``, taken out (:meth:`input_taken`)."""
        tuple_ = self.inputs[task_id].take(tuple_id, verb)
        self.input_taken()
        return tuple_

    def input_taken(self):
        """An input left the executor: if it was full, the worker is told once it has room
        again."""
        if self._full and self.has_room():
            self._full = False
            self.context.room_again()

    def _record_input(self, tuple_, record):
        """``record`` (the stats' acked or failed) a sampled input with its process latency."""
        start_ms = tuple_.process_sample_start_ms
        if start_ms is not None:
            record(tuple_.source_component, tuple_.stream, self.context.now_ms() - start_ms)


class ShellSpoutExecutor(ShellExecutor):
    """A ``ShellComponent`` spout: executor.clj's spout loop with ``ShellSpout``'s exchanges.

    ``nextTuple`` is asked for while the spout is active, no exchange is waiting for its
    ``sync`` and fewer than ``topology.max.spout.pending`` trees are pending, at once when
    the previous exchange ends (a millisecond later after a ``next`` that emitted nothing);
    acks, fails and timeouts from the acker go to the child as ``ack``/``fail`` exchanges.

    Deliberate difference: ``ShellSpout`` writes an exchange only after the previous one's
    sync, so each ack and each ``nextTuple`` costs the spout a round trip with its child, and
    the child waits while the worker attends to other executors.  Here exchanges are written
    without waiting (up to ``PIPELINED_SPOUT_EXCHANGES``, of them ``PIPELINED_NEXTS``
    nexts: a window that doubles with each next that emitted and is one again after one that
    did not) and the child answers each with its sync, in order, as multilang children read
    commands (pystorm and Storm's ``storm.py`` queue those that arrive while they wait for
    task ids).  A next is written only while the trees pending plus the nexts under way are
    fewer than ``topology.max.spout.pending``, so the bound holds as in Storm (a
    ``nextTuple`` that emits several trees passes it as in Storm); after a next that emitted
    nothing, no other is written until the wait strategy's millisecond is over, so an idle
    spout is asked once per wait, as in Storm.
    """

    kind = SPOUT
    is_spout = True
    receives_at_once = True

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        ctx = self.context
        self.pending = SpoutPending(
            executor_max_spout_pending(ctx.storm_conf, len(self.task_ids), ctx.compat),
            ctx.has_ackers, ctx.generate_id)
        self.active = False
        self.ready = False
        # per task, what each exchange written and not yet synced is (OTHER_EXCHANGE,
        # NEXT_EMPTY, NEXT_EMITTED), oldest first: only a next that emitted nothing makes
        # Storm's spout wait strategy wait
        self._in_flight = {task_id: collections.deque() for task_id in self.task_ids}
        self._queued = {task_id: collections.deque() for task_id in self.task_ids}
        self._nexts = {task_id: 0 for task_id in self.task_ids}  # nexts under way, per task
        # per task, how many nexts may be under way: doubled by each next that emitted, up
        # to PIPELINED_NEXTS, and back to one by a next that emitted nothing (so an idle
        # spout is asked once per wait, as Storm asks it)
        self._next_window = {task_id: 1 for task_id in self.task_ids}
        self._nexts_total = 0
        # per task, when the wait after a next that emitted nothing is over (0: no wait)
        self._rest_until = {task_id: 0.0 for task_id in self.task_ids}
        self._next_call = None

    def set_active(self, active):
        """The topology's status: ask for tuples only while ACTIVE; tell the children of
        each change (the spout loop's ``activate``/``deactivate`` on ``last-active``)."""
        changed = active != self.active
        self.active = active
        if changed and self.ready:
            self._tell_status()
        self._schedule_next(0)

    def children_ready(self, _result=None):
        self.ready = True
        if self.active:
            self._tell_status()
        self._schedule_next(0)
        return _result

    def _tell_status(self):
        for task_id in self.task_ids:
            self._exchange(task_id, "activate" if self.active else "deactivate")

    def receive_values(self, source_task, stream, values, task_id):
        """A tick or the acker's word on a tree: the spout's ``ack``/``fail`` exchanges
        (never inside the spout's own call: the child reads them after it)."""
        try:
            callbacks = self.pending.execute(task_id, stream, values, self.context.now_ms())
        except ValueError as e:
            log.warning("spout %s: %s", self.component_id, e)
            return
        self._call_back(callbacks)
        self._schedule_next(0)

    def _call_back(self, callbacks):
        """The spout's ``ack``/``fail`` as exchanges with its child; sampled trees counted."""
        for callback in callbacks:
            if callback.kind == ACK:
                command, record = "ack", self.stats.acked
            else:
                command, record = "fail", self.stats.failed
            if callback.time_delta_ms is not None:
                record(callback.stream, callback.time_delta_ms)
            self._exchange(callback.task_id, command, callback.message_id)

    def _exchange(self, task_id, command, message_id=""):
        """Write an ack, fail, activate or deactivate exchange now if the pipeline has room,
        else queue it (a ``next`` is only written by :meth:`_ask_next`)."""
        queued = self._queued[task_id]
        if queued or len(self._in_flight[task_id]) >= PIPELINED_SPOUT_EXCHANGES:
            queued.append((command, message_id))
            return
        self._start_exchange(task_id, command, message_id)

    def _start_exchange(self, task_id, command, message_id):
        if command == "next":
            self._in_flight[task_id].append(NEXT_EMPTY)
            self._nexts[task_id] += 1
            self._nexts_total += 1
        else:
            self._in_flight[task_id].append(OTHER_EXCHANGE)
        self.processes[task_id].write_spout_msg(command, message_id)

    def _end_exchange(self, task_id):
        """The oldest exchange under way ends (its sync came): what it was, or None when
        none was under way."""
        in_flight = self._in_flight[task_id]
        if not in_flight:
            return None
        kind = in_flight.popleft()
        if kind != OTHER_EXCHANGE:
            self._nexts[task_id] -= 1
            self._nexts_total -= 1
        return kind

    def _schedule_next(self, delay):
        if self._next_call is None and self.ready:
            self._next_call = self.context.reactor.callLater(delay, self._next_tuples)

    def _next_tuples(self):
        """executor.clj's spout loop, one turn: ``nextTuple`` on every task that may be
        asked (the wait after an empty one is over)."""
        self._next_call = None
        for task_id in self.task_ids:
            if not self._ask_next(task_id):
                return

    def _room_for_a_next(self):
        """Below ``topology.max.spout.pending``, the nexts under way counted."""
        most = self.pending.max_spout_pending
        return most is None or self.pending.pending_count() + self._nexts_total < most

    def _ask_next(self, task_id):
        """Write nexts to ``task_id`` while the loop would call ``nextTuple`` and the pipeline
        has room; False when no task may be asked (inactive, at max spout pending, or
        throttled: then asked again a moment later)."""
        if not self.active:
            return False
        if self.context.throttled():
            self._schedule_next(SPOUT_IDLE_WAIT_SECS)
            return False
        if self._rest_until[task_id]:
            wait = self._rest_until[task_id] - self.context.reactor.seconds()
            if wait > 0:
                self._schedule_next(wait)
                return True
            self._rest_until[task_id] = 0.0
        in_flight = self._in_flight[task_id]
        while (not self._queued[task_id] and self._nexts[task_id] < self._next_window[task_id]
               and len(in_flight) < PIPELINED_SPOUT_EXCHANGES):
            if not self._room_for_a_next():
                return False
            self._start_exchange(task_id, "next", "")
        return True

    def on_action(self, task_id, action):
        try:
            if isinstance(action, Emit):
                self._emit(task_id, action)
            elif isinstance(action, Sync):
                self._sync(task_id)
            elif isinstance(action, ReportError):
                self.report_error(action.message)
        except GroupingError as e:
            self._protocol_error(task_id, e)

    def _sync(self, task_id):
        kind = self._end_exchange(task_id)
        if kind is None:
            return  # a sync no exchange asked for: nothing ends
        queued = self._queued[task_id]
        while queued and len(self._in_flight[task_id]) < PIPELINED_SPOUT_EXCHANGES:
            self._start_exchange(task_id, *queued.popleft())
        if kind == NEXT_EMITTED:
            self._next_window[task_id] = min(2 * self._next_window[task_id], PIPELINED_NEXTS)
        elif kind == NEXT_EMPTY:
            self._next_window[task_id] = 1
            if not self._rest_until[task_id]:  # the wait strategy's pause, then asked again
                self._rest_until[task_id] = (self.context.reactor.seconds()
                                             + SPOUT_IDLE_WAIT_SECS)
        if self.ready:
            self._ask_next(task_id)

    def _emit(self, task_id, emit):
        reply = (self.processes[task_id].write_task_ids if needs_task_ids_reply(emit)
                 else None)
        self.spout_emit(task_id, emit.stream, emit.values, emit.message_id,
                        emit.direct_task, reply)

    def spout_emit(self, task_id, stream, values, message_id, direct_task=None,
                   task_ids_reply=None):
        """``ShellSpout``'s emit of ``task_id``: routed, its tree (if ``message_id`` is not
        None) pending and told to the acker, the out tasks given to ``task_ids_reply`` (if
        any) before the spout hears of a tree already complete; returns the out tasks.

        :raises GroupingError: the stream's grouping does not allow this emit."""
        in_flight = self._in_flight.get(task_id)
        if in_flight and in_flight[0] == NEXT_EMPTY:  # the child answers in order: the
            in_flight[0] = NEXT_EMITTED                 # emit is of the oldest exchange
        start_ms = self.context.now_ms() if self.stats.sample() else None
        targets = self.out_tasks(task_id, stream, values, direct_task)
        send = self.pending.send_spout_msg(task_id, stream, message_id, targets, start_ms)
        self.send(task_id, stream, values, targets, send.message_ids)
        for init in send.acker_emits:
            self.send_to_acker(task_id, init.stream, init.values)
        if task_ids_reply is not None:
            task_ids_reply(targets)
        self._call_back(send.callbacks)
        return targets


def receive_message_id(anchors_to_ids):
    """The MessageId of a tuple from the wire (its map of root to edge ids)."""
    return MessageId(anchors_to_ids) if anchors_to_ids else UNANCHORED

