"""The topology status machine as data (pure).

Port of nimbus.clj ``state-transitions``, ``kill-transition``, ``rebalance-transition`` and the
outcome handling of ``transition!`` (1.2.4).  ``STATE_TRANSITIONS[status][event]`` is:

* a status: the topology moves there (``inactivate`` on ACTIVE -> INACTIVE);
* ``None``: allowed, nothing changes (``activate`` on ACTIVE);
* a function ``(base, args) -> Outcome``: the StormBase updates to write and the effects the
  shell must carry out, as data (``Delay``, ``RemoveStorm``, ``DoRebalance``).

A missing event means "no transition": :func:`transition` raises :class:`NoTransition`, which a
user call reports and a timer event only logs.  Nothing here reads ZooKeeper or the clock: the
default delay (the stored conf's ``topology.message.timeout.secs``) is passed in.
"""

import collections

from pynimbus.generated.storm.ttypes import (
    KillOptions, RebalanceOptions, TopologyActionOptions, TopologyStatus)

ACTIVE = TopologyStatus.ACTIVE
INACTIVE = TopologyStatus.INACTIVE
REBALANCING = TopologyStatus.REBALANCING
KILLED = TopologyStatus.KILLED

# Events (nimbus.clj keywords).
ACTIVATE = "activate"
INACTIVATE = "inactivate"
REBALANCE = "rebalance"
KILL = "kill"
STARTUP = "startup"
DO_REBALANCE = "do-rebalance"
REMOVE = "remove"

# Events only timers and start-up send: "no transition" for them is not worth a log line.
SYSTEM_EVENTS = frozenset([STARTUP])

Outcome = collections.namedtuple("Outcome", "updates effects")
Outcome.__doc__ = """``updates``: StormBase fields to write (None: write nothing);
``effects``: tuple of effect records for the shell, in order."""

Delay = collections.namedtuple("Delay", "secs event")
Delay.__doc__ = "Send ``event`` to the topology after ``secs`` seconds (``delay-event``)."

RemoveStorm = collections.namedtuple("RemoveStorm", "")
RemoveStorm.__doc__ = "Delete the topology's cluster state and blob-store state (``remove``)."

DoRebalance = collections.namedtuple("DoRebalance", "num_workers num_executors")
DoRebalance.__doc__ = """Write the new worker and executor counts, then run mk-assignments with
this topology as the scratch topology (``do-rebalance``)."""


class NoTransition(Exception):
    """``event`` is not allowed in the topology's status."""

    def __init__(self, event, status, storm_id):
        super().__init__("No transition for event: %s, status: %s storm-id: %s" % (
            event, status_name(status), storm_id))
        self.event = event
        self.status = status


def status_name(status):
    """``ACTIVE``, ``INACTIVE``, ... for a TopologyStatus value."""
    return TopologyStatus._VALUES_TO_NAMES.get(status, str(status))


def _delay(requested, default_delay):
    # Port of `(if kill-time kill-time <message timeout>)`: 0 is a valid wait (Clojure truthy).
    return default_delay if requested is None else requested


def kill_transition(base, args, default_delay):
    """Port of ``kill-transition``: KILLED now, ``remove`` after the wait."""
    wait_secs = _delay(args[0] if args else None, default_delay)
    return Outcome(
        updates={"status": KILLED,
                 "topology_action_options": TopologyActionOptions(
                     kill_options=KillOptions(wait_secs=wait_secs))},
        effects=(Delay(wait_secs, REMOVE),))


def rebalance_transition(base, args, default_delay):
    """Port of ``rebalance-transition``: REBALANCING now, ``do-rebalance`` after the wait.

    ``args`` = (wait_secs, num_workers, num_executors); None where not given.
    """
    wait_secs, num_workers, num_executors = (tuple(args) + (None, None, None))[:3]
    wait_secs = _delay(wait_secs, default_delay)
    options = RebalanceOptions(wait_secs=wait_secs)
    if num_workers is not None:
        options.num_workers = num_workers
    if num_executors is not None:
        options.num_executors = dict(num_executors)
    return Outcome(
        updates={"status": REBALANCING, "prev_status": base.status,
                 "topology_action_options": TopologyActionOptions(rebalance_options=options)},
        effects=(Delay(wait_secs, DO_REBALANCE),))


def _stored_delay(base):
    options = base.topology_action_options
    if options is None:
        return 0
    chosen = options.kill_options or options.rebalance_options
    return (chosen.wait_secs if chosen is not None else None) or 0


def startup_killed(base, args, default_delay):
    """Port of the ``:killed :startup`` entry: re-arm ``remove`` with the stored wait."""
    return Outcome(updates=None, effects=(Delay(_stored_delay(base), REMOVE),))


def startup_rebalancing(base, args, default_delay):
    """Port of the ``:rebalancing :startup`` entry: re-arm ``do-rebalance``."""
    return Outcome(updates=None, effects=(Delay(_stored_delay(base), DO_REBALANCE),))


def remove_transition(base, args, default_delay):
    """Port of the ``:killed :remove`` entry."""
    return Outcome(updates=None, effects=(RemoveStorm(),))


def do_rebalance_transition(base, args, default_delay):
    """Port of the ``:rebalancing :do-rebalance`` entry and ``do-rebalance``.

    Afterwards the status is the previous one; 1.2.4 also clears ``prev_status`` and
    ``topology_action_options``.
    """
    options = base.topology_action_options
    rebalance = options.rebalance_options if options is not None else None
    return Outcome(
        updates={"status": base.prev_status if base.prev_status is not None else ACTIVE,
                 "prev_status": None, "topology_action_options": None},
        effects=(DoRebalance(
            num_workers=rebalance.num_workers if rebalance else None,
            num_executors=dict(rebalance.num_executors) if rebalance and rebalance.num_executors
            else None),))


STATE_TRANSITIONS = {
    ACTIVE: {INACTIVATE: INACTIVE, ACTIVATE: None,
             REBALANCE: rebalance_transition, KILL: kill_transition},
    INACTIVE: {ACTIVATE: ACTIVE, INACTIVATE: None,
               REBALANCE: rebalance_transition, KILL: kill_transition},
    KILLED: {STARTUP: startup_killed, KILL: kill_transition, REMOVE: remove_transition},
    REBALANCING: {STARTUP: startup_rebalancing, KILL: kill_transition,
                  DO_REBALANCE: do_rebalance_transition},
}


def transition(storm_id, base, event, args=(), default_delay=None, compat="1.x"):
    """The Outcome of ``event`` (with ``args``) on a topology whose StormBase is ``base``.

    :raises NoTransition: when the status has no entry for ``event``.
    """
    table = STATE_TRANSITIONS.get(base.status, {})
    if event not in table:
        raise NoTransition(event, base.status, storm_id)
    entry = table[event]
    if entry is None:
        return Outcome(updates=None, effects=())
    if callable(entry):
        outcome = entry(base, tuple(args), default_delay)
    else:
        outcome = Outcome(updates={"status": entry}, effects=())
    if compat == "2.x" and outcome.updates:
        outcome = Outcome(updates=updates_2x(outcome.updates), effects=outcome.effects)
    return outcome


def updates_2x(updates):
    """2.8.8 ``StormClusterStateImpl.updateStorm`` as its transitions use it: the new StormBase
    keeps the old ``topology_action_options`` unless it sets some, but never the old
    ``prev_status`` (only a rebalance sets one)."""
    out = dict(updates)
    out.setdefault("prev_status", None)
    if out.get("topology_action_options", None) is None:
        out.pop("topology_action_options", None)
    return out
