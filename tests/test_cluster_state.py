"""StormClusterState against a real ZooKeeper and the embedded store (the same suite on each).

Every test checks the operation's result and, where it matters, the raw node it leaves (path,
node kind, bytes), since the layout is read by JVM daemons too.
"""

import pytest

from pynimbus.cluster import NoNodeError, StormClusterState
from pynimbus.cluster import paths
from pynimbus.cluster.serialization import deserialize, serialize
from pynimbus.generated.storm import ttypes


TOPOLOGY = "wordcount-1-1700000000"


@pytest.fixture
def state(open_backend, clock):
    return StormClusterState(open_backend(), clock=clock)


def assignment():
    slot = ttypes.NodeInfo(node="sup-a", port={6700})
    return ttypes.Assignment(
        master_code_dir="/var/storm", node_host={"sup-a": "host-a"},
        executor_node_port={(1, 1): slot, (2, 2): slot},
        executor_start_time_secs={(1, 1): 1700000000, (2, 2): 1700000000},
        worker_resources={slot: ttypes.WorkerResources(0.0, 0.0, 0.0)}, owner="alice",
        total_shared_off_heap=None)


def storm_base(**fields):
    values = dict(name="wordcount", status=ttypes.TopologyStatus.ACTIVE, num_workers=1,
                  launch_time_secs=1700000000, owner="alice")
    values.update(fields)
    return ttypes.StormBase(**values)


def heartbeat(executors, time_secs=1700000000):
    stats = ttypes.ExecutorStats(emitted={}, transferred={}, rate=0.0,
                                 specific=ttypes.ExecutorSpecificStats(
                                     bolt=ttypes.BoltStats({}, {}, {}, {}, {})))
    return ttypes.ClusterWorkerHeartbeat(
        storm_id=TOPOLOGY, time_secs=time_secs, uptime_secs=10,
        executor_stats={ttypes.ExecutorInfo(s, e): stats for s, e in executors})


def test_startup_creates_storm_directories_holding_byte_seven(state):
    """Creating the state makes Storm's nine top-level directories, each holding 0x07."""
    for subtree in paths.STARTUP_SUBTREES:
        assert state.backend.get(subtree) == b"\x07", subtree


def test_set_assignment_stores_gzip_thrift_and_reads_back(state):
    """An Assignment is stored as gzip of Thrift binary and read back equal, with its version."""
    state.set_assignment(TOPOLOGY, assignment())
    raw = state.backend.get("/assignments/" + TOPOLOGY)
    assert raw == serialize(assignment())
    assert state.assignment_info(TOPOLOGY) == deserialize(raw, ttypes.Assignment)
    assert state.assignments() == [TOPOLOGY]
    assert state.assignment_info_with_version(TOPOLOGY).version == 0
    state.set_assignment(TOPOLOGY, assignment())
    versioned = state.assignment_info_with_version(TOPOLOGY)
    assert versioned.version == 1 and versioned.data.owner == "alice"
    assert state.assignment_version(TOPOLOGY) == 1


def test_missing_topology_reads_as_none(state):
    """Reads of a topology that has nothing stored return None (or empty)."""
    assert state.assignment_info("nope") is None
    assert state.assignment_info_with_version("nope") == (None, None)
    assert state.assignment_version("nope") is None
    assert state.storm_base("nope") is None
    assert state.credentials("nope") is None
    assert state.topology_log_config("nope") is None
    assert state.errors("nope", "c") == []
    assert state.last_error("nope", "c") is None
    assert state.get_worker_heartbeat("nope", "sup", 6700) is None


def test_activate_storm_writes_the_maps_storm_always_writes(state):
    """activate_storm writes component_executors and component_debug even when unset."""
    state.activate_storm(TOPOLOGY, storm_base())
    stored = state.storm_base(TOPOLOGY)
    assert stored.component_executors == {} and stored.component_debug == {}
    assert state.active_storms() == [TOPOLOGY]
    assert state.backend.get("/storms/" + TOPOLOGY) == serialize(stored)


