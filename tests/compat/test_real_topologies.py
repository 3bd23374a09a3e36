"""The reference topologies (``tests/compat/java``) run on real Storm workers under pynimbus.

pynimbus (1.x or 2.x mode) and one real supervisor of the same generation (storm-core 1.2.4 or
storm-server 2.8.3, four slots: :mod:`.real_storm`) share the session's ZooKeeper.  The stock
``storm jar`` submits four topologies at once, each on one worker:

* ``WordCountTopology``: its ``split`` bolt is a multilang ``ShellBolt`` whose command is
  ``python3 splitsentence.py``; the worker starts it in the topology's ``resources`` directory
  (extracted from the jar by the supervisor), where Storm's own ``storm.py`` sits beside it.
  Storm has no "python" setting for this: the command is the ShellBolt's constructor argument.
* ``UserScoreTopology`` (the seed Trident example: groupBy/aggregate/toStream/each) and
  ``TridentWordCount``: Trident's master batch coordinator spout (``$mastercoord-bg0``) starts
  batches, ``$spoutcoord-...``/``spout-...`` and the ``b-<n>`` bolts process them, and a batch
  that completes is acked back to the coordinator twice (its ``$batch`` tuple, then its
  ``$commit`` tuple).  ``PrintEachFunc`` writes each aggregate (``<user> count=<n>
  total=<sum>``) to the worker log.
* ``AllGroupingsTopology``: one bolt per TopologyBuilder grouping, all fed by one spout.

One wait covers all four (bounded; the statistics come from the workers' real heartbeats, read
back through pynimbus's ``getTopologyInfo``); each test then checks its topology on what the
wait last saw, so a topology that fails does not hide how the others did.  The topologies are
submitted with ``topology.stats.sample.rate`` 1 (every tuple counted, so counts show up on the
first heartbeat) and a ``transactional.zookeeper.root`` under the cluster's own ZooKeeper root
(Trident keeps its batch state there; ``/transactional`` upstream).

Opt-in, like ``test_real_supervisor.py``: ``PYNIMBUS_COMPAT=1`` (``tox -e compat``), plus Java,
``mvn``, Debian's ZooKeeper and the Storm jars; otherwise skipped with the reason.
"""

import collections
import os
import re
import time

import pytest

from compat import real_storm, topology_jars
from compat.oracle import maven
from compat.test_real_supervisor import ENABLED, STORM_VERSIONS, RealCluster, component_totals

pytestmark = [
    pytest.mark.compat,
    pytest.mark.skipif(not ENABLED, reason="real Storm topology tests run with "
                                           "PYNIMBUS_COMPAT=1 (tox -e compat): they start Java "
                                           "supervisors and workers"),
]

WORD_COUNT = "wordcount"
USER_SCORE = "user-score"
TRIDENT_WORD_COUNT = "trident-wordcount"
ALL_GROUPINGS = "all-groupings"
MAIN_CLASSES = {
    WORD_COUNT: topology_jars.WORD_COUNT,
    USER_SCORE: topology_jars.USER_SCORE,
    TRIDENT_WORD_COUNT: topology_jars.TRIDENT_WORD_COUNT,
    ALL_GROUPINGS: topology_jars.ALL_GROUPINGS,
}
GROUPING_BOLTS = ("shuffle", "fields", "all", "global", "none", "direct", "local-or-shuffle",
                  "partial-key", "custom", "sink")
# Groupings that reach every executor of their bolt: "all" copies each tuple to every task, the
# spout sends its direct stream to the "direct" tasks in turn.
EVERY_EXECUTOR = ("all", "direct")
SPLIT_SCRIPT = "splitsentence.py"
SPLIT_EXECUTORS = 2
# Words of SentenceSpout's longest sentence: the most one split can emit per sentence.
MAX_WORDS = 7
ACKER = "__acker"
# Trident's master batch coordinator acks a batch on these streams once its tuple tree completes.
BATCH_STREAMS = ("$batch", "$commit")
# The bolts Trident builds (system components aside).  UserScoreTopology's aggregate and its
# each(PrintEachFunc) share b-0: the groupBy repartitions the stream from spout-spout1 to b-0,
# nothing repartitions after it.  TridentWordCount: the split and, past the groupBy's
# repartition, the per-word count are b-0 and b-1.
TRIDENT_BOLTS = {
    "user-score": ["$spoutcoord-spout-spout1", "b-0", "spout-spout1"],
    "trident-wordcount": ["$spoutcoord-spout-sentences", "b-0", "b-1", "spout-sentences"],
}
PRINTED = re.compile(r"PrintEachFunc: \[(\w+) count=(\d+) total=(\d+)\]")
USERS = {"alice", "bob", "carol"}
WAIT = 150.0
WINDOW = ":all-time"


