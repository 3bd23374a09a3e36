# -*- test-case-name: tests.test_port_stats -*-
"""The order of the lists in Storm's UI page answers (pure).

``TopologyPageInfo.workers``, ``ComponentPageInfo.exec_stats``, ``SupervisorPageInfo``'s
``worker_summaries`` and ``TopologyInfo.executors`` are lists whose order the UI shows as is.
Upstream walks hash maps to build them, so their order follows hash codes; this module
reproduces it with :mod:`pynimbus.clojure_port.java_order`.

Everything starts from a topology's Assignment, which upstream builds from its scheduler's
``executorToSlot`` map, filled as the even scheduler hands each slot its executors
(:func:`assign_order`, derived from which slot each executor has, as one scheduling round
would assign them).

1.x (1.2.4): the Assignment Nimbus writes comes from the scheduler's ``executorToSlot``
(``new HashMap<>(0)`` filled in assignment order, then ``into {}`` twice: vectors, then seqs of
longs); the wire order is that map's iteration order (:func:`wire_order_1x`).  Nimbus reads it
back as a Thrift ``HashMap(2n)`` in wire order, then ``clojurify-assignment``'s ``into {}``
(Java list keys) and ``map-key`` (vector keys) give the ``executor->node+port`` every page walks
(:func:`executor_order`).  A Clojure map of more than 8 entries iterates by hash, so for
those the result depends on the executor set only; up to 8, on the order of ties in the Java
maps, which follows the assignment order.

2.x (2.8.8): the leader holds the Assignment it built in memory: ``executorToSlot``
(``HashMap`` keyed by ``ExecutorDetails``), copied into ``HashMap``s keyed by ``List<Long>``
(``computeTopoToExecToNodePort``, then the Assignment, which ``getTopologyInfo`` walks, then the
page's ``exec2NodePort``), each filled from empty in the previous one's order
(:func:`executor_order`).  The ``List`` hash codes of single-task executors differ by
multiples of 32, so with about 17 or more of them a bucket of these maps becomes a red-black
tree, whose iteration order :class:`JavaHashMap` reproduces (a topology's executors never
share a hash code, so no tie is left to Java's identity hash codes).

Not reproduced (documented limits, each only decides the order of ties):

* an assignment that kept some executors across rounds: upstream's ``executorToSlot`` then
  starts as a copy of the kept ones (a differently sized table) before the new ones are
  added, and its ties are ordered by that history;
* the ZooKeeper children order of ``/assignments`` and ``/supervisors`` is taken as the
  backend returns it (with a real ZooKeeper, the server's order, as Storm sees it).
"""

from pynimbus.clojure_port.java_order import (
    ARRAY_MAP_MAX_PERSISTENT, clojure_hash_ordered, clojure_hasheq_string,
    clojure_hasheq_vector, clojure_map_order, executor_details_hash, executor_list_hash,
    java_hash_map_order, murmur3_hash_long, string_hash, worker_slot_hash)


_TREEIFY_THRESHOLD = 8
_UNTREEIFY_THRESHOLD = 6
_MIN_TREEIFY_CAPACITY = 64


class _Node:
    __slots__ = ("key", "hash", "next", "prev", "left", "right", "parent", "red", "tree")

    def __init__(self, key, h, next_node=None):
        self.key, self.hash, self.next = key, h, next_node
        self.prev = self.left = self.right = self.parent = None
        self.red = False
        self.tree = False


def _signed(h):
    return h - 0x100000000 if h & 0x80000000 else h


