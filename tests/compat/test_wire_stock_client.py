"""A client made by the stock Thrift compiler from our storm.thrift talks to a real pynimbus.

At test time ``thrift --gen py`` compiles /work/main/storm.thrift (``namespace py storm``) into a
temp dir; the package is imported under a unique name so it never clashes with
``pynimbus.generated.storm``.  Calls go over TSocket + TFramedTransport + the plain (pure Python)
TBinaryProtocol, as a foreign client would make them.
"""

import importlib
import importlib.util
import json
import os
import shutil
import subprocess
import sys
import uuid

import pytest
from thrift.protocol.TBinaryProtocol import TBinaryProtocol
from thrift.Thrift import TApplicationException, TException, TType
from thrift.transport import TSocket, TTransport

from nimbus_process import REPO

CHUNK = 307200
FILE_SIZE = 5 * 1024 * 1024
MAX_REPLY = 1048576


@pytest.fixture(scope="module")
def storm(tmp_path_factory):
    """The stock-compiled ``storm`` package (Nimbus, ttypes), imported as a unique module."""
    compiler = shutil.which("thrift")
    if compiler is None:
        pytest.skip("the Thrift compiler `thrift` is not installed (Debian: thrift-compiler)")
    out = tmp_path_factory.mktemp("stock-gen")
    subprocess.run([compiler, "--gen", "py", "-out", str(out), os.path.join(REPO, "storm.thrift")],
                   check=True, capture_output=True, timeout=120)
    pkg_dir = out / "storm"
    name = "stock_storm_%s" % uuid.uuid4().hex[:8]
    spec = importlib.util.spec_from_file_location(
        name, str(pkg_dir / "__init__.py"), submodule_search_locations=[str(pkg_dir)])
    package = importlib.util.module_from_spec(spec)
    sys.modules[name] = package
    spec.loader.exec_module(package)
    package.Nimbus = importlib.import_module(name + ".Nimbus")
    package.ttypes = importlib.import_module(name + ".ttypes")
    assert package.Nimbus.__file__.startswith(str(out))
    yield package
    for mod in [m for m in sys.modules if m == name or m.startswith(name + ".")]:
        del sys.modules[mod]


class Connection:
    """A stock ``Nimbus.Client`` on its own socket (framed transport, plain binary protocol)."""

    def __init__(self, storm, nimbus, timeout_ms=20000):
        sock = TSocket.TSocket(nimbus.host, nimbus.port)
        sock.setTimeout(timeout_ms)
        self.transport = TTransport.TFramedTransport(sock)
        self.client = storm.Nimbus.Client(TBinaryProtocol(self.transport))
        self.transport.open()

    def close(self):
        self.transport.close()


@pytest.fixture
def client(storm, nimbus_alive):
    conn = Connection(storm, nimbus_alive)
    yield conn.client
    conn.close()


def assert_required_fields_set(obj, path="reply"):
    """Run each struct's generated ``validate()`` (required fields), recursing into containers."""
    if isinstance(obj, (list, tuple, set, frozenset)):
        for i, item in enumerate(obj):
            assert_required_fields_set(item, "%s[%d]" % (path, i))
    elif isinstance(obj, dict):
        for k, v in obj.items():
            assert_required_fields_set(k, "%s.key" % path)
            assert_required_fields_set(v, "%s[%r]" % (path, k))
    elif hasattr(obj, "thrift_spec") and hasattr(obj, "validate"):
        try:
            obj.validate()
        except TException as e:
            raise AssertionError("%s (%s): %s" % (path, type(obj).__name__, e))
        for field in obj.thrift_spec or ():
            if field is not None:
                assert_required_fields_set(getattr(obj, field[2]), "%s.%s" % (path, field[2]))


def wire_field_ids_of_success(payload):
    """Field ids present on the wire in the ``success`` struct of a REPLY payload."""
    prot = TBinaryProtocol(TTransport.TMemoryBuffer(payload))
    prot.readMessageBegin()
    prot.readStructBegin()
    _, ftype, fid = prot.readFieldBegin()
    assert (fid, ftype) == (0, TType.STRUCT), "no success struct in the reply"
    prot.readStructBegin()
    ids = []
    while True:
        _, ftype, fid = prot.readFieldBegin()
        if ftype == TType.STOP:
            return ids
        ids.append(fid)
        prot.skip(ftype)


# -- queries ----------------------------------------------------------------------------------


def test_get_cluster_info_lists_this_nimbus_as_leader(client, nimbus):
    """getClusterInfo returns a ClusterSummary whose single nimbus is this one, leading, with required fields set."""
    summary = client.getClusterInfo()
    assert_required_fields_set(summary, "ClusterSummary")
    assert summary.supervisors == [] and summary.topologies == []
    [me] = summary.nimbuses
    assert me.port == nimbus.port
    assert me.host in ("localhost", "127.0.0.1")
    assert me.isLeader is True
    assert me.version
    assert 0 <= me.uptime_secs < 24 * 3600
    assert summary.nimbus_uptime_secs is not None and summary.nimbus_uptime_secs >= 0


