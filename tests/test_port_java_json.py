"""JSON and printed values as Storm's JVM writes them (clojure_port.java_json), and the Java
map orders and hashes the conf's ports rely on."""
# test-case-name: tests.test_port_java_json

from pynimbus.clojure_port.java_hash_map import java_hashmap_order, string_hash as java_string_hash
from pynimbus.clojure_port.java_json import java_double_to_string, to_json
from pynimbus.clojure_port.java_order import clojure_map_order


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
