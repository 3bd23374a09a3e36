"""The system topology: the user topology plus the components and streams Storm adds (pure).

Port of common.clj ``system-topology!`` and its steps (1.2.4); 2.8.8 ``StormCommon.systemTopology``
(submit-path.md section 5).  Nimbus builds it at submit (to validate), at start (for the
StormBase's executor counts), for ``getTopology`` and for task ids; every worker builds the same
thing from the stored user topology, so ids, streams, fields and task counts must match the
workers' generation exactly:

* ``__acker``: inputs from every spout's ``__ack_init`` and every user bolt's ``__ack_ack``,
  ``__ack_fail``, ``__ack_reset_timeout`` (fields ["id"]); those three streams out, direct;
* ``__eventlogger`` only when ``topology.eventlogger.executors`` is null or > 0;
* metrics consumers: 1.x ``__metrics<class>``, 2.x ``__metrics_<class>``, ``#2``... for repeats;
* ``__system``: parallelism 0, streams 1.x ``__tick`` ``__metrics_tick`` ``__credentials``,
  2.x ``__tick`` ``__flush`` ``__metrics_tick``;
* every component gets ``__metrics`` and ``__system`` streams.

Every public step returns a new topology and never changes its argument.  The objects of the
added components are placeholders (:mod:`pynimbus.clojure_port.java_serialized`).

Where Storm reports the first of several problems, "first" follows the iteration order of the
maps Storm walks, modelled from the topology as submitted (:func:`submitted_map_order`): the
Thrift decoder's ``HashMap``, the ``deepCopy`` of nimbus's normalize-topology (which
validate-basic walks), the ``deepCopy`` of system-topology and the components it puts
(which validate-structure walks, merged as each generation's ``all-components`` merges).
"""

import copy

from pynimbus.clojure_port import java_serialized
from pynimbus.clojure_port.conf import (
    TOPOLOGY_ACKER_EXECUTORS, TOPOLOGY_EVENTLOGGER_EXECUTORS, TOPOLOGY_TASKS, TOPOLOGY_WORKERS,
    compat_of, get_int, require_int)
from pynimbus.clojure_port.java_hash_map import JavaHashMap, int32, java_hash, string_hash
from pynimbus.clojure_port.java_json import as_read_by, to_json
from pynimbus.clojure_port.java_order import (
    ARRAY_MAP_MAX_PERSISTENT, ARRAY_MAP_MAX_TRANSIENT, clojure_hasheq_vector, clojure_map_order,
    clojure_set_order)
from pynimbus.clojure_port.normalize_conf import parse_component_json
from pynimbus.generated.storm.ttypes import (
    Bolt, ComponentCommon, ComponentObject, GlobalStreamId, Grouping, InvalidTopologyException,
    NullStruct, StreamInfo)
from pynimbus.jstorm_port import topology_master

ACKER_COMPONENT_ID = "__acker"
ACKER_INIT_STREAM_ID = "__ack_init"
ACKER_ACK_STREAM_ID = "__ack_ack"
ACKER_FAIL_STREAM_ID = "__ack_fail"
ACKER_RESET_TIMEOUT_STREAM_ID = "__ack_reset_timeout"
EVENTLOGGER_COMPONENT_ID = "__eventlogger"
EVENTLOGGER_STREAM_ID = "__eventlog"
EVENTLOGGER_FIELDS = ["component-id", "message-id", "ts", "values"]
SYSTEM_COMPONENT_ID = "__system"
SYSTEM_STREAM_ID = "__system"
SYSTEM_TICK_STREAM_ID = "__tick"
SYSTEM_FLUSH_STREAM_ID = "__flush"
METRICS_STREAM_ID = "__metrics"
METRICS_TICK_STREAM_ID = "__metrics_tick"
CREDENTIALS_CHANGED_STREAM_ID = "__credentials"
METRICS_COMPONENT_ID_PREFIX = {"1.x": "__metrics", "2.x": "__metrics_"}

TOPOLOGY_MESSAGE_TIMEOUT_SECS = "topology.message.timeout.secs"
TOPOLOGY_TICK_TUPLE_FREQ_SECS = "topology.tick.tuple.freq.secs"
TOPOLOGY_METRICS_CONSUMER_REGISTER = "topology.metrics.consumer.register"
NIMBUS_EXECUTORS_PER_TOPOLOGY = "nimbus.executors.perTopology"
NIMBUS_SLOTS_PER_TOPOLOGY = "nimbus.slots.perTopology"
RESOURCE_AWARE_SCHEDULER = "org.apache.storm.scheduler.resource.ResourceAwareScheduler"


