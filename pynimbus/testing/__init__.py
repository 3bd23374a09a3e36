"""Run streamparse topologies and bolts in the test's own process, for pytest.

No Nimbus, no worker, no subprocess and no clock: each task is an instance of the component's
own pystorm class whose serializer is replaced by an in-memory one, so ``emit`` (anchors,
streams, direct emits, ``need_task_ids``), ``ack``, ``fail``, ``log``, ``self.logger``,
``raise_exception`` and pystorm's auto-ack/auto-fail all run as they do under Storm, and what
each task sends is recorded instead of written to a pipe.  Tuples are routed between tasks by
the worker's own groupers (:mod:`pynimbus.worker.groupings`: fields by Java's hash, global,
all, shuffle and none from a seeded ``random.Random``, direct), tasks are numbered as Storm
numbers them (components in id order, from 1), and every tuple tree is tracked so a spout is
told ``ack`` or ``fail`` of its message ids.  Delivery is one FIFO queue, run to empty after
each input, so the same inputs give the same records every time.

Example (streamparse's quickstart word count)::

    from pynimbus.testing import run_bolt, run_topology

    from bolts.wordcount import WordCountBolt
    from topologies.wordcount import WordCount

    def test_the_bolt_counts_dogs_ten_times():
        record = run_bolt(WordCountBolt, [["dog"], ["cat"], ["dog"]], input_fields=["word"])
        assert record.emitted_values() == [["dog", 10], ["cat", 1], ["dog", 20]]
        assert [t.values.word for t in record.acked] == ["dog", "cat", "dog"]

    def test_the_topology_counts_what_the_spout_emits():
        topology = run_topology(WordCount, spout_calls=8)
        counts = {word: n for word, n in topology["count_bolt"].emitted_values()}
        assert counts == {"dog": 20, "cat": 2, "zebra": 2, "elephant": 2}

``run_topology(..., inputs={"word_spout": [["dog"], ...]})`` emits the given tuples as that
spout's (message ids 0, 1, ...) instead of calling its ``next_tuple``.  For more control, a
:class:`LocalTopology` is driven step by step: ``feed``, ``next_tuple``, ``tick``.

A DRPC topology (:class:`pynimbus.drpc.components.DRPCSpout` into
:class:`~pynimbus.drpc.components.ReturnResults`, or one of
:class:`pynimbus.drpc.LinearDRPCTopologyBuilder`) answers a :class:`LocalDRPC` (Storm's
``LocalDRPC``): its spout takes the requests from it and its return bolt returns the results
to it, in this process; ``execute`` runs the topology until the request is answered::

    from pynimbus.testing import LocalDRPC, LocalTopology

    def test_reach():
        with LocalDRPC() as drpc:
            LocalTopology(ReachTopology, drpc=drpc)
            assert drpc.execute("reach", "foo.com/blog/1") == "16"

Deliberate differences from a cluster: an exception in a component is recorded in its
``errors`` (and the bolt's tuple failed, as pystorm does before exiting) and the same
instance goes on, where Storm would restart the process; tuples never time out (a tree not
acked stays in :meth:`LocalTopology.pending`); there are no ackers, system components or
metrics tasks; values are passed as the Python objects emitted (not through JSON).
"""

import collections
import json
import random

from pynimbus.clojure_port.executors import java_string_order
from pynimbus.drpc.local import LOCAL_DRPC_ID, get_service, register_service, unregister_service
from pynimbus.drpc.requests import DRPCRequests
from pynimbus.clojure_port.system_topology import validate_basic, validate_structure
from pynimbus.generated.storm.ttypes import DRPCRequest, InvalidTopologyException
from pynimbus.tools.sparse_project import import_streamparse_dsl, submitted_topology
from pynimbus.worker.groupings import (
    GroupingError, component_to_sorted_tasks, mk_grouper_context, outbound_components,
    out_tasks, out_tasks_direct)
from pynimbus.worker.multilang.topology_context import topology_context_json
from pynimbus.worker.inprocess.pystorm_host import NoMessageDue, make_component, setup_component

