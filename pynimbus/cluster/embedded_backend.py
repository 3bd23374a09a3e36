# -*- test-case-name: tests.test_cluster_backend -*-
"""The embedded cluster-state store: Storm's ZooKeeper tree in SQLite on the local disk.

Used when no ZooKeeper servers are configured, so that Nimbus, supervisors and workers on one
host share state without another service.  It holds the same paths and bytes as the ZooKeeper
backend, and keeps ZooKeeper's rules that the daemons depend on:

* **Persistence and sharing.**  One SQLite database in WAL mode
  (``<dir>/cluster-state.sqlite3``); every write is one ``BEGIN IMMEDIATE`` transaction, so
  several processes on the host read and write it safely and each sees the others' commits.
  ``synchronous=NORMAL``: a killed process loses nothing it committed; a power cut may lose the
  last commits, never the database's consistency.
* **Sessions and ephemeral nodes.**  Each :class:`EmbeddedBackend` instance is a session.  It
  holds an exclusive ``flock`` on ``<dir>/sessions/<session>.lock`` for its whole life and
  records itself in the ``sessions`` table.  The kernel drops the lock when the process dies
  (even by SIGKILL), so a session whose lock another process can take is dead.  Before every
  operation a backend tries the lock of each other recorded session; the ephemeral nodes and
  the record of every dead one are purged, in one transaction.  ``close()`` deletes the
  session's ephemeral nodes itself.  The lock directory must be on a local file system, and a
  session must not be shared with a forked child (the child would keep the lock alive).
* **Sequential nodes** take as a ten-digit suffix the number of children ever created under
  the parent (deletes do not lower it), which is how ZooKeeper numbers them (its stored
  ``cversion``); data versions count from 0 like ZooKeeper's.
* **Root.**  Paths are relative to ``root`` (``storm.zookeeper.root``), like the chroot of the
  ZooKeeper connect string, so one store could hold more than one tree.
"""

import contextlib
import fcntl
import os
import sqlite3
import threading
import time
import uuid

from pynimbus.cluster.backend import (
    Backend, BackendClosedError, NoChildrenForEphemeralsError, NoNodeError, NodeExistsError,
    normalize_root, validate_path)
from pynimbus.cluster.serialization import DIRECTORY_DATA
from pynimbus.common.config import embedded_state_dir

DB_NAME = "cluster-state.sqlite3"
SESSIONS_DIR = "sessions"
SCHEMA_VERSION = "1"

_SCHEMA = (
    """CREATE TABLE IF NOT EXISTS znodes (
           path TEXT PRIMARY KEY,
           parent TEXT NOT NULL,
           name TEXT NOT NULL,
           data BLOB NOT NULL,
           version INTEGER NOT NULL,
           cversion INTEGER NOT NULL,
           owner TEXT,
           ctime_ms INTEGER NOT NULL,
           mtime_ms INTEGER NOT NULL
       ) WITHOUT ROWID""",
    "CREATE INDEX IF NOT EXISTS znodes_by_parent ON znodes (parent)",
    "CREATE INDEX IF NOT EXISTS znodes_by_owner ON znodes (owner) WHERE owner IS NOT NULL",
    """CREATE TABLE IF NOT EXISTS sessions (
           id TEXT PRIMARY KEY,
           pid INTEGER NOT NULL,
           started_ms INTEGER NOT NULL
       )""",
    "CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)",
)


def _now_ms():
    return int(time.time() * 1000)


def _split(abs_path):
    """Return ``(parent, name)`` of an absolute path other than ``/``."""
    parent, _, name = abs_path.rpartition("/")
    return (parent or "/"), name


