"""The backend primitives, on the embedded store and on a real ZooKeeper alike.

The same assertions run on both (``cluster_conf`` is parametrized), so the embedded store is
held to ZooKeeper's observable behaviour: sequence numbers, data versions, directory bytes,
errors, ephemeral nodes that vanish with their session or process.
"""

import json
import os
import signal
import subprocess
import sys
import textwrap

import pytest

from pynimbus_path import child_env
from pynimbus.cluster import (NoChildrenForEphemeralsError, NoNodeError, NodeExistsError,
                              make_backend)
from pynimbus.cluster.embedded_backend import EmbeddedBackend
from pynimbus.cluster.backend import BackendClosedError


def run_child(script, conf, *args, timeout=60):
    """Run ``script`` in a new Python with ``conf`` as JSON in argv[1]; return its stdout."""
    done = subprocess.run([sys.executable, "-c", textwrap.dedent(script), json.dumps(conf)]
                          + list(args), capture_output=True, text=True, timeout=timeout,
                          env=child_env())
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_sequential_nodes_get_ten_digit_numbers_counting_creations(open_backend):
    """Sequence numbers have ten digits and count children created, deletes included."""
    backend = open_backend()
    backend.mkdirs("/q")
    assert backend.create("/q/e", b"a", sequential=True) == "/q/e0000000000"
    assert backend.create("/q/e", b"b", sequential=True) == "/q/e0000000001"
    backend.create("/q/plain", b"")
    backend.delete("/q/e0000000000")
    assert backend.create("/q/e", b"c", sequential=True) == "/q/e0000000003"
    assert sorted(backend.get_children("/q")) == ["e0000000001", "e0000000003", "plain"]


def test_makepath_and_mkdirs_create_parents_holding_byte_seven(open_backend):
    """Parents made on the way hold 0x07, as Storm's mkdirs writes them."""
    backend = open_backend()
    backend.create("/a/b/c", b"leaf", makepath=True)
    assert backend.get("/a") == b"\x07"
    assert backend.get("/a/b") == b"\x07"
    assert backend.get("/a/b/c") == b"leaf"
    backend.mkdirs("/x/y")
    assert backend.get("/x/y") == b"\x07"
    backend.mkdirs("/x/y")  # existing: no error, unchanged
    backend.mkdirs("/m/n", data=b"")
    assert backend.get("/m") == b"" and backend.get("/m/n") == b""


def test_create_reports_existing_nodes_and_missing_parents(open_backend):
    """create raises NodeExistsError for a node, NoNodeError for a missing parent."""
    backend = open_backend()
    backend.create("/n", b"1")
    with pytest.raises(NodeExistsError):
        backend.create("/n", b"2")
    with pytest.raises(NoNodeError):
        backend.create("/missing/child", b"")
    assert backend.get("/n") == b"1"
    assert not backend.exists("/missing")


def test_ephemeral_nodes_cannot_have_children(open_backend):
    """A create under an ephemeral node fails as in ZooKeeper."""
    backend = open_backend()
    backend.create("/eph", b"", ephemeral=True)
    with pytest.raises(NoChildrenForEphemeralsError):
        backend.create("/eph/child", b"")
    with pytest.raises(NoChildrenForEphemeralsError):
        backend.create("/eph/deeper/child", b"", makepath=True)


def test_set_bumps_the_version_and_needs_the_node(open_backend):
    """Data versions start at 0 and count sets; set on a missing node raises NoNodeError."""
    backend = open_backend()
    backend.create("/v", b"0")
    assert backend.get_with_version("/v") == (b"0", 0)
    backend.set("/v", b"1")
    backend.set("/v", b"2")
    assert backend.get_with_version("/v") == (b"2", 2)
    assert backend.get_with_version("/nothing") is None
    assert backend.get("/nothing") is None
    with pytest.raises(NoNodeError):
        backend.set("/nothing", b"x")
    with pytest.raises(NoNodeError):
        backend.get_children("/nothing")


def test_delete_is_recursive_and_ignores_missing_nodes(open_backend):
    """delete removes a whole subtree and is silent for a missing node."""
    backend = open_backend()
    backend.create("/t/a/b", b"", makepath=True)
    backend.create("/t/a2", b"")
    backend.create("/tz", b"")  # a sibling sharing the prefix survives
    backend.delete("/t")
    assert not backend.exists("/t") and not backend.exists("/t/a/b")
    assert backend.exists("/tz")
    backend.delete("/t")
    with pytest.raises(ValueError):
        backend.delete("/")


