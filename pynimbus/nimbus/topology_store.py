"""A topology's three blobs: the jar, the stored conf and the stored (normalized) topology.

Ports of nimbus.clj (1.2.4) ``setup-storm-code``, ``read-storm-conf-as-nimbus``,
``try-read-storm-conf``, ``try-read-storm-topology`` and ``get-key-list-from-id``, with the keys
and encodings of ``ConfigUtils.masterStorm*Key``: ``<id>-stormjar.jar`` (raw bytes),
``<id>-stormconf.ser`` (JSON, gzip-compressed, as ``Utils.toCompressedJsonConf``) and
``<id>-stormcode.ser`` (the cluster-state value encoding: gzip of Thrift binary).
Blocking: call from a thread.
"""


from pynimbus.cluster.serialization import deserialize, serialize
from pynimbus.common.stored_topology import (
    master_stormcode_key, master_stormconf_key, master_stormjar_key)
from pynimbus.common.stored_topology import from_compressed_json_conf, to_compressed_json_conf
from pynimbus.generated.storm.ttypes import (
    AuthorizationException, KeyNotFoundException, NotAliveException, StormTopology)


def topology_keys(storm_id, with_jar=True):
    """Port of ``get-key-list-from-id``: code, jar (unless local mode) and conf keys."""
    keys = [master_stormcode_key(storm_id)]
    if with_jar:
        keys.append(master_stormjar_key(storm_id))
    keys.append(master_stormconf_key(storm_id))
    return keys


def setup_storm_code(blob_store, storm_id, jar_path, storm_conf, topology):
    """Port of ``setup-storm-code``: store the jar (if any), the topology and its conf.

    Returns the keys written, so that a failed submission can delete them again.
    """
    written = []
    try:
        if jar_path is not None:
            blob_store.create_blob_from_file(master_stormjar_key(storm_id), jar_path)
            written.append(master_stormjar_key(storm_id))
        blob_store.create_blob_from_bytes(master_stormcode_key(storm_id), serialize(topology))
        written.append(master_stormcode_key(storm_id))
        blob_store.create_blob_from_bytes(master_stormconf_key(storm_id),
                                          to_compressed_json_conf(storm_conf))
        written.append(master_stormconf_key(storm_id))
    except BaseException:
        delete_blobs(blob_store, written)
        raise
    return written


def delete_blobs(blob_store, keys):
    """Delete ``keys`` from the blob store, ignoring those already gone."""
    for key in keys:
        try:
            blob_store.delete_blob(key)
        except KeyNotFoundException:
            pass


def read_storm_conf(blob_store, storm_id):
    """Port of ``try-read-storm-conf``: the stored conf, or NotAliveException(id)."""
    try:
        return from_compressed_json_conf(blob_store.read_blob(master_stormconf_key(storm_id)))
    except (KeyNotFoundException, AuthorizationException):  # unknown, or not even a valid id
        raise NotAliveException(msg=str(storm_id))


def read_storm_topology(blob_store, storm_id):
    """Port of ``try-read-storm-topology``: the stored (normalized user) topology."""
    try:
        return deserialize(blob_store.read_blob(master_stormcode_key(storm_id)), StormTopology)
    except (KeyNotFoundException, AuthorizationException):
        raise NotAliveException(msg=str(storm_id))
