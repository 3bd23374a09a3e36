"""Storm's cluster state: the ZooKeeper layout of Storm 1.2.4, on ZooKeeper or embedded.

* :mod:`.paths` -- every path, as pure functions of checked names;
* :mod:`.serialization` -- gzip of Thrift binary, and raw integers;
* :mod:`.backend` -- the ZooKeeper-like interface; :mod:`.zk_backend` (kazoo) and
  :mod:`.embedded_backend` (SQLite + file locks) implement it;
* :mod:`.state` -- :class:`StormClusterState`, the port of cluster.clj's operations;
* :mod:`.leader` -- :class:`LeaderLatch`, Nimbus leader election on ``/leader-lock`` (imported
  from there: only Nimbus needs it).

:func:`make_backend` picks the backend a configuration asks for.
"""

from pynimbus.cluster.backend import (
    Backend, BackendClosedError, ClusterStateError, ConnectionLostError,
    NoChildrenForEphemeralsError, NoNodeError, NodeExistsError)
from pynimbus.cluster.state import StormClusterState
from pynimbus.common.config import uses_zookeeper

__all__ = [
    "Backend", "BackendClosedError", "ClusterStateError", "ConnectionLostError",
    "NoChildrenForEphemeralsError", "NoNodeError", "NodeExistsError",
    "StormClusterState", "make_backend", "make_cluster_state",
]


def make_backend(conf):
    """Open a session on the store ``conf`` selects.

    ZooKeeper (:class:`~.zk_backend.ZooKeeperBackend`) when ``storm.zookeeper.servers`` lists
    servers, else the embedded store in ``embedded_state_dir(conf)``
    (:class:`~.embedded_backend.EmbeddedBackend`).  Both use ``storm.zookeeper.root``.

    :raises ConnectionLostError: when ZooKeeper cannot be reached in time.
    """
    if uses_zookeeper(conf):
        from pynimbus.cluster.zk_backend import ZooKeeperBackend
        return ZooKeeperBackend.from_conf(conf)
    from pynimbus.cluster.embedded_backend import EmbeddedBackend
    return EmbeddedBackend.from_conf(conf)


def make_cluster_state(conf, **kwargs):
    """A :class:`StormClusterState` on ``make_backend(conf)``, of the conf's
    ``pynimbus.storm.compat`` generation; closing it closes the backend."""
    kwargs.setdefault("compat", conf.get("pynimbus.storm.compat", "1.x"))
    return StormClusterState(make_backend(conf), **kwargs)
