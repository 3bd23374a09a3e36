# -*- test-case-name: tests.test_port_authorization -*-
"""Nimbus's authorization decision (pure): which operation each Thrift method checks, the
configured ``nimbus.authorizer`` and its verdict.

Ports of nimbus.clj ``check-authorization!`` (1.2.4) and ``Nimbus.checkAuthorization`` (2.8.8),
of ``mk-authorization-handler`` (an unknown class name fails start-up) and of the three
authorizers whose rules need no Kerberos: ``NoopAuthorizer`` (allows all), ``DenyAuthorizer``
(denies all) and ``SimpleACLAuthorizer`` (1.2.4's and 2.8.8's rule sets); and of the 2.x
supervisor's ``supervisor.authorizer`` with 2.8.8's ``SupervisorSimpleACLAuthorizer`` (Nimbus
users may only push assignments, a topology's users only its workers' calls).  With no
authorizer configured every call is allowed, as in Storm.

Who is asking: pynimbus speaks only Storm's ``SimpleTransportPlugin``, whose request principal
is ``debug.simple.transport.user`` when that is set in nimbus's conf, and null otherwise.
``SimpleACLAuthorizer.permit`` reads the principal's name first, so without a principal Storm
fails every checked call with a NullPointerException (an internal error on the wire):
:func:`permit` raises :class:`NoPrincipalError` there.  The impersonation authorizer is not
ported: with this transport a request never impersonates anyone.
"""

import collections
import re

from pynimbus.generated.storm.ttypes import AuthorizationException

_PACKAGE = "org.apache.storm.security.auth.authorizer."
NOOP_AUTHORIZER = _PACKAGE + "NoopAuthorizer"
DENY_AUTHORIZER = _PACKAGE + "DenyAuthorizer"
SIMPLE_ACL_AUTHORIZER = _PACKAGE + "SimpleACLAuthorizer"
# 1.2.4 and 2.8.8 keep the authorizers in the same package, so both generations' names agree.
KNOWN_AUTHORIZERS = (NOOP_AUTHORIZER, DENY_AUTHORIZER, SIMPLE_ACL_AUTHORIZER)

DEFAULT_PRINCIPAL_TO_LOCAL = "org.apache.storm.security.auth.DefaultPrincipalToLocal"
KERBEROS_PRINCIPAL_TO_LOCAL = "org.apache.storm.security.auth.KerberosPrincipalToLocal"
KNOWN_PRINCIPAL_TO_LOCAL = (DEFAULT_PRINCIPAL_TO_LOCAL, KERBEROS_PRINCIPAL_TO_LOCAL)

SIMPLE_TRANSPORT_USER = "debug.simple.transport.user"

# Thrift method -> the operation name Storm passes to the authorizer (2.8.8 Nimbus.java).
# A method missing here is not checked (the blob calls, getTopologyHistory, ...).
OPERATIONS_2X = {
    "submitTopology": "submitTopology",
    "submitTopologyWithOpts": "submitTopology",
    "killTopology": "killTopology",
    "killTopologyWithOpts": "killTopology",
    "activate": "activate",
    "deactivate": "deactivate",
    "rebalance": "rebalance",
    "setLogConfig": "setLogConfig",
    "getLogConfig": "getLogConfig",
    "debug": "debug",
    "setWorkerProfiler": "setWorkerProfiler",
    "getComponentPendingProfileActions": "getComponentPendingProfileActions",
    "uploadNewCredentials": "uploadNewCredentials",
    "beginFileUpload": "fileUpload",
    "uploadChunk": "fileUpload",
    "finishFileUpload": "fileUpload",
    "beginFileDownload": "fileDownload",  # 1.2.4 only; 2.8.8 dropped the method
    "downloadChunk": "fileDownload",
    "getNimbusConf": "getNimbusConf",
    "getTopologyInfo": "getTopologyInfo",
    "getTopologyInfoWithOpts": "getTopologyInfo",
    "getTopologyInfoByName": "getTopologyInfo",
    "getTopologyInfoByNameWithOpts": "getTopologyInfo",
    "getTopologyPageInfo": "getTopologyPageInfo",
    "getSupervisorPageInfo": "getSupervisorPageInfo",
    "getComponentPageInfo": "getComponentPageInfo",
    "getTopologyConf": "getTopologyConf",
    "getTopology": "getTopology",
    "getUserTopology": "getUserTopology",
    "getClusterInfo": "getClusterInfo",
    "getTopologySummaries": "getTopologySummaries",
    "getTopologySummaryByName": "getTopologySummaryByName",
    "getTopologySummary": "getTopologySummary",
    "getLeader": "getLeader",
    "isTopologyNameAllowed": "isTopologyNameAllowed",
    "getOwnerResourceSummaries": "getOwnerResourceSummaries",
    "getSupervisorAssignments": "getSupervisorAssignments",
    "sendSupervisorWorkerHeartbeats": "sendSupervisorWorkerHeartbeats",
    "sendSupervisorWorkerHeartbeat": "sendSupervisorWorkerHeartbeat",
    "processWorkerMetrics": "processWorkerMetrics",
}

