"""Tests for pynimbus.clojure_port.authorization: operation names, authorizers, SimpleACL rules."""
# test-case-name: tests.test_port_authorization

import pytest

from pynimbus.clojure_port import authorization as auth
from pynimbus.generated.storm import ttypes

ACL_CONF = {"nimbus.admins": ["root"], "nimbus.supervisor.users": ["sup"],
            "nimbus.users": ["alice", "bob"], "nimbus.groups": ["ops"],
            "nimbus.admins.groups": ["wheel"]}
TOPO_CONF = {"topology.name": "wc", "topology.users": ["alice"], "topology.groups": ["dev"],
             "topology.readonly.users": ["carol"], "topology.readonly.groups": ["audit"]}


def permit(principal, operation, conf=TOPO_CONF, groups=(), compat="1.x"):
    return auth.simple_acl_permit(auth.prepare_simple_acl(ACL_CONF, compat), principal,
                                  principal, groups, operation, conf, compat)


def test_every_checked_method_names_an_operation_and_the_unchecked_ones_none():
    """The kill and info families share one operation; blob calls and getTopologyHistory are
    not checked, as in Storm."""
    assert auth.operation_of("killTopologyWithOpts") == "killTopology"
    assert auth.operation_of("getTopologyInfoByNameWithOpts", "2.x") == "getTopologyInfo"
    assert auth.operation_of("uploadChunk") == "fileUpload"
    assert auth.operation_of("downloadChunk") == "fileDownload"
    for unchecked in ("beginCreateBlob", "listBlobs", "getTopologyHistory", "isRemoteBlobExists"):
        assert auth.operation_of(unchecked) is None


def test_getleader_and_name_check_use_getclusterinfo_in_1x_and_their_own_names_in_2x():
    """1.2.4 checks getLeader and isTopologyNameAllowed as "getClusterInfo", nameless."""
    assert auth.operation_of("getLeader", "1.x") == "getClusterInfo"
    assert auth.operation_of("isTopologyNameAllowed", "1.x") == "getClusterInfo"
    assert auth.operation_of("getLeader", "2.x") == "getLeader"
    assert auth.checked_name("isTopologyNameAllowed", "wc", "1.x") is None
    assert auth.checked_name("isTopologyNameAllowed", "wc", "2.x") == "wc"


def test_unknown_authorizer_class_is_refused_with_the_known_names():
    """A class pynimbus does not have fails start-up; None means no authorizer."""
    assert auth.resolve_authorizer(None) is None
    assert auth.resolve_authorizer(auth.DENY_AUTHORIZER) == auth.DENY_AUTHORIZER
    with pytest.raises(auth.UnknownAuthorizerError, match="NoopAuthorizer.*DenyAuthorizer"):
        auth.resolve_authorizer("com.example.MyAuthorizer")
    with pytest.raises(auth.UnknownAuthorizerError):
        auth.resolve_authorizer("")


def test_noop_allows_deny_refuses_and_none_allows():
    """The two trivial authorizers, and the default of no authorizer at all."""
    assert auth.permit(None, "killTopology", {}) is True
    assert auth.permit(auth.NOOP_AUTHORIZER, "killTopology", {}) is True
    assert auth.permit(auth.DENY_AUTHORIZER, "getClusterInfo", {}) is False


def test_denied_message_is_storms():
    """``<op> on topology <name> is not authorized``; without a name just ``<op> ...``."""
    assert auth.denied_message("killTopology", "wc") == \
        "killTopology on topology wc is not authorized"
    assert auth.denied_message("getClusterInfo", None) == "getClusterInfo is not authorized"
    assert isinstance(auth.authorization_error("x", None), ttypes.AuthorizationException)


def test_check_conf_is_the_topology_conf_else_its_name_else_empty():
    """Port of checkConf's three cases."""
    assert auth.check_conf("wc", {"a": 1}) == {"a": 1}
    assert auth.check_conf("wc", None) == {"topology.name": "wc"}
    assert auth.check_conf(None, None) == {}
    assert auth.merged_conf({"a": 1, "b": 1}, {"b": 2}) == {"a": 1, "b": 2}


def test_simple_acl_without_principal_fails_like_storms_null_pointer():
    """SimpleTransportPlugin without debug.simple.transport.user has no principal."""
    with pytest.raises(auth.NoPrincipalError, match="debug.simple.transport.user"):
        permit(None, "getClusterInfo")
    assert auth.request_principal({}) is None
    assert auth.request_principal({"debug.simple.transport.user": "alice"}) == "alice"


def test_simple_acl_admins_may_do_anything_and_supervisors_only_their_commands():
    """Admins pass every operation; supervisor users only fileDownload (1.x)."""
    assert permit("root", "killTopology", {}) is True
    assert permit("sup", "fileDownload") is True
    assert permit("sup", "getClusterInfo") is False
    assert permit("sup", "getSupervisorAssignments", compat="2.x") is True


def test_simple_acl_user_commands_need_nimbus_users_or_groups():
    """With nimbus.users set only they (or nimbus.groups members) may use user commands."""
    assert permit("alice", "submitTopology") is True
    assert permit("mallory", "submitTopology") is False
    assert permit("mallory", "submitTopology", groups=["ops"]) is True
    open_acl = auth.prepare_simple_acl({}, "1.x")
    assert auth.simple_acl_permit(open_acl, "anyone", "anyone", (), "getClusterInfo", {}) is True


def test_simple_acl_topology_commands_follow_topology_users_and_groups():
    """topology.users and topology.groups grant the topology commands."""
    assert permit("alice", "killTopology") is True
    assert permit("dave", "killTopology") is False
    assert permit("dave", "killTopology", groups=["dev"]) is True
    assert permit("alice", "getLeader") is False  # not a command of 1.2.4's sets


def test_simple_acl_readonly_users_only_read_in_2x():
    """2.8.8's topology.readonly.users may read, not kill; 1.2.4 has no read-only users."""
    assert permit("carol", "getTopologyConf", compat="2.x") is True
    assert permit("carol", "killTopology", compat="2.x") is False
    assert permit("carol", "getTopologyConf", compat="1.x") is False
    assert permit("erin", "getLogConfig", groups=["audit"], compat="2.x") is True


def test_simple_acl_admin_groups_exist_only_in_2x():
    """nimbus.admins.groups makes its members admins in 2.8.8 only."""
    assert permit("frank", "killTopology", groups=["wheel"], compat="2.x") is True
    assert permit("frank", "killTopology", groups=["wheel"], compat="1.x") is False


def test_principal_to_local_plugins():
    """Default keeps the name; Kerberos keeps what precedes the first / or @."""
    assert auth.principal_to_local(auth.DEFAULT_PRINCIPAL_TO_LOCAL, "a/b@R") == "a/b@R"
    assert auth.principal_to_local(auth.KERBEROS_PRINCIPAL_TO_LOCAL, "a/b@R") == "a"
    assert auth.resolve_principal_to_local(None) == auth.DEFAULT_PRINCIPAL_TO_LOCAL
    with pytest.raises(auth.UnknownAuthorizerError):
        auth.resolve_principal_to_local("com.example.Ptol")


def test_get_strings_skips_nulls_like_object_reader():
    """2.x stores topology.users with a null when there was no principal; it is skipped."""
    assert auth.get_strings(["a", None, 3]) == ["a", "3"]
    assert auth.get_strings("a") == ["a"]
    assert auth.get_strings(None) == []
