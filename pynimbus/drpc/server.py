"""``pynimbus drpc``: Storm's DRPC server on Twisted.

Two Thrift services over framed binary transport, as Storm's DRPC daemon serves them:
``DistributedRPC`` (``execute``) on ``drpc.port`` (3772) for the callers and
``DistributedRPCInvocations`` (``fetchRequest``, ``result``, ``failRequest`` and 2.x's
``failRequestV2``) on ``drpc.invocations.port`` (3773) for the topologies' DRPC spouts and
return bolts, and the HTTP endpoint (:mod:`.http`) on ``drpc.http.port`` (3774; a negative
port: none).  The requests themselves are :class:`~pynimbus.drpc.requests.DRPCRequests`;
here ``execute`` returns a Deferred that fires with the answer, so a caller waiting never
holds up another, and a timer expires the requests older than ``drpc.request.timeout.secs``
every half of it (2.8.8's ``DRPC``; 1.2.4 looks every 5 s).  Stopping answers the waiting
callers with "Server Shutting Down".  ``drpc.authorizer`` is asked before each call
(:mod:`.authorizer`).  As many callers wait at once as Storm's server holds
(``drpc.worker.threads`` + ``drpc.queue.size``, 192 by default); past that a caller gets
``DRPCExecutionException`` saying the server is busy (deliberate difference: Storm's server
drops the connection).
"""

import logging
import os

from twisted.internet import defer, task
from twisted.internet.error import CannotListenError
from zope.interface import implementer

from pynimbus.clojure_port.authorization import request_principal
from pynimbus.common.ports import PortInUse, port_in_use_message
from pynimbus.drpc.authorizer import drpc_permit
from pynimbus.drpc.http import drpc_site
from pynimbus.drpc.requests import DRPCRequests
from pynimbus.generated.storm import DistributedRPC, DistributedRPCInvocations
from pynimbus.generated.storm.ttypes import DRPCExecutionException, DRPCRequest
from pynimbus.thrift.server import ThriftServerFactory

log = logging.getLogger(__name__)

DRPC_PORT = "drpc.port"
DRPC_INVOCATIONS_PORT = "drpc.invocations.port"
DRPC_HTTP_PORT = "drpc.http.port"
DRPC_REQUEST_TIMEOUT_SECS = "drpc.request.timeout.secs"
DRPC_BIND_ADDRESS = "pynimbus.drpc.bind.address"
DRPC_WORKER_THREADS, DEFAULT_WORKER_THREADS = "drpc.worker.threads", 64
DRPC_QUEUE_SIZE, DEFAULT_QUEUE_SIZE = "drpc.queue.size", 128
LISTEN_BACKLOG = 1024


def max_waiting_callers(conf):
    """How many callers may wait at once: Storm's ``execute`` holds one of the
    ``drpc.worker.threads`` and further calls queue in ``drpc.queue.size`` places."""
    return (int(conf.get(DRPC_WORKER_THREADS) or DEFAULT_WORKER_THREADS)
            + int(conf.get(DRPC_QUEUE_SIZE) or DEFAULT_QUEUE_SIZE))


@implementer(DistributedRPC.Iface, DistributedRPCInvocations.Iface)
class DRPCHandler(object):
    """Both services' calls on one :class:`DRPCRequests` (Storm's ``DRPCThrift``); at most
    ``max_waiting`` callers wait at once (None: no bound)."""

    def __init__(self, requests, clock, max_waiting=None):
        self.requests = requests
        self.clock = clock
        self.max_waiting = max_waiting
        self.waiting = 0

    def now_ms(self):
        return int(self.clock.seconds() * 1000)

    # DistributedRPC

    def execute(self, functionName, funcArgs):
        if self.max_waiting is not None and self.waiting >= self.max_waiting:
            raise DRPCExecutionException(msg=(
                "DRPC server busy: %d requests are waiting for answers, as many as "
                "drpc.worker.threads + drpc.queue.size allow; try again later"
                % self.waiting))
        d = defer.Deferred()

        def answered(value):
            self.waiting -= 1
            if isinstance(value, DRPCExecutionException):
                d.errback(value)
            else:
                d.callback(value)
        request = self.requests.execute(functionName, funcArgs, self.now_ms(), answered)
        self.waiting += 1
        log.debug("DRPC request %s for %s (%d bytes of arguments)", request.id, functionName,
                  len(funcArgs or ""))
        return d

    # DistributedRPCInvocations

    def fetchRequest(self, functionName):
        args, request_id = self.requests.fetch_request(functionName)
        return DRPCRequest(func_args=args, request_id=request_id)

    def result(self, id, result):
        self.requests.result(id, result)

    def failRequest(self, id):
        self.requests.fail_request(id)

    def failRequestV2(self, id, e):
        self.requests.fail_request(id, e)


