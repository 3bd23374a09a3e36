"""Nimbus's monitor: mk-assignments and cleanup, on a timer and on demand.

The shell around :mod:`pynimbus.clojure_port.assignments` (port of nimbus.clj ``mk-assignments``
and ``do-cleanup``, 1.2.4): it reads cluster state and the stored topologies, computes purely,
and writes only the assignments that changed.  Rounds never overlap (a DeferredLock); the
heartbeat cache lives here and is only touched under that lock: by a round (in a thread), by the
RPC worker heartbeats of 2.x supervisors (:meth:`Monitor.record_rpc_heartbeats`, in the
reactor) and by cleanup.  In 2.x a round also waits for the workers' heartbeats after a
leadership gain (``HeartbeatsRecovery``) and hands what changed to the supervisor pusher
(``nimbus.supervisor_push``).  Everything blocking runs in a thread.
"""

import logging

from thrift.Thrift import TException
from twisted.internet import defer
from twisted.internet.threads import deferToThread

from pynimbus.blobstore.keys import get_id_from_blob_key
from pynimbus.clojure_port import assignments as port_assignments
from pynimbus.clojure_port import cleanup as port_cleanup
from pynimbus.clojure_port import executors as port_executors
from pynimbus.clojure_port import liveness
from pynimbus.clojure_port import supervisor_assignments as port_supervisor_assignments
from pynimbus.clojure_port import tasks as port_tasks
from pynimbus.clojure_port import resources as port_resources
from pynimbus.clojure_port.scheduler.cluster import TopologyDetails
from pynimbus.generated.storm.ttypes import KeyNotFoundException, NotAliveException
from pynimbus.jstorm_port.storm_scheduler import raw_topology_of
from pynimbus.nimbus.topology_store import (
    delete_blobs, read_storm_conf, read_storm_topology, topology_keys)

log = logging.getLogger(__name__)


def _read_all(names, read_one):
    """``{name: value}`` of ``read_one(name)`` for every name, skipping None (blocking)."""
    values = {}
    for name in names:
        value = read_one(name)
        if value is not None:
            values[name] = value
    return values


def _read_assignments(state):
    """``{storm_id: Assignment}`` of every ``/assignments`` child."""
    return _read_all(state.assignments(), state.assignment_info)


def _read_supervisors(state):
    """``{supervisor_id: SupervisorInfo}`` in ``/supervisors`` children order."""
    return _read_all(state.supervisors(), state.supervisor_info)


class TopologyDetailsCache:
    """Per topology: stored conf, task -> component map (tasks never change), storm version."""

    def __init__(self, blob_store, compat):
        self.blob_store = blob_store
        self.compat = compat
        self._entries = {}
        self._confs = {}  # stored confs read without the rest (RPC heartbeat timeouts)
        self._raw_topologies = {}  # for the jstorm scheduler: inputs and conf per component

    def conf(self, storm_id):
        """The stored conf alone; raises NotAliveException if gone."""
        entry = self._entries.get(storm_id)
        if entry is not None:
            return entry[0]
        storm_conf = self._confs.get(storm_id)
        if storm_conf is None:
            storm_conf = self._confs[storm_id] = read_storm_conf(self.blob_store, storm_id)
        return storm_conf

    def get(self, storm_id):
        """``(storm_conf, task_info, storm_version)``; raises NotAliveException if gone."""
        entry = self._entries.get(storm_id)
        if entry is None:
            storm_conf = read_storm_conf(self.blob_store, storm_id)
            topology = read_storm_topology(self.blob_store, storm_id)
            task_info = port_tasks.storm_task_info(topology, storm_conf, self.compat)
            entry = self._entries[storm_id] = (storm_conf, task_info, topology.storm_version)
            self._raw_topologies[storm_id] = raw_topology_of(topology)
        return entry

    def raw_topology(self, storm_id):
        """The components as ``pynimbus.scheduler: jstorm`` reads them (after :meth:`get`)."""
        return self._raw_topologies.get(storm_id)

    def forget(self, storm_id):
        self._entries.pop(storm_id, None)
        self._confs.pop(storm_id, None)
        self._raw_topologies.pop(storm_id, None)


