"""The multilang host (pynimbus/worker/multilang): framing, messages, context, real children."""

import os
import shutil
import sys
import time

import msgpack
import pytest
from twisted.internet import process, reactor, task

from worker_topologies import STORM_PY_SCRIPTS, storm_py_or_skip

from pynimbus.generated.storm.ttypes import (
    Bolt,
    ComponentCommon,
    ComponentObject,
    GlobalStreamId,
    Grouping,
    NullStruct,
    ShellComponent,
    SpoutSpec,
    StormTopology,
    StreamInfo,
)
import pynimbus.worker.multilang as multilang_package
from pynimbus.worker.multilang.serializers import (
    JsonSerializer,
    MsgpackSerializer,
    MultilangSerializerError,
    serializer_for,
)
from pynimbus.worker.multilang.shell_msg import (
    Ack,
    Emit,
    Fail,
    MultilangProtocolError,
    ReportError,
    ShellBoltInputs,
    ShellLog,
    Sync,
    UpdateMetric,
    bolt_action,
    handshake_pid,
    heartbeat_bolt_msg,
    needs_task_ids_reply,
    shell_msg,
    spout_action,
    spout_msg,
    subprocess_timeout_secs,
)
from pynimbus.worker.multilang.shell_process import (
    BOLT, SPOUT, ShellProcess, ShellProcessDied, child_env)
from pynimbus.worker.multilang.topology_context import topology_context_json
from purity import imported_modules

COMPONENTS_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "multilang_components")
WAIT_SECS = 20


PURE_MODULES = ("serializers.py", "shell_msg.py", "topology_context.py")
IO_MODULES = {"twisted", "socket", "os", "io", "time", "random", "subprocess", "select"}


@pytest.mark.parametrize("name", PURE_MODULES)
def test_pure_modules_import_no_io(name):
    path = os.path.join(os.path.dirname(multilang_package.__file__), name)
    imported = {m.split(".")[0] for m in imported_modules(path)}
    assert not imported & IO_MODULES


# -- framing (pure, literal bytes)


def test_json_encode_is_compact_and_end_terminated():
    encoded = JsonSerializer.encode({"command": "next", "id": ""})
    assert encoded == b'{"command":"next","id":""}\nend\n'
    assert JsonSerializer.encode([3, 4]) == b"[3,4]\nend\n"
    assert JsonSerializer.encode({"w": "é"}) == '{"w":"é"}\nend\n'.encode("utf-8")


def test_json_reader_joins_lines_until_end_across_chunks():
    reader = JsonSerializer.reader()
    assert reader.feed(b'{"command":"emit",\n"tuple"') == []
    assert reader.feed(b':["a"]}\nen') == []
    assert reader.feed(b'd\n{"command":"sync"}\r\nend\r\n[1]\nend\n') == [
        {"command": "emit", "tuple": ["a"]},
        {"command": "sync"},
        [1],
    ]


@pytest.mark.parametrize("chunk", [1, 2, 3, 7, 64, 4096])
def test_json_reader_gives_the_same_messages_however_the_bytes_are_cut(chunk):
    """Every cut of the stream into reads, at any byte (inside a line, at its newline, inside
    "end", between \\r and \\n), gives the messages of reading it whole."""
    stream = (JsonSerializer.encode({"command": "emit", "tuple": ["x" * 300, "é"]})
              + b'{"command":\r\n"sync"}\r\nend\r\n' + JsonSerializer.encode([1, 2])
              + b'\n\nnull\nend\n')
    reader = JsonSerializer.reader()
    messages = []
    for i in range(0, len(stream), chunk):
        messages += reader.feed(stream[i:i + chunk])
    assert messages == JsonSerializer.reader().feed(stream) == [
        {"command": "emit", "tuple": ["x" * 300, "é"]}, {"command": "sync"}, [1, 2], None]
    assert reader.pending_output() == ""


def test_json_reader_refuses_a_line_past_the_limit_as_it_grows():
    """An unfinished line is checked on every read, not only when a newline comes."""
    reader = JsonSerializer.reader(max_message_bytes=100)
    assert reader.feed(b"x" * 60) == []
    with pytest.raises(MultilangSerializerError, match="longer than 100 bytes"):
        reader.feed(b"x" * 60)


