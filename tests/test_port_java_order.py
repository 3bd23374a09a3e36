"""Tests of pynimbus.clojure_port.java_order against what a JVM printed (Java 17, Clojure 1.7).

The HashMap model itself is tested in tests/test_port_java_hash_map.py.
"""

from pynimbus.clojure_port import java_order as jo


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


def test_scheduler_slots_2x_walks_the_thrift_map_through_its_tree_bins():
    """17 single-task executors fill the Thrift HashMap(34) keyed by List<Long>: 15 of them
    share a bucket of its 64-slot table, a tree bin whose order reaches execToSlot's ties
    ((53 53) before (21 21)), as Java 17 printed the same chain of HashMaps."""
    tasks = [21, 23, 26, 31, 53, 73, 83, 89, 95, 109, 131, 141, 147, 150, 155, 159, 187]
    wire = [((t, t), ("sup-a" if i % 2 == 0 else "sup-b", 6700)) for i, t in enumerate(tasks)]
    assert jo.scheduler_slots_2x(wire, {e for e, _ in wire}) == [
        (("sup-a", 6700), [(t, t) for t in (53, 21, 83, 131, 147, 26, 95, 155, 187)]),
        (("sup-b", 6700), [(t, t) for t in (23, 31, 159, 150, 109, 141, 73, 89)])]


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


def test_executor_list_hash_is_list_hash_code_of_two_longs():
    """[3 7] hashes as Java's List.hashCode printed; ids past an int take the Long fold."""
    assert jo.executor_list_hash((3, 7)) == 1061
    for executor in ((0, 0), (2 ** 31 - 1, 2 ** 31 - 1), (2 ** 31, 5), (1, 2 ** 40), (-5, 3)):
        assert jo.executor_list_hash(executor) == jo.list_hash(
            [jo.long_hash(executor[0]), jo.long_hash(executor[1])])
