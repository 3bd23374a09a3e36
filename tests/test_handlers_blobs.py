"""Tests for pynimbus.handlers.blobs: the Thrift blob methods, called directly with an
in-memory fake of the ZooKeeper blob state."""

import os

import pytest
from thrift.Thrift import TApplicationException
from twisted.internet import defer

from pynimbus.blobstore.local import LocalFsBlobStore
from pynimbus.generated.storm.ttypes import (
    AccessControl, AccessControlType, AuthorizationException, BeginDownloadResult,
    IllegalStateException, KeyAlreadyExistsException, KeyNotFoundException, SettableBlobMeta)
from pynimbus.handlers import NimbusHandler
from pynimbus.handlers.blobs import BlobsHandler

from sync_deferreds import result_of, run_now

CHUNK = 307200
ME = "nimbus.example.com:6627"


class FakeBlobState:
    """In memory: /blobstore/<key> children and /blobstoremaxkeysequencenumber/<key>."""

    def __init__(self, missing=None):
        self.nodes = {}       # key -> set of "host:port-seq"
        self.max_seq = {}     # key -> int
        self.missing = missing  # what blobstore_info answers for a key without a node

    def setup_blobstore(self, key, nimbus_host_port, version):
        children = self.nodes.setdefault(key, set())
        children -= {c for c in children if c.startswith(nimbus_host_port + "-")}
        children.add("%s-%d" % (nimbus_host_port, version))

    def active_keys(self):
        return sorted(self.nodes)

    def blobstore_info(self, key):
        return sorted(self.nodes[key]) if key in self.nodes else self.missing

    def remove_blobstore_key(self, key):
        self.nodes.pop(key, None)

    def forget_held_blob(self, key):
        pass  # nothing here outlives a session

    def remove_key_version(self, key):
        self.max_seq.pop(key, None)

    def get_max_sequence_number(self, key):
        return self.max_seq.get(key)

    def set_max_sequence_number(self, key, n):
        self.max_seq[key] = n


@pytest.fixture
def base(tmp_path):
    return str(tmp_path / "blobs")


@pytest.fixture
def store(base, clock):
    return LocalFsBlobStore(base_dir=base, clock=clock)


@pytest.fixture
def state():
    return FakeBlobState()


@pytest.fixture
def conf():
    return {"nimbus.blobstore.expiration.secs": 600,
            "storm.blobstore.inputstream.buffer.size.bytes": 65536}


@pytest.fixture
def blobs(conf, store, state, clock):
    return BlobsHandler(conf, store, state, ME, run_blocking=run_now, clock=clock)


def all_files(root):
    return sorted(os.path.relpath(os.path.join(d, f), root)
                  for d, _, files in os.walk(root) for f in files)


def meta():
    return SettableBlobMeta(acl=[AccessControl(type=AccessControlType.USER, access=7),
                                 AccessControl(type=AccessControlType.OTHER, access=1)])


def create(blobs, key, data, chunk=CHUNK):
    """What NimbusBlobStore does: begin, chunks, finish, createStateInZookeeper."""
    session = blobs.beginCreateBlob(key, meta())
    for offset in range(0, len(data), chunk):
        blobs.uploadBlobChunk(session, data[offset:offset + chunk])
    blobs.finishBlobUpload(session)
    blobs.createStateInZookeeper(key)


def download(blobs, key):
    result = blobs.beginBlobDownload(key)
    chunks = []
    while True:
        chunk = blobs.downloadBlobChunk(result.session)
        if not chunk:
            return result, chunks
        chunks.append(chunk)


def assert_internal_error(call, *words):
    with pytest.raises(TApplicationException) as info:
        call()
    assert info.value.type == TApplicationException.INTERNAL_ERROR
    for word in words:
        assert word in info.value.message
    return info.value


def test_five_megabyte_blob_round_trips_with_data_size(blobs):
    """A 5 MB blob uploaded in 307200-byte chunks downloads identical, with data_size set and
    chunks of at most 65536 bytes ending in an empty one."""
    data = os.urandom(5 * 1024 * 1024)
    create(blobs, "dep-big-1.jar", data)
    result, chunks = download(blobs, "dep-big-1.jar")
    assert isinstance(result, BeginDownloadResult)
    assert result.data_size == len(data)
    assert result.version == blobs.getBlobMeta("dep-big-1.jar").version
    assert max(len(c) for c in chunks) == 65536
    assert b"".join(chunks) == data
    assert_internal_error(lambda: blobs.downloadBlobChunk(result.session), "beginBlobDownload")


