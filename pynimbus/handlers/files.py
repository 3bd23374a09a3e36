"""Jar uploads and file downloads: ``beginFileUpload``, ``uploadChunk``, ``finishFileUpload``,
``beginFileDownload`` and ``downloadChunk``.

Ports of the nimbus.clj (Storm 1.2.4) methods of the same names over
:class:`~pynimbus.blobstore.inbox.Inbox`.  ``storm jar`` and ``sparse submit`` upload the jar in
307200-byte chunks to the location ``beginFileUpload`` returns, then name that location in
``submitTopology``.  ``beginFileDownload`` (1.x only) accepts a finished upload's location, a
file nimbus registered, or, as Storm 1.2.4 does, a blob key; ``downloadChunk`` then sends at most
``storm.blobstore.inputstream.buffer.size.bytes`` per call and an empty chunk at the end.

Disk work runs through ``run_blocking`` (default ``deferToThread``), so each method returns a
Deferred; tests pass a runner that calls directly.

Failures:

* an unknown, finished or timed-out upload location, an unknown download id, an unknown file:
  ``TApplicationException`` INTERNAL_ERROR with a message saying what to do (Storm throws
  RuntimeException, which reaches clients as INTERNAL_ERROR too);
* a ``beginFileDownload`` name that is neither a known file nor a valid blob key:
  ``AuthorizationException``, as Storm's ``validateKey``.

Each call is authorized as Storm does: "fileUpload" for the three upload calls, "fileDownload"
for the two download calls (``AuthorizationException`` when denied).
"""

import time

from twisted.internet.threads import deferToThread

from pynimbus.blobstore.errors import UnknownFileError, storm_errors
from pynimbus.blobstore.inbox import Inbox
from pynimbus.blobstore.keys import validate_key
from pynimbus.generated.storm.ttypes import KeyNotFoundException
from pynimbus.handlers.authorization import ALLOW_ALL


class FilesHandler:
    """The file-transfer methods of ``service Nimbus``.

    :param conf: the nimbus configuration.
    :param inbox: the :class:`Inbox` (default: one made from ``conf``); the submission handler
        shares it to find uploaded jars (``inbox.uploaded_jar_path(location)``).
    :param blob_store: the blob store ``beginFileDownload`` reads blob keys from (optional).
    :param run_blocking: ``run_blocking(f, *args)`` runs ``f`` off the reactor thread.
    :param clock: returns the current time in seconds (used for a default inbox).
    """

    authorization = ALLOW_ALL  # the daemon sets the configured one

    def __init__(self, conf, inbox=None, blob_store=None, run_blocking=deferToThread,
                 clock=time.time):
        self.conf = conf
        self.inbox = inbox if inbox is not None else Inbox(conf, clock=clock)
        self.blob_store = blob_store
        self.run_blocking = run_blocking

    # -- Thrift methods ----------------------------------------------------------------------

    def beginFileUpload(self):
        """:returns: the upload location to pass to ``uploadChunk`` and ``finishFileUpload``."""
        self.authorization.check("beginFileUpload")
        return self.run_blocking(self._begin_file_upload)

    def uploadChunk(self, location, chunk):
        """:raises TApplicationException: when ``location`` is not an open upload."""
        self.authorization.check("uploadChunk")
        return self.run_blocking(self._upload_chunk, location, chunk)

    def finishFileUpload(self, location):
        """:raises TApplicationException: when ``location`` is not an open upload."""
        self.authorization.check("finishFileUpload")
        return self.run_blocking(self._finish_file_upload, location)

    def beginFileDownload(self, file):
        """:returns: a download id for ``downloadChunk``.
        :raises AuthorizationException: when ``file`` is unknown and not a valid blob key.
        :raises TApplicationException: when ``file`` is a valid key but no such blob exists.
        """
        self.authorization.check("beginFileDownload")
        return self.run_blocking(self._begin_file_download, file)

    def downloadChunk(self, id):
        """:returns: the next chunk, empty at the end.
        :raises TApplicationException: when ``id`` is not an open download.
        """
        self.authorization.check("downloadChunk")
        return self.run_blocking(self._download_chunk, id)

    # -- housekeeping, for the daemon's timers -----------------------------------------------

    def clean_inbox(self, now=None):
        """Port of nimbus.clj's ``clean-inbox`` timer task; returns a Deferred of the removed
        locations."""
        return self.run_blocking(self.inbox.clean_inbox, now)

    def expire_sessions(self, now=None):
        """Close uploads and downloads idle too long; returns a Deferred of how many."""
        return self.run_blocking(self.inbox.expire, now)

    def close(self):
        """Abandon open uploads and downloads (for shutdown; blocking)."""
        self.inbox.close()

    # -- bodies (blocking) -------------------------------------------------------------------

    @storm_errors
    def _begin_file_upload(self):
        return self.inbox.begin_upload()

    @storm_errors
    def _upload_chunk(self, location, chunk):
        self.inbox.upload_chunk(location, chunk)

    @storm_errors
    def _finish_file_upload(self, location):
        self.inbox.finish_upload(location)

    @storm_errors
    def _begin_file_download(self, file):
        if self.inbox.can_download(file):
            return self.inbox.begin_download(file)
        validate_key(file)
        if self.blob_store is None:
            raise UnknownFileError("File %r is not known to nimbus" % (file,))
        try:
            reader = self.blob_store.get_blob(file)
        except KeyNotFoundException:
            raise UnknownFileError(
                "File %r is not known to nimbus: it is neither a blob key nor a location from "
                "a finished beginFileUpload" % (file,))
        return self.inbox.begin_download_of(reader)

    @storm_errors
    def _download_chunk(self, download_id):
        return self.inbox.download_chunk(download_id)
