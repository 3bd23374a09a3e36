"""Kill, activate, deactivate and rebalance: Storm's status machine applied to cluster state.

:class:`TopologyTransitions` is the shell around the pure table of
:mod:`pynimbus.clojure_port.status` (port of nimbus.clj ``transition!``, 1.2.4): under the
nimbus-wide submit lock it reads the StormBase, asks the table for the outcome, carries out the
effects (timers through the injected reactor's ``callLater``, topology removal, the rebalance's
mk-assignments) and writes the StormBase updates.  :class:`LifecycleHandler` holds the Thrift
methods, each shaped like upstream's: look the topology up by name, validate, transition.
"""

import logging

from twisted.internet import defer
from twisted.internet.threads import deferToThread

from pynimbus.clojure_port import status
from pynimbus.clojure_port.executors import java_string_order
from pynimbus.clojure_port.java_hash_map import thrift_map_order
from pynimbus.clojure_port.system_topology import is_system_id
from pynimbus.generated.storm.ttypes import (
    InvalidTopologyException, KillOptions, NotAliveException, RebalanceOptions)
from pynimbus.handlers.authorization import ALLOW_ALL
from pynimbus.nimbus.topology_store import read_storm_conf, read_storm_topology, topology_keys
from pynimbus.thrift.errors import as_application_error

log = logging.getLogger(__name__)


def storm_id_of(state, name):
    """Port of ``get-storm-id``: the id of the topology called ``name`` (any status), or None.

    Blocking (reads every StormBase).
    """
    for storm_id in state.active_storms():
        base = state.storm_base(storm_id)
        if base is not None and base.name == name:
            return storm_id
    return None


