"""The worker's ``/transactional`` store (:mod:`pynimbus.worker.trident.transactional_state`)
on ZooKeeper and on the embedded store: writes land in order in Storm's layout, each as one
request where the state knows whether its node exists, a belief proved wrong falls back, and
``when_written`` fires only once what was queued before it is stored."""

import queue

import pytest

from pynimbus.worker.trident.transactional_state import TransactionalStore, transactional_conf


class ThreadCalls(object):
    """The reactor's ``callFromThread``, run by :meth:`pump` in the test's thread."""

    def __init__(self):
        self.calls = queue.Queue()

    def callFromThread(self, f, *args, **kwargs):
        self.calls.put((f, args, kwargs))

    def pump(self, until, timeout=10.0):
        while not until():
            f, args, kwargs = self.calls.get(timeout=timeout)
            f(*args, **kwargs)


def fired(d):
    result = []
    d.addBoth(result.append)
    return lambda: bool(result)


@pytest.fixture
def store(cluster_conf):
    reactor = ThreadCalls()
    store = TransactionalStore(reactor, cluster_conf)
    yield store
    done = store.close()
    reactor.pump(fired(done))


def stored(open_backend, cluster_conf, path):
    """``{relative path: bytes}`` under ``path`` of ``/transactional``, read afresh."""
    backend = open_backend(transactional_conf(cluster_conf))
    found = {}

    def walk(rel):
        for child in sorted(backend.get_children(path + rel)):
            found[(rel + "/" + child).lstrip("/")] = backend.get(path + rel + "/" + child)
            walk(rel + "/" + child)
    walk("")
    return found


def test_writes_land_in_order_and_when_written_waits_for_them(store, open_backend,
                                                              cluster_conf):
    store.reactor.pump(fired(store.preload([("corpus", "coordinator")])))
    state = store.state("corpus", "coordinator")
    state.set_data("currtx", 5)          # a new node: created
    state.set_data("currtx", 6)          # now known: set
    state.set_data("meta/3", 1)          # its parent missing: made with it (Storm's 7)
    state.set_data("meta/4", 2)          # under a known parent: created
    state.delete("meta/3")               # a leaf
    state.set_data("currattempts", {"4": 0})
    assert store.pending
    written = fired(store.when_written())
    store.reactor.pump(written)
    assert not store.pending
    assert stored(open_backend, cluster_conf, "/corpus/coordinator") == {
        "currtx": b"6", "meta": b"\x07", "meta/4": b"2", "currattempts": b'{"4":0}'}
    state.delete("meta")                 # with children
    store.reactor.pump(fired(store.when_written()))
    assert set(stored(open_backend, cluster_conf, "/corpus/coordinator")) == {
        "currtx", "currattempts"}


def test_a_node_changed_behind_the_states_back_is_still_written(store, open_backend,
                                                                cluster_conf):
    store.reactor.pump(fired(store.preload([("corpus", "user")])))
    state = store.state("corpus", "user")
    state.set_data("partition-0/1", {"offset": 0})
    store.reactor.pump(fired(store.when_written()))
    other = open_backend(transactional_conf(cluster_conf))
    other.delete("/corpus/user/partition-0")     # it believes both exist
    other.set_data("/corpus/user/partition-1", b"7")  # it believes this one does not
    state.set_data("partition-0/1", {"offset": 2})
    state.set_data("partition-1", 7)
    store.reactor.pump(fired(store.when_written()))
    assert stored(open_backend, cluster_conf, "/corpus/user") == {
        "partition-0": b"\x07", "partition-0/1": b'{"offset":2}', "partition-1": b"7"}


def test_when_written_fires_at_once_with_nothing_pending(store):
    assert fired(store.when_written())()
