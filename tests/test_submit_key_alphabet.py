"""A topology name Storm allows but no blob key may start with (issue 8, "Nimbus hardening",
finding 6): 1.2.4 answers AuthorizationException "<id>-stormconf.ser does not appear to be a
valid blob key" after writing the topology's credentials, 2.8.3 an INTERNAL_ERROR.  pynimbus
gives 1.2.4's answer in both generations (a deliberate difference in 2.x, listed in
tests/compat/oracle/compare.py) and writes nothing: no credentials, StormBase or blob.  On the
session's real ZooKeeper.
"""

import json
import uuid

import pytest

from pynimbus.cluster import paths
from pynimbus.generated.storm.ttypes import AuthorizationException
from test_nimbus_scenarios import Cluster, made_clusters, spout, topology


@pytest.fixture(params=["1.x", "2.x"])
def make_cluster(request, tmp_path, zookeeper_server):
    options = ["%s=%s" % (key, json.dumps(value))
               for key, value in zookeeper_server.storm_conf().items()]
    options.append("storm.zookeeper.root=/pynimbus-key-alphabet-%s" % uuid.uuid4().hex)

    class ZooKeeperCluster(Cluster):
        compat_options = ("pynimbus.storm.compat=%s" % request.param,) + tuple(options)
    yield from made_clusters(tmp_path, ZooKeeperCluster)


@pytest.mark.parametrize("name", ["a@b", "snow\u2603man"])
def test_a_name_no_blob_key_may_start_is_refused_before_anything_is_written(make_cluster,
                                                                            name):
    """The answer names the conf blob's key (the submission counted, as Storm counts it);
    /storms, /credentials and the blobs stay empty."""
    cluster = make_cluster(supervisors=1)
    with pytest.raises(AuthorizationException) as e:
        cluster.submit(name, {}, topology({"words": spout(1)}))
    storm_id = e.value.msg.split("-stormconf.ser")[0]
    assert e.value.msg == "%s-stormconf.ser does not appear to be a valid blob key" % storm_id
    assert storm_id.startswith(name + "-1-")
    assert cluster.state.active_storms() == []
    assert not cluster.state.backend.exists(paths.credentials_path(storm_id))
    assert cluster.call("listBlobs", session="").keys == []
