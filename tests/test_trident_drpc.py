"""Python Trident DRPC streams (``new_drpc_stream``) on ``pynimbus dev``'s Python workers,
asked through its DRPC server: the DRPC scenarios of Storm 1.2.4's Trident
``integration_test.clj`` and storm-starter's ``TridentReach`` (one program,
``tests/trident_programs/drpc_scenarios.py``, with a part per scenario), each asserting what
Storm's asserts.

Storm's ``feed`` returns when the fed batch is processed; here the test appends to the
feeder's file and waits until the feeder's coordinator says the batch that took those lines
succeeded (it writes the feed's offset to ``<feed>.done`` on ``success``).
"""

import collections
import json

import pytest

from conftest import poll_until
from nimbus_process import NimbusProcess, free_port
from pynimbus.drpc import DRPCClient
from pynimbus.generated.storm.ttypes import DRPCExecutionException
from trident_cluster import kill_topology, submit, topology_errors

NAME = "trident-drpc"


@pytest.fixture(scope="module")
def dev(tmp_path_factory):
    local = tmp_path_factory.mktemp("trident-drpc-dev")
    nimbus = NimbusProcess(local, dev_supervisor=True, drpc=True, options=[
        "supervisor.slots.ports=[%d, %d]" % (free_port(), free_port()),
        "nimbus.monitor.freq.secs=1", "supervisor.monitor.frequency.secs=1",
        "supervisor.heartbeat.frequency.secs=1", "drpc.request.timeout.secs=60"])
    nimbus.start(timeout=60)
    try:
        yield nimbus
    finally:
        nimbus.stop()


@pytest.fixture(scope="module")
def scenarios(dev, tmp_path_factory):
    """The scenarios' program submitted (two workers); ``feed(name, rows)`` appends to a
    feeder, ``ask(function, args)`` is a DRPC call's parsed answer."""
    feeds = tmp_path_factory.mktemp("feeds")
    submit(dev, tmp_path_factory.mktemp("submit"), "drpc_scenarios:topology", NAME,
           {"TRIDENT_FEEDS": str(feeds)})
    client = DRPCClient("127.0.0.1", dev.drpc_port, timeout=90)

    class Scenarios(object):
        @staticmethod
        def feed(name, rows):
            path = str(feeds / (name + ".jsonl"))
            with open(path, "a") as f:
                f.write("".join(json.dumps(row) + "\n" for row in rows))
                end = f.tell()

            def processed():
                try:
                    with open(path + ".done") as f:
                        return int(f.read()) >= end
                except FileNotFoundError:
                    return False
            poll_until(processed, timeout=90, what="the batch of %s fed to %s to succeed\n%s"
                       % (rows, name, dev.log_tail()))

        @staticmethod
        def ask(function, args):
            return json.loads(client.execute(function, args))

    try:
        yield Scenarios
        assert topology_errors(dev, NAME) == []
    finally:
        client.close()
        kill_topology(dev, NAME)


def multiset(rows):
    return collections.Counter(tuple(row) for row in rows)


def test_memory_map_get_tuples(scenarios):
    scenarios.feed("tuples", [["hello the man said"], ["the"]])
    assert multiset(scenarios.ask("all-tuples", "man")) == multiset(
        [["hello", 1], ["said", 1], ["the", 2], ["man", 1]])
    scenarios.feed("tuples", [["the foo"]])
    assert multiset(scenarios.ask("all-tuples", "man")) == multiset(
        [["hello", 1], ["said", 1], ["the", 3], ["man", 1], ["foo", 1]])


@pytest.mark.parametrize("function,feeder", [("words", "words"),
                                             ("committed-words", "committed")])
def test_word_count(scenarios, function, feeder):
    """test-word-count, and test-word-count-committer-spout (a committer spout of two
    tasks that emits empty batches all the time, fed twice more)."""
    scenarios.feed(feeder, [["hello the man said"], ["the"]])
    assert scenarios.ask(function, "the") == [[2]]
    assert scenarios.ask(function, "hello") == [[1]]
    scenarios.feed(feeder, [["the man on the moon"], ["where are you"]])
    assert scenarios.ask(function, "the") == [[4]]
    assert scenarios.ask(function, "man") == [[2]]
    assert scenarios.ask(function, "man where you the") == [[8]]
    if feeder == "committed":
        scenarios.feed(feeder, [["the the"]])
        assert scenarios.ask(function, "the") == [[6]]
        scenarios.feed(feeder, [["the"]])
        assert scenarios.ask(function, "the") == [[7]]


def test_count_agg(scenarios):
    for _ in range(100):
        assert scenarios.ask("numwords", "the") == [[1]]
    assert scenarios.ask("numwords", "") == [[0]]
    assert scenarios.ask("numwords", "1 2 3 4 5 6 7 8") == [[8]]


def test_split_merge(scenarios):
    assert multiset(scenarios.ask("splitter", "the man")) == multiset([[7], ["the"], ["man"]])
    assert multiset(scenarios.ask("splitter", "hello")) == multiset([[5], ["hello"]])


def test_multiple_groupings_same_stream(scenarios):
    assert multiset(scenarios.ask("groupings", "the")) == multiset([["the", 1], ["the", 1]])
    assert (multiset(scenarios.ask("groupings", "aaaaa"))
            == multiset([["aaaaa", 1], ["aaaaa", 1]]))


def test_multi_repartition(scenarios):
    assert scenarios.ask("repartition", "the man") == [[2]]
    assert scenarios.ask("repartition", "aaa") == [[1]]


@pytest.mark.parametrize("url,reach", [("foo.com/blog/1", 16),
                                       ("engineering.twitter.com/blog/5", 14), ("aaa", 0)])
def test_storm_starters_trident_reach(scenarios, url, reach):
    assert scenarios.ask("reach", url) == [[reach]]


def test_a_request_whose_batch_fails_fails_its_caller(scenarios):
    assert scenarios.ask("checked", "fine") == [["fine"]]
    with pytest.raises(DRPCExecutionException) as failed:
        scenarios.ask("checked", "fail")
    assert failed.value.msg == "Request failed"
    assert scenarios.ask("checked", "again") == [["again"]]
