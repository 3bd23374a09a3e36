"""Nimbus's read cache (issue 11): a mirror of the queried subtrees kept current by watches.

Each test runs on the embedded store and on a real ZooKeeper (``cluster_conf``).  The cached
reads must equal the store's, see what other sessions and other processes write, drop nodes
that go away, and be right again after a ZooKeeper outage and after a session expiry.
"""

import subprocess
import sys
import textwrap

import pytest

from pynimbus.cluster import StormClusterState
from pynimbus.cluster.backend import ConnectionLostError
from pynimbus.cluster.read_cache import TreeMirror
from pynimbus.generated.storm import ttypes

SYNC_SECS = 15


def storm_base(name, status=ttypes.TopologyStatus.ACTIVE):
    return ttypes.StormBase(name=name, status=status, num_workers=1, launch_time_secs=100,
                            owner="alice", component_executors={"spout": 1})


def assignment(node="sup-1", port=6700):
    return ttypes.Assignment(
        master_code_dir="/tmp/code", node_host={node: "host-1"},
        executor_node_port={(1, 1): ttypes.NodeInfo(node=node, port={port})},
        executor_start_time_secs={(1, 1): 100})


def supervisor_info(host):
    return ttypes.SupervisorInfo(time_secs=100, hostname=host, used_ports=[], meta=[6700],
                                 uptime_secs=5)


def worker_beat(storm_id, time_secs=100):
    return ttypes.ClusterWorkerHeartbeat(
        storm_id=storm_id, time_secs=time_secs, uptime_secs=3,
        executor_stats={ttypes.ExecutorInfo(1, 1): ttypes.ExecutorStats(
            emitted={}, transferred={}, specific=ttypes.ExecutorSpecificStats(
                spout=ttypes.SpoutStats(acked={}, failed={}, complete_ms_avg={})),
            rate=0.0)})


def reads(state, storm_id="t-1-100", component="spout"):
    """Everything the queries, pages and monitor read, as comparable values."""
    return {
        "active_storms": sorted(state.active_storms()),
        "storm_bases": state.storm_bases(state.active_storms()),
        "assignments": sorted(state.assignments()),
        "assignment_infos": state.assignment_infos(state.assignments()),
        "supervisors": sorted(state.supervisors()),
        "supervisor_infos": state.supervisor_infos(state.supervisors()),
        "heartbeat_storms": sorted(state.heartbeat_storms()),
        "beat": state.get_worker_heartbeat(storm_id, "sup-1", 6700),
        "executor_beats": state.executor_beats(
            storm_id, assignment().executor_node_port),
        "error_topologies": sorted(state.error_topologies()),
        # ZooKeeper lists children in no fixed order: errors of one second tie
        "errors": sorted((e.error_time_secs, e.error) for e in state.errors(storm_id, component)),
        "last_error": state.last_error(storm_id, component),
    }


@pytest.fixture
def cached_state(open_backend):
    state = StormClusterState(open_backend())
    assert state.start_read_cache(SYNC_SECS)
    yield state
    state.close()


def write_a_cluster(state, storm_id="t-1-100"):
    state.activate_storm(storm_id, storm_base("t"))
    state.set_assignment(storm_id, assignment())
    state.supervisor_heartbeat("sup-1", supervisor_info("host-1"))
    state.setup_heartbeats(storm_id)
    state.worker_heartbeat(storm_id, "sup-1", 6700, worker_beat(storm_id))
    state.setup_errors(storm_id)
    for n in range(12):
        state.report_error(storm_id, "spout", "host-1", 6700, "failure %d" % n)


def test_cached_reads_equal_the_stores_right_after_own_writes(cached_state, open_backend):
    """Every read through the cache equals the same read from the store, at once after this
    state's own writes (the write barrier), including error pruning and removals."""
    plain = StormClusterState(open_backend())
    write_a_cluster(cached_state)
    assert reads(cached_state) == reads(plain)
    assert len(reads(cached_state)["errors"]) == 10
    cached_state.update_storm("t-1-100", {"status": ttypes.TopologyStatus.INACTIVE})
    assert cached_state.storm_base("t-1-100").status == ttypes.TopologyStatus.INACTIVE
    cached_state.remove_storm("t-1-100")
    cached_state.teardown_heartbeats("t-1-100")
    cached_state.teardown_topology_errors("t-1-100")
    assert reads(cached_state) == reads(plain)
    assert reads(cached_state)["active_storms"] == []


