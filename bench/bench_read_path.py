"""Nimbus's read path at scale (issue 11): calls per second at 0, 100 and 1,000 topologies.

    python bench/bench_read_path.py [--supervisors 1000] [--levels 0 100 1000]
                                    [--seconds 3] [--cache both|on|off|none]
                                    [--storm 1.2.4 2.8.3]

On one ZooKeeper (Debian's package, 127.0.0.1, as the tests start it) a ``pynimbus dev``
process (1.x generation, no ackers or event loggers) runs beside a simulator process that
registers ``--supervisors`` supervisors (4 slots each) and keeps them beating (a new
``SupervisorInfo`` every ``supervisor.heartbeat.frequency.secs``, 5 s), and writes a
``ClusterWorkerHeartbeat`` with executor stats for every assigned worker every
``--worker-beat-secs`` (3 s; 1.2.4's workers beat every second, Nimbus's timeout is 30 s).
Topologies (one spout, one worker) are submitted through Thrift until each level is reached
and assigned; then, for ``--seconds`` each, one client calls ``getClusterInfo``,
``getTopologyInfo``, ``getTopologyPageInfo`` and ``getSupervisorPageInfo`` as fast as answers
come.  Also printed per level: the mk-assignments round's time (the monitor's round run in
this process against the same ZooKeeper and the nimbus's blob store, with the read cache and
without) and the nimbus's resident memory.  ``--cache both`` runs everything twice, with
``pynimbus.read.cache`` true and false; ``--storm 1.2.4 2.8.3`` also runs the real Nimbus of
those versions (the compat harness's ``JavaNimbus``, jars from Maven Central into .cache/)
through the same levels, each submit with the harness's small jar.  Prints figures; asserts
nothing.

The 2 cores of the machine are shared by nimbus, ZooKeeper, the simulator and the client, so
figures are machine-bound; compare the columns of one run.
"""

import argparse
import multiprocessing
import os
import statistics
import sys
import tempfile
import time
import types

REPO_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.append(REPO_ROOT)  # an installed pynimbus (maybe compiled: pynimbus.common.compiled) first
sys.path.insert(0, os.path.join(REPO_ROOT, "tests"))

from thrift.protocol.TBinaryProtocol import TBinaryProtocolAccelerated  # noqa: E402

from nimbus_process import NimbusProcess, RawClient, zookeeper_options  # noqa: E402
from pynimbus.cluster.serialization import serialize  # noqa: E402
from pynimbus.generated.storm import ttypes  # noqa: E402
from zookeeper_server import ZooKeeperServer, unavailable_reason  # noqa: E402

ROOT = "/bench-read-path"
PORTS = (6700, 6701, 6702, 6703)
SUPERVISOR_BEAT_SECS = 5.0
CALLS = ("getClusterInfo", "getTopologyInfo", "getTopologyPageInfo", "getSupervisorPageInfo")


# -- the simulated cluster (a separate process) -------------------------------------------

def supervisor_info(index, started):
    now = int(time.time())
    return ttypes.SupervisorInfo(
        time_secs=now, hostname="host-%04d" % index, assignment_id="sup-%04d" % index,
        used_ports=[], meta=list(PORTS), scheduler_meta={}, uptime_secs=now - started,
        version="1.2.4", resources_map={"supervisor.memory.capacity.mb": 4096.0,
                                        "supervisor.cpu.capacity": 400.0})


def executor_stats():
    windows = ("600", "10800", "86400", ":all-time")
    counts = {w: {"default": 100} for w in windows}
    return ttypes.ExecutorStats(
        emitted=counts, transferred=counts, rate=1.0,
        specific=ttypes.ExecutorSpecificStats(spout=ttypes.SpoutStats(
            acked=counts, failed={w: {"default": 0} for w in windows},
            complete_ms_avg={w: {"default": 1.5} for w in windows})))


