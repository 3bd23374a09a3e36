"""Who may read a worker's logs: port of 1.2.4 logviewer.clj ``authorized-log-user?`` and
``get-log-user-group-whitelist``.

With ``ui.filter`` unset Storm lets everyone read every log.  With it set, a user may read a
worker's logs when named in the cluster's ``logs.users`` or ``nimbus.admins`` or in the
worker's ``worker.yaml`` (``logs.users``: the topology's ``logs.users`` and
``topology.users``, written by the supervisor), or when one of the user's groups is in the
cluster's ``logs.groups`` or the worker's ``logs.groups``.  No user, or a worker without
``worker.yaml``, is not authorized.  Blocking (reads files and the groups).
"""

import logging

import yaml

from pynimbus.common.user_groups import unix_groups
from pynimbus.logviewer.paths import worker_metadata_path

log = logging.getLogger(__name__)

LOGS_USERS, LOGS_GROUPS = "logs.users", "logs.groups"


def read_yaml(path):
    """``clojure-from-yaml-file``: the file's value, or None when it cannot be read."""
    try:
        with open(path) as f:
            return yaml.safe_load(f)
    except (OSError, yaml.YAMLError) as e:
        log.debug("%s not read: %s", path, e)
        return None


def log_user_group_whitelist(root, fname):
    """``(users, groups)`` of the worker's ``worker.yaml``, or None without one."""
    path = worker_metadata_path(root, fname)
    data = read_yaml(path) if path is not None else None
    if not isinstance(data, dict):
        return None
    return list(data.get(LOGS_USERS) or []), list(data.get(LOGS_GROUPS) or [])


def authorized_log_user(user, fname, conf, root, groups_of=unix_groups):
    """Port of ``authorized-log-user?``."""
    whitelist = log_user_group_whitelist(root, fname) if user and fname else None
    if whitelist is None:
        return False
    user_wl, group_wl = whitelist
    users = list(conf.get(LOGS_USERS) or []) + list(conf.get("nimbus.admins") or []) + user_wl
    groups = list(conf.get(LOGS_GROUPS) or []) + group_wl
    return user in users or bool(set(groups_of(user)) & set(groups))


def authorization_on(conf):
    """Storm checks log users only when ``ui.filter`` is set."""
    return bool(conf.get("ui.filter"))


def may_read_worker_log(user, fname, conf, root, groups_of=unix_groups):
    """``(or (blank? ui.filter) (authorized-log-user? ...))``."""
    return not authorization_on(conf) or authorized_log_user(user, fname, conf, root,
                                                             groups_of)
