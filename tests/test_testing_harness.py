"""``pynimbus.testing``: streamparse components run in the test's process, with what each
emitted, acked and failed recorded, deterministically.  Driven with streamparse's own
quickstart WordSpout and WordCountBolt, and with small components for the edge cases."""

import importlib
import sys

import pytest

from sparse_projects import finite_word_count, quickstart
from pynimbus.testing import HarnessError, LocalTopology, run_bolt, run_topology

QUICKSTART_MODULES = ("bolts", "bolts.wordcount", "spouts", "spouts.words", "wordcount")


@pytest.fixture
def quickstart_modules(tmp_path, monkeypatch):
    """The quickstart project's modules, imported from a fresh `sparse quickstart`."""
    root = quickstart(tmp_path)
    for name in QUICKSTART_MODULES:
        monkeypatch.delitem(sys.modules, name, raising=False)
    monkeypatch.syspath_prepend(root + "/topologies")
    monkeypatch.syspath_prepend(root + "/src")
    yield {name: importlib.import_module(name) for name in QUICKSTART_MODULES}
    for name in QUICKSTART_MODULES:
        sys.modules.pop(name, None)


def test_the_quickstart_bolt_counts_its_input(quickstart_modules):
    """WordCountBolt given dog, cat, dog emits running counts (a dog counts ten) and auto-acks
    each input, whose values are the namedtuple of the input's fields."""
    bolt = quickstart_modules["bolts.wordcount"].WordCountBolt
    record = run_bolt(bolt, [["dog"], ["cat"], ["dog"]], input_fields=["word"])
    assert record.emitted_values() == [["dog", 10], ["cat", 1], ["dog", 20]]
    assert [t.values.word for t in record.acked] == ["dog", "cat", "dog"]
    assert record.failed == [] and record.errors == []
    # every emit is anchored to the tuple being processed (pystorm's auto_anchor)
    assert [e.anchors for e in record.emitted] == [(t.id,) for t in record.acked]


def test_the_quickstart_topology_counts_what_its_spout_emits(quickstart_modules):
    """WordCount's spout cycles dog, cat, zebra, elephant: eight next_tuple calls give each
    word twice, fields-grouped so each word always reaches the same one of two count tasks."""
    topology = run_topology(quickstart_modules["wordcount"].WordCount, spout_calls=8)
    counts = topology["count_bolt"].emitted_values()
    assert dict(counts) == {"dog": 20, "cat": 2, "zebra": 2, "elephant": 2}
    tasks = {}
    for emitted in topology["count_bolt"].emitted:
        tasks.setdefault(emitted.values[0], set()).add(emitted.task)
    assert all(len(t) == 1 for t in tasks.values())
    assert {t for ts in tasks.values() for t in ts} == {1, 2}  # count_bolt's tasks come first
    assert topology["word_spout"].emitted_values() == [[w] for w in
                                                        ["dog", "cat", "zebra", "elephant"] * 2]
    # the quickstart spout emits without message ids: nothing is tracked
    assert topology["word_spout"].acked == [] and topology.pending() == {}


def test_the_same_inputs_give_the_same_records(quickstart_modules):
    """Two runs of the same topology and inputs record the same emits, task for task."""
    runs = [run_topology(quickstart_modules["wordcount"].WordCount, spout_calls=12)
            for _ in range(2)]
    assert runs[0]["count_bolt"].emitted == runs[1]["count_bolt"].emitted


def test_fed_spout_tuples_are_acked_back_to_the_spout(tmp_path, monkeypatch):
    """Tuples fed as a spout's, with message ids 0.., are acked to it once the bolt acked
    what they led to; the finite word count's counts are exact."""
    root = finite_word_count(tmp_path, package="harness_fed")
    monkeypatch.syspath_prepend(root + "/src")
    monkeypatch.syspath_prepend(root + "/topologies")
    topology_class = importlib.import_module("harness_fed_count").FiniteWordCount
    topology = run_topology(topology_class, inputs={"word_spout": [["a"], ["b"], ["a"]]})
    assert sorted(topology["count_bolt"].emitted_values()) == [["a", 1], ["a", 2], ["b", 1]]
    assert topology["word_spout"].acked == [0, 1, 2]
    assert topology.pending() == {}


