"""Tests of pynimbus.clojure_port.java_order against what a JVM printed (Java 17, Clojure 1.7)."""

from pynimbus.clojure_port import java_order as jo


def test_string_hash_matches_java_string_hashcode():
    """String.hashCode wraps to a signed int over UTF-16 code units (a surrogate pair is two)."""
    assert jo.string_hash("") == 0
    assert jo.string_hash("abc") == 96354
    assert jo.string_hash("supervisor1") == -1074521655
    assert jo.string_hash("h\u00e9\U0001F600") == 5095076


def test_long_and_list_hash_match_java():
    """Long.hashCode folds the high word in; List.hashCode is 31-based over the elements."""
    assert jo.long_hash(-5) == 4
    assert jo.long_hash(1 << 40) == 256
    assert jo.list_hash([jo.long_hash(3), jo.long_hash(7)]) == 1061


def test_table_size_for_rounds_up_to_a_power_of_two():
    """tableSizeFor gives 1 for 0 and 1, else the next power of two."""
    assert [jo.table_size_for(n) for n in (0, 1, 2, 3, 16, 17)] == [1, 1, 2, 4, 16, 32]


def test_spread_mixes_the_high_half_into_the_low_half():
    """HashMap.hash is h ^ (h >>> 16), as an unsigned value."""
    assert jo.spread(6700) == 6700
    assert jo.spread(-1) == 0xFFFF0000


def test_hash_set_of_four_ports_iterates_ascending():
    """Ports 6700-6703 fall in buckets 12-15 of a 16-slot table, in port order."""
    assert jo.java_hash_map_order([6703, 6701, 6700, 6702], jo.integer_hash) == [
        6700, 6701, 6702, 6703]


def test_hash_set_of_twelve_ports_starts_at_6704():
    """Ports 6700-6711 iterate 6704..6711 then 6700..6703, as Java prints the HashSet."""
    assert jo.java_hash_map_order(range(6700, 6712), jo.integer_hash) == (
        list(range(6704, 6712)) + list(range(6700, 6704)))


def test_thirteen_ports_resize_the_table_to_32():
    """The 13th key passes 0.75 x 16 buckets; in 32 buckets 6700-6712 come in order."""
    layout = jo.java_hash_map_layout(range(6700, 6713), jo.integer_hash)
    assert layout.capacity == 32
    assert layout.order == list(range(6700, 6713))


def test_nine_keys_in_one_small_bucket_double_the_table():
    """A 9th key in one bucket of a table under 64 doubles it (treeifyBin) instead of a tree."""
    layout = jo.java_hash_map_layout([6700 + 16 * i for i in range(9)], jo.integer_hash)
    assert layout == jo.JavaHashMapLayout(
        [6700, 6732, 6764, 6796, 6828, 6716, 6748, 6780, 6812], 32, True)


def test_a_treeified_bucket_is_reported_inexact():
    """Nine keys in one bucket of a 64-bucket table make a tree bin: order not reproduced."""
    layout = jo.java_hash_map_layout([64 * i for i in range(9)], jo.integer_hash,
                                     initial_capacity=64)
    assert layout.capacity == 64
    assert not layout.exact


def test_string_keys_iterate_in_bucket_order():
    """A HashMap of strings iterates as Java 17 printed its key set."""
    keys = ["supervisor1", "supervisor2", "supervisor3", "a", "b", "Aa", "BB"]
    assert jo.java_hash_map_order(keys, jo.string_hash) == [
        "Aa", "BB", "a", "b", "supervisor1", "supervisor2", "supervisor3"]


def test_colliding_keys_keep_insertion_order_in_a_presized_map():
    """HashMap(3).putAll of three keys in one bucket iterates them in insertion order."""
    assert jo.java_hash_map_order(["sup-b", "sup-a", "sup-c"], jo.string_hash,
                                  initial_capacity=3, put_all=True) == ["sup-b", "sup-a", "sup-c"]


