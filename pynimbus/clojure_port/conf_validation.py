"""The submitted topology conf: parsing its JSON and validating every key (pure).

Ports of ``ConfigValidation.validateFields`` (1.2.4) / ``validateTopoConf`` (2.8.8) with the
validator of every ``Config`` key (the schema at the end of this module, one row per key in
``Config.java``'s declaration order), and of the checks of a component's own conf that size
the topology.  Messages are Storm's, with values printed as its JVM prints them
(:mod:`pynimbus.clojure_port.java_json`).
"""

import json
import re

from pynimbus.clojure_port.conf import TOPOLOGY_MAX_TASK_PARALLELISM, TOPOLOGY_TASKS, get_int
from pynimbus.clojure_port.java_hash_map import java_hashmap_order
from pynimbus.clojure_port.java_json import (
    INT_MAX, INT_MIN, LONG_MAX, LONG_MIN, MapEntry, java_class, java_str)
from pynimbus.clojure_port.java_order import clojure_map_order
from pynimbus.generated.storm.ttypes import InvalidTopologyException


class TopologyConfError(ValueError):
    """The submitted ``jsonConf`` is not a JSON object.

    Both generations fail such a submission with an internal error, not a declared exception:
    json-simple (1.2.4) and json-smart (2.8.8) ``JSONValue.parse`` return null for text they
    cannot parse, and Storm then dereferences the null (NullPointerException) or casts a
    non-object to a Map (ClassCastException).  The client sees ``TApplicationException``
    INTERNAL_ERROR; this exception reaches the handler as an undeclared one, which maps the same.
    """


def _reject_constant(name):
    raise TopologyConfError("jsonConf is not valid JSON: %s is not a JSON value" % name)


def parse_json_conf(json_conf, compat="1.x"):
    """Port of the parse of ``jsonConf`` in ``submitTopologyWithOpts`` (1.2.4 ``from-json``,
    2.8.8 ``JSONValue.parse``): return the conf as a dict in document order.

    :raises TopologyConfError: when ``json_conf`` is missing, is not JSON, or is JSON but not an
        object (Storm: NullPointerException or ClassCastException, i.e. INTERNAL_ERROR).
        1.2.4 reads integers as ``Long``, so one outside the long range is unreadable there.
    Deliberate difference: json-smart's permissive mode (2.8.8) also reads some non-JSON text
    (unquoted keys, single quotes); pynimbus reads strict JSON only.
    """
    if json_conf is None:
        raise TopologyConfError("jsonConf is missing")
    if isinstance(json_conf, bytes):
        json_conf = json_conf.decode("utf-8")
    try:
        conf = json.loads(json_conf, parse_constant=_reject_constant)
    except ValueError as e:
        raise TopologyConfError("jsonConf is not valid JSON: %s" % e)
    if not isinstance(conf, dict):
        raise TopologyConfError("jsonConf must be a JSON object, not %s" % type(conf).__name__)
    if compat != "2.x" and _has_big_int(conf):
        raise TopologyConfError("jsonConf holds an integer outside the range of a Java long")
    return conf


def _has_big_int(value):
    if isinstance(value, dict):
        return any(_has_big_int(v) for v in value.values())
    if isinstance(value, list):
        return any(_has_big_int(v) for v in value)
    return (isinstance(value, int) and not isinstance(value, bool)
            and not LONG_MIN <= value <= LONG_MAX)


class _Invalid(Exception):
    """A validator's IllegalArgumentException (becomes InvalidTopologyException)."""


def _is_number(o):
    return isinstance(o, (int, float)) and not isinstance(o, bool)


def _long_value(o):
    """``Number.longValue()``: truncation, saturating at the long range for doubles."""
    if isinstance(o, float):
        if o != o:
            return 0
        if o >= 2.0 ** 63:
            return LONG_MAX
        if o <= -2.0 ** 63:
            return LONG_MIN
        return int(o)
    v = o & 0xFFFFFFFFFFFFFFFF
    return v - (1 << 64) if v >> 63 else v


def _is_integral(o):
    """``o instanceof Number && o.longValue() == o.doubleValue()``."""
    if not _is_number(o):
        return False
    i = _long_value(o)
    return float(i) == float(o) if isinstance(o, float) else (i == o)


def _iterable_items(o, compat):
    """``(True, items)`` if Java sees ``o`` as an Iterable, else ``(False, None)``.

    1.2.4 holds maps as Clojure maps, which are Iterable (of entries); 2.8.8's JSONObject is not.
    """
    if isinstance(o, list):
        return True, o
    if isinstance(o, dict) and compat != "2.x":
        return True, [MapEntry(k, o[k]) for k in clojure_map_order(java_hashmap_order(o))]
    return False, None


def _map_items(o, compat):
    keys = java_hashmap_order(o)
    if compat != "2.x":
        keys = clojure_map_order(keys)
    return [(k, o[k]) for k in keys]


_TYPES = {
    # type -> (Class.toString, getName, instance test)
    "String": ("class java.lang.String", "java.lang.String", lambda o: isinstance(o, str)),
    "Boolean": ("class java.lang.Boolean", "java.lang.Boolean", lambda o: isinstance(o, bool)),
    "Number": ("class java.lang.Number", "java.lang.Number", _is_number),
    "Map": ("interface java.util.Map", "java.util.Map",
            lambda o: isinstance(o, (dict, MapEntry)) and not isinstance(o, MapEntry)),
    "Object": ("class java.lang.Object", "java.lang.Object", lambda o: True),
}


def _simple_type(name, type_name, o, compat):
    if o is None:
        return
    if type_name == "Iterable":
        if _iterable_items(o, compat)[0]:
            return
        shown = "interface java.lang.Iterable"
    else:
        shown, _, test = _TYPES[type_name]
        if test(o):
            return
    raise _Invalid("Field %s must be of type %s. Object: %s actual type: %s"
                   % (name, shown, java_str(o, compat), java_class(o, compat)))


def _fv(type_name, not_null):
    """``ConfigValidationUtils.fv``: an element of a type (``pd`` prefixes the message)."""
    def check(pd, name, o, compat):
        if o is None:
            if not_null:
                raise _Invalid("Field %s must not be null" % name)
            return
        _, java_name, test = _TYPES[type_name]
        if not test(o):
            raise _Invalid("%s%s must be a %s. (%s)" % (pd, name, java_name, java_str(o, compat)))
    return check


def _list_fv(element, not_null):
    """``ConfigValidationUtils.listFv``."""
    def check(pd, name, o, compat):
        if o is None:
            if not_null:
                raise _Invalid("Field %s must not be null" % name)
            return
        ok, items = _iterable_items(o, compat)
        if not ok:
            raise _Invalid("Field %s must be an Iterable but was a %s"
                           % (name, java_class(o, compat)))
        for e in items:
            # Storm passes pd + "Each element ...": a null pd prints as "null".
            element("%sEach element of the list " % ("null" if pd is None else pd), name, e,
                    compat)
    return check


