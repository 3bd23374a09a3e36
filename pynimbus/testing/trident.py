"""Trident programs in the test's own process, for pytest: the plan Storm's planner makes
(:meth:`TridentTopology.build`), each task a copy of its planned object (the master batch
coordinators, the spout coordinators and executors, the DRPC streams' spouts, the batch
bolts), tuples routed by the worker's own groupers, tuple trees tracked so the coordinators
hear of their batches' acks and fails, ``/transactional`` state in memory, and DRPC through a
:class:`~pynimbus.testing.LocalDRPC`: Storm's ``with-local-cluster`` and ``LocalDRPC`` as
Storm's own Trident tests use them::

    from pynimbus.testing import LocalDRPC
    from pynimbus.testing.trident import FeederBatchSpout, LocalTridentTopology

    def test_word_count():
        feeder = FeederBatchSpout(["sentence"])
        topology = TridentTopology()
        counts = (topology.new_stream("tester", feeder)
                  .each(Fields("sentence"), Split(), Fields("word"))
                  .group_by(Fields("word"))
                  .persistent_aggregate(MemoryMapState.Factory(), Count(), Fields("count")))
        with LocalDRPC() as drpc:
            (topology.new_drpc_stream("words", drpc)
                .each(Fields("args"), Split(), Fields("word"))
                .group_by(Fields("word"))
                .state_query(counts, Fields("word"), MapGet(), Fields("count"))
                .aggregate(Fields("count"), Sum(), Fields("sum")))
            local = LocalTridentTopology(topology, drpc=drpc)
            local.feed(feeder, [["hello the man said"], ["the"]])
            assert drpc.execute("words", "the") == "[[2]]"

A round (:meth:`LocalTridentTopology.next_tuple`) asks every spout task for its next tuple,
in task order, and delivers everything that follows, in order, to the end; ``LocalDRPC``
runs rounds until its requests are answered, :meth:`LocalTridentTopology.feed` until the
batch that took the fed tuples has succeeded.

Deliberate differences from a cluster: time is the harness's, not the clock's: each round
moves it on by the batch emit interval (``topology.trident.batch.emit.interval.millis``, 0
here unless the conf says otherwise) plus a millisecond, so a round may start a batch
whenever ``topology.max.spout.pending`` lets it; tuples never time out, there are no ticks,
and an exception other than ``FailedException`` is raised to the test.
"""

import collections
import copy
import random

from pynimbus.common.drpc_invocations import return_info
from pynimbus.drpc.local import get_service
from pynimbus.testing import HarnessError, task_counts, task_to_component_of
from pynimbus.trident.batch_coordination import MasterBatchCoordinator, TridentSpoutCoordinator
from pynimbus.trident.context import TridentTopologyContext
from pynimbus.trident.drpc import RichSpoutBatchTriggerer
from pynimbus.trident.operation import FailedException, ReportedFailedException
from pynimbus.trident.spout import TOPOLOGY_MAX_TASK_PARALLELISM, IBatchSpout
from pynimbus.trident.topology import TridentTopology
from pynimbus.trident.transactional_state import MemoryTransactionalState
from pynimbus.worker.groupings import (
    GroupingError, component_to_sorted_tasks, mk_grouper_context, out_tasks, out_tasks_direct,
    outbound_components)

DEFAULT_CONF = {
    "topology.message.timeout.secs": 30,
    "topology.trident.batch.emit.interval.millis": 0,
    "topology.max.spout.pending": 1,
}
MAX_FEED_ROUNDS = 10000


class LocalTuple(object):
    """A delivered tuple: where it came from, its values, the tuple trees it is part of."""

    __slots__ = ("source_component", "source_task", "stream", "values", "roots")

    def __init__(self, source_component, source_task, stream, values, roots):
        self.source_component = source_component
        self.source_task = source_task
        self.stream = stream
        self.values = values
        self.roots = roots

    def __repr__(self):
        return "<%s:%s %r>" % (self.source_component, self.stream, self.values)


