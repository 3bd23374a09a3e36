"""Tests for pynimbus.blobstore.inbox: jar uploads, expiry, cleaning and file downloads."""

import os
import re
import uuid

import pytest

from pynimbus.blobstore.errors import (
    UnknownFileError, UnknownSessionError, UnknownUploadLocationError, UploadTooLargeError)
from pynimbus.blobstore.inbox import Inbox


CHUNK = 307200


@pytest.fixture
def conf(tmp_path):
    return {"storm.local.dir": str(tmp_path / "storm-local"),
            "nimbus.file.copy.expiration.secs": 600,
            "nimbus.inbox.jar.expiration.secs": 3600,
            "storm.blobstore.inputstream.buffer.size.bytes": 65536}


@pytest.fixture
def inbox(conf, clock):
    return Inbox(conf, clock=clock)


def all_files(root):
    return sorted(os.path.relpath(os.path.join(d, f), root)
                  for d, _, files in os.walk(root) for f in files)


def upload(inbox, data, chunk=CHUNK):
    location = inbox.begin_upload()
    for offset in range(0, len(data), chunk):
        inbox.upload_chunk(location, data[offset:offset + chunk])
    inbox.finish_upload(location)
    return location


def test_location_is_a_stormjar_in_the_nimbus_inbox(inbox, conf):
    """beginFileUpload's location is <storm.local.dir>/nimbus/inbox/stormjar-<uuid>.jar."""
    location = inbox.begin_upload()
    inbox_dir = os.path.join(os.path.abspath(conf["storm.local.dir"]), "nimbus", "inbox")
    assert os.path.dirname(location) == inbox_dir
    match = re.fullmatch(r"stormjar-(.*)\.jar", os.path.basename(location))
    assert str(uuid.UUID(match.group(1))) == match.group(1)


def test_uploaded_jar_is_identical_and_only_complete_at_its_location(inbox):
    """Chunks of 307200 bytes make the same bytes; the location exists only when finished."""
    data = os.urandom(5 * 1024 * 1024 + 17)
    location = inbox.begin_upload()
    for offset in range(0, len(data), CHUNK):
        inbox.upload_chunk(location, data[offset:offset + CHUNK])
        assert not os.path.exists(location)
    inbox.finish_upload(location)
    with open(inbox.uploaded_jar_path(location), "rb") as f:
        assert f.read() == data


def test_unknown_location_is_rejected(inbox):
    """uploadChunk and finishFileUpload refuse a location beginFileUpload never gave."""
    bogus = os.path.join(inbox.dir, "stormjar-%s.jar" % uuid.uuid4())
    with pytest.raises(UnknownUploadLocationError) as info:
        inbox.upload_chunk(bogus, b"x")
    assert "does not exist (or timed out)" in str(info.value)
    assert "beginFileUpload" in str(info.value)
    with pytest.raises(UnknownUploadLocationError):
        inbox.finish_upload(bogus)
    with pytest.raises(UnknownUploadLocationError):
        inbox.uploaded_jar_path(bogus)


def test_finished_location_is_rejected_and_jar_kept(inbox):
    """After finishFileUpload, more chunks or a second finish fail and the jar is unchanged."""
    location = upload(inbox, b"jar bytes")
    with pytest.raises(UnknownUploadLocationError) as info:
        inbox.upload_chunk(location, b"more")
    assert "already finished" in str(info.value)
    with pytest.raises(UnknownUploadLocationError):
        inbox.finish_upload(location)
    with open(inbox.uploaded_jar_path(location), "rb") as f:
        assert f.read() == b"jar bytes"


def test_open_upload_is_not_a_submittable_jar(inbox):
    """uploaded_jar_path refuses a location whose upload is still open."""
    location = inbox.begin_upload()
    with pytest.raises(UnknownUploadLocationError):
        inbox.uploaded_jar_path(location)


HOSTILE = [
    "", "../../../etc/passwd", "/etc/passwd", "/tmp/pynimbus-evil-%s" % uuid.uuid4(),
    "stormjar-x.jar", "..", ".", "\x00", "C:\\evil", "~/evil", "file:///etc/passwd",
]


@pytest.mark.parametrize("name", HOSTILE)
def test_no_client_string_creates_or_reads_files(inbox, tmp_path, name):
    """Any client string that is not an issued location creates no file anywhere and reads
    nothing."""
    open_location = inbox.begin_upload()
    variants = [name, os.path.join(inbox.dir, name), open_location + "/../" + name,
                open_location + ".part", os.path.join(inbox.dir, "..", "evil.jar")]
    before = all_files(str(tmp_path))
    existed = {c: os.path.lexists(c) for c in variants if isinstance(c, str) and "\x00" not in c}
    for candidate in variants:
        for call in (lambda: inbox.upload_chunk(candidate, b"payload"),
                     lambda: inbox.finish_upload(candidate),
                     lambda: inbox.uploaded_jar_path(candidate)):
            with pytest.raises(UnknownUploadLocationError):
                call()
        with pytest.raises(UnknownFileError):
            inbox.begin_download(candidate)
    assert all_files(str(tmp_path)) == before
    assert {c: os.path.lexists(c) for c in existed} == existed


def test_non_string_locations_are_rejected(inbox):
    """A location that is not a string (an unset Thrift field) is an unknown location."""
    for bogus in (None, b"bytes", 3):
        with pytest.raises(UnknownUploadLocationError):
            inbox.upload_chunk(bogus, b"x")


def test_idle_upload_expires_and_its_partial_file_is_removed(inbox, clock):
    """An upload idle for nimbus.file.copy.expiration.secs is dropped with its partial file."""
    location = inbox.begin_upload()
    inbox.upload_chunk(location, b"a")
    clock.now += 599
    inbox.upload_chunk(location, b"b")
    clock.now += 600
    with pytest.raises(UnknownUploadLocationError):
        inbox.upload_chunk(location, b"c")
    assert os.listdir(inbox.dir) == []