# 1.2.4 nimbus.clj: getLeader and isTopologyNameAllowed check "getClusterInfo"; the methods it
# does not have (2.x additions served by pynimbus's union IDL) keep 2.8.8's names.
OPERATIONS_1X = dict(OPERATIONS_2X, getLeader="getClusterInfo",
                     isTopologyNameAllowed="getClusterInfo")

# 1.2.4's isTopologyNameAllowed checks "getClusterInfo" without naming the topology.
NAMELESS_METHODS_1X = frozenset(["isTopologyNameAllowed"])

# 2.8.8 checks these against ``Utils.merge(nimbusConf, topoConf)``; 1.2.4 (and 2.8.8 for the
# calls going through getCommonTopoInfo) against the stored topology conf alone.
MERGED_CONF_METHODS_2X = frozenset([
    "killTopology", "killTopologyWithOpts", "activate", "deactivate", "rebalance",
    "setLogConfig", "getLogConfig", "debug", "setWorkerProfiler", "uploadNewCredentials",
    "getTopologyConf", "getTopology", "getUserTopology",
])


class UnknownAuthorizerError(ValueError):
    """``nimbus.authorizer`` (or ``storm.principal.tolocal``) names a class pynimbus lacks."""


class NoPrincipalError(Exception):
    """SimpleACLAuthorizer was asked about a request that has no principal."""


class AuthorizationHandler:
    """A daemon's configured authorizer and the request's principal, as both Nimbus's and the
    2.x supervisor's ``checkAuthorization`` read them.

    :param authorizer: a resolved authorizer class name; None allows every call.
    :param acl: what the authorizer's ``prepare`` read (SimpleACL's sets), or None.
    :param principal: the request principal's name; :param user: its local user;
    :param user_groups: the user's groups.
    """

    def __init__(self, authorizer=None, acl=None, principal=None, user=None,
                 user_groups=frozenset()):
        self.authorizer = authorizer
        self.acl = acl
        self.principal = principal
        self.user = user
        self.user_groups = frozenset(user_groups)

    @property
    def enabled(self):
        """True when an authorizer is configured (else nothing is ever denied)."""
        return self.authorizer is not None


def operation_of(method, compat="1.x"):
    """The operation ``method`` authorizes, or None when Storm does not check it."""
    return (OPERATIONS_2X if compat == "2.x" else OPERATIONS_1X).get(method)


def checked_name(method, storm_name, compat="1.x"):
    """The topology name Storm passes to the check of ``method`` (None for 1.2.4's
    ``isTopologyNameAllowed``)."""
    if compat != "2.x" and method in NAMELESS_METHODS_1X:
        return None
    return storm_name


def resolve_authorizer(class_name):
    """Port of ``mk-authorization-handler``'s class look-up: None means no authorizer.

    :raises UnknownAuthorizerError: for any other name than the three ported authorizers
        (Storm fails start-up with ClassNotFoundException there).
    """
    if class_name is None:
        return None
    if class_name not in KNOWN_AUTHORIZERS:
        raise UnknownAuthorizerError(
            "nimbus.authorizer %r is not an authorizer pynimbus has; use one of %s, or leave "
            "it unset to allow every call" % (class_name, ", ".join(KNOWN_AUTHORIZERS)))
    return class_name


def resolve_principal_to_local(class_name):
    """The ``storm.principal.tolocal`` plugin, checked as SimpleACLAuthorizer's prepare does.

    :raises UnknownAuthorizerError: for a plugin other than the Default or Kerberos one.
    """
    class_name = class_name or DEFAULT_PRINCIPAL_TO_LOCAL
    if class_name not in KNOWN_PRINCIPAL_TO_LOCAL:
        raise UnknownAuthorizerError(
            "storm.principal.tolocal %r is not a plugin pynimbus has; use one of %s"
            % (class_name, ", ".join(KNOWN_PRINCIPAL_TO_LOCAL)))
    return class_name