def test_repeated_keys_keep_their_first_position():
    """Putting an existing key again replaces the value in place."""
    assert jo.java_hash_map_order(["b", "a", "b"], jo.string_hash) == ["a", "b"]


def test_empty_map_has_no_table():
    """No key, no table: capacity 0."""
    assert jo.java_hash_map_layout([], jo.string_hash) == jo.JavaHashMapLayout([], 0, True)


def test_hash_set_copy_capacity_is_at_least_16():
    """new HashSet(collection) asks for max(size / 0.75 + 1, 16)."""
    assert jo.hash_set_copy_capacity(3) == 16
    assert jo.hash_set_copy_capacity(30) == 41


def test_clojure_hasheq_matches_clojure_1_7():
    """hasheq of strings, longs and vectors equals what Clojure 1.7's hash printed."""
    assert jo.clojure_hasheq_string("abc") == 74834163
    assert jo.clojure_hasheq_string("supervisor1") == 1700584353
    assert jo.clojure_hasheq_long(6700) == -1854964158
    assert jo.clojure_hasheq_long(0) == 0
    assert jo.clojure_hash_ordered([jo.murmur3_hash_long(3), jo.murmur3_hash_long(7)]) == (
        -930169445)
    assert jo.clojure_hasheq_vector(["supervisor1", 6700]) == -406758856


def test_murmur3_hash_int_of_zero_is_zero():
    """Murmur3.hashInt short-cuts 0."""
    assert jo.murmur3_hash_int(0) == 0


def test_small_clojure_map_keeps_insertion_order():
    """Up to 8 keys an into-built map is an array map in insertion order."""
    keys = ["s%d" % i for i in range(8)]
    assert jo.clojure_map_order(keys, jo.clojure_hasheq_string) == keys


def test_ten_key_clojure_map_iterates_in_hash_trie_order():
    """Ten keys make a PersistentHashMap, iterated as Clojure 1.7 printed its keys."""
    keys = ["s%d" % i for i in range(10)]
    assert jo.clojure_map_order(keys, jo.clojure_hasheq_string) == [
        "s6", "s8", "s4", "s3", "s0", "s1", "s2", "s7", "s5", "s9"]


def test_persistent_assoc_keeps_nine_keys_in_insertion_order():
    """A reduce of assoc converts to a hash map only at the 10th key."""
    keys = ["s%d" % i for i in range(9)]
    assert jo.clojure_map_order(keys, jo.clojure_hasheq_string,
                                jo.ARRAY_MAP_MAX_PERSISTENT) == keys
    assert jo.clojure_map_order(keys, jo.clojure_hasheq_string) != keys


def test_clojure_set_is_always_in_trie_order():
    """A Clojure set of five ports iterates as Clojure 1.7 printed it."""
    assert jo.clojure_set_order([6700, 6701, 6702, 6703, 6716], jo.clojure_hasheq_long) == [
        6700, 6701, 6703, 6702, 6716]


def test_port_order_1x_of_four_ports_is_ascending():
    """A 1.2.4 supervisor with ports 6700-6703 offers them ascending."""
    assert jo.port_order_1x([6703, 6702, 6701, 6700]) == [6700, 6701, 6702, 6703]


def test_port_order_1x_of_twelve_ports_starts_at_6704():
    """A 1.2.4 supervisor with ports 6700-6711 offers 6704 first."""
    assert jo.port_order_1x(list(range(6700, 6712))) == (
        list(range(6704, 6712)) + list(range(6700, 6704)))


def test_supervisor_order_1x_sorts_by_java_bucket():
    """Three supervisors go through a Clojure array map then a presized HashMap."""
    assert jo.supervisor_order_1x(["supervisor3", "supervisor1", "supervisor2"]) == [
        "supervisor1", "supervisor2", "supervisor3"]


