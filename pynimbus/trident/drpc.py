"""Trident's DRPC streams (pure): the DRPC spout as Trident plans and drives it, the spout that
makes a batch of each request, and the reducer that returns a batch's result.

Ports of 1.2.4 ``drpc/DRPCSpout`` (its function, fields and ``nextTuple``/``fail``),
``trident/spout/RichSpoutBatchTriggerer`` and ``trident/drpc/ReturnResultsReducer``.

The requests come from, and the results go to, the DRPC servers through the task's context
(:meth:`~pynimbus.trident.context.TridentTopologyContext.drpc_requests` and
:meth:`~pynimbus.trident.context.TridentTopologyContext.drpc_return`): a worker's context talks
to the servers of ``drpc.servers`` from threads of its own, so nothing here blocks.
"""

import json
import random

from pynimbus.clojure_port.java_json import to_json
from pynimbus.trident.batch_executor import coord_stream
from pynimbus.trident.fields import Fields
from pynimbus.trident.transaction_attempt import RichSpoutBatchId

DRPC_OUTPUT_FIELDS = Fields("args", "return-info")
BATCH_ID_FIELD = "$id$"  # RichSpoutBatchTriggerer's first field
KRYO_REGISTER = "topology.kryo.register"
# what RichSpoutBatchTriggerer.getComponentConfiguration registers (Java workers read it; a
# Python worker's batch id travels as the long it is)
BATCH_ID_SERIALIZATION = {"org.apache.storm.trident.spout.RichSpoutBatchId":
                          "org.apache.storm.trident.spout.RichSpoutBatchIdSerializer"}


class DRPCSpout(object):
    """``DRPCSpout(function[, localDrpc])`` as a Trident stream's source: the requests of
    ``function`` as ``[args, return-info]``, one per ``next_tuple``; a failed request is
    failed on its server.  ``local_drpc`` (an in-process DRPC with ``get_service_id()``)
    is kept by its service id, as Storm keeps it."""

    def __init__(self, function, local_drpc=None):
        if not isinstance(function, str) or not function:
            raise ValueError("a DRPC function is a non-empty string, not %r" % (function,))
        self.function = function
        self.local_drpc_id = local_drpc.get_service_id() if local_drpc is not None else None
        self.requests = None
        self.collector = None

    def get_function(self):
        return self.function

    def get_output_fields(self):
        return DRPC_OUTPUT_FIELDS

    def declare_output_fields(self):
        return {"default": (DRPC_OUTPUT_FIELDS, False)}

    def get_component_configuration(self):
        return None

    def open(self, conf, context, collector):
        self.collector = collector
        self.requests = context.drpc_requests(self.function, self.local_drpc_id)

    def next_tuple(self):
        request = self.requests.fetch()
        if request is not None:
            args, return_info, message_id = request
            self.collector.emit(None, [args, return_info], message_id)

    def ack(self, message_id):
        pass

    def fail(self, message_id):
        self.requests.fail(message_id)

    def activate(self):
        pass

    def deactivate(self):
        pass

    def close(self):
        if self.requests is not None:
            self.requests.close()


class FinishCondition(object):
    """``FinishCondition``: the coordination tuples of a batch not yet acked, and the
    delegate's message id."""

    __slots__ = ("vals", "message_id")

    def __init__(self, message_id):
        self.vals = set()
        self.message_id = message_id