def test_json_reader_refuses_what_is_not_json_and_unbounded_messages():
    with pytest.raises(MultilangSerializerError, match="unable to parse: not json"):
        JsonSerializer.reader().feed(b"not json\nend\n")
    with pytest.raises(MultilangSerializerError, match="longer than 16 bytes"):
        JsonSerializer.reader(max_message_bytes=16).feed(b"x" * 10 + b"\n" + b"y" * 10)


def test_msgpack_frames_are_self_delimiting():
    encoded = MsgpackSerializer.encode({"command": "sync"})
    assert encoded == b"\x81\xa7command\xa4sync"
    reader = MsgpackSerializer.reader()
    both = encoded + msgpack.packb([1, 2])
    assert reader.feed(both[:5]) == []
    assert reader.feed(both[5:]) == [{"command": "sync"}, [1, 2]]


def test_values_without_a_wire_form_are_written_as_strings():
    class Opaque:
        def __str__(self):
            return "opaque!"

    assert JsonSerializer.encode([Opaque()]) == b'["opaque!"]\nend\n'
    assert MsgpackSerializer.reader().feed(MsgpackSerializer.encode([Opaque()])) == [["opaque!"]]


def test_msgpack_reader_refuses_bad_bytes_and_oversized_messages():
    with pytest.raises(MultilangSerializerError):
        MsgpackSerializer.reader().feed(b"\xc1")
    with pytest.raises(MultilangSerializerError, match="longer than"):
        MsgpackSerializer.reader(max_message_bytes=8).feed(msgpack.packb("x" * 64))


def test_serializer_for_reads_topology_multilang_serializer():
    assert serializer_for({}) is JsonSerializer
    conf = {"topology.multilang.serializer": "org.apache.storm.multilang.JsonSerializer"}
    assert serializer_for(conf) is JsonSerializer
    conf = {"topology.multilang.serializer": "com.yelp.pyleus.serializer.MessagePackSerializer"}
    assert serializer_for(conf) is MsgpackSerializer
    with pytest.raises(MultilangSerializerError, match="com.example.Nope"):
        serializer_for({"topology.multilang.serializer": "com.example.Nope"})


# -- messages (pure)


def test_bolt_emit_defaults_and_anchors():
    action = bolt_action(shell_msg({"command": "emit", "tuple": ["a"], "anchors": "7"}))
    assert action == Emit("default", ["a"], ("7",), None, True, None)
    assert needs_task_ids_reply(action)
    action = bolt_action(shell_msg({"command": "emit", "tuple": [1], "stream": "s",
                                    "anchors": ["1", "2"], "need_task_ids": False}))
    assert action == Emit("s", [1], ("1", "2"), None, False, None)
    assert not needs_task_ids_reply(action)


def test_direct_emit_gets_no_task_ids_and_task_zero_is_not_direct():
    direct = bolt_action(shell_msg({"command": "emit", "tuple": [], "task": 5}))
    assert direct.direct_task == 5 and not needs_task_ids_reply(direct)
    assert bolt_action(shell_msg({"command": "emit", "tuple": [], "task": 0})).direct_task is None


def test_bolt_commands():
    assert bolt_action(shell_msg({"command": "ack", "id": "9"})) == Ack("9")
    assert bolt_action(shell_msg({"command": "fail", "id": "9"})) == Fail("9")
    assert bolt_action(shell_msg({"command": "sync"})) == Sync()
    assert bolt_action(shell_msg({"command": "error", "msg": "boom"})) == ReportError(
        "Shell Process Exception: boom"
    )
    assert bolt_action(shell_msg({"command": "log", "msg": "hi", "level": 3})) == ShellLog(3, "hi")
    not_a_level = {"command": "log", "msg": "hi", "level": "3"}
    assert bolt_action(shell_msg(not_a_level)) == ShellLog(2, "hi")
    metrics = {"command": "metrics", "name": "m", "params": 4}
    assert bolt_action(shell_msg(metrics)) == UpdateMetric("m", 4)


