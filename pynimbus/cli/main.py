"""The ``pynimbus`` command: ``nimbus``, ``dev`` and ``supervisor``, with Storm-style options.

``pynimbus [--config FILE] [-c key=value ...] nimbus`` runs Nimbus with the configuration read
as Storm reads it (:mod:`pynimbus.common.config`).  ``pynimbus dev`` runs the same Nimbus for one
machine: the embedded cluster-state store, loopback only, host name ``localhost`` (the default
``nimbus.seeds`` of the stock ``storm`` client).  Storm supervisors need ZooKeeper, so one joins
a dev nimbus on the same host only once ``storm.zookeeper.servers`` is set; until a supervisor is
registered, dev says so (:mod:`pynimbus.cli.dev_cluster`).

For the operator: the log names the storm.yaml read, a bad value is refused before start with its
key and expected type, a call refused on purpose is one WARN line (:mod:`pynimbus.thrift.errors`),
and a signal arriving while Nimbus stops is only noted.

``pynimbus supervisor`` runs the Python supervisor (:mod:`pynimbus.supervisor.daemon`) with the
same configuration handling; SIGTERM or SIGINT stops it and leaves its workers running, as
Storm's supervisor does (a supervisor started again on the same ``storm.local.dir`` adopts them).
With ``pynimbus.storm.compat: "2.x"`` it is a 2.8.8 supervisor (the Supervisor Thrift service on
``supervisor.thrift.port``, assignments and heartbeats over RPC).

``pynimbus dev`` and ``pynimbus supervisor`` put their Python's script directory first on
``PATH``, so the workers' multilang commands installed beside pynimbus (``streamparse_run``)
come from its environment.

``pynimbus submit/kill/list/activate/deactivate/rebalance`` are clients of a running Nimbus
(:mod:`pynimbus.tools.client_commands`): they read the same configuration to find it and log
nothing.
"""

import argparse
import logging
import os
import signal
import sys

from twisted.internet.error import ReactorNotRunning

from pynimbus import STORM_VERSION, STORM_VERSION_2X, __version__
from pynimbus.common.config import (
    ConfigError, absolute_paths, read_storm_config, storm_log_dir, storm_yaml_path)
from pynimbus.thrift.errors import RefusalLogFilter
from pynimbus.tools.client_commands import CLIENT_COMMANDS, add_client_commands, run_client_command

log = logging.getLogger("pynimbus")

DEV_DEFAULTS = {
    "pynimbus.thrift.bind.address": "127.0.0.1",
    "pynimbus.worker.bind.address": "127.0.0.1",
    "storm.local.hostname": "localhost",
    "nimbus.seeds": ["localhost"],
    # one Python supervisor in the dev process, on supervisor.slots.ports (false: none)
    "pynimbus.dev.supervisor": True,
    # a DRPC server in the dev process, on drpc.port and drpc.invocations.port (false: none)
    "pynimbus.dev.drpc": True,
    "pynimbus.drpc.bind.address": "127.0.0.1",
    # the UI's REST API in the dev process, on ui.port (false: none)
    "pynimbus.dev.ui": True,
    "pynimbus.ui.bind.address": "127.0.0.1",
    # a logviewer in the dev process, on logviewer.port (false: none; a port held by another
    # program is only a warning)
    "pynimbus.dev.logviewer": True,
    "pynimbus.logviewer.bind.address": "127.0.0.1",
}


