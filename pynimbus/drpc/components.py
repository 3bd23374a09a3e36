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
a thread of each component (:mod:`pynimbus.common.drpc_invocations`; Storm makes them in the
executor's thread), so a component running inside a worker never holds up the worker's event
loop; what the thread fetched is emitted, and what it returned is acked, on the component's
next call (the return bolt asks for a tick each second for that).
"""

import json
import logging
import queue

from streamparse import Bolt, Spout

from pynimbus.common.drpc_invocations import (
    RequestFetcher, ResultReturner, invocations_port, return_info, servers_of_task)
from pynimbus.drpc.local import LOCAL_DRPC_ID, get_service

log = logging.getLogger(__name__)

FUNCTION_CONF = "pynimbus.drpc.function"


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
        hosts = servers_of_task(storm_conf.get("drpc.servers") or [], len(tasks),
                                tasks.index(task) if task in tasks else 0)
        self.requests = RequestFetcher(function, hosts, invocations_port(storm_conf))

    def next_tuple(self):
        if self.local is not None:
            request = self.local.fetchRequest(self.function_name)
            if request.request_id:
                self.emit([request.func_args, return_info(request.request_id, self.local_id, 0)],
                          tup_id=(request.request_id, 0))
            return
        while True:
            request = self.requests.fetch()
            if request is None:
                return
            args, info, message_id = request
            self.emit([args, info], tup_id=message_id)

    def ack(self, tup_id):
        pass

    def fail(self, tup_id):
        request_id, index = tup_id
        if self.local is not None:
            self.local.failRequest(request_id)
            return
        self.requests.fail((request_id, index))

    def close(self):
        if self.local is None:
            self.requests.close()


class ReturnResults(Bolt):
    """``[result, return_info]`` in: the result returned to the server that asked."""

    auto_ack = False
    auto_fail = False
    local = False

    def initialize(self, storm_conf, context):
        if storm_conf.get(LOCAL_DRPC_ID) is not None:
            self.local = True  # each result returned in process; no thread
            return
        self.done = queue.Queue()
        self.returner = ResultReturner(on_done=lambda tup, returned: self.done.put(
            (tup, returned)))

    def process(self, tup):
        if self.local:
            self._return_locally(tup)
            return
        result, info = tup.values[0], tup.values[1]
        try:
            where = json.loads(info)
            host, port, request_id = where["host"], int(where["port"]), str(where["id"])
        except (ValueError, KeyError, TypeError) as e:
            log.warning("DRPC return of %r failed: %s", info, e)
            self.fail(tup)
        else:
            self.returner.send(host, port, request_id, "" if result is None else str(result),
                               token=tup)
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
