"""A Trident program's components as component hosts of the worker's executors.

* :class:`MasterCoordinatorHost`: the ``$mastercoord-bg<n>`` spout (``MasterBatchCoordinator``)
  on a :class:`~pynimbus.worker.executor.SpoutExecutor`: ``next``, ``ack`` and ``fail`` of its
  batches (message ids are the ``TransactionAttempt``s), ``activate``/``deactivate``;
* :class:`SpoutCoordinatorHost`: a ``$spoutcoord-*`` bolt (``TridentSpoutCoordinator``, a basic
  bolt: its emits anchored to the input, the input acked after, failed on
  ``FailedException``);
* :class:`BatchBoltHost`: a ``TridentBoltExecutor`` (``spout-*`` and ``b-*``);
* :class:`BatchTriggerHost`: a DRPC stream's ``spout-<function><n>`` spout
  (``RichSpoutBatchTriggerer`` over the DRPC spout), on a spout executor.

The bolts run on a :class:`~pynimbus.worker.trident.executor.BatchBoltExecutor`: a host is
given each received tuple as its own id, and acks, fails and anchors to it.

Each task runs its own copy of the planned object (Storm: each task deserializes its own).
Data tuples go out unanchored at once; a host's coordination (anchored emits, acks, fails,
every emit of the master coordinator) waits until the task's writes to ``/transactional`` are stored
(:meth:`TransactionalStore.when_written`), so a batch never completes on state a crash could
lose.  An exception other than ``FailedException`` is a component error: reported, the worker
stops (Storm's report-error-and-die).
"""

import collections
import copy
import logging
import os
import traceback

from twisted.internet import defer

from pynimbus.trident.batch_coordination import (
    BATCH_STREAM_ID, MasterBatchCoordinator, TridentSpoutCoordinator)
from pynimbus.trident.batch_executor import TridentSpoutExecutor
from pynimbus.common.drpc_invocations import (
    RequestFetcher, invocations_port, servers_of_task)
from pynimbus.trident.context import TridentTopologyContext
from pynimbus.trident.drpc import RichSpoutBatchTriggerer
from pynimbus.trident.operation import FailedException, ReportedFailedException
from pynimbus.trident.partitioned_spout import (
    OpaquePartitionedTridentSpoutExecutor, PartitionedTridentSpoutExecutor)
from pynimbus.trident.transactional_state import COORDINATOR, USER
from pynimbus.worker.component_host import ComponentHost
from pynimbus.worker.groupings import GroupingError

log = logging.getLogger(__name__)


class WorkerTridentContext(TridentTopologyContext):
    """The topology context of one task, with the worker's ``/transactional`` store and its
    way to the DRPC servers (``results``: the worker's
    :class:`~pynimbus.common.drpc_invocations.ResultReturner`)."""

    def __init__(self, store, results, *args):
        super().__init__(*args)
        self.store = store
        self.results = results

    def new_transactional_state(self, state_id, subroot):
        return self.store.state(state_id, subroot)

    def drpc_requests(self, function, local_drpc_id=None):
        """The requests of ``function`` from this task's servers of ``drpc.servers``
        (``DRPCSpout.open``), fetched by a thread."""
        if local_drpc_id is not None:
            raise RuntimeError(
                "the DRPC stream %r takes its requests from an in-process DRPC (local_drpc), "
                "which a worker cannot reach: build the program without local_drpc to submit "
                "it" % function)
        conf = self.storm_conf
        hosts = servers_of_task(conf.get("drpc.servers") or [],
                                len(self.get_component_tasks(self.component_id)),
                                self.get_this_task_index())
        return RequestFetcher(function, hosts, invocations_port(conf))

    def drpc_return(self, host, port, request_id, result):
        self.results.send(host, port, request_id, result)


def states_of(obj):
    """``[(id, subroot)]`` of the transactional states a planned object opens."""
    if isinstance(obj, MasterBatchCoordinator):
        return [(spout_id, COORDINATOR) for spout_id in obj.managed_spout_ids]
    if isinstance(obj, TridentSpoutCoordinator):
        return [(obj.tx_state_id, COORDINATOR)]
    bolt = getattr(obj, "bolt", None)
    if isinstance(bolt, TridentSpoutExecutor) and isinstance(
            bolt.spout, (PartitionedTridentSpoutExecutor, OpaquePartitionedTridentSpoutExecutor)):
        return [(bolt.tx_state_id, USER)]
    return []


