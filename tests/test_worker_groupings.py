"""Storm's groupers on literal data (pynimbus.worker.groupings)."""
# test-case-name: tests.test_worker_groupings

import base64
import collections
import random
import struct

import pytest

from pynimbus.clojure_port.java_hash_map import java_hash, string_hash
from pynimbus.clojure_port.normalize import normalize_topology
from pynimbus.clojure_port.system_topology import system_topology
from pynimbus.clojure_port.tasks import storm_task_info
from pynimbus.common.config import default_config
from pynimbus.generated.storm.ttypes import (
    Bolt, ComponentCommon, ComponentObject, GlobalStreamId, Grouping, JavaObject, NullStruct,
    SpoutSpec, StormTopology, StreamInfo)
from pynimbus.worker import groupings
from pynimbus.worker.groupings import DIRECT, GroupingError
from purity import imported_modules

# Expected numbers below were computed once with Storm 1.2.4's own classes on Java 17
# (storm-core-1.2.4.jar: TupleUtils.listHashCode, Math.floorMod as mk-fields-grouper's mod,
# the shaded Guava Hashing.murmur3_128(seed).hashBytes(..).asLong(), and PartialKeyGrouping
# itself), with Longs for integers, Doubles for floats, Lists and a HashMap as Storm's JSON
# reader builds them.
JAVA_FIELDS_CHOICES = [
    # (selected values, number of tasks, listHashCode, index of the chosen task)
    (["apple"], 4, 93029241, 1),
    (["the"], 3, 114832, 1),
    (["h\u00e9llo"], 5, 103094765, 0),
    ([42], 4, 73, 1),
    ([-7], 3, 37, 1),
    ([1 << 40], 7, 287, 0),
    (["a", 1], 5, 3969, 4),
    ([True, None], 3, 39122, 2),
    ([2.5], 4, 1074003999, 3),
    ([["x", 3]], 6, 4715, 5),
    ([{"k": 1, "z": "v"}], 5, 149, 4),
    (["storm", "nimbus"], 8, -1937511642, 6),
]
JAVA_MURMUR3_AS_LONG = [
    # (bytes, seed 13, seed 17)
    (b"apple", -6984485683780159180, -2213206645866961844),
    (b"", -6841345300810786470, -4666168469225958328),
    (b"the quick brown fox!", 119449914643631760, 488723116955308344),
    (struct.pack(">ii", string_hash("apple"), 42), 3911757910932078236, -2824519541483872023),
]
# Utils.javaSerialize of new PartialKeyGrouping(new Fields("word", "n")), new
# PartialKeyGrouping() and new ShuffleGrouping(), base64 (Storm 1.2.4, Java 17): what
# TopologyBuilder's partialKeyGrouping and a custom grouping put in Grouping.custom_serialized.
PARTIAL_KEY_GROUPING_WORD_N = base64.b64decode(
    "rO0ABXNyACxvcmcuYXBhY2hlLnN0b3JtLmdyb3VwaW5nLlBhcnRpYWxLZXlHcm91cGluZ/nKlmiFOhofAgAGTAAG"
    "ZmllbGRzdAAfTG9yZy9hcGFjaGUvc3Rvcm0vdHVwbGUvRmllbGRzO0wAAmgxdAA8TG9yZy9hcGFjaGUvc3Rvcm0v"
    "c2hhZGUvY29tL2dvb2dsZS9jb21tb24vaGFzaC9IYXNoRnVuY3Rpb247TAACaDJxAH4AAkwACW91dEZpZWxkc3EA"
    "fgABWwAPdGFyZ2V0VGFza1N0YXRzdAACW0pMAAt0YXJnZXRUYXNrc3QAEExqYXZhL3V0aWwvTGlzdDt4cHNyAB1v"
    "cmcuYXBhY2hlLnN0b3JtLnR1cGxlLkZpZWxkc9EfLOLC7fsAAgACTAAHX2ZpZWxkc3EAfgAETAAGX2luZGV4dAAP"
    "TGphdmEvdXRpbC9NYXA7eHBzcgATamF2YS51dGlsLkFycmF5TGlzdHiB0h2Zx2GdAwABSQAEc2l6ZXhwAAAAAncE"
    "AAAAAnQABHdvcmR0AAFueHNyABFqYXZhLnV0aWwuSGFzaE1hcAUH2sHDFmDRAwACRgAKbG9hZEZhY3RvckkACXRo"
    "cmVzaG9sZHhwP0AAAAAAAAx3CAAAABAAAAACcQB+AAtzcgARamF2YS5sYW5nLkludGVnZXIS4qCk94GHOAIAAUkA"
    "BXZhbHVleHIAEGphdmEubGFuZy5OdW1iZXKGrJUdC5TgiwIAAHhwAAAAAHEAfgAMc3EAfgAPAAAAAXhzcgBFb3Jn"
    "LmFwYWNoZS5zdG9ybS5zaGFkZS5jb20uZ29vZ2xlLmNvbW1vbi5oYXNoLk11cm11cjNfMTI4SGFzaEZ1bmN0aW9u"
    "AAAAAAAAAAACAAFJAARzZWVkeHAAAAANc3EAfgATAAAAEXBwcA==")
