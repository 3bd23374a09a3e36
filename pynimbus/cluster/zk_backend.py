# -*- test-case-name: tests.test_cluster_backend -*-
"""The ZooKeeper backend: kazoo on a real ZooKeeper ensemble, connected as Storm connects.

Port of the connection set-up of ``Utils.newCurator`` and zookeeper_state_factory.clj
``mkState`` (Storm 1.2.4): the connect string is every ``storm.zookeeper.servers`` entry with
``storm.zookeeper.port``, then ``storm.zookeeper.root`` as a chroot; the root itself is first
created (holding 0x07) through a connection without chroot.  Session and connection timeouts
come from ``storm.zookeeper.session.timeout`` and ``storm.zookeeper.connection.timeout``, and
failed operations are retried with the bounded exponential back-off of
``storm.zookeeper.retry.interval``, ``.intervalceiling.millis`` and ``.times``.

Losing ZooKeeper is never final, as with Curator over ZooKeeper's own client (``ClientCnxn``):
after a disconnection the client tries the servers again forever, up to a second apart, and
after a session expiry it opens a new session; the connection listeners hear SUSPENDED or LOST,
then CONNECTED, and re-create what the old session owned (nimbus registration, leader latch).

Deliberate differences: one connection serves reads and writes (Storm's Nimbus opens a second
one for reads); no ZooKeeper authentication or ACLs (Storm's default: world-readable,
world-writable nodes); sequential creates are not retried after a connection loss, since a
retry could create a second node.  While the connection is down an operation fails at once
with :class:`ConnectionLostError` (Curator would block up to the connection timeout first), so
that a Thrift call during an outage gets a prompt answer saying ZooKeeper is unreachable.
"""

import threading

from kazoo import exceptions as kz
from kazoo.client import KazooClient, KazooState
from kazoo.handlers.threading import KazooTimeoutError
from kazoo.retry import KazooRetry, RetryFailedError

from pynimbus.cluster.backend import (Backend, BackendClosedError, ConnectionLostError,
                                      NoChildrenForEphemeralsError, NoNodeError, NodeExistsError,
                                      normalize_root, validate_path)
from pynimbus.cluster.serialization import DIRECTORY_DATA
from pynimbus.common.config import PYNIMBUS_DEFAULTS

_CONNECTION_ERRORS = (kz.ConnectionLoss, kz.ConnectionClosedError, kz.SessionExpiredError,
                      kz.OperationTimeoutError, KazooTimeoutError, RetryFailedError)

_STATES = {
    KazooState.CONNECTED: Backend.CONNECTED,
    KazooState.SUSPENDED: Backend.SUSPENDED,
    KazooState.LOST: Backend.LOST,
}


def connect_string(conf, with_root=True):
    """Port of ``Utils.newCurator``'s connect string: ``h1:port,h2:port/root``."""
    port = int(conf["storm.zookeeper.port"])
    hosts = ",".join("%s:%d" % (server, port) for server in conf["storm.zookeeper.servers"])
    return hosts + (normalize_root(conf.get("storm.zookeeper.root")) if with_root else "")


# ZooKeeper's client sleeps up to a second between two connection attempts, for ever.
RECONNECT_FIRST_DELAY_SECS = 0.1
RECONNECT_MAX_DELAY_SECS = 1.0


def _retry_policy(conf, interrupt):
    """Storm's ``StormBoundedExponentialBackoffRetry`` expressed as a kazoo retry of one
    operation; ``interrupt()`` true (the connection is down) ends it at once."""
    return KazooRetry(max_tries=int(conf.get("storm.zookeeper.retry.times", 5)),
                      delay=int(conf.get("storm.zookeeper.retry.interval", 1000)) / 1000.0,
                      backoff=2,
                      max_delay=int(conf.get("storm.zookeeper.retry.intervalceiling.millis",
                                             30000)) / 1000.0,
                      interrupt=interrupt)


def _reconnect_policy(stopping):
    """Connection attempts: for ever, at most a second apart, until ``stopping()``."""
    return KazooRetry(max_tries=-1, delay=RECONNECT_FIRST_DELAY_SECS, backoff=2,
                      max_delay=RECONNECT_MAX_DELAY_SECS, interrupt=stopping)


def _translate(e, path):
    """Return our exception for the kazoo exception ``e`` raised on ``path``."""
    if isinstance(e, kz.NoNodeError):
        return NoNodeError("node %s (or its parent) does not exist" % path)
    if isinstance(e, kz.NodeExistsError):
        return NodeExistsError("node %s already exists" % path)
    if isinstance(e, kz.NoChildrenForEphemeralsError):
        return NoChildrenForEphemeralsError("cannot create %s under an ephemeral node" % path)
    if isinstance(e, _CONNECTION_ERRORS):
        return ConnectionLostError("ZooKeeper did not answer for %s: %s" % (path, e))
    return None


