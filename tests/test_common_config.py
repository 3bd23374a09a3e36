"""Configuration is read as Storm reads it: defaults, storm.yaml, then -c options."""

import os
import subprocess
import sys

import pytest

from nimbus_process import REPO
from pynimbus_path import child_env
from pynimbus.cli import main as cli
from pynimbus.common.config import (
    PATH_SETTINGS, ConfigError, absolute_paths, default_config, embedded_state_dir,
    parse_command_line_opt, read_storm_config, storm_yaml_path, uses_zookeeper)


def test_defaults_carry_storms_values():
    """Storm's defaults are present with Storm 1.2.4's values."""
    conf = default_config()
    assert conf["nimbus.thrift.port"] == 6627
    assert conf["nimbus.thrift.max_buffer_size"] == 1048576
    assert conf["storm.zookeeper.root"] == "/storm"
    assert conf["nimbus.monitor.freq.secs"] == 10
    assert conf["supervisor.slots.ports"] == [6700, 6701, 6702, 6703]


def test_no_zookeeper_servers_by_default_selects_the_embedded_store():
    """With no servers configured the embedded store is used, rooted under storm.local.dir."""
    conf = default_config()
    assert not uses_zookeeper(conf)
    assert embedded_state_dir(dict(conf, **{"storm.local.dir": "/x"})) == "/x/embedded-state"


def test_storm_yaml_overrides_defaults_and_options_override_yaml(tmp_path):
    """storm.yaml beats the defaults and -c beats storm.yaml."""
    yaml_file = tmp_path / "storm.yaml"
    yaml_file.write_text("nimbus.thrift.port: 7000\nstorm.zookeeper.servers: [zk1]\n")
    conf = read_storm_config(str(yaml_file), ["nimbus.thrift.port=7001"])
    assert conf["nimbus.thrift.port"] == 7001
    assert conf["storm.zookeeper.servers"] == ["zk1"]
    assert uses_zookeeper(conf)


def test_storm_conf_dir_is_read_when_no_file_is_given(tmp_path):
    """$STORM_CONF_DIR/storm.yaml is read when --config is not given."""
    (tmp_path / "storm.yaml").write_text("topology.workers: 3\n")
    assert storm_yaml_path(environ={"STORM_CONF_DIR": str(tmp_path)}) == str(tmp_path / "storm.yaml")
    conf = read_storm_config(environ={"STORM_CONF_DIR": str(tmp_path)})
    assert conf["topology.workers"] == 3


@pytest.mark.parametrize("option, expected", [
    ("a=1", ("a", 1)),
    ("a=[1, 2]", ("a", [1, 2])),
    ('a="quoted"', ("a", "quoted")),
    ("a=plain text", ("a", "plain text")),
    ("a=x=y", ("a", "x=y")),
    ("a=true", ("a", True)),
])
def test_command_line_values_are_json_or_strings(option, expected):
    """-c values are parsed as JSON and taken as strings where they are not JSON."""
    assert parse_command_line_opt(option) == expected


@pytest.mark.parametrize("option", ["novalue", "=1", ""])
def test_malformed_options_are_refused(option):
    """An option without a key or '=' is a ConfigError naming it."""
    with pytest.raises(ConfigError, match="key=value"):
        parse_command_line_opt(option)


def test_unreadable_or_non_mapping_yaml_is_refused(tmp_path):
    """A missing file, bad YAML or a YAML list is a ConfigError naming the file."""
    with pytest.raises(ConfigError, match="cannot read"):
        read_storm_config(str(tmp_path / "missing.yaml"))
    bad = tmp_path / "bad.yaml"
    bad.write_text("a: [1\n")
    with pytest.raises(ConfigError, match="not valid YAML"):
        read_storm_config(str(bad))
    listy = tmp_path / "list.yaml"
    listy.write_text("- 1\n")
    with pytest.raises(ConfigError, match="mapping"):
        read_storm_config(str(listy))


def test_dev_binds_loopback_and_keeps_user_choices(tmp_path):
    """`pynimbus dev` defaults to loopback and localhost, but the user's storm.yaml wins."""
    args = cli.build_parser().parse_args(["dev", "-c", "nimbus.thrift.port=7002"])
    conf = cli.load_config(args)
    assert conf["pynimbus.thrift.bind.address"] == "127.0.0.1"
    assert conf["storm.local.hostname"] == "localhost"
    assert conf["nimbus.thrift.port"] == 7002
    yaml_file = tmp_path / "storm.yaml"
    yaml_file.write_text("storm.local.hostname: myhost\n")
    args = cli.build_parser().parse_args(["dev", "--config", str(yaml_file)])
    assert cli.load_config(args)["storm.local.hostname"] == "myhost"


