"""``pynimbus submit``, ``kill``, ``list``, ``activate``, ``deactivate`` and ``rebalance``.

The ``storm`` client's topology commands with its arguments and outputs (1.2.4 ``command/*.clj``),
plus ``submit``, which does what ``sparse submit`` does for a streamparse project without lein or a
JVM (:mod:`pynimbus.tools.sparse_project`, :mod:`pynimbus.tools.topology_jar`). Nimbus is ``--nimbus
HOST:PORT`` when given, else the leader among ``nimbus.seeds`` on ``nimbus.thrift.port``
(storm.yaml, ``-c``).  A refusal from Nimbus (``NotAliveException``, ``InvalidTopologyException``,
...) or an unreachable Nimbus is one line on stderr naming the exception and its message, and exit
code 1.
"""

import json
import logging
import os
import random
import sys
import tempfile
import time

from thrift.Thrift import TException
from thrift.transport.TTransport import TTransportException

from pynimbus.clojure_port.names import invalid_name_characters
from pynimbus.common.config import parse_command_line_opt
from pynimbus.generated.storm.ttypes import (
    KillOptions, SubmitOptions, TopologyInitialStatus)
from pynimbus.thrift.client import DRPC_CALL_TIMEOUT_SECS, DRPCClient
from pynimbus.tools.storm_commands import (
    CommandError, NimbusClient, connect_to_leader, parse_executor, parse_host_port,
    rebalance_options, storm_id_of, topology_table, upload_jar, wait_until_running)
from pynimbus.tools.topology_status import ALL_TIME, WINDOWS, error_summary, status_lines

CLIENT_COMMANDS = ("submit", "kill", "list", "status", "activate", "deactivate", "rebalance",
                   "drpc-client")
DEFAULT_WAIT_TIMEOUT_SECS = 120


def add_client_commands(sub, common):
    """Add the client commands to the subparsers ``sub`` (each with the ``common`` options)."""
    import argparse

    client = argparse.ArgumentParser(add_help=False, parents=[common])
    client.add_argument("--nimbus", metavar="HOST:PORT",
                        help="the Nimbus to use (default: the leader of nimbus.seeds)")
    client.add_argument("--timeout", type=float, default=60.0, metavar="SECS",
                        help="seconds to wait for each Nimbus answer (60)")
    submit = sub.add_parser(
        "submit", parents=[client], help="submit a streamparse topology (no lein, no JVM)",
        description="Build the topology jar of a streamparse project (its src/ under "
                    "resources/), upload it and submit the topology its DSL builds, with the "
                    "conf sparse submit builds (config.json's environment, the Topology's "
                    "config, -c options).")
    submit.add_argument("topology", metavar="TOPOLOGY",
                        help="a topology file (topologies/wordcount.py) or module:attr naming "
                             "a streamparse Topology class")
    submit.add_argument("--name", help="the topology's name (default: the file's name)")
    submit.add_argument("-e", "--environment",
                        help="config.json environment (default: the only one)")
    submit.add_argument("--inactive", dest="active", action="store_false",
                        help="submit it deactivated")
    submit.add_argument("--wait", action="store_true",
                        help="return once every executor of the topology has a heartbeat")
    submit.add_argument("--wait-timeout", type=float, default=DEFAULT_WAIT_TIMEOUT_SECS,
                        metavar="SECS", help="how long --wait waits (%(default)s)")
    kill = sub.add_parser(
        "kill", parents=[client], help="kill topologies (storm kill)",
        description="Kill topologies, as `storm kill` does: each is deactivated, then its "
                    "workers are shut down after the wait.")
    kill.add_argument("names", nargs="+", metavar="NAME", help="a topology's name")
    kill.add_argument("-w", "--wait", type=int, metavar="SECS",
                      help="seconds between deactivation and shutdown "
                           "(default: the topology's topology.message.timeout.secs)")
    sub.add_parser(
        "list", parents=[client], help="list topologies (storm list), with their errors",
        description="List the topologies as `storm list` does (name, status, tasks, "
                    "workers, uptime), with the number of errors their components keep and "
                    "each one's newest error.")
    status_parser = sub.add_parser(
        "status", parents=[client],
        help="show a topology's components, their figures and errors",
        description="Show what the Storm UI's topology page shows, as text: per component "
                    "its executors, emitted, transferred, acked and failed tuples, latency "
                    "(a spout's complete latency, a bolt's process latency) and the age of "
                    "its last error; then the newest errors, with where they happened.")
    status_parser.add_argument("name", metavar="NAME", help="the topology's name")
    status_parser.add_argument("--watch", nargs="?", type=float, const=2.0, metavar="SECS",
                               help="show it again every SECS seconds (2) until Ctrl-C")
    status_parser.add_argument("--window", default=ALL_TIME, choices=sorted(WINDOWS),
                               help="the stats window, in seconds, or %s (the default)"
                                    % ALL_TIME)
    status_parser.add_argument("--sys", action="store_true",
                               help="include the system components and streams (__acker...)")
    status_parser.add_argument("--errors", type=int, default=5, metavar="N",
                               help="how many of the newest errors to show (5)")
    for name, what in (("activate", "activate a topology's spouts"),
                       ("deactivate", "deactivate a topology's spouts")):
        command = sub.add_parser(name, parents=[client], help="%s (storm %s)" % (what, name),
                                 description="%s%s, as `storm %s` does."
                                             % (what[0].upper(), what[1:], name))
        command.add_argument("name", metavar="NAME", help="the topology's name")
    rebalance = sub.add_parser(
        "rebalance", parents=[client], help="spread a topology anew (storm rebalance)",
        description="Rebalance a topology as `storm rebalance` does: deactivate it for the "
                    "wait, then assign it again, with a new number of workers or of a "
                    "component's executors when given.")
    rebalance.add_argument("name", metavar="NAME", help="the topology's name")
    rebalance.add_argument("-w", "--wait", type=int, metavar="SECS",
                           help="seconds to wait after deactivating")
    rebalance.add_argument("-n", "--num-workers", type=int, metavar="N",
                           help="the new number of workers")
    rebalance.add_argument("-e", "--executor", dest="executors", action="append", default=[],
                           type=parse_executor, metavar="COMPONENT=N",
                           help="the new number of executors of a component (repeatable)")
    drpc = sub.add_parser(
        "drpc-client", parents=[common], help="ask DRPC functions (storm drpc-client)",
        description="Send DRPC requests as Storm 2.x's `storm drpc-client` does: with -f, "
                    "each argument is one request of that function; without, the arguments "
                    "are pairs FUNCTION ARGUMENT.  Each answer prints as "
                    "'FUNCTION \"ARGUMENT\" => \"RESULT\"'.  The server is one of "
                    "drpc.servers (at random, as Storm picks; localhost when unset) on "
                    "drpc.port, or --server.")
    drpc.add_argument("-f", "--function", help="the function of every argument")
    drpc.add_argument("arguments", nargs="+", metavar="ARG",
                      help="the requests' arguments (pairs FUNCTION ARGUMENT without -f)")
    drpc.add_argument("--server", metavar="HOST[:PORT]",
                      help="the DRPC server (default: one of drpc.servers, else localhost, on "
                           "drpc.port)")
    drpc.add_argument("--timeout", type=float, default=DRPC_CALL_TIMEOUT_SECS, metavar="SECS",
                      help="seconds to wait for each answer (%(default)s)")