class ResourceBook:
    """Nimbus's in-memory resource bookkeeping (nimbus-data's ``:id->resources``,
    ``:id->worker-resources`` and ``:node-id->resources``, 1.2.4): written by each
    mk-assignments round, read by the summaries and the UI pages.  The maps are replaced,
    never mutated, so readers in other threads see a consistent map.

    Not ported: 1.2.4 empties ``:id->resources`` and ``:id->worker-resources`` after a round
    that changed an assignment (the next unchanged round fills them again; meanwhile they are
    computed on demand, showing the requested figures and no assigned memory for a second or
    so with the oracle's ``nimbus.monitor.freq.secs`` of 1).
    """

    def __init__(self):
        # storm id -> [req on-heap, req off-heap, req cpu, assigned on-heap, off-heap, cpu]
        self.id_to_resources = {}
        # storm id -> {(node, port): WorkerResources}
        self.id_to_worker_resources = {}
        # supervisor id -> [total mem, total cpu, used mem, used cpu]
        self.node_id_to_resources = {}

    def after_round(self, topology_resources, supervisor_resources, worker_resources=None,
                    unplaced=()):
        """``swap! ... merge`` of the topologies' and their workers' figures, ``reset!`` of
        the supervisors'.  ``unplaced`` topologies (assigned no slot this round) get the
        figures of a round that placed nothing, all 0.0, and no workers, as 1.2.4 shows them
        (not those of their last placement)."""
        merged = dict(self.id_to_resources)
        merged.update(topology_resources)
        workers = dict(self.id_to_worker_resources)
        workers.update(worker_resources or {})
        for storm_id in unplaced:
            merged[storm_id] = [0.0] * 6
            workers.pop(storm_id, None)
        self.id_to_resources = merged
        self.id_to_worker_resources = workers
        self.node_id_to_resources = dict(supervisor_resources)

    def remember(self, storm_id, resources):
        """``swap! ... assoc``: figures computed on demand for a topology.  Unlike Storm, a
        round's figures written meanwhile are kept (the on-demand ones may be older)."""
        current = self.id_to_resources
        if storm_id not in current:
            self.id_to_resources = dict(current, **{storm_id: list(resources)})

    def remember_worker_resources(self, storm_id, worker_resources):
        """``swap! ... assoc`` of a topology's worker figures computed on demand (a round's
        written meanwhile are kept, as in :meth:`remember`)."""
        current = self.id_to_worker_resources
        if storm_id not in current:
            self.id_to_worker_resources = dict(current, **{storm_id: dict(worker_resources)})


