"""Storm's DRPC spout and return bolt as pystorm components, for Python topologies (a
streamparse topology names them like its own components)::

    class ExclamationRequests(DRPCSpout):
        function = "exclamation"

    class Exclamation(Topology):
        requests = ExclamationRequests.spec()
        exclaim = ExclaimBolt.spec(inputs=[requests])     # emits [result, return_info]
        answers = ReturnResults.spec(inputs=[exclaim])

Ports of 1.2.4 ``drpc/DRPCSpout`` and ``drpc/ReturnResults``:

* :class:`DRPCSpout` fetches the requests of its ``function`` from the servers of
  ``drpc.servers`` on ``drpc.invocations.port`` (every server when the spout has fewer tasks
  than servers, else the task's own), round robin, and emits ``[args, return_info]`` with the
  request's id as message id; ``return_info`` is Storm's JSON ``{"id", "host", "port"}``.  A
  failed tuple tree fails its request (``failRequest``) on the server it came from.
* :class:`ReturnResults` takes ``[result, return_info]`` and returns the result to that
  server (``result``).
* In a test's process (:class:`pynimbus.testing.LocalDRPC`), when the conf names an
  in-process service under ``pynimbus.drpc.local.id`` (:mod:`pynimbus.drpc.local`), the spout
  fetches one request of that service per ``next_tuple`` and the return bolt answers it there,
  both in the component's own thread, as Storm's spout and bolt do with a ``LocalDRPC``.

Deliberate differences: the spout's fields are ``args`` and ``return_info`` (pystorm makes a
bolt's input fields attribute names, which ``return-info`` cannot be); the Thrift calls run in
a thread of each component (Storm makes them in
the executor's thread), so a component running inside a worker never holds up the worker's
event loop; what the thread fetched is emitted, and what it returned is acked, on the
component's next call (the return bolt asks for a tick each second for that).
"""

import json
import logging
import queue
import threading

from streamparse import Bolt, Spout
from thrift.Thrift import TException

from pynimbus.drpc.local import LOCAL_DRPC_ID, get_service
from pynimbus.thrift.client import DRPCInvocationsClient

log = logging.getLogger(__name__)

FUNCTION_CONF = "pynimbus.drpc.function"
FETCH_IDLE_SECS = 0.005  # a round of fetches that found nothing waits this long (Storm: 1 ms)
RECONNECT_SECS = 1.0
CALL_TIMEOUT_SECS = 30.0


class Invocations(object):
    """``DistributedRPCInvocations`` of one server, connected on demand (again after an
    error)."""

    def __init__(self, host, port):
        self.host, self.port = host, port
        self.client = None
        self.failed_at = None

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
    """The servers a spout task fetches from (1.2.4 ``DRPCSpout.open``)."""
    if not servers:
        raise RuntimeError("No DRPC servers configured for topology (drpc.servers)")
    if num_tasks < len(servers):
        return list(servers)
    return [servers[index % len(servers)]]


def return_info(request_id, host, port):
    """Storm's return info: the JSON of ``{"id", "host", "port"}``."""
    return json.dumps({"id": request_id, "host": host, "port": port}, separators=(",", ":"))


