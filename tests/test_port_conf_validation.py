"""The submitted topology conf's parsing and validation (clojure_port.conf_validation).

The validation messages below are what Storm 1.2.4's and 2.8.8's ConfigValidation say for the
same submitted confs.
"""
# test-case-name: tests.test_port_conf_validation

import pytest

from pynimbus.clojure_port.conf_validation import (
    TopologyConfError, parse_json_conf, validate_topology_conf)
from pynimbus.generated.storm.ttypes import ComponentObject, InvalidTopologyException


OBJ = ComponentObject(serialized_java=b"\x01")

VALIDATION_CASES = [
    ('{"topology.isolate.machines": "2"}',
     'Field TOPOLOGY_ISOLATED_MACHINES must be an Integer within type range.',
     'Field TOPOLOGY_ISOLATED_MACHINES must be an Integer within type range.'),
    ('{"topology.workers": 0}',
     'Field TOPOLOGY_WORKERS must be a Positive Number',
     'Field TOPOLOGY_WORKERS must be a Positive Number'),
    ('{"topology.workers": 2.0}',
     None,
     None),
    ('{"topology.workers": 2.5}',
     'Field TOPOLOGY_WORKERS must be an Integer within type range.',
     'Field TOPOLOGY_WORKERS must be an Integer within type range.'),
    ('{"topology.workers": 3000000000}',
     'Field TOPOLOGY_WORKERS must be an Integer within type range.',
     'Field TOPOLOGY_WORKERS must be an Integer within type range.'),
    ('{"topology.workers": true}',
     'Field TOPOLOGY_WORKERS must be an Integer within type range.',
     'Field TOPOLOGY_WORKERS must be an Integer within type range.'),
    ('{"topology.name": 5}',
     'Field TOPOLOGY_NAME must be of type class java.lang.String. Object: 5 actual'
     ' type: class java.lang.Long',
     'Field TOPOLOGY_NAME must be of type class java.lang.String. Object: 5 actual'
     ' type: class java.lang.Integer'),
    ('{"topology.name": [1, "a/b", null, 2.5, {"x": "y"}]}',
     'Field TOPOLOGY_NAME must be of type class java.lang.String. Object: [1 "a/b"'
     ' nil 2.5 {"x" "y"}] actual type: class clojure.lang.PersistentVector',
     'Field TOPOLOGY_NAME must be of type class java.lang.String. Object:'
     ' [1,"a\\/b",null,2.5,{"x":"y"}] actual type: class net.minidev.json.JSONArray'),
    ('{"topology.debug": "true"}',
     'Field TOPOLOGY_DEBUG must be of type class java.lang.Boolean. Object: true'
     ' actual type: class java.lang.String',
     'Field TOPOLOGY_DEBUG must be of type class java.lang.Boolean. Object: true'
     ' actual type: class java.lang.String'),
    ('{"topology.kryo.decorators": [1]}',
     'nullEach element of the list TOPOLOGY_KRYO_DECORATORS must be a'
     ' java.lang.String. (1)',
     'nullEach element of the list TOPOLOGY_KRYO_DECORATORS must be a'
     ' java.lang.String. (1)'),
    ('{"topology.kryo.decorators": {"a": 1}}',
     'nullEach element of the list TOPOLOGY_KRYO_DECORATORS must be a'
     ' java.lang.String. (["a" 1])',
     'Field TOPOLOGY_KRYO_DECORATORS must be an Iterable but was a class'
     ' net.minidev.json.JSONObject'),
    ('{"topology.kryo.decorators": {}}',
     None,
     'Field TOPOLOGY_KRYO_DECORATORS must be an Iterable but was a class'
     ' net.minidev.json.JSONObject'),
    ('{"topology.kryo.decorators": "x"}',
     'Field TOPOLOGY_KRYO_DECORATORS must be an Iterable but was a class'
     ' java.lang.String',
     'Field TOPOLOGY_KRYO_DECORATORS must be an Iterable but was a class'
     ' java.lang.String'),
    ('{"topology.kryo.register": [1]}',
     'Each element of the list TOPOLOGY_KRYO_REGISTER must be a String or a Map of'
     ' Strings',
     'Each element of the list TOPOLOGY_KRYO_REGISTER must be a String or a Map of'
     ' Strings'),
    ('{"topology.kryo.register": [{"a": 1}]}',
     'Each element of the list TOPOLOGY_KRYO_REGISTER must be a String or a Map of'
     ' Strings',
     'Each element of the list TOPOLOGY_KRYO_REGISTER must be a String or a Map of'
     ' Strings'),
    ('{"topology.kryo.register": "x"}',
     'Field TOPOLOGY_KRYO_REGISTER must be an Iterable containing only Strings or'
     ' Maps of Strings',
     'Field TOPOLOGY_KRYO_REGISTER must be an Iterable containing only Strings or'
     ' Maps of Strings'),
    ('{"topology.kryo.register": ["a", {"b": "c"}]}',
     None,
     None),
    ('{"topology.users": "bob"}',
     'Field TOPOLOGY_USERS must be an Iterable but was a class java.lang.String',
     None),
    ('{"topology.users": ["bob", 1]}',
     'nullEach element of the list TOPOLOGY_USERS must be a java.lang.String. (1)',
     'nullEach element of the list TOPOLOGY_USERS must be a java.lang.String. (1)'),
    ('{"topology.logging.sensitivity": "S9"}',
     'Field TOPOLOGY_LOGGING_SENSITIVITY is not an accepted value. Value: S9'
     ' Accepted values: [S3, S0, S1, S2]',
     'Field TOPOLOGY_LOGGING_SENSITIVITY is not an accepted value. Value: S9'
     ' Accepted values: [S3, S0, S1, S2]'),
    ('{"topology.metrics.consumer.register": [{"class": "x"}]}',
     'Field TOPOLOGY_METRICS_CONSUMER_REGISTER list entry must have map entry with'
     ' key: parallelism.hint',
     'Field TOPOLOGY_METRICS_CONSUMER_REGISTER list entry must have map entry with'
     ' key: parallelism.hint'),
    ('{"topology.metrics.consumer.register": [{"parallelism.hint": 1}]}',
     'Field TOPOLOGY_METRICS_CONSUMER_REGISTER list entry must have map entry with'
     ' key: class',
     'Field TOPOLOGY_METRICS_CONSUMER_REGISTER list entry must have map entry with'
     ' key: class'),
    ('{"topology.metrics.consumer.register": [{"class": 1, "parallelism.hint": 1}]}',
     'Field TOPOLOGY_METRICS_CONSUMER_REGISTER list entry must be of type class'
     ' java.lang.String. Object: 1 actual type: class java.lang.Long',
     'Field TOPOLOGY_METRICS_CONSUMER_REGISTER list entry must be of type class'
     ' java.lang.String. Object: 1 actual type: class java.lang.Integer'),
    ('{"topology.metrics.consumer.register": [{"class": "x", "parallelism.hint":'
     ' 1.5}]}',
     'Field TOPOLOGY_METRICS_CONSUMER_REGISTER list entry must be an Integer within'
     ' type range.',
     'Field TOPOLOGY_METRICS_CONSUMER_REGISTER list entry must be an Integer within'
     ' type range.'),
    ('{"topology.metrics.consumer.register": ["x"]}',
     'Field TOPOLOGY_METRICS_CONSUMER_REGISTER list entry must be of type interface'
     ' java.util.Map. Object: x actual type: class java.lang.String',
     'Field TOPOLOGY_METRICS_CONSUMER_REGISTER list entry must be of type interface'
     ' java.util.Map. Object: x actual type: class java.lang.String'),
    ('{"topology.metrics.consumer.register": {"class": "x"}}',
     'Field TOPOLOGY_METRICS_CONSUMER_REGISTER list entry must be of type interface'
     ' java.util.Map. Object: ["class" "x"] actual type: class clojure.lang.MapEntry',
     'Field TOPOLOGY_METRICS_CONSUMER_REGISTER must be of type interface'
     ' java.lang.Iterable. Object: {"class":"x"} actual type: class'
     ' net.minidev.json.JSONObject'),
    ('{"topology.metrics.consumer.register": 5}',
     'Field TOPOLOGY_METRICS_CONSUMER_REGISTER must be of type interface'
     ' java.lang.Iterable. Object: 5 actual type: class java.lang.Long',
     'Field TOPOLOGY_METRICS_CONSUMER_REGISTER must be of type interface'
     ' java.lang.Iterable. Object: 5 actual type: class java.lang.Integer'),
    ('{"storm.zookeeper.topology.auth.payload": null}',
     'Field STORM_ZOOKEEPER_TOPOLOGY_AUTH_PAYLOADcannot be null! Actual value: null',
     'Field STORM_ZOOKEEPER_TOPOLOGY_AUTH_PAYLOADcannot be null! Actual value: null'),
    ('{"topology.message.timeout.secs": null}',
     'Field TOPOLOGY_MESSAGE_TIMEOUT_SECScannot be null! Actual value: null',
     'Field TOPOLOGY_MESSAGE_TIMEOUT_SECScannot be null! Actual value: null'),
    ('{"topology.environment": {"a": 1}}',
     'Each value in the map TOPOLOGY_ENVIRONMENT must be a java.lang.String. (1)',
     'Each value in the map TOPOLOGY_ENVIRONMENT must be a java.lang.String. (1)'),
    ('{"topology.environment": [1]}',
     'Field TOPOLOGY_ENVIRONMENT must be a Map',
     'Field TOPOLOGY_ENVIRONMENT must be a Map'),
    ('{"topology.blobstore.map": null}',
     'Field TOPOLOGY_BLOBSTORE_MAP must not be null',
     'Field TOPOLOGY_BLOBSTORE_MAP must not be null'),
    ('{"topology.blobstore.map": {"k": 1}}',
     'Field TOPOLOGY_BLOBSTORE_MAP must be a Map',
     'Field TOPOLOGY_BLOBSTORE_MAP must be a Map'),
    ('{"topology.blobstore.map": {"k": null}}',
     'Field TOPOLOGY_BLOBSTORE_MAP must not be null',
     'Field TOPOLOGY_BLOBSTORE_MAP must not be null'),
    ('{"topology.blobstore.map": {"k": {"a": 1}}}',
     None,
     None),
    ('{"topology.executor.receive.buffer.size": 1000}',
     'Field TOPOLOGY_EXECUTOR_RECEIVE_BUFFER_SIZE must be a power of 2.',
     None),
    ('{"topology.executor.receive.buffer.size": 1024}',
     None,
     None),
    ('{"topology.max.spout.pending": -1}',
     'Field TOPOLOGY_MAX_SPOUT_PENDING must be a Positive Number',
     'Field TOPOLOGY_MAX_SPOUT_PENDING must be a Positive Number'),
    ('{"topology.worker.max.heap.size.mb": "x"}',
     'Field TOPOLOGY_WORKER_MAX_HEAP_SIZE_MB must be a Positive Number',
     'Field TOPOLOGY_WORKER_MAX_HEAP_SIZE_MB must be a Positive Number'),
    ('{"topology.worker.childopts": 5}',
     'Field TOPOLOGY_WORKER_CHILDOPTS must be an Iterable but was a class'
     ' java.lang.Long',
     'Field TOPOLOGY_WORKER_CHILDOPTS must be an Iterable but was a class'
     ' java.lang.Integer'),
    ('{"topology.worker.childopts": ["a", 5]}',
     'nullEach element of the list TOPOLOGY_WORKER_CHILDOPTS must be a'
     ' java.lang.String. (5)',
     'nullEach element of the list TOPOLOGY_WORKER_CHILDOPTS must be a'
     ' java.lang.String. (5)'),
    ('{"topology.tasks": -1, "topology.workers": "x"}',
     'Field TOPOLOGY_WORKERS must be an Integer within type range.',
     'Field TOPOLOGY_WORKERS must be an Integer within type range.'),
    ('{"topology.workers": "x", "topology.tasks": -1}',
     'Field TOPOLOGY_WORKERS must be an Integer within type range.',
     'Field TOPOLOGY_WORKERS must be an Integer within type range.'),
    ('{"topology.stats.sample.rate": 0}',
     'Field TOPOLOGY_STATS_SAMPLE_RATE must be a Positive Number',
     'Field TOPOLOGY_STATS_SAMPLE_RATE must be a Positive Number'),
    ('{"supervisor.slots.ports": [6700, 6700]}',
     'SUPERVISOR_SLOTS_PORTS should contain no duplicate elements. Duplicated'
     ' element: 6700',
     None),
    ('{"supervisor.slots.ports": [6700, -1]}',
     'Field SUPERVISOR_SLOTS_PORTS list entry must be a Positive Number',
     None),
    ('{"nimbus.impersonation.acl": {"u": {"hosts": ["h"]}}}',
     'NIMBUS_IMPERSONATION_ACL Map value should contain Map entry with key: groups',
     'NIMBUS_IMPERSONATION_ACL Map value should contain Map entry with key: groups'),
    ('{"resource.aware.scheduler.user.pools": {"u": {"cpu": 1}}}',
     'Field RESOURCE_AWARE_SCHEDULER_USER_POOLS Map value must have map entry with'
     ' key: memory',
     None),
    ('{"pacemaker.auth.method": "X"}',
     'Field PACEMAKER_AUTH_METHOD must be one of "NONE", "DIGEST", or "KERBEROS"',
     'Field PACEMAKER_AUTH_METHOD must be one of "NONE", "DIGEST", or "KERBEROS"'),
    ('{"topology.event.logger.register": [{"class": "x", "arguments": 1}]}',
     'Field TOPOLOGY_EVENT_LOGGER_REGISTER list entry must be of type interface'
     ' java.util.Map. Object: 1 actual type: class java.lang.Long',
     'Field TOPOLOGY_EVENT_LOGGER_REGISTER list entry must be of type interface'
     ' java.util.Map. Object: 1 actual type: class java.lang.Integer'),
    ('{"storm.metrics.reporters": [{"class": "x"}]}',
     'Field STORM_METRICS_REPORTERS list entry must have map entry with key: daemons',
     None),
    ('{"storm.metrics.reporters": [{"class": "x", "daemons": ["nimbus", "bad"]}]}',
     'Field \'daemons\' must contain at least one of the following: "nimbus",'
     ' "supervisor", or "worker"',
     None),
    ('{"storm.metrics.reporters": [{"class": "x", "daemons": "nimbus"}]}',
     "Field 'daemons' must be a non-null list.",
     None),
    ('{"storm.metrics.reporters": [{"class": "x", "daemons": ["worker"], "filter":'
     ' {"class": 1}}]}',
     'Field class must be of type class java.lang.String. Object: 1 actual type:'
     ' class java.lang.Long',
     'Field class must be of type class java.lang.String. Object: 1 actual type:'
     ' class java.lang.Integer'),
    ('{"topology.spread.components": ["a", {"b": 1}]}',
     'nullEach element of the list TOPOLOGY_SPREAD_COMPONENTS must be a'
     ' java.lang.String. ({"b" 1})',
     'nullEach element of the list TOPOLOGY_SPREAD_COMPONENTS must be a'
     ' java.lang.String. ({"b":1})'),
    ('{"ui.filter.params": {"a": "b", "c": 1, "d": 2, "e": 3, "f": 4, "g": 5, "h":'
     ' 6, "i": 7, "j": 8}}',
     'Each value in the map UI_FILTER_PARAMS must be a java.lang.String. (2)',
     None),
    ('{"topology.logging.sensitivity": 5}',
     'Field TOPOLOGY_LOGGING_SENSITIVITY must be of type class java.lang.String.'
     ' Object: 5 actual type: class java.lang.Long',
     'Field TOPOLOGY_LOGGING_SENSITIVITY must be of type class java.lang.String.'
     ' Object: 5 actual type: class java.lang.Integer'),
    ('{"topology.environment": {"k1": 1, "k2": "x"}}',
     'Each value in the map TOPOLOGY_ENVIRONMENT must be a java.lang.String. (1)',
     'Each value in the map TOPOLOGY_ENVIRONMENT must be a java.lang.String. (1)'),
]


