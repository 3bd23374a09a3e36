# -*- test-case-name: tests.test_worker_acker -*-
"""Tuple message ids and the edge ids a bolt anchors with (pure).

Ports of ``org.apache.storm.tuple.MessageId``, ``Utils.bitXor``/``bitXorVals`` and the anchoring
half of executor.clj's bolt ``bolt-emit`` and ``put-xor!`` (1.2.4; 2.8.8's
``BoltOutputCollectorImpl.boltEmit`` does the same).

Every id is a Java ``long``: Storm draws them with ``Random.nextLong`` and its Kryo
serialization of ``MessageId`` writes each root and edge id as a signed 64-bit value.  The XOR
of two signed 64-bit values is again one (Python's ``^`` on negative ints acts on two's
complement), so XOR never needs wrapping; ids from a source of unsigned 64-bit numbers are put
in the signed range by :func:`java_long` once, where they are drawn, so that they encode as
msgpack ``int 64`` and compare equal to what a Java peer would send.
"""

_LONG_SPAN = 1 << 64
_LONG_MIN = -(1 << 63)
_LONG_MAX = (1 << 63) - 1


def java_long(value):
    """The Java ``long`` with the low 64 bits of ``value`` (two's complement wrap)."""
    return (value - _LONG_MIN) % _LONG_SPAN + _LONG_MIN


def mk_id_source(rng):
    """A function drawing random Java longs from ``rng`` (anything with ``getrandbits``).

    Stands in for ``MessageId.generateId(Random)``; the caller owns the generator (Storm seeds
    one per executor with ``Utils.secureRandomLong``).
    """
    getrandbits = rng.getrandbits

    def generate_id():
        # java_long of 64 random bits, without its modulo (one draw per edge of every tuple)
        value = getrandbits(64)
        return value - _LONG_SPAN if value > _LONG_MAX else value
    return generate_id


def bit_xor_vals(ids):
    """Port of ``Utils.bitXorVals``: the XOR of all ``ids`` (0 for none)."""
    ret = 0
    for edge_id in ids:
        ret ^= edge_id
    return ret


class MessageId(object):
    """Port of ``MessageId``: root id -> the XOR of this tuple's edge ids under that root.

    Treated as immutable once made (the map is not copied, so callers hand over a fresh one).
    """

    __slots__ = ("anchors_to_ids",)

    def __init__(self, anchors_to_ids):
        self.anchors_to_ids = anchors_to_ids

    @classmethod
    def make_root_id(cls, root_id, edge_id):
        """Port of ``MessageId.makeRootId``: a spout tuple of tree ``root_id``."""
        return cls({root_id: edge_id})

    def anchors(self):
        """Port of ``getAnchors``: the root ids of the trees this tuple belongs to."""
        return self.anchors_to_ids.keys()

    def __eq__(self, other):
        return isinstance(other, MessageId) and self.anchors_to_ids == other.anchors_to_ids

    def __ne__(self, other):
        return not self == other

    def __hash__(self):
        return hash(frozenset(self.anchors_to_ids.items()))

    def __repr__(self):
        return "MessageId(%r)" % (self.anchors_to_ids,)


UNANCHORED = MessageId({})
"""Port of ``MessageId.makeUnanchored``: shared, as nothing ever changes a MessageId."""


class TupleIds(object):
    """The ack bookkeeping of one received tuple: its ``message_id`` and ``ack_val``, the XOR of
    the edge ids of the tuples anchored to it so far (``TupleImpl``'s ``outAckVal``).

    The executor's own tuple class may carry these two attributes instead; the functions here
    only read ``message_id`` and update ``ack_val``.
    """

    __slots__ = ("message_id", "ack_val")

    def __init__(self, message_id, ack_val=0):
        self.message_id = message_id
        self.ack_val = ack_val

    def __repr__(self):
        return "TupleIds(%r, ack_val=%r)" % (self.message_id, self.ack_val)


def bolt_emit_message_ids(anchors, out_tasks, generate_id):
    """The MessageId of each tuple a bolt emits to ``out_tasks``, anchored to ``anchors``.

    Port of the anchoring in executor.clj ``bolt-emit`` (1.2.4): for each out task and each
    anchor that belongs to a tree, one new edge id, XORed into the anchor's ``ack_val`` (updated
    in place, as Storm updates ``TupleImpl``) and into the new tuple's id under each of the
    anchor's roots.  Unanchored emits, or anchors of no tree, get :data:`UNANCHORED`.
    Returns a list in the order of ``out_tasks``.
    """
    ret = []
    if len(anchors) == 1:  # the common case (pystorm's auto-anchor): one edge id per task
        (anchor,) = anchors
        root_ids = anchor.message_id.anchors_to_ids
        if not root_ids:
            return [UNANCHORED] * len(out_tasks)
        for _task in out_tasks:
            edge_id = generate_id()
            anchor.ack_val ^= edge_id
            ret.append(MessageId(dict.fromkeys(root_ids, edge_id)))
        return ret
    for _task in out_tasks:
        anchors_to_ids = {}
        for anchor in anchors:
            root_ids = anchor.message_id.anchors_to_ids
            if root_ids:
                edge_id = generate_id()
                anchor.ack_val ^= edge_id
                for root_id in root_ids:  # executor.clj put-xor!, inline (per tuple and root)
                    anchors_to_ids[root_id] = anchors_to_ids.get(root_id, 0) ^ edge_id
        ret.append(MessageId(anchors_to_ids) if anchors_to_ids else UNANCHORED)
    return ret
