"""The Trident planner against Storm 1.2.4's Java planner (no JVM: committed goldens).

Each program of :mod:`trident_plans` is planned by :meth:`TridentTopology.build` and summarised
in the goldens' format (``tests/compat/trident_plans.py`` writes the goldens from the real
planner; ``tests/compat/test_trident_plan_goldens.py`` checks them against the JVM): component
ids, streams and fields, inputs and groupings, parallelism, component confs, the coordination
specs of every batch bolt, the master coordinators' spouts.  Equal field by field.
"""

import json
import os

import pytest

import trident_plans
from pynimbus.trident import partition
from pynimbus.trident.batch_coordination import MasterBatchCoordinator, TridentSpoutCoordinator
from pynimbus.trident.batch_executor import TridentBoltExecutor, TridentSpoutExecutor
from pynimbus.trident.drpc import DRPCSpout, RichSpoutBatchTriggerer
from pynimbus.trident.partitioned_spout import (
    OpaquePartitionedTridentSpoutExecutor, PartitionedTridentSpoutExecutor)
from pynimbus.trident.spout import BatchSpoutExecutor
from pynimbus.trident.subtopology import SubtopologyBolt
from pynimbus.trident.topology_builder import TRIDENT_COMMAND

GOLDENS = os.path.join(os.path.dirname(__file__), "compat", "goldens", "1.2.4",
                       "trident_plans")
TRIDENT = "org.apache.storm.trident."
JAVA_CLASS = {
    MasterBatchCoordinator: TRIDENT + "topology.MasterBatchCoordinator",
    TridentBoltExecutor: TRIDENT + "topology.TridentBoltExecutor",
    TridentSpoutCoordinator: "org.apache.storm.topology.BasicBoltExecutor",
    TridentSpoutExecutor: TRIDENT + "spout.TridentSpoutExecutor",
    SubtopologyBolt: TRIDENT + "planner.SubtopologyBolt",
    BatchSpoutExecutor: TRIDENT + "spout.BatchSpoutExecutor",
    PartitionedTridentSpoutExecutor: TRIDENT + "spout.PartitionedTridentSpoutExecutor",
    OpaquePartitionedTridentSpoutExecutor: TRIDENT + "spout.OpaquePartitionedTridentSpoutExecutor",
    RichSpoutBatchTriggerer: TRIDENT + "spout.RichSpoutBatchTriggerer",
    DRPCSpout: "org.apache.storm.drpc.DRPCSpout",
}
GROUPING_CLASSES = {
    partition.IDENTITY_GROUPING_BYTES: partition.IDENTITY_GROUPING_CLASS,
    partition.GLOBAL_GROUPING_BYTES: partition.GLOBAL_GROUPING_CLASS,
    partition.INDEX_HASH_GROUPING_0_BYTES: partition.INDEX_HASH_GROUPING_CLASS,
}


def grouping_summary(grouping):
    if grouping.fields is not None:
        return {"fields": list(grouping.fields)}
    if grouping.custom_serialized is not None:
        summary = {"custom_serialized": GROUPING_CLASSES[grouping.custom_serialized]}
        if grouping.custom_serialized == partition.INDEX_HASH_GROUPING_0_BYTES:
            summary["index"] = 0
        return summary
    for kind in ("shuffle", "all", "none", "direct", "local_or_shuffle"):
        if getattr(grouping, kind) is not None:
            return {kind: True}
    raise AssertionError("unexpected grouping %r" % grouping)


def stream_key(component_stream):
    return "%s:%s" % component_stream


def coordination_summary(executor):
    return {
        "batch_groups": {stream_key(k): v for k, v in executor.batch_group_ids.items()},
        "coord_specs": {
            group: {"coords": {c: {"single_count": t.single_count}
                               for c, t in spec.coords.items()},
                    "commit_stream": (stream_key(spec.commit_stream)
                                      if spec.commit_stream else None)}
            for group, spec in executor.coord_specs.items()},
    }


def component_summary(component, obj, program):
    assert component.spout_object if hasattr(component, "spout_object") else True
    runs = getattr(component, "spout_object", None) or component.bolt_object
    assert (runs.shell.execution_command, runs.shell.script) == (TRIDENT_COMMAND, program)
    common = component.common
    summary = {
        "parallelism_hint": common.parallelism_hint,
        "json_conf": json.loads(common.json_conf) if common.json_conf is not None else None,
        "object": JAVA_CLASS[type(obj)],
        "wrapped": None, "coordination": None, "master": None, "spout_executor": None,
        "batch_per_tuple": None,
        "streams": {s: {"fields": list(info.output_fields), "direct": info.direct}
                    for s, info in common.streams.items()},
        "inputs": sorted(({"component": g.componentId, "stream": g.streamId,
                           "grouping": grouping_summary(grouping)}
                          for g, grouping in common.inputs.items()),
                         key=lambda i: (i["component"], i["stream"])),
    }
    if isinstance(obj, TridentBoltExecutor):
        summary["wrapped"] = JAVA_CLASS[type(obj.bolt)]
        summary["coordination"] = coordination_summary(obj)
        if isinstance(obj.bolt, TridentSpoutExecutor):
            summary["spout_executor"] = {"tx_state_id": obj.bolt.tx_state_id,
                                         "stream": obj.bolt.stream_name,
                                         "spout": JAVA_CLASS[type(obj.bolt.spout)]}
    elif isinstance(obj, TridentSpoutCoordinator):
        summary["wrapped"] = TRIDENT + "spout.TridentSpoutCoordinator"
        summary["spout_executor"] = {"tx_state_id": obj.tx_state_id,
                                     "spout": JAVA_CLASS[type(obj.spout)]}
    elif isinstance(obj, RichSpoutBatchTriggerer):
        summary["batch_per_tuple"] = {"stream": obj.stream, "coord_stream": obj.coord_stream,
                                      "spout": JAVA_CLASS[type(obj.delegate)],
                                      "function": obj.delegate.get_function()}
    elif isinstance(obj, MasterBatchCoordinator):
        summary["master"] = {"managed_spout_ids": obj.managed_spout_ids,
                             "spouts": [JAVA_CLASS[type(s)] for s in obj.spouts]}
    return summary


def plan_summary(name):
    plan = trident_plans.build(name)
    program = "tests.trident_plans:" + name
    topology = plan.topology
    return {
        "scenario": name,
        "spouts": {cid: component_summary(spec, plan.components[cid], program)
                   for cid, spec in topology.spouts.items()},
        "bolts": {cid: component_summary(bolt, plan.components[cid], program)
                  for cid, bolt in topology.bolts.items()},
    }


def golden(name):
    with open(os.path.join(GOLDENS, name + ".json")) as f:
        return json.load(f)


def test_every_golden_has_a_python_program():
    names = sorted(os.path.splitext(n)[0] for n in os.listdir(GOLDENS) if n.endswith(".json"))
    assert names == sorted(trident_plans.SCENARIOS)


@pytest.mark.parametrize("name", sorted(trident_plans.SCENARIOS))
def test_plan_equals_storms(name):
    ours, storms = plan_summary(name), golden(name)
    assert sorted(ours["spouts"]) == sorted(storms["spouts"])
    assert sorted(ours["bolts"]) == sorted(storms["bolts"])
    for kind in ("spouts", "bolts"):
        for component_id in storms[kind]:
            assert ours[kind][component_id] == storms[kind][component_id], component_id
