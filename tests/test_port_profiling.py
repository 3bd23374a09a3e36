"""Tests for pynimbus.clojure_port.profiling: the workers of a component, newest requests."""
# test-case-name: tests.test_port_profiling

from pynimbus.clojure_port.profiling import latest_profile_actions, node_infos_for_component
from pynimbus.generated.storm.ttypes import NodeInfo, ProfileAction, ProfileRequest

TASKS = {1: "spout", 2: "bolt", 3: "bolt", 4: "__acker"}
HOSTS = {(1, 1): ("h1", 6700), (2, 2): ("h1", 6700), (3, 3): ("h2", 6701),
         (4, 4): ("h2", 6702)}


def request(host, port, action, ts):
    return ProfileRequest(nodeInfo=NodeInfo(host, {port}), action=action, time_stamp=ts)


def test_node_infos_are_the_distinct_workers_of_the_component():
    """A component's executors give their (host, port) once each; system ones are left out."""
    assert node_infos_for_component(HOSTS, TASKS, False, "bolt") == [("h1", 6700), ("h2", 6701)]
    assert node_infos_for_component(HOSTS, TASKS, False, None) == [("h1", 6700), ("h2", 6701)]
    assert node_infos_for_component(HOSTS, TASKS, True, None)[-1] == ("h2", 6702)
    assert node_infos_for_component({}, TASKS, False, "bolt") == []


def test_latest_request_per_worker_of_the_action():
    """Per worker, the newest request with that action; other actions and workers ignored."""
    requests = [request("h1", 6700, ProfileAction.JSTACK_DUMP, 10),
                request("h1", 6700, ProfileAction.JSTACK_DUMP, 30),
                request("h1", 6700, ProfileAction.JPROFILE_STOP, 50),
                request("h2", 6701, ProfileAction.JSTACK_DUMP, 20),
                request("h3", 6700, ProfileAction.JSTACK_DUMP, 99)]
    found = latest_profile_actions(requests, [("h1", 6700), ("h2", 6701)],
                                   ProfileAction.JSTACK_DUMP)
    assert [(r.nodeInfo.node, r.time_stamp) for r in found] == [("h1", 30), ("h2", 20)]
    assert latest_profile_actions(requests, [("h2", 6701)], ProfileAction.JMAP_DUMP) == []