def _map_fv(key, value, not_null):
    """``ConfigValidationUtils.mapFv``."""
    def check(pd, name, o, compat):
        if o is None:
            if not_null:
                raise _Invalid("Field %s must not be null" % name)
            return
        if not isinstance(o, dict):
            raise _Invalid("Field %s must be a Map" % name)
        for k, v in _map_items(o, compat):
            key("Each key of the map ", name, k, compat)
            value("Each value in the map ", name, v, compat)
    return check


def _top(nestable):
    return lambda name, o, compat: nestable(None, name, o, compat)


def _v_integer(name, o, compat):
    if o is None:
        return
    if _is_integral(o) and INT_MIN <= _long_value(o) <= INT_MAX:
        return
    raise _Invalid("Field %s must be an Integer within type range." % name)


def _v_long(name, o, compat):
    if o is None or _is_integral(o):
        return
    raise _Invalid("Field %s must be an Long within type range." % name)


def _v_positive(include_zero):
    def check(name, o, compat):
        if o is None:
            return
        if _is_number(o) and (o >= 0 if include_zero else o > 0):
            return
        raise _Invalid("Field %s must be a Positive Number" % name)
    return check


def _v_not_null(name, o, compat):
    if o is None:
        raise _Invalid("Field %scannot be null! Actual value: null" % name)


def _v_type(type_name):
    return lambda name, o, compat: _simple_type(name, type_name, o, compat)


def _v_string(accepted=None):
    accepted_set = frozenset(accepted) if accepted else None

    def check(name, o, compat):
        _simple_type(name, "String", o, compat)
        if accepted_set is not None and o not in accepted_set:
            shown = ", ".join(java_hashmap_order(accepted, initial_capacity=16))
            raise _Invalid("Field %s is not an accepted value. Value: %s Accepted values: [%s]"
                           % (name, java_str(o, compat), shown))
    return check


def _v_string_or_string_list(name, o, compat):
    if o is None or isinstance(o, str):
        return
    _list_fv(_fv("String", False), False)(None, name, o, compat)


def _java_equality_key(o):
    if isinstance(o, bool) or not _is_number(o):
        return (type(o).__name__, repr(o))
    return (type(o).__name__, o)


def _v_no_duplicates(name, o, compat):
    if o is None:
        return
    _simple_type(name, "Iterable", o, compat)
    seen = set()
    for e in _iterable_items(o, compat)[1]:
        k = _java_equality_key(e)
        if k in seen:
            raise _Invalid("%s should contain no duplicate elements. Duplicated element: %s"
                           % (name, java_str(e, compat)))
        seen.add(k)


def _v_kryo_reg(name, o, compat):
    if o is None:
        return
    ok, items = _iterable_items(o, compat)
    if not ok:
        raise _Invalid("Field %s must be an Iterable containing only Strings or Maps of Strings"
                       % name)
    for e in items:
        if isinstance(e, dict):
            if all(isinstance(k, str) and isinstance(v, str) for k, v in e.items()):
                continue
        elif isinstance(e, str):
            continue
        raise _Invalid("Each element of the list %s must be a String or a Map of Strings" % name)


def _v_power_of_2(name, o, compat):
    if o is None:
        return
    if _is_integral(o):
        i = _long_value(o)
        if i > 0 and i & (i - 1) == 0:
            return
    raise _Invalid("Field %s must be a power of 2." % name)


def _v_implements(name, o, compat):
    # Storm also loads the class and checks it implements an interface; pynimbus has no
    # classpath, so any class name is accepted (see the module's known gaps).
    if o is None:
        return
    _simple_type(name, "String", o, compat)


def _needs_class(name, o, compat):
    _simple_type(name, "Map", o, compat)
    if "class" not in o:
        raise _Invalid("Field %s must have map entry with key: class" % name)


def _v_metric_registry(name, o, compat):
    if o is None:
        return
    _needs_class(name, o, compat)
    if "parallelism.hint" not in o:
        raise _Invalid("Field %s must have map entry with key: parallelism.hint" % name)
    _simple_type(name, "String", o["class"], compat)
    _v_integer(name, o["parallelism.hint"], compat)


def _v_cluster_metric_registry(name, o, compat):
    if o is None:
        return
    _needs_class(name, o, compat)
    _simple_type(name, "String", o["class"], compat)


def _v_event_logger_registry(name, o, compat):
    if o is None:
        return
    _needs_class(name, o, compat)
    _simple_type(name, "String", o["class"], compat)
    if "arguments" in o:
        _simple_type(name, "Map", o["arguments"], compat)


def _v_metric_reporters(name, o, compat):
    if o is None:
        return
    _needs_class(name, o, compat)
    if compat != "2.x":
        if "daemons" not in o:
            raise _Invalid("Field %s must have map entry with key: daemons" % name)
        daemons = o["daemons"]
        if not isinstance(daemons, list):
            raise _Invalid("Field 'daemons' must be a non-null list.")
        for d in daemons:
            if d not in ("nimbus", "supervisor", "worker") or not isinstance(d, str):
                raise _Invalid('Field \'daemons\' must contain at least one of the following:'
                               ' "nimbus", "supervisor", or "worker"')
    if "filter" in o:
        if not isinstance(o["filter"], dict):  # Storm: ClassCastException / NPE
            raise TypeError("%s: the reporter's filter must be a map" % name)
        _simple_type("class", "String", o["filter"].get("class"), compat)
    _simple_type(name, "String", o["class"], compat)


def _v_user_resource_pool_entry(name, o, compat):
    if o is None:
        return
    _simple_type(name, "Map", o, compat)
    for key in ("cpu", "memory"):
        if key not in o:
            raise _Invalid("Field %s must have map entry with key: %s" % (name, key))
    _simple_type(name, "Number", o["cpu"], compat)
    _simple_type(name, "Number", o["memory"], compat)


def _v_impersonation_acl_user_entry(name, o, compat):
    if o is None:
        return
    _map_fv(_fv("String", False), _list_fv(_fv("String", False), False), False)(
        None, name, o, compat)
    for key in ("hosts", "groups"):
        if key not in o:
            raise _Invalid("%s should contain Map entry with key: %s" % (name, key))


def _v_map_of_string_to_map(name, o, compat):
    _map_fv(_fv("String", False), _map_fv(_fv("String", False), _fv("Object", False), True),
            True)(None, name, o, compat)


def _v_pacemaker_auth_type(name, o, compat):
    if o is None:
        raise _Invalid("Field %s must be set." % name)
    if o in ("NONE", "DIGEST", "KERBEROS") and isinstance(o, str):
        return
    raise _Invalid('Field %s must be one of "NONE", "DIGEST", or "KERBEROS"' % name)


