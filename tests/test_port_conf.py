"""The topology conf at submission (clojure_port.conf): parse, validate, normalize, submitter.

The validation messages below are what Storm 1.2.4's and 2.8.8's ConfigValidation say for the
same submitted confs; the normalize-conf orders were checked against Storm's own functions.
"""
# test-case-name: tests.test_port_conf

import copy

import pytest

from pynimbus.clojure_port.conf import get_int
from pynimbus.clojure_port.conf_validation import (
    TopologyConfError, parse_json_conf, validate_topology_conf)
from pynimbus.clojure_port.java_hash_map import java_hashmap_order, string_hash as java_string_hash
from pynimbus.clojure_port.java_json import java_double_to_string, to_json
from pynimbus.clojure_port.java_order import clojure_map_order
from pynimbus.clojure_port.normalize_conf import normalize_conf
from pynimbus.clojure_port.submitter import launch_user, submitter_fields
from pynimbus.common.config import default_config
from pynimbus.generated.storm.ttypes import (
    Bolt, ComponentCommon, ComponentObject, InvalidTopologyException, SpoutSpec, StormTopology)

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


def component(json_conf):
    return ComponentCommon(inputs={}, streams={}, json_conf=json_conf)


def kryo_topology():
    return StormTopology(
        spouts={"s1": SpoutSpec(OBJ, component(
                    '{"topology.kryo.register":["a.B",{"c.D":"c.DSer"}],'
                    '"topology.kryo.decorators":["dec1","dec2"]}')),
                "s2": SpoutSpec(OBJ, component(
                    '{"topology.kryo.register":["e.F"],'
                    '"topology.kryo.decorators":["dec2","dec3"]}'))},
        bolts={"b1": Bolt(OBJ, component(
            '{"topology.kryo.register":[{"g.H":"g.HSer","i.J":"i.JSer"}]}'))},
        state_spouts={})


def empty_topology():
    return StormTopology(spouts={}, bolts={}, state_spouts={})


SUBMITTED = {"topology.kryo.register": ["z.Z", "a.B"], "storm.id": "x-1-2",
             "topology.name": "x"}


def test_1x_merges_kryo_registrations_in_clojure_order():
    """1.x merges every component's registrations and the topology's into one map."""
    ret = normalize_conf(default_config(), dict(SUBMITTED), kryo_topology(), "1.x")
    assert to_json(ret["topology.kryo.register"]) == (
        '{"a.B":null,"c.D":"c.DSer","e.F":null,"g.H":"g.HSer","i.J":"i.JSer","z.Z":null}')
    assert ret["topology.kryo.decorators"] == ["dec1", "dec2", "dec3"]


def test_2x_merges_kryo_registrations_into_a_hashmap():
    """2.x builds the registrations as a HashMap, so they come in hash order."""
    ret = normalize_conf(default_config(), dict(SUBMITTED), kryo_topology(), "2.x")
    assert to_json(ret["topology.kryo.register"]) == (
        '{"g.H":"g.HSer","a.B":null,"i.J":"i.JSer","z.Z":null,"c.D":"c.DSer","e.F":null}')
    assert ret["topology.kryo.decorators"] == ["dec1", "dec2", "dec3"]


def test_empty_kryo_register_is_null_in_1x_and_empty_in_2x():
    """With nothing registered 1.x writes null and 2.x {}; decorators are [] in both."""
    one = normalize_conf(default_config(), {"storm.id": "x"}, empty_topology(), "1.x")
    two = normalize_conf(default_config(), {"storm.id": "x"}, empty_topology(), "2.x")
    assert one["topology.kryo.register"] is None and two["topology.kryo.register"] == {}
    assert one["topology.kryo.decorators"] == [] == two["topology.kryo.decorators"]


def test_1x_falls_back_to_nimbus_lists_when_the_topology_has_none():
    """The topology's own list wins over nimbus's; nimbus's is used when the topology's is
    missing."""
    nimbus = dict(default_config(), **{"topology.kryo.decorators": ["n.Dec"]})
    assert normalize_conf(nimbus, {}, empty_topology(), "1.x")[
        "topology.kryo.decorators"] == ["n.Dec"]
    assert normalize_conf(nimbus, {"topology.kryo.decorators": ["t.Dec"]},
                                    empty_topology(), "1.x")["topology.kryo.decorators"] == [
        "t.Dec"]


@pytest.mark.parametrize("compat", ["1.x", "2.x"])
def test_executor_counts_come_from_the_merged_conf(compat):
    """Acker, eventlogger and max parallelism are the topology's values, else nimbus's."""
    ret = normalize_conf(default_config(), {"topology.acker.executors": 3},
                                   empty_topology(), compat)
    assert (ret["topology.acker.executors"], ret["topology.eventlogger.executors"],
            ret["topology.max.task.parallelism"]) == (3, 0, None)


