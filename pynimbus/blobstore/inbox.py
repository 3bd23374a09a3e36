"""Nimbus's jar inbox: ``beginFileUpload``/``uploadChunk``/``finishFileUpload`` and the old
``beginFileDownload``/``downloadChunk`` file downloads.

Port of nimbus.clj (Storm 1.2.4) ``beginFileUpload``, ``uploadChunk``, ``finishFileUpload``,
``beginFileDownload``, ``downloadChunk`` and ``clean-inbox``, with the ``:uploaders`` and
``:downloaders`` maps.  As in Storm, an upload's location is the string
``<storm.local.dir>/nimbus/inbox/stormjar-<uuid>.jar``; the client passes it back unchanged to
``uploadChunk``, ``finishFileUpload`` and ``submitTopology``.

Safety: a string from a client is only ever a key into this object's registries, never a path.
Storm opens whatever path ``submitTopology`` names; here :meth:`Inbox.uploaded_jar_path` answers
only for uploads this inbox finished.

Failures Storm throws as ``RuntimeException`` ("File for that location does not exist (or
timed out)", an internal error on the wire) raise :class:`UnknownUploadLocationError`,
:class:`UnknownSessionError` and :class:`UnknownFileError`, whose messages say what to do; the
files handler sends them as Storm's class, ``TApplicationException`` INTERNAL_ERROR.

Deliberate differences: a partial upload is written to ``<location>.part`` and renamed to the
location when finished, so only complete jars are ever at a location; partial uploads left by a
restart are removed, finished ones are found again.  ``clean_inbox`` removes only jars this inbox
made (Storm removes every old file in the directory).  The ``.part`` file is opened for each
chunk rather than held open (Storm keeps a channel open per upload, so unfinished uploads can
exhaust nimbus's file descriptors), as is a downloaded file for each chunk, and a jar may hold
at most ``pynimbus.upload.max.bytes``.
"""

import logging
import os
import re
import threading
import time
import uuid

from pynimbus.blobstore.errors import (
    UnknownFileError, UnknownUploadLocationError, UploadTooLargeError, check_upload_size)
from pynimbus.blobstore.sessions import DownloadSessions, ReopeningReader, SessionMap
from pynimbus.common.config import upload_max_bytes

log = logging.getLogger(__name__)

PART_SUFFIX = ".part"
_JAR_NAME = re.compile(r"stormjar-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\.jar")


def master_inbox(conf):
    """Port of config.clj ``master-inbox``: ``<storm.local.dir>/nimbus/inbox`` (absolute)."""
    local_dir = conf.get("storm.local.dir") or "storm-local"
    return os.path.join(os.path.abspath(local_dir), "nimbus", "inbox")


class _Upload:
    """One jar upload: its ``.part`` file is opened for each chunk and closed again, so a
    pending upload holds no file descriptor (clients may leave many unfinished)."""

    def __init__(self, location, part_path):
        self.location = location
        self.part_path = part_path
        open(part_path, "xb").close()
        self.size = 0
        self.closed = False
        self.lock = threading.Lock()

    def _check_open(self):
        if self.closed:
            raise UnknownUploadLocationError(
                "File for that location does not exist (or timed out): the upload to %r "
                "was closed" % self.location)

    def append(self, chunk, max_size):
        """Append ``chunk``; raises UploadTooLargeError (writing nothing) past ``max_size``."""
        with self.lock:
            self._check_open()
            check_upload_size(self.location, self.size, len(chunk), max_size)
            with open(self.part_path, "ab") as f:
                f.write(chunk)
            self.size += len(chunk)

    def finish(self):
        """Make the written bytes durable and move them to the location."""
        with self.lock:
            self._check_open()
            self.closed = True
            with open(self.part_path, "ab") as f:
                os.fsync(f.fileno())
            os.rename(self.part_path, self.location)

    def abandon(self):
        with self.lock:
            if self.closed:
                return
            self.closed = True
            try:
                os.unlink(self.part_path)
            except FileNotFoundError:
                pass