PARTIAL_KEY_GROUPING_NO_FIELDS = base64.b64decode(
    "rO0ABXNyACxvcmcuYXBhY2hlLnN0b3JtLmdyb3VwaW5nLlBhcnRpYWxLZXlHcm91cGluZ/nKlmiFOhofAgAGTAAG"
    "ZmllbGRzdAAfTG9yZy9hcGFjaGUvc3Rvcm0vdHVwbGUvRmllbGRzO0wAAmgxdAA8TG9yZy9hcGFjaGUvc3Rvcm0v"
    "c2hhZGUvY29tL2dvb2dsZS9jb21tb24vaGFzaC9IYXNoRnVuY3Rpb247TAACaDJxAH4AAkwACW91dEZpZWxkc3EA"
    "fgABWwAPdGFyZ2V0VGFza1N0YXRzdAACW0pMAAt0YXJnZXRUYXNrc3QAEExqYXZhL3V0aWwvTGlzdDt4cHBzcgBF"
    "b3JnLmFwYWNoZS5zdG9ybS5zaGFkZS5jb20uZ29vZ2xlLmNvbW1vbi5oYXNoLk11cm11cjNfMTI4SGFzaEZ1bmN0"
    "aW9uAAAAAAAAAAACAAFJAARzZWVkeHAAAAANc3EAfgAGAAAAEXBwcA==")
SHUFFLE_GROUPING = base64.b64decode(
    "rO0ABXNyAClvcmcuYXBhY2hlLnN0b3JtLmdyb3VwaW5nLlNodWZmbGVHcm91cGluZ0gZ7f9n/bf7AgADTAAHY2hv"
    "aWNlc3QAFUxqYXZhL3V0aWwvQXJyYXlMaXN0O0wAB2N1cnJlbnR0ACtMamF2YS91dGlsL2NvbmN1cnJlbnQvYXRv"
    "bWljL0F0b21pY0ludGVnZXI7TAAGcmFuZG9tdAASTGphdmEvdXRpbC9SYW5kb207eHBwcHA=")
