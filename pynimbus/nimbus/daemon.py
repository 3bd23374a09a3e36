"""The Nimbus daemon: cluster state, registration, leadership, handlers and the Thrift port.

Follows the start-up of nimbus.clj ``service-handler`` and ``launch-server!`` (1.2.4): connect
to cluster state and create Storm's top-level directories, listen on ``nimbus.thrift.port``,
register ``/nimbuses/<host>:<port>`` (a NimbusSummary whose ``uptime_secs`` holds the start
time), then join the ``/leader-lock`` queue.  Shutdown undoes it in reverse order.
Blocking cluster-state work runs in threads (``deferToThread``); the reactor never waits.
"""

import logging
import time

from twisted.internet import defer, task
from twisted.internet.error import CannotListenError
from twisted.internet.threads import deferToThread

from pynimbus import STORM_VERSION, STORM_VERSION_2X
from pynimbus.blobstore.inbox import Inbox
from pynimbus.blobstore.local import LocalFsBlobStore
from pynimbus.blobstore.synchronizer import BlobSynchronizer
from pynimbus.cluster import make_cluster_state
from pynimbus.cluster.leader import LeaderLatch
from pynimbus.cluster.backend import ClusterStateError, ConnectionLostError
from pynimbus.common.hostname import hostname
from pynimbus.common.ports import PortInUse, port_in_use_message
from pynimbus.generated.storm import Nimbus
from pynimbus.generated.storm.ttypes import NimbusSummary
from pynimbus.handlers import NimbusHandler
from pynimbus.handlers.admin import AdminHandler
from pynimbus.handlers.authorization import Authorization
from pynimbus.handlers.blobs import BlobsHandler
from pynimbus.handlers.files import FilesHandler
from pynimbus.handlers.heartbeats import HeartbeatsHandler
from pynimbus.handlers.lifecycle import LifecycleHandler, TopologyTransitions
from pynimbus.handlers.pages import PagesHandler
from pynimbus.handlers.queries import QueriesHandler
from pynimbus.handlers.submission import SubmissionHandler
from pynimbus.nimbus.blob_sync import BlobSync, blobs_missing_for_leadership
from pynimbus.nimbus.monitor import Monitor
from pynimbus.nimbus.supervisor_push import SupervisorPusher
from pynimbus.nimbus.topology_history import TopologyHistory
from pynimbus.thrift.errors import as_application_error
from pynimbus.thrift.server import ThriftServerFactory

log = logging.getLogger(__name__)

# Storm (and Twisted) default to 50; bursts of many `storm` clients then wait on SYN retries.
LISTEN_BACKLOG = 1024

