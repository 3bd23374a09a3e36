"""Tests for pynimbus.blobstore.local: the file-system blob store."""

import os

import pytest

from pynimbus.blobstore.errors import BlobConflictError, InvalidReplicationError
from pynimbus.blobstore.local import LocalFsBlobStore, blobstore_dir
from pynimbus.generated.storm.ttypes import (
    AccessControl, AccessControlType, AuthorizationException, KeyAlreadyExistsException,
    KeyNotFoundException, SettableBlobMeta)


CHUNK = 307200


@pytest.fixture
def base(tmp_path):
    return str(tmp_path / "blobs")


@pytest.fixture
def store(base, clock):
    return LocalFsBlobStore(base_dir=base, clock=clock)


def all_files(root):
    return sorted(os.path.relpath(os.path.join(d, f), root)
                  for d, _, files in os.walk(root) for f in files)


def meta(replication=None):
    return SettableBlobMeta(acl=[], replication_factor=replication)


def test_blobs_live_under_storm_local_dir_blobs(tmp_path):
    """Without blobstore.dir, blobs go to <storm.local.dir>/blobs, as Storm's."""
    assert blobstore_dir({"storm.local.dir": str(tmp_path)}) == str(tmp_path / "blobs")
    assert blobstore_dir({"storm.local.dir": "x", "blobstore.dir": str(tmp_path / "b")}) == str(
        tmp_path / "b" / "blobs")


def test_created_blob_reads_back_with_meta_and_version(store, clock):
    """A created blob has its bytes, a normalised ACL, and the commit time in ms as version."""
    version = store.create_blob_from_bytes("k1", b"hello", meta(replication=2))
    assert version == int(clock.now * 1000)
    assert store.read_blob("k1") == b"hello"
    readable = store.get_blob_meta("k1")
    assert readable.version == version
    assert readable.settable.replication_factor == 2
    assert [(c.type, c.access) for c in readable.settable.acl] == [(AccessControlType.OTHER, 7)]
    with store.get_blob("k1") as reader:
        assert (reader.version, reader.size) == (version, 5)


def test_store_survives_reopen(base, store):
    """Keys, bytes, metadata and versions are the same after opening the directory again."""
    store.create_blob_from_bytes("a", b"A" * 1000, meta(replication=3))
    store.create_blob_from_bytes("b c:d", b"")
    store.update_blob_from_bytes("a", b"new")
    before = {k: (store.read_blob(k), store.get_blob_meta(k)) for k in store.list_keys()}
    reopened = LocalFsBlobStore(base_dir=base)
    assert reopened.list_keys() == ["a", "b c:d"]
    assert {k: (reopened.read_blob(k), reopened.get_blob_meta(k)) for k in reopened.list_keys()
            } == before


def test_five_megabytes_in_upload_chunks_read_back_identical(store):
    """A 5 MB blob written in 307200-byte chunks reads back byte for byte."""
    data = os.urandom(5 * 1024 * 1024)
    writer = store.create_blob("big", meta())
    for offset in range(0, len(data), CHUNK):
        writer.write(data[offset:offset + CHUNK])
    writer.commit()
    assert store.read_blob("big") == data
    assert store.get_blob("big").size == len(data)


def test_creating_an_existing_key_leaves_the_blob_unchanged(store):
    """create_blob on an existing key raises KeyAlreadyExistsException and changes nothing."""
    store.create_blob_from_bytes("k", b"original")
    before = store.get_blob_meta("k")
    with pytest.raises(KeyAlreadyExistsException) as info:
        store.create_blob("k", meta(replication=9))
    assert info.value.msg == "k"
    assert store.read_blob("k") == b"original"
    assert store.get_blob_meta("k") == before


def test_second_create_commit_conflicts_and_keeps_the_first(store, base):
    """Two creates of one key: the second commit fails and the first blob stays."""
    first = store.create_blob("k", meta())
    second = store.create_blob("k", meta())
    first.write(b"first")
    second.write(b"second")
    first.commit()
    with pytest.raises(BlobConflictError):
        second.commit()
    assert store.read_blob("k") == b"first"
    assert os.listdir(os.path.join(base, ".tmp")) == []


def test_update_changes_content_and_version_and_old_readers_keep_old_bytes(store, clock):
    """An update makes a strictly newer version; a reader opened before still reads the old."""
    v1 = store.create_blob_from_bytes("k", b"one")
    reader = store.get_blob("k")
    v2 = store.update_blob_from_bytes("k", b"two")  # same clock: still a newer version
    v3 = store.update_blob_from_bytes("k", b"three")
    assert v1 < v2 < v3
    assert store.read_blob("k") == b"three"
    assert store.get_blob_meta("k").version == v3
    assert reader.read() == b"one"
    reader.close()


def test_open_readers_hold_no_descriptor_and_keep_their_version_through_deletion(store, base):
    """200 readers left open hold no file descriptor; each still reads the version it opened
    after the blob is deleted, in pieces, and closing it leaves nothing behind."""
    store.create_blob_from_bytes("k", b"first version")
    before = len(os.listdir("/proc/self/fd"))
    readers = [store.get_blob("k") for _ in range(200)]
    assert len(os.listdir("/proc/self/fd")) <= before
    store.delete_blob("k")
    assert readers[0].read(5) == b"first"
    assert readers[0].read() == b" version"
    assert readers[0].read(5) == b""
    for reader in readers:
        reader.close()
    assert all_files(base) == []