def test_create_registers_version_one_and_update_version_two(blobs, state, clock):
    """createStateInZookeeper after a create registers host:port-1; after an update -2."""
    create(blobs, "k", b"v1")
    assert state.blobstore_info("k") == [ME + "-1"]
    assert state.max_seq["k"] == 1
    version = blobs.getBlobMeta("k").version
    session = blobs.beginUpdateBlob("k")
    blobs.uploadBlobChunk(session, b"v2")
    blobs.finishBlobUpload(session)
    blobs.createStateInZookeeper("k")
    assert state.blobstore_info("k") == [ME + "-2"]
    assert state.max_seq["k"] == 2
    assert blobs.getBlobMeta("k").version > version
    assert b"".join(download(blobs, "k")[1]) == b"v2"


def test_versions_also_work_when_missing_nodes_read_as_empty(conf, store, clock):
    """A state store answering [] for a missing /blobstore/<key> still gives versions 1, 2."""
    state = FakeBlobState(missing=[])
    blobs = BlobsHandler(conf, store, state, ME, run_blocking=run_now, clock=clock)
    create(blobs, "k", b"v1")
    assert state.blobstore_info("k") == [ME + "-1"]
    blobs.createStateInZookeeper("k")
    assert state.blobstore_info("k") == [ME + "-2"] and state.max_seq["k"] == 2
    blobs.deleteBlob("k")
    create(blobs, "k", b"again")
    assert state.blobstore_info("k") == [ME + "-1"]


def test_create_on_existing_key_leaves_everything_unchanged(blobs, store, base, state):
    """A failed beginCreateBlob on an existing key raises KeyAlreadyExistsException(key) and
    leaves the blob, its metadata, its ZooKeeper state and the disk as they were."""
    create(blobs, "k", b"original")
    before = (blobs.getBlobMeta("k"), store.read_blob("k"), dict(state.max_seq),
              state.blobstore_info("k"), all_files(base))
    with pytest.raises(KeyAlreadyExistsException) as info:
        blobs.beginCreateBlob("k", SettableBlobMeta(acl=[], replication_factor=5))
    assert info.value.msg == "k"
    assert (blobs.getBlobMeta("k"), store.read_blob("k"), dict(state.max_seq),
            state.blobstore_info("k"), all_files(base)) == before


def test_invalid_keys_get_authorization_exception_and_leave_no_state(blobs, base, state):
    """Every key-taking method refuses '../x', 'a/b', '', '.', '..' with AuthorizationException
    (createStateInZookeeper, which declares none, with INTERNAL_ERROR) and writes nothing."""
    before = all_files(base)
    for key in ("../x", "a/b", "", ".", ".."):
        for call in (lambda: blobs.beginCreateBlob(key, meta()),
                     lambda: blobs.beginUpdateBlob(key),
                     lambda: blobs.getBlobMeta(key),
                     lambda: blobs.setBlobMeta(key, meta()),
                     lambda: blobs.beginBlobDownload(key),
                     lambda: blobs.deleteBlob(key),
                     lambda: blobs.getBlobReplication(key),
                     lambda: blobs.updateBlobReplication(key, 2),
                     lambda: blobs.isRemoteBlobExists(key)):
            with pytest.raises(AuthorizationException) as info:
                call()
            assert "is not valid" in info.value.msg
        assert_internal_error(lambda: blobs.createStateInZookeeper(key), "is not valid")
    assert all_files(base) == before
    assert state.nodes == {} and state.max_seq == {}


def test_missing_keys_get_key_not_found(blobs):
    """Methods on a key that does not exist raise KeyNotFoundException(msg=key)."""
    for call in (lambda: blobs.beginUpdateBlob("gone"),
                 lambda: blobs.getBlobMeta("gone"),
                 lambda: blobs.setBlobMeta("gone", meta()),
                 lambda: blobs.beginBlobDownload("gone"),
                 lambda: blobs.deleteBlob("gone"),
                 lambda: blobs.getBlobReplication("gone"),
                 lambda: blobs.updateBlobReplication("gone", 2)):
        with pytest.raises(KeyNotFoundException) as info:
            call()
        assert info.value.msg == "gone"


def test_unknown_upload_sessions_are_internal_errors(blobs):
    """uploadBlobChunk, finishBlobUpload and cancelBlobUpload with an unknown session fail
    with INTERNAL_ERROR saying the session does not exist."""
    for call in (lambda: blobs.uploadBlobChunk("nope", b"x"),
                 lambda: blobs.finishBlobUpload("nope"),
                 lambda: blobs.cancelBlobUpload("nope")):
        assert_internal_error(call, "does not exist (or timed out)")


def test_finished_session_cannot_be_used_again(blobs):
    """After finishBlobUpload the session is gone: more chunks or a second finish fail."""
    session = blobs.beginCreateBlob("k", meta())
    blobs.uploadBlobChunk(session, b"data")
    blobs.finishBlobUpload(session)
    assert_internal_error(lambda: blobs.uploadBlobChunk(session, b"more"))
    assert_internal_error(lambda: blobs.finishBlobUpload(session))
    assert b"".join(download(blobs, "k")[1]) == b"data"


