"""``pynimbus kill/list/activate/deactivate/rebalance/submit``: the storm client's arguments
and outputs, against a real ``pynimbus dev`` (no supervisor: nothing runs, the calls and their
refusals are what is checked), and the parsing and printing helpers on literal data."""

import io
import signal
import os
import subprocess
import sys

import pytest

from nimbus_process import REPO, NimbusProcess, _default_sigint, free_port
from pynimbus_path import child_env
from sparse_projects import finite_word_count
from pynimbus.cli.main import build_parser
from pynimbus.generated.storm.ttypes import RebalanceOptions, TopologySummary
from pynimbus.thrift.client import NimbusClient
from pynimbus.tools.storm_commands import (
    CommandError, ProgressBar, parse_executor, parse_host_port, rebalance_options, topology_table)


def run_cli(*argv, cwd=REPO, timeout=60, env=None):
    """``python -m pynimbus.cli argv...``: (exit code, stdout, stderr)."""
    done = subprocess.run([sys.executable, "-m", "pynimbus.cli"] + list(argv), cwd=cwd,
                          capture_output=True, text=True, timeout=timeout, env=env)
    return done.returncode, done.stdout, done.stderr


# -- parsing and printing ----------------------------------------------------------------

def test_rebalance_arguments_map_to_rebalance_options_as_storms():
    """-w, -n and repeated -e (split at the last "=", a later one winning) fill the options;
    what is not given stays unset."""
    args = build_parser().parse_args(
        ["rebalance", "wc", "-w", "5", "-n", "3", "-e", "a=b=4", "-e", "x=1", "-e", "x=2"])
    assert (args.name, args.wait, args.num_workers) == ("wc", 5, 3)
    assert rebalance_options(args.wait, args.num_workers, args.executors) == RebalanceOptions(
        wait_secs=5, num_workers=3, num_executors={"a=b": 4, "x": 2})
    bare = build_parser().parse_args(["rebalance", "wc"])
    assert rebalance_options(bare.wait, bare.num_workers, bare.executors) == RebalanceOptions()


def test_a_malformed_executor_option_is_a_usage_error(capsys):
    """-e without "=N" exits 2 with argparse's message, before any connection."""
    with pytest.raises(SystemExit) as exited:
        build_parser().parse_args(["rebalance", "wc", "-e", "count"])
    assert exited.value.code == 2
    assert "-e/--executor" in capsys.readouterr().err
    with pytest.raises(ValueError):
        parse_executor("count=many")


def test_kill_takes_names_and_a_wait_and_submit_its_options():
    """kill NAME... -w SECS; submit TOPOLOGY --name --nimbus -c... --wait --wait-timeout."""
    kill = build_parser().parse_args(["kill", "a", "b", "-w", "0"])
    assert (kill.names, kill.wait) == (["a", "b"], 0)
    submit = build_parser().parse_args(
        ["submit", "topologies/wc.py", "--name", "x", "--nimbus", "h:1", "-c", "k=1",
         "--wait", "--wait-timeout", "9", "-e", "prod", "--inactive"])
    assert (submit.topology, submit.name, submit.nimbus, submit.options) == (
        "topologies/wc.py", "x", "h:1", ["k=1"])
    assert (submit.wait, submit.wait_timeout, submit.environment, submit.active) == (
        True, 9.0, "prod", False)
    default = build_parser().parse_args(["submit", "pkg.mod:Topo"])
    assert (default.wait, default.wait_timeout, default.active) == (False, 120, True)


def test_host_port_parsing():
    assert parse_host_port("h", 6627) == ("h", 6627)
    assert parse_host_port("h:7000", 6627) == ("h", 7000)
    with pytest.raises(CommandError, match="'h:x' is not HOST:PORT"):
        parse_host_port("h:x", 6627)


def test_list_prints_storms_table():
    """The header, the 67-dash rule and one row per topology in list.clj's widths; an empty
    cluster is "No topologies running."."""
    summary = TopologySummary(id="wc-1-1", name="wc", num_tasks=4, num_executors=4,
                              num_workers=1, uptime_secs=12, status="ACTIVE")
    assert topology_table([summary]) == [
        "Topology_name        Status     Num_tasks  Num_workers  Uptime_secs",
        "-" * 67,
        "wc                   ACTIVE     4          1            12        "]
    assert topology_table([]) == topology_table(None) == ["No topologies running."]


