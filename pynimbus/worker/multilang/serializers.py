"""Framing of multilang messages, both ways (pure: bytes in, values out).

Ports of Storm 1.2.4 ``org.apache.storm.multilang.JsonSerializer`` (same in 2.8.8) and of the
framing of pystorm's ``MsgpackSerializer`` (``pystorm/serializers/msgpack_serializer.py``), which
Storm only speaks through a Java ``ISerializer`` on the worker classpath. Each serializer has
``encode(message) -> bytes`` and ``reader(max_message_bytes)``, an incremental reader whose
``feed(data)`` returns the messages completed by ``data``.
"""

import json

import msgpack

TOPOLOGY_MULTILANG_SERIALIZER = "topology.multilang.serializer"
JSON_SERIALIZER_CLASS = "org.apache.storm.multilang.JsonSerializer"
# The Java msgpack serializers that pair with pystorm's (Pyleus's, and the one proposed for Storm
# in STORM-1565); none ships with Storm, so any of these names selects msgpack framing here.
MSGPACK_SERIALIZER_CLASSES = (
    "com.yelp.pyleus.serializer.MessagePackSerializer",
    "org.apache.storm.multilang.MessagePackSerializer",
)
# One message larger than this is a broken child, not a message: never buffer without bound.
DEFAULT_MAX_MESSAGE_BYTES = 64 * 1024 * 1024

_END_LINE = b"end"
# One encoder for every message: json.dumps builds a new one per call when given options.
_JSON_ENCODER = json.JSONEncoder(separators=(",", ":"), ensure_ascii=False, default=str)


class MultilangSerializerError(Exception):
    """The child's bytes are not a message of the serializer in use, or no serializer fits."""


class JsonSerializer:
    """Port of ``JsonSerializer``: one JSON value then ``"\\nend\\n"``, UTF-8."""

    name = "json"

    @staticmethod
    def encode(message):
        """``writeMessage``: compact JSON as json-simple writes it; a value JSON has no form
        for is written as its string, as json-simple writes a Java object's ``toString()``."""
        return _JSON_ENCODER.encode(message).encode("utf-8") + b"\nend\n"

    @staticmethod
    def reader(max_message_bytes=DEFAULT_MAX_MESSAGE_BYTES):
        return JsonMessageReader(max_message_bytes)


class JsonMessageReader:
    """Port of ``JsonSerializer.readString``/``readMessage``, fed bytes as they arrive.

    Lines are collected until a line that is exactly ``end``; the lines before it, joined with
    ``"\\n"``, are one JSON value. Like Java's ``readLine``, a line may end in ``\\r\\n``.

    Linear in the bytes fed: an unfinished line grows in a ``bytearray`` and only the new bytes
    are searched for its end, so a message of many megabytes arriving a pipe read at a time is
    read in time proportional to its size (re-splitting the whole unfinished line on every
    read made a 50 MB tuple take longer than the child's heartbeat timeout).
    """

    def __init__(self, max_message_bytes=DEFAULT_MAX_MESSAGE_BYTES):
        self._max_message_bytes = max_message_bytes
        self._partial_line = bytearray()
        self._lines = []
        self._message_bytes = 0

    def feed(self, data):
        """Return the messages that ``data`` completes, in order.

        :raises MultilangSerializerError: a message is not JSON, or grows past the limit.
        """
        messages = []
        if self._partial_line:
            end = data.find(b"\n")
            if end < 0:  # the line goes on: append, nothing to split
                self._partial_line += data
                self._check_size()
                return messages
            self._partial_line += data[:end]
            chunks = data[end + 1:].split(b"\n")
            chunks.insert(0, bytes(self._partial_line))
        else:
            chunks = data.split(b"\n")
        self._partial_line = bytearray(chunks.pop())
        for line in chunks:
            if line.endswith(b"\r"):
                line = line[:-1]
            if line == _END_LINE:
                messages.append(self._parse(b"\n".join(self._lines)))
                self._lines = []
                self._message_bytes = 0
            else:
                self._lines.append(line)
                self._message_bytes += len(line) + 1
        self._check_size()
        return messages

    def _check_size(self):
        if self._message_bytes + len(self._partial_line) > self._max_message_bytes:
            raise MultilangSerializerError(
                "a message from the subprocess is longer than %d bytes without its end line"
                % self._max_message_bytes
            )

    def pending_output(self):
        """What was read of an unfinished message, for the "pipe broken" report at EOF."""
        return b"\n".join(self._lines + [bytes(self._partial_line)]).decode("utf-8", "replace")

    @staticmethod
    def _parse(raw):
        try:
            return json.loads(raw.decode("utf-8"))
        except ValueError:
            raise MultilangSerializerError(
                "unable to parse: %s" % raw.decode("utf-8", "replace")
            ) from None


class MsgpackSerializer:
    """pystorm's msgpack framing: back-to-back msgpack values, no end lines; strings as str
    (``use_bin_type``, as ``msgpack.packb`` defaults to in msgpack 1.x, which pystorm uses)."""

    name = "msgpack"

    @staticmethod
    def encode(message):
        """A value msgpack has no form for is written as its string, as with JSON."""
        return msgpack.packb(message, use_bin_type=True, default=str)

    @staticmethod
    def reader(max_message_bytes=DEFAULT_MAX_MESSAGE_BYTES):
        return MsgpackMessageReader(max_message_bytes)


class MsgpackMessageReader:
    """Incremental msgpack reader (pystorm's ``_messages_generator``, without the I/O)."""

    def __init__(self, max_message_bytes=DEFAULT_MAX_MESSAGE_BYTES):
        self._unpacker = msgpack.Unpacker(raw=False, max_buffer_size=max_message_bytes)
        self._max_message_bytes = max_message_bytes

    def feed(self, data):
        """Return the messages that ``data`` completes, in order.

        :raises MultilangSerializerError: the bytes are not msgpack, or a message grows past
            the limit.
        """
        try:
            self._unpacker.feed(data)
            return list(self._unpacker)
        except msgpack.BufferFull:
            raise MultilangSerializerError(
                "a message from the subprocess is longer than %d bytes" % self._max_message_bytes
            ) from None
        except (ValueError, msgpack.UnpackException) as exc:
            raise MultilangSerializerError("unable to parse msgpack: %s" % exc) from None

    def pending_output(self):
        return ""


def serializer_for(storm_conf):
    """Port of ``ShellProcess.getSerializer``: the serializer named by
    ``topology.multilang.serializer`` (a Java class name; Storm's default is the JSON one).

    :raises MultilangSerializerError: the name is none that pynimbus speaks (Storm fails to
        construct the class the same way, killing the component).
    """
    class_name = storm_conf.get(TOPOLOGY_MULTILANG_SERIALIZER) or JSON_SERIALIZER_CLASS
    if class_name == JSON_SERIALIZER_CLASS:
        return JsonSerializer
    if class_name in MSGPACK_SERIALIZER_CLASSES:
        return MsgpackSerializer
    raise MultilangSerializerError(
        "Failed to construct multilang serializer from serializer %s: pynimbus speaks %s"
        % (class_name, ", ".join((JSON_SERIALIZER_CLASS,) + MSGPACK_SERIALIZER_CLASSES))
    )