def test_version_is_stable_until_the_blob_changes(store, clock):
    """Reading metadata or setting the ACL does not change the version."""
    version = store.create_blob_from_bytes("k", b"x")
    clock.now += 100
    store.set_blob_meta("k", meta())
    assert store.get_blob_meta("k").version == version


def test_update_of_a_missing_key_is_key_not_found(store):
    """update_blob on a missing key raises KeyNotFoundException(msg=key)."""
    with pytest.raises(KeyNotFoundException) as info:
        store.update_blob("nope")
    assert info.value.msg == "nope"


def test_update_of_a_key_deleted_meanwhile_conflicts(store):
    """An update whose key is deleted before commit fails and does not resurrect the key."""
    store.create_blob_from_bytes("k", b"x")
    writer = store.update_blob("k")
    writer.write(b"y")
    store.delete_blob("k")
    with pytest.raises(BlobConflictError):
        writer.commit()
    assert not store.has_blob("k")


def test_cancelled_upload_leaves_no_trace(store, base):
    """Cancelling a create or an update leaves the store and its directory as before."""
    store.create_blob_from_bytes("k", b"keep")
    files = all_files(base)
    creating = store.create_blob("new", meta())
    creating.write(b"partial")
    updating = store.update_blob("k")
    updating.write(b"partial")
    creating.cancel()
    updating.cancel()
    assert store.list_keys() == ["k"]
    assert store.read_blob("k") == b"keep"
    assert all_files(base) == files


def test_delete_removes_the_blob_for_good(store, base):
    """A deleted blob is gone, also after reopening; deleting again is KeyNotFoundException."""
    store.create_blob_from_bytes("k", b"x")
    store.delete_blob("k")
    assert store.list_keys() == []
    with pytest.raises(KeyNotFoundException):
        store.get_blob_meta("k")
    with pytest.raises(KeyNotFoundException):
        store.delete_blob("k")
    assert LocalFsBlobStore(base_dir=base).list_keys() == []
    assert all_files(base) == []


def test_set_blob_meta_replaces_acl_and_persists(store, base):
    """setBlobMeta stores the new normalised metadata, kept across reopen."""
    store.create_blob_from_bytes("k", b"x", meta(replication=2))
    acl = [AccessControl(type=AccessControlType.OTHER, access=1)]
    store.set_blob_meta("k", SettableBlobMeta(acl=acl))
    settable = LocalFsBlobStore(base_dir=base).get_blob_meta("k").settable
    assert [(c.type, c.access) for c in settable.acl] == [(1, 1), (1, 7)]
    assert settable.replication_factor is None


def test_set_blob_meta_with_duplicate_user_changes_nothing(store):
    """An ACL naming a user twice is refused and the stored metadata stays."""
    store.create_blob_from_bytes("k", b"x")
    before = store.get_blob_meta("k")
    acl = [AccessControl(type=AccessControlType.USER, name="u", access=1)] * 2
    with pytest.raises(AuthorizationException):
        store.set_blob_meta("k", SettableBlobMeta(acl=acl))
    assert store.get_blob_meta("k") == before


def test_replication_is_one_and_update_records_the_factor(store):
    """One nimbus holds one copy; update_blob_replication records the desired factor."""
    store.create_blob_from_bytes("k", b"x")
    assert store.get_blob_replication("k") == 1
    assert store.update_blob_replication("k", 3) == 1
    assert store.get_blob_meta("k").settable.replication_factor == 3
    with pytest.raises(InvalidReplicationError):
        store.update_blob_replication("k", 0)
    with pytest.raises(KeyNotFoundException):
        store.get_blob_replication("missing")


@pytest.mark.parametrize("key", ["../x", "a/b", "", ".", "..", "/abs", "../../escape"])
def test_invalid_keys_are_refused_everywhere_and_write_nothing(store, base, tmp_path, key):
    """Every operation refuses an invalid key with AuthorizationException and no file appears."""
    before = all_files(str(tmp_path))
    calls = [
        lambda: store.create_blob(key, meta()),
        lambda: store.create_blob_from_bytes(key, b"x"),
        lambda: store.update_blob(key),
        lambda: store.get_blob(key),
        lambda: store.get_blob_meta(key),
        lambda: store.set_blob_meta(key, meta()),
        lambda: store.delete_blob(key),
        lambda: store.get_blob_replication(key),
        lambda: store.update_blob_replication(key, 2),
    ]
    for call in calls:
        with pytest.raises(AuthorizationException):
            call()
    assert all_files(str(tmp_path)) == before


def test_opening_cleans_up_after_a_crash(store, base):
    """Half-written creates, orphaned data files and temp files are removed on open;
    files the store did not write are left alone."""
    store.create_blob_from_bytes("k", b"x")
    key_dir = [d for d in os.listdir(base) if d != ".tmp"][0]
    open(os.path.join(base, key_dir, "data-99999999999999"), "wb").close()  # update crashed
    os.mkdir(os.path.join(base, "f" * 64))  # create crashed before meta.json
    open(os.path.join(base, ".tmp", "upload"), "wb").close()
    open(os.path.join(base, "README"), "w").close()
    reopened = LocalFsBlobStore(base_dir=base)
    assert reopened.list_keys() == ["k"]
    assert reopened.read_blob("k") == b"x"
    assert sorted(os.listdir(base)) == sorted([".tmp", key_dir, "README"])
    assert os.listdir(os.path.join(base, ".tmp")) == []
    assert len(os.listdir(os.path.join(base, key_dir))) == 2
