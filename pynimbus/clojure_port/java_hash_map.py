# -*- test-case-name: tests.test_port_java_hash_map -*-
"""``java.util.HashMap`` (JDK 8 to 17) as a value whose iteration order is Java's (pure).

Storm's Java code walks ``HashMap`` and ``HashSet`` values (a ``HashSet`` is a ``HashMap`` of
its elements), so the order of a slot list, a UI list or a JSON object follows the keys' hash
codes and the map's history.  :class:`JavaHashMap` replays that history the way OpenJDK's
``HashMap`` does, so it iterates exactly as the JVM would:

- the Java ``hashCode`` of the keys Storm uses: :func:`string_hash` (``String``: UTF-16 code
  units, 32-bit wrap), :func:`integer_hash`, :func:`long_hash`, :func:`list_hash`
  (``List<Long>``), :func:`double_hash`, :func:`java_hash` (JSON-ish values); :func:`spread`
  is ``HashMap.hash``;
- the table: capacity 16 for ``new HashMap<>()``, ``tableSizeFor(n)`` for ``new HashMap<>(n)``,
  ``tableSizeFor(s / 0.75 + 1)`` when ``putAll``/``new HashMap<>(map)`` fills an empty map,
  doubling when the size passes 3/4 of the capacity, and when a bucket reaches 9 entries in a
  table under 64 (``treeifyBin``).  A resize splits each bucket in two keeping relative order.
- tree bins: a bucket of 9 or more entries in a table of 64 or more becomes a red-black tree
  (``TreeNode``), whose ``next`` links -- the iteration order -- are reshuffled by the tree's
  own operations (the root is moved to the front, a new node is linked right after its tree
  parent).  The tree is ordered by hash, then, for equal hashes, by ``compareTo`` when both
  keys are of one ``Comparable`` class (here ``String``, ``Long``, ``Boolean``, ``Double``),
  then by class name, then by ``System.identityHashCode``.  Only that last step is not
  reproducible: where it decides, the order is a guess and :attr:`JavaHashMap.exact` is False.
  A tree bin goes back to a plain list when a resize leaves 6 or fewer of its entries together,
  or when a removal finds its tree too small.

Ports the behaviour of OpenJDK's ``HashMap``: ``putVal``, ``resize``, ``putMapEntries``,
``removeNode``, ``treeifyBin``, and ``HashMap.TreeNode``'s ``treeify``, ``untreeify``,
``putTreeVal``, ``removeTreeNode``, ``split``, ``moveRootToFront``, ``rotateLeft``/``rotateRight``,
``balanceInsertion`` and ``balanceDeletion``.  One difference between JDK generations is kept at
JDK 8/11's: ``putAll`` of ``s`` entries into a non-empty map whose threshold is below ``s``
doubles the table once (JDK 17 doubles until the threshold reaches ``s``), which differs only
when ``s`` is more than twice the threshold.

:mod:`pynimbus.clojure_port.java_order` builds Storm's collection chains (scheduler slot
orders) on this model, and :mod:`pynimbus.clojure_port.page_order` the UI's list orders.
"""

import collections
import functools
import itertools
import struct

_MASK32 = 0xFFFFFFFF
_MASK64 = 0xFFFFFFFFFFFFFFFF

DEFAULT_INITIAL_CAPACITY = 16
MAXIMUM_CAPACITY = 1 << 30
TREEIFY_THRESHOLD = 8
UNTREEIFY_THRESHOLD = 6
MIN_TREEIFY_CAPACITY = 64
_INT_MAX = 0x7FFFFFFF


def int32(value):
    """``value`` wrapped to a signed 32-bit Java int."""
    value &= _MASK32
    return value - 0x100000000 if value & 0x80000000 else value


# Java hash codes


@functools.lru_cache(maxsize=1 << 16)
def string_hash(s):
    """Port of ``java.lang.String.hashCode``: over UTF-16 code units, 32-bit signed wrap."""
    h = 0
    if s.isascii() or all(ord(c) < 0x10000 for c in s):
        for c in s:
            h = (31 * h + ord(c)) & _MASK32
    else:
        data = s.encode("utf-16-be")
        for i in range(0, len(data), 2):
            h = (31 * h + (data[i] << 8 | data[i + 1])) & _MASK32
    return int32(h)