def _v_list_of_list_of_string(name, o, compat):
    if o is None:
        return
    if isinstance(o, list) and all(
            isinstance(e, list) and all(isinstance(s, str) for s in e) for e in o):
        return
    raise _Invalid("Field %s must be an Iterable containing only List of List of Strings" % name)


_MAX_CO_LOCATION = "maxNodeCoLocationCnt"


_INCOMPATIBLE = "incompatibleComponents"


def _v_ras_constraints_type(name, o, compat):
    if o is None:
        return
    if not isinstance(o, dict):
        raise _Invalid("Field %s must be an Iterable containing only Map of Maps" % name)
    for comp, constraints in _map_items(o, compat):
        if not isinstance(constraints, dict):
            raise _Invalid('Field %s, component %s, expecting constraints Map with keys '
                           '["%s", "%s"], in "%s"' % (name, comp, _MAX_CO_LOCATION, _INCOMPATIBLE,
                                                      java_str(o, compat)))
        for kind, value in _map_items(constraints, compat):
            if kind == _MAX_CO_LOCATION:
                if not re.fullmatch(r"[+-]?[0-9]+", java_str(value, compat)) or not (
                        INT_MIN <= int(java_str(value, compat)) <= INT_MAX):
                    raise _Invalid('Field %s, component %s, constraint %s should be a number, '
                                   'not "%s"' % (name, comp, kind, java_str(value, compat)))
            elif kind == _INCOMPATIBLE:
                for other in (value if isinstance(value, list) else []):
                    if not isinstance(other, str):
                        raise _Invalid(
                            'Field %s, component %s, constraintType "%s", expecting incompatible '
                            'component-name, found instance of class "%s" value "%s"'
                            % (name, comp, kind, java_class(value, compat)[6:],
                               java_str(other, compat)))
            else:
                raise _Invalid('Field %s, component %s, has unsupported constraintType "%s", '
                               'expecting one of ["%s", "%s"], in "%s"'
                               % (name, comp, kind, _MAX_CO_LOCATION, _INCOMPATIBLE,
                                  java_str(o, compat)))


_VALIDATION_CLASS = "org.apache.storm.validation.ConfigValidation$"


def _v_exactly_one_of(*names):
    def check(name, o, compat):
        if o is None:
            return
        errors, selected = {}, []
        for simple in names:
            full = _VALIDATION_CLASS + simple + "Validator"
            try:
                _ENTRY_VALIDATORS[simple]("%s %sValidator value" % (name, simple), o, compat)
                selected.append(full)
            except _Invalid as e:
                errors[full] = "java.lang.IllegalArgumentException: %s" % e
        all_names = ", ".join(_VALIDATION_CLASS + n + "Validator" for n in names)
        if not selected:
            parse_errs = ";\n\t".join("%s:%s" % (k, errors[k]) for k in java_hashmap_order(errors))
            raise _Invalid("Field %s must be one of %s; parse errors are \n\t%s"
                           % (name, all_names, parse_errs))
        if len(selected) > 1:
            raise _Invalid("Field %s must match exactly one of %s"
                           % (name, ", ".join(java_hashmap_order(selected))))
    return check


_ENTRY_VALIDATORS = {
    "Integer": _v_integer,
    "PositiveNumber": _v_positive(False),
    "String": _v_string(),
    "MetricRegistry": _v_metric_registry,
    "ClusterMetricRegistry": _v_cluster_metric_registry,
    "EventLoggerRegistry": _v_event_logger_registry,
    "MetricReporters": _v_metric_reporters,
    "UserResourcePoolEntry": _v_user_resource_pool_entry,
    "ImpersonationAclUserEntry": _v_impersonation_acl_user_entry,
    "MapOfStringToMapOfStringToObject": _v_map_of_string_to_map,
    "PacemakerAuthType": _v_pacemaker_auth_type,
    "ListOfListOfString": _v_list_of_list_of_string,
    "RasConstraintsType": _v_ras_constraints_type,
}


def _v_list_entries(*names):
    def check(name, o, compat):
        if o is None:
            return
        _simple_type(name, "Iterable", o, compat)
        for entry in _iterable_items(o, compat)[1]:
            for n in names:
                _ENTRY_VALIDATORS[n](name + " list entry", entry, compat)
    return check


def _v_map_entries(key_names, value_names):
    def check(name, o, compat):
        if o is None:
            return
        _simple_type(name, "Map", o, compat)
        for k, v in _map_items(o, compat):
            for n in key_names:
                _ENTRY_VALIDATORS[n](name + " Map key", k, compat)
            for n in value_names:
                _ENTRY_VALIDATORS[n](name + " Map value", v, compat)
    return check


def _make_validator(token):
    """One validator of the schema tables below, from its token."""
    kind, _, arg = token.partition(":")
    simple = {
        "int": _v_integer, "long": _v_long, "pos": _v_positive(False),
        "pos0": _v_positive(True), "notnull": _v_not_null, "bool": _v_type("Boolean"),
        "num": _v_type("Number"), "strlist": _top(_list_fv(_fv("String", False), False)),
        "str|strlist": _v_string_or_string_list, "kryo": _v_kryo_reg, "pow2": _v_power_of_2,
        "nodup": _v_no_duplicates, "impl": _v_implements,
    }
    if kind in simple:
        return simple[kind]
    if kind == "str":
        return _v_string(arg.split(",") if arg else None)
    if kind == "map":
        key_type, value_type = arg.split(":")
        return _top(_map_fv(_fv(key_type, False), _fv(value_type, False), False))
    if kind == "type":
        return _v_type(arg)
    if kind == "list":
        return _v_list_entries(*arg.split("+"))
    if kind == "mapc":
        key_names, value_names = arg.split(":")
        return _v_map_entries(key_names.split("+"), value_names.split("+"))
    if kind == "custom":
        return _ENTRY_VALIDATORS[arg]
    if kind == "oneof":
        return _v_exactly_one_of(*arg.split("+"))
    raise ValueError("unknown validator token %r" % token)


def _parse_schema(text):
    """Rows ``key validator... [=CONSTANT]`` (a row may continue on an indented line)."""
    rows = []
    for line in text.strip().splitlines():
        if line.startswith(" "):
            rows[-1] += line
        else:
            rows.append(line)
    schema = []
    for row in rows:
        words = row.split()
        key, tokens = words[0], words[1:]
        constant = re.sub(r"[.\-]", "_", key).upper()
        if tokens and tokens[-1].startswith("="):
            constant = tokens.pop()[1:]
        schema.append((key, constant, tuple(_make_validator(t) for t in tokens)))
    return tuple(schema)


def declared_keys(compat="1.x"):
    """The keys :func:`validate_topology_conf` checks: those of ``Config.java`` (1.2.4's held
    the daemons' keys too; 2.8.8 moved those to ``DaemonConfig``)."""
    return frozenset(key for key, _, _ in (_SCHEMA_2X if compat == "2.x" else _SCHEMA_1X))