def test_get_cluster_info_puts_nimbus_uptime_secs_on_the_wire(storm, nimbus_alive):
    """The deprecated ClusterSummary field 2 nimbus_uptime_secs is really sent (1.x clients read it)."""
    from nimbus_process import RawClient
    with RawClient(nimbus_alive.host, nimbus_alive.port, nimbus=storm.Nimbus) as raw:
        raw.sock.sendall(raw.encode_call("getClusterInfo", 1))
        ids = wire_field_ids_of_success(raw.read_frame())
    assert 2 in ids and {1, 3, 4} <= set(ids)


def test_get_nimbus_conf_is_json_with_our_port(client, nimbus):
    """getNimbusConf returns a JSON object whose nimbus.thrift.port is the port we connected to."""
    conf = json.loads(client.getNimbusConf())
    assert isinstance(conf, dict)
    assert conf["nimbus.thrift.port"] == nimbus.port


def test_get_leader_is_this_nimbus(client, nimbus):
    """getLeader returns this nimbus's host and port, marked leader."""
    leader = client.getLeader()
    assert_required_fields_set(leader, "NimbusSummary")
    assert leader.host in ("localhost", "127.0.0.1")
    assert leader.port == nimbus.port
    assert leader.isLeader is True


@pytest.mark.parametrize("name, allowed", [("good-name", True), ("bad/name", False),
                                           ("a.b", False)])
def test_is_topology_name_allowed(client, name, allowed):
    """isTopologyNameAllowed accepts a plain free name and rejects names with '/' or '.'."""
    assert client.isTopologyNameAllowed(name) is allowed


def test_get_topology_info_of_unknown_id_raises_not_alive(client, storm):
    """getTopologyInfo of an id that does not exist raises the declared NotAliveException."""
    with pytest.raises(storm.ttypes.NotAliveException):
        client.getTopologyInfo("nope-1-1")
    assert client.getNimbusConf()  # the connection is still good


def test_get_topology_summaries_is_empty(client):
    """The 2.x getTopologySummaries returns an empty list on an empty cluster."""
    assert client.getTopologySummaries() == []


# -- files ------------------------------------------------------------------------------------


def skip_if_not_supported(exc):
    message = getattr(exc, "msg", None) or getattr(exc, "message", None) or ""
    if "not supported yet" in message:
        pytest.skip("this pynimbus says: %s" % message)


