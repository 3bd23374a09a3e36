"""ZooKeeper's multiRead as a kazoo request (issue 11: the read cache polls heartbeats with it).

On a real ZooKeeper: a multiRead returns what one ``get`` per node returns (missing and empty
nodes included, under a chroot, past one request's chunk); a server that does not know the
operation makes the reader fall back to one ``get`` per node with the same answers; and the
read cache sets no data watch on heartbeat nodes yet sees another session's new heartbeat.
"""

import os
import uuid

import pytest
from kazoo import exceptions as kz
from kazoo.client import KazooClient

from pynimbus.cluster import StormClusterState
from pynimbus.cluster.zk_multi_read import CHUNK, MultiRead, MultiReader

pytestmark = pytest.mark.zookeeper


@pytest.fixture
def chrooted_client(zookeeper_server):
    root = "/multi-read-%s" % uuid.uuid4().hex
    plain = KazooClient(hosts="127.0.0.1:%d" % zookeeper_server.port)
    plain.start(timeout=10)
    plain.ensure_path(root)
    plain.stop()
    plain.close()
    client = KazooClient(hosts="127.0.0.1:%d%s" % (zookeeper_server.port, root))
    client.start(timeout=10)
    yield client
    client.stop()
    client.close()


def nodes(client, count):
    """Create ``count`` nodes with distinct random data, one empty node, and name a missing
    one; return every path."""
    client.ensure_path("/beats")
    created = []
    for n in range(count):
        path = "/beats/n%d" % n
        client.create(path, os.urandom(n % 300 + 1))
        created.append(path)
    client.create("/beats/empty", b"")
    return created + ["/beats/empty", "/beats/missing"]


def one_get_each(client, paths):
    found = {}
    for path in paths:
        found[path] = client.get(path)[0] if client.exists(path) else None
    return found


def test_multi_read_returns_what_a_get_per_node_returns(chrooted_client):
    paths = nodes(chrooted_client, CHUNK * 2 + 7)
    reader = MultiReader(chrooted_client)
    found = reader.read(paths)
    assert reader.multi_read_served is True
    assert found == one_get_each(chrooted_client, paths)
    assert found["/beats/missing"] is None and found["/beats/empty"] == b""


class UnknownOperation(MultiRead):
    type = 99  # no such ZooKeeper operation: the server answers UNIMPLEMENTED


def test_a_server_without_multi_read_is_read_one_node_at_a_time(chrooted_client, wait_until):
    paths = nodes(chrooted_client, 20)
    reader = MultiReader(chrooted_client, request_type=UnknownOperation)
    expected = one_get_each(chrooted_client, paths)
    # the server drops the connection on the unknown operation, after replying UNIMPLEMENTED
    # or not: that read is answered one node at a time, or fails as any read on a lost
    # connection does (the read cache then reads everything again)
    try:
        found = reader.read(paths)
    except (kz.ConnectionLoss, kz.ConnectionClosedError):
        found = expected
    assert found == expected
    assert reader.multi_read_served is False
    wait_until(lambda: chrooted_client.connected, 30, "the client to reconnect")
    assert reader.read(paths) == expected


def test_heartbeats_carry_no_data_watch_and_are_read_each_poll(zookeeper_conf, wait_until):
    from pynimbus.cluster import make_backend
    from test_read_cache import supervisor_info, worker_beat
    conf = dict(zookeeper_conf, **{"pynimbus.read.cache.poll.secs": 0.2})
    cached = StormClusterState(make_backend(conf))
    other = StormClusterState(make_backend(conf))
    try:
        assert cached.start_read_cache(15)
        other.setup_heartbeats("t-1-100")
        other.worker_heartbeat("t-1-100", "sup-1", 6700, worker_beat("t-1-100", 100))
        other.supervisor_heartbeat("sup-1", supervisor_info("host-1"))
        wait_until(lambda: cached.get_worker_heartbeat("t-1-100", "sup-1", 6700) is not None
                   and cached.supervisors() == ["sup-1"], 15, "the new nodes")
        watched = set(cached.backend.kazoo_client._data_watchers)
        assert not [p for p in watched if "/workerbeats/t-1-100/" in p
                    or "/supervisors/sup-1" in p]
        assert [p for p in watched if p.endswith("/storms")]  # the rest keeps its watches
        other.worker_heartbeat("t-1-100", "sup-1", 6700, worker_beat("t-1-100", 200))
        wait_until(lambda: cached.get_worker_heartbeat("t-1-100", "sup-1", 6700).time_secs
                   == 200, 15, "the rewritten heartbeat")
        other.teardown_heartbeats("t-1-100")
        wait_until(lambda: cached.heartbeat_storms() == [], 15, "the heartbeats' removal")
    finally:
        cached.close()
        other.close()
