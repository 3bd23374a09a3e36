"""The event logger and ``topology.debug`` of Python workers
(:mod:`pynimbus.worker.event_logger`): the sampling switch read from the storm base, the
``events.log`` line of ``IEventLogger.EventInfo.toString``, its once-a-second flush, the
executors' emits sampled onto ``__eventlog`` and the ``Emitting:`` lines; then on ``pynimbus
dev``, Nimbus's ``debug`` call turning events on and off for a running multilang word count."""
# test-case-name: tests.test_worker_eventlogger

import logging
import os
import random
import re
import sys
import time

import pytest
from twisted.internet import defer, task

from pynimbus.generated.storm.ttypes import DebugOptions
from pynimbus.worker import executor, stats
from pynimbus.worker.event_logger import (
    EventLogFile, EventLoggerExecutor, EventSampler, debug_sampling_pct, event_line, java_text,
    tuple_watch)
from pynimbus.worker.message_id import UNANCHORED
from pynimbus.worker.receive_queue import ExecutorLoop


def context(clock, transferred=None, **conf):
    fields = dict.fromkeys(executor.WorkerContext._fields)
    fields.update(reactor=clock, compat="1.x", storm_conf=conf, has_ackers=False,
                  generate_id=lambda: 7, now_ms=lambda: int(clock.seconds() * 1000),
                  throttled=lambda: False, loop=ExecutorLoop(clock.callLater, lambda: None),
                  transfer=lambda *message: (transferred if transferred is not None
                                             else []).append(message))
    return executor.WorkerContext(**fields)


@pytest.fixture
def utc(monkeypatch):
    """The worker's local time zone is UTC (Java's Date.toString prints the local one)."""
    monkeypatch.setenv("TZ", "UTC")
    time.tzset()
    yield
    monkeypatch.undo()
    time.tzset()


# -- the switch

def test_a_components_own_options_win_over_the_topologys():
    """``send-to-eventlogger`` reads the component's options, else the topology's (keyed by
    the storm id); disabled options or none sample nothing."""
    debug = {"wc-1-2": DebugOptions(enable=True, samplingpct=10.0),
             "split": DebugOptions(enable=True, samplingpct=50.0),
             "count": DebugOptions(enable=False, samplingpct=100.0)}
    assert debug_sampling_pct(debug, "wc-1-2", "split") == 50.0
    assert debug_sampling_pct(debug, "wc-1-2", "sentences") == 10.0
    assert debug_sampling_pct(debug, "wc-1-2", "count") == 0.0
    assert debug_sampling_pct({}, "wc-1-2", "split") == 0.0
    assert debug_sampling_pct(None, "wc-1-2", "split") == 0.0


def test_the_sampler_sends_about_its_percentage():
    """``100 * random() < pct``: 25% of 20,000 emits, within a few hundred; 100% all; 0%
    none."""
    sampler = EventSampler(25.0, random.Random(3))
    assert 4700 < sum(sampler() for _ in range(20000)) < 5300
    assert all(EventSampler(100.0)() for _ in range(1000))
    assert not any(EventSampler(0.0)() for _ in range(1000))


def test_no_watch_when_debug_is_off_and_nothing_is_sampled():
    """The hot path's only cost when off: the executor's watch is None."""
    assert tuple_watch("split", {}, 0.0, time.time) is None
    assert tuple_watch("split", {"topology.debug": False}, 0.0, time.time) is None
    assert tuple_watch("split", {"topology.debug": True}, 0.0, time.time).sampler is None
    assert tuple_watch("split", {}, 5.0, time.time).log_tuples is False


# -- the line

def test_an_event_line_is_java_event_info_to_string(utc):
    """``Date.toString`` of the timestamp, source component, source task, message id (empty
    for a bolt's null), and the values as a Java list prints them."""
    assert event_line(1700000000123, "sentences", 3, 17, ["the cow", 2, 1.5, None, True]) == (
        "Tue Nov 14 22:13:20 UTC 2023,sentences,3,17,[the cow, 2, 1.5, null, true]")
    assert event_line(0, "split", 5, None, [["a", "b"], {"k": 1}]) == (
        "Thu Jan 01 00:00:00 UTC 1970,split,5,,[[a, b], {k=1}]")


