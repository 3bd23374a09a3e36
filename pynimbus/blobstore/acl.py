"""Blob access-control lists: normalising and checking what a client asks to store.

Ports of ``BlobStoreAclHandler`` (Storm 1.2.4): ``normalizeSettableBlobMeta`` (with its helpers
``removeBadACLs``, ``fixACLsForUser``, ``fixEmptyNameACLForUsers``) and ``validateSettableACLs``.
The functions are pure: they return new lists and never change their arguments.

pynimbus serves Storm's SimpleTransport, so requests carry no authenticated user.  With no user,
Storm's normalisation always adds "other: read, write, admin" to the list, so every later
permission check would pass; pynimbus therefore does not check permissions (as Storm with
``storm.blobstore.acl.validation.enabled`` false, its default).
"""

from pynimbus.generated.storm.ttypes import (
    AccessControl, AccessControlType, AuthorizationException, SettableBlobMeta)

READ = 0x01
WRITE = 0x02
ADMIN = 0x04
ALL_PERMISSIONS = READ | WRITE | ADMIN


def world_everything():
    """A new list granting everyone read, write and admin (``WORLD_EVERYTHING``)."""
    return [AccessControl(type=AccessControlType.OTHER, access=ALL_PERMISSIONS)]


def _copy(control):
    return AccessControl(type=control.type, name=control.name, access=control.access)


def _grants_world_everything(acls):
    return any(c.type == AccessControlType.OTHER and c.access == ALL_PERMISSIONS for c in acls)


def remove_bad_acls(acls):
    """Port of ``removeBadACLs``: drop "other" entries that grant nothing."""
    return [_copy(c) for c in acls if not (c.type == AccessControlType.OTHER and not c.access)]


def fix_acls_for_user(acls, user, op_mask):
    """Port of ``fixACLsForUser``: make sure ``user`` holds ``op_mask``; returns a new list."""
    acls = [_copy(c) for c in acls]
    unnamed = [c for c in acls if c.type == AccessControlType.USER and c.name is None]
    found = False
    for control in acls:
        if control.type == AccessControlType.USER and control.name == user:
            control.access = (control.access or 0) | op_mask
            found = True
    if unnamed and found:
        acls = [c for c in acls if not any(c is u for u in unnamed)]
    if not unnamed and not found:
        acls.append(AccessControl(type=AccessControlType.USER, name=user, access=op_mask))
    return acls


def fix_empty_name_acl_for_users(acls, users, op_mask):
    """Port of ``fixEmptyNameACLForUsers``: a "user" entry with no name stands for each of
    ``users``; it is replaced by one named copy per user (none when there is no user)."""
    kept, added = [], []
    for control in acls:
        if control.type == AccessControlType.USER and control.name is None:
            access = (control.access or 0) | op_mask
            added.extend(AccessControl(type=control.type, name=user, access=access)
                         for user in sorted(users))
        else:
            kept.append(_copy(control))
    return kept + added


def normalize_settable_acls(key, acls, users=(), op_mask=ALL_PERMISSIONS):
    """Port of ``normalizeSettableACLs``: the ACL list Storm stores for ``acls`` from ``users``.

    ``users`` are the local names of the requesting user (empty without authentication).
    """
    acls = list(acls or ())
    clean = remove_bad_acls(acls)
    for user in sorted(users):
        clean = fix_acls_for_user(clean, user, op_mask)
    clean = fix_empty_name_acl_for_users(clean, users, op_mask)
    if not users and not _grants_world_everything(acls):
        clean.extend(world_everything())
    return clean


def normalize_settable_blob_meta(key, meta, users=(), op_mask=ALL_PERMISSIONS):
    """Port of ``normalizeSettableBlobMeta``: a new SettableBlobMeta with a normalised ACL."""
    return SettableBlobMeta(
        acl=normalize_settable_acls(key, meta.acl if meta is not None else None, users, op_mask),
        replication_factor=meta.replication_factor if meta is not None else None)


def validate_settable_acls(key, acls):
    """Port of ``validateSettableACLs``: a named user may appear only once.

    :raises AuthorizationException: when a user name appears more than once; the message names
        the users and the key.
    """
    seen, duplicates = set(), []
    for control in acls or ():
        if control.name:
            if control.name in seen:
                duplicates.append(control.name)
            seen.add(control.name)
    if duplicates:
        raise AuthorizationException(
            msg="user [%s] can't appear more than once in the ACLs for key [%s]."
            % (", ".join(duplicates), key))


def access_control_to_string(control):
    """Port of ``accessControlToString``: e.g. ``u:alice:rwa`` or ``o::r--``."""
    kind = {AccessControlType.OTHER: "o", AccessControlType.USER: "u"}.get(control.type)
    if kind is None:
        raise ValueError("unknown access control type %r" % (control.type,))
    access = control.access or 0
    flags = "".join(flag if access & bit else "-"
                    for flag, bit in (("r", READ), ("w", WRITE), ("a", ADMIN)))
    return "%s:%s:%s" % (kind, control.name or "", flags)