class Terminal(io.StringIO):
    def isatty(self):
        return True


def test_the_progress_bar_redraws_only_on_a_terminal():
    """On a terminal each update rewrites the line; elsewhere only the final line is written."""
    tty, pipe = Terminal(), io.StringIO()
    for stream in (tty, pipe):
        bar = ProgressBar(2_000_000, stream)
        bar.update(1_000_000)
        bar.finish()
    assert tty.getvalue() == ("\r[%s%s]  50%% 1.0/2.0 MB\r[%s] 100%% 2.0/2.0 MB\n"
                              % ("#" * 15, " " * 15, "#" * 30))
    assert pipe.getvalue() == "[%s] 100%% 2.0/2.0 MB\n" % ("#" * 30)


def test_dev_and_supervisor_put_their_scripts_first_on_path():
    """The interpreter's bin directory goes first on PATH once (workers' children inherit it,
    so streamparse_run is the one installed beside pynimbus); an empty PATH becomes it."""
    from pynimbus.cli.main import put_interpreter_bin_first_on_path
    environ = {"PATH": "/usr/bin:/venv/bin"}
    put_interpreter_bin_first_on_path(environ, "/venv/bin/python")
    assert environ["PATH"] == "/venv/bin:/usr/bin:/venv/bin"
    put_interpreter_bin_first_on_path(environ, "/venv/bin/python")
    assert environ["PATH"] == "/venv/bin:/usr/bin:/venv/bin"
    empty = {}
    put_interpreter_bin_first_on_path(empty, "/venv/bin/python")
    assert empty == {"PATH": "/venv/bin"}


def test_wait_names_the_latest_component_error():
    """first_error: the latest error of any component of a TopologyInfo, or None."""
    from pynimbus.generated.storm.ttypes import ErrorInfo, TopologyInfo
    from pynimbus.tools.storm_commands import first_error
    info = TopologyInfo(id="t-1-1", name="t", uptime_secs=1, executors=[], status="ACTIVE",
                        errors={"count": [ErrorInfo("old", 10)], "split": [],
                                "spout": [ErrorInfo("died", 12), ErrorInfo("older", 5)]})
    assert first_error(info) == ("spout", "died")
    info.errors = {"count": []}
    assert first_error(info) is None


# -- against a dev Nimbus ---------------------------------------------------------------

@pytest.fixture(scope="module")
def dev(tmp_path_factory):
    """A `pynimbus dev` without supervisors."""
    proc = NimbusProcess(tmp_path_factory.mktemp("dev"))
    proc.start(timeout=60)
    yield proc
    proc.stop()


def statuses(dev):
    with NimbusClient("127.0.0.1", dev.port, timeout=10) as client:
        return {t.name: t.status for t in client.getClusterInfo().topologies}


@pytest.fixture
def submitted(dev, tmp_path):
    """The finite word count submitted as "cli_wc" with `pynimbus submit` (one worker)."""
    root = finite_word_count(tmp_path, package="cliwc")
    code, out, err = run_cli("submit", "topologies/cliwc_count.py", "--name", "cli_wc",
                             "--nimbus", "127.0.0.1:%d" % dev.port, "-c", "topology.workers=1",
                             cwd=root)
    assert code == 0, err
    assert "Submitted topology: cli_wc" in out and "100%" in out
    yield "cli_wc"
    with NimbusClient("127.0.0.1", dev.port, timeout=10) as client:
        if "cli_wc" in statuses(dev):
            from pynimbus.generated.storm.ttypes import KillOptions
            client.killTopologyWithOpts("cli_wc", KillOptions(wait_secs=0))


def nimbus(dev):
    return ["--nimbus", "127.0.0.1:%d" % dev.port]