def test_java_text_prints_doubles_as_java_does():
    assert java_text(1e-4) == "1.0E-4"
    assert java_text(12345678.0) == "1.2345678E7"
    assert java_text(3.0) == "3.0"


# -- the file

def test_the_event_log_is_written_and_flushed_once_a_second(tmp_path):
    """``FileBasedEventLogger``'s flush task: lines logged reach the file at the next whole
    second, not before; what is left at close is written."""
    clock = task.Clock()
    path = str(tmp_path / "workers-artifacts" / "t-1-1" / "6700" / "events.log")
    events = EventLogFile(path, clock, lambda f, *a: defer.maybeDeferred(f, *a))
    events.open()
    events.log("one")
    events.log("two")
    assert open(path).read() == ""
    clock.advance(1)
    assert open(path).read() == "one\ntwo\n"
    events.log("three")
    events.close()
    assert open(path).read() == "one\ntwo\nthree\n"
    assert not clock.getDelayedCalls()


def test_the_eventlogger_executor_logs_the_source_of_each_event(tmp_path, utc):
    """``EventLoggerBolt.execute``: the tuple's source component and task, its message id,
    time stamp and values make the line."""
    clock = task.Clock()
    path = str(tmp_path / "events.log")
    logger = EventLoggerExecutor(
        context(clock), "__eventlogger", [9], {}, {},
        stats.ExecutorStatsCollector("bolt", clock.seconds), events_path=path,
        run_blocking=lambda f, *a: defer.maybeDeferred(f, *a))
    logger.start()
    logger.receive(9, executor.TupleImpl(4, "split", "__eventlog",
                                         ["split", None, 0, ["cow"]], UNANCHORED))
    logger.receive(9, executor.TupleImpl(4, "split", "__eventlog", ["bad"], UNANCHORED))
    clock.advance(1)
    assert open(path).read() == "Thu Jan 01 00:00:00 UTC 1970,split,4,,[cow]\n"
    logger.stop()


# -- registered event loggers (topology.event.logger.register)

RECORDING_LOGGER = b"""
import json, os
from pynimbus.common.event_logger import IEventLogger


class Recording(IEventLogger):
    def prepare(self, storm_conf, arguments, context):
        self.path = os.path.join(arguments["dir"], "events-%d.jsonl" % context.task_id)
        self.out = open(self.path, "a")
        self.out.write(json.dumps({"prepared": arguments, "task": context.task_id}) + "\\n")
        self.out.flush()

    def log(self, info):
        self.out.write(json.dumps(info._asdict()) + "\\n")
        self.out.flush()

    def close(self):
        self.out.write(json.dumps({"closed": True}) + "\\n")
        self.out.close()
"""


def registered_logger(tmp_path, clock, registrations):
    """An ``__eventlogger`` executor of tasks 8 and 9 with ``registrations``, the recording
    logger importable from the resources dir."""
    resources = tmp_path / "resources"
    resources.mkdir(exist_ok=True)
    (resources / "recording_logger.py").write_bytes(RECORDING_LOGGER)
    errors = []
    conf = {"topology.event.logger.register": registrations}
    ctx = context(clock, **conf)._replace(
        resources_dir=str(resources),
        report_error=lambda component, text: errors.append((component, text)))
    from pynimbus.worker.metrics import ConsumerContext
    return EventLoggerExecutor(
        ctx, "__eventlogger", [8, 9], {}, {},
        stats.ExecutorStatsCollector("bolt", clock.seconds),
        events_path=str(tmp_path / "events.log"),
        run_blocking=lambda f, *a: defer.maybeDeferred(f, *a),
        logger_context=ConsumerContext("t-1-1", "__eventlogger", 8, 6700, str(tmp_path), 0)
    ), errors


def recorded(tmp_path, task_id):
    import json
    with open(tmp_path / ("events-%d.jsonl" % task_id)) as f:
        return [json.loads(line) for line in f]


