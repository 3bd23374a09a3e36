"""A user's Unix groups, as Storm's default group-mapping service reads them (for the
authorizers of Nimbus and of the 2.x supervisor)."""

import grp
import pwd


def unix_groups(user):
    """Port of ``ShellBasedGroupsMapping.getGroups`` (``id -gn user; id -Gn user``): the
    user's primary and supplementary group names; empty for an unknown user.  Blocking."""
    if not user:
        return frozenset()
    try:
        entry = pwd.getpwnam(user)
    except (KeyError, ValueError):  # ValueError: a name with NUL is nobody's
        return frozenset()
    groups = {g.gr_name for g in grp.getgrall() if user in g.gr_mem}
    try:
        groups.add(grp.getgrgid(entry.pw_gid).gr_name)
    except KeyError:
        pass
    return frozenset(groups)