def test_update_storm_merges_executors_and_debug_and_replaces_the_rest(state):
    """update_storm merges the two maps key by key and replaces other fields (None clears)."""
    state.activate_storm(TOPOLOGY, storm_base(
        component_executors={"spout": 1, "split": 2},
        component_debug={"split": ttypes.DebugOptions(enable=False, samplingpct=20.0)},
        prev_status=ttypes.TopologyStatus.INACTIVE))
    written = state.update_storm(TOPOLOGY, {
        "status": ttypes.TopologyStatus.INACTIVE,
        "component_executors": {"split": 4},
        "component_debug": {"split": ttypes.DebugOptions(enable=True),
                            "count": ttypes.DebugOptions(enable=True)},
        "prev_status": None})
    stored = state.storm_base(TOPOLOGY)
    assert stored == written
    assert stored.status == ttypes.TopologyStatus.INACTIVE
    assert stored.component_executors == {"spout": 1, "split": 4}
    assert stored.component_debug == {"split": ttypes.DebugOptions(True, 20.0),
                                      "count": ttypes.DebugOptions(True, 10.0)}
    assert stored.prev_status is None
    assert stored.name == "wordcount" and stored.num_workers == 1


def test_update_storm_refuses_missing_topologies_and_unknown_fields(state):
    """update_storm raises NoNodeError without a StormBase and ValueError for unknown keys."""
    with pytest.raises(NoNodeError):
        state.update_storm(TOPOLOGY, {"num_workers": 2})
    state.activate_storm(TOPOLOGY, storm_base())
    with pytest.raises(ValueError, match="not StormBase fields: nonsense"):
        state.update_storm(TOPOLOGY, {"nonsense": 1})
    assert state.storm_base(TOPOLOGY).num_workers == 1


def test_remove_storm_deletes_assignment_credentials_configs_and_base(state):
    """remove_storm deletes the five per-topology nodes cluster.clj's remove-storm! deletes."""
    state.set_assignment(TOPOLOGY, assignment())
    state.activate_storm(TOPOLOGY, storm_base())
    state.set_credentials(TOPOLOGY, {"k": "v"})
    state.set_topology_log_config(TOPOLOGY, ttypes.LogConfig(named_logger_level={}))
    state.set_worker_profile_request(TOPOLOGY, ttypes.ProfileRequest(
        ttypes.NodeInfo("host-a", {6700}), ttypes.ProfileAction.JSTACK_DUMP, 1))
    state.setup_heartbeats(TOPOLOGY)
    state.remove_storm(TOPOLOGY)
    for path in ("/assignments/", "/storms/", "/credentials/", "/logconfigs/",
                 "/profilerconfigs/"):
        assert not state.backend.exists(path + TOPOLOGY), path
    assert state.backend.exists("/workerbeats/" + TOPOLOGY)  # torn down separately
    state.remove_storm(TOPOLOGY)  # nothing left: no error


def test_remove_storm_base_deletes_only_the_base(state):
    """remove_storm_base leaves the assignment in place."""
    state.set_assignment(TOPOLOGY, assignment())
    state.activate_storm(TOPOLOGY, storm_base())
    state.remove_storm_base(TOPOLOGY)
    assert state.storm_base(TOPOLOGY) is None
    assert state.assignment_info(TOPOLOGY) is not None