def test_a_registered_python_logger_gets_each_event_of_its_task(tmp_path):
    """Each task's instance is prepared with the registration's ``arguments`` and its task
    id, gets the EventInfo of the events sent to its task a second at a time, and is closed
    with the worker; no events.log is written when only it is registered."""
    clock = task.Clock()
    logger, errors = registered_logger(tmp_path, clock, [
        {"class": "recording_logger.Recording", "arguments": {"dir": str(tmp_path)}}])
    logger.start()
    logger.receive(9, executor.TupleImpl(4, "split", "__eventlog",
                                         ["split", 17, 1000, ["cow"]], UNANCHORED))
    logger.receive(8, executor.TupleImpl(2, "sentences", "__eventlog",
                                         ["sentences", None, 2000, ["a b"]], UNANCHORED))
    assert recorded(tmp_path, 9) == [{"prepared": {"dir": str(tmp_path)}, "task": 9}]
    clock.advance(1)
    assert recorded(tmp_path, 9)[1:] == [{"ts": 1000, "component": "split", "task": 4,
                                          "message_id": 17, "values": ["cow"]}]
    assert recorded(tmp_path, 8)[1:] == [{"ts": 2000, "component": "sentences", "task": 2,
                                          "message_id": None, "values": ["a b"]}]
    logger.receive(9, executor.TupleImpl(4, "split", "__eventlog",
                                         ["split", 18, 3000, ["moon"]], UNANCHORED))
    clock.advance(0)  # the executor's loop takes it
    logger.stop()  # what waits is handed over, then each instance closes
    assert [r.get("values") for r in recorded(tmp_path, 9)][2:] == [["moon"], None]
    assert recorded(tmp_path, 9)[-1] == {"closed": True}
    assert errors == [] and not (tmp_path / "events.log").exists()
    assert not clock.getDelayedCalls()


def test_storms_file_logger_registered_beside_a_python_one_keeps_events_log(tmp_path, utc):
    clock = task.Clock()
    logger, errors = registered_logger(tmp_path, clock, [
        {"class": "org.apache.storm.metric.FileBasedEventLogger"},
        {"class": "recording_logger.Recording", "arguments": {"dir": str(tmp_path)}}])
    logger.start()
    logger.receive(9, executor.TupleImpl(4, "split", "__eventlog",
                                         ["split", None, 0, ["cow"]], UNANCHORED))
    clock.advance(1)
    assert open(tmp_path / "events.log").read() == (
        "Thu Jan 01 00:00:00 UTC 1970,split,4,,[cow]\n")
    assert recorded(tmp_path, 9)[-1]["values"] == ["cow"]
    logger.stop()
    assert errors == []


@pytest.mark.parametrize("class_name, says", [
    ("com.example.KafkaEventLogger", "looks like a Java class, which a Python worker cannot"),
    ("recording_logger.Missing", "does not import in the Python worker"),
    ("NoDots", "is no dotted class name"),
    ("recording_logger.json", "is no class with log")])
def test_a_registration_that_does_not_load_is_a_component_error(tmp_path, class_name, says):
    """Storm throws from prepare; here the component's error says what to register, and
    the events are dropped for that logger only."""
    clock = task.Clock()
    logger, errors = registered_logger(tmp_path, clock, [{"class": class_name}])
    logger.start()
    [(component, text)] = errors
    assert component == "__eventlogger" and says in text
    assert "pynimbus.common.event_logger.IEventLogger" in text
    logger.receive(9, executor.TupleImpl(4, "split", "__eventlog",
                                         ["split", None, 0, ["cow"]], UNANCHORED))
    clock.advance(1)
    logger.stop()
    assert not clock.getDelayedCalls()


# -- the executors' emits

def recording_bolt(clock, transferred):
    return executor.BoltExecutor(
        context(clock, transferred)._replace(now_ms=lambda: 1234), "split", [2],
        {"default": {"count": lambda task_id, values: [5]},
         "__eventlog": {"__eventlogger": lambda task_id, values: [9]}},
        {}, stats.ExecutorStatsCollector("bolt", clock.seconds, 1.0),
        host_factory=None, on_child_died=None)


def test_a_sampled_bolt_emit_goes_to_the_eventlogger_on_eventlog():
    """With its watch sampling every emit, a bolt's emit is routed, then sent unanchored as
    ``[component-id, message-id, ts, values]`` to the ``__eventlogger`` task."""
    clock = task.Clock()
    transferred = []
    bolt = recording_bolt(clock, transferred)
    bolt.emit_to(2, "default", ["cow"], None)
    assert transferred == [(5, 2, "default", UNANCHORED, ["cow"])]
    bolt.watch = tuple_watch("split", {}, 100.0, lambda: 1234)
    bolt.emit_to(2, "default", ["moon"], None)
    assert transferred[1:] == [(5, 2, "default", UNANCHORED, ["moon"]),
                               (9, 2, "__eventlog", UNANCHORED, ["split", None, 1234, ["moon"]])]