# How often the leader latch is asked (in a thread) who leads; handlers read the answer.
LEADERSHIP_POLL_SECS = 1.0


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
        self.cluster_state_factory = cluster_state_factory or make_cluster_state
        self.state = None
        self.latch = None
        # (this nimbus leads, the leader's latch id): polled in a thread, read on the reactor,
        # as Curator's LeaderLatch keeps hasLeadership in memory
        self._leadership = (False, None)
        # why leadership is unknown: the store's error while it cannot be reached, else None
        self._store_unreachable = None
        self.port = None
        self.bound_port = None  # nimbus.thrift.port as bound (0 in the conf: the one chosen)
        self.factory = None
        self.started_at = None
        self.host = hostname(conf)
        self.blob_store = None
        self.inbox = None
        self.files = None
        self.blobs = None
        self.blob_sync = None
        # whether this nimbus checked it holds the active topologies' blobs since it last
        # gained leadership (Storm checks in the latch's isLeader callback)
        self._leadership_accepted = False
        self._requeue_call = None
        self._stopping = False
        self.timers = []
        # Port of nimbus-data's :submit-lock: submissions, transitions and cleanup take turns.
        self.submit_lock = defer.DeferredLock()
        self.transitions = TopologyTransitions(self)
        self.monitor = None
        self.authorization = None  # nimbus.authorizer, made when the stores open
        self.topology_history = None
        # 2.x only: pushes assignments to the supervisors after each round (1.x never does)
        self.supervisor_push = (SupervisorPusher(conf, reactor)
                                if conf.get("pynimbus.storm.compat") == "2.x" else None)
        self._was_leader = False

    @property
    def host_port(self):
        # the number noted at bind time: the port cannot say it once it stops listening
        return "%s:%d" % (self.host, self.bound_port)

    @property
    def participant_id(self):
        """This nimbus's id in the leader latch: ``NimbusInfo.toHostPortString`` of its
        generation (1.2.4 ``host:port``, 2.8.8 ``host:port:tlsPort``)."""
        if self.conf.get("pynimbus.storm.compat") == "2.x":
            return "%s:%d" % (self.host_port, int(self.conf.get("nimbus.thrift.tls.port") or 0))
        return self.host_port

    def leader(self):
        """``host:port`` of the current leader nimbus, or None (used by the handlers).

        Either generation's latch id is read (``NimbusInfo.parse`` takes both forms), so a
        mixed 1.x/2.x latch still names its leader."""
        participant = self._leadership[1]
        if participant is None:
            return None
        return ":".join(participant.split(":")[:2])

    def is_leader(self):
        """Whether this nimbus led at the latest poll (no I/O: safe on the reactor)."""
        return self._leadership[0]

    def _poll_leadership(self):
        """Blocking: ask the latch whether we lead and who does (run in a thread).

        While the store cannot be reached nobody is known to lead, as Curator's latch gives up
        leadership on a suspended connection; it is asked again at the next poll."""
        if self.latch is None:
            return (False, None)
        try:
            leads = self.latch.is_leader()
            if not leads:
                self._leadership_accepted = False
            elif not self._accept_leadership():
                leads = False
            leadership = (leads, self.latch.leader())
        except ConnectionLostError as e:
            self._store_unreachable = str(e)
            return (False, None)
        self._store_unreachable = None
        return leadership

    def _accept_leadership(self):
        """Blocking.  On gaining leadership, keep it only when this nimbus holds the blobs of
        every active topology and their dependencies, else give it up: port of 1.2.4
        ``leaderLatchListenerImpl`` ``isLeader`` (the latch is closed for good) and 2.8.8
        ``LeaderListenerCallback.leaderCallBack`` (queued again after
        ``nimbus.code.sync.freq.secs``, meanwhile the blob sync copies what it lacks)."""
        if self._leadership_accepted:
            return True
        missing = blobs_missing_for_leadership(self.state, self.blob_store)
        if not missing:
            log.info("Accepting leadership, all active topologies and corresponding "
                     "dependencies found locally.")
            self._leadership_accepted = True
            return True
        log.info("code for all active topologies not available locally (missing %s), giving "
                 "up leadership.", ", ".join(missing))
        self.latch.close()
        if self.conf.get("pynimbus.storm.compat") == "2.x":
            delay = float(self.conf["nimbus.code.sync.freq.secs"])
            self.reactor.callFromThread(self._schedule_requeue, delay)
        return False

    def _schedule_requeue(self, delay):
        if not self._stopping:
            self._requeue_call = self.reactor.callLater(delay, self._requeue)

    def _requeue(self):
        """2.8.8 ``quitElectionFor``'s timer: join the ``/leader-lock`` queue again."""
        self._requeue_call = None
        if self._stopping or self.latch is None or self.latch.state != "CLOSED":
            return None
        d = deferToThread(self._new_latch)
        d.addErrback(lambda f: log.warning("Could not queue for leadership again: %s",
                                           f.getErrorMessage()))
        return d

    def _new_latch(self):
        self.latch = LeaderLatch(self.state.backend, self.participant_id)
        log.info("LeaderLatch was in closed state. Reset the leaderLatch, and queued for "
                 "leader lock.")

    @defer.inlineCallbacks
    def refresh_leadership(self):
        self._leadership = yield deferToThread(self._poll_leadership)

    def check_leader(self):
        """Port of ``is-leader`` with ``:throw-exception true``.

        :raises TApplicationException: INTERNAL_ERROR "not a leader, current leader is ...".
        """
        if not self.is_leader():
            message = "not a leader, current leader is %s" % self.leader()
            if self._store_unreachable:
                message += " (%s)" % self._store_unreachable
            raise as_application_error(message)

    def mk_assignments(self, scratch_topology_id=None):
        return self.monitor.mk_assignments(scratch_topology_id=scratch_topology_id)

    def topology_removed(self, storm_id, old_assignment):
        """The ``remove`` transition removed ``storm_id`` (its last Assignment or None)."""
        return self.monitor.topology_removed(storm_id, old_assignment)

    def request_mk_assignments(self):
        """A submission or rebalance asks for a round now instead of at the next tick."""
        self.monitor.request()

    @defer.inlineCallbacks
    def start(self):
        """Open cluster state and stores, listen, register, queue for leadership, start timers.

        :raises ClusterStateError: when the store (e.g. ZooKeeper) cannot be reached.
        :raises twisted.internet.error.CannotListenError: when the port is taken.
        """
        self.started_at = int(self.clock())
        yield deferToThread(self._open_stores)
        concerns = self.build_concerns()
        self._wire_concerns(concerns)
        self.factory = ThriftServerFactory.from_conf(
            Nimbus.Processor(NimbusHandler(*concerns)), self.conf, clock=self.reactor)
        interface = self.conf.get("pynimbus.thrift.bind.address") or "0.0.0.0"
        try:
            self.port = self.reactor.listenTCP(
                int(self.conf["nimbus.thrift.port"]), self.factory, interface=interface,
                backlog=LISTEN_BACKLOG)
        except CannotListenError as e:
            raise PortInUse(port_in_use_message(
                "nimbus.thrift.port", [int(e.port)], interface,
                getattr(e.socketError, "strerror", None) or e.socketError))
        self.bound_port = self.port.getHost().port
        # Bound (the port number names this nimbus) but not accepting until it is registered
        # and queued for leadership, as Storm serves only after joining the leader latch;
        # clients wait in the listen backlog meanwhile.
        self.port.stopReading()
        # known once the port is bound; 2.8.8 writes NimbusInfo.toHostPortString, which has the
        # TLS port too (host:port:tlsPort)
        self.blobs.nimbus_host_port = self.participant_id
        yield deferToThread(self._register)
        yield self.blobs.setup_blobstore()
        synchronizer = BlobSynchronizer(self.blob_store, self.state, self.participant_id)
        self.blobs.synchronizer = synchronizer
        self.blob_sync = BlobSync(self.conf, self.reactor, synchronizer, self.is_leader,
                                  backend=self.state.backend,
                                  read_cache=self.state.read_cache)
        self._start_timers()
        self.blob_sync.start()
        self.port.startReading()
        log.info("Nimbus %s (Storm %s generation) serving on %s", self.host_port,
                 self.conf.get("pynimbus.storm.compat"), self.port.getHost())
        return self

    def _open_stores(self):
        # first, so that an unknown nimbus.authorizer stops start-up before anything opens
        self.authorization = Authorization.from_conf(self.conf)
        self.state = self.cluster_state_factory(self.conf)
        if self.conf.get("pynimbus.read.cache", True):
            # answered from memory from now on; its first read waits as a connect would
            timeout = int(self.conf.get("storm.zookeeper.connection.timeout", 15000)) / 1000.0
            if not self.state.start_read_cache(timeout):
                log.warning("The read cache is still reading the cluster state after %.0f s; "
                            "until it has, calls that read it fail saying so", timeout)
        self.topology_history = TopologyHistory(self.conf, clock=self.clock)
        self.blob_store = LocalFsBlobStore(self.conf, clock=self.clock,
                                           replication_of=self._blob_replication)
        self.inbox = Inbox(self.conf, clock=self.clock)
        self.monitor = Monitor(self)

    def _blob_replication(self, key):
        """Blocking: how many nimbuses hold ``key`` (children of ``/blobstore/<key>``)."""
        return self.state.blob_replication(key)

    def build_concerns(self):
        """The handler objects, one per concern, in the order they take methods."""
        self.files = FilesHandler(self.conf, inbox=self.inbox, blob_store=self.blob_store)
        self.blobs = BlobsHandler(self.conf, self.blob_store, self.state, nimbus_host_port=None,
                                  clock=self.clock, is_leader=self.is_leader)
        return [QueriesHandler(self.conf, self.state, self, self.started_at,
                               blob_store=self.blob_store, clock=self.clock,
                               resources=self.monitor.resources,
                               sched_status=self.monitor.sched_status_of),
                SubmissionHandler(self.conf, self),
                LifecycleHandler(self.conf, self, self.transitions),
                AdminHandler(self.conf, self),
                PagesHandler(self.conf, self.state, self.blob_store, clock=self.clock,
                             resources=self.monitor.resources,
                             sched_status=self.monitor.sched_status_of),
                HeartbeatsHandler(self.conf, self),
                self.files, self.blobs]

    def _wire_concerns(self, concerns):
        """Give every concern the authorization hook, the admin and pages concerns the
        queries' per-topology resources (getOwnerResourceSummaries, getTopologyPageInfo), and
        the pages the queries' stored conf, code and task info of a topology (read once) and
        whether a call on one reads only memory."""
        queries = next(c for c in concerns if isinstance(c, QueriesHandler))
        for concern in concerns:
            concern.authorization = self.authorization
            if isinstance(concern, (AdminHandler, PagesHandler)):
                concern.topology_resources = queries.resources_for_topology
            if isinstance(concern, PagesHandler):
                concern.stored_inputs = queries.stored_inputs
                concern.memory_only = queries.memory_only

    def _register(self):
        summary = NimbusSummary(host=self.host, port=self.bound_port,
                                uptime_secs=self.started_at, isLeader=False,
                                version=STORM_VERSION)
        two_x = self.conf.get("pynimbus.storm.compat") == "2.x"
        if two_x:
            # 2.8.8 registers its own version and its TLS port (0: no TLS listener)
            summary.version = STORM_VERSION_2X
            summary.tlsPort = int(self.conf.get("nimbus.thrift.tls.port") or 0)
        # 1.2.4 names the /nimbuses child host:port; 2.8.8 names it by the host alone
        nimbus_id = self.host if two_x else self.host_port
        self.state.add_nimbus_host(nimbus_id, summary)
        self.latch = LeaderLatch(self.state.backend, self.participant_id)
        self._leadership = self._poll_leadership()

    @defer.inlineCallbacks
    def monitor_tick(self):
        """The monitor timer: on gaining leadership send ``startup`` to every topology (1.x
        does it once at start, 2.x on every gain), then mk-assignments and cleanup."""
        yield self.refresh_leadership()
        leader = self.is_leader()
        if leader and not self._was_leader:
            log.info("%s is the leader nimbus", self.host_port)
            storm_ids = yield deferToThread(self.state.active_storms)
            yield self.transitions.startup(storm_ids)
        self._was_leader = leader
        yield self.monitor.run()

    def _start_timers(self):
        """nimbus.clj's recurring monitor and inbox cleaner, plus expiry of idle sessions."""
        monitor = task.LoopingCall(_logged, self.monitor_tick)
        monitor.clock = self.reactor
        monitor.start(float(self.conf["nimbus.monitor.freq.secs"]), now=True)
        self.timers.append(monitor)
        leadership = task.LoopingCall(_logged, self.refresh_leadership)
        leadership.clock = self.reactor
        leadership.start(LEADERSHIP_POLL_SECS, now=False)
        self.timers.append(leadership)
        every = (
            (self.conf["nimbus.cleanup.inbox.freq.secs"], self.files.clean_inbox),
            (self.conf["nimbus.file.copy.expiration.secs"], self.files.expire_sessions),
            (self.conf["nimbus.blobstore.expiration.secs"], self.blobs.expire_sessions),
        )
        for interval, work in every:
            loop = task.LoopingCall(_logged, work)
            loop.clock = self.reactor
            loop.start(float(interval), now=False)
            self.timers.append(loop)
        # Storm schedules the topology history cleaner only when the interval is set.
        interval = self.conf.get("logviewer.cleanup.interval.secs")
        if interval is not None:
            mins = self.conf.get("logviewer.cleanup.age.mins")
            loop = task.LoopingCall(_logged, lambda: deferToThread(
                self.topology_history.clean, mins))
            loop.clock = self.reactor
            loop.start(float(interval), now=True)
            self.timers.append(loop)

    @defer.inlineCallbacks
    def stop(self):
        self._stopping = True
        if self._requeue_call is not None and self._requeue_call.active():
            self._requeue_call.cancel()
        for loop in self.timers:
            if loop.running:
                loop.stop()
        if self.blob_sync is not None:
            yield self.blob_sync.stop()
        self.transitions.stop()
        if self.monitor is not None:
            self.monitor.cancel()
            yield self.monitor.lock.acquire()  # let a round in a thread finish first
        if self.supervisor_push is not None:
            yield self.supervisor_push.stop()
        if self.port is not None:
            yield self.port.stopListening()
            self.factory.close_connections()
        if self.state is not None:
            yield deferToThread(self._unregister)
        log.info("Nimbus stopped")

    def _unregister(self):
        for concern in (self.files, self.blobs):
            if concern is not None:
                concern.close()
        if self.latch is not None:
            try:
                self.latch.close()
            except ClusterStateError as e:
                # the node goes with the session, which closing the state ends
                log.warning("Could not leave the leader queue: %s", e)
            self._leadership = (False, None)
        self.state.close()


def _logged(work):
    """Run a timer's work; log its failure instead of stopping the timer (one line when the
    store is unreachable: the backend is reconnecting, and the next tick tries again)."""
    d = defer.maybeDeferred(work)
    d.addErrback(_log_timer_failure)
    return d


def _log_timer_failure(failure):
    if failure.check(ConnectionLostError):
        log.warning("timer task skipped: %s", failure.getErrorMessage())
    else:
        log.error("timer task failed: %s", failure.getTraceback())
