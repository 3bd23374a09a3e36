"""Removing old worker logs: port of 1.2.4 logviewer.clj ``cleanup-fn!`` (with
``select-dirs-for-cleanup``, ``get-dead-worker-dirs``, ``per-workerdir-cleanup!`` and
``global-log-cleanup!``) and ``DirectoryCleaner.deleteOldestWhileTooLarge``.

Each round: the worker directories (``<topology>/<port>``) unchanged for
``logviewer.cleanup.age.mins`` whose worker is dead (its ``worker.yaml``'s ``worker-id`` has
no heartbeat younger than ``supervisor.worker.timeout.secs``, or it has no ``worker.yaml``)
are removed, and their topology directory when it is left empty; then each worker directory
is trimmed, oldest files first, to ``logviewer.max.per.worker.logs.size.mb`` (at most half
the total), never touching its active files (``*.log``, ``.err``, ``.out``, ``.current``,
``.yaml``, ``.pid``); then all of them together to ``logviewer.max.sum.worker.logs.size.mb``,
where an alive worker's active files and any worker's ``.yaml`` and ``.pid`` are kept.

The choices are pure functions of literal listings (:func:`select_dirs_for_cleanup`,
:func:`dead_worker_dirs`, :func:`delete_oldest_while_too_large`); :func:`cleanup_fn` reads the
disk, asks them and deletes (blocking); the server runs it on a reactor timer.

Deliberate differences: every dead directory without ``worker.yaml`` goes in one round
(Storm's id-to-directory map keeps one of them per round), and a failed round is logged
(Storm's timer exits the process).
"""

import collections
import heapq
import logging
import os
import re
import shutil

from pynimbus.common import local_dirs
from pynimbus.common.local_state import LS_WORKER_HEARTBEAT, LocalState
from pynimbus.logviewer.authorization import read_yaml
from pynimbus.logviewer.listing import all_worker_dirs, listdir

log = logging.getLogger(__name__)

ACTIVE_LOG = re.compile(r".*\.(log|err|out|current|yaml|pid)$")
META_LOG = re.compile(r".*\.(yaml|pid)$")
PQ_SIZE, MAX_ROUNDS = 1024, 512
MB = 1024 * 1024

LogFile = collections.namedtuple("LogFile", "path size mtime")


def select_dirs_for_cleanup(last_modified, now_secs, age_mins):
    """Port of ``select-dirs-for-cleanup``: the worker directories whose newest change
    (``last_modified``: ``{dir: seconds}``, the directory's and its files') is at least
    ``age_mins`` old, sorted."""
    cutoff = now_secs - age_mins * 60
    return sorted(d for d, when in last_modified.items() if when <= cutoff)


def alive_worker_ids(heartbeat_times, now_secs, timeout_secs):
    """Port of ``get-alive-ids``: the workers whose heartbeat (``{id: time_secs or None}``)
    is not older than ``timeout_secs``."""
    return {wid for wid, when in heartbeat_times.items()
            if when is not None and now_secs - when <= timeout_secs}


def dead_worker_dirs(dir_worker_ids, alive_ids):
    """Port of ``get-dead-worker-dirs``: the directories (``{dir: worker id or ""}``) whose
    worker is not alive, sorted."""
    return sorted(d for d, wid in dir_worker_ids.items() if wid not in alive_ids)


def delete_oldest_while_too_large(dir_files, quota, per_dir, active_dirs=frozenset()):
    """Port of ``DirectoryCleaner.deleteOldestWhileTooLarge``: the files to delete, oldest
    first, until ``dir_files`` (``{dir: [LogFile]}``) hold at most ``quota`` bytes.  Each
    round takes the 1024 oldest candidates (``per_dir``: not an active file; else not an
    active file of an ``active_dirs`` directory, nor any ``.yaml``/``.pid``), at most 512
    rounds."""
    remaining = {d: list(fs) for d, fs in dir_files.items()}
    to_delete = sum(f.size for fs in remaining.values() for f in fs) - quota
    deleted = []
    for _round in range(MAX_ROUNDS):
        if to_delete <= 0:
            break
        candidates = [f for d, fs in remaining.items() for f in fs
                      if not kept(f, d, per_dir, active_dirs)]
        oldest = heapq.nsmallest(PQ_SIZE, candidates, key=lambda f: f.mtime)
        if not oldest:
            break
        gone = set()
        for f in oldest:
            if to_delete <= 0:
                break
            to_delete -= f.size
            deleted.append(f.path)
            gone.add(f.path)
        remaining = {d: [f for f in fs if f.path not in gone] for d, fs in remaining.items()}
    return deleted


