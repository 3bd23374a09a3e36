"""The nimbus process's interpreter settings (pynimbus.common.interpreter): the switch interval and
the schedule of full garbage collections, from the conf."""

import gc
import sys

import pytest
from twisted.internet import task

from pynimbus.common.config import read_storm_config
from pynimbus.common.interpreter import schedule_full_collections, set_switch_interval


@pytest.fixture
def interpreter_restored():
    """The switch interval and the collector's thresholds as they were before the test."""
    interval, thresholds = sys.getswitchinterval(), gc.get_threshold()
    yield
    sys.setswitchinterval(interval)
    gc.set_threshold(*thresholds)


def conf(*options):
    return read_storm_config(options=list(options), environ={})


def test_the_switch_interval_is_the_configured_one(interpreter_restored):
    """Default 0.0005 s: the reactor gets the interpreter soon while threads work."""
    set_switch_interval(conf())
    assert sys.getswitchinterval() == pytest.approx(0.0005)
    set_switch_interval(conf("pynimbus.nimbus.switch.interval.secs=0.002"))
    assert sys.getswitchinterval() == pytest.approx(0.002)


def full_collections():
    return gc.get_stats()[2]["collections"]


def test_full_collections_run_on_the_timer_and_never_on_the_collectors_count(
        interpreter_restored):
    """Every pynimbus.nimbus.gc.full.secs (default 60) of the clock one full collection runs;
    the young generations keep their thresholds and the oldest is never collected on its
    own count, however many young collections run."""
    young, middle, _ = gc.get_threshold()
    clock = task.Clock()
    loop = schedule_full_collections(conf(), clock)
    try:
        assert gc.get_threshold()[:2] == (young, middle)
        before = full_collections()
        # enough surviving containers that Python's own count would collect all (it does
        # once with its thresholds)
        survivors = [[] for _ in range(young * middle * 20)]
        assert full_collections() == before
        clock.advance(59)
        assert full_collections() == before
        clock.advance(1)
        assert full_collections() == before + 1
        clock.advance(60)
        assert full_collections() == before + 2 and survivors
    finally:
        loop.stop()


def test_null_leaves_the_collector_to_python(interpreter_restored):
    thresholds = gc.get_threshold()
    clock = task.Clock()
    assert schedule_full_collections(conf("pynimbus.nimbus.gc.full.secs=null"), clock) is None
    assert gc.get_threshold() == thresholds and clock.getDelayedCalls() == []