# The same for new PartialKeyGrouping(new Fields("word", "n")) of Storm 2.8.3 (its
# PartialKeyGrouping is 2.8.8's), and its choices: PartialKeyGrouping() over [3, 4, 5, 6, 7]
# fed JAVA_PARTIAL_KEY_WORDS, RandomTwoTaskAssignmentCreator over tasks 10-16.
PARTIAL_KEY_GROUPING_2X_WORD_N = base64.b64decode(
    "rO0ABXNyACxvcmcuYXBhY2hlLnN0b3JtLmdyb3VwaW5nLlBhcnRpYWxLZXlHcm91cGluZ+jKlOuJL1XAAgAFTAAR"
    "YXNzaWdubWVudENyZWF0b3J0AEBMb3JnL2FwYWNoZS9zdG9ybS9ncm91cGluZy9QYXJ0aWFsS2V5R3JvdXBpbmck"
    "QXNzaWdubWVudENyZWF0b3I7TAAGZmllbGRzdAAfTG9yZy9hcGFjaGUvc3Rvcm0vdHVwbGUvRmllbGRzO0wACW91"
    "dEZpZWxkc3EAfgACTAAOdGFyZ2V0U2VsZWN0b3J0AD1Mb3JnL2FwYWNoZS9zdG9ybS9ncm91cGluZy9QYXJ0aWFs"
    "S2V5R3JvdXBpbmckVGFyZ2V0U2VsZWN0b3I7TAALdGFyZ2V0VGFza3N0ABBMamF2YS91dGlsL0xpc3Q7eHBzcgBL"
    "b3JnLmFwYWNoZS5zdG9ybS5ncm91cGluZy5QYXJ0aWFsS2V5R3JvdXBpbmckUmFuZG9tVHdvVGFza0Fzc2lnbm1l"
    "bnRDcmVhdG9y6dWsB5u71foCAAB4cHNyAB1vcmcuYXBhY2hlLnN0b3JtLnR1cGxlLkZpZWxkc9EfLOLC7fsAAgAC"
    "TAAGZmllbGRzcQB+AARMAAVpbmRleHQAD0xqYXZhL3V0aWwvTWFwO3hwc3IAE2phdmEudXRpbC5BcnJheUxpc3R4"
    "gdIdmcdhnQMAAUkABHNpemV4cAAAAAJ3BAAAAAJ0AAR3b3JkdAABbnhzcgARamF2YS51dGlsLkhhc2hNYXAFB9rB"
    "wxZg0QMAAkYACmxvYWRGYWN0b3JJAAl0aHJlc2hvbGR4cD9AAAAAAAAMdwgAAAAQAAAAAnEAfgANc3IAEWphdmEu"
    "bGFuZy5JbnRlZ2VyEuKgpPeBhzgCAAFJAAV2YWx1ZXhyABBqYXZhLmxhbmcuTnVtYmVyhqyVHQuU4IsCAAB4cAAA"
    "AABxAH4ADnNxAH4AEQAAAAF4cHNyAENvcmcuYXBhY2hlLnN0b3JtLmdyb3VwaW5nLlBhcnRpYWxLZXlHcm91cGlu"
    "ZyRCYWxhbmNlZFRhcmdldFNlbGVjdG9yWQ+v/ZkMQzUCAAFMAA90YXJnZXRUYXNrU3RhdHNxAH4ACXhwc3EAfgAP"
    "P0AAAAAAAAB3CAAAABAAAAAAeHA=")
JAVA_2X_PARTIAL_KEY_TASKS = [7, 6, 7, 5, 6, 5, 4, 7]
JAVA_2X_ASSIGNMENTS = {"apple": (16, 10), "pear": (10, 13), "fig": (11, 13), "": (14, 15)}
# PartialKeyGrouping() (no fields) prepared with tasks [3, 4, 5, 6, 7], fed these words.
JAVA_PARTIAL_KEY_WORDS = ["apple", "apple", "apple", "pear", "apple", "pear", "fig", "apple"]
JAVA_PARTIAL_KEY_TASKS = [3, 7, 3, 6, 7, 6, 4, 3]


def context(this_worker_tasks=(), seed=7, clock=None, **topo_conf):
    return groupings.mk_grouper_context(
        this_worker_tasks, topo_conf, random.Random(seed), clock or (lambda: 0))


def grouper(thrift_grouping, target_tasks, out_fields=("word", "n"), ctx=None):
    return groupings.mk_grouper(ctx or context(), "words", "default", list(out_fields),
                                thrift_grouping, target_tasks)


def counts(g, n, values=("w", 1), load=None):
    c = collections.Counter()
    for _ in range(n):
        c.update(g(1, list(values), load))
    return c


# Fields and global


