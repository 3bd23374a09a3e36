"""The ids of Trident's batches (pure): ``TransactionAttempt`` and ``RichSpoutBatchId``.

Ports of 1.2.4 ``trident/topology/TransactionAttempt`` and ``trident/spout/RichSpoutBatchId``.
A ``TransactionAttempt`` (the id of a spout's batch) is a txid (from 1) and an attempt id (from
0); two attempts are equal when both are; its hash is its txid's (Java ``Long.hashCode``), which
``batchGlobal`` partitions by.  A ``RichSpoutBatchId`` (the id of a DRPC request's batch) is a
random long.  The id is the first value of every batch tuple.  Between Python workers an
attempt travels as msgpack's array ``[txid, attempt_id]`` (a tuple) and a DRPC batch's id as
its int; :func:`as_batch_id` gives either back its type.
"""

import collections

from pynimbus.clojure_port.java_hash_map import long_hash


class TransactionAttempt(collections.namedtuple("TransactionAttempt", "txid attempt_id")):
    """``(txid, attempt_id)``; ``get_id()`` is the txid, as in Storm."""

    __slots__ = ()

    def get_id(self):
        return self.txid

    def get_transaction_id(self):
        return self.txid

    def get_attempt_id(self):
        return self.attempt_id

    def java_hash_code(self):
        return long_hash(self.txid)

    def __str__(self):
        return "%d:%d" % (self.txid, self.attempt_id)


def as_transaction_attempt(value):
    """``value`` (a TransactionAttempt, or the two-item list it arrives as from another worker)
    as a :class:`TransactionAttempt`.

    :raises ValueError: anything else."""
    if value.__class__ is TransactionAttempt:
        return value
    if (isinstance(value, (list, tuple)) and len(value) == 2
            and all(type(v) is int for v in value)):
        return TransactionAttempt(value[0], value[1])
    raise ValueError("not a transaction attempt: %r" % (value,))


class RichSpoutBatchId(int):
    """``RichSpoutBatchId``: the id of a batch-per-tuple spout's batch, a random long; its
    attempt is always 0 and its hash is the long's.  Between Python workers it travels as
    the plain int (:func:`as_batch_id` gives it back its type)."""

    __slots__ = ()
    attempt_id = 0

    def get_id(self):
        return int(self)

    def get_attempt_id(self):
        return 0

    def java_hash_code(self):
        return long_hash(int(self))

    def __repr__(self):
        return "RichSpoutBatchId(%d)" % self

    __str__ = __repr__


def as_batch_id(value):
    """A batch tuple's first value (as sent, or as it arrives from another worker: a
    ``[txid, attempt]`` list or an int) as the ``IBatchID`` it is: a
    :class:`~pynimbus.trident.transaction_attempt.TransactionAttempt` or a
    :class:`RichSpoutBatchId`.

    :raises ValueError: anything else."""
    cls = value.__class__
    if cls is TransactionAttempt or cls is RichSpoutBatchId:
        return value
    if cls is int:
        return RichSpoutBatchId(value)
    return as_transaction_attempt(value)
