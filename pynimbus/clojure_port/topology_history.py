# -*- test-case-name: tests.test_port_topology_history -*-
"""Nimbus's topology history and ``getTopologyHistory`` (pure).

Ports of nimbus.clj (1.2.4) ``add-topology-to-history-log``, ``clean-topology-history``,
``read-topology-history`` and ``getTopologyHistory``, of config.clj ``get-topo-logs-users`` /
``get-topo-logs-groups``, and of their 2.8.8 counterparts in ``Nimbus.java`` and
``ServerConfigUtils``.  The history is a list of ``LSTopoHistory`` (topology id, kill time in
seconds, the users and groups allowed to read its logs); the shell keeps it in Storm's
LocalState format (:mod:`pynimbus.common.local_state`).

Who sees what: a ``user`` of None means security is off and sees everything; otherwise an
admin (``nimbus.admins``) sees everything, and anyone else the topologies whose log users name
them or whose log groups meet their groups.  2.8.8 also lets ``nimbus.admins.groups`` see every
running topology (not the history).
"""

from pynimbus.clojure_port.authorization import get_strings
from pynimbus.generated.storm.ttypes import LSTopoHistory


def topo_logs_users(topology_conf):
    """Port of ``get-topo-logs-users``: ``logs.users`` and ``topology.users``, sorted, distinct."""
    return sorted(set(get_strings(topology_conf.get("logs.users")))
                  | set(get_strings(topology_conf.get("topology.users"))))


def topo_logs_groups(topology_conf):
    """Port of ``get-topo-logs-groups``: ``logs.groups`` and ``topology.groups``."""
    return sorted(set(get_strings(topology_conf.get("logs.groups")))
                  | set(get_strings(topology_conf.get("topology.groups"))))


def add_topology_to_history(history, storm_id, now_secs, topology_conf):
    """Port of ``add-topology-to-history-log``: ``history`` plus the killed topology."""
    entry = LSTopoHistory(topology_id=storm_id, time_stamp=int(now_secs),
                          users=topo_logs_users(topology_conf),
                          groups=topo_logs_groups(topology_conf))
    return list(history) + [entry]


def clean_topology_history(history, now_secs, mins):
    """Port of ``clean-topology-history`` / ``LocalState.filterOldTopologies``: the entries
    newer than ``mins`` minutes."""
    cutoff = int(now_secs) - int(mins) * 60
    return [entry for entry in history if entry.time_stamp > cutoff]


def may_read(user, users, groups, admins, user_groups):
    """Whether ``user`` may see a topology with these log ``users`` and ``groups``."""
    return (user is None or user in admins or bool(set(user_groups) & set(groups))
            or user in users)


def topology_history_ids(user, running, history, admins, user_groups, admin_groups=(),
                         compat="1.x"):
    """Port of ``getTopologyHistory``: the ids of running topologies the user may read (in
    ``running`` order), then those of the history (``read-topology-history``), each once.

    :param running: ``[(storm_id, topology_conf)]`` of the assigned topologies.
    :param user_groups: the groups of ``user`` (empty for None or an unknown user).
    """
    admins = set(admins)
    ids = []
    for storm_id, conf in running:
        users, groups = topo_logs_users(conf), topo_logs_groups(conf)
        if may_read(user, users, groups, admins, user_groups) or (
                compat == "2.x" and user is not None
                and bool(set(user_groups) & set(admin_groups))):
            ids.append(storm_id)
    for entry in history:
        if may_read(user, entry.users or [], entry.groups or [], admins, user_groups):
            ids.append(entry.topology_id)
    return list(dict.fromkeys(ids))
