"""The stock ``storm`` command-line client of Storm 1.2.4 or 2.x, run against any Nimbus.

Maven Central serves no binary distribution of Storm (no ``apache-storm`` tarball, so no
``bin/storm`` script), only the jars.  So :func:`storm` does what ``bin/storm.py`` does for the
commands it supports -- it turns ``storm <command> <args>`` into one ``java`` command line and
runs it -- with the jars the distribution's ``lib`` directories would hold (resolved by
:mod:`.oracle.maven`, symlinked into a storm home under ``.cache/storm-client/<version>``).
Nothing of Storm is modified; the main classes are the release's own.

Derivation from ``bin/storm.py`` (apache/storm tags ``v1.2.4`` and ``v2.8.8``):

* Directories: ``STORM_DIR`` is the directory above ``bin``; the conf dir is
  ``$STORM_CONF_DIR`` (else ``STORM_DIR/conf``) and, unless ``~/.storm/storm.yaml`` exists, also
  the "user conf dir".  Here ``conf_dir`` plays ``$STORM_CONF_DIR`` and ``~/.storm`` is never
  looked at, so runs do not depend on the machine.
* Options understood by the script itself: ``-c key=value`` (repeatable) becomes
  ``-Dstorm.options=<each quote_plus-encoded, joined by ",">``; ``--config FILE`` becomes
  ``-Dstorm.conf.file=FILE`` (empty otherwise: the client then reads ``storm.yaml`` from the
  classpath, i.e. from the conf dir); ``--jars a,b`` are added to the classpath and to
  ``-Dstorm.dependency.jars``.  1.2.4 removes these tokens wherever they appear; 2.8.8 parses
  them with argparse (``jar``) or drops them from the raw arguments it forwards
  (``remove_common_options``, every other command).  ``--artifacts`` needs the storm-submit-tools
  resolver of a distribution and is refused here.
* Each command runs ``exec_storm_class``: ``java -client -Ddaemon.name= -Dstorm.options=...
  -Dstorm.home=STORM_DIR -Dstorm.log.dir=LOGDIR -Djava.library.path=LIBPATH
  -Dstorm.conf.file=CONFFILE -cp CLASSPATH <jvm opts> <main class> <args>``, exec'd in place of
  the script (so its exit code and output are the client's).  LOGDIR and LIBPATH are what the
  script asks ``config_value`` / ``ConfigValue`` for in two extra JVMs; those only read
  configuration, so they are computed here instead: ``storm.log.dir`` from ``-c`` or the conf
  dir's ``storm.yaml``, else ``STORM_DIR/logs``; ``java.library.path`` likewise, else
  ``defaults.yaml`` of the Storm jar.
* Classpath: ``STORM_DIR/*``, then the library directory, ``STORM_DIR/extlib/*``, for
  daemon-style commands ``STORM_DIR/extlib-daemon/*``, then the command's extra entries.  1.2.4:
  ``lib/*`` for everything; ``kill``/``activate``/``deactivate``/``list``/``rebalance`` run with
  ``daemon=True``, ``jar`` with ``daemon=False``.  2.8.8: ``jar`` uses ``lib-worker/*``
  (``client=True``, ``daemon=False``) unless ``--storm-server-classpath``; every other command
  ``lib/*`` with ``daemon=True``.  Extra entries: ``[conf dir, STORM_DIR/bin]``; for ``jar``
  ``[topology jar, conf dir, STORM_DIR/bin] + --jars``.  2.8.8 splits an empty ``--jars`` into
  ``[""]``, so its ``jar`` classpath ends with an empty entry (the working directory, here an
  empty directory of the storm home).
* ``jar`` adds ``$STORM_JAR_JVM_OPTS -Dstorm.jar=<jar> -Dstorm.dependency.jars=<--jars>
  -Dstorm.dependency.artifacts={}`` before the user's main class and its arguments (2.8.8's
  argparse moves arguments it does not know to the end, as ``parse_known_args`` does).
* Main classes: 1.2.4 ``org.apache.storm.command.{kill_topology,activate,deactivate,list,
  rebalance}`` (Clojure namespaces in storm-core), 2.8.8 ``org.apache.storm.command.{KillTopology,
  Activate,Deactivate,ListTopologies,Rebalance}`` (storm-core 2.x, in ``lib``).  2.8.8 checks
  some arguments before starting Java: argparse (a name for kill/activate/deactivate/rebalance,
  non-negative ``-w``, positive ``-n``) exits 2 with a usage message; rebalance's own
  ``-e name=count`` check raises out of the script (exit 1).  1.2.4 exits 2 when
  kill/activate/deactivate/rebalance get no argument at all.

The 2.x client is run as 2.8.3 (:data:`maven.STORM_2X`), the newest 2.x whose jars Maven
Central serves (see :mod:`.oracle.maven`); between v2.8.3 and v2.8.8 StormSubmitter changed one
log level and the commands only ``Blobstore``/``ShellSubmission``, so 2.8.8's ``bin/storm.py`` is
the one reproduced for 2.x.
"""

