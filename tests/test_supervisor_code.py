"""A Python supervisor's ZooKeeper and Thrift side against a real ``pynimbus dev``.

The supervisor registers through :mod:`pynimbus.supervisor.registration` in a real ZooKeeper,
Nimbus lists it and assigns a submitted topology to it, the pure
:mod:`pynimbus.supervisor.assignments` reads its local assignment, and
:mod:`pynimbus.supervisor.code` downloads the topology's jar, code and conf over Thrift and
unpacks the jar's ``resources/``.  A jar whose resources would escape their directory is
refused.  Extraction on its own is also tested on local jars.
"""
# test-case-name: tests.test_supervisor_code

import io
import json
import os
import zipfile

import pytest
from twisted.internet import defer, task

from nimbus_process import nimbus_on_zookeeper
from test_nimbus_scenarios import spout, topology
from pynimbus.cluster import StormClusterState, make_backend
from pynimbus.cluster.serialization import deserialize
from pynimbus.common import local_dirs
from pynimbus.common.stored_topology import from_compressed_json_conf
from pynimbus.generated.storm.ttypes import KillOptions, StormTopology
from pynimbus.supervisor import assignments, code, registration
from pynimbus.thrift.client import NimbusClient

HELLO = b"print('hello from resources')\n"


def jar_bytes(entries):
    """A jar (zip) holding ``{name: bytes}``."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as jar:
        for name, data in entries.items():
            jar.writestr(name, data)
    return buffer.getvalue()


# -- extraction, on local files -------------------------------------------------------------

def test_extract_takes_only_resources(tmp_path):
    """Entries under resources/ are written under the directory; the rest of the jar is not."""
    jar = tmp_path / "a.jar"
    jar.write_bytes(jar_bytes({"resources/hello.py": HELLO, "resources/sub/x.txt": b"x",
                               "Main.class": b"\xca\xfe", "resources-old/y": b"y"}))
    code.extract_dir_from_jar(str(jar), "resources", str(tmp_path / "out"))
    found = sorted(os.path.relpath(os.path.join(d, f), tmp_path / "out")
                   for d, _, files in os.walk(tmp_path / "out") for f in files)
    assert found == ["resources/hello.py", "resources/sub/x.txt"]
    assert (tmp_path / "out" / "resources" / "hello.py").read_bytes() == HELLO


def deflated_jar(path, entries):
    """A jar at ``path`` whose ``{name: bytes}`` are deflated (as jar tools write them)."""
    with zipfile.ZipFile(str(path), "w", compression=zipfile.ZIP_DEFLATED) as jar:
        for name, data in entries.items():
            jar.writestr(name, data)
    return str(path)


def extracted(out):
    return sorted(os.path.relpath(os.path.join(d, f), out)
                  for d, _, files in os.walk(out) for f in files)


def test_a_zip_bomb_is_refused_by_its_ratio_before_anything_is_written(tmp_path):
    """2 MB of zeros deflate about 1000 to 1: past the default ratio (200) for an entry of a
    megabyte or more; small entries that compress as well are fine."""
    jar = deflated_jar(tmp_path / "bomb.jar", {"resources/a.py": HELLO,
                                               "resources/zeros.bin": bytes(2 << 20),
                                               "resources/small.bin": bytes(500000)})
    out = tmp_path / "out"
    with pytest.raises(code.JarTooLarge, match=r"entry 'resources/zeros.bin' expands \d+ "
                                               r"bytes to 2097152 .*pynimbus.supervisor.jar."
                                               r"max.ratio"):
        code.extract_dir_from_jar(jar, "resources", str(out))
    assert not out.exists() or extracted(out) == []
    limits = code.jar_limits({"pynimbus.supervisor.jar.max.ratio": 5000})
    code.extract_dir_from_jar(jar, "resources", str(out), limits)
    assert extracted(out) == ["resources/a.py", "resources/small.bin", "resources/zeros.bin"]


def test_a_jar_past_the_extracted_bytes_or_entries_is_refused(tmp_path):
    jar = deflated_jar(tmp_path / "big.jar", {"resources/%d.txt" % i: os.urandom(1000)
                                              for i in range(20)})
    with pytest.raises(code.JarTooLarge, match="would extract 20000 bytes, more than the "
                                               "supervisor's limit of 10000 \\(pynimbus."
                                               "supervisor.jar.max.extracted.bytes\\)"):
        code.extract_dir_from_jar(jar, "resources", str(tmp_path / "o1"), (100, 10000, 200))
    with pytest.raises(code.JarTooLarge, match="holds 20 entries, more than the supervisor's "
                                               "limit of 19"):
        code.extract_dir_from_jar(jar, "resources", str(tmp_path / "o2"), (19, 10 ** 6, 200))
    code.extract_dir_from_jar(jar, "resources", str(tmp_path / "o3"), (20, 20000, 200))
    assert len(extracted(tmp_path / "o3")) == 20


def test_a_jar_that_inflates_past_what_it_declares_is_stopped_while_written(tmp_path):
    """The sizes a jar declares can lie: the bytes really inflated are counted as written."""
    jar = deflated_jar(tmp_path / "liar.jar", {"resources/zeros.bin": bytes(3 << 20)})
    with open(jar, "r+b") as f:  # declare 1000 bytes in the central directory
        data = bytearray(f.read())
    central = data.rindex(b"PK\x01\x02")
    data[central + 24:central + 28] = (1000).to_bytes(4, "little")
    with open(jar, "wb") as f:
        f.write(bytes(data))
    with pytest.raises((code.JarTooLarge, code.JarRefused)):
        code.extract_dir_from_jar(jar, "resources", str(tmp_path / "out"), (10, 10 ** 6, 10 ** 6))


@pytest.mark.parametrize("evil", ["resources/../../evil.py", "resources/../evil.py",
                                  "/resources/evil.py", "./resources/../../evil.py",
                                  "lib/../../evil.py"])
def test_extract_refuses_an_escaping_entry_and_writes_nothing(tmp_path, evil):
    """A ``..`` or absolute entry, under resources/ or not, refuses the whole jar before any
    file is written."""
    jar = tmp_path / "evil.jar"
    jar.write_bytes(jar_bytes({"resources/hello.py": HELLO, evil: b"owned"}))
    out = tmp_path / "deep" / "out"
    out.mkdir(parents=True)
    with pytest.raises(code.UnsafeJarEntry, match="would be written outside"):
        code.extract_dir_from_jar(str(jar), "resources", str(out))
    assert list(out.iterdir()) == []
    assert not (tmp_path / "deep" / "evil.py").exists() and not (tmp_path / "evil.py").exists()


def test_stormdist_root_url_encodes_the_id_and_refuses_dots(tmp_path):
    """The directory is the Java-URL-encoded id; ids that are "." or ".." name no directory."""
    conf = {"storm.local.dir": str(tmp_path)}
    assert local_dirs.supervisor_stormdist_root(conf, "wc a/b-1-2") == str(
        tmp_path / "supervisor" / "stormdist" / "wc+a%2Fb-1-2")
    for bad in (".", "..", ""):
        with pytest.raises(ValueError):
            local_dirs.supervisor_stormdist_root(conf, bad)


# -- against a real pynimbus dev on a real ZooKeeper ------------------------------------------


@pytest.fixture
def nimbus(zookeeper_conf, tmp_path):
    yield from nimbus_on_zookeeper(zookeeper_conf, tmp_path, "nimbus.monitor.freq.secs=1",
                                   "topology.acker.executors=0",
                                   "topology.eventlogger.executors=0")


@pytest.fixture
def supervisor_conf(zookeeper_conf, tmp_path):
    return dict(zookeeper_conf, **{"storm.local.dir": str(tmp_path / "supervisor-local"),
                                   "supervisor.slots.ports": [6700, 6701],
                                   "storm.local.hostname": "localhost"})


@pytest.fixture
def supervisor_state(supervisor_conf):
    state = StormClusterState(make_backend(supervisor_conf))
    yield state
    state.close()


def register(conf, state):
    """Register a supervisor the way the daemon will: its kept id, one heartbeat."""
    supervisor_id = registration.read_or_make_supervisor_id(conf)
    beat = registration.SupervisorHeartbeat(
        conf, state, supervisor_id, registration.supervisor_hostname(conf), set,
        task.Clock(), run_blocking=defer.maybeDeferred)
    beat.start()
    beat.stop()
    return supervisor_id


def submit_with_jar(client, name, jar):
    """Upload ``jar`` with beginFileUpload/uploadChunk/finishFileUpload and submit a
    one-spout topology with it; return the storm id."""
    location = client.beginFileUpload()
    for start in range(0, len(jar), 1000):
        client.uploadChunk(location, jar[start:start + 1000])
    client.finishFileUpload(location)
    client.submitTopology(name, location, json.dumps({"topology.workers": 1}),
                          topology({"spout": spout(parallelism=2)}))
    [storm_id] = [t.id for t in client.getClusterInfo().topologies if t.name == name]
    return storm_id


def assignment_to(state, storm_id, supervisor_id):
    """The topology's Assignment once it places executors on ``supervisor_id``, else None."""
    assignment = state.assignment_info(storm_id)
    if assignment and any(node.node == supervisor_id
                          for node in assignment.executor_node_port.values()):
        return assignment
    return None