class TopologyCluster(RealCluster):
    """:class:`RealCluster` running the reference topologies (one worker each)."""

    def topology(self, name):
        options = {
            "topology.stats.sample.rate": 1.0,
            "transactional.zookeeper.root":
                self.target.cluster_conf["storm.zookeeper.root"] + "/transactional",
        }
        if self.generation == "1.x":
            # Trident's ZooKeeper client reads the topology conf, into which a 1.2.4 Nimbus
            # merges its own conf (setup-storm-code stores total-storm-conf): pynimbus's
            # storm.zookeeper.servers, 127.0.0.1 here.  The 1.x ZooKeeper client cannot take an
            # address literal on Java 14+, so Trident gets the name the workers' hosts file
            # resolves (real_storm's workaround for the workers' own client).
            options["transactional.zookeeper.servers"] = ["localhost"]
        return real_storm.reference_topology(self.generation, MAIN_CLASSES[name], name,
                                              workers=1, options=options)

    def submit(self, name):
        # One client conf dir per topology: the submissions run at the same time.
        return real_storm.storm_jar(self.version, self.target.port,
                                    os.path.join(self.workdir, "client-conf-" + name),
                                    self.topology(name))

    def worker_log(self, storm_id):
        """The worker.log text of ``storm_id``'s workers on this supervisor (as assigned)."""
        slots = self.slots(storm_id) or {}
        return "".join(self.supervisor.worker_log(storm_id, port) for port in sorted(slots))


def spout_acked(info, component, window=WINDOW):
    """``{stream: acked}`` summed over ``component``'s spout executors."""
    acked = collections.Counter()
    for executor in info.executors:
        stats = executor.stats
        if executor.component_id != component or stats is None or stats.specific is None:
            continue
        if stats.specific.spout is not None:
            acked.update((stats.specific.spout.acked or {}).get(window, {}))
    return acked


def executor_executed(info, component, window=WINDOW):
    """``{(task_start, task_end): executed}`` of ``component``'s executors (0 without stats)."""
    out = {}
    for executor in info.executors:
        if executor.component_id != component:
            continue
        stats = executor.stats
        bolt = stats.specific.bolt if stats is not None and stats.specific is not None else None
        executed = sum((bolt.executed or {}).get(window, {}).values()) if bolt else 0
        out[(executor.executor_info.task_start, executor.executor_info.task_end)] = executed
    return out


def printed_aggregates(log_text):
    """``[(user, count, total)]`` PrintEachFunc wrote to the worker log."""
    return [(m.group(1), int(m.group(2)), int(m.group(3))) for m in PRINTED.finditer(log_text)]


def errors_of(info):
    """``{component: [first line of each error]}`` of a TopologyInfo, components with errors."""
    return {component: [(e.error or "").split("\n", 1)[0] for e in errors]
            for component, errors in (info.errors or {}).items() if errors}


# What each topology must show; a check returns the list of what is still missing.

def split_processes(cluster):
    """Pids of the ``splitsentence.py`` processes the worker's ShellBolts started (they stay in
    the supervisor's process group, like the worker)."""
    return sorted(pid for pid in real_storm.group_members(cluster.supervisor.process.pid)
                  if SPLIT_SCRIPT in real_storm.cmdline(pid))


def check_word_count(cluster, storm_id, info):
    totals = component_totals(info)
    return [what for what, ok in (
        ("spout emitted", totals["spout"]["emitted"] > 0),
        ("split (ShellBolt) executed", totals["split"]["executed"] > 0),
        ("split (ShellBolt) emitted", totals["split"]["emitted"] > 0),
        ("count executed", totals["count"]["executed"] > 0),
        ("one %s process per split executor" % SPLIT_SCRIPT,
         len(split_processes(cluster)) == SPLIT_EXECUTORS),
    ) if not ok]


