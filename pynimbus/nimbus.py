"""The Nimbus daemon: cluster state, registration, leadership, handlers and the Thrift port.

Follows the start-up of nimbus.clj ``service-handler`` and ``launch-server!`` (1.2.4): connect
to cluster state and create Storm's top-level directories, listen on ``nimbus.thrift.port``,
register ``/nimbuses/<host>:<port>`` (a NimbusSummary whose ``uptime_secs`` holds the start
time), then join the ``/leader-lock`` queue.  Shutdown undoes it in reverse order.
Blocking cluster-state work runs in threads (``deferToThread``); the reactor never waits.
"""

import logging
import socket
import time

from twisted.internet import defer
from twisted.internet.threads import deferToThread

from pynimbus import STORM_VERSION
from pynimbus.generated.storm import Nimbus
from pynimbus.generated.storm.ttypes import NimbusSummary
from pynimbus.handlers import NimbusHandler
from pynimbus.handlers.queries import QueriesHandler
from pynimbus.server import ThriftServerFactory

log = logging.getLogger(__name__)


def nimbus_hostname(conf):
    """``storm.local.hostname`` if set, else the canonical host name (as Storm's NimbusInfo)."""
    return conf.get("storm.local.hostname") or socket.getfqdn()


class NimbusDaemon:
    """One running Nimbus.  ``start()`` and ``stop()`` return Deferreds.

    :param conf: the effective configuration.
    :param reactor: the Twisted reactor (injected, so tests can pass their own).
    :param cluster_state_factory: ``conf -> StormClusterState`` (blocking; run in a thread).
    """

    def __init__(self, conf, reactor, cluster_state_factory=None, clock=time.time):
        self.conf = conf
        self.reactor = reactor
        self.clock = clock
        self.cluster_state_factory = cluster_state_factory or _default_cluster_state
        self.state = None
        self.latch = None
        self.port = None
        self.factory = None
        self.started_at = None
        self.host = nimbus_hostname(conf)

    @property
    def host_port(self):
        return "%s:%d" % (self.host, self.port.getHost().port)

    def leader(self):
        """``host:port`` of the current leader nimbus, or None (used by the handlers)."""
        return self.latch.leader() if self.latch is not None else None

    def is_leader(self):
        return self.latch is not None and self.latch.is_leader()

    @defer.inlineCallbacks
    def start(self):
        self.started_at = int(self.clock())
        self.state = yield deferToThread(self.cluster_state_factory, self.conf)
        handler = NimbusHandler(*self.build_concerns())
        self.factory = ThriftServerFactory(
            Nimbus.Processor(handler), int(self.conf["nimbus.thrift.max_buffer_size"]))
        self.port = self.reactor.listenTCP(
            int(self.conf["nimbus.thrift.port"]), self.factory,
            interface=self.conf.get("pynimbus.thrift.bind.address") or "0.0.0.0")
        yield deferToThread(self._register)
        log.info("Nimbus %s (Storm %s generation) serving on %s", self.host_port,
                 self.conf.get("pynimbus.storm.compat"), self.port.getHost())
        return self

    def build_concerns(self):
        """The handler objects, one per concern, in the order they take methods."""
        return [QueriesHandler(self.conf, self.state, self, self.started_at, clock=self.clock)]

    def _register(self):
        from pynimbus.cluster.leader import LeaderLatch
        summary = NimbusSummary(host=self.host, port=self.port.getHost().port,
                                uptime_secs=self.started_at, isLeader=False,
                                version=STORM_VERSION)
        self.state.add_nimbus_host(self.host_port, summary)
        self.latch = LeaderLatch(self.state.backend, self.host_port)
        self.latch.start()

    @defer.inlineCallbacks
    def stop(self):
        if self.port is not None:
            yield self.port.stopListening()
            self.factory.close_connections()
        if self.state is not None:
            yield deferToThread(self._unregister)
        log.info("Nimbus stopped")

    def _unregister(self):
        if self.latch is not None:
            self.latch.close()
        self.state.close()


def _default_cluster_state(conf):
    from pynimbus.cluster.backend import make_backend
    from pynimbus.cluster.state import StormClusterState
    state = StormClusterState(make_backend(conf))
    state.mkdirs()
    return state