class TopologyTransitions:
    """Port of ``transition!`` and ``delay-event``: one status change at a time.

    :param nimbus: the daemon; used for ``state``, ``blob_store``, ``reactor``, ``submit_lock``,
        ``check_leader()`` and ``mk_assignments(scratch_topology_id=...)``.
    """

    def __init__(self, nimbus, run_blocking=deferToThread):
        self.nimbus = nimbus
        self.run_blocking = run_blocking
        self.pending = set()  # DelayedCalls of delay-event, cancelled on stop

    @defer.inlineCallbacks
    def transition(self, storm_id, event, args=(), error_on_no_transition=False):
        """Apply ``event`` to ``storm_id``; a Deferred firing when it is written.

        :raises TApplicationException: INTERNAL_ERROR for a user event the status does not
            allow ("No transition for event ...", as Storm's RuntimeException), or when this
            nimbus is not the leader.
        """
        self.nimbus.check_leader()
        lock = self.nimbus.submit_lock
        yield lock.acquire()
        try:
            yield self._transition_locked(storm_id, event, tuple(args), error_on_no_transition)
        finally:
            lock.release()

    @defer.inlineCallbacks
    def _transition_locked(self, storm_id, event, args, error_on_no_transition):
        state = self.nimbus.state
        base = yield self.run_blocking(state.storm_base, storm_id)
        if base is None:
            log.info("Cannot apply event %s to %s because topology no longer exists",
                     event, storm_id)
            return
        default_delay = None
        if event in (status.KILL, status.REBALANCE) and (not args or args[0] is None):
            conf = yield self.run_blocking(read_storm_conf, self.nimbus.blob_store, storm_id)
            default_delay = conf.get("topology.message.timeout.secs")
        try:
            outcome = status.transition(storm_id, base, event, args, default_delay,
                                        self.nimbus.conf.get("pynimbus.storm.compat", "1.x"))
        except status.NoTransition as e:
            if error_on_no_transition:
                raise as_application_error(e)
            if event not in status.SYSTEM_EVENTS:
                log.info("%s", e)
            return
        for effect in outcome.effects:
            yield self._carry_out(storm_id, effect)
        if outcome.updates:
            yield self.run_blocking(state.update_storm, storm_id, outcome.updates)

    def _carry_out(self, storm_id, effect):
        if isinstance(effect, status.Delay):
            self.delay_event(storm_id, effect.secs, effect.event)
            return defer.succeed(None)
        if isinstance(effect, status.RemoveStorm):
            d = self.run_blocking(self._remove_storm, storm_id)
            return d.addCallback(lambda old: self.nimbus.topology_removed(storm_id, old))
        if isinstance(effect, status.DoRebalance):
            return self._do_rebalance(storm_id, effect)
        raise AssertionError("unknown effect %r" % (effect,))

    def delay_event(self, storm_id, delay_secs, event):
        """Port of ``delay-event``: send ``event`` after ``delay_secs``; failures are logged."""
        log.info("Delaying event %s for %s secs for %s", event, delay_secs, storm_id)

        def fire():
            self.pending.discard(call)
            d = self.transition(storm_id, event, error_on_no_transition=False)
            d.addErrback(lambda f: log.error("Exception while trying transition for %s and "
                                             "event %s: %s", storm_id, event, f.getTraceback()))
        call = self.nimbus.reactor.callLater(max(0, delay_secs or 0), fire)
        self.pending.add(call)
        return call

    def _remove_storm(self, storm_id):
        """The ``:killed :remove`` work: cluster state, then the blobs' ZooKeeper state.
        Returns the Assignment removed (None if there was none)."""
        log.info("Killing topology: %s", storm_id)
        state = self.nimbus.state
        old_assignment = state.assignment_info(storm_id)
        state.remove_storm(storm_id)
        if self.nimbus.conf.get("pynimbus.storm.compat") == "2.x":
            return old_assignment  # 2.8.8 leaves the blobs' state to the delayed cleanup
        for key in topology_keys(storm_id):
            state.remove_blobstore_key(key)
            state.remove_key_version(key)
        return old_assignment

    @defer.inlineCallbacks
    def _do_rebalance(self, storm_id, effect):
        """Port of ``do-rebalance``: new counts, then mk-assignments with this as scratch."""
        updates = {}
        if effect.num_executors is not None:
            updates["component_executors"] = effect.num_executors
        # 2.8.8 updateStorm keeps the old worker count when the new one is 0.
        keeps_count = self.nimbus.conf.get("pynimbus.storm.compat") == "2.x" and \
            effect.num_workers == 0
        if effect.num_workers is not None and not keeps_count:
            updates["num_workers"] = effect.num_workers
        if updates:
            yield self.run_blocking(self.nimbus.state.update_storm, storm_id, updates)
        yield self.nimbus.mk_assignments(scratch_topology_id=storm_id)

    def startup(self, storm_ids):
        """Port of the start-up loop: send ``startup`` to every topology (re-arms timers)."""
        return defer.DeferredList(
            [self.transition(storm_id, status.STARTUP) for storm_id in storm_ids],
            consumeErrors=True)

    def stop(self):
        for call in list(self.pending):
            if call.active():
                call.cancel()
        self.pending.clear()