def is_system_id(identifier):
    """Port of ``Utils.isSystemId``: ids starting with ``__`` are Storm's."""
    return identifier.startswith("__")


def all_components(topology):
    """Port of common.clj ``all-components`` (1.2.4); 2.8.8 ``StormCommon.allComponents``:
    ``{id: Bolt | SpoutSpec | StateSpoutSpec}``, bolts then spouts then state spouts, a later
    map winning for an id used twice."""
    ret = {}
    for mapping in (topology.bolts, topology.spouts, topology.state_spouts):
        ret.update(mapping or {})
    return ret


# How many Thrift ``deepCopy``s a map of the submitted topology has been through when Storm
# walks it: nimbus's normalize-topology copies the topology (validate-basic walks that copy),
# and system-topology copies it again before putting its own components.
NORMALIZED_COPIES = 1
SYSTEM_COPIES = 2


def global_stream_id_hash(stream):
    """Port of the generated ``GlobalStreamId.hashCode`` (both generations' Thrift)."""
    h = 1
    for part in (stream.componentId, stream.streamId):
        h = int32(h * 8191 + (131071 if part is not None else 524287))
        if part is not None:
            h = int32(h * 8191 + string_hash(part))
    return h


def _map_copies_order(keys, capacities, key_hash=java_hash):
    for capacity in capacities:
        m = JavaHashMap(initial_capacity=capacity, key_hash=key_hash)
        m.put_each((k, None) for k in keys)
        keys = m.keys()
    return keys


def submitted_map_order(mapping, copies, key_hash=java_hash):
    """The key order in which Storm walks a map of the submitted topology after ``copies``
    ``deepCopy``s: the Thrift decoder fills ``new HashMap<>(2 * size)`` in wire order (which
    the dict keeps), and each generated ``deepCopy`` fills ``new HashMap<>(size)`` in the
    order of the map it copies."""
    keys = list(mapping or {})
    return _map_copies_order(keys, [2 * len(keys)] + [len(keys)] * copies, key_hash)


def _added_bolts_put_order(added, compat):
    """The components system-topology puts, in put order: the dict's, except that 2.8.8 puts
    the metrics consumers in the order of the ``HashMap`` holding them."""
    if compat != "2.x":
        return added
    prefix = METRICS_COMPONENT_ID_PREFIX["2.x"]
    consumers = [cid for cid in added if cid.startswith(prefix)]
    ordered = iter(JavaHashMap(items=[(cid, None) for cid in consumers]).keys())
    return [next(ordered) if cid.startswith(prefix) else cid for cid in added]


def _component_order(maps, compat):
    """Ids of ``all-components`` of ``maps`` (bolts, spouts, state spouts: each an id order),
    in the order Storm walks it: 2.8.8 ``new HashMap<>(bolts)`` then ``putAll`` of the
    others; 1.2.4 ``(apply merge {} ...)``, persistent ``assoc``s into an array map (up to 9
    entries, later ids keeping an earlier one's place), a hash map beyond."""
    if compat == "2.x":
        merged = JavaHashMap(items=[(k, None) for k in maps[0]])
        for order in maps[1:]:
            merged.put_all([(k, None) for k in order])
        return merged.keys()
    ids = []
    for order in maps:
        ids.extend(order)
    return clojure_map_order(ids, array_map_max=ARRAY_MAP_MAX_PERSISTENT)


def _normalized_component_order(topology, compat):
    """The order validate-basic walks ``all-components`` of the normalized topology."""
    return _component_order(
        [submitted_map_order(m, NORMALIZED_COPIES)
         for m in (topology.bolts, topology.spouts, topology.state_spouts)], compat)


def _system_bolt_order(system):
    """The order of the system topology's bolts: the user's (put in the order of their first
    copy into ``new HashMap<>(size)``), then the system components Storm put."""
    bolts = system.bolts or {}
    user = [cid for cid in bolts if not is_system_id(cid)]
    added = [cid for cid in bolts if is_system_id(cid)]
    m = JavaHashMap(initial_capacity=len(user))
    m.put_each((cid, None) for cid in submitted_map_order(dict.fromkeys(user), SYSTEM_COPIES - 1))
    return m, added


