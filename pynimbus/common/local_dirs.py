"""The local directory layout that supervisors and workers share, as Storm's ``ConfigUtils``
lays it out under ``storm.local.dir`` (and ``storm.log.dir``), and the reads of a topology's
downloaded code (``ConfigUtils.readSupervisorStormConf`` / ``readSupervisorTopology``).

Pure path arithmetic except where a docstring says it blocks (files).  Untrusted names never
become paths: worker ids must be UUIDs, storm ids are URL-encoded into one directory name.
"""

import os
import uuid

from pynimbus.cluster.paths import url_encode_2x
from pynimbus.cluster.serialization import deserialize
from pynimbus.common.config import storm_log_dir
from pynimbus.common.stored_topology import from_compressed_json_conf
from pynimbus.generated.storm.ttypes import StormTopology


def supervisor_local_dir(conf):
    """Port of ``ConfigUtils.supervisorLocalDir`` (without its mkdir):
    ``<storm.local.dir>/supervisor``, absolute."""
    return os.path.join(os.path.abspath(conf["storm.local.dir"]), "supervisor")


def supervisor_isupervisor_dir(conf):
    """Port of ``ConfigUtils.supervisorIsupervisorDir``: the LocalState holding the id."""
    return os.path.join(supervisor_local_dir(conf), "isupervisor")


RESOURCES_SUBDIR = "resources"  # ConfigUtils.RESOURCES_SUBDIR


def supervisor_stormdist_root(conf, storm_id=None):
    """Port of ``ConfigUtils.supervisorStormDistRoot``: ``<local>/supervisor/stormdist``, or
    a topology's directory in it, named by the storm id URL-encoded as Java's ``URLEncoder``.

    :raises ValueError: an id whose encoding is no single directory name (``""``, ``.``,
        ``..``: URLEncoder keeps dots).
    """
    root = os.path.join(supervisor_local_dir(conf), "stormdist")
    if storm_id is None:
        return root
    return os.path.join(root, stormdist_name(storm_id))


def stormdist_name(storm_id):
    """The name of a topology's ``stormdist`` directory: the storm id URL-encoded.

    :raises ValueError: an id whose encoding is no single directory name.
    """
    name = url_encode_2x(storm_id)
    if name in ("", ".", ".."):
        raise ValueError("%r is not a topology id a directory can be named after" % storm_id)
    return name


def supervisor_tmp_dir(conf):
    """Port of ``ConfigUtils.supervisorTmpDir`` (without its mkdir)."""
    return os.path.join(supervisor_local_dir(conf), "tmp")


def supervisor_stormjar_path(stormroot):
    """Port of ``ConfigUtils.supervisorStormJarPath``."""
    return os.path.join(stormroot, "stormjar.jar")


def supervisor_stormcode_path(stormroot):
    """Port of ``ConfigUtils.supervisorStormCodePath``."""
    return os.path.join(stormroot, "stormcode.ser")


def supervisor_stormconf_path(stormroot):
    """Port of ``ConfigUtils.supervisorStormConfPath``."""
    return os.path.join(stormroot, "stormconf.ser")


def read_supervisor_storm_conf(conf, storm_id):
    """Port of ``ConfigUtils.readSupervisorStormConf``: the supervisor's conf with the
    topology's stored conf over it.  Blocking."""
    stormroot = supervisor_stormdist_root(conf, storm_id)
    with open(supervisor_stormconf_path(stormroot), "rb") as f:
        topology_conf = from_compressed_json_conf(f.read())
    merged = dict(conf)
    merged.update(topology_conf)
    return merged


def read_supervisor_topology(conf, storm_id):
    """Port of ``ConfigUtils.readSupervisorTopology``: the stored (normalized) user topology.
    Blocking."""
    stormroot = supervisor_stormdist_root(conf, storm_id)
    with open(supervisor_stormcode_path(stormroot), "rb") as f:
        return deserialize(f.read(), StormTopology)


def is_worker_id(name):
    """A worker id as this supervisor makes them: a UUID in its canonical text."""
    try:
        return str(uuid.UUID(name)) == name
    except (ValueError, TypeError, AttributeError):
        return False


def worker_root(conf, worker_id=None):
    """Port of ``ConfigUtils.workerRoot``: ``<storm.local.dir>/workers[/<id>]``."""
    root = os.path.join(os.path.abspath(conf["storm.local.dir"]), "workers")
    if worker_id is None:
        return root
    if not is_worker_id(worker_id):
        raise ValueError("%r is not a worker id" % (worker_id,))
    return os.path.join(root, worker_id)


def worker_pids_root(conf, worker_id):
    """Port of ``ConfigUtils.workerPidsRoot``."""
    return os.path.join(worker_root(conf, worker_id), "pids")


def worker_heartbeats_root(conf, worker_id):
    """Port of ``ConfigUtils.workerHeartbeatsRoot``."""
    return os.path.join(worker_root(conf, worker_id), "heartbeats")


def worker_tmp_root(conf, worker_id):
    """Port of ``ConfigUtils.workerTmpRoot``."""
    return os.path.join(worker_root(conf, worker_id), "tmp")


def supervisor_state_dir(conf):
    """Port of ``ConfigUtils.supervisorStateDir``: the supervisor's LocalState."""
    return os.path.join(supervisor_local_dir(conf), "localstate")


def worker_artifacts_root(conf, storm_id, port):
    """Port of ``ConfigUtils.workerArtifactsRoot``: ``<storm.log.dir>/workers-artifacts/<id>/
    <port>``, with ``storm.log.dir`` defaulting to ``<storm.local.dir>/logs``.  The id is
    URL-encoded (as in ``stormdist``) so that it always names one directory."""
    log_dir = storm_log_dir(conf)
    name = url_encode_2x(storm_id)
    if name in ("", ".", ".."):
        raise ValueError("%r is not a topology id a directory can be named after" % storm_id)
    return os.path.join(log_dir, "workers-artifacts", name, str(int(port)))


def worker_artifacts_pid_path(conf, storm_id, port):
    """Port of ``ConfigUtils.workerArtifactsPidPath``: ``worker.pid`` in the worker's
    artifacts directory, which the worker writes and the supervisor's profiler reads."""
    return os.path.join(worker_artifacts_root(conf, storm_id, port), "worker.pid")


def touch_worker_pid(conf, worker_id, pid):
    """Write the empty ``pids/<pid>`` file of a process of the worker."""
    open(os.path.join(worker_pids_root(conf, worker_id), str(int(pid))), "w").close()