@pytest.mark.parametrize("values,num_tasks,java_hash_code,index", JAVA_FIELDS_CHOICES)
def test_fields_grouping_picks_the_task_a_java_worker_picks(values, num_tasks, java_hash_code,
                                                            index):
    """listHashCode of the selected values floor-mod the task count, as Storm 1.2.4's."""
    out_fields = ["f%d" % i for i in range(len(values))] + ["other"]
    targets = list(range(10, 10 + num_tasks))
    g = grouper(Grouping(fields=out_fields[:-1]), targets, out_fields)
    assert groupings.list_hash_code(values) == java_hash_code
    assert g(1, list(values) + ["ignored"]) == (targets[index],)


@pytest.mark.parametrize("value", [0, 1, -1, 42, -7, 1 << 40, -(1 << 40), (1 << 63) - 1,
                                   -(1 << 63), 1 << 63, -(1 << 63) - 1, 1 << 70,
                                   -6984485683780159180, 119449914643631760])
def test_fields_grouping_of_an_integer_is_list_hash_code_of_it(value):
    """The grouper's own Long.hashCode of an int (the acker's root ids) agrees with
    list_hash_code's at the ends of Java's long and past them (a BigInteger)."""
    targets = list(range(10, 17))
    g = grouper(Grouping(fields=["word"]), targets)
    assert g(1, [value, 0]) == (targets[groupings.list_hash_code([value]) % 7],)


def test_fields_grouping_selects_by_name_in_the_grouping_order():
    """Group fields ["n", "word"] hash (n, word), not the output order."""
    g = grouper(Grouping(fields=["n", "word"]), [1, 2, 3, 4, 5])
    expected = groupings.list_hash_code([1, "a"]) % 5 + 1
    assert g(9, ["a", 1]) == (expected,)
    assert groupings.select(["word", "n"], ["n", "word"], ["a", 1]) == [1, "a"]


def test_fields_grouping_sorts_target_tasks_first():
    """The index goes into the sorted target tasks, whatever order they came in."""
    assert grouper(Grouping(fields=["word"]), [13, 11, 12, 10])(1, ["apple", 0]) == (11,)


def test_fields_grouping_on_a_missing_field_is_a_grouping_error():
    """A group field the stream does not declare is refused when the grouper is built."""
    with pytest.raises(GroupingError,
                       match="component words, stream default: field nope does not exist"):
        grouper(Grouping(fields=["nope"]), [1, 2])


def test_a_grouping_with_no_field_set_is_a_grouping_error():
    """An empty Grouping union is refused, naming the component and stream."""
    with pytest.raises(GroupingError, match="words, stream default: the Grouping sets none"):
        grouper(Grouping(), [1, 2])


def test_global_grouping_is_the_lowest_task():
    """A fields grouping on no fields sends everything to the lowest target task."""
    assert counts(grouper(Grouping(fields=[]), [9, 4, 7]), 50) == {4: 50}


def test_only_target_task_is_the_one_task_of_a_lone_fields_subscriber():
    """A stream whose one subscriber has one task under a fields grouping always goes to
    that task (the acker's streams with one acker); any other shape has no such task."""
    one = grouper(Grouping(fields=["word"]), [7])
    two = grouper(Grouping(fields=["word"]), [7, 8])
    shuffle = grouper(Grouping(shuffle=NullStruct()), [7])
    assert groupings.only_target_task({"count": one}) == 7
    assert groupings.only_target_task({"count": two}) is None
    assert groupings.only_target_task({"count": one, "log": one}) is None
    assert groupings.only_target_task({"count": shuffle}) is None
    assert groupings.only_target_task({}) is None
    assert groupings.only_target_task(None) is None


def test_java_hash_of_a_double_past_and_a_big_integer():
    """Doubles hash as doubleToLongBits; ints past 64 bits as BigInteger."""
    assert java_hash(2.5) == 1074003999 - 31  # listHashCode([2.5]) = 31 + hash(2.5)
    assert java_hash(1 << 70) == 61504  # BigInteger words [64, 0, 0]: 64 * 31 * 31
    assert java_hash(float("nan")) == 2146959360


# All, none, shuffle, local-or-shuffle


