"""Nimbus's blob replication schedule: when a nimbus copies the leader's blobs, and whether a
nimbus that gains leadership holds enough of them to keep it.

Ports of nimbus.clj's ``blob-sync`` and its timer on ``nimbus.code.sync.freq.secs`` plus the
``/blobstore`` watch (1.2.4 ``launch-server!``; 2.8.8 ``Nimbus.blobSync``), and of the
leadership check (1.2.4 ``Zookeeper.leaderLatchListenerImpl``, 2.8.8
``LeaderListenerCallback.leaderCallBack``).  The copying itself is
:class:`~pynimbus.blobstore.synchronizer.BlobSynchronizer`, run in a thread: the reactor only
schedules.

Deliberate difference: rounds asked for while one runs (by the timer or the watch) are merged
into one more round after it, where Storm's timer and callbacks queue one run each.
"""

import logging

from twisted.internet import defer, task
from twisted.internet.threads import deferToThread

from pynimbus.blobstore.sync_plan import missing_dependencies, missing_topology_blobs
from pynimbus.cluster import paths
from pynimbus.nimbus.topology_store import read_storm_topology

log = logging.getLogger(__name__)


class BlobSync:
    """Runs ``synchronizer.sync_blobs`` on a non-leader nimbus: every
    ``nimbus.code.sync.freq.secs`` (first at once), and whenever ``/blobstore``'s children
    (the keys) change: told by the read cache's mirror on either store, else by a ZooKeeper
    watch (without the read cache the embedded store has only the timer).

    :param is_leader: ``() -> bool`` without I/O (the daemon's polled answer).
    :param backend: the cluster-state backend (its kazoo client, when it has one, is watched).
    :param read_cache: the state's :class:`~pynimbus.cluster.read_cache.TreeMirror`, or None.
    """

    def __init__(self, conf, reactor, synchronizer, is_leader, backend=None,
                 run_blocking=deferToThread, read_cache=None):
        self.conf = conf
        self.read_cache = read_cache
        self.reactor = reactor
        self.synchronizer = synchronizer
        self.is_leader = is_leader
        self.backend = backend
        self.run_blocking = run_blocking
        self.rounds = 0  # rounds completed, for logs and tests
        self._running = None  # the Deferred of the round under way
        self._again = False
        self._loop = None
        self._watch = None
        self._stopped = False

    @property
    def enabled(self):
        """Storm syncs in distributed mode only (``blob-sync :local`` does nothing)."""
        return self.conf.get("storm.cluster.mode", "distributed") != "local"

    def start(self):
        if not self.enabled:
            return
        self._loop = task.LoopingCall(self.request)
        self._loop.clock = self.reactor
        self._loop.start(float(self.conf["nimbus.code.sync.freq.secs"]), now=True)
        if self.read_cache is not None:
            # the mirror watches /blobstore already, on either store
            self.read_cache.add_children_listener(paths.BLOBSTORE_SUBTREE, self._keys_changed)
        elif getattr(self.backend, "kazoo_client", None) is not None:
            # the watch's first read is a ZooKeeper round trip: not on the reactor
            self.run_blocking(self._watch_blobstore).addErrback(
                lambda f: log.warning("No /blobstore watch (the timer still syncs): %s",
                                      f.getErrorMessage()))

    def stop(self):
        """Stop the timer; returns a Deferred fired once a round under way has finished."""
        self._stopped = True
        if self._loop is not None and self._loop.running:
            self._loop.stop()
        return self._running if self._running is not None else defer.succeed(None)

    def request(self):
        """Port of ``blob-sync``: on a non-leader, copy what it lacks (one round at a time).
        Returns the Deferred of the round (None when nothing runs)."""
        if self._stopped or self.is_leader():
            return None
        if self._running is not None:
            self._again = True
            return self._running
        self._running = self.run_blocking(self.synchronizer.sync_blobs)
        self._running.addCallbacks(self._round_done, self._round_failed)
        return self._running

    def _round_done(self, plan):
        self.rounds += 1
        if plan.to_delete or plan.to_download:
            log.info("blob-sync: deleted %s, downloaded %s", plan.to_delete, plan.to_download)
        self._next_round()

    def _round_failed(self, failure):
        self.rounds += 1
        log.warning("blob-sync failed (tried again at the next change or tick): %s",
                    failure.getErrorMessage())
        self._next_round()

    def _next_round(self):
        self._running = None
        if self._again:
            self._again = False
            self.request()

    def _keys_changed(self, _keys):
        if not self._stopped:
            self.reactor.callFromThread(self.request)

    def _watch_blobstore(self):
        """Storm passes ``blob-sync`` as the callback of ``.blobstore``: a change of the keys
        under ``/blobstore`` syncs at once."""
        from kazoo.recipe.watchers import ChildrenWatch

        def changed(children):
            self._keys_changed(children)
            return not self._stopped

        self._watch = ChildrenWatch(self.backend.kazoo_client, paths.BLOBSTORE_SUBTREE, changed)


def blobs_missing_for_leadership(state, blob_store):
    """Blocking.  Port of the check a nimbus makes on gaining leadership: the topology blobs of
    active topologies it does not hold, then the dependency blobs of their code (sorted keys;
    empty: it may lead)."""
    local = blob_store.list_keys()
    active = state.active_storms()
    missing = missing_topology_blobs(active, local, state.active_keys())
    if missing:
        return missing
    return missing_dependencies([read_storm_topology(blob_store, storm_id)
                                 for storm_id in active], local)