@pytest.mark.zookeeper
def test_registered_supervisor_gets_and_downloads_its_topology(
        nimbus, supervisor_conf, supervisor_state, wait_until):
    """Register, be listed with two slots, be assigned, read it locally, download the code."""
    supervisor_id = register(supervisor_conf, supervisor_state)
    assert registration.read_or_make_supervisor_id(supervisor_conf) == supervisor_id
    jar = jar_bytes({"resources/hello.py": HELLO, "Spout.class": b"\xca\xfe\xba\xbe"})
    with NimbusClient("127.0.0.1", nimbus.port, timeout=10) as client:
        # nimbus's read cache sees another process's write after a watch round trip
        wait_until(lambda: client.getClusterInfo().supervisors, timeout=10,
                   what="nimbus to list the registered supervisor")
        [summary] = client.getClusterInfo().supervisors
        assert (summary.supervisor_id, summary.host, summary.num_workers) == \
            (supervisor_id, "localhost", 2)
        storm_id = submit_with_jar(client, "hello", jar)
        wait_until(lambda: assignment_to(supervisor_state, storm_id, supervisor_id),
                   what="an assignment naming the supervisor")
        assignment = assignment_to(supervisor_state, storm_id, supervisor_id)
        local = assignments.read_assignments({storm_id: assignment}, supervisor_id)
        [(port, local_assignment)] = local.items()
        assert port in (6700, 6701) and local_assignment.topology_id == storm_id
        assert sorted((e.task_start, e.task_end) for e in local_assignment.executors) == \
            sorted(tuple(e) for e in assignment.executor_node_port)

        stormroot = code.download_storm_code(supervisor_conf, storm_id, client)

    assert stormroot == local_dirs.supervisor_stormdist_root(supervisor_conf, storm_id)
    assert sorted(os.listdir(stormroot)) == [
        "resources", "stormcode.ser", "stormconf.ser", "stormjar.jar"]
    with open(os.path.join(stormroot, "stormjar.jar"), "rb") as f:
        assert f.read() == jar
    with open(os.path.join(stormroot, "stormcode.ser"), "rb") as f:
        assert set(deserialize(f.read(), StormTopology).spouts) == {"spout"}
    with open(os.path.join(stormroot, "stormconf.ser"), "rb") as f:
        assert from_compressed_json_conf(f.read())["topology.name"] == "hello"
    with open(os.path.join(stormroot, "resources", "hello.py"), "rb") as f:
        assert f.read() == HELLO
    assert os.listdir(local_dirs.supervisor_tmp_dir(supervisor_conf)) == []

    # Again, as Twisted code calls it: the directory is there, so it is kept as it is.
    os.remove(os.path.join(stormroot, "stormconf.ser"))
    again = code.download_storm_code_async(supervisor_conf, storm_id, "127.0.0.1", nimbus.port,
                                           timeout=10, run_blocking=defer.maybeDeferred)
    assert again.result == stormroot
    assert not os.path.exists(os.path.join(stormroot, "stormconf.ser"))