def build_parser():
    parser = argparse.ArgumentParser(
        prog="pynimbus",
        description="A Storm-compatible Nimbus (Apache Storm's master daemon) in Python.",
        formatter_class=argparse.RawDescriptionHelpFormatter)  # --version on one line
    parser.add_argument(
        "--version", action="version",
        version="pynimbus %s (Storm %s; Storm %s with -c pynimbus.storm.compat=2.x)"
                % (__version__, STORM_VERSION, STORM_VERSION_2X))
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument("--config", metavar="FILE",
                        help="storm.yaml to read (default: $STORM_CONF_DIR/storm.yaml if present)")
    common.add_argument("-c", dest="options", metavar="KEY=VALUE", action="append", default=[],
                        help="override a config key, as `storm -c` does: the value is read as "
                             "JSON, and one that is not JSON is a string "
                             "(-c nimbus.thrift.port=6628 -c storm.local.dir=/tmp/storm)")
    common.add_argument("--log-level", default="INFO",
                        choices=["DEBUG", "INFO", "WARNING", "ERROR"], help="log level (INFO)")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    sub.required = True
    sub.add_parser(
        "nimbus", parents=[common],
        help="run Nimbus (Thrift on nimbus.thrift.port, default 6627)",
        description="Run Nimbus with the configuration from storm.yaml and -c options. "
                    "With storm.zookeeper.servers set it uses that ZooKeeper; otherwise the "
                    "embedded store under storm.local.dir.")
    sub.add_parser(
        "dev", parents=[common],
        help="run a whole cluster on this machine: Nimbus on 127.0.0.1:6627 and a Python "
             "supervisor with 4 slots",
        description="Run Storm on one machine for development: Nimbus on 127.0.0.1:6627 with "
                    "the embedded cluster-state store (no ZooKeeper, no JVM), and in the "
                    "same process a Python supervisor with 4 slots (supervisor.slots.ports, "
                    "6700-6703: up to four workers, listening on 127.0.0.1). Files go under "
                    "storm.local.dir (./storm-local), worker logs under its "
                    "logs/workers-artifacts. Ctrl-C stops it with its workers. "
                    "-c pynimbus.dev.supervisor=false runs Nimbus alone (then `pynimbus "
                    "supervisor`, or Storm's supervisors with -c "
                    "'storm.zookeeper.servers=[...]', run the topologies).")
    sub.add_parser(
        "supervisor", parents=[common],
        help="run a Python supervisor: the workers of what Nimbus assigns to it",
        description="Run a supervisor: register in the cluster state (storm.zookeeper.* or "
                    "the embedded store), download assigned topologies from the leader of "
                    "nimbus.seeds and run one Python worker per assigned port of "
                    "supervisor.slots.ports. Stopping it leaves the workers running. With "
                    "pynimbus.storm.compat=2.x it is a 2.x supervisor: it serves the "
                    "Supervisor Thrift service on supervisor.thrift.port (default 6628), "
                    "takes its assignments from Nimbus over it and reports its workers' "
                    "heartbeats to Nimbus.")
    sub.add_parser(
        "drpc", parents=[common],
        help="run a DRPC server (drpc.port 3772 for callers, drpc.invocations.port 3773 "
             "for topologies)",
        description="Run Storm's DRPC server: DistributedRPC (execute) on drpc.port and "
                    "DistributedRPCInvocations (fetchRequest, result, failRequest) on "
                    "drpc.invocations.port; a request not answered within "
                    "drpc.request.timeout.secs (600) fails with DRPCExecutionException. "
                    "It binds pynimbus.drpc.bind.address (default all interfaces).")
    sub.add_parser(
        "ui", parents=[common],
        help="run Storm's UI REST API (ui.port 8080)",
        description="Serve Storm's UI REST API (/api/v1/cluster/summary, nimbus/summary, "
                    "supervisor/summary, topology/summary, history/summary, "
                    "cluster/configuration) on ui.port at ui.host, from the leader of "
                    "nimbus.seeds.")
    sub.add_parser(
        "logviewer", parents=[common],
        help="run Storm's logviewer (logviewer.port 8000)",
        description="Serve this host's worker logs (storm.log.dir/workers-artifacts) and "
                    "daemon logs (storm.log.dir) as Storm's logviewer does: /log, /download, "
                    "/search, /deepSearch, /listLogs, /daemonlog ..., and remove old logs of "
                    "dead workers every logviewer.cleanup.interval.secs. It binds "
                    "pynimbus.logviewer.bind.address (default all interfaces). `pynimbus "
                    "supervisor` runs one in its process unless "
                    "pynimbus.supervisor.logviewer=false.")
    add_client_commands(sub, common)
    return parser


