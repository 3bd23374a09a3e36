"""Tests for pynimbus.handlers.authorization: the hook handlers call."""
# test-case-name: tests.test_authorization

import pytest
from thrift.Thrift import TApplicationException

from pynimbus.clojure_port import authorization as port_auth
from pynimbus.common.config import ConfigError
from pynimbus.generated.storm.ttypes import AuthorizationException
from pynimbus.handlers.authorization import ALLOW_ALL, Authorization


def test_unknown_authorizer_fails_with_a_config_error_naming_it():
    """An unknown nimbus.authorizer stops start-up with a message naming the class."""
    with pytest.raises(ConfigError, match="com.example.Nope"):
        Authorization.from_conf({"nimbus.authorizer": "com.example.Nope"})


def test_no_authorizer_allows_everything():
    """The default (no nimbus.authorizer) and ALLOW_ALL never deny."""
    authz = Authorization.from_conf({})
    assert not authz.enabled
    authz.check("killTopology", "wc", {})
    ALLOW_ALL.check("getClusterInfo")


def test_deny_raises_storms_authorization_exception_where_declared():
    """A method declaring AuthorizationException gets it, with Storm's message."""
    authz = Authorization.from_conf({"nimbus.authorizer": port_auth.DENY_AUTHORIZER})
    with pytest.raises(AuthorizationException) as e:
        authz.check("killTopologyWithOpts", "wc", {})
    assert e.value.msg == "killTopology on topology wc is not authorized"
    with pytest.raises(AuthorizationException) as e:
        authz.check("isTopologyNameAllowed", "wc")  # 1.x: nameless getClusterInfo
    assert e.value.msg == "getClusterInfo is not authorized"
    authz.check("beginCreateBlob")  # unchecked in Storm


def test_deny_on_a_method_without_declared_exception_is_an_internal_error():
    """setLogConfig declares nothing: the denial is TApplicationException INTERNAL_ERROR."""
    authz = Authorization.from_conf({"nimbus.authorizer": port_auth.DENY_AUTHORIZER,
                                     "pynimbus.storm.compat": "2.x"})
    with pytest.raises(TApplicationException) as e:
        authz.check("setLogConfig", "wc", {})
    assert e.value.type == TApplicationException.INTERNAL_ERROR
    assert e.value.message == "setLogConfig on topology wc is not authorized"


def test_simple_acl_with_the_debug_transport_user_and_its_groups():
    """debug.simple.transport.user is the principal; its groups come from groups_of."""
    conf = {"nimbus.authorizer": port_auth.SIMPLE_ACL_AUTHORIZER,
            "debug.simple.transport.user": "alice", "nimbus.users": ["bob"],
            "nimbus.groups": ["ops"]}
    authz = Authorization.from_conf(conf, groups_of=lambda user: {"ops"} if user == "alice"
                                    else set())
    authz.check("getClusterInfo")
    authz.check("killTopology", "wc", {"topology.users": ["alice"]})
    with pytest.raises(AuthorizationException):
        authz.check("killTopology", "wc", {"topology.users": ["bob"]})


def test_simple_acl_without_a_principal_is_an_internal_error_saying_why():
    """No debug.simple.transport.user: Storm's NullPointerException, with a reason here."""
    authz = Authorization.from_conf({"nimbus.authorizer": port_auth.SIMPLE_ACL_AUTHORIZER})
    with pytest.raises(TApplicationException, match="no principal"):
        authz.check("getClusterInfo")


def test_2x_merges_nimbus_conf_under_the_topology_conf_for_kill():
    """2.8.8 checks kill against Utils.merge(conf, topoConf); getTopologyInfo the stored conf."""
    authz = Authorization.from_conf({"pynimbus.storm.compat": "2.x", "x": 1})
    assert authz.topology_conf_for("killTopologyWithOpts", {"y": 2}) == {
        "pynimbus.storm.compat": "2.x", "x": 1, "y": 2}
    assert authz.topology_conf_for("getTopologyInfo", {"y": 2}) == {"y": 2}
