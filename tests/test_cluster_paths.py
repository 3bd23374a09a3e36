"""Unit tests of pynimbus.cluster.paths: Storm 1.2.4's paths and the name checks."""

import pytest

from pynimbus.cluster import paths

BAD_NAMES = ["../x", "a/b", "", ".", "..", "/", None, 7]


def test_startup_subtrees_are_storms_nine_directories():
    """Startup creates the nine directories mk-storm-cluster-state creates, in its order."""
    assert paths.STARTUP_SUBTREES == (
        "/assignments", "/storms", "/supervisors", "/workerbeats", "/errors", "/blobstore",
        "/nimbuses", "/logconfigs", "/backpressure")


@pytest.mark.parametrize("path, expected", [
    (paths.assignment_path("wc-1-1700000000"), "/assignments/wc-1-1700000000"),
    (paths.storm_path("wc-1-1700000000"), "/storms/wc-1-1700000000"),
    (paths.supervisor_path("sup-a1"), "/supervisors/sup-a1"),
    (paths.workerbeat_storm_root("t-1"), "/workerbeats/t-1"),
    (paths.workerbeat_path("t-1", "sup-a1", 6700), "/workerbeats/t-1/sup-a1-6700"),
    (paths.backpressure_storm_root("t-1"), "/backpressure/t-1"),
    (paths.backpressure_path("t-1", "sup-a1", 6701), "/backpressure/t-1/sup-a1-6701"),
    (paths.backpressure_full_path("t-1", "sup-a1-6701"), "/backpressure/t-1/sup-a1-6701"),
    (paths.error_storm_root("t-1"), "/errors/t-1"),
    (paths.error_path("t-1", "split"), "/errors/t-1/split"),
    (paths.last_error_path("t-1", "split"), "/errors/t-1/split-last-error"),
    (paths.credentials_path("t-1"), "/credentials/t-1"),
    (paths.log_config_path("t-1"), "/logconfigs/t-1"),
    (paths.profiler_config_path("t-1"), "/profilerconfigs/t-1"),
    (paths.profiler_config_path("t-1", "host1", 6700, "JSTACK_DUMP"),
     "/profilerconfigs/t-1/host1_6700_JSTACK_DUMP"),
    (paths.blobstore_path("t-1-stormjar.jar"), "/blobstore/t-1-stormjar.jar"),
    (paths.blobstore_nimbus_path("t-1-stormjar.jar", "nimbus1:6627", 3),
     "/blobstore/t-1-stormjar.jar/nimbus1:6627-3"),
    (paths.blobstore_max_key_sequence_number_path("k"), "/blobstoremaxkeysequencenumber/k"),
    (paths.nimbus_path("nimbus1:6627"), "/nimbuses/nimbus1:6627"),
    (paths.leader_lock_path(), "/leader-lock"),
])
def test_paths_match_storm_1_2_4(path, expected):
    """Each path function builds the exact path cluster.clj builds."""
    assert path == expected


@pytest.mark.parametrize("component, encoded", [
    ("split", "split"),
    ("my bolt", "my%20bolt"),
    ("a+b~c.d_e-f", "a+b~c.d_e-f"),
    ("a/b", "a%2Fb"),
    ("spout*", "spout%2A"),
    ("zählen", "z%C3%A4hlen"),
    ("__acker", "__acker"),
])
def test_component_ids_are_url_encoded_like_ring_codec(component, encoded):
    """Component ids in error paths are encoded as 1.2.4's ring-codec url-encode does."""
    assert paths.error_path("t-1", component) == "/errors/t-1/" + encoded
    assert paths.last_error_path("t-1", component) == "/errors/t-1/%s-last-error" % encoded


@pytest.mark.parametrize("bad", BAD_NAMES)
@pytest.mark.parametrize("make_path", [
    paths.assignment_path, paths.storm_path, paths.supervisor_path, paths.credentials_path,
    paths.log_config_path, paths.profiler_config_path, paths.workerbeat_storm_root,
    paths.error_storm_root, paths.backpressure_storm_root, paths.blobstore_path,
    paths.blobstore_max_key_sequence_number_path, paths.nimbus_path,
])
def test_untrusted_names_outside_one_segment_raise_value_error(make_path, bad):
    """A name that is empty, holds '/', or is '.'/'..' (or not a string) is refused."""
    with pytest.raises(ValueError):
        make_path(bad)


