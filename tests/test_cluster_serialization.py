"""Unit tests of pynimbus.cluster.serialization: gzip of Thrift binary, bridge reads, ints."""

import shutil
import subprocess
import textwrap
import zlib

import pytest
from thrift import TSerialization
from thrift.protocol.TBinaryProtocol import TBinaryProtocolFactory

from pynimbus.cluster import serialization as ser
from pynimbus.generated.storm import ttypes


def sample_assignment():
    slot1 = ttypes.NodeInfo(node="sup-a", port={6700})
    slot2 = ttypes.NodeInfo(node="sup-b", port={6701})
    return ttypes.Assignment(
        master_code_dir="/var/storm",
        node_host={"sup-a": "host-a", "sup-b": "host-b"},
        executor_node_port={(1, 1): slot1, (2, 3): slot2, (-1, -1): slot1},
        executor_start_time_secs={(1, 1): 1700000000, (2, 3): 1700000001},
        worker_resources={slot1: ttypes.WorkerResources(0.0, 0.0, 0.0),
                          slot2: ttypes.WorkerResources(768.0, 64.0, 50.0)},
        owner="alice")


def test_serialize_is_gzip_with_java_header_of_thrift_binary():
    """serialize writes a gzip member (mtime 0, OS 0) around the plain Thrift binary struct."""
    info = ttypes.ErrorInfo(error="x", error_time_secs=5)
    data = ser.serialize(info)
    assert data[:10] == bytes.fromhex("1f8b0800000000000000")
    assert zlib.decompress(data, 16 + zlib.MAX_WBITS) == ser.serialize_plain(info)


def test_thrift_binary_is_the_struct_encoding_without_message_header():
    """The plain encoding is field headers (type, id), values and a stop byte, as TSerializer."""
    info = ttypes.ErrorInfo(error="x", error_time_secs=5)
    assert ser.serialize_plain(info) == bytes.fromhex(
        "0b0001" "00000001" "78"     # 1: string error = "x"
        "080002" "00000005"          # 2: i32 error_time_secs = 5
        "00")                        # stop
    assert ser.serialize_plain(info) == TSerialization.serialize(info, TBinaryProtocolFactory())


def test_assignment_with_executor_map_and_worker_resources_round_trips():
    """An Assignment keyed by executor lists and NodeInfo structs decodes to an equal struct."""
    assignment = sample_assignment()
    decoded = ser.deserialize(ser.serialize(assignment), ttypes.Assignment)
    assert decoded == assignment
    assert decoded.executor_node_port[(2, 3)] == ttypes.NodeInfo("sup-b", {6701})
    slot = ttypes.NodeInfo(node="sup-b", port={6701})
    assert decoded.worker_resources[slot].mem_on_heap == 768.0


def test_plain_thrift_is_read_too():
    """deserialize reads data without gzip, as GzipBridgeThriftSerializationDelegate does."""
    assignment = sample_assignment()
    assert ser.deserialize(ser.serialize_plain(assignment), ttypes.Assignment) == assignment


def test_storm_base_round_trips():
    """A StormBase with its union and debug map survives the round trip."""
    base = ttypes.StormBase(
        name="wc", status=ttypes.TopologyStatus.REBALANCING, num_workers=2,
        component_executors={"split": 4}, launch_time_secs=1700000000, owner="alice",
        topology_action_options=ttypes.TopologyActionOptions(
            rebalance_options=ttypes.RebalanceOptions(wait_secs=30, num_workers=3)),
        prev_status=ttypes.TopologyStatus.ACTIVE,
        component_debug={"wc-1-1": ttypes.DebugOptions(enable=True, samplingpct=5.0)})
    assert ser.deserialize(ser.serialize(base), ttypes.StormBase) == base


def test_missing_required_field_is_refused_when_writing():
    """serialize refuses a struct without a required field, naming struct and field."""
    with pytest.raises(ser.SerializationError, match="StormBase: Required field status"):
        ser.serialize(ttypes.StormBase(name="wc", num_workers=1))


