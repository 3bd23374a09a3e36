# -*- test-case-name: tests.test_supervisor_code -*-
"""Downloading a topology's jar, code and conf from Nimbus, as Storm 1.2.4's supervisor does.

Port of ``AsyncLocalizer.DownloadBaseBlobsDistributed`` (1.2.4): the blobs
``<id>-stormjar.jar``, ``<id>-stormcode.ser`` and ``<id>-stormconf.ser`` are read from Nimbus's
blob store over Thrift (``beginBlobDownload`` / ``downloadBlobChunk``, which is what 1.2.4's
``NimbusBlobStore`` calls for ``Utils.downloadResourcesAsSupervisor``) into a fresh directory
under ``<storm.local.dir>/supervisor/tmp``, the jar's ``resources/`` directory is extracted
beside them, and the whole directory is renamed into place as
``<storm.local.dir>/supervisor/stormdist/<storm id, URL-encoded>``, so a reader never sees half
a download.  Present already: nothing is downloaded (Linux renames directories atomically).

Deliberate differences, all on failures Storm lets through:

* a blob that cannot be read after two attempts (Storm's ``MAX_RETRY_ATTEMPTS``) fails the
  download with :class:`CodeDownloadFailed` (Storm logs it, goes on, and can install a
  directory that lacks the file);
* a jar with an entry that could land outside the directory (a ``..`` part, an absolute
  name) is refused as a whole (Storm skips such an entry under ``resources`` and logs it);
* only entries under ``resources/`` are extracted (Storm's prefix test, ``resources``, also
  takes e.g. ``resources-old/``).

Everything here blocks (sockets, files): run it in a thread (:func:`download_storm_code_async`).
"""

import logging
import os
import shutil
import uuid
import zipfile

from twisted.internet.threads import deferToThread

from pynimbus.blobstore.keys import (
    master_stormcode_key, master_stormconf_key, master_stormjar_key)
from pynimbus.client import NimbusClient
from pynimbus.cluster.paths import url_encode_2x
from pynimbus.cluster.serialization import deserialize
from pynimbus.generated.storm.ttypes import StormTopology
from pynimbus.topology_store import from_compressed_json_conf
from pynimbus.supervisor.registration import supervisor_local_dir

log = logging.getLogger(__name__)

RESOURCES_SUBDIR = "resources"  # ConfigUtils.RESOURCES_SUBDIR
DOWNLOAD_ATTEMPTS = 2  # Utils.downloadResourcesAsSupervisorImpl's MAX_RETRY_ATTEMPTS


class CodeDownloadFailed(Exception):
    """A topology's code could not be downloaded or installed; the message says which blob
    or which jar entry, and why.  Nothing is left in ``stormdist``."""


class UnsafeJarEntry(CodeDownloadFailed):
    """A jar entry whose name would be written outside the directory it is extracted to."""


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


def _download_blob_attempt(nimbus, key, local_file):
    """One try of ``Utils.downloadResourcesAsSupervisorAttempt``: the blob's chunks into
    ``local_file``; complete when exactly the announced size arrived."""
    begin = nimbus.beginBlobDownload(key)
    received = 0
    with open(local_file, "wb") as out:
        while True:
            chunk = nimbus.downloadBlobChunk(begin.session)
            if not chunk:
                break
            received += len(chunk)
            if received > begin.data_size:  # never write more than was announced
                break
            out.write(chunk)
    if received != begin.data_size:
        raise CodeDownloadFailed("blob %s: %d bytes announced, %s received"
                                 % (key, begin.data_size,
                                    "more" if received > begin.data_size else received))


def download_resources_as_supervisor(nimbus, key, local_file, attempts=DOWNLOAD_ATTEMPTS):
    """Port of ``Utils.downloadResourcesAsSupervisor``: blob ``key`` into ``local_file``.

    :param nimbus: a connected :class:`~pynimbus.client.NimbusClient`.
    :raises CodeDownloadFailed: every attempt failed (the last cause is chained; Nimbus's
        ``KeyNotFoundException`` or ``AuthorizationException`` among them); no partial file
        is left.
    """
    for attempt in range(1, attempts + 1):
        try:
            _download_blob_attempt(nimbus, key, local_file)
            return
        except Exception as e:  # Storm retries on any TException or IOException
            error = e
            log.warning("download of %s, attempt %d of %d, failed: %s",
                        key, attempt, attempts, e)
            if os.path.exists(local_file):
                os.remove(local_file)
    raise CodeDownloadFailed("blob %s could not be downloaded: %s" % (key, error)) from error