class ZooKeeperBackend(Backend):
    """A ZooKeeper session through kazoo; see the module docstring for how it connects.

    :param conf: Storm configuration with the ``storm.zookeeper.*`` keys.
    :raises ConnectionLostError: when no server answers within the connection timeout.
    """

    def __init__(self, conf):
        self.conf = conf
        self.root = normalize_root(conf.get("storm.zookeeper.root"))
        self.hosts = connect_string(conf)
        self._session_timeout = int(conf.get("storm.zookeeper.session.timeout", 20000)) / 1000.0
        self._connection_timeout = int(
            conf.get("storm.zookeeper.connection.timeout", 15000)) / 1000.0
        self._listeners = []
        self._closed = False
        self._stopping = threading.Event()  # interrupts the reconnection loop on close
        if self.root:
            self._create_root(conf)
        self._client = self._start_client(self.hosts)
        self._client.add_listener(self._on_state_change)

    @classmethod
    def from_conf(cls, conf):
        """Connect as ``conf`` says (same as the constructor)."""
        return cls(conf)

    def __repr__(self):
        return "ZooKeeperBackend(%r)" % self.hosts

    def _start_client(self, hosts):
        client = KazooClient(hosts=hosts, timeout=self._session_timeout,
                             command_retry=_retry_policy(self.conf,
                                                         lambda: not client.connected),
                             connection_retry=_reconnect_policy(self._stopping.is_set))
        try:
            client.start(timeout=self._connection_timeout)
        except KazooTimeoutError:
            client.close()
            raise ConnectionLostError("could not connect to ZooKeeper at %s within %.1f s"
                                      % (hosts, self._connection_timeout))
        return client

    def _create_root(self, conf):
        """Port of ``mkState``'s first step: mkdirs the root without chroot, then disconnect."""
        client = self._start_client(connect_string(conf, with_root=False))
        try:
            path = ""
            for segment in self.root.strip("/").split("/"):
                path += "/" + segment
                if client.retry(client.exists, path) is None:
                    try:
                        client.retry(client.create, path, DIRECTORY_DATA)
                    except kz.NodeExistsError:
                        pass
        finally:
            client.stop()
            client.close()

    def _on_state_change(self, state):
        # kazoo calls this on its connection thread, which must not block: hand it off.
        name = _STATES.get(state)
        if name is None:
            return
        for listener in list(self._listeners):
            threading.Thread(target=listener, args=(name,), daemon=True,
                             name="zk-state-listener").start()

    def add_connection_listener(self, listener):
        self._listeners.append(listener)

    @property
    def kazoo_client(self):
        """The kazoo client of this session (for the read cache's watches)."""
        return self._client

    def open_tree_watch(self, mirror, subtrees):
        """A :class:`~.zk_tree_watch.ZooKeeperTreeWatch` keeping ``mirror`` current."""
        from pynimbus.cluster.zk_tree_watch import ZooKeeperTreeWatch
        key = "pynimbus.read.cache.poll.secs"
        poll_secs = float(self.conf.get(key, PYNIMBUS_DEFAULTS[key]))
        return ZooKeeperTreeWatch(self, mirror, subtrees, poll_secs=poll_secs)

    @property
    def connected(self):
        """Whether the session is connected right now (no I/O)."""
        return not self._closed and self._client.connected

    def _check_connected(self, path):
        """Fail at once while the connection is down, instead of queueing until it is back."""
        if self._closed:
            raise BackendClosedError("the ZooKeeper session is closed")
        if not self._client.connected:
            raise ConnectionLostError(
                "ZooKeeper at %s is unreachable (reconnecting); cannot access %s"
                % (self.hosts, path))

    def _call(self, path, func, *args, retry=True, **kwargs):
        self._check_connected(path)
        try:
            if retry:
                return self._client.retry(func, *args, **kwargs)
            return func(*args, **kwargs)
        except kz.KazooException as e:
            ours = _translate(e, path)
            if ours is None:
                raise
            raise ours from e
        except (KazooTimeoutError, RetryFailedError) as e:
            raise _translate(e, path) from e

    def create(self, path, data=b"", ephemeral=False, sequential=False, makepath=False):
        validate_path(path)
        if makepath:
            parent = path.rsplit("/", 1)[0] or "/"
            self.mkdirs(parent)
        data = b"" if data is None else bytes(data)
        return self._call(path, self._client.create, path, data, ephemeral=ephemeral,
                          sequence=sequential, retry=not sequential)

    def set(self, path, data):
        validate_path(path)
        self._call(path, self._client.set, path, b"" if data is None else bytes(data))

    def get(self, path):
        result = self.get_with_version(path)
        return None if result is None else result[0]

    def get_many(self, paths):
        """Pipelined reads: every request is sent before the first answer is awaited."""
        paths = list(paths)
        for path in paths:
            validate_path(path)
        self._check_connected(paths[0] if paths else "/")
        pending = [self._client.get_async(path) for path in paths]
        found = []
        for path, request in zip(paths, pending):
            try:
                data, _stat = request.get()
            except kz.NoNodeError:
                found.append(None)
                continue
            except (kz.KazooException, KazooTimeoutError):
                found.append(self.get(path))  # the one-by-one path retries and translates
                continue
            found.append(data or b"")
        return found

    def get_with_version(self, path):
        validate_path(path)
        try:
            data, stat = self._call(path, self._client.get, path)
        except NoNodeError:
            return None
        return (data or b""), stat.version

    def get_children(self, path):
        validate_path(path)
        return list(self._call(path, self._client.get_children, path))

    def exists(self, path):
        validate_path(path)
        return self._call(path, self._client.exists, path) is not None

    def delete_leaf(self, path):
        validate_path(path)
        if path == "/":
            raise ValueError("the root node cannot be deleted")
        try:
            self._call(path, self._client.delete, path)  # one request (kazoo's recursive
        except NoNodeError:                              # delete lists the children first)
            return
        except kz.NotEmptyError:
            self.delete(path)

    def delete(self, path):
        validate_path(path)
        if path == "/":
            raise ValueError("the root node cannot be deleted")
        for _ in range(10):
            try:
                self._call(path, self._client.delete, path, recursive=True)
                return
            except NoNodeError:
                return
            except kz.NotEmptyError:
                continue  # a child appeared while deleting: go again
        self._call(path, self._client.delete, path, recursive=True)

    def sync(self, path):
        validate_path(path)
        self._call(path, self._client.sync, path)

    def close(self):
        if self._closed:
            return
        self._closed = True
        self._stopping.set()
        try:
            self._client.stop()
        finally:
            self._client.close()