def test_relative_path_settings_are_made_absolute_against_the_daemons_directory(tmp_path):
    """storm.local.dir (Storm's default, the relative "storm-local") and every other path
    setting given relative are resolved against the directory the daemon starts in; absolute
    ones and unset ones stay as they are, and the client commands resolve nothing."""
    given = ["-c", "storm.log.dir=logs/../my-logs", "-c", "blobstore.dir=/srv/blobs"]
    for command in ("dev", "nimbus", "supervisor"):
        conf = cli.load_config(cli.build_parser().parse_args([command] + given),
                               cwd=str(tmp_path))
        assert conf["storm.local.dir"] == str(tmp_path / "storm-local")
        assert conf["storm.log.dir"] == str(tmp_path / "my-logs")
        assert conf["blobstore.dir"] == "/srv/blobs"
        assert conf.get("pynimbus.embedded.state.dir") is None
        assert embedded_state_dir(conf) == str(tmp_path / "storm-local" / "embedded-state")
    conf = cli.load_config(cli.build_parser().parse_args(["list"]), cwd=str(tmp_path))
    assert conf["storm.local.dir"] == "storm-local"
    assert set(PATH_SETTINGS) >= {"storm.local.dir", "storm.log.dir"}
    original = {"storm.local.dir": "here"}
    assert absolute_paths(original, "/base") == {"storm.local.dir": "/base/here"}
    assert original == {"storm.local.dir": "here"}


def test_version_and_help(capsys):
    """--version names the version; every subcommand has help."""
    parser = cli.build_parser()
    with pytest.raises(SystemExit):
        parser.parse_args(["--version"])
    assert "pynimbus" in capsys.readouterr().out
    for command in ("nimbus", "dev"):
        with pytest.raises(SystemExit):
            parser.parse_args([command, "--help"])
        assert "--config" in capsys.readouterr().out


def test_version_names_both_storm_generations(capsys):
    """--version names the Storm 1.2.4 and 2.8.8 generations pynimbus follows."""
    with pytest.raises(SystemExit):
        cli.build_parser().parse_args(["--version"])
    out = capsys.readouterr().out
    assert "1.2.4" in out and "2.8.8" in out


@pytest.mark.parametrize("option, key, expected_type", [
    ("nimbus.thrift.port=abc", "nimbus.thrift.port", "Integer"),
    ("nimbus.monitor.freq.secs=0.5", "nimbus.monitor.freq.secs", "Integer"),
    ("storm.zookeeper.servers=zk1", "storm.zookeeper.servers", "Iterable"),
    ("nimbus.thrift.max_buffer_size=-1", "nimbus.thrift.max_buffer_size", "Positive Number"),
])
def test_a_bad_option_value_names_the_key_and_the_expected_type(option, key, expected_type):
    """-c key=value with a value Storm's validators refuse is a ConfigError naming the option,
    the key and the type Storm expects."""
    with pytest.raises(ConfigError) as refused:
        read_storm_config(options=[option], environ={})
    message = str(refused.value)
    assert "-c " + option in message and key in message and expected_type in message, message


def test_a_bad_storm_yaml_value_names_the_file_and_the_key(tmp_path):
    """A storm.yaml value of the wrong type is a ConfigError naming the file and the key."""
    yaml_file = tmp_path / "storm.yaml"
    yaml_file.write_text("nimbus.seeds: localhost\n")
    with pytest.raises(ConfigError) as refused:
        read_storm_config(str(yaml_file), environ={})
    message = str(refused.value)
    assert str(yaml_file) in message and "nimbus.seeds" in message, message


def test_a_bad_option_value_is_refused_in_2x_mode_too():
    """In 2.x mode the values are checked with Storm 2.8.8's validators."""
    with pytest.raises(ConfigError, match="topology.workers.*Integer"):
        read_storm_config(options=["pynimbus.storm.compat=2.x", "topology.workers=two"],
                          environ={})


def test_a_bad_daemon_value_is_refused_in_2x_mode_with_the_daemon_validators():
    """2.8.8 keeps nimbus keys in DaemonConfig, with 1.2.4's validators: they are checked too,
    and a value only 2.8.8 accepts (logs.users as one string) is not refused."""
    with pytest.raises(ConfigError, match="nimbus.monitor.freq.secs.*Integer"):
        read_storm_config(options=["pynimbus.storm.compat=2.x", "nimbus.monitor.freq.secs=x"],
                          environ={})
    conf = read_storm_config(options=["pynimbus.storm.compat=2.x", "logs.users=alice"],
                             environ={})
    assert conf["logs.users"] == "alice"


@pytest.mark.parametrize("compat", ["1.x", "2.x"])
def test_the_defaults_pass_storms_validators(compat):
    """Every default of either generation passes, as an option, the check a value gets."""
    from pynimbus.common.config import check_values
    check_values(default_config(compat), {}, compat)


