"""Reference topologies: ``StormTopology`` structs and confs that the oracle harness submits.

Each :class:`Reference` has a stable ``id`` (the golden file name), the topology name, the
``StormTopology`` built here in Python, the topology conf (sent as JSON), how to submit it, the
supervisors the cluster should have while it runs, and whether to run the lifecycle
(deactivate / activate / rebalance / kill) on it.

Components never need Java classes on the Nimbus side: spouts and bolts are
``ComponentObject(shell=ShellComponent("python", "x.py"))``; Java-serialized bytes (custom
groupings, worker hooks) are fake streams that only name a class, since Nimbus copies them without
deserializing them (neither 1.2.4 nor 2.x instantiates component objects, groupings, hooks,
metrics consumers or Kryo registrations at submit; the captures confirm it).

``REFERENCES`` is in capture order.  Storm ids count submissions per Nimbus start, so the order
is part of the goldens (``storm_id.counter``).

Some "bad" submissions are accepted by one generation and refused by the other; the capture
records whichever happens.  ``notes`` says what was expected from the reference docs.
"""

import collections
import json
import struct

from pynimbus.generated.storm.ttypes import (
    Bolt, ComponentCommon, ComponentObject, GlobalStreamId, Grouping, JavaObject, JavaObjectArg,
    NullStruct, ShellComponent, SpoutSpec, StateSpoutSpec, StormTopology, StreamInfo)

DEFAULT = "default"

Reference = collections.namedtuple("Reference", [
    "id",            # golden file name
    "name",          # topology name sent
    "topology",      # StormTopology
    "conf",          # dict sent as jsonConf (json_conf_raw overrides)
    "options",       # "active", "inactive", "none" (submitTopology) or "null" (WithOpts, None)
    "supervisors",   # None = default (2 x 4 slots); else a tuple of SupervisorSpec-like tuples
    "lifecycle",     # run deactivate/activate/rebalance/kill steps
    "rebalance",     # dict(num_workers=.., num_executors={..}) for the lifecycle rebalance
    "setup",         # None or "live_duplicate"
    "json_conf_raw",  # None or a raw jsonConf string to send instead of json.dumps(conf)
    "jar_location",  # None = upload the fake jar; else this location string is sent as is
    "notes",
    "generations",   # the generations whose Nimbus runs it (others record it as not run)
])

GENERATIONS = ("1.x", "2.x")


def reference(id, name=None, topology=None, conf=None, options="active", supervisors=None,
              lifecycle=False, rebalance=None, setup=None, json_conf_raw=None, jar_location=None,
              notes="", generations=GENERATIONS):
    return Reference(id, id if name is None else name, topology or simple_topology(),
                     {} if conf is None else conf, options, supervisors, lifecycle, rebalance,
                     setup, json_conf_raw, jar_location, notes, tuple(generations))


# Builders

def shell(script="x.py", command="python"):
    return ComponentObject(shell=ShellComponent(execution_command=command, script=script))


def fake_java_bytes(class_name):
    """Bytes that start like a Java serialization of ``class_name`` (never deserialized)."""
    name = class_name.encode("utf-8")
    return (b"\xac\xed\x00\x05\x73\x72" + struct.pack(">H", len(name)) + name
            + b"\x00\x00\x00\x00\x00\x00\x00\x01\x02\x00\x00\x78\x70")


def stream(*fields, direct=False):
    return StreamInfo(output_fields=list(fields), direct=direct)


def streams_of(outputs):
    """``{"default": ["word"]}`` or ``{"s": stream(...)}`` -> ``{id: StreamInfo}``."""
    out = {}
    for sid, value in (outputs or {}).items():
        out[sid] = value if isinstance(value, StreamInfo) else stream(*value)
    return out


def common(inputs=(), outputs=None, p=None, conf=None):
    return ComponentCommon(
        inputs={GlobalStreamId(componentId=c, streamId=s): g for (c, s), g in inputs},
        streams=streams_of(outputs), parallelism_hint=p,
        json_conf=None if conf is None else json.dumps(conf))