def simulate(zk_hosts, root, supervisors, worker_beat_secs, ready, stop):
    """Register ``supervisors`` and keep them and their assigned workers beating."""
    from kazoo.client import KazooClient
    client = KazooClient(hosts=zk_hosts, timeout=30)
    client.start(timeout=30)
    client.ensure_path(root)
    client.stop()
    client.close()
    client = KazooClient(hosts=zk_hosts + root, timeout=30)
    client.start(timeout=30)
    started = int(time.time())
    for path in ("/supervisors", "/workerbeats", "/assignments"):
        client.ensure_path(path)
    pending = [client.create_async("/supervisors/sup-%04d" % i,
                                   serialize(supervisor_info(i, started)), ephemeral=True)
               for i in range(supervisors)]
    for request in pending:
        request.get()
    ready.set()
    assignments = {}  # storm id -> (version, Assignment)
    next_supervisor_beat = next_worker_beat = time.monotonic()
    stats = executor_stats()
    while not stop.is_set():
        now = time.monotonic()
        if now >= next_supervisor_beat:
            pending = [client.set_async("/supervisors/sup-%04d" % i,
                                        serialize(supervisor_info(i, started)))
                       for i in range(supervisors)]
            for request in pending:
                request.get()
            next_supervisor_beat = now + SUPERVISOR_BEAT_SECS
        if now >= next_worker_beat:
            beat_workers(client, assignments, stats)
            next_worker_beat = now + worker_beat_secs
        stop.wait(0.2)
    client.stop()
    client.close()


def beat_workers(client, assignments, stats):
    """Read changed assignments, then write every assigned worker's heartbeat."""
    from pynimbus.cluster.serialization import deserialize
    ids = client.get_children("/assignments")
    for storm_id in set(assignments) - set(ids):
        del assignments[storm_id]
    reads = [(i, client.get_async("/assignments/" + i)) for i in ids]
    for storm_id, request in reads:
        data, stat = request.get()
        if storm_id not in assignments or assignments[storm_id][0] != stat.version:
            assignments[storm_id] = (stat.version, deserialize(data, ttypes.Assignment))
    writes = []
    now = int(time.time())
    for storm_id, (_version, assignment) in assignments.items():
        workers = {}
        for executor, node_port in assignment.executor_node_port.items():
            slot = (node_port.node, min(node_port.port))
            workers.setdefault(slot, {})[ttypes.ExecutorInfo(*executor)] = stats
        for (node, port), executor_stats in workers.items():
            beat = ttypes.ClusterWorkerHeartbeat(storm_id=storm_id, executor_stats=executor_stats,
                                                 time_secs=now, uptime_secs=10)
            path = "/workerbeats/%s/%s-%d" % (storm_id, node, port)
            writes.append((path, client.set_async(path, serialize(beat))))
    for path, request in writes:
        try:
            request.get()
        except Exception:  # first beat of this worker: create it
            client.create(path, serialize(beat_of(path, now, stats, assignments)), makepath=True)


def beat_of(path, now, stats, assignments):
    storm_id, worker = path.split("/")[2:4]
    node, port = worker.rsplit("-", 1)
    executors = {ttypes.ExecutorInfo(*e): stats
                 for e, np in assignments[storm_id][1].executor_node_port.items()
                 if np.node == node and min(np.port) == int(port)}
    return ttypes.ClusterWorkerHeartbeat(storm_id=storm_id, executor_stats=executors,
                                         time_secs=now, uptime_secs=10)


# -- the nimbus side ----------------------------------------------------------------------

def tiny_topology():
    from test_nimbus_scenarios import spout, topology
    return topology({"spout": spout(parallelism=1)})


TOPOLOGY_CONF = ('{"topology.workers": 1, "topology.acker.executors": 0, '
                 '"topology.eventlogger.executors": 0}')


SUBMITTERS = 4  # concurrent submits share the monitor rounds they ask for