Emitted = collections.namedtuple("Emitted", "task stream values anchors direct_task tup_id "
                                            "to_tasks")
Emitted.__doc__ = """One emit: the emitting ``task``, its ``stream``, ``values``, the ids it
was ``anchors``-ed to, the ``direct_task`` asked for, the spout's ``tup_id``, and the task ids
it was delivered to (``to_tasks``)."""

LOG_LEVELS = {0: "trace", 1: "debug", 2: "info", 3: "warn", 4: "error"}
TICK_COMPONENT, TICK_STREAM = "__system", "__tick"
# pynimbus.drpc.linear.REQUEST_ID_SEED_CONF: the harness seeds prepare-request's request ids
REQUEST_ID_SEED_CONF = "pynimbus.drpc.request.id.seed"


class HarnessError(Exception):
    """A topology the harness cannot run, or a component breaking Storm's rules (an emit on
    a stream it does not declare); raised to the test."""


class ComponentRecord(object):
    """What the tasks of one component did.

    ``emitted``: :data:`Emitted` in order; ``acked`` / ``failed``: for a bolt, the pystorm
    ``Tuple`` s it acked or failed; for a spout, the message ids the topology acked or failed
    back to it; ``logs``: ``(task, level, message)``; ``errors``: ``(task, message)`` of
    ``raise_exception`` (pystorm's report of an exception); ``metrics``: ``(task, name,
    value)``.
    """

    def __init__(self):
        self.emitted, self.acked, self.failed = [], [], []
        self.logs, self.errors, self.metrics = [], [], []

    def emitted_values(self, stream="default"):
        """The values emitted on ``stream``, as lists, in order."""
        return [list(e.values) for e in self.emitted if e.stream == stream]

    def __repr__(self):
        return "<ComponentRecord emitted=%d acked=%d failed=%d errors=%d>" % (
            len(self.emitted), len(self.acked), len(self.failed), len(self.errors))


def task_counts(topology):
    """``{component: number of tasks}``: ``topology.tasks`` of its conf, else its parallelism
    (what Nimbus's normalization gives without a task cap)."""
    ret = {}
    for component_id, component in all_user_components(topology).items():
        conf = json.loads(component.common.json_conf or "{}")
        ret[component_id] = int(conf.get("topology.tasks") or
                                component.common.parallelism_hint or 1)
    return ret


def all_user_components(topology):
    return dict(list(topology.spouts.items()) + list(topology.bolts.items()))


def validate_as_nimbus(topology):
    """Refuse what Nimbus refuses at submit: ``validate_basic`` and ``validate_structure``
    (reserved ids, inputs naming no component, stream or field)."""
    try:
        validate_basic(topology)
        validate_structure(topology)
    except InvalidTopologyException as e:
        raise HarnessError("Nimbus would refuse this topology: %s" % e.msg)


def python_component_classes(topology_class, topology):
    """``{component id: its streamparse class}``.

    :raises HarnessError: a component that is not a Python (shell) one."""
    classes = {spec.name: getattr(spec, "component_cls", None)
               for spec in topology_class.specs}
    for component_id, component in all_user_components(topology).items():
        obj = getattr(component, "spout_object", None) or component.bolt_object
        if obj.shell is None or classes.get(component_id) is None:
            raise HarnessError("component %s is not a Python component; the harness runs "
                               "only streamparse spouts and bolts" % component_id)
    return classes


def task_to_component_of(counts):
    """Storm's numbering: components in Java string order, consecutive task ids from 1."""
    ret, task = {}, 1
    for component_id in sorted(counts, key=java_string_order):
        for _ in range(counts[component_id]):
            ret[task] = component_id
            task += 1
    return ret