def test_supervisor_heartbeat_is_ephemeral(open_backend):
    """A supervisor's heartbeat is readable by others and vanishes when its session closes."""
    supervisor = StormClusterState(open_backend())
    nimbus = StormClusterState(open_backend())
    info = ttypes.SupervisorInfo(time_secs=1700000000, hostname="host-a", assignment_id="sup-a",
                                 used_ports=[], meta=[6700, 6701], scheduler_meta={},
                                 uptime_secs=5, version="1.2.4", resources_map={})
    supervisor.supervisor_heartbeat("sup-a", info)
    supervisor.supervisor_heartbeat("sup-a", info)  # again: updates in place
    assert nimbus.supervisors() == ["sup-a"]
    assert nimbus.supervisor_info("sup-a") == info
    supervisor.close()
    assert nimbus.supervisors() == []
    assert nimbus.supervisor_info("sup-a") is None


def test_worker_heartbeats_feed_executor_beats(state):
    """executor_beats returns beats of assigned executors, read from their assigned worker."""
    state.setup_heartbeats(TOPOLOGY)
    assert state.heartbeat_storms() == [TOPOLOGY]
    assert state.worker_heartbeat(TOPOLOGY, "sup-a", 6700, heartbeat([(1, 1), (3, 3)], 50))
    assert state.worker_heartbeat(TOPOLOGY, "sup-b", 6700, heartbeat([(2, 2)], 60))
    assert state.get_worker_heartbeat(TOPOLOGY, "sup-a", 6700).time_secs == 50
    slot_a, slot_b = ttypes.NodeInfo("sup-a", {6700}), ttypes.NodeInfo("sup-b", {6700})
    beats = state.executor_beats(TOPOLOGY, {(1, 1): slot_a, (2, 2): slot_a, (4, 4): slot_b})
    assert set(beats) == {(1, 1)}  # (2,2) reported by the wrong worker; (4,4) by nobody
    assert beats[(1, 1)].time_secs == 50 and beats[(1, 1)].uptime == 10
    state.remove_worker_heartbeat(TOPOLOGY, "sup-a", 6700)
    assert state.get_worker_heartbeat(TOPOLOGY, "sup-a", 6700) is None
    state.teardown_heartbeats(TOPOLOGY)
    assert state.heartbeat_storms() == []


def test_worker_heartbeat_without_executor_stats_writes_nothing(state):
    """As 1.2.4, a heartbeat with no executor stats is not written."""
    assert not state.worker_heartbeat(TOPOLOGY, "sup-a", 6700, heartbeat([]))
    assert state.get_worker_heartbeat(TOPOLOGY, "sup-a", 6700) is None


def test_report_error_keeps_the_ten_newest_and_the_last_error(state, clock):
    """report_error adds e<seq> nodes, keeps the 10 newest and overwrites <comp>-last-error."""
    state.setup_errors(TOPOLOGY)
    for i in range(12):
        clock.now = 1700000000 + i
        state.report_error(TOPOLOGY, "split", "host-a", 6700, "boom %d" % i)
    children = state.backend.get_children("/errors/%s/split" % TOPOLOGY)
    assert sorted(children) == ["e%010d" % i for i in range(2, 12)]
    errors = state.errors(TOPOLOGY, "split")
    assert [e.error for e in errors] == ["boom %d" % i for i in range(11, 1, -1)]
    last = state.last_error(TOPOLOGY, "split")
    assert last == ttypes.ErrorInfo("boom 11", 1700000011, "host-a", 6700)
    assert state.backend.get("/errors/%s/split-last-error" % TOPOLOGY) == serialize(last)
    assert state.error_topologies() == [TOPOLOGY]
    state.teardown_topology_errors(TOPOLOGY)
    assert state.error_topologies() == []


def test_report_error_stores_an_exceptions_traceback_under_the_encoded_component(state):
    """An exception is stored as its traceback text, under the URL-encoded component id."""
    try:
        raise RuntimeError("kaput")
    except RuntimeError as e:
        state.report_error(TOPOLOGY, "my bolt", "host-a", 6700, e)
    assert sorted(state.backend.get_children("/errors/" + TOPOLOGY)) == [
        "my%20bolt", "my%20bolt-last-error"]
    error = state.last_error(TOPOLOGY, "my bolt").error
    assert error.startswith("Traceback") and "RuntimeError: kaput" in error


