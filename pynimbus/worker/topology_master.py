# -*- test-case-name: tests.test_worker_topology_master -*-
"""The ``__topology_master`` task in the Python worker: the receiver of its topology's worker
heartbeats (JStorm 2.2.1's ``TaskHeartbeatUpdater``, under ``pynimbus.scheduler: jstorm``;
see :mod:`pynimbus.jstorm_port.topology_master` for when a topology has one).

Every stats-heartbeat period (``task.heartbeat.frequency.secs``) a worker of such a topology
sends its heartbeat's executor statistics to the master's task on the
``__master_task_heartbeat`` stream over the worker transport, instead of writing its
``ClusterWorkerHeartbeat`` to cluster state: the tuple's one value (the stream's one
field, JStorm's ``hbEvent``) is ``[count, entries, node, port]``,
``entries`` the Thrift binary encoding of the ``executor_stats`` map's ``count`` entries (each
``ExecutorInfo`` key, then its ``ExecutorStats``), zlib-compressed (statistics repeat
themselves: about 15 times smaller).  The master keeps the latest heartbeat per worker slot until its
own worker's next period, then that worker writes one record for the whole topology: the
cluster-state record.

The record (``/workerbeats/<storm-id>/<node>-<port>`` of the master's own slot, the path and
struct Storm 1.2.4 uses): a ``ClusterWorkerHeartbeat`` whose ``executor_stats`` hold every
executor reported to the master since the previous record (its own worker's included),
``time_secs`` the time of the write and ``uptime_secs`` the master's worker's.  As JStorm's
master uploads only the heartbeats received since its last upload, a worker that stopped
sending is not in the next record, and Nimbus times its executors out as it times out a worker
that stopped writing.  The master never decodes what it receives (decoding Thrift costs
milliseconds per heartbeat): the record's map is the received entries spliced together under
one map header, inflated, encoded and gzipped in the thread that writes it, never on the reactor (an
executor listed twice is read as its later entry, as any Thrift map reader does).  Nimbus reads a slot's record for the executors the slot runs and, for
the executors whose own slot has no record, the records of other slots that list them
(``StormClusterState.executor_beats``).  Deliberate differences: the executors of other
workers show the master's worker's uptime; the other workers write no record of their own.
"""

import logging
import zlib

from thrift.protocol.TBinaryProtocol import TBinaryProtocol, TBinaryProtocolAccelerated
from thrift.Thrift import TType
from thrift.transport.TTransport import TMemoryBuffer

from pynimbus.cluster.serialization import gzip_bytes
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


def encoded_entries(heartbeat):
    """``(count, bytes)``: the Thrift binary encoding of a heartbeat's ``executor_stats``
    entries, as they follow the map header in its encoding."""
    buffer = TMemoryBuffer()
    protocol = TBinaryProtocolAccelerated(buffer)
    for executor, stats in heartbeat.executor_stats.items():
        executor.write(protocol)
        stats.write(protocol)
    return len(heartbeat.executor_stats), buffer.getvalue()


def heartbeat_values(heartbeat, node, port):
    """The tuple values a worker sends the master: one value, as the stream declares one field
    (JStorm's ``hbEvent``), holding its entries' count and compressed bytes, node, port."""
    count, entries = encoded_entries(heartbeat)
    return [[count, zlib.compress(entries, 1), node, int(port)]]


