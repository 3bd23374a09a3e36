# -*- test-case-name: tests.test_supervisor_push -*-
"""Telling 2.x supervisors their assignments: a non-blocking ``Supervisor`` Thrift client.

Port of 2.8.8 ``AssignmentDistributionService`` (and the ``SupervisorClient`` it opens per
push) on the Twisted reactor.  Which node gets what is decided purely
(:mod:`pynimbus.clojure_port.supervisor_assignments`); this module only sends: one new
connection per push to the node's ``host``:``server_port``, framed transport, binary protocol,
one ``sendSupervisorAssignments`` call, then the connection is closed.

As upstream:

* a node without a ``server_port`` is skipped with a warning;
* a failed push (refused, timed out, an exception from the supervisor) is logged and dropped:
  nothing is retried; the supervisor catches up by asking ``getSupervisorAssignments`` itself,
  and the next round that changes its assignments pushes again;
* at most ``nimbus.assignments.service.threads`` pushes are in flight, and at most that times
  ``nimbus.assignments.service.thread.queue.size`` wait; more are dropped with a warning;
* connecting and the call each give up after ``supervisor.thrift.socket.timeout.ms``.

Deliberate difference: 2.8.8 queues every push, so two pushes to one node can overtake each
other on its worker threads; here a node has at most one push in flight and one waiting, and
a newer push replaces the waiting one, so a node never ends up with older assignments.
Nothing here ever blocks the reactor or waits on a dead supervisor: the monitor hands pushes
over and goes on.
"""

import logging

from thrift.protocol.TBinaryProtocol import TBinaryProtocolAcceleratedFactory
from thrift.transport.TTwisted import ThriftClientProtocol
from twisted.internet import defer
from twisted.internet.protocol import ClientCreator

from pynimbus.generated.storm import Supervisor

log = logging.getLogger(__name__)

DEFAULT_TIMEOUT_MS = 5000
DEFAULT_THREADS = 10
DEFAULT_QUEUE_SIZE = 100


def _int(value, default):
    try:
        return default if value is None or isinstance(value, bool) else int(value)
    except (TypeError, ValueError):
        return default


class SupervisorPusher:
    """Sends :class:`~pynimbus.clojure_port.supervisor_assignments.NodeAssignments`.

    :param conf: the nimbus conf (timeouts and limits above).
    :param reactor: the reactor to connect and time out with.
    """

    def __init__(self, conf, reactor):
        self.reactor = reactor
        self.timeout_secs = _int(conf.get("supervisor.thrift.socket.timeout.ms"),
                                 DEFAULT_TIMEOUT_MS) / 1000.0
        threads = max(1, _int(conf.get("nimbus.assignments.service.threads"), DEFAULT_THREADS))
        self.max_waiting = threads * max(1, _int(
            conf.get("nimbus.assignments.service.thread.queue.size"), DEFAULT_QUEUE_SIZE))
        self.semaphore = defer.DeferredSemaphore(threads)
        self._waiting = {}       # node -> the newest NodeAssignments not sent yet
        self._queued = set()     # nodes with a send queued or running
        self._running = set()    # Deferreds of sends in flight (for stop)
        self._connecting = set()  # their connection attempts
        self._connections = set()  # and their connections
        self.stopped = False
        self.sent = 0            # counters, for logs and tests
        self.failed = 0
        self.dropped = 0

    def push(self, pushes):
        """Queue ``pushes`` (NodeAssignments); returns at once."""
        for node_assignments in pushes:
            self._push_one(node_assignments)

    def _push_one(self, push):
        if self.stopped:
            return
        if push.server_port is None:
            log.warning("not sending assignments to node %s (%s): its SupervisorInfo has no "
                        "server_port", push.node, push.host)
            self.dropped += 1
            return
        if push.node not in self._waiting and len(self._waiting) >= self.max_waiting:
            log.warning("not sending assignments to node %s: %d pushes are waiting already",
                        push.node, len(self._waiting))
            self.dropped += 1
            return
        self._waiting[push.node] = push
        if push.node not in self._queued:
            self._queue(push.node)

    def _queue(self, node):
        self._queued.add(node)
        d = self.semaphore.run(self._send_waiting, node)
        d.addBoth(self._sent, node)

    def _sent(self, _, node):
        self._queued.discard(node)
        if node in self._waiting and not self.stopped:
            self._queue(node)

    def _send_waiting(self, node):
        push = self._waiting.pop(node, None)
        if push is None or self.stopped:
            return None
        d = self._send(push)
        self._running.add(d)
        d.addCallbacks(self._succeeded, self._failed, callbackArgs=(push,), errbackArgs=(push,))
        d.addBoth(self._forget, d)
        return d

    def _forget(self, result, d):
        self._running.discard(d)
        return result

    def _succeeded(self, _, push):
        self.sent += 1
        log.debug("sent %d assignments to node %s (%s:%s)",
                  len(push.assignments.storm_assignment or {}), push.node, push.host,
                  push.server_port)

    def _failed(self, failure, push):
        self.failed += 1
        if self.stopped:
            log.debug("push to node %s abandoned at shutdown", push.node)
        else:
            log.error("Exception when trying to send assignments to node %s (%s:%s): %s",
                      push.node, push.host, push.server_port, failure.getErrorMessage())

    @defer.inlineCallbacks
    def _send(self, push):
        """Connect, call ``sendSupervisorAssignments``, close; each step time-limited."""
        creator = ClientCreator(self.reactor, ThriftClientProtocol, Supervisor.Client,
                                TBinaryProtocolAcceleratedFactory())
        connecting = creator.connectTCP(push.host, push.server_port, timeout=self.timeout_secs)
        self._connecting.add(connecting)
        try:
            proto = yield connecting
        finally:
            self._connecting.discard(connecting)
        self._connections.add(proto)
        # A call that takes too long is ended by dropping the connection: the client then
        # fails the call's Deferred itself (cancelling it would make the client fire it twice).
        expired = []

        def expire():
            expired.append(True)
            proto.transport.abortConnection()
        timer = self.reactor.callLater(self.timeout_secs, expire)
        try:
            yield proto.client.sendSupervisorAssignments(push.assignments)
        except Exception:
            if expired:
                raise TimeoutError("no answer from the supervisor within %.1f s"
                                   % self.timeout_secs)
            raise
        finally:
            if timer.active():
                timer.cancel()
            self._connections.discard(proto)
            proto.transport.loseConnection()

    def stop(self):
        """Drop waiting pushes and abort those in flight; fires once they are all over."""
        self.stopped = True
        self._waiting.clear()
        running = list(self._running)
        for connecting in list(self._connecting):
            connecting.cancel()
        for proto in list(self._connections):
            proto.transport.abortConnection()
        return defer.DeferredList(running, consumeErrors=True)
