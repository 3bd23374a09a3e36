"""One executor per assigned task range: the loop a spout, a bolt, the acker and the
``__system`` component plug into (the thin shell around the pure ack bookkeeping).

Follows Storm 1.2.4 executor.clj ``mk-executor``/``mk-threads`` for spouts and bolts, with
``task.ShellBolt`` and ``spout.ShellSpout`` as the only user components a Python worker runs,
and 2.8.8's executor interface: everything that arrives for an executor (a tuple of a local or
remote task, an acker message, a tick) goes through :meth:`Executor.receive` into its
:class:`~pynimbus.worker.receive_queue.ReceiveQueue`; the worker's loop hands each queued
tuple to :meth:`Executor.accept` and calls :meth:`Executor.flush` after each batch (2.8.8's
``JCQueue.Consumer``).  An emit is routed at once through the worker's ``transfer``, into the
receiving executor's queue or to the transport.

A bolt or a spout runs its component through one *host* per task, which it drives the same way
whichever it is (:mod:`pynimbus.worker.component_host` says what a host does): a multilang child
(:mod:`pynimbus.worker.multilang.shell_host`) or the component in the worker's own process
(:mod:`pynimbus.worker.inprocess`).  The host gives the component's emits, acks, fails, syncs
and errors back through the executor's methods below (``bolt_emit``, ``ack_input``,
``fail_input``; ``spout_emit``, ``sync``; ``report_error``, ``child_died``), so the routing,
anchoring, acking, max spout pending and stats are written once.

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
from pynimbus.worker.groupings import only_target_task, out_tasks_direct, stream_tasks_fns
from pynimbus.worker.message_id import UNANCHORED, MessageId, bolt_emit_message_ids
from pynimbus.worker.multilang.shell_msg import ShellBoltInputs
from pynimbus.worker.receive_queue import ReceiveQueue, watermarks
from pynimbus.worker.spout_pending import ACK, SpoutPending, executor_max_spout_pending

log = logging.getLogger(__name__)

SYSTEM_TASK_ID = -1  # Constants.SYSTEM_TASK_ID: the source task of tick tuples
TOPOLOGY_TICK_TUPLE_FREQ_SECS = "topology.tick.tuple.freq.secs"
TOPOLOGY_ENABLE_MESSAGE_TIMEOUTS = "topology.enable.message.timeouts"
TOPOLOGY_EXECUTOR_RECEIVE_BUFFER_SIZE = "topology.executor.receive.buffer.size"
DEFAULT_RECEIVE_BUFFER_SIZE = 1024  # 1.2.4 defaults.yaml (2.8.8: 32768)
# ShellSpout under Storm's default spout wait strategy: after a nextTuple that emitted
# nothing, wait a millisecond before asking again.
SPOUT_IDLE_WAIT_SECS = 0.001
# Nexts at most in one reactor turn for a spout whose host answers within the call.
NEXT_TUPLE_BATCH = 100
# Nexts that may be under way with a host that answers later: a window doubled by each next
# that emitted, up to this, and one again after a next that emitted nothing.
PIPELINED_NEXTS = 32
# what each exchange under way is: an ack, fail, activate or deactivate; a next that has
# emitted nothing so far; a next that emitted
OTHER_EXCHANGE, NEXT_EMPTY, NEXT_EMITTED = 0, 1, 2

WorkerContext = collections.namedtuple(
    "WorkerContext",
    "storm_id storm_conf system_topology user_topology task_to_component transfer "
    "report_error reactor now_ms generate_id has_ackers resources_dir pid_dir child_env "
    "compat throttled loop")
WorkerContext.__doc__ = """What an executor reads from its worker.

``transfer(dest_task, source_task, stream, message_id, values)`` delivers one tuple (local or
remote); ``report_error(component_id, text)`` writes a component error; ``now_ms()`` the time;
``generate_id()`` a random 64-bit id; ``child_env`` the environment of multilang children.
``throttled()`` tells a spout to wait (a full receive queue in the worker, or a full send
buffer to another worker); ``loop`` is the worker's
:class:`~pynimbus.worker.receive_queue.ExecutorLoop`, which drains the executors' queues.
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