def test_a_spout_emit_carries_its_message_id_to_the_eventlogger():
    clock = task.Clock()
    transferred = []
    spout = executor.SpoutExecutor(
        context(clock, transferred)._replace(has_ackers=True), "sentences", [1],
        {"default": {"split": lambda task_id, values: [2]},
         "__ack_init": {"__acker": lambda task_id, values: [7]},
         "__eventlog": {"__eventlogger": lambda task_id, values: [9]}}, {},
        stats.ExecutorStatsCollector("spout", clock.seconds),
        host_factory=None, on_child_died=None)
    spout.watch = tuple_watch("sentences", {}, 100.0, lambda: 77)
    spout.spout_emit(1, "default", ["the cow"], "m1")
    assert (9, 1, "__eventlog", UNANCHORED, ["sentences", "m1", 77, ["the cow"]]) in transferred


def test_topology_debug_logs_emits_and_acks_in_storms_words(caplog):
    """``topology.debug: true``: task.clj's ``Emitting:`` line per emit and executor.clj's
    ``BOLT ack TASK:`` per ack, and no event is sampled."""
    clock = task.Clock()
    transferred = []
    bolt = recording_bolt(clock, transferred)
    bolt.watch = tuple_watch("split", {"topology.debug": True}, 0.0, lambda: 1)
    with caplog.at_level(logging.INFO, logger="pynimbus.worker.event_logger"):
        bolt.emit_to(2, "default", ["cow", 1], None)
        bolt.acked(2, executor.TupleImpl(1, "sentences", "default", ["the cow"], UNANCHORED))
    assert "Emitting: split default [cow, 1]" in caplog.messages
    assert any(re.match(r"BOLT ack TASK: 2 TIME: -1 TUPLE: source: sentences:1, stream: "
                        r"default, id: \{\}, \[the cow\]$", m) for m in caplog.messages)
    assert [m for m in transferred if m[2] == "__eventlog"] == []


def test_events_log_path_is_the_workers_artifacts_dir():
    """``events.log`` sits beside worker.log: ``<storm.log.dir>/workers-artifacts/<id>/<port>``
    (FileBasedEventLogger's path with ``storm.workers.artifacts.dir`` unset)."""
    from pynimbus.common.local_dirs import worker_artifacts_root
    assert os.path.join(worker_artifacts_root({"storm.log.dir": "/l"}, "wc-1-2", 6700),
                        "events.log") == "/l/workers-artifacts/wc-1-2/6700/events.log"


SPLIT_BOLT = """
from pystorm import Bolt


class Split(Bolt):
    def process(self, tup):
        for word in tup.values[0].split():
            self.emit([word])
"""


def test_an_in_process_pystorm_bolts_emits_are_sampled_too(tmp_path, monkeypatch):
    """The emits of a pystorm bolt run in the worker's process reach the executor's one emit
    path, so the watch samples them as it does a multilang child's."""
    from pynimbus.worker.inprocess import bolt_host, selection
    from worker_topologies import word_count
    (tmp_path / "eventlog_split.py").write_text(SPLIT_BOLT)
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.delitem(sys.modules, "eventlog_split", raising=False)
    split_class, why_not = selection.import_component_class(
        str(tmp_path), "eventlog_split.Split", False)
    assert split_class is not None, why_not
    clock = task.Clock()
    transferred = []
    bolt = executor.BoltExecutor(
        context(clock, transferred)._replace(
            now_ms=lambda: 5, task_to_component={1: "sentences", 2: "split", 5: "count"},
            user_topology=word_count(), report_error=lambda *a: None),
        "split", [2],
        {"default": {"count": lambda task_id, values, load=None: [5]},
         "__eventlog": {"__eventlogger": lambda task_id, values, load=None: [9]}},
        {}, stats.ExecutorStatsCollector("bolt", clock.seconds),
        host_factory=bolt_host.bolt_host_factory(split_class), on_child_died=None)
    assert bolt.launch_children().called
    bolt.watch = tuple_watch("split", {}, 100.0, lambda: 5)
    bolt.receive(2, executor.TupleImpl(1, "sentences", "default", ["the cow"], UNANCHORED))
    clock.advance(0)
    assert [m[4] for m in transferred if m[2] == "__eventlog"] == [
        ["split", None, 5, ["the"]], ["split", None, 5, ["cow"]]]


