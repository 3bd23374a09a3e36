"""What a task takes from another worker (pure: pynimbus.worker.inbound) and how often a
peer's refusals are logged (pynimbus.common.log_limit)."""

import logging

from twisted.internet import task

from pynimbus.clojure_port.normalize import normalize_topology
from pynimbus.clojure_port.system_topology import system_topology
from pynimbus.clojure_port.tasks import storm_task_info
from pynimbus.common.log_limit import RateLimitedLog
from pynimbus.worker.inbound import SYSTEM_TASK_ID, inbound_streams, refusal
from worker_topologies import word_count


def word_count_tasks(conf=None):
    conf = dict({"topology.workers": 1, "topology.acker.executors": 1}, **(conf or {}))
    topology = normalize_topology(conf, word_count())
    return system_topology(conf, topology), storm_task_info(topology, conf)


def tasks_of(task_to_component, component):
    return sorted(t for t, c in task_to_component.items() if c == component)


def test_a_bolt_takes_its_inputs_from_their_tasks_with_their_arity():
    topology, task_to_component = word_count_tasks()
    allowed = inbound_streams(topology, task_to_component, "count")
    for split_task in tasks_of(task_to_component, "split"):
        assert allowed[split_task] == {"default": 1}
    assert allowed[SYSTEM_TASK_ID] == {"default": 1}
    for other in tasks_of(task_to_component, "count") + tasks_of(task_to_component, "sentences"):
        assert other not in allowed


def test_the_acker_and_a_spout_take_the_acking_streams():
    topology, task_to_component = word_count_tasks()
    acker = inbound_streams(topology, task_to_component, "__acker")
    [spout_task] = tasks_of(task_to_component, "sentences")
    assert acker[spout_task]["__ack_init"] == 3
    assert set(acker[tasks_of(task_to_component, "split")[0]]) >= {"__ack_ack", "__ack_fail"}
    spout = inbound_streams(topology, task_to_component, "sentences")
    [acker_task] = tasks_of(task_to_component, "__acker")
    assert set(spout[acker_task]) >= {"__ack_ack", "__ack_fail"}


def test_refusals_say_what_does_not_fit():
    topology, task_to_component = word_count_tasks()
    allowed = inbound_streams(topology, task_to_component, "count")
    split_task = tasks_of(task_to_component, "split")[0]
    count_task = tasks_of(task_to_component, "count")[0]
    assert refusal(allowed, split_task, "default", ["word"]) is None
    assert refusal(allowed, split_task, "default", ["word", 2]) == (
        "stream 'default' declares 1 fields, the tuple has 2 values")
    assert refusal(allowed, split_task, "secret", ["word"]) == (
        "this task does not subscribe to stream 'secret' of task %d" % split_task)
    assert refusal(allowed, count_task, "default", ["word"]) == (
        "task %d sends nothing this task subscribes to" % count_task)
    assert refusal(inbound_streams(topology, task_to_component, "__system"), 1, "default",
                   []) == "task 1 sends nothing this task subscribes to"


def test_a_kind_of_line_is_logged_once_per_period_with_the_count_left_out(caplog):
    clock = task.Clock()
    limited = RateLimitedLog(logging.getLogger("limited"), clock, period_secs=10)
    with caplog.at_level(logging.WARNING, logger="limited"):
        assert limited.warning("a", "first %d", 1)
        assert not any(limited.warning("a", "again %d", n) for n in range(500))
        assert limited.warning("b", "other kind")
        clock.advance(10)
        assert limited.warning("a", "later %d", 2)
        assert not limited.warning("a", "later %d", 3)
    assert [r.getMessage() for r in caplog.records] == [
        "first 1", "other kind", "later 2 (500 more like it since the last one logged, left out)"]
