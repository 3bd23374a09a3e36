"""The submitter lines of submitTopologyWithOpts (clojure_port.submitter)."""
# test-case-name: tests.test_port_submitter

import pytest

from pynimbus.clojure_port.submitter import launch_user, submitter_fields
from pynimbus.common.config import default_config


def test_1x_submitter_without_authentication():
    """No principal: empty principal, the OS user as submitter, no users, nimbus's superACL."""
    nimbus = dict(default_config(), **{"storm.zookeeper.superACL": "sasl:nimbus"})
    ret = submitter_fields({"storm.id": "x"}, nimbus, principal=None, os_user="storm",
                           compat="1.x")
    assert ret["topology.submitter.principal"] == ""
    assert ret["topology.submitter.user"] == "storm"
    assert ret["topology.users"] == []
    assert ret["storm.zookeeper.superACL"] == "sasl:nimbus"


def test_1x_submitter_with_a_principal_and_listed_users():
    """The principal and its local user join the listed users, without repeats or nulls."""
    ret = submitter_fields({"topology.users": ["ann", None, "bob"]}, default_config(),
                           principal="bob@REALM", os_user="storm", compat="1.x",
                           local_user="bob")
    assert ret["topology.submitter.principal"] == "bob@REALM"
    assert ret["topology.submitter.user"] == "bob"
    assert ret["topology.users"] == ["ann", "bob", "bob@REALM"]


def test_1x_users_without_a_list_put_the_local_user_first():
    """With no topology.users, 1.x conj's onto nil: local user, then principal."""
    ret = submitter_fields({}, default_config(), principal="bob@REALM",
                           os_user="storm", compat="1.x", local_user="bob")
    assert ret["topology.users"] == ["bob", "bob@REALM"]


def test_2x_submitter_without_authentication_lists_null_as_a_user():
    """2.x adds the null principal to a HashSet, so topology.users is [null]."""
    ret = submitter_fields({}, default_config(), principal=None, os_user="storm",
                           compat="2.x")
    assert ret["topology.users"] == [None]
    assert ret["topology.submitter.principal"] == ""
    assert ret["topology.submitter.user"] == "storm"


def test_2x_submitter_principal_is_the_local_user():
    """2.x stores the principal's local name as topology.submitter.principal."""
    ret = submitter_fields({"topology.users": "ann"}, default_config(),
                           principal="bob@REALM", os_user="storm", compat="2.x",
                           local_user="bob")
    assert ret["topology.submitter.principal"] == "bob"
    assert sorted(ret["topology.users"]) == ["ann", "bob"]


@pytest.mark.parametrize("compat", ["1.x", "2.x"])
def test_zookeeper_topology_auth_is_dropped_without_zookeeper_auth_on_nimbus(compat):
    """The topology's ZooKeeper auth keys are removed unless nimbus uses ZooKeeper auth."""
    submitted = {"storm.zookeeper.topology.auth.scheme": "digest",
                 "storm.zookeeper.topology.auth.payload": "u:p"}
    dropped = submitter_fields(submitted, default_config(), compat=compat)
    kept = submitter_fields(
        submitted, dict(default_config(), **{"storm.zookeeper.auth.scheme": "digest"}),
        compat=compat)
    jaas = submitter_fields(submitted, default_config(), compat=compat,
                            jaas_login_configured=True)
    assert "storm.zookeeper.topology.auth.scheme" not in dropped
    assert kept["storm.zookeeper.topology.auth.payload"] == "u:p"
    assert jaas["storm.zookeeper.topology.auth.scheme"] == "digest"


def test_2x_drops_the_classpath_beginning_unless_enabled():
    """2.x removes topology.classpath.beginning unless nimbus enables it; 1.x keeps it."""
    submitted = {"topology.classpath.beginning": "/x.jar"}
    assert "topology.classpath.beginning" not in submitter_fields(
        submitted, default_config(), compat="2.x")
    assert submitter_fields(
        submitted, dict(default_config(), **{"storm.topology.classpath.beginning.enabled": True}),
        compat="2.x")["topology.classpath.beginning"] == "/x.jar"
    assert submitter_fields(submitted, default_config(), compat="1.x")[
        "topology.classpath.beginning"] == "/x.jar"


def test_submitter_fields_take_compat_from_nimbus_conf():
    """Without a compat argument nimbus's pynimbus.storm.compat decides."""
    nimbus = dict(default_config(), **{"pynimbus.storm.compat": "2.x"})
    assert submitter_fields({}, nimbus, os_user="s")["topology.users"] == [None]


def test_launch_user_is_checked_before_the_fallback_only_in_2x():
    """The run-as-user check sees the OS user in 1.x and None in 2.x without a principal."""
    assert launch_user(None, "storm", "1.x") == "storm"
    assert launch_user(None, "storm", "2.x") is None
    assert launch_user("bob", "storm", "2.x") == "bob"
