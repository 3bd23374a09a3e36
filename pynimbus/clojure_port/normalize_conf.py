"""nimbus.clj ``normalize-conf`` (1.2.4) and ``Nimbus.normalizeConf`` (2.8.8) (pure): the
topology conf Nimbus stores, from Nimbus's conf, the submitted conf and the topology (its
components' kryo registrations and decorators, ``topology.acker.executors`` and the other
keys Storm fixes at submission), with maps in the order Storm's JVM iterates them.
"""

import json

from pynimbus.clojure_port.conf import (
    TOPOLOGY_ACKER_EXECUTORS, TOPOLOGY_EVENTLOGGER_EXECUTORS, TOPOLOGY_KRYO_DECORATORS,
    TOPOLOGY_KRYO_REGISTER, TOPOLOGY_MAX_TASK_PARALLELISM, compat_of, require_int)
from pynimbus.clojure_port.java_hash_map import (
    JavaHashMap, java_hashmap_order, thrift_map_order)
from pynimbus.clojure_port.java_json import MapEntry, as_read_by, java_str, to_json
from pynimbus.clojure_port.java_order import clojure_hasheq, clojure_map_order
from pynimbus.generated.storm.ttypes import InvalidTopologyException


def _component_ids_1x(topology):
    """``ThriftTopologyUtils.getComponentIds``: a HashSet of spout, bolt and state spout ids."""
    ids = []
    for mapping in (topology.spouts, topology.bolts, topology.state_spouts):
        ids.extend(thrift_map_order(mapping))
    return java_hashmap_order(ids)


def _component_common_1x(topology, component_id):
    for mapping in (topology.spouts, topology.bolts, topology.state_spouts):
        if mapping and component_id in mapping:
            return mapping[component_id].common
    raise KeyError(component_id)


def _components_in_java_order(topology):
    """``StormCommon.allComponents(topology)`` as ``(id, component)`` in its order (2.8.8)."""
    bolts = topology.bolts or {}
    m = JavaHashMap(items=[(k, bolts[k]) for k in thrift_map_order(bolts)])
    for mapping in (topology.spouts, topology.state_spouts):
        mapping = mapping or {}
        m.put_all([(k, mapping[k]) for k in thrift_map_order(mapping)])
    return m.items()


def _kryo_list_2x(value, key, where):
    """A kryo value as 2.8.8 normalizeConf casts it: a ``List`` of class names (decorators),
    or of class names and maps of class name to serializer (registrations); None is empty.

    :raises InvalidTopologyException: for anything else (deliberate difference: 2.8.8 fails
        with a ClassCastException, an INTERNAL_ERROR).
    """
    if value is None:
        return []
    # Decorators are added to a Set unchecked; a registration is cast to String unless a Map.
    entries_ok = isinstance(value, list) and (key != TOPOLOGY_KRYO_REGISTER or all(
        isinstance(e, (str, dict)) for e in value))
    if not entries_ok:
        raise InvalidTopologyException(
            msg="%s of %s must be a list of class names%s, not %s" % (
                key, where, " (or of maps of class name to serializer)"
                if key == TOPOLOGY_KRYO_REGISTER else "", to_json(value)))
    return value


def _json_conf_of(common, compat):
    if common is None or common.json_conf is None:
        return None
    return as_read_by(parse_component_json(common.json_conf), compat)


def parse_component_json(json_conf):
    """A component's ``json_conf`` as a dict (None stays None); ValueError if not an object."""
    if json_conf is None:
        return None
    value = json.loads(json_conf)
    if not isinstance(value, dict):
        raise ValueError("a component json_conf must be a JSON object: %r" % json_conf)
    return value


def _clojure_truthy(value):
    return value is not None and value is not False


class _Char(str):
    """A ``java.lang.Character``: what Clojure's ``seq`` makes of each character of a string."""


def _clojure_hasheq(key):
    """Clojure ``hasheq`` of a kryo registration key (a Character hashes to its code)."""
    return ord(key) if isinstance(key, _Char) else clojure_hasheq(key)


