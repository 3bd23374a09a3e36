"""``TransactionAttempt``: the batch id of a Trident batch (pure).

Port of 1.2.4 ``trident/topology/TransactionAttempt``: a txid (from 1) and an attempt id (from
0); two attempts are equal when both are; its hash is its txid's (Java ``Long.hashCode``), which
``batchGlobal`` partitions by.  It is the first value of every batch tuple.  Between Python
workers it travels as msgpack's array ``[txid, attempt_id]`` (a tuple), and
:func:`as_transaction_attempt` gives it back its type.
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