def spout(outputs=None, p=None, conf=None, inputs=(), obj=None):
    return SpoutSpec(spout_object=obj or shell(),
                     common=common(inputs, outputs if outputs is not None else {DEFAULT: ["x"]},
                                   p, conf))


def bolt(inputs, outputs=None, p=None, conf=None, obj=None):
    return Bolt(bolt_object=obj or shell(), common=common(inputs, outputs, p, conf))


def topology(spouts, bolts=None, **fields):
    return StormTopology(spouts=dict(spouts), bolts=dict(bolts or {}), state_spouts={}, **fields)


def fields(*names):
    return Grouping(fields=list(names))


def global_():
    return Grouping(fields=[])


def shuffle():
    return Grouping(shuffle=NullStruct())


def all_():
    return Grouping(all=NullStruct())


def none():
    return Grouping(none=NullStruct())


def direct():
    return Grouping(direct=NullStruct())


def local_or_shuffle():
    return Grouping(local_or_shuffle=NullStruct())


def custom_serialized(class_name="com.example.FakeGrouping"):
    return Grouping(custom_serialized=fake_java_bytes(class_name))


def custom_object(class_name="com.example.FakeGrouping", *args):
    return Grouping(custom_object=JavaObject(full_class_name=class_name,
                                             args_list=list(args)))


def simple_topology(spout_id="spout", bolt_id="bolt"):
    """One spout (p 1) and one shuffle bolt (p 1)."""
    return topology({spout_id: spout({DEFAULT: ["word"]})},
                    {bolt_id: bolt([((spout_id, DEFAULT), shuffle())])})


def wordcount(spout_p=2, split_p=3, count_p=4):
    return topology(
        {"sentences": spout({DEFAULT: ["sentence"]}, p=spout_p)},
        {"split": bolt([(("sentences", DEFAULT), shuffle())], {DEFAULT: ["word"]}, p=split_p),
         "count": bolt([(("split", DEFAULT), fields("word"))], {DEFAULT: ["word", "count"]},
                       p=count_p)})


# Supervisor scenarios (plain tuples: id, host, ports; see oracle/supervisors.py)

ONE_SUPERVISOR = (("sup-solo", "127.0.0.2", [6700, 6701, 6702, 6703]),)
NO_SUPERVISORS = ()
THREE_SMALL = (("sup-x", "127.0.0.2", [6700]), ("sup-y", "127.0.0.3", [6700, 6701]),
               ("sup-z", "127.0.0.4", [6700, 6701, 6702]))


# The references

def all_groupings():
    src = ("src", DEFAULT)
    return topology(
        {"src": spout({DEFAULT: ["a", "b"], "side": ["a"],
                       "direct_out": stream("a", direct=True)}, p=2)},
        {"g_fields": bolt([(src, fields("a"))], {DEFAULT: ["a"]}, p=2),
         "g_fields_two": bolt([(src, fields("a", "b"))], p=2),
         "g_shuffle": bolt([(src, shuffle())], p=2),
         "g_all": bolt([(src, all_())], p=2),
         "g_none": bolt([(src, none())], p=2),
         "g_direct": bolt([(("src", "direct_out"), direct())], p=2),
         "g_local_or_shuffle": bolt([(src, local_or_shuffle())], p=2),
         "g_global": bolt([(src, global_())], p=2),
         "g_custom_serialized": bolt([(src, custom_serialized())], p=2),
         "g_custom_object": bolt([(src, custom_object(
             "com.example.FakeGrouping", JavaObjectArg(string_arg="x"),
             JavaObjectArg(int_arg=3)))], p=2),
         "g_multi": bolt([(("src", "side"), shuffle()), (("g_fields", DEFAULT), fields("a"))])})