def _system_component_order(system, compat):
    """The order validate-structure walks ``all-components`` of the system topology."""
    bolts, added = _system_bolt_order(system)
    bolts.put_each((cid, None) for cid in _added_bolts_put_order(added, compat))
    return _component_order(
        [bolts.keys()] + [submitted_map_order(m, SYSTEM_COPIES)
                          for m in (system.spouts, system.state_spouts)], compat)


def _acker_inputs_order_1x(system):
    """The order of the 1.2.4 ``__acker``'s inputs: ``acker-inputs`` merges one map per spout,
    then per user bolt (each ``{[id "__ack_ack"] .. [id "__ack_fail"] .. [id
    "__ack_reset_timeout"] ..}``), ``mk-inputs`` turns that into ``{GlobalStreamId ..}`` (``into``)
    and ``mk-plain-component-common`` copies it into a ``HashMap``."""
    spouts = submitted_map_order(system.spouts, SYSTEM_COPIES)
    bolts = submitted_map_order({cid: None for cid in system.bolts or {}
                                 if not is_system_id(cid)}, SYSTEM_COPIES)
    pairs = [(cid, ACKER_INIT_STREAM_ID) for cid in spouts]
    pairs += [(cid, sid) for cid in bolts for sid in (
        ACKER_ACK_STREAM_ID, ACKER_FAIL_STREAM_ID, ACKER_RESET_TIMEOUT_STREAM_ID)]
    merged = clojure_map_order(pairs, clojure_hasheq_vector, ARRAY_MAP_MAX_PERSISTENT)
    streams = [GlobalStreamId(c, s) for c, s in merged]
    into = clojure_map_order(
        streams, lambda g: global_stream_id_hash(g) & 0xFFFFFFFF, ARRAY_MAP_MAX_TRANSIENT)
    return JavaHashMap(items=[(g, None) for g in into], key_hash=global_stream_id_hash).keys()


def _inputs_order(system, cid, compat):
    """The order validate-structure walks the inputs of component ``cid``."""
    inputs = all_components(system)[cid].common.inputs or {}
    if cid == ACKER_COMPONENT_ID and compat != "2.x":
        order = _acker_inputs_order_1x(system)
        return [g for g in order if g in inputs] + [g for g in inputs if g not in order]
    if is_system_id(cid):
        return list(inputs)  # built by Storm from existing streams: they never fail
    return submitted_map_order(inputs, SYSTEM_COPIES, global_stream_id_hash)


def num_start_executors(component):
    """Port of common.clj ``num-start-executors`` (1.2.4); 2.8.8
    ``StormCommon.numStartExecutors``: the parallelism hint, 1 when unset."""
    hint = component.common.parallelism_hint
    return 1 if hint is None else hint


def component_executors(system_topology):
    """The StormBase's ``component_executors`` as start-storm computes it: every component of
    the system topology -> its parallelism hint (1 when unset; ``__system`` -> 0)."""
    return {cid: num_start_executors(c) for cid, c in all_components(system_topology).items()}


def _component_conf(component, compat):
    """Port of common.clj ``component-conf``; 2.8.8 ``StormCommon.componentConf`` ({} if none)."""
    return as_read_by(parse_component_json(component.common.json_conf), compat) or {}


def json_conf_with(json_conf, extra, compat):
    """``json_conf`` with the keys of ``extra`` set, as Storm writes it back.

    1.x: ``(to-json (merge (component-conf c) extra))`` -- a Clojure map: new keys appended,
    known keys replaced in place, hash order past 8 keys.  2.x: a ``HashMap`` filled with the
    parsed conf, then ``put`` of each extra key.
    """
    parsed = parse_component_json(json_conf)
    if compat == "2.x":
        conf = JavaHashMap()
        if parsed:
            conf.put_all(as_read_by(parsed, compat))
        for key, value in extra.items():
            conf.put(key, value)
        return to_json(conf)
    conf = dict(as_read_by(parsed, compat)) if parsed else {}
    conf.update(extra)
    return to_json({k: conf[k] for k in clojure_map_order(conf)})


def _new_conf_json(pairs, compat):
    """JSON of a conf map Storm builds from scratch: 1.x a map literal (its order), 2.x a
    ``HashMap`` filled in that order."""
    if compat == "2.x":
        return to_json(JavaHashMap(items=pairs))
    return to_json(dict(pairs))


def _invalid(msg):
    return InvalidTopologyException(msg=msg)


def _fields_grouping(fields):
    return Grouping(fields=list(fields))