class JavaHashMap:
    """A ``java.util.HashMap`` (JDK 8 to 17) built with ``new HashMap<>()`` and ``put`` of
    distinct keys, down to its red-black tree bins, for the iteration order.

    Keys must have distinct hash codes (equal ones in a tree bin are ordered by Java's
    identity hash codes, which nothing reproduces).  Port of the behaviour of ``putVal``,
    ``resize``, ``treeifyBin`` and ``TreeNode``'s ``treeify``, ``putTreeVal``, ``split``,
    ``untreeify``, ``moveRootToFront``, ``balanceInsertion`` and the rotations.

    :param key_hash: function of a key to its Java ``hashCode``.
    """

    def __init__(self, key_hash):
        self.key_hash = key_hash
        self.table = None
        self.threshold = 0
        self.size = 0

    # table

    def _resize(self):
        old = self.table
        old_cap = len(old) if old else 0
        if old_cap > 0:
            new_cap = old_cap << 1
            new_thr = self.threshold << 1 if old_cap >= 16 else int(new_cap * 0.75)
        else:
            new_cap, new_thr = 16, 12
        table = [None] * new_cap
        for j in range(old_cap):
            e = old[j]
            if e is None:
                continue
            if e.next is None:
                table[e.hash & (new_cap - 1)] = e
            elif e.tree:
                self._split(table, e, j, old_cap)
            else:
                lo, hi = [], []
                while e is not None:
                    (lo if e.hash & old_cap == 0 else hi).append(e)
                    e = e.next
                table[j] = self._chain(lo)
                table[j + old_cap] = self._chain(hi)
        self.table, self.threshold = table, new_thr

    @staticmethod
    def _chain(nodes, tree=False):
        prev = None
        for node in nodes:
            node.next = None
            node.tree = tree
            if prev is not None:
                prev.next = node
            node.prev = prev if tree else None
            prev = node
        return nodes[0] if nodes else None

    def put(self, key):
        h = self.key_hash(key) & 0xFFFFFFFF
        h ^= h >> 16
        if not self.table:
            self._resize()
        n = len(self.table)
        i = h & (n - 1)
        p = self.table[i]
        if p is None:
            self.table[i] = _Node(key, h)
        elif p.key == key:
            return
        elif p.tree:
            self._put_tree_val(p, key, h)
        else:
            count = 0
            while True:
                if p.next is None:
                    p.next = _Node(key, h)
                    if count >= _TREEIFY_THRESHOLD - 1:
                        self._treeify_bin(h)
                    break
                if p.next.key == key:
                    return
                p = p.next
                count += 1
        self.size += 1
        if self.size > self.threshold:
            self._resize()

    def keys(self):
        """The keys in iteration order."""
        out = []
        for head in self.table or ():
            e = head
            while e is not None:
                out.append(e.key)
                e = e.next
        return out

    # tree bins

    def _treeify_bin(self, h):
        n = len(self.table)
        if n < _MIN_TREEIFY_CAPACITY:
            self._resize()
            return
        index = h & (n - 1)
        nodes = []
        e = self.table[index]
        while e is not None:
            nodes.append(e)
            e = e.next
        self.table[index] = self._chain(nodes, tree=True)
        self._treeify(self.table, self.table[index])

    def _treeify(self, table, head):
        root = None
        x = head
        while x is not None:
            nxt = x.next
            x.left = x.right = None
            if root is None:
                x.parent = None
                x.red = False
                root = x
            else:
                p = root
                while True:
                    left = _signed(p.hash) >= _signed(x.hash)
                    xp = p
                    p = p.left if left else p.right
                    if p is None:
                        x.parent = xp
                        if left:
                            xp.left = x
                        else:
                            xp.right = x
                        root = self._balance_insertion(root, x)
                        break
            x = nxt
        self._move_root_to_front(table, root)

    def _put_tree_val(self, first, key, h):
        root = first
        while root.parent is not None:
            root = root.parent
        p = root
        while True:
            if p.key == key:
                return
            left = _signed(p.hash) >= _signed(h)
            xp = p
            p = p.left if left else p.right
            if p is None:
                xpn = xp.next
                x = _Node(key, h, xpn)
                x.tree = True
                if left:
                    xp.left = x
                else:
                    xp.right = x
                xp.next = x
                x.parent = x.prev = xp
                if xpn is not None:
                    xpn.prev = x
                self._move_root_to_front(self.table, self._balance_insertion(root, x))
                return

    @staticmethod
    def _move_root_to_front(table, root):
        index = root.hash & (len(table) - 1)
        first = table[index]
        if root is not first:
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

    def _split(self, table, head, index, bit):
        lo, hi = [], []
        e = head
        while e is not None:
            (lo if e.hash & bit == 0 else hi).append(e)
            e = e.next
        for nodes, at, other in ((lo, index, hi), (hi, index + bit, lo)):
            if not nodes:
                continue
            if len(nodes) <= _UNTREEIFY_THRESHOLD:
                table[at] = self._chain(nodes)
            else:  # still a tree: rebuilt unless every node moved together
                table[at] = self._chain(nodes, tree=True)
                if other:
                    self._treeify(table, table[at])

    @staticmethod
    def _rotate_left(root, p):
        r = p.right
        if r is None:
            return root
        p.right = r.left
        if r.left is not None:
            r.left.parent = p
        r.parent = pp = p.parent
        if pp is None:
            root = r
            r.red = False
        elif pp.left is p:
            pp.left = r
        else:
            pp.right = r
        r.left = p
        p.parent = r
        return root

    @staticmethod
    def _rotate_right(root, p):
        left = p.left
        if left is None:
            return root
        p.left = left.right
        if left.right is not None:
            left.right.parent = p
        left.parent = pp = p.parent
        if pp is None:
            root = left
            left.red = False
        elif pp.right is p:
            pp.right = left
        else:
            pp.left = left
        left.right = p
        p.parent = left
        return root

    def _balance_insertion(self, root, x):
        x.red = True
        while True:
            xp = x.parent
            if xp is None:
                x.red = False
                return x
            xpp = xp.parent
            if not xp.red or xpp is None:
                return root
            if xp is xpp.left:
                uncle = xpp.right
                if uncle is not None and uncle.red:
                    uncle.red = xp.red = False
                    xpp.red = True
                    x = xpp
                    continue
                if x is xp.right:
                    x = xp
                    root = self._rotate_left(root, x)
                    xp = x.parent
                    xpp = xp.parent if xp is not None else None
                if xp is not None:
                    xp.red = False
                    if xpp is not None:
                        xpp.red = True
                        root = self._rotate_right(root, xpp)
            else:
                uncle = xpp.left
                if uncle is not None and uncle.red:
                    uncle.red = xp.red = False
                    xpp.red = True
                    x = xpp
                    continue
                if x is xp.left:
                    x = xp
                    root = self._rotate_right(root, x)
                    xp = x.parent
                    xpp = xp.parent if xp is not None else None
                if xp is not None:
                    xp.red = False
                    if xpp is not None:
                        xpp.red = True
                        root = self._rotate_left(root, xpp)


