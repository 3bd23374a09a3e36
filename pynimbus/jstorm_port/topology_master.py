# -*- test-case-name: tests.test_worker_topology_master -*-
"""JStorm 2.2.1's topology master under ``pynimbus.scheduler: jstorm``: when a topology has one.

JStorm adds a ``__topology_master`` bolt to every topology (``Common.system_topology`` calls
``addTopologyMaster``); its workers send their tasks' heartbeats to it on the
``__master_task_heartbeat`` stream and it uploads them for the whole topology at once
(``TaskHeartbeatUpdater``).  pynimbus adds it only when a topology asks, under
``pynimbus.scheduler: jstorm``: the topology conf sets JStorm's
``topology.master.single.worker`` (true: the master gets a worker of its own, false: it shares
one; JStorm's placement reads the same key).  Of JStorm's five master streams only the
heartbeat stream exists here (the metrics, registration and control streams have nothing to
carry in a Storm topology).

Every reader of a topology's stored conf must build the same system topology (Nimbus's task
ids, the workers' executors), so the submission stamps ``pynimbus.scheduler: jstorm`` into the
stored conf of such a topology (:func:`stamp_scheduler`); the system topology adds the master
when :func:`asks_for_topology_master` holds for that conf.
"""

from pynimbus.jstorm_port import config_extension

TOPOLOGY_MASTER_COMPONENT_ID = "__topology_master"
TOPOLOGY_MASTER_HB_STREAM_ID = "__master_task_heartbeat"  # JStorm's Common constant
HEARTBEAT_FIELDS = ["hbEvent"]  # TopologyMaster.FILED_HEARBEAT_EVENT
SCHEDULER_KEY = "pynimbus.scheduler"
JSTORM = "jstorm"


def asks_for_topology_master(conf):
    """Whether the system topology of a topology with this (stored or total) conf has a
    ``__topology_master``: the JStorm scheduler, and ``topology.master.single.worker`` set."""
    return (conf.get(SCHEDULER_KEY) == JSTORM
            and conf.get(config_extension.TOPOLOGY_MASTER_SINGLE_WORKER) is not None)


def stamp_scheduler(storm_conf, nimbus_conf):
    """The stored conf of a submitted topology: one that sets ``topology.master.single.worker``
    carries Nimbus's ``pynimbus.scheduler`` (a new dict; whatever the topology conf said of it,
    so only Nimbus's choice adds a master); any other is returned as it is."""
    if storm_conf.get(config_extension.TOPOLOGY_MASTER_SINGLE_WORKER) is None:
        return storm_conf
    return dict(storm_conf, **{SCHEDULER_KEY: nimbus_conf.get(SCHEDULER_KEY, "default")})


def topology_master_input_streams(component_ids):
    """Port of ``Common.topoMasterInputs`` for the heartbeat stream: ``(component id, stream
    id)`` of every component's heartbeat stream, which the master reads with an all grouping."""
    return [(cid, TOPOLOGY_MASTER_HB_STREAM_ID) for cid in sorted(component_ids)]
