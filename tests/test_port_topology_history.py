"""Tests for pynimbus.clojure_port.topology_history: who sees which topologies."""
# test-case-name: tests.test_port_topology_history

from pynimbus.clojure_port import topology_history as th

CONF_A = {"topology.users": ["alice"], "logs.users": ["bob", "alice"],
          "topology.groups": ["dev"], "logs.groups": None}


def test_logs_users_and_groups_are_sorted_and_distinct():
    """get-topo-logs-users/groups merge the two keys, drop nils, sort."""
    assert th.topo_logs_users(CONF_A) == ["alice", "bob"]
    assert th.topo_logs_groups(CONF_A) == ["dev"]
    assert th.topo_logs_users({}) == []


def test_add_and_clean_keep_entries_newer_than_the_age():
    """An entry records the kill time; cleaning keeps those strictly newer than the cutoff."""
    history = th.add_topology_to_history([], "a-1-1", 1000, CONF_A)
    history = th.add_topology_to_history(history, "b-2-2", 1600, {})
    assert [(e.topology_id, e.time_stamp, e.users) for e in history] == [
        ("a-1-1", 1000, ["alice", "bob"]), ("b-2-2", 1600, [])]
    assert [e.topology_id for e in th.clean_topology_history(history, 1660, 11)] == ["b-2-2"]
    assert th.clean_topology_history(history, 1600, 10) == history[1:]


def test_no_user_sees_all_admins_see_all_others_their_own():
    """None (security off) and admins see everything; users see their topologies, groups too."""
    history = th.add_topology_to_history([], "old-1-1", 1000, {"topology.users": ["carol"]})
    running = [("a-1-1", CONF_A), ("b-2-2", {"topology.users": ["dave"]})]
    ids = lambda user, groups=(): th.topology_history_ids(user, running, history, ["root"], groups)
    assert ids(None) == ["a-1-1", "b-2-2", "old-1-1"]
    assert ids("root") == ["a-1-1", "b-2-2", "old-1-1"]
    assert ids("bob") == ["a-1-1"]
    assert ids("carol") == ["old-1-1"]
    assert ids("erin", ["dev"]) == ["a-1-1"]
    assert ids("erin") == []


def test_admin_groups_see_running_topologies_in_2x_only():
    """2.8.8 lets nimbus.admins.groups see running topologies, not the history."""
    history = th.add_topology_to_history([], "old-1-1", 1000, {})
    running = [("a-1-1", {})]
    assert th.topology_history_ids("x", running, history, [], ["wheel"], ["wheel"], "2.x") == [
        "a-1-1"]
    assert th.topology_history_ids("x", running, history, [], ["wheel"], ["wheel"], "1.x") == []


def test_a_topology_both_running_and_in_history_is_listed_once():
    """distinct: a resubmitted id appears once."""
    history = th.add_topology_to_history([], "a-1-1", 1000, {})
    assert th.topology_history_ids(None, [("a-1-1", {})], history, [], ()) == ["a-1-1"]