def test_all_grouping_sends_to_every_task():
    """Every tuple goes to each target task."""
    assert counts(grouper(Grouping(all=NullStruct()), [3, 1, 2]), 10) == {1: 10, 2: 10, 3: 10}


def test_none_grouping_spreads_randomly_over_the_targets():
    """Each tuple goes to one task, all tasks get some."""
    c = counts(grouper(Grouping(none=NullStruct()), [1, 2, 3]), 300)
    assert sum(c.values()) == 300 and set(c) == {1, 2, 3} and min(c.values()) > 50


def test_shuffle_without_load_awareness_is_round_robin_over_a_shuffled_order():
    """ShuffleGrouping: each of n tuples in a row goes to a different task."""
    g = grouper(Grouping(shuffle=NullStruct()), [1, 2, 3, 4],
                ctx=context(**{"topology.disable.loadaware.messaging": True}))
    assert isinstance(g, groupings.ShuffleGrouping)
    first = [g(1, [])[0] for _ in range(4)]
    assert sorted(first) == [1, 2, 3, 4]
    assert [g(1, [])[0] for _ in range(8)] == first * 2


def test_shuffle_is_load_aware_by_default_and_uniform_without_loads():
    """1.2.4's default (loadaware messaging on): every unknown task weighs the same."""
    g = grouper(Grouping(shuffle=NullStruct()), [1, 2, 3, 4])
    assert isinstance(g, groupings.LoadAwareShuffleGrouping)
    c = counts(g, 400)
    assert set(c) == {1, 2, 3, 4} and min(c.values()) > 60


def test_load_aware_shuffle_avoids_loaded_tasks_and_refreshes_once_a_second():
    """Weights are int(101 - 100 * load), read again only after 1000 ms."""
    now = [5000]
    g = grouper(Grouping(shuffle=NullStruct()), [1, 2], ctx=context(clock=lambda: now[0]))
    busy_2 = {1: 0.0, 2: 1.0}  # weights 101 and 1
    assert counts(g, 1000, load=busy_2)[2] < 40
    now[0] += 1000  # not yet past the second: the old weights hold
    assert counts(g, 1000, load={1: 1.0, 2: 0.0})[1] > 900
    now[0] += 1
    assert counts(g, 1000, load={1: 1.0, 2: 0.0})[1] < 40


def test_local_or_shuffle_prefers_this_workers_tasks():
    """Only targets in this worker get tuples when there are any."""
    ctx = context(this_worker_tasks=[2, 4, 9])
    assert set(counts(grouper(Grouping(local_or_shuffle=NullStruct()), [1, 2, 3, 4], ctx=ctx),
                      100)) == {2, 4}


def test_local_or_shuffle_falls_back_to_all_targets():
    """With no target in this worker it shuffles over all of them."""
    ctx = context(this_worker_tasks=[9])
    assert set(counts(grouper(Grouping(local_or_shuffle=NullStruct()), [1, 2, 3], ctx=ctx),
                      100)) == {1, 2, 3}


# Partial key


@pytest.mark.parametrize("data,seed_13,seed_17", JAVA_MURMUR3_AS_LONG)
def test_murmur3_matches_guava(data, seed_13, seed_17):
    """murmur3_128(seed).hashBytes(data).asLong() as Guava computes it."""
    assert groupings.murmur3_128_as_long(data, 13) == seed_13
    assert groupings.murmur3_128_as_long(data, 17) == seed_17


def test_partial_key_without_fields_matches_storm_choice_by_choice():
    """The first value's text is the key; of its two tasks the less used one wins."""
    g = groupings.PartialKeyGrouping(None, None, [3, 4, 5, 6, 7])
    assert [g(1, [w])[0] for w in JAVA_PARTIAL_KEY_WORDS] == JAVA_PARTIAL_KEY_TASKS