def receive_buffer_size(storm_conf):
    """``topology.executor.receive.buffer.size``: the capacity of a receive queue."""
    return int(storm_conf.get(TOPOLOGY_EXECUTOR_RECEIVE_BUFFER_SIZE)
               or DEFAULT_RECEIVE_BUFFER_SIZE)


class Executor(object):
    """The shared part of every executor: its tasks, its receive queue, its outbound groupers
    and emitting.

    ``stream_to_component_to_grouper`` is ``outbound_components`` of the component;
    ``stats`` its :mod:`pynimbus.worker.stats` collector (executor.clj ``mk-executor-stats``).
    """

    is_spout = False
    # Whether the executor may refuse a tuple for a while (``can_accept``).
    limits_accepting = False

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
        self.component_conf = component_conf
        self.stats = stats
        # None, or the TupleWatch (pynimbus.worker.event_logger) that logs the tuples under
        # topology.debug and samples emits for the event logger: one check when off
        self.watch = None
        self._tick_loop = None
        high, low = watermarks(context.storm_conf, receive_buffer_size(context.storm_conf))
        self.queue = ReceiveQueue(self, context.loop, high, low)

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
        is over the topology's), through the receive queue."""
        freq = self.component_conf.get(TOPOLOGY_TICK_TUPLE_FREQ_SECS)
        if freq is None or not self.ticks_enabled():
            return
        reactor = self.context.reactor

        def tick():
            self._tick_loop = reactor.callLater(freq, tick)
            for task_id in self.task_ids:
                self.receive(task_id, TupleImpl(SYSTEM_TASK_ID, SYSTEM_COMPONENT_ID,
                                                SYSTEM_TICK_STREAM_ID, [freq], UNANCHORED))
        self._tick_loop = reactor.callLater(freq, tick)

    # -- receiving

    def receive(self, task_id, tuple_):
        """The one way in: ``tuple_`` for ``task_id`` joins the receive queue."""
        self.queue.put(task_id, tuple_)

    def accept(self, task_id, tuple_):
        """Execute one tuple the queue hands over (2.8.8 ``Executor.accept``)."""
        raise NotImplementedError

    def can_accept(self, task_id):
        """Whether the next tuple, for ``task_id``, may be handed over now (asked only where
        ``limits_accepting``)."""
        return True

    def flush(self):
        """The end of a batch handed over (2.8.8 ``Executor.flush``)."""

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

    def send_to_acker(self, task_id, stream, values):
        """An unanchored emit of ``task_id`` on one of the acker's streams, to the acker task
        its fields grouping picks (the topology's only acker task without the hash, as the
        grouping has no other choice)."""
        acker_task = self._acker_task
        if acker_task is None:
            self.emit(task_id, stream, values)
            return
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

    def accept(self, task_id, tuple_):
        pass


class AckerExecutor(Executor):
    """The ``__acker`` bolt: acker.clj on :class:`~pynimbus.worker.acker.Acker`."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.acker = Acker(self.context.compat)

    def accept(self, task_id, tuple_):
        stream = tuple_.stream
        try:
            if stream == ACKER_ACK_STREAM_ID:  # every acked tuple's: no dispatch
                root_id, ack_val = tuple_.values
                emits = self.acker.ack(root_id, ack_val, self.context.now_ms)
            else:
                emits = self.acker.execute(stream, tuple_.values, self.context.now_ms)
        except (ValueError, TypeError) as e:
            log.warning("acker %d: dropped a malformed tuple on %s: %s", task_id,
                        tuple_.stream, e)
            return
        if emits:
            self.emit_acker_messages(task_id, emits)


class HostedExecutor(Executor):
    """The common part of a bolt's and a spout's executor: one component host per task,
    made by ``host_factory(executor, task_id)``; ``on_child_died(component_id, message)``
    when a host's component dies (the worker reports it, then exits)."""

    def __init__(self, context, component_id, task_ids, groupers, component_conf, stats,
                 host_factory, on_child_died):
        super().__init__(context, component_id, task_ids, groupers, component_conf, stats)
        self.host_factory = host_factory
        self.on_child_died = on_child_died
        self.hosts = {}

    def launch_children(self):
        """``ShellBolt.prepare``/``ShellSpout.open``: start every task's host; a Deferred
        that fires when all of them answered their handshake."""
        launched = []
        for task_id in self.task_ids:
            host = self.host_factory(self, task_id)
            self.hosts[task_id] = host
            launched.append(host.launch())
        self.hosts_launched()
        return defer.DeferredList(launched, fireOnOneErrback=True, consumeErrors=True)

    def hosts_launched(self):
        """Every host is made (their handshakes may be under way)."""

    def stop(self):
        super().stop()
        ended = [host.kill() for host in self.hosts.values()]
        return defer.DeferredList(ended) if ended else None

    def child_died(self, message):
        """ShellBolt's ``die``: the worker reports the error, then exits (Storm: code 11)."""
        self.on_child_died(self.component_id, message)


