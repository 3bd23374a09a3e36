"""Trident's map states (pynimbus.trident.state).

The scenarios of Storm 1.2.4's ``trident/state_test.clj`` (opaque values, opaque and
transactional maps with replays, MemoryMapState's removals), each map run over memory, over an
:class:`SQLiteBackingMap` and over what :class:`SQLiteMapState.Factory` makes; then what the
SQLite state adds: several workers on one file, replays across workers, Storm's JSON bytes in
the file, and the factory's checks.
"""

import os
import sqlite3

import pytest

from pynimbus.trident.builtin import Count, MapGet
from pynimbus.trident.state import (
    CachedBatchReadsMap, CachedMap, JSONNonTransactionalSerializer, JSONOpaqueSerializer,
    JSONTransactionalSerializer, MemoryBackingMap, MemoryMapState, NonTransactionalMap,
    OpaqueMap, OpaqueValue, SnapshottableMap, SQLiteBackingMap, SQLiteMapState, StateType,
    TransactionalMap, TransactionalValue)
from pynimbus.trident.state import sqlite as sqlite_state
from pynimbus.trident.state.updaters import CombinerAggStateUpdater, CombinerValueUpdater

SERIALIZERS = {
    "transactional": JSONTransactionalSerializer,
    "opaque": JSONOpaqueSerializer,
    "non_transactional": JSONNonTransactionalSerializer,
}
MAPS = {
    "transactional": TransactionalMap,
    "opaque": OpaqueMap,
    "non_transactional": NonTransactionalMap,
}


def single_get(state, key):
    return state.multi_get([[key]])[0]


def single_put(state, key, value):
    state.multi_put([[key]], [value])


def single_update(state, key, amount):
    return state.multi_update([[key]], [CombinerValueUpdater(Count(), amount)])[0]


def single_remove(state, key):
    state.multi_remove([[key]])


def add(amount):
    return CombinerValueUpdater(Count(), amount)


def stored_rows(path, table="trident_state"):
    """``{key text: value bytes}`` as another program would read the file."""
    with sqlite3.connect(path) as connection:
        return dict(connection.execute('SELECT key, value FROM "%s"' % table).fetchall())


class Collector(object):
    def __init__(self):
        self.emitted = []

    def emit(self, values):
        self.emitted.append(tuple(values))


@pytest.fixture(params=["memory", "sqlite_backing", "sqlite_factory"])
def make_map(request, tmp_path):
    """``make_map(kind)``: a map state of that kind over memory, over an SQLiteBackingMap, or
    as SQLiteMapState.Factory makes it (in a SnapshottableMap)."""
    path = str(tmp_path / "state.db")

    def make(kind):
        if request.param == "memory":
            return MAPS[kind].build(MemoryBackingMap())
        if request.param == "sqlite_backing":
            return MAPS[kind].build(
                SQLiteBackingMap(path, "trident_state", SERIALIZERS[kind]()))
        return SQLiteMapState.Factory(path, kind).make_state({}, None, 0, 1)
    return make


# -- OpaqueValue (state_test.clj test-opaque-value) -----------------------------------------

def test_opaque_value_gives_prev_on_a_replay_and_curr_after():
    value = OpaqueValue(8, "v1", "v0")
    assert value.get(None) == "v1"
    assert value.get(100) == "v1"
    assert value.get(9) == "v1"
    assert value.get(8) == "v0"
    with pytest.raises(RuntimeError, match="behind"):
        value.get(7)
    assert (value.prev, value.curr) == ("v0", "v1")

    replayed = value.update(8, "v2")
    assert replayed == OpaqueValue(8, "v2", "v0")
    later = value.update(9, "v2")
    assert later == OpaqueValue(9, "v2", "v1")
    assert replayed is not value and later is not value
    assert value == OpaqueValue(8, "v1", "v0")  # update makes a new value


def test_opaque_value_outside_a_transaction_and_behind():
    value = OpaqueValue(8, "v1", "v0")
    assert value.update(None, "v2") == OpaqueValue(None, "v2", "v1")
    with pytest.raises(RuntimeError, match="behind"):
        value.update(7, "v2")
    untimed = OpaqueValue(None, "v1")
    assert untimed.get(None) == "v1"
    with pytest.raises(RuntimeError, match="outside a transaction"):
        untimed.get(3)


# -- the map states over memory and SQLite (state_test.clj) ---------------------------------

