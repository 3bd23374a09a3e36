"""Fake supervisors: ``SupervisorInfo`` ephemeral nodes in ZooKeeper, as Storm's tests use.

A Nimbus (1.x or 2.x) takes a supervisor to be alive while its ephemeral ``/supervisors/<id>``
node exists, and schedules onto the ports listed in ``SupervisorInfo.meta``.  Nobody runs the
workers, so executors never heartbeat: assignments stay valid for ``nimbus.task.launch.secs``
(120 s) after they are made, which is far longer than one capture.

Each :class:`FakeSupervisors` holds one ZooKeeper session (through pynimbus's
``StormClusterState``); closing it removes the nodes.  2.x Nimbus pushes assignments to
``<hostname>:<server_port>``; the hosts are loopback addresses and the port one where nothing
listens, so those pushes fail at once (and are only logged by Nimbus).
"""

import collections
import time

from pynimbus.cluster import make_cluster_state
from pynimbus.generated.storm import ttypes
from nimbus_process import free_port

SupervisorSpec = collections.namedtuple("SupervisorSpec", "id host ports")

PORTS = [6700, 6701, 6702, 6703]
# The default scenario: two supervisors with four slots each, on distinct loopback addresses.
DEFAULT_SUPERVISORS = (
    SupervisorSpec("sup-a", "127.0.0.2", PORTS),
    SupervisorSpec("sup-b", "127.0.0.3", PORTS),
)


def supervisor_info(spec, version, now=None, server_port=None):
    """The SupervisorInfo a real supervisor of ``version`` would write (no used ports yet)."""
    now = int(time.time() if now is None else now)
    info = ttypes.SupervisorInfo(
        time_secs=now, hostname=spec.host, assignment_id=spec.id, used_ports=[],
        meta=list(spec.ports), uptime_secs=0, version=version,
        resources_map={"supervisor.memory.capacity.mb": 4096.0,
                       "supervisor.cpu.capacity": 400.0})
    if version.startswith("2."):
        info.server_port = server_port or free_port()
    return info


class FakeSupervisors:
    """Supervisors registered in the ZooKeeper of ``cluster_conf`` until :meth:`close`."""

    def __init__(self, cluster_conf, specs=DEFAULT_SUPERVISORS, version="1.2.4"):
        self.cluster_conf = cluster_conf
        self.specs = list(specs)
        self.version = version
        self.state = None

    def start(self):
        self.state = make_cluster_state(self.cluster_conf)
        for spec in self.specs:
            self.state.supervisor_heartbeat(spec.id, supervisor_info(spec, self.version))
        return self

    def close(self):
        if self.state is not None:
            self.state.close()
            self.state = None

    def __enter__(self):
        return self.start()

    def __exit__(self, *exc_info):
        self.close()
