"""Tests for pynimbus.handlers.files: the Thrift file-transfer methods, called directly."""

import os

import pytest
from thrift.Thrift import TApplicationException
from twisted.internet import defer

from pynimbus.blobstore.inbox import Inbox
from pynimbus.blobstore.local import LocalFsBlobStore
from pynimbus.generated.storm.ttypes import AuthorizationException
from pynimbus.handlers import NimbusHandler
from pynimbus.handlers.files import FilesHandler

from sync_deferreds import result_of, run_now

CHUNK = 307200


def run_deferred(function, *args):
    return defer.maybeDeferred(function, *args)


@pytest.fixture
def conf(tmp_path):
    return {"storm.local.dir": str(tmp_path / "storm-local"),
            "nimbus.file.copy.expiration.secs": 600,
            "nimbus.inbox.jar.expiration.secs": 3600,
            "storm.blobstore.inputstream.buffer.size.bytes": 65536}


@pytest.fixture
def store(tmp_path):
    return LocalFsBlobStore(base_dir=str(tmp_path / "storm-local" / "blobs"))


@pytest.fixture
def files(conf, store):
    return FilesHandler(conf, blob_store=store, run_blocking=run_now)


def download_all(handler, download_id):
    chunks = []
    while True:
        chunk = handler.downloadChunk(download_id)
        if not chunk:
            return chunks
        chunks.append(chunk)


def test_storm_jar_upload_then_download_gives_identical_bytes(files):
    """A 5 MB jar sent in 307200-byte chunks downloads back identical, in 65536-byte chunks."""
    data = os.urandom(5 * 1024 * 1024)
    location = files.beginFileUpload()
    for offset in range(0, len(data), CHUNK):
        assert files.uploadChunk(location, data[offset:offset + CHUNK]) is None
    assert files.finishFileUpload(location) is None
    assert files.inbox.uploaded_jar_path(location) == location
    chunks = download_all(files, files.beginFileDownload(location))
    assert max(len(c) for c in chunks) == 65536
    assert b"".join(chunks) == data


def test_upload_to_unknown_location_is_an_internal_error_with_advice(files):
    """uploadChunk for a location nimbus never gave is TApplicationException INTERNAL_ERROR
    whose message says what to do."""
    with pytest.raises(TApplicationException) as info:
        files.uploadChunk("/tmp/anything.jar", b"x")
    assert info.value.type == TApplicationException.INTERNAL_ERROR
    assert "does not exist (or timed out)" in info.value.message
    assert "beginFileUpload" in info.value.message
    assert not os.path.exists("/tmp/anything.jar")


def test_finish_twice_is_an_internal_error(files):
    """A second finishFileUpload for one location fails; the jar stays."""
    location = files.beginFileUpload()
    files.uploadChunk(location, b"jar")
    files.finishFileUpload(location)
    with pytest.raises(TApplicationException):
        files.finishFileUpload(location)
    with open(location, "rb") as f:
        assert f.read() == b"jar"


def test_begin_file_download_of_a_blob_key_reads_the_blob(files, store):
    """As Storm 1.2.4, beginFileDownload accepts a blob key."""
    store.create_blob_from_bytes("t-1-1-stormcode.ser", b"code")
    assert download_all(files, files.beginFileDownload("t-1-1-stormcode.ser")) == [b"code"]


def test_begin_file_download_of_unknown_names(files):
    """An invalid name is AuthorizationException (Storm's validateKey); a valid key with no
    blob is an internal error naming the file."""
    with pytest.raises(AuthorizationException):
        files.beginFileDownload("../../etc/passwd")
    with pytest.raises(TApplicationException) as info:
        files.beginFileDownload("no-such-blob")
    assert "no-such-blob" in info.value.message


def test_download_chunk_with_unknown_id_is_an_internal_error(files):
    """downloadChunk with an id nimbus never gave is TApplicationException INTERNAL_ERROR."""
    with pytest.raises(TApplicationException) as info:
        files.downloadChunk("nope")
    assert info.value.type == TApplicationException.INTERNAL_ERROR


def test_methods_return_deferreds_from_the_runner(conf, tmp_path):
    """With a Deferred-returning runner, results and failures arrive through Deferreds."""
    handler = FilesHandler(conf, run_blocking=run_deferred)
    location = result_of(handler.beginFileUpload())
    assert result_of(handler.uploadChunk(location, b"abc")) is None
    assert result_of(handler.finishFileUpload(location)) is None
    with pytest.raises(TApplicationException):
        result_of(handler.uploadChunk(location, b"late"))


def test_composed_nimbus_handler_passes_our_message_to_the_client(conf):
    """Composed into NimbusHandler, an unknown location reaches the client as
    TApplicationException INTERNAL_ERROR with our message."""
    nimbus = NimbusHandler(FilesHandler(conf, run_blocking=run_now))
    with pytest.raises(TApplicationException) as info:
        result_of(nimbus.uploadChunk("bogus", b"x"))
    assert info.value.type == TApplicationException.INTERNAL_ERROR
    assert "does not exist (or timed out)" in info.value.message


def test_clean_inbox_and_expiry_run_through_the_runner(conf):
    """clean_inbox and expire_sessions pass their time to the inbox."""
    clock = [1000.0]
    inbox = Inbox(conf, clock=lambda: clock[0])
    handler = FilesHandler(conf, inbox=inbox, run_blocking=run_now)
    location = handler.beginFileUpload()
    handler.finishFileUpload(location)
    handler.beginFileUpload()
    assert handler.expire_sessions(now=1600.0) == 1
    assert handler.clean_inbox(now=4600.0) == [location]


def test_upload_past_the_limit_is_an_internal_error_naming_the_setting(conf, store):
    """uploadChunk past pynimbus.upload.max.bytes gets INTERNAL_ERROR (what Storm's clients
    see for an undeclared failure) whose message names the setting; the location is closed."""
    conf["pynimbus.upload.max.bytes"] = CHUNK
    files = FilesHandler(conf, blob_store=store, run_blocking=run_now)
    location = files.beginFileUpload()
    files.uploadChunk(location, b"j" * CHUNK)
    with pytest.raises(TApplicationException) as info:
        files.uploadChunk(location, b"j")
    assert info.value.type == TApplicationException.INTERNAL_ERROR
    assert "pynimbus.upload.max.bytes (307200 bytes)" in info.value.message
    with pytest.raises(TApplicationException) as info:
        files.finishFileUpload(location)
    assert "does not exist (or timed out)" in info.value.message