class LocalTopology(object):
    """A streamparse ``Topology`` class run in this process; see the module docstring.

    :param conf: extra topology conf (over the class's ``config``), as ``-c`` would give.
    :param env_name: the environment whose parallelism a ``par={env: n}`` takes.
    :param seed: seeds the shuffle and none groupings.
    :param name: ``topology.name`` (default: the class's name).
    :param drpc: a :class:`LocalDRPC` the topology's DRPC spout and return bolt use (also
        found when the topology's conf names one, as ``create_local_topology`` makes it).
    :raises HarnessError: a topology Nimbus would refuse (its message), a Java component, or
        a grouping a Python worker cannot run.
    """

    def __init__(self, topology_class, conf=None, env_name=None, seed=0, name=None,
                 drpc=None):
        self.topology = submitted_topology(topology_class, env_name)
        validate_as_nimbus(self.topology)
        classes = python_component_classes(topology_class, self.topology)
        self.conf = dict(topology_class.config or {})
        self.conf.update(conf or {})
        self.conf.setdefault("topology.name", name or topology_class.__name__)
        self.conf.setdefault(REQUEST_ID_SEED_CONF, seed)
        if drpc is not None:
            self.conf[LOCAL_DRPC_ID] = drpc.service_id
        if self.conf.get(LOCAL_DRPC_ID) is not None:
            drpc = get_service(self.conf[LOCAL_DRPC_ID])
            if not isinstance(drpc, LocalDRPC):
                raise HarnessError("the topology's conf names the local DRPC %s, which is "
                                   "shut down or was never made" % self.conf[LOCAL_DRPC_ID])
        self.activity = 0  # emits, acks and fails the components sent so far
        self.task_to_component = task_to_component_of(task_counts(self.topology))
        self.component_to_tasks = component_to_sorted_tasks(self.task_to_component)
        self.records = {c: ComponentRecord() for c in all_user_components(self.topology)}
        self.declared_streams = {c: frozenset(component.common.streams or ())
                                 for c, component in all_user_components(self.topology).items()}
        self.routes = self._routes(random.Random(seed))
        self.queue = collections.deque()
        self.delivered = {}  # tuple id -> (pystorm Tuple, its roots)
        self.pending_roots = {}  # (spout task, message id) -> tuples outstanding
        self.next_tuple_id = 1
        self.tasks = {task: make_component(classes[component_id],
                                           lambda message, task=task: self.receive(task, message))
                      for task, component_id in sorted(self.task_to_component.items())}
        for task, component in sorted(self.tasks.items()):
            context = topology_context_json(self.topology, self.task_to_component, task)
            setup_component(component, dict(self.conf), context)
        self.run_queue()
        if drpc is not None:
            drpc.attach(self)

    def _routes(self, rng):
        context = mk_grouper_context(self.task_to_component, {
            "topology.disable.loadaware.messaging": True}, rng, lambda: 0)
        try:
            return {component_id: outbound_components(context, self.topology, component_id,
                                                      self.component_to_tasks)
                    for component_id in sorted(self.records, key=java_string_order)}
        except GroupingError as e:
            raise HarnessError(str(e))

    def __getitem__(self, component_id):
        return self.records[component_id]

    def is_spout(self, component_id):
        return component_id in self.topology.spouts

    # -- driving

    def next_tuple(self, times=1):
        """``times`` rounds of ``next_tuple`` on every spout task (in task order), each call
        followed by the delivery of everything it caused."""
        for _ in range(times):
            for task, component_id in sorted(self.task_to_component.items()):
                if self.is_spout(component_id):
                    self.command(task, {"command": "next"})
                    self.run_queue()
        return self

    def feed(self, component_id, tuples, stream="default", first_id=0):
        """Emit ``tuples`` as ``component_id``'s first task would, each with a message id
        (``first_id``, ``first_id + 1``, ...), and deliver everything that follows."""
        task = self.component_to_tasks[component_id][0]
        for number, values in enumerate(tuples, first_id):
            message = {"command": "emit", "tuple": list(values), "stream": stream,
                       "need_task_ids": False}
            if self.is_spout(component_id):
                message["id"] = number
            self.receive(task, message)
            self.run_queue()
        return self

    def tick(self, component_id, freq_secs=1):
        """A tick tuple to every task of the bolt ``component_id``."""
        for task in self.component_to_tasks[component_id]:
            self.deliver(task, TICK_COMPONENT, TICK_STREAM, -1, [freq_secs], ())
        self.run_queue()
        return self

    def pending(self):
        """``{spout component: [message ids]}`` of tuple trees neither acked nor failed."""
        ret = collections.defaultdict(list)
        for task, tup_id in self.pending_roots:
            ret[self.task_to_component[task]].append(tup_id)
        return dict(ret)

    def run_queue(self):
        while self.queue:
            task, message = self.queue.popleft()
            self.command(task, message)

    def command(self, task, message):
        """Give ``task`` one message and let pystorm's loop body (``_run``) handle it; an
        exception is handled as pystorm's ``run`` does (reported, the bolt's tuple failed),
        without exiting."""
        component = self.tasks[task]
        component.serializer.inbox.append(message)
        try:
            component._run()
        except HarnessError:
            raise
        except NoMessageDue:
            raise HarnessError("task %d read a message and none was due" % task)
        except Exception as e:
            component.logger.error("Exception in %s.run()", type(component).__name__,
                                   exc_info=True)
            component._handle_run_exception(e)
        finally:
            if hasattr(component, "_current_tups"):
                component._current_tups = []

    # -- what components send

    def receive(self, task, message):
        """One message a task's component sent (its serializer's ``send_message``)."""
        component_id = self.task_to_component[task]
        record = self.records[component_id]
        command = message.get("command")
        if command in ("emit", "ack", "fail"):
            self.activity += 1
        if command == "emit":
            self.emit(task, component_id, message)
        elif command == "ack":
            self.settle(record.acked, message["id"], failed=False)
        elif command == "fail":
            self.settle(record.failed, message["id"], failed=True)
        elif command == "log":
            record.logs.append((task, LOG_LEVELS.get(message.get("level"), "info"),
                                message["msg"]))
        elif command == "error":
            record.errors.append((task, message["msg"]))
        elif command == "metrics":
            record.metrics.append((task, message["name"], message["params"]))
        elif command != "sync":
            raise HarnessError("task %d (%s) sent an unknown command %r"
                               % (task, component_id, command))

    def emit(self, task, component_id, message):
        stream = message.get("stream") or "default"
        streams = self.declared_streams[component_id]
        if stream not in streams:
            raise HarnessError("%s emitted on stream %r, which it does not declare (it "
                               "declares %s)" % (component_id, stream, sorted(streams)))
        values = message["tuple"]
        direct_task = message.get("task")
        routes = self.routes[component_id]
        try:
            if direct_task is not None:
                to_tasks = out_tasks_direct(routes, self.task_to_component, direct_task, stream)
            else:
                to_tasks = out_tasks(routes, task, stream, values)
        except GroupingError as e:
            raise HarnessError("%s: %s" % (component_id, e))
        roots = self.roots_of(task, message)
        for to_task in to_tasks:
            self.deliver(to_task, component_id, stream, task, values, roots)
        anchors = tuple(message.get("anchors") or ())
        self.records[component_id].emitted.append(Emitted(
            task, stream, values, anchors, direct_task, message.get("id"), tuple(to_tasks)))
        if message.get("need_task_ids", True) and direct_task is None:
            self.tasks[task].serializer.inbox.append(list(to_tasks))
        for root in roots:
            self.maybe_complete(root)

    def roots_of(self, task, message):
        """The tuple trees an emit joins: a spout's own (its message id), or those of the
        tuples a bolt anchored it to."""
        if self.is_spout(self.task_to_component[task]):
            if message.get("id") is None:
                return ()
            root = (task, message["id"])
            self.pending_roots.setdefault(root, 0)
            return (root,)
        roots = set()
        for anchor in message.get("anchors") or ():
            roots.update(self.delivered.get(anchor, (None, ()))[1])
        return tuple(sorted(roots, key=repr))

    def deliver(self, to_task, component_id, stream, from_task, values, roots):
        from pystorm.component import Tuple

        tuple_id = str(self.next_tuple_id)
        self.next_tuple_id += 1
        roots = tuple(r for r in roots if r in self.pending_roots)
        # the values as the receiving bolt sees them: its namedtuple of the source's fields
        values_type = getattr(self.tasks[to_task], "_source_tuple_types", {}).get(
            component_id, {}).get(stream, tuple)
        try:
            received = values_type(*values) if values_type is not tuple else tuple(values)
        except TypeError:  # not as many values as fields: the bolt's own read will say so
            received = tuple(values)
        self.delivered[tuple_id] = (Tuple(tuple_id, component_id, stream, from_task, received),
                                    roots)
        for root in roots:
            self.pending_roots[root] += 1
        self.queue.append((to_task, {"id": tuple_id, "comp": component_id, "stream": stream,
                                     "task": from_task, "tuple": list(values)}))

    def settle(self, into, tuple_id, failed):
        """A bolt's ack or fail of ``tuple_id``: recorded, and its trees updated."""
        tup, roots = self.delivered.pop(tuple_id, (None, ()))
        if tup is None:
            return  # acked twice, or never delivered: Storm ignores it too
        into.append(tup)
        for root in roots:
            if root not in self.pending_roots:
                continue
            self.pending_roots[root] -= 1
            self.maybe_complete(root, failed)

    def maybe_complete(self, root, failed=False):
        """Tell the spout once a tree has failed (at its first fail, as the acker does), or
        has nothing outstanding; later acks of its tuples change nothing."""
        if root not in self.pending_roots:
            return
        if failed or self.pending_roots[root] == 0:
            del self.pending_roots[root]
            spout_task, tup_id = root
            record = self.records[self.task_to_component[spout_task]]
            (record.failed if failed else record.acked).append(tup_id)
            self.queue.append((spout_task, {"command": "fail" if failed else "ack",
                                            "id": tup_id}))


