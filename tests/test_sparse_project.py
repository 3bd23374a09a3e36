"""A streamparse project as ``pynimbus submit`` reads it: the topology its DSL builds and the
conf ``sparse submit`` would send (streamparse 5.0.1 ``resolve_options``)."""

import json

import pytest
from thrift.protocol.TBinaryProtocol import TBinaryProtocol
from thrift.transport.TTransport import TMemoryBuffer

from sparse_projects import finite_word_count, quickstart, write_files
from pynimbus.generated.storm.ttypes import StormTopology
from pynimbus.tools import sparse_project


def thrift_bytes(struct):
    buffer = TMemoryBuffer()
    struct.write(TBinaryProtocol(buffer))
    return buffer.getvalue()


def test_the_quickstart_topology_is_the_one_its_dsl_builds(tmp_path):
    """topologies/wordcount.py of the quickstart gives its WordCount class, named after the
    file, in the "prod" environment; the submitted topology runs streamparse_run with
    "-s json" (config.json's serializer) and is otherwise the DSL's own, byte for byte."""
    root = quickstart(tmp_path, "qs_load")
    project = sparse_project.load_project("topologies/wordcount.py", cwd=root)
    assert (project.root, project.topology_name, project.env_name) == (root, "wordcount", "prod")
    assert project.topology_class.__name__ == "WordCount"
    submitted = sparse_project.submitted_topology(project.topology_class, "prod", "json")
    assert isinstance(submitted, StormTopology)
    spout = submitted.spouts["word_spout"].spout_object.shell
    bolt = submitted.bolts["count_bolt"].bolt_object.shell
    assert (spout.execution_command, spout.script) == ("streamparse_run",
                                                       "-s json spouts.words.WordSpout")
    assert bolt.script == "-s json bolts.wordcount.WordCountBolt"
    assert submitted.bolts["count_bolt"].common.parallelism_hint == 2
    plain = sparse_project.submitted_topology(project.topology_class, "prod", None)
    dsl = sparse_project.to_pynimbus_thrift(project.topology_class.thrift_topology,
                                            StormTopology())
    assert thrift_bytes(plain) == thrift_bytes(dsl)
    # the class itself is left as the DSL made it
    assert project.topology_class.thrift_spouts["word_spout"].spout_object.shell.script == \
        "spouts.words.WordSpout"


def test_module_attr_names_the_class_from_the_current_directory(tmp_path):
    """`package.module:Class` imports from the working directory and its src/; the name is the
    module's last part."""
    root = finite_word_count(tmp_path, package="modattr")
    project = sparse_project.load_project("topologies.modattr_count:FiniteWordCount", cwd=root)
    assert project.topology_class.__name__ == "FiniteWordCount"
    assert (project.topology_name, project.env_name) == ("modattr_count", "dev")


@pytest.mark.parametrize("target, message", [
    ("topologies/missing.py", "no topology file"),
    ("nocolon", "neither a topology file"),
    ("json:dumps", "is not a streamparse Topology subclass"),
    ("no_such_module_here:X", "cannot import no_such_module_here"),
])
def test_a_target_that_names_no_topology_is_refused_with_the_reason(tmp_path, target, message):
    """A missing file, a malformed target, something that is not a Topology or a module that
    does not import: ProjectError saying which."""
    with pytest.raises(sparse_project.ProjectError, match=message):
        sparse_project.load_project(target, cwd=str(tmp_path))


def test_a_topology_file_without_a_topology_class_is_refused(tmp_path):
    write_files(tmp_path, {"topologies/empty_topo.py": "X = 1\n"})
    with pytest.raises(sparse_project.ProjectError, match="defines no streamparse Topology"):
        sparse_project.load_project("topologies/empty_topo.py", cwd=str(tmp_path))


def test_environments_are_picked_as_sparse_picks_them():
    """The only environment by default; several need a name; an unknown name is refused;
    no envs at all is no environment."""
    one = {"envs": {"prod": {"nimbus": "h"}}}
    two = {"envs": {"prod": {}, "beta": {}}}
    assert sparse_project.select_env(one) == ("prod", {"nimbus": "h"})
    assert sparse_project.select_env(two, "beta") == ("beta", {})
    assert sparse_project.select_env({}) == (None, {})
    with pytest.raises(sparse_project.ProjectError, match="several environments"):
        sparse_project.select_env(two)
    with pytest.raises(sparse_project.ProjectError, match="no environment 'gamma'"):
        sparse_project.select_env(two, "gamma")


def test_options_come_from_env_then_topology_then_command_line():
    """Env options < Topology.config < -c; log settings become pystorm.log.*; workers and
    ackers default to the number of supervisor hosts; the original name is recorded."""
    env = {"options": {"a": 1, "b": 1, "c": 1}, "user": "storm",
           "log": {"path": "/var/log/sp", "level": "WARNING", "max_bytes": 10},
           "use_virtualenv": False}
    options = sparse_project.sparse_options(env, {"b": 2, "c": 2}, {"c": 3}, "wc",
                                            ["h1", "h2"])
    assert (options["a"], options["b"], options["c"]) == (1, 2, 3)
    assert options["pystorm.log.path"] == "/var/log/sp"
    assert options["pystorm.log.level"] == "warning"
    assert options["pystorm.log.max_bytes"] == 10
    assert options["use_virtualenv"] is False and options["sudo_user"] == "storm"
    assert options["storm.workers.list"] == ["h1", "h2"]
    assert options["topology.workers"] == options["topology.acker.executors"] == 2
    assert options["topology.original_name"] == "wc"
    assert "topology.python.path" not in options
    json.dumps(options)  # what is sent as jsonConf


def test_explicit_workers_and_debug_win():
    """topology.workers given stays; a comma list of workers is split; topology.debug sets
    pystorm's log level to debug."""
    options = sparse_project.sparse_options(
        {}, {"topology.debug": True}, {"topology.workers": 5, "storm.workers.list": "a,b,c"},
        "wc", [])
    assert options["topology.workers"] == 5 and options["topology.acker.executors"] == 3
    assert options["pystorm.log.level"] == "debug"


def test_per_environment_parallelism_is_resolved(tmp_path):
    """par={"prod": 3, "beta": 1} becomes the hint of the environment submitted to."""
    root = finite_word_count(tmp_path, package="perenv", count_par='{"prod": 3, "beta": 1}')
    project = sparse_project.load_project("topologies/perenv_count.py", cwd=root)
    for env, hint in (("prod", 3), ("beta", 1)):
        topology = sparse_project.submitted_topology(project.topology_class, env)
        assert topology.bolts["count_bolt"].common.parallelism_hint == hint