def test_cli_exits_2_with_the_message_for_a_bad_value(tmp_path):
    """`pynimbus dev -c nimbus.thrift.port=abc` exits 2 before starting, saying why."""
    done = subprocess.run(
        [sys.executable, "-m", "pynimbus.cli", "dev", "-c", "nimbus.thrift.port=abc",
         "-c", "storm.local.dir=%s" % tmp_path], cwd=str(tmp_path), stdin=subprocess.DEVNULL,
        capture_output=True, text=True, timeout=60,
        env=child_env())
    assert done.returncode == 2, done.stderr
    assert "nimbus.thrift.port" in done.stderr and "Integer" in done.stderr, done.stderr
    assert not (tmp_path / "logs").exists()  # refused before anything was set up


@pytest.mark.parametrize("key", ["pynimbus.read.cache.poll.secs",
                                 "pynimbus.nimbus.switch.interval.secs",
                                 "pynimbus.supervisor.worker.restart.delay.secs",
                                 "pynimbus.supervisor.worker.restart.max.delay.secs"])
@pytest.mark.parametrize("value", ["0", "-1", "abc", "true", "null"])
def test_a_period_that_is_no_positive_number_is_refused(key, value):
    """pynimbus.read.cache.poll.secs and pynimbus.nimbus.switch.interval.secs are numbers
    of seconds above 0; anything else stops start-up naming the option and what it must be
    (a fraction of a second is fine)."""
    option = key + "=" + value
    with pytest.raises(ConfigError) as refused:
        read_storm_config(options=[option], environ={})
    message = str(refused.value)
    assert "-c " + option in message and "a number above 0" in message, message
    conf = read_storm_config(options=[key + "=0.25"], environ={})
    assert conf[key] == 0.25


@pytest.mark.parametrize("value", ["0", "-1", "abc", "true"])
def test_a_full_collection_period_that_is_no_positive_number_nor_null_is_refused(value):
    """pynimbus.nimbus.gc.full.secs is a number of seconds above 0, or null (Python's own
    schedule); anything else stops start-up naming the option."""
    option = "pynimbus.nimbus.gc.full.secs=" + value
    with pytest.raises(ConfigError) as refused:
        read_storm_config(options=[option], environ={})
    message = str(refused.value)
    assert "-c " + option in message and "a number above 0 (or null)" in message, message
    for fine, read in (("null", None), ("0.5", 0.5)):
        conf = read_storm_config(options=["pynimbus.nimbus.gc.full.secs=" + fine], environ={})
        assert conf["pynimbus.nimbus.gc.full.secs"] == read


def test_every_subcommand_has_a_description_and_every_argument_its_help():
    """`pynimbus COMMAND --help` says what the command does and what each argument is; dev's
    says it runs a supervisor with 4 slots, -c's that a value that is not JSON is a string."""
    import argparse
    parser = cli.build_parser()
    [commands] = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    assert set(commands.choices) >= {"nimbus", "dev", "supervisor", "submit", "kill", "list",
                                     "status", "activate", "deactivate", "rebalance"}
    for name, command in commands.choices.items():
        assert command.description, name
        for action in command._actions:
            assert action.help, (name, action.dest)
    assert "supervisor with 4 slots" in " ".join(commands.choices["dev"].format_help().split())
    c_help = [a.help for a in commands.choices["dev"]._actions if a.dest == "options"][0]
    assert "one that is not JSON is a string" in c_help


# The settings users set in storm.yaml or with -c: their names are a public interface, kept
# whatever module reads them (a move of the module that reads one once renamed two of them).
PUBLIC_SETTINGS = (
    "pynimbus.embedded.state.dir", "pynimbus.nimbus.gc.full.secs",
    "pynimbus.nimbus.switch.interval.secs", "pynimbus.read.cache",
    "pynimbus.read.cache.poll.secs", "pynimbus.scheduler", "pynimbus.storm.compat",
    "pynimbus.supervisor.jar.max.entries", "pynimbus.supervisor.jar.max.extracted.bytes",
    "pynimbus.supervisor.jar.max.ratio", "pynimbus.supervisor.worker.restart.delay.secs",
    "pynimbus.supervisor.worker.restart.max.delay.secs", "pynimbus.thrift.bind.address",
    "pynimbus.thrift.max_buffered_bytes", "pynimbus.thrift.partial_frame.timeout.secs",
    "pynimbus.topology.max.tasks", "pynimbus.upload.max.bytes", "pynimbus.worker.bind.address",
    "pynimbus.worker.inprocess", "pynimbus.worker.transport.max_buffered_bytes",
    "pynimbus.worker.transport.max_connections", "pynimbus.worker.transport.max_frame_bytes",
    "pynimbus.worker.transport.partial_frame.timeout.secs")


def test_the_public_settings_keep_their_names_and_are_documented():
    from pynimbus.common.config import PYNIMBUS_DEFAULTS
    with open(os.path.join(REPO, "docs", "operations.md")) as f:
        operations = f.read()
    assert [key for key in PUBLIC_SETTINGS if key not in PYNIMBUS_DEFAULTS] == []
    assert [key for key in PUBLIC_SETTINGS if "`%s`" % key not in operations] == []