class TridentHost(ComponentHost):
    """What the three hosts share: the task's copy of the object, its context, the hold on
    coordination while writes are under way, and dying."""

    def __init__(self, executor, task_id, planned, store, results):
        super().__init__()
        self.executor = executor
        self.task_id = task_id
        self.component_id = executor.component_id
        self.pid = os.getpid()
        self.obj = copy.deepcopy(planned)
        self.store = store
        self.dead = False
        self.held = collections.deque()
        self.prepared = False
        self.early = []  # (tuple id, tuple) executed before the states were read
        ctx = executor.context
        self.context = WorkerTridentContext(store, results, ctx.storm_conf, ctx.user_topology,
                                            ctx.task_to_component, self.component_id, task_id)

    def launch(self):
        """Read the task's transactional states (in a thread), then prepare the object."""
        states = states_of(self.obj)
        d = self.store.preload(states) if states else defer.succeed(None)
        d.addCallback(lambda _: self._prepare_checked())
        return d

    def _prepare_checked(self):
        try:
            self.prepare()
        except Exception:
            raise RuntimeError("%s: prepare raised:\n%s" % (self.component_id,
                                                            traceback.format_exc()))
        self.prepared = True
        early, self.early = self.early, []
        for tuple_id, tuple_ in early:  # what came while the states were read, in order
            self.execute(tuple_id, tuple_)
        return self.pid

    def not_ready(self, tuple_id, tuple_):
        """Whether the task is still reading its states: then the tuple waits for it (a
        multilang child's pipe holds what comes before its handshake the same way)."""
        if self.prepared:
            return False
        self.early.append((tuple_id, tuple_))
        return True

    def prepare(self):
        raise NotImplementedError

    def kill(self):
        self.dead = True
        return defer.succeed(None)

    # -- coordination held while the task's writes are under way

    def coordinate(self, action, *args):
        """Run ``action(*args)`` now, or after the writes under way and what waits before."""
        if not self.held and not self.store.pending:
            action(*args)
            return
        self.held.append((action, args))
        if len(self.held) == 1:
            self.store.when_written().addCallback(self._release)

    def _release(self, _):
        while self.held and not self.dead:
            if self.store.pending:  # written again meanwhile: wait for those too
                self.store.when_written().addCallback(self._release)
                return
            action, args = self.held.popleft()
            try:
                action(*args)
            except GroupingError as e:
                self.die("%s %s" % (self.component_id, e))

    # -- failures

    def raised(self, e):
        """An exception of the component: reported, the worker dies."""
        exception = "".join(traceback.format_exception_only(type(e), e)).strip()
        self.die("%s raised in process: %s\n%s"
                 % (self.component_id, exception, traceback.format_exc()))

    def die(self, message):
        if self.dead:
            return
        self.dead = True
        self.executor.child_died(message)

    def report_error(self, error):
        if isinstance(error, BaseException):
            text = "".join(traceback.format_exception(type(error), error,
                                                      error.__traceback__))
        else:
            text = str(error)
        self.executor.report_error(text)


class BatchBoltHost(TridentHost):
    """A ``TridentBoltExecutor`` task: its collector is the executor's emit, ack and fail."""

    def prepare(self):
        ctx = self.executor.context
        self.obj.prepare(ctx.storm_conf, self.context, self, ctx.now_ms)

    def execute(self, tuple_id, tuple_):
        """The received tuple (its own id, :class:`BatchBoltExecutor`) to the task's
        ``TridentBoltExecutor``."""
        if self.dead or self.not_ready(tuple_id, tuple_):
            return
        try:
            self.obj.execute(tuple_)
        except GroupingError as e:
            self.die("%s %s" % (self.component_id, e))
        except Exception as e:
            self.raised(e)

    # the TridentBoltExecutor's collector

    def emit(self, stream, values, anchor):
        if anchor is None:  # a data tuple: at once (its count is taken now)
            return self.executor.emit_to(self.task_id, stream, values, None)
        self.coordinate(self.executor.emit_to, self.task_id, stream, values, [anchor])
        return ()

    def emit_direct(self, task, stream, values, anchor):
        if anchor is None:
            self.executor.emit_to(self.task_id, stream, values, None, task)
        else:
            self.coordinate(self.executor.emit_to, self.task_id, stream, values, [anchor],
                            task)

    def ack(self, tuple_):
        if not tuple_.message_id.anchors_to_ids:  # a data tuple: its ack tells the acker
            self.executor.acked(self.task_id, tuple_)  # nothing, so it need not wait
            return
        self.coordinate(self.executor.acked, self.task_id, tuple_)

    def fail(self, tuple_):
        self.coordinate(self.executor.failed, self.task_id, tuple_)