import argparse
import collections
import json
import os
import shlex
import shutil
import signal
import subprocess
import tempfile
import urllib.parse
import zipfile

import yaml

from .oracle import REPO, maven
from .oracle.java_daemon import java_executable, yaml_lines
from nimbus_process import LOOPBACK

HOME_ROOT = os.path.join(REPO, ".cache", "storm-client")
DEFAULT_TIMEOUT = 120.0

# bin/storm.py's command -> main class, per generation.
COMMAND_CLASSES = {
    "1.x": {"kill": "org.apache.storm.command.kill_topology",
            "activate": "org.apache.storm.command.activate",
            "deactivate": "org.apache.storm.command.deactivate",
            "list": "org.apache.storm.command.list",
            "rebalance": "org.apache.storm.command.rebalance",
            "set_log_level": "org.apache.storm.command.set_log_level"},
    "2.x": {"kill": "org.apache.storm.command.KillTopology",
            "activate": "org.apache.storm.command.Activate",
            "deactivate": "org.apache.storm.command.Deactivate",
            "list": "org.apache.storm.command.ListTopologies",
            "rebalance": "org.apache.storm.command.Rebalance",
            "set_log_level": "org.apache.storm.command.SetLogLevel",
            "drpc-client": "org.apache.storm.command.BasicDrpcClient"},
}
COMMANDS = ("jar",) + tuple(sorted(set(COMMAND_CLASSES["1.x"]) | set(COMMAND_CLASSES["2.x"])))
# Options bin/storm.py takes for itself and that this harness cannot honour.
UNSUPPORTED_OPTIONS = ("--artifacts", "--artifactRepositories", "--mavenLocalRepositoryDirectory",
                       "--proxyUrl", "--proxyUsername", "--proxyPassword")


class StormClientError(RuntimeError):
    """The client could not be run (no java, jars unavailable, unsupported invocation)."""


class StormUsageError(StormClientError):
    """bin/storm.py itself refuses the arguments, before any JVM: argparse exits with 2, a
    check of its own raises out of ``main`` (exit 1)."""

    def __init__(self, message, exit_code=2):
        super().__init__(message)
        self.exit_code = exit_code


class StormClientTimeout(StormClientError):
    """The client JVM did not exit in time; ``output`` is what it printed."""

    def __init__(self, message, output):
        super().__init__(message)
        self.output = output


def write_client_conf(conf_dir, port, host=LOOPBACK, extra=None):
    """Write ``conf_dir/storm.yaml`` for a client of the Nimbus at ``host:port``; return the
    file's path."""
    conf = {"nimbus.seeds": [host], "nimbus.thrift.port": port}
    conf.update(extra or {})
    os.makedirs(conf_dir, exist_ok=True)
    path = os.path.join(conf_dir, "storm.yaml")
    with open(path, "w") as f:
        f.write(yaml_lines(conf))
    return path


# The storm home: the layout bin/storm.py expects, with the jars Maven resolved.