def combined_heartbeat(storm_id, own, relayed, time_secs, uptime_secs):
    """The one record of a period as stored (gzip of Thrift binary): a ``ClusterWorkerHeartbeat``
    whose map holds the entries of every heartbeat in ``relayed`` (``{slot: (count,
    compressed bytes)}``; entries that do not inflate are logged and left out) and then those
    of ``own`` (None when the master's worker has no stats yet); None when there is no entry
    (then nothing is written, as for a worker without stats)."""
    parts = []
    for slot in sorted(relayed):
        count, compressed = relayed[slot]
        try:
            parts.append((count, zlib.decompress(compressed)))
        except zlib.error as e:
            log.warning("topology master: dropped the heartbeat of %s:%s: %s", slot[0],
                        slot[1], e)
    if own is not None and own.executor_stats:
        parts.append(encoded_entries(own))
    count = sum(c for c, _ in parts)
    if count == 0:
        return None
    buffer = TMemoryBuffer()
    protocol = TBinaryProtocol(buffer)
    protocol.writeStructBegin("ClusterWorkerHeartbeat")
    protocol.writeFieldBegin("storm_id", TType.STRING, 1)
    protocol.writeString(storm_id)
    protocol.writeFieldEnd()
    protocol.writeFieldBegin("executor_stats", TType.MAP, 2)
    protocol.writeMapBegin(TType.STRUCT, TType.STRUCT, count)
    for _, entries in parts:
        buffer.write(entries)
    protocol.writeMapEnd()
    protocol.writeFieldEnd()
    protocol.writeFieldBegin("time_secs", TType.I32, 3)
    protocol.writeI32(int(time_secs))
    protocol.writeFieldEnd()
    protocol.writeFieldBegin("uptime_secs", TType.I32, 4)
    protocol.writeI32(int(uptime_secs))
    protocol.writeFieldEnd()
    protocol.writeFieldStop()
    protocol.writeStructEnd()
    return gzip_bytes(buffer.getvalue())


class TopologyMasterExecutor(NoopBoltExecutor):
    """The ``__topology_master`` bolt: keeps the latest entries (count and bytes) of each
    worker slot that sent some since :meth:`take_relayed` last took them."""

    receives_at_once = False  # it reads its tuples' values: queued as a bolt's

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self._relayed = {}

    def receive(self, tuple_, task_id=None):
        if tuple_.stream != TOPOLOGY_MASTER_HB_STREAM_ID:
            return
        try:
            [(count, entries, node, port)] = tuple_.values
            if not isinstance(count, int) or count < 0:
                raise ValueError("bad entry count %r" % (count,))
            self._relayed[(str(node), int(port))] = (count, bytes(entries))
        except (ValueError, TypeError) as e:
            log.warning("topology master: dropped a malformed heartbeat from task %s: %s",
                        tuple_.source_task, e)

    def take_relayed(self):
        relayed, self._relayed = self._relayed, {}
        return relayed


def heartbeat_writer(worker, heartbeat):
    """What a worker does with its stats heartbeat this period: a function writing it to
    cluster state (blocking: run it in a thread), or None when there is nothing to write (no
    stats, or the heartbeat went to the master over the transport, on the reactor).

    Without a master the function writes the heartbeat at the worker's slot, as Storm's
    worker does; on the master's worker it writes the period's record there.

    :param worker: the :class:`~pynimbus.worker.daemon.WorkerDaemon` (its task maps,
        ``transfer``, ids, clock and cluster state).
    :param heartbeat: the worker's own ``ClusterWorkerHeartbeat``, or None without stats.
    """
    master_task = topology_master_task(worker.task_to_component)
    master = worker.task_to_executor.get(master_task) if master_task is not None else None
    if master_task is not None and master is None:
        if heartbeat is not None:
            worker.transfer(master_task, SYSTEM_TASK_ID, TOPOLOGY_MASTER_HB_STREAM_ID,
                            MessageId({}),
                            heartbeat_values(heartbeat, worker.supervisor_id, worker.port))
        return None
    if master is not None:
        now = worker.clock()
        relayed = master.take_relayed()

        def write_record():
            data = combined_heartbeat(worker.storm_id, heartbeat, relayed, now,
                                      now - worker.start_secs)
            if data is not None:
                worker.cluster_state.worker_heartbeat_data(
                    worker.storm_id, worker.supervisor_id, worker.port, data)
        return write_record
    if heartbeat is None:
        return None

    def write():
        worker.cluster_state.worker_heartbeat(worker.storm_id, worker.supervisor_id,
                                              worker.port, heartbeat)
    return write