def test_expire_with_explicit_time(inbox, clock):
    """expire(now) closes uploads idle at that time and reports how many."""
    inbox.begin_upload()
    assert inbox.expire(now=clock.now + 10) == 0
    assert inbox.expire(now=clock.now + 600) == 1
    assert os.listdir(inbox.dir) == []


def test_clean_inbox_removes_only_old_finished_jars(inbox, clock):
    """clean_inbox(now) deletes finished jars at least nimbus.inbox.jar.expiration.secs old."""
    old = upload(inbox, b"old")
    clock.now += 1800
    young = upload(inbox, b"young")
    still_open = inbox.begin_upload()
    assert inbox.clean_inbox(now=clock.now + 1799) == []
    assert inbox.clean_inbox(now=clock.now + 1800) == [old]
    assert not os.path.exists(old)
    assert os.path.exists(young)
    with pytest.raises(UnknownUploadLocationError):
        inbox.uploaded_jar_path(old)
    inbox.upload_chunk(still_open, b"still fine")


def test_restart_keeps_finished_jars_and_drops_partial_uploads(inbox, conf):
    """A new Inbox on the same directory serves finished jars and removes partial uploads."""
    finished = upload(inbox, b"done")
    partial = inbox.begin_upload()
    inbox.upload_chunk(partial, b"half")
    restarted = Inbox(conf)
    assert restarted.uploaded_jar_path(finished) == finished
    with pytest.raises(UnknownUploadLocationError):
        restarted.upload_chunk(partial, b"rest")
    assert os.listdir(restarted.dir) == [os.path.basename(finished)]


def test_download_of_a_finished_upload_in_buffer_sized_chunks(inbox):
    """beginFileDownload of an uploaded jar yields chunks of at most 65536 bytes, then b""."""
    data = os.urandom(200000)
    download_id = inbox.begin_download(upload(inbox, data))
    chunks = []
    while True:
        chunk = inbox.download_chunk(download_id)
        if not chunk:
            break
        assert len(chunk) <= 65536
        chunks.append(chunk)
    assert b"".join(chunks) == data
    with pytest.raises(UnknownSessionError):
        inbox.download_chunk(download_id)


def test_registered_file_is_downloadable(inbox, tmp_path):
    """A file nimbus registers under a name can be downloaded by that name only."""
    path = tmp_path / "code.ser"
    path.write_bytes(b"code")
    inbox.register_download("topo-1/stormcode.ser", str(path))
    download_id = inbox.begin_download("topo-1/stormcode.ser")
    assert inbox.download_chunk(download_id) == b"code"
    inbox.unregister_download("topo-1/stormcode.ser")
    with pytest.raises(UnknownFileError):
        inbox.begin_download("topo-1/stormcode.ser")
    with pytest.raises(UnknownFileError):
        inbox.begin_download(str(path))


def test_unknown_download_id_is_an_error(inbox):
    """downloadChunk with an id nimbus never gave raises UnknownSessionError."""
    with pytest.raises(UnknownSessionError) as info:
        inbox.download_chunk("no-such-id")
    assert "beginFileDownload" in str(info.value)


def open_fds():
    return len(os.listdir("/proc/self/fd"))


def test_pending_uploads_hold_no_open_file(inbox):
    """200 uploads begun with a chunk each and never finished hold no file descriptor."""
    before = open_fds()
    locations = [inbox.begin_upload() for _ in range(200)]
    for location in locations:
        inbox.upload_chunk(location, b"part of a jar")
    assert open_fds() <= before
    inbox.finish_upload(locations[0])
    with open(inbox.uploaded_jar_path(locations[0]), "rb") as f:
        assert f.read() == b"part of a jar"


def test_pending_downloads_hold_no_open_file(inbox):
    """200 downloads of an uploaded jar begun and never finished hold no file descriptor; a
    jar cleaned up meanwhile ends them with a message saying so."""
    location = upload(inbox, b"jar" * 1000)
    before = open_fds()
    downloads = [inbox.begin_download(location) for _ in range(200)]
    for download_id in downloads:
        assert inbox.download_chunk(download_id) == b"jar" * 1000
    assert open_fds() <= before
    inbox.remove(location)
    with pytest.raises(UnknownFileError) as info:
        inbox.download_chunk(downloads[0])
    assert "no longer on nimbus" in str(info.value)


def test_chunk_past_the_upload_limit_abandons_the_upload(conf, clock):
    """A chunk that would take a jar past pynimbus.upload.max.bytes is refused with a message
    naming the setting, nothing of it is written, and the upload is gone; up to the limit is
    fine."""
    inbox = Inbox(dict(conf, **{"pynimbus.upload.max.bytes": 1000}), clock=clock)
    exact = inbox.begin_upload()
    inbox.upload_chunk(exact, b"x" * 1000)
    inbox.finish_upload(exact)
    over = inbox.begin_upload()
    inbox.upload_chunk(over, b"y" * 600)
    with pytest.raises(UploadTooLargeError) as info:
        inbox.upload_chunk(over, b"y" * 401)
    assert "pynimbus.upload.max.bytes (1000 bytes)" in str(info.value)
    assert os.listdir(inbox.dir) == [os.path.basename(exact)]
    with pytest.raises(UnknownUploadLocationError):
        inbox.upload_chunk(over, b"y")
    with pytest.raises(UnknownUploadLocationError):
        inbox.finish_upload(over)


def test_upload_limit_defaults_to_one_gibibyte(inbox):
    """Without pynimbus.upload.max.bytes in the configuration a jar may hold 1 GiB."""
    assert inbox.max_upload_bytes == 1 << 30
