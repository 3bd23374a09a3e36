"""Nimbus's files on disk: the blob store (topology code and user blobs) and the jar inbox.

* :mod:`~pynimbus.blobstore.keys`: which blob keys are valid; keys never become paths.
* :mod:`~pynimbus.blobstore.acl`: normalising blob ACLs as Storm does.
* :mod:`~pynimbus.blobstore.local`: :class:`LocalFsBlobStore`, blobs under
  ``<storm.local.dir>/blobs``.
* :mod:`~pynimbus.blobstore.inbox`: :class:`Inbox`, uploaded jars under
  ``<storm.local.dir>/nimbus/inbox`` and chunked file downloads.
* :mod:`~pynimbus.blobstore.sessions`: session maps with idle expiry.
* :mod:`~pynimbus.blobstore.sequence`: the ZooKeeper sequence number of a blob key.
* :mod:`~pynimbus.blobstore.errors`: failures Storm declares no Thrift exception for.

Everything here is synchronous and blocking; the handlers in ``pynimbus.handlers.files`` and
``pynimbus.handlers.blobs`` run it off the reactor thread.
"""

from pynimbus.blobstore.errors import (
    BlobConflictError, BlobStoreError, InvalidReplicationError, UnknownFileError,
    UnknownSessionError, UnknownUploadLocationError)
from pynimbus.blobstore.inbox import Inbox
from pynimbus.blobstore.keys import is_valid_key, validate_key
from pynimbus.blobstore.local import LocalFsBlobStore

__all__ = [
    "BlobConflictError", "BlobStoreError", "Inbox", "InvalidReplicationError",
    "LocalFsBlobStore", "UnknownFileError", "UnknownSessionError", "UnknownUploadLocationError",
    "is_valid_key", "validate_key",
]