def test_bolts_ignore_unknown_commands_and_spouts_refuse_them():
    assert bolt_action(shell_msg({"command": "dance"})) is None
    with pytest.raises(MultilangProtocolError, match="Unknown command received: dance"):
        spout_action(shell_msg({"command": "dance"}))


def test_spout_emit_carries_the_message_id_and_spouts_refuse_acks():
    action = spout_action(shell_msg({"command": "emit", "tuple": ["w"], "id": "m1"}))
    assert action == Emit("default", ["w"], (), None, True, "m1")
    with pytest.raises(MultilangProtocolError, match="Unknown command received: ack"):
        spout_action(shell_msg({"command": "ack", "id": "m1"}))


@pytest.mark.parametrize(
    "message, match",
    [
        ([1, 2], "expected a command object"),
        ({"tuple": []}, "Command not found"),
        ({"command": "emit"}, "emit without a tuple"),
        ({"command": "emit", "tuple": "abc"}, "'tuple'"),
        ({"command": "emit", "tuple": [], "task": "3"}, "'task'"),
        ({"command": "emit", "tuple": [], "anchors": [1]}, "'anchors'"),
        ({"command": "emit", "tuple": [], "need_task_ids": "no"}, "'need_task_ids'"),
        ({"command": "ack"}, "needs the id"),
        ({"command": "metrics", "params": 1}, "without a metric name"),
        ({"command": "metrics", "name": "", "params": 1}, "Receive Metrics name is empty"),
    ],
)
def test_malformed_child_messages_are_protocol_errors(message, match):
    with pytest.raises(MultilangProtocolError, match=match):
        bolt_action(shell_msg(message))


def test_shell_bolt_inputs_resolve_anchors_acks_and_fails_once():
    inputs = ShellBoltInputs()
    inputs.put("1", "tuple one")
    inputs.put("2", "tuple two")
    emit = bolt_action(shell_msg({"command": "emit", "tuple": [], "anchors": ["2", "1"]}))
    assert inputs.anchors(emit.anchors) == ["tuple two", "tuple one"]
    assert inputs.take("1", "Acked") == "tuple one"
    with pytest.raises(MultilangProtocolError, match="Acked a non-existent .*: 1"):
        inputs.take("1", "Acked")
    with pytest.raises(MultilangProtocolError, match="Anchored onto 1 after ack/fail"):
        inputs.anchors(emit.anchors)
    assert inputs.take("2", "Failed") == "tuple two"
    with pytest.raises(MultilangProtocolError, match="Failed a non-existent .*: 2"):
        inputs.take("2", "Failed")
    assert len(inputs) == 0


def test_messages_to_the_child():
    assert heartbeat_bolt_msg("5") == {"id": "5", "comp": None, "stream": "__heartbeat",
                                       "task": -1, "tuple": []}
    assert spout_msg("next") == {"command": "next", "id": ""}
    assert spout_msg("ack", "m1") == {"command": "ack", "id": "m1"}
    assert handshake_pid({"pid": 42}) == 42
    with pytest.raises(MultilangProtocolError, match="without a pid"):
        handshake_pid({"pid": "42"})


def test_subprocess_timeout_falls_back_to_the_worker_timeout():
    assert subprocess_timeout_secs({"topology.subprocess.timeout.secs": 5,
                                    "supervisor.worker.timeout.secs": 30}) == 5
    assert subprocess_timeout_secs({"topology.subprocess.timeout.secs": None,
                                    "supervisor.worker.timeout.secs": 30}) == 30


def test_child_env_appends_path_and_replaces_the_rest():
    env = child_env({"PATH": "/bin", "A": "1"}, {"PATH": "/opt/bin", "A": "2", "B": "3"})
    assert env == {"PATH": "/bin" + os.pathsep + "/opt/bin", "A": "2", "B": "3"}


# -- context (pure)


def _common(inputs=None, streams=None):
    return ComponentCommon(
        inputs=inputs or {},
        streams={s: StreamInfo(output_fields=f, direct=False) for s, f in (streams or {}).items()},
    )