def test_opaque_map_recomputes_a_replay_from_prev(make_map):
    state = make_map("opaque")
    state.begin_commit(1)
    assert single_get(state, "a") is None
    # what the batch wrote is its own value (intra-batch caching), not a replay's prev
    assert single_update(state, "a", 1) == 1
    assert single_get(state, "a") == 1
    assert single_update(state, "a", 2) == 3
    assert single_get(state, "a") == 3
    state.commit(1)
    # txid 1 again, with another batch: recomputed from the value before txid 1
    state.begin_commit(1)
    assert single_get(state, "a") is None
    assert single_update(state, "a", 2) == 2
    state.commit(1)
    state.begin_commit(2)
    assert single_get(state, "a") == 2
    assert single_update(state, "a", 3) == 5
    assert single_update(state, "a", 1) == 6
    state.commit(2)


def test_transactional_map_skips_a_replay_already_applied(make_map):
    state = make_map("transactional")
    state.begin_commit(1)
    assert single_get(state, "a") is None
    assert single_update(state, "a", 1) == 1
    assert single_update(state, "a", 2) == 3
    state.commit(1)
    state.begin_commit(1)
    assert single_get(state, "a") == 3
    # the same txid as the stored value's, read from the store: already applied
    assert single_update(state, "a", 1) == 3
    assert single_update(state, "a", 2) == 3
    state.commit(1)
    state.begin_commit(2)
    assert single_get(state, "a") == 3
    assert single_update(state, "a", 3) == 6
    assert single_update(state, "a", 1) == 7
    state.commit(2)


def test_non_transactional_map_applies_a_replay_again(make_map):
    state = make_map("non_transactional")
    state.begin_commit(1)
    assert single_update(state, "a", 1) == 1
    assert single_update(state, "a", 2) == 3
    state.commit(1)
    state.begin_commit(1)
    assert single_get(state, "a") == 3
    assert single_update(state, "a", 1) == 4
    state.commit(1)
    single_put(state, "a", 10)
    assert single_get(state, "a") == 10


@pytest.mark.parametrize("kind", ["transactional", "opaque"])
def test_multi_put_writes_values_as_of_the_batch(make_map, kind):
    state = make_map(kind)
    state.begin_commit(4)
    state.multi_put([["a"], ["b", 2]], ["x", {"n": [1, 2]}])
    assert state.multi_get([["b", 2], ["a"], ["c"]]) == [{"n": [1, 2]}, "x", None]
    state.commit(4)
    state.begin_commit(5)
    assert state.multi_get([("a",)]) == ["x"]  # a tuple of values is the same key as a list
    state.commit(5)


def test_several_keys_in_one_update(make_map):
    state = make_map("opaque")
    state.begin_commit(1)
    assert state.multi_update([["a"], ["b"]], [add(1), add(5)]) == [1, 5]
    state.commit(1)
    state.begin_commit(2)
    assert state.multi_update([["b"], ["c"], ["a"]], [add(1), add(7), add(2)]) == [6, 7, 3]
    state.commit(2)
    assert state.multi_get([["a"], ["b"], ["c"]]) == [3, 6, 7]


@pytest.mark.parametrize("kind,replayed", [
    ("transactional", 2), ("opaque", 4), ("non_transactional", 6)])
def test_snapshottable_map_keeps_one_value_under_its_global_key(make_map, kind, replayed):
    state = SnapshottableMap(make_map(kind), ["$GLOBAL$"])
    state.begin_commit(1)
    assert state.get() is None
    assert state.update(add(2)) == 2
    state.commit(1)
    state.begin_commit(1)  # replayed with a batch of 4 (transactional: the same batch)
    assert state.update(add(4)) == replayed
    state.commit(1)
    assert state.multi_get([["$GLOBAL$"]]) == [replayed]
    state.begin_commit(2)
    state.set(10)
    assert state.get() == 10
    state.commit(2)
    assert state.get() == 10


def test_snapshottable_map_wants_a_key():
    with pytest.raises(TypeError, match="list of values"):
        SnapshottableMap(OpaqueMap.build(MemoryBackingMap()), "$GLOBAL$")


# -- MemoryMapState (state_test.clj test-memory-map-state-remove) ---------------------------

