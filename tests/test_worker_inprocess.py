"""In-process streamparse components (pynimbus.worker.inprocess) without a worker process: the
runner's command read, what falls back to a subprocess, and pystorm classes hosted in process
and driven by their bolt and spout executors on a ``task.Clock``."""
# test-case-name: tests.test_worker_inprocess

import itertools
import sys
import textwrap

import pytest
from twisted.internet import task

from worker_topologies import common
from pynimbus.generated.storm.ttypes import (
    Bolt, ComponentObject, GlobalStreamId, Grouping, NullStruct, ShellComponent, SpoutSpec,
    StormTopology)
from pynimbus.worker import executor, stats
from pynimbus.worker.inprocess import bolt_host, selection, spout_host
from pynimbus.worker.message_id import UNANCHORED, MessageId
from pynimbus.worker.receive_queue import ExecutorLoop

COMPONENTS = '''
    import collections

    from pystorm import Bolt, Spout
    from pystorm.bolt import BatchingBolt
    from pystorm.spout import ReliableSpout

    SEEN = collections.defaultdict(list)


    class SplitBolt(Bolt):
        def initialize(self, conf, context):
            SEEN["initialize"].append((conf, context))

        def process(self, tup):
            SEEN["process"].append(tup)
            for word in tup.values.sentence.split():
                self.emit([word, tup.values.extra])

        def process_tick(self, tup):
            self.logger.info("tick of %d s", tup.values[0])
            self.emit(["tick", tup.values[0]])


    class RaisingBolt(Bolt):
        def process(self, tup):
            raise ValueError("cannot take %r" % (tup.values,))


    class EndlessSpout(Spout):
        def initialize(self, conf, context):
            self.n = 0

        def next_tuple(self):
            self.emit([self.n], tup_id=self.n)
            self.n += 1


    class Batching(BatchingBolt):
        pass


    class TwiceAckingBolt(Bolt):
        def process(self, tup):
            SEEN["task ids"].append(self.emit([tup.values[0]], need_task_ids=True))
            self.ack(tup)  # and pystorm's auto-ack once more


    class LateAnchoringBolt(Bolt):
        auto_ack = False

        def process(self, tup):
            self.ack(tup)
            self.emit(["late"], anchors=[tup])


    class OwnEmitBolt(Bolt):
        def emit(self, tup, **kwargs):
            SEEN["own emit"].append(list(tup))
            return super().emit([v.upper() for v in tup], **kwargs)

        def process(self, tup):
            self.emit([tup.values[0]])


    class StrEmittingBolt(Bolt):
        def process(self, tup):
            self.emit(tup.values[0])


    class OwnRunBolt(Bolt):
        def _run(self):
            super()._run()


    class OwnAckBolt(Bolt):
        """Its own ack (pystorm's, after it) reaches the executor as pystorm's message."""
        def ack(self, tup):
            SEEN["own ack"].append(tup.id)
            super().ack(tup)

        def process(self, tup):
            self.emit([tup.values[0]])


    class AnchoringBolt(Bolt):
        def process(self, tup):
            self.emit(["auto", 0])  # pystorm's auto-anchor: to tup
            self.emit(["none", 0], anchors=[])
            self.emit(["both", 0], anchors=[tup, tup.id])


    class ReenteringBolt(Bolt):
        """Calls the hook the test sets (a delivery of another tuple) in its process."""
        hook = None

        def process(self, tup):
            SEEN["calls"].append("start " + tup.values[0])
            hook, ReenteringBolt.hook = ReenteringBolt.hook, None
            if hook is not None:
                hook()
            self.emit([tup.values[0], 0])
            SEEN["calls"].append("end " + tup.values[0])


    class HoldingBolt(Bolt):
        """Acks nothing itself: its inputs wait in SEEN["held"] for the test to ack them."""
        auto_ack = False

        def process(self, tup):
            SEEN["held"].append(tup)


    class ReliableWords(ReliableSpout):
        pass


    class NotAComponent(object):
        pass
'''