class StormHome:
    """``.cache/storm-client/<version>``: ``lib`` (2.x also ``lib-worker``) holding symlinks to
    the resolved jars, empty ``extlib``, ``extlib-daemon``, ``bin`` and ``run`` (the working
    directory of the client JVMs)."""

    def __init__(self, version, root=None):
        self.version = version
        self.generation = maven.generation(version)
        self.root = root or os.path.join(HOME_ROOT, version)

    def path(self, *parts):
        return os.path.join(self.root, *parts)

    def lib_dirs(self):
        """``{directory name: [jar paths]}``; raises :class:`maven.MavenUnavailable`."""
        dirs = {"lib": maven.client_classpath(self.version, maven.CLIENT_LIB)}
        if self.generation == "2.x":
            dirs["lib-worker"] = maven.client_classpath(self.version, maven.CLIENT_LIB_WORKER)
        return dirs

    def ensure(self):
        """Create the home if missing or stale (its manifest differs); return self."""
        dirs = self.lib_dirs()
        manifest = json.dumps(dirs, sort_keys=True, indent=1)
        try:
            with open(self.path("manifest.json")) as f:
                if f.read() == manifest:
                    return self
        except OSError:
            pass
        os.makedirs(os.path.dirname(self.root), exist_ok=True)
        tmp = tempfile.mkdtemp(prefix=".%s-" % self.version, dir=os.path.dirname(self.root))
        for name in ("extlib", "extlib-daemon", "bin", "logs", "run"):
            os.makedirs(os.path.join(tmp, name))
        for name, jars in dirs.items():
            os.makedirs(os.path.join(tmp, name))
            for jar in jars:
                link = os.path.join(tmp, name, os.path.basename(jar))
                if os.path.lexists(link):
                    raise StormClientError("two jars named %s in %s"
                                           % (os.path.basename(jar), name))
                os.symlink(jar, link)
        with open(os.path.join(tmp, "manifest.json"), "w") as f:
            f.write(manifest)
        # Replace a stale home; a concurrent builder may have won the race, which is as good.
        old = None
        if os.path.isdir(self.root):
            old = tempfile.mkdtemp(prefix=".old-", dir=os.path.dirname(self.root))
            os.rename(self.root, os.path.join(old, "home"))
        try:
            os.rename(tmp, self.root)
        except OSError:
            shutil.rmtree(tmp, ignore_errors=True)
        if old:
            shutil.rmtree(old, ignore_errors=True)
        return self

    def defaults_yaml_value(self, key):
        """``key``'s value in ``defaults.yaml`` of the release's Storm jar (None if unset)."""
        jar_name = "storm-core" if self.generation == "1.x" else "storm-client"
        for jar in maven.client_classpath(self.version, maven.CLIENT_LIB):
            if os.path.basename(jar).startswith(jar_name + "-"):
                with zipfile.ZipFile(jar) as z:
                    text = z.read("defaults.yaml").decode("utf-8")
                return _yaml_value(text, key)
        return None


def _yaml_value(text, key):
    return (yaml.safe_load(text) or {}).get(key)


def _conf_value(home, conf_file, options, key):
    """What ``config_value <key>`` prints for this invocation: ``-c`` options, else the conf
    file (``--config`` or ``<conf dir>/storm.yaml``), else ``defaults.yaml``; None for nil."""
    for option in reversed(options):
        name, sep, value = option.partition("=")
        if sep and name == key:
            return yaml.safe_load(value)
    try:
        with open(conf_file) as f:
            value = _yaml_value(f.read(), key)
        if value is not None:
            return value
    except OSError:
        pass
    return home.defaults_yaml_value(key)


# Parsing the command line as each bin/storm.py does.

def _parse_v1(argv):
    """1.2.4 ``parse_config_opts``: pull out ``-c``, ``--config``, ``--jars`` anywhere."""
    options, jars, conf_file, rest = [], [], "", []
    tokens = list(argv)
    i = 0
    while i < len(tokens):
        token = tokens[i]
        if token in UNSUPPORTED_OPTIONS:
            raise StormClientError("%s needs a Storm distribution's dependency resolver" % token)
        if token in ("-c", "--config", "--jars"):
            if i + 1 >= len(tokens):
                raise StormClientError("%s needs a value" % token)
            value = tokens[i + 1]
            if token == "-c":
                options.append(value)
            elif token == "--config":
                conf_file = value
            else:
                jars.extend(value.split(","))
            i += 2
            continue
        rest.append(token)
        i += 1
    return options, conf_file, jars, rest


class _Parser(argparse.ArgumentParser):
    def error(self, message):
        raise StormUsageError("%s: error: %s" % (self.prog, message))


def _non_negative(value):
    number = int(value)
    if number < 0:
        raise argparse.ArgumentTypeError("%s is not a non-zero integer" % value)
    return number


def _positive(value):
    number = int(value)
    if number <= 0:
        raise argparse.ArgumentTypeError("%s is not a positive integer" % value)
    return number


def _logger_level(value):
    """2.8.8 ``set_log_level``'s check of ``-l``: ``name=level[:int timeout]``."""
    try:
        _name, new_value = value.split("=")
        if ":" in new_value:
            int(new_value.split(":")[1])
    except ValueError:
        raise argparse.ArgumentTypeError(
            "Should be in the form[logger name]=[log level][:optional timeout]")
    return value


