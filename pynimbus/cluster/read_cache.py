# -*- test-case-name: tests.test_read_cache -*-
"""Nimbus's read cache: an in-memory mirror of the subtrees its queries read.

Issue 11: ``getClusterInfo``, the UI page calls and the monitor read ``/storms``,
``/assignments``, ``/supervisors``, ``/workerbeats``, ``/errors``, ``/nimbuses`` and
``/blobstore`` many times a call; on a
large cluster those reads cost more than the rest of the call.  The mirror holds those subtrees
as the store does (path to bytes, and each node's children), and decodes a node's value at most
once per change of its bytes.

This module is pure: it never reads the store.  The watch plumbing (:mod:`.tree_watch`) feeds it
what it reads after each ZooKeeper watch event (or the embedded store's change notice) through
:meth:`TreeMirror.apply` and :meth:`TreeMirror.replace_tree`, and marks it unavailable while
the store cannot be reached, so that a query fails saying so instead of answering from a mirror
that may be out of date.  Entries are removed with their nodes: memory follows the cluster's
size.
"""

import threading

from pynimbus.cluster import paths
from pynimbus.cluster.backend import ConnectionLostError
from pynimbus.cluster.serialization import deserialize

# The subtrees the mirror holds, with the depth of their deepest nodes below the subtree root:
# /errors/<id>/<component>/e<seq> is three levels down.  /nimbuses and /blobstore (which
# nimbus holds each blob: replication counts) are read by getClusterInfo and the topology
# calls too.
CACHED_SUBTREES = {
    paths.STORMS_SUBTREE: 1,
    paths.ASSIGNMENTS_SUBTREE: 1,
    paths.SUPERVISORS_SUBTREE: 1,
    paths.WORKERBEATS_SUBTREE: 2,
    paths.ERRORS_SUBTREE: 3,
    paths.NIMBUSES_SUBTREE: 1,
    paths.BLOBSTORE_SUBTREE: 2,
}


def cached_subtree(path):
    """The cached subtree root holding ``path`` (the root itself included), or None."""
    end = path.find("/", 1)
    root = path if end < 0 else path[:end]
    return root if root in CACHED_SUBTREES else None


def _depth(path):
    return path.count("/")


def depth_below(root, path):
    """How many levels ``path`` is below ``root`` (0 for the root itself)."""
    return 0 if path == root else path.count("/") - root.count("/")