def _direct_grouping():
    return Grouping(direct=NullStruct())


def _streams(common):
    if common.streams is None:
        common.streams = {}
    return common.streams


def _inputs(common):
    if common.inputs is None:
        common.inputs = {}
    return common.inputs


# -- validate-basic! ------------------------------------------------------------------------

def validate_basic(topology, compat="1.x"):
    """Port of common.clj ``validate-basic!`` (1.2.4); 2.8.8 ``StormCommon.validateBasic``.

    In order: no component id and no declared stream id may start with ``__`` (bolts, then
    spouts, then state spouts; ids before streams); 2.x only: no id may be used twice; spouts
    and state spouts may have no inputs; a component with ``topology.tasks`` > 0 must have a
    parallelism hint > 0.

    :raises InvalidTopologyException: with each generation's words (2.x ends the id messages
        with a full stop).
    1.2.4 never reports "Duplicate component ids": its check counts (id, component) pairs,
    which never repeat across spouts and bolts, so an id used twice is shadowed as
    :func:`all_components` describes.  A component without ``topology.tasks`` counts as 0 (1.2.4
    would fail with a NullPointerException; at submit the topology is normalized first).
    """
    stop = "." if compat == "2.x" else ""
    ids = []
    for mapping in (topology.bolts, topology.spouts, topology.state_spouts):
        order = list(mapping or {})
        if any(is_system_id(cid) for cid in order):  # the walk's order matters only then
            order = submitted_map_order(mapping, NORMALIZED_COPIES)
            raise _invalid("%s is not a valid component id%s"
                           % (next(cid for cid in order if is_system_id(cid)), stop))
        with_system_streams = [cid for cid in order if any(
            is_system_id(stream_id) for stream_id in mapping[cid].common.streams or {})]
        if with_system_streams:
            cid = next(cid for cid in submitted_map_order(mapping, NORMALIZED_COPIES)
                       if cid in with_system_streams)
            stream_id = next(stream_id for stream_id in submitted_map_order(
                mapping[cid].common.streams, NORMALIZED_COPIES) if is_system_id(stream_id))
            raise _invalid("%s is not a valid stream id%s" % (stream_id, stop))
        ids.extend(submitted_map_order(mapping, NORMALIZED_COPIES) if compat == "2.x" else ())
    if compat == "2.x":
        seen, repeats = set(), []
        for cid in ids:
            if cid in seen:
                repeats.append(cid)
            seen.add(cid)
        if repeats:
            raise _invalid("Duplicate component ids: [%s]" % ", ".join(repeats))
    for mapping in (topology.spouts, topology.state_spouts):
        for cid in mapping or {}:
            if mapping[cid].common.inputs:
                raise _invalid("May not declare inputs for a spout")
    problems = {}  # component id -> what it raises: the first in Storm's walk is raised
    for cid, component in all_components(topology).items():
        try:
            tasks = _component_conf(component, compat).get(TOPOLOGY_TASKS)
            tasks = get_int(tasks, 0) if compat == "2.x" else (0 if tasks is None else tasks)
            if tasks > 0 and num_start_executors(component) <= 0:
                problems[cid] = _invalid("Number of executors must be greater than 0 when "
                                         "number of tasks is greater than 0")
        except ValueError as e:
            problems[cid] = e
    if problems:
        raise problems[next(cid for cid in _normalized_component_order(topology, compat)
                            if cid in problems)]


# -- the added components -------------------------------------------------------------------

def _bolt(kind, compat, inputs, streams, parallelism, conf_pairs, details=None):
    return Bolt(
        bolt_object=ComponentObject(
            serialized_java=java_serialized.serialized_component(kind, compat, details)),
        common=ComponentCommon(inputs=inputs, streams=streams, parallelism_hint=parallelism,
                               json_conf=_new_conf_json(conf_pairs, compat)))


def _message_timeout(conf, compat):
    timeout = conf.get(TOPOLOGY_MESSAGE_TIMEOUT_SECS)
    return require_int(timeout) if compat == "2.x" else timeout


def _hint(value):
    """What ``set_parallelism_hint`` stores: the number as an int; None leaves it unset."""
    return None if value is None else int(value)