def test_missing_required_field_is_refused_when_reading():
    """deserialize refuses bytes that leave a required field unset."""
    raw = TSerialization.serialize(ttypes.ErrorInfo(error="x"), TBinaryProtocolFactory())
    with pytest.raises(ser.SerializationError, match="ErrorInfo: Required field error_time_secs"):
        ser.deserialize(ser.gzip_bytes(raw), ttypes.ErrorInfo)


def test_missing_required_field_of_a_nested_struct_is_refused():
    """Validation reaches structs inside maps (a NodeInfo without ports)."""
    bad = ttypes.Assignment(master_code_dir="/d",
                            executor_node_port={(1, 1): ttypes.NodeInfo("n")})
    raw = TSerialization.serialize(bad, TBinaryProtocolFactory())
    with pytest.raises(ser.SerializationError,
                       match="NodeInfo in Assignment: Required field port"):
        ser.deserialize(raw, ttypes.Assignment)
    with pytest.raises(ser.SerializationError):
        ser.serialize(bad)


@pytest.mark.parametrize("data", [b"\x1f\x8b\x08garbage", b"\x0b\x00\x01\xff\xff\xff\x00",
                                  ser.serialize(ttypes.ErrorInfo("x", 1))[:-6]])
def test_garbage_raises_serialization_error(data):
    """Corrupt gzip, impossible lengths and truncated data raise SerializationError."""
    with pytest.raises(ser.SerializationError):
        ser.deserialize(data, ttypes.ErrorInfo)


def test_maybe_deserialize_passes_none_through():
    """maybe_deserialize returns None for a missing node, as cluster.clj's helper."""
    assert ser.maybe_deserialize(None, ttypes.Assignment) is None


def test_integers_are_big_endian_and_signed():
    """The raw integers match Java's ByteBuffer putInt/putLong."""
    assert ser.encode_int32(1) == b"\x00\x00\x00\x01"
    assert ser.encode_int32(-2) == b"\xff\xff\xff\xfe"
    assert ser.decode_int32(b"\x00\x00\x01\x00") == 256
    assert ser.encode_int64(1700000000123) == (1700000000123).to_bytes(8, "big")
    assert ser.decode_int64(ser.encode_int64(-5)) == -5
    with pytest.raises(ser.SerializationError):
        ser.decode_int32(b"\x00\x01")


def test_directory_data_is_byte_seven():
    """Directories carry the single byte 7 that Storm's mkdirs writes."""
    assert ser.DIRECTORY_DATA == b"\x07"


JAVA_GZIP = textwrap.dedent("""
    import java.io.ByteArrayOutputStream;
    import java.util.zip.GZIPOutputStream;

    public class GzipStdin {
        public static void main(String[] args) throws Exception {
            byte[] input = System.in.readAllBytes();
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            try (GZIPOutputStream gzip = new GZIPOutputStream(out)) {
                gzip.write(input);
            }
            System.out.write(out.toByteArray());
            System.out.flush();
        }
    }
""")


@pytest.mark.skipif(shutil.which("java") is None or shutil.which("javac") is None,
                    reason="needs a JDK to run java.util.zip.GZIPOutputStream")
def test_gzip_matches_javas_gzip_output_stream(tmp_path):
    """Our gzip equals Java's GZIPOutputStream byte for byte, but for the OS byte of Java 16+."""
    source = tmp_path / "GzipStdin.java"
    source.write_text(JAVA_GZIP)
    plain = ser.serialize_plain(sample_assignment())
    java = subprocess.run(["java", str(source)], input=plain, capture_output=True, timeout=120,
                          check=True).stdout
    ours = ser.gzip_bytes(plain)
    assert java[:9] == ours[:9]
    assert java[9] in (0, 255)  # OS: 0 up to Java 15 (Storm 1.2.4's Java 8), 255 after
    assert java[10:] == ours[10:]