def _kryo_seq_1x(value, key, where):
    """Port of Clojure's ``seq`` as 1.2.4's normalize-conf ``mapcat``s a kryo value: nil is
    empty, a list itself, a string its characters, a map its entries.

    :raises InvalidTopologyException: for a number or a boolean, which has no ``seq``
        (deliberate difference: Storm fails with an IllegalArgumentException, an
        INTERNAL_ERROR).
    """
    if value is None:
        return []
    if isinstance(value, list):
        return value
    if isinstance(value, str):
        return [_Char(c) for c in value]
    if isinstance(value, dict):
        return [MapEntry(k, v) for k, v in value.items()]
    raise InvalidTopologyException(
        msg="%s of %s must be a list of class names (or of maps of class name to serializer), "
            "not %s" % (key, where, java_str(value, "1.x")))


def _kryo_register_key_1x(entry):
    """What a registration that is not a map becomes as a key of the registration map once
    Storm writes it as JSON: ``String.valueOf`` (a vector prints as Clojure prints it)."""
    return entry if entry is None or isinstance(entry, str) else java_str(entry, "1.x")


def _normalize_conf_1x(nimbus_conf, topology_conf, topology):
    component_ids = _component_ids_1x(topology)
    confs = [_json_conf_of(_component_common_1x(topology, cid), "1.x") for cid in component_ids]

    def merged_values(key):
        values = []
        for cid, c in zip(component_ids, confs):
            values.extend(_kryo_seq_1x((c or {}).get(key), key, "component %s" % cid))
        own = topology_conf.get(key)
        values.extend(_kryo_seq_1x(own if _clojure_truthy(own) else nimbus_conf.get(key), key,
                                   "the topology conf"))
        return values

    decorators = list(dict.fromkeys(merged_values(TOPOLOGY_KRYO_DECORATORS)))
    if any(isinstance(d, _Char) for d in decorators):
        # Deliberate difference: 1.2.4 writes the characters of a string unquoted, a conf
        # no JSON parser reads back, and fails with an INTERNAL_ERROR.
        raise InvalidTopologyException(
            msg="%s must be a list of class names in every component conf, not a string"
                % TOPOLOGY_KRYO_DECORATORS)
    decorators = [list(d) if isinstance(d, MapEntry) else d for d in decorators]
    register = None
    for entry in merged_values(TOPOLOGY_KRYO_REGISTER):
        pairs = (as_read_by(entry, "1.x").items() if isinstance(entry, dict)
                 else [(_kryo_register_key_1x(entry), None)])
        register = {} if register is None else register
        for k, v in pairs:
            register[k] = v
    if register is not None:
        register = {str(k) if isinstance(k, _Char) else k: register[k]
                    for k in clojure_map_order(register, _clojure_hasheq)}
    total = dict(nimbus_conf)
    total.update(topology_conf)
    ret = dict(topology_conf)
    ret[TOPOLOGY_KRYO_DECORATORS] = decorators
    ret[TOPOLOGY_KRYO_REGISTER] = register
    for key in (TOPOLOGY_ACKER_EXECUTORS, TOPOLOGY_EVENTLOGGER_EXECUTORS,
                TOPOLOGY_MAX_TASK_PARALLELISM):
        ret[key] = total.get(key)
    return ret


# 2.8.8 defaults.yaml values for keys Storm 1.2.4's defaults (pynimbus's table) lack.
_DEFAULTS_2X = {
    "storm.messaging.netty.authentication": False,
    "topology.worker.nimbus.thrift.client.use.tls": False,
    "worker.max.timeout.secs": 600,
}


def _java_bool(value, key):
    if not isinstance(value, bool):  # Storm unboxes a Boolean: null is a NullPointerException
        raise TypeError("%s must be true or false, not %r" % (key, value))
    return value


