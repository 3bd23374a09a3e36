"""What a nimbus must fetch, refresh or drop to hold every blob the leader holds: pure.

Ports of the set logic of ``BlobSynchronizer.syncBlobs`` and
``BlobStoreUtils.updateKeyForBlobStore`` (Storm 1.2.4; 2.8.8's ``LocalFsBlobStoreSynchronizer``
is the same), and of the check a nimbus makes on gaining leadership (1.2.4
``Zookeeper.leaderLatchListenerImpl`` ``isLeader``, 2.8.8 ``LeaderListenerCallback
.leaderCallBack``).  :mod:`pynimbus.blobstore.synchronizer` does the I/O.

Deliberate difference: a nimbus is named by ``host:port`` everywhere (Storm compares host
names only, so two nimbuses on one machine take each other's copies for their own).
"""

import collections

from pynimbus.blobstore.sequence import nimbodes_with_latest_sequence_number

STORM_JAR_SUFFIX = "-stormjar.jar"
STORM_CODE_SUFFIX = "-stormcode.ser"
STORM_CONF_SUFFIX = "-stormconf.ser"
_TOPOLOGY_SUFFIXES = (STORM_JAR_SUFFIX, STORM_CODE_SUFFIX, STORM_CONF_SUFFIX)

BlobSyncPlan = collections.namedtuple("BlobSyncPlan", "to_delete to_check to_download")
BlobSyncPlan.__doc__ = """Sorted keys: local blobs ZooKeeper no longer lists (delete), local
blobs ZooKeeper lists (download again if the leader holds a newer version), and blobs only
ZooKeeper lists (download)."""


def blob_sync_plan(local_keys, zookeeper_keys):
    """Port of ``BlobSynchronizer``'s ``getKeySetToDelete``, the keys ``updateKeySetForBlobStore``
    walks, and ``getKeySetToDownload``.

    Deliberate difference: keys just deleted are not checked for updates (Storm walks every
    local key, the deleted ones included, and each finds its node gone).
    """
    local, listed = set(local_keys), set(zookeeper_keys)
    return BlobSyncPlan(to_delete=sorted(local - listed), to_check=sorted(local & listed),
                        to_download=sorted(listed - local))


def needs_update(state_infos, own_host_port):
    """Port of ``updateKeyForBlobStore``'s test: the key has holders and this nimbus is not
    among those of the latest version.  Returns the ``host:port`` to copy from (latest
    version first), or [] when this nimbus is up to date."""
    holders, _latest = nimbodes_with_latest_sequence_number(state_infos)
    if not holders or own_host_port in holders:
        return []
    return holders


def topology_blob_keys(storm_ids):
    """Port of ``populateTopologyBlobKeys``: the jar, code and conf keys of each topology."""
    return {storm_id + suffix for storm_id in storm_ids for suffix in _TOPOLOGY_SUFFIXES}


def is_topology_blob_key(key):
    """Port of ``filterTopologyBlobKeys``' test."""
    return key.endswith(_TOPOLOGY_SUFFIXES)


def missing_topology_blobs(active_storm_ids, local_keys, listed_keys):
    """Port of ``isLeader``'s ``diffTopology``: sorted topology keys of active topologies this
    nimbus does not hold.

    Deliberate difference: a topology's jar is required only when ``/blobstore`` lists it
    (``listed_keys``): pynimbus accepts a submission without a jar, as Storm's local mode, and
    such a topology has only its code and conf.
    """
    listed = set(listed_keys)
    required = {key for key in topology_blob_keys(active_storm_ids)
                if not key.endswith(STORM_JAR_SUFFIX) or key in listed}
    local_topology_keys = {key for key in local_keys if is_topology_blob_key(key)}
    return sorted(required - local_topology_keys)


def missing_dependencies(topologies, local_keys):
    """Port of ``isLeader``'s ``diffDependencies``: sorted dependency jar and artifact keys of
    ``topologies`` (their stored StormTopology structs) this nimbus does not hold."""
    needed = set()
    for topology in topologies:
        needed.update(topology.dependency_jars or ())
        needed.update(topology.dependency_artifacts or ())
    return sorted(needed - set(local_keys))