def trident_components(info):
    """(master coordinator spout, [bolts]) of a Trident topology, system components aside."""
    masters = sorted({e.component_id for e in info.executors
                      if e.component_id.startswith("$mastercoord-")})
    bolts = sorted({e.component_id for e in info.executors
                    if e.stats is not None and e.stats.specific is not None
                    and e.stats.specific.bolt is not None
                    and not e.component_id.startswith("__")})
    return masters, bolts


def check_trident(cluster, storm_id, info):
    totals = component_totals(info)
    masters, bolts = trident_components(info)
    missing = []
    if not masters:
        missing.append("a $mastercoord-* spout")
    for master in masters:
        acked = spout_acked(info, master)
        missing += ["%s acked on %s" % (master, stream) for stream in BATCH_STREAMS
                    if acked[stream] <= 0]
    if not any(b.startswith("b-") for b in bolts):
        missing.append("a b-<n> bolt")
    missing += ["%s executed" % bolt for bolt in bolts + [ACKER]
                if totals[bolt]["executed"] <= 0]
    return missing


def check_user_score(cluster, storm_id, info):
    missing = check_trident(cluster, storm_id, info)
    printed = {user for user, _, _ in printed_aggregates(cluster.worker_log(storm_id))}
    if printed != USERS:
        missing.append("PrintEachFunc lines for %s in the worker log (has %s)"
                       % (sorted(USERS), sorted(printed)))
    return missing


def check_all_groupings(cluster, storm_id, info):
    totals = component_totals(info)
    missing = [] if totals["words"]["emitted"] > 0 else ["words emitted"]
    missing += ["%s executed" % bolt for bolt in GROUPING_BOLTS
                if totals[bolt]["executed"] <= 0]
    for bolt in EVERY_EXECUTOR:
        missing += ["%s executor %s executed" % (bolt, executor)
                    for executor, executed in sorted(executor_executed(info, bolt).items())
                    if executed <= 0]
    return missing


CHECKS = {
    WORD_COUNT: check_word_count,
    USER_SCORE: check_user_score,
    TRIDENT_WORD_COUNT: check_trident,
    ALL_GROUPINGS: check_all_groupings,
}

Observed = collections.namedtuple("Observed", "storm_id info missing")


@pytest.fixture(scope="module", params=["1.x", "2.x"])
def cluster(request, zookeeper_server, tmp_path_factory):
    """pynimbus in ``generation`` mode + a real supervisor of that generation (4 slots), the four
    topologies submitted at once."""
    generation = request.param
    version = STORM_VERSIONS[generation]
    reason = real_storm.unavailable_reason(generation)
    if not reason:
        try:
            topology_jars.topology_jar(version)
        except maven.MavenUnavailable as e:
            reason = str(e)
    if reason:
        pytest.skip("real Storm %s workers cannot run here: %s" % (version, reason))
    workdir = str(tmp_path_factory.mktemp("real-topologies-" + generation))
    # All four at once.
    with TopologyCluster.started(generation, zookeeper_server, workdir, list(MAIN_CLASSES),
                                 slots=len(MAIN_CLASSES), parallel=len(MAIN_CLASSES)) as real:
        yield real


@pytest.fixture(scope="module")
def observed(cluster):
    """``{name: Observed}``: one bounded wait until every topology shows what its check asks
    for (or the time is up, or the supervisor died); what was last seen of each."""
    storm_ids = {}
    last = {}
    deadline = time.monotonic() + WAIT
    while True:
        for name, check in CHECKS.items():
            if name not in storm_ids:
                storm_ids[name] = cluster.storm_id(name)
            storm_id = storm_ids[name]
            if storm_id is None:
                last[name] = Observed(None, None, ["%s to be submitted and active" % name])
                continue
            if last.get(name) is not None and not last[name].missing:
                continue
            info = cluster.call("getTopologyInfo", id=storm_id)
            last[name] = Observed(storm_id, info, check(cluster, storm_id, info))
        if all(not o.missing for o in last.values()):
            return last
        if time.monotonic() > deadline or not cluster.supervisor.alive():
            return last
        time.sleep(0.5)


