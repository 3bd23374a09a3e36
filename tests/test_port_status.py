"""The status machine table: Storm 1.2.4's state-transitions, with effects as data."""

import pytest

from pynimbus.clojure_port import status
from pynimbus.generated.storm.ttypes import (
    KillOptions, RebalanceOptions, StormBase, TopologyActionOptions, TopologyStatus)

ID = "wc-1-1700000000"


def base(state, **fields):
    return StormBase(name="wc", status=state, num_workers=2, **fields)


def test_activate_on_active_is_a_noop():
    """activate on an ACTIVE topology is allowed and changes nothing."""
    assert status.transition(ID, base(status.ACTIVE), status.ACTIVATE) == status.Outcome(None, ())


def test_deactivate_then_activate_moves_between_active_and_inactive():
    """inactivate on ACTIVE gives INACTIVE, activate on INACTIVE gives ACTIVE."""
    assert status.transition(ID, base(status.ACTIVE), status.INACTIVATE).updates == {
        "status": status.INACTIVE}
    assert status.transition(ID, base(status.INACTIVE), status.ACTIVATE).updates == {
        "status": status.ACTIVE}


def test_kill_uses_the_message_timeout_when_no_wait_is_given():
    """kill without a wait: KILLED, remove scheduled after topology.message.timeout.secs."""
    outcome = status.transition(ID, base(status.ACTIVE), status.KILL, (None,), default_delay=30)
    assert outcome.updates == {
        "status": status.KILLED,
        "topology_action_options": TopologyActionOptions(kill_options=KillOptions(wait_secs=30))}
    assert outcome.effects == (status.Delay(30, status.REMOVE),)


def test_kill_with_zero_wait_removes_at_once():
    """A wait of 0 seconds is honoured, not replaced by the default."""
    outcome = status.transition(ID, base(status.INACTIVE), status.KILL, (0,), default_delay=30)
    assert outcome.effects == (status.Delay(0, status.REMOVE),)


def test_kill_on_killed_restarts_the_wait():
    """kill on a KILLED topology is allowed and schedules another remove."""
    outcome = status.transition(ID, base(status.KILLED), status.KILL, (5,), default_delay=30)
    assert outcome.effects == (status.Delay(5, status.REMOVE),)


def test_rebalance_remembers_the_previous_status_and_options():
    """rebalance: REBALANCING, prev_status kept, options stored, do-rebalance scheduled."""
    outcome = status.transition(ID, base(status.INACTIVE), status.REBALANCE,
                                (None, 3, {"spout": 2}), default_delay=30)
    assert outcome.updates == {
        "status": status.REBALANCING, "prev_status": status.INACTIVE,
        "topology_action_options": TopologyActionOptions(rebalance_options=RebalanceOptions(
            wait_secs=30, num_workers=3, num_executors={"spout": 2}))}
    assert outcome.effects == (status.Delay(30, status.DO_REBALANCE),)


def test_do_rebalance_restores_the_previous_status_and_clears_options():
    """do-rebalance applies the counts, then returns to prev_status with options cleared."""
    rebalancing = base(status.REBALANCING, prev_status=status.INACTIVE,
                       topology_action_options=TopologyActionOptions(
                           rebalance_options=RebalanceOptions(wait_secs=0, num_workers=4,
                                                              num_executors={"b": 3})))
    outcome = status.transition(ID, rebalancing, status.DO_REBALANCE)
    assert outcome.effects == (status.DoRebalance(num_workers=4, num_executors={"b": 3}),)
    assert outcome.updates == {"status": status.INACTIVE, "prev_status": None,
                               "topology_action_options": None}


@pytest.mark.parametrize("state, event", [
    (status.KILLED, status.REMOVE), (status.REBALANCING, status.DO_REBALANCE)])
def test_startup_rearms_the_stored_wait(state, event):
    """A restarted nimbus re-arms remove/do-rebalance with the wait stored in the StormBase."""
    options = (TopologyActionOptions(kill_options=KillOptions(wait_secs=7))
               if state == status.KILLED else
               TopologyActionOptions(rebalance_options=RebalanceOptions(wait_secs=7)))
    outcome = status.transition(ID, base(state, topology_action_options=options), status.STARTUP)
    assert outcome == status.Outcome(None, (status.Delay(7, event),))


def test_remove_on_killed_removes_the_storm():
    """remove on a KILLED topology deletes it."""
    assert status.transition(ID, base(status.KILLED), status.REMOVE).effects == (
        status.RemoveStorm(),)


@pytest.mark.parametrize("state, event", [
    (status.KILLED, status.ACTIVATE), (status.KILLED, status.REBALANCE),
    (status.REBALANCING, status.ACTIVATE), (status.REBALANCING, status.INACTIVATE),
    (status.ACTIVE, status.REMOVE), (status.ACTIVE, status.STARTUP)])
def test_missing_events_are_no_transition(state, event):
    """An event the status has no entry for raises NoTransition naming event and status."""
    with pytest.raises(status.NoTransition, match="No transition for event: %s, status: %s"
                       % (event, TopologyStatus._VALUES_TO_NAMES[state])):
        status.transition(ID, base(state), event)


def test_transition_does_not_mutate_the_base():
    """The pure table never changes the StormBase it is given."""
    original = base(status.ACTIVE)
    status.transition(ID, original, status.KILL, (3,), 30)
    assert original == base(status.ACTIVE)