def validate_topology_conf(topology_conf, compat="1.x"):
    """Port of ``ConfigValidation.validateFields`` as ``submitTopologyWithOpts`` runs it on the
    submitted conf (1.2.4, every key of ``Config``); 2.8.8 ``ConfigValidation.validateTopoConf``.

    Keys are checked in ``Config.java`` declaration order, each key's annotations in order; the
    first failure is raised with Storm's message, which names the Java constant
    (``Field TOPOLOGY_WORKERS must be an Integer within type range.``).

    :raises InvalidTopologyException: a known key has a value of the wrong type or range.
    :raises TypeError: where Storm fails with an undeclared exception (INTERNAL_ERROR).
    Deliberate difference: validators that load a class (``isImplementationOfClass``) only
    check that the value is a string, because pynimbus has no Java classpath.
    """
    schema = _SCHEMA_2X if compat == "2.x" else _SCHEMA_1X
    for key, constant, validators in schema:
        if key in topology_conf:
            value = topology_conf[key]
            try:
                for validator in validators:
                    validator(constant, value, compat)
            except _Invalid as e:
                raise InvalidTopologyException(msg=str(e))


# The keys of a component's own conf that size the topology (component_parallelism reads them).
COMPONENT_COUNT_KEYS = (TOPOLOGY_TASKS, TOPOLOGY_MAX_TASK_PARALLELISM)


def validate_component_counts(component_id, component_conf, compat="1.x"):
    """Storm's validators of ``topology.tasks`` and ``topology.max.task.parallelism``
    (``@isInteger`` and ``@isPositiveNumber``, as :func:`validate_topology_conf` applies them
    to the topology conf) applied to one component's own conf.

    2.x reads these counts with ``ObjectReader.getInt``, so a numeric string is read as its
    number first and a count getInt refuses (a double) is refused here.

    :raises InvalidTopologyException: the message names the component, then Storm's
        (``Component words: Field TOPOLOGY_TASKS must be an Integer within type range.``).
    Deliberate difference: Storm validates only the topology conf.  1.2.4 accepts a component
    count past the int range and then builds a task list that long (the daemon runs out of
    memory); 2.8.8 fails in ``ObjectReader.getInt`` (INTERNAL_ERROR).
    """
    schema = _SCHEMA_2X if compat == "2.x" else _SCHEMA_1X
    for key, constant, validators in schema:
        value = component_conf.get(key) if key in COMPONENT_COUNT_KEYS else None
        if value is None:
            continue
        try:
            if compat == "2.x" and isinstance(value, str):
                value = get_int(value)
            for validator in validators:
                validator(constant, value, compat)
            if compat == "2.x":
                get_int(value)
        except (_Invalid, ValueError) as e:
            raise InvalidTopologyException(msg="Component %s: %s" % (component_id, e))