def test_credentials_and_log_config_round_trip(state):
    """Credentials (from a dict) and LogConfig are stored and read back."""
    state.set_credentials(TOPOLOGY, {"token": "s3cret"})
    assert state.credentials(TOPOLOGY) == ttypes.Credentials(creds={"token": "s3cret"})
    state.set_credentials(TOPOLOGY, None)
    assert state.credentials(TOPOLOGY).creds == {}
    log_config = ttypes.LogConfig(named_logger_level={
        "ROOT": ttypes.LogLevel(action=ttypes.LogLevelAction.UPDATE, target_log_level="DEBUG",
                                reset_log_level_timeout_secs=30)})
    state.set_topology_log_config(TOPOLOGY, log_config)
    assert state.topology_log_config(TOPOLOGY) == log_config


def test_profile_requests_are_stored_per_host_port_and_action(state):
    """Profile requests live at <host>_<port>_<ACTION> and can be listed, filtered, deleted."""
    jstack = ttypes.ProfileRequest(ttypes.NodeInfo("host-a", {6700}),
                                   ttypes.ProfileAction.JSTACK_DUMP, 1700000000000)
    heap = ttypes.ProfileRequest(ttypes.NodeInfo("host-b", {6701}),
                                 ttypes.ProfileAction.JMAP_DUMP, 1700000000000)
    state.set_worker_profile_request(TOPOLOGY, jstack)
    state.set_worker_profile_request(TOPOLOGY, heap)
    assert sorted(state.backend.get_children("/profilerconfigs/" + TOPOLOGY)) == [
        "host-a_6700_JSTACK_DUMP", "host-b_6701_JMAP_DUMP"]
    assert len(state.get_topology_profile_requests(TOPOLOGY)) == 2
    assert state.get_worker_profile_requests(TOPOLOGY, "host-b", 6701) == [heap]
    state.delete_topology_profile_requests(TOPOLOGY, heap)
    assert state.get_topology_profile_requests(TOPOLOGY) == [jstack]


def test_backpressure_is_on_while_a_worker_timestamp_is_fresh(state, clock):
    """A throttled worker's 8-byte ms timestamp turns topology backpressure on until it ages."""
    state.setup_backpressure(TOPOLOGY)
    assert state.backpressure_topologies() == [TOPOLOGY]
    assert not state.topology_backpressure(TOPOLOGY, 30000)
    now_ms = int(clock.now * 1000)
    state.worker_backpressure(TOPOLOGY, "sup-a", 6700, now_ms)
    raw = state.backend.get("/backpressure/%s/sup-a-6700" % TOPOLOGY)
    assert raw == now_ms.to_bytes(8, "big")
    assert state.topology_backpressure(TOPOLOGY, 30000)
    clock.now += 31
    assert not state.topology_backpressure(TOPOLOGY, 30000)
    state.worker_backpressure(TOPOLOGY, "sup-b", 6700, 0)  # not throttled: nothing written
    assert state.backend.get_children("/backpressure/" + TOPOLOGY) == ["sup-a-6700"]
    state.remove_worker_backpressure(TOPOLOGY, "sup-a", 6700)
    assert state.backend.get_children("/backpressure/" + TOPOLOGY) == []
    state.remove_backpressure(TOPOLOGY)
    assert state.backpressure_topologies() == []


def test_nimbus_hosts_are_ephemeral_nimbus_summaries(open_backend):
    """add_nimbus_host registers /nimbuses/<host>:<port>, gone when the Nimbus's session ends."""
    nimbus = StormClusterState(open_backend())
    ui = StormClusterState(open_backend())
    summary = ttypes.NimbusSummary(host="nimbus1", port=6627, uptime_secs=1700000000,
                                   isLeader=False, version="1.2.4")
    nimbus.add_nimbus_host("nimbus1:6627", summary)
    assert ui.nimbuses() == [summary]
    assert ui.backend.get_children("/nimbuses") == ["nimbus1:6627"]
    nimbus.close()
    assert ui.nimbuses() == []


