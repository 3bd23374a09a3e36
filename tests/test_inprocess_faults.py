"""Faults on Python supervisors with the components in process (pynimbus.worker.inprocess):
the same promises as tests/test_supervisor_faults.py, whose cluster, runs and components this
reuses, with the spout and sink given as streamparse's runner gives them
(``streamparse_run numbered_spout.NumberedSpout``), so each worker runs them itself.

A worker killed with SIGKILL mid-stream is launched again and every id still arrives and is
acked; a bolt that raises in process is reported in getTopologyInfo, its worker exits with
code 11 and is launched again, and every id is then acked.
"""
# test-case-name: tests.test_inprocess_faults

import pytest

from test_supervisor_end_to_end import listening
from test_supervisor_faults import (  # noqa: F401  (cluster and fault_run are fixtures)
    RUN_SECS, cluster, fault_run, kill_with_tuples_in_flight, wait_for_relaunch_and_completion)
from worker_topologies import common
from pynimbus.generated.storm.ttypes import (
    Bolt, ComponentObject, GlobalStreamId, Grouping, NullStruct, ShellComponent, SpoutSpec,
    StormTopology)
from pynimbus.supervisor.daemon import process_alive

# tens of seconds each (tox -e slow, which CI runs, not the default run)
pytestmark = [pytest.mark.zookeeper, pytest.mark.slow]


def streamparse_run(target):
    return ComponentObject(shell=ShellComponent("streamparse_run", "-s json " + target))


def numbers_into_sink_in_process(sink_parallelism):
    """test_supervisor_faults's ``numbers`` into ``sink``, run by streamparse's runner."""
    return StormTopology(
        spouts={"numbers": SpoutSpec(streamparse_run("numbered_spout.NumberedSpout"),
                                     common({}, ["id"], 1))},
        bolts={"sink": Bolt(streamparse_run("id_sink_bolt.IdSinkBolt"), common(
            {GlobalStreamId("numbers", "default"): Grouping(shuffle=NullStruct())},
            ["id"], sink_parallelism))},
        state_spouts={})


def alone_in_its_pids_dir(run, pid, worker_id):
    """The worker runs no multilang child: its pids dir holds its own pid only."""
    return run.cluster.pids_of_worker(worker_id) == {pid}


def test_a_worker_killed_mid_stream_replays_its_tuples_in_process(
        cluster, fault_run, wait_until):
    """At least once in process: the worker without the spout (running sink tasks in
    process, no child) is killed with SIGKILL while the spout still emits and tuples are in
    flight in it; it is launched again, the spout replays what timed out, and every id
    reaches the sink and is acked."""
    run = fault_run(2000)
    run.submit("at-least-once-in-process", numbers_into_sink_in_process(2),
               {"topology.workers": 2, "topology.message.timeout.secs": 3,
                "topology.max.spout.pending": 200, "faulttest.ids.per.sec": 250},
               wait_until)
    wait_until(lambda: len(run.ids("received")) >= 250, timeout=RUN_SECS,
               what="the sink receiving ids")
    [spout_port] = run.executor_ports("numbers")
    workers = run.cluster.workers_of(run.storm_id)
    for pid, worker_id in workers.values():
        assert alone_in_its_pids_dir(run, pid, worker_id)
    [victim_port] = set(workers) - {spout_port}
    victim_pid, victim_id = workers[victim_port]
    kill_with_tuples_in_flight(run, victim_pid, wait_until)

    def relaunched():
        worker = run.cluster.workers_of(run.storm_id).get(victim_port)
        return worker is not None and worker[1] != victim_id and listening(victim_port)
    wait_until(relaunched, timeout=RUN_SECS, what="a new worker on the killed one's port")
    assert not process_alive(victim_pid)
    wait_until(run.every_id_received_and_acked, timeout=RUN_SECS,
               what="every id received and acked")
    assert run.ids("failed"), "no tuple was lost with the killed worker, nothing replayed"


def test_a_bolt_that_raises_in_process_is_reported_and_its_worker_relaunched(
        cluster, fault_run, wait_until):
    """A bolt raising in process on one tuple (once): pystorm's report is in getTopologyInfo
    under the bolt, its worker exits with code 11 as with a dying child, the supervisor
    launches another, and every id is then received and acked."""
    run = fault_run(300)
    log_sizes = run.cluster.log_sizes()
    run.submit("raises-in-process", numbers_into_sink_in_process(1),
               {"topology.workers": 1, "faulttest.ids.per.sec": 150,
                "faulttest.fault": "raise", "faulttest.fault.on": 150}, wait_until)
    wait_until(lambda: run.cluster.workers_of(run.storm_id), timeout=RUN_SECS,
               what="the topology's worker")
    [(port, (_pid, worker_id))] = run.cluster.workers_of(run.storm_id).items()
    wait_until(lambda: any("raises on id 150" in e for e in run.errors("sink")),
               timeout=RUN_SECS, what="the bolt's error in getTopologyInfo")
    # the executor's own report of the death follows pystorm's report by a moment
    wait_until(lambda: any("raised in process" in e for e in run.errors("sink")),
               timeout=RUN_SECS, what="the executor's report that the bolt died in process")
    wait_for_relaunch_and_completion(run, port, worker_id, log_sizes, wait_until)