@pytest.mark.zookeeper
def test_zip_slip_jar_is_refused_and_nothing_installed(
        nimbus, supervisor_conf, supervisor_state, tmp_path):
    """A jar whose resources entry climbs out is refused: no stormdist, no temp, no file."""
    register(supervisor_conf, supervisor_state)
    jar = jar_bytes({"resources/hello.py": HELLO, "resources/../../../escaped.py": b"owned"})
    with NimbusClient("127.0.0.1", nimbus.port, timeout=10) as client:
        storm_id = submit_with_jar(client, "slip", jar)
        with pytest.raises(code.UnsafeJarEntry, match="escaped.py"):
            code.download_storm_code(supervisor_conf, storm_id, client)
        client.killTopologyWithOpts("slip", KillOptions(wait_secs=0))
    assert not os.path.exists(local_dirs.supervisor_stormdist_root(supervisor_conf, storm_id))
    assert os.listdir(local_dirs.supervisor_tmp_dir(supervisor_conf)) == []
    escaped = [os.path.join(d, f) for d, _, files in os.walk(tmp_path) for f in files
               if f == "escaped.py"]
    assert escaped == []


@pytest.mark.zookeeper
def test_missing_blob_fails_the_download_with_its_key(nimbus, supervisor_conf):
    """A topology Nimbus does not have: the error names the blob, nothing is installed."""
    with NimbusClient("127.0.0.1", nimbus.port, timeout=10) as client:
        with pytest.raises(code.CodeDownloadFailed, match="nope-1-1-stormjar.jar"):
            code.download_storm_code(supervisor_conf, "nope-1-1", client)
    assert not os.path.exists(local_dirs.supervisor_stormdist_root(supervisor_conf, "nope-1-1"))