def trident():
    """``newStream("spout1", S).groupBy("word").aggregate(Count).each(F)`` as Trident builds it
    (trident-runtime.md section 4), with shell objects instead of Trident's Java objects."""
    mc, sc, sp = "$mastercoord-bg0", "$spoutcoord-spout-spout1", "spout-spout1"
    coord = stream("id", "count", direct=True)
    tick5 = {"topology.tick.tuple.freq.secs": 5}
    return topology(
        {mc: spout({"$batch": ["tx"], "$commit": ["tx"], "$success": ["tx"]},
                   conf={"topology.max.task.parallelism": 1,
                         "topology.kryo.register": [
                             "org.apache.storm.trident.topology.TransactionAttempt"]})},
        {sc: bolt([((mc, "$batch"), global_()), ((mc, "$success"), global_())],
                  {"$batch": ["tx", "metadata"]}, conf={"topology.max.task.parallelism": 1}),
         sp: bolt([((sc, "$batch"), all_()), ((mc, "$success"), all_())],
                  {"s1": ["$tx", "word"], "$coord-bg0": coord}, p=1, conf=tick5),
         "b-0": bolt([((sp, "s1"), custom_serialized(
                         "org.apache.storm.trident.partition.IdentityGrouping")),
                      ((sp, "$coord-bg0"), direct())],
                     {"s2": ["$batchId", "word", "count"], "s3": ["$batchId", "word", "count"],
                      "$coord-bg0": coord}, p=1, conf=tick5),
         "b-1": bolt([(("b-0", "s3"), fields("word")), (("b-0", "$coord-bg0"), direct())],
                     {"s4": ["$batchId", "word", "count"],
                      "s5": ["$batchId", "word", "count", "out"], "$coord-bg0": coord},
                     p=1, conf=tick5)})


def sort_order():
    """Ids that sort before and after ``__acker``/``__system`` (Java String order)."""
    s = ("1spout", DEFAULT)
    return topology(
        {"1spout": spout({DEFAULT: ["v"]}, p=1)},
        {"Zeta": bolt([(s, shuffle())], p=2),
         "alpha": bolt([(s, shuffle())], p=2),
         "$dollar": bolt([(s, shuffle())], p=1),
         "_under": bolt([(s, shuffle())], p=1),
         "B-dash": bolt([(s, shuffle())], p=1),
         "zz.dot": bolt([(s, shuffle())], p=1)})


def streamparse_like():
    def sp_shell(cls):
        return shell(script=cls, command="streamparse_run")
    return topology(
        {"word_spout": spout({DEFAULT: ["word"]}, p=2, obj=sp_shell("wordcount.WordSpout"))},
        {"count_bolt": bolt([(("word_spout", DEFAULT), fields("word"))],
                            {DEFAULT: ["word", "count"]}, p=4,
                            obj=sp_shell("wordcount.WordCountBolt"))})


def bad_structure(kind):
    s = ("src", DEFAULT)
    if kind == "unknown_component":
        return topology({"src": spout({DEFAULT: ["a"]})},
                        {"b": bolt([(("nope", DEFAULT), shuffle())])})
    if kind == "unknown_stream":
        return topology({"src": spout({DEFAULT: ["a"]})},
                        {"b": bolt([(("src", "nostream"), shuffle())])})
    if kind == "unknown_fields":
        return topology({"src": spout({DEFAULT: ["a"]})},
                        {"b": bolt([(s, fields("a", "zz"))])})
    if kind == "fields_on_other_stream":
        return topology({"src": spout({DEFAULT: ["a"], "other": ["b"]})},
                        {"b": bolt([(s, fields("b"))])})
    if kind == "system_component_id":
        return topology({"src": spout({DEFAULT: ["a"]})},
                        {"__mine": bolt([(s, shuffle())])})
    if kind == "system_stream_id":
        return topology({"src": spout({DEFAULT: ["a"], "__mystream": ["a"]})},
                        {"b": bolt([(s, shuffle())])})
    if kind == "spout_inputs":
        return topology({"src": spout({DEFAULT: ["a"]}),
                         "src2": spout({DEFAULT: ["a"]}, inputs=[(s, shuffle())])})
    if kind == "duplicate_component_ids":
        return topology({"x": spout({DEFAULT: ["a"]})}, {"x": bolt([(("x", DEFAULT),
                                                                      shuffle())])})
    if kind == "executors_zero_tasks_positive":
        return topology({"src": spout({DEFAULT: ["a"]})},
                        {"b": bolt([(s, shuffle())], p=0, conf={"topology.tasks": 2})})
    if kind == "heap":
        return topology({"src": spout({DEFAULT: ["a"]}, conf={
            "topology.component.resources.onheap.memory.mb": 1024.0})},
            {"b": bolt([(s, shuffle())])})
    raise ValueError(kind)


