# -*- test-case-name: tests.test_blobstore_synchronizer -*-
"""Tests for pynimbus.blobstore.synchronizer: a follower's blob store follows the leader's.

Two real LocalFsBlobStores, one in-memory /blobstore state, and the leader's BlobsHandler
standing in for its Thrift port (the calls a remote NimbusClient would make, run at once).
"""

import pytest

from pynimbus.blobstore.local import LocalFsBlobStore
from pynimbus.blobstore.synchronizer import BlobSynchronizer
from pynimbus.generated.storm.ttypes import BeginDownloadResult, SettableBlobMeta
from pynimbus.handlers.blobs import BlobsHandler

from sync_deferreds import run_now
from test_handlers_blobs import FakeBlobState

LEADER = "nimbus-a:6627"
FOLLOWER = "nimbus-b:6627"


class SharedBlobState(FakeBlobState):
    def blobstore(self):
        return self.active_keys()


class Peer:
    """A nimbus's blob calls as a client sees them (a context manager, like NimbusClient)."""

    def __init__(self, handler):
        self.handler = handler
        self.calls = []

    def __enter__(self):
        return self

    def __exit__(self, *exc_info):
        return False

    def __getattr__(self, method):
        def call(*args):
            self.calls.append(method)
            return getattr(self.handler, method)(*args)
        return call


@pytest.fixture
def state():
    return SharedBlobState()


@pytest.fixture
def leader(tmp_path, state, clock):
    store = LocalFsBlobStore(base_dir=str(tmp_path / "a"), clock=clock)
    conf = {"nimbus.blobstore.expiration.secs": 600,
            "storm.blobstore.inputstream.buffer.size.bytes": 4}  # several chunks per blob
    return BlobsHandler(conf, store, state, LEADER, run_blocking=run_now, clock=clock)


@pytest.fixture
def follower_store(tmp_path, clock):
    return LocalFsBlobStore(base_dir=str(tmp_path / "b"), clock=clock)


@pytest.fixture
def peer(leader):
    return Peer(leader)


@pytest.fixture
def synchronizer(follower_store, state, peer):
    def open_client(host, port):
        assert (host, port) == ("nimbus-a", 6627)
        return peer
    return BlobSynchronizer(follower_store, state, FOLLOWER, open_client=open_client)


def put(leader, key, data, update=False):
    """Create (or update) a blob as Storm's client does, then register its state (on a
    handler or a NimbusClient alike)."""
    session = (leader.beginUpdateBlob(key) if update
               else leader.beginCreateBlob(key, SettableBlobMeta(acl=[])))
    leader.uploadBlobChunk(session, data)
    leader.finishBlobUpload(session)
    leader.createStateInZookeeper(key)


def test_missing_blobs_are_copied_and_registered_with_the_leaders_version(
        leader, follower_store, state, synchronizer):
    """A key only the leader holds is downloaded in chunks and registered as
    <follower>-<the leader's sequence number>."""
    put(leader, "t-1-stormcode.ser", b"the topology code")
    plan = synchronizer.sync_blobs()
    assert plan.to_download == ["t-1-stormcode.ser"]
    assert follower_store.read_blob("t-1-stormcode.ser") == b"the topology code"
    assert state.blobstore_info("t-1-stormcode.ser") == [LEADER + "-1", FOLLOWER + "-1"]
    assert synchronizer.sync_blobs() == ([], ["t-1-stormcode.ser"], [])  # nothing to copy


def test_an_update_on_the_leader_is_copied_once(leader, follower_store, state, synchronizer,
                                                peer):
    """A newer version on the leader replaces the follower's copy; after that the follower is
    among the latest holders and copies nothing more."""
    put(leader, "k", b"one")
    synchronizer.sync_blobs()
    put(leader, "k", b"two", update=True)
    assert state.blobstore_info("k") == [LEADER + "-2", FOLLOWER + "-1"]
    synchronizer.sync_blobs()
    assert follower_store.read_blob("k") == b"two"
    assert state.blobstore_info("k") == [LEADER + "-2", FOLLOWER + "-2"]
    peer.calls.clear()
    synchronizer.sync_blobs()
    assert peer.calls == []


def test_a_blob_the_leader_deleted_is_deleted(leader, follower_store, synchronizer):
    """A local key /blobstore no longer lists goes."""
    put(leader, "k", b"data")
    synchronizer.sync_blobs()
    leader.deleteBlob("k")
    assert synchronizer.sync_blobs().to_delete == ["k"]
    assert follower_store.list_keys() == []


def test_a_short_download_leaves_nothing_and_registers_nothing(
        leader, follower_store, state, synchronizer, peer, monkeypatch):
    """A download that ends before the announced size is dropped; the next sync retries."""
    put(leader, "k", b"0123456789")
    real_begin = leader.beginBlobDownload

    def lying_begin(key):
        begun = real_begin(key)
        return BeginDownloadResult(version=begun.version, session=begun.session,
                                   data_size=begun.data_size + 1)

    monkeypatch.setattr(leader, "beginBlobDownload", lying_begin)
    assert synchronizer.copy_blob("k") is False
    assert follower_store.list_keys() == []
    assert state.blobstore_info("k") == [LEADER + "-1"]
    monkeypatch.undo()
    synchronizer.sync_blobs()
    assert follower_store.read_blob("k") == b"0123456789"


def test_an_unreachable_holder_is_logged_and_retried_later(
        follower_store, state, caplog):
    """A holder that cannot be reached leaves the key missing, with the reason in the log."""
    state.setup_blobstore("k", LEADER, 1)

    def refuse(host, port):
        raise ConnectionRefusedError("connection refused")

    synchronizer = BlobSynchronizer(follower_store, state, FOLLOWER, open_client=refuse)
    assert synchronizer.sync_blobs().to_download == ["k"]
    assert follower_store.list_keys() == []
    assert "Could not copy blob k from nimbus %s" % LEADER in caplog.text


def test_a_read_of_a_listed_key_this_nimbus_lacks_copies_it_first(
        leader, follower_store, state, synchronizer, clock):
    """getBlobMeta, beginBlobDownload and getBlobReplication on a nimbus that has not synced a
    key yet copy it from its holder first (LocalFsBlobStore.checkForBlobOrDownload); a key
    /blobstore does not list stays unknown."""
    from pynimbus.generated.storm.ttypes import KeyNotFoundException
    follower = BlobsHandler({}, follower_store, state, FOLLOWER, run_blocking=run_now,
                            clock=clock)
    follower.synchronizer = synchronizer
    put(leader, "k", b"held by the leader")
    assert follower.getBlobMeta("k").settable == leader.getBlobMeta("k").settable
    assert follower_store.read_blob("k") == b"held by the leader"
    assert follower.getBlobReplication("k") == 2
    put(leader, "j", b"another")
    assert follower.beginBlobDownload("j").data_size == len(b"another")
    with pytest.raises(KeyNotFoundException):
        follower.getBlobMeta("nobody-has-it")
