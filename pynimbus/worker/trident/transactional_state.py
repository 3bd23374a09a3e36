"""Trident's ``/transactional`` state in a worker: read once, written in order in a thread.

Storm's ``TransactionalState`` (1.2.4 ``trident/topology/state/TransactionalState``) reads and
writes ZooKeeper under ``<transactional.zookeeper.root>/<id>/<subroot>`` synchronously, in the
component's thread, with values as JSON.  A worker's reactor must not wait on a store, so here:

* :class:`TransactionalStore` is one session on the store the conf names
  (``transactional.zookeeper.servers``/``.port``, else Storm's; the embedded store when there
  are none) rooted at ``transactional.zookeeper.root``, and one writer thread, which applies
  every write in the order it was made (those queued meanwhile handed over together, and
  each as one request where the state knows the node exists, or not);
* a component's states are read whole before it starts (:meth:`TransactionalStore.preload`,
  in a thread); :class:`StoreTransactionalState` then answers reads from memory (its writes are
  its only ones: one task owns each state) and queues each write;
* :meth:`TransactionalStore.when_written` fires once every write queued so far is stored: a
  host holds its coordination tuples until then (:mod:`pynimbus.worker.trident.hosts`), so no
  batch completes before what it stored is durable, as when Storm waits on each write.

Paths and bytes are Storm's: ``/<root>/<id>/<subroot>/...``, UTF-8 JSON values.
"""

import collections
import json
import logging

from twisted.internet import defer, threads
from twisted.python.threadpool import ThreadPool

from pynimbus.cluster import make_backend
from pynimbus.cluster.backend import NoNodeError, NodeExistsError
from pynimbus.trident.transactional_state import (
    DEFAULT_TRANSACTIONAL_ROOT, MKDIR_VALUE, TRANSACTIONAL_ZOOKEEPER_ROOT)

log = logging.getLogger(__name__)

TRANSACTIONAL_ZOOKEEPER_SERVERS = "transactional.zookeeper.servers"
TRANSACTIONAL_ZOOKEEPER_PORT = "transactional.zookeeper.port"


def transactional_conf(conf):
    """``conf`` with the store and root of Trident's state: ``transactional.zookeeper.*``
    where set, Storm's own servers and port otherwise (``getWithBackup``)."""
    ret = dict(conf)
    servers = conf.get(TRANSACTIONAL_ZOOKEEPER_SERVERS)
    if servers:
        ret["storm.zookeeper.servers"] = servers
    port = conf.get(TRANSACTIONAL_ZOOKEEPER_PORT)
    if port:
        ret["storm.zookeeper.port"] = port
    ret["storm.zookeeper.root"] = (conf.get(TRANSACTIONAL_ZOOKEEPER_ROOT)
                                   or DEFAULT_TRANSACTIONAL_ROOT)
    return ret


def check_node_name(name, what):
    """``name`` as one node of the store.

    :raises ValueError: empty, with ``/``, ``.`` or ``..``, or with a control character."""
    if (not isinstance(name, str) or not name or "/" in name or name in (".", "..")
            or any(ord(c) < 32 for c in name)):
        raise ValueError("%s %r cannot name a node under /transactional" % (what, name))
    return name


def encode(value):
    """JSON as Storm's ``JSONValue.toJSONString`` writes it, as UTF-8."""
    return json.dumps(value, separators=(",", ":")).encode("utf-8")


def decode(data):
    """A stored value, or None for bytes that are no JSON (Storm logs and reads null)."""
    if data is None:
        return None
    try:
        return json.loads(data.decode("utf-8"))
    except ValueError:
        log.warning("Failed to deserialize transactional data %r", data[:64])
        return None


