"""The Trident program a topology names, imported and planned again in the worker.

A Python Trident topology's components are ``ShellComponent("pynimbus-trident",
"module:attr")``: as Storm's workers deserialize the objects Java's planner serialized, a
Python worker imports ``module`` from the topology's resources, takes ``attr`` (a
``TridentTopology``, or a function returning one) and plans it again; the plan must give the
topology that was submitted (the same components, streams and inputs), else the worker stops
with an error saying so.  Blocking (it imports user code).
"""

import importlib
import sys

from pynimbus.trident.command import TRIDENT_COMMAND


class TridentProgramError(Exception):
    """The program cannot be imported or planned, or plans another topology."""


def trident_program(topology):
    """The ``module:attr`` of ``topology``'s Trident components, or None if it has none.

    :raises TridentProgramError: components naming different programs."""
    programs = set()
    for kind in (topology.spouts or {}, topology.bolts or {}):
        for component in kind.values():
            obj = getattr(component, "spout_object", None) or component.bolt_object
            if obj.shell is not None and obj.shell.execution_command == TRIDENT_COMMAND:
                programs.add(obj.shell.script)
    if len(programs) > 1:
        raise TridentProgramError("the topology's Trident components name several programs: "
                                  "%s" % ", ".join(sorted(programs)))
    return programs.pop() if programs else None


def is_trident_component(component_object):
    return (component_object is not None and component_object.shell is not None
            and component_object.shell.execution_command == TRIDENT_COMMAND)


def import_program(resources_dir, program):
    """The ``TridentTopology`` of ``program`` (``module:attr``), imported from
    ``resources_dir``."""
    from pynimbus.trident.topology import TridentTopology

    module_name, sep, attr = program.partition(":")
    if not sep or not module_name or not attr:
        raise TridentProgramError("%r is not module:attr" % program)
    if resources_dir not in sys.path:
        sys.path.insert(0, resources_dir)
    try:
        value = getattr(importlib.import_module(module_name), attr)
        if not isinstance(value, TridentTopology) and callable(value):
            value = value()
    except Exception as e:
        raise TridentProgramError("the Trident program %s does not load: %s: %s"
                                  % (program, type(e).__name__, e)) from e
    if not isinstance(value, TridentTopology):
        raise TridentProgramError("%s is not a TridentTopology (nor a function returning one)"
                                  % program)
    return value


def shape(topology):
    """What must match between a plan and the submitted topology: each component's kind,
    streams and inputs."""
    ret = {}
    for kind, components in (("spout", topology.spouts or {}), ("bolt", topology.bolts or {})):
        for component_id, component in components.items():
            common = component.common
            ret[component_id] = (
                kind,
                {s: (tuple(info.output_fields), bool(info.direct))
                 for s, info in (common.streams or {}).items()},
                {(g.componentId, g.streamId): grouping
                 for g, grouping in (common.inputs or {}).items()})
    return ret


def load_trident_plan(resources_dir, program, user_topology):
    """The plan of ``program`` (a :class:`~pynimbus.trident.topology_builder.TridentPlan`),
    checked against ``user_topology``.

    :raises TridentProgramError: the program does not load or plans something else."""
    plan = import_program(resources_dir, program).build(program)
    ours, submitted = shape(plan.topology), shape(user_topology)
    if ours != submitted:
        differing = sorted(set(ours) ^ set(submitted)) or sorted(
            cid for cid in ours if ours[cid] != submitted.get(cid))
        raise TridentProgramError(
            "the Trident program %s plans another topology in this worker than the one "
            "submitted (components differing: %s): the program must build the same topology "
            "every time it is imported" % (program, ", ".join(differing)))
    return plan