@pytest.mark.parametrize("compat", ["1.x", "2.x"])
@pytest.mark.parametrize("json_conf,message_1x,message_2x", VALIDATION_CASES)
def test_validation_says_what_storm_says(json_conf, message_1x, message_2x, compat):
    """Each submitted conf is accepted or refused with the generation's exact message."""
    expected = message_1x if compat == "1.x" else message_2x
    topology_conf = parse_json_conf(json_conf, compat)
    if expected is None:
        validate_topology_conf(topology_conf, compat)
    else:
        with pytest.raises(InvalidTopologyException) as info:
            validate_topology_conf(topology_conf, compat)
        assert info.value.msg == expected


def test_bad_isolate_machines_is_refused():
    """nimbus_test test-validate-topo-config-on-submit: a string machine count is refused."""
    with pytest.raises(InvalidTopologyException) as info:
        validate_topology_conf({"topology.isolate.machines": "2"}, "1.x")
    assert info.value.msg == (
        "Field TOPOLOGY_ISOLATED_MACHINES must be an Integer within type range.")


@pytest.mark.parametrize("compat", ["1.x", "2.x"])
def test_unknown_keys_and_the_pynimbus_compat_key_are_not_validated(compat):
    """Keys Storm's Config does not declare are accepted whatever their value (the same value
    under a declared key is refused)."""
    assert validate_topology_conf({"my.key": [1, {"a": None}], "pynimbus.storm.compat": 5},
                                  compat) is None
    with pytest.raises(InvalidTopologyException):
        validate_topology_conf({"topology.workers": [1, {"a": None}]}, compat)