def integer_hash(value):
    """Port of ``java.lang.Integer.hashCode``: the int value itself."""
    return int32(value)


def long_hash(value):
    """Port of ``java.lang.Long.hashCode``: ``(int) (value ^ (value >>> 32))``."""
    value &= _MASK64
    return int32(value ^ (value >> 32))


def list_hash(element_hashes):
    """Port of ``java.util.List.hashCode`` given the elements' hash codes."""
    h = 1
    for e in element_hashes:
        h = (31 * h + e) & _MASK32
    return int32(h)


def double_hash(value):
    """Port of ``java.lang.Double.hashCode``: ``long_hash`` of ``doubleToLongBits`` (every NaN
    is the canonical one)."""
    if value != value:
        return long_hash(0x7FF8000000000000)
    return long_hash(struct.unpack(">q", struct.pack(">d", value))[0])


def big_integer_hash(value):
    """Port of ``java.math.BigInteger.hashCode``: over the magnitude's 32-bit words, most
    significant first, times the sign."""
    h = 0
    magnitude = abs(value)
    for shift in range((magnitude.bit_length() + 31) // 32 * 32 - 32, -32, -32):
        h = (31 * h + ((magnitude >> shift) & _MASK32)) & _MASK32
    return int32(h * (1 if value > 0 else -1 if value < 0 else 0))


def byte_array_hash(data):
    """Port of ``java.util.Arrays.hashCode(byte[])``: bytes as signed values."""
    h = 1
    for b in data:
        h = (31 * h + (b - 256 if b > 127 else b)) & _MASK32
    return int32(h)


def java_hash(key):
    """Java ``hashCode`` of a JSON-ish value as Storm's JSON readers build it: String, Boolean,
    Long (an int; BigInteger past 64 bits), Double (a float), List (a list or tuple), Map (a
    dict, ``AbstractMap.hashCode``: the sum of ``key ^ value`` over entries), ``byte[]``
    (bytes, as ``Arrays.hashCode``), null."""
    if key is None:
        return 0
    if isinstance(key, str):
        return string_hash(key)
    if isinstance(key, bool):
        return 1231 if key else 1237
    if isinstance(key, int):
        if -0x8000000000000000 <= key <= 0x7FFFFFFFFFFFFFFF:
            return long_hash(key)
        return big_integer_hash(key)
    if isinstance(key, float):
        return double_hash(key)
    if isinstance(key, (list, tuple)):
        return list_hash(java_hash(e) for e in key)
    if isinstance(key, dict):
        return int32(sum(java_hash(k) ^ java_hash(v) for k, v in key.items()))
    if isinstance(key, (bytes, bytearray)):
        return byte_array_hash(key)
    return hash(key)


def spread(h):
    """Port of ``HashMap.hash`` (Java 8): ``h ^ (h >>> 16)``, as an unsigned 32-bit value."""
    h &= _MASK32
    return h ^ (h >> 16)


def table_size_for(cap):
    """Port of ``HashMap.tableSizeFor``: the power of two >= ``cap`` (1 for ``cap`` <= 1)."""
    if cap <= 1:
        return 1
    return min(1 << (cap - 1).bit_length(), MAXIMUM_CAPACITY)


def hash_set_copy_capacity(size):
    """``new HashSet<>(collection)`` of ``size`` elements: its ``HashMap`` constructor argument."""
    return max(int(size / 0.75) + 1, DEFAULT_INITIAL_CAPACITY)


# Ordering keys of equal hash in a tree bin

# The Java class a Python key stands for, where it is ``Comparable`` with itself.
_COMPARABLE_CLASS = {str: "java.lang.String", int: "java.lang.Long", bool: "java.lang.Boolean",
                     float: "java.lang.Double"}


def _compare_to(a, b):
    """``a.compareTo(b)`` for two keys of one :data:`_COMPARABLE_CLASS` (its sign)."""
    if isinstance(a, str):  # String.compareTo: UTF-16 code units, then length
        a, b = a.encode("utf-16-be"), b.encode("utf-16-be")
    return (a > b) - (a < b)


# Table bins are None, a list of keys (a plain bin, in ``next`` order) or the first _TreeNode of
# a tree bin.


class _TreeNode:
    """One entry of a tree bin: its ``next``/``prev`` links (the bin's iteration order) and its
    red-black tree links, the children as ``kid[0]`` (left) and ``kid[1]`` (right).  ``hash``
    is the spread hash (unsigned); ``rank`` orders as Java's signed int does."""

    __slots__ = ("key", "hash", "rank", "next", "prev", "parent", "kid", "red")

    def __init__(self, key, h):
        self.key, self.hash, self.rank = key, h, h ^ 0x80000000
        self.next = self.prev = self.parent = None
        self.kid = [None, None]
        self.red = False


def _chain_nodes(head):
    """The nodes of a tree bin from ``head`` along ``next``."""
    nodes = []
    while head is not None:
        nodes.append(head)
        head = head.next
    return nodes


def _link(nodes):
    """Link ``nodes`` by ``next``/``prev`` in that order; returns the first (or None)."""
    prev = None
    for node in nodes:
        node.prev = prev
        if prev is not None:
            prev.next = node
        prev = node
    if prev is not None:
        prev.next = None
    return nodes[0] if nodes else None


def _root_of(node):
    """Port of ``TreeNode.root``."""
    while node.parent is not None:
        node = node.parent
    return node


def _rotate(root, p, side):
    """Port of ``TreeNode.rotateLeft`` (``side`` 0: ``p``'s right child takes its place) and
    ``rotateRight`` (``side`` 1: its left child does); returns the root."""
    up = p.kid[1 - side]
    if up is None:
        return root
    inner = p.kid[1 - side] = up.kid[side]
    if inner is not None:
        inner.parent = p
    pp = up.parent = p.parent
    if pp is None:
        root = up
        up.red = False
    else:
        pp.kid[0 if pp.kid[0] is p else 1] = up
    up.kid[side] = p
    p.parent = up
    return root


def _balance_insertion(root, x):
    """Port of ``TreeNode.balanceInsertion``: recolour and rotate after linking red ``x``."""
    x.red = True
    while True:
        xp = x.parent
        if xp is None:
            x.red = False
            return x
        xpp = xp.parent
        if not xp.red or xpp is None:
            return root
        side = 0 if xp is xpp.kid[0] else 1  # the side of xp under xpp
        uncle = xpp.kid[1 - side]
        if uncle is not None and uncle.red:
            uncle.red = xp.red = False
            xpp.red = True
            x = xpp
            continue
        if x is xp.kid[1 - side]:
            x = xp
            root = _rotate(root, x, side)
            xp = x.parent
            xpp = None if xp is None else xp.parent
        if xp is not None:
            xp.red = False
            if xpp is not None:
                xpp.red = True
                root = _rotate(root, xpp, 1 - side)


def _balance_deletion(root, x):
    """Port of ``TreeNode.balanceDeletion``: restore the colours after ``x`` lost a black."""
    while True:
        if x is None or x is root:
            return root
        xp = x.parent
        if xp is None:
            x.red = False
            return x
        if x.red:
            x.red = False
            return root
        side = 0 if xp.kid[0] is x else 1  # the side of x under xp
        sib = xp.kid[1 - side]
        if sib is not None and sib.red:
            sib.red = False
            xp.red = True
            root = _rotate(root, xp, side)
            xp = x.parent
            sib = None if xp is None else xp.kid[1 - side]
        if sib is None:
            x = xp
            continue
        near, far = sib.kid[side], sib.kid[1 - side]
        if (far is None or not far.red) and (near is None or not near.red):
            sib.red = True
            x = xp
            continue
        if far is None or not far.red:
            if near is not None:
                near.red = False
            sib.red = True
            root = _rotate(root, sib, 1 - side)
            xp = x.parent
            sib = None if xp is None else xp.kid[1 - side]
        if sib is not None:
            sib.red = False if xp is None else xp.red
            far = sib.kid[1 - side]
            if far is not None:
                far.red = False
        if xp is not None:
            xp.red = False
            root = _rotate(root, xp, side)
        x = root


class JavaHashMap(object):
    """A ``java.util.HashMap`` (JDK 8 to 17) after a history of ``put``, ``putAll`` and
    ``remove``, down to its tree bins; iterating it gives Java's order.

    :param initial_capacity: the ``HashMap(int)`` constructor argument, or None for
        ``HashMap()``.
    :param items: entries for ``new HashMap<>(map)`` (see :meth:`put_all`).
    :param key_hash: function of a key to its Java ``hashCode`` (default :func:`java_hash`).

    Keys are compared with Python equality (so ``1`` and ``True`` are one key, unlike Java).
    ``exact`` turns False when two keys of equal hash in a tree bin had to be ordered by their
    identity hash codes (non-``Comparable`` keys of one class), which nothing reproduces: the
    new key is then put to the left, as if its identity hash code were the smaller.
    """

    def __init__(self, initial_capacity=None, items=None, key_hash=java_hash):
        self.key_hash = key_hash
        self.exact = True
        self._table = None
        self._threshold = 0 if initial_capacity is None else table_size_for(initial_capacity)
        self._hash = {}    # key -> spread hash, unsigned (Java's ``Node.hash``)
        self._value = {}   # key -> value
        if items is not None:
            self.put_all(items)

    @property
    def capacity(self):
        """The table's length (0 before the first put)."""
        return len(self._table) if self._table else 0

    # Map operations

    def put(self, key, value=None):
        """Port of ``HashMap.put``: a known key keeps its place; a new one is linked last in a
        plain bin, or under its tree parent in a tree bin; then the table may grow."""
        self.put_each(((key, value),))

    def put_each(self, pairs):
        """:meth:`put` of each ``(key, value)`` in turn (one call for many keys)."""
        values, hashes, key_hash = self._value, self._hash, self.key_hash
        table, threshold = self._table, self._threshold
        for key, value in pairs:
            if key in values:
                values[key] = value
                continue
            h = key_hash(key) & _MASK32
            h ^= h >> 16  # spread
            if not table:
                self._resize()
                table, threshold = self._table, self._threshold
            i = h & (len(table) - 1)
            hashes[key] = h
            values[key] = value
            b = table[i]
            if b is None:
                table[i] = [key]
            elif b.__class__ is list:
                b.append(key)
                if len(b) > TREEIFY_THRESHOLD:
                    self._treeify_bin(i)
                    table, threshold = self._table, self._threshold
            else:
                self._put_tree_val(b, key, h)
            if len(values) > threshold:
                self._resize()
                table, threshold = self._table, self._threshold

    def put_all(self, items):
        """Port of ``HashMap.putAll``/``new HashMap<>(map)`` of ``items`` (a mapping, or
        ``(key, value)`` pairs in the source map's iteration order)."""
        items = list(items.items()) if hasattr(items, "items") else list(items)
        self.pre_size(len(items))
        self.put_each(items)

    def pre_size(self, s):
        """``putMapEntries``' sizing for ``s`` incoming entries: an empty map sizes its first
        table for them; a filled one doubles once if ``s`` passes its threshold (JDK 8/11)."""
        if s <= 0:
            return
        if not self._table:
            t = table_size_for(4 * s // 3 + 1)  # tableSizeFor((int) (s / 0.75f + 1.0f))
            if t > self._threshold:
                self._threshold = t
        elif s > self._threshold:
            self._resize()

    def remove(self, key):
        """Port of ``HashMap.remove``: unlink the key; the table never shrinks."""
        if key not in self._value:
            return
        del self._value[key]
        h = self._hash.pop(key)
        table = self._table
        i = h & (len(table) - 1)
        b = table[i]
        if b.__class__ is list:
            b.remove(key)
            if not b:
                table[i] = None
            return
        node = b
        while node.key != key:
            node = node.next
        self._remove_tree_node(node, i)

    def clear(self):
        """Port of ``HashMap.clear``: no entries, the table keeps its length.  Tree nodes link
        each other both ways; unlinking them here frees them at once rather than at the next
        run of the cyclic garbage collector."""
        table = self._table
        for i, b in enumerate(table or ()):
            if b is not None and b.__class__ is not list:
                while b is not None:
                    nxt = b.next
                    b.next = b.prev = b.parent = b.kid = None
                    b = nxt
            table[i] = None
        self._hash.clear()
        self._value.clear()

    def __contains__(self, key):
        return key in self._value

    def __len__(self):
        return len(self._value)

    def get(self, key, default=None):
        return self._value.get(key, default)

    def keys(self):
        """Keys in Java iteration order: bucket by bucket, each along its ``next`` links."""
        out = []
        for b in self._table or ():
            if b is None:
                continue
            if b.__class__ is list:
                out.extend(b)
            else:
                while b is not None:
                    out.append(b.key)
                    b = b.next
        return out

    def items(self):
        value = self._value
        return [(k, value[k]) for k in self.keys()]

    def to_dict(self):
        """A dict whose insertion order is this map's iteration order."""
        return dict(self.items())

    # The table

    def _resize(self):
        """Port of ``HashMap.resize``: first table or doubling; each bin splits into the
        entries that stay (hash bit clear) and those that move up by the old capacity."""
        old = self._table
        old_cap = len(old) if old else 0
        old_thr = self._threshold
        new_thr = 0
        if old_cap > 0:
            if old_cap >= MAXIMUM_CAPACITY:
                self._threshold = _INT_MAX
                return
            new_cap = old_cap << 1
            if new_cap < MAXIMUM_CAPACITY and old_cap >= DEFAULT_INITIAL_CAPACITY:
                new_thr = old_thr << 1
        elif old_thr > 0:
            new_cap = old_thr
        else:
            new_cap = DEFAULT_INITIAL_CAPACITY
            new_thr = DEFAULT_INITIAL_CAPACITY * 3 // 4
        if new_thr == 0:
            ft = new_cap * 0.75
            new_thr = int(ft) if new_cap < MAXIMUM_CAPACITY and ft < MAXIMUM_CAPACITY else _INT_MAX
        self._threshold = new_thr
        table = self._table = [None] * new_cap
        if not old_cap:
            return
        mask = new_cap - 1
        hashes = self._hash
        for j, b in enumerate(old):
            if b is None:
                continue
            if b.__class__ is list:
                if len(b) == 1:
                    table[hashes[b[0]] & mask] = b
                    continue
                lo = [k for k in b if not hashes[k] & old_cap]
                if lo:
                    table[j] = lo
                if len(lo) < len(b):
                    table[j + old_cap] = [k for k in b if hashes[k] & old_cap]
            elif b.next is None:
                table[b.hash & mask] = b
            else:
                self._split(b, j, old_cap)

    def _treeify_bin(self, index):
        """Port of ``HashMap.treeifyBin``: a small table grows instead; else the bin's entries
        become tree nodes, in their order, and are built into a tree."""
        if len(self._table) < MIN_TREEIFY_CAPACITY:
            self._resize()
            return
        hashes = self._hash
        head = _link([_TreeNode(k, hashes[k]) for k in self._table[index]])
        self._table[index] = head
        self._treeify(head)

    # Tree bins

    def _side(self, x_key, x_rank, p):
        """The side of tree node ``p`` a key goes: 0 left, 1 right (``treeify``'s and
        ``putTreeVal``'s comparison: signed hash, then for equal hashes ``compareTo`` within
        one ``Comparable`` class, then ``tieBreakOrder``)."""
        if p.rank != x_rank:
            return 0 if p.rank > x_rank else 1
        pk = p.key
        kc, pc = _COMPARABLE_CLASS.get(type(x_key)), _COMPARABLE_CLASS.get(type(pk))
        if kc is not None and kc == pc:
            d = _compare_to(x_key, pk)
            if d:
                return 0 if d < 0 else 1
        # tieBreakOrder: class names, then identity hash codes (null's is 0, any other > 0)
        if x_key is None:
            return 0
        if pk is None:
            return 1
        if kc is not None and pc is not None and kc != pc:
            return 0 if kc < pc else 1
        self.exact = False
        return 0

    def _treeify(self, head):
        """Port of ``TreeNode.treeify``: insert the bin's nodes in ``next`` order into a
        red-black tree, then move its root to the front of the bin."""
        root = None
        x = head
        while x is not None:
            nxt = x.next
            x.kid[0] = x.kid[1] = None
            if root is None:
                x.parent = None
                x.red = False
                root = x
            else:
                p = root
                rank = x.rank
                while True:
                    pr = p.rank
                    side = 0 if pr > rank else 1 if pr < rank else self._side(x.key, rank, p)
                    child = p.kid[side]
                    if child is None:
                        x.parent = p
                        p.kid[side] = x
                        root = _balance_insertion(root, x)
                        break
                    p = child
            x = nxt
        self._move_root_to_front(root)

    def _put_tree_val(self, first, key, h):
        """Port of ``TreeNode.putTreeVal`` for a new key: link it under its tree parent and,
        in ``next`` order, right after that parent; rebalance; root to the front."""
        root = _root_of(first)
        p = root
        rank = h ^ 0x80000000
        while True:
            pr = p.rank
            side = 0 if pr > rank else 1 if pr < rank else self._side(key, rank, p)
            child = p.kid[side]
            if child is None:
                break
            p = child
        x = _TreeNode(key, h)
        x.next = pn = p.next
        p.kid[side] = x
        p.next = x
        x.parent = x.prev = p
        if pn is not None:
            pn.prev = x
        self._move_root_to_front(_balance_insertion(root, x))

    def _move_root_to_front(self, root):
        """Port of ``TreeNode.moveRootToFront``: the root becomes the bin's first node."""
        table = self._table
        index = root.hash & (len(table) - 1)
        first = table[index]
        if root is first:
            return
        table[index] = root
        rp, rn = root.prev, root.next
        if rn is not None:
            rn.prev = rp
        if rp is not None:
            rp.next = rn
        if first is not None:
            first.prev = root
        root.next = first
        root.prev = None

    def _remove_tree_node(self, p, index):
        """Port of ``TreeNode.removeTreeNode`` (movable): unlink ``p`` from the bin's order;
        a tree that looks too small becomes a plain bin, else ``p`` leaves the tree (swapped
        with its successor when it has two children) and the tree is rebalanced."""
        table = self._table
        first = root = table[index]
        succ, pred = p.next, p.prev
        if pred is None:
            table[index] = first = succ
        else:
            pred.next = succ
        if succ is not None:
            succ.prev = pred
        if first is None:
            return
        root = _root_of(root)
        rl = root.kid[0]
        if root.kid[1] is None or rl is None or rl.kid[0] is None:
            table[index] = [n.key for n in _chain_nodes(first)]  # untreeify
            return
        pl, pr = p.kid
        if pl is not None and pr is not None:
            s = pr
            while s.kid[0] is not None:  # the successor
                s = s.kid[0]
            s.red, p.red = p.red, s.red
            sr = s.kid[1]
            pp = p.parent
            if s is pr:
                p.parent = s
                s.kid[1] = p
            else:
                sp = p.parent = s.parent
                if sp is not None:
                    sp.kid[0 if s is sp.kid[0] else 1] = p
                s.kid[1] = pr
                pr.parent = s
            p.kid[0] = None
            p.kid[1] = sr
            if sr is not None:
                sr.parent = p
            s.kid[0] = pl
            pl.parent = s
            s.parent = pp
            if pp is None:
                root = s
            else:
                pp.kid[0 if p is pp.kid[0] else 1] = s
            replacement = sr if sr is not None else p
        elif pl is not None:
            replacement = pl
        elif pr is not None:
            replacement = pr
        else:
            replacement = p
        if replacement is not p:
            pp = replacement.parent = p.parent
            if pp is None:
                root = replacement
                replacement.red = False
            else:
                pp.kid[0 if p is pp.kid[0] else 1] = replacement
            p.kid[0] = p.kid[1] = p.parent = None
        r = root if p.red else _balance_deletion(root, replacement)
        if replacement is p:  # detach
            pp = p.parent
            p.parent = None
            if pp is not None:
                if p is pp.kid[0]:
                    pp.kid[0] = None
                elif p is pp.kid[1]:
                    pp.kid[1] = None
        self._move_root_to_front(r)

    def _split(self, head, index, bit):
        """Port of ``TreeNode.split`` (from ``resize``): the nodes that stay and those that move
        up by ``bit``, each in ``next`` order; a side of 6 or fewer becomes a plain bin, a
        larger one a tree, rebuilt unless every node went that way."""
        nodes = _chain_nodes(head)
        lo = [n for n in nodes if not n.hash & bit]
        hi = [n for n in nodes if n.hash & bit]
        table = self._table
        for side, at, other in ((lo, index, hi), (hi, index + bit, lo)):
            if not side:
                continue
            if len(side) <= UNTREEIFY_THRESHOLD:
                table[at] = [n.key for n in side]
            else:
                table[at] = _link(side)
                if other:
                    self._treeify(table[at])


# Orders


JavaHashMapLayout = collections.namedtuple("JavaHashMapLayout", "order capacity exact")
JavaHashMapLayout.__doc__ = """Outcome of :func:`java_hash_map_layout`.

``order``: the distinct keys in iteration order; ``capacity``: the final table length;
``exact``: False when identity hash codes ordered keys of equal hash in a tree bin (see
:class:`JavaHashMap`).
"""


def java_hash_map_layout(keys, key_hash, initial_capacity=None, put_all=False, removed=(),
                         then_put=()):
    """The layout a ``java.util.HashMap`` reaches by putting ``keys`` in order
    (:class:`JavaHashMap`).

    :param keys: keys in insertion order; repeats keep their first position (a ``put`` on an
        existing key replaces the value in place).
    :param key_hash: function of a key to its Java ``hashCode`` (an int).
    :param initial_capacity: the ``HashMap(int)`` constructor argument, or None for
        ``HashMap()`` (first table of 16).
    :param put_all: True when the keys arrive through ``putAll``/``new HashMap(Map)`` on the
        empty map, which first sizes the table for all of them; an int N when only the first N
        keys come that way and the rest through ``put``.
    :param removed: keys then removed (the table never shrinks; the others keep their places,
        except in a tree bin, which a removal may reorder or turn back into a list).
    :param then_put: keys put after that (a removed key put again goes to its bucket's end, or
        under its tree parent).
    :returns: a :class:`JavaHashMapLayout`.
    """
    keys = list(keys)
    m = JavaHashMap(initial_capacity, key_hash=key_hash)
    if put_all:
        distinct_count = len(dict.fromkeys(keys))
        m.pre_size(distinct_count if put_all is True else min(int(put_all), distinct_count))
    m.put_each(zip(keys, itertools.repeat(None)))
    for key in removed:
        m.remove(key)
    m.put_each(zip(then_put, itertools.repeat(None)))
    layout = JavaHashMapLayout(m.keys(), m.capacity, m.exact)
    m.clear()
    return layout


def java_hash_map_order(keys_in_insertion_order, key_hash, initial_capacity=None, put_all=False,
                        removed=(), then_put=()):
    """Iteration order of a ``HashMap``/``HashSet`` filled with the keys in that order.

    See :func:`java_hash_map_layout` for the parameters.
    """
    return java_hash_map_layout(keys_in_insertion_order, key_hash, initial_capacity, put_all,
                                removed, then_put).order


def java_hashmap_order(keys, initial_capacity=None):
    """The iteration order of a HashMap (or HashSet) of JSON-ish keys added one by one."""
    return java_hash_map_order(keys, java_hash, initial_capacity)


def thrift_map_order(mapping):
    """Key order of a Thrift map as Storm's Java code sees it after decoding it.

    The generated Java reader fills ``new HashMap<>(2 * size)`` in wire order; Python's decoder
    keeps wire order in its dict, so this is exact for a struct pynimbus received.
    """
    mapping = mapping or {}
    return java_hashmap_order(list(mapping), initial_capacity=2 * len(mapping))