# -- the schema: every key of Config.java, in declaration order -----------------------------
#
# One row per key: ``key validator... [=CONSTANT]`` (the constant is the key upper-cased with
# "." and "-" as "_" unless given).  Validators: int (isInteger), long (isLong), pos / pos0
# (isPositiveNumber without / with zero), notnull (NotNull, Password), bool, num (isNumber),
# str[:accepted,...] (isString), strlist (isStringList), str|strlist (isStringOrStringList),
# kryo (isKryoReg), pow2 (isPowerOf2), nodup (isNoDuplicateInList), map:K:V (isMapEntryType),
# type:Map (isType), impl:Interface (isImplementationOfClass), list:V+V (isListEntryCustom),
# mapc:K:V (isMapEntryCustom), custom:V (CustomValidator), oneof:V+V (IsExactlyOneOf).
_SCHEMA_1X = _parse_schema("""
storm.nimbus.zookeeper.acls.check bool
storm.nimbus.zookeeper.acls.fixup bool
storm.zookeeper.superACL str
storm.messaging.transport str
storm.messaging.netty.buffer_size int pos
storm.messaging.netty.socket.backlog int pos
storm.messaging.netty.max_retries int
storm.messaging.netty.min_wait_ms int pos0 =STORM_MESSAGING_NETTY_MIN_SLEEP_MS
storm.messaging.netty.max_wait_ms int pos0 =STORM_MESSAGING_NETTY_MAX_SLEEP_MS
storm.messaging.netty.server_worker_threads int pos0
storm.messaging.netty.client_worker_threads int
storm.messaging.netty.transfer.batch.size int =STORM_NETTY_MESSAGE_BATCH_SIZE
storm.messaging.netty.flush.check.interval.ms int =STORM_NETTY_FLUSH_CHECK_INTERVAL_MS
storm.messaging.netty.authentication bool
storm.meta.serialization.delegate str
storm.metrics.reporters list:MetricReporters
storm.daemon.metrics.reporter.plugins strlist
storm.daemon.metrics.reporter.plugin.locale str
storm.daemon.metrics.reporter.plugin.domain str
storm.daemon.metrics.reporter.plugin.rate.unit str
storm.daemon.metrics.reporter.plugin.duration.unit str
storm.daemon.metrics.reporter.csv.log.dir str
storm.zookeeper.servers strlist
storm.zookeeper.port int pos
storm.exhibitor.servers strlist
storm.exhibitor.port int pos
storm.local.dir str
storm.log4j2.conf.dir str
storm.scheduler str
scheduler.display.resource bool
storm.cluster.mode str
storm.network.topography.plugin notnull impl:DNSToSwitchMapping
storm.local.hostname str
storm.principal.tolocal str =STORM_PRINCIPAL_TO_LOCAL_PLUGIN
storm.group.mapping.service str =STORM_GROUP_MAPPING_SERVICE_PROVIDER_PLUGIN
storm.group.mapping.service.cache.duration.secs int
storm.group.mapping.service.params type:Map
storm.thrift.transport str =STORM_THRIFT_TRANSPORT_PLUGIN
topology.tuple.serializer str
topology.disable.loadaware.messaging bool notnull
topology.testing.always.try.serialize bool
storm.local.mode.zmq bool
storm.zookeeper.root str
storm.zookeeper.session.timeout int
storm.zookeeper.connection.timeout int
storm.zookeeper.retry.times int
storm.zookeeper.retry.interval int
storm.zookeeper.retry.intervalceiling.millis int =STORM_ZOOKEEPER_RETRY_INTERVAL_CEILING
storm.zookeeper.auth.scheme str
storm.zookeeper.auth.payload str
storm.zookeeper.topology.auth.scheme str
storm.zookeeper.topology.auth.payload str notnull
storm.exhibitor.poll.uripath str =STORM_EXHIBITOR_URIPATH
storm.exhibitor.poll.millis int =STORM_EXHIBITOR_POLL
storm.exhibitor.retry.times int
storm.exhibitor.retry.interval int
storm.exhibitor.retry.intervalceiling.millis int =STORM_EXHIBITOR_RETRY_INTERVAL_CEILING
storm.id str
storm.workers.artifacts.dir str
storm.health.check.dir str
storm.health.check.timeout.ms num
storm.nimbus.retry.times num
storm.nimbus.retry.interval.millis num =STORM_NIMBUS_RETRY_INTERVAL
storm.nimbus.retry.intervalceiling.millis num =STORM_NIMBUS_RETRY_INTERVAL_CEILING
storm.cluster.state.store str
nimbus.thrift.transport str =NIMBUS_THRIFT_TRANSPORT_PLUGIN
storm.thrift.socket.timeout.ms int
nimbus.host str
nimbus.seeds strlist
nimbus.thrift.port int pos
nimbus.thrift.threads int pos
nimbus.admins strlist
nimbus.users strlist
nimbus.groups strlist
nimbus.supervisor.users strlist
nimbus.daemon.user str
nimbus.thrift.max_buffer_size int pos
nimbus.childopts str|strlist
nimbus.task.timeout.secs int pos
nimbus.monitor.freq.secs int pos
nimbus.cleanup.inbox.freq.secs int pos
nimbus.inbox.jar.expiration.secs int
nimbus.supervisor.timeout.secs int pos
nimbus.task.launch.secs int pos
nimbus.file.copy.expiration.secs int
nimbus.topology.validator str
nimbus.authorizer str
nimbus.impersonation.authorizer str
nimbus.impersonation.acl mapc:String:ImpersonationAclUserEntry
nimbus.credential.renewers.freq.secs int pos =NIMBUS_CREDENTIAL_RENEW_FREQ_SECS
nimbus.credential.renewers.classes strlist =NIMBUS_CREDENTIAL_RENEWERS
nimbus.autocredential.plugins.classes strlist =NIMBUS_AUTO_CRED_PLUGINS
nimbus.queue.size int pos
storm.topology.submission.notifier.plugin.class str =STORM_TOPOLOGY_SUBMISSION_NOTIFIER_PLUGIN
ui.host str
ui.port int pos
ui.project.bugtracker.url str
ui.central.logging.url str
ui.pagination int
logviewer.port int pos
logviewer.childopts str|strlist
logviewer.cleanup.interval.secs int pos
logviewer.cleanup.age.mins int pos
logviewer.max.sum.worker.logs.size.mb pos
logviewer.max.per.worker.logs.size.mb pos
logviewer.https.port int pos
logviewer.https.keystore.path str
logviewer.https.keystore.password str notnull
logviewer.https.keystore.type str
logviewer.https.key.password str notnull
logviewer.https.truststore.path str
logviewer.https.truststore.password str notnull
logviewer.https.truststore.type str
logviewer.https.want.client.auth bool
logviewer.https.need.client.auth bool
logs.users strlist
logs.groups strlist
logviewer.appender.name str
ui.childopts str|strlist
ui.filter str
ui.filter.params map:String:String
ui.header.buffer.bytes int pos
ui.https.port int pos
ui.https.keystore.path str
ui.https.keystore.password str notnull
ui.https.keystore.type str
ui.https.key.password str notnull
ui.https.truststore.path str
ui.https.truststore.password str notnull
ui.https.truststore.type str
ui.https.want.client.auth bool
ui.https.need.client.auth bool
ui.http.x-frame-options str
pacemaker.servers strlist
pacemaker.host str
pacemaker.port num pos
pacemaker.max.threads num pos
pacemaker.childopts str|strlist
pacemaker.auth.method custom:PacemakerAuthType
drpc.servers strlist
drpc.http.port int
drpc.https.port int
drpc.https.keystore.path str
drpc.https.keystore.password str notnull
drpc.https.keystore.type str
drpc.https.key.password str notnull
drpc.https.truststore.path str
drpc.https.truststore.password str notnull
drpc.https.truststore.type str
drpc.https.want.client.auth bool
drpc.https.need.client.auth bool
drpc.thrift.transport str =DRPC_THRIFT_TRANSPORT_PLUGIN
drpc.port int pos
drpc.authorizer str
drpc.authorizer.acl type:Map
drpc.authorizer.acl.filename str
drpc.authorizer.acl.strict bool
drpc.worker.threads int pos
drpc.max_buffer_size num pos
drpc.queue.size int pos
drpc.invocations.thrift.transport str =DRPC_INVOCATIONS_THRIFT_TRANSPORT_PLUGIN
drpc.invocations.port int pos
drpc.invocations.threads int pos
drpc.request.timeout.secs int pos notnull
drpc.childopts str|strlist
ui.http.creds.plugin str
drpc.http.creds.plugin str
supervisor.scheduler.meta map:String:String
supervisor.slots.ports nodup notnull list:Integer+PositiveNumber
supervisor.blobstore.class str =SUPERVISOR_BLOBSTORE
supervisor.localizer.cache.target.size.mb pos int
supervisor.localizer.cleanup.interval.ms
    pos int =SUPERVISOR_LOCALIZER_CACHE_CLEANUP_INTERVAL_MS
client.blobstore.class str =CLIENT_BLOBSTORE
supervisor.blobstore.download.thread.count pos int
supervisor.blobstore.download.max_retries pos int
blobstore.superuser str
blobstore.dir str
storm.blobstore.inputstream.buffer.size.bytes pos int
blobstore.cleanup.enable bool
blobstore.hdfs.principal str
blobstore.hdfs.keytab str
storm.blobstore.replication.factor pos int
storm.blobstore.acl.validation.enabled bool
nimbus.blobstore.class str =NIMBUS_BLOBSTORE
nimbus.blobstore.expiration.secs pos int
topology.blobstore.map custom:MapOfStringToMapOfStringToObject
nimbus.slots.perTopology int pos0 =NIMBUS_SLOTS_PER_TOPOLOGY
drpc.http.filter str
drpc.http.filter.params map:String:String
nimbus.executors.perTopology int pos0 =NIMBUS_EXECUTORS_PER_TOPOLOGY
supervisor.childopts str|strlist
supervisor.worker.timeout.secs int pos notnull
supervisor.worker.shutdown.sleep.secs int pos
supervisor.worker.start.timeout.secs int pos notnull
supervisor.enable bool
supervisor.heartbeat.frequency.secs int
supervisor.monitor.frequency.secs int pos
supervisor.run.worker.as.user bool
supervisor.worker.launcher str
supervisor.memory.capacity.mb pos
supervisor.cpu.capacity pos
storm.disable.symlinks bool =DISABLE_SYMLINKS
worker.childopts str|strlist
worker.heap.memory.mb int pos
worker.profiler.childopts str|strlist
worker.profiler.enabled bool
worker.profiler.command str
worker.gc.childopts str|strlist
worker.heartbeat.frequency.secs int pos
task.heartbeat.frequency.secs int pos
task.refresh.poll.secs int pos
worker.log.level.reset.poll.secs int pos
task.credentials.poll.secs int pos
task.backpressure.poll.secs int pos
topology.backpressure.enable bool
backpressure.disruptor.high.watermark pos
backpressure.disruptor.low.watermark pos
backpressure.znode.timeout.secs int pos
backpressure.znode.update.freq.secs int pos
storm.cluster.metrics.consumer.register list:ClusterMetricRegistry
storm.cluster.metrics.consumer.publish.interval.secs notnull pos
topology.users strlist
topology.groups strlist
topology.enable.message.timeouts bool
topology.debug bool
topology.multilang.log.handler str
topology.multilang.serializer str
topology.workers int pos
topology.tasks int pos0
topology.component.resources.onheap.memory.mb pos0
topology.component.resources.offheap.memory.mb pos0
topology.component.cpu.pcore.percent pos0
topology.state.provider str
topology.state.provider.config str
topology.state.checkpoint.interval.ms int pos =TOPOLOGY_STATE_CHECKPOINT_INTERVAL
topology.worker.max.heap.size.mb pos
topology.scheduler.strategy notnull impl:IStrategy
topology.acker.executors int pos0
topology.event.logger.register list:EventLoggerRegistry
topology.eventlogger.executors int pos0
topology.message.timeout.secs int pos notnull
topology.kryo.register kryo
topology.kryo.decorators strlist
topology.kryo.factory str
topology.skip.missing.kryo.registrations bool
topology.metrics.consumer.register list:MetricRegistry
topology.worker.metrics map:String:String
worker.metrics map:String:String
topology.max.task.parallelism int pos
topology.max.spout.pending int pos
topology.spout.wait.strategy str
topology.sleep.spout.wait.strategy.time.ms int pos0
topology.state.synchronization.timeout.secs int pos notnull
topology.stats.sample.rate pos
topology.builtin.metrics.bucket.size.secs int
topology.fall.back.on.java.serialization bool
topology.worker.childopts str|strlist
topology.worker.gc.childopts str|strlist
topology.worker.logwriter.childopts str|strlist
topology.classpath str|strlist
topology.environment map:String:String
topology.bolts.outgoing.overflow.buffer.enable bool
topology.bolts.window.length.count int pos
topology.bolts.window.length.duration.ms int pos
topology.bolts.window.sliding.interval.count int pos =TOPOLOGY_BOLTS_SLIDING_INTERVAL_COUNT
topology.bolts.window.sliding.interval.duration.ms
    int pos =TOPOLOGY_BOLTS_SLIDING_INTERVAL_DURATION_MS
topology.bolts.late.tuple.stream str
topology.bolts.tuple.timestamp.max.lag.ms int pos
topology.bolts.watermark.event.interval.ms int pos
topology.bolts.message.id.field.name str
topology.transactional.id str
topology.auto.task.hooks strlist
topology.executor.receive.buffer.size pow2
topology.executor.send.buffer.size pow2
topology.transfer.buffer.size int pow2
topology.tick.tuple.freq.secs int
topology.disruptor.wait.strategy str
topology.worker.shared.thread.pool.size int
topology.error.throttle.interval.secs int
topology.max.error.report.per.interval int pos
topology.trident.batch.emit.interval.millis int pos
topology.trident.windowing.cache.tuple.limit
    int pos =TOPOLOGY_TRIDENT_WINDOWING_INMEMORY_CACHE_LIMIT
topology.name str
topology.submitter.principal str
topology.submitter.user str
topology.spread.components strlist
topology.auto-credentials strlist
topology.shellbolt.max.pending notnull int pos
topology.subprocess.timeout.secs int pos
topology.logging.sensitivity str:S0,S1,S2,S3
topology.priority int pos0
transactional.zookeeper.root str
transactional.zookeeper.servers strlist
transactional.zookeeper.port int pos
storm.doAsUser str =STORM_DO_AS_USER
zmq.threads int
zmq.linger.millis int
zmq.hwm int
java.library.path str
dev.zookeeper.path str
isolation.scheduler.machines map:String:Number
multitenant.scheduler.user.pools map:String:Number
resource.aware.scheduler.user.pools mapc:String:UserResourcePoolEntry
resource.aware.scheduler.eviction.strategy notnull impl:IEvictionStrategy
resource.aware.scheduler.priority.strategy notnull impl:ISchedulingPriorityStrategy
topology.isolate.machines int pos =TOPOLOGY_ISOLATED_MACHINES
topology.disruptor.wait.timeout.millis int notnull
topology.disruptor.batch.size int pos notnull
topology.disruptor.batch.timeout.millis int pos notnull
topology.min.replication.count num
topology.max.replication.wait.time.sec num
nimbus.code.sync.freq.secs int
client.jartransformer.class str =CLIENT_JAR_TRANSFORMER
storm.worker.disruptor.flusher.max.pool.size int
""")