def _parser_v2(command):
    """The 2.8.8 sub-command's argparse definition (the options storm.py checks itself)."""
    p = _Parser(prog="storm " + command, add_help=False)
    p.add_argument("--config", default=None)
    p.add_argument("-storm_config_opts", "-c", action="append", default=[])
    if command == "jar":
        p.add_argument("topology_jar_path")
        p.add_argument("topology_main_class")
        p.add_argument("--jars", default="")
        for option in UNSUPPORTED_OPTIONS:
            p.add_argument(option, default="")
        p.add_argument("--storm-server-classpath", action="store_true")
    elif command in ("kill", "activate", "deactivate", "rebalance"):
        if command == "kill":
            p.add_argument("-w", "--wait-time-secs", type=_non_negative)
        if command == "rebalance":
            p.add_argument("-w", "--wait-time-secs", type=_non_negative)
            p.add_argument("-n", "--num-workers", type=_positive)
            p.add_argument("-e", "--executor", action="append", default=[])
            p.add_argument("-r", "--resources")
            p.add_argument("-t", "--topology-conf")
        p.add_argument("topology-name")
    elif command == "set_log_level":
        p.add_argument("-l", action="append", default=[], type=_logger_level)
        p.add_argument("-r", action="append", default=[])
        p.add_argument("topology-name")
    elif command == "drpc-client":
        p.add_argument("-f", "--function")
    p.add_argument("main_args", nargs="*")
    return p


def _remove_common_options(args):
    """2.8.8 ``remove_common_options``: drop ``-c``/``-storm_config_opts``/``--config`` and the
    token after each."""
    flags = ("-c", "-storm_config_opts", "--config")
    return [a for i, a in enumerate(args) if a not in flags and (i < 1 or args[i - 1] not in flags)]


# Building the java command line.

def _classpath(home, lib_dir, daemon, extra):
    entries = [home.path("*"), home.path(lib_dir, "*"), home.path("extlib", "*")]
    if daemon:
        entries.append(home.path("extlib-daemon", "*"))
    return os.pathsep.join(entries + list(extra))


# What bin/storm.py makes of its arguments: the command, the arguments it passes on, -c options,
# --config, --jars, which library directory and whether the daemon classpath entries are added.
Invocation = collections.namedtuple(
    "Invocation", "command args options conf_file jars lib_dir daemon")


def _invocation_v1(argv):
    """1.2.4: options pulled out anywhere, then ``COMMANDS[argv[0]](*rest)``."""
    options, conf_file, jars, rest = _parse_v1(argv)
    if not rest:
        raise StormUsageError("storm: no command")
    command, args = rest[0], rest[1:]
    if command in ("kill", "activate", "deactivate", "rebalance") and not args:
        raise StormUsageError("storm %s: a topology name is needed" % command)
    # exec_storm_class's default daemon=True; jar passes daemon=False.
    return Invocation(command, args, options, conf_file, jars, "lib", command != "jar")


def _invocation_v2(argv):
    """2.8.8: argparse per sub-command; ``jar`` forwards the parsed main arguments, every other
    command its raw arguments without the common options."""
    command, args = argv[0], argv[1:]
    if command not in COMMANDS:
        raise StormClientError("unsupported command %r (supported: %s)"
                               % (command, ", ".join(COMMANDS)))
    parsed, unknown = _parser_v2(command).parse_known_args(args)
    for option in UNSUPPORTED_OPTIONS:
        if getattr(parsed, option.lstrip("-"), ""):
            raise StormClientError("%s needs a Storm distribution's dependency resolver" % option)
    if command == "rebalance":
        for executor in parsed.executor:
            parts = executor.split("=")
            try:
                valid = len(parts) == 2 and int(parts[1]) >= 0
            except ValueError:
                valid = False
            if not valid:
                raise StormUsageError("argparse.ArgumentTypeError: Should be in the form "
                                      "component_name=new_executor_count", exit_code=1)
    options, conf_file = parsed.storm_config_opts, parsed.config or ""
    if command != "jar":
        return Invocation(command, _remove_common_options(args), options, conf_file, [], "lib",
                          True)
    main = [parsed.topology_jar_path, parsed.topology_main_class] + parsed.main_args + unknown
    lib_dir = "lib" if parsed.storm_server_classpath else "lib-worker"
    return Invocation(command, main, options, conf_file, parsed.jars.split(","), lib_dir, False)


