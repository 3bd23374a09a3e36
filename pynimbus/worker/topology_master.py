# -*- test-case-name: tests.test_worker_topology_master -*-
"""The ``__topology_master`` task in the Python worker: the receiver of its topology's worker
heartbeats (JStorm 2.2.1's ``TaskHeartbeatUpdater``, under ``pynimbus.scheduler: jstorm``;
see :mod:`pynimbus.jstorm_port.topology_master` for when a topology has one).

Every stats-heartbeat period (``task.heartbeat.frequency.secs``) a worker of such a topology
sends its ``ClusterWorkerHeartbeat`` (Thrift binary, gzip, as cluster state stores it) to the
master's task on the ``__master_task_heartbeat`` stream over the worker transport, instead of
writing it to cluster state.  The master keeps the latest heartbeat per worker slot until its
own worker's next period, then that worker writes one record for the whole topology: the
cluster-state record.

The record (``/workerbeats/<storm-id>/<node>-<port>`` of the master's own slot, the path and
struct Storm 1.2.4 uses): a ``ClusterWorkerHeartbeat`` whose ``executor_stats`` hold every
executor reported to the master since the previous record (its own worker's included),
``time_secs`` the time of the write and ``uptime_secs`` the master's worker's.  As JStorm's
master uploads only the heartbeats received since its last upload, a worker that stopped
sending is not in the next record, and Nimbus times its executors out as it times out a worker
that stopped writing.  Nimbus reads a slot's record for the executors the slot runs and, for
the executors whose own slot has no record, the records of other slots that list them
(``StormClusterState.executor_beats``).  Deliberate differences: the executors of other
workers show the master's worker's uptime; the other workers write no record of their own.
"""

import logging

from pynimbus.cluster.serialization import SerializationError, deserialize, serialize
from pynimbus.generated.storm.ttypes import ClusterWorkerHeartbeat
from pynimbus.jstorm_port.topology_master import (
    TOPOLOGY_MASTER_COMPONENT_ID, TOPOLOGY_MASTER_HB_STREAM_ID)
from pynimbus.worker.executor import NoopBoltExecutor
from pynimbus.worker.message_id import MessageId

log = logging.getLogger(__name__)

SYSTEM_TASK_ID = -1  # the worker's __system executor sends its worker's heartbeat


def topology_master_task(task_to_component):
    """The master's task id in ``{task: component}``, or None when the topology has none."""
    tasks = [t for t, c in task_to_component.items() if c == TOPOLOGY_MASTER_COMPONENT_ID]
    return min(tasks) if tasks else None


def heartbeat_values(heartbeat, node, port):
    """The tuple values a worker sends the master: its heartbeat (bytes), node and port."""
    return [serialize(heartbeat), node, int(port)]


def combined_heartbeat(storm_id, own, relayed, time_secs, uptime_secs):
    """The one record of a period: the executors of ``own`` (None when the master's worker
    has no stats yet) and of every heartbeat in ``relayed`` (``{slot: heartbeat}``); None when
    there is none (then nothing is written, as for a worker without stats)."""
    executor_stats = {}
    for heartbeat in list(relayed.values()) + ([own] if own is not None else []):
        executor_stats.update(heartbeat.executor_stats or {})
    if not executor_stats:
        return None
    return ClusterWorkerHeartbeat(storm_id=storm_id, executor_stats=executor_stats,
                                  time_secs=int(time_secs), uptime_secs=int(uptime_secs))


class TopologyMasterExecutor(NoopBoltExecutor):
    """The ``__topology_master`` bolt: keeps the latest heartbeat of each worker slot that
    sent one since :meth:`take_relayed` last took them."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self._relayed = {}

    def receive(self, tuple_, task_id=None):
        if tuple_.stream != TOPOLOGY_MASTER_HB_STREAM_ID:
            return
        try:
            data, node, port = tuple_.values
            self._relayed[(node, port)] = deserialize(bytes(data), ClusterWorkerHeartbeat)
        except (ValueError, TypeError, SerializationError) as e:
            log.warning("topology master: dropped a malformed heartbeat from task %s: %s",
                        tuple_.source_task, e)

    def take_relayed(self):
        relayed, self._relayed = self._relayed, {}
        return relayed


def route_heartbeat(worker, heartbeat):
    """Where a worker's stats heartbeat goes this period: the heartbeat to write (no master;
    or the master's worker: the period's record), or None when it was sent to the master.

    :param worker: the :class:`~pynimbus.worker.daemon.WorkerDaemon` (its task maps,
        ``transfer``, ids and clock).
    :param heartbeat: the worker's own ``ClusterWorkerHeartbeat``, or None without stats.
    """
    master_task = topology_master_task(worker.task_to_component)
    if master_task is None:
        return heartbeat
    master = worker.task_to_executor.get(master_task)
    if master is None:
        if heartbeat is not None:
            worker.transfer(master_task, SYSTEM_TASK_ID, TOPOLOGY_MASTER_HB_STREAM_ID,
                            MessageId({}),
                            heartbeat_values(heartbeat, worker.supervisor_id, worker.port))
        return None
    now = worker.clock()
    return combined_heartbeat(worker.storm_id, heartbeat, master.take_relayed(), now,
                              now - worker.start_secs)