def test_setup_blobstore_replaces_this_nimbuses_version_only(open_backend):
    """setup_blobstore leaves one ephemeral <host>:<port>-<version> per Nimbus, with empty data;
    blobstore_info tells a missing key (None) from a key nobody holds ([])."""
    state = StormClusterState(open_backend())
    other = StormClusterState(open_backend())
    state.setup_blobstore("t-1-stormjar.jar", "nimbus1:6627", 1)
    other.setup_blobstore("t-1-stormjar.jar", "nimbus1:66270", 1)  # shares the prefix
    state.setup_blobstore("t-1-stormjar.jar", "nimbus1:6627", 2)
    assert sorted(state.blobstore_info("t-1-stormjar.jar")) == ["nimbus1:6627-2",
                                                                "nimbus1:66270-1"]
    assert state.backend.get("/blobstore/t-1-stormjar.jar") == b"\x07"
    assert state.backend.get("/blobstore/t-1-stormjar.jar/nimbus1:6627-2") == b""
    assert state.active_keys() == ["t-1-stormjar.jar"] == state.blobstore()
    assert state.blobstore_info("no-such-key") is None
    state.close()
    assert other.blobstore_info("t-1-stormjar.jar") == ["nimbus1:66270-1"]
    other.remove_blobstore_key("t-1-stormjar.jar")
    assert other.active_keys() == []
    other.backend.mkdirs("/blobstore/held-by-nobody")
    assert other.blobstore_info("held-by-nobody") == []


def test_blob_replication_counts_the_nimbuses_holding_a_key(open_backend):
    """Each nimbus's <host>:<port>-<version> child counts once; a session's end drops its
    copies; a key without a node has no copies."""
    state = StormClusterState(open_backend())
    other = StormClusterState(open_backend())
    assert state.blob_replication("t-1-stormcode.ser") == 0
    state.setup_blobstore("t-1-stormcode.ser", "nimbus1:6627", 1)
    other.setup_blobstore("t-1-stormcode.ser", "nimbus2:6627", 1)
    other.setup_blobstore("t-1-stormcode.ser", "nimbus2:6627", 2)
    assert state.blob_replication("t-1-stormcode.ser") == 2
    other.close()
    assert state.blob_replication("t-1-stormcode.ser") == 1
    state.close()


def test_max_sequence_number_is_a_four_byte_int(state):
    """The key sequence number is a 4-byte big-endian int under a parent Curator made empty."""
    assert state.get_max_sequence_number("k1") is None
    state.set_max_sequence_number("k1", 1)
    assert state.backend.get("/blobstoremaxkeysequencenumber/k1") == b"\x00\x00\x00\x01"
    assert state.backend.get("/blobstoremaxkeysequencenumber") == b""
    state.set_max_sequence_number("k1", 2)
    assert state.get_max_sequence_number("k1") == 2
    state.remove_key_version("k1")
    assert state.get_max_sequence_number("k1") is None


BAD_NAMES = ["../x", "a/b", "", ".", ".."]


