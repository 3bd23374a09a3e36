"""Nimbus's blob store on the local file system.

Port of ``LocalFsBlobStore`` with ``FileBlobStoreImpl`` (Storm 1.2.4): create, update, read,
metadata, delete and list blobs under ``<blobstore.dir or storm.local.dir>/blobs``.  The API is
synchronous and blocking; the Thrift handlers call it from threads.

Layout (ours, not Storm's)::

    blobs/
      .tmp/                      uploads in progress, links read by downloads, and deletions;
                                 emptied when opened
      <sha256 of the key>/       one directory per blob (keys.storage_name)
        meta.json                the commit record: key, ACL, replication factor, version,
                                 and the name of the current data file
        data-<version>           the content

``meta.json`` is replaced atomically (write a temporary file, fsync, rename), and it is the only
thing that makes a blob or a new version exist: a crash leaves either the old blob or the new
one, and whatever was half-written is removed when the store is opened again.

Deliberate differences from Storm:

* ``ReadableBlobMeta.version`` is the commit time in milliseconds, raised to one more than the
  previous version when the clock has not moved on, so that it changes with every update and is
  stable otherwise (1.2.4 uses the data file's modification time, 2.8.8 a checksum).
* Nothing of an upload is visible before it is committed (Storm writes the metadata when the
  upload begins).
* ``update_blob_replication`` records the desired factor in the blob's SettableBlobMeta instead
  of failing; nimbuses copy every blob anyway (:mod:`pynimbus.blobstore.synchronizer`).
* Permissions are not checked (see :mod:`pynimbus.blobstore.acl`).
"""

import json
import logging
import os
import shutil
import threading
import time
import uuid

from pynimbus.blobstore import acl as acls
from pynimbus.blobstore.errors import (
    BlobConflictError, InvalidReplicationError, check_upload_size)
from pynimbus.blobstore.keys import is_storage_name, is_valid_key, storage_name, validate_key
from pynimbus.blobstore.sessions import ReopeningReader
from pynimbus.generated.storm.ttypes import (
    AccessControl, KeyAlreadyExistsException, KeyNotFoundException, ReadableBlobMeta,
    SettableBlobMeta)

log = logging.getLogger(__name__)

BASE_BLOBS_DIR_NAME = "blobs"
META_FILE = "meta.json"
DATA_PREFIX = "data-"
TMP_DIR = ".tmp"
_COPY_BUFFER = 1 << 20


def blobstore_dir(conf):
    """Port of ``ConfigUtils.absoluteStormBlobStoreDir`` + ``BASE_BLOBS_DIR_NAME``: where the
    blobs live.  A relative directory is taken from the current directory (Storm: storm.home)."""
    base = conf.get("blobstore.dir") or conf.get("storm.local.dir") or "storm-local"
    return os.path.join(os.path.abspath(base), BASE_BLOBS_DIR_NAME)


