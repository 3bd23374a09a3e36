"""Stand-ins for the Java-serialized objects of the components Storm adds (pure).

Storm puts a Java-serialized bolt into ``ComponentObject.serialized_java`` of each component
that system-topology! adds: the acker, ``__system`` (SystemBolt), ``__eventlogger``
(EventLoggerBolt) and every metrics consumer (MetricsConsumerBolt, which carries the consumer's
class, argument and filters).  The pure core cannot run Java, so it writes a placeholder per kind
of component instead.

Nobody executes these bytes when they come from Nimbus: Nimbus stores only the *user* topology
(blob ``<id>-stormcode.ser``), and every worker (Java 1.2.4, Java 2.8.8 or pynimbus's own)
rebuilds the system topology itself, instantiating its own acker and system bolts.  The bytes
only reach clients through ``getTopology``, which show them at most as opaque blobs.

A placeholder is ``b"pynimbus:java-serialized-placeholder:" + class name``, followed for a
metrics consumer by ``b";"`` and the JSON of its registration.  It never starts with the Java
serialization magic ``AC ED``, so nobody can mistake it for a real stream.

For byte-compatible ``getTopology`` output the real bytes captured from the Java Nimbus of each
generation (:mod:`pynimbus.clojure_port.java_serialized_goldens`) are registered at import with
:func:`register_golden`; :func:`serialized_component` returns a registered golden in preference
to the placeholder (a metrics consumer whose registration was never captured gets one).
"""

import base64
import json

from pynimbus.clojure_port import java_serialized_goldens

PLACEHOLDER_PREFIX = b"pynimbus:java-serialized-placeholder:"
JAVA_SERIALIZATION_MAGIC = b"\xac\xed"

ACKER = "acker"
SYSTEM = "system"
EVENTLOGGER = "eventlogger"
METRICS_CONSUMER = "metrics-consumer"
TOPOLOGY_MASTER = "topology-master"  # JStorm's, under pynimbus.scheduler: jstorm

# The Java class each generation serializes for each kind of added component.
COMPONENT_CLASSES = {
    ("1.x", ACKER): "org.apache.storm.daemon.acker",
    ("2.x", ACKER): "org.apache.storm.daemon.Acker",
    ("1.x", SYSTEM): "org.apache.storm.metric.SystemBolt",
    ("2.x", SYSTEM): "org.apache.storm.metric.SystemBolt",
    ("1.x", EVENTLOGGER): "org.apache.storm.metric.EventLoggerBolt",
    ("2.x", EVENTLOGGER): "org.apache.storm.metric.EventLoggerBolt",
    ("1.x", METRICS_CONSUMER): "org.apache.storm.metric.MetricsConsumerBolt",
    ("2.x", METRICS_CONSUMER): "org.apache.storm.metric.MetricsConsumerBolt",
    ("1.x", TOPOLOGY_MASTER): "com.alibaba.jstorm.task.master.TopologyMaster",
    ("2.x", TOPOLOGY_MASTER): "com.alibaba.jstorm.task.master.TopologyMaster",
}

# (compat, kind, details JSON or None) -> bytes captured from a real Nimbus (see
# register_golden and load_captured_goldens).
_GOLDEN = {}


def _details_key(details):
    return None if details is None else json.dumps(details, sort_keys=True,
                                                   separators=(",", ":"))


def register_golden(compat, kind, data, details=None):
    """Use ``data`` (real Java serialization bytes) for ``kind`` in ``compat`` from now on.

    ``details`` identifies a metrics consumer by its registration map (class, argument,
    parallelism.hint, ...), since its bytes depend on it.
    """
    if not data.startswith(JAVA_SERIALIZATION_MAGIC):
        raise ValueError("golden bytes must be a Java serialization stream (start AC ED)")
    _GOLDEN[(compat, kind, _details_key(details))] = bytes(data)


def placeholder(kind, compat="1.x", details=None):
    """The placeholder bytes for ``kind`` (``ACKER``, ``SYSTEM``, ``EVENTLOGGER``,
    ``METRICS_CONSUMER``) in ``compat``; ``details`` is a metrics consumer's registration."""
    data = PLACEHOLDER_PREFIX + COMPONENT_CLASSES[(compat, kind)].encode("ascii")
    if details is not None:
        data += b";" + _details_key(details).encode("utf-8")
    return data


def serialized_component(kind, compat="1.x", details=None):
    """What pynimbus puts in ``ComponentObject.serialized_java`` for an added component."""
    golden = _GOLDEN.get((compat, kind, _details_key(details)))
    return golden if golden is not None else placeholder(kind, compat, details)


def is_placeholder(data):
    """True for bytes made by :func:`placeholder`."""
    return data is not None and bytes(data).startswith(PLACEHOLDER_PREFIX)


def load_captured_goldens():
    """Register the bytes of :mod:`java_serialized_goldens` (done at import)."""
    for compat, kind, details, text in java_serialized_goldens.GOLDEN_BYTES:
        register_golden(compat, kind, base64.b64decode(text), details)


load_captured_goldens()
