"""The UI's calls to the leader Nimbus: blocking Thrift calls run in threads.

Storm's UI finds the leader anew for every request (a connection to a seed for ``getLeader``,
then one to the leader).  The UI remembers the leader for ``pynimbus.ui.leader.cache.secs``
(5 s; 0 asks every time, as Storm): one connection per call instead of two.  A call that cannot
reach the remembered leader forgets it and is made once more through a fresh lookup, so a
leader that died or moved costs no failed request.
"""

import time

from thrift.transport.TTransport import TTransportException
from twisted.internet import threads

from pynimbus.thrift.client import NIMBUS_CALL_TIMEOUT_SECS, NimbusClient, find_leader_nimbus

LEADER_CACHE_SECS = "pynimbus.ui.leader.cache.secs"
DEFAULT_LEADER_CACHE_SECS = 5.0


class LeaderCache(object):
    """The leader's ``(host, port)``, looked up again once ``ttl`` seconds old."""

    def __init__(self, conf, ttl, clock=time.monotonic, find=find_leader_nimbus):
        self.conf = conf
        self.ttl = ttl
        self.clock = clock
        self.find = find
        self.known = None  # (address, found at); replaced whole, so threads may share it

    def leader(self, timeout):
        known = self.known
        if known is not None and self.clock() - known[1] < self.ttl:
            return known[0]
        address = self.find(self.conf, timeout)
        if self.ttl > 0:
            self.known = (address, self.clock())
        return address

    def forget(self, address):
        known = self.known
        if known is not None and known[0] == address:
            self.known = None


class NimbusCalls(object):
    """``nimbus(method, *args)``: a Deferred of the leader Nimbus's answer."""

    def __init__(self, conf, timeout=NIMBUS_CALL_TIMEOUT_SECS):
        ttl = conf.get(LEADER_CACHE_SECS)
        self.leaders = LeaderCache(conf, DEFAULT_LEADER_CACHE_SECS if ttl is None
                                   else float(ttl))
        self.timeout = timeout

    def __call__(self, method, *args):
        return threads.deferToThread(self.call, method, *args)

    def call(self, method, *args):
        """Blocking: the call on the leader, once more on a fresh lookup if the remembered
        leader cannot be reached.

        :raises LeaderNotFound: no seed named a leader; else what the call raises."""
        remembered = self.leaders.known is not None
        address = self.leaders.leader(self.timeout)
        try:
            return self.call_at(address, method, *args)
        except (TTransportException, OSError):
            self.leaders.forget(address)
            if not remembered:
                raise
        return self.call_at(self.leaders.leader(self.timeout), method, *args)

    def call_at(self, address, method, *args):
        with NimbusClient(address[0], address[1], timeout=self.timeout) as nimbus:
            return nimbus.call(method, *args)
