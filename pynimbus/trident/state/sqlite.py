"""A map state in an SQLite file, shared by the workers of one host (pure: only sqlite3).

Ours, built as Storm's database-backed map states are (storm-redis', storm-hbase'...): a
backing map storing Storm's JSON serializers' bytes per key, under a
:class:`~pynimbus.trident.state.maps.TransactionalMap`, an
:class:`~pynimbus.trident.state.maps.OpaqueMap` or a
:class:`~pynimbus.trident.state.maps.NonTransactionalMap`, in a
:class:`~pynimbus.trident.state.maps.SnapshottableMap` as 1.2.4
``trident/testing/MemoryMapState`` is.
"""

import os
import re
import sqlite3

from pynimbus.clojure_port.java_json import to_json
from pynimbus.trident.state.base import IBackingMap, StateFactory, StateType
from pynimbus.trident.state.maps import (
    NonTransactionalMap, OpaqueMap, SnapshottableMap, TransactionalMap)
from pynimbus.trident.state.serializers import (
    JSONNonTransactionalSerializer, JSONOpaqueSerializer, JSONTransactionalSerializer,
    require_json)

BUSY_TIMEOUT_SECS = 30.0
# Keys per SELECT: below SQLite's smallest limit on bound parameters (999 before 3.32).
GET_CHUNK = 500

_TABLE_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")


class SQLiteBackingMap(IBackingMap):
    """An :class:`~pynimbus.trident.state.base.IBackingMap` over a table ``(key TEXT PRIMARY
    KEY, value BLOB)`` of an SQLite file: the key is its JSON text (``["a",1]``), the value the
    serializer's bytes.

    Several processes may open the file: it is put in WAL mode (readers do not wait for the
    writer) and each connection waits up to ``busy_timeout_secs`` for a lock.  Each
    ``multi_put`` is one transaction, begun IMMEDIATE (the write lock taken first, so two
    writers never deadlock upgrading a read lock).  One transaction per put rather than per
    batch: the map states above call ``multi_put`` between ``begin_commit`` and ``commit``
    without telling the backing map, and they need no more, since the txid stored with each
    value makes a replayed batch come out the same whether or not the first try's writes are
    there; a short transaction also holds the file's one write lock briefly, while the other
    partitions' tasks wait for it.  A ``multi_get`` reads in one transaction, so it sees one
    snapshot.

    WAL needs shared memory between the processes: one host's workers, not a network share.
    """

    def __init__(self, path, table, serializer, busy_timeout_secs=BUSY_TIMEOUT_SECS):
        if not _TABLE_NAME.match(table):
            raise ValueError("SQLite table name must be letters, digits and _ (not starting "
                             "with a digit): %r" % (table,))
        self.path = path
        self.table = table
        self.serializer = serializer
        try:
            # autocommit: transactions are begun here, explicitly
            self.connection = sqlite3.connect(path, timeout=busy_timeout_secs,
                                              isolation_level=None, check_same_thread=False)
            self.connection.execute("PRAGMA journal_mode=WAL")
            self.connection.execute('CREATE TABLE IF NOT EXISTS "%s" '
                                    '(key TEXT PRIMARY KEY, value BLOB NOT NULL)' % table)
        except sqlite3.Error as e:
            raise sqlite3.OperationalError(
                "cannot open the Trident state %s: %s" % (path, e)) from e

    def close(self):
        self.connection.close()

    def multi_get(self, keys):
        texts = [self._key_text(key) for key in keys]
        found = {}
        cursor = self.connection.cursor()
        cursor.execute("BEGIN")
        try:
            unique = list(dict.fromkeys(texts))
            for start in range(0, len(unique), GET_CHUNK):
                chunk = unique[start:start + GET_CHUNK]
                cursor.execute('SELECT key, value FROM "%s" WHERE key IN (%s)'
                               % (self.table, ",".join("?" * len(chunk))), chunk)
                found.update(cursor.fetchall())
        finally:
            cursor.execute("COMMIT")
        return [None if text not in found else self.serializer.deserialize(found[text])
                for text in texts]

    def multi_put(self, keys, values):
        # Serialized before the transaction: a value that is not JSON writes nothing.
        rows = [(self._key_text(key), sqlite3.Binary(self.serializer.serialize(value)))
                for key, value in zip(keys, values)]
        if not rows:
            return
        cursor = self.connection.cursor()
        cursor.execute("BEGIN IMMEDIATE")
        try:
            cursor.executemany('INSERT OR REPLACE INTO "%s" (key, value) VALUES (?, ?)'
                               % self.table, rows)
        except BaseException:
            cursor.execute("ROLLBACK")
            raise
        cursor.execute("COMMIT")

    @staticmethod
    def _key_text(key):
        require_json(list(key), "key")
        return to_json(list(key))


class SQLiteMapState(object):
    """Map states in an SQLite file: see :class:`SQLiteMapState.Factory`."""

    GLOBAL_KEY = ["$SQLITE-MAP-STATE-GLOBAL$"]

    _BUILDS = {
        StateType.TRANSACTIONAL: (TransactionalMap, JSONTransactionalSerializer),
        StateType.OPAQUE: (OpaqueMap, JSONOpaqueSerializer),
        StateType.NON_TRANSACTIONAL: (NonTransactionalMap, JSONNonTransactionalSerializer),
    }

    class Factory(StateFactory):
        """``SQLiteMapState.Factory(path, kind="transactional", table="trident_state")``.

        ``path``: an absolute path (the factory is made where the topology is planned, the
        states in the workers, whose working directories differ); the file is opened, and
        created, in ``make_state``.  ``kind``: ``"transactional"``, ``"opaque"`` or
        ``"non_transactional"`` (or a :class:`StateType`), which map state is built over the
        file.  Every state of the factory, in any worker of the host, shares the table.

        ``make_state`` returns a :class:`~pynimbus.trident.state.maps.SnapshottableMap` (its
        single value under ``["$SQLITE-MAP-STATE-GLOBAL$"]``) over that map state.

        :raises ValueError: an unknown kind, a relative path or a bad table name.
        """

        def __init__(self, path, kind="transactional", table="trident_state",
                     busy_timeout_secs=BUSY_TIMEOUT_SECS):
            try:
                self.kind = StateType(kind)
            except ValueError:
                raise ValueError(
                    "SQLiteMapState kind must be one of 'transactional', 'opaque' or "
                    "'non_transactional' (a StateType); got %r" % (kind,)) from None
            path = os.fspath(path)
            if not os.path.isabs(path):
                raise ValueError("SQLiteMapState needs an absolute path (the workers' working "
                                 "directories are not the planner's); got %r" % (path,))
            if not _TABLE_NAME.match(table):
                raise ValueError("SQLiteMapState table must be letters, digits and _ (not "
                                 "starting with a digit); got %r" % (table,))
            self.path = path
            self.table = table
            self.busy_timeout_secs = busy_timeout_secs

        def make_state(self, conf, metrics_context, partition_index, num_partitions):
            map_class, serializer_class = SQLiteMapState._BUILDS[self.kind]
            backing = SQLiteBackingMap(self.path, self.table, serializer_class(),
                                       self.busy_timeout_secs)
            return SnapshottableMap(map_class.build(backing), SQLiteMapState.GLOBAL_KEY)