def test_lifecycle_commands_change_the_status_and_say_so(dev, submitted):
    """list shows it ACTIVE; deactivate, activate, rebalance and kill each print storm's line,
    exit 0 and leave the status Nimbus then reports."""
    code, out, _ = run_cli("list", *nimbus(dev))
    assert code == 0 and out.splitlines()[0].startswith("Topology_name")
    assert out.splitlines()[2].split()[:2] == ["cli_wc", "ACTIVE"]
    assert run_cli("deactivate", "cli_wc", *nimbus(dev))[:2] == (
        0, "Deactivated topology: cli_wc\n")
    assert statuses(dev)["cli_wc"] == "INACTIVE"
    assert run_cli("activate", "cli_wc", *nimbus(dev))[:2] == (0, "Activated topology: cli_wc\n")
    assert statuses(dev)["cli_wc"] == "ACTIVE"
    assert run_cli("rebalance", "cli_wc", "-w", "30", "-e", "count_bolt=1",
                   *nimbus(dev))[:2] == (0, "Topology cli_wc is rebalancing\n")
    assert statuses(dev)["cli_wc"] == "REBALANCING"
    assert run_cli("kill", "cli_wc", "-w", "30", *nimbus(dev))[:2] == (
        0, "Killed topology: cli_wc\n")
    assert statuses(dev)["cli_wc"] == "KILLED"


@pytest.mark.parametrize("argv", [["kill", "nosuch"], ["activate", "nosuch"],
                                  ["deactivate", "nosuch"], ["rebalance", "nosuch", "-n", "2"]])
def test_a_topology_that_is_not_alive_is_one_line_and_exit_1(dev, argv):
    """Each command on an unknown name: exit 1, stderr names NotAliveException and the name,
    nothing on stdout, no topology appears."""
    code, out, err = run_cli(*argv, *nimbus(dev))
    assert (code, out) == (1, "")
    assert err == "pynimbus %s: NotAliveException: nosuch is not alive\n" % argv[0]
    assert "nosuch" not in statuses(dev)


def test_a_rebalance_nimbus_refuses_is_invalid_topology(dev, submitted):
    """rebalance to 0 executors: exit 1 with Nimbus's InvalidTopologyException, still ACTIVE."""
    code, _, err = run_cli("rebalance", "cli_wc", "-e", "count_bolt=0", *nimbus(dev))
    assert (code, err) == (1, "pynimbus rebalance: InvalidTopologyException: Number of "
                              "executors must be greater than 0\n")
    assert statuses(dev)["cli_wc"] == "ACTIVE"


def test_nimbus_is_found_from_seeds_and_port(dev):
    """Without --nimbus, the leader is asked of nimbus.seeds on nimbus.thrift.port (-c)."""
    code, out, err = run_cli("list", "-c", 'nimbus.seeds=["127.0.0.1"]',
                             "-c", "nimbus.thrift.port=%d" % dev.port)
    assert code == 0, err
    assert out.startswith(("Topology_name", "No topologies running."))


def test_nimbus_is_found_from_storm_conf_dir(dev, tmp_path):
    """$STORM_CONF_DIR/storm.yaml's nimbus.seeds and nimbus.thrift.port say where Nimbus is,
    as for the storm client; --config names another file."""
    (tmp_path / "storm.yaml").write_text(
        'nimbus.seeds: ["127.0.0.1"]\nnimbus.thrift.port: %d\n' % dev.port)
    env = dict(os.environ, STORM_CONF_DIR=str(tmp_path))
    code, out, err = run_cli("list", env=env)
    assert code == 0, err
    code, _, err = run_cli("list", "--config", str(tmp_path / "storm.yaml"))
    assert code == 0, err


UNREACHABLE_ADVICE = ("is `pynimbus dev` (or another Nimbus) running? Start it, or name the "
                      "Nimbus to use with --nimbus HOST:PORT\n")


def test_an_unreachable_nimbus_is_one_line_saying_what_to_check_and_exit_1():
    """Nothing listens: exit 1 with one line naming the Nimbus tried, the transport failure,
    and what to do (is dev running? --nimbus); found from the seeds likewise."""
    port = free_port()
    code, out, err = run_cli("list", "--nimbus", "127.0.0.1:%d" % port)
    assert (code, out) == (1, "")
    assert err.startswith("pynimbus list: cannot reach Nimbus at 127.0.0.1:%d "
                          "(TTransportException: " % port)
    assert err.endswith("): " + UNREACHABLE_ADVICE) and err.count("\n") == 1
    code, _, err = run_cli("kill", "x", "-c", 'nimbus.seeds=["127.0.0.1"]',
                           "-c", "nimbus.thrift.port=%d" % port)
    assert code == 1 and err.startswith(
        "pynimbus kill: Could not find leader nimbus from seed hosts ['127.0.0.1'] (port %d)"
        % port)
    assert err.endswith("; " + UNREACHABLE_ADVICE) and err.count("\n") == 1


