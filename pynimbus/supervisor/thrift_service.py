# -*- test-case-name: tests.test_supervisor_thrift_service -*-
"""The ``Supervisor`` Thrift service a 2.x supervisor serves on ``supervisor.thrift.port``.

Port of the ``Supervisor.Iface`` of 2.8.8 ``Supervisor.createSupervisorIface`` and of its
``launchSupervisorThriftServer`` (framed transport, binary protocol, frames up to
``supervisor.thrift.max_buffer_size``), on the project's Twisted Thrift server:

* ``sendSupervisorAssignments``: Nimbus pushes this host's assignments; they replace the local
  copy and a sync follows (upstream queues a ``SynchronizeAssignments``);
* ``getLocalAssignmentForStorm``: a worker asks for its topology's assignment from the local
  copy, so it follows what Nimbus pushed;
* ``sendSupervisorWorkerHeartbeat``: a worker's heartbeat, only checked (upstream "does
  nothing except validate"): a topology whose code is not here is not alive.

Each call is first checked by ``supervisor.authorizer`` as 2.8.8's ``checkAuthorization``
does (:class:`SupervisorAuthorization`): Noop, Deny or ``SupervisorSimpleACLAuthorizer``, whose
Nimbus users (``nimbus.daemon.users``) may only push assignments and a topology's users only
its workers' calls.  As for Nimbus, the request principal is SimpleTransportPlugin's
(``debug.simple.transport.user`` of this supervisor's conf): the authorizer holds callers to a
rule, it does not tell them apart.  What keeps a forged push from stopping workers is the check
of every push against the cluster state (``SupervisorDaemon.take_assignments``), and a
single-machine setup binds this port to loopback (``pynimbus.thrift.bind.address``).

Deliberate differences: assignments that could not be run or named safely are refused whole
with ``TApplicationException`` PROTOCOL_ERROR naming the bad entry (the IDL declares only
AuthorizationException; 2.8.8 stores them and fails later).
"""

import logging
import os

from thrift.Thrift import TApplicationException
from twisted.internet import defer
from zope.interface import implementer

from pynimbus.clojure_port import authorization as port_auth
from pynimbus.common import local_dirs
from pynimbus.common.config import ConfigError
from pynimbus.common.user_groups import unix_groups
from pynimbus.generated.storm import Supervisor
from pynimbus.generated.storm.ttypes import NotAliveException
from pynimbus.supervisor.nimbus_rpc import BadAssignments, checked_storm_assignments
from pynimbus.thrift.errors import as_application_error
from pynimbus.thrift.server import ThriftServerFactory

log = logging.getLogger(__name__)


class SupervisorAuthorization(port_auth.AuthorizationHandler):
    """The 2.x supervisor's ``authorizationHandler`` and the request's principal
    (``authorizer``: a ``resolve_supervisor_authorizer`` result; None allows every call).
    """

    @classmethod
    def from_conf(cls, conf, groups_of=unix_groups):
        """Port of 2.8.8 ``Supervisor``'s constructor lines that make its authorizer.
        Blocking (groups).

        :raises ConfigError: ``supervisor.authorizer`` or ``storm.principal.tolocal`` names a
            class pynimbus does not have, or ``nimbus.authorizer`` is set without
            ``supervisor.authorizer`` (2.8.8's IllegalStateException at start).
        """
        try:
            authorizer = port_auth.resolve_supervisor_authorizer(
                conf.get("supervisor.authorizer"))
            to_local = port_auth.resolve_principal_to_local(conf.get("storm.principal.tolocal"))
        except port_auth.UnknownAuthorizerError as e:
            raise ConfigError(str(e))
        if authorizer is None:
            if conf.get("nimbus.authorizer"):
                raise ConfigError("It looks like authorization is turned on for nimbus but not "
                                  "for the supervisor. (supervisor.authorizer is not set)")
            return cls()
        principal = port_auth.request_principal(conf)
        user = port_auth.principal_to_local(to_local, principal)
        acl = None
        groups = frozenset()
        if authorizer == port_auth.SUPERVISOR_SIMPLE_ACL_AUTHORIZER:
            acl, warning = port_auth.prepare_supervisor_simple_acl(conf)
            if warning:
                log.warning(warning)
            groups = groups_of(user) if user else frozenset()
        log.info("Supervisor authorizer %s (request principal %s)", authorizer, principal)
        return cls(authorizer, acl, principal, user, groups)

    def check(self, operation, storm_id=None, topology_conf=None):
        """Port of 2.8.8 ``Supervisor.checkAuthorization``.

        :raises AuthorizationException: denied (``<op>[ on topology <id>] is not authorized``).
        :raises TApplicationException: SupervisorSimpleACLAuthorizer without a principal.
        """
        if not self.enabled:
            return
        conf = port_auth.check_conf(storm_id, topology_conf)
        try:
            permitted = port_auth.supervisor_permit(self.authorizer, operation, conf, self.acl,
                                                    self.principal, self.user,
                                                    self.user_groups)
        except port_auth.NoPrincipalError as e:
            raise as_application_error(e)
        if not permitted:
            log.info("access-denied: principal %s operation %s topology %s", self.principal,
                     operation, storm_id)
            raise port_auth.authorization_error(operation, storm_id)