_SCHEMA_2X = _parse_schema("""
topology.tuple.serializer str
topology.disable.loadaware.messaging bool notnull
topology.localityaware.higher.bound pos notnull
topology.localityaware.lower.bound pos notnull
topology.testing.always.try.serialize bool
topology.blobstore.map custom:MapOfStringToMapOfStringToObject
worker.log.level.reset.poll.secs int pos
task.credentials.poll.secs int pos
topology.backpressure.enable bool
topology.users str|strlist
topology.groups str|strlist
topology.readonly.users str|strlist
topology.readonly.groups str|strlist
topology.enable.message.timeouts bool
topology.debug bool
topology.version str
topology.multilang.log.handler str
topology.multilang.serializer str
topology.workers int pos
topology.tasks int pos0
topology.component.resources.map map:String:Number
topology.component.resources.onheap.memory.mb pos0
topology.component.resources.offheap.memory.mb pos0
topology.component.cpu.pcore.percent pos0
topology.acker.resources.onheap.memory.mb pos0
topology.acker.resources.offheap.memory.mb pos0
topology.acker.cpu.pcore.percent pos0
topology.metrics.consumer.resources.onheap.memory.mb pos0
topology.metrics.consumer.resources.offheap.memory.mb pos0
topology.metrics.consumer.cpu.pcore.percent pos0
topology.enable.v2.metrics.tick bool
topology.v2.metrics.tick.interval.seconds int pos
topology.enable.send.iconnection.metrics bool
topology.state.provider str
topology.state.provider.config str
topology.state.checkpoint.interval.ms int pos =TOPOLOGY_STATE_CHECKPOINT_INTERVAL
topology.worker.max.heap.size.mb pos
topology.scheduler.strategy notnull str
topology.ras.constraints oneof:ListOfListOfString+RasConstraintsType
topology.spread.components strlist
topology.ras.constraint.max.state.search int pos
topology.ras.one.executor.per.worker bool
topology.ras.one.component.per.worker bool
topology.ras.constraint.max.time.secs int pos
topology.scheduler.favored.nodes strlist
topology.scheduler.unfavored.nodes strlist
topology.acker.executors int pos0
topology.ras.acker.executors.per.worker int pos0
topology.event.logger.register list:EventLoggerRegistry
topology.eventlogger.executors int pos0
topology.eventlogger.rotation.size.mb int pos
topology.eventlogger.max.retained.files int pos
topology.message.timeout.secs int pos notnull
topology.kryo.register kryo
topology.kryo.decorators strlist
topology.kryo.factory str
topology.skip.missing.kryo.registrations bool
topology.state.kryo.register strlist
topology.metrics.consumer.register list:MetricRegistry
topology.serialized.message.size.metrics bool
topology.worker.metrics map:String:String
worker.metrics map:String:String
topology.max.task.parallelism int pos
topology.max.spout.pending int pos
topology.sleep.spout.wait.strategy.time.ms int pos0
topology.state.synchronization.timeout.secs int pos notnull
topology.stats.sample.rate pos
topology.builtin.metrics.bucket.size.secs int
topology.fall.back.on.java.serialization bool
topology.worker.childopts str|strlist
topology.worker.gc.childopts str|strlist
topology.worker.logwriter.childopts str|strlist
topology.classpath str|strlist
topology.classpath.beginning str|strlist
topology.environment map:String:String
topology.bolts.window.length.count int pos
topology.bolts.window.length.duration.ms int pos
topology.bolts.window.sliding.interval.count int pos =TOPOLOGY_BOLTS_SLIDING_INTERVAL_COUNT
topology.bolts.window.sliding.interval.duration.ms
    int pos =TOPOLOGY_BOLTS_SLIDING_INTERVAL_DURATION_MS
topology.bolts.late.tuple.stream str
topology.bolts.tuple.timestamp.max.lag.ms int pos
topology.bolts.watermark.event.interval.ms int pos
topology.bolts.message.id.field.name str
topology.transactional.id str
topology.auto.task.hooks strlist
topology.executor.receive.buffer.size pos int
topology.transfer.buffer.size pos int
topology.transfer.batch.size pos int
topology.tick.tuple.freq.secs int
topology.producer.batch.size int pos notnull
topology.executor.overflow.limit int pos0 notnull
topology.backpressure.check.millis int pos notnull
topology.batch.flush.interval.millis int pos0 notnull
topology.worker.shared.thread.pool.size int
topology.error.throttle.interval.secs int
topology.max.error.report.per.interval int pos
topology.trident.batch.emit.interval.millis int pos
topology.trident.windowing.cache.tuple.limit
    int pos =TOPOLOGY_TRIDENT_WINDOWING_INMEMORY_CACHE_LIMIT
storm.id str
topology.name str
topology.submitter.principal str
topology.submitter.user str
topology.auto-credentials strlist
topology.shellbolt.max.pending notnull int pos
topology.subprocess.timeout.secs int pos
topology.logging.sensitivity str:S0,S1,S2,S3
topology.logging.config str =TOPOLOGY_LOGGING_CONFIG_FILE
topology.priority int pos0
transactional.zookeeper.root str
transactional.zookeeper.servers strlist
transactional.zookeeper.port int pos
storm.doAsUser str =STORM_DO_AS_USER
topology.isolate.machines int pos =TOPOLOGY_ISOLATED_MACHINES
topology.spout.wait.strategy str
topology.spout.wait.park.microsec notnull pos0
topology.spout.wait.progressive.level1.count notnull int pos0
topology.spout.wait.progressive.level2.count notnull int pos0
topology.spout.wait.progressive.level3.sleep.millis notnull pos0
topology.bolt.wait.strategy str
topology.bolt.wait.park.microsec notnull pos0
topology.bolt.wait.progressive.level1.count notnull int pos0
topology.bolt.wait.progressive.level2.count notnull int pos0
topology.bolt.wait.progressive.level3.sleep.millis notnull pos0
topology.backpressure.wait.strategy str
topology.backpressure.wait.park.microsec notnull pos0
topology.backpressure.wait.progressive.level3.sleep.millis notnull pos0
topology.backpressure.wait.progressive.level1.count notnull int pos0
topology.backpressure.wait.progressive.level2.count notnull int pos0
topology.spout.recvq.skips int pos0 notnull
topology.min.replication.count num
topology.max.replication.wait.time.sec num
pacemaker.servers strlist
pacemaker.port num pos
pacemaker.client.max.threads num pos
pacemaker.auth.method custom:PacemakerAuthType
pacemaker.thrift.message.size.max int pos
storm.group.mapping.service.cache.duration.secs int
drpc.servers strlist
drpc.invocations.port int pos
storm.nimbus.retry.times num
storm.nimbus.retry.interval.millis num =STORM_NIMBUS_RETRY_INTERVAL
storm.nimbus.retry.intervalceiling.millis num =STORM_NIMBUS_RETRY_INTERVAL_CEILING
nimbus.thrift.transport str =NIMBUS_THRIFT_TRANSPORT_PLUGIN
nimbus.thrift.port int pos
nimbus.queue.size int pos
nimbus.local.assignments.backend.class str impl:ILocalAssignmentsBackend
nimbus.thrift.threads int pos
nimbus.thrift.max_buffer_size int pos
storm.thrift.socket.timeout.ms int
nimbus.thrift.tls.port int pos0
nimbus.thrift.tls.transport str =NIMBUS_THRIFT_TLS_TRANSPORT_PLUGIN
nimbus.thrift.tls.client.auth.required bool
nimbus.thrift.tls.server.keystore.path str
nimbus.thrift.tls.server.keystore.password str
nimbus.thrift.tls.server.only bool
nimbus.thrift.tls.server.truststore.path str
nimbus.thrift.tls.server.truststore.password str
nimbus.thrift.tls.client.keystore.path str
nimbus.thrift.tls.client.keystore.password str
nimbus.thrift.tls.client.key.path str
nimbus.thrift.tls.client.cert.path str
nimbus.thrift.tls.client.truststore.path str
nimbus.thrift.tls.client.truststore.password str
nimbus.thrift.tls.threads int pos
nimbus.thrift.tls.max_buffer_size int pos
storm.thrift.tls.socket.timeout.ms int
topology.worker.nimbus.thrift.client.use.tls bool
nimbus.thrift.client.use.tls bool
supervisor.thrift.tls.client.auth.required bool
supervisor.thrift.tls.server.keystore.path str
supervisor.thrift.tls.server.keystore.password str
supervisor.thrift.tls.server.truststore.path str
supervisor.thrift.tls.server.truststore.password str
supervisor.thrift.tls.client.keystore.path str
supervisor.thrift.tls.client.keystore.password str
supervisor.thrift.tls.client.truststore.path str
supervisor.thrift.tls.client.truststore.password str
supervisor.thrift.tls.client.key.path str
supervisor.thrift.tls.client.cert.path str
supervisor.thrift.client.use.tls bool
drpc.thrift.transport str =DRPC_THRIFT_TRANSPORT_PLUGIN
drpc.port int pos
drpc.queue.size int pos
drpc.worker.threads int pos
drpc.max_buffer_size num pos
drpc.invocations.thrift.transport str =DRPC_INVOCATIONS_THRIFT_TRANSPORT_PLUGIN
drpc.invocations.threads int pos
storm.group.mapping.service.params type:Map
storm.thrift.transport str =STORM_THRIFT_TRANSPORT_PLUGIN
supervisor.worker.timeout.secs int pos notnull
worker.max.timeout.secs int pos notnull
topology.worker.timeout.secs int pos notnull
supervisor.worker.shutdown.sleep.secs int pos
storm.zookeeper.servers strlist
storm.zookeeper.port int pos
storm.zookeeper.superACL str
storm.zookeeper.drpcACL str =STORM_ZOOKEEPER_DRPC_ACL
storm.zookeeper.topology.auth.scheme str
storm.zookeeper.ssl.enable bool =ZK_SSL_ENABLE
storm.zookeeper.ssl.keystore.path str
storm.zookeeper.ssl.keystore.password str
storm.zookeeper.ssl.truststore.path str
storm.zookeeper.ssl.truststore.password str
storm.zookeeper.ssl.hostnameVerification bool =STORM_ZOOKEEPER_SSL_HOSTNAME_VERIFICATION
storm.meta.serialization.delegate str
topology.metrics.reporters list:MetricReporters
storm.topology.metrics.system.reporters list:MetricReporters
storm.metrics.reporters list:MetricReporters
client.blobstore.class str =CLIENT_BLOBSTORE
blobstore.dir str
blobstore.cleanup.enable bool
blobstore.hdfs.principal str
blobstore.hdfs.keytab str
storm.blobstore.replication.factor pos int
storm.hdfs.login.principal str
storm.hdfs.login.keytab str
storm.local.hostname str
nimbus.seeds strlist
nimbus.users strlist
nimbus.groups strlist
storm.cluster.mode str
storm.zookeeper.root str
storm.zookeeper.topology.auth.payload str notnull
storm.zookeeper.auth.scheme str
storm.zookeeper.auth.payload str
storm.network.topography.plugin notnull impl:DNSToSwitchMapping
worker.gc.childopts str|strlist
worker.childopts str|strlist
worker.heap.memory.mb int pos
supervisor.memory.capacity.mb pos
supervisor.cpu.capacity pos
supervisor.thrift.port int pos
supervisor.thrift.transport str =SUPERVISOR_THRIFT_TRANSPORT_PLUGIN
supervisor.queue.size int pos
supervisor.thrift.threads int pos
supervisor.thrift.max_buffer_size num pos
supervisor.thrift.socket.timeout.ms int
supervisor.resources.map map:String:Number
storm.local.mode.zmq bool
storm.messaging.transport str
storm.messaging.netty.authentication bool
storm.messaging.netty.buffer_size int pos
storm.messaging.netty.buffer.high.watermark int pos
storm.messaging.netty.buffer.low.watermark int pos
storm.messaging.netty.socket.backlog int pos
storm.messaging.netty.server_worker_threads int pos0
storm.messaging.netty.transfer.batch.size int =STORM_NETTY_MESSAGE_BATCH_SIZE
storm.messaging.netty.min_wait_ms int pos0 =STORM_MESSAGING_NETTY_MIN_SLEEP_MS
storm.messaging.netty.max_wait_ms int pos0 =STORM_MESSAGING_NETTY_MAX_SLEEP_MS
storm.messaging.netty.client_worker_threads int
storm.messaging.netty.tls.enable bool
storm.messaging.netty.tls.require.open.ssl bool
storm.messaging.netty.tls.ciphers str|strlist
storm.messaging.netty.tls.truststore.path str
storm.messaging.netty.tls.truststore.password str
storm.messaging.netty.tls.keystore.path str
storm.messaging.netty.tls.keystore.password str
storm.messaging.netty.tls.client.truststore.path str
storm.messaging.netty.tls.client.truststore.password str
storm.messaging.netty.tls.client.keystore.path str
storm.messaging.netty.tls.client.keystore.password str
storm.messaging.netty.tls.ssl.protocols str
storm.messaging.netty.flush_timeout_ms long pos
supervisor.run.worker.as.user bool
supervisor.worker.heartbeats.max.timeout.secs int
storm.disable.symlinks bool =DISABLE_SYMLINKS
storm.principal.tolocal str =STORM_PRINCIPAL_TO_LOCAL_PLUGIN
storm.group.mapping.service str =STORM_GROUP_MAPPING_SERVICE_PROVIDER_PLUGIN
nimbus.credential.renewers.classes strlist =NIMBUS_CREDENTIAL_RENEWERS
nimbus.autocredential.plugins.classes strlist =NIMBUS_AUTO_CRED_PLUGINS
nimbus.supervisor.users strlist
nimbus.daemon.users strlist
nimbus.admins strlist
nimbus.admins.groups strlist
storm.blobstore.acl.validation.enabled bool
storm.blobstore.inputstream.buffer.size.bytes pos int
storm.blobstore.dependency.jar.upload.chunk.size.bytes pos int
storm.topology.submission.notifier.plugin.class str =STORM_TOPOLOGY_SUBMISSION_NOTIFIER_PLUGIN
nimbus.impersonation.acl mapc:String:ImpersonationAclUserEntry
nimbus.scheduler.strategy.class.whitelist strlist
supervisor.worker.launcher str
supervisor.worker.version.classpath.map map:String:String
supervisor.worker.version.main.map map:String:String
supervisor.worker.version.logwriter.map map:String:String
supervisor.worker.default.version str
storm.local.dir str
storm.workers.artifacts.dir str
storm.zookeeper.connection.timeout int
storm.zookeeper.session.timeout int
storm.zookeeper.retry.interval int
storm.zookeeper.retry.intervalceiling.millis int =STORM_ZOOKEEPER_RETRY_INTERVAL_CEILING
storm.zookeeper.retry.times int
storm.cluster.state.store str
worker.heartbeat.frequency.secs int pos
executor.metrics.frequency.secs int pos
task.heartbeat.frequency.secs int pos
task.refresh.poll.secs int pos
drpc.authorizer.acl type:Map
drpc.authorizer.acl.filename str
drpc.authorizer.acl.strict bool
storm.cgroup.hierarchy.dir str
num.stat.buckets int pos
worker.blob.update.poll.interval.secs int pos
storm.daemon.metrics.reporter.plugin.locale str
storm.daemon.metrics.reporter.plugin.rate.unit str
storm.daemon.metrics.reporter.plugin.duration.unit str
""")
