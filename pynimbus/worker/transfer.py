"""worker.clj ``mk-transfer-fn``: where an executor's emitted tuple goes, a task of this worker
or another worker's client.  Kept apart from the daemon (whose Twisted coroutines stay Python)
so that setup.py can compile this hot path (pynimbus.common.compiled)."""

from pynimbus.clojure_port.system_topology import SYSTEM_COMPONENT_ID
from pynimbus.worker.executor import TupleImpl
from pynimbus.worker.wire import WireError


class TransferFn(object):
    """The worker's transfer function.

    ``task_to_executor`` is the worker's own map (filled as it builds its executors);
    ``task_to_component`` and ``task_to_client`` are set by the worker as it learns them.  A
    tuple that cannot cross to another worker (too large for a frame, a value msgpack cannot
    carry) goes to ``on_unsendable(source_task, error)`` instead, and the emit goes on: it is
    the emitting component's error, not the transport's."""

    def __init__(self, task_to_executor, on_unsendable=None):
        self.task_to_executor = task_to_executor
        self.task_to_component = {}
        self.task_to_client = {}
        self.on_unsendable = on_unsendable

    def transfer(self, dest_task, source_task, stream, message_id, values):
        """A local task's tuple joins its executor's receive queue; a remote one goes to its
        worker's client."""
        executor = self.task_to_executor.get(dest_task)
        if executor is not None:
            executor.receive(dest_task, TupleImpl(
                source_task, self.task_to_component.get(source_task, SYSTEM_COMPONENT_ID),
                stream, values, message_id))
            return
        client = self.task_to_client.get(dest_task)
        if client is not None:
            try:
                client.send(dest_task, source_task, stream, message_id.anchors_to_ids, values)
            except WireError as e:
                if self.on_unsendable is None:
                    raise
                self.on_unsendable(source_task, e)