def readable_storm_conf(conf, storm_id):
    """``readSupervisorStormConf`` for the authorizer: None while the topology's conf is not
    here (or the id cannot name a directory).  Blocking."""
    try:
        return local_dirs.read_supervisor_storm_conf(conf, storm_id)
    except (OSError, ValueError, TypeError):
        return None


def storm_conf_localized(conf, storm_id):
    """The topology's conf is in this supervisor's ``stormdist`` (what 2.8.8's
    ``readSupervisorStormConf`` needs).  False for an id that cannot name a directory.
    Blocking (a stat)."""
    try:
        stormroot = local_dirs.supervisor_stormdist_root(conf, storm_id)
    except (ValueError, TypeError):
        return False
    return os.path.isfile(local_dirs.supervisor_stormconf_path(stormroot))


@implementer(Supervisor.Iface)
class SupervisorService:
    """``Supervisor.Iface`` over a supervisor daemon.

    :param supervisor: reads ``conf``, ``hostname``, ``local_assignments`` and
        ``run_blocking``; :meth:`take_assignments` is called with a pushed map.
    :param authorization: a :class:`SupervisorAuthorization` (default: allows every call).
    """

    def __init__(self, supervisor, authorization=None):
        self.supervisor = supervisor
        self.authorization = authorization or SupervisorAuthorization()

    def sendSupervisorAssignments(self, assignments):
        """Take the assignments Nimbus pushes (port of ``sendSupervisorAssignments``).

        :raises AuthorizationException: the authorizer denies it.
        :raises TApplicationException: PROTOCOL_ERROR, an entry that cannot be taken; the
            local copy stays as it was.
        """
        self.authorization.check("sendSupervisorAssignments")
        try:
            storm_assignment = checked_storm_assignments(assignments)
        except BadAssignments as e:
            log.warning("refused pushed assignments: %s", e)
            raise TApplicationException(
                TApplicationException.PROTOCOL_ERROR,
                "assignments refused, none applied: %s" % e)
        log.info("Got assignments from master for %s, syncing with them",
                 sorted(storm_assignment))
        self.supervisor.take_assignments(storm_assignment)

    def getLocalAssignmentForStorm(self, storm_id):
        """The local copy's assignment of topology ``storm_id`` (the IDL's ``id``; port of
        ``getLocalAssignmentForStorm``).

        :raises NotAliveException: this supervisor has no assignment of ``storm_id``.
        :raises AuthorizationException: the authorizer denies it (checked against the
            topology's conf when it is here, as 2.8.8 does).
        """
        if not self.authorization.enabled:
            return self._local_assignment(storm_id)
        d = self.supervisor.run_blocking(readable_storm_conf, self.supervisor.conf, storm_id)

        def checked(topology_conf):
            self.authorization.check("getLocalAssignmentForStorm", storm_id, topology_conf)
            return self._local_assignment(storm_id)
        return d.addCallback(checked)

    def _local_assignment(self, storm_id):
        assignment = (self.supervisor.local_assignments.get(storm_id)
                      if isinstance(storm_id, str) else None)
        if assignment is None:
            raise NotAliveException(msg="No local assignment assigned for storm: %s for node: %s"
                                    % (storm_id, self.supervisor.hostname))
        return assignment

    @defer.inlineCallbacks
    def sendSupervisorWorkerHeartbeat(self, heartbeat):
        """Check a worker's heartbeat (port of ``sendSupervisorWorkerHeartbeat``).

        :raises NotAliveException: the topology's conf is not in this supervisor's stormdist
            (or the heartbeat names no topology).
        """
        storm_id = getattr(heartbeat, "storm_id", None)
        localized = yield self.supervisor.run_blocking(
            storm_conf_localized, self.supervisor.conf, storm_id)
        if not localized:
            raise NotAliveException(msg="%s does not appear to be alive, you should probably "
                                        "exit" % (storm_id,))
        if self.authorization.enabled:
            topology_conf = yield self.supervisor.run_blocking(
                readable_storm_conf, self.supervisor.conf, storm_id)
            self.authorization.check("sendSupervisorWorkerHeartbeat", storm_id, topology_conf)


def supervisor_server_factory(service, conf, clock):
    """The Thrift server factory of ``service``, frames capped by
    ``supervisor.thrift.max_buffer_size`` (the other limits as Nimbus's server)."""
    factory = ThriftServerFactory.from_conf(Supervisor.Processor(service), conf, clock=clock)
    factory.max_frame_size = int(conf.get("supervisor.thrift.max_buffer_size")
                                 or factory.max_frame_size)
    factory.max_frame_size_key = "supervisor.thrift.max_buffer_size"
    return factory