class Inbox:
    """Jar uploads into ``<storm.local.dir>/nimbus/inbox`` and chunked file downloads.  Opening
    removes partial uploads, so keep one inbox object per directory (shared by the files and
    submission handlers).

    :param conf: the nimbus configuration: ``storm.local.dir``,
        ``nimbus.file.copy.expiration.secs`` (idle uploads and downloads expire),
        ``nimbus.inbox.jar.expiration.secs`` (age at which ``clean_inbox`` removes jars),
        ``storm.blobstore.inputstream.buffer.size.bytes`` (download chunk size),
        ``pynimbus.upload.max.bytes`` (the largest jar).
    :param clock: returns the current time in seconds.
    :param inbox_dir: overrides the directory.
    """

    def __init__(self, conf, clock=time.time, inbox_dir=None):
        self.dir = os.path.abspath(inbox_dir or master_inbox(conf))
        self.clock = clock
        self.jar_expiration_secs = float(conf.get("nimbus.inbox.jar.expiration.secs", 3600))
        self.max_upload_bytes = upload_max_bytes(conf)
        copy_expiration = float(conf.get("nimbus.file.copy.expiration.secs", 600))
        self._uploads = SessionMap(copy_expiration, clock, on_expire=self._expired)
        self._downloads = DownloadSessions(
            int(conf.get("storm.blobstore.inputstream.buffer.size.bytes") or 65536),
            copy_expiration, clock,
            missing="Could not find input stream for id %r: the download finished, was idle "
                    "too long, or never began; call beginFileDownload again")
        self._lock = threading.Lock()
        self._finished = {}      # location -> time finished (seconds)
        self._downloadable = {}  # name -> path on nimbus's disk, registered by nimbus itself
        os.makedirs(self.dir, exist_ok=True)
        self._recover()

    def _recover(self):
        for name in os.listdir(self.dir):
            path = os.path.join(self.dir, name)
            if name.endswith(PART_SUFFIX) and _JAR_NAME.fullmatch(name[:-len(PART_SUFFIX)]):
                log.info("Inbox: removing %s, an upload interrupted by a restart", name)
                os.unlink(path)
            elif _JAR_NAME.fullmatch(name) and os.path.isfile(path):
                self._finished[path] = os.path.getmtime(path)

    def _expired(self, upload):
        log.info("Inbox: upload to %s timed out after %d bytes", upload.location, upload.size)
        upload.abandon()

    # -- uploads -----------------------------------------------------------------------------

    def begin_upload(self):
        """Port of ``beginFileUpload``: open a new upload and return its location."""
        location = os.path.join(self.dir, "stormjar-%s.jar" % uuid.uuid4())
        upload = _Upload(location, location + PART_SUFFIX)
        self._uploads.put(location, upload)
        log.info("Uploading file from client to %s", location)
        return location

    def _open_upload(self, location):
        upload = self._uploads.get(location) if isinstance(location, str) else None
        if upload is None:
            if isinstance(location, str) and self.is_finished(location):
                raise UnknownUploadLocationError(
                    "File for that location does not exist (or timed out): the upload to %r "
                    "is already finished; call beginFileUpload to upload another jar" % location)
            raise UnknownUploadLocationError(
                "File for that location does not exist (or timed out): %r is not an open upload;"
                " pass the location beginFileUpload returned, before %d s of inactivity"
                % (location, self._uploads.expiration_secs))
        return upload

    def upload_chunk(self, location, chunk):
        """Port of ``uploadChunk``: append ``chunk`` to the upload at ``location``.

        :raises UnknownUploadLocationError: when ``location`` is not an open upload.
        :raises UploadTooLargeError: when the jar would grow past ``pynimbus.upload.max.bytes``
            (the upload is then abandoned).
        """
        upload = self._open_upload(location)
        try:
            upload.append(chunk, self.max_upload_bytes)
        except UploadTooLargeError:
            self._uploads.pop(location)
            upload.abandon()
            log.warning("Inbox: upload to %s abandoned at %d bytes: over "
                        "pynimbus.upload.max.bytes (%d)", location, upload.size,
                        self.max_upload_bytes)
            raise

    def finish_upload(self, location):
        """Port of ``finishFileUpload``: close the upload; the jar is then at ``location``.

        :raises UnknownUploadLocationError: when ``location`` is not an open upload.
        """
        upload = self._open_upload(location)
        upload.finish()
        with self._lock:
            self._finished[upload.location] = self.clock()
        self._uploads.pop(location)
        log.info("Finished uploading file from client: %s (%d bytes)", location, upload.size)

    def is_finished(self, location):
        """True when ``location`` is a finished upload still in the inbox."""
        with self._lock:
            return location in self._finished

    def uploaded_jar_path(self, location):
        """The path of the finished jar uploaded to ``location`` (for ``submitTopology``).

        :raises UnknownUploadLocationError: when ``location`` is not a finished upload here.
        """
        if not isinstance(location, str) or not self.is_finished(location):
            raise UnknownUploadLocationError(
                "Uploaded jar %r is not in nimbus's inbox: upload it with beginFileUpload, "
                "uploadChunk and finishFileUpload, and submit within %d s"
                % (location, self.jar_expiration_secs))
        return location

    def remove(self, location):
        """Delete the finished jar at ``location`` (e.g. once it is in the blob store)."""
        with self._lock:
            known = self._finished.pop(location, None) is not None
        if known:
            try:
                os.unlink(location)
            except FileNotFoundError:
                pass

    def expire(self, now=None):
        """Close uploads and downloads idle longer than their expiration; return how many."""
        return len(self._uploads.expire(now)) + len(self._downloads.expire(now))

    def clean_inbox(self, now=None):
        """Port of ``clean-inbox``: delete finished jars at least
        ``nimbus.inbox.jar.expiration.secs`` old; return their locations."""
        now = self.clock() if now is None else now
        with self._lock:
            old = [location for location, finished in self._finished.items()
                   if finished + self.jar_expiration_secs <= now]
            for location in old:
                del self._finished[location]
        for location in old:
            try:
                os.unlink(location)
                log.info("Cleaning inbox ... deleted: %s", os.path.basename(location))
            except FileNotFoundError:
                pass
            except OSError as e:
                log.error("Cleaning inbox ... error deleting %s: %s", location, e)
        return old

    # -- downloads ---------------------------------------------------------------------------

    def register_download(self, name, path):
        """Let ``beginFileDownload(name)`` send the file at ``path`` (nimbus's own files)."""
        with self._lock:
            self._downloadable[name] = path

    def unregister_download(self, name):
        with self._lock:
            self._downloadable.pop(name, None)

    def _path_for(self, name):
        with self._lock:
            if name in self._downloadable:
                return self._downloadable[name]
            if name in self._finished:
                return name
        return None

    def can_download(self, name):
        """True when :meth:`begin_download` knows ``name``."""
        return isinstance(name, str) and self._path_for(name) is not None

    def begin_download(self, name):
        """Port of ``beginFileDownload`` for files: a finished upload's location or a name
        given to :meth:`register_download`.  Returns the download id.

        :raises UnknownFileError: for any other name.
        """
        path = self._path_for(name) if isinstance(name, str) else None
        if path is None:
            raise UnknownFileError(
                "File %r is not known to nimbus: beginFileDownload accepts a blob key or a "
                "location from a finished beginFileUpload" % (name,))
        try:
            reader = ReopeningReader(path)
        except FileNotFoundError:
            raise UnknownFileError("File %r is no longer on nimbus (cleaned up)" % (name,))
        return self._downloads.begin(reader)

    def begin_download_of(self, reader):
        """Start a download of an already open reader (``read(n)``, ``close()``); return its
        id.  The files handler uses it for blob keys."""
        return self._downloads.begin(reader)

    def download_chunk(self, download_id):
        """Port of ``downloadChunk``: the next chunk, ``b""`` at the end (which ends it).

        :raises UnknownSessionError: for an id that is not an open download.
        """
        return self._downloads.next_chunk(download_id)

    def close(self):
        """Abandon open uploads and close downloads (for shutdown)."""
        self._uploads.close_all()
        self._downloads.close_all()