def principal_to_local(class_name, principal):
    """Ports of ``DefaultPrincipalToLocal.toLocal`` (the name) and
    ``KerberosPrincipalToLocal.toLocal`` (the name up to the first ``/`` or ``@``)."""
    if principal is None:
        return None
    if class_name == KERBEROS_PRINCIPAL_TO_LOCAL:
        return re.split(r"[/@]", principal)[0]
    return principal


def request_principal(nimbus_conf):
    """Port of SimpleTransportPlugin's request subject: ``debug.simple.transport.user``, or
    None (anonymous)."""
    user = nimbus_conf.get(SIMPLE_TRANSPORT_USER)
    return None if user is None else str(user)


def get_strings(value):
    """Port of 2.8.8 ``ObjectReader.getStrings``: None -> [], a string -> [it], a collection
    -> its non-null items as strings."""
    if value is None:
        return []
    if isinstance(value, str):
        return [value]
    return [str(v) for v in value if v is not None]


def check_conf(storm_name, topology_conf):
    """The conf the authorizer sees: the topology's, else ``{topology.name: name}``, else {}."""
    if topology_conf is not None:
        return dict(topology_conf)
    if storm_name is not None:
        return {"topology.name": storm_name}
    return {}


def merged_conf(nimbus_conf, topology_conf):
    """Port of ``Utils.merge(conf, topoConf)``: the topology's keys over nimbus's."""
    merged = dict(nimbus_conf)
    merged.update(topology_conf or {})
    return merged


def denied_message(operation, storm_name):
    """Storm's message for a denied call: ``<op>[ on topology <name>] is not authorized``."""
    where = " on topology %s" % storm_name if storm_name is not None else ""
    return "%s%s is not authorized" % (operation, where)


def authorization_error(operation, storm_name):
    """The AuthorizationException Storm raises for a denied call."""
    return AuthorizationException(msg=denied_message(operation, storm_name))


# SimpleACLAuthorizer's command sets, per generation.
USER_COMMANDS_1X = frozenset(["submitTopology", "fileUpload", "getNimbusConf", "getClusterInfo",
                              "getSupervisorPageInfo"])
SUPERVISOR_COMMANDS_1X = frozenset(["fileDownload"])
TOPO_COMMANDS_1X = frozenset([
    "killTopology", "rebalance", "activate", "deactivate", "getTopologyConf", "getTopology",
    "getUserTopology", "getTopologyInfo", "getTopologyPageInfo", "getComponentPageInfo",
    "uploadNewCredentials", "setLogConfig", "setWorkerProfiler", "getWorkerProfileActionExpiry",
    "getComponentPendingProfileActions", "startProfiling", "stopProfiling", "dumpProfile",
    "dumpJstack", "dumpHeap", "debug", "getLogConfig"])

USER_COMMANDS_2X = frozenset([
    "submitTopology", "fileUpload", "getNimbusConf", "getClusterInfo", "getLeader",
    "isTopologyNameAllowed", "getTopologySummaries", "getTopologySummaryByName",
    "getTopologySummary", "getSupervisorPageInfo", "getOwnerResourceSummaries"])
SUPERVISOR_COMMANDS_2X = frozenset(["fileDownload", "processWorkerMetrics",
                                    "getSupervisorAssignments", "sendSupervisorWorkerHeartbeats"])
TOPO_READONLY_COMMANDS_2X = frozenset([
    "getTopologyConf", "getTopology", "getUserTopology", "getTopologyInfo",
    "getTopologyPageInfo", "getComponentPageInfo", "getWorkerProfileActionExpiry",
    "getComponentPendingProfileActions", "getLogConfig"])
TOPO_COMMANDS_2X = frozenset([
    "killTopology", "rebalance", "activate", "deactivate", "uploadNewCredentials",
    "setLogConfig", "setWorkerProfiler", "startProfiling", "stopProfiling", "dumpProfile",
    "dumpJstack", "dumpHeap", "debug", "sendSupervisorWorkerHeartbeat"]) | TOPO_READONLY_COMMANDS_2X

