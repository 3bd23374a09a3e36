"""What the ``storm`` client's topology commands do, over
:class:`pynimbus.thrift.client.NimbusClient`.

For ``pynimbus submit/kill/list/activate/deactivate/rebalance`` (:mod:`pynimbus.cli.main`), so a
Python user needs no ``storm`` client: the leader found from ``nimbus.seeds`` as
``NimbusClient.getConfiguredClient`` finds it, ports of 1.2.4's ``command/list.clj`` (the
table), ``rebalance.clj`` (``-e name=N`` split at the last ``=``), the jar upload of
``StormSubmitter.submitJar`` (307,200-byte chunks, with a progress bar on a terminal) and a
``--wait`` that polls ``getTopologyInfo`` until every executor has a heartbeat.
"""

import os
import sys
import time

from pynimbus.generated.storm.ttypes import RebalanceOptions
from pynimbus.thrift.client import LeaderNotFound, NimbusClient, find_leader_nimbus

THRIFT_CHUNK_SIZE = 307200  # StormSubmitter's and sparse's upload chunk
WAIT_POLL_SECS = 0.5  # how often --wait asks; sparse polls getClusterInfo as often


class CommandError(Exception):
    """A command that cannot go on; the message says why, for the user."""


def parse_host_port(text, default_port):
    """``(host, port)`` of ``HOST[:PORT]``.

    :raises CommandError: a port that is not a number.
    """
    host, sep, port = text.rpartition(":")
    if not sep:
        return text, default_port
    if not port.isdigit() or not host:
        raise CommandError("%r is not HOST:PORT" % text)
    return host, int(port)


def connect_to_leader(conf, timeout=60.0):
    """A client of the leader Nimbus found from ``nimbus.seeds`` (1.2.4
    ``NimbusClient.getConfiguredClientAs``; :func:`pynimbus.thrift.client.find_leader_nimbus`).

    :raises CommandError: no seed answered.
    """
    try:
        host, port = find_leader_nimbus(conf, timeout)
    except LeaderNotFound as e:
        raise CommandError("Could not find leader nimbus from seed hosts %s (port %d): %s"
                           % (list(conf.get("nimbus.seeds") or ()),
                              int(conf["nimbus.thrift.port"]),
                              str(e) or "nimbus.seeds is empty"))
    return NimbusClient(host, port, timeout=timeout)


class ProgressBar:
    """A one-line ``[####    ]  45%  1.2/2.7 MB`` redrawn on ``stream`` when it is a
    terminal; elsewhere only the final line is written."""

    WIDTH = 30

    def __init__(self, total, stream=sys.stdout):
        self.total = total
        self.stream = stream
        self.redraw = stream.isatty()

    def update(self, done):
        if self.redraw:
            self.stream.write("\r" + self.line(done))
            self.stream.flush()

    def finish(self):
        self.stream.write(("\r" if self.redraw else "") + self.line(self.total) + "\n")
        self.stream.flush()

    def line(self, done):
        fraction = done / self.total if self.total else 1.0
        filled = int(self.WIDTH * fraction)
        unit, size = ("MB", 1e6) if self.total >= 1e6 else ("kB", 1e3)
        return "[%s%s] %3d%% %.1f/%.1f %s" % ("#" * filled, " " * (self.WIDTH - filled),
                                              fraction * 100, done / size, self.total / size, unit)


def upload_jar(client, jar_path, stream=sys.stdout):
    """Upload ``jar_path`` (``beginFileUpload``, ``uploadChunk`` per 307,200 bytes,
    ``finishFileUpload``) with a :class:`ProgressBar` on ``stream``; return its location."""
    location = client.beginFileUpload()
    total = os.path.getsize(jar_path)
    stream.write("Uploading topology jar %s to assigned location: %s\n" % (jar_path, location))
    progress = ProgressBar(total, stream)
    sent = 0
    with open(jar_path, "rb") as jar:
        for chunk in iter(lambda: jar.read(THRIFT_CHUNK_SIZE), b""):
            client.uploadChunk(location, chunk)
            sent += len(chunk)
            progress.update(sent)
    client.finishFileUpload(location)
    progress.finish()
    return location