@pytest.mark.parametrize("bad", BAD_NAMES)
def test_bad_names_raise_value_error_and_write_nothing(state, bad, tree_of):
    """Every writing operation refuses a bad id, key or host before changing anything."""
    writes = [
        lambda: state.set_assignment(bad, assignment()),
        lambda: state.activate_storm(bad, storm_base()),
        lambda: state.update_storm(bad, {"num_workers": 2}),
        lambda: state.remove_storm(bad),
        lambda: state.remove_storm_base(bad),
        lambda: state.supervisor_heartbeat(bad, ttypes.SupervisorInfo(1, "h")),
        lambda: state.worker_heartbeat(bad, "sup", 6700, heartbeat([(1, 1)])),
        lambda: state.worker_heartbeat(TOPOLOGY, bad, 6700, heartbeat([(1, 1)])),
        lambda: state.remove_worker_heartbeat(bad, "sup", 6700),
        lambda: state.setup_heartbeats(bad),
        lambda: state.teardown_heartbeats(bad),
        lambda: state.setup_errors(bad),
        lambda: state.report_error(bad, "c", "h", 1, "e"),
        lambda: state.teardown_topology_errors(bad),
        lambda: state.set_credentials(bad, {}),
        lambda: state.set_topology_log_config(bad, ttypes.LogConfig()),
        lambda: state.set_worker_profile_request(bad, ttypes.ProfileRequest(
            ttypes.NodeInfo("h", {1}), ttypes.ProfileAction.JMAP_DUMP)),
        lambda: state.setup_backpressure(bad),
        lambda: state.remove_backpressure(bad),
        lambda: state.worker_backpressure(bad, "sup", 6700, 1),
        lambda: state.add_nimbus_host(bad, ttypes.NimbusSummary("h", 1, 1, False, "v")),
        lambda: state.setup_blobstore(bad, "nimbus1:6627", 1),
        lambda: state.setup_blobstore("key", bad, 1),
        lambda: state.remove_blobstore_key(bad),
        lambda: state.remove_key_version(bad),
        lambda: state.set_max_sequence_number(bad, 1),
    ]
    before = tree_of(state.backend)
    for write in writes:
        with pytest.raises(ValueError):
            write()
    assert tree_of(state.backend) == before


def test_errors_of_the_empty_component_stay_apart_from_the_others(state):
    """The empty component's errors are the e-nodes of the topology's errors root (Storm's
    layout); reading and pruning them never touch another component's nodes."""
    state.report_error(TOPOLOGY, "spout", "h", 1, "spout failed")
    for i in range(12):
        state.report_error(TOPOLOGY, "", "h", 1, "empty %d" % i)
    assert [e.error for e in state.errors(TOPOLOGY, "spout")] == ["spout failed"]
    assert len(state.errors(TOPOLOGY, "")) == 10
    assert state.last_error(TOPOLOGY, "").error == "empty 11"
    assert state.last_error(TOPOLOGY, "spout").error == "spout failed"


def test_a_2x_state_reads_errors_where_2x_workers_write_them(open_backend, clock):
    """In 2.x a component's error directory is named by Java's URLEncoder ("a b" is a+b), so
    the errors a 2.8.8 worker reports are the ones read back."""
    state = StormClusterState(open_backend(), clock=clock, compat="2.x")
    state.report_error(TOPOLOGY, "a b", "h", 1, "spaced out")
    assert sorted(state.backend.get_children("/errors/" + TOPOLOGY)) == ["a+b",
                                                                         "a+b-last-error"]
    assert [e.error for e in state.errors(TOPOLOGY, "a b")] == ["spaced out"]
    assert state.last_error(TOPOLOGY, "a b").error == "spaced out"


def test_a_struct_missing_required_fields_writes_nothing(state, tree_of):
    """A struct that cannot be serialized is refused before any node is created."""
    before = tree_of(state.backend)
    with pytest.raises(ValueError):
        state.set_assignment(TOPOLOGY, ttypes.Assignment())
    with pytest.raises(ValueError):
        state.activate_storm(TOPOLOGY, ttypes.StormBase(name="x"))
    assert tree_of(state.backend) == before


def expire_session(backend):
    """Make ZooKeeper expire ``backend``'s session, as after a long network partition.

    A second client joins the same session and closes it: the server ends the session, and
    the first client then reconnects with a new one.
    """
    from kazoo.client import KazooClient
    client = backend._client
    twin = KazooClient(hosts=backend.hosts, client_id=client.client_id)
    twin.start(timeout=10)
    twin.stop()
    twin.close()