SimpleAcl = collections.namedtuple(
    "SimpleAcl", "admins admins_groups supervisors nimbus_users nimbus_groups")
SimpleAcl.__doc__ = "What SimpleACLAuthorizer's ``prepare`` reads from nimbus's conf."


def prepare_simple_acl(conf, compat="1.x"):
    """Port of ``SimpleACLAuthorizer.prepare``: the admin, supervisor and user sets.
    (``nimbus.admins.groups`` exists only in 2.8.8.)"""
    return SimpleAcl(
        admins=frozenset(get_strings(conf.get("nimbus.admins"))),
        admins_groups=frozenset(get_strings(conf.get("nimbus.admins.groups")))
        if compat == "2.x" else frozenset(),
        supervisors=frozenset(get_strings(conf.get("nimbus.supervisor.users"))),
        nimbus_users=frozenset(get_strings(conf.get("nimbus.users"))),
        nimbus_groups=frozenset(get_strings(conf.get("nimbus.groups"))))


def _groups_allowed(user_groups, configured_groups):
    """Port of ``checkUserGroupAllowed``: the two sets meet."""
    return bool(set(user_groups) & set(configured_groups))


def _topo_permission(principal, user, user_groups, topology_conf, users_key, groups_key):
    """Port of 2.8.8 ``checkTopoPermission`` (1.2.4 inlines the same for the two keys)."""
    users = set(get_strings(topology_conf.get(users_key)))
    if principal in users or user in users:
        return True
    return _groups_allowed(user_groups, get_strings(topology_conf.get(groups_key)))


def simple_acl_permit(acl, principal, user, user_groups, operation, topology_conf,
                      compat="1.x"):
    """Port of ``SimpleACLAuthorizer.permit`` (1.2.4, or 2.8.8 for ``compat`` "2.x").

    :param principal: the request principal's name; :param user: its local user name;
    :param user_groups: the user's groups (from the group-mapping service).
    :raises NoPrincipalError: when ``principal`` is None (Storm: NullPointerException).

    Deliberate difference: 1.2.4 fails on a ``topology.users`` key holding null; here that
    reads as no users, as 2.8.8's ``getStrings`` does.
    """
    if principal is None:
        raise NoPrincipalError(
            "SimpleACLAuthorizer cannot decide %s: the request has no principal (pynimbus "
            "serves SimpleTransportPlugin, whose principal is %s; set it in nimbus's conf)"
            % (operation, SIMPLE_TRANSPORT_USER))
    two = compat == "2.x"
    if principal in acl.admins or user in acl.admins or (
            two and _groups_allowed(user_groups, acl.admins_groups)):
        return True
    if principal in acl.supervisors or user in acl.supervisors:
        return operation in (SUPERVISOR_COMMANDS_2X if two else SUPERVISOR_COMMANDS_1X)
    if operation in (USER_COMMANDS_2X if two else USER_COMMANDS_1X):
        return (not acl.nimbus_users or user in acl.nimbus_users
                or _groups_allowed(user_groups, acl.nimbus_groups))
    if operation in (TOPO_COMMANDS_2X if two else TOPO_COMMANDS_1X):
        if _topo_permission(principal, user, user_groups, topology_conf,
                            "topology.users", "topology.groups"):
            return True
        if two and operation in TOPO_READONLY_COMMANDS_2X and _topo_permission(
                principal, user, user_groups, topology_conf,
                "topology.readonly.users", "topology.readonly.groups"):
            return True
    return False


def permit(authorizer, operation, topology_conf, acl=None, principal=None, user=None,
           user_groups=(), compat="1.x"):
    """The configured authorizer's ``permit``: True to allow.

    :param authorizer: a :func:`resolve_authorizer` result (None: no authorizer, allow).
    :raises NoPrincipalError: SimpleACLAuthorizer without a principal.
    """
    if authorizer is None or authorizer == NOOP_AUTHORIZER:
        return True
    if authorizer == DENY_AUTHORIZER:
        return False
    return simple_acl_permit(acl, principal, user, user_groups, operation, topology_conf,
                             compat)


# -- the 2.x supervisor's authorizer (supervisor.authorizer) --------------------------------

SUPERVISOR_SIMPLE_ACL_AUTHORIZER = _PACKAGE + "SupervisorSimpleACLAuthorizer"
KNOWN_SUPERVISOR_AUTHORIZERS = (NOOP_AUTHORIZER, DENY_AUTHORIZER,
                                SUPERVISOR_SIMPLE_ACL_AUTHORIZER)