class BoltExecutor(HostedExecutor):
    """A ``ShellComponent`` bolt: executor.clj's bolt side with ``ShellBolt``'s handlers.

    While a task's host is ``paused`` (a child that reads its stdin no more) the executor
    takes no tuple from its queue, which then fills (the backpressure of
    :mod:`pynimbus.worker.receive_queue`), until the host resumes.
    """

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.inputs = {task_id: ShellBoltInputs() for task_id in self.task_ids}
        self._next_tuple_id = 0

    def hosts_launched(self):
        self.limits_accepting = any(host.can_pause for host in self.hosts.values())

    def can_accept(self, task_id):
        host = self.hosts.get(task_id)
        return host is None or not host.paused

    def host_resumed(self):
        """A paused host takes input again: what waited in the queue goes on."""
        self.queue.wake()

    def accept(self, task_id, tuple_):
        """``ShellBolt.execute``: the input pending under a new id (sampled for its process
        latency), handed to the task's host, the execute counted."""
        host = self.hosts.get(task_id)
        if host is None:
            return
        tuple_id = self.pend(task_id, tuple_)
        stats = self.stats
        # executor.clj: the process latency runs from here to the ack
        if stats.every_event or stats.sample():
            tuple_.process_sample_start_ms = self.context.now_ms()
        host.execute(tuple_id, tuple_)
        # ShellBolt.execute only hands the tuple to the child: no execute latency
        if stats.every_event or stats.sample_execute():
            stats.executed(tuple_.source_component, tuple_.stream, 0)

    def pend(self, task_id, tuple_):
        """The input pending under a new id (the id its host acks, fails and anchors it
        by)."""
        self._next_tuple_id += 1
        tuple_id = str(self._next_tuple_id)
        self.inputs[task_id][tuple_id] = tuple_
        return tuple_id

    def bolt_emit(self, task_id, stream, values, anchor_ids, direct_task=None):
        """``ShellBolt.handleEmit``: route what ``task_id`` emitted anchored to the inputs of
        ``anchor_ids``; returns the out tasks.

        :raises MultilangProtocolError: an anchor is no pending input.
        :raises GroupingError: the stream's grouping does not allow this emit."""
        anchors = self.inputs[task_id].anchors(anchor_ids) if anchor_ids else None
        return self.emit_to(task_id, stream, values, anchors, direct_task)

    def emit_to(self, task_id, stream, values, anchors, direct_task=None):
        """executor.clj's bolt ``emit``: route what ``task_id`` emitted anchored to the input
        tuples ``anchors`` (None: unanchored); returns the out tasks.

        :raises GroupingError: the stream's grouping does not allow this emit."""
        if direct_task is None:
            tasks_fn = self.tasks_fns.get(stream)
            targets = tasks_fn(task_id, values) if tasks_fn is not None else ()
        else:
            targets = self.out_tasks(task_id, stream, values, direct_task)
        if anchors is None:  # unanchored: every tuple UNANCHORED, no ids drawn
            self.send(task_id, stream, values, targets)
        elif len(anchors) == 1 and anchors[0].message_id.anchors_to_ids:
            self._send_anchored_to_one(task_id, stream, values, targets, anchors[0])
        else:
            self.send(task_id, stream, values, targets,
                      bolt_emit_message_ids(anchors, targets, self.context.generate_id))
        if self.watch is not None:
            self.watch.emitted(self, task_id, stream, values, None, direct_task)
        return targets

    def _send_anchored_to_one(self, task_id, stream, values, targets, anchor):
        """:meth:`send` of an emit anchored to one input of a tree (pystorm's auto-anchor),
        with the message ids of :func:`bolt_emit_message_ids` drawn in the same loop (as
        executor.clj's ``bolt-emit`` does)."""
        root_ids = anchor.message_id.anchors_to_ids
        transfer = self.context.transfer
        generate_id = self.context.generate_id
        for target in targets:
            edge_id = generate_id()
            anchor.ack_val ^= edge_id
            transfer(target, task_id, stream, MessageId(dict.fromkeys(root_ids, edge_id)),
                     values)
        self.stats.emitted_to(stream, len(targets))

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
        if self.watch is not None:
            self.watch.bolt_acked(task_id, tuple_, self._process_delta(tuple_))

    def failed(self, task_id, tuple_):
        """executor.clj bolt ``fail`` of an input taken out of the pending ones, counted for a
        sampled tuple."""
        if self.context.has_ackers:
            self.emit_acker_messages(task_id, bolt_fail(tuple_))
        self._record_input(tuple_, self.stats.failed)
        if self.watch is not None:
            self.watch.bolt_failed(task_id, tuple_, self._process_delta(tuple_))

    def _take_input(self, task_id, tuple_id, verb):
        """The pending input of ``tuple_id``, taken out."""
        return self.inputs[task_id].take(tuple_id, verb)

    def _record_input(self, tuple_, record):
        """``record`` (the stats' acked or failed) a sampled input with its process latency."""
        start_ms = tuple_.process_sample_start_ms
        if start_ms is not None:
            record(tuple_.source_component, tuple_.stream, self.context.now_ms() - start_ms)

    def _process_delta(self, tuple_):
        """executor.clj ``tuple-time-delta!``: ms since a sampled input's execute, else -1."""
        start_ms = tuple_.process_sample_start_ms
        return -1 if start_ms is None else self.context.now_ms() - start_ms