def load_config(args, cwd=None):
    """Return the effective conf for the parsed ``args`` (dev defaults under storm.yaml); a
    daemon's relative paths are made absolute against ``cwd`` (the working directory)."""
    conf = read_storm_config(args.config, args.options)
    if args.command == "dev":
        user = read_storm_config(args.config, args.options, base={})
        for key, value in DEV_DEFAULTS.items():
            conf[key] = user.get(key, value)
        conf["storm.zookeeper.servers"] = user.get("storm.zookeeper.servers", [])
    if args.command not in CLIENT_COMMANDS:
        conf = absolute_paths(conf, cwd or os.getcwd())
    return conf


def setup_logging(conf, level, daemon="nimbus"):
    """Log to stderr and to ``<storm.log.dir or storm.local.dir/logs>/<daemon>.log``; return
    the file's path."""
    log_dir = storm_log_dir(conf)
    os.makedirs(log_dir, exist_ok=True)
    path = os.path.join(log_dir, daemon + ".log")
    fmt = logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s")
    root = logging.getLogger()
    root.setLevel(level)
    root.addFilter(RefusalLogFilter())
    for handler in (logging.StreamHandler(sys.stderr), logging.FileHandler(path)):
        handler.setFormatter(fmt)
        root.addHandler(handler)
    return path


def log_storm_yaml(config_file, environ=None):
    """Log which storm.yaml was read, or why none was; warn when $STORM_CONF_DIR is missing."""
    environ = os.environ if environ is None else environ
    path = storm_yaml_path(config_file, environ)
    conf_dir = environ.get("STORM_CONF_DIR")
    if path is not None:
        log.info("Read storm.yaml from %s", os.path.abspath(path))
    elif not conf_dir:
        log.info("No storm.yaml read (no --config, $STORM_CONF_DIR not set): "
                 "defaults and -c options only")
    elif not os.path.exists(conf_dir):
        log.warning("$STORM_CONF_DIR is %s, which does not exist: no storm.yaml read, "
                    "defaults and -c options only", conf_dir)
    else:
        log.info("No storm.yaml in $STORM_CONF_DIR (%s): defaults and -c options only",
                 conf_dir)


def put_interpreter_bin_first_on_path(environ=os.environ, executable=sys.executable):
    """Put the directory of this Python's scripts first on ``PATH``, which workers and their
    multilang children inherit: a command installed beside pynimbus (streamparse's
    ``streamparse_run``) then runs in pynimbus's own environment, activated or not."""
    bin_dir = os.path.dirname(os.path.abspath(executable))
    path = environ.get("PATH", "")
    if path.split(os.pathsep)[0] != bin_dir:
        environ["PATH"] = bin_dir + (os.pathsep + path if path else "")
        log.info("%s put first on PATH for workers' commands", bin_dir)


def run_nimbus(conf, dev=False):
    """Run a NimbusDaemon (``dev``: a DevNimbusDaemon) on the global reactor until
    SIGINT/SIGTERM; return an exit code."""
    from pynimbus.cli.dev_cluster import DevNimbusDaemon
    from pynimbus.nimbus.daemon import NimbusDaemon

    from pynimbus.common.interpreter import schedule_full_collections, set_switch_interval

    set_switch_interval(conf)
    return run_daemon(DevNimbusDaemon if dev else NimbusDaemon, conf, "Nimbus",
                      on_running=lambda reactor: schedule_full_collections(conf, reactor))


def run_supervisor(conf):
    """Run a SupervisorDaemon on the global reactor until SIGINT/SIGTERM; return an exit
    code.  Its workers keep running after it stops."""
    return run_daemon(SupervisorAndLogviewer, conf, "Supervisor")


def run_drpc(conf):
    """Run a DRPCDaemon on the global reactor until SIGINT/SIGTERM; return an exit code."""
    from pynimbus.drpc.server import DRPCDaemon

    return run_daemon(DRPCDaemon, conf, "DRPC")


def run_ui(conf):
    """Run a UIDaemon on the global reactor until SIGINT/SIGTERM; return an exit code."""
    from pynimbus.ui.server import UIDaemon

    return run_daemon(UIDaemon, conf, "UI")


def run_logviewer(conf):
    """Run a LogviewerDaemon on the global reactor until SIGINT/SIGTERM; return an exit
    code."""
    from pynimbus.logviewer.server import LogviewerDaemon

    return run_daemon(LogviewerDaemon, conf, "Logviewer")


