"""The ``Supervisor`` Thrift service of a 2.x supervisor (pynimbus.supervisor.thrift_service):
each call's answer and declared exception, with a stand-in supervisor, and the calls over
loopback TCP against the real server (framing, the frame limit, a refused push changing
nothing)."""
# test-case-name: tests.test_supervisor_thrift_service

import concurrent.futures
import os
import socket
import struct

import pytest
from thrift.Thrift import TApplicationException
from twisted.internet import defer

from loopback_reactor import LOOPBACK, close_reactor, new_reactor, spin_until
from pynimbus.common import local_dirs
from pynimbus.common.config import ConfigError
from pynimbus.common.stored_topology import to_compressed_json_conf
from pynimbus.generated.storm.ttypes import (
    Assignment, AuthorizationException, ExecutorInfo, NodeInfo, NotAliveException,
    SupervisorAssignments, SupervisorWorkerHeartbeat)
from pynimbus.supervisor.thrift_service import (
    SupervisorAuthorization, SupervisorService, supervisor_server_factory)
from pynimbus.thrift.client import SupervisorClient

AUTHORIZERS = "org.apache.storm.security.auth.authorizer."
SUPERVISOR_ACL = AUTHORIZERS + "SupervisorSimpleACLAuthorizer"


def assignment(node="sup-a", port=6700):
    return Assignment(master_code_dir="/x", node_host={node: "localhost"},
                      executor_node_port={(1, 1): NodeInfo(node, {port})},
                      executor_start_time_secs={(1, 1): 1}, worker_resources={})


class StandInSupervisor:
    """What the service reads and calls of a SupervisorDaemon."""

    def __init__(self, local_dir):
        self.conf = {"storm.local.dir": str(local_dir),
                     "supervisor.thrift.max_buffer_size": 4096}
        self.hostname = "localhost"
        self.local_assignments = {"wc-1-1": assignment()}
        self.taken = []

    @staticmethod
    def run_blocking(f, *args):
        return defer.maybeDeferred(f, *args)

    def take_assignments(self, storm_assignment):
        self.taken.append(storm_assignment)
        self.local_assignments = storm_assignment


@pytest.fixture
def supervisor(tmp_path):
    return StandInSupervisor(tmp_path)


def result_of(d):
    """The result of an already fired Deferred (its failure raised)."""
    out = []
    d.addBoth(out.append)
    [value] = out
    if hasattr(value, "raiseException"):
        value.raiseException()
    return value


def install_conf(conf, storm_id, topology_conf=None):
    root = local_dirs.supervisor_stormdist_root(conf, storm_id)
    os.makedirs(root)
    with open(local_dirs.supervisor_stormconf_path(root), "wb") as f:
        if topology_conf is not None:
            f.write(to_compressed_json_conf(topology_conf))


def test_pushed_assignments_are_taken(supervisor):
    """A push hands its map to the supervisor, which replaces its copy and syncs."""
    pushed = {"other-2-2": assignment(port=6701)}
    SupervisorService(supervisor).sendSupervisorAssignments(
        SupervisorAssignments(storm_assignment=pushed))
    assert supervisor.taken == [pushed]


def test_a_bad_push_is_refused_and_changes_nothing(supervisor):
    """An assignment that cannot be run: PROTOCOL_ERROR naming it, nothing taken, the local
    copy as it was."""
    before = dict(supervisor.local_assignments)
    bad = assignment()
    bad.executor_node_port = {(1, 1): NodeInfo("sup-a", set())}
    with pytest.raises(TApplicationException) as e:
        SupervisorService(supervisor).sendSupervisorAssignments(SupervisorAssignments(
            storm_assignment={"other-2-2": assignment(), "wc-1-1": bad}))
    assert e.value.type == TApplicationException.PROTOCOL_ERROR
    assert "wc-1-1" in e.value.message and "none applied" in e.value.message
    assert supervisor.taken == [] and supervisor.local_assignments == before


def test_a_worker_reads_its_topologys_local_assignment(supervisor):
    """``getLocalAssignmentForStorm`` answers from the local copy."""
    assert SupervisorService(supervisor).getLocalAssignmentForStorm("wc-1-1") == assignment()


@pytest.mark.parametrize("storm_id", ["gone-1-1", "../wc-1-1", None])
def test_no_local_assignment_is_not_alive(supervisor, storm_id):
    """A topology this supervisor has no assignment of: NotAliveException naming it and the
    host, as 2.8.8 words it."""
    with pytest.raises(NotAliveException) as e:
        SupervisorService(supervisor).getLocalAssignmentForStorm(storm_id)
    assert e.value.msg == "No local assignment assigned for storm: %s for node: localhost" \
        % storm_id


def test_a_worker_heartbeat_of_a_localized_topology_is_accepted(supervisor):
    """The topology's conf is in stormdist: the heartbeat is accepted (and only checked)."""
    install_conf(supervisor.conf, "wc-1-1")
    heartbeat = SupervisorWorkerHeartbeat("wc-1-1", [ExecutorInfo(1, 1)], 10)
    assert result_of(SupervisorService(supervisor).sendSupervisorWorkerHeartbeat(
        heartbeat)) is None