def test_file_upload_and_download_round_trip_5mb(client):
    """A 5 MB random file uploaded in 307,200-byte chunks downloads back byte for byte."""
    data = os.urandom(FILE_SIZE)
    try:
        location = client.beginFileUpload()
    except TException as e:
        skip_if_not_supported(e)
        raise
    assert isinstance(location, str) and location
    for offset in range(0, len(data), CHUNK):
        client.uploadChunk(location, data[offset:offset + CHUNK])
    client.finishFileUpload(location)

    download_id = client.beginFileDownload(location)
    received = []
    for _ in range(len(data) // 1024 + 2):  # bounded: chunks are never smaller than 1 KiB
        chunk = client.downloadChunk(download_id)
        assert len(chunk) < MAX_REPLY
        if not chunk:
            break
        received.append(chunk)
    else:
        pytest.fail("downloadChunk never returned an empty chunk")
    assert b"".join(received) == data


def test_upload_chunk_to_unknown_location_fails_and_server_still_answers(client, storm, nimbus):
    """uploadChunk to a location that was never begun raises an error; the server keeps serving."""
    with pytest.raises(TException) as info:
        client.uploadChunk("/no/such/location-%s.jar" % uuid.uuid4().hex, b"x" * 10)
    assert not isinstance(info.value, TTransport.TTransportException)
    assert client.getNimbusConf()
    other = Connection(storm, nimbus)
    try:
        assert other.client.getClusterInfo().nimbuses
    finally:
        other.close()


# -- blobs (2.x and 1.x blob store API) -------------------------------------------------------


def test_list_blobs_from_the_start(client):
    """listBlobs('') returns a ListBlobsResult (keys and a session) with required fields set."""
    try:
        result = client.listBlobs("")
    except TApplicationException as e:
        skip_if_not_supported(e)
        raise
    assert_required_fields_set(result, "ListBlobsResult")
    assert isinstance(result.keys, list) and isinstance(result.session, str)


def test_blob_create_read_delete_cycle(client, storm):
    """A blob created in chunks reads back identically (meta, data_size, chunks) and can be deleted."""
    tt = storm.ttypes
    key = "pynimbus-wire-test-%s" % uuid.uuid4().hex[:12]
    data = os.urandom(300000)
    acl = [tt.AccessControl(type=tt.AccessControlType.OTHER, access=0x7)]
    try:
        session = client.beginCreateBlob(key, tt.SettableBlobMeta(acl=acl))
    except TException as e:
        skip_if_not_supported(e)
        raise
    for offset in range(0, len(data), 8192):
        client.uploadBlobChunk(session, data[offset:offset + 8192])
    client.finishBlobUpload(session)
    client.createStateInZookeeper(key)  # what Storm's client does after every upload

    meta = client.getBlobMeta(key)
    assert_required_fields_set(meta, "ReadableBlobMeta")
    begin = client.beginBlobDownload(key)
    assert_required_fields_set(begin, "BeginDownloadResult")
    assert begin.data_size == len(data)
    assert begin.version == meta.version
    received = []
    for _ in range(len(data) // 1024 + 2):
        chunk = client.downloadBlobChunk(begin.session)
        if not chunk:
            break
        received.append(chunk)
    else:
        pytest.fail("downloadBlobChunk never returned an empty chunk")
    assert b"".join(received) == data

    keys, session = [], ""
    for _ in range(1000):
        page = client.listBlobs(session)
        if not page.keys:
            break
        keys += page.keys
        session = page.session
    assert key in keys

    client.deleteBlob(key)
    with pytest.raises(tt.KeyNotFoundException):
        client.getBlobMeta(key)


# -- every method -----------------------------------------------------------------------------


def default_value(storm, ttype, typeargs):
    """The plain default of a Thrift type: '', 0, False, 0.0, empty containers, empty structs."""
    if ttype == TType.STRING:
        return b"" if typeargs == "BINARY" else ""
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
        return typeargs[0]()
    raise AssertionError("unexpected Thrift type %r" % ttype)


def _nimbus_methods():
    # Parsed from the IDL text so the list exists at collection time (before compiling).
    import re
    with open(os.path.join(REPO, "storm.thrift")) as f:
        text = f.read()
    body = text[text.index("service Nimbus"):]
    body = body[:body.index("\n}")]
    body = re.sub(r"/\*.*?\*/", "", body, flags=re.S)
    body = re.sub(r"//[^\n]*", "", body)
    return sorted(set(re.findall(r"^\s*[\w<>, ]+?\s+(\w+)\s*\(", body, re.M)))


NIMBUS_METHODS = _nimbus_methods()


def test_method_list_matches_the_compiled_client(storm):
    """The 56 methods parsed from the IDL are exactly those of the compiled Nimbus.Iface."""
    compiled = sorted(m for m in vars(storm.Nimbus.Iface) if not m.startswith("_"))
    assert NIMBUS_METHODS == compiled
    assert len(compiled) == 56


@pytest.mark.parametrize("method", NIMBUS_METHODS)
def test_every_method_answers_or_says_not_supported(storm, nimbus_alive, method):
    """Every Nimbus method called with default arguments returns, or raises a declared/application exception (never a transport error or UNKNOWN_METHOD); "not supported yet" always comes as the declared exception."""
    args_class = getattr(storm.Nimbus, method + "_args")
    args = [default_value(storm, f[1], f[3]) for f in args_class.thrift_spec if f is not None]
    result_spec = getattr(storm.Nimbus, method + "_result").thrift_spec
    declared = tuple(f[3][0] for f in result_spec if f is not None and f[0] > 0)
    conn = Connection(storm, nimbus_alive)
    try:
        try:
            getattr(conn.client, method)(*args)
            outcome = None
        except TTransport.TTransportException as e:
            pytest.fail("%s: transport error %s (connection closed or timed out)" % (method, e))
        except TApplicationException as e:
            assert e.type not in (TApplicationException.UNKNOWN_METHOD,
                                  TApplicationException.PROTOCOL_ERROR,
                                  TApplicationException.MISSING_RESULT), (method, e.type, e.message)
            if "not supported yet" in (e.message or ""):
                assert declared == (), "%s declares %s but answered %r" % (method, declared, e)
                assert e.type == TApplicationException.UNKNOWN
            else:
                # libthrift sends "Internal error processing <method>"; pynimbus may say more.
                assert e.type == TApplicationException.INTERNAL_ERROR, (method, e.type, e.message)
                assert e.message
            outcome = e
        except TException as e:
            assert isinstance(e, declared), "%s raised undeclared %r" % (method, e)
            assert e.msg is not None
            outcome = e
        # The connection is still usable after whatever happened.
        assert json.loads(conn.client.getNimbusConf())["nimbus.thrift.port"] == nimbus_alive.port
    finally:
        conn.close()
    if outcome is not None and "not supported yet" in str(getattr(outcome, "msg", "") or ""):
        assert method in str(outcome.msg)
