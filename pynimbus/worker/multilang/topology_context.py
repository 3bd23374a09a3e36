"""The ``context`` of the multilang handshake (pure).

Port of Storm 1.2.4 ``TopologyContext.toJSONString`` (same keys in 2.8.8), built from the
user topology (upstream's ``user-topology-context``: a shell component sees the topology as
submitted, without the acker and system components and streams) and the topology's
``{task id: component id}``.
"""

from pynimbus.clojure_port.system_topology import all_components
from pynimbus.worker.groupings import get_targets

# Grouping's union members as Thrift's ``_Fields`` enum names them (upper case).
_GROUPING_TYPES = (
    "fields", "shuffle", "all", "none", "direct", "custom_object", "custom_serialized",
    "local_or_shuffle",
)


def topology_context_json(topology, task_to_component, task_id):
    """The context a multilang child receives for ``task_id``.

    JSON object keys are strings, as json-simple writes them, whatever the serializer.

    :raises KeyError: ``task_id`` is no task of the topology.
    """
    component_id = task_to_component[task_id]
    components = all_components(topology)
    common = components[component_id].common
    sources = _sources(common)
    targets = get_targets(topology, component_id)
    return {
        "task->component": {str(task): comp for task, comp in task_to_component.items()},
        "taskid": task_id,
        "componentid": component_id,
        "streams": list(common.streams or {}),
        "stream->outputfields": _output_fields(common),
        "stream->target->grouping": {
            stream: {target: grouping_json(grouping)
                     for target, grouping in targets.get(stream, {}).items()}
            for stream in common.streams or {}
        },
        "source->stream->grouping": sources,
        "source->stream->fields": {
            source: _output_fields(components[source].common)
            for source in sources
            if source in components
        },
    }


def grouping_json(grouping):
    """``TopologyContext.groupingToJSONableMap``: the set member's name, and fields if any."""
    for member in _GROUPING_TYPES:
        value = getattr(grouping, member)
        if value is not None:
            ret = {"type": member.upper()}
            if member == "fields":
                ret["fields"] = list(value)
            return ret
    return {"type": None}


def _output_fields(common):
    """``getComponentOutputFields``: stream id -> output field names."""
    return {stream: list(info.output_fields) for stream, info in (common.streams or {}).items()}


def _sources(common):
    """``getSources``: source component -> {stream -> grouping} of the component's inputs."""
    ret = {}
    for stream_id, grouping in (common.inputs or {}).items():
        ret.setdefault(stream_id.componentId, {})[stream_id.streamId] = grouping_json(grouping)
    return ret
