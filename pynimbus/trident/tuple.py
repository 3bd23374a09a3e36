"""Trident's tuples: ``TridentTuple`` and the factories that lay them out (pure).

Follows 1.2.4 ``trident/tuple/TridentTupleView.java``: a Trident tuple is a list of values
addressed by position or by field name, made by a factory that knows its fields:

* ``RootFactory``: a received Storm tuple's values (the batch id already dropped) as the stream's
  fields;
* ``ProjectionFactory``: some fields of a parent tuple;
* ``OperationOutputFactory``: a parent tuple with a function's values appended (``each``);
* ``FreshOutputFactory``: an operation's own values only (aggregations).

Deliberate difference: Storm builds views over the parent's value vectors; here each tuple is a
flat Python tuple (a subclass per layout, so a tuple knows its fields without a pointer per
tuple), which costs a copy of the parent's values and makes every read a plain index.
"""

import operator

from pynimbus.trident.fields import Fields


class TridentTuple(tuple):
    """A tuple of values with field names: ``t[0]``, ``t.get_value_by_field("word")``,
    ``t.select(Fields("a", "b"))``, ``len(t)``; the Java getters' snake-case names too."""

    __slots__ = ()
    fields = Fields()
    _index = {}

    def get_value(self, position):
        return self[position]

    def get_value_by_field(self, name):
        """The value of field ``name``.

        :raises ValueError: the tuple has no such field (its fields are named)."""
        try:
            return self[self._index[name]]
        except KeyError:
            raise ValueError("%s does not exist in a tuple of fields %s"
                             % (name, self.fields)) from None

    get_string = get_integer = get_long = get_double = get_boolean = get_binary = get_value
    get_string_by_field = get_integer_by_field = get_long_by_field = get_value_by_field
    get_double_by_field = get_boolean_by_field = get_binary_by_field = get_value_by_field

    def get_values(self):
        return list(self)

    def get_fields(self):
        return self.fields

    def size(self):
        return len(self)

    def contains(self, name):
        return name in self._index

    def field_index(self, name):
        return self.fields.field_index(name)

    def select(self, selector):
        """The values of ``selector``'s fields, as a list."""
        index = self._index
        return [self[index[name]] for name in selector]

    def __eq__(self, other):
        """Equal to any list or tuple of the same values (as Java's ``List.equals``)."""
        if isinstance(other, list):
            other = tuple(other)
        return tuple.__eq__(self, other)

    def __ne__(self, other):
        result = self.__eq__(other)
        return result if result is NotImplemented else not result

    __hash__ = tuple.__hash__

    def __repr__(self):
        return "<TridentTuple %s>" % ", ".join(
            "%s=%r" % (name, value) for name, value in zip(self.fields, self))


def tuple_class(fields):
    """A :class:`TridentTuple` subclass whose instances have ``fields``."""
    fields = fields if isinstance(fields, Fields) else Fields(fields)
    index = {name: position for position, name in enumerate(fields)}
    return type("TridentTuple", (TridentTuple,), {"__slots__": (), "fields": fields,
                                                  "_index": index})


_new_tuple = tuple.__new__


class RootFactory(object):
    """``TridentTupleView.RootFactory``: values of a stream as a tuple of its fields."""

    def __init__(self, fields):
        self.tuple_class = tuple_class(fields)
        self.output_fields = self.tuple_class.fields

    def create(self, values):
        return _new_tuple(self.tuple_class, values)


class FreshOutputFactory(object):
    """``TridentTupleView.FreshOutputFactory``: an operation's own values as a tuple."""

    def __init__(self, fields):
        self.tuple_class = tuple_class(fields)
        self.output_fields = self.tuple_class.fields

    def create(self, values):
        return _new_tuple(self.tuple_class, values)


class ProjectionFactory(object):
    """``TridentTupleView.ProjectionFactory``: some fields of the parent factory's tuples.

    :raises ValueError: a projected field is not the parent's."""

    def __init__(self, parent, fields):
        fields = fields if fields is not None else Fields()
        parent_fields = parent.output_fields
        positions = [parent_fields.field_index(name) for name in fields]
        self.tuple_class = tuple_class(fields)
        self.output_fields = self.tuple_class.fields
        self.positions = positions
        # the parent's own tuples when it keeps every field in order; one empty tuple for none
        self.identity = positions == list(range(len(parent_fields)))
        self.empty = _new_tuple(self.tuple_class, ()) if not positions else None
        if len(positions) == 1:
            position = positions[0]
            self._pick = lambda values: (values[position],)
        elif positions:
            self._pick = operator.itemgetter(*positions)

    def create(self, parent):
        if self.identity:
            return parent
        if self.empty is not None:
            return self.empty
        return _new_tuple(self.tuple_class, self._pick(parent))


class OperationOutputFactory(object):
    """``TridentTupleView.OperationOutputFactory``: the parent's tuple with an operation's
    values appended.

    :raises ValueError: an operation field has a parent field's name (Storm's message)."""

    def __init__(self, parent, self_fields):
        parent_fields = parent.output_fields
        for name in self_fields:
            if name in parent_fields:
                raise ValueError(
                    "Additive operations cannot add fields with same name as already exists. "
                    "Tried adding %s to %s" % (self_fields, parent_fields))
        self.tuple_class = tuple_class(list(parent_fields) + list(self_fields))
        self.output_fields = self.tuple_class.fields

    def create(self, parent, values):
        return _new_tuple(self.tuple_class, parent + tuple(values))


def fresh_tuple(fields, values):
    """``TridentTupleView.createFreshTuple``: one tuple of ``fields``."""
    return FreshOutputFactory(fields).create(values)
