"""The committed Trident plan goldens are what Storm 1.2.4's own planner builds.

``tests/compat/goldens/1.2.4/trident_plans/<scenario>.json`` hold, per Trident program, the
``StormTopology`` that ``TridentTopology.build()`` makes of it (see :mod:`compat.trident_plans`);
pynimbus's Python planner is compared with them.  Here the Java generator runs once (one JVM for
every scenario) into a temporary directory and each fresh plan must equal the committed one, so
a change of the generator or of the Storm jars that alters a plan shows up.

Opt-in, like the other Java-driven tests: ``PYNIMBUS_COMPAT=1`` (``tox -e compat``), plus Java,
``mvn`` (it builds ``tests/compat/java``) and the Storm 1.2.4 jars; otherwise skipped with the
reason.
"""

import difflib
import json
import os

import pytest

from compat import trident_plans
from compat.oracle import maven

VERSION = maven.STORM_1X

pytestmark = [
    pytest.mark.compat,
    pytest.mark.skipif(os.environ.get("PYNIMBUS_COMPAT") != "1",
                       reason="the Trident plan goldens are re-checked with PYNIMBUS_COMPAT=1 "
                              "(tox -e compat): it builds the Java topologies and starts a JVM"),
]


@pytest.fixture(scope="module")
def fresh(tmp_path_factory):
    """``(output directory, {scenario: plan})`` of one run of the Java generator."""
    outdir = str(tmp_path_factory.mktemp("trident-plans"))
    try:
        plans = trident_plans.java_plans(outdir, VERSION)
    except (maven.MavenUnavailable, trident_plans.JavaUnavailable) as e:
        pytest.skip("Storm %s's Trident planner unavailable: %s" % (VERSION, e))
    return outdir, plans


def test_the_goldens_are_the_scenarios(fresh):
    """One golden per scenario and nothing else, and the generator writes exactly those."""
    outdir, _ = fresh
    expected = sorted(name + ".json" for name in trident_plans.SCENARIOS)
    assert sorted(os.listdir(trident_plans.goldens_dir(VERSION))) == expected
    assert sorted(os.listdir(outdir)) == expected


@pytest.mark.parametrize("scenario", trident_plans.SCENARIOS)
def test_plan_matches_golden(fresh, scenario):
    _, plans = fresh
    with open(os.path.join(trident_plans.goldens_dir(VERSION), scenario + ".json"),
              encoding="utf-8") as f:
        golden = json.load(f)
    plan = plans[scenario]
    assert plan["scenario"] == scenario
    if plan != golden:
        diff = difflib.unified_diff(
            json.dumps(golden, indent=1, sort_keys=True).splitlines(),
            json.dumps(plan, indent=1, sort_keys=True).splitlines(),
            "golden/%s.json" % scenario, "storm-%s/%s.json" % (VERSION, scenario), lineterm="")
        pytest.fail("the plan of %s differs from its golden:\n%s"
                    % (scenario, "\n".join(list(diff)[:200])))
