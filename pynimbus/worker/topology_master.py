# -*- test-case-name: tests.test_worker_topology_master -*-
"""The ``__topology_master`` task in the Python worker: the receiver of its topology's worker
heartbeats (JStorm 2.2.1's ``TaskHeartbeatUpdater``, under ``pynimbus.scheduler: jstorm``;
see :mod:`pynimbus.jstorm_port.topology_master` for when a topology has one).

Every stats-heartbeat period (``task.heartbeat.frequency.secs``) a worker of such a topology
sends its ``ClusterWorkerHeartbeat`` to the master's task on the ``__master_task_heartbeat``
stream over the worker transport, instead of writing it to cluster state: the tuple's one
value (the stream's one field, JStorm's ``hbEvent``) is ``[heartbeat, node, port]``, the
heartbeat as cluster state stores it (gzip of its Thrift binary encoding,
:func:`pynimbus.cluster.serialization.serialize`).  The master keeps the latest heartbeat per
worker slot, still encoded (the reactor never decodes it), until its own worker's next period;
then that worker decodes them in the thread that writes and writes one record for the whole
topology.

The record (``/workerbeats/<storm-id>/<node>-<port>`` of the master's own slot, the path and
struct Storm 1.2.4 uses): a ``ClusterWorkerHeartbeat`` whose ``executor_stats`` hold every
executor reported to the master since the previous record (its own worker's included, and an
executor reported twice as its later report), ``time_secs`` the time of the write and
``uptime_secs`` the master's worker's.  As JStorm's master uploads only the heartbeats
received since its last upload, a worker that stopped sending is not in the next record, and
Nimbus times its executors out as it times out a worker that stopped writing.  Nimbus reads a
slot's record for the executors the slot runs and, for the executors whose own slot has no
record, the records of other slots that list them (``StormClusterState.executor_beats``).
Deliberate differences: the executors of other workers show the master's worker's uptime; the
other workers write no record of their own.
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
    """The tuple values a worker sends the master: one value, as the stream declares one field
    (JStorm's ``hbEvent``): its heartbeat as stored, node, port."""
    return [[serialize(heartbeat), node, int(port)]]


def combined_heartbeat(storm_id, own, relayed, time_secs, uptime_secs):
    """The one record of a period: a ``ClusterWorkerHeartbeat`` whose map holds the executors
    of every heartbeat in ``relayed`` (``{slot: stored heartbeat}``, in slot order; one that
    does not decode is logged and left out) and then those of ``own`` (None when the master's
    worker has no stats yet); None when there is no executor (then nothing is written, as
    for a worker without stats).  Blocking work (decoding): run it off the reactor."""
    executor_stats = {}
    for slot in sorted(relayed):
        try:
            executor_stats.update(deserialize(relayed[slot], ClusterWorkerHeartbeat)
                                  .executor_stats)
        except SerializationError as e:
            log.warning("topology master: dropped the heartbeat of %s:%s: %s", slot[0],
                        slot[1], e)
    if own is not None:
        executor_stats.update(own.executor_stats)
    if not executor_stats:
        return None
    return ClusterWorkerHeartbeat(storm_id=storm_id, executor_stats=executor_stats,
                                  time_secs=int(time_secs), uptime_secs=int(uptime_secs))


class TopologyMasterExecutor(NoopBoltExecutor):
    """The ``__topology_master`` bolt: keeps the latest heartbeat (as stored) of each worker
    slot that sent one since :meth:`take_relayed` last took them."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self._relayed = {}

    def accept(self, task_id, tuple_):
        if tuple_.stream != TOPOLOGY_MASTER_HB_STREAM_ID:
            return
        try:
            [(heartbeat, node, port)] = tuple_.values
            self._relayed[(str(node), int(port))] = bytes(heartbeat)
        except (ValueError, TypeError) as e:
            log.warning("topology master: dropped a malformed heartbeat from task %s: %s",
                        tuple_.source_task, e)

    def take_relayed(self):
        relayed, self._relayed = self._relayed, {}
        return relayed


class HeartbeatRouting:
    """Where a worker's stats heartbeat goes each period (made once per worker).

    Without a master the heartbeat is written at the worker's slot, as Storm's worker does;
    a worker of a topology with a master sends it to the master's task over ``transfer``;
    the master's own worker writes the period's record at its slot.

    :param task_to_component: the topology's ``{task: component}``.
    :param master: the master's executor when this worker runs it, else None.
    :param transfer: the worker's transfer function.
    :param cluster_state: where heartbeats are written (``worker_heartbeat``).
    :param storm_id, node, port: the worker's topology and slot.
    :param clock: Unix seconds; ``start_secs`` the worker's start on it.
    """

    def __init__(self, task_to_component, master, transfer, cluster_state, storm_id, node,
                 port, clock, start_secs):
        self.master_task = topology_master_task(task_to_component)
        self.master = master
        self.transfer = transfer
        self.cluster_state = cluster_state
        self.storm_id, self.node, self.port = storm_id, node, port
        self.clock = clock
        self.start_secs = start_secs

    def writer(self, heartbeat):
        """What to do with this period's ``heartbeat`` (None without stats): a function
        writing to cluster state (blocking: run it in a thread), or None when there is
        nothing to write (no stats, or it went to the master, on the reactor, now)."""
        if self.master_task is not None and self.master is None:
            if heartbeat is not None:
                self.transfer(self.master_task, SYSTEM_TASK_ID, TOPOLOGY_MASTER_HB_STREAM_ID,
                              MessageId({}), heartbeat_values(heartbeat, self.node, self.port))
            return None
        if self.master is not None:
            return self._record_writer(heartbeat)
        if heartbeat is None:
            return None
        return lambda: self.cluster_state.worker_heartbeat(self.storm_id, self.node,
                                                           self.port, heartbeat)

    def _record_writer(self, heartbeat):
        now = self.clock()
        relayed = self.master.take_relayed()

        def write_record():
            record = combined_heartbeat(self.storm_id, heartbeat, relayed, now,
                                        now - self.start_secs)
            if record is not None:
                self.cluster_state.worker_heartbeat(self.storm_id, self.node, self.port,
                                                    record)
        return write_record
