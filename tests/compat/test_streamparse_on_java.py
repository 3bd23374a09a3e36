"""The jar and topology ``pynimbus submit`` builds run unchanged on real Storm 1.2.4 workers.

pynimbus (1.x mode) and an unmodified storm-core 1.2.4 supervisor (:mod:`.real_storm`) share
the session's ZooKeeper.  ``pynimbus submit`` sends the finite-corpus streamparse word count
of ``tests/sparse_projects.py``: the Java worker runs its spout and bolts through multilang
(``ShellSpout``/``ShellBolt`` starting ``streamparse_run -s json module.Class`` in the
topology's ``resources`` directory, which the supervisor extracted from the jar), so the jar
layout, the shell components and the conf are what a real Storm cluster takes from ``sparse
submit``.  The counts must come out exact.  ``streamparse_run`` is found on the PATH the
supervisor JVM, its worker and their children inherit: the virtualenv's bin first.

Opt-in, like ``test_real_supervisor.py``: ``PYNIMBUS_COMPAT=1`` (``tox -e compat``), plus Java,
Debian's ZooKeeper and the Storm jars; otherwise skipped with the reason.
"""

import glob
import os
import subprocess
import sys
import time

import pytest

from compat import real_storm
from compat.oracle import maven
from compat.oracle.targets import pynimbus_target
from compat.test_real_supervisor import ENABLED
from nimbus_process import RawClient
from sparse_projects import expected_counts, final_counts, finite_word_count
from pynimbus_path import child_env

pytestmark = [
    pytest.mark.compat,
    pytest.mark.skipif(not ENABLED, reason="real Storm worker tests run with PYNIMBUS_COMPAT=1 "
                                           "(tox -e compat): they start Java supervisors and "
                                           "workers"),
]

VENV_BIN = os.path.dirname(sys.executable)
WAIT = 240.0


def wait_for(fn, what, supervisor, target, timeout=WAIT):
    """Poll ``fn`` until it is true; fail with both daemons' log tails."""
    deadline = time.monotonic() + timeout
    while not fn():
        if time.monotonic() > deadline or not supervisor.alive():
            pytest.fail("no %s within %.0f s (supervisor alive: %s)\n%s\n== pynimbus ==\n%s"
                        % (what, timeout, supervisor.alive(), supervisor.log_tail(),
                           target.handle.log_tail()))
        time.sleep(0.25)


def test_the_finite_word_count_counts_exactly_on_a_java_worker(zookeeper_server, tmp_path,
                                                                 monkeypatch):
    """pynimbus submit to pynimbus, run by Storm 1.2.4's supervisor and Java worker: every
    word of the corpus counted exactly by the two count tasks."""
    reason = real_storm.unavailable_reason("1.x")
    if reason:
        pytest.skip(reason)
    monkeypatch.setenv("PATH", VENV_BIN + os.pathsep + os.environ.get("PATH", ""))
    root = finite_word_count(tmp_path, package="onjava")
    output = tmp_path / "counts.txt"
    with pynimbus_target("1.x", zookeeper_server, conf={"nimbus.task.launch.secs": 60}) \
            as target, real_storm.RealSupervisor(
                maven.STORM_1X, zookeeper_server.port,
                target.cluster_conf["storm.zookeeper.root"], target.port, slots=1) as supervisor:
        def registered():
            with RawClient(target.host, target.port, timeout=30) as client:
                return len(client.call("getClusterInfo").supervisors) == 1
        wait_for(registered, "supervisor registration", supervisor, target)
        done = subprocess.run(
            [sys.executable, "-m", "pynimbus.cli", "submit", "topologies/onjava_count.py",
             "--nimbus", "%s:%d" % (target.host, target.port), "-c",
             "wordcount.output=%s" % output], cwd=root, capture_output=True, text=True,
            timeout=120, env=child_env())
        assert done.returncode == 0, done.stdout + done.stderr
        wait_for(lambda: final_counts(str(output)) == expected_counts(), "exact counts",
                 supervisor, target)
        logs = "".join(open(path, errors="replace").read() for path in glob.glob(
            os.path.join(supervisor.log_dir, "workers-artifacts", "*", "*", "worker.log")))
        assert "o.a.s.t.ShellBolt - Launched subprocess" in logs  # Storm's own ShellBolt