def run_client_command(args, conf, stdout=sys.stdout, stderr=sys.stderr):
    """Run the parsed client command ``args`` with the client conf ``conf``; return the exit
    code (0, or 1 with one line on ``stderr``)."""
    # thrift's socket logs a refused connection itself; the one line below says it already
    logging.getLogger("thrift.transport.TSocket").setLevel(logging.CRITICAL)
    try:
        return COMMANDS[args.command](args, conf, stdout)
    except (TException, OSError, CommandError, ValueError) as e:
        stderr.write("pynimbus %s: %s\n" % (args.command, describe_failure(e)))
        return 1


def describe_failure(error):
    """``Exception: message`` with the message a Thrift exception carries."""
    message = getattr(error, "msg", None) or getattr(error, "message", None) or str(error)
    if isinstance(error, (CommandError, ValueError)) and not isinstance(error, TException):
        return message
    return "%s: %s" % (type(error).__name__, message)


UNREACHABLE_ADVICE = ("is `pynimbus dev` (or another Nimbus) running? Start it, or name the "
                      "Nimbus to use with --nimbus HOST:PORT")


def connect(args, conf, default=None):
    """A client of ``--nimbus``, else of ``default`` (HOST[:PORT]), else of the leader.

    :raises CommandError: none of them answers; the message says what to check.
    """
    target = args.nimbus or default
    if target:
        host, port = parse_host_port(target, int(conf["nimbus.thrift.port"]))
        try:
            return NimbusClient(host, port, timeout=args.timeout)
        except (TTransportException, OSError) as e:
            raise CommandError("cannot reach Nimbus at %s:%d (%s): %s"
                               % (host, port, describe_failure(e), UNREACHABLE_ADVICE))
    try:
        return connect_to_leader(conf, timeout=args.timeout)
    except CommandError as e:
        raise CommandError("%s; %s" % (e, UNREACHABLE_ADVICE))