def test_cancelled_create_and_update_leave_no_trace(blobs, store, base):
    """cancelBlobUpload drops the upload: no new key, old content kept, no files left."""
    create(blobs, "k", b"keep")
    files = all_files(base)
    creating = blobs.beginCreateBlob("new", meta())
    blobs.uploadBlobChunk(creating, b"x")
    updating = blobs.beginUpdateBlob("k")
    blobs.uploadBlobChunk(updating, b"y")
    blobs.cancelBlobUpload(creating)
    blobs.cancelBlobUpload(updating)
    assert store.list_keys() == ["k"]
    assert store.read_blob("k") == b"keep"
    assert all_files(base) == files


def test_idle_upload_expires_and_is_cancelled(blobs, clock, base):
    """An upload idle for nimbus.blobstore.expiration.secs is cancelled; its session fails."""
    session = blobs.beginCreateBlob("k", meta())
    blobs.uploadBlobChunk(session, b"partial")
    clock.now += 600
    assert_internal_error(lambda: blobs.uploadBlobChunk(session, b"more"), "timed out")
    assert all_files(base) == []
    with pytest.raises(KeyNotFoundException):
        blobs.getBlobMeta("k")


def test_pending_uploads_hold_no_open_file(blobs, store):
    """200 blob creates and updates begun with a chunk each and never finished hold no file
    descriptor."""
    create(blobs, "k", b"old")
    before = len(os.listdir("/proc/self/fd"))
    sessions = [blobs.beginCreateBlob("new-%d" % i, meta()) for i in range(100)]
    sessions += [blobs.beginUpdateBlob("k") for _ in range(100)]
    for session in sessions:
        blobs.uploadBlobChunk(session, b"partial")
    assert len(os.listdir("/proc/self/fd")) <= before
    blobs.finishBlobUpload(sessions[-1])
    assert store.read_blob("k") == b"partial"


def test_pending_downloads_hold_no_open_file_and_expire_without_trace(blobs, clock, base):
    """200 blob downloads begun and never finished hold no file descriptor; when they expire
    nothing of them is left on disk."""
    create(blobs, "k", b"data" * 1000)
    files = all_files(base)
    before = len(os.listdir("/proc/self/fd"))
    sessions = [blobs.beginBlobDownload("k").session for _ in range(200)]
    for session in sessions:
        assert blobs.downloadBlobChunk(session) == b"data" * 1000
    assert len(os.listdir("/proc/self/fd")) <= before
    clock.now += 600
    assert blobs.expire_sessions() == 200
    assert all_files(base) == files


def test_chunk_past_the_upload_limit_cancels_the_upload(conf, store, state, clock, base):
    """A chunk that would take a blob past pynimbus.upload.max.bytes gets INTERNAL_ERROR naming
    the setting; the upload is cancelled and the blob stays as it was."""
    limited = dict(conf, **{"pynimbus.upload.max.bytes": 1000})
    blobs = BlobsHandler(limited, store, state, ME, run_blocking=run_now, clock=clock)
    create(blobs, "k", b"z" * 1000)
    files = all_files(base)
    for session in (blobs.beginCreateBlob("new", meta()), blobs.beginUpdateBlob("k")):
        blobs.uploadBlobChunk(session, b"y" * 600)
        assert_internal_error(lambda: blobs.uploadBlobChunk(session, b"y" * 401),
                              "pynimbus.upload.max.bytes (1000 bytes)")
        assert_internal_error(lambda: blobs.finishBlobUpload(session), "does not exist")
    assert store.list_keys() == ["k"]
    assert store.read_blob("k") == b"z" * 1000
    assert all_files(base) == files


def test_list_blobs_visits_every_key_once_in_pages(blobs, store):
    """listBlobs("") then listBlobs(session) pages 100 keys at a time until an empty list."""
    keys = {"key-%03d" % i for i in range(250)}
    for key in keys:
        store.create_blob_from_bytes(key, b"")
    result = blobs.listBlobs("")
    session, seen, sizes = result.session, [], []
    while result.keys:
        assert result.session == session
        sizes.append(len(result.keys))
        seen.extend(result.keys)
        store.create_blob_from_bytes("added-%d" % len(seen), b"")  # not in this listing
        result = blobs.listBlobs(session)
    assert sizes == [100, 100, 50]
    assert sorted(seen) == sorted(keys)
    assert_internal_error(lambda: blobs.listBlobs(session), "listBlobs")


def test_list_blobs_of_an_empty_store_ends_at_once(blobs):
    """With no blobs the first listBlobs returns no keys and a session."""
    result = blobs.listBlobs("")
    assert result.keys == [] and result.session


