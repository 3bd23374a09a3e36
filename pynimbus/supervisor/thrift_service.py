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

Deliberate differences: assignments that could not be run or named safely are refused whole
with ``TApplicationException`` PROTOCOL_ERROR naming the bad entry (the IDL declares only
AuthorizationException; 2.8.8 stores them and fails later); there is no
``supervisor.authorizer`` yet (:func:`check_authorizer_conf` refuses to start with one).
"""

import logging
import os

from thrift.Thrift import TApplicationException
from twisted.internet import defer
from zope.interface import implementer

from pynimbus.config import ConfigError
from pynimbus.generated.storm import Supervisor
from pynimbus.generated.storm.ttypes import NotAliveException
from pynimbus.server import ThriftServerFactory
from pynimbus.supervisor import code
from pynimbus.supervisor.nimbus_rpc import BadAssignments, checked_storm_assignments

log = logging.getLogger(__name__)


def check_authorizer_conf(conf):
    """Refuse a configuration whose supervisor would not authorize as configured.

    :raises ConfigError: ``supervisor.authorizer`` is set (not supported yet), or
        ``nimbus.authorizer`` is set without it (2.8.8's IllegalStateException at start).
    """
    if conf.get("supervisor.authorizer"):
        raise ConfigError("supervisor.authorizer (%s) is not supported yet by pynimbus's "
                          "supervisor; unset it to run one" % conf["supervisor.authorizer"])
    if conf.get("nimbus.authorizer"):
        raise ConfigError("It looks like authorization is turned on for nimbus but not for the "
                          "supervisor. (supervisor.authorizer is not set)")


def storm_conf_localized(conf, storm_id):
    """The topology's conf is in this supervisor's ``stormdist`` (what 2.8.8's
    ``readSupervisorStormConf`` needs).  False for an id that cannot name a directory.
    Blocking (a stat)."""
    try:
        stormroot = code.supervisor_stormdist_root(conf, storm_id)
    except (ValueError, TypeError):
        return False
    return os.path.isfile(code.supervisor_stormconf_path(stormroot))


@implementer(Supervisor.Iface)
class SupervisorService:
    """``Supervisor.Iface`` over a supervisor daemon.

    :param supervisor: reads ``conf``, ``hostname``, ``local_assignments`` and
        ``run_blocking``; :meth:`take_assignments` is called with a pushed map.
    """

    def __init__(self, supervisor):
        self.supervisor = supervisor

    def sendSupervisorAssignments(self, assignments):
        """Take the assignments Nimbus pushes (port of ``sendSupervisorAssignments``).

        :raises TApplicationException: PROTOCOL_ERROR, an entry that cannot be taken; the
            local copy stays as it was.
        """
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
        """
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


def supervisor_server_factory(service, conf, clock):
    """The Thrift server factory of ``service``, frames capped by
    ``supervisor.thrift.max_buffer_size`` (the other limits as Nimbus's server)."""
    factory = ThriftServerFactory.from_conf(Supervisor.Processor(service), conf, clock=clock)
    factory.max_frame_size = int(conf.get("supervisor.thrift.max_buffer_size")
                                 or factory.max_frame_size)
    factory.max_frame_size_key = "supervisor.thrift.max_buffer_size"
    return factory
