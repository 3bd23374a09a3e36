# -*- test-case-name: tests.test_blob_sync -*-
"""Tests for pynimbus.nimbus.blob_sync.BlobSync: when a nimbus runs the blob sync (task.Clock, a
synchronizer that records its rounds, Deferreds fired by the test)."""

from twisted.internet import defer, task

from pynimbus.blobstore.sync_plan import BlobSyncPlan
from pynimbus.nimbus.blob_sync import BlobSync

EMPTY = BlobSyncPlan([], [], [])


class Rounds:
    """A run_blocking whose rounds finish when the test says so."""

    def __init__(self):
        self.pending = []

    def __call__(self, function, *args):
        d = defer.Deferred()
        self.pending.append(d)
        return d

    def finish(self, plan=EMPTY):
        self.pending.pop(0).callback(plan)


class NoSynchronizer:
    def sync_blobs(self):
        raise AssertionError("rounds are run by Rounds, not called")


def make(leader=False, mode="distributed"):
    clock = task.Clock()
    rounds = Rounds()
    leads = [leader]
    sync = BlobSync({"nimbus.code.sync.freq.secs": 120, "storm.cluster.mode": mode}, clock,
                    synchronizer=NoSynchronizer(), is_leader=lambda: leads[0], run_blocking=rounds)
    return sync, clock, rounds, leads


def test_a_follower_syncs_at_start_and_every_sync_period():
    """The first round runs at once, the next nimbus.code.sync.freq.secs later."""
    sync, clock, rounds, _ = make()
    sync.start()
    assert len(rounds.pending) == 1
    rounds.finish()
    clock.advance(119)
    assert rounds.pending == []
    clock.advance(1)
    assert len(rounds.pending) == 1
    rounds.finish()
    assert sync.rounds == 2


def test_the_leader_does_not_sync():
    """blob-sync does nothing on the leader (it holds what it serves)."""
    sync, clock, rounds, leads = make(leader=True)
    sync.start()
    clock.advance(120)
    assert rounds.pending == []
    leads[0] = False
    clock.advance(120)
    assert len(rounds.pending) == 1


def test_requests_during_a_round_make_one_more_round():
    """Watch events and ticks while a round runs are merged into a single next round."""
    sync, clock, rounds, _ = make()
    sync.start()
    sync.request()
    sync.request()
    assert len(rounds.pending) == 1
    rounds.finish()
    assert len(rounds.pending) == 1
    rounds.finish()
    assert rounds.pending == [] and sync.rounds == 2


def test_a_failed_round_does_not_stop_the_schedule():
    """A round that fails (a store outage) is logged; the next tick runs again."""
    sync, clock, rounds, _ = make()
    sync.start()
    rounds.pending.pop(0).errback(RuntimeError("ZooKeeper is away"))
    clock.advance(120)
    assert len(rounds.pending) == 1


def test_local_mode_never_syncs():
    """blob-sync :local does nothing."""
    sync, clock, rounds, _ = make(mode="local")
    sync.start()
    clock.advance(1000)
    assert rounds.pending == []


def test_stop_waits_for_the_round_under_way_and_ends_the_schedule():
    """stop() fires once the running round is over; no round runs after it."""
    sync, clock, rounds, _ = make()
    sync.start()
    stopped = sync.stop()
    assert not stopped.called
    rounds.finish()
    assert stopped.called
    clock.advance(1000)
    assert sync.request() is None and rounds.pending == []


def test_a_change_of_keys_in_the_read_cache_syncs_at_once():
    """With the read cache, a key added or removed under /blobstore (told by the mirror, on
    either store) asks for a round at once; a holder's registration below a key does not."""
    from pynimbus.cluster.read_cache import TreeMirror
    clock = task.Clock()
    rounds = Rounds()
    mirror = TreeMirror()
    mirror.replace_tree("/blobstore", {"/blobstore": b""})
    reactor = Reactor(clock)
    sync = BlobSync({"nimbus.code.sync.freq.secs": 120}, reactor,
                    synchronizer=NoSynchronizer(), is_leader=lambda: False,
                    run_blocking=rounds, read_cache=mirror)
    sync.start()
    rounds.finish()
    mirror.apply(upserts={"/blobstore/k": b""})
    assert len(rounds.pending) == 1
    rounds.finish()
    mirror.apply(upserts={"/blobstore/k/nimbus1:6627-1": b""})
    assert rounds.pending == []
    mirror.apply(deletes=["/blobstore/k"])
    assert len(rounds.pending) == 1
    rounds.finish()
    sync.stop()


class Reactor:
    """task.Clock's scheduling, and callFromThread calling at once (one thread here)."""

    def __init__(self, clock):
        self.clock = clock

    def callLater(self, *args, **kwargs):
        return self.clock.callLater(*args, **kwargs)

    def seconds(self):
        return self.clock.seconds()

    def callFromThread(self, f, *args, **kwargs):
        f(*args, **kwargs)