def test_another_sessions_writes_appear_and_removals_vanish(cached_state, open_backend,
                                                            wait_until):
    """A supervisor, a topology and a heartbeat written by another session show up in the
    next reads; their deletion (and the end of the writer's session) removes them, so the
    mirror holds only what the store holds."""
    other = StormClusterState(open_backend())
    write_a_cluster(other)
    plain = StormClusterState(open_backend())
    wait_until(lambda: reads(cached_state) == reads(plain), SYNC_SECS,
               "the other session's writes in the cache")
    other.worker_heartbeat("t-1-100", "sup-1", 6700, worker_beat("t-1-100", time_secs=200))
    wait_until(lambda: cached_state.get_worker_heartbeat("t-1-100", "sup-1", 6700).time_secs
               == 200, SYNC_SECS, "the new heartbeat")
    other.remove_storm("t-1-100")
    other.teardown_heartbeats("t-1-100")
    other.teardown_topology_errors("t-1-100")
    other.close()  # its ephemeral supervisor node goes with the session
    wait_until(lambda: reads(cached_state) == reads(plain), SYNC_SECS, "the removals")
    assert cached_state.supervisors() == [] and cached_state.active_storms() == []
    # only the empty subtree roots are left
    from pynimbus.cluster.read_cache import CACHED_SUBTREES
    assert len(cached_state.read_cache) == len(CACHED_SUBTREES)


def test_a_children_listener_hears_keys_come_and_go_under_blobstore(cached_state,
                                                                    open_backend,
                                                                    wait_until):
    """add_children_listener: another session's new key under /blobstore is told (with the
    keys), so is its deletion; a nimbus registering under a key changes no key and is not."""
    heard = []
    cached_state.read_cache.add_children_listener("/blobstore", heard.append)
    other = StormClusterState(open_backend())
    try:
        other.setup_blobstore("t-1-100-stormjar.jar", "nimbus1:6627", 1)
        wait_until(lambda: heard == [{"t-1-100-stormjar.jar"}], SYNC_SECS, "the new key")
        other.setup_blobstore("t-1-100-stormjar.jar", "nimbus2:6627", 1)
        wait_until(lambda: len(cached_state.blobstore_info("t-1-100-stormjar.jar")) == 2,
                   SYNC_SECS, "the second holder")
        other.remove_blobstore_key("t-1-100-stormjar.jar")
        wait_until(lambda: heard[-1] == set(), SYNC_SECS, "the deletion")
        assert heard == [{"t-1-100-stormjar.jar"}, set()]
    finally:
        other.close()


WRITER = textwrap.dedent("""
    import sys, json
    from pynimbus.cluster import make_cluster_state
    from pynimbus.generated.storm import ttypes
    conf = json.loads(sys.argv[1])
    state = make_cluster_state(conf)
    state.activate_storm("other-2-200", ttypes.StormBase(name="other", status=1,
                                                          num_workers=1))
    state.supervisor_heartbeat("sup-other", ttypes.SupervisorInfo(time_secs=1,
                                                                  hostname="elsewhere"))
    sys.stdout.write("written\\n")
    sys.stdout.flush()
    sys.stdin.read()  # keep the session (and its ephemeral node) until told to end
    state.close()
""")