def _fsync_dir(path):
    try:
        fd = os.open(path, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def _write_atomically(path, data):
    tmp = "%s.tmp-%s" % (path, uuid.uuid4().hex)
    try:
        with open(tmp, "xb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        _remove_quietly(tmp)
        raise
    _fsync_dir(os.path.dirname(path))


def _remove_quietly(path):
    try:
        os.unlink(path)
    except FileNotFoundError:
        pass


def _acl_to_json(control):
    return {"type": control.type, "name": control.name, "access": control.access}


def _acl_from_json(data):
    return AccessControl(type=data["type"], name=data.get("name"), access=data.get("access"))


class _Record:
    """What ``meta.json`` holds for one blob."""

    __slots__ = ("key", "meta", "version", "data_name")

    def __init__(self, key, meta, version, data_name):
        self.key = key
        self.meta = meta
        self.version = version
        self.data_name = data_name

    def to_json(self):
        return json.dumps({
            "key": self.key,
            "acl": [_acl_to_json(c) for c in self.meta.acl or ()],
            "replication_factor": self.meta.replication_factor,
            "version": self.version,
            "data": self.data_name,
        }, sort_keys=True).encode("utf-8")

    @classmethod
    def from_json(cls, raw):
        data = json.loads(raw.decode("utf-8"))
        meta = SettableBlobMeta(acl=[_acl_from_json(c) for c in data["acl"]],
                                replication_factor=data.get("replication_factor"))
        return cls(data["key"], meta, int(data["version"]), data["data"])


def _copy_meta(meta):
    return SettableBlobMeta(
        acl=[AccessControl(type=c.type, name=c.name, access=c.access) for c in meta.acl or ()],
        replication_factor=meta.replication_factor)


class BlobWriter:
    """An upload in progress (Storm's ``AtomicOutputStream``): ``write`` chunks, then
    ``commit`` to make them the blob's content, or ``cancel`` to drop them.  Thread-safe.

    The temporary file is opened for each chunk and closed again, so a pending upload holds no
    file descriptor (clients may leave many unfinished)."""

    def __init__(self, store, key, meta, tmp_path):
        self.store = store
        self.key = key
        self.meta = meta  # normalised SettableBlobMeta for a create, None for an update
        self.size = 0
        self.closed = False
        self._path = tmp_path
        open(tmp_path, "xb").close()
        self._lock = threading.Lock()

    @property
    def is_create(self):
        return self.meta is not None

    def _check_open(self):
        if self.closed:
            raise ValueError("the upload of blob %r is already closed" % self.key)

    def write(self, data, max_size=None):
        """Append ``data`` (bytes-like).

        :raises ValueError: when the upload was already committed or cancelled.
        :raises UploadTooLargeError: when the blob would grow past ``max_size`` (nothing is
            written).
        """
        with self._lock:
            self._check_open()
            check_upload_size("blob %r" % self.key, self.size, len(data), max_size)
            with open(self._path, "ab") as f:
                f.write(data)
            self.size += len(data)

    def commit(self):
        """Make the written bytes the blob's content; return the new version.

        :raises BlobConflictError: when another upload created the key first, or the key was
            deleted during an update.
        :raises ValueError: when the upload was already committed or cancelled.
        """
        with self._lock:
            self._check_open()
            self.closed = True
            try:
                with open(self._path, "ab") as f:
                    os.fsync(f.fileno())
                return self.store._commit(self, self._path)
            finally:
                _remove_quietly(self._path)

    def cancel(self):
        """Drop the upload; the blob stays as it was.  Cancelling twice is harmless."""
        with self._lock:
            if not self.closed:
                self.closed = True
                _remove_quietly(self._path)

    def __enter__(self):
        return self

    def __exit__(self, exc_type, exc, tb):
        if exc_type is None and not self.closed:
            self.commit()
        else:
            self.cancel()


def _fill(writer, chunks):
    """Write ``chunks`` and commit; cancel on any failure.  Returns the new version."""
    try:
        for chunk in chunks:
            writer.write(chunk)
    except BaseException:
        writer.cancel()
        raise
    return writer.commit()


class BlobReader(ReopeningReader):
    """One version of a blob opened for reading (Storm's ``InputStreamWithMeta``).

    It reads a hard link to that version's data file, made in the store's temporary directory
    and removed by :meth:`close`, so it keeps the version through updates and deletion while
    holding no file descriptor between reads.  Where links cannot be made it reads the data
    file itself (an update or deletion then ends the download)."""

    def __init__(self, key, version, path, link_path):
        try:
            os.link(path, link_path)
        except OSError as e:
            log.debug("Blob %s: reading %s in place (no link: %s)", key, path, e)
            super().__init__(path)
        else:
            super().__init__(link_path, on_close=lambda: _remove_quietly(link_path))
        self.key = key
        self.version = version


class LocalFsBlobStore:
    """Blobs in a directory on nimbus's disk; survives restarts.  Opening removes unfinished
    uploads, so keep one store object per directory (nimbus shares it between handlers).

    :param conf: the nimbus configuration (for the directory), unless ``base_dir`` is given.
    :param base_dir: the directory to keep blobs in (default :func:`blobstore_dir`).
    :param clock: returns the current time in seconds (versions are commit times).
    :param replication_of: ``key -> int``, how many nimbuses hold ``key`` (the children of
        ``/blobstore/<key>``); without it this store counts only itself.
    """

    def __init__(self, conf=None, base_dir=None, clock=time.time, replication_of=None):
        self.base_dir = os.path.abspath(base_dir or blobstore_dir(conf or {}))
        self.clock = clock
        self.replication_of = replication_of
        self._tmp_dir = os.path.join(self.base_dir, TMP_DIR)
        self._lock = threading.RLock()
        self._records = {}
        # changes whenever a key comes or goes: readers keep what they derived from which
        # keys this nimbus holds (replication counts) while it is the same
        self.keys_version = 0
        self._open()

    # -- opening -----------------------------------------------------------------------------

    def _open(self):
        os.makedirs(self.base_dir, exist_ok=True)
        shutil.rmtree(self._tmp_dir, ignore_errors=True)
        os.makedirs(self._tmp_dir, exist_ok=True)
        for name in sorted(os.listdir(self.base_dir)):
            path = os.path.join(self.base_dir, name)
            if name == TMP_DIR:
                continue
            if not is_storage_name(name) or not os.path.isdir(path):
                log.warning("Blob store %s: ignoring %s, which it did not write",
                            self.base_dir, name)
                continue
            record = self._load(name, path)
            if record is not None:
                self._records[record.key] = record

    def _load(self, name, path):
        meta_path = os.path.join(path, META_FILE)
        if not os.path.exists(meta_path):
            log.info("Blob store %s: removing %s, a create that never finished",
                     self.base_dir, name)
            shutil.rmtree(path, ignore_errors=True)
            return None
        try:
            with open(meta_path, "rb") as f:
                record = _Record.from_json(f.read())
        except (OSError, ValueError, KeyError, TypeError) as e:
            log.warning("Blob store %s: skipping %s, unreadable metadata: %s",
                        self.base_dir, name, e)
            return None
        if (not is_valid_key(record.key) or storage_name(record.key) != name
                or os.path.basename(record.data_name) != record.data_name
                or not record.data_name.startswith(DATA_PREFIX)
                or not os.path.isfile(os.path.join(path, record.data_name))):
            log.warning("Blob store %s: skipping %s, its metadata does not match its files",
                        self.base_dir, name)
            return None
        for leftover in os.listdir(path):
            if leftover not in (META_FILE, record.data_name):
                _remove_quietly(os.path.join(path, leftover))
        return record

    # -- paths and records -------------------------------------------------------------------

    def _key_dir(self, key):
        return os.path.join(self.base_dir, storage_name(key))

    def _record(self, key):
        """The record of ``key``; raises KeyNotFoundException.  Call with the lock held."""
        record = self._records.get(key)
        if record is None:
            raise KeyNotFoundException(msg=key)
        return record

    def _next_version(self, previous):
        return max(previous + 1, int(self.clock() * 1000))

    def _new_tmp_path(self):
        return os.path.join(self._tmp_dir, uuid.uuid4().hex)

    # -- writing -----------------------------------------------------------------------------

    def create_blob(self, key, meta):
        """Port of ``LocalFsBlobStore.createBlob``: begin uploading a new blob.

        The ACL is normalised as Storm does for an unauthenticated user.
        :raises AuthorizationException: for an invalid key or a user named twice in the ACL.
        :raises KeyAlreadyExistsException: when the key exists.
        """
        validate_key(key)
        normalized = acls.normalize_settable_blob_meta(key, meta, op_mask=acls.ALL_PERMISSIONS)
        acls.validate_settable_acls(key, normalized.acl)
        with self._lock:
            if key in self._records:
                raise KeyAlreadyExistsException(msg=key)
        return BlobWriter(self, key, normalized, self._new_tmp_path())

    def update_blob(self, key):
        """Port of ``LocalFsBlobStore.updateBlob``: begin replacing a blob's content.

        :raises AuthorizationException: for an invalid key.
        :raises KeyNotFoundException: when the key does not exist.
        """
        validate_key(key)
        with self._lock:
            self._record(key)
        return BlobWriter(self, key, None, self._new_tmp_path())

    def _commit(self, writer, tmp_path):
        with self._lock:
            if writer.is_create:
                if writer.key in self._records:
                    raise BlobConflictError(
                        "Blob %r was created by another upload while this one was in "
                        "progress; update it instead" % writer.key)
                return self._commit_create(writer, tmp_path)
            if writer.key not in self._records:
                raise BlobConflictError(
                    "Blob %r was deleted while this update was in progress; create it again"
                    % writer.key)
            return self._commit_update(writer, tmp_path)

    def _commit_create(self, writer, tmp_path):
        key_dir = self._key_dir(writer.key)
        if os.path.exists(key_dir):
            shutil.rmtree(key_dir)
        version = self._next_version(0)
        record = _Record(writer.key, _copy_meta(writer.meta), version, DATA_PREFIX + str(version))
        os.mkdir(key_dir)
        try:
            os.rename(tmp_path, os.path.join(key_dir, record.data_name))
            _write_atomically(os.path.join(key_dir, META_FILE), record.to_json())
        except BaseException:
            shutil.rmtree(key_dir, ignore_errors=True)
            raise
        _fsync_dir(self.base_dir)
        self._records[writer.key] = record
        self.keys_version += 1
        return version

    def _commit_update(self, writer, tmp_path):
        old = self._records[writer.key]
        key_dir = self._key_dir(writer.key)
        version = self._next_version(old.version)
        record = _Record(old.key, old.meta, version, DATA_PREFIX + str(version))
        data_path = os.path.join(key_dir, record.data_name)
        os.rename(tmp_path, data_path)
        try:
            _write_atomically(os.path.join(key_dir, META_FILE), record.to_json())
        except BaseException:
            _remove_quietly(data_path)
            raise
        self._records[writer.key] = record
        _remove_quietly(os.path.join(key_dir, old.data_name))
        return version

    def create_blob_from_bytes(self, key, data, meta=None):
        """Port of ``BlobStore.createBlob(key, byte[], meta, who)``; returns the version."""
        return _fill(self.create_blob(key, meta or SettableBlobMeta(acl=[])), [data])

    def create_blob_from_file(self, key, path, meta=None):
        """Port of ``BlobStore.createBlob(key, InputStream, meta, who)`` for a file on nimbus's
        disk (an uploaded jar); returns the version."""
        with open(path, "rb") as source:
            return _fill(self.create_blob(key, meta or SettableBlobMeta(acl=[])),
                         iter(lambda: source.read(_COPY_BUFFER), b""))

    def update_blob_from_bytes(self, key, data):
        """Replace the content of ``key`` with ``data``; returns the new version."""
        return _fill(self.update_blob(key), [data])

    # -- reading -----------------------------------------------------------------------------

    def has_blob(self, key):
        """True when ``key`` is a blob in this store."""
        with self._lock:
            return key in self._records

    def get_blob(self, key):
        """Port of ``LocalFsBlobStore.getBlob``: open the current version for reading.

        The reader keeps that version even if the blob is updated or deleted meanwhile.
        :raises AuthorizationException: for an invalid key.
        :raises KeyNotFoundException: when the key does not exist.
        """
        validate_key(key)
        with self._lock:
            record = self._record(key)
            return BlobReader(key, record.version,
                              os.path.join(self._key_dir(key), record.data_name),
                              self._new_tmp_path())

    def read_blob(self, key):
        """Port of ``BlobStore.readBlob``: the whole content of ``key``."""
        with self.get_blob(key) as reader:
            return reader.read()

    def get_blob_meta(self, key):
        """Port of ``LocalFsBlobStore.getBlobMeta``: the stored SettableBlobMeta and version.

        :raises AuthorizationException: for an invalid key.
        :raises KeyNotFoundException: when the key does not exist.
        """
        validate_key(key)
        with self._lock:
            record = self._record(key)
            return ReadableBlobMeta(settable=_copy_meta(record.meta), version=record.version)

    def list_keys(self):
        """Port of ``LocalFsBlobStore.listKeys``: every key, sorted."""
        with self._lock:
            return sorted(self._records)

    # -- metadata, deletion, replication -----------------------------------------------------

    def set_blob_meta(self, key, meta):
        """Port of ``LocalFsBlobStore.setBlobMeta``: replace the SettableBlobMeta of ``key``.

        :raises AuthorizationException: for an invalid key or a user named twice in the ACL.
        :raises KeyNotFoundException: when the key does not exist.
        """
        validate_key(key)
        normalized = acls.normalize_settable_blob_meta(key, meta, op_mask=acls.ADMIN)
        acls.validate_settable_acls(key, normalized.acl)
        self._replace_meta(key, normalized)

    def _replace_meta(self, key, meta):
        with self._lock:
            old = self._record(key)
            record = _Record(key, meta, old.version, old.data_name)
            _write_atomically(os.path.join(self._key_dir(key), META_FILE), record.to_json())
            self._records[key] = record

    def delete_blob(self, key):
        """Port of ``LocalFsBlobStore.deleteBlob``: remove ``key`` and its content.

        Readers opened before keep reading the version they opened.
        :raises AuthorizationException: for an invalid key.
        :raises KeyNotFoundException: when the key does not exist.
        """
        validate_key(key)
        trash = os.path.join(self._tmp_dir, "deleted-" + uuid.uuid4().hex)
        with self._lock:
            self._record(key)
            os.rename(self._key_dir(key), trash)
            del self._records[key]
            self.keys_version += 1
            _fsync_dir(self.base_dir)
        shutil.rmtree(trash, ignore_errors=True)

    def get_blob_replication(self, key):
        """Port of ``LocalFsBlobStore.getBlobReplication``: how many nimbuses hold ``key``
        (``replication_of``; 1, this store, without it).

        :raises AuthorizationException: for an invalid key.
        :raises KeyNotFoundException: when this nimbus does not hold the key.
        """
        validate_key(key)
        if key not in self._records:  # no lock: queries ask it on the reactor thread, and
            raise KeyNotFoundException(msg=key)  # the lock is held across disk writes
        if self.replication_of is None:
            return 1
        return self.replication_of(key)

    def update_blob_replication(self, key, replication):
        """Record ``replication`` as the desired factor of ``key`` (SettableBlobMeta field 2);
        return the replication there is (:meth:`get_blob_replication`).

        :raises AuthorizationException: for an invalid key.
        :raises KeyNotFoundException: when the key does not exist.
        :raises InvalidReplicationError: for a factor below 1.
        """
        validate_key(key)
        if not isinstance(replication, int) or replication < 1:
            raise InvalidReplicationError(
                "Replication factor of blob %r must be a whole number of at least 1, got %r"
                % (key, replication))
        with self._lock:
            meta = _copy_meta(self._record(key).meta)
            meta.replication_factor = replication
            self._replace_meta(key, meta)
        return self.get_blob_replication(key)