def submit_until(port, count, have, upload_jar):
    import threading
    topo = tiny_topology()
    names = iter(range(have, count))
    lock = threading.Lock()

    def submitter():
        with RawClient("127.0.0.1", port, timeout=300) as client:
            while True:
                with lock:
                    n = next(names, None)
                if n is None:
                    return
                client.call("submitTopology", name="t%04d" % n,
                            uploadedJarLocation=upload_jar(client), jsonConf=TOPOLOGY_CONF,
                            topology=topo)

    threads = [threading.Thread(target=submitter) for _ in range(SUBMITTERS)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()


def no_jar(_client):
    return ""


def fake_jar(client):
    """Upload the compat harness's small jar, as the real Nimbus wants one per submit."""
    from compat.oracle.capture import FAKE_JAR
    location = client.call("beginFileUpload")
    client.call("uploadChunk", location=location, chunk=FAKE_JAR)
    client.call("finishFileUpload", location=location)
    return location


def wait_assigned(port, count, timeout=600):
    deadline = time.monotonic() + timeout
    with RawClient("127.0.0.1", port, timeout=120) as client:
        while time.monotonic() < deadline:
            info = client.call("getClusterInfo")
            if sum(1 for t in info.topologies if t.num_workers > 0) >= count:
                return info
            time.sleep(0.5)
    raise RuntimeError("%d topologies were not assigned within %d s" % (count, timeout))


def call_args(method, info):
    assigned = [t for t in info.topologies if t.num_workers > 0]
    if method == "getClusterInfo":
        return {}
    if not assigned:
        return None
    storm_id = assigned[len(assigned) // 2].id
    if method == "getTopologyInfo":
        return {"id": storm_id}
    if method == "getTopologyPageInfo":
        return {"id": storm_id, "window": ":all-time", "is_include_sys": False}
    return {"id": info.supervisors[0].supervisor_id, "host": None, "is_include_sys": False}


def supervisor_of(port, storm_id):
    """A supervisor running a worker of ``storm_id`` (its assignment, from getTopologyInfo)."""
    with RawClient("127.0.0.1", port, timeout=60) as client:
        info = client.call("getTopologyInfo", id=storm_id)
    hosts = {e.host for e in info.executors}
    return "sup-%s" % sorted(hosts)[0].split("-")[1]


def rate(port, method, kwargs, seconds):
    """(calls/s, median ms per call) of one client calling ``method`` for ``seconds``."""
    client = RawClient("127.0.0.1", port, timeout=120, protocol_class=TBinaryProtocolAccelerated)
    try:
        for _ in range(3):
            client.call(method, **kwargs)
        durations = []
        end = time.perf_counter() + seconds
        while time.perf_counter() < end or len(durations) < 3:
            t0 = time.perf_counter()
            client.call(method, **kwargs)
            durations.append(time.perf_counter() - t0)
        return len(durations) / sum(durations), statistics.median(durations) * 1e3
    finally:
        client.close()


def monitor_round_ms(conf, cached, rounds=3):
    """Median ms of the monitor's mk-assignments round, run in this process."""
    from pynimbus.blobstore.local import LocalFsBlobStore
    from pynimbus.cluster import make_cluster_state
    from pynimbus.nimbus.monitor import Monitor
    state = make_cluster_state(conf)
    if cached:
        state.start_read_cache(60)
    nimbus = types.SimpleNamespace(conf=conf, state=state, clock=time.time,
                                   blob_store=LocalFsBlobStore(conf), is_leader=lambda: True)
    try:
        monitor = Monitor(nimbus)
        times = []
        for _ in range(rounds + 1):
            t0 = time.perf_counter()
            monitor._mk_assignments_blocking(None)
            times.append(time.perf_counter() - t0)
        return statistics.median(times[1:]) * 1e3  # the first round fills caches
    finally:
        state.close()


class PyNimbus:
    """A ``pynimbus dev`` with or without the read cache."""

    upload_jar = staticmethod(no_jar)

    def __init__(self, zk, root, cache):
        self.label = "pynimbus, read cache %s" % ("on" if cache else "off")
        self.local_dir = tempfile.mkdtemp(prefix="bench-read-path-")
        self.conf = dict(default_conf(), **{
            "storm.local.dir": self.local_dir, "storm.zookeeper.servers": zk.servers,
            "storm.zookeeper.port": zk.port, "storm.zookeeper.root": root})
        self.proc = NimbusProcess(self.local_dir, log_level="WARNING", options=zookeeper_options(
            zk.servers, zk.port, root) + [
            "nimbus.monitor.freq.secs=10", "pynimbus.read.cache=%s" % str(cache).lower(),
            "storm.zookeeper.connection.timeout=60000"])

    def start(self):
        self.proc.start(timeout=120)
        self.port = self.proc.port

    def rss_mib(self):
        return self.proc.rss_kib() / 1024.0

    def monitor_round(self, level):
        cached = "%.0f ms with the read cache" % monitor_round_ms(self.conf, True)
        if level > 100:  # without it, rounds of reads one by one take minutes
            return cached
        return cached + ", %.0f ms without" % monitor_round_ms(self.conf, False)

    def stop(self):
        self.proc.stop(timeout=60)


class StormNimbus:
    """The real Nimbus of a Storm version (the compat harness's JavaNimbus)."""

    upload_jar = staticmethod(fake_jar)

    def __init__(self, zk, root, version):
        from compat.oracle.java_nimbus import JavaNimbus
        self.label = "Storm %s Nimbus" % version
        self.nimbus = JavaNimbus(version, zk.port, zk_root=root,
                                 conf={"nimbus.monitor.freq.secs": 10})

    def start(self):
        self.nimbus.start()
        self.port = self.nimbus.port

    def rss_mib(self):
        with open("/proc/%d/status" % self.nimbus.process.pid) as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1]) / 1024.0
        return float("nan")

    def monitor_round(self, _level):
        return "- (not measured for the JVM)"

    def stop(self):
        self.nimbus.stop()