def _word_count_topology():
    shell = ComponentObject(shell=ShellComponent(execution_command="python", script="s.py"))
    return StormTopology(
        spouts={"words": SpoutSpec(spout_object=shell, common=_common(
            streams={"default": ["word"], "__ack_init": ["id", "init", "spout-task"]}))},
        bolts={
            "count": Bolt(bolt_object=shell, common=_common(
                inputs={GlobalStreamId("words", "default"): Grouping(fields=["word"])},
                streams={"default": ["word", "count"]})),
            "__acker": Bolt(bolt_object=shell, common=_common(
                inputs={GlobalStreamId("words", "__ack_init"): Grouping(fields=["id"]),
                        GlobalStreamId("count", "default"): Grouping(shuffle=NullStruct())},
                streams={"__ack_ack": ["id"]})),
        },
        state_spouts={},
    )


def test_topology_context_has_storm_keys_and_groupings():
    task_to_component = {1: "__acker", 2: "count", 3: "words"}
    context = topology_context_json(_word_count_topology(), task_to_component, 2)
    assert context == {
        "task->component": {"1": "__acker", "2": "count", "3": "words"},
        "taskid": 2,
        "componentid": "count",
        "streams": ["default"],
        "stream->outputfields": {"default": ["word", "count"]},
        "stream->target->grouping": {"default": {"__acker": {"type": "SHUFFLE"}}},
        "source->stream->grouping": {"words": {"default": {"type": "FIELDS", "fields": ["word"]}}},
        "source->stream->fields": {
            "words": {"default": ["word"], "__ack_init": ["id", "init", "spout-task"]}
        },
    }


# -- real children (the reactor is iterated in a bounded loop; time of the heartbeats is a Clock)


def _run_until(condition, what):
    deadline = time.monotonic() + WAIT_SECS
    while not condition():
        assert time.monotonic() < deadline, "timed out waiting for " + what
        reactor.iterate(0.02)
        process.reapAllProcesses()


class _Child:
    """A ShellProcess launched on a component script, with what it reported."""

    def __init__(self, script, serializer=JsonSerializer, kind=BOLT, timeout_secs=30, env=(),
                 tmp_path=None):
        self.actions = []
        self.deaths = []
        self.clock = task.Clock()
        self.pid_dir = str(tmp_path / "pids")
        os.makedirs(self.pid_dir, exist_ok=True)
        self.shell = ShellProcess("upper", serializer, kind, self.actions.append,
                                  self.deaths.append, self.clock, timeout_secs,
                                  new_tuple_id=lambda: "hb")
        self.handshake = []
        child_environment = child_env(
            os.environ, dict(env, MULTILANG_TEST_SERIALIZER=serializer.name)
        )
        self.shell.launch(reactor, [sys.executable, script], os.path.dirname(script),
                          child_environment,
                          self.pid_dir, {"topology.name": "t"},
                          {"taskid": 1, "componentid": "upper", "task->component": {"1": "upper"}})
        self.shell.handshake.addBoth(self.handshake.append)
        self.ended = []
        self.shell.ended.addBoth(self.ended.append)

    def wait_for_actions(self, count):
        _run_until(lambda: len(self.actions) >= count or self.deaths, "%d actions" % count)
        assert not self.deaths, self.deaths

    def close(self):
        if not self.ended:
            self.shell.kill()
            _run_until(lambda: self.ended, "the child to end")


@pytest.fixture
def children(tmp_path):
    started = []

    def start(script, **kwargs):
        child = _Child(os.path.join(COMPONENTS_DIR, script), tmp_path=tmp_path, **kwargs)
        started.append(child)
        return child

    yield start
    for child in started:
        child.close()


@pytest.mark.parametrize("serializer", [JsonSerializer, MsgpackSerializer])
def test_pystorm_bolt_handshakes_emits_and_acks(children, serializer):
    child = children("upper_bolt.py", serializer=serializer)
    _run_until(lambda: child.handshake, "the handshake")
    pid = child.handshake[0]
    assert pid == child.shell.transport.pid
    assert os.path.exists(os.path.join(child.pid_dir, str(pid)))
    child.shell.write_bolt_msg("-42", "words", "default", 3, ["hello"])
    child.wait_for_actions(2)
    emit = Emit("default", ["HELLO"], ("-42",), None, False, None)
    assert child.actions[:2] == [emit, Ack("-42")]


