"""Tests for pynimbus.blobstore.sequence: KeySequenceNumber's versions on one nimbus."""

import pytest

from pynimbus.blobstore.sequence import key_sequence_number
from pynimbus.generated.storm.ttypes import KeyNotFoundException

ME = "nimbus-1.example.com:6627"


def test_first_creation_is_version_one():
    """With no /blobstore/<key> node the version is 1 and the maximum becomes 1."""
    assert key_sequence_number("k", None, None, ME) == (1, 1)
    assert key_sequence_number("k", [], None, ME) == (1, 1)


def test_update_on_the_holding_nimbus_increments():
    """A nimbus holding version n at maximum n registers n + 1 and raises the maximum."""
    assert key_sequence_number("k", [ME + "-1"], 1, ME) == (2, 2)
    assert key_sequence_number("k", [ME + "-7"], 7, ME) == (8, 8)


def test_leader_that_does_not_hold_the_key_goes_past_the_maximum():
    """A leader missing from the children takes maximum + 1 (Storm's scenario 3)."""
    assert key_sequence_number("k", ["other:6627-3"], 3, ME) == (4, 4)


def test_non_leader_behind_the_maximum_takes_the_maximum():
    """A non-leader not holding the key follows the maximum, or 0 to re-sync."""
    assert key_sequence_number("k", ["other:6627-2"], 3, ME, is_leader=False) == (3, None)
    assert key_sequence_number("k", ["other:6627-3"], 3, ME, is_leader=False) == (0, None)


def test_mixed_versions_give_the_highest():
    """When nimbuses hold different versions, the highest is returned unchanged."""
    assert key_sequence_number("k", [ME + "-2", "other:6627-3"], 3, ME) == (3, None)


def test_host_names_with_dashes_parse():
    """The sequence number is the part after the last dash."""
    me = "my-host-name:6627"
    assert key_sequence_number("k", [me + "-4"], 4, me) == (5, 5)


def test_children_without_maximum_mean_the_key_was_deleted():
    """Children but no maximum raise KeyNotFoundException, as Storm's NoNode case."""
    with pytest.raises(KeyNotFoundException):
        key_sequence_number("k", [ME + "-1"], None, ME)


def test_unreadable_children_give_zero():
    """A child that is not host:port-seq gives version 0 so a later sync repairs it."""
    assert key_sequence_number("k", ["garbage"], 1, ME) == (0, None)