REFERENCES = [
    # Valid topologies
    reference("wordcount", conf={"topology.workers": 3}, topology=wordcount(), lifecycle=True,
              rebalance={"num_workers": 2, "num_executors": {"count": 2, "split": 1}},
              notes="3 workers over 2 supervisors; lifecycle with rebalance to 2 workers"),
    reference("all_groupings", topology=all_groupings(), conf={"topology.workers": 2},
              notes="every grouping kind; direct stream; a bolt on two streams"),
    reference("tasks_above_executors", conf={"topology.workers": 2}, topology=topology(
        {"s": spout({DEFAULT: ["a"]}, p=2, conf={"topology.tasks": 5})},
        {"b": bolt([(("s", DEFAULT), shuffle())], p=3, conf={"topology.tasks": 7}),
         "c": bolt([(("s", DEFAULT), shuffle())], p=2)}),
        lifecycle=True, rebalance={"num_executors": {"b": 7, "s": 1}},
        notes="executors hold several tasks; rebalance changes executors, never tasks"),
    reference("topology_level_tasks", conf={"topology.tasks": 3, "topology.workers": 1},
              topology=topology({"s": spout({DEFAULT: ["a"]}, p=1)},
                                {"b": bolt([(("s", DEFAULT), shuffle())], p=2),
                                 "c": bolt([(("s", DEFAULT), shuffle())], p=5)}),
              notes="topology.tasks in the topology conf applies to every component"),
    reference("tasks_below_executors", topology=topology(
        {"s": spout({DEFAULT: ["a"]}, p=4, conf={"topology.tasks": 1})},
        {"b": bolt([(("s", DEFAULT), shuffle())], p=6, conf={"topology.tasks": 2})}),
        notes="more executors asked than tasks: one task per executor"),
    reference("max_task_parallelism", conf={"topology.max.task.parallelism": 2}, topology=topology(
        {"s": spout({DEFAULT: ["a"]}, p=4)},
        {"b": bolt([(("s", DEFAULT), shuffle())], p=3, conf={"topology.tasks": 5}),
         "c": bolt([(("s", DEFAULT), shuffle())], p=3,
                   conf={"topology.max.task.parallelism": 1})}),
        notes="topology.max.task.parallelism caps tasks (topology and component level)"),
    reference("zero_parallelism", topology=topology(
        {"s": spout({DEFAULT: ["a"]})},
        {"zero_tasks": bolt([(("s", DEFAULT), shuffle())], p=0, conf={"topology.tasks": 0}),
         "p_zero": bolt([(("s", DEFAULT), shuffle())], p=0),
         "no_tasks": bolt([(("s", DEFAULT), shuffle())], p=3, conf={"topology.tasks": 0}),
         "unset_p": bolt([(("s", DEFAULT), shuffle())])}),
        notes="components with no tasks or no executors; parallelism unset means 1"),
    reference("ackers_eventloggers", conf={"topology.workers": 2, "topology.acker.executors": 3,
                                           "topology.eventlogger.executors": 2},
              topology=wordcount(1, 1, 1), lifecycle=True, rebalance={"num_workers": 1},
              notes="__acker x3, __eventlogger x2; rebalance keeps acker task count"),
    reference("no_ackers", conf={"topology.workers": 2, "topology.acker.executors": 0},
              topology=wordcount(1, 2, 1), notes="__acker with 0 executors and tasks"),
    reference("eventlogger_null", conf={"topology.workers": 2,
                                        "topology.eventlogger.executors": None},
              topology=wordcount(1, 1, 1),
              notes="null eventlogger count = one per worker; acker null = one per worker"),
    reference("metrics_consumers", conf={"topology.metrics.consumer.register": [
        {"class": "org.apache.storm.metric.LoggingMetricsConsumer", "parallelism.hint": 2},
        {"class": "org.apache.storm.metric.LoggingMetricsConsumer", "parallelism.hint": 1},
        {"class": "com.example.NoSuchConsumer", "argument": {"k": "v"},
         "parallelism.hint": 1, "whitelist": ["a.*"]}]},
        topology=wordcount(1, 1, 1),
        notes="metrics consumer bolts: ids __metrics<class> (1.x) / __metrics_<class> (2.x), "
              "#2 for a repeated class; a class Nimbus cannot load"),
    reference("trident", conf={"topology.workers": 1}, topology=trident(),
              notes="hand-built Trident topology ($mastercoord-bg0 ...)"),
    reference("more_workers_than_slots", conf={"topology.workers": 12},
              topology=wordcount(4, 4, 4), notes="12 workers asked, 8 slots exist"),
    reference("cannot_fit", supervisors=NO_SUPERVISORS, topology=wordcount(1, 1, 1),
              notes="no supervisor at all: no Assignment is ever written"),
    reference("three_small_supervisors", supervisors=THREE_SMALL, conf={"topology.workers": 4},
              topology=wordcount(2, 2, 2), notes="uneven supervisors (1, 2, 3 slots)"),
    reference("single_supervisor", supervisors=ONE_SUPERVISOR, conf={"topology.workers": 2},
              topology=topology({"words": spout({DEFAULT: ["word"]}, p=2)},
                                {"count": bolt([(("words", DEFAULT), fields("word"))], p=3)}),
              notes="scheduling.md example: tasks __acker 1-2, count 3-5, words 6-7"),
    reference("inactive_start", options="inactive", topology=wordcount(1, 1, 1), lifecycle=True,
              notes="SubmitOptions INACTIVE; lifecycle starts from INACTIVE"),
    reference("submit_without_opts", options="none", topology=wordcount(1, 1, 1),
              notes="plain submitTopology (what StormSubmitter uses without creds)"),
    reference("sort_order", topology=sort_order(), conf={"topology.workers": 2},
              notes="component ids around __acker in Java String order; a '.' in an id"),
    reference("kryo_and_conf_merge", topology=topology(
        {"s": spout({DEFAULT: ["a"]}, conf={
            "topology.kryo.register": ["com.example.A", {"com.example.B": "com.example.BSer"}],
            "topology.kryo.decorators": ["com.example.Deco"]})},
        {"b": bolt([(("s", DEFAULT), shuffle())], conf={
            "topology.kryo.register": [{"com.example.A": "com.example.ASer"}],
            "topology.kryo.decorators": ["com.example.Deco", "com.example.Deco3"]})}),
        conf={"topology.kryo.register": ["com.example.C"],
              "topology.kryo.decorators": ["com.example.Deco2"],
              "topology.message.timeout.secs": 45, "topology.debug": True,
              "my.custom.key": {"nested": [1, 2.5, "x", None]}},
        notes="normalize-conf: kryo registrations/decorators merged from components"),
    reference("streamparse_like", name="sparse_wordcount", topology=streamparse_like(),
              conf={"topology.workers": 2, "topology.acker.executors": 2,
                    "streamparse.env": "prod", "topology.python.path": "/env/bin/python",
                    "topology.max.spout.pending": 5000, "topology.message.timeout.secs": 60},
              notes="what `sparse submit` sends"),
    reference("topology_fields_2x", topology=topology(
        {"s": spout({DEFAULT: ["a"]})}, {"b": bolt([(("s", DEFAULT), shuffle())])},
        worker_hooks=[fake_java_bytes("com.example.Hook")], storm_version="2.8.8",
        jdk_version="17.0.15"),
        notes="worker_hooks, storm_version 2.8.8, jdk_version"),

    # Submissions that fail (on one or both generations)
    reference("bad_name_slash", name="a/b", notes="1.x prints a Clojure set in the message"),
    reference("bad_name_dot", name="a.b"),
    reference("bad_name_colon", name="a:b"),
    reference("bad_name_backslash", name="a\\b"),
    reference("bad_name_empty", name="", notes="1.x: ClassCastException -> INTERNAL_ERROR"),
    reference("bad_name_blank", name="   ", notes="1.x blank -> INTERNAL_ERROR; 2.x accepts"),
    reference("bad_duplicate_name", name="dup_name", setup="live_duplicate",
              notes="a live topology has the name; then KILLED (wait 300) still occupies it"),
    reference("bad_unknown_component", topology=bad_structure("unknown_component")),
    reference("bad_unknown_stream", topology=bad_structure("unknown_stream")),
    reference("bad_unknown_fields", topology=bad_structure("unknown_fields")),
    reference("fields_on_other_stream", topology=bad_structure("fields_on_other_stream"),
              notes="1.x checks the subscribed stream's fields (rejects), 2.x any stream"),
    reference("bad_system_component_id", topology=bad_structure("system_component_id")),
    reference("bad_system_stream_id", topology=bad_structure("system_stream_id")),
    reference("bad_spout_inputs", topology=bad_structure("spout_inputs")),
    reference("bad_duplicate_component_ids", topology=bad_structure("duplicate_component_ids")),
    reference("bad_executors_zero_tasks_positive",
              topology=bad_structure("executors_zero_tasks_positive")),
    reference("bad_conf_type", conf={"topology.workers": "three"}),
    reference("bad_metrics_consumer_no_hint", conf={"topology.metrics.consumer.register": [
        {"class": "org.apache.storm.metric.LoggingMetricsConsumer"}]},
        notes="1.x conf validation requires parallelism.hint in each entry"),
    reference("bad_conf_not_json", json_conf_raw="this is not json"),
    reference("bad_null_options", options="null",
              notes="submitTopologyWithOpts with options unset"),
    reference("bad_blobstore_map", conf={"topology.blobstore.map": {
        "no-such-key": {"localname": "x"}}}),
    reference("bad_jar_location", jar_location="/nonexistent/stormjar-none.jar",
              notes="a location never returned by beginFileUpload"),
    reference("storm_version_1x", topology=topology(
        {"s": spout({DEFAULT: ["a"]})}, {"b": bolt([(("s", DEFAULT), shuffle())])},
        storm_version="1.2.4"),
        notes="2.x refuses a 1.x-built topology without a classpath map; 1.x accepts"),
    reference("heap_too_large", topology=bad_structure("heap"),
              notes="2.x: component on-heap 1024 MB > worker max heap 768; 1.x Nimbus accepts"),
]


