# -*- test-case-name: tests.test_worker_inbound -*-
"""What a task may receive from another worker: the streams it subscribes to, from the tasks
that emit them, with the number of fields each declares (pure).

A tuple arriving over the network is checked against this before it reaches an executor:
its source task must be a task of a component the receiving component subscribes to (or the
worker's system task, -1, which sends on its worker's behalf), its stream one that component
subscribes to from that source, and its values as many as the stream's declared fields.  Storm's
receiving worker checks the arity only, when it builds the ``TupleImpl`` (and dies of an
``IllegalArgumentException`` when it is wrong); anything else a peer sends it delivers.
"""

import collections

from pynimbus.clojure_port.system_topology import all_components

SYSTEM_TASK_ID = -1  # a worker's own __system executor (its heartbeats to a topology master)


def inbound_streams(system_topology, task_to_component, component_id):
    """``{source task: {stream id: number of fields}}`` of what ``component_id``'s tasks may
    receive: its inputs in ``system_topology`` (the topology Storm runs, with the acker, the
    system and metrics components and their streams), from every task of each input's
    component, and from the system task on any of those streams."""
    components = all_components(system_topology)
    component_to_tasks = collections.defaultdict(list)
    for task, component in task_to_component.items():
        component_to_tasks[component].append(task)
    allowed = collections.defaultdict(dict)
    receiver = components.get(component_id)
    inputs = receiver.common.inputs if receiver is not None else None
    for stream, _grouping in (inputs or {}).items():
        source = components.get(stream.componentId)
        declared = (source.common.streams or {}).get(stream.streamId) if source else None
        if declared is None:
            continue  # validate-structure refuses such a topology at submit
        arity = len(declared.output_fields or ())
        for task in component_to_tasks.get(stream.componentId, ()):
            allowed[task][stream.streamId] = arity
        allowed[SYSTEM_TASK_ID][stream.streamId] = arity
    return dict(allowed)


def refusal(allowed, source_task, stream_id, values):
    """Why a tuple from ``source_task`` on ``stream_id`` with ``values`` may not be received
    (``allowed`` from :func:`inbound_streams`), or None when it may."""
    streams = allowed.get(source_task)
    if streams is None:
        return "task %r sends nothing this task subscribes to" % (source_task,)
    arity = streams.get(stream_id)
    if arity is None:
        return "this task does not subscribe to stream %r of task %r" % (stream_id, source_task)
    if len(values) != arity:
        return "stream %r declares %d fields, the tuple has %d values" % (
            stream_id, arity, len(values))
    return None
