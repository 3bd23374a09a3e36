# -*- test-case-name: tests.test_read_cache -*-
"""ZooKeeper watches feeding the read cache (kazoo's watch API, without its recipes).

Every node above a subtree's deepest level is listed with a child watch, and every mirrored
node is read with a data watch, as ``ChildrenWatch``/``DataWatch`` would, but one callback
serves them all and only queues ``(kind, path)``: the :class:`TreeWatch` thread then reads
what piled up in one pipelined round, which re-arms the watches.  A read always returns the
node as it is now, so whatever order events and replies come in, the mirror ends as the store
is.

Heartbeats are the exception (``POLLED_LEAVES``): every worker rewrites its
``/workerbeats/<id>/<node-port>`` every few seconds and every supervisor its
``/supervisors/<id>``, so at 1,000 of each a watch per node meant ~500 events, reads and new
watches a second, half of Nimbus's CPU (py-spy, issue 11).  Those nodes carry no data watch;
their parents' child watches still tell at once when one comes or goes, and every
``poll_secs`` they are all read again, in a few ``multiRead`` requests (:mod:`.zk_multi_read`).
Storm's Nimbus reads them when it needs them (each monitor round, each query); here a query
sees a heartbeat at most ``poll_secs`` late.

A watch is one-shot and lives with the session and connection: after any disconnection or a
session loss, every subtree is read again in full (with new watches) before the mirror serves
again; meanwhile queries fail at once naming ZooKeeper, as the backend's own calls do.
"""

from kazoo import exceptions as kz
from kazoo.protocol.states import EventType

from pynimbus.cluster import paths as cluster_paths
from pynimbus.cluster.backend import ConnectionLostError
from pynimbus.cluster.read_cache import depth_below
from pynimbus.cluster.tree_watch import CHILDREN, DATA, DELETED, REFRESH, TreeWatch
from pynimbus.cluster.zk_multi_read import MultiReader

# Subtrees whose deepest nodes are heartbeats: read every poll, not watched (see above).
POLLED_LEAVES = (cluster_paths.WORKERBEATS_SUBTREE, cluster_paths.SUPERVISORS_SUBTREE)

_CONNECTION_ERRORS = (kz.ConnectionLoss, kz.ConnectionClosedError, kz.SessionExpiredError,
                      kz.OperationTimeoutError)