def test_submitting_an_alive_name_again_is_refused_before_uploading(dev, submitted, tmp_path):
    """A second submit of an alive name: exit 1 saying the name is not allowed, no upload."""
    root = finite_word_count(tmp_path, package="cliwc_again")
    code, out, err = run_cli("submit", "topologies/cliwc_again_count.py", "--name", "cli_wc",
                             *nimbus(dev), cwd=root)
    assert code == 1 and "Uploading" not in out
    assert err == ("pynimbus submit: a topology named 'cli_wc' is alive already: kill it "
                   "first (pynimbus kill cli_wc), or submit with another --name\n")


def test_an_invalid_name_says_which_characters_and_suggests_no_kill(dev, tmp_path):
    """A name with characters Storm refuses: exit 1 naming them, no upload, no kill advice."""
    root = finite_word_count(tmp_path, package="badname")
    code, out, err = run_cli("submit", "topologies/badname_count.py", "--name", "my.wc/2",
                             *nimbus(dev), "-c", "topology.workers=1", cwd=root)
    assert code == 1 and "Uploading" not in out
    assert err == ("pynimbus submit: the topology name 'my.wc/2' holds '.', '/', which Storm "
                   "does not allow in a name; give another with --name\n")


def test_an_empty_name_is_refused_before_anything_else(tmp_path):
    root = finite_word_count(tmp_path, package="emptyname")
    code, out, err = run_cli("submit", "topologies/emptyname_count.py", "--name", "",
                             "--nimbus", "127.0.0.1:1", cwd=root)
    assert (code, out) == (1, "")
    assert err == ("pynimbus submit: --name cannot be empty: leave it out to name the "
                   "topology after its file, or give a name\n")


def test_submitting_with_no_supervisor_registered_says_so(dev, tmp_path):
    """sparse's worker count is one per supervisor host: with none registered and no
    topology.workers given, the submit says nothing would run it (not Storm's "must be a
    Positive Number" for a count the user never set), and nothing is submitted."""
    root = finite_word_count(tmp_path, package="nosup")
    code, out, err = run_cli("submit", "topologies/nosup_count.py", *nimbus(dev), cwd=root)
    assert code == 1 and "Uploading" not in out
    assert err == ("pynimbus submit: no supervisor is registered with this Nimbus, so nothing "
                   "would run the topology (and sparse's topology.workers, one per supervisor "
                   "host, would be 0): start `pynimbus dev` (it runs one), or `pynimbus "
                   "supervisor`, or set the count with -c topology.workers=N\n")
    assert "nosup_count" not in statuses(dev)


def test_a_bolt_subscribing_to_a_missing_component_names_both(tmp_path):
    """A streamparse topology whose bolt takes input from a spec the Topology does not hold:
    exit 1 naming the bolt and the component, before any connection."""
    root = finite_word_count(tmp_path, package="orphan")
    topology_file = os.path.join(root, "topologies", "orphan_count.py")
    with open(topology_file) as f:
        text = f.read()
    with open(topology_file, "w") as f:
        f.write(text.replace("class ", "stray = WordSpout.spec(name='stray_spout')"
                                       "\n\n\nclass ", 1)
                .replace("inputs={word_spout:", "inputs={stray:"))
    code, _, err = run_cli("submit", "topologies/orphan_count.py", "--nimbus", "127.0.0.1:1",
                           cwd=root)
    assert code == 1, err
    assert ("component count_bolt subscribes to stray_spout, which the topology does not "
            "define" in err), err
    assert "Transport" not in err


def test_submit_of_a_bad_project_fails_before_connecting(tmp_path):
    """A topology file that does not exist: exit 1 naming it, no connection attempted."""
    code, _, err = run_cli("submit", "topologies/none.py", "--nimbus", "127.0.0.1:1",
                           cwd=str(tmp_path))
    assert code == 1 and "no topology file" in err and "Transport" not in err


def test_submit_wait_gives_up_when_nothing_runs_it(dev, tmp_path):
    """--wait on a cluster with no supervisor: exit 1 after --wait-timeout, counting the
    executors without a heartbeat."""
    root = finite_word_count(tmp_path, package="nowait")
    code, out, err = run_cli("submit", "topologies/nowait_count.py", *nimbus(dev),
                             "-c", "topology.workers=1", "--wait", "--wait-timeout", "1",
                             cwd=root)
    assert code == 1 and "Submitted topology: nowait_count" in out
    assert "is not running after 1.0s: 0 of" in err


