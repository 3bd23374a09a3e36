"""Failures of the blob store and the inbox that Storm declares no Thrift exception for.

Storm's Nimbus throws ``RuntimeException`` for these ("Blob for session ... does not exist (or
timed out)", "File for that location does not exist (or timed out)"); libthrift turns that into
a ``TApplicationException`` INTERNAL_ERROR.  pynimbus keeps that class on the wire but carries
our message, which says what to do: :func:`as_application_error` makes the exception a handler
raises, and :func:`storm_errors` applies it to a handler's synchronous body.  Declared Thrift
exceptions (AuthorizationException, KeyNotFoundException, ...) pass through unchanged.
"""

import functools

from pynimbus.thrift.errors import as_application_error  # noqa: F401  (re-exported for handlers)


class BlobStoreError(Exception):
    """Base of the blob store's and the inbox's own failures; the message is for the user."""


class UnknownSessionError(BlobStoreError):
    """An upload, download or listing session id nimbus does not hold: never issued, already
    finished, cancelled, or idle longer than its expiration."""


class UnknownUploadLocationError(UnknownSessionError):
    """A jar upload location that is not an open upload (uploadChunk, finishFileUpload) or a
    finished one (submitTopology)."""


class UnknownFileError(BlobStoreError):
    """A beginFileDownload name that is neither a finished upload, a registered file, nor a
    blob key."""


class BlobConflictError(BlobStoreError):
    """An upload that cannot be committed because the key changed meanwhile: created by
    another upload, or deleted while it was being updated."""


class InvalidReplicationError(BlobStoreError, ValueError):
    """A replication factor below 1."""


class UploadTooLargeError(BlobStoreError):
    """A jar or blob upload that would grow past ``pynimbus.upload.max.bytes``; the upload is
    abandoned."""


def check_upload_size(what, size, more, max_size):
    """Refuse growing the upload ``what`` of ``size`` bytes by ``more`` past ``max_size``.

    :raises UploadTooLargeError: naming the setting that allows larger uploads.
    """
    if max_size is not None and size + more > max_size:
        raise UploadTooLargeError(
            "Upload to %s refused: %d more bytes after %d would exceed "
            "pynimbus.upload.max.bytes (%d bytes), so the upload was abandoned; raise that "
            "setting in nimbus's storm.yaml to upload larger files" % (what, more, size, max_size))


def storm_errors(function):
    """Decorate a handler body so :class:`BlobStoreError` reaches the client as Storm's
    exception class with our message; anything else propagates unchanged."""
    @functools.wraps(function)
    def wrapper(*args, **kwargs):
        try:
            return function(*args, **kwargs)
        except BlobStoreError as error:
            raise as_application_error(error) from error
    return wrapper
