# -*- test-case-name: tests.test_supervisor_daemon -*-
"""The Python supervisor daemon: run on this machine what Nimbus assigns to it.

Port of Storm's supervisor loop (1.0 ``supervisor.clj`` ``mk-supervisor``, ``sync-supervisor``
and ``sync-processes``, whose decisions 1.2.4 makes per slot in ``Slot.java``), on the Twisted
reactor.  At start the supervisor empties ``supervisor/tmp``, reads or makes its id and
registers its ``SupervisorInfo`` (:mod:`.registration`); then every
``supervisor.monitor.frequency.secs`` one sync:

1. reads every ``Assignment`` in cluster state and keeps what names this supervisor on one of
   its ``supervisor.slots.ports`` (:func:`.assignments.read_assignments`);
2. downloads the code of newly assigned topologies from the leader Nimbus (:mod:`.code`);
3. reads each worker's LocalState heartbeat and the ``approved-workers`` (:mod:`.worker_dirs`)
   and decides with :func:`.assignments.sync_processes`;
4. kills what must die: SIGTERM to every pid in the worker's ``pids`` dir (the worker and its
   multilang children), SIGKILL after ``supervisor.worker.shutdown.sleep.secs`` to what is left,
   then removes the worker's directory (1.0 ``shutdown-worker``, ``try-cleanup-worker``);
5. removes the ``stormdist`` directories of topologies no longer assigned here;
6. launches a worker per unserved port: a fresh UUID, its directories, the id in
   ``approved-workers`` (so a restarted supervisor adopts it), then
   ``python -m pynimbus.worker --conf <conf json> <storm id> <supervisor id> <port> <worker id>``
   in ``workers/<worker id>``, its output in ``workers-artifacts/<storm id>/<port>/worker.log``.
7. carries out the worker-profiler requests for its ports (:mod:`.profiling`).

A worker whose heartbeat is older than ``supervisor.worker.timeout.secs``, or whose process
exited, is killed and launched again by the next sync.  Blocking work (cluster state, files,
downloads, forks) runs through ``run_blocking`` (a thread by default); time is the reactor's.

In 2.x mode (``pynimbus.storm.compat: "2.x"``, the key Nimbus reads) the supervisor is a
2.8.8 one (``Supervisor.launch`` and ``launchDaemon``): it serves the ``Supervisor`` Thrift
service on ``supervisor.thrift.port`` (:mod:`.thrift_service`) and registers that port as its
``server_port``; its assignments are no longer read from cluster state but held in memory,
replaced whole by what Nimbus pushes (``sendSupervisorAssignments``) and by what it pulls with
``getSupervisorAssignments`` at start and every 10 seconds (``SynchronizeAssignments``), each
followed by a sync; and every ``worker.heartbeat.frequency.secs`` it reports its workers'
heartbeats to the leader with ``sendSupervisorWorkerHeartbeats`` (``ReportWorkerHeartbeats``).
Its workers get ``supervisor.thrift.port`` in their conf file, to ask it for their assignment
and send it their heartbeats.  Deliberate difference: until the first pull or push succeeds it
does not sync, so a supervisor restarted while Nimbus is away keeps its workers.

Each supervisor owns only ``<storm.local.dir>/workers`` and the ports it was assigned, so
several on one machine, each with its own local dir and ports, never touch each other's workers.
On stop the supervisor leaves its workers running, as Storm's does; they run in a session of
their own, so a Ctrl-C at the supervisor's terminal does not reach them.
"""

import json
import logging
import os
import shutil
import signal
import subprocess
import sys
import uuid

from twisted.internet import defer, task
from twisted.internet.threads import deferToThread

from pynimbus.clojure_port.system_topology import SYSTEM_COMPONENT_ID
from pynimbus.clojure_port.tasks import storm_task_info
from pynimbus.cluster import make_cluster_state
from pynimbus.cluster.paths import url_encode_2x
from pynimbus.common import local_dirs
from pynimbus.common.config import absolute_paths
from pynimbus.common.exit_codes import EXIT_CODE_CHILD_DIED
from pynimbus.common.log_limit import RateLimitedLog
from pynimbus.common.processes import process_alive, send_signal  # noqa: F401 (re-exported)
from pynimbus.supervisor import (
    assignments, code, nimbus_rpc, profiling, registration, thrift_service, worker_dirs,
    worker_failures)
