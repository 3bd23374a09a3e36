# -*- test-case-name: tests.test_supervisor_profiler -*-
"""The supervisor's worker-profiler requests, carried out (the shell around
:mod:`.profiler_actions`).

After each sync the supervisor reads ``/profilerconfigs/<storm id>`` of its topologies (1.2.4
``ReadClusterState.getProfileActions``) and, for its ports, carries out what
:func:`.profiler_actions.profiler_steps` decides: a restart shuts the worker down (the next
sync starts it again, as after flight.bash's ``kill``); a worker action is written as a
request file into the worker's ``profiler-requests`` directory and the worker's pid (its
artifacts' ``worker.pid``, as ``BasicContainer.runProfiling`` reads it) gets ``SIGUSR1``.
A request whose action could not be carried out stays, and is tried again at the next sync.
"""

import logging
import os
import time

from twisted.internet import defer

from pynimbus.common import local_dirs, profiler_requests
from pynimbus.common.processes import process_alive, send_signal
from pynimbus.supervisor import profiler_actions, worker_dirs
from pynimbus.supervisor.assignments import VALID

log = logging.getLogger(__name__)


class WorkerNotSignalled(Exception):
    """The worker's pid is unknown or not one of the worker's processes."""


def worker_pid(conf, worker_id, storm_id, port):
    """The worker process's pid: its artifacts' ``worker.pid``, checked against the pids the
    worker registered (so a stale file never names another process).  Blocking.

    :raises WorkerNotSignalled: no such pid, or not the worker's.
    """
    path = local_dirs.worker_artifacts_pid_path(conf, storm_id, port)
    try:
        with open(path) as f:
            pid = int(f.read().strip())
    except (OSError, ValueError) as e:
        raise WorkerNotSignalled("no worker pid at %s: %s" % (path, e))
    if pid not in worker_dirs.worker_pids(conf, worker_id) or not process_alive(pid):
        raise WorkerNotSignalled("pid %d of %s is not a live process of worker %s"
                                 % (pid, path, worker_id))
    return pid


def request_worker_action(conf, worker_id, storm_id, port, action):
    """Leave ``action`` in the worker's requests and signal it.  Blocking.

    :raises WorkerNotSignalled: the worker cannot be signalled.
    """
    pid = worker_pid(conf, worker_id, storm_id, port)
    directory = profiler_requests.requests_dir(local_dirs.worker_root(conf, worker_id))
    os.makedirs(directory, exist_ok=True)
    name = profiler_requests.request_file_name(time.time_ns(), action)
    partial = os.path.join(directory, "." + name)
    with open(partial, "w"):
        pass
    os.rename(partial, os.path.join(directory, name))  # whole before the worker looks
    send_signal(pid, profiler_requests.PROFILER_SIGNAL)
    return pid


class SupervisorProfiler:
    """The profiler requests of one supervisor's workers.

    :param supervisor: the :class:`~pynimbus.supervisor.daemon.SupervisorDaemon` (its conf,
        host name, ports, cluster state, ``run_blocking``, clock and ``shutdown_worker``).
    """

    def __init__(self, supervisor):
        self.supervisor = supervisor
        self.pending = set()  # (worker id, action_key) of the recordings started

    def read_requests(self, storm_ids):
        """``{storm id: [ProfileRequest]}``.  Blocking."""
        state = self.supervisor.cluster_state
        return {storm_id: state.get_topology_profile_requests(storm_id)
                for storm_id in storm_ids}

    @defer.inlineCallbacks
    def carry_out(self, assigned, allocated):
        """One round, after a sync: ``assigned`` is ``{port: LocalAssignment}``,
        ``allocated`` ``{worker id: (state, heartbeat)}`` of that sync."""
        sup = self.supervisor
        requests = yield sup.run_blocking(
            self.read_requests, sorted({a.topology_id for a in assigned.values()}))
        by_port = profiler_actions.profile_actions_by_port(requests, sup.hostname)
        running = {heartbeat.port: worker_id
                   for worker_id, (state, heartbeat) in allocated.items() if state == VALID}
        now_ms = int(sup.reactor.seconds() * 1000)
        for port in sorted(set(by_port) & sup.my_ports):
            worker_id = running.get(port)
            assignment = assigned.get(port)
            pending = {key for w, key in self.pending if w == worker_id}
            steps = profiler_actions.profiler_steps(
                by_port[port], assignment.topology_id if assignment else None,
                worker_id is not None, pending, now_ms)
            for step in steps:
                yield self._carry_out_step(step, worker_id, port)
        live = {profiler_actions.action_key(a) for actions in by_port.values() for a in actions}
        self.pending = {(w, key) for w, key in self.pending
                        if w in running.values() and key in live}

    @defer.inlineCallbacks
    def _carry_out_step(self, step, worker_id, port):
        sup = self.supervisor
        action = step.action
        try:
            if step.command == profiler_actions.RESTART:
                log.info("restarting worker %s on port %d: profiler request", worker_id, port)
                yield sup.shutdown_worker(worker_id)
            elif step.command is not None:
                pid = yield sup.run_blocking(request_worker_action, sup.conf, worker_id,
                                             action.storm_id, port, step.command)
                log.info("profiler action %s sent to worker %s (pid %d) on port %d",
                         step.command, worker_id, pid, port)
            if step.delete:
                yield sup.run_blocking(sup.cluster_state.delete_topology_profile_requests,
                                       action.storm_id, action.request)
        except Exception as e:
            log.warning("profiler request %s of %s on port %d not carried out, tried again "
                        "at the next sync: %s", step.command, action.storm_id, port, e)
            return
        key = (worker_id, profiler_actions.action_key(action))
        if step.pending:
            self.pending.add(key)
        elif step.pending is False:
            self.pending.discard(key)
