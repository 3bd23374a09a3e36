"""streamparse's own Nimbus client (thriftpy2, Storm 1.x IDL, framed binary) against a real pynimbus.

The client is the one ``sparse`` uses: ``streamparse.util.get_nimbus_client(host=..., port=...)``
(thriftpy2 ``make_client`` with ``TFramedTransportFactory`` + ``TBinaryProtocolFactory``), and
jars go up through ``streamparse.cli.submit._upload_jar`` exactly as ``sparse submit`` sends them.
"""

import json
import os
import uuid
import warnings

import pytest

with warnings.catch_warnings():
    warnings.simplefilter("ignore")  # paramiko/cryptography deprecation noise on import
    streamparse_util = pytest.importorskip("streamparse.util")
    streamparse_submit = pytest.importorskip("streamparse.cli.submit")
    storm_thrift = pytest.importorskip("streamparse.thrift")

from thriftpy2.thrift import TApplicationException, TException, TType  # noqa: E402
from thriftpy2.transport import TTransportException  # noqa: E402

CHUNK = 307200
FILE_SIZE = 5 * 1024 * 1024
Nimbus = storm_thrift.Nimbus


@pytest.fixture
def client(nimbus_alive):
    c = streamparse_util.get_nimbus_client(host=nimbus_alive.host, port=nimbus_alive.port,
                                           timeout=20000)
    yield c
    c.close()


def test_streamparse_chunk_size_is_storms():
    """streamparse uploads jars in Storm's 307,200-byte chunks (the size these tests use)."""
    assert streamparse_submit.THRIFT_CHUNK_SIZE == CHUNK


def test_get_cluster_info(client, nimbus):
    """getClusterInfo decodes in streamparse's 1.x IDL with this nimbus as the only, leading, nimbus."""
    summary = client.getClusterInfo()
    assert summary.supervisors == [] and summary.topologies == []
    [me] = summary.nimbuses
    assert (me.port, me.isLeader) == (nimbus.port, True)
    assert me.version  # sparse submit parses it to decide on isTopologyNameAllowed
    assert summary.nimbus_uptime_secs is not None and summary.nimbus_uptime_secs >= 0


def test_get_nimbus_conf(client, nimbus):
    """getNimbusConf is JSON holding the port streamparse connected to."""
    assert json.loads(client.getNimbusConf())["nimbus.thrift.port"] == nimbus.port


def test_get_leader(client, nimbus):
    """getLeader names this nimbus (host it advertises, our port), as leader."""
    leader = client.getLeader()
    assert leader.host in ("localhost", "127.0.0.1")
    assert leader.port == nimbus.port and leader.isLeader is True


def test_upload_with_streamparse_helper_and_download_round_trip_5mb(client, tmp_path, capsys):
    """A 5 MB jar uploaded by streamparse's _upload_jar (307,200-byte chunks) downloads back identical."""
    data = os.urandom(FILE_SIZE)
    jar = tmp_path / "topology.jar"
    jar.write_bytes(data)
    try:
        location = streamparse_submit._upload_jar(client, str(jar))
    except TException as e:
        if "not supported yet" in (getattr(e, "msg", "") or ""):
            pytest.skip("this pynimbus says: %s" % e.msg)
        raise
    assert "Uploaded %d/%d bytes" % (FILE_SIZE, FILE_SIZE) in capsys.readouterr().out
    download_id = client.beginFileDownload(location)
    received = []
    for _ in range(FILE_SIZE // 1024 + 2):  # bounded: no chunk is smaller than 1 KiB
        chunk = client.downloadChunk(download_id)
        if not chunk:
            break
        received.append(chunk)
    else:
        pytest.fail("downloadChunk never returned an empty chunk")
    assert b"".join(received) == data


def default_value(ttype, spec_rest, depth=0):
    """A plain default for a thriftpy2 field spec; structs get their required fields filled."""
    if ttype in (TType.STRING,):
        return ""
    if ttype == TType.BINARY:
        return b""
    if ttype == TType.BOOL:
        return False
    if ttype in (TType.BYTE, TType.I16, TType.I32, TType.I64):
        return 0
    if ttype == TType.DOUBLE:
        return 0.0
    if ttype == TType.LIST:
        return []
    if ttype == TType.SET:
        return set()
    if ttype == TType.MAP:
        return {}
    if ttype == TType.STRUCT:
        return default_struct(spec_rest[0], depth + 1)
    raise AssertionError("unexpected thriftpy2 type %r" % ttype)


def default_struct(cls, depth=0):
    obj = cls()
    if depth > 4:
        return obj
    for spec in cls.thrift_spec.values():
        ttype, name, required = spec[0], spec[1], spec[-1]
        if required:
            setattr(obj, name, default_value(ttype, spec[2:-1], depth))
    return obj


def default_args(method):
    spec = getattr(Nimbus, method + "_args").thrift_spec
    return [default_value(s[0], s[2:-1]) for _, s in sorted(spec.items())]


def declared_exceptions(method):
    spec = getattr(Nimbus, method + "_result").thrift_spec
    return tuple(s[2] for fid, s in spec.items() if fid > 0)


@pytest.mark.parametrize("method", sorted(Nimbus.thrift_services))
def test_every_1x_method_answers_or_says_not_supported(nimbus_alive, method):
    """Every method of streamparse's 1.x IDL returns or raises a declared/application exception (never a transport error or UNKNOWN_METHOD), and "not supported yet" arrives as a declared exception."""
    declared = declared_exceptions(method)
    client = streamparse_util.get_nimbus_client(host=nimbus_alive.host, port=nimbus_alive.port,
                                                timeout=20000)
    try:
        try:
            getattr(client, method)(*default_args(method))
        except (TTransportException, OSError) as e:
            pytest.fail("%s: transport error %r (connection closed or timed out)" % (method, e))
        except TApplicationException as e:
            assert e.type not in (TApplicationException.UNKNOWN_METHOD,
                                  TApplicationException.PROTOCOL_ERROR,
                                  TApplicationException.MISSING_RESULT), (method, e.type, e.message)
            if "not supported yet" in (e.message or ""):
                assert declared == (), "%s declares %s but answered %r" % (method, declared, e)
            else:
                assert e.type == TApplicationException.INTERNAL_ERROR, (method, e.type, e.message)
        except TException as e:
            assert isinstance(e, declared), "%s raised undeclared %r" % (method, e)
            if "not supported yet" in (e.msg or ""):
                assert method in e.msg
        # Whatever happened, the connection still serves the next call.
        assert json.loads(client.getNimbusConf())["nimbus.thrift.port"] == nimbus_alive.port
    finally:
        client.close()


def test_unsupported_kill_is_a_declared_exception_streamparse_can_catch(client):
    """sparse kill of an unknown name gets a declared Thrift exception (NotAlive or 'not supported'), not a crash."""
    with pytest.raises((storm_thrift.NotAliveException, storm_thrift.AuthorizationException)):
        client.killTopologyWithOpts("no-such-topology-%s" % uuid.uuid4().hex[:6],
                                    storm_thrift.KillOptions(wait_secs=0))
    assert client.getNimbusConf()
