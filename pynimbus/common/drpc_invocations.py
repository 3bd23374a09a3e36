"""What a DRPC topology's tasks ask of the DRPC servers, from threads of their own: the
requests of a function fetched from the servers of ``drpc.servers``, failures and results
sent back (``DistributedRPCInvocations`` on ``drpc.invocations.port``).

Behaviour of 1.2.4 ``drpc/DRPCSpout`` (``open``'s choice of servers, ``nextTuple``'s round
robin, the return info, ``fail``) and of the result returns of ``drpc/ReturnResults`` and
``trident/drpc/ReturnResultsReducer``.  The Thrift calls block, so they run in a thread of the
component (Storm makes them in the executor's thread): a component inside a worker never holds
up the worker's event loop.
"""

import json
import logging
import queue
import threading

from thrift.Thrift import TException

from pynimbus.thrift.client import DRPCInvocationsClient

log = logging.getLogger(__name__)

FETCH_IDLE_SECS = 0.005  # a round of fetches that found nothing waits this long (Storm: 1 ms)
RECONNECT_SECS = 1.0
CALL_TIMEOUT_SECS = 30.0
DEFAULT_INVOCATIONS_PORT = 3773


class Invocations(object):
    """``DistributedRPCInvocations`` of one server, connected on demand (again after an
    error)."""

    def __init__(self, host, port):
        self.host, self.port = host, port
        self.client = None

    def call(self, method, *args):
        """:raises TException, OSError: the call failed (the next one connects again)."""
        if self.client is None:
            self.client = DRPCInvocationsClient(self.host, self.port, timeout=CALL_TIMEOUT_SECS)
        try:
            return getattr(self.client, method)(*args)
        except (TException, OSError):
            self.close()
            raise

    def close(self):
        if self.client is not None:
            try:
                self.client.close()
            finally:
                self.client = None


def servers_of_task(servers, num_tasks, index):
    """The servers a spout task fetches from (1.2.4 ``DRPCSpout.open``): every server when
    the spout has fewer tasks than servers, else the task's own."""
    if not servers:
        raise RuntimeError("No DRPC servers configured for topology (drpc.servers)")
    if num_tasks < len(servers):
        return list(servers)
    return [servers[index % len(servers)]]


def invocations_port(storm_conf):
    return int(storm_conf.get("drpc.invocations.port") or DEFAULT_INVOCATIONS_PORT)


def return_info(request_id, host, port):
    """Storm's return info: the JSON of ``{"id", "host", "port"}``."""
    return json.dumps({"id": request_id, "host": host, "port": port}, separators=(",", ":"))


class RequestFetcher(object):
    """The requests of ``function`` from ``hosts`` (on ``port``), fetched round robin by a
    thread: :meth:`fetch` takes one without waiting, as ``(args, return_info, message_id)``
    (the message id is ``(request id, server index)``); :meth:`fail` fails a request on the
    server it came from."""

    def __init__(self, function, hosts, port):
        self.function = function
        self.servers = [Invocations(host, port) for host in hosts]
        self.fetched = queue.Queue()
        self.fails = queue.Queue()
        self.stopping = threading.Event()
        self.thread = threading.Thread(target=self._fetch_loop, name="drpc-fetch-%s" % function,
                                       daemon=True)
        self.thread.start()

    def fetch(self):
        try:
            return self.fetched.get_nowait()
        except queue.Empty:
            return None

    def fail(self, message_id):
        self.fails.put(message_id)

    def close(self):
        self.stopping.set()

    def _fetch_loop(self):
        """Fetch round robin (one request per round, as ``nextTuple``), fail what was failed,
        wait a moment when no server had a request."""
        while not self.stopping.is_set():
            self._send_fails()
            if not self._fetch_one():
                self.stopping.wait(FETCH_IDLE_SECS)
        for server in self.servers:
            server.close()

    def _fetch_one(self):
        for index, server in enumerate(self.servers):
            try:
                request = server.call("fetchRequest", self.function)
            except (TException, OSError) as e:
                log.warning("DRPC: fetchRequest(%s) on %s:%d failed: %s", self.function,
                            server.host, server.port, e)
                self.stopping.wait(RECONNECT_SECS)
                continue
            if request.request_id:
                self.fetched.put((request.func_args, return_info(
                    request.request_id, server.host, server.port),
                    (request.request_id, index)))
                return True
        return False

    def _send_fails(self):
        while True:
            try:
                request_id, index = self.fails.get_nowait()
            except queue.Empty:
                return
            try:
                self.servers[index].call("failRequest", request_id)
            except (TException, OSError) as e:
                log.warning("DRPC: failRequest(%s) failed: %s", request_id, e)


class ResultReturner(object):
    """Results returned to the servers that asked, by a thread, one connection per server:
    :meth:`send` queues ``result`` for request ``request_id`` of ``host:port`` and returns
    at once; ``on_done(token, returned)`` (if given) is called from the thread after each
    attempt."""

    def __init__(self, on_done=None, name="drpc-return-results"):
        self.on_done = on_done
        self.returns = queue.Queue()
        self.servers = {}
        self.thread = threading.Thread(target=self._return_loop, name=name, daemon=True)
        self.thread.start()

    def send(self, host, port, request_id, result, token=None):
        self.returns.put((host, port, request_id, result, token))

    def close(self):
        self.returns.put(None)

    def _return_loop(self):
        while True:
            item = self.returns.get()
            if item is None:
                break
            host, port, request_id, result, token = item
            returned = self._return(host, port, request_id, result)
            if self.on_done is not None:
                self.on_done(token, returned)
        for server in self.servers.values():
            server.close()

    def _return(self, host, port, request_id, result):
        try:
            key = (host, int(port))
            server = self.servers.get(key)
            if server is None:
                server = self.servers[key] = Invocations(*key)
            server.call("result", str(request_id), result)
            return True
        except (TException, OSError, ValueError, TypeError) as e:
            log.warning("DRPC: result for request %s on %s:%s failed: %s", request_id, host,
                        port, e)
            return False
