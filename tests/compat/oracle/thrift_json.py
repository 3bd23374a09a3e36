"""Thrift structs (pynimbus's generated classes) to plain JSON values, deterministically.

* struct / union -> ``{field: value}`` with only the fields that are set;
* map with string keys -> object; any other map -> list of ``[key, value]`` pairs sorted by the
  JSON text of the key (``executor_node_port``: ``[[[1, 2], {"node": .., "port": [6700]}], ..]``);
* set -> sorted list; list -> list (order kept);
* enum fields (``StormBase.status`` ...) -> the enum name;
* ``json_conf`` strings -> the parsed JSON value;
* binary: Java-serialized objects (``serialized_java``, ``custom_serialized``) -> ``{"java_class":
  <first class name in the stream>, "length", "sha256", "base64"}``; other binary -> length and
  sha256 only.
"""

import base64
import hashlib
import json
import struct

from pynimbus.generated.storm import ttypes

ENUM_FIELDS = {
    ("StormBase", "status"): ttypes.TopologyStatus,
    ("StormBase", "prev_status"): ttypes.TopologyStatus,
    ("AccessControl", "type"): ttypes.AccessControlType,
    ("SubmitOptions", "initial_status"): ttypes.TopologyInitialStatus,
    ("LogLevel", "action"): ttypes.LogLevelAction,
    ("ProfileRequest", "action"): ttypes.ProfileAction,
}
JAVA_BYTES_FIELDS = {"serialized_java", "custom_serialized"}
JSON_STRING_FIELDS = {"json_conf"}


def java_class_name(data):
    """The first class name of a Java serialization stream (TC_OBJECT TC_CLASSDESC), or None."""
    if len(data) > 8 and data[:4] == b"\xac\xed\x00\x05" and data[4:6] == b"\x73\x72":
        (length,) = struct.unpack(">H", data[6:8])
        try:
            return data[8:8 + length].decode("utf-8")
        except UnicodeDecodeError:
            return None
    return None


def binary_json(data, java=False):
    out = {"length": len(data), "sha256": hashlib.sha256(data).hexdigest()}
    if java:
        out["java_class"] = java_class_name(data)
        out["base64"] = base64.b64encode(data).decode("ascii")
    return out


def _sort_key(value):
    return json.dumps(value, sort_keys=True)


def to_json(value, field=None, owner=None):
    """Convert a Thrift value (struct, container or scalar) to a JSON-able value."""
    if hasattr(value, "thrift_spec") and value.thrift_spec is not None:
        return struct_json(value)
    if isinstance(value, dict):
        pairs = [(to_json(k), to_json(v)) for k, v in value.items()]
        if all(isinstance(k, str) for k, _ in pairs):
            return {k: v for k, v in sorted(pairs)}
        return [list(p) for p in sorted(pairs, key=lambda p: _sort_key(p[0]))]
    if isinstance(value, (set, frozenset)):
        return sorted((to_json(v) for v in value), key=_sort_key)
    if isinstance(value, (list, tuple)):
        return [to_json(v) for v in value]
    if isinstance(value, bytes):
        return binary_json(value, java=field in JAVA_BYTES_FIELDS)
    if isinstance(value, str) and field in JSON_STRING_FIELDS:
        try:
            return json.loads(value)
        except ValueError:
            return {"unparsed": value}
    if isinstance(value, int) and not isinstance(value, bool) and owner is not None:
        enum = ENUM_FIELDS.get((owner, field))
        if enum is not None:
            return enum._VALUES_TO_NAMES.get(value, value)
    return value


def struct_json(obj):
    out = {}
    cls = type(obj).__name__
    for spec in obj.thrift_spec:
        if spec is None:
            continue
        name = spec[2]
        value = getattr(obj, name, None)
        if value is None:
            continue
        out[name] = to_json(value, field=name, owner=cls)
    return out


def decode_struct(data, cls):
    """Decode stored bytes (gzip or plain Thrift binary) into ``cls``, keeping absent fields None.

    The generated constructors give some fields defaults (``Assignment``'s maps, for example,
    including the 2.x-only ``total_shared_off_heap``); a capture must show what was on the wire,
    so the top-level object starts with every field None.
    """
    from thrift.protocol.TBinaryProtocol import TBinaryProtocol
    from thrift.transport.TTransport import TMemoryBuffer
    from pynimbus.cluster.serialization import gunzip_bytes
    if data[:2] == b"\x1f\x8b":
        data = gunzip_bytes(data)
    obj = cls.__new__(cls)
    for spec in cls.thrift_spec:
        if spec is not None:
            setattr(obj, spec[2], None)
    obj.read(TBinaryProtocol(TMemoryBuffer(data)))
    return obj