# -- Ids no path segment holds, and forged ids (issue 8, part 5) -----------------------------
# Component ids Storm accepts whose error paths are odd: the empty id (Storm's ZooKeeper calls
# drop the empty segment, so its errors path is the topology's errors root), "." and ".."
# (url-encoding keeps them; ZooKeeper refuses them as segments), "/" and NUL (url-encoded).
# The captures of ID_PROBE_REFERENCES also record what the per-topology queries answer for
# topology ids no topology can have, for components the topology lacks, and what
# getTopologyHistory answers for users no account can have.  Appended right after the
# references above (before the fidelity block), so no storm id counter captured before
# changes and these depend only on the references above.

FORGED_TOPOLOGY_IDS = ["a/b", "x\x00y", "..", ".", "", "../../etc"]
FORGED_COMPONENT_IDS = ["nope", "a/b", "x\x00y", ".."]
FORGED_USERS = ["a/b", "x\x00y"]

ID_REFERENCES = [
    reference("component_id_empty", topology=simple_topology("", "b"),
              notes="the empty component's errors path is /errors/<id> itself"),
    reference("component_id_dots", topology=simple_topology(".", ".."),
              notes="'.' and '..' stay as they are after url-encoding"),
    reference("component_id_path_chars", topology=simple_topology("a/b", "x\x00y"),
              notes="'/' and NUL in component ids are url-encoded in error paths"),
    reference("forged_ids", notes="forged topology ids, components and users (probes)"),
]
ID_PROBE_REFERENCES = ("forged_ids",)
REFERENCES.extend(ID_REFERENCES)


