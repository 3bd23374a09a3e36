# -*- test-case-name: tests.test_cluster_backend -*-
"""The storage interface under :class:`~pynimbus.cluster.state.StormClusterState`.

A backend is a ZooKeeper-like tree of nodes, each with bytes of data, a data version, and a
kind (persistent or ephemeral, optionally sequential).  One backend instance is one session:
its ephemeral nodes vanish when it closes or its process dies.  Two implementations hold the
same paths and bytes: :mod:`~pynimbus.cluster.zk_backend` (kazoo on a real ZooKeeper) and
:mod:`~pynimbus.cluster.embedded_backend` (SQLite on the local disk).

The primitives are synchronous and thread-safe; a Twisted caller runs them with
``deferToThread``.  The helpers at the end of :class:`Backend` (``set_data``,
``set_ephemeral_node``, ``delete_node_with_prefix``) are ports of Storm's ``ClusterState``
operations composed from the primitives, like kazoo's recipes on its public client.
"""

import abc
import re

from pynimbus.cluster import paths
from pynimbus.cluster.serialization import DIRECTORY_DATA


class ClusterStateError(Exception):
    """A cluster-state operation failed; subclasses say why."""


class NoNodeError(ClusterStateError):
    """The node (or, for a create, its parent) does not exist (ZooKeeper NONODE)."""


class NodeExistsError(ClusterStateError):
    """A create found the node already there (ZooKeeper NODEEXISTS)."""


class NoChildrenForEphemeralsError(ClusterStateError):
    """A create under an ephemeral node (ZooKeeper NOCHILDRENFOREPHEMERALS)."""


class BackendClosedError(ClusterStateError):
    """The backend was closed (its session is over)."""


class ConnectionLostError(ClusterStateError):
    """The store could not be reached in time (ZooKeeper connection loss or timeout)."""


# Characters ZooKeeper's PathUtils.validatePath refuses inside a path (one regex: this runs
# on every backend call).
_BAD_PATH_CHAR = re.compile("[\x00-\x1f\x7f-\x9f\ud800-\uf8ff\ufff0-\uffff]")


def validate_path(path):
    """Return ``path`` if ZooKeeper would accept it as an absolute node path.

    Mirrors ZooKeeper's ``PathUtils.validatePath`` so both backends refuse the same paths.

    :raises ValueError: for a non-string, a path not starting with ``/``, a trailing ``/``,
        an empty segment, a ``.`` or ``..`` segment, or a character ZooKeeper forbids.
    """
    if not isinstance(path, str):
        raise ValueError("path must be a string, not %s" % type(path).__name__)
    if not path.startswith("/"):
        raise ValueError("path %r must start with '/'" % path)
    if path == "/":
        return path
    if path.endswith("/"):
        raise ValueError("path %r must not end with '/'" % path)
    for segment in path[1:].split("/"):
        if not segment:
            raise ValueError("path %r has an empty segment" % path)
        if segment in (".", ".."):
            raise ValueError("path %r has a relative segment %r" % (path, segment))
    bad = _BAD_PATH_CHAR.search(path)
    if bad:
        raise ValueError("path %r contains the forbidden character %r" % (path, bad.group()))
    return path


def normalize_root(root):
    """Return ``storm.zookeeper.root`` as an absolute path without trailing ``/`` ("" for none)."""
    if root in (None, "", "/"):
        return ""
    root = "/" + "/".join(t for t in str(root).split("/") if t)
    validate_path(root)
    return root