class LocalRequests(object):
    """A DRPC spout's requests from an in-process DRPC service (by its id)."""

    def __init__(self, service_id, function):
        self.service_id = service_id
        self.function = function

    def _service(self):
        service = get_service(self.service_id)
        if service is None:
            raise HarnessError("the local DRPC %s is shut down" % self.service_id)
        return service

    def fetch(self):
        request = self._service().fetchRequest(self.function)
        if not request.request_id:
            return None
        return (request.func_args, return_info(request.request_id, self.service_id, 0),
                (request.request_id, 0))

    def fail(self, message_id):
        self._service().failRequest(message_id[0])

    def close(self):
        pass


class LocalTridentContext(TridentTopologyContext):
    """A task's context: the ``/transactional`` states in the harness's memory, DRPC through
    the in-process services."""

    def __init__(self, harness, component_id, task_id):
        super().__init__(harness.conf, harness.topology, harness.task_to_component,
                         component_id, task_id)
        self.harness = harness

    def new_transactional_state(self, state_id, subroot):
        return MemoryTransactionalState(self.harness.state_trees.setdefault(
            (state_id, subroot), {}))

    def drpc_requests(self, function, local_drpc_id=None):
        service_id = local_drpc_id or self.harness.drpc_id
        if service_id is None:
            raise HarnessError("the DRPC stream %r has no local DRPC: give the stream one "
                               "(new_drpc_stream(function, drpc)) or the topology "
                               "(LocalTridentTopology(..., drpc=drpc))" % function)
        return LocalRequests(service_id, function)

    def drpc_return(self, host, port, request_id, result):
        service = get_service(host)
        if service is None:
            raise HarnessError("a result for the DRPC request %s names no local DRPC (%s)"
                               % (request_id, host))
        service.result(request_id, result)


class Task(object):
    """One task's copy of its planned object and the collector it was given."""

    def __init__(self, harness, task_id, component_id, planned):
        self.harness = harness
        self.task_id = task_id
        self.component_id = component_id
        self.is_spout = component_id in harness.topology.spouts
        self.is_basic = isinstance(planned, TridentSpoutCoordinator)  # a BasicBoltExecutor
        self.obj = copy.deepcopy(planned)
        self.context = LocalTridentContext(harness, component_id, task_id)
        self.errors = []
        self.current = None  # the tuple a basic bolt executes

    # the collectors' calls (the spouts', the batch bolts', a basic bolt's)

    def emit(self, stream, values, anchor_or_message_id=None):
        harness = self.harness
        if self.is_spout:
            return harness.spout_emit(self, stream, values, anchor_or_message_id)
        anchor = self.current if self.is_basic else anchor_or_message_id
        return harness.bolt_emit(self, stream, values, anchor)

    def emit_direct(self, task, stream, values, anchor_or_message_id=None):
        if self.is_spout:
            self.harness.spout_emit(self, stream, values, anchor_or_message_id, task)
        else:
            self.harness.bolt_emit(self, stream, values, anchor_or_message_id, task)

    def ack(self, tuple_):
        self.harness.settle(tuple_, failed=False)

    def fail(self, tuple_):
        self.harness.settle(tuple_, failed=True)

    def report_error(self, error):
        self.errors.append(error)


