# -*- test-case-name: tests.test_read_cache -*-
"""The thread that keeps a :class:`~.read_cache.TreeMirror` current: the shared loop.

One thread per mirror does every store read for it, so the mirror has one writer and the
reads follow the order in which the store reported changes.  It works in batches: what piled
up while it read last time is read in one pipelined round.  A backend subclass says how it
learns of changes (ZooKeeper watches in :mod:`.zk_tree_watch`, a change counter polled in
:mod:`.embedded_tree_watch`) and how it reads the subtrees again after losing track (first
start, a lost or suspended ZooKeeper session, an error).

:meth:`TreeWatch.refresh` is the write barrier: a writer in this process names the paths it
wrote and waits until the mirror has read them back, so that the next query sees its own
write (as a read from the store right after the write would).
"""

import logging
import threading
import time

from pynimbus.cluster.backend import ClusterStateError

log = logging.getLogger(__name__)

# Kinds of pending work.
DATA = "data"          # read the node's data again
CHILDREN = "children"  # list the node's children again (new ones are read, gone ones dropped)
DELETED = "deleted"    # the node is gone, with its subtree
REFRESH = "refresh"    # a write barrier: list the parent, read the node

# How long a loop waiting to resynchronise sleeps between two looks at the connection.
RESYNC_RETRY_SECS = 1.0


class TreeWatch:
    """The mirror's reader thread; see the module docstring.

    :param mirror: the :class:`~.read_cache.TreeMirror` to keep current.
    :param subtrees: subtree root to the depth of its deepest nodes (``CACHED_SUBTREES``).
    """

    period_secs = None  # how often :meth:`_periodic` runs, busy or not (None: never)

    def __init__(self, mirror, subtrees, name="read-cache"):
        self.mirror = mirror
        self.subtrees = dict(subtrees)
        self._cond = threading.Condition()
        self._pending = []
        self._waiters = []
        self._needs_resync = True
        self._closed = False
        self._synced = threading.Event()
        self._next_periodic = None
        self._thread = threading.Thread(target=self._run, daemon=True, name=name)

    def start(self, timeout):
        """Start the thread and wait up to ``timeout`` s for the first full read.

        :returns: whether the mirror is synchronised (else it stays unavailable until it is).
        """
        self._thread.start()
        return self._synced.wait(timeout)

    def close(self):
        """Stop the thread (waits for the read under way)."""
        with self._cond:
            self._closed = True
            # a write waiting for its read-back would wait its whole timeout (and hold up
            # the thread pool's shutdown): the thread reads nothing more, so let it go
            waiters, self._waiters = self._waiters, []
            self._cond.notify_all()
        for done in waiters:
            done.set()
        if self._thread.is_alive() and self._thread is not threading.current_thread():
            self._thread.join(30)

    def refresh(self, paths, timeout=30.0):
        """Write barrier: read ``paths`` (and their parents' children) again, and wait.

        Returns at once while the mirror is unavailable: the next resynchronisation reads
        everything anyway.
        """
        if not self._synced.is_set():
            return
        done = threading.Event()
        with self._cond:
            if self._closed:
                return
            self._pending.extend((REFRESH, path) for path in paths)
            self._waiters.append(done)
            self._cond.notify_all()
        if not done.wait(timeout):
            log.warning("the read cache did not read back %s within %.0f s", paths, timeout)

    def _enqueue(self, kind, path):
        with self._cond:
            self._pending.append((kind, path))
            self._cond.notify_all()

    def _request_resync(self, reason):
        """Lose trust in the mirror: it serves nothing until read again in full."""
        with self._cond:
            self._needs_resync = True
            self.mirror.set_unavailable(reason)
            self._cond.notify_all()

    # -- the loop ----------------------------------------------------------------------

    def _next_work(self):
        """Wait for work; return ``(kind, batch, waiters)`` with kind ``"resync"``,
        ``"batch"`` or ``"periodic"``, or None when closed."""
        with self._cond:
            while True:
                if self._closed:
                    return None
                if self._needs_resync:
                    if self._can_read():
                        self._needs_resync = False
                        batch, self._pending = self._pending, []
                        waiters, self._waiters = self._waiters, []
                        return "resync", batch, waiters
                    self._cond.wait(RESYNC_RETRY_SECS)
                    continue
                now = time.monotonic()
                if self._next_periodic is not None and now >= self._next_periodic:
                    self._next_periodic = now + self.period_secs
                    return "periodic", [], []
                if self._pending:
                    batch, self._pending = self._pending, []
                    waiters, self._waiters = self._waiters, []
                    return "batch", batch, waiters
                self._cond.wait(None if self._next_periodic is None
                                else self._next_periodic - now)

    def _run(self):
        while True:
            work = self._next_work()
            if work is None:
                return
            kind, batch, waiters = work
            try:
                if kind == "resync":
                    self._resync()
                    with self._cond:
                        if not self._needs_resync:
                            self.mirror.set_unavailable(None)
                        if self.period_secs is not None:  # everything was just read
                            self._next_periodic = time.monotonic() + self.period_secs
                    self._synced.set()
                elif kind == "batch":
                    self._process(batch)
                else:
                    self._periodic()
            except ClusterStateError as e:
                self._request_resync(self._unreachable_reason(e))
            except Exception:  # never let the thread die: read everything again
                log.exception("the read cache failed to apply a change; reading all again")
                self._request_resync("the read cache is being read again after an error")
            finally:
                for done in waiters:
                    done.set()

    # -- what a backend provides -------------------------------------------------------

    def _can_read(self):
        """Whether the store can be read now."""
        return True

    def _unreachable_reason(self, error):
        return "the cluster state cannot be read: %s" % error

    def _resync(self):
        """Read every cached subtree in full into the mirror (``replace_tree``)."""
        raise NotImplementedError

    def _process(self, batch):
        """Read what ``batch`` (``(kind, path)`` pairs) says changed into the mirror."""
        raise NotImplementedError

    def _periodic(self):
        """Run every ``period_secs`` while the mirror is synchronised."""