def test_partial_key_with_fields_hashes_the_selected_values_hash_codes():
    """The key bytes are the big-endian hash codes of the selected values."""
    g = groupings.PartialKeyGrouping(["word", "n"], ["n", "word"], [1, 2, 3, 4])
    assert g.key_bytes([42, "apple"]) == JAVA_MURMUR3_AS_LONG[3][0]
    # Math.abs(3911757910932078236) % 4 == 0, Math.abs(-2824519541483872023) % 4 == 3
    assert g.candidates([42, "apple"]) == (0, 3)
    assert [g(1, [42, "apple"])[0] for _ in range(4)] == [1, 4, 1, 4]


def test_partial_key_of_an_empty_tuple_goes_nowhere():
    """No values, no task (chooseTasks returns an empty list)."""
    assert groupings.PartialKeyGrouping(None, None, [1, 2])(1, []) == ()


def test_a_readable_partial_key_grouping_is_built_from_custom_serialized():
    """A reader that yields PartialKeyGrouping's fields gets the port."""
    ctx = context()._replace(read_java_grouping=lambda data: groupings.JavaGrouping(
        groupings.PARTIAL_KEY_GROUPING_CLASS, {"fields": ["word"]}))
    g = grouper(Grouping(custom_serialized=b"\xac\xed..."), [1, 2, 3], ctx=ctx)
    assert isinstance(g, groupings.PartialKeyGrouping)


def test_partial_key_grouping_from_storms_serialized_bytes_reads_its_fields():
    """javaobj reads Storm 1.2.4's PartialKeyGrouping: its fields, or None without them."""
    pytest.importorskip("javaobj.v2")
    assert groupings.read_java_grouping(PARTIAL_KEY_GROUPING_WORD_N) == groupings.JavaGrouping(
        groupings.PARTIAL_KEY_GROUPING_CLASS,
        {"fields": ["word", "n"], "assignment_creator": None, "target_selector": None})
    assert groupings.read_java_grouping(PARTIAL_KEY_GROUPING_NO_FIELDS).attributes[
        "fields"] is None
    assert groupings.read_java_grouping(PARTIAL_KEY_GROUPING_2X_WORD_N).attributes == {
        "fields": ["word", "n"],
        "assignment_creator": groupings.PARTIAL_KEY_GROUPING_2X_DEFAULTS[0],
        "target_selector": groupings.PARTIAL_KEY_GROUPING_2X_DEFAULTS[1]}
    g = grouper(Grouping(custom_serialized=PARTIAL_KEY_GROUPING_WORD_N), [4, 3, 2, 1],
                out_fields=["n", "word"])
    assert g.candidates([42, "apple"]) == (0, 3)  # as the fields test above, out order swapped
    assert g(1, [42, "apple"]) == (1,)


def test_2x_partial_key_matches_storm_choice_by_choice():
    """2.8.8's candidates come from java.util.Random seeded by the key bytes' hash."""
    g = groupings.PartialKeyGrouping2x(None, None, [3, 4, 5, 6, 7])
    assert [g(1, [w])[0] for w in JAVA_PARTIAL_KEY_WORDS] == JAVA_2X_PARTIAL_KEY_TASKS
    tasks = list(range(10, 17))
    g = groupings.PartialKeyGrouping2x(None, None, tasks)
    assert {w: tuple(tasks[i] for i in g.candidates([w])) for w in JAVA_2X_ASSIGNMENTS} == (
        JAVA_2X_ASSIGNMENTS)


def test_2x_serialized_partial_key_grouping_runs_the_2x_port():
    """Bytes from a 2.x TopologyBuilder (default helpers) build PartialKeyGrouping2x."""
    pytest.importorskip("javaobj.v2")
    g = grouper(Grouping(custom_serialized=PARTIAL_KEY_GROUPING_2X_WORD_N), [1, 2, 3],
                out_fields=["word", "n"])
    assert isinstance(g, groupings.PartialKeyGrouping2x)
    assert g.key_bytes(["apple", 42]) == JAVA_MURMUR3_AS_LONG[3][0]