class DRPCSpout(Spout):
    """The requests of ``function`` (a class attribute, or the ``pynimbus.drpc.function``
    setting of the conf the task is given, the topology's on pynimbus's workers) as
    ``[args, return_info]`` tuples."""

    outputs = ["args", "return_info"]  # Storm's "return-info" is no Python identifier
    function = None
    local = None  # the in-process DRPC service, in a test's process

    def initialize(self, storm_conf, context):
        function = self.function or storm_conf.get(FUNCTION_CONF)
        if not function:
            raise RuntimeError("%s: no DRPC function (set the class's `function`)"
                               % type(self).__name__)
        self.function_name = function
        local_id = storm_conf.get(LOCAL_DRPC_ID)
        if local_id is not None:  # no thread: each next_tuple asks the service in process
            self.local_id = local_id
            self.local = get_service(local_id)
            if self.local is None:
                raise RuntimeError("%s: no in-process DRPC service %s" % (
                    type(self).__name__, local_id))
            return
        task_ids = context.get("task->component") or {}
        component = context.get("componentid")
        tasks = sorted(int(t) for t, c in task_ids.items() if c == component) or [0]
        task = int(context.get("taskid", tasks[0]))
        port = int(storm_conf.get("drpc.invocations.port") or 3773)
        hosts = servers_of_task(storm_conf.get("drpc.servers") or [], len(tasks),
                                tasks.index(task) if task in tasks else 0)
        self.fetched = queue.Queue()
        self.fails = queue.Queue()
        self.stopping = threading.Event()
        self.fetcher = threading.Thread(
            target=self._fetch_loop, args=(function, [Invocations(h, port) for h in hosts]),
            name="drpc-spout-%s" % function, daemon=True)
        self.fetcher.start()

    def _fetch_loop(self, function, servers):
        """The thread: fetch round robin, fail what the spout failed, wait when idle."""
        while not self.stopping.is_set():
            self._send_fails(servers)
            found = False
            for index, server in enumerate(servers):
                try:
                    request = server.call("fetchRequest", function)
                except (TException, OSError) as e:
                    log.warning("DRPC spout: fetchRequest(%s) on %s:%d failed: %s", function,
                                server.host, server.port, e)
                    self.stopping.wait(RECONNECT_SECS)
                    continue
                if request.request_id:
                    self.fetched.put((request.func_args, return_info(
                        request.request_id, server.host, server.port),
                        (request.request_id, index)))
                    found = True
                    break
            if not found:
                self.stopping.wait(FETCH_IDLE_SECS)
        for server in servers:
            server.close()

    def _send_fails(self, servers):
        while True:
            try:
                request_id, index = self.fails.get_nowait()
            except queue.Empty:
                return
            try:
                servers[index].call("failRequest", request_id)
            except (TException, OSError) as e:
                log.warning("DRPC spout: failRequest(%s) failed: %s", request_id, e)

    def next_tuple(self):
        if self.local is not None:
            request = self.local.fetchRequest(self.function_name)
            if request.request_id:
                self.emit([request.func_args, return_info(request.request_id, self.local_id, 0)],
                          tup_id=(request.request_id, 0))
            return
        try:
            while True:
                args, info, message_id = self.fetched.get_nowait()
                self.emit([args, info], tup_id=message_id)
        except queue.Empty:
            pass

    def ack(self, tup_id):
        pass

    def fail(self, tup_id):
        request_id, index = tup_id
        if self.local is not None:
            self.local.failRequest(request_id)
            return
        self.fails.put((request_id, index))

    def close(self):
        if self.local is None:
            self.stopping.set()


class ReturnResults(Bolt):
    """``[result, return_info]`` in: the result returned to the server that asked."""

    auto_ack = False
    auto_fail = False
    local = False

    def initialize(self, storm_conf, context):
        if storm_conf.get(LOCAL_DRPC_ID) is not None:
            self.local = True  # each result returned in process; no thread
            return
        self.returns = queue.Queue()
        self.done = queue.Queue()
        self.servers = {}
        self.returner = threading.Thread(target=self._return_loop, name="drpc-return-results",
                                         daemon=True)
        self.returner.start()

    def _return_loop(self):
        while True:
            tup = self.returns.get()
            result, info = tup.values[0], tup.values[1]
            try:
                where = json.loads(info)
                key = (where["host"], int(where["port"]))
                server = self.servers.get(key)
                if server is None:
                    server = self.servers[key] = Invocations(*key)
                server.call("result", str(where["id"]), "" if result is None else str(result))
                self.done.put((tup, True))
            except (TException, OSError, ValueError, KeyError, TypeError) as e:
                log.warning("DRPC return of %r failed: %s", info, e)
                self.done.put((tup, False))

    def process(self, tup):
        if self.local:
            self._return_locally(tup)
            return
        self.returns.put(tup)
        self._settle()

    def _return_locally(self, tup):
        """The result to the in-process service the return info names (as ``host``)."""
        result, info = tup.values[0], tup.values[1]
        try:
            where = json.loads(info)
            service = get_service(where["host"])
            request_id = str(where["id"])
        except (ValueError, KeyError, TypeError) as e:
            log.warning("DRPC return of %r failed: %s", info, e)
            service = None
        if service is None:
            self.fail(tup)
            return
        service.result(request_id, "" if result is None else str(result))
        self.ack(tup)

    def process_tick(self, tup):
        if not self.local:
            self._settle()

    def _settle(self):
        """Ack what was returned, fail what could not be (in the component's own thread)."""
        while True:
            try:
                tup, returned = self.done.get_nowait()
            except queue.Empty:
                return
            if returned:
                self.ack(tup)
            else:
                self.fail(tup)

    @classmethod
    def spec(cls, *args, **kwargs):
        """The component's spec, with a tick each second (what was returned is acked on it)."""
        config = dict(kwargs.pop("config", None) or {})
        config.setdefault("topology.tick.tuple.freq.secs", 1)
        return super().spec(*args, config=config, **kwargs)


__all__ = ["DRPCSpout", "FUNCTION_CONF", "ReturnResults", "return_info", "servers_of_task"]