def java_command(version, conf_dir, argv, java=None, env=None):
    """The ``java`` command line bin/storm.py of ``version`` runs for ``storm <argv>``.

    :raises StormUsageError: arguments bin/storm.py refuses itself (exit code 2).
    :raises StormClientError: java missing, unsupported command or option.
    :raises maven.MavenUnavailable: the jars cannot be resolved.
    """
    env = {} if env is None else env
    java = java or java_executable()
    if java is None:
        raise StormClientError("no java executable (set JAVA_HOME or PYNIMBUS_ORACLE_JAVA)")
    if not argv:
        raise StormUsageError("storm: no command")
    generation = maven.generation(version)
    inv = (_invocation_v1 if generation == "1.x" else _invocation_v2)(list(argv))
    if inv.command not in COMMANDS:
        raise StormClientError("unsupported command %r (supported: %s)"
                               % (inv.command, ", ".join(COMMANDS)))
    home = StormHome(version).ensure()
    conf_dir = os.path.abspath(conf_dir)
    conf_file = inv.conf_file or os.path.join(conf_dir, "storm.yaml")
    jvm_opts = []
    if inv.command == "jar":
        if len(inv.args) < 2:
            raise StormUsageError("storm jar: a jar and a main class are needed")
        jar, klass, main_args = os.path.abspath(inv.args[0]), inv.args[1], inv.args[2:]
        extra = [jar, conf_dir, home.path("bin")] + inv.jars
        jvm_opts = shlex.split(env.get("STORM_JAR_JVM_OPTS", "")) + [
            "-Dstorm.jar=" + jar, "-Dstorm.dependency.jars=" + ",".join(inv.jars),
            "-Dstorm.dependency.artifacts=" + json.dumps({})]
    else:
        if inv.command not in COMMAND_CLASSES[generation]:
            raise StormClientError("Storm %s's client has no %r command" % (version, inv.command))
        klass, main_args = COMMAND_CLASSES[generation][inv.command], inv.args
        extra = [conf_dir, home.path("bin")]
    log_dir = _conf_value(home, conf_file, inv.options, "storm.log.dir") or home.path("logs")
    library_path = _conf_value(home, conf_file, inv.options, "java.library.path") or ""
    return [java, "-client", "-Ddaemon.name=",
            "-Dstorm.options=" + ",".join(urllib.parse.quote_plus(o) for o in inv.options),
            "-Dstorm.home=" + home.root,
            "-Dstorm.log.dir=" + str(log_dir),
            "-Djava.library.path=" + str(library_path),
            "-Dstorm.conf.file=" + inv.conf_file,
            "-cp", _classpath(home, inv.lib_dir, inv.daemon, extra)
            ] + jvm_opts + [klass] + list(main_args)


def storm(version, conf_dir, *argv, timeout=DEFAULT_TIMEOUT, java=None, env=None):
    """Run ``storm <argv>`` of Storm ``version`` with ``conf_dir`` as ``$STORM_CONF_DIR``.

    Returns a ``subprocess.CompletedProcess`` (text ``stdout``/``stderr``, ``args`` = the java
    command line).  Arguments bin/storm.py refuses itself give its exit code (2 for argparse)
    and the message on stderr, without starting Java.

    :param env: variables bin/storm.py reads (``STORM_JAR_JVM_OPTS``); the JVM inherits
        ``os.environ``.
    :raises StormClientTimeout: the JVM ran longer than ``timeout`` s (its process group is killed).
    :raises StormClientError: java missing, unsupported command or option.
    :raises maven.MavenUnavailable: the jars cannot be resolved.
    """
    try:
        cmd = java_command(version, conf_dir, argv, java=java, env=env)
    except StormUsageError as e:
        return subprocess.CompletedProcess(["storm"] + list(argv), e.exit_code, "",
                                           str(e) + "\n")
    proc = subprocess.Popen(cmd, cwd=StormHome(version).path("run"), stdin=subprocess.DEVNULL,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            start_new_session=True)
    try:
        out, err = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        out, err = proc.communicate()
        raise StormClientTimeout("storm %s (Storm %s) did not exit within %.0f s"
                                 % (" ".join(argv), version, timeout),
                                 (out + err).decode("utf-8", "replace"))
    return subprocess.CompletedProcess(cmd, proc.returncode, out.decode("utf-8", "replace"),
                                       err.decode("utf-8", "replace"))


def unavailable_reason(version):
    """Why the ``storm`` client of ``version`` cannot run here (resolving its jars), or None."""
    java = java_executable()
    if java is None or not os.access(shutil.which(java) or java, os.X_OK):
        return "no java executable (set JAVA_HOME or PYNIMBUS_ORACLE_JAVA)"
    try:
        StormHome(version).ensure()
    except maven.MavenUnavailable as e:
        return str(e)
    return None