@pytest.mark.parametrize("bad", BAD_NAMES)
def test_names_inside_composite_paths_are_checked(bad):
    """Node ids, hosts and nimbus ids inside composite names are checked as well."""
    with pytest.raises(ValueError):
        paths.workerbeat_path("t-1", bad, 6700)
    with pytest.raises(ValueError):
        paths.backpressure_path(bad, "sup", 6700)
    with pytest.raises(ValueError):
        paths.profiler_config_path("t-1", bad, 6700, "JMAP_DUMP")
    with pytest.raises(ValueError):
        paths.blobstore_nimbus_path("key", bad, 1)


def test_the_empty_component_errors_are_in_the_topology_errors_root():
    """Storm drops the empty segment: "" has its errors in /errors/<id>, its last error at
    /errors/<id>/-last-error."""
    assert paths.error_path("t-1", "") == "/errors/t-1"
    assert paths.last_error_path("t-1", "") == "/errors/t-1/-last-error"


@pytest.mark.parametrize("component,segment", [(".", "%2E"), ("..", "%2E%2E")])
def test_dot_components_encode_to_a_segment_no_other_id_has(component, segment):
    """"." and ".." (which url-encoding keeps) become %2E segments; their last-error nodes
    are Storm's, which ZooKeeper accepts."""
    assert paths.error_path("t-1", component) == "/errors/t-1/" + segment
    assert paths.last_error_path("t-1", component) == "/errors/t-1/%s-last-error" % component
    assert paths.url_encode("%2E") == "%252E"


def test_error_nodes_are_e_and_a_sequence_number():
    """Only e<digits> children of an error directory are errors."""
    assert paths.is_error_node("e0000000012")
    for name in ("-last-error", "spout", "spout-last-error", "e", "e12x", "e\u0661"):
        assert not paths.is_error_node(name), name


@pytest.mark.parametrize("port", ["6700", -1, 6700.0, None, True])
def test_ports_must_be_non_negative_ints(port):
    """Ports in paths must be ints, so '6700' and 6700.0 cannot make different paths."""
    with pytest.raises(ValueError):
        paths.workerbeat_path("t-1", "sup", port)


def test_the_error_message_names_what_was_wrong():
    """The ValueError says which name was bad and why."""
    with pytest.raises(ValueError, match=r"topology id '\.\./x' must not contain '/'"):
        paths.assignment_path("../x")


def test_parent_and_join_path():
    """parent_path and join_path follow util.clj's parent-path and string joining."""
    assert paths.parent_path("/a/b/c") == "/a/b"
    assert paths.parent_path("/a") == "/"
    assert paths.join_path("/", "a") == "/a"
    assert paths.join_path("/a", "b") == "/a/b"
    with pytest.raises(ValueError):
        paths.join_path("/a", "..")


@pytest.mark.parametrize("component,segment_1x,segment_2x", [
    ("a b", "a%20b", "a+b"), ("x~y*z", "x~y%2Az", "x%7Ey*z"), ("a+b", "a+b", "a%2Bb"),
    ("a/b", "a%2Fb", "a%2Fb"), ("snow\u2603", "snow%E2%98%83", "snow%E2%98%83")])
def test_error_paths_encode_components_as_each_generation(component, segment_1x, segment_2x):
    """1.2.4 url-encodes with ring-codec, 2.8.8 with Java's URLEncoder (space is +)."""
    assert paths.error_path("t-1", component) == "/errors/t-1/" + segment_1x
    assert paths.error_path("t-1", component, "2.x") == "/errors/t-1/" + segment_2x
    assert paths.last_error_path("t-1", component, "2.x") == \
        "/errors/t-1/%s-last-error" % segment_2x
