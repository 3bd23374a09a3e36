# -*- test-case-name: tests.test_jstorm_port -*-
"""What the scheduler takes from JStorm 2.2.1's ``Common``: system components, a component's
conf, the spout-output/bolt-input relationship, and the parallelism hints of the system
topology (``Common.system_topology``: the raw topology plus ``__acker``, ``__topology_master``
and the hint-0 ``__system`` bolt)."""

from pynimbus.jstorm_port import config_extension
from pynimbus.jstorm_port.model import ACKER_COMPONENT_ID, TOPOLOGY_MASTER_COMPONENT_ID

SYSTEM_COMPONENT_ID = "__system"


def is_system_component(component_id):
    """Port of ``Common.isSystemComponent``: the acker or the topology master."""
    return component_id in (ACKER_COMPONENT_ID, TOPOLOGY_MASTER_COMPONENT_ID)


def raw_components(raw_topology):
    """Component id -> component of the raw topology, spouts and bolts."""
    components = dict(raw_topology.get("spouts", {}))
    components.update(raw_topology.get("bolts", {}))
    return components


def get_component_map(context, task):
    """Port of ``Common.getComponentMap``: the JSON conf of the task's component in the system
    topology (the system components carry none)."""
    component = raw_components(context.raw_topology).get(context.task_to_component[task])
    return dict((component or {}).get("conf") or {})


def system_topology_parallelism_hints(storm_conf, raw_topology):
    """Component id -> parallelism hint in ``Common.system_topology(conf, raw)``: the raw
    topology's hints, ``topology.acker.executors`` ackers (0 when unset, ``add_acker``), one
    topology master (``addTopologyMaster``) and the ``__system`` bolt's 0."""
    hints = dict((cid, c.get("parallelism", 1)) for cid, c in raw_components(raw_topology).items())
    hints[ACKER_COMPONENT_ID] = config_extension.parse_int(
        storm_conf.get(config_extension.TOPOLOGY_ACKER_EXECUTORS), 0)
    hints[TOPOLOGY_MASTER_COMPONENT_ID] = 1
    hints[SYSTEM_COMPONENT_ID] = 0
    return hints


def build_spout_outoput_and_bolt_input_map(context):
    """Port of ``Common.buildSpoutOutoputAndBoltInputMap`` (upstream's spelling): each bolt ->
    the components it reads from; each spout -> the bolts reading it; every component of the
    raw topology has an entry."""
    bolts = context.raw_topology.get("bolts", {})
    spouts = context.raw_topology.get("spouts", {})
    relationship = {}
    for bolt_id, bolt in bolts.items():
        inputs = relationship[bolt_id] = set()
        for component in bolt.get("inputs", ()):
            inputs.add(component)
            if component not in bolts:
                relationship.setdefault(component, set()).add(bolt_id)
    for component_id in list(spouts) + list(bolts):
        relationship.setdefault(component_id, set())
    return relationship