def test_the_finite_spout_runs_dry_and_every_word_is_counted(tmp_path, monkeypatch):
    """The finite word count's own spout, called until its corpus is done: every word
    counted exactly, every message id acked."""
    from sparse_projects import expected_counts
    root = finite_word_count(tmp_path, package="harness_dry")
    monkeypatch.syspath_prepend(root + "/src")
    monkeypatch.syspath_prepend(root + "/topologies")
    topology_class = importlib.import_module("harness_dry_count").FiniteWordCount
    words = sum(expected_counts().values())
    topology = run_topology(topology_class, spout_calls=words + 5)
    final = {}
    for word, count in topology["count_bolt"].emitted_values():
        final[word] = count
    assert final == dict(expected_counts())
    assert sorted(topology["word_spout"].acked) == list(range(words))


# -- edge cases, with small components ------------------------------------------------

from streamparse import Bolt, Grouping, Spout, Stream, Topology  # noqa: E402


class NumberSpout(Spout):
    outputs = ["n"]

    def initialize(self, conf, context):
        self.next_n = 0
        self.acked, self.failed = [], []

    def next_tuple(self):
        self.emit([self.next_n], tup_id=self.next_n)
        self.next_n += 1

    def ack(self, tup_id):
        self.acked.append(tup_id)

    def fail(self, tup_id):
        self.failed.append(tup_id)


class SplitBolt(Bolt):
    """n -> n emits of n (anchored); fails odd numbers after emitting."""
    outputs = ["n"]
    auto_ack = False

    def process(self, tup):
        n = tup.values[0]
        for _ in range(n):
            self.emit([n])
        if n % 2:
            self.fail(tup)
        else:
            self.ack(tup)


class SinkBolt(Bolt):
    outputs = []

    def process(self, tup):
        pass


class Fanout(Topology):
    numbers = NumberSpout.spec()
    split = SplitBolt.spec(inputs=[numbers], par=2)
    sink = SinkBolt.spec(inputs={split: Grouping.fields("n")}, par=3)


def test_a_tree_fails_at_its_first_fail_and_acks_when_all_is_acked():
    """Even numbers' trees (split acks, the sink auto-acks each emitted copy) are acked to
    the spout; odd ones are failed once, whatever is acked after; the spout's own ack and
    fail ran."""
    topology = run_topology(Fanout, spout_calls=4)
    assert topology["numbers"].acked == [0, 2]
    assert topology["numbers"].failed == [1, 3]
    spout = topology.tasks[topology.component_to_tasks["numbers"][0]]
    assert (spout.acked, spout.failed) == ([0, 2], [1, 3])
    assert len(topology["sink"].acked) == 0 + 1 + 2 + 3
    assert topology.pending() == {}


class ForgetfulBolt(Bolt):
    auto_ack = False
    outputs = []

    def process(self, tup):
        pass


def test_a_tuple_never_acked_stays_pending():
    """No timeouts: a tree whose tuple is never acked is listed by pending()."""
    class Forgets(Topology):
        numbers = NumberSpout.spec()
        forget = ForgetfulBolt.spec(inputs=[numbers])
    topology = run_topology(Forgets, spout_calls=2)
    assert topology.pending() == {"numbers": [0, 1]}
    assert topology["numbers"].acked == topology["numbers"].failed == []


class RaisingBolt(Bolt):
    outputs = ["n"]

    def process(self, tup):
        if tup.values[0] == "boom":
            raise ValueError("cannot count boom")
        self.emit([tup.values[0]])


def test_an_exception_is_reported_and_its_tuple_failed():
    """A bolt raising in process: its error recorded as pystorm reports it, the tuple failed
    (auto_fail), the logger's error logged; the next tuple is processed by the same task."""
    record = run_bolt(RaisingBolt, [["a"], ["boom"], ["b"]])
    assert record.emitted_values() == [["a"], ["b"]]
    assert [t.values[0] for t in record.failed] == ["boom"]
    assert [t.values[0] for t in record.acked] == ["a", "b"]
    [(task, message)] = record.errors
    assert message.startswith("Python ValueError raised while processing Tuple")
    assert "cannot count boom" in message
    assert any(level == "error" and "Exception in RaisingBolt.run()" in text
               for _, level, text in record.logs)