@pytest.mark.parametrize("serializer", [JsonSerializer, MsgpackSerializer])
def test_an_emit_that_needs_task_ids_gets_them(children, serializer):
    child = children("upper_bolt.py", serializer=serializer)
    _run_until(lambda: child.handshake, "the handshake")
    child.shell.write_bolt_msg("1", "words", "default", 3, ["tasks?"])
    child.wait_for_actions(1)
    assert child.actions == [Emit("default", ["TASKS?"], ("1",), None, True, None)]
    child.shell.write_task_ids([4, 5])
    child.wait_for_actions(3)
    assert child.actions[1:] == [Emit("default", [[4, 5]], ("1",), None, False, None), Ack("1")]


def test_bolt_heartbeat_tuples_are_answered_with_sync(children):
    child = children("upper_bolt.py")
    _run_until(lambda: child.handshake, "the handshake")
    child.clock.advance(1)
    child.wait_for_actions(1)
    assert child.actions == [Sync()]


@pytest.mark.parametrize("serializer", [JsonSerializer, MsgpackSerializer])
def test_pystorm_spout_answers_next_with_emit_and_sync(children, serializer):
    child = children("word_spout.py", serializer=serializer, kind=SPOUT)
    _run_until(lambda: child.handshake, "the handshake")
    child.shell.write_spout_msg("next")
    child.wait_for_actions(2)
    assert child.actions == [Emit("default", ["word1"], (), None, False, "id1"), Sync()]


@pytest.mark.parametrize("serializer", [JsonSerializer, MsgpackSerializer])
def test_pystorm_spout_answers_exchanges_written_together_in_order(children, serializer):
    """A pystorm spout given a next and two acks at once answers with the next's emit and
    three syncs; a child answering the last of several exchanges late is still timed out."""
    child = children("word_spout.py", serializer=serializer, kind=SPOUT)
    _run_until(lambda: child.handshake, "the handshake")
    child.shell.write_spout_msg("next")
    child.shell.write_spout_msg("ack", "id0")
    child.shell.write_spout_msg("next")
    child.wait_for_actions(5)
    assert child.actions == [Emit("default", ["word1"], (), None, False, "id1"), Sync(),
                             Sync(), Emit("default", ["word2"], (), None, False, "id2"),
                             Sync()]


def test_a_spout_times_out_while_any_exchange_waits_for_its_sync(children):
    """Two exchanges written at once, the child answers neither: the silence counts from the
    first until the subprocess timeout."""
    child = children("silent_child.py", kind=SPOUT, timeout_secs=3)
    _run_until(lambda: child.handshake, "the handshake")
    child.shell.write_spout_msg("ack", "a")
    child.shell._dispatch(Sync())  # as if the first were answered: one still waits
    child.shell.write_spout_msg("ack", "b")
    child.shell.write_spout_msg("ack", "c")
    child.shell._dispatch(Sync())
    for _ in range(4):
        child.clock.advance(1)
    assert len(child.deaths) == 1 and "subprocess heartbeat timeout" in child.deaths[0]


def test_a_child_that_exits_is_reported(children):
    child = children("failing_bolt.py")
    _run_until(lambda: child.handshake, "the handshake")
    child.shell.write_bolt_msg("7", "words", "default", 3, ["x"])
    _run_until(lambda: child.deaths and child.ended, "the death report")
    assert isinstance(child.actions[0], ReportError)
    assert "cannot handle" in child.actions[0].message
    assert Fail("7") in child.actions
    assert "Pipe to subprocess seems to be broken!" in child.deaths[0]
    assert "exitCode:1" in child.deaths[0]