def test_class_valued_keys_only_need_a_string():
    """pynimbus cannot load classes, so an implementation-of-class key only needs a string."""
    validate_topology_conf({"topology.scheduler.strategy": "no.such.Class"}, "1.x")
    with pytest.raises(InvalidTopologyException):
        validate_topology_conf({"topology.scheduler.strategy": None}, "1.x")


def test_parse_returns_the_object_in_document_order():
    """A JSON object comes back as a dict with its keys in document order."""
    assert list(parse_json_conf('{"z": 1, "a": [1, 2.5, null]}')) == ["z", "a"]
    assert parse_json_conf(b'{"a": true}') == {"a": True}


@pytest.mark.parametrize("text", [None, "", "{", "[1, 2]", "5", "null", '"x"', "{'a': 1}",
                                  '{"a": NaN}'])
def test_unparseable_or_non_object_conf_is_an_internal_error(text):
    """Storm fails such a jsonConf with an undeclared exception; pynimbus raises a ValueError."""
    with pytest.raises(TopologyConfError):
        parse_json_conf(text)


def test_1x_cannot_read_an_integer_beyond_a_long():
    """json-simple reads integers as Long, so 2**63 is unreadable in 1.x but fine in 2.x."""
    with pytest.raises(TopologyConfError):
        parse_json_conf('{"a": 9223372036854775808}', "1.x")
    assert parse_json_conf('{"a": 9223372036854775808}', "2.x") == {"a": 2 ** 63}