def test_topology_order_puts_colliding_ids_in_children_order():
    """Ids in one bucket keep the /storms children order in both generations."""
    ids = ["Aa", "BB"]  # equal String.hashCode
    assert jo.topology_order(ids, "1.x") == ["Aa", "BB"]
    assert jo.topology_order(["BB", "Aa"], "2.x") == ["BB", "Aa"]


def test_node_group_order_1x_switches_to_hash_order_past_eight_nodes():
    """group-by keeps first appearance for 8 nodes and uses Clojure hash order for 10."""
    eight = ["s%d" % i for i in range(8)]
    assert jo.node_group_order_1x(eight) == eight
    ten = ["s%d" % i for i in range(10)]
    assert jo.node_group_order_1x(ten) == ["s6", "s8", "s4", "s3", "s0", "s1", "s2", "s7",
                                           "s5", "s9"]


def test_alive_assigned_slot_order_follows_the_scheduler_assignment_hash_map():
    """Two slots of a small 1.x assignment come in SchedulerAssignmentImpl's HashMap order."""
    wire = [((1, 1), ("n", 6700)), ((2, 2), ("n", 6701))]
    # ExecutorDetails hashes 14 and 28 in a 4-bucket table: [2 2] (bucket 0) before [1 1] (2).
    assert jo.alive_assigned_slot_order(wire, {(1, 1), (2, 2)}, "1.x") == [
        ("n", 6701), ("n", 6700)]


def test_alive_assigned_slot_order_2x_sorts_by_worker_slot_hash():
    """2.x walks a HashMap keyed by WorkerSlot (nodeId.hashCode() + 13 * port)."""
    wire = [((1, 1), ("a", 2)), ((2, 2), ("a", 1))]
    # hashes 97 + 26 = 123 and 97 + 13 = 110: buckets 11 and 14 of 16.
    assert jo.alive_assigned_slot_order(wire, {(1, 1), (2, 2)}, "2.x") == [("a", 2), ("a", 1)]


def test_alive_assigned_slot_order_drops_slots_freed_since():
    """Executors whose slot was freed leave it out of the order."""
    wire = [((1, 1), ("n", 6700)), ((2, 2), ("n", 6701))]
    assert jo.alive_assigned_slot_order(wire, {(1, 1), (2, 2)}, "1.x",
                                        removed=[(1, 1)]) == [("n", 6701)]


def test_alive_assigned_slot_order_puts_reassigned_executors_last_in_their_bucket():
    """A freed executor assigned again goes to the end of its Java bucket."""
    wire = [((1, 1), ("a", 1)), ((17, 17), ("b", 1))]
    # ExecutorDetails hashes 14 and 238 share bucket 2 of the 4-bucket SchedulerAssignmentImpl.
    assert jo.alive_assigned_slot_order(wire, {(1, 1), (17, 17)}, "1.x") == [("a", 1), ("b", 1)]
    assert jo.alive_assigned_slot_order(wire, {(1, 1), (17, 17)}, "1.x", removed=[(1, 1)],
                                        added=[((1, 1), ("c", 1))]) == [("b", 1), ("c", 1)]


def test_java_hash_map_removal_keeps_capacity_and_order():
    """Removing keys neither shrinks the table nor moves the others."""
    layout = jo.java_hash_map_layout(range(6700, 6713), jo.integer_hash, removed=[6701, 6702])
    assert layout.capacity == 32
    assert layout.order == [6700] + list(range(6703, 6713))


def test_java_hash_map_re_put_key_goes_to_the_end_of_its_bucket():
    """"Aa" and "BB" share a hash: removing and putting "Aa" again puts it after "BB"."""
    assert jo.java_hash_map_order(["Aa", "BB"], jo.string_hash) == ["Aa", "BB"]
    assert jo.java_hash_map_order(["Aa", "BB"], jo.string_hash, removed=["Aa"],
                                  then_put=["Aa"]) == ["BB", "Aa"]