def test_delete_removes_blob_and_its_zookeeper_state(blobs, state, store):
    """deleteBlob removes the blob, /blobstore/<key> and the key's sequence number."""
    create(blobs, "k", b"x")
    blobs.deleteBlob("k")
    assert not store.has_blob("k")
    assert state.nodes == {} and state.max_seq == {}
    assert blobs.isRemoteBlobExists("k") is False


def test_delete_of_a_blob_in_use_is_illegal_state_and_keeps_it(conf, store, state, clock):
    """When blob_in_use names a user, deleteBlob raises IllegalStateException and keeps
    the blob and its state."""
    blobs = BlobsHandler(conf, store, state, ME, run_blocking=run_now, clock=clock,
                         blob_in_use=lambda key: "Blob %s is used by topology t-1" % key)
    create(blobs, "k", b"x")
    with pytest.raises(IllegalStateException) as info:
        blobs.deleteBlob("k")
    assert "t-1" in info.value.msg
    assert store.has_blob("k") and state.blobstore_info("k") == [ME + "-1"]


def test_replication_counts_nimbuses_in_zookeeper(blobs, store, state):
    """getBlobReplication is 0 before createStateInZookeeper and 1 after; updating it records
    the desired factor and returns the replication there is."""
    session = blobs.beginCreateBlob("k", meta())
    blobs.finishBlobUpload(session)
    assert blobs.getBlobReplication("k") == 0
    blobs.createStateInZookeeper("k")
    assert blobs.getBlobReplication("k") == 1
    assert blobs.updateBlobReplication("k", 3) == 1
    assert blobs.getBlobMeta("k").settable.replication_factor == 3
    assert_internal_error(lambda: blobs.updateBlobReplication("k", 0), "at least 1")
    assert blobs.getBlobMeta("k").settable.replication_factor == 3


def test_create_state_for_a_key_nimbus_does_not_hold_writes_nothing(blobs, state):
    """createStateInZookeeper for a valid key with no blob logs and writes no state."""
    assert blobs.createStateInZookeeper("never-uploaded") is None
    assert state.nodes == {} and state.max_seq == {}


def test_set_blob_meta_changes_acl_not_version(blobs):
    """setBlobMeta replaces the ACL (normalised) and keeps the version."""
    create(blobs, "k", b"x")
    version = blobs.getBlobMeta("k").version
    blobs.setBlobMeta("k", SettableBlobMeta(acl=[AccessControl(type=1, access=1)]))
    readable = blobs.getBlobMeta("k")
    assert readable.version == version
    assert [(c.type, c.access) for c in readable.settable.acl] == [(1, 1), (1, 7)]


def test_is_remote_blob_exists(blobs):
    """isRemoteBlobExists is True for a stored key and False for a missing one."""
    create(blobs, "k", b"x")
    assert blobs.isRemoteBlobExists("k") is True
    assert blobs.isRemoteBlobExists("other") is False


def test_setup_blobstore_deletes_unlisted_blobs_and_registers_listed_ones(blobs, store, state):
    """At start-up, local blobs ZooKeeper does not list are deleted; listed ones registered."""
    store.create_blob_from_bytes("listed", b"a")
    store.create_blob_from_bytes("unlisted", b"b")
    state.nodes["listed"] = {"old-nimbus:6627-4"}
    state.max_seq["listed"] = 4
    blobs.setup_blobstore()
    assert store.list_keys() == ["listed"]
    assert state.blobstore_info("listed") == sorted(["old-nimbus:6627-4", ME + "-5"])


def test_methods_return_deferreds_from_the_runner(conf, store, state, clock):
    """With a Deferred-returning runner, results and declared failures arrive as Deferreds."""
    blobs = BlobsHandler(conf, store, state, ME, clock=clock,
                         run_blocking=lambda f, *a: defer.maybeDeferred(f, *a))
    session = result_of(blobs.beginCreateBlob("k", meta()))
    result_of(blobs.uploadBlobChunk(session, b"abc"))
    result_of(blobs.finishBlobUpload(session))
    with pytest.raises(KeyAlreadyExistsException):
        result_of(blobs.beginCreateBlob("k", meta()))
    assert result_of(blobs.getBlobMeta("k")).version > 0


def test_composed_nimbus_handler_keeps_declared_and_mapped_errors(blobs):
    """Through NimbusHandler, KeyNotFoundException passes as declared and an unknown session
    is TApplicationException INTERNAL_ERROR with our message."""
    nimbus = NimbusHandler(blobs)
    with pytest.raises(KeyNotFoundException):
        result_of(nimbus.getBlobMeta("missing"))
    with pytest.raises(TApplicationException) as info:
        result_of(nimbus.downloadBlobChunk("nope"))
    assert "does not exist (or timed out)" in info.value.message