def test_a_command_that_cannot_run_is_reported(children):
    child = children("no_such_script.py")
    _run_until(lambda: child.deaths and child.ended and child.handshake, "the death report")
    assert child.handshake[0].check(Exception)
    assert "Pipe to subprocess seems to be broken! pid:None, name:upper No output read." in (
        child.deaths[0]
    )
    assert "exitCode:2" in child.deaths[0] and "no_such_script.py" in child.deaths[0]


def test_a_silent_bolt_times_out_and_is_killed(children):
    child = children("silent_child.py", timeout_secs=3)
    _run_until(lambda: child.handshake, "the handshake")
    for _ in range(3):
        child.clock.advance(1)
    assert child.deaths == []
    child.clock.advance(1)
    assert len(child.deaths) == 1 and "subprocess heartbeat timeout" in child.deaths[0]
    _run_until(lambda: child.ended, "the killed child to end")
    assert child.deaths == [child.deaths[0]]


def test_a_child_that_never_answers_the_handshake_is_reported_and_killed(children):
    """A child silent from its start is killed after the subprocess timeout, reported once,
    and its handshake fails (it used to wait for ever, stalling the topology)."""
    child = children("mute_child.py", timeout_secs=3)
    _run_until(lambda: child.shell.transport is not None and child.shell.transport.pid,
               "the child to start")
    child.clock.advance(2.9)
    assert child.deaths == [] and child.handshake == []
    child.clock.advance(0.2)
    assert child.deaths == [
        "pid:None, name:upper did not answer the handshake within 3 s "
        "(topology.subprocess.timeout.secs)"]
    _run_until(lambda: child.ended and child.handshake, "the killed child to end")
    assert child.handshake[0].check(ShellProcessDied)
    child.clock.advance(10)
    assert len(child.deaths) == 1


def test_bytes_of_an_unfinished_message_keep_a_bolt_alive(children):
    """A bolt writing a message slowly is not timed out while its bytes arrive."""
    child = children("silent_child.py", timeout_secs=3)
    _run_until(lambda: child.handshake, "the handshake")
    for _ in range(6):
        child.clock.advance(1)
        child.shell.childDataReceived(1, b'{"command": "emit", "tuple": ["x')
    assert child.deaths == []
    for _ in range(4):
        child.clock.advance(1)
    assert len(child.deaths) == 1 and "subprocess heartbeat timeout" in child.deaths[0]


@pytest.mark.parametrize("serializer", [JsonSerializer, MsgpackSerializer])
def test_a_50_mb_tuple_from_a_child_is_delivered(children, serializer):
    """A 50 MB emit arrives in pipe reads of at most 64 KiB; the JSON reader, linear in the
    bytes fed (it re-split the whole unfinished line on each read, quadratic, before issue
    28), reads it as msgpack's does, well within the wait."""
    child = children("big_emit_bolt.py", serializer=serializer)
    _run_until(lambda: child.handshake, "the handshake")
    child.shell.write_bolt_msg("9", "sizes", "default", 3, [50 * 1000 * 1000])
    child.wait_for_actions(1)
    [emit] = child.actions[:1]
    assert emit.anchors == ("9",) and len(emit.values[0]) == 50 * 1000 * 1000


def test_a_spout_times_out_only_while_waiting_for_sync(children):
    child = children("silent_child.py", kind=SPOUT, timeout_secs=3)
    _run_until(lambda: child.handshake, "the handshake")
    for _ in range(10):
        child.clock.advance(1)
    assert child.deaths == []
    child.shell.write_spout_msg("next")
    for _ in range(4):
        child.clock.advance(1)
    assert len(child.deaths) == 1 and "subprocess heartbeat timeout" in child.deaths[0]


def test_a_child_that_writes_no_pid_file_handshakes_and_is_in_the_pids_dir(children):
    """Storm reads only the pid of the answer (Storm's own storm.py answers before it writes
    its pid file): the handshake completes, and the host's own pid file for the child lets
    the supervisor kill it through the pids dir all the same."""
    child = children("silent_child.py", env={"MULTILANG_TEST_NO_PID_FILE": "1"})
    _run_until(lambda: child.handshake, "the handshake")
    assert child.handshake == [child.shell.transport.pid]
    assert os.listdir(child.pid_dir) == [str(child.shell.transport.pid)]
    assert child.deaths == []