def kill(args, conf, stdout):
    options = KillOptions() if args.wait is None else KillOptions(wait_secs=args.wait)
    with connect(args, conf) as client:
        for name in args.names:
            client.killTopologyWithOpts(name, options)
            stdout.write("Killed topology: %s\n" % name)
    return 0


def list_topologies(args, conf, stdout):
    """``storm list``'s table with an Errors column, then each topology's newest error."""
    with connect(args, conf) as client:
        topologies = client.getClusterInfo().topologies or []
        infos = {t.id: client.getTopologyInfo(t.id) for t in topologies}
    counts = {storm_id: sum(len(errors or ()) for errors in (info.errors or {}).values())
              for storm_id, info in infos.items()}
    lines = topology_table(topologies, counts)
    newest = [(t.name, error_summary(infos[t.id])) for t in topologies]
    if any(summary for _, summary in newest):
        lines += ["", "Newest errors (pynimbus status NAME shows more):"]
        lines += ["  %s: %s" % (name, summary) for name, summary in newest if summary]
    for line in lines:
        stdout.write(line + "\n")
    return 0


def status(args, conf, stdout, sleep=time.sleep):
    """A topology's components and errors, once or every ``--watch`` seconds until Ctrl-C
    (which ends a watch with code 0, wherever it comes)."""
    with connect(args, conf) as client:
        if not args.watch:
            stdout.write("\n".join(status_lines_of(client, args)) + "\n")
            return 0
        try:
            while True:
                lines = status_lines_of(client, args)
                # a terminal gets the screen redrawn; a pipe gets frames one after another
                stdout.write(("\x1b[H\x1b[2J" if stdout.isatty() else "\n")
                             + "\n".join(lines) + "\n")
                stdout.flush()
                sleep(args.watch)
        except KeyboardInterrupt:
            return 0


def status_lines_of(client, args):
    """The lines of :func:`status` for one look at the topology ``args.name``."""
    storm_id = storm_id_of(client, args.name)
    if storm_id is None:
        raise CommandError("no topology named %r is alive (pynimbus list shows those that are)"
                           % args.name)
    page = client.getTopologyPageInfo(storm_id, args.window, args.sys)
    info = client.getTopologyInfo(storm_id)
    topology = client.getUserTopology(storm_id)
    components = dict.fromkeys(topology.spouts or (), "spout")
    components.update(dict.fromkeys(topology.bolts or (), "bolt"))
    return status_lines(page, info, window=args.window, errors_shown=args.errors,
                        components=components)


def activate(args, conf, stdout):
    with connect(args, conf) as client:
        client.activate(args.name)
    stdout.write("Activated topology: %s\n" % args.name)
    return 0


def deactivate(args, conf, stdout):
    with connect(args, conf) as client:
        client.deactivate(args.name)
    stdout.write("Deactivated topology: %s\n" % args.name)
    return 0


def rebalance(args, conf, stdout):
    options = rebalance_options(args.wait, args.num_workers, args.executors)
    with connect(args, conf) as client:
        client.rebalance(args.name, options)
    stdout.write("Topology %s is rebalancing\n" % args.name)
    return 0


def submit(args, conf, stdout):
    """Load the project, then on one connection: name check, jar upload, submit, wait."""
    from pynimbus.tools import sparse_project

    if args.name is not None and not args.name.strip():
        raise CommandError("--name cannot be empty: leave it out to name the topology after "
                           "its file, or give a name")
    project = sparse_project.load_project(args.topology, args.environment)
    name = project.topology_name if args.name is None else args.name
    if project.trident_program is not None:
        topology = planned_trident_topology(project)
    else:
        topology = sparse_project.submitted_topology(
            project.topology_class, project.env_name,
            sparse_project.serializer_of(project.config, project.env_config))
    # sparse's order: $STREAMPARSE_NIMBUS, then the environment's "nimbus"
    project_nimbus = os.environ.get("STREAMPARSE_NIMBUS") or project.env_config.get("nimbus")
    with connect(args, conf, project_nimbus) as client:
        if not client.isTopologyNameAllowed(name):
            raise CommandError(name_refused_message(client, name))
        options = topology_conf(client, project, args.options)
        location = upload_project_jar(client, project.root, stdout, project.trident_program)
        status = TopologyInitialStatus.ACTIVE if args.active else TopologyInitialStatus.INACTIVE
        client.submitTopologyWithOpts(name, location, json.dumps(options), topology,
                                      SubmitOptions(initial_status=status))
        stdout.write("Submitted topology: %s\n" % name)
        if args.wait:
            stdout.flush()
            count = wait_until_running(client, name, args.wait_timeout)
            stdout.write("Topology %s is running: %d executors alive\n" % (name, count))
    return 0


