"""Trident's repartitionings, as the Thrift ``Grouping`` of a planned topology (pure).

Storm's planner serializes its own ``CustomStreamGrouping``s into ``custom_serialized``: the
bytes below are those Storm 1.2.4's ``Utils.javaSerialize`` gives for a new ``IdentityGrouping``,
``GlobalGrouping`` and ``IndexHashGrouping(0)`` (captured from the JVM), so a planned topology is
byte for byte what Java's planner makes, and the worker knows each by its class name
(:mod:`pynimbus.worker.groupings`).  ``object_to_index`` is ``IndexHashGrouping.objectToIndex``.
"""

import base64

from pynimbus.clojure_port.java_hash_map import java_hash
from pynimbus.generated.storm.ttypes import Grouping, NullStruct

IDENTITY_GROUPING_CLASS = "org.apache.storm.trident.partition.IdentityGrouping"
GLOBAL_GROUPING_CLASS = "org.apache.storm.trident.partition.GlobalGrouping"
INDEX_HASH_GROUPING_CLASS = "org.apache.storm.trident.partition.IndexHashGrouping"

IDENTITY_GROUPING_BYTES = base64.b64decode(
    "rO0ABXNyADNvcmcuYXBhY2hlLnN0b3JtLnRyaWRlbnQucGFydGl0aW9uLklkZW50aXR5R3JvdXBpbmdlGR6C3r+9HQIAA"
    "UwADF9wcmVjb21wdXRlZHQAD0xqYXZhL3V0aWwvTWFwO3hwc3IAEWphdmEudXRpbC5IYXNoTWFwBQfawcMWYNEDAAJGAAp"
    "sb2FkRmFjdG9ySQAJdGhyZXNob2xkeHA/QAAAAAAAAHcIAAAAEAAAAAB4")
GLOBAL_GROUPING_BYTES = base64.b64decode(
    "rO0ABXNyADFvcmcuYXBhY2hlLnN0b3JtLnRyaWRlbnQucGFydGl0aW9uLkdsb2JhbEdyb3VwaW5nEDe6rLBUaBMCAAFMA"
    "AZ0YXJnZXR0ABBMamF2YS91dGlsL0xpc3Q7eHBw")
# IndexHashGrouping(0): the index is the big-endian int before the final null (_targets)
INDEX_HASH_GROUPING_0_BYTES = base64.b64decode(
    "rO0ABXNyADRvcmcuYXBhY2hlLnN0b3JtLnRyaWRlbnQucGFydGl0aW9uLkluZGV4SGFzaEdyb3VwaW5nSZ1KxOx5hYwCA"
    "AJJAAZfaW5kZXhMAAhfdGFyZ2V0c3QAEExqYXZhL3V0aWwvTGlzdDt4cAAAAABw")


def identity_grouping():
    return Grouping(custom_serialized=IDENTITY_GROUPING_BYTES)


def global_grouping():
    """``Stream.global()``: Trident's ``GlobalGrouping`` (the lowest task), not Storm's."""
    return Grouping(custom_serialized=GLOBAL_GROUPING_BYTES)


def index_hash_grouping(index):
    """``IndexHashGrouping(index)`` (``batchGlobal`` is index 0)."""
    if not 0 <= index < 2 ** 31:
        raise ValueError("an index hash grouping's index is a field position, not %r" % index)
    return Grouping(custom_serialized=INDEX_HASH_GROUPING_0_BYTES[:-5]
                    + index.to_bytes(4, "big") + b"p")


def fields_grouping(fields):
    return Grouping(fields=list(fields))


def shuffle_grouping():
    return Grouping(shuffle=NullStruct())


def local_or_shuffle_grouping():
    return Grouping(local_or_shuffle=NullStruct())


def all_grouping():
    return Grouping(all=NullStruct())


def is_identity_partition(grouping):
    """``TridentTopology.isIdentityPartition``."""
    return grouping.custom_serialized == IDENTITY_GROUPING_BYTES


def object_to_index(value, num_partitions):
    """``IndexHashGrouping.objectToIndex``: Java's hash of ``value``, made positive, modulo the
    partition count (0 for null)."""
    if value is None:
        return 0
    code = value.java_hash_code() if hasattr(value, "java_hash_code") else java_hash(value)
    return (code & 0x7FFFFFFF) % num_partitions