@pytest.fixture
def storm_py_dir(tmp_path):
    """A resources dir holding Storm's own storm.py (org.apache.storm:multilang-python, fetched
    once by Maven into .cache), the word count's components written against it and a corpus
    of two sentences."""
    resources = tmp_path / "resources"
    resources.mkdir()
    (resources / "storm.py").write_bytes(storm_py_or_skip())
    (resources / "corpus.txt").write_text("to be\nor not\n")
    for script in STORM_PY_SCRIPTS + ("wc_sentence_spout.py",):
        shutil.copy(os.path.join(COMPONENTS_DIR, script), str(resources))
    return resources


def test_storm_py_basic_bolt_emits_waits_for_task_ids_acks_and_syncs(children, storm_py_dir):
    """Storm's own storm.py completes the handshake (it answers before writing its pid file),
    each emit is anchored to the input and waits for its task ids, the input is acked after
    ``process`` returns, and a heartbeat tuple is answered with sync."""
    child = children(str(storm_py_dir / "wc_storm_py_split_bolt.py"))
    _run_until(lambda: child.handshake, "the handshake")
    assert child.handshake == [child.shell.transport.pid]
    child.shell.write_bolt_msg("-5", "sentences", "default", 1, ["to be"])
    child.wait_for_actions(1)
    assert child.actions == [Emit("default", ["to"], ("-5",), None, True, None)]
    child.shell.write_task_ids([3])
    child.wait_for_actions(2)
    assert child.actions[1] == Emit("default", ["be"], ("-5",), None, True, None)
    child.shell.write_task_ids([4])
    child.wait_for_actions(3)
    assert child.actions[2] == Ack("-5")
    child.clock.advance(1)
    child.wait_for_actions(4)
    assert child.actions[3:] == [Sync()]


def test_storm_py_spout_syncs_after_each_command_and_emits_with_its_id(children, storm_py_dir,
                                                                      tmp_path):
    """Storm's own storm.py spout answers activate with sync; next with an emit carrying its
    message id that waits for its task ids, then sync; ack reaches the spout's ``ack`` with
    that id, then sync."""
    acked = str(tmp_path / "acked.txt")
    child = storm_py_spout(children, storm_py_dir, acked)
    child.shell.write_spout_msg("activate")
    child.wait_for_actions(1)
    assert child.actions == [Sync()]
    child.shell.write_spout_msg("next")
    child.wait_for_actions(2)
    assert child.actions[1] == Emit("default", ["to be"], (), None, True, 0)
    child.shell.write_task_ids([2])
    child.wait_for_actions(3)
    assert child.actions[2] == Sync()
    child.shell.write_spout_msg("ack", 0)
    child.wait_for_actions(4)
    assert child.actions[3] == Sync()
    with open(acked) as f:
        assert f.read() == "0\n"


def storm_py_spout(children, storm_py_dir, acked):
    """Storm's storm.py word count spout, handshaken, appending acked ids to ``acked``."""
    child = children(str(storm_py_dir / "wc_storm_py_sentence_spout.py"), kind=SPOUT,
                     env={"WORDCOUNT_ACKED": acked})
    _run_until(lambda: child.handshake, "the handshake")
    return child


def test_storm_py_spout_answers_exchanges_written_together_in_order(children, storm_py_dir,
                                                                     tmp_path):
    """The executor writes ack exchanges behind the one under way without waiting for each
    sync: Storm's storm.py spout, waiting for the task ids of its emit, queues them, then
    answers each with its own sync in order; every ack reaches the spout's ``ack``."""
    acked = str(tmp_path / "acked.txt")
    child = storm_py_spout(children, storm_py_dir, acked)
    child.shell.write_spout_msg("next")
    child.wait_for_actions(1)
    for message_id in (5, 6, 7):
        child.shell.write_spout_msg("ack", message_id)
    child.shell.write_task_ids([2])
    child.wait_for_actions(5)
    assert child.actions[1:] == [Sync()] * 4
    with open(acked) as f:
        assert f.read() == "5\n6\n7\n"
