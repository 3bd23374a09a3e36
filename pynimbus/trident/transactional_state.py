"""Trident's state under ``/transactional``: ``TransactionalState`` as an interface, one in
memory, and ``RotatingTransactionalState`` (pure).

Ports of 1.2.4 ``trident/topology/state/{TransactionalState,RotatingTransactionalState}``.  A
transactional state is rooted at ``<transactional.zookeeper.root>/<id>/<subroot>`` (subroot
``coordinator`` or ``user``); values are JSON.  The worker gives components one on its cluster
store (:mod:`pynimbus.worker.trident.transactional_state`: reads from memory, writes in order in
a thread); :class:`MemoryTransactionalState` keeps one in a dict, for tests.
"""

import json

COORDINATOR, USER = "coordinator", "user"
TRANSACTIONAL_ZOOKEEPER_ROOT = "transactional.zookeeper.root"
DEFAULT_TRANSACTIONAL_ROOT = "/transactional"
MKDIR_VALUE = 7  # TransactionalState.mkdir writes the number 7


class MemoryTransactionalState(object):
    """A ``TransactionalState`` in a dict of relative path -> JSON text (values round-trip
    through JSON, as through ZooKeeper).  ``tree`` may be shared to stand for one store."""

    def __init__(self, tree=None):
        self.tree = {} if tree is None else tree

    def set_data(self, path, value):
        self.tree[path] = json.dumps(value)

    def get_data(self, path):
        data = self.tree.get(path)
        return None if data is None else json.loads(data)

    def delete(self, path):
        self.tree.pop(path, None)

    def list(self, path):
        prefix = path.rstrip("/") + "/"
        return sorted({p[len(prefix):].split("/", 1)[0] for p in self.tree
                       if p.startswith(prefix)})

    def mkdir(self, path):
        self.set_data(path, MKDIR_VALUE)

    def close(self):
        pass


class RotatingTransactionalState(object):
    """``RotatingTransactionalState``: one value per txid under ``subdir``, cached; values
    before a txid cleaned up once it succeeded."""

    def __init__(self, state, subdir):
        self.state = state
        self.subdir = subdir
        self.curr = {}   # txid -> value
        state.mkdir(subdir)
        self._sync()

    def _tx_path(self, txid):
        return "%s/%s" % (self.subdir, txid)

    def _sync(self):
        for txid in self.state.list(self.subdir):
            try:
                key = int(txid)
            except ValueError:
                continue  # not a txid: not ours
            self.curr[key] = self.state.get_data(self._tx_path(txid))

    def get_last_state(self):
        return self.curr[max(self.curr)] if self.curr else None

    def override_state(self, txid, value):
        self.state.set_data(self._tx_path(txid), value)
        self.curr[txid] = value

    def remove_state(self, txid):
        if txid in self.curr:
            del self.curr[txid]
            self.state.delete(self._tx_path(txid))

    def get_state(self, txid, initializer=None):
        """The value of ``txid``; with ``initializer`` (``init(txid, last_value)``), one made
        and stored first when ``txid`` has none and no later txid has one (a later txid
        seen: None is stored)."""
        if initializer is None:
            return self.curr.get(txid)
        if txid not in self.curr:
            if any(t >= txid for t in self.curr):
                data = None
            else:
                data = initializer(txid, self.get_previous_state(txid))
            self.curr[txid] = data
            self.state.set_data(self._tx_path(txid), data)
        return self.curr[txid]

    def get_previous_state(self, txid):
        before = [t for t in self.curr if t < txid]
        return self.curr[max(before)] if before else None

    def has_cache(self, txid):
        return txid in self.curr

    def get_state_or_create(self, txid, initializer):
        if txid in self.curr:
            return self.curr[txid]
        self.get_state(txid, initializer)
        return None

    def cleanup_before(self, txid):
        for t in sorted(t for t in self.curr if t < txid):
            del self.curr[t]
            self.state.delete(self._tx_path(t))
