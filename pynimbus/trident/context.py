"""What a Trident component knows of its place in the topology (pure).

``TridentTopologyContext`` stands for the parts of Storm's ``TopologyContext`` that Trident's
runtime reads (``getThisComponentId``, ``getThisTaskIndex``, ``getComponentTasks``,
``getThisSources``, ``getThisTargets``, ``getComponentOutputFields``, task and executor data);
``TridentOperationContext`` and ``TridentMultiReducerContext`` are ports of 1.2.4
``trident/operation/{TridentOperationContext,TridentMultiReducerContext}``: what an operation's
``prepare`` gets.
"""

from pynimbus.trident.fields import Fields
from pynimbus.trident.tuple import ProjectionFactory


class TridentTopologyContext(object):
    """One task's view of a topology (a Thrift ``StormTopology``, the system components
    added).

    :param task_to_component: ``{task id: component id}`` of the whole topology."""

    def __init__(self, storm_conf, topology, task_to_component, component_id, task_id):
        self.storm_conf = storm_conf
        self.topology = topology
        self.task_to_component = task_to_component
        self.component_id = component_id
        self.task_id = task_id
        self._task_data = {}
        self._component_tasks = {}
        for task, component in sorted(task_to_component.items()):
            self._component_tasks.setdefault(component, []).append(task)

    def get_this_component_id(self):
        return self.component_id

    def get_this_task_id(self):
        return self.task_id

    def get_component_tasks(self, component_id):
        """The sorted task ids of ``component_id``."""
        return list(self._component_tasks.get(component_id, ()))

    def get_this_task_index(self):
        return self.get_component_tasks(self.component_id).index(self.task_id)

    def _common(self, component_id):
        for kind in (self.topology.spouts, self.topology.bolts):
            if kind and component_id in kind:
                return kind[component_id].common
        return None

    def get_this_sources(self):
        """``{(component, stream): Grouping}`` of what this component subscribes to."""
        common = self._common(self.component_id)
        return {(g.componentId, g.streamId): grouping
                for g, grouping in (common.inputs or {}).items()} if common else {}

    def get_this_targets(self):
        """``{stream: {component: Grouping}}`` of the components subscribed to this one."""
        ret = {}
        for kind in (self.topology.spouts, self.topology.bolts):
            for component, spec in (kind or {}).items():
                for g, grouping in (spec.common.inputs or {}).items():
                    if g.componentId == self.component_id:
                        ret.setdefault(g.streamId, {})[component] = grouping
        return ret

    def get_component_output_fields(self, component_id, stream):
        common = self._common(component_id)
        return Fields(common.streams[stream].output_fields)

    def drpc_requests(self, function, local_drpc_id=None):
        """The requests of the DRPC ``function`` for this task's DRPC spout (the servers of
        ``drpc.servers``, or the in-process DRPC ``local_drpc_id``): an object with
        ``fetch() -> (args, return_info, message_id) or None``, ``fail(message_id)`` and
        ``close()``.  The worker's and the test harness's contexts give one."""
        raise RuntimeError("no DRPC server is reachable from this context (DRPC function %r)"
                           % function)

    def drpc_return(self, host, port, request_id, result):
        """Return ``result`` (text) for the request ``request_id`` of the server at ``host``
        and ``port`` (or of the in-process DRPC whose service id is ``host``), without
        blocking."""
        raise RuntimeError("no DRPC server is reachable from this context (request %r)"
                           % request_id)

    def set_task_data(self, name, value):
        self._task_data[name] = value

    def get_task_data(self, name):
        return self._task_data.get(name)


class TridentOperationContext(object):
    """``TridentOperationContext``: an operation's input layout and its partition."""

    def __init__(self, topology_context, factory):
        self.topology_context = topology_context
        self.factory = factory

    def with_projection(self, factory):
        """``new TridentOperationContext(parent, factory)``."""
        return TridentOperationContext(self.topology_context, factory)

    def make_projection_factory(self, fields):
        return ProjectionFactory(self.factory, fields)

    def num_partitions(self):
        ctx = self.topology_context
        return len(ctx.get_component_tasks(ctx.get_this_component_id()))

    def get_partition_index(self):
        return self.topology_context.get_this_task_index()


class TridentMultiReducerContext(object):
    """``TridentMultiReducerContext``: each input stream's layout, and the task's topology
    context (for the DRPC results reducer)."""

    def __init__(self, factories, topology_context=None):
        self.factories = list(factories)
        self.topology_context = topology_context

    def with_factories(self, factories):
        return TridentMultiReducerContext(factories, self.topology_context)

    def make_projection_factory(self, stream_index, fields):
        return ProjectionFactory(self.factories[stream_index], fields)