def planned_trident_topology(project):
    """The Storm topology of a Trident program (every worker plans it again from the same
    ``module:attr``).

    :raises CommandError: a program Storm's planner refuses too (its message)."""
    from pynimbus.trident.topology import PlanningError

    try:
        return project.topology_class.build(project.trident_program).topology
    except (PlanningError, ValueError, TypeError) as e:
        raise CommandError("the Trident program %s cannot be planned: %s"
                           % (project.trident_program, e))


def name_refused_message(client, name):
    """Why Nimbus does not allow ``name``: a topology of that name is alive (then how to kill
    it), or the characters Storm's name rule refuses."""
    if storm_id_of(client, name) is not None:
        return ("a topology named %r is alive already: kill it first (pynimbus kill %s), or "
                "submit with another --name" % (name, name))
    bad = invalid_name_characters(name)
    if bad:
        return ("the topology name %r holds %s, which Storm does not allow in a name; give "
                "another with --name" % (name, ", ".join(repr(c) for c in bad)))
    return "Nimbus does not allow the topology name %r; give another with --name" % name


def topology_conf(client, project, command_line_options):
    """The conf sparse would send; the supervisors' hosts are asked of Nimbus only when
    ``storm.workers.list`` is not given (as sparse's ``get_storm_workers``)."""
    from pynimbus.tools.sparse_project import sparse_options

    cli_options = dict(parse_command_line_opt(option) for option in command_line_options)
    worker_hosts = []
    given = {}
    for layer in (project.env_config.get("options"), topology_config(project),
                  cli_options):
        given.update(layer or {})
    if not given.get("storm.workers.list"):
        worker_hosts = sorted({s.host for s in client.getClusterInfo().supervisors or ()})
        if not worker_hosts and "topology.workers" not in given:
            raise CommandError(
                "no supervisor is registered with this Nimbus, so nothing would run the "
                "topology (and sparse's topology.workers, one per supervisor host, would be "
                "0): start `pynimbus dev` (it runs one), or `pynimbus supervisor`, or set "
                "the count with -c topology.workers=N")
    return sparse_options(project.env_config, topology_config(project), cli_options,
                          project.topology_name, worker_hosts)


def topology_config(project):
    """The topology class's ``config`` (a Trident program has none)."""
    return getattr(project.topology_class, "config", None) or {}


def upload_project_jar(client, project_root, stdout, trident_program=None):
    """Build the project's jar in a temporary directory and upload it; return its location
    on Nimbus.  A Trident program outside a ``src/`` directory takes its own module."""
    from pynimbus.tools.topology_jar import build_topology_jar

    with tempfile.TemporaryDirectory(prefix="pynimbus-submit-") as directory:
        jar_path = os.path.join(directory, "topology.jar")  # never a path from a name
        module = trident_program.partition(":")[0] if trident_program else None
        build_topology_jar(project_root, jar_path, module)
        return upload_jar(client, jar_path, stdout)


def drpc_requests(args):
    """``[(function, argument)]`` of ``drpc-client``'s command line (BasicDrpcClient's).

    :raises CommandError: without -f, an odd number of arguments."""
    if args.function is not None:
        return [(args.function, argument) for argument in args.arguments]
    if len(args.arguments) % 2:
        raise CommandError("without -f the arguments are pairs FUNCTION ARGUMENT; %d given"
                           % len(args.arguments))
    return list(zip(args.arguments[::2], args.arguments[1::2]))


def drpc_server(args, conf, choose=random.choice):
    """``(host, port)`` of ``--server``, else of one of ``drpc.servers`` on ``drpc.port``, else
    of localhost (``pynimbus dev``'s; Storm's client fails without ``drpc.servers``)."""
    port = int(conf.get("drpc.port") or 3772)
    if args.server:
        return parse_host_port(args.server, port)
    return choose(list(conf.get("drpc.servers") or ["localhost"])), port


def drpc_client(args, conf, stdout):
    requests = drpc_requests(args)
    host, port = drpc_server(args, conf)
    try:
        client = DRPCClient(host, port, timeout=args.timeout)
    except (TTransportException, OSError) as e:
        raise CommandError("cannot reach the DRPC server at %s:%d (%s): is `pynimbus dev` (or "
                           "`pynimbus drpc`) running? Name another with --server HOST[:PORT]"
                           % (host, port, describe_failure(e)))
    with client:
        for function, argument in requests:
            result = client.execute(function, argument)
            stdout.write('%s "%s" => "%s"\n' % (function, argument, result))
    return 0


COMMANDS = {"submit": submit, "kill": kill, "list": list_topologies, "status": status,
            "activate": activate, "deactivate": deactivate, "rebalance": rebalance,
            "drpc-client": drpc_client}
