"""The wire codec between workers: tuples as length-prefixed, batched msgpack frames (pure).

Storm 1.2.4's netty transport sends ``TaskMessage``s (a destination task and a Kryo-serialized
tuple) in ``MessageBatch``es, and its ``KryoTupleSerializer`` writes a tuple's source task,
stream, ``MessageId`` (root id -> edge id XOR map) and values.  We carry the same facts in a
framing of our own, and only msgpack, never pickle or Kryo:

* a **frame** is a 4-byte big-endian unsigned length ``N``, then ``N`` bytes of payload;
  ``N`` of 0 or above the receiver's ``max_frame_bytes`` is refused (the connection is closed);
* the **payload** is one msgpack array of messages (one frame is one batch: 1 to many tuples);
* a **message** is a msgpack array of five items::

      [dest_task, source_task, stream_id, message_id, values]

  ``dest_task`` and ``source_task`` integers (task ids; -1 is Storm's system task),
  ``stream_id`` a string, ``message_id`` a map of root id to edge id (64-bit integers, empty
  when the tuple is not anchored), ``values`` an array of msgpack values (nil, bool, int of
  64 bits, float, str, bytes, array, map); a tuple or list value arrives as a list.  Any other
  value is refused at the sender (``UnencodableValue``), never converted.

Messages are encoded one by one as they are sent (``encode_message``), so the sender knows at
once whether a tuple can travel and how many bytes it holds, and a frame is those encodings
joined (``frame``).  ``FrameDecoder`` cuts a byte stream into payloads and ``decode_frame``
checks each message's shape.  Nothing here does I/O.
"""

import collections
import struct

import msgpack

FRAME_PREFIX = struct.Struct("!I")
# The largest msgpack array header (0xdd and a 32-bit count), so a frame's size is known before
# its header is written.
MAX_ARRAY_HEADER_BYTES = 5

AddressedTuple = collections.namedtuple(
    "AddressedTuple", "dest_task source_task stream_id message_id values")
AddressedTuple.__doc__ = """A tuple on its way to one task: 2.x's ``AddressedTuple`` (dest and
tuple) with the fields of 1.2.4's ``TupleImpl`` that ``KryoTupleSerializer`` writes."""


class WireError(ValueError):
    """A tuple or frame that cannot cross the wire; the message says which and why."""


class UnencodableValue(WireError):
    """A tuple whose fields are not msgpack's types (refused at the sender)."""


class FrameTooLarge(WireError):
    """A message or frame longer than the frame size limit."""


class MalformedFrame(WireError):
    """A received payload that is not a msgpack array of well-formed messages."""


def _refuse_ext(code, data):
    raise MalformedFrame("msgpack extension type %d is not accepted between workers" % code)


def encode_message(packer, dest_task, source_task, stream_id, message_id, values):
    """The msgpack bytes of one message; ``packer`` is a ``msgpack.Packer()`` the caller keeps.

    Follows what 1.2.4 ``KryoTupleSerializer.serialize`` writes (source task, stream, message
    id, values), plus the destination task that ``TaskMessage`` carries.

    :raises UnencodableValue: when a task id is not an int, the stream not a str, the message
        id not a map of int to int, or a value not of msgpack's types (its type is named).
    """
    if (dest_task.__class__ is not int or source_task.__class__ is not int
            or stream_id.__class__ is not str or message_id.__class__ is not dict
            or values.__class__ not in _SEQUENCES):
        _check_fields(dest_task, source_task, stream_id, message_id, values)
    for root_id, edge_id in message_id.items():  # a loop: all() of a generator costs more
        if root_id.__class__ is not int or edge_id.__class__ is not int:
            raise _unencodable_message_id(stream_id, message_id)
    try:
        return packer.pack((dest_task, source_task, stream_id, message_id, values))
    except (TypeError, OverflowError, ValueError) as e:
        raise UnencodableValue("a tuple on stream %r from task %d holds a value msgpack cannot "
                               "carry (%s); values must be None, bool, int (64 bits), float, "
                               "str, bytes, list or dict" % (stream_id, source_task, e))


_SEQUENCES = (list, tuple)