class SupervisorAndLogviewer(object):
    """``pynimbus supervisor``'s daemons: the supervisor and, under
    ``pynimbus.supervisor.logviewer``, a logviewer of its workers' logs in the same process
    (Storm runs ``storm logviewer`` beside each supervisor)."""

    def __init__(self, conf, reactor):
        from pynimbus.logviewer.server import LogviewerDaemon
        from pynimbus.supervisor.daemon import SupervisorDaemon

        self.supervisor = SupervisorDaemon(conf, reactor)
        self.logviewer = (LogviewerDaemon(conf, reactor)
                          if conf.get("pynimbus.supervisor.logviewer") else None)

    def start(self):
        d = self.supervisor.start()
        if self.logviewer is not None:
            d.addCallback(lambda started: self.logviewer.start_beside().addCallback(
                lambda _: started))
        return d

    def stop(self):
        d = self.supervisor.stop()
        if self.logviewer is not None:
            d.addBoth(lambda _: self.logviewer.stop())
        return d


def run_daemon(daemon_class, conf, what, on_running=None):
    """Run ``daemon_class(conf, reactor)`` on the global reactor until SIGINT/SIGTERM (and
    ``on_running(reactor)`` once it runs); return an exit code."""
    from twisted.internet import reactor
    from twisted.python import log as twisted_log

    twisted_log.PythonLoggingObserver(loggerName="twisted").start()
    daemon = daemon_class(conf, reactor)
    outcome = {"code": 0}

    def failed(failure):
        log.error("%s could not start: %s", what, failure.getErrorMessage())
        log.debug("%s", failure.getTraceback())
        outcome["code"] = 1
        stop_reactor(reactor, "%s could not start" % what)

    def started(_):
        reactor.addSystemEventTrigger("before", "shutdown", daemon.stop)

    def run():
        StopOnSignal(reactor).install()
        if on_running is not None:
            on_running(reactor)
        daemon.start().addCallbacks(started, failed)

    reactor.callWhenRunning(run)
    reactor.run()
    return outcome["code"]


def stop_reactor(reactor, why):
    """Stop ``reactor``, or only log ``why`` when it is stopping already."""
    try:
        reactor.stop()
    except ReactorNotRunning:
        log.info("%s again: already shutting down", why)
    else:
        log.info("%s, shutting down", why)


class StopOnSignal:
    """SIGTERM and SIGINT stop the reactor; one arriving while it stops is only noted.

    Replaces the reactor's own handlers, which call ``reactor.stop`` on every signal: the
    second call, made while Nimbus is stopping, logs a CRITICAL ReactorNotRunning traceback.
    """

    def __init__(self, reactor):
        self.reactor = reactor

    def install(self):
        """Take over SIGTERM, and SIGINT where the reactor handles it (not when ignored)."""
        signal.signal(signal.SIGTERM, self.received)
        if signal.getsignal(signal.SIGINT) == self.reactor.sigInt:
            signal.signal(signal.SIGINT, self.received)

    def received(self, number, frame):
        # a signal handler: hand the work to the reactor's thread, as Twisted's own do
        self.reactor.callFromThread(
            stop_reactor, self.reactor, "Received %s" % signal.Signals(number).name)


def main(argv=None):
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        conf = load_config(args)
    except ConfigError as e:
        parser.exit(2, "pynimbus: %s\n" % e)
    if args.command in CLIENT_COMMANDS:
        return run_client_command(args, conf)
    supervisor = args.command == "supervisor"
    path = setup_logging(conf, args.log_level, "supervisor" if supervisor
                         else args.command if args.command in ("drpc", "ui", "logviewer")
                         else "nimbus")
    log.info("pynimbus %s %s; logging to %s", __version__, args.command, path)
    log.info("storm.local.dir is %s", conf["storm.local.dir"])
    log_storm_yaml(args.config)
    if supervisor or args.command == "dev":
        put_interpreter_bin_first_on_path()
    if supervisor:
        return run_supervisor(conf)
    if args.command == "drpc":
        return run_drpc(conf)
    if args.command == "ui":
        return run_ui(conf)
    if args.command == "logviewer":
        return run_logviewer(conf)
    return run_nimbus(conf, dev=args.command == "dev")


if __name__ == "__main__":
    sys.exit(main())
