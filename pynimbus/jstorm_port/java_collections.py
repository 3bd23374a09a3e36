# -*- test-case-name: tests.test_jstorm_port -*-
"""The ``java.util.HashSet``/``HashMap`` values JStorm's scheduler walks, iterating in Java's order.

JStorm 2.2.1 breaks ties by taking the first candidate, and its candidates come out of
``HashSet<Integer>`` (task ids, free ports) and ``HashMap<ResourceWorkerSlot, ...>`` (workers), so
the order is the JVM's.  Both are built on the project's one model of ``java.util.HashMap``
(:class:`pynimbus.clojure_port.java_hash_map.JavaHashMap`):

- :class:`JavaIntSet`: a ``HashSet<Integer>`` (ints compare in Python as in Java).
- :class:`WorkerSlotMap` and :class:`WorkerSlotSet`: a ``HashMap``/``HashSet`` keyed by
  ``ResourceWorkerSlot``, whose ``hashCode``/``equals`` (``WorkerSlot``'s: node id and port) can
  change after insertion, as JStorm's code does to a slot it has put in a set.  Like Java, an
  entry keeps the hash it was put with, and a look-up finds an entry whose stored hash equals the
  key's current hash and whose node id and port equal the key's now.
"""

from pynimbus.clojure_port.java_hash_map import JavaHashMap, integer_hash, int32, string_hash


class JavaIntSet(object):
    """``new HashSet<Integer>()`` and its history: ``add``/``remove`` replayed on a
    :class:`JavaHashMap`, so iterating gives the JVM's order.  ``addAll`` is one ``add`` per
    element (``HashSet`` inherits ``AbstractCollection.addAll``)."""

    __slots__ = ("_map",)

    def __init__(self, elements=()):
        self._map = JavaHashMap(key_hash=integer_hash)
        self.add_all(elements)

    def add(self, element):
        self._map.put(element)

    def add_all(self, elements):
        self._map.put_each((e, None) for e in list(elements))

    def remove(self, element):
        self._map.remove(element)

    def remove_all(self, elements):
        for e in list(elements):
            self._map.remove(e)

    def clear(self):
        self._map.clear()

    def __contains__(self, element):
        return element in self._map

    def __len__(self):
        return len(self._map)

    def __iter__(self):
        return iter(self._map.keys())

    def first(self):
        """``iterator().next()``; raises :class:`JavaRuntimeError` on an empty set, as Java does."""
        for element in self._map.keys():
            return element
        raise JavaRuntimeError("NoSuchElementException")

    def __repr__(self):
        return "JavaIntSet(%r)" % (list(self),)


class JavaRuntimeError(RuntimeError):
    """A Java runtime exception JStorm's code would throw here (``str()`` is its class name):
    ``NullPointerException``, ``ArithmeticException``, ``NoSuchElementException``..."""


def worker_slot_hash(slot):
    """Port of ``WorkerSlot.hashCode``: ``31 * (31 + nodeId.hashCode()) + port``."""
    node_hash = 0 if slot.node_id is None else string_hash(slot.node_id)
    return int32(31 * (31 + node_hash) + slot.port)


def worker_slot_equals(a, b):
    """Port of ``WorkerSlot.equals`` between two ``ResourceWorkerSlot``: node id and port."""
    return a is b or (a.node_id == b.node_id and a.port == b.port)


class WorkerSlotMap(object):
    """A ``HashMap<ResourceWorkerSlot, V>``: Java iteration order, Java equality (see the module
    docstring).  Entries are held by the slot objects themselves, under the hash they had when
    put."""

    __slots__ = ("_map", "_stored_hash", "_by_hash")

    def __init__(self):
        self._map = JavaHashMap(key_hash=lambda slot: self._stored_hash[id(slot)])
        self._stored_hash = {}  # id(entry) -> the hash it was put with
        self._by_hash = {}      # stored hash -> entries, in insertion order

    def _entry(self, slot):
        """The entry object Java's look-up finds for ``slot``, or None."""
        if slot is None:
            return None
        for entry in self._by_hash.get(worker_slot_hash(slot), ()):
            if worker_slot_equals(entry, slot):
                return entry
        return None

    def put(self, slot, value):
        entry = self._entry(slot)
        if entry is None:
            entry = slot
            h = self._stored_hash[id(slot)] = worker_slot_hash(slot)
            self._by_hash.setdefault(h, []).append(slot)
        self._map.put(entry, value)

    def get(self, slot):
        """``get``: the value, or None where Java returns null."""
        entry = self._entry(slot)
        return None if entry is None else self._map.get(entry)

    def remove(self, slot):
        entry = self._entry(slot)
        if entry is not None:
            self._map.remove(entry)
            self._by_hash[self._stored_hash.pop(id(entry))].remove(entry)

    def __contains__(self, slot):
        return self._entry(slot) is not None

    def __len__(self):
        return len(self._map)

    def keys(self):
        return self._map.keys()

    def items(self):
        return self._map.items()


class WorkerSlotSet(object):
    """A ``HashSet<ResourceWorkerSlot>`` (a :class:`WorkerSlotMap` of its elements)."""

    __slots__ = ("_map",)

    def __init__(self, slots=()):
        self._map = WorkerSlotMap()
        self.add_all(slots)

    def add(self, slot):
        if slot not in self._map:
            self._map.put(slot, None)

    def add_all(self, slots):
        for slot in list(slots):
            self.add(slot)

    def remove(self, slot):
        self._map.remove(slot)

    def remove_all(self, slots):
        for slot in list(slots):
            self._map.remove(slot)

    def __contains__(self, slot):
        return slot in self._map

    def __len__(self):
        return len(self._map)

    def __iter__(self):
        return iter(self._map.keys())