class TaskIdsBolt(Bolt):
    outputs = [Stream(fields=["n"], name="default"), Stream(fields=["n"], name="direct",
                                                            direct=True)]

    def process(self, tup):
        tasks = self.emit([tup.values[0]], need_task_ids=True)
        direct = max(int(t) for t, c in self.context["task->component"].items()
                     if c == "sink_direct")
        self.emit([tup.values[0]], stream="direct", direct_task=direct)
        self.emit([tup.values[0]], stream="direct", direct_task=max(tasks))
        self.logger.info("sent to %s", tasks)


def test_need_task_ids_answers_the_tasks_and_direct_emits_reach_the_task():
    """emit(need_task_ids=True) returns the tasks the tuple went to (all-grouped: both sink
    tasks); a direct emit reaches only the task named, and none when that task's component
    does not subscribe to the stream (Storm drops it); logger lines are recorded."""
    class Direct(Topology):
        numbers = NumberSpout.spec()
        ids = TaskIdsBolt.spec(inputs=[numbers])
        sink_all = SinkBolt.spec(inputs={ids: Grouping.ALL}, par=2)
        sink_direct = SinkBolt.spec(inputs={ids["direct"]: Grouping.DIRECT}, par=2)
    topology = run_topology(Direct, spout_calls=1)
    [plain, direct, dropped] = topology["ids"].emitted
    assert plain.to_tasks == tuple(topology.component_to_tasks["sink_all"])
    assert direct.to_tasks == (max(topology.component_to_tasks["sink_direct"]),)
    assert direct.stream == "direct" and dropped.to_tasks == ()
    assert len(topology["sink_direct"].acked) == 1
    assert any("sent to [" in text for _, _, text in topology["ids"].logs)
    assert topology["numbers"].acked == [0]


class WrongStreamBolt(Bolt):
    outputs = ["n"]

    def process(self, tup):
        self.emit([1], stream="undeclared")


def test_an_emit_on_an_undeclared_stream_is_raised_to_the_test():
    """Storm refuses an emit on a stream the component does not declare; the harness raises
    HarnessError naming the component and the stream."""
    with pytest.raises(HarnessError, match="bolt emitted on stream 'undeclared'"):
        run_bolt(WrongStreamBolt, [[1]])


class TickBolt(Bolt):
    outputs = ["ticks"]

    def initialize(self, conf, context):
        self.ticks = 0

    def process(self, tup):
        pass

    def process_tick(self, tup):
        self.ticks += 1
        self.emit([self.ticks])


def test_ticks_reach_process_tick():
    """run_bolt's ticks are tick tuples: process_tick runs, and pystorm acks them."""
    record = run_bolt(TickBolt, [], ticks=2)
    assert record.emitted_values() == [[1], [2]]
    assert [(t.component, t.stream) for t in record.acked] == [("__system", "__tick")] * 2


def test_a_java_component_is_refused():
    """A JavaBolt spec cannot run in Python: HarnessError naming the component."""
    from streamparse import JavaBolt

    class WithJava(Topology):
        numbers = NumberSpout.spec()
        java = JavaBolt.spec(full_class_name="com.example.Bolt", args_list=[], inputs=[numbers],
                             outputs=["x"])
    with pytest.raises(HarnessError, match="component java is not a Python component"):
        LocalTopology(WithJava)


def test_a_topology_nimbus_would_refuse_is_refused_with_its_message():
    """A component id starting with "__" (Storm keeps those for itself): HarnessError with
    the message Nimbus's validate-basic gives."""
    class Reserved(Topology):
        numbers = NumberSpout.spec(name="__numbers")
        sink = SinkBolt.spec(inputs=[numbers])
    with pytest.raises(HarnessError, match="Nimbus would refuse this topology: .*__numbers"):
        LocalTopology(Reserved)
