"""Trident's tuples and their factories: the scenarios of Storm 1.2.4's
``storm-core/test/clj/org/apache/storm/trident/tuple_test.clj``, and Python's sequence
behaviour."""

import pytest

from pynimbus.trident.fields import Fields
from pynimbus.trident.tuple import (
    FreshOutputFactory, OperationOutputFactory, ProjectionFactory, RootFactory, fresh_tuple)


def test_fresh():
    tt = FreshOutputFactory(Fields("a", "b", "c")).create([3, 2, 1])
    assert tt == [3, 2, 1]
    assert [tt.get_value_by_field(f) for f in "abc"] == [3, 2, 1]


def test_projection():
    fresh = FreshOutputFactory(Fields("a", "b", "c", "d", "e"))
    project = ProjectionFactory(fresh, Fields("d", "a"))
    pt = project.create(fresh.create([3, 2, 1, 4, 5]))
    pt2 = project.create(fresh.create([9, 8, 7, 6, 10]))
    assert (pt, pt2) == ([4, 3], [6, 9])
    assert (pt.get_value_by_field("d"), pt.get_value_by_field("a")) == (4, 3)
    assert (pt2.get_value_by_field("d"), pt2.get_value_by_field("a")) == (6, 9)


def test_appends():
    fresh = FreshOutputFactory(Fields("a", "b", "c"))
    append = OperationOutputFactory(fresh, Fields("d", "e"))
    append2 = OperationOutputFactory(append, Fields("f"))
    tt2 = append.create(fresh.create([1, 2, 3]), [4, 5])
    tt3 = append2.create(tt2, [7])
    assert tt3 == [1, 2, 3, 4, 5, 7]
    assert tt2.get_value_by_field("e") == 5 and tt3.get_value_by_field("e") == 5
    assert tt3.get_value_by_field("f") == 7


def test_root():
    root = RootFactory(Fields("a", "b"))
    tt = root.create(["a", 1])
    assert tt == ["a", 1]
    assert (tt.get_value_by_field("a"), tt.get_value_by_field("b")) == ("a", 1)
    tt2 = OperationOutputFactory(root, Fields("c")).create(tt, [3])
    assert tt2 == ["a", 1, 3]
    assert [tt2.get_value_by_field(f) for f in "abc"] == ["a", 1, 3]


def test_complex():
    fresh = FreshOutputFactory(Fields("a", "b", "c"))
    append1 = OperationOutputFactory(fresh, Fields("d"))
    append2 = OperationOutputFactory(append1, Fields("e", "f"))
    project1 = ProjectionFactory(append2, Fields("a", "f", "b"))
    append3 = OperationOutputFactory(project1, Fields("c"))
    tt = fresh.create([1, 2, 3])
    tt2 = append1.create(tt, [4])
    tt3 = append2.create(tt2, [5, 6])
    tt4 = project1.create(tt3)
    tt5 = append3.create(tt4, [8])
    assert (tt, tt2, tt3, tt4, tt5) == ([1, 2, 3], [1, 2, 3, 4], [1, 2, 3, 4, 5, 6],
                                        [1, 6, 2], [1, 6, 2, 8])
    assert [tt5.get_value_by_field(f) for f in "afbc"] == [1, 6, 2, 8]


def test_ituple_interface():
    tt = fresh_tuple(Fields("a", "b", "c"), [1, 2, 3])
    assert tt == [1, 2, 3]
    assert tt.get_fields().to_list() == ["a", "b", "c"]
    assert tt.contains("a") and not tt.contains("abcd")
    assert tt.field_index("a") == 0
    assert tt.select(Fields("c", "a")) == [3, 1]


def test_a_tuple_is_a_python_sequence_too():
    tt = fresh_tuple(Fields("word", "count"), ["cow", 2])
    word, count = tt
    assert (word, count, len(tt), tt[-1], list(tt)) == ("cow", 2, 2, 2, ["cow", 2])
    assert tt == ("cow", 2) and tt != ["cow", 3]
    assert {tt: 1}[("cow", 2)] == 1  # hashed as the tuple of its values
    assert "word='cow'" in repr(tt)


def test_an_unknown_field_and_a_clashing_append_say_what_is_wrong():
    tt = fresh_tuple(Fields("a"), [1])
    with pytest.raises(ValueError, match="b does not exist in a tuple of fields \\[a\\]"):
        tt.get_value_by_field("b")
    with pytest.raises(ValueError, match="Additive operations cannot add fields with same "
                                         "name as already exists"):
        OperationOutputFactory(FreshOutputFactory(Fields("a")), Fields("a"))
    with pytest.raises(ValueError, match="duplicate field 'a'"):
        Fields("a", "a")
