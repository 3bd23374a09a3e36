"""storm-starter 1.2.2's ``BasicDRPCTopology`` and ``ReachTopology``
(``LinearDRPCTopologyBuilder``: the DRPC spout, their bolts, the coordinated bolts, the join
and return bolts) and its Trident ``TridentWordCount`` (``newDRPCStream`` with a
``stateQuery`` of the counts a cycling spout keeps adding to), submitted with the stock
``storm jar`` to pynimbus (1.x mode) and run by a real Storm 1.2.4 supervisor's Java workers,
each twice in the same test: one copy fetches its requests from ``pynimbus drpc``, the other
from Storm 1.2.4's own DRPC daemon (each topology's ``drpc.servers``/``drpc.invocations.port``),
and both answer the same questions the same (the word counts, which grow while the test asks,
in the same shape).

Opt-in like ``test_real_topologies.py``: ``PYNIMBUS_COMPAT=1`` (``tox -e compat``), plus Java,
``mvn``, Debian's ZooKeeper and the Storm jars; otherwise skipped with the reason.
"""

import json
import pathlib
import time

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

REQUEST_TIMEOUT_SECS = 240  # the first answers wait for the workers to start
# function -> (storm-starter main class, questions)
FUNCTIONS = {
    "exclamation": ("org.apache.storm.starter.BasicDRPCTopology",
                    ("hello", "goodbye", "pynimbus")),
    "reach": ("org.apache.storm.starter.ReachTopology",
              ("foo.com/blog/1", "engineering.twitter.com/blog/5", "notaurl.com")),
}
TRIDENT_WORD_COUNT = "org.apache.storm.starter.trident.TridentWordCount"
WORDS = "cat the dog jumped"
COUNTED = {"the", "jumped"}  # the others are in none of its spout's sentences: filtered out
# ReachTopology's fake databases give these reaches
REACHES = {"foo.com/blog/1": "16", "engineering.twitter.com/blog/5": "14", "notaurl.com": "0"}


class DRPCCluster(RealCluster):
    """:class:`RealCluster` running one BasicDRPCTopology per DRPC server."""

    invocation_ports = {}  # topology name -> the drpc.invocations.port it fetches from

    def topology(self, name):
        function = name.split("-")[0]
        options = {"topology.workers": 1, "drpc.servers": [LOOPBACK],
                   "drpc.invocations.port": self.invocation_ports[name]}
        if function == "words":
            # Trident's batch state in this cluster's ZooKeeper root, by the name the workers'
            # hosts file resolves (test_real_topologies.py says why)
            options.update({"transactional.zookeeper.servers": ["localhost"],
                            "transactional.zookeeper.root":
                                self.target.cluster_conf["storm.zookeeper.root"]
                                + "/transactional-" + name})
            main_class = TRIDENT_WORD_COUNT
        else:
            main_class = FUNCTIONS[function][0]
        return real_storm.Topology(real_storm.starter_jar(), main_class, [name], options, None)


def word_counts(port, deadline):
    """``{word: count}`` TridentWordCount answers for WORDS through the server on ``port``,
    asked until the words its corpus has are counted (its spout keeps counting)."""
    with DRPCClient(LOOPBACK, port, timeout=REQUEST_TIMEOUT_SECS + 30) as client:
        while True:
            counts = dict(json.loads(client.execute("words", WORDS)))
            if set(counts) == COUNTED or time.monotonic() > deadline:
                return counts
            time.sleep(0.5)


def ask(port):
    """``{function: {question: answer}}`` through the DRPC server on ``port``."""
    with DRPCClient(LOOPBACK, port, timeout=REQUEST_TIMEOUT_SECS + 30) as client:
        return {function: {q: client.execute(function, q) for q in questions}
                for function, (_main, questions) in FUNCTIONS.items()}


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
        DRPCCluster.invocation_ports = {
            "%s-%s" % (function, side): port for function in list(FUNCTIONS) + ["words"]
            for side, port in (("pynimbus", ours.invocations_port),
                               ("storm", theirs.invocations_port))}
        names = sorted(DRPCCluster.invocation_ports)
        with DRPCCluster.started("1.x", zookeeper_server, str(workdir), names,
                                 slots=len(names), parallel=len(names)):
            answers_ours = ask(ours.port)
            answers_theirs = ask(theirs.port)
            deadline = time.monotonic() + REQUEST_TIMEOUT_SECS
            counts_ours = word_counts(ours.port, deadline)
            counts_theirs = word_counts(theirs.port, deadline)
        questions = FUNCTIONS["exclamation"][1]
        assert answers_ours["exclamation"] == {word: word + "!" for word in questions}
        assert answers_ours["reach"] == REACHES
        assert answers_ours == answers_theirs
        for counts in (counts_ours, counts_theirs):
            assert set(counts) == COUNTED, counts
            assert all(isinstance(n, int) and n > 0 for n in counts.values()), counts
    finally:
        theirs.stop()
        ours.stop()
