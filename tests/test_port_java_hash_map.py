"""Tests of pynimbus.clojure_port.java_hash_map against what a JVM printed (Java 17).

Every expected order below is what ``HashMap.keySet()`` printed for the same history.
"""
# test-case-name: tests.test_port_java_hash_map

import itertools

from pynimbus.clojure_port import java_hash_map as jhm


def replay(history, key_hash=jhm.integer_hash, initial_capacity=None):
    """A JavaHashMap after ``history``: ``("put", key)`` and ``("remove", key)`` steps."""
    m = jhm.JavaHashMap(initial_capacity, key_hash=key_hash)
    for op, key in history:
        if op == "put":
            m.put(key)
        else:
            m.remove(key)
    return m


def puts(keys):
    return [("put", k) for k in keys]


def removes(keys):
    return [("remove", k) for k in keys]


def test_string_hash_matches_java_string_hashcode():
    """String.hashCode wraps to a signed int over UTF-16 code units (a surrogate pair is two)."""
    assert jhm.string_hash("") == 0
    assert jhm.string_hash("abc") == 96354
    assert jhm.string_hash("supervisor1") == -1074521655
    assert jhm.string_hash("h\u00e9\U0001F600") == 5095076


def test_long_and_list_hash_match_java():
    """Long.hashCode folds the high word in; List.hashCode is 31-based over the elements."""
    assert jhm.long_hash(-5) == 4
    assert jhm.long_hash(1 << 40) == 256
    assert jhm.list_hash([jhm.long_hash(3), jhm.long_hash(7)]) == 1061


def test_table_size_for_rounds_up_to_a_power_of_two():
    """tableSizeFor gives 1 for 0 and 1, else the next power of two."""
    assert [jhm.table_size_for(n) for n in (0, 1, 2, 3, 16, 17)] == [1, 1, 2, 4, 16, 32]


def test_spread_mixes_the_high_half_into_the_low_half():
    """HashMap.hash is h ^ (h >>> 16), as an unsigned value."""
    assert jhm.spread(6700) == 6700
    assert jhm.spread(-1) == 0xFFFF0000


def test_hash_set_of_four_ports_iterates_ascending():
    """Ports 6700-6703 fall in buckets 12-15 of a 16-slot table, in port order."""
    assert jhm.java_hash_map_order([6703, 6701, 6700, 6702], jhm.integer_hash) == [
        6700, 6701, 6702, 6703]


def test_hash_set_of_twelve_ports_starts_at_6704():
    """Ports 6700-6711 iterate 6704..6711 then 6700..6703, as Java prints the HashSet."""
    assert jhm.java_hash_map_order(range(6700, 6712), jhm.integer_hash) == (
        list(range(6704, 6712)) + list(range(6700, 6704)))


def test_thirteen_ports_resize_the_table_to_32():
    """The 13th key passes 0.75 x 16 buckets; in 32 buckets 6700-6712 come in order."""
    layout = jhm.java_hash_map_layout(range(6700, 6713), jhm.integer_hash)
    assert layout.capacity == 32
    assert layout.order == list(range(6700, 6713))


def test_nine_keys_in_one_small_bucket_double_the_table():
    """A 9th key in one bucket of a table under 64 doubles it (treeifyBin) instead of a tree."""
    layout = jhm.java_hash_map_layout([6700 + 16 * i for i in range(9)], jhm.integer_hash)
    assert layout == jhm.JavaHashMapLayout(
        [6700, 6732, 6764, 6796, 6828, 6716, 6748, 6780, 6812], 32, True)


def test_string_keys_iterate_in_bucket_order():
    """A HashMap of strings iterates as Java 17 printed its key set."""
    keys = ["supervisor1", "supervisor2", "supervisor3", "a", "b", "Aa", "BB"]
    assert jhm.java_hash_map_order(keys, jhm.string_hash) == [
        "Aa", "BB", "a", "b", "supervisor1", "supervisor2", "supervisor3"]


def test_colliding_keys_keep_insertion_order_in_a_presized_map():
    """HashMap(3).putAll of three keys in one bucket iterates them in insertion order."""
    assert jhm.java_hash_map_order(["sup-b", "sup-a", "sup-c"], jhm.string_hash,
                                  initial_capacity=3, put_all=True) == ["sup-b", "sup-a", "sup-c"]


def test_repeated_keys_keep_their_first_position():
    """Putting an existing key again replaces the value in place."""
    assert jhm.java_hash_map_order(["b", "a", "b"], jhm.string_hash) == ["a", "b"]


def test_empty_map_has_no_table():
    """No key, no table: capacity 0."""
    assert jhm.java_hash_map_layout([], jhm.string_hash) == jhm.JavaHashMapLayout([], 0, True)


def test_hash_set_copy_capacity_is_at_least_16():
    """new HashSet(collection) asks for max(size / 0.75 + 1, 16)."""
    assert jhm.hash_set_copy_capacity(3) == 16
    assert jhm.hash_set_copy_capacity(30) == 41