class Monitor:
    """mk-assignments and do-cleanup for one nimbus.

    :param nimbus: the daemon (``conf``, ``state``, ``blob_store``, ``is_leader()``,
        ``submit_lock``, ``clock``, ``reactor``).
    """

    def __init__(self, nimbus, run_blocking=deferToThread):
        self.nimbus = nimbus
        self.run_blocking = run_blocking
        self.compat = nimbus.conf.get("pynimbus.storm.compat", "1.x")
        self.details = TopologyDetailsCache(nimbus.blob_store, self.compat)
        self.heartbeat_cache = {}
        self.recovery = liveness.HeartbeatsRecovery.new()  # 2.x: a new leader's wait for beats
        self.resources = ResourceBook()
        self.cleanup_detected = None  # 2.x: when each cleanup candidate was first seen
        self.scheduling_errors = {}  # storm id -> the SchedulingError last reported
        self.lock = defer.DeferredLock()
        self._requested = None
        self.rounds = 0

    # -- on demand -----------------------------------------------------------------------

    def request(self):
        """Run a round soon (after a submission); requests made meanwhile share that round."""
        if self._requested is None:
            self._requested = self.nimbus.reactor.callLater(0, self._run_requested)

    def _run_requested(self):
        self._requested = None
        self.mk_assignments().addErrback(
            lambda f: log.error("mk-assignments failed: %s", f.getTraceback()))

    def cancel(self):
        if self._requested is not None and self._requested.active():
            self._requested.cancel()
        self._requested = None

    # -- the timer's work ----------------------------------------------------------------

    @defer.inlineCallbacks
    def run(self):
        """One monitor tick: mk-assignments (unless ``nimbus.do.not.reassign``), then cleanup."""
        if not self.nimbus.conf.get("nimbus.do.not.reassign"):
            yield self.mk_assignments()
        yield self.do_cleanup()

    @defer.inlineCallbacks
    def mk_assignments(self, scratch_topology_id=None):
        """Port of ``mk-assignments``: leader only; writes changed assignments; returns them."""
        if not self.nimbus.is_leader():
            log.debug("not a leader, skipping assignments")
            return {}
        # Storm reads the topologies under the submit lock and writes without it, so a round
        # can write the assignment of a topology removed meanwhile.  pynimbus holds the submit
        # lock for the whole round (a rebalance's round runs inside its transition, which holds
        # it already).
        submit_lock = self.nimbus.submit_lock if scratch_topology_id is None else None
        if submit_lock is not None:
            yield submit_lock.acquire()
        try:
            yield self.lock.acquire()
            try:
                written, pushes = yield self.run_blocking(self._mk_assignments_blocking,
                                                          scratch_topology_id)
            finally:
                self.lock.release()
        finally:
            if submit_lock is not None:
                submit_lock.release()
        self.rounds += 1
        self._push(pushes)
        return written

    def _push(self, pushes):
        """Hand a round's pushes to the supervisor pusher (2.x; never waited for)."""
        pusher = getattr(self.nimbus, "supervisor_push", None)
        if pushes and pusher is not None:
            pusher.push(pushes)

    def _mk_assignments_blocking(self, scratch_topology_id):
        """One round, in a thread, under the lock: ``(written, pushes)``."""
        state = self.nimbus.state
        now = int(self.nimbus.clock())
        existing = _read_assignments(state)
        if self.compat == "2.x" and not self._heartbeats_recovered(existing, now):
            return {}, []
        active_ids = state.active_storms()
        topologies = {}
        for storm_id in active_ids:
            base = state.storm_base(storm_id)
            if base is None:
                continue
            try:
                storm_conf, task_info, storm_version = self.details.get(storm_id)
            except NotAliveException:
                log.warning("topology %s has a StormBase but no stored code; skipping", storm_id)
                continue
            executors = port_executors.compute_executors(task_info, base.component_executors)
            topologies[storm_id] = TopologyDetails(
                storm_id, conf=storm_conf, num_workers=base.num_workers,
                executor_to_component=port_executors.executor_to_component(executors),
                launch_time_secs=base.launch_time_secs, owner=base.owner,
                storm_version=storm_version, raw_topology=self.details.raw_topology(storm_id))
        supervisors = _read_supervisors(state)
        # 2.x reads /workerbeats only for topologies whose workers do not beat over RPC
        beats = {storm_id: state.executor_beats(storm_id, assignment.executor_node_port)
                 for storm_id, assignment in existing.items()
                 if storm_id in topologies and storm_id != scratch_topology_id
                 and not liveness.uses_rpc_heartbeats(topologies[storm_id].storm_version,
                                                      self.compat)}
        new_assignments, new_cache, errors = port_assignments.compute_new_assignments_and_errors(
            topologies, existing, supervisors, self.heartbeat_cache, beats, now,
            self.nimbus.conf, self.compat, scratch_topology_id=scratch_topology_id,
            master_code_dir=self.nimbus.conf.get("storm.local.dir"))
        # Deliberate difference: 2.8.8 keeps RPC heartbeats of ids nobody submitted until a
        # cleanup that may never come; pynimbus keeps only topologies in /storms.
        active = set(active_ids)
        self.heartbeat_cache = {i: c for i, c in new_cache.items() if i in active}
        if self.compat == "1.x":
            self._book_resources(topologies, new_assignments)
        written = {}
        for storm_id, assignment in sorted(new_assignments.items()):
            if port_assignments.assignment_changed(existing.get(storm_id), assignment,
                                                   self.compat):
                log.info("Setting new assignment for topology id %s", storm_id)
                state.set_assignment(storm_id, assignment)
                written[storm_id] = assignment
        self._report_scheduling_errors(errors, topologies)
        pushes = []
        if self.compat == "2.x":
            pushes = port_supervisor_assignments.round_node_assignments(
                {i: a for i, a in existing.items() if i != scratch_topology_id},
                new_assignments, supervisors)
        return written, pushes

    def sched_status_of(self, storm_id):
        """1.2.4's ``id->sched-status`` entry of a topology: why the scheduler refused it last
        round (JStorm's message), or None.  Read from any thread: the map is replaced, never
        changed.  Unlike Storm, which keeps a status until a scheduler sets another, it goes
        once the topology is placed."""
        error = self.scheduling_errors.get(storm_id)
        return error.message if error is not None else None

    def _report_scheduling_errors(self, errors, topologies):
        """File each new or changed scheduling error among the topology's errors
        (``report-error``, under the component the error names) and log it; log a topology
        that had one and is no longer refused.  Once per change, not every round: an error
        that could not be filed is tried again next round."""
        for storm_id, error in sorted(errors.items()):
            if self.scheduling_errors.get(storm_id) == error:
                continue
            log.warning("Failed to assign topology %s: %s", storm_id, error.message)
            self.nimbus.state.report_error(storm_id, error.component_id,
                                           getattr(self.nimbus, "host", None), None,
                                           error.message)
            self.scheduling_errors = dict(self.scheduling_errors, **{storm_id: error})
        for storm_id in sorted(set(self.scheduling_errors) - set(errors)):
            if storm_id in topologies:
                log.info("Topology %s is no longer refused by the scheduler", storm_id)
        self.scheduling_errors = dict(errors)

    def _heartbeats_recovered(self, existing, now):
        """2.8.8 ``isReadyForMKAssignments``' heartbeat part: the nodes of every assignment
        have reported, or the wait is over (logged either way)."""
        nodes = {node for assignment in existing.values() for node in (assignment.node_host or {})}
        was_ready = self.recovery.ready
        ready, self.recovery = self.recovery.check(nodes, now, self.nimbus.conf)
        if not ready:
            log.warning("waiting for worker heartbeats recovery, skipping assignments")
        elif not was_ready and self.recovery.missing(nodes):
            log.warning("gave up waiting for the worker heartbeats of nodes %s",
                        self.recovery.missing(nodes))
        return ready

    # -- 2.x RPC worker heartbeats -------------------------------------------------------

    def heartbeat_timeout_secs(self, storm_id):
        """Port of 2.8.8 ``getTopologyHeartbeatTimeoutSecs(topoId)``: the topology's timeout,
        nimbus's ``nimbus.task.timeout.secs`` when it is unknown.  Blocking (blob store)."""
        try:
            storm_conf = self.details.conf(storm_id)
        except NotAliveException:
            storm_conf = None
        return liveness.heartbeat_timeout_secs(self.nimbus.conf, storm_conf, self.compat)

    @defer.inlineCallbacks
    def record_rpc_heartbeats(self, beats, supervisor_id=None):
        """Fold supervisors' RPC worker heartbeats into the cache, under the round's lock.

        Port of 2.8.8 ``updateCachedHeartbeatsFromSupervisor`` and
        ``updateCachedHeartbeatsFromWorker`` (``HeartbeatCache.updateHeartbeat``): every executor listed is stamped with Nimbus's
        clock now.  The lock makes a heartbeat that arrives during a round wait for its end
        rather than be lost when the round stores its cache.  1.x liveness reads only
        ZooKeeper, so the 1.x cache is left alone.

        :param beats: ``[(storm_id, executors, time_secs, timeout_secs)]``.
        :param supervisor_id: the reporting supervisor (``sendSupervisorWorkerHeartbeats``),
            counted for the new leader's wait; None for one worker's heartbeat.
        """
        if self.compat != "2.x":
            return
        yield self.lock.acquire()
        try:
            now = int(self.nimbus.clock())
            cache = dict(self.heartbeat_cache)
            for storm_id, executors, time_secs, timeout_secs in beats:
                cache[storm_id] = liveness.update_heartbeat_cache_from_rpc(
                    cache.get(storm_id), executors, time_secs, now, timeout_secs)
            self.heartbeat_cache = cache
            if supervisor_id:
                self.recovery = self.recovery.report_node_id(supervisor_id)
        finally:
            self.lock.release()

    @defer.inlineCallbacks
    def topology_removed(self, storm_id, old_assignment):
        """2.x: the rest of 2.8.8's ``REMOVE_TRANSITION`` after ``removeStorm``: tell the
        nodes of the topology's last assignment what remains for them
        (``notifySupervisorsAsKilled``) and drop its heartbeats.  Nothing in 1.x (1.2.4 drops
        the heartbeats in ``do-cleanup``)."""
        if self.compat != "2.x":
            return
        yield self.forget_topology(storm_id)
        pusher = getattr(self.nimbus, "supervisor_push", None)
        if pusher is not None and old_assignment is not None:
            pushes = yield self.run_blocking(self._killed_pushes, old_assignment)
            pusher.push(pushes)

    def _killed_pushes(self, old_assignment):
        state = self.nimbus.state
        return port_supervisor_assignments.killed_node_assignments(
            old_assignment, _read_assignments(state), _read_supervisors(state))

    @defer.inlineCallbacks
    def forget_topology(self, storm_id):
        """Drop a topology's heartbeats (2.8.8 ``HeartbeatCache.removeTopo``), under the lock."""
        yield self.lock.acquire()
        try:
            if storm_id in self.heartbeat_cache:
                cache = dict(self.heartbeat_cache)
                del cache[storm_id]
                self.heartbeat_cache = cache
        finally:
            self.lock.release()

    def _book_resources(self, topologies, new_assignments):
        """The resource bookkeeping of 1.2.4 ``mk-assignments`` after scheduling: the
        supervisors' map is reset to the round's, and unless ``scheduler.display.resource``
        each used slot is charged one worker's memory."""
        booked = port_resources.RoundResources({}, {}, {})
        if not self.nimbus.conf.get("scheduler.display.resource"):
            slots = {}
            for storm_id, assignment in new_assignments.items():
                used = {(node_port.node, port)
                        for node_port in (assignment.executor_node_port or {}).values()
                        for port in node_port.port}
                if used:
                    slots[storm_id] = used
            booked = port_resources.update_assigned_memory(
                slots, {storm_id: details.conf for storm_id, details in topologies.items()})
        unplaced = [storm_id for storm_id, assignment in new_assignments.items()
                    if not assignment.executor_node_port]
        self.resources.after_round(booked.topologies, booked.supervisors, booked.workers,
                                   unplaced)

    @defer.inlineCallbacks
    def do_cleanup(self):
        """Port of ``do-cleanup``: tear down what is left of topologies no longer in /storms."""
        if not self.nimbus.is_leader():
            return []
        lock = self.nimbus.submit_lock
        yield lock.acquire()
        try:
            ids = yield self.run_blocking(self._cleanup_storm_ids)
        finally:
            lock.release()
        for storm_id in ids:
            try:
                yield self.run_blocking(self._cleanup, storm_id)
            except Exception:
                # one topology's failure must not keep the others' leftovers; what is left of
                # it makes it a candidate again next round
                log.exception("Cleanup of %s failed; it is retried next round", storm_id)
                continue
            yield self.forget_topology(storm_id)
        return ids

    def _cleanup_storm_ids(self):
        """Port of ``cleanup-storm-ids``."""
        state = self.nimbus.state
        ids = set(state.heartbeat_storms()) | set(state.error_topologies())
        ids |= set(state.backpressure_topologies())
        ids |= {get_id_from_blob_key(key) for key in self.nimbus.blob_store.list_keys()} - {None}
        if self.compat == "2.x":  # topoIdsToClean: only candidates seen for the delay
            now_ms = int(self.nimbus.clock() * 1000)
            if self.cleanup_detected is None:
                self.cleanup_detected = port_cleanup.CleanupDetected(now_ms)
            ids = port_cleanup.expired_topology_ids(ids, self.cleanup_detected,
                                                    self.nimbus.conf, now_ms)
        return sorted(ids - set(state.active_storms()))

    def _cleanup(self, storm_id):
        log.info("Cleaning up %s", storm_id)
        state = self.nimbus.state
        state.teardown_heartbeats(storm_id)
        state.teardown_topology_errors(storm_id)
        state.remove_backpressure(storm_id)
        blob_store = self.nimbus.blob_store
        dependency_jars = []
        try:
            dependency_jars = list(read_storm_topology(blob_store, storm_id).dependency_jars or ())
        except NotAliveException:
            pass
        for key in dependency_jars + topology_keys(storm_id):
            self._blob_rm_key(key)
        self.details.forget(storm_id)

    def _blob_rm_key(self, key):
        """Port of ``blob-rm-key``: remove a blob and its ``/blobstore`` records; a key that
        cannot be removed (one that is no valid blob key included) is logged, as Storm does,
        and the next key still goes."""
        state = self.nimbus.state
        try:
            state.remove_blobstore_key(key)
            state.remove_key_version(key)
        except (KeyNotFoundException, ValueError):
            pass
        try:
            delete_blobs(self.nimbus.blob_store, [key])
        except TException as e:
            log.warning("Could not remove blob %r: %s", key, e)