def _add_acker(conf, ret, compat):
    if compat == "2.x":
        count = get_int(conf.get(TOPOLOGY_ACKER_EXECUTORS),
                        require_int(conf.get(TOPOLOGY_WORKERS)))
    else:
        count = conf.get(TOPOLOGY_ACKER_EXECUTORS)
        if count is None:
            count = conf.get(TOPOLOGY_WORKERS)
    timeout = _message_timeout(conf, compat)
    inputs = {}
    for spout_id in ret.spouts or {}:
        inputs[GlobalStreamId(spout_id, ACKER_INIT_STREAM_ID)] = _fields_grouping(["id"])
    for bolt_id in ret.bolts or {}:
        for stream_id in (ACKER_ACK_STREAM_ID, ACKER_FAIL_STREAM_ID,
                          ACKER_RESET_TIMEOUT_STREAM_ID):
            inputs[GlobalStreamId(bolt_id, stream_id)] = _fields_grouping(["id"])
    streams = {stream_id: StreamInfo(output_fields=["id", "time-delta-ms"], direct=True)
               for stream_id in (ACKER_ACK_STREAM_ID, ACKER_FAIL_STREAM_ID,
                                 ACKER_RESET_TIMEOUT_STREAM_ID)}
    acker = _bolt(java_serialized.ACKER, compat, inputs, streams, _hint(count),
                  [(TOPOLOGY_TASKS, count), (TOPOLOGY_TICK_TUPLE_FREQ_SECS, timeout)])
    for bolt in (ret.bolts or {}).values():
        streams = _streams(bolt.common)
        streams[ACKER_ACK_STREAM_ID] = StreamInfo(output_fields=["id", "ack-val"], direct=False)
        streams[ACKER_FAIL_STREAM_ID] = StreamInfo(output_fields=["id"], direct=False)
        streams[ACKER_RESET_TIMEOUT_STREAM_ID] = StreamInfo(output_fields=["id"], direct=False)
    for spout in (ret.spouts or {}).values():
        common = spout.common
        common.json_conf = json_conf_with(common.json_conf,
                                          {TOPOLOGY_TICK_TUPLE_FREQ_SECS: timeout}, compat)
        _streams(common)[ACKER_INIT_STREAM_ID] = StreamInfo(
            output_fields=["id", "init-val", "spout-task"], direct=False)
        for stream_id in (ACKER_ACK_STREAM_ID, ACKER_FAIL_STREAM_ID,
                          ACKER_RESET_TIMEOUT_STREAM_ID):
            _inputs(common)[GlobalStreamId(ACKER_COMPONENT_ID, stream_id)] = _direct_grouping()
    if ret.bolts is None:
        ret.bolts = {}
    ret.bolts[ACKER_COMPONENT_ID] = acker


def _add_topology_master(ret, compat):
    """Port of JStorm 2.2.1 ``Common.addTopologyMaster``, its heartbeat stream only
    (:mod:`pynimbus.jstorm_port.topology_master`): every spout and bolt (the acker included)
    declares the stream, and one ``__topology_master`` task reads it from all of them."""
    components = all_components(ret)
    inputs = {GlobalStreamId(cid, sid): Grouping(all=NullStruct()) for cid, sid in
              topology_master.topology_master_input_streams(components)}
    for component in components.values():
        _streams(component.common)[topology_master.TOPOLOGY_MASTER_HB_STREAM_ID] = StreamInfo(
            output_fields=list(topology_master.HEARTBEAT_FIELDS), direct=False)
    streams = {topology_master.TOPOLOGY_MASTER_HB_STREAM_ID: StreamInfo(
        output_fields=list(topology_master.HEARTBEAT_FIELDS), direct=False)}
    ret.bolts[topology_master.TOPOLOGY_MASTER_COMPONENT_ID] = _bolt(
        java_serialized.TOPOLOGY_MASTER, compat, inputs, streams, 1, [(TOPOLOGY_TASKS, 1)])


def has_eventloggers(conf, compat="1.x"):
    """Port of common.clj ``has-eventloggers?``; 2.8.8 ``StormCommon.hasEventLoggers``:
    ``topology.eventlogger.executors`` is null or > 0."""
    return _null_or_positive(conf, TOPOLOGY_EVENTLOGGER_EXECUTORS, compat)


def has_ackers(conf, compat="1.x"):
    """Port of common.clj ``has-ackers?``; 2.8.8 ``StormCommon.hasAckers``:
    ``topology.acker.executors`` is null or > 0."""
    return _null_or_positive(conf, TOPOLOGY_ACKER_EXECUTORS, compat)


def _null_or_positive(conf, key, compat):
    count = conf.get(key)
    if count is None:
        return True
    return (require_int(count) if compat == "2.x" else count) > 0