def kept(log_file, directory, per_dir, active_dirs):
    name = os.path.basename(log_file.path)
    if per_dir or directory in active_dirs:
        return ACTIVE_LOG.match(name) is not None
    return META_LOG.match(name) is not None


# -- the disk (blocking)


def read_heartbeat_times(conf):
    """``SupervisorUtils/readWorkerHeartbeats``' times: ``{worker id: time_secs or None}``
    of the workers under this host's ``storm.local.dir``."""
    root = local_dirs.worker_root(conf)
    times = {}
    for name in listdir(root):
        if not local_dirs.is_worker_id(name):
            continue
        try:
            beat = LocalState(local_dirs.worker_heartbeats_root(conf, name)).get(
                LS_WORKER_HEARTBEAT)
        except Exception as e:  # half-written: the worker has not beaten
            log.debug("worker %s: heartbeat unreadable: %s", name, e)
            beat = None
        times[name] = beat.time_secs if beat is not None else None
    return times


def dir_files(directory):
    """The files of a directory as ``LogFile``s."""
    found = []
    for name in listdir(directory):
        path = os.path.join(directory, name)
        try:
            st = os.stat(path)
        except OSError:
            continue
        if os.path.isfile(path):
            found.append(LogFile(path, st.st_size, st.st_mtime))
    return found


def last_modified(directory):
    """``last-modifiedtime-worker-logdir``: the newest of the directory and its files."""
    try:
        newest = os.path.getmtime(directory)
    except OSError:
        return None
    return max([newest] + [f.mtime for f in dir_files(directory)])


def worker_id_of(directory):
    """``identify-worker-log-dirs``: the ``worker-id`` of the directory's ``worker.yaml``,
    or "" without one."""
    data = read_yaml(os.path.join(directory, "worker.yaml"))
    return str(data.get("worker-id") or "") if isinstance(data, dict) else ""


def delete_files(paths):
    for path in paths:
        log.info("Delete file: %s", path)
        try:
            os.remove(path)
        except OSError as e:
            log.warning("%s not deleted: %s", path, e)


def cleanup_fn(conf, root, now_secs, heartbeat_times=None):
    """Port of ``cleanup-fn!``: one round over the worker log ``root``; returns the removed
    directories and deleted files."""
    if heartbeat_times is None:
        heartbeat_times = read_heartbeat_times(conf)
    alive = alive_worker_ids(heartbeat_times, now_secs,
                             int(conf["supervisor.worker.timeout.secs"]))
    worker_dirs = [d for d in all_worker_dirs(root) if os.path.isdir(d)]
    changes = {d: last_modified(d) for d in worker_dirs}
    old = select_dirs_for_cleanup({d: t for d, t in changes.items() if t is not None},
                                  now_secs, float(conf["logviewer.cleanup.age.mins"]))
    removed = dead_worker_dirs({d: worker_id_of(d) for d in old}, alive)
    for directory in removed:
        log.info("Cleaning up: Removing %s", directory)
        shutil.rmtree(directory, ignore_errors=True)
        topo_dir = os.path.dirname(directory)
        if not listdir(topo_dir):
            shutil.rmtree(topo_dir, ignore_errors=True)
    total_mb = float(conf["logviewer.max.sum.worker.logs.size.mb"])
    per_dir_mb = min(float(conf["logviewer.max.per.worker.logs.size.mb"]), total_mb * 0.5)
    deleted = []
    remaining = [d for d in worker_dirs if d not in set(removed)]
    for directory in remaining:
        chosen = delete_oldest_while_too_large({directory: dir_files(directory)},
                                               per_dir_mb * MB, True)
        delete_files(chosen)
        deleted += chosen
    alive_dirs = {d for d in remaining if worker_id_of(d) in alive}
    chosen = delete_oldest_while_too_large({d: dir_files(d) for d in remaining},
                                           total_mb * MB, False, alive_dirs)
    delete_files(chosen)
    return removed, deleted + chosen