# -- on pynimbus dev

EVENT_LINE = re.compile(r"^\w{3} \w{3} \d\d \d\d:\d\d:\d\d \S+ \d{4},(\w+),(\d+),([^,]*),\[(.*)\]$")


def events(running, component):
    """The values of ``component``'s lines in the worker's events.log."""
    found = []
    for line in running.artifact("events.log").splitlines():
        match = EVENT_LINE.match(line)
        assert match, "not an EventInfo line: %r" % line
        if match.group(1) == component:
            found.append(match.group(4))
    return found


def test_nimbus_debug_turns_sampled_events_on_and_off_on_dev(tmp_path, monkeypatch, wait_until):
    """A multilang word count with an ``__eventlogger`` on dev: no events.log lines until
    Nimbus's ``debug`` enables the split bolt at 100%; then every split word appears with
    its component, task and values; after ``debug`` disables it, the count goes on and no
    more lines come; ``topology.debug`` puts ``Emitting:`` lines in worker.log."""
    from dev_word_count import word_count_on_dev
    from worker_topologies import CORPUS

    conf = {"topology.eventlogger.executors": 1, "topology.debug": True}
    with word_count_on_dev(tmp_path, monkeypatch, wait_until, "events", conf) as running:
        assert events(running, "split") == []
        with running.client() as client:
            client.debug("events", "split", True, 100.0)
        wait_until(lambda: len(events(running, "split")) >= 20, timeout=60, interval=0.5,
                   what="split's events in events.log:\n%s" % running.worker_log()[-3000:])
        words = set(events(running, "split"))
        assert words and words <= set(" ".join(CORPUS).split()), words  # each a corpus word
        assert events(running, "sentences") == []  # only the component that was enabled
        with running.client() as client:
            client.debug("events", "split", False, 0.0)
        wait_until(lambda: "event logging of split: 0.0% of its emits" in running.worker_log(),
                   timeout=30, interval=0.5, what="the worker to read the switch")
        counted = running.counted()
        # a flush period and more: what was sampled before the switch is written by now
        wait_until(lambda: running.counted() > counted + 300, timeout=60, interval=0.5,
                   what="the count to go on")
        logged = len(events(running, "split"))
        counted = running.counted()
        wait_until(lambda: running.counted() > counted + 300, timeout=60, interval=0.5,
                   what="the count to go on")
        assert len(events(running, "split")) == logged
        log_text = running.worker_log()
        assert re.search(r"Emitting: split default \[\w+\]", log_text), log_text[-3000:]
        assert re.search(r"Emitting: sentences default \[[a-z ]+\]", log_text)


def test_a_python_event_logger_shipped_in_the_jar_gets_the_sampled_events_on_dev(
        tmp_path, monkeypatch, wait_until):
    """``topology.event.logger.register`` naming a class in the topology's resources: the
    real worker imports it, and Nimbus's ``debug`` sends it the split bolt's events."""
    import glob
    import json

    from dev_word_count import word_count_on_dev

    out = tmp_path / "logged"
    out.mkdir()
    conf = {"topology.eventlogger.executors": 1, "topology.event.logger.register": [
        {"class": "recording_logger.Recording", "arguments": {"dir": str(out)}}]}

    def logged(component):
        found = []
        for path in glob.glob(str(out / "events-*.jsonl")):
            with open(path) as f:
                found += [json.loads(line) for line in f]
        return [e["values"][0] for e in found if e.get("component") == component]

    with word_count_on_dev(tmp_path, monkeypatch, wait_until, "logged-events", conf,
                           files={"recording_logger.py": RECORDING_LOGGER}) as running:
        with running.client() as client:
            client.debug("logged-events", "split", True, 100.0)
        wait_until(lambda: len(logged("split")) >= 20, timeout=60, interval=0.5,
                   what="split's events at the registered logger:\n%s"
                   % running.worker_log()[-3000:])
        assert running.errors() == {}
        assert not os.path.exists(os.path.join(running.artifacts_dir(running.ports[0]),
                                               "events.log"))