def _add_eventlogger(conf, ret, compat):
    if compat == "2.x":
        count = get_int(conf.get(TOPOLOGY_EVENTLOGGER_EXECUTORS),
                        get_int(conf.get(TOPOLOGY_WORKERS)))
        if count is None or count == 0:
            return
    else:
        count = conf.get(TOPOLOGY_EVENTLOGGER_EXECUTORS)
        if count is None:
            count = conf.get(TOPOLOGY_WORKERS)
    timeout = _message_timeout(conf, compat)
    inputs = {}
    for cid in list(ret.spouts or {}) + list(ret.bolts or {}):
        inputs[GlobalStreamId(cid, EVENTLOGGER_STREAM_ID)] = _fields_grouping(["component-id"])
    logger = _bolt(java_serialized.EVENTLOGGER, compat, inputs, {}, _hint(count),
                   [(TOPOLOGY_TASKS, count), (TOPOLOGY_TICK_TUPLE_FREQ_SECS, timeout)])
    for component in all_components(ret).values():
        _streams(component.common)[EVENTLOGGER_STREAM_ID] = StreamInfo(
            output_fields=list(EVENTLOGGER_FIELDS), direct=False)
    ret.bolts[EVENTLOGGER_COMPONENT_ID] = logger


def metrics_consumer_ids(conf, compat="1.x"):
    """Port of common.clj ``metrics-consumer-register-ids`` (1.2.4; 2.8.8 inside
    ``StormCommon.metricsConsumerBoltSpecs``): one id per registered consumer, the prefix plus
    its class, ``#2``, ``#3``... appended to repeats."""
    prefix = METRICS_COMPONENT_ID_PREFIX["2.x" if compat == "2.x" else "1.x"]
    seen = {}
    ids = []
    for register in conf.get(TOPOLOGY_METRICS_CONSUMER_REGISTER) or []:
        klass = register.get("class")
        name = ("null" if compat == "2.x" else "") if klass is None else str(klass)
        seen[name] = seen.get(name, 0) + 1
        ids.append(prefix + name + ("#%d" % seen[name] if seen[name] >= 2 else ""))
    return ids


def _add_metric_components(conf, ret, compat):
    registers = conf.get(TOPOLOGY_METRICS_CONSUMER_REGISTER) or []
    if not registers:
        return
    emitters = [SYSTEM_COMPONENT_ID] + list(all_components(ret))
    for cid, register in zip(metrics_consumer_ids(conf, compat), registers):
        hint = register.get("parallelism.hint")
        if compat == "2.x":
            hint = get_int(hint, 1)
        elif hint is None or hint is False:
            hint = 1
        inputs = {GlobalStreamId(e, METRICS_STREAM_ID): Grouping(shuffle=NullStruct())
                  for e in emitters}
        ret.bolts[cid] = _bolt(java_serialized.METRICS_CONSUMER, compat, inputs, {}, _hint(hint),
                               [(TOPOLOGY_TASKS, hint)], details=register)


def _add_system_components(conf, ret, compat):
    if compat == "2.x":
        names = [(SYSTEM_TICK_STREAM_ID, ["rate_secs"]), (SYSTEM_FLUSH_STREAM_ID, []),
                 (METRICS_TICK_STREAM_ID, ["interval"])]
    else:
        names = [(SYSTEM_TICK_STREAM_ID, ["rate_secs"]), (METRICS_TICK_STREAM_ID, ["interval"]),
                 (CREDENTIALS_CHANGED_STREAM_ID, ["creds"])]
    streams = {sid: StreamInfo(output_fields=fields, direct=False) for sid, fields in names}
    ret.bolts[SYSTEM_COMPONENT_ID] = _bolt(java_serialized.SYSTEM, compat, {}, streams, 0,
                                           [(TOPOLOGY_TASKS, 0)])


def _add_stream_everywhere(ret, stream_id, fields):
    for component in all_components(ret).values():
        _streams(component.common)[stream_id] = StreamInfo(output_fields=list(fields),
                                                           direct=False)


def _add_metric_streams(ret):
    _add_stream_everywhere(ret, METRICS_STREAM_ID, ["task-info", "data-points"])


def _add_system_streams(ret):
    _add_stream_everywhere(ret, SYSTEM_STREAM_ID, ["event"])


