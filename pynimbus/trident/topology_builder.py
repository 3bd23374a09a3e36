"""``TridentTopologyBuilder``: a plan's spouts and batch bolts as a Storm topology (pure).

Port of 1.2.4 ``trident/topology/TridentTopologyBuilder`` (``setSpout``,
``setBatchPerTupleSpout``, ``setBolt``, ``fleshOutStreamBatchIds``, ``buildTopology``) with the
part of ``TopologyBuilder`` it uses: ``$mastercoord-<bg>`` spouts, ``$spoutcoord-<spout>`` bolts,
the spout executors, the DRPC streams' ``RichSpoutBatchTriggerer`` spouts and the ``b-<n>``
bolts, their streams (from each object's ``declare_output_fields``), their inputs,
parallelism hints and component confs (``json_conf`` as Java's JSON writer gives it).

Storm serializes each component's Java object into the topology; a Python plan names instead
the program every worker imports and plans again (``ShellComponent("pynimbus-trident",
"module:attr")``), and keeps the objects in :attr:`TridentPlan.components`.
"""

import collections

from pynimbus.clojure_port.java_hash_map import java_hashmap_order
from pynimbus.clojure_port.java_json import to_json
from pynimbus.generated.storm.ttypes import (
    Bolt, ComponentCommon, ComponentObject, GlobalStreamId, Grouping, NullStruct,
    ShellComponent, SpoutSpec, StormTopology, StreamInfo)
from pynimbus.trident.batch_coordination import (
    BATCH_STREAM_ID, COMMIT_STREAM_ID, SUCCESS_STREAM_ID, MasterBatchCoordinator,
    TridentSpoutCoordinator)
from pynimbus.trident.batch_executor import (
    CoordSpec, CoordType, TridentBoltExecutor, TridentSpoutExecutor, coord_stream)
from pynimbus.trident.command import TRIDENT_COMMAND
from pynimbus.trident.drpc import RichSpoutBatchTriggerer
from pynimbus.trident.graph import (
    TOPOLOGY_COMPONENT_CPU_PCORE_PERCENT as CPU,
    TOPOLOGY_COMPONENT_RESOURCES_OFFHEAP_MEMORY_MB as OFFHEAP,
    TOPOLOGY_COMPONENT_RESOURCES_ONHEAP_MEMORY_MB as ONHEAP)
from pynimbus.trident.spout import ICommitterTridentSpout

SPOUT_COORD_PREFIX = "$spoutcoord-"

TridentPlan = collections.namedtuple("TridentPlan", "topology components")
TridentPlan.__doc__ = """A built Trident program: ``topology`` the Storm topology (Thrift),
``components`` ``{component id: the object that runs it}`` (a ``MasterBatchCoordinator``, a
``RichSpoutBatchTriggerer``, a ``TridentSpoutCoordinator`` or a ``TridentBoltExecutor``)."""


def master_coordinator(batch_group):
    return "$mastercoord-" + batch_group


def spout_coordinator(spout_id):
    return SPOUT_COORD_PREFIX + spout_id


class ConfigurationDeclarer(object):
    """``BaseConfigurationDeclarer``'s resource settings: each adds a component conf."""

    def __init__(self):
        self.component_confs = []

    def add_configuration(self, key, value):
        self.component_confs.append({key: value})
        return self

    def set_memory_load(self, on_heap, off_heap=None):
        if on_heap is not None:
            self.add_configuration(ONHEAP, float(on_heap))
        if off_heap is not None:
            self.add_configuration(OFFHEAP, float(off_heap))
        return self

    def set_cpu_load(self, amount):
        if amount is not None:
            self.add_configuration(CPU, amount)
        return self

    def declare_resources(self, resources):
        """What ``TridentTopology.build`` does with a component's resources:
        ``setMemoryLoad(on[, off])`` when on-heap memory is declared, ``setCPULoad`` when CPU
        is."""
        if resources.get(ONHEAP) is not None:
            self.set_memory_load(resources[ONHEAP], resources.get(OFFHEAP))
        if resources.get(CPU) is not None:
            self.set_cpu_load(resources[CPU])