def run_topology(topology_class, inputs=None, spout_calls=0, conf=None, env_name=None,
                 seed=0, drpc=None):
    """Run ``topology_class``: first the ``inputs`` (``{spout: [values, ...]}``, emitted as
    that spout's, message ids from 0), then ``spout_calls`` rounds of ``next_tuple``; return
    the :class:`LocalTopology` (``topology["count_bolt"].emitted_values()``).  ``drpc``: the
    :class:`LocalDRPC` its DRPC spout and return bolt use."""
    topology = LocalTopology(topology_class, conf=conf, env_name=env_name, seed=seed,
                             drpc=drpc)
    for component_id, tuples in sorted((inputs or {}).items()):
        if not topology.is_spout(component_id):
            raise HarnessError("inputs name %s, which is not a spout of %s"
                               % (component_id, topology_class.__name__))
        topology.feed(component_id, tuples)
    return topology.next_tuple(spout_calls)


def run_bolt(bolt_class, tuples, input_fields=None, conf=None, ticks=0, stream="default"):
    """Run one task of ``bolt_class`` on ``tuples`` (lists of values, from a spout named
    ``input`` declaring ``input_fields``, default ``field0``, ``field1``, ...), then ``ticks``
    tick tuples; return the bolt's :class:`ComponentRecord` (the inputs it never acked are
    in neither ``acked`` nor ``failed``)."""
    tuples = [list(values) for values in tuples]
    if input_fields is None:
        width = len(tuples[0]) if tuples else 1
        input_fields = ["field%d" % i for i in range(width)]
    topology_class = one_bolt_topology(bolt_class, list(input_fields), stream)
    topology = LocalTopology(topology_class, conf=conf)
    topology.feed("input", tuples, stream)
    for _ in range(ticks):
        topology.tick("bolt")
    return topology["bolt"]


