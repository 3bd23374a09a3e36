"""Tests for pynimbus.blobstore.acl: ACL normalisation as Storm's BlobStoreAclHandler."""

import pytest

from pynimbus.blobstore.acl import (
    ADMIN, ALL_PERMISSIONS, READ, WRITE, access_control_to_string, normalize_settable_acls,
    normalize_settable_blob_meta, validate_settable_acls)
from pynimbus.generated.storm.ttypes import (
    AccessControl, AccessControlType, AuthorizationException, SettableBlobMeta)

OTHER, USER = AccessControlType.OTHER, AccessControlType.USER


def strings(acls):
    return [access_control_to_string(c) for c in acls]


def test_empty_acl_without_user_becomes_world_everything():
    """An empty ACL from an unauthenticated client is stored as other:rwa (topology blobs)."""
    assert strings(normalize_settable_acls("k", [])) == ["o::rwa"]


def test_dependency_blob_acl_drops_unnamed_user_and_adds_world_everything():
    """StormSubmitter's dependency ACL [u::rwa, o::r--] becomes [o::r--, o::rwa] with no user."""
    acl = [AccessControl(type=USER, access=ALL_PERMISSIONS), AccessControl(type=OTHER, access=READ)]
    assert strings(normalize_settable_acls("dep-x.jar", acl)) == ["o::r--", "o::rwa"]


def test_world_acl_granting_nothing_is_removed():
    """An "other" entry with no permissions is dropped, as removeBadACLs does."""
    acl = [AccessControl(type=OTHER, access=0), AccessControl(type=OTHER, access=ALL_PERMISSIONS)]
    assert strings(normalize_settable_acls("k", acl)) == ["o::rwa"]


def test_named_user_gets_the_operation_permissions():
    """With an authenticated user, that user's entry gains the operation's permissions."""
    acl = [AccessControl(type=USER, name="alice", access=READ)]
    assert strings(normalize_settable_acls("k", acl, users={"alice"}, op_mask=ADMIN)) == [
        "u:alice:r-a"]


def test_unnamed_user_entry_stands_for_the_requesting_user():
    """An unnamed user entry is copied for the requesting user and then removed."""
    acl = [AccessControl(type=USER, access=WRITE)]
    assert strings(normalize_settable_acls("k", acl, users={"bob"})) == ["u:bob:rwa"]


def test_normalisation_does_not_change_its_arguments():
    """The caller's ACL list and entries are left as they were."""
    entry = AccessControl(type=USER, access=READ)
    acl = [entry]
    meta = SettableBlobMeta(acl=acl, replication_factor=2)
    normalized = normalize_settable_blob_meta("k", meta)
    assert acl == [entry] and entry.access == READ and entry.name is None
    assert normalized.replication_factor == 2


def test_user_named_twice_is_an_authorization_error():
    """validateSettableACLs refuses a user listed twice and names the user and key."""
    acl = [AccessControl(type=USER, name="carol", access=READ),
           AccessControl(type=USER, name="carol", access=WRITE)]
    with pytest.raises(AuthorizationException) as info:
        validate_settable_acls("k", acl)
    assert "carol" in info.value.msg and "[k]" in info.value.msg