def storm_id_of(client, name):
    """The id of the topology named ``name`` in ``getClusterInfo``, or None."""
    for summary in client.getClusterInfo().topologies or ():
        if summary.name == name:
            return summary.id
    return None


def executors_alive(info):
    """``(with a heartbeat, all)`` executors of a ``TopologyInfo``: an executor has stats
    once its worker has sent a heartbeat for it."""
    executors = info.executors or []
    return sum(1 for e in executors if e.stats is not None), len(executors)


def first_error(info):
    """``(component, message)`` of the latest error a component of a ``TopologyInfo``
    reported, or None."""
    reported = [(e.error_time_secs, component, e.error)
                for component, errors in sorted((info.errors or {}).items())
                for e in errors or ()]
    if not reported:
        return None
    _, component, message = max(reported)
    return component, message


def wait_until_running(client, name, timeout, clock=time.monotonic, sleep=time.sleep):
    """Poll ``getTopologyInfo`` until every executor of ``name`` has a heartbeat; return the
    number of executors.

    A heartbeat says the worker runs the executor, not that its multilang child started
    (Storm's worker beats before its bolts' ``prepare`` too), so a component that dies at
    start may show only after this returned.

    :raises CommandError: a component reported an error meanwhile, or not every executor
        beats after ``timeout`` seconds (the message counts them).
    """
    deadline = clock() + timeout
    alive, total = 0, 0
    while True:
        storm_id = storm_id_of(client, name)
        if storm_id is not None:
            info = client.getTopologyInfo(storm_id)
            error = first_error(info)
            if error is not None:
                raise CommandError("topology %s: component %s reported an error: %s"
                                   % ((name,) + error))
            alive, total = executors_alive(info)
            if total and alive == total:
                return total
        if clock() >= deadline:
            raise CommandError(
                "topology %s is not running after %ss: %d of %d executors have a heartbeat "
                "(is a supervisor with free slots registered? see its worker logs)"
                % (name, timeout, alive, total))
        sleep(WAIT_POLL_SECS)


LIST_FORMAT = "%-20s %-10s %-10s %-12s %-10s"


def topology_table(topologies, error_counts=None):
    """The lines ``storm list`` prints for ``ClusterSummary.topologies`` (1.2.4 list.clj);
    with ``error_counts`` (``{storm id: errors kept}``) an ``Errors`` column too."""
    if not topologies:
        return ["No topologies running."]
    header = LIST_FORMAT % ("Topology_name", "Status", "Num_tasks", "Num_workers",
                            "Uptime_secs")
    if error_counts is None:
        lines = [header, "-" * 67]
    else:
        lines = [header + " Errors", "-" * 74]
    for t in topologies:
        line = LIST_FORMAT % (t.name, t.status, t.num_tasks, t.num_workers, t.uptime_secs)
        if error_counts is not None:
            line += " %d" % error_counts.get(t.id, 0)
        lines.append(line)
    return lines


def parse_executor(text):
    """``(component, count)`` of ``-e component=N``, split at the last ``=`` as
    rebalance.clj's ``parse-executor`` (a component id may hold ``=``).

    :raises ValueError: no ``=`` or a count that is not an integer.
    """
    component, sep, count = text.rpartition("=")
    if not sep:
        raise ValueError("%r is not component=N" % text)
    return component, int(count)


def rebalance_options(wait_secs=None, num_workers=None, executors=()):
    """The ``RebalanceOptions`` of ``rebalance -w -n -e...``: options not given stay unset;
    repeated ``-e`` are merged, a later one for the same component winning."""
    options = RebalanceOptions()
    if wait_secs is not None:
        options.wait_secs = wait_secs
    if num_workers is not None:
        options.num_workers = num_workers
    if executors:
        options.num_executors = dict(executors)
    return options
