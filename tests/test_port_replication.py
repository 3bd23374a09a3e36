# -*- test-case-name: tests.test_port_replication -*-
"""Tests for pynimbus.clojure_port.replication: when a submission waits for its code to be
replicated, per generation (literal counts of the jar, code and conf blobs)."""

import pytest

from pynimbus.clojure_port.replication import ACHIEVED, GAVE_UP, WAIT, replication_wait_step


def test_1x_waits_while_any_blob_is_short_of_the_minimum():
    """1.2.4 waits until the jar, the code and the conf each have min copies."""
    assert replication_wait_step("1.x", (2, 1, 2), 2, 60, 0) == WAIT
    assert replication_wait_step("1.x", (2, 2, 2), 2, 60, 5) == ACHIEVED


def test_1x_max_wait_bounds_the_wait_and_negative_is_for_ever():
    """At most max seconds (0: no wait at all); a negative maximum waits for ever."""
    assert replication_wait_step("1.x", (1, 1, 1), 2, 3, 2) == WAIT
    assert replication_wait_step("1.x", (1, 1, 1), 2, 3, 3) == GAVE_UP
    assert replication_wait_step("1.x", (1, 1, 1), 2, 0, 0) == GAVE_UP
    assert replication_wait_step("1.x", (1, 1, 1), 2, -1, 10 ** 6) == WAIT


def test_2x_waits_only_while_every_blob_is_short_of_the_minimum():
    """2.8.8 goes on as soon as one of the three blobs has min copies."""
    assert replication_wait_step("2.x", (1, 1, 1), 2, 60, 0) == WAIT
    assert replication_wait_step("2.x", (2, 1, 1), 2, 60, 0) == ACHIEVED


@pytest.mark.parametrize("max_wait", [0, -1])
def test_2x_waits_for_ever_without_a_positive_maximum(max_wait):
    assert replication_wait_step("2.x", (1, 1, 1), 2, max_wait, 10 ** 6) == WAIT


def test_2x_gives_up_once_it_waited_more_than_the_maximum():
    """2.8.8 checks ``waited > max`` before each wait: one wait more than 1.2.4."""
    assert replication_wait_step("2.x", (1, 1, 1), 2, 3, 3) == WAIT
    assert replication_wait_step("2.x", (1, 1, 1), 2, 3, 4) == GAVE_UP


def test_one_nimbus_with_the_default_minimum_never_waits():
    """topology.min.replication.count defaults to 1: a lone nimbus's copy is enough."""
    for compat in ("1.x", "2.x"):
        assert replication_wait_step(compat, (1, 1, 1), 1, 60, 0) == ACHIEVED