def run(zk, args, make_daemon, root):
    ctx = multiprocessing.get_context("fork")
    ready, stop = ctx.Event(), ctx.Event()
    sim = ctx.Process(target=simulate, args=("%s:%d" % (zk.host, zk.port), root,
                                             args.supervisors, args.worker_beat_secs,
                                             ready, stop))
    sim.start()
    ready.wait(300)
    daemon = make_daemon()
    have = 0
    try:
        daemon.start()
        for level in args.levels:
            step = "submitting topologies %d to %d" % (have + 1, level)
            try:
                submit_until(daemon.port, level, have, daemon.upload_jar)
                have = level
                step = "waiting for %d assigned topologies (getClusterInfo)" % level
                info = wait_assigned(daemon.port, level)
            except Exception as e:
                raise RuntimeError("%s: %s" % (step, e)) from e
            time.sleep(args.worker_beat_secs + 1)  # every worker has beaten once
            figures = []
            for method in CALLS:
                kwargs = call_args(method, info)
                if method == "getSupervisorPageInfo" and kwargs is not None:
                    kwargs["id"] = supervisor_of(daemon.port, call_args(
                        "getTopologyInfo", info)["id"])
                figures.append(None if kwargs is None
                               else rate(daemon.port, method, kwargs, args.seconds))
            print("  %s, %d topologies, %d supervisors:" % (
                daemon.label, level, len(info.supervisors)))
            for method, figure in zip(CALLS, figures):
                print("      %-22s %s" % (method, "-" if figure is None else
                                          "%8.1f calls/s  (median %.2f ms)" % figure))
            print("      mk-assignments round  %s" % daemon.monitor_round(level))
            print("      nimbus RSS            %8.1f MiB" % daemon.rss_mib())
            sys.stdout.flush()
    finally:
        daemon.stop()
        stop.set()
        sim.join(60)
        if sim.is_alive():
            sim.terminate()
            sim.join(10)


def default_conf():
    from pynimbus.common.config import default_config
    return default_config()


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--supervisors", type=int, default=1000)
    parser.add_argument("--levels", type=int, nargs="+", default=[0, 100, 1000])
    parser.add_argument("--seconds", type=float, default=3.0)
    parser.add_argument("--worker-beat-secs", type=float, default=3.0)
    parser.add_argument("--cache", choices=("both", "on", "off", "none"), default="both")
    parser.add_argument("--storm", nargs="*", default=[],
                        help="also run the real Nimbus of these Storm versions (1.2.4 2.8.3)")
    args = parser.parse_args(argv)
    reason = unavailable_reason()
    if reason:
        print("needs a real ZooKeeper: " + reason)
        return 1
    print("read path: %d supervisors x 4 slots, worker beats every %.0f s, %d CPU cores, "
          "one client, %.0f s per figure" % (args.supervisors, args.worker_beat_secs,
                                             os.cpu_count(), args.seconds))
    caches = {"both": (True, False), "on": (True,), "off": (False,), "none": ()}[args.cache]
    with ZooKeeperServer() as zk:
        for cache in caches:
            root = "%s-%s" % (ROOT, "on" if cache else "off")
            run(zk, args, lambda: PyNimbus(zk, root, cache), root)
        for version in args.storm:
            root = "%s-storm-%s" % (ROOT, version.replace(".", ""))
            try:
                run(zk, args, lambda: StormNimbus(zk, root, version), root)
            except Exception as e:  # no java, no Maven Central: say so, go on
                print("  Storm %s Nimbus not run: %s" % (version, str(e).splitlines()[0]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