@pytest.mark.parametrize("compat", ["1.x", "2.x"])
def test_normalize_conf_leaves_its_arguments_alone(compat):
    """The topology conf, nimbus conf and topology passed in are not modified."""
    nimbus, submitted, topology = default_config(), dict(SUBMITTED), kryo_topology()
    copies = copy.deepcopy((nimbus, submitted, topology))
    normalize_conf(nimbus, submitted, topology, compat)
    assert (nimbus, submitted, topology) == copies


def test_2x_forces_cluster_settings():
    """2.x drops the artifacts dir, ORs netty auth and TLS, and forces cgroup and metrics."""
    nimbus = dict(default_config(), **{
        "storm.messaging.netty.authentication": False,
        "storm.cgroup.hierarchy.dir": "/cg", "worker.metrics": {"m": "c"},
        "storm.metrics.reporters": [{"class": "R"}],
        "storm.topology.metrics.system.reporters": [{"class": "S"}]})
    ret = normalize_conf(nimbus, {
        "storm.workers.artifacts.dir": "/x", "storm.messaging.netty.authentication": True,
        "storm.cgroup.hierarchy.dir": "/mine", "topology.worker.timeout.secs": 900},
        empty_topology(), "2.x")
    assert "storm.workers.artifacts.dir" not in ret
    assert ret["storm.messaging.netty.authentication"] is True
    assert ret["topology.worker.nimbus.thrift.client.use.tls"] is False
    assert ret["nimbus.thrift.client.use.tls"] is False
    assert ret["storm.cgroup.hierarchy.dir"] == "/cg"
    assert ret["worker.metrics"] == {"m": "c"}
    assert ret["topology.metrics.reporters"] == [{"class": "R"}, {"class": "S"}]
    assert ret["topology.worker.timeout.secs"] == 600
    assert nimbus["storm.metrics.reporters"] == [{"class": "R"}]


def test_1x_adds_none_of_the_2x_cluster_settings():
    """1.x keeps the artifacts dir and adds no TLS or cgroup keys."""
    ret = normalize_conf(default_config(), {"storm.workers.artifacts.dir": "/x"},
                                   empty_topology(), "1.x")
    assert ret["storm.workers.artifacts.dir"] == "/x"
    assert "nimbus.thrift.client.use.tls" not in ret


def test_1x_submitter_without_authentication():
    """No principal: empty principal, the OS user as submitter, no users, nimbus's superACL."""
    nimbus = dict(default_config(), **{"storm.zookeeper.superACL": "sasl:nimbus"})
    ret = submitter_fields({"storm.id": "x"}, nimbus, principal=None, os_user="storm",
                                     compat="1.x")
    assert ret["topology.submitter.principal"] == ""
    assert ret["topology.submitter.user"] == "storm"
    assert ret["topology.users"] == []
    assert ret["storm.zookeeper.superACL"] == "sasl:nimbus"


def test_1x_submitter_with_a_principal_and_listed_users():
    """The principal and its local user join the listed users, without repeats or nulls."""
    ret = submitter_fields({"topology.users": ["ann", None, "bob"]}, default_config(),
                                     principal="bob@REALM", os_user="storm", compat="1.x",
                                     local_user="bob")
    assert ret["topology.submitter.principal"] == "bob@REALM"
    assert ret["topology.submitter.user"] == "bob"
    assert ret["topology.users"] == ["ann", "bob", "bob@REALM"]


def test_1x_users_without_a_list_put_the_local_user_first():
    """With no topology.users, 1.x conj's onto nil: local user, then principal."""
    ret = submitter_fields({}, default_config(), principal="bob@REALM",
                                     os_user="storm", compat="1.x", local_user="bob")
    assert ret["topology.users"] == ["bob", "bob@REALM"]


def test_2x_submitter_without_authentication_lists_null_as_a_user():
    """2.x adds the null principal to a HashSet, so topology.users is [null]."""
    ret = submitter_fields({}, default_config(), principal=None, os_user="storm",
                                     compat="2.x")
    assert ret["topology.users"] == [None]
    assert ret["topology.submitter.principal"] == ""
    assert ret["topology.submitter.user"] == "storm"


def test_2x_submitter_principal_is_the_local_user():
    """2.x stores the principal's local name as topology.submitter.principal."""
    ret = submitter_fields({"topology.users": "ann"}, default_config(),
                                     principal="bob@REALM", os_user="storm", compat="2.x",
                                     local_user="bob")
    assert ret["topology.submitter.principal"] == "bob"
    assert sorted(ret["topology.users"]) == ["ann", "bob"]