@pytest.mark.parametrize("storm_id", ["gone-1-1", "..", "", None])
def test_a_worker_heartbeat_of_a_topology_not_here_is_not_alive(supervisor, storm_id):
    """No conf in stormdist (or an id that cannot name a directory, never made a path):
    NotAliveException telling the worker to exit."""
    heartbeat = SupervisorWorkerHeartbeat(storm_id, [ExecutorInfo(1, 1)], 10)
    with pytest.raises(NotAliveException) as e:
        result_of(SupervisorService(supervisor).sendSupervisorWorkerHeartbeat(heartbeat))
    assert e.value.msg == "%s does not appear to be alive, you should probably exit" % (
        storm_id,)


@pytest.mark.parametrize("conf, named", [
    ({"supervisor.authorizer": AUTHORIZERS + "SimpleACLAuthorizer"},
     "supervisor.authorizer 'org.apache.storm.security.auth.authorizer.SimpleACLAuthorizer' "
     "is not an authorizer pynimbus's supervisor has"),
    ({"supervisor.authorizer": "com.example.Mine"}, "'com.example.Mine'"),
    ({"nimbus.authorizer": AUTHORIZERS + "SimpleACLAuthorizer"},
     "supervisor.authorizer is not set")])
def test_an_authorizer_this_supervisor_cannot_honour_stops_its_start(conf, named):
    """An authorizer class pynimbus's supervisor does not have, or nimbus's without one
    (2.8.8's IllegalStateException): a ConfigError that says so."""
    with pytest.raises(ConfigError) as e:
        SupervisorAuthorization.from_conf(conf)
    assert named in str(e.value)
    assert not SupervisorAuthorization.from_conf(
        {"supervisor.authorizer": None, "nimbus.authorizer": None}).enabled


def authorized_service(supervisor, principal, **conf):
    conf = dict({"supervisor.authorizer": SUPERVISOR_ACL, "nimbus.daemon.users": ["nimbus"],
                 "nimbus.admins": ["root-admin"]}, **conf)
    if principal is not None:
        conf["debug.simple.transport.user"] = principal
    return SupervisorService(supervisor, SupervisorAuthorization.from_conf(
        conf, groups_of=lambda user: frozenset()))


def push(service, storm_assignment):
    return service.sendSupervisorAssignments(
        SupervisorAssignments(storm_assignment=storm_assignment))


def test_supervisor_acl_lets_nimbus_only_push_assignments(supervisor):
    """SupervisorSimpleACLAuthorizer: a Nimbus user (nimbus.daemon.users) may push, and may
    not make its workers' calls."""
    install_conf(supervisor.conf, "wc-1-1", {"topology.users": ["alice"]})
    service = authorized_service(supervisor, "nimbus")
    pushed = {"wc-1-1": assignment(port=6701)}
    push(service, pushed)
    assert supervisor.taken == [pushed]
    with pytest.raises(AuthorizationException) as e:
        result_of(service.getLocalAssignmentForStorm("wc-1-1"))
    assert e.value.msg == "getLocalAssignmentForStorm on topology wc-1-1 is not authorized"
    with pytest.raises(AuthorizationException):
        result_of(service.sendSupervisorWorkerHeartbeat(
            SupervisorWorkerHeartbeat("wc-1-1", [ExecutorInfo(1, 1)], 10)))


def test_supervisor_acl_lets_a_topologys_users_make_its_workers_calls_only(supervisor):
    """A user of the topology (its stored topology.users) reads its assignment and sends
    heartbeats, and cannot push: the local copy stays as it was."""
    install_conf(supervisor.conf, "wc-1-1", {"topology.users": ["alice"]})
    service = authorized_service(supervisor, "alice")
    assert result_of(service.getLocalAssignmentForStorm("wc-1-1")) == assignment()
    assert result_of(service.sendSupervisorWorkerHeartbeat(
        SupervisorWorkerHeartbeat("wc-1-1", [ExecutorInfo(1, 1)], 10))) is None
    before = dict(supervisor.local_assignments)
    with pytest.raises(AuthorizationException) as e:
        push(service, {})
    assert e.value.msg == "sendSupervisorAssignments is not authorized"
    assert supervisor.taken == [] and supervisor.local_assignments == before
    # another user, or a topology whose conf is not here yet, is refused
    with pytest.raises(AuthorizationException):
        result_of(authorized_service(supervisor, "mallory").getLocalAssignmentForStorm(
            "wc-1-1"))
    supervisor.local_assignments["other-2-2"] = assignment()
    with pytest.raises(AuthorizationException):
        result_of(service.getLocalAssignmentForStorm("other-2-2"))