def test_set_data_and_set_ephemeral_node_create_or_update(open_backend):
    """set_data and set_ephemeral_node create missing nodes (parents 0x07) or update them."""
    backend = open_backend()
    backend.set_data("/p/q/r", b"1")
    backend.set_data("/p/q/r", b"2")
    assert backend.get_with_version("/p/q/r") == (b"2", 1)
    assert backend.get("/p/q") == b"\x07"
    backend.set_ephemeral_node("/s/e", b"1")
    backend.set_ephemeral_node("/s/e", b"2")
    assert backend.get("/s/e") == b"2"


@pytest.mark.parametrize("bad", ["", "a", "/a/", "//a", "/a//b", "/a/../b", "/a/./b",
                                 "/a\x00b", "/a\x01", None])
def test_invalid_paths_are_refused_by_every_operation(open_backend, bad):
    """Both backends refuse the paths ZooKeeper refuses, with ValueError."""
    backend = open_backend()
    for call in (lambda: backend.create(bad, b""), lambda: backend.set(bad, b""),
                 lambda: backend.get(bad), lambda: backend.exists(bad),
                 lambda: backend.delete(bad), lambda: backend.mkdirs(bad)):
        with pytest.raises(ValueError):
            call()


def test_the_root_is_created_holding_byte_seven(cluster_conf, open_backend):
    """storm.zookeeper.root is made first (0x07) and every path lives under it."""
    backend = open_backend()
    backend.set_data("/storms/x", b"data")
    root = cluster_conf["storm.zookeeper.root"]
    whole = open_backend(dict(cluster_conf, **{"storm.zookeeper.root": "/"}))
    assert whole.get(root) == b"\x07"
    assert whole.get(root + "/storms/x") == b"data"


def test_ephemeral_nodes_vanish_when_their_session_closes(open_backend):
    """Closing a backend deletes its ephemeral nodes, and only them."""
    owner, other = open_backend(), open_backend()
    owner.create("/live", b"", ephemeral=True)
    owner.create("/kept", b"")
    assert other.exists("/live")
    owner.close()
    assert not other.exists("/live")
    assert other.exists("/kept")


def test_a_closed_backend_refuses_operations(open_backend):
    """Operations on a closed backend raise BackendClosedError; close is idempotent."""
    backend = open_backend()
    backend.close()
    backend.close()
    with pytest.raises(BackendClosedError):
        backend.get("/x")


HOLD_EPHEMERAL = """
    import json, sys, time
    from pynimbus.cluster import make_cluster_state
    from pynimbus.generated.storm import ttypes
    state = make_cluster_state(json.loads(sys.argv[1]))
    state.supervisor_heartbeat("sup-doomed", ttypes.SupervisorInfo(time_secs=1, hostname="h"))
    print("ready", flush=True)
    time.sleep(600)
"""


def test_ephemeral_nodes_vanish_when_their_process_is_killed(cluster_conf, backend_kind,
                                                             open_backend, wait_until):
    """A SIGKILLed process's supervisor heartbeat vanishes (on ZooKeeper after its timeout)."""
    conf = dict(cluster_conf, **{"storm.zookeeper.session.timeout": 2000})
    observer = open_backend()
    child = subprocess.Popen([sys.executable, "-c", textwrap.dedent(HOLD_EPHEMERAL),
                              json.dumps(conf)], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                             env=child_env())
    try:
        wait_until(lambda: child.poll() is not None or observer.exists("/supervisors/sup-doomed"),
                   timeout=30, what="the child's ephemeral node")
        assert child.poll() is None, child.stderr.read().decode()
    finally:
        child.send_signal(signal.SIGKILL)
        child.wait()
        child.stdout.close()
        child.stderr.close()
    if backend_kind == "embedded":
        assert not observer.exists("/supervisors/sup-doomed")  # at once: the lock died with it
        sessions = os.path.join(observer.directory, "sessions")
        assert os.listdir(sessions) == [observer.session_id + ".lock"]  # dead one purged
    else:
        wait_until(lambda: not observer.exists("/supervisors/sup-doomed"), timeout=20,
                   what="ZooKeeper to expire the killed session")
    assert observer.exists("/supervisors")