class TransactionalStore(object):
    """One session on the store of ``/transactional`` and its writer thread."""

    def __init__(self, reactor, conf, backend_factory=make_backend):
        self.reactor = reactor
        self.conf = transactional_conf(conf)
        self.backend_factory = backend_factory
        self.backend = None
        self.pool = ThreadPool(minthreads=1, maxthreads=1, name="trident-transactional")
        self.pool.start()
        self.snapshots = {}   # (id, subroot) -> {relative path: value}
        self.queue = collections.deque()  # writes not handed to the writer yet
        self.queued = 0       # writes queued, ever
        self.stored = 0       # writes done (stored or failed), ever
        self._draining = False
        self._waiters = []    # (writes queued when asked, Deferred)

    def _in_thread(self, call, *args):
        return threads.deferToThreadPool(self.reactor, self.pool, call, *args)

    def _open(self):
        if self.backend is None:
            self.backend = self.backend_factory(self.conf)
        return self.backend

    def preload(self, ids_and_subroots):
        """Read the states ``[(id, subroot)]`` whole, creating their roots (in the thread).
        A Deferred."""
        wanted = [(check_node_name(i, "a transactional id"), s) for i, s in ids_and_subroots]
        return self._in_thread(self._read_states, wanted)

    def _read_states(self, wanted):
        backend = self._open()
        for state_id, subroot in wanted:
            root = "/%s/%s" % (state_id, subroot)
            backend.mkdirs(root)
            self.snapshots[(state_id, subroot)] = self._read_tree(backend, root, "")

    def _read_tree(self, backend, root, rel):
        values = {}
        path = root + ("/" + rel if rel else "")
        try:
            children = backend.get_children(path)
        except NoNodeError:
            return values
        for child in children:
            child_rel = (rel + "/" + child) if rel else child
            values[child_rel] = decode(backend.get(root + "/" + child_rel))
            values.update(self._read_tree(backend, root, child_rel))
        return values

    def state(self, state_id, subroot):
        """The preloaded state ``(state_id, subroot)``.

        :raises KeyError: it was not preloaded."""
        return StoreTransactionalState(self, state_id, subroot,
                                       self.snapshots[(state_id, subroot)])

    @property
    def pending(self):
        """Writes queued and not stored yet."""
        return self.queued - self.stored

    def write(self, operation, path, data=None):
        """Queue a write after every write queued before: ``set`` (of a node that exists),
        ``create`` (of a node that does not, under one that does), ``set_data`` (either),
        ``delete_leaf`` (of a node without children) or ``delete``.  A believed existence
        that proves wrong falls back to the general write."""
        self.queue.append((operation, path, data))
        self.queued += 1
        if not self._draining:
            self._drain()

    def _drain(self):
        """Hand every queued write to the writer thread at once (one hop for them all)."""
        writes = list(self.queue)
        self.queue.clear()
        self._draining = True
        d = self._in_thread(self._apply_all, writes)
        d.addCallback(self._drained, len(writes))

    def _apply_all(self, writes):
        for operation, path, data in writes:
            try:
                self._apply(self._open(), operation, path, data)
            except Exception as e:  # logged and passed, as Storm's logs and goes on
                log.error("transactional write of %s failed: %s", path, e)

    @staticmethod
    def _apply(backend, operation, path, data):
        if operation == "set":
            try:
                backend.set(path, data)
            except NoNodeError:
                backend.set_data(path, data)
        elif operation == "create":
            try:
                backend.create(path, data)
            except NodeExistsError:
                backend.set(path, data)
            except NoNodeError:
                backend.set_data(path, data)
        elif operation == "set_data":
            backend.set_data(path, data)
        elif operation == "delete_leaf":
            backend.delete_leaf(path)
        else:
            backend.delete(path)

    def _drained(self, _result, count):
        self.stored += count
        self._draining = False
        if self.queue:
            self._drain()
        ready = [d for seq, d in self._waiters if seq <= self.stored]
        self._waiters = [(seq, d) for seq, d in self._waiters if seq > self.stored]
        for d in ready:
            d.callback(None)

    def when_written(self):
        """A Deferred that fires once every write queued so far is stored (at once if
        none is pending)."""
        if not self.pending:
            return defer.succeed(None)
        d = defer.Deferred()
        self._waiters.append((self.queued, d))
        return d

    def close(self):
        """Stop the writer once the queued writes are done, then close the session."""
        d = self.when_written()
        d.addCallback(lambda _: self._in_thread(self._close_backend))
        d.addBoth(lambda _: self.pool.stop())
        return d

    def _close_backend(self):
        if self.backend is not None:
            self.backend.close()
            self.backend = None


class StoreTransactionalState(object):
    """``TransactionalState`` of one ``(id, subroot)``: reads from memory, writes queued on
    the store (in order)."""

    def __init__(self, store, state_id, subroot, snapshot):
        self.store = store
        self.root = "/%s/%s" % (state_id, subroot)
        self.values = snapshot

    def _path(self, path):
        path = path.strip("/")
        for part in path.split("/") if path else ():
            check_node_name(part, "a transactional path segment")
        return path

    def set_data(self, path, value):
        rel = self._path(path)
        data = encode(value)
        self.store.write(self._set_operation(rel), self.root + "/" + rel, data)
        self.values[rel] = json.loads(data)  # as a read would give it back

    def _set_operation(self, rel):
        """The write of ``rel``: what this state holds (it is its only writer) tells whether
        the node and its parent exist, which saves the store's existence checks."""
        if rel in self.values:
            return "set"
        parent = rel.rpartition("/")[0]
        return "create" if not parent or parent in self.values else "set_data"

    def get_data(self, path):
        return self.values.get(self._path(path))

    def delete(self, path):
        rel = self._path(path)
        prefix = rel + "/"
        below = [k for k in self.values if k.startswith(prefix)]
        for key in below:
            del self.values[key]
        self.values.pop(rel, None)
        self.store.write("delete" if below else "delete_leaf", self.root + "/" + rel)

    def list(self, path):
        rel = self._path(path)
        prefix = rel + "/" if rel else ""
        return sorted({k[len(prefix):].split("/", 1)[0] for k in self.values
                       if k.startswith(prefix) and k != rel})

    def mkdir(self, path):
        self.set_data(path, MKDIR_VALUE)

    def close(self):
        pass
