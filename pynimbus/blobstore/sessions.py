"""Session registries with idle expiry: open uploads, downloads and blob listings; and the
reader downloads use, which holds no open file between chunks (:class:`ReopeningReader`).

Nimbus keeps each kind of session in a ``TimeCacheMap`` (nimbus.clj ``file-cache-map``,
``mk-blob-cache-map``, ``mk-bloblist-cache-map``, 1.2.4): an entry not touched for the
expiration time is dropped, and a callback closes or cancels what it held.  :class:`SessionMap`
does the same with an injected clock.  Expiry is checked on every access and by
:meth:`SessionMap.expire`, which a timer may call; there is no thread of its own.
Deliberate difference: Storm's bucketed map expires an entry between one and about two
expiration times after its last use; ours expires it exactly one expiration time after.
"""

import os
import threading
import time
import uuid

from pynimbus.blobstore.errors import UnknownFileError, UnknownSessionError


def new_session_id():
    """A fresh opaque session id (a random UUID, as Storm's ``Utils.uuid``)."""
    return str(uuid.uuid4())


class SessionMap:
    """Session id to value, forgetting entries idle longer than ``expiration_secs``.

    :param expiration_secs: idle time after which an entry expires.
    :param clock: returns the current time in seconds.
    :param on_expire: called with each expired value (outside the map's lock).
    """

    def __init__(self, expiration_secs, clock=time.time, on_expire=None):
        self.expiration_secs = float(expiration_secs)
        self.clock = clock
        self.on_expire = on_expire
        self._lock = threading.Lock()
        self._entries = {}  # id -> [value, last_used]

    def put(self, session_id, value):
        """Store ``value`` under ``session_id`` (replacing any entry) and mark it used now."""
        self.expire()
        with self._lock:
            self._entries[session_id] = [value, self.clock()]

    def get(self, session_id):
        """The value under ``session_id`` (marking it used now), or None."""
        self.expire()
        with self._lock:
            entry = self._entries.get(session_id)
            if entry is None:
                return None
            entry[1] = self.clock()
            return entry[0]

    def pop(self, session_id):
        """Remove and return the value under ``session_id``, or None."""
        with self._lock:
            entry = self._entries.pop(session_id, None)
        return None if entry is None else entry[0]

    def expire(self, now=None):
        """Drop every entry idle for ``expiration_secs`` or longer; return their ids."""
        now = self.clock() if now is None else now
        with self._lock:
            expired = [(sid, entry[0]) for sid, entry in self._entries.items()
                       if now - entry[1] >= self.expiration_secs]
            for sid, _ in expired:
                del self._entries[sid]
        if self.on_expire is not None:
            for _, value in expired:
                self.on_expire(value)
        return [sid for sid, _ in expired]

    def close_all(self):
        """Drop every entry, passing each value to ``on_expire`` (for shutdown)."""
        with self._lock:
            values = [entry[0] for entry in self._entries.values()]
            self._entries.clear()
        if self.on_expire is not None:
            for value in values:
                self.on_expire(value)

    def __contains__(self, session_id):
        with self._lock:
            return session_id in self._entries

    def __len__(self):
        with self._lock:
            return len(self._entries)


def _close(reader):
    reader.close()


class ReopeningReader:
    """Reads the file at ``path`` on from where the last read stopped, opening it for each
    read, so a download left unfinished holds no file descriptor (clients may leave many).

    :param on_close: called once by :meth:`close` (e.g. to remove a link made for the reader).
    :raises FileNotFoundError: when there is no file at ``path``.
    """

    def __init__(self, path, on_close=None):
        self.path = path
        self.size = os.stat(path).st_size
        self._offset = 0
        self._on_close = on_close
        self._lock = threading.Lock()

    def read(self, size=-1):
        """The next at most ``size`` bytes (all the rest for -1), ``b""`` at the end.

        :raises UnknownFileError: when the file was removed meanwhile.
        """
        with self._lock:
            try:
                with open(self.path, "rb") as f:
                    f.seek(self._offset)
                    data = f.read(size)
            except FileNotFoundError:
                raise UnknownFileError("%s is no longer on nimbus (cleaned up); begin the "
                                       "download again" % os.path.basename(self.path))
            self._offset += len(data)
            return data

    def close(self):
        with self._lock:
            on_close, self._on_close = self._on_close, None
        if on_close is not None:
            on_close()

    def __enter__(self):
        return self

    def __exit__(self, *exc_info):
        self.close()


class DownloadSessions:
    """Readers being sent to clients in chunks (Storm's ``BufferInputStream`` per session).

    :param chunk_size: most bytes per chunk (``storm.blobstore.inputstream.buffer.size.bytes``).
    :param expiration_secs: idle time after which a session is closed.
    :param missing: the message for an unknown id, with one ``%r`` for the id.
    """

    def __init__(self, chunk_size, expiration_secs, clock=time.time,
                 missing="Download session %r does not exist (or timed out)"):
        if int(chunk_size) < 1:
            raise ValueError("chunk size must be at least 1 byte, got %r" % (chunk_size,))
        self.chunk_size = int(chunk_size)
        self.missing = missing
        self._sessions = SessionMap(expiration_secs, clock, on_expire=_close)

    def begin(self, reader):
        """Register an open reader (with ``read(n)`` and ``close()``); return its session id."""
        session_id = new_session_id()
        self._sessions.put(session_id, reader)
        return session_id

    def next_chunk(self, session_id):
        """The next at most ``chunk_size`` bytes; ``b""`` at the end, which ends the session.

        :raises UnknownSessionError: for an id that is not an open session.
        """
        reader = self._sessions.get(session_id)
        if reader is None:
            raise UnknownSessionError(self.missing % (session_id,))
        chunk = reader.read(self.chunk_size)
        if not chunk:
            self._sessions.pop(session_id)
            reader.close()
            return b""
        return bytes(chunk)

    def expire(self, now=None):
        return self._sessions.expire(now)

    def close_all(self):
        self._sessions.close_all()

    def __contains__(self, session_id):
        return session_id in self._sessions

    def __len__(self):
        return len(self._sessions)