class BasicCollector(object):
    """``BasicOutputCollector``: emits anchored to the input being executed."""

    def __init__(self, host, anchor):
        self.host = host
        self.anchor = anchor

    def emit(self, stream, values):
        host = self.host
        host.coordinate(host.executor.emit_to, host.task_id, stream, values, [self.anchor])

    def report_error(self, error):
        self.host.report_error(error)


class SpoutCoordinatorHost(TridentHost):
    """A ``TridentSpoutCoordinator`` task: a basic bolt (``BasicBoltExecutor``)."""

    def prepare(self):
        self.obj.prepare(self.executor.context.storm_conf, self.context)

    def execute(self, tuple_id, tuple_):
        if self.dead or self.not_ready(tuple_id, tuple_):
            return
        try:
            self.obj.execute(tuple_, BasicCollector(self, tuple_))
        except FailedException as e:
            if isinstance(e, ReportedFailedException):
                self.report_error(e)
            self.coordinate(self.executor.failed, self.task_id, tuple_)
            return
        except GroupingError as e:
            self.die("%s %s" % (self.component_id, e))
            return
        except Exception as e:
            self.raised(e)
            return
        self.coordinate(self.executor.acked, self.task_id, tuple_)


class SpoutTaskHost(TridentHost):
    """A Trident spout task whose exchanges end within the call: each command to the
    object, then the sync."""

    def command(self, command, message_id=""):
        if self.dead:
            return
        obj = self.obj
        try:
            if command == "next":
                obj.next_tuple()
            elif command == "ack":
                obj.ack(message_id)
            elif command == "fail":
                self.failing(message_id)
                obj.fail(message_id)
            elif command == "activate":
                obj.activate()
            elif command == "deactivate":
                obj.deactivate()
        except GroupingError as e:
            self.die("%s %s" % (self.component_id, e))
        except Exception as e:
            self.raised(e)
        if not self.dead:
            self.executor.sync(self.task_id)

    def failing(self, message_id):
        """``message_id``'s tree failed (before the object hears of it)."""


class MasterCoordinatorHost(SpoutTaskHost):
    """The ``MasterBatchCoordinator`` task."""

    def prepare(self):
        ctx = self.executor.context
        self.obj.open(ctx.storm_conf, self.context, self, ctx.now_ms)

    def failing(self, message_id):
        log.info("Trident batch %s of %s failed: it is replayed", message_id, self.component_id)

    # the spout's collector

    def emit(self, stream, values, message_id):
        if stream == BATCH_STREAM_ID and message_id.attempt_id > 0:
            log.info("Trident batch %s of %s: txid %d replayed, attempt %d", message_id,
                     self.component_id, message_id.txid, message_id.attempt_id)
        # every emit waits for the writes before it: ``$success`` (unanchored) too, or a
        # crash could lose the next txid after the spouts dropped what a replay needs
        self.coordinate(self.executor.spout_emit, self.task_id, stream, values, message_id)


class BatchTriggerHost(SpoutTaskHost):
    """A DRPC stream's spout task (``RichSpoutBatchTriggerer`` over the DRPC spout): each
    request a batch of its own."""

    def prepare(self):
        self.obj.open(self.executor.context.storm_conf, self.context, self)

    def kill(self):
        self.dead = True
        if self.prepared:
            self.obj.close()
        return defer.succeed(None)

    # the triggerer's collector (nothing of it touches /transactional: no hold)

    def emit(self, stream, values, message_id):
        return self.executor.spout_emit(self.task_id, stream, values, message_id)

    def emit_direct(self, task, stream, values, message_id):
        self.executor.spout_emit(self.task_id, stream, values, message_id, task)


def host_factory(planned, store, results):
    """``host_factory(executor, task_id)`` of a planned Trident object; ``results`` returns
    the DRPC streams' results."""
    if isinstance(planned, MasterBatchCoordinator):
        kind = MasterCoordinatorHost
    elif isinstance(planned, RichSpoutBatchTriggerer):
        kind = BatchTriggerHost
    elif isinstance(planned, TridentSpoutCoordinator):
        kind = SpoutCoordinatorHost
    else:
        kind = BatchBoltHost

    def make(executor, task_id):
        return kind(executor, task_id, planned, store, results)
    return make
