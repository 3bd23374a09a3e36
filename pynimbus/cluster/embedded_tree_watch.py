# -*- test-case-name: tests.test_read_cache -*-
"""The embedded store's change notice feeding the read cache.

SQLite has no watches; its change counter stands in for them.  ``PRAGMA data_version`` on a
connection of the watch's own changes whenever any other connection (this process's backend,
a supervisor, a worker) commits.  Every ``POLL_SECS`` the :class:`TreeWatch` thread looks at
it, and when it moved, reads the signature of each cached node (creation time, data version,
size) in one read transaction and fetches the bytes of those whose signature changed; nodes
missing from the signatures are dropped.  A write barrier (:meth:`TreeWatch.refresh`) does the
same at once.  Each poll also purges the ephemeral nodes of dead sessions, which the
backend otherwise does only when it is used.
"""

import os
import sqlite3

from pynimbus.cluster.embedded_backend import DB_NAME
from pynimbus.cluster.tree_watch import TreeWatch

# How often the change counter is looked at (a local pragma: microseconds).
POLL_SECS = 0.1


class EmbeddedTreeWatch(TreeWatch):
    """Keeps ``mirror`` current from the SQLite store of ``backend`` (an EmbeddedBackend)."""

    period_secs = POLL_SECS

    def __init__(self, backend, mirror, subtrees):
        super().__init__(mirror, subtrees, name="read-cache-embedded")
        self._backend = backend
        self._db_path = os.path.join(backend.directory, DB_NAME)
        self._root = backend.root
        self._db = None
        self._data_version = None
        self._signatures = {}  # relative path -> (ctime_ms, version, size)

    def close(self):
        super().close()
        if self._db is not None:
            self._db.close()
            self._db = None

    def _connection(self):
        if self._db is None:
            self._db = sqlite3.connect(self._db_path, isolation_level=None,
                                       check_same_thread=False)
        return self._db

    def _resync(self):
        self._signatures = {}
        self._diff(replace=True)

    def _process(self, _batch):
        self._diff()

    def _periodic(self):
        # queries no longer touch the store: purge dead sessions here, so that a killed
        # supervisor's node still vanishes at once
        self._backend.purge_dead_sessions()
        version = self._connection().execute("PRAGMA data_version").fetchone()[0]
        if version != self._data_version:
            self._diff()

    def _diff(self, replace=False):
        """Read the signatures of every cached node and the bytes of the changed ones."""
        db = self._connection()
        self._data_version = db.execute("PRAGMA data_version").fetchone()[0]
        db.execute("BEGIN")
        try:
            per_root = {root: self._read_root(db, root) for root in self.subtrees}
        finally:
            db.execute("COMMIT")
        for root, (signatures, upserts) in per_root.items():
            gone = [p for p in self._signatures
                    if (p == root or p.startswith(root + "/")) and p not in signatures]
            for path in gone:
                del self._signatures[path]
            self._signatures.update(signatures)
            if replace:
                self.mirror.replace_tree(root, upserts)
            else:
                self.mirror.apply(upserts=upserts, deletes=gone)
            # the store lists children by name
            for parent in {p.rsplit("/", 1)[0] for p in list(upserts) + gone}:
                self.mirror.set_children_order(parent,
                                               sorted(self.mirror.known_children(parent)))

    def _read_root(self, db, root):
        abs_root = self._root + root
        rows = db.execute(
            "SELECT path, ctime_ms, version, length(data) FROM znodes "
            "WHERE path = ? OR (path >= ? AND path < ?)",
            (abs_root, abs_root + "/", abs_root + "0")).fetchall()
        cut = len(self._root)
        signatures = {path[cut:]: tuple(rest) for path, *rest in rows}
        changed = [p for p, s in signatures.items() if self._signatures.get(p) != s]
        upserts = {}
        for path in changed:
            row = db.execute("SELECT data FROM znodes WHERE path = ?",
                             (self._root + path,)).fetchone()
            upserts[path] = bytes(row[0])
        return signatures, upserts
