# -*- test-case-name: tests.test_supervisor_daemon -*-
"""The supervisor's side of a worker's directories, as Storm 1.2.4's ``ConfigUtils`` lays them
out, and the supervisor's ``approved-workers``.  Blocking (files): call from a thread.

* ``<storm.local.dir>/workers/<worker id>/pids/<pid>``: empty files naming the worker's pid
  and those of its multilang children (the worker passes this dir to ``ShellProcess``);
* ``<storm.local.dir>/workers/<worker id>/heartbeats``: the worker's LocalState, holding
  ``worker-heartbeat`` (an ``LSWorkerHeartbeat``);
* ``<storm.local.dir>/supervisor/localstate``: the supervisor's LocalState, holding
  ``approved-workers`` (``LSApprovedWorkers``: worker id -> port), so that a restarted
  supervisor adopts the workers it launched.

Worker ids are UUIDs this supervisor made; a directory name that is not one is never turned
into a path below it (it is only removed, as a stray, by :func:`try_cleanup_worker`).
"""

import logging
import os
import shutil

from pynimbus.common.local_dirs import (
    is_worker_id, supervisor_state_dir, worker_artifacts_root, worker_heartbeats_root,
    worker_pids_root, worker_root, worker_tmp_root)
from pynimbus.common.local_state import LocalState
from pynimbus.common.local_state import LS_APPROVED_WORKERS, LS_WORKER_HEARTBEAT
from pynimbus.generated.storm.ttypes import LSApprovedWorkers

log = logging.getLogger(__name__)


def make_worker_dirs(conf, worker_id):
    """Create the worker's ``pids``, ``tmp`` and ``heartbeats`` directories."""
    for root in (worker_pids_root, worker_tmp_root, worker_heartbeats_root):
        os.makedirs(root(conf, worker_id), exist_ok=True)


def setup_worker_dirs(conf, worker_id, storm_id, port, stormroot):
    """Port of 1.2.4 ``Container.setup`` (its file part): the worker's directories, its
    artifacts directory, and the links ``artifacts`` (to that directory) and ``resources``
    (to the topology's ``stormdist/<id>/resources``) in the worker's directory.  Return the
    artifacts directory."""
    make_worker_dirs(conf, worker_id)
    artifacts = worker_artifacts_root(conf, storm_id, port)
    os.makedirs(artifacts, exist_ok=True)
    root = worker_root(conf, worker_id)
    os.symlink(artifacts, os.path.join(root, "artifacts"))
    os.symlink(os.path.join(stormroot, "resources"), os.path.join(root, "resources"))
    return artifacts


def write_log_metadata(conf, worker_id, storm_id, port, topology_conf):
    """Port of 1.2.4 ``Container.writeLogMetadata``: ``worker.yaml`` in the worker's
    artifacts directory, naming its submitter, its id (the logviewer's cleanup asks whether
    it is alive) and who may read its logs (the topology's ``logs.users`` and
    ``topology.users``, ``logs.groups`` and ``topology.groups``)."""
    import yaml  # here: only a launching supervisor needs it

    def names(*keys):
        return sorted({str(v) for key in keys for v in topology_conf.get(key) or ()})

    data = {"topology.submitter.user": topology_conf.get("topology.submitter.user"),
            "worker-id": worker_id,
            "logs.groups": names("logs.groups", "topology.groups"),
            "logs.users": names("logs.users", "topology.users")}
    path = os.path.join(worker_artifacts_root(conf, storm_id, port), "worker.yaml")
    with open(path, "w") as f:
        yaml.safe_dump(data, f, default_flow_style=False)


def worker_ids(conf):
    """The worker ids found under ``workers/`` (strays that are no worker id aside)."""
    return sorted(name for name in _names_in(worker_root(conf)) if is_worker_id(name))


def read_worker_heartbeat(conf, worker_id):
    """Port of ``SupervisorUtils.readWorkerHeartbeat``: the ``LSWorkerHeartbeat`` the worker
    wrote, or None (none yet, or unreadable)."""
    root = worker_heartbeats_root(conf, worker_id)
    if not os.path.isdir(root):
        return None
    try:
        return LocalState(root).get(LS_WORKER_HEARTBEAT)
    except Exception as e:  # a half-written or foreign state: the worker has not beaten
        log.warning("worker %s: heartbeat unreadable: %s", worker_id, e)
        return None


def read_worker_heartbeats(conf):
    """Port of ``SupervisorUtils.readWorkerHeartbeats``: ``{worker_id: heartbeat or None}``."""
    return {worker_id: read_worker_heartbeat(conf, worker_id) for worker_id in worker_ids(conf)}


def worker_pids(conf, worker_id):
    """The pids named in the worker's ``pids`` directory (names that are no pid ignored)."""
    names = _names_in(worker_pids_root(conf, worker_id))
    return sorted(int(name) for name in names if name.isdigit() and int(name) > 0)


def _names_in(directory):
    """The names in ``directory``; none when it is not there (or went away while read: a
    worker's directories are removed while others look at them)."""
    try:
        return os.listdir(directory)
    except (FileNotFoundError, NotADirectoryError):
        return []


def try_cleanup_worker(conf, worker_id):
    """Port of 1.0 supervisor.clj ``try-cleanup-worker``: remove the worker's directory."""
    try:
        shutil.rmtree(worker_root(conf, worker_id))
    except FileNotFoundError:
        pass
    except OSError as e:  # Storm logs and tries again on a later sync
        log.warning("worker %s: directory not removed yet: %s", worker_id, e)


class ApprovedWorkers:
    """The supervisor's ``approved-workers`` in its LocalState (1.2.4 ``LSApprovedWorkers``):
    ``{worker_id: port}`` of the workers it launched."""

    def __init__(self, conf):
        self.local_state = LocalState(supervisor_state_dir(conf))

    def get(self):
        stored = self.local_state.get(LS_APPROVED_WORKERS)
        return dict(stored.approved_workers or {}) if stored is not None else {}

    def put(self, approved):
        self.local_state.put(LS_APPROVED_WORKERS,
                             LSApprovedWorkers(approved_workers=dict(approved)))

    def add(self, worker_id, port):
        approved = self.get()
        approved[worker_id] = int(port)
        self.put(approved)

    def remove(self, worker_id):
        approved = self.get()
        if approved.pop(worker_id, None) is not None:
            self.put(approved)
