# -*- test-case-name: tests.test_supervisor_registration -*-
"""The supervisor's identity and the ``SupervisorInfo`` it keeps alive in cluster state.

* The supervisor id is a UUID kept in the LocalState at
  ``<storm.local.dir>/supervisor/isupervisor`` under ``supervisor-id`` (an ``LSSupervisorId``),
  so it survives restarts and a Storm 1.2.4 supervisor started on the same directory keeps it
  too (``StandaloneSupervisor.prepare``).  Its assignment id is the same id.
* :func:`build_supervisor_info` is pure (1.2.4 ``SupervisorHeartbeat.buildSupervisorInfo``);
  :class:`SupervisorHeartbeat` writes it through ``StormClusterState.supervisor_heartbeat``
  now and every ``supervisor.heartbeat.frequency.secs``, in a thread, on the reactor's clock.
"""

import logging
import socket
import uuid

from twisted.internet import task
from twisted.internet.threads import deferToThread

from pynimbus import STORM_VERSION, STORM_VERSION_2X
from pynimbus.common.hostname import hostname
from pynimbus.common.local_dirs import supervisor_isupervisor_dir
from pynimbus.common.local_state import LocalState
from pynimbus.common.local_state import LS_ID
from pynimbus.generated.storm.ttypes import LSSupervisorId, SupervisorInfo

log = logging.getLogger(__name__)


def supervisor_hostname(conf):
    """Port of ``Utils.hostname`` (1.2.4), which the supervisor registers under: the same
    rule as nimbus's host name."""
    return hostname(conf)


def read_or_make_supervisor_id(conf, make_id=lambda: str(uuid.uuid4())):
    """Port of ``StandaloneSupervisor.prepare``: the id kept in the isupervisor LocalState,
    made with ``make_id`` and stored on first start.  Blocking (files).

    1.2.4 makes a bare UUID (``generateSupervisorId``); 2.8.8 appends ``-<host address>``.
    Either is read back as it was stored.
    """
    local_state = LocalState(supervisor_isupervisor_dir(conf))
    stored = local_state.get(LS_ID)
    if stored is not None and stored.supervisor_id:
        return stored.supervisor_id
    supervisor_id = make_id()
    local_state.put(LS_ID, LSSupervisorId(supervisor_id=supervisor_id))
    return supervisor_id


def generate_supervisor_id_2x():
    """Port of 2.8.8 ``StandaloneSupervisor.generateSupervisorId``: a UUID, ``-`` and this
    host's address (the UUID alone when the host name does not resolve).  Blocking (a name
    lookup)."""
    try:
        extra_part = "-" + socket.gethostbyname(socket.gethostname())
    except OSError:
        extra_part = ""
    return str(uuid.uuid4()) + extra_part


def _ports(values):
    """The integer ports of ``supervisor.slots.ports`` (as ``Utils.getInt``, skipping nulls)."""
    return [int(value) for value in values or () if value is not None]


def mk_supervisor_capacities(conf):
    """Port of ``SupervisorHeartbeat.mkSupervisorCapacities`` (1.2.4): memory and CPU
    capacity, with Storm's fallbacks when unset."""
    memory = conf.get("supervisor.memory.capacity.mb")
    cpu = conf.get("supervisor.cpu.capacity")
    return {"supervisor.memory.capacity.mb": float(4096.0 if memory is None else memory),
            "supervisor.cpu.capacity": float(400.0 if cpu is None else cpu)}


def build_supervisor_info(conf, hostname, assignment_id, used_ports, uptime_secs, now_secs,
                          server_port=None):
    """Port of ``SupervisorHeartbeat.buildSupervisorInfo`` (1.2.4; 2.8.8 without NUMA): pure.

    :param used_ports: the ports with a local assignment.
    :param uptime_secs: seconds since the supervisor started.
    :param now_secs: the time in seconds (``time_secs``).
    :param server_port: the port of the supervisor's own Thrift service, which only a 2.x
        supervisor has (None: a 1.x supervisor, no ``server_port`` and version 1.2.4).

    ``meta`` is ``supervisor.slots.ports`` (StandaloneSupervisor's metadata), which Nimbus
    reads as the supervisor's slots.  2.8.8 also normalizes the resources and adds
    ``supervisor.resources.map``'s; pynimbus's 2.x supervisor does not.
    """
    return SupervisorInfo(
        time_secs=int(now_secs), hostname=hostname, assignment_id=assignment_id,
        used_ports=sorted(int(port) for port in used_ports),
        meta=_ports(conf.get("supervisor.slots.ports")),
        scheduler_meta=conf.get("supervisor.scheduler.meta"),
        uptime_secs=int(uptime_secs),
        version=STORM_VERSION if server_port is None else STORM_VERSION_2X,
        resources_map=mk_supervisor_capacities(conf), server_port=server_port)


class SupervisorHeartbeat:
    """Port of 1.2.4's ``SupervisorHeartbeat`` timer task and its schedule in
    ``Supervisor.launch``: write this supervisor's info now, then every
    ``supervisor.heartbeat.frequency.secs``.

    :param cluster_state: a ``StormClusterState`` (its writes block: they run in a thread).
    :param used_ports: a callable returning the ports with a local assignment, read each beat.
    :param clock: the reactor (``seconds()``, ``callLater``); uptime counts from creation.
    :param run_blocking: ``f, *args -> Deferred`` running ``f`` off the reactor thread.
    :param server_port: the supervisor's Thrift service port (2.x), or None.
    """

    def __init__(self, conf, cluster_state, supervisor_id, hostname, used_ports, clock,
                 run_blocking=deferToThread, server_port=None):
        self.conf = conf
        self.server_port = server_port
        self.cluster_state = cluster_state
        self.supervisor_id = supervisor_id
        self.hostname = hostname
        self.used_ports = used_ports
        self.clock = clock
        self.run_blocking = run_blocking
        self.start_secs = clock.seconds()
        self._loop = None

    def supervisor_info(self):
        now = self.clock.seconds()
        return build_supervisor_info(self.conf, self.hostname, self.supervisor_id,
                                     self.used_ports(), now - self.start_secs, now,
                                     self.server_port)

    def run(self):
        """One beat: returns a Deferred that fires once the info is written.  A failed write
        is logged; the next beat tries again (as Storm's timer, which does not stop on a
        ZooKeeper error)."""
        d = self.run_blocking(self.cluster_state.supervisor_heartbeat, self.supervisor_id,
                              self.supervisor_info())
        d.addErrback(lambda failure: log.warning(
            "supervisor %s: heartbeat not written: %s", self.supervisor_id,
            failure.getErrorMessage()))
        return d

    def start(self):
        """Beat now and every ``supervisor.heartbeat.frequency.secs`` until :meth:`stop`
        (a beat still being written delays the next, never overlaps it)."""
        self._loop = task.LoopingCall(self.run)
        self._loop.clock = self.clock
        self._loop.start(float(self.conf["supervisor.heartbeat.frequency.secs"]), now=True)

    def stop(self):
        if self._loop is not None and self._loop.running:
            self._loop.stop()
        self._loop = None