def hash_map_order(keys, key_hash):
    """The iteration order of ``new HashMap<>()`` after ``put`` of ``keys`` in that order."""
    m = JavaHashMap(key_hash)
    for key in keys:
        m.put(key)
    return m.keys()


def _executor_hasheq(executor):
    """Clojure ``hasheq`` of ``[start end]`` (a vector or seq of longs)."""
    start, end = executor
    return clojure_hash_ordered((murmur3_hash_long(start), murmur3_hash_long(end)))


def assign_order(executor_slots, compat):
    """The order the even scheduler hands a topology's executors to ``Cluster.assign`` when it
    places them all in one round.

    1.x (``EvenScheduler.clj``): the executors sorted, zipped with the slots into a map
    (``into {}``), ``reverse-map``-ed by slot, each slot assigned its executors in turn; 2.x
    (``EvenScheduler.java``): the same with a ``HashMap`` keyed by ``ExecutorDetails`` and
    ``Utils.reverseMap`` (a ``HashMap`` keyed by ``WorkerSlot``).

    :param executor_slots: ``{(start, end): (node, port)}``.
    """
    slot_of = {tuple(e): tuple(slot) for e, slot in executor_slots.items()}
    executors = sorted(slot_of)
    if compat == "2.x":
        reassignment = hash_map_order(executors, executor_details_hash)
        slots = java_hash_map_order(list(dict.fromkeys(slot_of[e] for e in reassignment)),
                                    worker_slot_hash)
    else:
        reassignment = clojure_map_order(executors, _executor_hasheq)
        slots = clojure_map_order(list(dict.fromkeys(slot_of[e] for e in reassignment)),
                                  clojure_hasheq_vector, ARRAY_MAP_MAX_PERSISTENT)
    by_slot = {}
    for e in reassignment:
        by_slot.setdefault(slot_of[e], []).append(e)
    return [e for slot in slots for e in by_slot[slot]]


