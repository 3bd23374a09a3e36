"""storm-starter 1.2.2's ``BasicDRPCTopology`` (``LinearDRPCTopologyBuilder``, the DRPC spout,
``ExclaimBolt``, the join and return bolts) submitted with the stock ``storm jar`` to pynimbus
(1.x mode) and run by a real Storm 1.2.4 supervisor's Java workers, twice in the same test:
one copy fetches its requests from ``pynimbus drpc``, the other from Storm 1.2.4's own DRPC
daemon (each topology's ``drpc.servers``/``drpc.invocations.port``), and both answer the same
questions the same.

Opt-in like ``test_real_topologies.py``: ``PYNIMBUS_COMPAT=1`` (``tox -e compat``), plus Java,
``mvn``, Debian's ZooKeeper and the Storm jars; otherwise skipped with the reason.
"""

import pathlib

import pytest

from compat import real_storm, storm_drpc
from compat.test_real_supervisor import ENABLED, RealCluster
from drpc_process import LOOPBACK, DRPCProcess
from pynimbus.drpc import DRPCClient

pytestmark = [
    pytest.mark.compat,
    pytest.mark.skipif(not ENABLED, reason="real Storm DRPC tests run with PYNIMBUS_COMPAT=1 "
                                           "(tox -e compat): they start Java supervisors, "
                                           "workers and Storm's DRPC daemon"),
]

BASIC_DRPC = "org.apache.storm.starter.BasicDRPCTopology"
REQUEST_TIMEOUT_SECS = 240  # the first answers wait for the workers to start
QUESTIONS = ("hello", "goodbye", "pynimbus")


class DRPCCluster(RealCluster):
    """:class:`RealCluster` running one BasicDRPCTopology per DRPC server."""

    invocation_ports = {}  # topology name -> the drpc.invocations.port it fetches from

    def topology(self, name):
        return real_storm.Topology(
            real_storm.starter_jar(), BASIC_DRPC, [name],
            {"topology.workers": 1, "drpc.servers": [LOOPBACK],
             "drpc.invocations.port": self.invocation_ports[name]}, None)


def ask(port):
    with DRPCClient(LOOPBACK, port, timeout=REQUEST_TIMEOUT_SECS + 30) as client:
        return {word: client.execute("exclamation", word) for word in QUESTIONS}


def test_basic_drpc_topology_answers_the_same_through_pynimbus_drpc_and_storms(
        zookeeper_server, tmp_path_factory):
    reason = real_storm.unavailable_reason("1.x") or storm_drpc.unavailable_reason()
    if not reason:
        try:
            real_storm.starter_jar()
        except Exception as e:  # maven.MavenUnavailable
            reason = str(e)
    if reason:
        pytest.skip("Storm 1.2.4 workers or its DRPC daemon cannot run here: %s" % reason)
    workdir = tmp_path_factory.mktemp("real-drpc")
    timeout = "drpc.request.timeout.secs=%d" % REQUEST_TIMEOUT_SECS
    ours = DRPCProcess(pathlib.Path(workdir), timeout)
    theirs = storm_drpc.StormDRPC(conf={"drpc.request.timeout.secs": REQUEST_TIMEOUT_SECS})
    try:
        ours.wait_serving()
        theirs.start()
        DRPCCluster.invocation_ports = {"drpc-pynimbus": ours.invocations_port,
                                        "drpc-storm": theirs.invocations_port}
        with DRPCCluster.started("1.x", zookeeper_server, str(workdir),
                                 sorted(DRPCCluster.invocation_ports), slots=2, parallel=2):
            answers_ours = ask(ours.port)
            answers_theirs = ask(theirs.port)
        assert answers_ours == {word: word + "!" for word in QUESTIONS}
        assert answers_ours == answers_theirs
    finally:
        theirs.stop()
        ours.stop()