def test_submit_sends_sparses_conf_and_the_dsl_topology(dev, submitted):
    """What Nimbus stored: the conf sparse builds (-c over the Topology's config, the
    original name, storm.workers.list from the registered supervisors: none here) and the
    DSL's shell components running `streamparse_run -s json module.Class`."""
    import json
    with NimbusClient("127.0.0.1", dev.port, timeout=10) as client:
        [storm_id] = [t.id for t in client.getClusterInfo().topologies if t.name == submitted]
        conf = json.loads(client.getTopologyConf(storm_id))
        topology = client.getUserTopology(storm_id)
    assert conf["topology.name"] == "cli_wc"
    assert conf["topology.original_name"] == "cliwc_count"
    assert (conf["topology.workers"], conf["topology.acker.executors"]) == (1, 0)
    assert conf["storm.workers.list"] == []
    spout = topology.spouts["word_spout"].spout_object.shell
    assert (spout.execution_command, spout.script) == ("streamparse_run",
                                                       "-s json cliwc.spouts.WordSpout")
    assert topology.bolts["count_bolt"].common.parallelism_hint == 2


def test_submit_without_streamparse_names_the_extra_before_importing_the_project(tmp_path):
    """A Python that cannot import streamparse (here: a package of that name that fails, first
    on the path, as an uninstalled one would): exit 1 saying how to install the extra, and the
    topology file is never run."""
    blocker = tmp_path / "blocker" / "streamparse"
    blocker.mkdir(parents=True)
    blocker.joinpath("__init__.py").write_text(
        "raise ImportError(\"No module named 'streamparse'\")\n")
    root = finite_word_count(tmp_path, package="nosp")
    marker = tmp_path / "imported"
    topology_file = os.path.join(root, "topologies", "nosp_count.py")
    with open(topology_file) as f:
        text = f.read()
    with open(topology_file, "w") as f:
        f.write("open(%r, 'w').close()\n" % str(marker) + text)
    env = child_env()
    env["PYTHONPATH"] = os.pathsep.join(
        p for p in (str(blocker.parent), env.get("PYTHONPATH")) if p)
    code, out, err = run_cli("submit", "topologies/nosp_count.py", "--nimbus", "127.0.0.1:1",
                             cwd=root, env=env)
    assert (code, out) == (1, "")
    assert err.startswith("pynimbus submit: streamparse, which reads the project, is not "
                          "installed for ")
    assert "-m pip install '.[streamparse]'` in pynimbus's source directory" in err
    assert not marker.exists()


def test_status_shows_the_topology_and_with_watch_shows_it_again_until_ctrl_c(dev, submitted):
    """status prints the summary and a row per component; --watch prints a frame every SECS
    (on a pipe, one after another) until SIGINT, then exits 0; an unknown name is one line."""
    code, out, err = run_cli("status", submitted, *nimbus(dev))
    assert code == 0, err
    lines = out.splitlines()
    assert lines[0].startswith("Topology cli_wc (cli_wc-") and ": ACTIVE, up " in lines[0]
    assert [line.split()[:2] for line in lines[4:6]] == [["word_spout", "spout"],
                                                         ["count_bolt", "bolt"]]
    watch = subprocess.Popen(
        [sys.executable, "-m", "pynimbus.cli", "status", submitted, "--watch", "0.2",
         *nimbus(dev)], cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        env=child_env(), preexec_fn=_default_sigint)  # Ctrl-C's action, as at a terminal
    try:
        frames = 0
        for line in watch.stdout:  # bounded: the process is killed in finally
            frames += line.startswith("Topology cli_wc (")
            if frames == 3:
                break
        assert frames == 3
        watch.send_signal(signal.SIGINT)
        # read on while it stops: a full pipe would hold its last write (and its exit's flush)
        _, err = watch.communicate(timeout=30)
        assert watch.returncode == 0, err
    finally:
        if watch.poll() is None:
            watch.kill()
            watch.wait(10)
    code, out, err = run_cli("status", "nosuch", *nimbus(dev))
    assert (code, out) == (1, "")
    assert err == ("pynimbus status: no topology named 'nosuch' is alive (pynimbus list shows "
                   "those that are)\n")