def _normalize_conf_2x(nimbus_conf, topology_conf, topology):
    conf = dict(_DEFAULTS_2X)
    conf.update(nimbus_conf)
    topo = dict(topology_conf)
    topo.pop("storm.workers.artifacts.dir", None)
    decorators = JavaHashMap()
    serializers = JavaHashMap()

    def add(decorator_list, register_list, where):
        for d in _kryo_list_2x(decorator_list, TOPOLOGY_KRYO_DECORATORS, where):
            decorators.put(d, None)
        for entry in _kryo_list_2x(register_list, TOPOLOGY_KRYO_REGISTER, where):
            if isinstance(entry, dict):
                serializers.put_all(as_read_by(entry, "2.x"))
            else:
                serializers.put(entry, None)

    for component_id, component in _components_in_java_order(topology):
        c = _json_conf_of(component.common, "2.x") or {}
        add(c.get(TOPOLOGY_KRYO_DECORATORS), c.get(TOPOLOGY_KRYO_REGISTER),
            "component %s" % component_id)
    add(topo.get(TOPOLOGY_KRYO_DECORATORS, conf.get(TOPOLOGY_KRYO_DECORATORS)),
        topo.get(TOPOLOGY_KRYO_REGISTER, conf.get(TOPOLOGY_KRYO_REGISTER)), "the topology conf")
    merged = dict(conf)
    merged.update(topo)
    ret = dict(topo)
    ret[TOPOLOGY_KRYO_REGISTER] = serializers.to_dict()
    ret[TOPOLOGY_KRYO_DECORATORS] = decorators.keys()
    for key in (TOPOLOGY_ACKER_EXECUTORS, TOPOLOGY_EVENTLOGGER_EXECUTORS,
                TOPOLOGY_MAX_TASK_PARALLELISM):
        ret[key] = merged.get(key)

    netty = "storm.messaging.netty.authentication"
    nimbus_netty = _java_bool(conf.get(netty), netty)
    if netty in topo:
        ret[netty] = _java_bool(topo[netty], netty) or nimbus_netty
    else:
        ret[netty] = nimbus_netty
    tls = "topology.worker.nimbus.thrift.client.use.tls"
    use_tls = _java_bool(conf.get(tls), tls)
    if tls in topo:
        use_tls = use_tls or _java_bool(topo[tls], tls)
    ret[tls] = use_tls
    ret["nimbus.thrift.client.use.tls"] = use_tls

    reporters = "topology.metrics.reporters"
    if reporters not in merged and "storm.metrics.reporters" in merged:
        ret[reporters] = merged["storm.metrics.reporters"]
    if "storm.topology.metrics.system.reporters" in conf:
        # A new list: Storm appends to the list it found in place, so a list shared with the
        # nimbus conf grows on every submission; pynimbus never mutates its arguments.
        ret[reporters] = (list(ret.get(reporters) or [])
                          + list(conf["storm.topology.metrics.system.reporters"] or []))
    ret["storm.cgroup.hierarchy.dir"] = conf.get("storm.cgroup.hierarchy.dir")
    ret["worker.metrics"] = conf.get("worker.metrics")
    if "topology.worker.timeout.secs" in merged:
        timeout = require_int(merged["topology.worker.timeout.secs"])
        max_timeout = require_int(merged.get("worker.max.timeout.secs"))
        if timeout > max_timeout:
            ret["topology.worker.timeout.secs"] = max_timeout
    return ret


def normalize_conf(nimbus_conf, topology_conf, topology, compat=None):
    """Port of nimbus.clj ``normalize-conf`` (1.2.4); 2.8.8 ``Nimbus.normalizeConf``.

    ``topology_conf`` is the parsed submitted conf with ``storm.id`` and ``topology.name``
    already added.  Returns a new dict: the topology conf with ``topology.kryo.decorators`` (the
    distinct union of every component's list, then the topology's, else nimbus's),
    ``topology.kryo.register`` (every listed class -> its serializer or None, later entries
    winning; 1.x None when nothing is registered, 2.x ``{}``) and the merged
    ``topology.acker.executors``, ``topology.eventlogger.executors`` and
    ``topology.max.task.parallelism``.  2.x also drops ``storm.workers.artifacts.dir`` and forces
    the netty authentication, nimbus TLS, metrics reporter, cgroup, ``worker.metrics`` and worker
    timeout keys (submit-path.md section 3).  List and map values are in Storm's order.

    Deliberate difference (2.x): the system metrics reporters are appended to a new list;
    Storm appends them to the list it found, which may be the nimbus conf's own.
    """
    compat = compat_of(nimbus_conf, compat)
    if compat == "2.x":
        return _normalize_conf_2x(nimbus_conf, topology_conf, topology)
    return _normalize_conf_1x(nimbus_conf, topology_conf, topology)
