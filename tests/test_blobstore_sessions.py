"""Tests for pynimbus.blobstore.sessions: idle expiry with an injected clock, chunked reads."""

import io

import pytest

from pynimbus.blobstore.errors import UnknownSessionError
from pynimbus.blobstore.sessions import DownloadSessions, SessionMap

from fake_clock import FakeClock


def test_entry_expires_after_idle_time_and_calls_back():
    """An entry untouched for the expiration time is dropped and handed to on_expire."""
    clock, expired = FakeClock(), []
    sessions = SessionMap(10, clock, on_expire=expired.append)
    sessions.put("s", "value")
    clock.now += 9.9
    assert sessions.get("s") == "value"
    clock.now += 9.9
    assert sessions.get("s") == "value"  # the get above renewed it
    clock.now += 10
    assert sessions.get("s") is None
    assert expired == ["value"]


def test_explicit_expire_takes_a_time():
    """expire(now) drops entries idle at that time and returns their ids."""
    sessions = SessionMap(5, FakeClock(0))
    sessions.put("a", 1)
    assert sessions.expire(now=4) == []
    assert sessions.expire(now=5) == ["a"]
    assert len(sessions) == 0


def test_download_chunks_are_bounded_and_end_with_empty():
    """A download returns chunks of at most chunk_size, then b"" once, then forgets the id."""
    downloads = DownloadSessions(4, 60, FakeClock())
    sid = downloads.begin(io.BytesIO(b"0123456789"))
    assert [downloads.next_chunk(sid) for _ in range(4)] == [b"0123", b"4567", b"89", b""]
    with pytest.raises(UnknownSessionError):
        downloads.next_chunk(sid)


def test_idle_download_is_closed_on_expiry():
    """An expired download's reader is closed and its id becomes unknown."""
    clock = FakeClock()
    downloads = DownloadSessions(4, 60, clock)
    reader = io.BytesIO(b"data")
    sid = downloads.begin(reader)
    clock.now += 60
    with pytest.raises(UnknownSessionError):
        downloads.next_chunk(sid)
    assert reader.closed