class TreeMirror:
    """Path to bytes and path to child names for the cached subtrees, with decoded values.

    Thread-safe: the watch plumbing writes from its thread while queries read from theirs.
    The values handed out are shared between callers: they must not be mutated.
    """

    def __init__(self):
        self._lock = threading.Lock()
        self._data = {}
        self._children = {}
        self._decoded = {}
        self._unavailable = "the read cache has not synchronised with the store yet"
        self._children_listeners = {}  # path -> [callable], told when its children change
        self._versions = dict.fromkeys(CACHED_SUBTREES, 0)  # subtree root -> changes applied

    # -- written by the watch plumbing -------------------------------------------------

    def add_children_listener(self, path, listener):
        """Call ``listener(names)`` (a set) from the watch plumbing's thread whenever the
        child names of ``path`` change, as a ZooKeeper children watch would (a resync
        that finds them unchanged says nothing)."""
        with self._lock:
            self._children_listeners.setdefault(path, []).append(listener)

    def replace_tree(self, root, nodes):
        """Replace everything under ``root`` (itself included) with ``nodes``: path to bytes of
        every node of the subtree as just read."""
        with self._lock:
            before = self._watched_children()
            for path in [p for p in self._data if p == root or p.startswith(root + "/")]:
                self._forget(path)
            for path in sorted(nodes, key=_depth):  # stable: siblings keep their order
                self._put(path, nodes[path])
            self._versions[root] += 1
            told = self._changed_children(before)
        self._tell(told)

    def apply(self, upserts=(), deletes=()):
        """Apply what was read: ``deletes`` (paths gone, with their subtrees), then
        ``upserts`` (path to bytes; a new node joins its parent's children)."""
        with self._lock:
            before = self._watched_children()
            for path in deletes:
                self._delete_subtree(path)
            for path in sorted(upserts, key=_depth):
                self._put(path, upserts[path])
            for root in {cached_subtree(p) for p in list(deletes) + list(upserts)}:
                if root is not None:
                    self._versions[root] += 1
            told = self._changed_children(before)
        self._tell(told)

    def _watched_children(self):
        return {path: set(self._children.get(path, ())) for path in self._children_listeners}

    def _changed_children(self, before):
        told = []
        for path, names in before.items():
            after = set(self._children.get(path, ()))
            if after != names:
                told.extend((listener, after) for listener in self._children_listeners[path])
        return told

    @staticmethod
    def _tell(told):
        for listener, names in told:
            listener(names)

    def set_children_order(self, path, names):
        """List ``path``'s children in the order of ``names`` (the store's listing order:
        ZooKeeper's is its server's hash-set order, which Storm's placement follows)."""
        with self._lock:
            current = self._children.get(path)
            if current is None:
                return
            ordered = dict.fromkeys(n for n in names if n in current)
            ordered.update(current)  # any not in the listing keep their place after
            self._children[path] = ordered

    def set_unavailable(self, reason):
        """From now on reads raise :class:`ConnectionLostError` with ``reason`` (None: serve)."""
        self._unavailable = reason

    def _put(self, path, data):
        old = self._data.get(path)
        if old is None or old != data:  # same bytes again keep their decoded value
            self._decoded.pop(path, None)
            self._data[path] = data
        self._children.setdefault(path, {})
        parent = paths.parent_path(path)
        if parent in self._children or cached_subtree(parent):
            self._children.setdefault(parent, {})[path.rsplit("/", 1)[1]] = None

    def _forget(self, path):
        self._data.pop(path, None)
        self._children.pop(path, None)
        self._decoded.pop(path, None)

    def _delete_subtree(self, path):
        doomed = [path]
        while doomed:
            current = doomed.pop()
            doomed.extend(current + "/" + c for c in self._children.get(current, ()))
            self._forget(current)
        siblings = self._children.get(paths.parent_path(path))
        if siblings is not None:
            siblings.pop(path.rsplit("/", 1)[1], None)

    def known_children(self, path):
        """The child names of ``path`` as mirrored, available or not (for the plumbing)."""
        with self._lock:
            return set(self._children.get(path, ()))

    def known_data(self, path):
        """The bytes of ``path`` as mirrored, available or not (for the plumbing), or None."""
        return self._data.get(path)

    # -- read by StormClusterState -----------------------------------------------------

    def _check_available(self):
        reason = self._unavailable
        if reason is not None:
            raise ConnectionLostError(reason)

    def subtree_version(self, root):
        """A number that changes whenever anything under the cached subtree ``root`` may
        have changed: a reader may keep what it derived from the subtree while it is the
        same."""
        self._check_available()
        return self._versions[root]

    def children(self, path):
        """The child names of ``path`` in the store's listing order ([] when it does not
        exist)."""
        self._check_available()
        with self._lock:
            return list(self._children.get(path, ()))

    def child_count(self, path):
        """How many children ``path`` has (0 when it does not exist), without listing them."""
        self._check_available()
        return len(self._children.get(path, ()))

    def data(self, path):
        """The bytes of ``path``, or None."""
        self._check_available()
        return self._data.get(path)

    def value(self, path, cls):
        """The node's bytes decoded as Thrift ``cls`` (decoded once per change), or None."""
        self._check_available()
        return self._value(path, cls)

    def _value(self, path, cls):
        data = self._data.get(path)
        if data is None:
            return None
        found = self._decoded.get(path)
        if found is not None and found[0] is data:
            return found[1]
        value = deserialize(data, cls)
        with self._lock:
            if self._data.get(path) is data:
                self._decoded[path] = (data, value)
        return value

    def child_values(self, path, cls):
        """``{name: value}`` of the children of ``path`` that hold data, decoded as Thrift
        ``cls``, in the store's listing order: :meth:`value` of each, without building and
        checking a path per child (the names came from the store)."""
        self._check_available()
        with self._lock:
            names = list(self._children.get(path, ()))
        found = {}
        for name in names:
            value = self._value(path + "/" + name, cls)
            if value is not None:
                found[name] = value
        return found

    def __len__(self):
        return len(self._data)