class LocalTridentTopology(object):
    """A Trident program (a ``TridentTopology``, or a function returning one) run in this
    process; see the module docstring.

    :param conf: topology conf over :data:`DEFAULT_CONF`.
    :param drpc: the :class:`~pynimbus.testing.LocalDRPC` whose requests the program's DRPC
        streams take when they name none themselves.  Each local DRPC the program uses runs
        this topology's rounds while it waits for an answer.
    :param seed: seeds the shuffle groupings.
    """

    def __init__(self, program, conf=None, drpc=None, seed=0):
        if not isinstance(program, TridentTopology) and callable(program):
            program = program()
        self.plan = program.build()
        self.topology = self.plan.topology
        self.conf = dict(DEFAULT_CONF, **(conf or {}))
        self.drpc_id = drpc.get_service_id() if drpc is not None else None
        self.now = 0  # the harness's time, in ms
        self.round_ms = int(self.conf.get("topology.trident.batch.emit.interval.millis")
                            or 0) + 1
        self.state_trees = {}
        self.activity = 0  # data tuples emitted so far (what LocalDRPC watches)
        self.task_to_component = task_to_component_of(task_counts(self.topology))
        self.component_to_tasks = component_to_sorted_tasks(self.task_to_component)
        context = mk_grouper_context(self.task_to_component, {
            "topology.disable.loadaware.messaging": True}, random.Random(seed), lambda: 0)
        try:
            self.routes = {c: outbound_components(context, self.topology, c,
                                                  self.component_to_tasks)
                           for c in self.component_to_tasks}
        except GroupingError as e:
            raise HarnessError(str(e))
        self.queue = collections.deque()
        self.pending_roots = {}  # root -> [spout task, message id, tuples outstanding]
        self.next_root = 1
        self.tasks = {}
        for task_id, component_id in sorted(self.task_to_component.items()):
            self.tasks[task_id] = Task(self, task_id, component_id,
                                       self.plan.components[component_id])
        for task in self.tasks.values():
            self._open(task)
        self.run_queue()
        for service in self._local_drpcs(drpc):
            service.attach(self)  # it runs this topology's rounds while it waits

    def _local_drpcs(self, drpc):
        """The in-process DRPCs the program's DRPC streams take requests from."""
        ids = [drpc.get_service_id()] if drpc is not None else []
        for obj in self.plan.components.values():
            if isinstance(obj, RichSpoutBatchTriggerer) and obj.delegate.local_drpc_id:
                ids.append(obj.delegate.local_drpc_id)
        services = []
        for service_id in dict.fromkeys(ids):
            service = get_service(service_id)
            if service is None:
                raise HarnessError("the local DRPC %s is shut down" % service_id)
            services.append(service)
        return services

    def _open(self, task):
        obj, conf, now_ms = task.obj, self.conf, (lambda: self.now)
        if isinstance(obj, MasterBatchCoordinator):
            obj.open(conf, task.context, task, now_ms)
        elif isinstance(obj, RichSpoutBatchTriggerer):
            obj.open(conf, task.context, task, random.Random(task.task_id))
        elif isinstance(obj, TridentSpoutCoordinator):
            obj.prepare(conf, task.context)
        else:
            obj.prepare(conf, task.context, task, now_ms)

    # -- driving

    def next_tuple(self, times=1):
        """``times`` rounds: ``next_tuple`` on every spout task, each followed by the
        delivery of everything it caused."""
        for _ in range(times):
            self.now += self.round_ms
            for task_id in sorted(self.tasks):
                task = self.tasks[task_id]
                if task.is_spout:
                    task.obj.next_tuple()
                    self.run_queue()
        return self

    def feed(self, feeder, rows, max_rounds=MAX_FEED_ROUNDS):
        """Give ``rows`` to ``feeder`` (a :class:`FeederBatchSpout` of this program) and run
        rounds until the batch that took them has succeeded (Storm's ``feed``).

        :raises HarnessError: not done after ``max_rounds`` rounds."""
        ticket = feeder.feed(rows)
        for _ in range(max_rounds):
            if feeder.succeeded(ticket):
                return self
            self.next_tuple()
        raise HarnessError("the batch of %r was not done after %d rounds" % (rows, max_rounds))

    def run_queue(self):
        while self.queue:
            kind, task, item = self.queue.popleft()
            if kind == "tuple":
                self._execute(task, item)
            elif kind == "ack":
                task.obj.ack(item)
            else:
                task.obj.fail(item)

    def _execute(self, task, tuple_):
        if task.is_basic:  # BasicBoltExecutor: acked after, failed on FailedException
            task.current = tuple_
            try:
                task.obj.execute(tuple_, task)
            except FailedException as e:
                if isinstance(e, ReportedFailedException):
                    task.report_error(e)
                self.settle(tuple_, failed=True)
                return
            finally:
                task.current = None
            self.settle(tuple_, failed=False)
        else:
            task.obj.execute(tuple_)

    # -- routing and tuple trees

    def _targets(self, task, stream, values, direct_task):
        try:
            if direct_task is not None:
                return out_tasks_direct(self.routes[task.component_id], self.task_to_component,
                                        direct_task, stream)
            return out_tasks(self.routes[task.component_id], task.task_id, stream, values)
        except GroupingError as e:
            raise HarnessError("%s: %s" % (task.component_id, e))

    def spout_emit(self, task, stream, values, message_id, direct_task=None):
        targets = self._targets(task, stream, values, direct_task)
        roots = ()
        if message_id is not None:
            root = self.next_root
            self.next_root += 1
            self.pending_roots[root] = [task, message_id, 0]
            roots = (root,)
        self._deliver(task, stream, values, targets, roots)
        for root in roots:
            self._maybe_complete(root)
        return targets

    def bolt_emit(self, task, stream, values, anchor, direct_task=None):
        targets = self._targets(task, stream, values, direct_task)
        roots = anchor.roots if anchor is not None else ()
        self._deliver(task, stream, values, targets, roots)
        return targets

    def _deliver(self, task, stream, values, targets, roots):
        if not stream.startswith("$"):
            self.activity += 1
        roots = tuple(r for r in roots if r in self.pending_roots)
        for to_task in targets:
            for root in roots:
                self.pending_roots[root][2] += 1
            self.queue.append(("tuple", self.tasks[to_task], LocalTuple(
                task.component_id, task.task_id, stream, list(values), roots)))

    def settle(self, tuple_, failed):
        for root in tuple_.roots:
            pending = self.pending_roots.get(root)
            if pending is not None:
                pending[2] -= 1
                self._maybe_complete(root, failed)

    def _maybe_complete(self, root, failed=False):
        """The spout hears of a tree at its first fail, or when nothing of it is
        outstanding (after the delivery under way)."""
        pending = self.pending_roots.get(root)
        if pending is not None and (failed or pending[2] == 0):
            del self.pending_roots[root]
            task, message_id, _ = pending
            self.queue.append(("fail" if failed else "ack", task, message_id))

    # -- what the test looks at

    def errors(self):
        """``{component: [errors reported]}`` (``ReportedFailedException`` s)."""
        ret = collections.defaultdict(list)
        for task in self.tasks.values():
            ret[task.component_id].extend(task.errors)
        return dict(ret)