class EmbeddedBackend(Backend):
    """A session on the SQLite store in ``directory`` (created if missing).

    :param root: the tree's root, as ``storm.zookeeper.root`` (created holding 0x07).
    :param busy_timeout: seconds to wait for another process's write transaction.
    """

    def __init__(self, directory, root="", busy_timeout=30.0):
        self.directory = os.path.abspath(directory)
        self.root = normalize_root(root)
        self.session_id = uuid.uuid4().hex
        self._lock = threading.RLock()
        self._closed = False
        self._peer_locks = {}  # session id -> open lock file of a session we have seen
        sessions_dir = os.path.join(self.directory, SESSIONS_DIR)
        os.makedirs(sessions_dir, exist_ok=True)
        self._lock_path = self._session_lock_path(self.session_id)
        self._lock_file = open(self._lock_path, "xb")
        fcntl.flock(self._lock_file.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
        try:
            self._db = sqlite3.connect(os.path.join(self.directory, DB_NAME),
                                       timeout=busy_timeout, isolation_level=None,
                                       check_same_thread=False)
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute("PRAGMA synchronous=NORMAL")
            with self._transaction(reap=False) as db:
                for statement in _SCHEMA:
                    db.execute(statement)
                db.execute("INSERT OR IGNORE INTO meta VALUES ('schema', ?)", (SCHEMA_VERSION,))
                now = _now_ms()
                db.execute("INSERT OR IGNORE INTO znodes "
                           "VALUES ('/', '', '', x'', 0, 0, NULL, ?, ?)", (now, now))
                db.execute("INSERT INTO sessions VALUES (?, ?, ?)",
                           (self.session_id, os.getpid(), now))
                self._reap(db, in_transaction=True)
                if self.root:
                    self._mkdirs_abs(db, self.root, DIRECTORY_DATA)
        except BaseException:
            self._release_own_lock()
            raise

    @classmethod
    def from_conf(cls, conf):
        """Open the store of ``conf``: ``embedded_state_dir(conf)``, ``storm.zookeeper.root``."""
        return cls(embedded_state_dir(conf), root=conf.get("storm.zookeeper.root", ""))

    def __repr__(self):
        return "EmbeddedBackend(%r, root=%r, session=%s)" % (self.directory, self.root,
                                                             self.session_id)

    def open_tree_watch(self, mirror, subtrees):
        """An :class:`~.embedded_tree_watch.EmbeddedTreeWatch` keeping ``mirror`` current."""
        from pynimbus.cluster.embedded_tree_watch import EmbeddedTreeWatch
        return EmbeddedTreeWatch(self, mirror, subtrees)

    def purge_dead_sessions(self):
        """Purge the ephemeral nodes of sessions whose process died, as every operation does
        first (the read cache calls it while nothing else touches the store)."""
        with self._read():
            pass

    # Sessions

    def _session_lock_path(self, session_id):
        return os.path.join(self.directory, SESSIONS_DIR, session_id + ".lock")

    def _release_own_lock(self):
        try:
            os.unlink(self._lock_path)
        except FileNotFoundError:
            pass
        self._lock_file.close()  # drops the flock

    def _dead_sessions(self, session_ids):
        """Return the sessions among ``session_ids`` whose owner is gone (we hold their locks)."""
        dead = []
        for sid in session_ids:
            f = self._peer_locks.get(sid)
            if f is None:
                try:
                    f = open(self._session_lock_path(sid), "rb")
                except FileNotFoundError:
                    dead.append(sid)  # recorded but without a lock file: nobody can hold it
                    continue
                self._peer_locks[sid] = f
            try:
                fcntl.flock(f.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                continue  # its owner holds it: alive
            dead.append(sid)
        return dead

    def _forget_peer(self, sid, unlink=False):
        f = self._peer_locks.pop(sid, None)
        if unlink:
            try:
                os.unlink(self._session_lock_path(sid))
            except FileNotFoundError:
                pass
        if f is not None:
            f.close()

    def _reap(self, db, in_transaction):
        """Purge the ephemeral nodes of dead sessions.

        Outside a transaction, opens a write transaction only when a dead session is found.
        """
        rows = db.execute("SELECT id FROM sessions WHERE id != ?", (self.session_id,)).fetchall()
        live_ids = {r[0] for r in rows}
        for sid in [s for s in self._peer_locks if s not in live_ids]:
            self._forget_peer(sid)  # closed normally since we last looked
        dead = self._dead_sessions(sorted(live_ids))
        if not dead:
            return
        try:
            if in_transaction:
                self._purge_sessions(db, dead)
            else:
                with self._transaction(reap=False) as tx:
                    self._purge_sessions(tx, dead)
        finally:
            for sid in dead:
                self._forget_peer(sid, unlink=True)

    def _purge_sessions(self, db, session_ids):
        for sid in session_ids:
            self._delete_owned(db, sid)
            db.execute("DELETE FROM sessions WHERE id = ?", (sid,))

    def _delete_owned(self, db, session_id):
        owned = db.execute("SELECT path FROM znodes WHERE owner = ?", (session_id,)).fetchall()
        for (path,) in owned:
            self._delete_abs(db, path)

    # Transactions

    def _check_open(self):
        if self._closed:
            raise BackendClosedError("the embedded cluster-state session is closed")

    @contextlib.contextmanager
    def _transaction(self, reap=True):
        """One write transaction, after purging dead sessions (unless ``reap`` is false)."""
        with self._lock:
            db = self._db
            db.execute("BEGIN IMMEDIATE")
            try:
                if reap:
                    self._reap(db, in_transaction=True)
                yield db
            except BaseException:
                db.execute("ROLLBACK")
                raise
            db.execute("COMMIT")

    @contextlib.contextmanager
    def _write(self):
        with self._lock:
            self._check_open()
            with self._transaction() as db:
                yield db

    @contextlib.contextmanager
    def _read(self):
        with self._lock:
            self._check_open()
            self._reap(self._db, in_transaction=False)
            yield self._db

    # Paths

    def _abs(self, path):
        validate_path(path)
        if path == "/":
            return self.root or "/"
        return self.root + path

    def _rel(self, abs_path):
        if not self.root:
            return abs_path
        return abs_path[len(self.root):] or "/"

    # Node operations on absolute paths, inside a transaction

    def _node(self, db, abs_path, columns="1"):
        return db.execute("SELECT %s FROM znodes WHERE path = ?" % columns, (abs_path,)).fetchone()

    def _insert(self, db, abs_path, data, owner):
        parent, name = _split(abs_path)
        now = _now_ms()
        db.execute("INSERT INTO znodes VALUES (?, ?, ?, ?, 0, 0, ?, ?, ?)",
                   (abs_path, parent, name, data, owner, now, now))
        db.execute("UPDATE znodes SET cversion = cversion + 1 WHERE path = ?", (parent,))

    def _mkdirs_abs(self, db, abs_path, data):
        missing = []
        p = abs_path
        while p != "/" and self._node(db, p) is None:
            missing.append(p)
            p = _split(p)[0]
        if missing and self._node(db, p, "owner")[0] is not None:
            raise NoChildrenForEphemeralsError("cannot create %s under an ephemeral node"
                                               % self._rel(missing[-1]))
        for p in reversed(missing):
            self._insert(db, p, data, None)

    def _create_abs(self, db, abs_path, data, ephemeral, sequential, makepath):
        parent, _ = _split(abs_path)
        row = self._node(db, parent, "owner, cversion")
        if row is None:
            if not makepath:
                raise NoNodeError("cannot create %s: parent %s does not exist"
                                  % (self._rel(abs_path), self._rel(parent)))
            self._mkdirs_abs(db, parent, DIRECTORY_DATA)
            row = self._node(db, parent, "owner, cversion")
        owner, cversion = row
        if owner is not None:
            raise NoChildrenForEphemeralsError("cannot create %s under the ephemeral node %s"
                                               % (self._rel(abs_path), self._rel(parent)))
        if sequential:
            abs_path += "%010d" % cversion
        if self._node(db, abs_path) is not None:
            raise NodeExistsError("node %s already exists" % self._rel(abs_path))
        self._insert(db, abs_path, data, self.session_id if ephemeral else None)
        return abs_path

    def _set_abs(self, db, abs_path, data):
        cursor = db.execute(
            "UPDATE znodes SET data = ?, version = version + 1, mtime_ms = ? WHERE path = ?",
            (data, _now_ms(), abs_path))
        if cursor.rowcount == 0:
            raise NoNodeError("node %s does not exist" % self._rel(abs_path))

    def _delete_abs(self, db, abs_path):
        if self._node(db, abs_path) is None:
            return
        # Every descendant sorts between "<path>/" and "<path>0" ('0' follows '/').
        db.execute("DELETE FROM znodes WHERE path = ? OR (path >= ? AND path < ?)",
                   (abs_path, abs_path + "/", abs_path + "0"))

    # The Backend interface

    def create(self, path, data=b"", ephemeral=False, sequential=False, makepath=False):
        abs_path = self._abs(path)
        data = b"" if data is None else bytes(data)
        if path == "/":
            raise NodeExistsError("node / already exists")
        with self._write() as db:
            created = self._create_abs(db, abs_path, data, ephemeral, sequential, makepath)
        return self._rel(created)

    def set(self, path, data):
        abs_path = self._abs(path)
        data = b"" if data is None else bytes(data)
        with self._write() as db:
            self._set_abs(db, abs_path, data)

    def get(self, path):
        abs_path = self._abs(path)
        with self._read() as db:
            row = self._node(db, abs_path, "data")
        return None if row is None else bytes(row[0])

    def get_many(self, paths):
        """All reads in one read transaction."""
        abs_paths = [self._abs(path) for path in paths]
        with self._read() as db:
            rows = [self._node(db, abs_path, "data") for abs_path in abs_paths]
        return [None if row is None else bytes(row[0]) for row in rows]

    def get_with_version(self, path):
        abs_path = self._abs(path)
        with self._read() as db:
            row = self._node(db, abs_path, "data, version")
        return None if row is None else (bytes(row[0]), row[1])

    def get_children(self, path):
        abs_path = self._abs(path)
        with self._read() as db:
            db.execute("BEGIN")
            try:
                if self._node(db, abs_path) is None:
                    raise NoNodeError("node %s does not exist" % path)
                rows = db.execute("SELECT name FROM znodes WHERE parent = ? ORDER BY name",
                                  (abs_path,)).fetchall()
            finally:
                db.execute("COMMIT")
        return [r[0] for r in rows]

    def exists(self, path):
        abs_path = self._abs(path)
        with self._read() as db:
            return self._node(db, abs_path) is not None

    def delete(self, path):
        abs_path = self._abs(path)
        if path == "/":
            raise ValueError("the root node cannot be deleted")
        with self._write() as db:
            self._delete_abs(db, abs_path)

    def mkdirs(self, path, data=DIRECTORY_DATA):
        abs_path = self._abs(path)
        data = b"" if data is None else bytes(data)
        with self._write() as db:
            self._mkdirs_abs(db, abs_path, data)

    def set_data(self, path, data):
        """One-transaction port of ``set-data`` (see :meth:`Backend.set_data`)."""
        abs_path = self._abs(path)
        data = b"" if data is None else bytes(data)
        if path == "/":
            raise ValueError("the root node holds no data")
        with self._write() as db:
            if self._node(db, abs_path) is not None:
                self._set_abs(db, abs_path, data)
            else:
                self._mkdirs_abs(db, _split(abs_path)[0], DIRECTORY_DATA)
                self._create_abs(db, abs_path, data, False, False, False)

    def set_ephemeral_node(self, path, data):
        """One-transaction port of ``set-ephemeral-node`` (:meth:`Backend.set_ephemeral_node`)."""
        abs_path = self._abs(path)
        data = b"" if data is None else bytes(data)
        if path == "/":
            raise ValueError("the root node cannot be ephemeral")
        with self._write() as db:
            self._mkdirs_abs(db, _split(abs_path)[0], DIRECTORY_DATA)
            if self._node(db, abs_path) is not None:
                self._set_abs(db, abs_path, data)
            else:
                self._create_abs(db, abs_path, data, True, False, False)

    def close(self):
        with self._lock:
            if self._closed:
                return
            self._closed = True
            try:
                with self._transaction(reap=False) as db:
                    self._delete_owned(db, self.session_id)
                    db.execute("DELETE FROM sessions WHERE id = ?", (self.session_id,))
            finally:
                self._db.close()
                for sid in list(self._peer_locks):
                    self._forget_peer(sid)
                self._release_own_lock()