def test_2x_partial_key_with_a_custom_helper_is_refused_by_its_class():
    """A user's AssignmentCreator is Java code: refused, naming it."""
    ctx = context()._replace(read_java_grouping=lambda data: groupings.JavaGrouping(
        groupings.PARTIAL_KEY_GROUPING_CLASS, {
            "fields": None, "assignment_creator": "com.example.Creator",
            "target_selector": groupings.PARTIAL_KEY_GROUPING_2X_DEFAULTS[1]}))
    with pytest.raises(GroupingError, match="com.example.Creator"):
        grouper(Grouping(custom_serialized=b"\xac\xed"), [1], ctx=ctx)


def test_storms_serialized_shuffle_grouping_is_refused_by_class_name():
    """Any other Java grouping object is refused, naming its class."""
    with pytest.raises(GroupingError, match="org.apache.storm.grouping.ShuffleGrouping "):
        grouper(Grouping(custom_serialized=SHUFFLE_GROUPING), [1])


# Custom and direct


def _serialized(class_name):
    name = class_name.encode("utf-8")
    return b"\xac\xed\x00\x05\x73\x72" + len(name).to_bytes(2, "big") + name + b"\x00" * 9


def test_custom_serialized_grouping_names_its_class():
    """A Java grouping object is a component error naming the component, stream and class."""
    with pytest.raises(GroupingError) as e:
        grouper(Grouping(custom_serialized=_serialized("com.example.MyGrouping")), [1])
    assert "component words, stream default" in str(e.value)
    assert "com.example.MyGrouping (custom_serialized)" in str(e.value)


def test_partial_key_whose_fields_were_not_read_is_refused_by_name():
    """The default reader only names the class, so PartialKeyGrouping is refused clearly."""
    with pytest.raises(GroupingError, match="org.apache.storm.grouping.PartialKeyGrouping"):
        grouper(Grouping(custom_serialized=_serialized(groupings.PARTIAL_KEY_GROUPING_CLASS)),
                [1])


def test_custom_object_and_garbage_bytes_are_refused_by_name():
    """custom_object names its class; bytes that are no Java stream say so."""
    with pytest.raises(GroupingError, match="com.example.Obj \\(custom_object\\)"):
        grouper(Grouping(custom_object=JavaObject("com.example.Obj", [])), [1])
    with pytest.raises(GroupingError, match="an unreadable Java object"):
        grouper(Grouping(custom_serialized=b"junk"), [1])


def test_direct_grouping_is_the_direct_marker():
    """mk-grouper returns :direct for a direct grouping."""
    assert grouper(Grouping(direct=NullStruct()), [1, 2]) is DIRECT


def test_emit_direct_goes_to_the_given_task_of_a_direct_subscriber():
    """emitDirect: the task itself; a non-subscriber drops it; a regular grouping refuses."""
    routes = {"s": {"direct_bolt": DIRECT, "plain_bolt": groupings.AllGrouper([5])}}
    task_to_component = {3: "direct_bolt", 5: "plain_bolt", 8: "other"}
    assert groupings.out_tasks_direct(routes, task_to_component, 3, "s") == [3]
    assert groupings.out_tasks_direct(routes, task_to_component, 8, "s") == []
    assert groupings.out_tasks_direct(routes, task_to_component, 99, "s") == []
    with pytest.raises(GroupingError, match="Cannot emitDirect to a task expecting"):
        groupings.out_tasks_direct(routes, task_to_component, 5, "s")
    with pytest.raises(GroupingError, match="Cannot do regular emit to direct stream"):
        groupings.out_tasks(routes, 1, "s", [])


# outbound-components on a real system topology


def _topology():
    obj = ComponentObject(serialized_java=b"\x01")

    def bolt(inputs, p):
        return Bolt(bolt_object=obj, common=ComponentCommon(
            inputs=inputs, streams={"default": StreamInfo(["word", "count"], False)},
            parallelism_hint=p))

    words = GlobalStreamId("words", "default")
    return StormTopology(
        spouts={"words": SpoutSpec(spout_object=obj, common=ComponentCommon(
            inputs={}, streams={"default": StreamInfo(["word"], False),
                                "side": StreamInfo(["x"], True)}, parallelism_hint=2))},
        bolts={"count": bolt({words: Grouping(fields=["word"])}, 3),
               "log": bolt({words: Grouping(all=NullStruct()),
                            GlobalStreamId("words", "side"): Grouping(direct=NullStruct())}, 1),
               "sum": bolt({GlobalStreamId("count", "default"): Grouping(fields=[])}, 2)},
        state_spouts={})