class _SpoutComponent(ConfigurationDeclarer):
    def __init__(self, spout, stream_name, parallelism, tx_state_id=None, batch_group=None):
        super().__init__()
        self.spout = spout
        self.stream_name = stream_name
        self.parallelism = parallelism
        self.commit_state_id = tx_state_id
        self.batch_group_id = batch_group


class _BoltComponent(ConfigurationDeclarer):
    def __init__(self, bolt, parallelism, committer_batches):
        super().__init__()
        self.bolt = bolt
        self.parallelism = parallelism
        self.committer_batches = committer_batches
        self.declarations = []   # (component, stream, Grouping)

    def grouping(self, component, stream, grouping):
        self.declarations.append((component, stream, grouping))
        return self


class TridentTopologyBuilder(object):
    """Collects the plan's spouts and bolts; :meth:`build_topology` makes the topology."""

    def __init__(self, program=None):
        self.program = program
        self._batch_ids = {}   # (component, stream) -> batch group
        self._spouts = {}      # id -> _SpoutComponent, in insertion order
        self._batch_per_tuple_spouts = {}
        self._bolts = {}

    def set_spout(self, spout_id, stream_name, tx_state_id, spout, parallelism, batch_group):
        self._batch_ids[(spout_id, stream_name)] = batch_group
        component = _SpoutComponent(spout, stream_name, parallelism, tx_state_id, batch_group)
        self._spouts[spout_id] = component
        return component

    def set_batch_per_tuple_spout(self, spout_id, stream_name, spout, parallelism, batch_group):
        """``setBatchPerTupleSpout``: a rich spout (a DRPC stream's) whose every tuple is a
        batch."""
        self._batch_ids[(spout_id, stream_name)] = batch_group
        component = _SpoutComponent(spout, stream_name, parallelism, None, batch_group)
        self._batch_per_tuple_spouts[spout_id] = component
        return component

    def set_bolt(self, bolt_id, bolt, parallelism, committer_batches, batch_groups):
        for stream, batch_group in batch_groups.items():
            self._batch_ids[(bolt_id, stream)] = batch_group
        component = _BoltComponent(bolt, parallelism, committer_batches)
        self._bolts[bolt_id] = component
        return component

    def _flesh_out_stream_batch_ids(self, include_commit_stream):
        """``fleshOutStreamBatchIds``: every stream of the topology that carries a batch
        group's tuples, to its batch group."""
        ret = dict(self._batch_ids)
        for b in set(self._batch_ids.values()):
            ret[(master_coordinator(b), BATCH_STREAM_ID)] = b
            if include_commit_stream:
                ret[(master_coordinator(b), COMMIT_STREAM_ID)] = b
        for spout_id, c in self._spouts.items():
            ret[(spout_coordinator(spout_id), BATCH_STREAM_ID)] = c.batch_group_id
        for (component, _stream), b in self._batch_ids.items():
            ret[(component, coord_stream(b))] = b
        return ret

    def build_topology(self, master_coord_resources=None):
        """``buildTopology``: the :class:`TridentPlan`; ``master_coord_resources`` declared
        on each ``$mastercoord-*``."""
        batch_ids_for_spouts = self._flesh_out_stream_batch_ids(False)
        batch_ids_for_bolts = self._flesh_out_stream_batch_ids(True)
        spouts, bolts, objects = {}, {}, {}
        batches_to_commit_ids = {}
        batches_to_spouts = {}
        for spout_id in java_hashmap_order(list(self._spouts)):
            c = self._spouts[spout_id]
            batches_to_commit_ids.setdefault(c.batch_group_id, []).append(c.commit_state_id)
            batches_to_spouts.setdefault(c.batch_group_id, []).append(c.spout)
            master = master_coordinator(c.batch_group_id)
            coordinator = TridentSpoutCoordinator(c.commit_state_id, c.spout)
            objects[spout_coordinator(spout_id)] = coordinator
            bolts[spout_coordinator(spout_id)] = self._bolt(
                coordinator, None, [(master, BATCH_STREAM_ID, Grouping(fields=[])),
                                    (master, SUCCESS_STREAM_ID, Grouping(fields=[]))],
                c.component_confs)
            specs = {c.batch_group_id: CoordSpec()}
            executor = TridentBoltExecutor(
                TridentSpoutExecutor(c.commit_state_id, c.stream_name, c.spout),
                batch_ids_for_spouts, specs)
            inputs = [(spout_coordinator(spout_id), BATCH_STREAM_ID, _all()),
                      (master, SUCCESS_STREAM_ID, _all())]
            if isinstance(c.spout, ICommitterTridentSpout):
                inputs.append((master, COMMIT_STREAM_ID, _all()))
            objects[spout_id] = executor
            bolts[spout_id] = self._bolt(executor, c.parallelism, inputs, c.component_confs)

        for spout_id in java_hashmap_order(list(self._batch_per_tuple_spouts)):
            c = self._batch_per_tuple_spouts[spout_id]
            triggerer = RichSpoutBatchTriggerer(c.spout, c.stream_name, c.batch_group_id)
            objects[spout_id] = triggerer
            spouts[spout_id] = SpoutSpec(
                spout_object=self._object(),
                common=self._common(triggerer, c.parallelism, [], c.component_confs))

        for batch in java_hashmap_order(list(batches_to_commit_ids)):
            master = MasterBatchCoordinator(batches_to_commit_ids[batch],
                                            batches_to_spouts[batch])
            objects[master_coordinator(batch)] = master
            declarer = ConfigurationDeclarer()
            declarer.declare_resources(master_coord_resources or {})
            spouts[master_coordinator(batch)] = SpoutSpec(
                spout_object=self._object(),
                common=self._common(master, None, [], declarer.component_confs))

        for bolt_id, c in self._bolts.items():
            specs = {}
            subscriptions = [(component, stream) for component, stream, _g in c.declarations]
            for component, stream in subscriptions:
                spec = specs.setdefault(batch_ids_for_bolts[(component, stream)], CoordSpec())
                spec.coords[component] = (CoordType.single()
                                          if component in self._batch_per_tuple_spouts
                                          else CoordType.all())
            for b in c.committer_batches:
                specs[b].commit_stream = (master_coordinator(b), COMMIT_STREAM_ID)
            executor = TridentBoltExecutor(c.bolt, batch_ids_for_bolts, specs)
            inputs = list(c.declarations)
            for component, stream in subscriptions:
                b = self._batch_ids[(component, stream)]
                inputs.append((component, coord_stream(b), Grouping(direct=NullStruct())))
            for b in c.committer_batches:
                inputs.append((master_coordinator(b), COMMIT_STREAM_ID, _all()))
            objects[bolt_id] = executor
            bolts[bolt_id] = self._bolt(executor, c.parallelism, inputs, c.component_confs)
        topology = StormTopology(spouts=spouts, bolts=bolts, state_spouts={})
        return TridentPlan(topology, objects)

    def _object(self):
        return ComponentObject(shell=ShellComponent(execution_command=TRIDENT_COMMAND,
                                                    script=self.program or ""))

    def _bolt(self, obj, parallelism, inputs, component_confs=()):
        return Bolt(bolt_object=self._object(),
                    common=self._common(obj, parallelism, inputs, component_confs))

    @staticmethod
    def _common(obj, parallelism, inputs, component_confs=()):
        """``TopologyBuilder.initCommon``, the confs added (``addConfigurations``) and the
        inputs declared: streams from the object, the component conf as JSON."""
        streams = {stream: StreamInfo(output_fields=list(fields), direct=direct)
                   for stream, (fields, direct) in obj.declare_output_fields().items()}
        conf = obj.get_component_configuration()
        for added in component_confs:
            conf = dict(conf or {}, **added)
        json_conf = None
        if conf is not None:
            json_conf = to_json({k: conf[k] for k in java_hashmap_order(list(conf))})
        return ComponentCommon(
            inputs={GlobalStreamId(componentId=component, streamId=stream): grouping
                    for component, stream, grouping in inputs},
            streams=streams, parallelism_hint=parallelism, json_conf=json_conf)


def _all():
    return Grouping(all=NullStruct())
