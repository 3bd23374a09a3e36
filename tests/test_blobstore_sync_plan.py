# -*- test-case-name: tests.test_blobstore_sync_plan -*-
"""Tests for pynimbus.blobstore.sync_plan and the latest-version helpers of
pynimbus.blobstore.sequence: which blobs a nimbus copies, refreshes or drops, and whether it
holds enough to lead (pure, literal data)."""

from pynimbus.blobstore.sequence import (
    latest_sequence_number, nimbodes_with_latest_sequence_number)
from pynimbus.blobstore.sync_plan import (
    blob_sync_plan, missing_dependencies, missing_topology_blobs, needs_update,
    topology_blob_keys)
from pynimbus.generated.storm.ttypes import StormTopology

ME = "nimbus-b:6627"
LEADER = "nimbus-a:6627"


def test_latest_sequence_number_is_the_highest_child_and_zero_without_children():
    """The highest -<seq> among the children; 0 for none; unreadable children are skipped."""
    assert latest_sequence_number([LEADER + "-3", ME + "-2", "garbage"]) == 3
    assert latest_sequence_number([]) == 0
    assert latest_sequence_number(None) == 0


def test_nimbodes_with_latest_sequence_number_name_only_the_newest_holders():
    """Holders of the latest version, sorted, with 2.x host:port:tlsPort names kept whole."""
    children = ["n2:6627:0-4", LEADER + "-4", ME + "-3"]
    assert nimbodes_with_latest_sequence_number(children) == (["n2:6627:0", LEADER], 4)
    assert nimbodes_with_latest_sequence_number([]) == ([], 0)


def test_plan_deletes_unlisted_downloads_missing_and_checks_the_rest():
    """Local keys ZooKeeper dropped are deleted, listed keys not held are downloaded, the
    keys in both are checked for newer versions."""
    plan = blob_sync_plan(["gone", "both", "also"], ["both", "new-2", "new-1", "also"])
    assert plan.to_delete == ["gone"]
    assert plan.to_check == ["also", "both"]
    assert plan.to_download == ["new-1", "new-2"]


def test_needs_update_only_when_another_nimbus_holds_a_newer_version():
    """Up to date when this nimbus is among the latest holders or nobody holds the key."""
    assert needs_update([LEADER + "-2", ME + "-1"], ME) == [LEADER]
    assert needs_update([LEADER + "-2", ME + "-2"], ME) == []
    assert needs_update([ME + "-1"], ME) == []
    assert needs_update([], ME) == []
    # a port of the same host is another nimbus (Storm would compare host names only)
    assert needs_update(["nimbus-b:6628-2", ME + "-1"], ME) == ["nimbus-b:6628"]


def test_topology_blob_keys_are_jar_code_and_conf():
    assert topology_blob_keys(["t-1-1"]) == {
        "t-1-1-stormjar.jar", "t-1-1-stormcode.ser", "t-1-1-stormconf.ser"}


def test_a_nimbus_missing_an_active_topologys_blob_may_not_lead():
    """Every active topology's code, conf and (when /blobstore lists it) jar must be local."""
    listed = ["t-1-1-stormjar.jar", "t-1-1-stormcode.ser", "t-1-1-stormconf.ser",
              "u-2-2-stormcode.ser", "u-2-2-stormconf.ser"]
    assert missing_topology_blobs(["t-1-1", "u-2-2"], listed, listed) == []
    assert missing_topology_blobs(["t-1-1", "u-2-2"], listed[1:], listed) == [
        "t-1-1-stormjar.jar"]
    assert missing_topology_blobs(["t-1-1"], ["dep-x"], listed) == [
        "t-1-1-stormcode.ser", "t-1-1-stormconf.ser", "t-1-1-stormjar.jar"]


def test_a_topology_without_a_jar_needs_only_its_code_and_conf():
    """A submission without a jar (local mode style) never had a jar blob to hold."""
    local = ["u-2-2-stormcode.ser", "u-2-2-stormconf.ser"]
    assert missing_topology_blobs(["u-2-2"], local, local) == []


def test_missing_dependencies_are_the_dependency_keys_not_held():
    """Dependency jars and artifacts of the stored topologies must be local too."""
    topologies = [StormTopology(spouts={}, bolts={}, state_spouts={},
                                dependency_jars=["dep-a.jar"], dependency_artifacts=["dep-b"]),
                  StormTopology(spouts={}, bolts={}, state_spouts={})]
    assert missing_dependencies(topologies, ["dep-a.jar"]) == ["dep-b"]
    assert missing_dependencies(topologies, ["dep-a.jar", "dep-b"]) == []