def add_acker(conf, topology, compat="1.x"):
    """Port of common.clj ``add-acker!`` (1.2.4); 2.8.8 ``StormCommon.addAcker``.

    Adds bolt ``__acker`` (always, even with 0 executors): ``topology.acker.executors``, else
    ``topology.workers``, executors and tasks; tick tuples every ``topology.message.timeout.secs``.
    Every user bolt gets streams ``__ack_ack`` ["id", "ack-val"], ``__ack_fail`` ["id"],
    ``__ack_reset_timeout`` ["id"]; every spout gets ``__ack_init`` ["id", "init-val",
    "spout-task"], direct inputs from the acker's three streams, and the tick frequency in its
    json_conf.  Returns a new topology.
    """
    ret = copy.deepcopy(topology)
    _add_acker(conf, ret, compat_of(conf, compat))
    return ret


def add_eventlogger(conf, topology, compat="1.x"):
    """Port of common.clj ``add-eventlogger!`` (1.2.4); 2.8.8 ``StormCommon.addEventLogger``.

    Adds bolt ``__eventlogger`` (``topology.eventlogger.executors``, else ``topology.workers``,
    executors and tasks) fed by every spout and bolt's ``__eventlog`` stream (fields grouping on
    "component-id"), and that stream to every component present.  2.x adds nothing for 0
    executors; :func:`system_topology` calls this only when :func:`has_eventloggers`.
    """
    ret = copy.deepcopy(topology)
    _add_eventlogger(conf, ret, compat_of(conf, compat))
    return ret


def add_metric_components(conf, topology, compat="1.x"):
    """Port of common.clj ``add-metric-components!`` (1.2.4); 2.8.8
    ``StormCommon.addMetricComponents``: one bolt per ``topology.metrics.consumer.register``
    entry (:func:`metrics_consumer_ids`), ``parallelism.hint`` (1) executors and tasks, shuffle
    inputs from the ``__metrics`` stream of every component present and of ``__system``."""
    ret = copy.deepcopy(topology)
    _add_metric_components(conf, ret, compat_of(conf, compat))
    return ret


def add_system_components(conf, topology, compat="1.x"):
    """Port of common.clj ``add-system-components!`` (1.2.4); 2.8.8
    ``StormCommon.addSystemComponents``: bolt ``__system`` with parallelism hint 0 and 0 tasks;
    streams ``__tick`` ["rate_secs"], ``__metrics_tick`` ["interval"], then 1.x ``__credentials``
    ["creds"] / 2.x ``__flush`` []."""
    ret = copy.deepcopy(topology)
    _add_system_components(conf, ret, compat_of(conf, compat))
    return ret


def add_metric_streams(topology):
    """Port of common.clj ``add-metric-streams!``; 2.8.8 ``StormCommon.addMetricStreams``:
    every component gets stream ``__metrics`` ["task-info", "data-points"]."""
    ret = copy.deepcopy(topology)
    _add_metric_streams(ret)
    return ret


def add_system_streams(topology):
    """Port of common.clj ``add-system-streams!``; 2.8.8 ``StormCommon.addSystemStreams``:
    every component gets stream ``__system`` ["event"]."""
    ret = copy.deepcopy(topology)
    _add_system_streams(ret)
    return ret


# -- validate-structure! --------------------------------------------------------------------

def validate_structure(topology, compat="1.x"):
    """Port of common.clj ``validate-structure!`` (1.2.4); 2.8.8 ``StormCommon.validateStructure``.

    Every input must name an existing component and one of its streams; a fields grouping's
    fields must be output fields of that stream (1.x) / of any stream of the source (2.x).
    Where several inputs fail, the first in Storm's walk is reported (the orders are only
    worked out then).

    :raises InvalidTopologyException: 1.x lists missing fields as a Clojure set
        (``#{"a" "b"}``), 2.x as a Java list after the odd ``+ with`` of its message.
    """
    components = all_components(topology)
    failing = {cid for cid, component in components.items()
               if any(_input_error(components, cid, stream, grouping, compat)
                      for stream, grouping in (component.common.inputs or {}).items())}
    if not failing:
        return
    for cid in _system_component_order(topology, compat):
        if cid not in failing:
            continue
        inputs = components[cid].common.inputs
        for stream in _inputs_order(topology, cid, compat):
            error = _input_error(components, cid, stream, inputs[stream], compat)
            if error:
                raise _invalid(error)


