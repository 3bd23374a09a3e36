"""The DRPC server's authorizers (:mod:`pynimbus.drpc.authorizer`): Storm's deny-all and
DRPCSimpleACLAuthorizer (ACL by function, strict or not), and a server that refuses."""

import pytest

from pynimbus.common.config import ConfigError
from pynimbus.drpc.authorizer import (
    DENY_AUTHORIZER, DRPC_SIMPLE_ACL_AUTHORIZER, NOOP_AUTHORIZER, drpc_permit)

ACL = """drpc.authorizer.acl:
  words:
    client.users: [alice, bob]
    invocation.user: storm
  reach:
    client.users: [carol]
"""


class Clock(object):
    def __init__(self):
        self.now = 0.0

    def __call__(self):
        return self.now


def acl_permit(tmp_path, user, strict=None, text=ACL, clock=None):
    (tmp_path / "drpc-auth-acl.yaml").write_text(text)
    conf = {"drpc.authorizer": DRPC_SIMPLE_ACL_AUTHORIZER, "debug.simple.transport.user": user}
    if strict is not None:
        conf["drpc.authorizer.acl.strict"] = strict
    return drpc_permit(conf, clock or Clock(), conf_dir=str(tmp_path))


def test_no_authorizer_and_noop_permit_deny_refuses_and_others_are_refused_at_start():
    assert drpc_permit({}, Clock()) is None
    assert drpc_permit({"drpc.authorizer": NOOP_AUTHORIZER}, Clock()) is None
    deny = drpc_permit({"drpc.authorizer": DENY_AUTHORIZER}, Clock())
    assert not deny("execute", "words") and not deny("fetchRequest", "words")
    with pytest.raises(ConfigError) as refused:
        drpc_permit({"drpc.authorizer": "com.example.Mine"}, Clock())
    assert "DRPCSimpleACLAuthorizer" in str(refused.value)


def test_clients_and_the_invocation_user_of_each_function(tmp_path):
    alice = acl_permit(tmp_path, "alice")
    assert alice("execute", "words") and not alice("execute", "reach")
    assert not alice("fetchRequest", "words") and not alice("result", "words")
    storm = acl_permit(tmp_path, "storm")
    assert storm("fetchRequest", "words") and storm("result", "words")
    assert storm("failRequest", "words") and not storm("execute", "words")
    assert not storm("fetchRequest", "reach")  # no invocation user: nobody
    assert not storm("shutdown", "words")  # an operation DRPC does not have


def test_a_function_without_an_entry_is_permitted_unless_strict(tmp_path):
    assert acl_permit(tmp_path, "alice", strict=False)("execute", "other")  # defaults.yaml's
    assert not acl_permit(tmp_path, "alice")("execute", "other")  # unset: Storm's null check
    assert not acl_permit(tmp_path, "alice", strict=True)("execute", "other")
    anonymous = acl_permit(tmp_path, None, strict=True)
    assert not anonymous("execute", "words")


def test_the_acl_is_read_again_after_five_seconds_and_an_unreadable_one_refuses(tmp_path):
    clock = Clock()
    permit = acl_permit(tmp_path, "dave", clock=clock)
    assert not permit("execute", "words")
    (tmp_path / "drpc-auth-acl.yaml").write_text(ACL.replace("bob", "dave"))
    clock.now = 4.0
    assert not permit("execute", "words")  # still the old one
    clock.now = 5.5
    assert permit("execute", "words")
    (tmp_path / "drpc-auth-acl.yaml").write_text("drpc.authorizer.acl: [not, a, map]")
    clock.now = 11.0
    assert not permit("execute", "words") and not permit("execute", "other")


def test_a_server_with_an_acl_refuses_callers_and_topologies_not_in_it(tmp_path):
    from drpc_process import DRPCProcess
    from pynimbus.generated.storm.ttypes import AuthorizationException
    (tmp_path / "drpc-auth-acl.yaml").write_text(ACL)  # in the server's working directory
    server = DRPCProcess(tmp_path, "drpc.authorizer=" + DRPC_SIMPLE_ACL_AUTHORIZER,
                         "drpc.authorizer.acl.strict=true", "debug.simple.transport.user=alice")
    try:
        _wait_listening(server)  # (its readiness call, fetchRequest, would be refused)
        with server.client() as client:
            with pytest.raises(AuthorizationException) as refused:
                client.execute("reach", "x")
        assert refused.value.msg == "DRPC request 'execute' for 'alice' user is not authorized"
        with server.invocations() as invocations:
            with pytest.raises(AuthorizationException):
                invocations.fetchRequest("words")  # alice is no invocation user
    finally:
        server.stop()


def _wait_listening(server, timeout=30.0):
    import socket
    import time
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        assert server.process.poll() is None, server.log_text()
        try:
            socket.create_connection(("127.0.0.1", server.port), timeout=1).close()
            return
        except OSError:
            time.sleep(0.02)  # not listening yet: the port answering is the condition
    pytest.fail("pynimbus drpc did not listen:\n%s" % server.log_text())


def test_a_server_with_an_unknown_authorizer_does_not_start(tmp_path):
    from drpc_process import DRPCProcess
    server = DRPCProcess(tmp_path, "drpc.authorizer=com.example.Mine")
    try:
        assert server.process.wait(30) == 1
        assert "DRPC could not start: drpc.authorizer 'com.example.Mine'" in server.log_text()
    finally:
        server.stop()
