"""The topology jar ``pynimbus submit`` builds: a streamparse project's ``src/`` under
``resources/``, as sparse's lein jar lays it out, without lein."""

import filecmp
import zipfile

import pytest

from sparse_projects import quickstart
from pynimbus.supervisor.code import extract_dir_from_jar
from pynimbus.tools.topology_jar import JarError, build_topology_jar, jar_entries


def test_quickstart_jar_holds_src_under_resources_and_a_manifest(tmp_path):
    """The quickstart project's jar lists its src/ files under resources/ and a manifest,
    byte for byte the files of src/."""
    root = quickstart(tmp_path)
    jar = tmp_path / "wc.jar"
    names = build_topology_jar(root, str(jar))
    assert names == ["META-INF/MANIFEST.MF", "resources/bolts/__init__.py",
                     "resources/bolts/wordcount.py", "resources/spouts/__init__.py",
                     "resources/spouts/words.py"]
    with zipfile.ZipFile(str(jar)) as z:
        assert z.namelist() == names
        assert z.read("META-INF/MANIFEST.MF").startswith(b"Manifest-Version: 1.0\r\n")
        with open("%s/src/spouts/words.py" % root, "rb") as f:
            assert z.read("resources/spouts/words.py") == f.read()


def test_the_supervisor_extracts_the_projects_src_as_resources(tmp_path):
    """What a supervisor extracts from the jar (extract_dir_from_jar "resources") is the
    project's src/ tree, file for file."""
    root = quickstart(tmp_path)
    build_topology_jar(root, str(tmp_path / "wc.jar"))
    extract_dir_from_jar(str(tmp_path / "wc.jar"), "resources", str(tmp_path / "stormdist"))
    comparison = filecmp.dircmp("%s/src" % root, str(tmp_path / "stormdist" / "resources"))
    assert comparison.left_list == comparison.right_list == ["bolts", "spouts"]
    for sub in ("bolts", "spouts"):
        files = comparison.subdirs[sub]
        assert not (files.left_only or files.right_only or files.diff_files), sub


def test_bytecode_caches_are_left_out_and_nested_packages_kept(tmp_path):
    """__pycache__ directories and .pyc files are not packed; subpackages and data files are."""
    (tmp_path / "src" / "pkg" / "sub" / "__pycache__").mkdir(parents=True)
    (tmp_path / "src" / "pkg" / "sub" / "__pycache__" / "m.cpython-311.pyc").write_bytes(b"x")
    (tmp_path / "src" / "pkg" / "sub" / "m.py").write_text("X = 1\n")
    (tmp_path / "src" / "pkg" / "stray.pyc").write_bytes(b"x")
    (tmp_path / "src" / "words.txt").write_text("a b\n")
    assert [name for name, _ in jar_entries(str(tmp_path))] == [
        "resources/pkg/sub/m.py", "resources/words.txt"]


def test_the_same_project_gives_the_same_bytes(tmp_path):
    """Two builds of one project are identical (sorted entries, fixed timestamps)."""
    root = quickstart(tmp_path)
    build_topology_jar(root, str(tmp_path / "a.jar"))
    build_topology_jar(root, str(tmp_path / "b.jar"))
    assert (tmp_path / "a.jar").read_bytes() == (tmp_path / "b.jar").read_bytes()


def test_a_project_without_src_is_refused_by_name(tmp_path):
    """No src/ directory: JarError naming the project and what is missing; no jar written."""
    with pytest.raises(JarError, match='has no "src" directory'):
        build_topology_jar(str(tmp_path), str(tmp_path / "x.jar"))
    assert not (tmp_path / "x.jar").exists()