class SpoutExecutor(HostedExecutor):
    """A ``ShellComponent`` spout: executor.clj's spout loop with ``ShellSpout``'s exchanges.

    ``nextTuple`` is asked for while the spout is active, not throttled and fewer than
    ``topology.max.spout.pending`` trees are pending; acks, fails and timeouts from the acker
    (arriving through the receive queue) go to the component as ``ack``/``fail`` exchanges.
    After a ``next`` that emitted nothing the task rests for the wait strategy's millisecond,
    so an idle spout is asked once per wait, as in Storm.

    A host that answers within the call (``host.pipelined_exchanges`` 1 and the sync before
    ``command`` returns: the component in process) is asked up to ``NEXT_TUPLE_BATCH`` nexts
    per reactor turn.  Deliberate difference with a host that answers later (a multilang
    child): ``ShellSpout`` writes an exchange only after the previous one's sync, so each ack
    and each ``nextTuple`` costs a round trip with the child; here up to
    ``host.pipelined_exchanges`` are written without waiting (of them up to ``PIPELINED_NEXTS``
    nexts: a window that doubles with each next that emitted and is one again after one that
    did not) and the child answers each with its sync, in order, as multilang children read
    commands (pystorm and Storm's ``storm.py`` queue those that arrive while they wait for
    task ids).  A next is written only while the trees pending plus the nexts under way are
    fewer than ``topology.max.spout.pending``, so the bound holds as in Storm (a
    ``nextTuple`` that emits several trees passes it as in Storm).
    """

    is_spout = True

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        ctx = self.context
        self.pending = SpoutPending(
            executor_max_spout_pending(ctx.storm_conf, len(self.task_ids), ctx.compat),
            ctx.has_ackers, ctx.generate_id)
        self.active = False
        self.ready = False
        self.pipeline = 1  # exchanges under way per task, at most (the hosts')
        # per task, what each exchange started and not yet synced is (OTHER_EXCHANGE,
        # NEXT_EMPTY, NEXT_EMITTED), oldest first
        self._in_flight = {task_id: collections.deque() for task_id in self.task_ids}
        self._queued = {task_id: collections.deque() for task_id in self.task_ids}
        self._nexts = {task_id: 0 for task_id in self.task_ids}  # nexts under way, per task
        # per task, how many nexts may be under way (see the class docstring)
        self._next_window = {task_id: 1 for task_id in self.task_ids}
        self._nexts_total = 0
        # per task, when the wait after a next that emitted nothing is over (0: no wait)
        self._rest_until = {task_id: 0.0 for task_id in self.task_ids}
        self._next_call = None
        self._starting = False  # exchanges are being started (a sync within waits for it)
        # times the loop asked for no tuple, by reason (builtin_metrics.clj's spout throttling
        # counts, each time adding the stats' rate as upstream does)
        self.skipped_inactive = 0
        self.skipped_throttle = 0
        self.skipped_max_spout = 0

    def hosts_launched(self):
        self.pipeline = min(host.pipelined_exchanges for host in self.hosts.values())

    def set_active(self, active):
        """The topology's status: ask for tuples only while ACTIVE; tell the components of
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

    def halt(self):
        """Ask for no more tuples, telling the components nothing (the worker is dying)."""
        self.active = False
        self.ready = False
        if self._next_call is not None and self._next_call.active():
            self._next_call.cancel()
        self._next_call = None

    def _tell_status(self):
        for task_id in self.task_ids:
            self._exchange(task_id, "activate" if self.active else "deactivate")

    def accept(self, task_id, tuple_):
        """A tick or the acker's word on a tree: the spout's ``ack``/``fail`` exchanges."""
        try:
            callbacks = self.pending.execute(task_id, tuple_.stream, tuple_.values,
                                             self.context.now_ms())
        except ValueError as e:
            log.warning("spout %s: %s", self.component_id, e)
            return
        self._call_back(callbacks)

    def flush(self):
        self._schedule_next(0)

    def _call_back(self, callbacks):
        """The spout's ``ack``/``fail`` as exchanges with its component; sampled trees
        counted."""
        for callback in callbacks:
            if callback.kind == ACK:
                command, record = "ack", self.stats.acked
            else:
                command, record = "fail", self.stats.failed
            if callback.time_delta_ms is not None:
                record(callback.stream, callback.time_delta_ms)
            if self.watch is not None:
                self.watch.spout_called_back(callback, callback.kind == ACK)
            self._exchange(callback.task_id, command, callback.message_id)

    def _exchange(self, task_id, command, message_id=""):
        """An ack, fail, activate or deactivate exchange: started now if the pipeline has
        room, else after those queued (a ``next`` is only started by :meth:`_ask_next`)."""
        self._queued[task_id].append((command, message_id))
        self._start_queued(task_id)

    def _start_queued(self, task_id):
        """Start the queued exchanges of ``task_id`` while the pipeline has room; in a loop,
        never by recursion (a host answering within the call syncs inside ``command``)."""
        if self._starting:
            return
        self._starting = True
        try:
            self._drain_queued(task_id)
        finally:
            self._starting = False

    def _drain_queued(self, task_id):
        queued = self._queued[task_id]
        in_flight = self._in_flight[task_id]
        while queued and len(in_flight) < self.pipeline:
            command, message_id = queued.popleft()
            self._start_exchange(task_id, command, message_id)

    def _start_exchange(self, task_id, command, message_id):
        if command == "next":
            self._in_flight[task_id].append(NEXT_EMPTY)
            self._nexts[task_id] += 1
            self._nexts_total += 1
        else:
            self._in_flight[task_id].append(OTHER_EXCHANGE)
        self.hosts[task_id].command(command, message_id)

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
        """Start nexts on ``task_id`` while the loop would call ``nextTuple`` and the pipeline
        has room (at most ``NEXT_TUPLE_BATCH`` in this call); False when no task may be asked
        (inactive, at max spout pending, or throttled: then asked again a moment later)."""
        if not self.active:
            self.skipped_inactive += self.stats.rate
            return False
        throttled = self.context.throttled
        if throttled():
            self.skipped_throttle += self.stats.rate
            self._schedule_next(SPOUT_IDLE_WAIT_SECS)
            return False
        if self._rest_until[task_id]:
            wait = self._rest_until[task_id] - self.context.reactor.seconds()
            if wait > 0:
                self._schedule_next(wait)
                return True
            self._rest_until[task_id] = 0.0
        in_flight = self._in_flight[task_id]
        queued = self._queued[task_id]
        asked = 0
        self._starting = True  # a sync within starts nothing: this loop goes on
        try:
            while True:
                if queued:  # acks and fails go first (an emit's own, with no acker, say)
                    self._drain_queued(task_id)
                if (queued or self._nexts[task_id] >= self._next_window[task_id]
                        or len(in_flight) >= self.pipeline):
                    return True  # the syncs under way ask again
                if not self._room_for_a_next():
                    self.skipped_max_spout += self.stats.rate
                    return False
                if asked == NEXT_TUPLE_BATCH:
                    self._schedule_next(0)  # the rest on a later turn
                    return True
                if asked and throttled():
                    self.skipped_throttle += self.stats.rate
                    self._schedule_next(SPOUT_IDLE_WAIT_SECS)
                    return False
                asked += 1
                self._start_exchange(task_id, "next", "")
                if self._rest_until[task_id]:  # it came back empty, within the call
                    self._schedule_next(SPOUT_IDLE_WAIT_SECS)
                    return True
        finally:
            self._starting = False

    def sync(self, task_id):
        """``ShellSpout``'s sync: the oldest exchange of ``task_id`` ended; then the next
        queued exchanges start, and more nexts are asked for."""
        kind = self._end_exchange(task_id)
        if kind is None:
            return  # a sync no exchange asked for: nothing ends
        if kind == NEXT_EMITTED:
            self._next_window[task_id] = min(2 * self._next_window[task_id], PIPELINED_NEXTS)
        elif kind == NEXT_EMPTY:
            self._next_window[task_id] = 1
            if not self._rest_until[task_id]:  # the wait strategy's pause, then asked again
                self._rest_until[task_id] = (self.context.reactor.seconds()
                                             + SPOUT_IDLE_WAIT_SECS)
        if self._starting:
            return  # within a command: the loop that started it goes on
        self._start_queued(task_id)
        if self.ready:
            self._ask_next(task_id)

    def spout_emit(self, task_id, stream, values, message_id, direct_task=None,
                   task_ids_reply=None):
        """``ShellSpout``'s emit of ``task_id``: routed, its tree (if ``message_id`` is not
        None) pending and told to the acker, the out tasks given to ``task_ids_reply`` (if
        any) before the spout hears of a tree already complete; returns the out tasks.

        :raises GroupingError: the stream's grouping does not allow this emit."""
        in_flight = self._in_flight[task_id]
        if in_flight and in_flight[0] == NEXT_EMPTY:  # the component answers in order: the
            in_flight[0] = NEXT_EMITTED                 # emit is of the oldest exchange
        start_ms = self.context.now_ms() if self.stats.sample() else None
        targets = self.out_tasks(task_id, stream, values, direct_task)
        send = self.pending.send_spout_msg(task_id, stream, message_id, targets, start_ms)
        self.send(task_id, stream, values, targets, send.message_ids)
        for init in send.acker_emits:
            self.send_to_acker(task_id, init.stream, init.values)
        if self.watch is not None:
            self.watch.emitted(self, task_id, stream, values, message_id, direct_task)
        if task_ids_reply is not None:
            task_ids_reply(targets)
        self._call_back(send.callbacks)
        return targets


def receive_message_id(anchors_to_ids):
    """The MessageId of a tuple from the wire (its map of root to edge ids)."""
    return MessageId(anchors_to_ids) if anchors_to_ids else UNANCHORED
