# -*- test-case-name: tests.test_cluster_leader -*-
"""Nimbus leader election, as Storm 1.2.4 does it with Curator's ``LeaderLatch``.

Port of zookeeper.clj ``zk-leader-elector`` over Curator ``LeaderLatch`` (Storm 1.2.4 and
2.8.8 both use it on ``/leader-lock``).  Each candidate creates an ephemeral sequential node
``/leader-lock/_c_<uuid>-latch-<10 digits>`` holding its ``host:port`` in UTF-8 (Curator's
"protected" naming, ``_c_`` and a random UUID, followed by the lock name ``latch-``).  The
candidate whose node sorts first by the part after ``latch-`` leads; the others wait their
turn.  JVM and Python Nimbuses on one ZooKeeper therefore elect one leader among them.

As Curator's protected mode does, a create whose reply was lost (connection loss) is
recovered by finding the node that carries this attempt's UUID, so a latch never leaves a
stray node of its own session ahead of the others.

Deliberate differences: leadership is checked when asked (:meth:`LeaderLatch.is_leader`
reads the children) instead of being pushed by watches; a latch whose node vanished (an expired
ZooKeeper session) queues again on the next check or reconnection, as Curator's ``reset``.
``/leader-lock`` is created with empty data, as Curator creates parents.
"""

import logging
import threading
import uuid

from pynimbus.cluster import paths
from pynimbus.cluster.backend import ClusterStateError, ConnectionLostError, NoNodeError

log = logging.getLogger(__name__)

LOCK_NAME = "latch-"
PROTECTED_PREFIX = "_c_"

LATENT = "LATENT"
STARTED = "STARTED"
CLOSED = "CLOSED"


def sort_key(node_name):
    """Curator ``StandardLockInternalsDriver.fixForSorting``: the part after ``latch-``."""
    index = node_name.rfind(LOCK_NAME)
    return node_name[index + len(LOCK_NAME):] if index >= 0 else node_name


def sorted_participants(names):
    """Return latch node names in election order (first leads)."""
    return sorted(names, key=sort_key)


class LeaderLatch:
    """One Nimbus's place in the ``/leader-lock`` queue.

    :param backend: a :class:`~pynimbus.cluster.backend.Backend`; its session owns the node.
    :param participant_id: ``"host:port"`` of this Nimbus (``NimbusInfo.toHostPortString``).
    :param start: queue up at once (else call :meth:`start`).
    """

    def __init__(self, backend, participant_id, start=True):
        if not isinstance(participant_id, str) or not participant_id:
            raise ValueError("participant id must be a non-empty 'host:port' string")
        self.backend = backend
        self.participant_id = participant_id
        self.path = paths.leader_lock_path()
        self.state = LATENT
        self._node = None
        self._prefix = None  # "_c_<uuid>-" of the latest create attempt
        self._lock = threading.RLock()
        if start:
            self.start()

    def start(self):
        """Queue up for leadership (Curator ``start``).

        :raises RuntimeError: when the latch was already started or closed.
        """
        with self._lock:
            if self.state != LATENT:
                raise RuntimeError("leader latch already %s" % self.state.lower())
            self.state = STARTED
            self.backend.add_connection_listener(self._on_connection_state)
            self._reset()

    def _reset(self):
        """Delete our node if any and create a new one (Curator ``reset``)."""
        if self._node is not None:
            self.backend.delete(paths.join_path(self.path, self._node))
            self._node = None
        self.backend.mkdirs(self.path, data=b"")
        self._prefix = "%s%s-" % (PROTECTED_PREFIX, uuid.uuid4())
        try:
            created = self.backend.create(paths.join_path(self.path, self._prefix + LOCK_NAME),
                                          self.participant_id.encode("utf-8"),
                                          ephemeral=True, sequential=True)
        except ConnectionLostError:
            self._node = self._find_own(self._children())
            if self._node is None:
                raise
            return
        self._node = created.rsplit("/", 1)[1]

    def _find_own(self, children):
        """The child created by our latest attempt, found by its UUID (Curator protection)."""
        if self._prefix is None:
            return None
        for name in children:
            if name.startswith(self._prefix):
                return name
        return None

    def _on_connection_state(self, state):
        """Reconnected (maybe with a new session, which lost our node): queue again."""
        if state != self.backend.CONNECTED:
            return
        with self._lock:
            if self.state != STARTED:
                return
            try:
                self._ensure_node(self._children())
            except ClusterStateError as e:  # gone again: the next check or reconnection retries
                log.warning("Cannot queue %s for leadership: %s", self.participant_id, e)

    def _children(self):
        try:
            return self.backend.get_children(self.path)
        except NoNodeError:
            return []

    def _ensure_node(self, children):
        if self._node in children:
            return children
        if self._node is None:
            self._node = self._find_own(children)  # an attempt whose reply was lost
            if self._node is not None:
                return children
        self._node = None
        self._reset()
        return self._children()

    def is_leader(self):
        """True when this latch is started and its node is first in the queue.

        False too when the store cannot be reached: like Curator on a suspended connection,
        a Nimbus that cannot check does not claim leadership.
        """
        with self._lock:
            if self.state != STARTED:
                return False
            try:
                children = self._ensure_node(self._children())
            except ClusterStateError as e:
                log.warning("Cannot check leadership of %s: %s", self.participant_id, e)
                return False
            ordered = sorted_participants(children)
            return bool(ordered) and ordered[0] == self._node

    def participants(self):
        """Return ``[(participant_id, is_leader)]`` in queue order (``getParticipants``)."""
        result = []
        for name in sorted_participants(self._children()):
            data = self.backend.get(paths.join_path(self.path, name))
            if data is not None:  # gone since the listing
                result.append((data.decode("utf-8"), not result))
        return result

    def leader(self):
        """Return ``host:port`` of the current leader, or None when nobody is queued."""
        participants = self.participants()
        return participants[0][0] if participants else None

    def close(self):
        """Leave the queue (Curator ``close``): delete our node.  Idempotent."""
        with self._lock:
            if self.state == CLOSED:
                return
            was_started = self.state == STARTED
            self.state = CLOSED
            if was_started and self._node is not None:
                self.backend.delete(paths.join_path(self.path, self._node))
            self._node = None