CREATE_SEQUENTIAL = """
    import json, sys
    from pynimbus.cluster import make_backend
    backend = make_backend(json.loads(sys.argv[1]))
    for _ in range(int(sys.argv[2])):
        backend.create("/race/n", sys.argv[3].encode(), sequential=True)
    backend.close()
"""


def test_concurrent_processes_get_distinct_sequence_numbers(cluster_conf, open_backend):
    """Four processes creating sequential nodes at once get 80 distinct, gap-free numbers."""
    open_backend().mkdirs("/race")
    children = [subprocess.Popen([sys.executable, "-c", textwrap.dedent(CREATE_SEQUENTIAL),
                                  json.dumps(cluster_conf), "20", "w%d" % i],
                                 stderr=subprocess.PIPE,
                                 env=child_env())
                for i in range(4)]
    for child in children:
        _, err = child.communicate(timeout=120)
        assert child.returncode == 0, err.decode()
    names = open_backend().get_children("/race")
    assert sorted(names) == ["n%010d" % i for i in range(80)]


# Embedded store only


def test_embedded_store_persists_across_close_and_reopen(embedded_conf):
    """Persistent nodes written by one session are read back by a later one."""
    first = make_backend(embedded_conf)
    assert isinstance(first, EmbeddedBackend)
    first.set_data("/storms/t-1", b"base")
    first.create("/eph", b"", ephemeral=True)
    first.close()
    second = make_backend(embedded_conf)
    try:
        assert second.get("/storms/t-1") == b"base"
        assert not second.exists("/eph")
    finally:
        second.close()


READ_THEN_WRITE = """
    import json, sys
    from pynimbus.cluster import make_backend
    backend = make_backend(json.loads(sys.argv[1]))
    print(backend.get("/from-parent").decode())
    backend.set_data("/from-child", b"hello parent")
    backend.close()
"""


def test_embedded_store_is_shared_between_processes(embedded_conf):
    """Another process reads this one's writes, and this one reads its writes."""
    backend = make_backend(embedded_conf)
    try:
        backend.set_data("/from-parent", b"hello child")
        assert run_child(READ_THEN_WRITE, embedded_conf).strip() == "hello child"
        assert backend.get("/from-child") == b"hello parent"
    finally:
        backend.close()


def test_embedded_sessions_leave_no_lock_files_behind(embedded_conf):
    """Closing a session removes its lock file."""
    backend = make_backend(embedded_conf)
    sessions = os.path.join(backend.directory, "sessions")
    assert os.listdir(sessions) == [backend.session_id + ".lock"]
    backend.close()
    assert os.listdir(sessions) == []


def test_one_backend_is_safe_to_share_between_threads(open_backend):
    """Threads (as deferToThread uses) sharing one backend lose no writes and see no errors."""
    import threading
    backend = open_backend()
    backend.mkdirs("/threads/seq")
    failures = []

    def work(i):
        try:
            for j in range(25):
                backend.set_data("/threads/t%d" % i, b"%d" % j)
                backend.create("/threads/seq/s", b"", sequential=True)
                assert backend.get("/threads/t%d" % i) == b"%d" % j
        except Exception as e:  # reported below; an assert here would be lost in the thread
            failures.append(e)

    threads = [threading.Thread(target=work, args=(i,)) for i in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    assert failures == []
    assert sorted(backend.get_children("/threads/seq")) == ["s%010d" % i for i in range(200)]
    assert all(backend.get("/threads/t%d" % i) == b"24" for i in range(8))


def test_an_unreachable_zookeeper_raises_connection_lost(embedded_conf):
    """With no server at the address, make_backend gives up with ConnectionLostError."""
    from pynimbus.cluster import ConnectionLostError
    from zookeeper_server import free_port
    conf = dict(embedded_conf, **{"storm.zookeeper.servers": ["127.0.0.1"],
                                  "storm.zookeeper.port": free_port(),
                                  "storm.zookeeper.connection.timeout": 500})
    with pytest.raises(ConnectionLostError, match="could not connect to ZooKeeper"):
        make_backend(conf)
