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

from pynimbus.thrift.client import DRPCInvocationsClient

log = logging.getLogger(__name__)

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
    """The requests of ``function`` (a class attribute, or the component's
    ``pynimbus.drpc.function`` setting) as ``[args, return_info]`` tuples."""

    outputs = ["args", "return_info"]  # Storm's "return-info" is no Python identifier
    function = None

    def initialize(self, storm_conf, context):
        function = self.function or storm_conf.get("pynimbus.drpc.function")
        if not function:
            raise RuntimeError("%s: no DRPC function (set the class's `function`)"
                               % type(self).__name__)
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
        self.fails.put((request_id, index))

    def close(self):
        self.stopping.set()


class ReturnResults(Bolt):
    """``[result, return_info]`` in: the result returned to the server that asked."""

    auto_ack = False
    auto_fail = False

    def initialize(self, storm_conf, context):
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
        self.returns.put(tup)
        self._settle()

    def process_tick(self, tup):
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


__all__ = ["DRPCSpout", "ReturnResults", "return_info", "servers_of_task"]