from pynimbus.supervisor.assignments import LaunchedWorker
from pynimbus.thrift import client
from pynimbus.thrift.client import NimbusClient
from pynimbus.thrift.client import call_leader_nimbus

log = logging.getLogger(__name__)

WORKER_CONF_FILE = "supervisor-conf.json"


def worker_launch_command(conf_path, storm_id, supervisor_id, port, worker_id):
    """The command that starts a worker (the project's fixed interface; 1.2.4's
    ``BasicContainerLauncher`` runs ``java ... Worker <storm id> <supervisor id> <port>
    <worker id>`` with the same four arguments)."""
    return [sys.executable, "-m", "pynimbus.worker", "--conf", conf_path,
            storm_id, supervisor_id, str(int(port)), worker_id]


def find_leader_nimbus(conf, timeout=30.0):
    """``(host, port)`` of the leader Nimbus (:func:`pynimbus.thrift.client.find_leader_nimbus`).

    :raises code.CodeDownloadFailed: no seed answered with a leader.
    """
    try:
        return client.find_leader_nimbus(conf, timeout)
    except client.LeaderNotFound as e:
        raise code.CodeDownloadFailed("no leader Nimbus found among nimbus.seeds (%s)"
                                      % (str(e) or "none configured"))


def download_missing_code(conf, storm_ids, refused=(), timeout=60.0):
    """Download the code of each topology of ``storm_ids`` not in ``stormdist`` yet, from the
    leader Nimbus, but for those in ``refused``.  Blocking.

    A failed download is logged and tried again by the next sync; a refused jar
    (:class:`code.JarRefused`: the same jar would be refused again) is not.

    :returns: ``(installed, newly_refused)``: the ids whose code is installed, and
        ``{storm_id: (reason, component ids)}`` of the jars refused now, with the
        topology's components (to report the refusal under), empty when Nimbus did not say.
    """
    missing = sorted(s for s in storm_ids if s not in refused
                     and not os.path.exists(local_dirs.supervisor_stormdist_root(conf, s)))
    newly_refused = {}
    if missing:
        try:
            host, port = find_leader_nimbus(conf, timeout)
            with NimbusClient(host, port, timeout=timeout) as nimbus:
                for storm_id in missing:
                    try:
                        code.download_storm_code(conf, storm_id, nimbus)
                    except code.JarRefused as e:
                        log.error("code of %s refused, not downloaded again: %s", storm_id, e)
                        newly_refused[storm_id] = (str(e), topology_components(nimbus,
                                                                               storm_id))
                    except Exception as e:
                        log.warning("code of %s not downloaded: %s", storm_id, e)
        except Exception as e:
            log.warning("code of %s not downloaded: %s", ", ".join(missing), e)
    installed = {s for s in storm_ids
                 if os.path.exists(local_dirs.supervisor_stormdist_root(conf, s))}
    return installed, newly_refused


def topology_components(nimbus, storm_id):
    """The ids of ``storm_id``'s spouts and bolts, asked of Nimbus; [] when it does not say."""
    try:
        topology = nimbus.getUserTopology(storm_id)
    except Exception as e:
        log.debug("components of %s not read: %s", storm_id, e)
        return []
    return sorted(set(topology.spouts or ()) | set(topology.bolts or ()))


def remove_unassigned_code(conf, assigned_storm_ids):
    """Remove the ``stormdist`` directories of topologies not in ``assigned_storm_ids``
    (1.0 ``sync-supervisor``'s removal of code no longer assigned).  Blocking."""
    root = local_dirs.supervisor_stormdist_root(conf)
    if not os.path.isdir(root):
        return
    keep = {url_encode_2x(storm_id) for storm_id in assigned_storm_ids}
    for name in os.listdir(root):
        if name not in keep:
            log.info("Removing code for storm id %s", name)
            shutil.rmtree(os.path.join(root, name), ignore_errors=True)


