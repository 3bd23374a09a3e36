"""Copying blobs between nimbuses, so that every nimbus holds what the leader holds.

Port of ``BlobSynchronizer.syncBlobs`` with ``BlobStoreUtils.downloadMissingBlob`` and
``downloadUpdatedBlob`` (Storm 1.2.4; 2.8.8's ``LocalFsBlobStoreSynchronizer`` is the same).
:func:`~pynimbus.blobstore.sync_plan.blob_sync_plan` says which keys to delete, check and
download; a blob is copied from a nimbus holding its latest version (the ``host:port`` of a
``/blobstore/<key>/<host:port>-<seq>`` child) over that nimbus's Thrift blob calls, as Storm:
``getBlobMeta``, ``beginBlobDownload``, ``downloadBlobChunk`` until an empty chunk.  The copy
is then registered as ``/blobstore/<key>/<this host:port>-<seq>``.

Blocking (network, disk and cluster state): the daemon runs :meth:`BlobSynchronizer.sync_blobs`
in a thread.

Deliberate differences:

* the copy registers the sequence number of the version it copied; Storm asks
  ``KeySequenceNumber``, which gives a nimbus on another machine 0, so that Storm copies the
  blob again at every sync;
* a download whose length differs from the ``data_size`` the holder announced is dropped (the
  blob stays as it was) and the next holder is tried;
* a key deleted while it was being copied is not registered again.
"""

import logging

from thrift.Thrift import TException

from pynimbus.blobstore.errors import BlobStoreError
from pynimbus.blobstore.sequence import nimbodes_with_latest_sequence_number
from pynimbus.blobstore.sync_plan import blob_sync_plan, needs_update
from pynimbus.generated.storm.ttypes import KeyAlreadyExistsException, KeyNotFoundException
from pynimbus.thrift.client import NimbusClient

log = logging.getLogger(__name__)

# How long one call to another nimbus may take before that nimbus is given up on.
PEER_TIMEOUT_SECS = 60.0


class IncompleteDownloadError(BlobStoreError):
    """A download ended before (or after) the length its nimbus announced."""


def split_host_port(host_port):
    """``NimbusInfo.parse``: ``host:port`` or 2.x's ``host:port:tlsPort`` -> (host, port)."""
    host, port = host_port.split(":")[:2]
    return host, int(port)


class BlobSynchronizer:
    """One nimbus's side of the blob sync.

    :param blob_store: this nimbus's :class:`~pynimbus.blobstore.local.LocalFsBlobStore`.
    :param state: the cluster state (``blobstore()``, ``blobstore_info(key)``,
        ``setup_blobstore(key, host_port, seq)``).
    :param own_host_port: how this nimbus names itself under ``/blobstore/<key>``.
    :param open_client: ``(host, port) -> client`` with the Nimbus blob calls, a context manager.
    """

    def __init__(self, blob_store, state, own_host_port, open_client=None):
        self.store = blob_store
        self.state = state
        self.own_host_port = own_host_port
        self.open_client = open_client or _open_nimbus_client

    def sync_blobs(self):
        """Port of ``BlobSynchronizer.syncBlobs``: delete local blobs ZooKeeper no longer lists,
        refresh those a newer version of which another nimbus holds, download the missing
        ones.  Returns the plan it carried out (a BlobSyncPlan)."""
        plan = blob_sync_plan(self.store.list_keys(), self.state.blobstore())
        for key in plan.to_delete:
            self._delete_local(key)
        for key in plan.to_check:
            holders = needs_update(self.state.blobstore_info(key), self.own_host_port)
            if holders:
                self.copy_blob(key)
        for key in plan.to_download:
            self.copy_blob(key)
        return plan

    def _delete_local(self, key):
        self.state.forget_held_blob(key)
        try:
            self.store.delete_blob(key)
            log.info("Deleted blob %s: ZooKeeper no longer lists it", key)
        except KeyNotFoundException:
            pass

    def copy_blob(self, key):
        """Copy ``key`` from a nimbus holding its latest version and register the copy.

        Port of ``downloadMissingBlob`` / ``downloadUpdatedBlob`` then ``createStateInZookeeper``.
        Returns True when copied; failures are logged (the next sync tries again).
        """
        holders, latest = nimbodes_with_latest_sequence_number(self.state.blobstore_info(key))
        for host_port in holders:
            if host_port == self.own_host_port:
                continue
            try:
                self._download(key, host_port)
            except (KeyNotFoundException, KeyAlreadyExistsException) as e:
                # updated or deleted meanwhile, or copied by a sync running at the same time
                log.info("Blob %s not copied from %s: %s", key, host_port,
                         type(e).__name__)
                continue
            except (TException, OSError, BlobStoreError) as e:
                log.error("Could not copy blob %s from nimbus %s: %s", key, host_port, e)
                continue
            self._register(key, latest)
            return True
        if not holders:  # the leader has not registered it yet: the next round copies it
            log.warning("Blob %s version %d has no holder yet; the next sync retries", key, latest)
            return False
        log.error("Could not download blob with key %s (holders of version %d: %s)",
                  key, latest, ", ".join(holders))
        return False

    def _download(self, key, host_port):
        host, port = split_host_port(host_port)
        with self.open_client(host, port) as client:
            meta = client.getBlobMeta(key)
            begin = client.beginBlobDownload(key)
            if self.store.has_blob(key):
                writer = self.store.update_blob(key)
            else:
                writer = self.store.create_blob(key, meta.settable)
            try:
                received = 0
                while True:
                    chunk = client.downloadBlobChunk(begin.session)
                    if not chunk:
                        break
                    writer.write(chunk)
                    received += len(chunk)
                if begin.data_size is not None and received != begin.data_size:
                    raise IncompleteDownloadError(
                        "blob %s from %s: %d bytes received, %d announced"
                        % (key, host_port, received, begin.data_size))
            except BaseException:
                writer.cancel()
                raise
            writer.commit()
        log.info("Copied blob %s (%d bytes) from nimbus %s", key, received, host_port)

    def _register(self, key, sequence_number):
        if self.state.blobstore_info(key) is None:
            log.info("Blob %s was deleted while it was copied; dropping the copy", key)
            self._delete_local(key)
            return
        self.state.setup_blobstore(key, self.own_host_port, sequence_number)


def _open_nimbus_client(host, port):
    return NimbusClient(host, port, timeout=PEER_TIMEOUT_SECS)