class DRPCDaemon(object):
    """The DRPC server of ``conf`` on ``reactor``: ``start()`` listens on both ports (a
    Deferred), ``stop()`` closes them and answers the waiting callers."""

    def __init__(self, conf, reactor):
        self.conf = conf
        self.reactor = reactor
        self.timeout_secs = int(conf.get(DRPC_REQUEST_TIMEOUT_SECS) or 600)
        self.requests = None  # made by start(), which reports a bad drpc.authorizer
        self.handler = None
        self.listening = []
        self.ports = {}  # setting -> bound port
        self.expiry = task.LoopingCall(self.expire)
        self.expiry.clock = reactor
        self.expiry_interval = max(self.timeout_secs / 2.0, 0.05)

    def start(self):
        return defer.maybeDeferred(self._start)

    def _start(self):
        """:raises ConfigError: ``drpc.authorizer`` names an authorizer pynimbus lacks.
        :raises PortInUse: a port is held by another program."""
        conf = self.conf
        self.requests = DRPCRequests(
            self.timeout_secs * 1000, compat=conf.get("pynimbus.storm.compat", "1.x"),
            permit=drpc_permit(conf, self.reactor.seconds, os.environ.get("STORM_CONF_DIR")),
            principal=request_principal(conf))
        self.handler = DRPCHandler(self.requests, self.reactor, max_waiting_callers(conf))
        interface = self.conf.get(DRPC_BIND_ADDRESS) or "0.0.0.0"
        for setting, processor in ((DRPC_PORT, DistributedRPC.Processor(self.handler)),
                                   (DRPC_INVOCATIONS_PORT,
                                    DistributedRPCInvocations.Processor(self.handler))):
            factory = ThriftServerFactory.from_conf(processor, self.conf, clock=self.reactor)
            factory.max_frame_size = int(self.conf.get("drpc.max_buffer_size")
                                         or factory.max_frame_size)
            factory.max_frame_size_key = "drpc.max_buffer_size"
            self._listen(setting, factory, interface)
        http_port = self.conf.get(DRPC_HTTP_PORT)
        if http_port is not None and int(http_port) >= 0:
            self._listen(DRPC_HTTP_PORT, drpc_site(self.handler), interface)
        self.expiry.start(self.expiry_interval, now=False)
        log.info("DRPC serving on %s: %s (requests time out after %s s)", interface,
                 ", ".join("%s %d" % (k, v) for k, v in self.ports.items()),
                 self.requests.timeout_ms // 1000)

    def _listen(self, setting, factory, interface):
        """Listen on the port of ``setting``.

        :raises PortInUse: another program holds it (the ports opened so far are closed)."""
        try:
            port = self.reactor.listenTCP(int(self.conf[setting]), factory,
                                          interface=interface, backlog=LISTEN_BACKLOG)
        except CannotListenError as e:
            self._close_ports()
            raise PortInUse(port_in_use_message(
                setting, [int(e.port)], interface,
                getattr(e.socketError, "strerror", None) or e.socketError))
        self.listening.append((port, factory))
        self.ports[setting] = port.getHost().port

    def expire(self):
        for request_id in self.requests.expire(self.handler.now_ms()):
            log.warning("Timeout DRPC request id: %s", request_id)

    def _close_ports(self):
        ds = []
        for port, factory in self.listening:
            ds.append(defer.maybeDeferred(port.stopListening))
            if hasattr(factory, "close_connections"):  # the HTTP site's requests were
                factory.close_connections()            # answered by requests.close()
        self.listening = []
        return defer.DeferredList(ds)

    def stop(self):
        if self.expiry.running:
            self.expiry.stop()
        if self.requests is not None:
            self.requests.close()
        return self._close_ports()