class RichSpoutBatchTriggerer(object):
    """``RichSpoutBatchTriggerer(delegate, streamName, batchGroup)``: each tuple the
    delegate spout emits is a batch of its own: sent unanchored on ``stream_name`` with a
    :class:`RichSpoutBatchId` before its values, and announced to every task of the
    components on the batch group's ``$coord`` stream (a direct tuple ``[id, count]``,
    anchored with a message id of its own).  When all of those are acked, the delegate's
    tuple is; when one fails, it is failed.

    The task's collector: ``emit(stream, values, message_id) -> tasks`` and
    ``emit_direct(task, stream, values, message_id)``."""

    def __init__(self, delegate, stream_name, batch_group):
        self.delegate = delegate
        self.stream = stream_name
        self.coord_stream = coord_stream(batch_group)
        self.output_tasks = []
        self.rand = None
        self.collector = None
        self.message_id_to_batch_id = {}
        self.finish_conditions = {}

    def declare_output_fields(self):
        fields = Fields(BATCH_ID_FIELD, *self.delegate.get_output_fields())
        return {self.stream: (fields, False), self.coord_stream: (Fields("id", "count"), True)}

    def get_component_configuration(self):
        conf = dict(self.delegate.get_component_configuration() or {})
        registered = list(conf.get(KRYO_REGISTER) or [])
        conf[KRYO_REGISTER] = registered + [dict(BATCH_ID_SERIALIZATION)]
        return conf

    def open(self, conf, context, collector, rand=None):
        """``open``: the delegate opened with a collector that makes batches; the tasks of
        the coordination stream's subscribers."""
        self.collector = collector
        self.rand = rand or random.SystemRandom()
        self.output_tasks = []
        for component in context.get_this_targets().get(self.coord_stream, {}):
            self.output_tasks.extend(context.get_component_tasks(component))
        self.delegate.open(conf, context, StreamOverrideCollector(self))

    def next_random_long(self):
        return self.rand.getrandbits(64) - (1 << 63)

    def close(self):
        self.delegate.close()

    def activate(self):
        self.delegate.activate()

    def deactivate(self):
        self.delegate.deactivate()

    def next_tuple(self):
        self.delegate.next_tuple()

    def ack(self, message_id):
        batch_id = self.message_id_to_batch_id.pop(message_id, None)
        cond = self.finish_conditions.get(batch_id)
        if cond is not None:
            cond.vals.discard(message_id)
            if not cond.vals:
                del self.finish_conditions[batch_id]
                self.delegate.ack(cond.message_id)

    def fail(self, message_id):
        batch_id = self.message_id_to_batch_id.pop(message_id, None)
        cond = self.finish_conditions.pop(batch_id, None)
        if cond is not None:
            self.delegate.fail(cond.message_id)


class StreamOverrideCollector(object):
    """``RichSpoutBatchTriggerer.StreamOverrideCollector``: the delegate's emits as batches."""

    def __init__(self, triggerer):
        self.triggerer = triggerer

    def emit(self, _stream, values, message_id):
        t = self.triggerer
        collector = t.collector
        batch_id = RichSpoutBatchId(t.next_random_long())
        finish = FinishCondition(message_id)
        # registered first: with no ackers a coordination tuple is acked as it is sent
        t.finish_conditions[int(batch_id)] = finish
        tasks = collector.emit(t.stream, [batch_id] + list(values), None)
        out_tasks = set(tasks)
        for task in t.output_tasks:
            r = t.next_random_long()
            finish.vals.add(r)
            t.message_id_to_batch_id[r] = int(batch_id)
            collector.emit_direct(task, t.coord_stream, [batch_id, 1 if task in out_tasks else 0],
                                  r)
        return tasks

    def emit_direct(self, task, stream, values, message_id):
        raise RuntimeError("Trident does not support direct emits from spouts")

    def report_error(self, error):
        self.triggerer.collector.report_error(error)


class ReturnResultsState(object):
    """``ReturnResultsState``: a batch's return info and result tuples."""

    __slots__ = ("results", "return_info")

    def __init__(self):
        self.results = []
        self.return_info = None


class ReturnResultsReducer(object):
    """``ReturnResultsReducer``: the multi-reducer Trident puts at the end of a DRPC stream;
    its first stream brings the request's return info, the second the result tuples.  At
    the end of the batch, the task that got the return info returns the tuples as a JSON
    list of lists (json-simple's text) to the server that asked."""

    def __init__(self):
        self.drpc_return = None

    def prepare(self, conf, context):
        self.drpc_return = context.topology_context.drpc_return

    def init(self, collector):
        return ReturnResultsState()

    def execute(self, state, stream_index, input_, collector):
        if stream_index == 0:
            state.return_info = input_[0]
        else:
            state.results.append(input_)

    def complete(self, state, collector):
        if state.return_info is None:
            return  # only one task of the reducer gets the batch
        result = to_json([list(t) for t in state.results])
        try:
            where = json.loads(state.return_info)
            host, port, request_id = where["host"], int(where["port"]), where["id"]
        except (ValueError, TypeError, KeyError) as e:
            collector.report_error(e)
            return
        self.drpc_return(host, port, request_id, result)

    def cleanup(self):
        pass