def diagnostics(cluster, name, seen):
    lines = ["%s (%s) after the wait: missing %s" % (name, seen.storm_id, seen.missing)]
    if seen.info is not None:
        totals = component_totals(seen.info)
        lines.append("component totals: %s" % {c: dict(t) for c, t in sorted(totals.items())})
        lines.append("errors: %s" % errors_of(seen.info))
        log = cluster.worker_log(seen.storm_id).splitlines()
        lines.append("== worker log (last 40 lines) ==\n" + "\n".join(log[-40:]))
    if not cluster.supervisor.alive():
        lines.append("the supervisor exited (code %s)" % cluster.supervisor.process.returncode)
    lines.append(cluster.diagnostics())
    return "\n".join(lines)


def assert_runs(cluster, observed, name):
    seen = observed[name]
    assert not seen.missing, diagnostics(cluster, name, seen)
    assert seen.info.status == "ACTIVE"
    assert {e.host for e in seen.info.executors} == {"127.0.0.1"}
    # One worker: every executor on the same port.
    assert len({e.port for e in seen.info.executors}) == 1
    return seen


def test_wordcount_multilang_split_runs(cluster, observed):
    """The ShellBolt ``split`` (python3 + Storm's storm.py) splits sentences, ``count`` counts."""
    seen = assert_runs(cluster, observed, WORD_COUNT)
    totals = component_totals(seen.info)
    assert 0 < totals["split"]["emitted"] <= MAX_WORDS * totals["split"]["executed"]
    assert totals["count"]["executed"] > 0
    assert errors_of(seen.info) == {}
    # The ShellBolt's subprocesses are Python running the jar's resources/splitsentence.py.
    log = cluster.worker_log(seen.storm_id)
    pids = split_processes(cluster)
    assert len(pids) == SPLIT_EXECUTORS
    for pid in pids:
        args = real_storm.cmdline(pid)
        assert os.path.basename(args[0]).startswith("python"), args
        assert "Launched subprocess with pid %d" % pid in log
        assert os.readlink("/proc/%d/cwd" % pid) == os.path.realpath(
            os.path.join(cluster.stormdist(seen.storm_id), "resources"))


@pytest.mark.parametrize("name", [USER_SCORE, TRIDENT_WORD_COUNT])
def test_trident_batches_complete(cluster, observed, name):
    """The master coordinator's batches and commits are acked; every Trident bolt executes."""
    seen = assert_runs(cluster, observed, name)
    masters, bolts = trident_components(seen.info)
    assert (masters, bolts) == (["$mastercoord-bg0"], TRIDENT_BOLTS[name])
    acked = spout_acked(seen.info, "$mastercoord-bg0")
    assert all(acked[stream] > 0 for stream in BATCH_STREAMS), acked
    totals = component_totals(seen.info)
    assert all(totals[bolt]["executed"] > 0 for bolt in bolts + [ACKER]), totals
    assert errors_of(seen.info) == {}


def test_user_score_prints_the_aggregates(cluster, observed):
    """PrintEachFunc logged UserCountAggregator's per-batch results, for every user."""
    seen = assert_runs(cluster, observed, USER_SCORE)
    printed = printed_aggregates(cluster.worker_log(seen.storm_id))
    assert {user for user, _, _ in printed} == USERS
    # carol's only row scores 1; alice's and bob's rows score 3 or 7, and 5 or 2.
    for user, count, total in printed:
        assert count > 0
        if user == "carol":
            assert total == count
        elif user == "alice":
            assert 3 * count <= total <= 7 * count
        else:
            assert 2 * count <= total <= 5 * count


def test_all_groupings_deliver_to_every_bolt(cluster, observed):
    """Each grouping's bolt executes tuples (all and direct: on every executor), so does sink."""
    seen = assert_runs(cluster, observed, ALL_GROUPINGS)
    totals = component_totals(seen.info)
    assert all(totals[bolt]["executed"] > 0 for bolt in GROUPING_BOLTS), totals
    for bolt in EVERY_EXECUTOR:
        executed = executor_executed(seen.info, bolt)
        assert len(executed) == 2 and all(n > 0 for n in executed.values()), (bolt, executed)
    assert errors_of(seen.info) == {}
