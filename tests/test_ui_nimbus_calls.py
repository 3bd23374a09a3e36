"""The UI's leader lookups: remembered for a while, forgotten when the leader cannot be
reached (the call then made once more on a fresh lookup)."""

import pytest
from thrift.transport.TTransport import TTransportException

from pynimbus.thrift.client import LeaderNotFound
from pynimbus.ui.nimbus_calls import LeaderCache, NimbusCalls


class Lookups(object):
    """``find_leader_nimbus`` over a list of answers, counting the lookups."""

    def __init__(self, *answers):
        self.answers = list(answers)
        self.count = 0

    def __call__(self, conf, timeout):
        self.count += 1
        answer = self.answers.pop(0) if len(self.answers) > 1 else self.answers[0]
        if isinstance(answer, Exception):
            raise answer
        return answer


def test_the_leader_is_remembered_for_the_ttl():
    now = [100.0]
    find = Lookups(("a", 1), ("b", 2))
    cache = LeaderCache({}, 5.0, clock=lambda: now[0], find=find)
    assert [cache.leader(1), cache.leader(1)] == [("a", 1), ("a", 1)] and find.count == 1
    now[0] += 5.0
    assert cache.leader(1) == ("b", 2) and find.count == 2
    cache.forget(("a", 1))  # not the one known: kept
    assert cache.leader(1) == ("b", 2) and find.count == 2
    cache.forget(("b", 2))
    cache.leader(1)
    assert find.count == 3


def test_a_ttl_of_zero_looks_up_every_time_as_storm():
    find = Lookups(("a", 1))
    cache = LeaderCache({}, 0, find=find)
    cache.leader(1), cache.leader(1)
    assert find.count == 2 and cache.known is None


class Calls(NimbusCalls):
    """NimbusCalls whose leader connections are ``reachable`` or not."""

    def __init__(self, find, reachable):
        super().__init__({})
        self.leaders.find = find
        self.reachable = reachable
        self.made = []

    def call_at(self, address, method, *args):
        self.made.append(address)
        if address not in self.reachable:
            raise TTransportException(TTransportException.NOT_OPEN, "refused")
        return (address, method)


def test_an_unreachable_remembered_leader_is_forgotten_and_the_call_made_again():
    calls = Calls(Lookups(("old", 1), ("new", 2)), reachable={("old", 1), ("new", 2)})
    assert calls.call("getClusterInfo") == (("old", 1), "getClusterInfo")
    calls.reachable = {("new", 2)}  # the leader moved
    assert calls.call("getClusterInfo") == (("new", 2), "getClusterInfo")
    assert calls.made == [("old", 1), ("old", 1), ("new", 2)]


def test_a_fresh_leader_that_cannot_be_reached_fails_the_call_once():
    calls = Calls(Lookups(("gone", 1)), reachable=set())
    with pytest.raises(TTransportException):
        calls.call("getClusterInfo")
    assert calls.made == [("gone", 1)] and calls.leaders.known is None


def test_no_leader_is_the_lookups_error():
    calls = Calls(Lookups(LeaderNotFound(["s:6627: refused"])), reachable=set())
    with pytest.raises(LeaderNotFound):
        calls.call("getClusterInfo")