# -- Fidelity corner cases (issue 8, part 6) ------------------------------------------------
# One reference per class of case, each answered by the real Nimbus 1.2.4 and 2.8.3: Clojure's
# seq functions meeting a string (or a map, a number) in a component conf; which error is
# reported first when several components, inputs or ids are invalid (the ids are chosen so the
# orders of the Java maps Nimbus copies and fills differ from the order sent); a spout, a bolt
# and a state spout sharing an id; rebalance with odd worker and executor counts; topology
# names outside the 2.x blob-key alphabet.  Appended last, so no storm id counter captured
# before changes; these counters follow every reference above (the id block included).

def subscribing_to_missing(bolt_ids, kinds=None):
    """A spout ``src`` and one bolt per id, each subscribing to something that does not exist:
    kinds ``component`` (default), ``stream`` or ``fields``, per bolt id."""
    kinds = kinds or {}
    bolts = {}
    for bolt_id in bolt_ids:
        kind = kinds.get(bolt_id, "component")
        if kind == "stream":
            inputs = [(("src", "nostream_" + bolt_id), shuffle())]
        elif kind == "fields":
            inputs = [(("src", DEFAULT), fields("a", "nofield_" + bolt_id))]
        else:
            inputs = [(("nope_" + bolt_id, DEFAULT), shuffle())]
        bolts[bolt_id] = bolt(inputs)
    return topology({"src": spout({DEFAULT: ["a"]})}, bolts)


