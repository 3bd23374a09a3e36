# -*- test-case-name: tests.test_cluster_serialization -*-
"""Value encoding of Storm's ZooKeeper tree.

Port of ``GzipBridgeThriftSerializationDelegate`` (Storm 1.2.4): :func:`serialize` writes what
the default ``GzipThriftSerializationDelegate`` writes, gzip of the Thrift binary encoding of
the struct (no message header), and :func:`deserialize` reads gzip or plain Thrift binary,
telling them apart by the gzip magic ``1f 8b``.

The gzip member is written as Java's ``GZIPOutputStream`` on Storm 1.2.4's JVM (Java 8) writes
it: mtime 0, no flags, XFL 0, OS 0, deflate at zlib's default level.  The bytes then match a JVM
Nimbus byte for byte (maps aside, whose order is the writer's hash order).  Java 16 and later
write OS 255; readers ignore the byte.

Also the raw integers found in the tree (big-endian, signed, as Java's ``ByteBuffer``) and the
directory marker byte Storm's ``mkdirs`` stores.
"""

import struct
import zlib

from thrift import TSerialization
from thrift.Thrift import TType
from thrift.protocol.TBinaryProtocol import TBinaryProtocolAcceleratedFactory

import pynimbus.generated  # noqa: F401  (applies the hashable-map-key fix before any decode)

# Data of every node Storm's zookeeper.clj ``mkdirs`` creates: the single byte 7.
DIRECTORY_DATA = b"\x07"

GZIP_MAGIC = b"\x1f\x8b"
# ID1 ID2, CM = deflate, FLG = 0, MTIME = 0, XFL = 0, OS = 0 (as Java 8 writes it).
_GZIP_HEADER = GZIP_MAGIC + b"\x08\x00" + b"\x00\x00\x00\x00" + b"\x00\x00"
_DEFLATE_LEVEL = 6  # zlib's default, which Java's Deflater uses

_PROTOCOL = TBinaryProtocolAcceleratedFactory()

_INT32 = struct.Struct(">i")
_INT64 = struct.Struct(">q")


class SerializationError(ValueError):
    """Bytes that do not decode to the expected struct, or a struct that cannot be written."""


def gzip_bytes(data):
    """Return ``data`` as one gzip member, as Java's ``GZIPOutputStream`` writes it."""
    deflater = zlib.compressobj(_DEFLATE_LEVEL, zlib.DEFLATED, -zlib.MAX_WBITS, 8,
                                zlib.Z_DEFAULT_STRATEGY)
    body = deflater.compress(data) + deflater.flush()
    trailer = struct.pack("<II", zlib.crc32(data) & 0xFFFFFFFF, len(data) & 0xFFFFFFFF)
    return _GZIP_HEADER + body + trailer


def gunzip_bytes(data):
    """Return the content of the gzip data ``data``.

    :raises SerializationError: when ``data`` is not valid gzip.
    """
    try:
        decompressor = zlib.decompressobj(16 + zlib.MAX_WBITS)
        out = decompressor.decompress(data) + decompressor.flush()
    except zlib.error as e:
        raise SerializationError("invalid gzip data: %s" % e)
    if not decompressor.eof:
        raise SerializationError("invalid gzip data: truncated")
    return out


_NESTED = (TType.STRUCT, TType.LIST, TType.SET, TType.MAP)
_nested_fields_cache = {}


def _holds_structs(ttype, typeargs):
    """True when a value of this Thrift type can contain a struct."""
    if ttype == TType.STRUCT:
        return True
    if ttype in (TType.LIST, TType.SET):
        return _holds_structs(typeargs[0], typeargs[1])
    if ttype == TType.MAP:
        return _holds_structs(typeargs[0], typeargs[1]) or _holds_structs(typeargs[2], typeargs[3])
    return False


def _nested_fields(cls):
    """The ``(name, ttype, typeargs)`` of ``cls``'s fields that can contain structs (cached)."""
    fields = _nested_fields_cache.get(cls)
    if fields is None:
        fields = tuple((f[2], f[1], f[3]) for f in cls.thrift_spec or ()
                       if f is not None and _holds_structs(f[1], f[3]))
        _nested_fields_cache[cls] = fields
    return fields