@pytest.mark.parametrize("compat", ["1.x", "2.x"])
def test_zookeeper_topology_auth_is_dropped_without_zookeeper_auth_on_nimbus(compat):
    """The topology's ZooKeeper auth keys are removed unless nimbus uses ZooKeeper auth."""
    submitted = {"storm.zookeeper.topology.auth.scheme": "digest",
                 "storm.zookeeper.topology.auth.payload": "u:p"}
    dropped = submitter_fields(submitted, default_config(), compat=compat)
    kept = submitter_fields(
        submitted, dict(default_config(), **{"storm.zookeeper.auth.scheme": "digest"}),
        compat=compat)
    jaas = submitter_fields(submitted, default_config(), compat=compat,
                                      jaas_login_configured=True)
    assert "storm.zookeeper.topology.auth.scheme" not in dropped
    assert kept["storm.zookeeper.topology.auth.payload"] == "u:p"
    assert jaas["storm.zookeeper.topology.auth.scheme"] == "digest"


def test_2x_drops_the_classpath_beginning_unless_enabled():
    """2.x removes topology.classpath.beginning unless nimbus enables it; 1.x keeps it."""
    submitted = {"topology.classpath.beginning": "/x.jar"}
    assert "topology.classpath.beginning" not in submitter_fields(
        submitted, default_config(), compat="2.x")
    assert submitter_fields(
        submitted, dict(default_config(), **{"storm.topology.classpath.beginning.enabled": True}),
        compat="2.x")["topology.classpath.beginning"] == "/x.jar"
    assert submitter_fields(submitted, default_config(), compat="1.x")[
        "topology.classpath.beginning"] == "/x.jar"


def test_submitter_fields_take_compat_from_nimbus_conf():
    """Without a compat argument nimbus's pynimbus.storm.compat decides."""
    nimbus = dict(default_config(), **{"pynimbus.storm.compat": "2.x"})
    assert submitter_fields({}, nimbus, os_user="s")["topology.users"] == [None]


def test_launch_user_is_checked_before_the_fallback_only_in_2x():
    """The run-as-user check sees the OS user in 1.x and None in 2.x without a principal."""
    assert launch_user(None, "storm", "1.x") == "storm"
    assert launch_user(None, "storm", "2.x") is None
    assert launch_user("bob", "storm", "2.x") == "bob"


def test_java_string_hash_matches_java():
    """String.hashCode: "" is 0, "a" is 97, "topology.tasks" is Java's value."""
    assert java_string_hash("") == 0
    assert java_string_hash("a") == 97
    assert java_string_hash("polygenelubricants") == -2147483648


def test_java_hashmap_order_follows_buckets():
    """Keys iterate by bucket: a 12-key map in Java's order, which is not insertion order."""
    keys = ["topology.tasks", "topology.tick.tuple.freq.secs", "a", "b", "c", "d", "e", "f",
            "g", "h", "zeta", "topology.workers"]
    assert java_hashmap_order(keys) == [
        "zeta", "a", "b", "c", "d", "topology.workers", "e", "f", "g", "h", "topology.tasks",
        "topology.tick.tuple.freq.secs"]


def test_clojure_map_order_keeps_insertion_order_up_to_eight_keys():
    """An array map keeps insertion order; past 8 keys the hash order applies."""
    assert clojure_map_order(["z", "a", "m"]) == ["z", "a", "m"]
    keys = ["topology.tasks", "topology.tick.tuple.freq.secs", "a", "b", "c", "d", "e", "f",
            "g", "h", "zeta", "topology.workers"]
    assert clojure_map_order(keys) == [
        "d", "f", "e", "topology.tasks", "topology.workers", "zeta", "a", "b",
        "topology.tick.tuple.freq.secs", "g", "h", "c"]


def test_java_double_to_string():
    """Doubles print as Java does: 1.0E10, 0.001, 1.0E-4, 1.23456789E7, 2.0."""
    assert [java_double_to_string(x) for x in (1e10, 0.001, 1e-4, 12345678.9, 2.0,
                                                         -0.0, 1234567.5)] == [
        "1.0E10", "0.001", "1.0E-4", "1.23456789E7", "2.0", "-0.0", "1234567.5"]


def test_to_json_escapes_like_json_simple():
    """Slashes, quotes and control characters are escaped; output has no spaces."""
    assert to_json({"a/b": ['x"y', "\u0001", "\u2028", None, True, 1.5]}) == (
        '{"a\\/b":["x\\"y","\\u0001","\\u2028",null,true,1.5]}')


def test_get_int_reads_like_object_reader():
    """ObjectReader.getInt: ints, numeric strings, the default for None; doubles refused."""
    assert get_int(3) == 3 and get_int("-4") == -4
    assert get_int(None, 7) == 7
    for bad in (2.0, True, 2 ** 31, "x"):
        with pytest.raises(ValueError):
            get_int(bad)