def test_java_hash_map_removal_keeps_capacity_and_order():
    """Removing keys neither shrinks the table nor moves the others."""
    layout = jhm.java_hash_map_layout(range(6700, 6713), jhm.integer_hash, removed=[6701, 6702])
    assert layout.capacity == 32
    assert layout.order == [6700] + list(range(6703, 6713))


def test_java_hash_map_re_put_key_goes_to_the_end_of_its_bucket():
    """"Aa" and "BB" share a hash: removing and putting "Aa" again puts it after "BB"."""
    assert jhm.java_hash_map_order(["Aa", "BB"], jhm.string_hash) == ["Aa", "BB"]
    assert jhm.java_hash_map_order(["Aa", "BB"], jhm.string_hash, removed=["Aa"],
                                  then_put=["Aa"]) == ["BB", "Aa"]


# Tree bins (9 or more keys in one bucket of a table of 64 or more)


def test_a_tree_bin_iterates_root_first_then_in_link_order():
    """Nine keys in bucket 0 of a 64-slot table become a red-black tree: its root (192) moves
    to the front, the others keep their order."""
    m = replay(puts(64 * i for i in range(9)), initial_capacity=64)
    assert m.keys() == [192, 0, 64, 128, 256, 320, 384, 448, 512]
    assert m.capacity == 64
    assert m.exact


def test_a_new_key_in_a_tree_bin_is_linked_after_its_tree_parent():
    """Past the ninth key, each new key goes right after its parent in the tree, and the
    rebalanced root moves to the front; a removal from a big tree just unlinks the key."""
    m = replay(puts(64 * i for i in range(12)) + removes([0]), initial_capacity=64)
    assert m.keys() == [448, 192, 64, 128, 256, 320, 384, 512, 576, 640, 704]


def test_a_removal_from_a_small_tree_turns_it_back_into_a_list():
    """Once the root's left child has no left child, the next removal makes a plain bin of
    the remaining keys, in their link order."""
    m = replay(puts(64 * i for i in range(9)) + removes([0]), initial_capacity=64)
    assert m.keys() == [192, 64, 128, 256, 320, 384, 448, 512]
    m.remove(64)
    m.remove(128)
    assert m.keys() == [192, 256, 320, 384, 448, 512]


def test_a_resize_splits_a_tree_bin_keeping_its_link_order():
    """Ten keys in bucket 0 split 5 and 5 when the table doubles to 128: both halves become
    lists in the tree's link order (the upper half does not come in insertion order)."""
    m = replay(puts([64 * i for i in range(10)] + list(range(1, 40))), initial_capacity=64)
    assert m.capacity == 128
    assert m.keys() == [0, 128, 256, 384, 512] + list(range(1, 40)) + [192, 64, 320, 448, 576]


def test_a_resize_rebuilds_a_tree_half_of_more_than_six_keys():
    """Eight keys stay in bucket 0 and eight move to 64: each half is a tree again, rebuilt
    with its own root in front."""
    keys = [128 * i for i in range(8)] + [64 + 128 * i for i in range(8)] + list(range(1, 40))
    m = replay(puts(keys), initial_capacity=64)
    assert m.keys() == ([384, 0, 128, 256, 512, 640, 768, 896] + list(range(1, 40))
                        + [320, 192, 576, 448, 704, 960, 832, 64])


def test_equal_hash_strings_in_a_tree_bin_are_ordered_by_compare_to():
    """16 strings of one hash code ("Aa"/"BB" blocks) fill one bucket; the tree orders them
    by String.compareTo, so the order is exact."""
    keys = ["".join(p) for p in itertools.product(["Aa", "BB"], repeat=4)]
    expected = ["AaAaBBBB"] + [k for k in keys if k != "AaAaBBBB"]
    for capacity in (None, 64):
        m = replay(puts(keys), jhm.string_hash, capacity)
        assert m.keys() == expected
        assert m.exact


def test_equal_hash_keys_of_no_comparable_class_are_reported_inexact():
    """Lists of one hash code in a tree bin are ordered by identity hash codes: not
    reproducible, so the map says it is not exact."""
    def executor_list_hash(executor):
        return jhm.list_hash([jhm.long_hash(x) for x in executor])
    keys = [(a, 310 - 31 * a) for a in range(10)]  # 31 * a + b == 310 for all
    layout = jhm.java_hash_map_layout(keys, executor_list_hash, initial_capacity=64)
    assert sorted(layout.order) == sorted(keys)
    assert not layout.exact


def test_java_hash_map_keeps_values_and_iterates_items_in_key_order():
    """put replaces a known key's value in place; items and to_dict follow the key order."""
    m = jhm.JavaHashMap(items=[("b", 1), ("a", 2)])
    m.put("b", 3)
    assert m.items() == [("a", 2), ("b", 3)]
    assert m.to_dict() == {"a": 2, "b": 3} and list(m.to_dict()) == ["a", "b"]
    assert "a" in m and len(m) == 2 and m.get("c", 0) == 0