def _check_fields(dest_task, source_task, stream_id, message_id, values):
    """What ``encode_message`` refuses of the fields it does not find of the exact types:
    raises with the reason, or returns for subclasses of them."""
    if type(dest_task) is not int or type(source_task) is not int:
        raise UnencodableValue("task ids must be integers, not %s and %s"
                               % (type(dest_task).__name__, type(source_task).__name__))
    if not isinstance(stream_id, str):
        raise UnencodableValue("stream id must be a string, not %s" % type(stream_id).__name__)
    if not isinstance(message_id, dict):
        raise _unencodable_message_id(stream_id, message_id)
    if not isinstance(values, _SEQUENCES):
        raise UnencodableValue("values of a tuple on stream %r must be a list, not %s"
                               % (stream_id, type(values).__name__))


def _unencodable_message_id(stream_id, message_id):
    return UnencodableValue("message id of a tuple on stream %r must map root ids to edge ids "
                            "(integers): %r" % (stream_id, message_id))


def frame(encoded_messages):
    """One frame (length prefix and payload) holding ``encoded_messages`` as one batch."""
    header = msgpack.Packer().pack_array_header(len(encoded_messages))
    payload_length = len(header) + sum(map(len, encoded_messages))
    return b"".join([FRAME_PREFIX.pack(payload_length), header] + list(encoded_messages))


class FrameDecoder:
    """Cuts a byte stream into frame payloads, refusing lengths of 0 or over the limit.

    Plays the part of 1.2.4 netty ``MessageDecoder`` (which reads ``MessageBatch``es).  Bytes
    go in with ``feed``; ``next_payload`` hands out one payload at a time, so a reader that
    must stop (backpressure) leaves the rest buffered.  At most one frame's bytes plus what one
    ``feed`` brings are held.
    """

    def __init__(self, max_frame_bytes):
        self.max_frame_bytes = max_frame_bytes
        self._buffer = bytearray()

    def feed(self, data):
        self._buffer += data

    def buffered_bytes(self):
        return len(self._buffer)

    def frame_length(self):
        """The length the next frame declares, or None until its prefix has arrived.

        :raises FrameTooLarge: when the length prefix is 0 or over ``max_frame_bytes``.
        """
        if len(self._buffer) < FRAME_PREFIX.size:
            return None
        (length,) = FRAME_PREFIX.unpack_from(self._buffer)
        if length == 0 or length > self.max_frame_bytes:
            raise FrameTooLarge("frame of %d bytes refused (limit %d, and 0 is not a frame)"
                                % (length, self.max_frame_bytes))
        return length

    def next_payload(self):
        """The next whole payload, or None until more bytes arrive.

        :raises FrameTooLarge: when the length prefix is 0 or over ``max_frame_bytes``.
        """
        length = self.frame_length()
        if length is None:
            return None
        end = FRAME_PREFIX.size + length
        if len(self._buffer) < end:
            return None
        payload = bytes(self._buffer[FRAME_PREFIX.size:end])
        del self._buffer[:end]
        return payload


def decode_frame(payload):
    """The ``AddressedTuple``s of one frame's payload, in their order.

    Follows 1.2.4 ``KryoTupleDeserializer.deserialize`` for each message.

    :raises MalformedFrame: when the payload is not one msgpack array of five-item messages of
        the shapes the module docstring gives, or uses a msgpack extension type.
    """
    try:
        messages = msgpack.unpackb(payload, raw=False, strict_map_key=False,
                                   ext_hook=_refuse_ext, use_list=True)
    except MalformedFrame:
        raise
    except (ValueError, TypeError, msgpack.UnpackException) as e:
        raise MalformedFrame("frame payload is not msgpack: %s" % e)
    if not isinstance(messages, list):
        raise MalformedFrame("frame payload must be an array of messages, not %s"
                             % type(messages).__name__)
    return [_addressed_tuple(message) for message in messages]


def _addressed_tuple(message):
    if message.__class__ is not list or len(message) != 5:
        raise MalformedFrame("a message must be [dest_task, source_task, stream_id, "
                             "message_id, values], not %.200r" % (message,))
    dest_task, source_task, stream_id, message_id, values = message
    if (dest_task.__class__ is not int or source_task.__class__ is not int
            or stream_id.__class__ is not str or values.__class__ is not list
            or message_id.__class__ is not dict):
        raise _wrong_types(message)
    for root_id, edge_id in message_id.items():
        if root_id.__class__ is not int or edge_id.__class__ is not int:
            raise _wrong_types(message)
    return tuple.__new__(AddressedTuple, message)  # AddressedTuple(*message), unchecked


def _wrong_types(message):
    return MalformedFrame("a message has fields of the wrong types: %.200r" % (message,))