class FeederBatchSpout(IBatchSpout):
    """Storm's ``FeederBatchSpout`` for :class:`LocalTridentTopology`: the rows the test
    feeds (:meth:`LocalTridentTopology.feed`) go out in the next batch; a replayed batch is
    the same again.  Every task's copy shares the feeder's rows."""

    def __init__(self, fields):
        self.fields = list(fields)
        self.shared = {"waiting": [], "batches": {}, "fed": 0, "done": set(), "taken": {}}

    def __deepcopy__(self, memo):
        return copy.copy(self)  # the tasks' copies feed from the test's feeder

    def feed(self, rows):
        """Queue ``rows``; returns the ticket :meth:`succeeded` takes."""
        shared = self.shared
        shared["fed"] += 1
        shared["waiting"].append((shared["fed"], [list(r) for r in rows]))
        return shared["fed"]

    def succeeded(self, ticket):
        return ticket in self.shared["done"]

    def emit_batch(self, batch_id, collector):
        shared = self.shared
        if batch_id not in shared["batches"]:
            taken, shared["waiting"] = shared["waiting"], []
            shared["batches"][batch_id] = [row for _, rows in taken for row in rows]
            shared["taken"][batch_id] = [ticket for ticket, _ in taken]
        for row in shared["batches"][batch_id]:
            collector.emit(row)

    def ack(self, batch_id):
        shared = self.shared
        shared["batches"].pop(batch_id, None)
        shared["done"].update(shared["taken"].pop(batch_id, ()))

    def get_component_configuration(self):
        return {TOPOLOGY_MAX_TASK_PARALLELISM: 1}  # one task: each row once

    def get_output_fields(self):
        return self.fields
