"""Storm's ``Fields``: the ordered, distinct names of a stream's or an operation's values (pure).

Follows ``org.apache.storm.tuple.Fields`` (1.2.4): a duplicate name is refused, a name's index is
looked up in a map, ``select`` picks values by name.  Trident's field arithmetic
(``TridentUtils.fieldsUnion``/``fieldsConcat``/``fieldsSubtract``) is here too; a union is a
Java ``HashSet`` of the names, so its order is Java's (:mod:`pynimbus.clojure_port.java_hash_map`).
"""

from pynimbus.clojure_port.java_hash_map import java_hashmap_order


class Fields(object):
    """``Fields("a", "b")`` or ``Fields(["a", "b"])``.

    :raises ValueError: a name given twice, or a name that is not a string.
    """

    __slots__ = ("_fields", "_index")

    def __init__(self, *names):
        if len(names) == 1 and isinstance(names[0], (list, tuple, Fields)):
            names = tuple(names[0])
        index = {}
        for position, name in enumerate(names):
            if not isinstance(name, str):
                raise ValueError("a field name is a string, not %r" % (name,))
            if name in index:
                raise ValueError("duplicate field '%s'" % name)
            index[name] = position
        self._fields = tuple(names)
        self._index = index

    def size(self):
        return len(self._fields)

    def get(self, position):
        return self._fields[position]

    def field_index(self, name):
        """The position of ``name``.

        :raises ValueError: ``name`` is not one of the fields (as Storm says it)."""
        try:
            return self._index[name]
        except KeyError:
            raise ValueError("%s does not exist" % name) from None

    def contains(self, name):
        return name in self._index

    def select(self, selector, values):
        """The values of ``selector``'s names, from ``values`` laid out as these fields."""
        index = self._index
        return [values[index[name]] for name in selector]

    def to_list(self):
        return list(self._fields)

    def __iter__(self):
        return iter(self._fields)

    def __len__(self):
        return len(self._fields)

    def __getitem__(self, position):
        return self._fields[position]

    def __contains__(self, name):
        return name in self._index

    def __eq__(self, other):
        if isinstance(other, Fields):
            return self._fields == other._fields
        return NotImplemented

    def __ne__(self, other):
        result = self.__eq__(other)
        return result if result is NotImplemented else not result

    def __hash__(self):
        return hash(self._fields)

    def __repr__(self):
        return "Fields(%s)" % ", ".join(repr(name) for name in self._fields)

    def __str__(self):
        return "[%s]" % ", ".join(self._fields)


def as_fields(value):
    """``value`` as :class:`Fields`: Fields as they are, a name as one field, a list or tuple of
    names; None stays None (Storm's "no fields given").

    :raises ValueError: anything else, or a list with a duplicate."""
    if value is None or isinstance(value, Fields):
        return value
    if isinstance(value, str):
        return Fields(value)
    if isinstance(value, (list, tuple)):
        return Fields(list(value))
    raise ValueError("fields are Fields(...), a name or a list of names, not %r" % (value,))


def fields_union(*fields):
    """``TridentUtils.fieldsUnion``: the distinct names of all ``fields`` (None skipped), in the
    order Java's ``HashSet`` of them iterates."""
    names = []
    for f in fields:
        if f is not None:
            names.extend(f)
    return Fields(java_hashmap_order(list(dict.fromkeys(names))))


def fields_concat(*fields):
    """``TridentUtils.fieldsConcat``: all names in order (None skipped).

    :raises ValueError: a name appears twice."""
    names = []
    for f in fields:
        if f is not None:
            names.extend(f)
    return Fields(names)


def fields_subtract(all_fields, minus):
    """``TridentUtils.fieldsSubtract``: ``all_fields`` without the names of ``minus``."""
    removed = set(minus)
    return Fields([name for name in all_fields if name not in removed])
