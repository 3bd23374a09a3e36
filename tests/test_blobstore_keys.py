"""Tests for pynimbus.blobstore.keys: Storm's blob-key rule and safe storage names."""

import pytest

from pynimbus.blobstore.keys import (
    get_id_from_blob_key, is_storage_name, is_valid_key, storage_name, validate_dependency_keys,
    validate_key)
from pynimbus.common.stored_topology import (
    master_stormcode_key, master_stormconf_key, master_stormjar_key)
from pynimbus.generated.storm.ttypes import (
    AuthorizationException, InvalidTopologyException, StormTopology)

GOOD_KEYS = [
    "a",
    "topo-1-1700000000-stormjar.jar",
    "dep-my_lib-1.0-4f1a.jar",
    "dep-org.apache.storm-storm-kafka-1.2.4.jar",
    "with space",
    "with\ttab",
    "host:6627",
    "...",
    ".hidden",
    "ünïcödé_ключ",
    "数据",
    "x" * 1000,
]

BAD_KEYS = [
    "",
    ".",
    "..",
    "../x",
    "a/b",
    "/etc/passwd",
    "a\\b",
    "line\nbreak",
    "trailing\n",
    "nul\x00byte",
    "semi;colon",
    "star*",
    "quote'",
    "percent%2e",
    "tilde~",
    None,
    42,
]


@pytest.mark.parametrize("key", GOOD_KEYS)
def test_keys_storm_accepts_are_valid(key):
    """Keys matching Storm 1.2.4's ``^[\\w \\t\\.:_-]+$`` (Unicode word characters) are valid."""
    assert is_valid_key(key)
    validate_key(key)


@pytest.mark.parametrize("key", BAD_KEYS)
def test_invalid_keys_are_rejected_with_authorization_exception(key):
    """Empty, ".", "..", separators and other characters raise AuthorizationException naming
    the key and the rule."""
    assert not is_valid_key(key)
    with pytest.raises(AuthorizationException) as info:
        validate_key(key)
    assert "is not valid" in info.value.msg
    assert "letters, digits" in info.value.msg
    assert repr(key) in info.value.msg


@pytest.mark.parametrize("key", GOOD_KEYS + [k for k in BAD_KEYS if isinstance(k, str)])
def test_storage_name_is_hex_for_any_key(key):
    """Every key, valid or not, maps to 64 hex digits, so no key can name a path."""
    name = storage_name(key)
    assert is_storage_name(name)
    assert "/" not in name and "." not in name


def test_storage_names_differ_for_different_keys():
    """Distinct keys get distinct storage names."""
    names = {storage_name(k) for k in GOOD_KEYS}
    assert len(names) == len(GOOD_KEYS)


def test_topology_keys_round_trip_to_their_id():
    """The three topology blob keys give back the topology id; other keys give None."""
    storm_id = "wordcount-1-1700000000"
    for key in (master_stormjar_key(storm_id), master_stormcode_key(storm_id),
                master_stormconf_key(storm_id)):
        assert get_id_from_blob_key(key) == storm_id
    assert get_id_from_blob_key("dep-lib.jar") is None
    assert get_id_from_blob_key(None) is None


@pytest.mark.parametrize("field", ["dependency_jars", "dependency_artifacts"])
def test_dependency_keys_must_be_valid_blob_keys(field):
    """A topology naming a dependency key no blob can have is an InvalidTopologyException
    that names the field and the key; valid keys pass."""
    topology = StormTopology(spouts={}, bolts={}, state_spouts={})
    setattr(topology, field, ["dep-1.jar", "group:artifact:1.0"])
    validate_dependency_keys(topology)
    setattr(topology, field, ["dep-1.jar", "../../etc/passwd"])
    with pytest.raises(InvalidTopologyException) as refused:
        validate_dependency_keys(topology)
    assert field in refused.value.msg and "'../../etc/passwd'" in refused.value.msg