class ZooKeeperTreeWatch(TreeWatch):
    """Keeps ``mirror`` current from the session of ``backend`` (a ZooKeeperBackend)."""

    def __init__(self, backend, mirror, subtrees, poll_secs):
        super().__init__(mirror, subtrees, name="read-cache-zookeeper")
        self._backend = backend
        self._client = backend.kazoo_client
        self._reader = MultiReader(self._client)
        self._polled_roots = [root for root in POLLED_LEAVES if root in self.subtrees]
        self.period_secs = poll_secs
        backend.add_connection_listener(self._on_connection_state)

    def _on_connection_state(self, _state):
        # Listener threads may run out of order: any change means "read everything again",
        # and the loop waits until the client is connected to do it.
        self._request_resync("ZooKeeper at %s is unreachable (reconnecting); cannot read "
                             "the cluster state" % self._backend.hosts)

    def _on_event(self, event):
        # kazoo's callback thread: queue, never read here.
        if event.type == EventType.NONE or event.path is None:
            return
        if event.type == EventType.DELETED:
            self._enqueue(DELETED, event.path)
        elif event.type == EventType.CHILD:
            self._enqueue(CHILDREN, event.path)
        else:
            self._enqueue(DATA, event.path)

    def _can_read(self):
        return self._backend.connected

    def _unreachable_reason(self, error):
        return ("ZooKeeper at %s is unreachable (reconnecting); cannot read the cluster "
                "state: %s" % (self._backend.hosts, error))

    # -- reads ---------------------------------------------------------------------------

    def _max_depth(self, path):
        for root, depth in self.subtrees.items():
            if path == root or path.startswith(root + "/"):
                return root, depth
        return None, None

    def _pipelined(self, requests):
        """Send every request with a watch, then collect ``{path: result or None (no
        node)}``."""
        sent = [(path, send(path, watch=self._on_event)) for path, send in requests]
        found = {}
        for path, pending in sent:
            try:
                found[path] = pending.get()
            except kz.NoNodeError:
                found[path] = None
            except _CONNECTION_ERRORS as e:
                raise ConnectionLostError("ZooKeeper did not answer for %s: %s" % (path, e))
        return found

    def _read_data(self, paths):
        """``{path: bytes or None}``: polled heartbeats without a watch, the rest with one."""
        polled, watched = [], []
        for path in paths:
            (polled if self._is_polled_leaf(path) else watched).append(path)
        found = {path: (None if got is None else got[0] or b"") for path, got
                 in self._pipelined([(p, self._client.get_async) for p in watched]).items()}
        if polled:
            found.update(self._read_heartbeats(polled))
        return found

    def _read_heartbeats(self, paths):
        """``{path: bytes or None}`` of heartbeat nodes, read now without watches."""
        try:
            return self._reader.read(paths)
        except _CONNECTION_ERRORS as e:
            raise ConnectionLostError("ZooKeeper did not answer a read of %d heartbeats: %s"
                                      % (len(paths), e))

    def _load(self, paths):
        """Read ``paths`` and, level by level, everything below them down to their subtree's
        depth; returns ``(upserts, gone)``."""
        upserts, gone = {}, set()
        level = list(paths)
        while level:
            listable = [p for p in level if self._has_cached_children(p)]
            data = self._read_data(level)
            children = self._pipelined([(p, self._client.get_children_async)
                                        for p in listable])
            level = []
            for path, found in data.items():
                if found is None:
                    gone.add(path)
                else:
                    upserts[path] = found
            for path, names in children.items():
                if names is not None and path in upserts:
                    level.extend(path + "/" + name for name in names)
        return upserts, gone

    def _has_cached_children(self, path):
        root, depth = self._max_depth(path)
        return root is not None and depth_below(root, path) < depth

    def _is_polled_leaf(self, path):
        root, depth = self._max_depth(path)
        return root in self._polled_roots and depth_below(root, path) == depth

    def _resync(self):
        for root in self.subtrees:
            upserts, _gone = self._load([root])  # children in the server's listing order
            self.mirror.replace_tree(root, upserts)

    def _process(self, batch):
        deletes = {path for kind, path in batch if kind == DELETED}
        relist = {path for kind, path in batch if kind == CHILDREN}
        reread = {path for kind, path in batch if kind == DATA}
        for kind, path in batch:
            if kind == REFRESH:
                reread.add(path)
                parent = path.rsplit("/", 1)[0]
                if self._max_depth(parent)[0] is not None:
                    relist.add(parent)
        self.mirror.apply(deletes=deletes)
        listed = self._pipelined([(p, self._client.get_children_async) for p in relist])
        new_nodes, gone = [], set()
        for path, names in listed.items():
            if names is None:
                gone.add(path)
                continue
            known = self.mirror.known_children(path)
            new_nodes.extend(path + "/" + n for n in set(names) - known)
            gone.update(path + "/" + n for n in known - set(names))
        upserts, vanished = self._load(new_nodes)
        data = self._read_data([p for p in reread - set(new_nodes) if p not in gone])
        for path, found in data.items():
            if found is None:
                vanished.add(path)
            else:
                upserts[path] = found
        self.mirror.apply(upserts=upserts, deletes=gone | vanished)
        for path, names in listed.items():
            if names is not None:
                self.mirror.set_children_order(path, names)

    def _periodic(self):
        """Read every heartbeat node again; apply those whose bytes changed or that are
        gone (a new one comes through its parent's child watch)."""
        leaves = []
        for root in self._polled_roots:
            level = [root]
            for _ in range(self.subtrees[root]):
                level = [parent + "/" + name for parent in level
                         for name in self.mirror.known_children(parent)]
            leaves.extend(level)
        if not leaves:
            return
        found = self._read_heartbeats(leaves)
        changed = {path: data for path, data in found.items()
                   if data is not None and data != self.mirror.known_data(path)}
        gone = [path for path, data in found.items() if data is None]
        if changed or gone:
            self.mirror.apply(upserts=changed, deletes=gone)