def _unsafe(destdir, name):
    return UnsafeJarEntry("jar entry %r would be written outside the topology's directory "
                          "%s; the jar is refused" % (name, destdir))


def _safe_member_path(destdir, name):
    """Where jar entry ``name`` goes under ``destdir``.

    :raises UnsafeJarEntry: an absolute name, a ``..`` part, a NUL, or a path that resolves
        outside ``destdir``.
    """
    parts = name.split("/")
    if name.startswith("/") or ".." in parts or "\0" in name:
        raise _unsafe(destdir, name)
    base = os.path.realpath(destdir)
    target = os.path.realpath(os.path.join(base, *[p for p in parts if p not in ("", ".")]))
    if os.path.commonpath([target, base]) != base:
        raise _unsafe(destdir, name)
    return target


def extract_dir_from_jar(jar_path, dir_name, destdir):
    """Port of ``Utils.extractDirFromJar`` / ``extractZipFile``: the files of the jar under
    ``dir_name/`` into ``destdir/dir_name/...``.  Every entry is checked before anything is
    written.

    :raises UnsafeJarEntry: an entry (under ``dir_name/`` or not) is absolute, has a ``..``
        part or would land outside ``destdir``.
    :raises CodeDownloadFailed: the jar is not a readable zip file.
    """
    prefix = dir_name + "/"
    try:
        with zipfile.ZipFile(jar_path) as jar:
            # Every name is checked, extracted or not: a jar that tries to escape is refused.
            members = [(info, _safe_member_path(destdir, info.filename))
                       for info in jar.infolist()]
            members = [(info, target) for info, target in members
                       if info.filename.startswith(prefix)]
            for info, target in members:
                if info.is_dir():
                    continue
                os.makedirs(os.path.dirname(target), exist_ok=True)
                with jar.open(info) as source, open(target, "wb") as out:
                    shutil.copyfileobj(source, out)
    except zipfile.BadZipFile as e:
        raise CodeDownloadFailed("%s is not a jar: %s" % (os.path.basename(jar_path), e)) from e


def download_base_blobs(nimbus, storm_id, tmproot):
    """Port of ``DownloadBaseBlobsDistributed.downloadBaseBlobs``: jar, code and conf of
    ``storm_id`` into ``tmproot``, then the jar's resources."""
    os.makedirs(tmproot, mode=0o700)
    jar_path = supervisor_stormjar_path(tmproot)
    download_resources_as_supervisor(nimbus, master_stormjar_key(storm_id), jar_path)
    download_resources_as_supervisor(nimbus, master_stormcode_key(storm_id),
                                     supervisor_stormcode_path(tmproot))
    download_resources_as_supervisor(nimbus, master_stormconf_key(storm_id),
                                     supervisor_stormconf_path(tmproot))
    extract_dir_from_jar(jar_path, RESOURCES_SUBDIR, tmproot)


def download_storm_code(conf, storm_id, nimbus):
    """Port of ``DownloadBaseBlobsDistributed.call``: install ``storm_id``'s code in its
    stormdist directory unless it is there; return that directory.  Blocking.

    :param nimbus: a connected :class:`~pynimbus.client.NimbusClient`.
    :raises CodeDownloadFailed: a blob could not be read or the jar is unsafe; nothing is
        installed and the temporary directory is removed.
    :raises ValueError: ``storm_id`` cannot name a directory.
    """
    stormroot = supervisor_stormdist_root(conf, storm_id)
    if os.path.exists(stormroot):
        log.info("%s already downloaded blobs, skipping", storm_id)
        return stormroot
    tmproot = os.path.join(supervisor_tmp_dir(conf), str(uuid.uuid4()))
    os.makedirs(os.path.dirname(tmproot), exist_ok=True)
    try:
        download_base_blobs(nimbus, storm_id, tmproot)
        os.makedirs(os.path.dirname(stormroot), exist_ok=True)
        os.rename(tmproot, stormroot)
    except BaseException:
        log.warning("Failed to download basic resources for topology-id %s", storm_id)
        shutil.rmtree(tmproot, ignore_errors=True)
        raise
    return stormroot


def download_storm_code_async(conf, storm_id, nimbus_host, nimbus_port, timeout=60.0,
                              run_blocking=deferToThread):
    """:func:`download_storm_code` over a connection of its own, in a thread: a Deferred of
    the stormdist directory.  For Twisted code, whose reactor must not block."""
    def download():
        with NimbusClient(nimbus_host, nimbus_port, timeout=timeout) as nimbus:
            return download_storm_code(conf, storm_id, nimbus)
    return run_blocking(download)
