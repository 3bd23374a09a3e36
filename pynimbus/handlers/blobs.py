"""The blob-store methods of ``service Nimbus``: create, update, read, list and delete blobs,
their metadata and replication, and their ZooKeeper state.

Ports of the nimbus.clj (Storm 1.2.4) methods ``beginCreateBlob``, ``beginUpdateBlob``,
``uploadBlobChunk``, ``finishBlobUpload``, ``cancelBlobUpload``, ``getBlobMeta``,
``setBlobMeta``, ``beginBlobDownload``, ``downloadBlobChunk``, ``deleteBlob``, ``listBlobs``,
``getBlobReplication``, ``updateBlobReplication``, ``createStateInZookeeper``, of Nimbus.java's
``isRemoteBlobExists`` (2.8.8), and of nimbus.clj's start-up ``setup-blobstore``, over
:class:`~pynimbus.blobstore.local.LocalFsBlobStore`.

Clients call ``beginCreateBlob``/``beginUpdateBlob``, ``uploadBlobChunk``...,
``finishBlobUpload``, then ``createStateInZookeeper(key)``, which registers
``/blobstore/<key>/<host>:<port>-<version>`` with the version from
:func:`~pynimbus.blobstore.sequence.key_sequence_number`.  Supervisors call
``beginBlobDownload`` then ``downloadBlobChunk`` until an empty chunk; ``data_size`` is always
set, because they discard a download of another length.

Disk and ZooKeeper work runs through ``run_blocking`` (default ``deferToThread``): the
``blob_state`` methods are blocking calls, like the rest of pynimbus's cluster state.

Failures (each method's docstring lists its own):

* an invalid key: ``AuthorizationException`` (Storm 1.2.4 ``validateKey``);
* a missing key: ``KeyNotFoundException(msg=key)``; an existing one on create:
  ``KeyAlreadyExistsException(msg=key)``;
* deleting a blob a topology still uses: ``IllegalStateException`` (2.x), when a
  ``blob_in_use`` check is given;
* an unknown or timed-out session, an upload that conflicts with another, a bad replication
  factor, and anything for ``createStateInZookeeper`` and ``listBlobs`` (which declare no
  exception): ``TApplicationException`` INTERNAL_ERROR with a message saying what to do, the
  class Storm's RuntimeException reaches clients as.
"""

import itertools
import logging
import threading
import time

from twisted.internet.threads import deferToThread

from pynimbus.blobstore.errors import (
    UnknownSessionError, UploadTooLargeError, as_application_error, storm_errors)
from pynimbus.blobstore.keys import is_valid_key, validate_key
from pynimbus.blobstore.sequence import key_sequence_number
from pynimbus.blobstore.sessions import DownloadSessions, SessionMap, new_session_id
from pynimbus.common.config import upload_max_bytes
from pynimbus.generated.storm.ttypes import (
    AuthorizationException, BeginDownloadResult, IllegalStateException, KeyNotFoundException,
    ListBlobsResult)

log = logging.getLogger(__name__)

# nimbus.clj's listBlobs hands out at most this many keys per call.
LIST_BLOBS_PAGE_SIZE = 100


def _cancel(writer):
    writer.cancel()


