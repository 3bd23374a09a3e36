"""The executor's timers without processes: tick tuples (executor.clj ``setup-ticks!``) on a
``task.Clock``."""
# test-case-name: tests.test_worker_executor

import pytest
from twisted.internet import task

from pynimbus.worker import executor


def context(clock, compat="1.x"):
    fields = dict.fromkeys(executor.WorkerContext._fields)
    fields.update(reactor=clock, compat=compat)
    return executor.WorkerContext(**fields)


class Recording(executor.NoopBoltExecutor):
    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.received = []

    def receive(self, tuple_, task_id=None):
        self.received.append((task_id, tuple_.source_task, tuple_.source_component,
                              tuple_.stream, tuple_.values))


class RecordingSpout(Recording):
    is_spout = True


def ticked(cls, component_id, component_conf, compat="1.x", seconds=(5, 5)):
    clock = task.Clock()
    recording = cls(context(clock, compat), component_id, [3, 4], {}, component_conf, None)
    recording.start()
    for step in seconds:
        clock.advance(step)
    recording.stop()
    assert not clock.getDelayedCalls()
    return recording.received


def test_a_bolt_gets_a_tick_per_task_every_period():
    """Every task of the executor, every ``topology.tick.tuple.freq.secs``, from task -1 of
    ``__system`` on ``__tick`` with the frequency as its value; none before the first."""
    conf = {"topology.tick.tuple.freq.secs": 5}
    assert ticked(Recording, "counter", conf, seconds=[4.9]) == []
    tick = (-1, "__system", "__tick", [5])
    assert ticked(Recording, "counter", conf) == [
        (3,) + tick, (4,) + tick, (3,) + tick, (4,) + tick]


def test_no_ticks_without_a_frequency():
    assert ticked(Recording, "counter", {}) == []


@pytest.mark.parametrize("compat, acker_ticks", [("1.x", 0), ("2.x", 4)])
def test_system_components_get_no_ticks_but_the_2x_acker(compat, acker_ticks):
    """1.2.4 ticks no system component (its acker logs "Timeouts disabled"); 2.8.8 ticks the
    acker."""
    conf = {"topology.tick.tuple.freq.secs": 5}
    assert ticked(Recording, "__system", conf, compat) == []
    assert len(ticked(Recording, "__acker", conf, compat)) == acker_ticks


def test_a_spout_gets_no_ticks_when_message_timeouts_are_off():
    conf = {"topology.tick.tuple.freq.secs": 30, "topology.enable.message.timeouts": False}
    assert ticked(RecordingSpout, "spout", conf, seconds=[30]) == []
    conf["topology.enable.message.timeouts"] = True
    assert len(ticked(RecordingSpout, "spout", conf, seconds=[30])) == 2
