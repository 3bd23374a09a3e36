"""The submitter lines of ``submitTopologyWithOpts`` (submit-path.md steps 6, 12 and 13)
(pure): who submitted, who the topology's workers run as, and the ZooKeeper ACL keys Nimbus
stamps on the stored conf.
"""

from pynimbus.clojure_port.conf import TOPOLOGY_USERS, as_list, compat_of
from pynimbus.clojure_port.java_hash_map import JavaHashMap
from pynimbus.clojure_port.java_json import java_str


STORM_ZOOKEEPER_SUPERACL = "storm.zookeeper.superACL"
ZK_TOPOLOGY_AUTH_KEYS = ("storm.zookeeper.topology.auth.scheme",
                         "storm.zookeeper.topology.auth.payload")


def zk_auth_configured_on_server(nimbus_conf, jaas_login_configured=False):
    """Port of ``Utils.isZkAuthenticationConfiguredStormServer`` (both generations).

    ``jaas_login_configured`` stands for the JVM property ``java.security.auth.login.config``.
    """
    scheme = (nimbus_conf or {}).get("storm.zookeeper.auth.scheme")
    return bool(jaas_login_configured) or (scheme is not None and scheme != "")


def submitter_fields(storm_conf, nimbus_conf, principal=None, os_user=None, compat=None,
                     local_user=None, jaas_login_configured=False):
    """Port of the submitter lines of nimbus.clj ``submitTopologyWithOpts`` (1.2.4); 2.8.8
    ``Nimbus.submitTopologyWithOpts`` (submit-path.md step 13).

    ``storm_conf`` is :func:`normalize_conf`'s result; ``principal`` the authenticated
    principal's name (None without authentication); ``local_user`` its principal-to-local
    mapping (default: the principal itself, as ``DefaultPrincipalToLocal``); ``os_user`` the
    user running Nimbus (Java ``user.name``).  Returns a new conf with:

    * ``topology.submitter.principal``: 1.x the principal, 2.x its local user; ``""`` if none;
    * ``topology.submitter.user``: the local user, else ``os_user``;
    * ``topology.users``: 1.x the distinct non-null of the conf's list + principal + local
      user; 2.x a Java HashSet of those (so it holds ``null`` when there is no principal);
    * ``storm.zookeeper.superACL``: nimbus's value (None if unset);
    * without ZooKeeper auth on nimbus, the topology's ZooKeeper auth keys removed;
    * 2.x only: ``topology.classpath.beginning`` removed unless nimbus enables it.

    The run-as-user check (step 16) needs the raw submitter user: 1.x checks the user after the
    ``os_user`` fallback, 2.x before it (see :func:`launch_user`).
    """
    compat = compat_of(nimbus_conf, compat)
    if local_user is None:
        local_user = principal
    conf = dict(storm_conf)
    if compat == "2.x":
        submitter_principal = local_user
        users = JavaHashMap(initial_capacity=max(int(len(_users_list(conf)) / 0.75) + 1, 16))
        for u in _users_list(conf):
            users.put(u, None)
        users.put(submitter_principal, None)
        users.put(local_user, None)
        acl = users.keys()
    else:
        submitter_principal = principal
        listed = conf.get(TOPOLOGY_USERS)
        if listed is None:
            candidates = [local_user, principal]  # (conj nil p u) is the list (u p)
        else:
            candidates = list(as_list(listed, TOPOLOGY_USERS)) + [principal, local_user]
        acl = list(dict.fromkeys(u for u in candidates if u is not None))
    conf["topology.submitter.principal"] = submitter_principal or ""
    conf["topology.submitter.user"] = local_user or os_user
    conf[TOPOLOGY_USERS] = acl
    conf[STORM_ZOOKEEPER_SUPERACL] = (nimbus_conf or {}).get(STORM_ZOOKEEPER_SUPERACL)
    if not zk_auth_configured_on_server(nimbus_conf, jaas_login_configured):
        for key in ZK_TOPOLOGY_AUTH_KEYS:
            conf.pop(key, None)
    if compat == "2.x" and not (nimbus_conf or {}).get(
            "storm.topology.classpath.beginning.enabled", False):
        conf.pop("topology.classpath.beginning", None)
    return conf


def _users_list(conf):
    """``ObjectReader.getStrings`` of ``topology.users`` (2.8.8)."""
    value = conf.get(TOPOLOGY_USERS)
    if value is None:
        return []
    if isinstance(value, str):
        return [value]
    return [java_str(v, "2.x") for v in as_list(value, TOPOLOGY_USERS) if v is not None]


def launch_user(principal=None, os_user=None, compat="1.x", local_user=None):
    """The user the run-as-user check (submit-path.md step 16) looks at.

    1.x: the submitter user after the ``os_user`` fallback; 2.x: before it (None without
    authentication, so ``supervisor.run.worker.as.user`` refuses unauthenticated submissions).
    """
    if local_user is None:
        local_user = principal
    return local_user if compat == "2.x" else (local_user or os_user)
