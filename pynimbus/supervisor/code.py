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

from pynimbus.common.config import PYNIMBUS_DEFAULTS
from pynimbus.common.local_dirs import (
    RESOURCES_SUBDIR, supervisor_stormcode_path, supervisor_stormconf_path,
    supervisor_stormdist_root, supervisor_stormjar_path, supervisor_tmp_dir)
from pynimbus.common.stored_topology import (
    master_stormcode_key, master_stormconf_key, master_stormjar_key)
from pynimbus.thrift.client import NimbusClient

log = logging.getLogger(__name__)

DOWNLOAD_ATTEMPTS = 2  # Utils.downloadResourcesAsSupervisorImpl's MAX_RETRY_ATTEMPTS


class CodeDownloadFailed(Exception):
    """A topology's code could not be downloaded or installed; the message says which blob
    or which jar entry, and why.  Nothing is left in ``stormdist``."""


class JarRefused(CodeDownloadFailed):
    """The jar itself cannot be installed (not a zip, an unsafe entry, past a size limit):
    downloading it again would give the same jar, so its topology's code is not tried again."""


class UnsafeJarEntry(JarRefused):
    """A jar entry whose name would be written outside the directory it is extracted to."""


class JarTooLarge(JarRefused):
    """A jar whose extraction would pass one of the supervisor's limits (a zip bomb)."""


# What extracting a topology's jar may write (defaults in pynimbus.common.config).
JAR_LIMIT_KEYS = ("pynimbus.supervisor.jar.max.entries",
                  "pynimbus.supervisor.jar.max.extracted.bytes",
                  "pynimbus.supervisor.jar.max.ratio")
# Entries smaller than this are not held to the ratio (tiny files compress wildly).
RATIO_FREE_BYTES = 1 << 20


def jar_limits(conf):
    """``(max entries, max extracted bytes, max ratio)`` from ``conf``."""
    return tuple(int(conf.get(key) or PYNIMBUS_DEFAULTS[key]) for key in JAR_LIMIT_KEYS)


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

    :param nimbus: a connected :class:`~pynimbus.thrift.client.NimbusClient`.
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


def extract_dir_from_jar(jar_path, dir_name, destdir, limits=None):
    """Port of ``Utils.extractDirFromJar`` / ``extractZipFile``: the files of the jar under
    ``dir_name/`` into ``destdir/dir_name/...``.  Every entry is checked before anything is
    written, and what is written is counted as it is written.

    Deliberate difference: extraction is bounded by ``limits`` (:func:`jar_limits`: entries in
    the jar, bytes extracted, and the expansion ratio of each entry of a megabyte or more), by
    the sizes the jar declares before anything is written and by the bytes really inflated
    while writing; Storm extracts whatever the jar holds.

    :raises UnsafeJarEntry: an entry (under ``dir_name/`` or not) is absolute, has a ``..``
        part or would land outside ``destdir``.
    :raises JarTooLarge: past a limit; the message names it and the setting that raises it.
    :raises JarRefused: the jar is not a readable zip file.
    """
    max_entries, max_bytes, max_ratio = limits or jar_limits({})
    prefix = dir_name + "/"
    try:
        with zipfile.ZipFile(jar_path) as jar:
            infos = jar.infolist()
            if len(infos) > max_entries:
                raise _too_large("holds %d entries" % len(infos), max_entries,
                                 "pynimbus.supervisor.jar.max.entries")
            # Every name is checked, extracted or not: a jar that tries to escape is refused.
            members = [(info, _safe_member_path(destdir, info.filename)) for info in infos]
            members = [(info, target) for info, target in members
                       if info.filename.startswith(prefix) and not info.is_dir()]
            declared = sum(info.file_size for info, _ in members)
            if declared > max_bytes:
                raise _too_large("would extract %d bytes" % declared, max_bytes,
                                 "pynimbus.supervisor.jar.max.extracted.bytes")
            for info, _ in members:
                _check_ratio(info, info.file_size, max_ratio)
            written = 0
            for info, target in members:
                os.makedirs(os.path.dirname(target), exist_ok=True)
                with jar.open(info) as source, open(target, "wb") as out:
                    written = _copy_bounded(info, source, out, written, max_bytes, max_ratio)
    except zipfile.BadZipFile as e:
        raise JarRefused("%s is not a jar: %s" % (os.path.basename(jar_path), e)) from e


def _too_large(what, limit, setting):
    return JarTooLarge("the topology's jar %s, more than the supervisor's limit of %d (%s); "
                       "the jar is refused" % (what, limit, setting))


def _check_ratio(info, size, max_ratio):
    if size >= RATIO_FREE_BYTES and size > max_ratio * max(1, info.compress_size):
        raise _too_large("entry %r expands %d bytes to %d (%dx)" % (
            info.filename, info.compress_size, size, size // max(1, info.compress_size)),
            max_ratio, "pynimbus.supervisor.jar.max.ratio")


def _copy_bounded(info, source, out, written, max_bytes, max_ratio, chunk=1 << 20):
    """Copy one entry, counting the bytes really inflated (a jar may declare less than it
    holds); return the total written so far."""
    entry_bytes = 0
    while True:
        data = source.read(chunk)
        if not data:
            return written
        entry_bytes += len(data)
        written += len(data)
        if written > max_bytes:
            raise _too_large("extracts more than %d bytes" % max_bytes, max_bytes,
                             "pynimbus.supervisor.jar.max.extracted.bytes")
        _check_ratio(info, entry_bytes, max_ratio)
        out.write(data)


def download_base_blobs(nimbus, storm_id, tmproot, limits=None):
    """Port of ``DownloadBaseBlobsDistributed.downloadBaseBlobs``: jar, code and conf of
    ``storm_id`` into ``tmproot``, then the jar's resources (within ``limits``)."""
    os.makedirs(tmproot, mode=0o700)
    jar_path = supervisor_stormjar_path(tmproot)
    download_resources_as_supervisor(nimbus, master_stormjar_key(storm_id), jar_path)
    download_resources_as_supervisor(nimbus, master_stormcode_key(storm_id),
                                     supervisor_stormcode_path(tmproot))
    download_resources_as_supervisor(nimbus, master_stormconf_key(storm_id),
                                     supervisor_stormconf_path(tmproot))
    extract_dir_from_jar(jar_path, RESOURCES_SUBDIR, tmproot, limits)


def download_storm_code(conf, storm_id, nimbus):
    """Port of ``DownloadBaseBlobsDistributed.call``: install ``storm_id``'s code in its
    stormdist directory unless it is there; return that directory.  Blocking.

    :param nimbus: a connected :class:`~pynimbus.thrift.client.NimbusClient`.
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
        download_base_blobs(nimbus, storm_id, tmproot, jar_limits(conf))
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