def test_memory_map_state_remove_survives_a_replay_of_its_batch():
    state = MemoryMapState()
    state.begin_commit(1)
    single_put(state, "a", 1)
    single_put(state, "b", 2)
    state.commit(1)
    state.begin_commit(2)
    single_remove(state, "a")
    assert single_get(state, "a") is None
    assert single_get(state, "b") == 2
    state.commit(2)
    state.begin_commit(2)  # replay: the removal is undone with the rest of the batch
    assert single_get(state, "a") == 1
    assert single_get(state, "b") == 2
    single_remove(state, "a")
    state.commit(2)
    state.begin_commit(3)
    assert single_get(state, "a") is None
    assert single_get(state, "b") == 2
    state.commit(3)
    assert ("a",) not in state.backing.values  # dropped once a later batch began


def test_memory_map_state_is_an_opaque_snapshottable_map():
    factory = MemoryMapState.Factory()
    state = factory.make_state({}, None, 0, 1)
    state.begin_commit(1)
    assert state.update(add(3)) == 3
    state.multi_update([["w"]], [add(2)])
    state.commit(1)
    assert factory.backing(0) == {
        ("$MEMORY-MAP-STATE-GLOBAL$",): OpaqueValue(1, 3),
        ("w",): OpaqueValue(1, 2)}
    state.begin_commit(1)
    assert state.update(add(1)) == 1  # opaque replay: from the value before txid 1
    state.commit(1)
    assert state.get() == 1
    assert sorted(state.get_tuples()) == [["$MEMORY-MAP-STATE-GLOBAL$", 1], ["w", 2]]


def test_memory_map_state_tasks_from_one_factory_share_values():
    factory = MemoryMapState.Factory()
    persist = factory.make_state({}, None, 0, 2)
    query = factory.make_state({}, None, 0, 2)  # a state_query task of the same partition
    persist.begin_commit(1)
    persist.multi_update([["a"]], [add(2)])
    persist.commit(1)
    assert MapGet().batch_retrieve(query, [("a",)]) == [2]
    persist.begin_commit(2)
    persist.multi_update([["a"]], [add(5)])
    persist.commit(2)
    assert query.multi_get([["a"]]) == [7]
    # as in Storm (the factory's id and the partition index): other partitions, and other
    # factories, have their own
    assert factory.make_state({}, None, 1, 2).multi_get([["a"]]) == [None]
    assert MemoryMapState.Factory().make_state({}, None, 0, 2).multi_get([["a"]]) == [None]


# -- the caches ----------------------------------------------------------------------------

class CountingBackingMap(MemoryBackingMap):
    def __init__(self):
        super().__init__()
        self.asked = []

    def multi_get(self, keys):
        self.asked.append([list(k) for k in keys])
        return super().multi_get(keys)


def test_cached_batch_reads_map_marks_what_the_batch_wrote():
    backing = CountingBackingMap()
    backing.multi_put([["a"], ["b"]], [1, 2])
    cached = CachedBatchReadsMap(backing)
    cached.multi_put([["a"]], [10])
    assert cached.multi_get([["a"], ["b"]]) == [(10, True), (2, False)]
    assert backing.asked == [[["b"]]]
    cached.reset()
    assert cached.multi_get([["a"]]) == [(10, False)]


def test_cached_map_keeps_the_recently_used_keys():
    backing = CountingBackingMap()
    backing.multi_put([["a"], ["b"], ["c"]], [1, 2, 3])
    cached = CachedMap(backing, 2)
    assert cached.multi_get([["a"], ["b"]]) == [1, 2]
    assert cached.multi_get([["a"]]) == [1]  # a hit: "a" is now the most recent
    assert cached.multi_get([["c"]]) == [3]  # "b" is dropped
    assert cached.multi_get([["a"], ["b"], ["c"]]) == [1, 2, 3]
    assert backing.asked == [[["a"], ["b"]], [["c"]], [["b"]]]
    cached.multi_put([["d"]], [4])
    assert backing.values[("d",)] == 4


# -- the JSON serializers ------------------------------------------------------------------

def test_serializers_write_storms_json_bytes():
    transactional = JSONTransactionalSerializer()
    data = transactional.serialize(TransactionalValue(7, {"a/b": [1, 2.5, None, True]}))
    assert data == b'[7,{"a\\/b":[1,2.5,null,true]}]'
    assert transactional.deserialize(data) == TransactionalValue(7, {"a/b": [1, 2.5, None, True]})

    opaque = JSONOpaqueSerializer()
    assert opaque.serialize(OpaqueValue(3, 5, 2)) == b"[3,5,2]"
    data = opaque.serialize(OpaqueValue(1, "\u00e9t\u00e9"))
    assert data == b'[1,"\xc3\xa9t\xc3\xa9",null]'
    assert opaque.deserialize(data) == OpaqueValue(1, "\u00e9t\u00e9", None)

    plain = JSONNonTransactionalSerializer()
    assert plain.serialize(("x", 1)) == b'["x",1]'
    assert plain.serialize(1e10) == b"1.0E10"  # as a Java double prints
    assert plain.deserialize(b"1.0E10") == 1e10
    assert plain.serialize(None) == b"null"