class Backend(abc.ABC):
    """A ZooKeeper-like session on a tree of nodes.

    Paths are absolute (``/storms/x``) and relative to the backend's root (Storm's chroot).
    Data is ``bytes``; a node created with ``None`` data holds ``b""``.
    """

    # Connection states passed to connection listeners.
    CONNECTED = "connected"
    SUSPENDED = "suspended"
    LOST = "lost"

    @abc.abstractmethod
    def create(self, path, data=b"", ephemeral=False, sequential=False, makepath=False):
        """Create a node and return its path (with the sequence suffix if ``sequential``).

        A sequential node's name is ``path``'s last segment followed by ten digits: the
        number of children created under the parent before it, as ZooKeeper numbers them.
        With ``makepath``, missing parents are created as persistent nodes holding
        ``DIRECTORY_DATA``.

        :raises NodeExistsError: when the node exists (never for ``sequential``).
        :raises NoNodeError: when the parent is missing and ``makepath`` is false.
        :raises NoChildrenForEphemeralsError: when the parent is ephemeral.
        :raises ValueError: for an invalid path.
        """

    @abc.abstractmethod
    def set(self, path, data):
        """Replace the data of an existing node and bump its version.

        :raises NoNodeError: when the node does not exist.
        """

    @abc.abstractmethod
    def get(self, path):
        """Return the node's data, or None when the node does not exist."""

    def get_many(self, paths):
        """Return the data of each node of ``paths`` (None where it does not exist), in order.

        Backends override this to read in one batch (pipelined requests, one transaction).
        """
        return [self.get(path) for path in paths]

    @abc.abstractmethod
    def get_with_version(self, path):
        """Return ``(data, version)`` of the node, or None when it does not exist.

        The version counts the node's data changes, starting at 0 on create.
        """

    @abc.abstractmethod
    def get_children(self, path):
        """Return the names of the node's children (order unspecified).

        :raises NoNodeError: when the node does not exist.
        """

    @abc.abstractmethod
    def exists(self, path):
        """Return True when the node exists."""

    @abc.abstractmethod
    def delete(self, path):
        """Delete the node and everything under it; do nothing when it does not exist.

        :raises ValueError: for the root ``/``.
        """

    @abc.abstractmethod
    def close(self):
        """End the session: its ephemeral nodes are deleted.  Idempotent."""

    def sync(self, path):
        """Make this session's next read of ``path`` see every write committed before."""

    def add_connection_listener(self, listener):
        """Call ``listener(state)`` from a separate thread on each connection state change.

        ``state`` is :attr:`CONNECTED` (after a reconnect), :attr:`SUSPENDED` or :attr:`LOST`
        (the session expired: its ephemeral nodes are gone).  A backend that cannot lose its
        connection never calls it.
        """

    def open_tree_watch(self, mirror, subtrees):
        """A :class:`~.tree_watch.TreeWatch` (not started) keeping the read cache ``mirror``
        current for ``subtrees`` from this session's store.

        :raises NotImplementedError: for a backend that cannot notice changes.
        """
        raise NotImplementedError("%s cannot keep a read cache" % type(self).__name__)

    def mkdirs(self, path, data=DIRECTORY_DATA):
        """Port of zookeeper.clj ``mkdirs``: create ``path`` and missing parents holding ``data``.

        Existing nodes are left as they are; a concurrent creator is not an error.
        """
        validate_path(path)
        if path == "/" or self.exists(path):
            return
        self.mkdirs(paths.parent_path(path), data)
        try:
            self.create(path, data)
        except NodeExistsError:
            pass

    # Ports of zookeeper_state_factory.clj's ClusterState operations.

    def set_data(self, path, data):
        """Port of ``set-data``: set when the node exists, else mkdirs the parent and create it."""
        validate_path(path)
        if self.exists(path):
            try:
                self.set(path, data)
                return
            except NoNodeError:
                pass  # deleted meanwhile: create it below
        self.mkdirs(paths.parent_path(path))
        try:
            self.create(path, data)
        except NodeExistsError:
            self.set(path, data)

    def set_ephemeral_node(self, path, data):
        """Port of ``set-ephemeral-node``: mkdirs the parent, then set or create ephemeral.

        As in Storm, an existing node keeps its owner: only its data changes.
        """
        validate_path(path)
        self.mkdirs(paths.parent_path(path))
        if self.exists(path):
            try:
                self.set(path, data)
                return
            except NoNodeError:
                pass  # vanished between the check and the set
        self.create(path, data, ephemeral=True)

    def delete_leaf(self, path):
        """:meth:`delete` of a node the caller believes has no children: a store that can
        does it in one request (else, or when it has children after all, as :meth:`delete`)."""
        self.delete(path)

    def delete_node_with_prefix(self, parent, prefix):
        """Port of zookeeper.clj ``delete-node-blobstore``: delete children named ``prefix...``."""
        try:
            children = self.get_children(parent)
        except NoNodeError:
            return
        for child in children:
            if child.startswith(prefix):
                self.delete(paths.join_path(parent, child))

    def __enter__(self):
        return self

    def __exit__(self, *exc_info):
        self.close()