# SupervisorSimpleACLAuthorizer's command sets (2.8.8)
SUPERVISOR_TOPO_COMMANDS = frozenset(["getLocalAssignmentForStorm",
                                      "sendSupervisorWorkerHeartbeat"])
SUPERVISOR_NIMBUS_COMMANDS = frozenset(["sendSupervisorAssignments"])

SupervisorAcl = collections.namedtuple("SupervisorAcl", "admins admins_groups nimbus")
SupervisorAcl.__doc__ = "What SupervisorSimpleACLAuthorizer's ``prepare`` reads."


def resolve_supervisor_authorizer(class_name):
    """Port of 2.8.8 ``Supervisor``'s ``mkAuthorizationHandler(supervisor.authorizer)`` look-up:
    None means no authorizer.

    :raises UnknownAuthorizerError: for any name but the three ported supervisor authorizers.
    """
    if class_name is None:
        return None
    if class_name not in KNOWN_SUPERVISOR_AUTHORIZERS:
        raise UnknownAuthorizerError(
            "supervisor.authorizer %r is not an authorizer pynimbus's supervisor has; use one "
            "of %s, or leave it unset to allow every call"
            % (class_name, ", ".join(KNOWN_SUPERVISOR_AUTHORIZERS)))
    return class_name


def prepare_supervisor_simple_acl(conf):
    """Port of ``SupervisorSimpleACLAuthorizer.prepare``: the admins, their groups and the
    Nimbus users (``nimbus.daemon.users``, else ``nimbus.supervisor.users``, else none).
    Returns ``(acl, warning)``: ``warning`` is the line Storm logs about the Nimbus users, or
    None."""
    warning = None
    if "nimbus.daemon.users" in conf:
        nimbus = get_strings(conf["nimbus.daemon.users"])
    elif "nimbus.supervisor.users" in conf:
        nimbus = get_strings(conf["nimbus.supervisor.users"])
        warning = "nimbus.daemon.users is not set falling back to using nimbus.supervisor.users."
    else:
        nimbus = []
        warning = ("Could not find nimbus.daemon.users things might now work correctly... (no "
                   "caller is Nimbus: sendSupervisorAssignments is allowed to admins only)")
    return SupervisorAcl(admins=frozenset(get_strings(conf.get("nimbus.admins"))),
                         admins_groups=frozenset(get_strings(conf.get("nimbus.admins.groups"))),
                         nimbus=frozenset(nimbus)), warning


def supervisor_simple_acl_permit(acl, principal, user, user_groups, operation, topology_conf):
    """Port of ``SupervisorSimpleACLAuthorizer.permit`` (2.8.8): admins may do anything, the
    Nimbus users only push assignments, a topology's users (``topology.users`` /
    ``topology.groups``) its workers' calls.

    :raises NoPrincipalError: when ``principal`` is None (Storm: NullPointerException).
    """
    if principal is None:
        raise NoPrincipalError(
            "SupervisorSimpleACLAuthorizer cannot decide %s: the request has no principal "
            "(pynimbus serves SimpleTransportPlugin, whose principal is %s; set it in the "
            "supervisor's conf)" % (operation, SIMPLE_TRANSPORT_USER))
    if principal in acl.admins or user in acl.admins or _groups_allowed(user_groups,
                                                                        acl.admins_groups):
        return True
    if principal in acl.nimbus or user in acl.nimbus:
        return operation in SUPERVISOR_NIMBUS_COMMANDS
    if operation in SUPERVISOR_TOPO_COMMANDS and topology_conf is not None:
        return _topo_permission(principal, user, user_groups, topology_conf,
                                "topology.users", "topology.groups")
    return False


def supervisor_permit(authorizer, operation, topology_conf, acl=None, principal=None,
                      user=None, user_groups=()):
    """The configured ``supervisor.authorizer``'s ``permit``: True to allow.

    :raises NoPrincipalError: SupervisorSimpleACLAuthorizer without a principal.
    """
    if authorizer is None or authorizer == NOOP_AUTHORIZER:
        return True
    if authorizer == DENY_AUTHORIZER:
        return False
    return supervisor_simple_acl_permit(acl, principal, user, user_groups, operation,
                                        topology_conf)