def test_outbound_components_uses_storm_task_ids_of_the_system_topology():
    """Each subscriber of the spout's streams gets a grouper over its storm_task_info tasks."""
    conf = default_config()
    conf.update({"topology.workers": 1})
    user = normalize_topology(conf, _topology(), "1.x")
    task_info = storm_task_info(user, conf)
    component_to_tasks = groupings.component_to_sorted_tasks(task_info)
    assert component_to_tasks["count"] == [2, 3, 4] and component_to_tasks["log"] == [5]
    topology = system_topology(conf, user)
    out = groupings.outbound_components(context(), topology, "words", component_to_tasks)
    assert set(out["default"]) == {"count", "log"}
    assert out["side"] == {"log": DIRECT}
    assert "__ack_init" in out and set(out["__ack_init"]) == {"__acker"}
    assert groupings.out_tasks(out, 7, "default", ["apple"]) == [
        2 + groupings.list_hash_code(["apple"]) % 3, 5]
    assert groupings.out_tasks_direct(out, task_info, 5, "side") == [5]
    sum_out = groupings.outbound_components(context(), topology, "count", component_to_tasks)
    assert groupings.out_tasks(sum_out, 2, "default", ["a", 1]) == [
        min(component_to_tasks["sum"])]


def test_the_tasks_fn_of_each_stream_gives_what_out_tasks_gives():
    """stream_tasks_fns: one function per stream, the same tasks as out_tasks (one grouper,
    several, the acker's fields grouping); a stream with a direct subscriber refuses a
    regular emit as out_tasks does."""
    conf = default_config()
    conf.update({"topology.workers": 1})
    user = normalize_topology(conf, _topology(), "1.x")
    component_to_tasks = groupings.component_to_sorted_tasks(storm_task_info(user, conf))
    out = groupings.outbound_components(context(), system_topology(conf, user), "words",
                                        component_to_tasks)
    fns = groupings.stream_tasks_fns(out)
    for stream, values in [("default", ["apple"]), ("default", ["pear"]),
                           ("__ack_init", [123456789012, 5, 7]), ("__ack_init", [-3, 0, 7])]:
        assert list(fns[stream](7, values)) == groupings.out_tasks(out, 7, stream, values)
    with pytest.raises(GroupingError, match="Cannot do regular emit to direct stream"):
        fns["side"](7, ["x"])


def test_groupings_module_is_pure():
    """No Twisted, sockets, files, processes or clocks: stdlib value modules, the ports
    (Trident's partitions among them) and javaobj (a parser of bytes)."""
    imported = imported_modules(groupings)
    assert imported <= {"collections", "struct", "pynimbus.clojure_port.java_hash_map",
                        "pynimbus.clojure_port.system_topology", "javaobj.v2",
                        "pynimbus.trident", "pynimbus.trident.partition",
                        "pynimbus.trident.transaction_attempt"}


@pytest.mark.parametrize("ackers,one_acker", [(1, True), (2, False)])
def test_only_target_task_of_the_acker_streams(ackers, one_acker):
    """In the system topology a spout's ``__ack_init`` and a bolt's ``__ack_ack`` have the
    acker's task as their only target when there is one acker, and none with two."""
    conf = default_config()
    conf.update({"topology.workers": 1, "topology.acker.executors": ackers})
    user = normalize_topology(conf, _topology(), "1.x")
    task_info = storm_task_info(user, conf)
    component_to_tasks = groupings.component_to_sorted_tasks(task_info)
    topology = system_topology(conf, user)
    for component_id, stream in (("words", "__ack_init"), ("count", "__ack_ack")):
        out = groupings.outbound_components(context(), topology, component_id,
                                            component_to_tasks)
        expected = component_to_tasks["__acker"][0] if one_acker else None
        assert groupings.only_target_task(out[stream]) == expected