def one_bolt_topology(bolt_class, input_fields, stream):
    """A streamparse Topology: a do-nothing spout ``input`` (``input_fields`` on
    ``stream``) into one task of ``bolt_class`` named ``bolt``, shuffle grouped."""
    from streamparse import Spout
    from streamparse.dsl.stream import Stream

    topology_base = import_streamparse_dsl()

    class InputSpout(Spout):
        outputs = [Stream(fields=input_fields, name=stream)]

        def next_tuple(self):
            pass

    source = InputSpout.spec(name="input")
    return type(topology_base)("OneBolt", (topology_base,), {
        "input": source, "bolt": bolt_class.spec(name="bolt", inputs=[source[stream]],
                                                 par=1)})


class LocalDRPC(object):
    """Storm's ``LocalDRPC`` for the harness: a DRPC server in this process, without threads
    or a clock, on the server's own request table (:class:`pynimbus.drpc.requests.DRPCRequests`:
    ids, queues per function, answers, failures, timeouts).

    ``execute(function, args)`` queues a request, then runs the :class:`LocalTopology` s that
    use this DRPC (``next_tuple`` rounds, each delivered to the end) until it is answered, and
    returns the result or raises its ``DRPCExecutionException`` (a failed request: "Request
    failed"; the topology's own error when it gives one).  When a round changes nothing (no
    emit, ack or fail), or after ``max_rounds`` rounds, nothing more would answer it: the time
    it waits passes at once, and it times out as Storm's server times it out after
    ``drpc.request.timeout.secs`` ("Request timed out").  A function no topology answers
    times out so too.

    The spouts and return bolts find it by :attr:`service_id` (in the topology's conf, under
    ``pynimbus.drpc.local.id``); it has the calls of Storm's ``DistributedRPCInvocations`` they
    make (``fetchRequest``, ``result``, ``failRequest``).  ``shutdown`` (or leaving a ``with``
    block) answers what still waits with "Server Shutting Down" and unregisters it.
    """

    def __init__(self, timeout_secs=600, max_rounds=10000, compat="1.x"):
        self.requests = DRPCRequests(int(timeout_secs * 1000), compat=compat)
        self.max_rounds = max_rounds
        self.now_ms = 0
        self.topologies = []
        self.service_id = register_service(self)

    def attach(self, topology):
        """``topology`` (a :class:`LocalTopology`) answers this DRPC's requests."""
        if topology not in self.topologies:
            self.topologies.append(topology)

    # DistributedRPC

    def execute(self, function, args):
        """The result of ``function`` on ``args`` (a string).

        :raises DRPCExecutionException: the request failed or timed out."""
        answer = self.execute_all([(function, args)])[0]
        if isinstance(answer, Exception):
            raise answer
        return answer

    def execute_all(self, calls):
        """Queue every ``(function, args)`` of ``calls`` at once, run until all are answered;
        returns their answers in order (a result string or a ``DRPCExecutionException``)."""
        answers = [None] * len(calls)
        waiting = set(range(len(calls)))

        def on_answer(index):
            def answered(value):
                answers[index] = value
                waiting.discard(index)
            return answered
        for index, (function, args) in enumerate(calls):
            self.requests.execute(function, args, self.now_ms, on_answer(index))
        rounds = 0
        while waiting:
            before = sum(topology.activity for topology in self.topologies)
            for topology in self.topologies:
                topology.next_tuple()
            rounds += 1
            if waiting and (rounds >= self.max_rounds or before == sum(
                    topology.activity for topology in self.topologies)):
                self.now_ms += self.requests.timeout_ms + 1
                self.requests.expire(self.now_ms)
        return answers

    # DistributedRPCInvocations

    def fetchRequest(self, function):
        args, request_id = self.requests.fetch_request(function)
        return DRPCRequest(func_args=args, request_id=request_id)

    def result(self, request_id, result):
        self.requests.result(request_id, result)

    def failRequest(self, request_id):
        self.requests.fail_request(request_id)

    def failRequestV2(self, request_id, error):
        self.requests.fail_request(request_id, error)

    # ILocalDRPC

    def get_service_id(self):
        return self.service_id

    def shutdown(self):
        self.requests.close()
        unregister_service(self.service_id)

    def __enter__(self):
        return self

    def __exit__(self, *exc_info):
        self.shutdown()