def worker_log_path(conf, storm_id, port):
    """Where the worker of ``storm_id`` on ``port`` writes its output."""
    return os.path.join(local_dirs.worker_artifacts_root(conf, storm_id, port), "worker.log")


def read_tail(path, size=65536):
    """The last ``size`` bytes of the file at ``path`` as text ("" when unreadable)."""
    try:
        with open(path, "rb") as f:
            f.seek(0, os.SEEK_END)
            f.seek(max(0, f.tell() - size))
            return f.read().decode("utf-8", "replace")
    except OSError:
        return ""


def empty_dir(path):
    """Remove ``path`` with its contents and make it again, empty."""
    shutil.rmtree(path, ignore_errors=True)
    os.makedirs(path, exist_ok=True)


class SupervisorDaemon:
    """One supervisor: its registration, its sync loop and the workers it launched.

    :param conf: the supervisor's effective configuration.
    :param reactor: the clock and reactor (``seconds``, ``callLater``).
    :param cluster_state: a ``StormClusterState``; made from ``conf`` at start when None.
    :param run_blocking: ``f, *args -> Deferred`` running ``f`` off the reactor thread.
    :param make_worker_id: makes the id of a new worker (a UUID).
    :param worker_command: ``(conf_path, storm_id, supervisor_id, port, worker_id) -> argv``.
    """

    def __init__(self, conf, reactor, cluster_state=None, run_blocking=deferToThread,
                 make_worker_id=lambda: str(uuid.uuid4()),
                 worker_command=worker_launch_command):
        # its workers run in directories of their own, where a relative path means another
        # place: they get this conf with every path absolute (the CLI resolved them already)
        self.conf = absolute_paths(conf, os.getcwd())
        self.reactor = reactor
        self.cluster_state = cluster_state
        self.run_blocking = run_blocking
        self.make_worker_id = make_worker_id
        self.worker_command = worker_command
        self.my_ports = {int(p) for p in conf.get("supervisor.slots.ports") or ()}
        self.supervisor_id = None
        self.heartbeat = None
        self.assigned = {}       # {port: LocalAssignment} of the last sync
        self.launched = {}       # {worker_id: LaunchedWorker} launched by this process
        self.children = {}       # {worker_id: Popen} of the workers this process started
        self.dead_workers = set()
        self.refused_code = {}   # {storm_id: why its jar was refused}: not downloaded again
        self._push_refusals = RateLimitedLog(log, reactor)
        self.backoff = worker_failures.RestartBackoff(
            conf.get("pynimbus.supervisor.worker.restart.delay.secs", 2),
            conf.get("pynimbus.supervisor.worker.restart.max.delay.secs", 60))
        self._owns_cluster_state = cluster_state is None
        self._sync_lock = defer.DeferredLock()
        self.profiler = profiling.SupervisorProfiler(self)
        # 2.x: the Thrift service, the assignments Nimbus gave (InMemoryAssignmentBackend)
        self.rpc = conf.get("pynimbus.storm.compat") == "2.x"
        self.hostname = registration.supervisor_hostname(conf)
        self.server_port = None
        self.server_factory = None
        self.listening = None
        self.local_assignments = {}
        self.assignments_synchronized = False
        self._loops = []

    # -- lifecycle -----------------------------------------------------------------------

    def _prepare(self):
        """Blocking part of the start: empty tmp, the id, the cluster state."""
        empty_dir(local_dirs.supervisor_tmp_dir(self.conf))
        if self.rpc:  # 2.8.8's ids name the host's address too
            supervisor_id = registration.read_or_make_supervisor_id(
                self.conf, make_id=registration.generate_supervisor_id_2x)
        else:
            supervisor_id = registration.read_or_make_supervisor_id(self.conf)
        cluster_state = self.cluster_state or make_cluster_state(self.conf)
        return supervisor_id, cluster_state

    def start(self):
        """Register, beat and sync now and every period; a Deferred that fires once started."""
        d = self.run_blocking(self._prepare)

        def started(prepared):
            self.supervisor_id, self.cluster_state = prepared
            if self.rpc:
                self._listen()
            log.info("Starting supervisor with id %s at host %s", self.supervisor_id,
                     self.hostname)
            self._start_timers()
        return d.addCallback(started)

    def _listen(self):
        """Serve the ``Supervisor`` service (2.x) on ``supervisor.thrift.port``, on the
        address Nimbus binds (``pynimbus.thrift.bind.address``).

        :raises ConfigError: an authorizer setting this supervisor cannot honour.
        :raises CannotListenError: the port is taken (2.8.8 fails its start there too).
        """
        authorization = thrift_service.SupervisorAuthorization.from_conf(self.conf)
        self.server_factory = thrift_service.supervisor_server_factory(
            thrift_service.SupervisorService(self, authorization), self.conf, self.reactor)
        self.listening = self.reactor.listenTCP(
            int(self.conf["supervisor.thrift.port"]), self.server_factory,
            interface=self.conf.get("pynimbus.thrift.bind.address") or "")
        self.server_port = self.listening.getHost().port
        log.info("supervisor %s serves the Supervisor service on port %d",
                 self.supervisor_id, self.server_port)

    def _start_timers(self):
        """The heartbeat now and periodically, then the sync now and periodically (1.2.4
        ``Supervisor.launch``: a download that waits on an absent Nimbus never delays the
        registration)."""
        self.heartbeat = registration.SupervisorHeartbeat(
            self.conf, self.cluster_state, self.supervisor_id,
            self.hostname, lambda: set(self.assigned),
            self.reactor, run_blocking=self.run_blocking, server_port=self.server_port)
        self.heartbeat.start()
        if self.rpc:
            self._start_loop(self._synchronize_assignments,
                             nimbus_rpc.SYNCHRONIZE_ASSIGNMENTS_PERIOD_SECS)
            self._start_loop(self._report_worker_heartbeats,
                             self.conf["worker.heartbeat.frequency.secs"])
        self._start_loop(self._sync_logged, self.conf["supervisor.monitor.frequency.secs"])

    def _start_loop(self, f, period_secs):
        """Call ``f`` now and every ``period_secs`` (a run in progress delays the next)."""
        loop = task.LoopingCall(f)
        loop.clock = self.reactor
        loop.start(float(period_secs), now=True)
        self._loops.append(loop)
        return loop

    def stop(self):
        """Stop beating and syncing; the workers keep running (as Storm's supervisor leaves
        them).  A Deferred that fires once the cluster state is closed."""
        if self.heartbeat is not None:
            self.heartbeat.stop()
        for loop in self._loops:
            if loop.running:
                loop.stop()
        if self.listening is not None:
            self.listening.stopListening()
            self.server_factory.close_connections()
        if self._owns_cluster_state and self.cluster_state is not None:
            return self.run_blocking(self.cluster_state.close)
        return defer.succeed(None)

    # -- one sync ------------------------------------------------------------------------

    def _sync_logged(self, before_sync=None):
        """One sync after those under way (syncs never overlap, as upstream's event manager
        runs one at a time), preceded by ``before_sync`` (a Deferred-returning step, under
        the same turn); a failure is logged."""
        @defer.inlineCallbacks
        def run():
            if before_sync is not None:
                yield before_sync()
            yield self.sync()
        d = self._sync_lock.run(run)
        d.addErrback(lambda failure: log.warning(
            "supervisor %s: sync failed, trying again next period: %s",
            self.supervisor_id, failure.getTraceback()))
        return d

    def _read_assignments_snapshot(self):
        """``{storm_id: Assignment}`` of every topology with an assignment: cluster state's
        (1.x), or the copy Nimbus gave (2.x).  Blocking."""
        if self.rpc:
            return dict(self.local_assignments)
        return self.cluster_state.assignment_infos(self.cluster_state.assignments())

    # -- 2.x: assignments and heartbeats over RPC -----------------------------------------

    def _set_local_assignments(self, storm_assignment):
        """``syncRemoteAssignments``: the local copy is replaced whole."""
        self.local_assignments = storm_assignment
        self.assignments_synchronized = True

    def take_assignments(self, storm_assignment):
        """2.8.8 ``SynchronizeAssignments`` with a push: after the syncs under way, replace
        the local copy with checked ``{storm_id: Assignment}``, then sync.

        Deliberate difference: the push is taken only when what it gives this supervisor is
        what the cluster state's assignments give it (Nimbus writes them before it pushes):
        the Supervisor port takes calls from anyone who reaches it, and a forged push (an
        empty one stops every worker) is logged and ignored; the pulls, which this
        supervisor makes to the leader, are taken as they come."""
        @defer.inlineCallbacks
        def apply_if_confirmed():
            confirmed = yield self.run_blocking(self._confirmed_by_cluster_state,
                                                storm_assignment)
            if confirmed:
                self._set_local_assignments(storm_assignment)
            else:
                self._push_refusals.warning(
                    "push", "ignored pushed assignments that the cluster state contradicts "
                    "for this supervisor (%s pushed); the next pull from the leader corrects "
                    "them if they were Nimbus's", sorted(storm_assignment))
        return self._sync_logged(apply_if_confirmed)

    def _confirmed_by_cluster_state(self, storm_assignment):
        """Whether ``storm_assignment`` gives this supervisor what the cluster state's
        assignments give it, port by port.  Blocking."""
        stored = assignments.read_assignments(
            self.cluster_state.assignment_infos(self.cluster_state.assignments()),
            self.supervisor_id)
        pushed = assignments.read_assignments(storm_assignment, self.supervisor_id)
        return set(stored) == set(pushed) and all(
            assignments.equivalent(stored[port], pushed[port]) for port in stored)

    def _pull_assignments(self):
        """This supervisor's assignments from the leader, checked.  Blocking."""
        pulled = call_leader_nimbus(self.conf, "getSupervisorAssignments", self.supervisor_id)
        return nimbus_rpc.assigned_assignments_to_local([pulled])

    @defer.inlineCallbacks
    def _apply_pull(self):
        """Pull and apply; a failed pull is logged and the local copy stays."""
        try:
            storm_assignment = yield self.run_blocking(self._pull_assignments)
        except Exception as e:
            log.error("Get assignments from master exception: %s", e)
        else:
            if storm_assignment is not None:
                self._set_local_assignments(storm_assignment)

    def _synchronize_assignments(self):
        """Port of ``SynchronizeAssignments.run`` without a push (2.8.8): after the syncs
        under way (so a push is never overwritten by an older pull), pull, then sync."""
        return self._sync_logged(self._apply_pull)

    def _worker_heartbeats_report(self):
        """Blocking: read the workers' heartbeats and send them to the leader."""
        report = nimbus_rpc.supervisor_worker_heartbeats(
            self.supervisor_id, worker_dirs.read_worker_heartbeats(self.conf))
        call_leader_nimbus(self.conf, "sendSupervisorWorkerHeartbeats", report)

    def _report_worker_heartbeats(self):
        """Port of ``ReportWorkerHeartbeats.run`` (2.8.8); a failure is logged."""
        d = self.run_blocking(self._worker_heartbeats_report)
        d.addErrback(lambda failure: log.error(
            "Send worker heartbeats to master exception: %s", failure.getErrorMessage()))
        return d

    def my_assignments(self, snapshot):
        """``{port: LocalAssignment}`` on this supervisor's own slot ports (1.2.4 makes a
        slot only for those; an assignment to another port is logged and ignored)."""
        local = assignments.read_assignments(snapshot, self.supervisor_id)
        for port in sorted(set(local) - self.my_ports):
            log.warning("assigned port %d, which is not in supervisor.slots.ports %s: ignored",
                        port, sorted(self.my_ports))
        mine = {}
        for port, local_assignment in local.items():
            if port in self.my_ports and self._nameable(local_assignment.topology_id):
                mine[port] = local_assignment
        return mine

    def _nameable(self, storm_id):
        """A topology id that can name its directories; another is logged and not run."""
        try:
            local_dirs.supervisor_stormdist_root(self.conf, storm_id)
        except ValueError as e:
            log.error("assignment ignored: %s", e)
            return False
        return True

    @defer.inlineCallbacks
    def sync(self):
        """One sync (see the module's docstring); a Deferred that fires when it is done."""
        if self.rpc and not self.assignments_synchronized:
            log.debug("no assignments from Nimbus yet: not syncing")
            return
        snapshot = yield self.run_blocking(self._read_assignments_snapshot)
        try:
            assigned = self.my_assignments(snapshot)
        except assignments.MultipleTopologiesOnPort as e:
            log.error("%s; not syncing this period", e)
            return
        self.assigned = assigned
        storm_ids = {a.topology_id for a in assigned.values()}
        downloaded, newly_refused = yield self.run_blocking(
            download_missing_code, self.conf, storm_ids, set(self.refused_code))
        for storm_id, (reason, components) in sorted(newly_refused.items()):
            self.refused_code[storm_id] = reason
            self.run_blocking(self._report_refused_code, storm_id, reason, components,
                              sorted(p for p, a in assigned.items()
                                     if a.topology_id == storm_id)).addErrback(
                lambda failure: log.warning("refused code not reported: %s",
                                            failure.getErrorMessage()))
        for storm_id in set(self.refused_code) - storm_ids:
            del self.refused_code[storm_id]  # gone: a topology submitted again is a new id
        id_to_heartbeat, approved = yield self.run_blocking(self._read_workers)
        self._note_dead_workers()
        now = self.reactor.seconds()
        allocated = assignments.read_allocated_workers(
            id_to_heartbeat, set(approved), assigned, now, self.conf,
            dead_workers=self.dead_workers)
        launched = {worker_id: launch for worker_id, launch in self.launched.items()
                    if worker_id not in self.dead_workers}
        actions = assignments.sync_processes(allocated, assigned, now, self.conf, launched)
        for worker_id, state in actions.to_kill:
            log.info("Shutting down and clearing state for id %s. State: %s",
                     worker_id, state)
        yield defer.gatherResults([self.shutdown_worker(worker_id)
                                   for worker_id, _ in actions.to_kill], consumeErrors=True)
        yield self.run_blocking(remove_unassigned_code, self.conf, storm_ids)
        for port in self.backoff.ports() - set(assigned):
            self.backoff.forget(port)
        for port, local_assignment in sorted(actions.to_launch.items()):
            if local_assignment.topology_id in self.refused_code:
                log.debug("port %d does not run %s: its code was refused", port,
                          local_assignment.topology_id)
            elif local_assignment.topology_id not in downloaded:
                log.info("port %d waits for the code of %s", port, local_assignment.topology_id)
            elif self.backoff.wait_secs(port, now) > 0:
                log.debug("port %d waits %.1f s before its worker starts again", port,
                          self.backoff.wait_secs(port, now))
            else:
                yield self.launch_worker(port, local_assignment)
        yield self.profiler.carry_out(assigned, allocated)

    def _read_workers(self):
        """The heartbeats of the workers found and the approved ids.  Blocking."""
        return (worker_dirs.read_worker_heartbeats(self.conf),
                worker_dirs.ApprovedWorkers(self.conf).get())

    def _note_dead_workers(self):
        """Mark the workers this process started whose process exited (reaping them); each
        new death is logged once, delays the port's next launch (:attr:`backoff`) and is
        reported as an error of the worker's components."""
        now = self.reactor.seconds()
        for worker_id, child in self.children.items():
            if child.poll() is None or worker_id in self.dead_workers:
                continue
            self.dead_workers.add(worker_id)
            launched = self.launched.get(worker_id)
            if launched is None or not assignments.equivalent(
                    self.assigned.get(launched.port), launched.local_assignment):
                # what it ran is no longer assigned: it stopped as a worker should
                log.info("worker %s exited with code %s", worker_id, child.returncode)
                continue
            uptime = now - launched.time_secs
            delay = self.backoff.died(launched.port, now, uptime)
            storm_id = launched.local_assignment.topology_id
            log_path = worker_log_path(self.conf, storm_id, launched.port)
            log.info("worker %s exited with code %s after %d s (its log: %s); port %d starts "
                     "again %s", worker_id, child.returncode, uptime, log_path, launched.port,
                     "in %d s (%d deaths in a row)" % (delay, self.backoff.deaths(launched.port))
                     if delay else "now")
            if child.returncode != EXIT_CODE_CHILD_DIED:
                d = self.run_blocking(self._report_worker_exit, launched, child.returncode,
                                      uptime)
                d.addErrback(lambda failure: log.warning(
                    "worker exit not reported: %s", failure.getErrorMessage()))

    def _report_refused_code(self, storm_id, reason, components, ports):
        """Report, once, that this supervisor refused ``storm_id``'s jar: under each of its
        components (the worker's system component when none is known).  Blocking."""
        text = "Supervisor on %s refused the topology's code, so port(s) %s will not run it: " \
               "%s" % (self.hostname, ", ".join(map(str, ports)), reason)
        for component_id in components or [SYSTEM_COMPONENT_ID]:
            self.cluster_state.report_error(storm_id, component_id, self.hostname,
                                            ports[0] if ports else 0, text)

    def _report_worker_exit(self, launched, exit_code, uptime_secs):
        """Report a worker's exit under its components' errors.  Blocking."""
        storm_id = launched.local_assignment.topology_id
        log_path = worker_log_path(self.conf, storm_id, launched.port)
        text = worker_failures.worker_exit_message(
            self.hostname, launched.port, exit_code, uptime_secs,
            worker_failures.failure_reason(read_tail(log_path)), log_path)
        executors = [(e.task_start, e.task_end) for e in launched.local_assignment.executors]
        for component_id in self._components_of(storm_id, executors):
            self.cluster_state.report_error(storm_id, component_id, self.hostname,
                                            launched.port, text)

    def _components_of(self, storm_id, executors):
        """The components to report ``executors``' failures under (the worker's system
        component when the topology's code cannot be read).  Blocking."""
        try:
            topology_conf = local_dirs.read_supervisor_storm_conf(self.conf, storm_id)
            topology = local_dirs.read_supervisor_topology(self.conf, storm_id)
            task_to_component = storm_task_info(
                topology, topology_conf, topology_conf.get("pynimbus.storm.compat", "1.x"))
        except Exception as e:  # the code is what may be broken
            log.debug("the components of %s not read: %s", storm_id, e)
            return [SYSTEM_COMPONENT_ID]
        return worker_failures.reported_components(task_to_component, executors) or [
            SYSTEM_COMPONENT_ID]

    # -- kill ----------------------------------------------------------------------------

    def _alive_pids(self, pids):
        for child in self.children.values():
            child.poll()  # reap an exited child, so that it does not look alive
        return [pid for pid in pids if process_alive(pid)]

    @defer.inlineCallbacks
    def shutdown_worker(self, worker_id):
        """Port of 1.0 supervisor.clj ``shutdown-worker`` and ``try-cleanup-worker``: SIGTERM
        to every pid of the worker, SIGKILL after ``supervisor.worker.shutdown.sleep.secs``
        to those left, then its directory and approval removed."""
        pids = set((yield self.run_blocking(worker_dirs.worker_pids, self.conf, worker_id)))
        child = self.children.get(worker_id)
        if child is not None:
            pids.add(child.pid)
        alive = self._alive_pids(sorted(pids))
        for pid in alive:
            send_signal(pid, signal.SIGTERM)
        if alive:
            yield task.deferLater(self.reactor,
                                  float(self.conf["supervisor.worker.shutdown.sleep.secs"]),
                                  lambda: None)
        for pid in self._alive_pids(alive):
            log.info("worker %s: pid %d still alive, sending SIGKILL", worker_id, pid)
            send_signal(pid, signal.SIGKILL)
        yield self.run_blocking(self._cleanup_worker, worker_id)
        self.children.pop(worker_id, None)
        self.launched.pop(worker_id, None)
        self.dead_workers.discard(worker_id)
        log.debug("Shut down %s:%s", self.supervisor_id, worker_id)

    @defer.inlineCallbacks
    def shutdown_all_workers(self):
        """Shut down every worker of this supervisor, at once (``pynimbus dev`` stopping, as
        Storm's local mode stops its workers with the cluster)."""
        worker_ids = yield self.run_blocking(worker_dirs.worker_ids, self.conf)
        yield defer.gatherResults([self.shutdown_worker(w) for w in worker_ids],
                                  consumeErrors=True)

    def _cleanup_worker(self, worker_id):
        worker_dirs.try_cleanup_worker(self.conf, worker_id)
        worker_dirs.ApprovedWorkers(self.conf).remove(worker_id)

    # -- launch --------------------------------------------------------------------------

    def _start_worker_process(self, worker_id, port, storm_id):
        """Directories, approval, conf file and the process (1.2.4 ``Container.setup`` and
        ``BasicContainer.launch``).  Blocking."""
        worker_dirs.setup_worker_dirs(
            self.conf, worker_id, storm_id, port,
            local_dirs.supervisor_stormdist_root(self.conf, storm_id))
        worker_dirs.write_log_metadata(self.conf, worker_id, storm_id, port,
                                       self._topology_conf_or_none(storm_id) or {})
        worker_dirs.ApprovedWorkers(self.conf).add(worker_id, port)
        cwd = local_dirs.worker_root(self.conf, worker_id)
        conf_path = os.path.join(cwd, WORKER_CONF_FILE)
        worker_conf = dict(self.conf)
        if self.server_port is not None:  # the port really served (the conf's may be 0)
            worker_conf["supervisor.thrift.port"] = self.server_port
        with open(conf_path, "w") as f:
            json.dump(worker_conf, f, default=str)
        command = self.worker_command(conf_path, storm_id, self.supervisor_id, port, worker_id)
        with open(worker_log_path(self.conf, storm_id, port), "ab") as out:
            child = subprocess.Popen(command, cwd=cwd, stdin=subprocess.DEVNULL, stdout=out,
                                     stderr=subprocess.STDOUT, start_new_session=True)
        local_dirs.touch_worker_pid(self.conf, worker_id, child.pid)
        return child

    def _topology_conf_or_none(self, storm_id):
        """The topology's stored conf, or None when it cannot be read (the worker, which
        reads it too, reports why).  Blocking."""
        try:
            return local_dirs.read_supervisor_storm_conf(self.conf, storm_id)
        except Exception as e:  # the code is what may be broken
            log.debug("the conf of %s not read: %s", storm_id, e)
            return None

    @defer.inlineCallbacks
    def launch_worker(self, port, local_assignment):
        """Launch a worker for ``port``'s assignment (1.0 ``launch-worker``)."""
        worker_id = self.make_worker_id()
        storm_id = local_assignment.topology_id
        log.info("Launching worker %s of %s on port %d (%d executors; its log: %s)",
                 worker_id, storm_id, port, len(local_assignment.executors or ()),
                 worker_log_path(self.conf, storm_id, port))
        log.debug("Launching worker with assignment %s for this supervisor %s on port %d "
                  "with id %s", local_assignment, self.supervisor_id, port, worker_id)
        self.launched[worker_id] = LaunchedWorker(port, local_assignment,
                                                  self.reactor.seconds())
        try:
            child = yield self.run_blocking(self._start_worker_process, worker_id, port,
                                            storm_id)
        except Exception:
            self.launched.pop(worker_id, None)
            raise
        self.children[worker_id] = child
        return worker_id
