"""pynimbus.thrift.encoded_reply: a struct's encoding composed from kept encodings of its elements,
carried by the struct and written as it is by the server.

Every encoding is checked against the accelerated encoder's own for the same struct, and the
server's reply against the reply to the plain struct, decoded by the pure-Python protocol (as
a Java client reads it).
"""

import copy

import pytest
from thrift.protocol.TBinaryProtocol import TBinaryProtocol
from thrift.transport.TTransport import TMemoryBuffer

from pynimbus.cluster.serialization import copy_struct
from pynimbus.generated.storm import Nimbus
from pynimbus.generated.storm.ttypes import (
    ClusterSummary, NimbusSummary, SupervisorSummary, TopologySummary)
from pynimbus.handlers import NimbusHandler
from pynimbus.thrift.encoded_reply import compose_struct, encode_binary, encoding_of, with_encoding
from pynimbus.thrift.server import ThriftServerFactory
from test_thrift_server import FRAME_LIMIT, Connection


def cluster_summary(topologies=2, with_nimbuses=True):
    supervisors = [SupervisorSummary(host="host-%d" % i, uptime_secs=i, num_workers=4,
                                     num_used_workers=1, supervisor_id="sup-%d" % i,
                                     total_resources={"supervisor.memory.capacity.mb": 4096.0})
                   for i in range(3)]
    summaries = [TopologySummary(id="t%d-1-100" % i, name="t%d" % i, num_tasks=i,
                                 num_executors=i, num_workers=1, uptime_secs=60 + i,
                                 status="ACTIVE", owner="alice", replication_count=1)
                 for i in range(topologies)]
    summary = ClusterSummary(
        supervisors=supervisors, topologies=summaries,
        nimbuses=[NimbusSummary(host="n", port=6627, uptime_secs=5, isLeader=True,
                                version="1.2.4")] if with_nimbuses else None)
    summary.nimbus_uptime_secs = 42
    return summary


@pytest.mark.parametrize("topologies, with_nimbuses", [(2, True), (0, True), (3, False)])
def test_a_composed_encoding_is_the_encoders_own(topologies, with_nimbuses):
    """Lists written from their elements' encodings, the other fields (an optional one unset
    too) encoded: byte for byte the encoding of the whole struct."""
    summary = cluster_summary(topologies, with_nimbuses)
    composed = compose_struct(summary, {
        "supervisors": [encode_binary(s) for s in summary.supervisors],
        "topologies": [encode_binary(t) for t in summary.topologies]})
    assert composed == encode_binary(summary)
    assert compose_struct(summary, {}) == encode_binary(summary)


def test_a_composed_encoding_uses_the_encodings_it_is_given():
    """The given encodings are written, not the elements: what keeps them must keep them
    right."""
    summary = cluster_summary(2)
    stale = copy_struct(summary.topologies[0])
    stale.uptime_secs = 1
    composed = compose_struct(summary, {"topologies": [encode_binary(stale),
                                                       encode_binary(summary.topologies[1])]})
    decoded = ClusterSummary()
    decoded.read(TBinaryProtocol(TMemoryBuffer(composed)))
    assert [t.uptime_secs for t in decoded.topologies] == [1, 61]


def test_encodings_must_match_their_list():
    summary = cluster_summary(2)
    with pytest.raises(ValueError, match="topologies has 2 elements, 1 encodings given"):
        compose_struct(summary, {"topologies": [b""]})
    with pytest.raises(TypeError, match="nimbus_uptime_secs is not a list of structs"):
        compose_struct(summary, {"nimbus_uptime_secs": []})


def test_a_struct_with_its_encoding_is_the_same_struct():
    """Equal to the plain struct both ways, its fields as they were, its encoding not a
    field; a copy is plain again."""
    summary = cluster_summary()
    carried = with_encoding(summary, b"the encoding")
    assert carried == summary and summary == carried and not carried != summary
    assert carried.topologies is summary.topologies and carried.nimbus_uptime_secs == 42
    assert isinstance(carried, ClusterSummary) and type(carried).__name__ == "ClusterSummary"
    assert encoding_of(carried) == b"the encoding" and encoding_of(summary) is None
    assert encode_binary(carried) == encode_binary(summary)
    assert "encoding" not in vars(carried)
    assert encoding_of(copy_struct(carried)) is None and copy_struct(carried) == summary
    assert copy.deepcopy(carried) == summary
    assert carried != with_encoding(cluster_summary(1), b"the encoding")


class EncodedConcern:
    """getClusterInfo answers ``self.answer``."""

    answer = None

    def getClusterInfo(self):
        return self.answer


@pytest.fixture
def encoded_conn():
    concern = EncodedConcern()
    factory = ThriftServerFactory(Nimbus.Processor(NimbusHandler(concern)), FRAME_LIMIT)
    return concern, Connection(factory, 40011)


def test_the_server_writes_a_carried_encoding_as_the_reply(encoded_conn):
    """A result carrying its encoding gets the same reply bytes as the plain struct; the
    carried bytes are what is written."""
    concern, conn = encoded_conn
    summary = cluster_summary()
    concern.answer = summary
    conn.call("getClusterInfo", seqid=7)
    [plain] = conn.replies()
    concern.answer = with_encoding(summary, encode_binary(summary))
    conn.call("getClusterInfo", seqid=7)
    [carried] = conn.replies()
    assert carried.raw == plain.raw and carried.body.success == summary
    other = cluster_summary(topologies=0)
    concern.answer = with_encoding(summary, encode_binary(other))
    conn.call("getClusterInfo", seqid=8)
    [written] = conn.replies()
    assert written.body.success == other