@pytest.mark.parametrize("value,where", [
    (object(), "value is <object"), ({1: "x"}, "JSON object keys are strings"),
    ([1, {"k": {2, 3}}], "value[1]['k'] is")])
def test_serializers_refuse_what_is_not_json(value, where):
    with pytest.raises(TypeError, match="JSON-serializable") as raised:
        JSONNonTransactionalSerializer().serialize(value)
    assert where in str(raised.value)


# -- SQLiteMapState -------------------------------------------------------------------------

def test_sqlite_factory_opens_its_file_in_make_state(tmp_path):
    path = str(tmp_path / "state.db")
    factory = SQLiteMapState.Factory(path, "opaque")
    assert not os.path.exists(path)  # planning time: nothing opened
    state = factory.make_state({}, None, 0, 1)
    assert os.path.exists(path)
    with sqlite3.connect(path) as connection:
        assert connection.execute("PRAGMA journal_mode").fetchone() == ("wal",)
    assert isinstance(state, SnapshottableMap) and isinstance(state.delegate, OpaqueMap)


@pytest.mark.parametrize("kind,map_class", [
    ("transactional", TransactionalMap), (StateType.OPAQUE, OpaqueMap),
    ("non_transactional", NonTransactionalMap)])
def test_sqlite_factory_builds_the_map_of_its_kind(tmp_path, kind, map_class):
    state = SQLiteMapState.Factory(str(tmp_path / "s.db"), kind).make_state({}, None, 0, 1)
    assert type(state.delegate) is map_class


def test_sqlite_factory_refuses_what_cannot_work(tmp_path):
    with pytest.raises(ValueError, match="'transactional', 'opaque' or 'non_transactional'"):
        SQLiteMapState.Factory(str(tmp_path / "s.db"), "opaque_transactional")
    with pytest.raises(ValueError, match="absolute path"):
        SQLiteMapState.Factory("state.db")
    with pytest.raises(ValueError, match="table"):
        SQLiteMapState.Factory(str(tmp_path / "s.db"), table='x"; DROP TABLE y; --')
    with pytest.raises(sqlite3.OperationalError, match="cannot open the Trident state"):
        SQLiteMapState.Factory(str(tmp_path / "no" / "such" / "s.db")).make_state({}, None, 0, 1)


@pytest.mark.parametrize("kind", ["transactional", "opaque", "non_transactional"])
def test_sqlite_states_of_two_workers_see_each_others_committed_values(tmp_path, kind):
    factory = SQLiteMapState.Factory(str(tmp_path / "state.db"), kind)
    persist = factory.make_state({}, None, 0, 1)   # a worker's persistent_aggregate task
    query = factory.make_state({}, None, 0, 1)     # another worker's state_query task
    persist.begin_commit(1)
    persist.multi_update([["a"], ["b", 1]], [add(3), add(1)])
    persist.commit(1)
    assert MapGet().batch_retrieve(query, [("a",), ("b", 1), ("c",)]) == [3, 1, None]
    persist.begin_commit(2)
    persist.multi_update([["a"]], [add(4)])
    persist.commit(2)
    assert query.multi_get([["a"]]) == [7]
    # and the other way: the second one's batch builds on the first one's
    query.begin_commit(3)
    assert query.multi_update([["a"]], [add(1)]) == [8]
    query.commit(3)
    persist.begin_commit(4)
    assert persist.multi_get([["a"]]) == [8]
    persist.commit(4)


def test_sqlite_transactional_replay_on_another_worker_is_not_applied_twice(tmp_path):
    path = str(tmp_path / "state.db")
    factory = SQLiteMapState.Factory(path, "transactional")
    first = factory.make_state({}, None, 0, 1)
    first.begin_commit(1)
    assert first.multi_update([["a"]], [add(3)]) == [3]
    first.commit(1)
    # the batch failed after the state's commit; txid 1 is replayed by a new worker
    second = factory.make_state({}, None, 0, 1)
    second.begin_commit(1)
    assert second.multi_update([["a"]], [add(3)]) == [3]
    second.commit(1)
    assert stored_rows(path) == {'["a"]': b"[1,3]"}
    second.begin_commit(2)
    assert second.multi_update([["a"]], [add(3)]) == [6]
    second.commit(2)
    assert stored_rows(path) == {'["a"]': b"[2,6]"}