def wire_order_1x(assigned_executors):
    """The ``executor_node_port`` wire order of an Assignment 1.2.4's ``mk-assignments`` writes
    for executors its scheduler assigned in this order (``SchedulerAssignmentImpl``'s
    ``HashMap(0)``, then ``compute-topology->executor->node+port``'s and
    ``thriftify-assignment``'s ``into {}``)."""
    scheduled = java_hash_map_order(list(assigned_executors), executor_details_hash,
                                    initial_capacity=0)
    return clojure_map_order(scheduled, _executor_hasheq)


def executor_order(executor_slots, compat, walker="page"):
    """The order upstream's page calls walk a topology's ``executor->node+port``.

    :param executor_slots: the Assignment's ``{(start, end): (node, port)}``.
    :param compat: ``"1.x"`` or ``"2.x"``.
    :param walker: ``"page"`` (the page calls) or ``"info"`` (``getTopologyInfo``, which in
        2.x walks the Assignment itself rather than the page's copy of it).
    :returns: the executors in iteration order.
    """
    executors = assign_order(executor_slots, compat)
    if compat == "2.x":
        order = hash_map_order(executors, executor_details_hash)
        for _copy in range(3 if walker == "page" else 2):
            order = hash_map_order(order, executor_list_hash)
        return order
    wire = wire_order_1x(executors)
    thrift = java_hash_map_order(wire, executor_list_hash, initial_capacity=2 * len(wire))
    return clojure_map_order(clojure_map_order(thrift, executor_list_hash), _executor_hasheq)


def worker_slot_order(executors_in_order, slot_of, compat):
    """The order of a topology's workers (``agg-worker-stats``, ``aggWorkerStats``).

    1.x: ``reverse-map`` of ``executor->node+port`` (a persistent ``assoc`` per executor, keyed
    by ``[node port]``); 2.x: a ``HashMap`` keyed by ``WorkerSlot``, filled in executor order.

    :param executors_in_order: as :func:`executor_order` returns them.
    :param slot_of: ``{executor: (node, port)}``.
    :returns: the distinct ``(node, port)`` slots in iteration order.
    """
    first_seen = list(dict.fromkeys(tuple(slot_of[e]) for e in executors_in_order))
    if compat == "2.x":
        return java_hash_map_order(first_seen, worker_slot_hash)
    return clojure_map_order(first_seen, clojure_hasheq_vector, ARRAY_MAP_MAX_PERSISTENT)


def select_keys_order(keys_in_order):
    """1.x: the order of ``(select-keys m keys)`` (``conj`` onto ``{}``, one key at a time)."""
    return clojure_map_order(keys_in_order, _executor_hasheq, ARRAY_MAP_MAX_PERSISTENT)


def supervisor_topology_order(storm_ids, compat):
    """The order ``getSupervisorPageInfo`` walks the topologies assigned to a supervisor.

    1.x: ``topology-assignments``' ``into {}`` over the ``/assignments`` children; 2.x:
    ``topologiesOnSupervisor``'s ``HashSet``.

    :param storm_ids: the ids, in ``/assignments`` children order.
    """
    ids = list(dict.fromkeys(storm_ids))
    if compat == "2.x":
        return java_hash_map_order(ids, string_hash)
    return clojure_map_order(ids, clojure_hasheq_string)


def supervisor_order(supervisor_ids, compat):
    """The order of ``all-supervisor-info`` (1.x: ``into {}`` over the ``/supervisors``
    children) or ``allSupervisorInfo`` (2.x: a ``HashMap``), which orders a host's
    supervisors on its page."""
    ids = list(dict.fromkeys(supervisor_ids))
    if compat == "2.x":
        return java_hash_map_order(ids, string_hash)
    return clojure_map_order(ids, clojure_hasheq_string)