def test_supervisor_acl_admins_may_do_anything(supervisor):
    install_conf(supervisor.conf, "wc-1-1", {})
    service = authorized_service(supervisor, "root-admin")
    push(service, {"wc-1-1": assignment()})
    assert result_of(service.getLocalAssignmentForStorm("wc-1-1")) == assignment()


def test_supervisor_acl_without_a_principal_is_an_internal_error(supervisor):
    """SimpleTransportPlugin without debug.simple.transport.user has no principal: Storm's
    NullPointerException, here an INTERNAL_ERROR that names the setting."""
    with pytest.raises(TApplicationException) as e:
        push(authorized_service(supervisor, None), {})
    assert e.value.type == TApplicationException.INTERNAL_ERROR
    assert "debug.simple.transport.user" in e.value.message
    assert supervisor.taken == []


def test_deny_authorizer_refuses_every_call(supervisor):
    install_conf(supervisor.conf, "wc-1-1", {})
    service = SupervisorService(supervisor, SupervisorAuthorization.from_conf(
        {"supervisor.authorizer": AUTHORIZERS + "DenyAuthorizer"}))
    with pytest.raises(AuthorizationException):
        push(service, {})
    with pytest.raises(AuthorizationException):
        result_of(service.getLocalAssignmentForStorm("wc-1-1"))
    assert supervisor.taken == []


@pytest.fixture
def served(supervisor):
    """The service on a loopback port of a private reactor: ``(reactor, port)``."""
    reactor = new_reactor()
    factory = supervisor_server_factory(SupervisorService(supervisor), supervisor.conf,
                                        reactor)
    listening = reactor.listenTCP(0, factory, interface=LOOPBACK)
    yield reactor, listening.getHost().port
    close_reactor(reactor)


def call(served, method, *args):
    """``method`` over a blocking SupervisorClient in a thread, the reactor turned here."""
    reactor, port = served

    def remote():
        with SupervisorClient(LOOPBACK, port, timeout=10) as client:
            return client.call(method, *args)
    with concurrent.futures.ThreadPoolExecutor(1) as pool:
        future = pool.submit(remote)
        spin_until(reactor, future.done, what="the answer of %s" % method)
        return future.result()


def test_over_the_wire_a_refused_push_then_a_good_one(served, supervisor):
    """Framed binary Thrift on loopback: a bad push gets its PROTOCOL_ERROR and changes
    nothing; a good one is taken and a worker then reads it."""
    bad = assignment()
    bad.executor_node_port = {(1, 1): NodeInfo("sup-a", {0})}
    with pytest.raises(TApplicationException) as e:
        call(served, "sendSupervisorAssignments",
             SupervisorAssignments(storm_assignment={"wc-1-1": bad}))
    assert e.value.type == TApplicationException.PROTOCOL_ERROR
    assert supervisor.taken == []
    pushed = {"other-2-2": assignment(port=6701)}
    call(served, "sendSupervisorAssignments", SupervisorAssignments(storm_assignment=pushed))
    assert call(served, "getLocalAssignmentForStorm", "other-2-2") == pushed["other-2-2"]
    with pytest.raises(NotAliveException):
        call(served, "getLocalAssignmentForStorm", "wc-1-1")


def test_over_the_wire_a_push_the_authorizer_denies_is_an_authorization_exception(supervisor):
    """The denial reaches the client as the IDL's AuthorizationException, and the worker's
    call of a topology user is answered."""
    install_conf(supervisor.conf, "wc-1-1", {"topology.users": ["alice"]})
    reactor = new_reactor()
    try:
        factory = supervisor_server_factory(authorized_service(supervisor, "alice"),
                                            supervisor.conf, reactor)
        listening = reactor.listenTCP(0, factory, interface=LOOPBACK)
        served = (reactor, listening.getHost().port)
        with pytest.raises(AuthorizationException) as e:
            call(served, "sendSupervisorAssignments", SupervisorAssignments(storm_assignment={}))
        assert e.value.msg == "sendSupervisorAssignments is not authorized"
        assert call(served, "getLocalAssignmentForStorm", "wc-1-1") == assignment()
    finally:
        close_reactor(reactor)
    assert supervisor.taken == []


def test_a_frame_over_supervisor_thrift_max_buffer_size_closes_the_connection(served,
                                                                              caplog):
    """A frame longer than ``supervisor.thrift.max_buffer_size`` (4096 here) is refused by
    closing the connection, logged under that setting's name, as the Nimbus server does
    with its own limit."""
    reactor, port = served
    sock = socket.create_connection((LOOPBACK, port), timeout=10)
    sock.setblocking(False)
    sock.sendall(struct.pack("!I", 4097) + b"x" * 16)
    received = []

    def closed():
        try:
            received.append(sock.recv(1))
        except BlockingIOError:
            return False
        except ConnectionResetError:  # closed with unread bytes: a reset
            return True
        return received[-1] == b""
    try:
        spin_until(reactor, closed, what="the connection to close")
    finally:
        sock.close()
    assert "exceeds supervisor.thrift.max_buffer_size (4096)" in caplog.text