def _input_error(components, cid, stream, grouping, compat):
    """What is wrong with the input ``stream`` of component ``cid`` (None if nothing)."""
    source, source_stream = stream.componentId, stream.streamId
    if source not in components:
        return "Component: [%s] subscribes from non-existent component [%s]" % (cid, source)
    streams = components[source].common.streams or {}
    if source_stream not in streams:
        return ("Component: [%s] subscribes from non-existent stream: [%s] of component [%s]"
                % (cid, source_stream, source))
    if grouping.fields is None:
        return None
    if compat == "2.x":
        known = set()
        for info in streams.values():
            known.update(info.output_fields or [])
        missing = [f for f in grouping.fields if f not in known]
        if missing:
            return ("Component: [%s] subscribes from stream: [%s] of component [%s] + with "
                    "non-existent fields: [%s]"
                    % (cid, source_stream, source, ", ".join(missing)))
        return None
    known = set(streams[source_stream].output_fields or [])
    if all(f in known for f in grouping.fields):
        return None
    missing = [f for f in clojure_set_order(grouping.fields) if f not in known]
    if missing:
        return ("Component: [%s] subscribes from stream: [%s] of component [%s] with "
                "non-existent fields: #{%s}"
                % (cid, source_stream, source, " ".join('"%s"' % f for f in missing)))
    return None


# -- system-topology! -----------------------------------------------------------------------

def system_topology(conf, topology, compat=None):
    """Port of common.clj ``system-topology!`` (1.2.4); 2.8.8 ``StormCommon.systemTopology``.

    ``validate_basic`` on the input, then on a copy: ``add_acker``, ``add_eventlogger`` (only
    when :func:`has_eventloggers`), ``add_metric_components``, ``add_system_components``,
    ``add_metric_streams``, ``add_system_streams``, ``validate_structure``.  ``conf`` is the
    total conf (nimbus conf overlaid with the topology conf).

    :raises InvalidTopologyException: the topology is structurally invalid.
    """
    compat = compat_of(conf, compat)
    validate_basic(topology, compat)
    ret = copy.deepcopy(topology)
    if ret.bolts is None:
        ret.bolts = {}
    _add_acker(conf, ret, compat)
    if topology_master.asks_for_topology_master(conf):
        _add_topology_master(ret, compat)
    if has_eventloggers(conf, compat):
        _add_eventlogger(conf, ret, compat)
    _add_metric_components(conf, ret, compat)
    _add_system_components(conf, ret, compat)
    _add_metric_streams(ret)
    _add_system_streams(ret)
    validate_structure(ret, compat)
    return ret


# -- validate-topology-size -----------------------------------------------------------------

def validate_topology_size(topo_conf, nimbus_conf, topology, compat=None):
    """Port of nimbus.clj ``validate-topology-size`` (1.2.4); 2.8.8
    ``Nimbus.validateTopologySize`` (submit-path.md step 18).

    ``topo_conf`` is the topology's own conf (not merged with nimbus's), ``topology`` the
    normalized *user* topology.  The executors asked for are the sum of its parallelism hints.
    1.x checks ``nimbus.executors.perTopology`` then ``nimbus.slots.perTopology``; 2.x the
    other way round, and skips the slots check under the ResourceAwareScheduler.

    :raises InvalidTopologyException: "Failed to submit topology. Topology requests more than
        N executors." / "... N workers."
    Deliberate difference (1.x): a conf without ``topology.workers`` counts as 1 worker (its
    default) where 1.2.4 fails with a NullPointerException when a slots limit is set.
    """
    compat = compat_of(nimbus_conf, compat)
    executors = sum(num_start_executors(c) for c in all_components(topology).values())
    allowed_executors = nimbus_conf.get(NIMBUS_EXECUTORS_PER_TOPOLOGY)
    allowed_workers = nimbus_conf.get(NIMBUS_SLOTS_PER_TOPOLOGY)
    workers = topo_conf.get(TOPOLOGY_WORKERS)

    def check_executors():
        if allowed_executors is not None and executors > allowed_executors:
            raise _invalid("Failed to submit topology. Topology requests more than %s executors."
                           % allowed_executors)

    def check_workers():
        count = 1 if workers is None else workers
        if allowed_workers is not None and count > allowed_workers:
            raise _invalid("Failed to submit topology. Topology requests more than %s workers."
                           % allowed_workers)

    if compat == "2.x":
        if nimbus_conf.get("storm.scheduler") != RESOURCE_AWARE_SCHEDULER:
            check_workers()
        check_executors()
    else:
        check_executors()
        check_workers()
