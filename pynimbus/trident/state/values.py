"""The values a transactional or opaque map state stores per key (pure).

Ports of 1.2.4 ``trident/state/{TransactionalValue,OpaqueValue}``.
"""


class TransactionalValue(object):
    """``TransactionalValue``: a value and the txid of the batch that wrote it."""

    __slots__ = ("txid", "val")

    def __init__(self, txid, val):
        self.txid = txid
        self.val = val

    def __eq__(self, other):
        return (isinstance(other, TransactionalValue)
                and (self.txid, self.val) == (other.txid, other.val))

    def __repr__(self):
        return "TransactionalValue(txid=%r, val=%r)" % (self.txid, self.val)


class OpaqueValue(object):
    """``OpaqueValue``: the value written by batch ``curr_txid`` (``curr``) and the value from
    before that batch (``prev``).

    A replay of ``curr_txid`` (which may carry other tuples than the first try) starts again
    from ``prev``; a later txid starts from ``curr``; an earlier txid means the state is ahead
    of the stream, which is an error.  A ``batch_txid`` of None (a batch outside a transaction)
    counts as later than everything.
    """

    __slots__ = ("curr_txid", "curr", "prev")

    def __init__(self, curr_txid, curr, prev=None):
        self.curr_txid = curr_txid
        self.curr = curr
        self.prev = prev

    def _is_replay(self, batch_txid):
        """False for a later batch (or None), True for a replay of ``curr_txid``; raises for an
        earlier one."""
        if batch_txid is None:
            return False
        if self.curr_txid is None:
            # Storm compares the unboxed Long here and dies of a NullPointerException: a value
            # written outside a transaction cannot be placed against a txid.
            raise RuntimeError("Current batch (%s) cannot be compared with a value written "
                               "outside a transaction: %r" % (batch_txid, self))
        if self.curr_txid < batch_txid:
            return False
        if self.curr_txid == batch_txid:
            return True
        raise RuntimeError("Current batch (%s) is behind state's batch: %r" % (batch_txid, self))

    def update(self, batch_txid, new_val):
        """``update``: a new value holding ``new_val`` as written by ``batch_txid`` (this one is
        unchanged); its ``prev`` is this ``prev`` on a replay, else this ``curr``.

        :raises RuntimeError: ``batch_txid`` is older than ``curr_txid``."""
        prev = self.prev if self._is_replay(batch_txid) else self.curr
        return OpaqueValue(batch_txid, new_val, prev)

    def get(self, batch_txid):
        """``get``: the value batch ``batch_txid`` starts from: ``prev`` on a replay, else
        ``curr``.

        :raises RuntimeError: ``batch_txid`` is older than ``curr_txid``."""
        return self.prev if self._is_replay(batch_txid) else self.curr

    def __eq__(self, other):
        return (isinstance(other, OpaqueValue)
                and (self.curr_txid, self.curr, self.prev)
                == (other.curr_txid, other.curr, other.prev))

    def __repr__(self):
        return "OpaqueValue(curr_txid=%r, curr=%r, prev=%r)" % (
            self.curr_txid, self.curr, self.prev)