class BlobsHandler:
    """The blob methods of ``service Nimbus``.

    :param conf: the nimbus configuration (``nimbus.blobstore.expiration.secs``,
        ``storm.blobstore.inputstream.buffer.size.bytes``, ``pynimbus.upload.max.bytes``).
    :param blob_store: the :class:`~pynimbus.blobstore.local.LocalFsBlobStore`.
    :param blob_state: ZooKeeper blob state with ``setup_blobstore(key, nimbus_host_port,
        version)``, ``active_keys()``, ``blobstore_info(key)`` (children of
        ``/blobstore/<key>``, None or [] when missing), ``remove_blobstore_key(key)``,
        ``remove_key_version(key)``, ``get_max_sequence_number(key)`` (None when missing) and
        ``set_max_sequence_number(key, n)``; all blocking.
    :param nimbus_host_port: this nimbus as ``"host:port"``.
    :param run_blocking: ``run_blocking(f, *args)`` runs ``f`` off the reactor thread.
    :param clock: returns the current time in seconds (session expiry).
    :param blob_in_use: optional blocking ``key -> message or None``; a message refuses
        ``deleteBlob`` with IllegalStateException (2.x: blobs of live topologies).
    :param is_leader: ``() -> bool`` without I/O: whether this nimbus leads, for the key's
        sequence number (``KeySequenceNumber`` treats a leader lacking a blob apart).
    """

    def __init__(self, conf, blob_store, blob_state, nimbus_host_port,
                 run_blocking=deferToThread, clock=time.time, blob_in_use=None,
                 is_leader=lambda: True):
        self.conf = conf
        self.store = blob_store
        self.state = blob_state
        self.nimbus_host_port = nimbus_host_port
        self.run_blocking = run_blocking
        self.blob_in_use = blob_in_use
        self.is_leader = is_leader
        self.max_upload_bytes = upload_max_bytes(conf)
        expiration = float(conf.get("nimbus.blobstore.expiration.secs", 600))
        self._uploads = SessionMap(expiration, clock, on_expire=_cancel)
        self._downloads = DownloadSessions(
            int(conf.get("storm.blobstore.inputstream.buffer.size.bytes") or 65536),
            expiration, clock,
            missing="Blob for session %r does not exist (or timed out): the download finished,"
                    " was idle too long, or never began; call beginBlobDownload again")
        self._listers = SessionMap(expiration, clock)
        self._sequence_lock = threading.Lock()
        # the daemon's BlobSynchronizer: reads of a key this nimbus lacks copy it first
        self.synchronizer = None

    # -- Thrift methods: uploads -------------------------------------------------------------

    def beginCreateBlob(self, key, meta):
        """:returns: the upload session.
        :raises AuthorizationException: invalid key, or a user named twice in the ACL.
        :raises KeyAlreadyExistsException: the key exists.
        """
        return self.run_blocking(self._begin_create_blob, key, meta)

    def beginUpdateBlob(self, key):
        """:returns: the upload session.
        :raises AuthorizationException: invalid key.
        :raises KeyNotFoundException: no such blob.
        """
        return self.run_blocking(self._begin_update_blob, key)

    def uploadBlobChunk(self, session, chunk):
        """:raises TApplicationException: the session is not an open upload, or the blob would
            grow past ``pynimbus.upload.max.bytes`` (the upload is then cancelled)."""
        return self.run_blocking(self._upload_blob_chunk, session, chunk)

    def finishBlobUpload(self, session):
        """:raises TApplicationException: the session is not an open upload, or the key was
            created or deleted by someone else meanwhile."""
        return self.run_blocking(self._finish_blob_upload, session)

    def cancelBlobUpload(self, session):
        """:raises TApplicationException: the session is not an open upload."""
        return self.run_blocking(self._cancel_blob_upload, session)

    # -- Thrift methods: reading -------------------------------------------------------------

    def getBlobMeta(self, key):
        """:raises AuthorizationException: invalid key.
        :raises KeyNotFoundException: no such blob.
        """
        return self.run_blocking(self._get_blob_meta, key)

    def setBlobMeta(self, key, meta):
        """:raises AuthorizationException: invalid key, or a user named twice in the ACL.
        :raises KeyNotFoundException: no such blob.
        """
        return self.run_blocking(self.store.set_blob_meta, key, meta)

    def beginBlobDownload(self, key):
        """:returns: BeginDownloadResult with version, session and data_size.
        :raises AuthorizationException: invalid key.
        :raises KeyNotFoundException: no such blob.
        """
        return self.run_blocking(self._begin_blob_download, key)

    def downloadBlobChunk(self, session):
        """:returns: the next chunk, empty at the end.
        :raises TApplicationException: the session is not an open download.
        """
        return self.run_blocking(self._download_blob_chunk, session)

    def listBlobs(self, session):
        """:returns: ListBlobsResult; pass its session back until the key list is empty.
        :raises TApplicationException: the session is not an open listing.
        """
        return self.run_blocking(self._list_blobs, session)

    def isRemoteBlobExists(self, blobKey):
        """:raises AuthorizationException: invalid key."""
        return self.run_blocking(self._is_remote_blob_exists, blobKey)

    # -- Thrift methods: deletion, replication, ZooKeeper ------------------------------------

    def deleteBlob(self, key):
        """:raises AuthorizationException: invalid key.
        :raises KeyNotFoundException: no such blob.
        :raises IllegalStateException: ``blob_in_use`` says a topology still uses it.
        """
        return self.run_blocking(self._delete_blob, key)

    def getBlobReplication(self, key):
        """:returns: how many nimbuses hold the blob (children of ``/blobstore/<key>``).
        :raises AuthorizationException: invalid key.
        :raises KeyNotFoundException: no such blob.
        """
        return self.run_blocking(self._get_blob_replication, key)

    def updateBlobReplication(self, key, replication):
        """Records the desired factor in the blob's metadata; returns the replication there is
        (one nimbus cannot hold more copies than one).

        :raises AuthorizationException: invalid key.
        :raises KeyNotFoundException: no such blob.
        :raises TApplicationException: a factor below 1.
        """
        return self.run_blocking(self._update_blob_replication, key, replication)

    def createStateInZookeeper(self, key):
        """:raises TApplicationException: invalid key."""
        return self.run_blocking(self._create_state_in_zookeeper, key)

    # -- housekeeping, for the daemon --------------------------------------------------------

    def setup_blobstore(self):
        """Port of nimbus.clj ``setup-blobstore``, run when nimbus starts leading: delete local
        blobs ZooKeeper does not list, and register this nimbus for the others.  Returns a
        Deferred."""
        return self.run_blocking(self._setup_blobstore)

    def expire_sessions(self, now=None):
        """Cancel uploads and close downloads and listings idle too long (Deferred of how
        many)."""
        def expire():
            return sum(len(m.expire(now)) for m in (self._uploads, self._downloads, self._listers))
        return self.run_blocking(expire)

    def close(self):
        """Cancel open uploads and close downloads (for shutdown; blocking)."""
        self._uploads.close_all()
        self._downloads.close_all()
        self._listers.close_all()

    # -- bodies (blocking) -------------------------------------------------------------------

    @storm_errors
    def _begin_create_blob(self, key, meta):
        writer = self.store.create_blob(key, meta)
        session = new_session_id()
        self._uploads.put(session, writer)
        log.info("Created blob for %s with session id %s", key, session)
        return session

    @storm_errors
    def _begin_update_blob(self, key):
        writer = self.store.update_blob(key)
        session = new_session_id()
        self._uploads.put(session, writer)
        log.info("Created upload session for %s with id %s", key, session)
        return session

    def _missing_upload(self, session):
        return UnknownSessionError(
            "Blob for session %r does not exist (or timed out): the upload finished, was "
            "cancelled, was idle longer than %d s, or never began; begin it again"
            % (session, self._uploads.expiration_secs))

    @storm_errors
    def _upload_blob_chunk(self, session, chunk):
        writer = self._uploads.get(session)
        if writer is None:
            raise self._missing_upload(session)
        try:
            writer.write(chunk, self.max_upload_bytes)
        except ValueError:
            raise self._missing_upload(session)
        except UploadTooLargeError:
            self._uploads.pop(session)
            writer.cancel()
            log.warning("Cancelled uploading blob %s for session %s at %d bytes: over "
                        "pynimbus.upload.max.bytes (%d)", writer.key, session, writer.size,
                        self.max_upload_bytes)
            raise

    @storm_errors
    def _finish_blob_upload(self, session):
        writer = self._uploads.pop(session)
        if writer is None:
            raise self._missing_upload(session)
        try:
            version = writer.commit()
        except ValueError:
            raise self._missing_upload(session)
        log.info("Finished uploading blob %s (version %d, %d bytes) for session %s",
                 writer.key, version, writer.size, session)

    @storm_errors
    def _cancel_blob_upload(self, session):
        writer = self._uploads.pop(session)
        if writer is None:
            raise self._missing_upload(session)
        writer.cancel()
        log.info("Canceled uploading blob for session %s", session)

    def _check_for_blob_or_download(self, key):
        """Port of ``LocalFsBlobStore.checkForBlobOrDownload``: a valid key this nimbus does not
        hold but ``/blobstore`` lists (its holders have not been synced from yet) is copied
        from one of them before it is read."""
        if self.synchronizer is None or not is_valid_key(key) or self.store.has_blob(key):
            return
        if self.state.blobstore_info(key):
            self.synchronizer.copy_blob(key)

    def _get_blob_meta(self, key):
        self._check_for_blob_or_download(key)
        return self.store.get_blob_meta(key)

    @storm_errors
    def _begin_blob_download(self, key):
        self._check_for_blob_or_download(key)
        reader = self.store.get_blob(key)
        session = self._downloads.begin(reader)
        log.info("Created download session for %s with id %s", key, session)
        return BeginDownloadResult(version=reader.version, session=session,
                                   data_size=reader.size)

    @storm_errors
    def _download_blob_chunk(self, session):
        return self._downloads.next_chunk(session)

    @storm_errors
    def _list_blobs(self, session):
        if not session:
            keys = iter(self.store.list_keys())
            session = new_session_id()
        else:
            keys = self._listers.get(session)
            if keys is None:
                raise UnknownSessionError(
                    "Blob list for session %r does not exist (or timed out): call "
                    "listBlobs(\"\") to list from the start" % (session,))
        page = list(itertools.islice(keys, LIST_BLOBS_PAGE_SIZE))
        if not page:
            self._listers.pop(session)
            return ListBlobsResult(keys=[], session=session)
        self._listers.put(session, keys)
        return ListBlobsResult(keys=page, session=session)

    def _is_remote_blob_exists(self, key):
        try:
            self.store.get_blob_meta(key)
        except KeyNotFoundException:
            return False
        return True

    def _delete_blob(self, key):
        validate_key(key)
        if self.blob_in_use is not None:
            message = self.blob_in_use(key)
            if message:
                raise IllegalStateException(msg=message)
        self.store.delete_blob(key)
        self.state.remove_blobstore_key(key)
        self.state.remove_key_version(key)
        log.info("Deleted blob for key %s", key)

    def _replication(self, key):
        return len(self.state.blobstore_info(key) or ())

    def _get_blob_replication(self, key):
        self._check_for_blob_or_download(key)
        self.store.get_blob_replication(key)
        return self._replication(key)

    @storm_errors
    def _update_blob_replication(self, key, replication):
        self.store.update_blob_replication(key, replication)
        return self._replication(key)

    def _version_for_key(self, key):
        """Port of nimbus.clj ``get-version-for-key``: read, compute, write the sequence."""
        with self._sequence_lock:
            version, new_max = key_sequence_number(
                key, self.state.blobstore_info(key), self.state.get_max_sequence_number(key),
                self.nimbus_host_port, is_leader=self.is_leader())
            if new_max is not None:
                self.state.set_max_sequence_number(key, new_max)
            return version

    def record_blob_state(self, key):
        """Blocking: register this nimbus as a holder of ``key``'s current version (the
        ``setup-blobstore!`` step of 1.2.4's ``setup-storm-code``)."""
        self._create_state_in_zookeeper(key)

    def _create_state_in_zookeeper(self, key):
        try:
            validate_key(key)
        except AuthorizationException as e:
            raise as_application_error(e.msg)
        if not self.store.has_blob(key):
            # As 2.8.8, which logs KeyNotFoundException here and returns.
            log.warning("Not creating ZooKeeper state for blob %s: nimbus does not hold it", key)
            return
        try:
            version = self._version_for_key(key)
        except KeyNotFoundException:
            log.warning("Blob %s was deleted while creating its ZooKeeper state", key)
            return
        self.state.setup_blobstore(key, self.nimbus_host_port, version)
        log.debug("Created state in zookeeper for %s: %s-%d", key, self.nimbus_host_port, version)

    def _setup_blobstore(self):
        local = set(self.store.list_keys())
        active = set(self.state.active_keys() or ())
        for key in sorted(local - active):
            log.info("Deleting blob %s: ZooKeeper does not list it", key)
            self.state.forget_held_blob(key)
            self.store.delete_blob(key)
        for key in sorted(local & active):
            try:
                self.state.setup_blobstore(key, self.nimbus_host_port,
                                           self._version_for_key(key))
            except KeyNotFoundException:
                self.store.delete_blob(key)