def stat_owner(state, path):
    """The ZooKeeper session owning the ephemeral node at ``path``."""
    return state.backend._client.exists(path).ephemeralOwner


@pytest.mark.zookeeper
def test_nimbus_host_is_registered_again_after_the_session_expires(zookeeper_conf,
                                                                   wait_until):
    """After an expired session, add_nimbus_host's node comes back, as Storm's listener does."""
    from pynimbus.cluster import make_backend
    nimbus = StormClusterState(make_backend(zookeeper_conf))
    observer = StormClusterState(make_backend(zookeeper_conf))
    try:
        summary = ttypes.NimbusSummary("nimbus1", 6627, 1700000000, False, "1.2.4")
        nimbus.add_nimbus_host("nimbus1:6627", summary)
        old_session = nimbus.backend._client.client_id[0]

        def owned_by_a_new_session():
            stat = observer.backend._client.exists("/nimbuses/nimbus1:6627")
            return stat is not None and stat.ephemeralOwner not in (0, old_session)

        expire_session(nimbus.backend)
        wait_until(owned_by_a_new_session, timeout=20,
                   what="the nimbus entry to be re-created by the new session")
        new_session = nimbus.backend._client.client_id[0]
        assert stat_owner(observer, "/nimbuses/nimbus1:6627") == new_session
        assert observer.nimbuses() == [summary]
    finally:
        nimbus.close()
        observer.close()


@pytest.mark.zookeeper
def test_held_blobs_are_registered_again_after_the_session_expires(zookeeper_conf,
                                                                   wait_until):
    """setup_blobstore's ephemeral ``/blobstore/<key>/<host:port>-<version>`` comes back in
    the new session at its latest version; a key deleted meanwhile is not made again, and a
    key this nimbus forgot (its local copy deleted) is not registered."""
    from pynimbus.cluster import make_backend
    nimbus = StormClusterState(make_backend(zookeeper_conf))
    observer = StormClusterState(make_backend(zookeeper_conf))
    try:
        for key in ("kept", "deleted", "forgotten"):
            nimbus.setup_blobstore(key, "nimbus1:6627", 1)
        nimbus.setup_blobstore("kept", "nimbus1:6627", 2)
        observer.remove_blobstore_key("deleted")
        nimbus.forget_held_blob("forgotten")
        old_session = nimbus.backend._client.client_id[0]
        expire_session(nimbus.backend)

        def kept_by_a_new_session():
            stat = observer.backend._client.exists("/blobstore/kept/nimbus1:6627-2")
            return stat is not None and stat.ephemeralOwner not in (0, old_session)

        wait_until(kept_by_a_new_session, timeout=20,
                   what="the held blob to be registered again by the new session")
        assert observer.blobstore_info("kept") == ["nimbus1:6627-2"]
        assert observer.blobstore_info("deleted") is None
        assert observer.blobstore_info("forgotten") == []
    finally:
        nimbus.close()
        observer.close()


def test_batched_reads_return_what_single_reads_return(state):
    """storm_bases, assignment_infos and supervisor_infos equal the one-by-one reads."""
    base = ttypes.StormBase(name="a", status=ttypes.TopologyStatus.ACTIVE, num_workers=1)
    state.activate_storm("a-1-1", base)
    state.set_assignment("a-1-1", ttypes.Assignment(master_code_dir="/x"))
    state.supervisor_heartbeat("s1", ttypes.SupervisorInfo(time_secs=1, hostname="h"))
    assert state.storm_bases(["a-1-1", "missing-1-1"]) == {"a-1-1": state.storm_base("a-1-1")}
    assert state.assignment_infos(["missing-1-1", "a-1-1"]) == {
        "a-1-1": state.assignment_info("a-1-1")}
    assert state.supervisor_infos(["s1", "s2"]) == {"s1": state.supervisor_info("s1")}
    assert state.storm_bases([]) == {}