class LifecycleHandler:
    """``killTopology[WithOpts]``, ``activate``, ``deactivate``, ``rebalance``.

    Ports of the reified Nimbus methods of nimbus.clj (1.2.4), with 2.8.8's extra rebalance
    check (component names) in 2.x mode.
    """

    authorization = ALLOW_ALL  # the daemon sets the configured one

    def __init__(self, conf, nimbus, transitions, run_blocking=deferToThread):
        self.conf = conf
        self.nimbus = nimbus
        self.transitions = transitions
        self.run_blocking = run_blocking

    def _authorize(self, method, storm_id, name):
        """``check-authorization!`` against the topology's stored conf (in a thread)."""
        return self.run_blocking(self.authorization.check_stored, method,
                                 self.nimbus.blob_store, storm_id, name)

    @property
    def compat(self):
        return self.conf.get("pynimbus.storm.compat", "1.x")

    @defer.inlineCallbacks
    def _require_storm_id(self, name):
        """Port of ``check-storm-active! ... true`` + ``get-storm-id``.

        :raises NotAliveException: "<name> is not alive".
        """
        storm_id = yield self.run_blocking(storm_id_of, self.nimbus.state, name)
        if storm_id is None:
            raise NotAliveException(msg="%s is not alive" % name)
        return storm_id

    def killTopology(self, name):
        return self.killTopologyWithOpts(name, KillOptions())

    @defer.inlineCallbacks
    def killTopologyWithOpts(self, name, options):
        """:raises NotAliveException: no topology has that name."""
        storm_id = yield self._require_storm_id(name)
        yield self._authorize("killTopologyWithOpts", storm_id, name)
        wait_secs = options.wait_secs if options is not None else None
        yield self.transitions.transition(storm_id, status.KILL, (wait_secs,), True)
        yield self.run_blocking(self.nimbus.topology_history.add_killed,
                                self.nimbus.blob_store, storm_id)

    @defer.inlineCallbacks
    def activate(self, name):
        """:raises NotAliveException: no topology has that name."""
        storm_id = yield self._require_storm_id(name)
        yield self._authorize("activate", storm_id, name)
        yield self.transitions.transition(storm_id, status.ACTIVATE, (), True)

    @defer.inlineCallbacks
    def deactivate(self, name):
        """:raises NotAliveException: no topology has that name."""
        storm_id = yield self._require_storm_id(name)
        yield self._authorize("deactivate", storm_id, name)
        yield self.transitions.transition(storm_id, status.INACTIVATE, (), True)

    @defer.inlineCallbacks
    def rebalance(self, name, options):
        """:raises NotAliveException: no topology has that name.
        :raises InvalidTopologyException: an executor count <= 0; 2.x: an unknown component,
            or a negative worker count.
        """
        storm_id = yield self._require_storm_id(name)
        yield self._authorize("rebalance", storm_id, name)
        options = options if options is not None else RebalanceOptions()
        overrides = dict(options.num_executors) if options.num_executors is not None else {}
        if self.compat == "2.x":
            if overrides:
                topology = yield self.run_blocking(
                    read_storm_topology, self.nimbus.blob_store, storm_id)
                check_executor_overrides_2x(name, topology, overrides)
            check_num_workers_2x(options.num_workers)
        else:
            check_executor_overrides_1x(overrides)
        yield self.transitions.transition(
            storm_id, status.REBALANCE, (options.wait_secs, options.num_workers, overrides), True)


def _executors_must_be_positive():
    return InvalidTopologyException(msg="Number of executors must be greater than 0")


def check_executor_overrides_1x(overrides):
    """Port of 1.2.4 ``rebalance``'s check: every executor count must be > 0.  Any component
    id is accepted (the StormBase keeps an unknown one's count; it never has executors).

    :raises InvalidTopologyException: "Number of executors must be greater than 0".
    """
    if any(count <= 0 for count in overrides.values()):
        raise _executors_must_be_positive()


def check_executor_overrides_2x(name, topology, overrides):
    """Port of 2.8.8 ``rebalance``'s check: entry by entry, in the order of the ``HashMap``
    Thrift decoded, a component id that is not Storm's (``__``) must be one of the stored
    topology's spouts and bolts, then its count must be > 0.

    :raises InvalidTopologyException: "Invalid component ... valid values are <ids in Java
        String order>" or "Number of executors must be greater than 0".
    """
    valid = sorted(list(topology.spouts or {}) + list(topology.bolts or {}),
                   key=java_string_order)
    for component in thrift_map_order(overrides):
        if not is_system_id(component) and component not in valid:
            raise InvalidTopologyException(
                msg="Invalid component %s for topology %s, valid values are %s"
                % (component, name, ",".join(valid)))
        if overrides[component] <= 0:
            raise _executors_must_be_positive()


def check_num_workers_2x(num_workers):
    """Refuse a negative worker count (2.x).

    Deliberate difference: 2.8.8 stores it and its scheduler then fails on every round,
    which halts Nimbus (and again after each restart); 0, as in 2.8.8, keeps the count.

    :raises InvalidTopologyException: naming the count.
    """
    if num_workers is not None and num_workers < 0:
        raise InvalidTopologyException(
            msg="Number of workers must be greater than 0 (or 0 to keep the current count), "
                "not %d" % num_workers)