@pytest.fixture
def resources(tmp_path, monkeypatch):
    """A resources dir with ``inproc_components`` and a module that raises on import; both
    forgotten after the test."""
    (tmp_path / "inproc_components.py").write_text(textwrap.dedent(COMPONENTS))
    (tmp_path / "inproc_broken.py").write_text("raise ImportError('no such thing')\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.delitem(sys.modules, "inproc_components", raising=False)
    yield str(tmp_path)
    for name in ("inproc_components", "inproc_broken"):
        sys.modules.pop(name, None)


def runner(target):
    return ComponentObject(shell=ShellComponent("streamparse_run", "-s json " + target))


def topology():
    return StormTopology(
        spouts={"sentences": SpoutSpec(runner("inproc_components.EndlessSpout"),
                                       common({}, ["sentence", "extra"], 1))},
        bolts={"split": Bolt(runner("inproc_components.SplitBolt"), common(
            {GlobalStreamId("sentences", "default"): Grouping(shuffle=NullStruct())},
            ["word", "extra"], 1))},
        state_spouts={})


TASK_TO_COMPONENT = {1: "sentences", 2: "split"}


class Worker:
    """What an executor reads from its worker, recording transfers, errors and deaths."""

    def __init__(self, has_ackers=False, **conf):
        self.clock = task.Clock()
        self.transferred, self.errors, self.deaths = [], [], []
        self.conf = dict({"topology.name": "inproc"}, **conf)
        fields = dict.fromkeys(executor.WorkerContext._fields)
        fields.update(
            reactor=self.clock, compat="1.x", storm_conf=self.conf, has_ackers=has_ackers,
            generate_id=itertools.count(1).__next__,
            now_ms=lambda: int(self.clock.seconds() * 1000),
            throttled=lambda: False, user_topology=topology(),
            task_to_component=TASK_TO_COMPONENT,
            loop=ExecutorLoop(self.clock.callLater, lambda: None),
            transfer=lambda *args: self.transferred.append(args),
            report_error=lambda component_id, text: self.errors.append((component_id, text)))
        self.context = executor.WorkerContext(**fields)

    def executor(self, is_spout, component_id, task_id, component_class):
        kind = "spout" if is_spout else "bolt"
        grouper = {"default": {"next": lambda task_id, values, load=None: [9]},
                   "__ack_ack": {"__acker": lambda task_id, values, load=None: [7]}}
        args = (self.context, component_id, [task_id], grouper, self.conf,
                stats.ExecutorStatsCollector(kind, self.clock.seconds))
        if is_spout:
            return executor.SpoutExecutor(
                *args, host_factory=spout_host.spout_host_factory(component_class),
                on_child_died=lambda component_id, message: self.deaths.append(message))
        return executor.BoltExecutor(
            *args, host_factory=bolt_host.bolt_host_factory(component_class),
            on_child_died=lambda component_id, message: self.deaths.append(message))


def imported(resources, target, is_spout=False):
    return selection.import_component_class(resources, target, is_spout)


def started_bolt(resources, worker, class_name):
    component_class, why_not = imported(resources, "inproc_components." + class_name)
    assert component_class is not None, why_not
    bolt = worker.executor(False, "split", 2, component_class)
    assert bolt.launch_children().called
    return bolt


def deliver(worker, bolt, *values_and_ids):
    """Tuples from task 1 of ``sentences`` into the bolt's queue, then the loop's turn."""
    for values, message_id in values_and_ids:
        bolt.receive(2, executor.TupleImpl(1, "sentences", "default", values, message_id))
    worker.clock.advance(0)


@pytest.mark.parametrize("argv, target", [
    (["streamparse_run", "-s json bolts.wordcount.WordCountBolt"],
     "bolts.wordcount.WordCountBolt"),
    (["/venv/bin/streamparse_run", "spouts.words.WordSpout"], "spouts.words.WordSpout"),
    (["streamparse_run", "--serializer", "msgpack", "a.B"], "a.B"),
    (["python", "splitsentence.py"], None),
    (["streamparse_run", "--debug a.B"], None),
    (["streamparse_run", "-s json"], None),
    (["streamparse_run", "NoModule"], None),
    (["streamparse_run", "a.B c.D"], None),
])
def test_the_runners_target_is_read_from_its_argv(argv, target):
    """``streamparse_run [-s SERIALIZER] module.Class``, split on spaces as the runner does;
    anything else is no target (the subprocess runs it)."""
    assert selection.streamparse_target(argv) == target


def test_only_an_importable_pystorm_class_of_the_components_kind_runs_in_process(resources):
    """A module that does not import, a missing class, a class of the other kind, no pystorm
    class, or a BatchingBolt (which emits from its own thread) are refused with the reason."""
    cls, why_not = imported(resources, "inproc_components.SplitBolt")
    assert cls.__name__ == "SplitBolt" and why_not is None
    for target, is_spout, reason in [
            ("inproc_broken.Bolt", False, "does not import: ImportError: no such thing"),
            ("inproc_components.Missing", False, "does not import: AttributeError"),
            ("inproc_components.SplitBolt", True, "is not a pystorm Spout"),
            ("inproc_components.NotAComponent", False, "is not a pystorm Bolt"),
            ("inproc_components.Batching", False, "is a BatchingBolt")]:
        cls, why_not = imported(resources, target, is_spout)
        assert cls is None and reason in why_not


def test_pynimbus_worker_inprocess_false_leaves_every_component_to_its_subprocess(resources):
    commands = {"split": (["streamparse_run", "inproc_components.SplitBolt"], False),
                "py": (["python", "split.py"], False)}
    assert set(selection.inprocess_component_classes({}, commands, resources, {})) == {"split"}
    for off in (False, "false"):
        assert selection.inprocess_component_classes(
            {"pynimbus.worker.inprocess": off}, commands, resources, {}) == {}


def test_a_bolt_in_process_gets_the_handshakes_conf_and_context_and_emits_python_objects(
        resources):
    """initialize sees the JSON forms a child would read; a tuple reaches ``process`` as
    pystorm's namedtuple of the source's fields, each emit is routed with the emitted objects
    (not a JSON copy: a set stays a set), and pystorm's auto-ack finishes the input."""
    from inproc_components import SEEN
    worker = Worker(**{"some.tuple": (1, 2)})
    bolt = started_bolt(resources, worker, "SplitBolt")
    assert type(bolt.hosts[2]) is bolt_host.InProcessBolt
    [(conf, context)] = SEEN["initialize"]
    assert conf["some.tuple"] == [1, 2] and context["taskid"] == 2
    assert context["componentid"] == "split"
    extra = {"a", "set"}
    deliver(worker, bolt, (["the cow", extra], UNANCHORED))
    [tup] = SEEN["process"]
    assert tup.values.sentence == "the cow" and tup.task == 1
    assert [(dest, source, stream, values) for dest, source, stream, _id, values
            in worker.transferred] == [(9, 2, "default", ["the", extra]),
                                       (9, 2, "default", ["cow", extra])]
    assert worker.transferred[0][4][1] is extra
    assert len(bolt.inputs[2]) == 0 and not worker.errors and not worker.deaths


def test_nothing_runs_in_the_senders_call(resources):
    """A tuple waits in the bolt's receive queue until the worker's loop hands it over."""
    from inproc_components import SEEN
    worker = Worker()
    bolt = started_bolt(resources, worker, "SplitBolt")
    bolt.receive(2, executor.TupleImpl(1, "sentences", "default", ["a b", 0], UNANCHORED))
    assert SEEN["process"] == [] and len(bolt.queue) == 1
    worker.clock.advance(0)
    assert len(SEEN["process"]) == 1 and len(bolt.queue) == 0


def test_a_tick_reaches_process_tick_which_logs_to_the_worker_log(resources, caplog):
    """A tick tuple reaches ``process_tick``; what the component logs goes to the worker's
    own log under ``pynimbus.shell.<component>``, not to the root logger's pystorm handler."""
    import logging
    worker = Worker(**{"topology.tick.tuple.freq.secs": 5})
    bolt = started_bolt(resources, worker, "SplitBolt")
    bolt.start()
    with caplog.at_level(logging.INFO):
        worker.clock.advance(5)
    bolt.stop()
    assert [values for *_, values in worker.transferred] == [["tick", 5]]
    assert ("pynimbus.shell.split", logging.INFO, "tick of 5 s") in caplog.record_tuples
    assert not any(type(h).__name__ == "StormHandler" for h in logging.getLogger().handlers)


def test_a_bolt_raising_in_process_is_reported_and_dies_as_a_child_would(resources):
    """pystorm's report (an error with the exception) goes to the worker's report, then the
    component dies: the worker is told, with the traceback; nothing reaches it after."""
    worker = Worker()
    bolt = started_bolt(resources, worker, "RaisingBolt")
    deliver(worker, bolt, ([0, 0], UNANCHORED), ([1, 0], UNANCHORED))
    [(component_id, error)] = worker.errors
    assert component_id == "split" and "Python ValueError raised" in error
    assert "cannot take SentencesDefaultTuple(sentence=0, extra=0)" in error
    [death] = worker.deaths
    assert "raised in process" in death and "ValueError: cannot take" in death


def test_only_classes_that_keep_pystorms_plumbing_run_in_process(resources):
    """A bolt's own ``emit`` or any own loop body, reading or sending (pystorm's own loop
    calls those, and a bolt's emit anchors through the loop's state), in the class or a mixin
    of it, runs as a subprocess, with the reason; a spout's own ``emit``, a bolt's own ``ack``
    (their messages take the checked path) and streamparse's classes run in process."""
    for target, reason in [("OwnEmitBolt", "overrides pystorm's emit"),
                           ("OwnRunBolt", "overrides pystorm's _run")]:
        cls, why_not = imported(resources, "inproc_components." + target)
        assert cls is None and reason in why_not
    for target, is_spout in [("ReliableWords", True), ("OwnAckBolt", False),
                             ("EndlessSpout", True), ("SplitBolt", False)]:
        cls, why_not = imported(resources, "inproc_components." + target, is_spout)
        assert why_not is None and cls.__name__ == target
    import inproc_components as c

    class Mixin(object):
        def emit(self, *args, **kwargs):
            return super().emit(*args, **kwargs)

    class Mixed(c.Bolt, Mixin):
        pass
    c.Mixed = Mixed
    cls, why_not = imported(resources, "inproc_components.Mixed")
    assert cls is None and "overrides pystorm's emit" in why_not
    import streamparse
    for sp_class, is_spout in [(streamparse.Bolt, False), (streamparse.Spout, True)]:
        c.StreamparseKind = type("StreamparseKind", (sp_class,), {})
        cls, why_not = imported(resources, "inproc_components.StreamparseKind", is_spout)
        assert why_not is None


def test_a_bolts_own_ack_takes_pystorms_message_to_the_executor(resources):
    from inproc_components import SEEN
    worker = Worker(has_ackers=True)
    bolt = started_bolt(resources, worker, "OwnAckBolt")
    deliver(worker, bolt, (["cow", 0], MessageId({100: 64})))
    assert SEEN["own ack"] == ["1"]
    assert [(dest, stream, values) for dest, _, stream, _, values in worker.transferred] == [
        (9, "default", ["cow"]), (7, "__ack_ack", [100, 64 ^ 1])]
    assert len(bolt.inputs[2]) == 0 and not worker.errors and not worker.deaths


def test_an_emit_asking_for_task_ids_gets_them_and_a_second_ack_kills_the_bolt(resources):
    """``need_task_ids=True`` returns the out tasks; acking a tuple already acked is
    ShellBolt's protocol error: the component dies with it, as a child would."""
    from inproc_components import SEEN
    worker = Worker()
    bolt = started_bolt(resources, worker, "TwiceAckingBolt")
    deliver(worker, bolt, (["cow", 0], UNANCHORED))
    assert SEEN["task ids"] == [[9]]
    [death] = worker.deaths
    assert "Acked a non-existent or already acked/failed id: 1" in death


def test_emits_are_anchored_as_storms_bolt_emit_anchors_them_and_the_ack_closes_the_xor(
        resources):
    """executor.clj bolt-emit: an emit anchored to the input (pystorm's auto-anchor) gets one
    new edge id under the input's root, ``anchors=[]`` none, two anchors one edge id each
    XORed together; the ack tells the acker the input's edge id XOR all of them."""
    worker = Worker(has_ackers=True)
    bolt = started_bolt(resources, worker, "AnchoringBolt")
    deliver(worker, bolt, (["x", 0], MessageId({100: 64})))
    assert worker.transferred == [
        (9, 2, "default", MessageId({100: 1}), ["auto", 0]),
        (9, 2, "default", UNANCHORED, ["none", 0]),
        (9, 2, "default", MessageId({100: 2 ^ 3}), ["both", 0]),
        (7, 2, "__ack_ack", UNANCHORED, [100, 64 ^ 1 ^ 2 ^ 3])]
    assert len(bolt.inputs[2]) == 0 and not worker.errors and not worker.deaths


def test_a_tuple_delivered_while_the_bolt_processes_one_waits_for_its_end(resources):
    """Calls never nest: a tuple handed to the executor from inside ``process`` is processed
    once the running one is done, and both are emitted from and acked in that order."""
    from inproc_components import SEEN, ReenteringBolt
    worker = Worker()
    bolt = started_bolt(resources, worker, "ReenteringBolt")
    ReenteringBolt.hook = lambda: bolt.receive(
        2, executor.TupleImpl(1, "sentences", "default", ["second", 0], UNANCHORED))
    deliver(worker, bolt, (["first", 0], UNANCHORED))
    assert SEEN["calls"] == ["start first", "end first", "start second", "end second"]
    assert [values for *_, values in worker.transferred] == [["first", 0], ["second", 0]]
    assert len(bolt.inputs[2]) == 0 and not worker.errors and not worker.deaths


def test_inputs_a_bolt_holds_are_acked_when_it_acks_them(resources):
    """With auto-ack off the inputs stay pending (the executor takes more meanwhile: an
    in-process bolt never refuses its queue) until the bolt acks them, in any order."""
    from inproc_components import SEEN
    worker = Worker(has_ackers=True)
    bolt = started_bolt(resources, worker, "HoldingBolt")
    deliver(worker, bolt, (["a", 0], MessageId({100: 1})), (["b", 0], MessageId({200: 2})))
    assert len(bolt.inputs[2]) == 2 and worker.transferred == []
    component = bolt.hosts[2].component
    component.ack(SEEN["held"][1])
    component.ack(SEEN["held"][0])
    assert [values for *_, values in worker.transferred] == [[200, 2], [100, 1]]
    assert len(bolt.inputs[2]) == 0 and not worker.deaths


def test_values_not_matching_the_declared_fields_raise_pystorms_type_error(resources):
    """pystorm's ``read_tuple`` builds the values' namedtuple of the source's declared
    fields: a tuple with another number of values raises its TypeError in the bolt, which
    dies; one with the right number arrives as that namedtuple."""
    from inproc_components import SEEN
    worker = Worker()
    bolt = started_bolt(resources, worker, "SplitBolt")
    deliver(worker, bolt, (["a cow", 0], UNANCHORED))
    (seen,) = SEEN["process"]
    assert (seen.values.sentence, seen.values.extra) == ("a cow", 0)
    assert not worker.deaths
    deliver(worker, bolt, (["cow", 0, 1], UNANCHORED))
    [death] = worker.deaths
    assert "TypeError: SentencesDefaultTuple.__new__() takes 3 positional arguments" in death


def test_an_emit_of_a_str_raises_pystorms_type_error_in_the_bolt(resources):
    """Arguments of another type than pystorm lets through take pystorm's own emit: its
    TypeError is the bolt's exception, reported, and the bolt dies with it."""
    worker = Worker()
    bolt = started_bolt(resources, worker, "StrEmittingBolt")
    deliver(worker, bolt, (["cow", 0], UNANCHORED))
    [(_component, error)] = worker.errors
    assert "All Tuples must be either lists or tuples" in error
    [death] = worker.deaths
    assert "TypeError" in death and not worker.transferred


def test_anchoring_to_an_acked_tuple_kills_the_bolt(resources):
    worker = Worker()
    bolt = started_bolt(resources, worker, "LateAnchoringBolt")
    deliver(worker, bolt, (["cow", 0], UNANCHORED))
    [death] = worker.deaths
    assert "Anchored onto 1 after ack/fail" in death and not worker.transferred


@pytest.mark.parametrize("max_pending, per_turn", [(250, [100, 100, 50]), (100, [100])])
def test_a_spout_in_process_emits_in_batches_up_to_max_spout_pending(
        resources, max_pending, per_turn):
    """``next_tuple`` runs at most NEXT_TUPLE_BATCH times per reactor turn, and never past
    ``topology.max.spout.pending`` trees in flight (none is acked here)."""
    worker = Worker(has_ackers=True, **{"topology.max.spout.pending": max_pending})
    component_class, _ = imported(resources, "inproc_components.EndlessSpout", True)
    spout = worker.executor(True, "sentences", 1, component_class)
    emitted = []
    next_tuples = spout._next_tuples

    def counted_turn():
        before = len(worker.transferred)
        next_tuples()
        emitted.append(len(worker.transferred) - before)
    spout._next_tuples = counted_turn
    assert spout.launch_children().called
    spout.children_ready()
    spout.set_active(True)
    worker.clock.advance(0)
    worker.clock.advance(1)
    assert [n for n in emitted if n] == per_turn
    assert len(worker.transferred) == max_pending and not worker.clock.getDelayedCalls()


def test_without_ackers_a_spouts_acks_do_not_break_its_batches(resources):
    """With no acker a reliable emit's ack is due at once: it is the spout's next exchange,
    and the batch of nexts goes on behind it."""
    worker = Worker(has_ackers=False)
    component_class, _ = imported(resources, "inproc_components.EndlessSpout", True)
    spout = worker.executor(True, "sentences", 1, component_class)
    acks = []
    spout.launch_children()
    spout.hosts[1].component.ack = acks.append
    spout.children_ready()
    spout.set_active(True)
    spout._next_call.cancel()
    spout._next_call = None
    spout._next_tuples()  # one reactor turn's call
    assert len(worker.transferred) == 100 and acks == list(range(100))


def test_a_spouts_own_emit_takes_pystorms_message_to_the_executor(resources):
    """ReliableSpout keeps its own emit (it remembers what it emitted): its message reaches
    ShellSpout's emit, whose tree is pending (at max spout pending 1: asked no more)."""
    worker = Worker(has_ackers=True, **{"topology.max.spout.pending": 1})
    component_class, why_not = imported(resources, "inproc_components.ReliableWords", True)
    assert why_not is None
    spout = worker.executor(True, "sentences", 1, component_class)
    spout.launch_children()
    component = spout.hosts[1].component
    component.next_tuple = lambda: component.emit(["w"], tup_id="t1")
    spout.children_ready()
    spout.set_active(True)
    worker.clock.advance(0)
    assert [(dest, stream, values) for dest, _, stream, _, values in worker.transferred] == [
        (9, "default", ["w"])]
    assert spout.pending.pending_count() == 1 and not worker.deaths