def test_a_separate_process_writes_appear_in_the_next_reads(cached_state, cluster_conf,
                                                            wait_until):
    """A topology and a supervisor written by another process appear; when that process
    ends, its ephemeral supervisor node disappears from the cache as from the store."""
    import json
    writer = subprocess.Popen([sys.executable, "-c", WRITER, json.dumps(cluster_conf)],
                              stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    try:
        assert writer.stdout.readline() == b"written\n"
        wait_until(lambda: cached_state.active_storms() == ["other-2-200"]
                   and cached_state.supervisors() == ["sup-other"], SYNC_SECS,
                   "the other process's topology and supervisor")
        assert cached_state.storm_base("other-2-200").name == "other"
        assert cached_state.supervisor_info("sup-other").hostname == "elsewhere"
    finally:
        writer.stdin.close()
        assert writer.wait(30) == 0
    wait_until(lambda: cached_state.supervisors() == [], SYNC_SECS,
               "the ended process's supervisor to vanish")


def test_a_killed_process_supervisor_vanishes_from_the_embedded_cache(embedded_conf,
                                                                      wait_until):
    """On the embedded store, a supervisor killed with SIGKILL leaves the cache at once
    (the cache's poll purges dead sessions, which queries no longer do)."""
    import json
    from pynimbus.cluster import make_cluster_state
    state = make_cluster_state(embedded_conf)
    assert state.start_read_cache(SYNC_SECS)
    writer = subprocess.Popen([sys.executable, "-c", WRITER, json.dumps(embedded_conf)],
                              stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    try:
        assert writer.stdout.readline() == b"written\n"
        wait_until(lambda: state.supervisors() == ["sup-other"], SYNC_SECS, "the supervisor")
        writer.kill()
        writer.wait(30)
        wait_until(lambda: state.supervisors() == [], SYNC_SECS,
                   "the killed supervisor to vanish")
    finally:
        writer.kill()
        writer.wait(30)
        state.close()


def test_mirror_refuses_reads_until_synchronised():
    """A mirror that has not read the store yet (or lost track of it) raises
    ConnectionLostError with the reason instead of answering."""
    mirror = TreeMirror()
    with pytest.raises(ConnectionLostError, match="not synchronised"):
        mirror.children("/storms")
    mirror.replace_tree("/storms", {"/storms": b"\x07", "/storms/a": b"x"})
    mirror.set_unavailable(None)
    assert mirror.children("/storms") == ["a"]
    mirror.set_unavailable("ZooKeeper at h is unreachable")
    with pytest.raises(ConnectionLostError, match="unreachable"):
        mirror.data("/storms/a")


def test_mirror_decodes_a_value_once_per_change():
    """The same bytes read again keep their decoded value; new bytes are decoded anew."""
    from pynimbus.cluster.serialization import serialize
    mirror = TreeMirror()
    mirror.replace_tree("/storms", {"/storms": b"", "/storms/a": serialize(storm_base("a"))})
    mirror.set_unavailable(None)
    first = mirror.value("/storms/a", ttypes.StormBase)
    mirror.apply(upserts={"/storms/a": serialize(storm_base("a"))})
    assert mirror.value("/storms/a", ttypes.StormBase) is first
    mirror.apply(upserts={"/storms/a": serialize(storm_base("b"))})
    assert mirror.value("/storms/a", ttypes.StormBase).name == "b"
    mirror.apply(deletes=["/storms/a"])
    assert mirror.value("/storms/a", ttypes.StormBase) is None
    assert mirror.children("/storms") == []


def zookeeper_state(zookeeper, tmp_path, root):
    from pynimbus.cluster.zk_backend import ZooKeeperBackend
    from pynimbus.common.config import default_config
    conf = default_config()
    conf.update(zookeeper.storm_conf())
    conf.update({"storm.local.dir": str(tmp_path), "storm.zookeeper.root": root,
                 "storm.zookeeper.connection.timeout": 10000})
    return StormClusterState(ZooKeeperBackend(conf))


def answers(state):
    try:
        return reads(state)
    except ConnectionLostError:
        return None


@pytest.mark.zookeeper
def test_cache_is_right_after_a_zookeeper_restart(own_zookeeper, tmp_path, wait_until):
    """While ZooKeeper is down, cached reads fail at once naming ZooKeeper (never a stale
    answer); after it restarts, the cache is read again with new watches, so writes made
    after the restart appear."""
    cached = zookeeper_state(own_zookeeper, tmp_path, "/restart")
    assert cached.start_read_cache(SYNC_SECS)
    writer = zookeeper_state(own_zookeeper, tmp_path, "/restart")
    plain = zookeeper_state(own_zookeeper, tmp_path, "/restart")
    try:
        write_a_cluster(writer)
        wait_until(lambda: reads(cached) == reads(plain), SYNC_SECS, "the first writes")
        own_zookeeper.pause()
        wait_until(lambda: not cached.backend.connected, SYNC_SECS, "the outage")
        with pytest.raises(ConnectionLostError, match="ZooKeeper at .* is unreachable"):
            cached.supervisors()
        own_zookeeper.resume()
        wait_until(lambda: answers(cached) is not None, 30, "the cache to serve again")
        wait_until(lambda: writer.backend.connected and plain.backend.connected, 30,
                   "the other sessions to reconnect")
        writer.supervisor_heartbeat("sup-2", supervisor_info("host-2"))
        writer.remove_storm("t-1-100")
        wait_until(lambda: answers(cached) == answers(plain), SYNC_SECS,
                   "the writes made after the restart")
        # sup-1 stays unless the outage outlasted the writer's session (its node is ephemeral)
        assert "sup-2" in cached.supervisors()
    finally:
        for state in (cached, writer, plain):
            state.close()


@pytest.mark.zookeeper
def test_cache_is_right_after_its_session_expires(own_zookeeper, tmp_path, wait_until):
    """When the cache's session expires, its own ephemeral node leaves the cache with the
    session, and what others write afterwards appears (the watches are set again)."""
    from kazoo.client import KazooClient
    cached = zookeeper_state(own_zookeeper, tmp_path, "/expiry")
    assert cached.start_read_cache(SYNC_SECS)
    writer = zookeeper_state(own_zookeeper, tmp_path, "/expiry")
    plain = zookeeper_state(own_zookeeper, tmp_path, "/expiry")
    heard = []
    cached.backend.add_connection_listener(heard.append)
    try:
        cached.supervisor_heartbeat("sup-own", supervisor_info("host-own"))
        assert cached.supervisors() == ["sup-own"]
        # a second client on the same session, closed, expires it for the cache's backend
        twin = KazooClient(hosts=cached.backend.hosts,
                           client_id=cached.backend.kazoo_client.client_id)
        twin.start(timeout=10)
        twin.stop()
        twin.close()
        wait_until(lambda: cached.backend.LOST in heard, SYNC_SECS, "the LOST event")
        writer.activate_storm("t-1-100", storm_base("t"))
        wait_until(lambda: answers(cached) is not None and answers(cached) == answers(plain),
                   30, "the cache to be read again in the new session")
        assert cached.supervisors() == [] and cached.active_storms() == ["t-1-100"]
        writer.supervisor_heartbeat("sup-1", supervisor_info("host-1"))
        wait_until(lambda: cached.supervisors() == ["sup-1"], SYNC_SECS,
                   "a write after the expiry")
    finally:
        for state in (cached, writer, plain):
            state.close()


def test_children_come_in_the_stores_listing_order(cached_state, open_backend, wait_until):
    """The cache lists children as the store does (ZooKeeper: its server's hash-set order,
    which 1.x placement follows; embedded: by name), after creates and deletes by others."""
    import random
    other = StormClusterState(open_backend())
    names = ["sup-%d" % n for n in range(40)]
    random.Random(11).shuffle(names)
    for name in names:
        other.supervisor_heartbeat(name, supervisor_info(name))
    for name in names[:7]:
        other.backend.delete("/supervisors/" + name)
    listed = other.backend.get_children("/supervisors")
    wait_until(lambda: sorted(cached_state.supervisors()) == sorted(listed), SYNC_SECS,
               "the supervisors in the cache")
    assert cached_state.supervisors() == listed


def test_closing_releases_a_write_waiting_for_its_read_back(wait_until):
    """A write barrier under way when the cache closes returns at once instead of waiting its
    timeout (which held a stopping nimbus's thread pool, and the process, that long)."""
    import threading
    from pynimbus.cluster.tree_watch import TreeWatch

    watch = TreeWatch(TreeMirror(), {})
    watch._synced.set()  # as after the first full read; the reading thread is not started
    barrier = threading.Thread(target=watch.refresh, args=(["/storms/x"], 60.0))
    barrier.start()
    wait_until(lambda: watch._waiters, timeout=10, what="the write barrier to wait")
    watch.close()
    barrier.join(10)
    assert not barrier.is_alive()
