"""pynimbus's port of JStorm 2.2.1's placement against JStorm 2.2.1 itself.

The real ``DefaultTopologyScheduler.assignTasks`` of ``com.alibaba.jstorm:jstorm-core:2.2.1``
(Maven Central, cached in ``.cache/maven``) runs in our small harness
(``jstorm_oracle/PlacementOracle.java``, compiled at test time) on the generated cases of
``tests/jstorm_cases.py``: several topologies with fields/shuffle/all groupings and skewed
parallelism on uneven supervisors; NEW, REBALANCE (reassign or not, scaled, a supervisor lost or
added) and MONITOR (dead tasks, a lost supervisor) rounds; user-defined assignments (by host, by
supervisor, naming a missing one), ``use.old.assignment``, ``task.on.differ.node``, the topology
master on a worker of its own and shared.  Each case's placement (worker -> tasks, node, port,
host, memory, cpu) or error (class, and JStorm's message) must be the same.

Opt-in, like the other Java-driven tests: ``PYNIMBUS_COMPAT=1`` (``tox -e compat``), plus a JDK
and ``mvn`` (Maven Central on the first run); skipped with the reason otherwise.  The default run
checks the port against committed JStorm placements instead (``tests/test_jstorm_port.py``).
"""

import os

import pytest

from jstorm_cases import generated_cases
from pynimbus.jstorm_port.case_json import place_case

from compat.oracle.jstorm import OracleUnavailable, jstorm_placements

CASES = generated_cases(seed=2021, rounds=12)

pytestmark = pytest.mark.skipif(
    os.environ.get("PYNIMBUS_COMPAT") != "1",
    reason="the JStorm oracle runs with PYNIMBUS_COMPAT=1 (tox -e compat): it starts a JVM")


@pytest.fixture(scope="module")
def jstorm(request):
    """JStorm's placement of every case, by case name (one JVM for all)."""
    try:
        placements = jstorm_placements([case for _, case in CASES])
    except OracleUnavailable as e:
        pytest.skip("JStorm 2.2.1 oracle unavailable: %s" % e)
    return dict(zip((name for name, _ in CASES), placements))


def test_the_cases_cover_what_the_issue_asks(jstorm):
    """At least 20 placed cases, and placed cases of each assign type and feature."""
    placed = [name for name, _ in CASES if isinstance(jstorm[name], list)]
    assert len(placed) >= 20
    for kind in ("new-", "rebalance", "monitor", "userdefine-", "differ-node-",
                 "old-assignment-", "tm-single-", "tm-shared-"):
        assert any(kind in name for name in placed), kind
    assert any(isinstance(p, dict) and p["error"] == "FailedAssignTopologyException"
               for p in jstorm.values())


@pytest.mark.parametrize("name,case", CASES, ids=[name for name, _ in CASES])
def test_port_places_as_jstorm(jstorm, name, case):
    assert place_case(case) == jstorm[name]