def shared_ids(spout_ids, bolt_ids, state_spout_ids=()):
    """Spouts ``src`` plus ``spout_ids``, bolts subscribing to ``src``, and state spouts, whose
    ids overlap."""
    spouts = {"src": spout({DEFAULT: ["a"]})}
    spouts.update((sid, spout({DEFAULT: ["a"]})) for sid in spout_ids)
    return StormTopology(
        spouts=spouts, bolts={bid: bolt([(("src", DEFAULT), shuffle())]) for bid in bolt_ids},
        state_spouts={sid: StateSpoutSpec(state_spout_object=shell(),
                                          common=common(outputs={DEFAULT: ["a"]}))
                      for sid in state_spout_ids})


def with_component_conf(spout_conf=None, bolt_conf=None, conf=None, **kwargs):
    return reference(topology=topology(
        {"s": spout({DEFAULT: ["a"]}, conf=spout_conf)},
        {"b": bolt([(("s", DEFAULT), shuffle())], conf=bolt_conf)}), conf=conf, **kwargs)


def rebalanced(ref_id, notes, generations=GENERATIONS, **rebalance):
    return reference(ref_id, topology=wordcount(1, 1, 1), conf={"topology.workers": 2},
                     lifecycle=True, rebalance=rebalance, notes=notes, generations=generations)