def test_sqlite_opaque_replay_on_another_worker_recomputes_from_prev(tmp_path):
    path = str(tmp_path / "state.db")
    factory = SQLiteMapState.Factory(path, "opaque")
    first = factory.make_state({}, None, 0, 1)
    first.begin_commit(1)
    first.multi_update([["a"]], [add(3)])
    first.commit(1)
    first.begin_commit(2)
    first.multi_update([["a"]], [add(4)])
    first.commit(2)
    assert stored_rows(path) == {'["a"]': b"[2,7,3]"}
    # txid 2 replayed by a new worker with another batch (an opaque spout may change it)
    second = factory.make_state({}, None, 0, 1)
    second.begin_commit(2)
    assert second.multi_get([["a"]]) == [3]
    assert second.multi_update([["a"]], [add(10)]) == [13]
    second.commit(2)
    assert stored_rows(path) == {'["a"]': b"[2,13,3]"}
    second.begin_commit(3)
    assert second.multi_update([["a"]], [add(1)]) == [14]
    second.commit(3)
    assert stored_rows(path) == {'["a"]': b"[3,14,13]"}


@pytest.mark.parametrize("kind,stored", [
    ("transactional", b'[5,{"n":"x\\/y","l":[1,null]}]'),
    ("opaque", b'[5,{"n":"x\\/y","l":[1,null]},null]'),
    ("non_transactional", b'{"n":"x\\/y","l":[1,null]}')])
def test_sqlite_state_stores_storms_json_layout(tmp_path, kind, stored):
    path = str(tmp_path / "state.db")
    state = SQLiteMapState.Factory(path, kind, table="counts").make_state({}, None, 0, 1)
    state.begin_commit(5)
    state.multi_put([["k/1", 2, None]], [{"n": "x/y", "l": [1, None]}])
    state.commit(5)
    assert stored_rows(path, "counts") == {'["k\\/1",2,null]': stored}


def test_sqlite_state_is_a_snapshottable_for_an_ungrouped_aggregate(tmp_path):
    path = str(tmp_path / "state.db")
    state = SQLiteMapState.Factory(path, "opaque").make_state({}, None, 0, 1)
    updater = CombinerAggStateUpdater(Count())
    collector = Collector()
    for txid, partial in [(1, 3), (1, 2), (2, 5)]:  # txid 1 is replayed with another count
        state.begin_commit(txid)
        updater.update_state(state, [(partial,)], collector)
        state.commit(txid)
    assert collector.emitted == [(3,), (2,), (7,)]
    assert stored_rows(path) == {'["$SQLITE-MAP-STATE-GLOBAL$"]': b"[2,7,2]"}


def test_sqlite_state_refuses_a_value_that_is_not_json_and_writes_nothing(tmp_path):
    path = str(tmp_path / "state.db")
    state = SQLiteMapState.Factory(path, "transactional").make_state({}, None, 0, 1)
    state.begin_commit(1)
    with pytest.raises(TypeError, match="JSON-serializable"):
        state.multi_put([["a"], ["b"]], [1, {1, 2}])
    assert stored_rows(path) == {}
    state.multi_put([["a"]], [1])  # no transaction was left open
    state.commit(1)
    assert stored_rows(path) == {'["a"]': b"[1,1]"}


def test_sqlite_tables_of_one_file_are_separate(tmp_path):
    path = str(tmp_path / "state.db")
    words = SQLiteMapState.Factory(path, "non_transactional", table="words")
    totals = SQLiteMapState.Factory(path, "non_transactional", table="totals")
    words.make_state({}, None, 0, 1).multi_put([["a"]], [1])
    assert totals.make_state({}, None, 0, 1).multi_get([["a"]]) == [None]


def test_sqlite_backing_map_reads_more_keys_than_one_select_binds(tmp_path, monkeypatch):
    monkeypatch.setattr(sqlite_state, "GET_CHUNK", 7)
    backing = SQLiteBackingMap(str(tmp_path / "state.db"), "t", JSONNonTransactionalSerializer())
    keys = [["k", i] for i in range(30)]
    backing.multi_put(keys, list(range(30)))
    asked = keys[::-1] + [["missing"], ["k", 3]]
    assert backing.multi_get(asked) == list(range(29, -1, -1)) + [None, 3]
    assert backing.multi_get([]) == []
    backing.close()