def _check_value(ttype, typeargs, value, where):
    if value is None:
        return
    if ttype == TType.STRUCT:
        validate(value, where)
    elif ttype in (TType.LIST, TType.SET):
        etype, espec = typeargs[0], typeargs[1]
        if _holds_structs(etype, espec):
            for item in value:
                _check_value(etype, espec, item, where)
    elif ttype == TType.MAP:
        ktype, kspec, vtype, vspec = typeargs[:4]
        check_keys = _holds_structs(ktype, kspec)
        check_values = _holds_structs(vtype, vspec)
        if check_keys or check_values:
            for k, v in value.items():
                if check_keys:
                    _check_value(ktype, kspec, k, where)
                if check_values:
                    _check_value(vtype, vspec, v, where)


def validate(struct_value, where=None):
    """Check required fields of ``struct_value`` and of every struct inside it.

    Java's ``TDeserializer``/``TSerializer`` validate the same way, through each generated
    ``validate()``.

    :raises SerializationError: naming the struct and the missing field.
    """
    try:
        struct_value.validate()
    except Exception as e:  # TProtocolException from the generated code
        name = type(struct_value).__name__
        where = name if where is None else "%s in %s" % (name, where)
        raise SerializationError("%s: %s" % (where, getattr(e, "message", None) or e))
    nested = _nested_fields(type(struct_value))
    if nested:
        where = type(struct_value).__name__ if where is None else where
        for fname, ttype, typeargs in nested:
            _check_value(ttype, typeargs, getattr(struct_value, fname, None), where)


def serialize(struct_value):
    """Port of ``GzipThriftSerializationDelegate.serialize``: gzip of Thrift binary.

    :raises SerializationError: when a required field is unset.
    """
    validate(struct_value)
    return gzip_bytes(TSerialization.serialize(struct_value, _PROTOCOL))


def serialize_plain(struct_value):
    """Thrift binary encoding without gzip (``ThriftSerializationDelegate``'s format)."""
    validate(struct_value)
    return TSerialization.serialize(struct_value, _PROTOCOL)


def deserialize(data, cls):
    """Port of ``GzipBridgeThriftSerializationDelegate.deserialize``: gzip or plain Thrift.

    :returns: a ``cls`` instance with every required field set.
    :raises SerializationError: when ``data`` is not a valid encoding of ``cls``.
    """
    if data is None:
        raise SerializationError("no data to decode as %s" % cls.__name__)
    data = bytes(data)
    if data[:2] == GZIP_MAGIC:
        data = gunzip_bytes(data)
    try:
        value = TSerialization.deserialize(cls(), data, _PROTOCOL)
    except SerializationError:
        raise
    except Exception as e:
        raise SerializationError("cannot decode %d bytes as %s: %s" % (len(data), cls.__name__, e))
    validate(value)
    return value


def maybe_deserialize(data, cls):
    """Port of cluster.clj ``maybe-deserialize``: None for None, else :func:`deserialize`."""
    return None if data is None else deserialize(data, cls)


def encode_int32(n):
    """Four bytes, big-endian, signed: Java ``ByteBuffer.putInt``."""
    return _INT32.pack(n)


def decode_int32(data):
    """Inverse of :func:`encode_int32`; reads the first four bytes like ``ByteBuffer.getInt``.

    :raises SerializationError: for fewer than four bytes.
    """
    if data is None or len(data) < 4:
        raise SerializationError("need 4 bytes for an int, got %r" % (data,))
    return _INT32.unpack_from(data)[0]


def encode_int64(n):
    """Eight bytes, big-endian, signed: Java ``ByteBuffer.putLong``."""
    return _INT64.pack(n)


def decode_int64(data):
    """Inverse of :func:`encode_int64`; reads the first eight bytes like ``ByteBuffer.getLong``.

    :raises SerializationError: for fewer than eight bytes.
    """
    if data is None or len(data) < 8:
        raise SerializationError("need 8 bytes for a long, got %r" % (data,))
    return _INT64.unpack_from(data)[0]


def copy_struct(value):
    """A shallow copy of a Thrift struct (a dict copy: 4x quicker than ``copy.copy``'s reduce
    protocol; callers copy what they must not mutate)."""
    cls = value.__class__
    copied = cls.__new__(cls)
    copied.__dict__.update(value.__dict__)
    return copied