FIDELITY_REFERENCES = [
    # Lenient coercions: 1.2.4 mapcats each component's value, so a string gives characters.
    with_component_conf(
        id="kryo_register_string_in_component",
        spout_conf={"topology.kryo.register": "com.example.A"},
        notes="1.x registers each character of the string; 2.x casts to a List"),
    with_component_conf(
        id="kryo_decorators_string_in_component",
        bolt_conf={"topology.kryo.decorators": "com.example.Deco"},
        notes="1.x: the characters become decorators"),
    with_component_conf(
        id="kryo_register_map_in_component",
        spout_conf={"topology.kryo.register": {"com.example.A": "com.example.ASer"}},
        notes="1.x: a map's entries are registered as keys"),
    with_component_conf(
        id="kryo_register_number_in_component",
        bolt_conf={"topology.kryo.register": 5}, notes="no seq of a number"),
    with_component_conf(
        id="kryo_register_odd_entries_in_component",
        spout_conf={"topology.kryo.register": ["com.example.A", 7, ["com.example.L"]]},
        notes="list entries that are neither a class name nor a map"),
    with_component_conf(
        id="kryo_register_string_in_topology_conf",
        conf={"topology.kryo.register": "com.example.A"},
        notes="the topology conf is validated (component confs are not)"),

    # Which error is reported first: validate-structure over the system topology's components
    # (3 user bolts: a 1.x array map; 5 and an event logger: exactly 9 entries, still an array
    # map; 6: a 1.x hash map), then the inputs of one bolt, then validate-basic's ids and
    # stream ids.
    reference("order_missing_sources_three",
              topology=subscribing_to_missing(["mid", "bolt_k", "b11"])),
    reference("order_missing_sources_nine_entries", topology=subscribing_to_missing(
        ["Beta", "bolt_i", "bolt_d", "x1", "b5"],
        {"bolt_i": "stream", "bolt_d": "fields", "b5": "stream"}),
        conf={"topology.eventlogger.executors": 1},
        notes="every kind of missing source; 9 components in the system topology"),
    reference("order_missing_sources_six",
              topology=subscribing_to_missing(["bolt_n", "b5", "b8", "b11", "count", "b19"])),
    reference("order_missing_inputs_one_bolt", topology=topology(
        {"src": spout({DEFAULT: ["a"]})},
        {"b": bolt([(("nope_%s" % c, DEFAULT), shuffle()) for c in "abcd"])})),
    reference("order_system_component_ids", topology=topology(
        {"src": spout({DEFAULT: ["a"]})},
        {cid: bolt([(("src", DEFAULT), shuffle())]) for cid in ("__b1", "__x", "__count")})),
    reference("order_system_stream_ids", topology=topology(
        {"src": spout({DEFAULT: ["a"]})},
        {"b": bolt([(("src", DEFAULT), shuffle())],
                   {sid: ["a"] for sid in ("__b1", "__x", "__count")})})),

    # One id for several components.
    reference("duplicate_id_spout_bolt_elsewhere", topology=shared_ids(["x"], ["x"]),
              notes="the bolt x subscribes to another spout"),
    reference("duplicate_ids_two", topology=shared_ids(["x", "y"], ["y", "x"])),
    reference("duplicate_id_state_spout", topology=shared_ids(["x"], [], ["x"])),
    reference("duplicate_id_bolt_state_spout", topology=shared_ids([], ["x"], ["x"])),

    # Rebalance with odd counts (the lifecycle's rebalance).
    rebalanced("rebalance_zero_workers", "num_workers 0", num_workers=0),
    rebalanced("rebalance_negative_workers", "num_workers -3; 2.8.3 stores it, then its "
               "scheduler fails and halts Nimbus (pynimbus 2.x refuses it: test_rebalance_checks)",
               generations=("1.x",), num_workers=-3),
    rebalanced("rebalance_huge_workers", "num_workers 2^31-1", num_workers=2 ** 31 - 1),
    rebalanced("rebalance_huge_executors", "executors far above the task count",
               num_executors={"count": 2 ** 31 - 1}),
    rebalanced("rebalance_unknown_component", "a component the topology lacks",
               num_executors={"nope": 2, "count": 2}),
    rebalanced("rebalance_unknown_system_component", "an unknown id that looks like Storm's",
               num_executors={"__nope": 2}),
    rebalanced("rebalance_unknown_component_zero", "both checks fail: which is reported",
               num_executors={"nope": 0}),

    # Allowed topology names that are not valid 2.x blob keys (the keys start with the name).
    reference("bad_name_outside_key_alphabet", name="a@b"),
    reference("bad_name_outside_key_alphabet_unicode", name="snow\u2603man"),
]
REFERENCES.extend(FIDELITY_REFERENCES)

BY_ID = {r.id: r for r in REFERENCES}
assert len(BY_ID) == len(REFERENCES), "duplicate reference ids"

# Names probed with isTopologyNameAllowed (besides each reference's own name).
NAME_PROBES = ["ok_name", "a/b", "a.b", "a:b", "a\\b", "", "   ", "with space", "tab\tname",
               "unicode-\u00e9", "x" * 300]
