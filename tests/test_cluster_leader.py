"""LeaderLatch: Curator's LeaderLatch layout on /leader-lock, on both backends."""

import re

import pytest

from pynimbus.cluster import ConnectionLostError
from pynimbus.cluster.leader import LeaderLatch
from pynimbus.cluster.leader import sorted_participants

LATCH_NODE = re.compile(r"^_c_[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}"
                        r"-latch-\d{10}$")


def test_first_latch_leads_and_the_next_takes_over_when_it_closes(open_backend):
    """Two latches: the first is leader; once it closes, the second becomes leader."""
    first = LeaderLatch(open_backend(), "nimbus1:6627")
    second = LeaderLatch(open_backend(), "nimbus2:6627")
    assert first.is_leader() and not second.is_leader()
    assert first.leader() == second.leader() == "nimbus1:6627"
    assert second.participants() == [("nimbus1:6627", True), ("nimbus2:6627", False)]
    first.close()
    assert not first.is_leader()
    assert second.is_leader()
    assert second.leader() == "nimbus2:6627"


def test_latch_nodes_use_curators_protected_sequential_names(open_backend):
    """Nodes are ephemeral sequential _c_<uuid>-latch-<seq> holding host:port in UTF-8."""
    backend = open_backend()
    LeaderLatch(backend, "nimbus1:6627")
    LeaderLatch(open_backend(), "nimbus2:6627")
    names = backend.get_children("/leader-lock")
    assert len(names) == 2 and all(LATCH_NODE.match(n) for n in names), names
    ordered = sorted_participants(names)
    assert [backend.get("/leader-lock/" + n) for n in ordered] == [b"nimbus1:6627",
                                                                   b"nimbus2:6627"]
    assert ordered[0].endswith("-latch-0000000000")
    assert backend.get("/leader-lock") == b""  # created as Curator creates parents


def test_leadership_passes_on_when_the_leaders_session_ends(open_backend):
    """Closing the leader's backend (its session) removes its node: the next one leads."""
    leader_backend = open_backend()
    LeaderLatch(leader_backend, "nimbus1:6627")
    follower = LeaderLatch(open_backend(), "nimbus2:6627")
    assert not follower.is_leader()
    leader_backend.close()
    assert follower.is_leader()


def test_order_is_by_sequence_number_not_by_uuid():
    """Election order sorts on the part after 'latch-', whatever the UUIDs are."""
    names = ["_c_ffff-latch-0000000002", "_c_0000-latch-0000000010", "_c_aaaa-latch-0000000001"]
    assert sorted_participants(names) == ["_c_aaaa-latch-0000000001",
                                          "_c_ffff-latch-0000000002",
                                          "_c_0000-latch-0000000010"]


def test_a_latch_whose_node_vanished_queues_again_at_the_back(open_backend):
    """If its node disappears (an expired session), the latch re-queues behind the others."""
    backend = open_backend()
    first = LeaderLatch(backend, "nimbus1:6627")
    second = LeaderLatch(open_backend(), "nimbus2:6627")
    for name in backend.get_children("/leader-lock"):
        if backend.get("/leader-lock/" + name) == b"nimbus1:6627":
            backend.delete("/leader-lock/" + name)
    assert not first.is_leader()  # re-created behind nimbus2
    assert second.is_leader()
    assert [p for p, _ in second.participants()] == ["nimbus2:6627", "nimbus1:6627"]


def test_no_leader_without_participants_and_latches_start_once(open_backend):
    """leader() is None with nobody queued; a latch cannot be started twice."""
    latch = LeaderLatch(open_backend(), "nimbus1:6627", start=False)
    assert latch.leader() is None and not latch.is_leader()
    latch.start()
    with pytest.raises(RuntimeError):
        latch.start()
    latch.close()
    latch.close()
    assert latch.leader() is None


@pytest.mark.zookeeper
def test_an_expired_leader_loses_leadership_and_queues_again(zookeeper_conf, wait_until):
    """When the leader's ZooKeeper session expires, the next Nimbus leads and it re-queues."""
    from kazoo.client import KazooClient
    from pynimbus.cluster import make_backend
    leader_backend, follower_backend = make_backend(zookeeper_conf), make_backend(zookeeper_conf)
    try:
        leader = LeaderLatch(leader_backend, "nimbus1:6627")
        follower = LeaderLatch(follower_backend, "nimbus2:6627")
        assert leader.is_leader()
        twin = KazooClient(hosts=leader_backend.hosts,
                           client_id=leader_backend._client.client_id)
        twin.start(timeout=10)
        twin.stop()  # closing the shared session expires it for the leader's client
        twin.close()
        wait_until(follower.is_leader, timeout=20, what="the follower to take over")
        wait_until(lambda: [p for p, _ in follower.participants()]
                   == ["nimbus2:6627", "nimbus1:6627"], timeout=20,
                   what="the old leader to queue again behind the new one")
        assert not leader.is_leader()
    finally:
        leader_backend.close()
        follower_backend.close()


class LosesOneCreateReply:
    """A backend whose first create succeeds but then reports a lost connection."""

    def __init__(self, backend):
        self.backend = backend
        self.lost = 0

    def __getattr__(self, name):
        return getattr(self.backend, name)

    def create(self, *args, **kwargs):
        path = self.backend.create(*args, **kwargs)
        if not self.lost:
            self.lost += 1
            raise ConnectionLostError("reply lost")
        return path


def test_a_create_whose_reply_was_lost_is_found_by_its_uuid(open_backend):
    """After a lost create reply the latch adopts its node instead of queueing a second one."""
    backend = LosesOneCreateReply(open_backend())
    latch = LeaderLatch(backend, "nimbus1:6627")
    other = LeaderLatch(open_backend(), "nimbus2:6627")
    assert backend.lost == 1
    assert latch.is_leader() and not other.is_leader()
    assert [p for p, _ in other.participants()] == ["nimbus1:6627", "nimbus2:6627"]


def test_is_leader_is_false_when_the_store_cannot_be_reached(open_backend):
    """A latch that cannot read the queue does not claim leadership."""
    backend = open_backend()
    latch = LeaderLatch(backend, "nimbus1:6627")
    assert latch.is_leader()
    backend.close()
    assert not latch.is_leader()
