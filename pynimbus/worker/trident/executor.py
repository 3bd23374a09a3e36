"""The bolt executor of Trident's bolts: the batch bolts and the spout coordinators.

A :class:`~pynimbus.worker.executor.BoltExecutor` keeps each input pending under an id for the
multilang protocol, whose child names inputs by id when it acks, fails or anchors.  A Trident
component runs in the worker and holds the received tuple itself, so here the host is given
the tuple as its own id: no id drawn, no pending map, no lookup on ack (executor.clj's bolt
``execute``/``ack``/``fail`` on the tuple, as Storm's ``TridentBoltExecutor`` gets it).
"""

from pynimbus.worker.executor import BoltExecutor


class BatchBoltExecutor(BoltExecutor):
    """A bolt executor whose hosts ack, fail and anchor to the received tuples themselves
    (with ``acked``, ``failed`` and ``emit_to``)."""

    def pend(self, task_id, tuple_):
        """Nothing kept: the tuple is its own id."""
        return tuple_
