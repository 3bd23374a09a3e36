"""The worker process: one slot's executors on the reactor (the thin shell).

Port of Storm 1.2.4 worker.clj ``mk-worker`` and ``worker-data``: read the topology's conf
and code from the supervisor's stormdist directory, read the assignment, build this slot's
executors with the port functions Nimbus uses (``storm_task_info``, ``system_topology``,
``outbound_components``), listen for tuples on the slot's port and connect to the topology's
other workers, write the pid file, the LocalState heartbeat (``do-heartbeat``) and the
cluster-state worker heartbeat (``do-executor-heartbeats``) on their periods, refresh the
assignment every ``task.refresh.poll.secs`` and stop once the slot no longer runs the
topology.  Cluster-state calls and file writes run in threads: the reactor never blocks.

In 2.x mode (``pynimbus.storm.compat: "2.x"``) the worker is a 2.8.8 one (``Worker`` and
``WorkerState``): it reads its assignment from its supervisor's ``getLocalAssignmentForStorm``
(at ``supervisor.thrift.port`` on this host), from cluster state only when the supervisor
does not answer; after each LocalState heartbeat it sends the same heartbeat to the
supervisor (``sendSupervisorWorkerHeartbeat``), to the leader Nimbus when the supervisor does
not take it (``heartbeatToMasterIfLocalbeatFail``); its stats heartbeat goes to cluster state
every ``executor.metrics.frequency.secs``; and it stops once its executors differ from the
assignment's (``suicideIfLocalAssignmentsChanged``).
"""

import gc
import json
import logging
import os
import random
import time

from twisted.internet import defer, task
from twisted.internet.error import ReactorNotRunning
from twisted.internet.threads import deferToThread

from pynimbus.clojure_port.system_topology import (
    ACKER_COMPONENT_ID, EVENTLOGGER_COMPONENT_ID, SYSTEM_COMPONENT_ID,
    TOPOLOGY_METRICS_CONSUMER_REGISTER, all_components, has_ackers, metrics_consumer_ids,
    system_topology)
from pynimbus.clojure_port.tasks import storm_task_info
from pynimbus.cluster import make_cluster_state
from pynimbus.common.drpc_invocations import ResultReturner
from pynimbus.common.exit_codes import EXIT_CODE_CHILD_DIED
from pynimbus.common.hostname import hostname
from pynimbus.common.local_dirs import touch_worker_pid, worker_heartbeats_root, worker_pids_root
from pynimbus.common.local_dirs import (
    RESOURCES_SUBDIR, read_supervisor_storm_conf, read_supervisor_topology,
    supervisor_stormdist_root, worker_artifacts_pid_path, worker_artifacts_root, worker_root)
from pynimbus.common.local_state import LocalState
from pynimbus.common.local_state import LS_WORKER_HEARTBEAT
from pynimbus.common.log_limit import Throttle
from pynimbus.common.text import one_line
from pynimbus.common.transport_secret import AUTHENTICATION_KEY, TRANSPORT_SECRET_KEY
from pynimbus.generated.storm.ttypes import SupervisorWorkerHeartbeat, TopologyStatus
from pynimbus.worker.clock import millis_clock
from pynimbus.worker.event_logger import (
    EVENTS_LOG, EventLoggerExecutor, debug_sampling_pct, tuple_watch)
from pynimbus.worker.executor import (
    AckerExecutor, BoltExecutor, HostedExecutor, NoopBoltExecutor, SpoutExecutor, TupleImpl,
    WorkerContext, receive_message_id)
from pynimbus.worker.groupings import (
    GroupingError, component_to_sorted_tasks, mk_grouper_context, outbound_components)
from pynimbus.worker.inbound import inbound_streams, refusal
from pynimbus.worker.inprocess.bolt_host import bolt_host_factory
from pynimbus.worker.inprocess.selection import inprocess_component_classes
from pynimbus.worker.inprocess.spout_host import spout_host_factory
from pynimbus.worker.java_components import (
    SHELL_BOLT_CLASS, SHELL_SPOUT_CLASS, java_class_name, read_java_shell_component)
from pynimbus.worker.message_id import mk_id_source
from pynimbus.worker.metrics import (
    DEFAULT_SEND_BUFFER_SIZE, TOPOLOGY_EXECUTOR_SEND_BUFFER_SIZE, BuiltinMetrics,
    ConsumerContext, MetricsConsumerExecutor, MetricsTicker, WorkerMetrics, bucket_size_secs)
from pynimbus.worker.log_levels import WorkerLogLevels, apply_levels, original_levels
from pynimbus.worker.multilang.shell_host import shell_host_factory
from pynimbus.worker.profiler import WorkerProfiler
from pynimbus.worker.multilang.shell_process import child_env
from pynimbus.worker.receive_queue import ExecutorLoop
from pynimbus.worker.stats import (
    BOLT, DEFAULT_SAMPLE_RATE, SPOUT, STATS_ROTATION_SECS, ExecutorStatsCollector,
    ls_worker_heartbeat, worker_heartbeat)
from pynimbus.worker.topology_master import (
    TOPOLOGY_MASTER_COMPONENT_ID, HeartbeatRouting, TopologyMasterExecutor, topology_master_task)
from pynimbus.worker.transfer import TransferFn
from pynimbus.worker.trident.program import (
    TridentProgramError, is_trident_component, load_trident_plan, trident_program)
from pynimbus.worker.transport import (
    TupleClient, TupleServerFactory, authentication, receiving_limits, transport_settings)

log = logging.getLogger(__name__)

SYSTEM_EXECUTOR = (-1, -1)  # the worker's own __system executor, in its beats
EXIT_CODE_SUICIDE = 1  # 2.8.8 Worker's suicide function: exitProcess(1, ...)
# Seconds a 2.x worker's call to its supervisor or to Nimbus may take (they run every second).
RPC_TIMEOUT_SECS = 5.0


def executor_key(executor):
    """``(start, end)`` of an assignment key (a list or tuple of two task ids)."""
    return (int(executor[0]), int(executor[-1]))


def my_executors(assignment, supervisor_id, port):
    """worker.clj ``read-worker-executors``: the executors the assignment places on this
    supervisor's ``port``, sorted."""
    return sorted(executor_key(executor)
                  for executor, node_port in (assignment.executor_node_port or {}).items()
                  if node_port.node == supervisor_id and port in (node_port.port or ()))


def remote_task_to_node_port(assignment, supervisor_id, port):
    """``{task: (host, port)}`` of the topology's tasks that run in other workers
    (worker.clj ``mk-refresh-connections``'s task->node+port without this worker)."""
    ret = {}
    node_host = assignment.node_host or {}
    for executor, node_port in (assignment.executor_node_port or {}).items():
        for their_port in node_port.port or ():
            if node_port.node == supervisor_id and their_port == port:
                continue
            host = node_host.get(node_port.node, node_port.node)
            start, end = executor_key(executor)
            for task_id in range(start, end + 1):
                ret[task_id] = (host, int(their_port))
    return ret


def supervisor_worker_heartbeat(ls_heartbeat):
    """The ``SupervisorWorkerHeartbeat`` of a LocalState heartbeat (2.8.8
    ``heartbeatToMasterIfLocalbeatFail``): storm id, executors and time."""
    return SupervisorWorkerHeartbeat(storm_id=ls_heartbeat.topology_id,
                                     executors=list(ls_heartbeat.executors),
                                     time_secs=ls_heartbeat.time_secs)


def call_supervisor(conf, method, *args):
    """Call ``method`` of this host's supervisor (``supervisor.thrift.port`` of the
    supervisor's ``conf``; 2.8.8 passes the port on the worker's command line).  Blocking."""
    from pynimbus.thrift.client import SupervisorClient  # 2.x only: a 1.x worker never loads it
    with SupervisorClient(hostname(conf), int(conf["supervisor.thrift.port"]),
                          timeout=RPC_TIMEOUT_SECS) as supervisor:
        return supervisor.call(method, *args)


class WorkerDaemon(object):
    """One worker process (worker.clj ``mk-worker``).

    :param conf: the supervisor's conf (the ``--conf`` file); the topology conf is merged
        over it.
    :param cluster_state: a ``StormClusterState`` (blocking calls run via ``run_blocking``).
    """

    def __init__(self, reactor, conf, storm_id, supervisor_id, port, worker_id, cluster_state,
                 run_blocking=deferToThread, clock=time.time, environ=os.environ):
        self.reactor = reactor
        self.supervisor_conf = conf
        # a 2.x supervisor serves the Supervisor service: the worker talks to it (its conf
        # file, not the topology's stored conf, has the port it serves)
        self.rpc = conf.get("pynimbus.storm.compat") == "2.x"
        self.storm_id = storm_id
        self.supervisor_id = supervisor_id
        self.port = port
        self.worker_id = worker_id
        self.cluster_state = cluster_state
        self.run_blocking = run_blocking
        self.clock = clock
        self.environ = environ
        self.start_secs = clock()
        self.conf = None
        self.executors = []
        self.task_to_executor = {}
        # worker.clj mk-transfer-fn: executors emit through it
        self.transfer_fn = TransferFn(self.task_to_executor, on_unsendable=self._unsendable)
        # the consumer of every executor's receive queue (the executors' threads in Storm)
        self.loop = ExecutorLoop(reactor.callLater, self.room_again)
        self.unsendable_tuples = 0
        self._unsendable_reports = Throttle(reactor)
        self.transfer = self.transfer_fn.transfer
        self.clients = {}
        self.server_port = None
        self.executor_ids = []
        self.exit_code = 0
        self.refused_tuples = 0  # tuples from other workers that do not fit the topology
        self._loops = []
        self._stopping = None
        self.shutting_down = False  # shutdown() began: children ending are no errors
        self._spouts = []
        self._local_state = None
        self.inprocess_classes = {}
        self.trident_plan = None   # the topology's Trident program, planned again here
        self.trident_store = None  # its /transactional state
        self.drpc_results = None  # the results its DRPC streams return
        self.metrics_ticker = None  # sends the built-in metrics, when consumers are registered
        self._sampling = {}  # executor -> the event sampling percentage its watch has
        # the log levels Nimbus's LogConfig sets, from those this process started with
        self.log_levels = WorkerLogLevels(
            lambda: int(self.clock() * 1000), original_levels(),
            lambda changes: apply_levels(changes, log=log))

    # -- start-up

    @defer.inlineCallbacks
    def start(self):
        """worker.clj ``mk-worker``: returns a Deferred that fires once the executors run."""
        self.conf = yield self.run_blocking(read_supervisor_storm_conf, self.supervisor_conf,
                                            self.storm_id)
        topology = yield self.run_blocking(read_supervisor_topology, self.supervisor_conf,
                                           self.storm_id)
        compat = self.conf.get("pynimbus.storm.compat", "1.x")
        self.compat = compat
        log.info("Started with log levels: %s", self.log_levels.original)
        assignment = yield self.run_blocking(self._read_assignment)
        if assignment is None:
            raise RuntimeError("topology %s has no assignment" % self.storm_id)
        yield self.run_blocking(self._write_pid_file)
        self.user_topology = topology
        self.system_topology = system_topology(self.conf, topology, compat)
        self.task_to_component = storm_task_info(topology, self.conf, compat)
        self.transfer_fn.task_to_component = self.task_to_component
        self.executor_ids = my_executors(assignment, self.supervisor_id, self.port)
        yield self._load_trident_program(topology)
        self.inprocess_classes = yield self.run_blocking(
            inprocess_component_classes, self.conf, self._my_shell_commands(),
            self._resources_dir(), self._child_env())
        self._build_executors(assignment)
        self._apply_debug(None)
        self._listen()
        self._connect(assignment)
        yield self._heartbeat_local()
        self._start_executors()
        base = yield self.run_blocking(self.cluster_state.storm_base, self.storm_id)
        self._apply_debug(base)
        self._apply_status(base)
        self._start_loops()

    @defer.inlineCallbacks
    def _load_trident_program(self, topology):
        """Import and plan again the Trident program the topology names, if it names one
        (:mod:`pynimbus.worker.trident.program`); a program that does not load or plans
        another topology is reported as its components' error, and the worker stops."""
        try:
            program = trident_program(topology)
            if program is None:
                return
            # the program runs in this process: it reads topology.environment here, as a
            # multilang child or an in-process pystorm component does
            os.environ.update(self.conf.get("topology.environment") or {})
            self.trident_plan = yield self.run_blocking(
                load_trident_plan, self._resources_dir(), program, topology)
        except TridentProgramError as e:
            mine = sorted({self.task_to_component.get(start) for start, _ in self.executor_ids}
                          - {None})
            for component_id in mine:
                yield self.report_error(component_id, str(e))
            raise
        from pynimbus.worker.trident.transactional_state import TransactionalStore
        self.trident_store = TransactionalStore(self.reactor, self.conf)
        self.drpc_results = ResultReturner(name="trident-drpc-results")

    def _read_assignment(self):
        """The topology's Assignment: cluster state's (1.x); in 2.x the supervisor's local
        copy, cluster state's only when the supervisor does not answer (2.8.8
        ``WorkerState.getLocalAssignment``).  Blocking."""
        if self.rpc:
            try:
                return call_supervisor(self.supervisor_conf, "getLocalAssignmentForStorm",
                                       self.storm_id)
            except Exception as e:
                log.info("assignment not read from the supervisor (%s): reading cluster state",
                         e)
        return self.cluster_state.assignment_info(self.storm_id)

    def _write_pid_file(self):
        """The pid in the worker's ``pids`` and, as worker.clj ``mk-worker`` spits it, in
        ``worker.pid`` of its artifacts directory (where the supervisor's profiler actions
        read it)."""
        os.makedirs(worker_pids_root(self.supervisor_conf, self.worker_id), exist_ok=True)
        touch_worker_pid(self.supervisor_conf, self.worker_id, os.getpid())
        os.makedirs(self._artifacts_dir(), exist_ok=True)
        with open(worker_artifacts_pid_path(self.supervisor_conf, self.storm_id, self.port),
                  "w") as f:
            f.write(str(os.getpid()))
        self._local_state = LocalState(
            worker_heartbeats_root(self.supervisor_conf, self.worker_id))

    def _resources_dir(self):
        return os.path.join(
            supervisor_stormdist_root(self.supervisor_conf, self.storm_id), RESOURCES_SUBDIR)

    def _child_env(self):
        return child_env(self.environ, self.conf.get("topology.environment") or {})

    def _my_shell_commands(self):
        """``{component id: (argv, is_spout)}`` of this worker's shell components."""
        components = all_components(self.user_topology)
        spouts = self.user_topology.spouts or {}
        ret = {}
        for start, _end in self.executor_ids:
            component_id = self.task_to_component.get(start)
            component = components.get(component_id)
            if component is None:
                continue
            is_spout = component_id in spouts
            obj = component.spout_object if is_spout else component.bolt_object
            if is_trident_component(obj):
                continue
            command, _env = self._shell_command(obj, is_spout)
            if command is not None:
                ret[component_id] = (command, is_spout)
        return ret

    def _context(self):
        resources_dir = self._resources_dir()
        id_source = mk_id_source(random.Random())
        return WorkerContext(
            storm_id=self.storm_id, storm_conf=self.conf,
            system_topology=self.system_topology, user_topology=self.user_topology,
            task_to_component=self.task_to_component,
            transfer=self.transfer, report_error=self.report_error, reactor=self.reactor,
            now_ms=millis_clock(self.clock), generate_id=id_source,
            has_ackers=has_ackers(self.conf, self.compat), resources_dir=resources_dir,
            pid_dir=worker_pids_root(self.supervisor_conf, self.worker_id),
            child_env=self._child_env(),
            compat=self.compat, throttled=self.throttled, loop=self.loop)

    def _build_executors(self, assignment):
        """worker.clj's executors: one per assigned range, plus ``__system``'s own."""
        context = self._context()
        my_tasks = [t for start, end in self.executor_ids for t in range(start, end + 1)]
        grouper_context = mk_grouper_context(my_tasks, self.conf, random.Random(),
                                             context.now_ms)
        component_to_tasks = component_to_sorted_tasks(self.task_to_component)
        components = all_components(self.system_topology)
        spouts = self.system_topology.spouts or {}
        for start, end in self.executor_ids + [(-1, -1)]:
            task_ids = list(range(start, end + 1))
            component_id = self.task_to_component.get(start, SYSTEM_COMPONENT_ID)
            component = components.get(component_id)
            component_conf = dict(self.conf)
            if component is not None and component.common.json_conf:
                component_conf.update(json.loads(component.common.json_conf))
            try:
                groupers = (outbound_components(grouper_context, self.system_topology,
                                                component_id, component_to_tasks)
                            if component is not None else {})
            except GroupingError as e:
                self.report_error(component_id, str(e))
                continue
            executor = self._mk_executor(context, component_id, component, task_ids,
                                         groupers, component_conf, component_id in spouts)
            if executor is None:
                continue
            self.executors.append(executor)
            for task_id in task_ids:
                self.task_to_executor[task_id] = executor
        master_task = topology_master_task(self.task_to_component)
        self.heartbeat_routing = HeartbeatRouting(
            self.task_to_component, self.task_to_executor.get(master_task), self.transfer,
            self.cluster_state, self.storm_id, self.supervisor_id, self.port, self.clock,
            self.start_secs)

    def _mk_executor(self, context, component_id, component, task_ids, groupers,
                     component_conf, is_spout):
        """executor.clj ``mk-executor`` for what a Python worker can run; any Java object
        is reported as a component error naming its class and does not run."""
        stats = ExecutorStatsCollector(
            SPOUT if is_spout else BOLT, self.clock,
            self.conf.get("topology.stats.sample.rate", DEFAULT_SAMPLE_RATE))
        args = (context, component_id, task_ids, groupers, component_conf, stats)
        if component_id == ACKER_COMPONENT_ID:
            return AckerExecutor(*args)
        if component_id == TOPOLOGY_MASTER_COMPONENT_ID:
            return TopologyMasterExecutor(*args)
        if component_id == EVENTLOGGER_COMPONENT_ID:
            return EventLoggerExecutor(
                *args, events_path=os.path.join(self._artifacts_dir(), EVENTS_LOG),
                run_blocking=self.run_blocking, logger_context=self._user_class_context(
                    component_id, task_ids[0]))
        registration = self._metrics_registrations().get(component_id)
        if registration is not None:
            return MetricsConsumerExecutor(
                *args, registration=registration, run_blocking=self.run_blocking,
                consumer_context=self._user_class_context(component_id, task_ids[0]))
        if component is None or component_id.startswith("__"):
            return NoopBoltExecutor(*args)
        obj = component.spout_object if is_spout else component.bolt_object
        if is_trident_component(obj) and self.trident_plan is not None:
            return self._trident_executor(args, component_id, is_spout)
        command, env = self._shell_command(obj, is_spout)
        if command is not None:
            executor_class = SpoutExecutor if is_spout else BoltExecutor
            executor = executor_class(
                *args, host_factory=self._host_factory(component_id, is_spout, command, env),
                on_child_died=self._child_died)
            if is_spout:
                self._spouts.append(executor)
            return executor
        self.report_error(component_id, self._unrunnable(component_id, obj))
        return None

    def _user_class_context(self, component_id, task_id):
        """The context a metrics consumer's or an event logger's ``prepare`` gets."""
        return ConsumerContext(self.storm_id, component_id, task_id, self.port,
                               self._artifacts_dir(), self.start_secs)

    def _artifacts_dir(self):
        """``<storm.log.dir>/workers-artifacts/<storm id>/<port>``: events.log and
        worker.log.metrics go there, beside worker.log."""
        return worker_artifacts_root(self.supervisor_conf, self.storm_id, self.port)

    def _metrics_registrations(self):
        """``{consumer component id: its topology.metrics.consumer.register entry}``."""
        return dict(zip(metrics_consumer_ids(self.conf, self.compat),
                        self.conf.get(TOPOLOGY_METRICS_CONSUMER_REGISTER) or []))

    def _trident_executor(self, args, component_id, is_spout):
        """A Trident component of the program's plan on a spout or bolt executor
        (:mod:`pynimbus.worker.trident.hosts`)."""
        from pynimbus.worker.trident.executor import BatchBoltExecutor
        from pynimbus.worker.trident.hosts import host_factory

        planned = self.trident_plan.components[component_id]
        executor_class = SpoutExecutor if is_spout else BatchBoltExecutor
        executor = executor_class(
            *args, host_factory=host_factory(planned, self.trident_store, self.drpc_results),
            on_child_died=self._child_died)
        if is_spout:
            self._spouts.append(executor)
        return executor

    def _host_factory(self, component_id, is_spout, command, env):
        """Where a shell component's tasks run: in this process when its class was imported
        (:mod:`pynimbus.worker.inprocess.selection`), else as multilang children."""
        component_class = self.inprocess_classes.get(component_id)
        if component_class is None:
            return shell_host_factory(command, env)
        return (spout_host_factory if is_spout else bolt_host_factory)(component_class)

    @staticmethod
    def _shell_command(obj, is_spout):
        """The argv and environment of a multilang component: a ``ShellComponent``'s
        ``[execution_command, script]``, or what a serialized ShellBolt/ShellSpout subclass
        was built with; ``(None, None)`` for anything else."""
        if obj is None:
            return None, None
        if obj.shell is not None:
            return [obj.shell.execution_command, obj.shell.script], {}
        if obj.serialized_java is not None:
            java = read_java_shell_component(
                obj.serialized_java, SHELL_SPOUT_CLASS if is_spout else SHELL_BOLT_CLASS)
            if java is not None:
                return java.command, java.env
        return None, None

    @staticmethod
    def _unrunnable(component_id, obj):
        if obj is not None and obj.serialized_java is not None:
            name = java_class_name(obj.serialized_java)
        elif obj is not None and obj.java_object is not None:
            name = obj.java_object.full_class_name
        else:
            name = "(no component object)"
        return ("component %s is the Java class %s, which a Python worker cannot run; only "
                "shell (multilang) components run here" % (component_id, name))

    def _listen(self):
        settings = transport_settings(self.conf)
        auth = authentication(self.conf)
        if auth["key"] is None:
            log.warning("tuple connections of %s are not authenticated: %s", self.storm_id,
                        "its conf switches them off (%s: false)" % AUTHENTICATION_KEY
                        if self.conf.get(AUTHENTICATION_KEY, True) is False else
                        "its stored conf has no %s (it was submitted to a Nimbus that does "
                        "not stamp one)" % TRANSPORT_SECRET_KEY)
        self.server = TupleServerFactory({}, max_frame_bytes=settings["max_frame_bytes"],
                                         clock=self.reactor,
                                         **dict(receiving_limits(self.supervisor_conf), **auth))
        self.server.task_to_receiver = {task_id: self._receiver(task_id)
                                        for task_id in self.task_to_executor}
        # the supervisor's setting, never the topology's: where a host's ports are open is
        # the operator's choice (pynimbus dev: loopback)
        self.listening = self.reactor.listenTCP(
            self.port, self.server,
            interface=self.supervisor_conf.get("pynimbus.worker.bind.address") or "")

    def _receiver(self, task_id):
        """The transport's receiver of ``task_id``: puts tuples in its executor's receive
        queue and answers whether the queue has room for more (False pauses the connection
        until the queue is no longer full: ``room_again``).  A tuple the task does not
        subscribe to, from a task that does not emit it or with the wrong number of values,
        is dropped with a rate-limited line (:mod:`pynimbus.worker.inbound`)."""
        executor = self.task_to_executor[task_id]
        allowed = inbound_streams(self.system_topology, self.task_to_component,
                                  self.task_to_component.get(task_id, SYSTEM_COMPONENT_ID))
        refusals = self.server.refusals
        streams_of = allowed.get
        task_to_component = self.task_to_component
        queue = executor.queue
        empty = {}

        def refuse(addressed):
            self.refused_tuples += 1
            refusals.warning("refused tuple", "task %d refused a tuple from another worker: "
                             "%s (%d refused so far)", task_id,
                             refusal(allowed, addressed.source_task, addressed.stream_id,
                                     addressed.values), self.refused_tuples)

        def receive(addressed_tuples):
            for addressed in addressed_tuples:
                if streams_of(addressed.source_task, empty).get(
                        addressed.stream_id) != len(addressed.values):
                    refuse(addressed)
                    continue
                queue.put(task_id, TupleImpl(
                    addressed.source_task,
                    task_to_component.get(addressed.source_task, SYSTEM_COMPONENT_ID),
                    addressed.stream_id, addressed.values,
                    receive_message_id(addressed.message_id)))
            return not queue.full
        return receive

    def throttled(self):
        """A spout waits while a receive queue of this worker is full, or the send buffer to
        another worker (whose own full queue stopped reading it): the backpressure of
        :mod:`pynimbus.worker.receive_queue`.  Asked before each nextTuple: a loop, as a
        generator for any() costs more than the checks."""
        if self.loop.full_count:
            return True
        for client in self.clients.values():
            if client.backpressure:
                return True
        return False

    def room_again(self):
        """A full receive queue is full no more: read again from the connections paused for
        it."""
        server = getattr(self, "server", None)
        if server is not None:
            server.resume_reading()

    def _connect(self, assignment):
        """worker.clj ``mk-refresh-connections``: one client per other worker of the
        assignment; clients of workers no longer in it are closed."""
        settings = transport_settings(self.conf)
        remote = remote_task_to_node_port(assignment, self.supervisor_id, self.port)
        for node_port in set(self.clients) - set(remote.values()):
            self.clients.pop(node_port).close()  # a worker the topology no longer has
        task_to_client = {}
        for task_id, node_port in remote.items():
            client = self.clients.get(node_port)
            if client is None:
                client = TupleClient(self.reactor, node_port[0], node_port[1], **settings)
                client.start()
                self.clients[node_port] = client
            task_to_client[task_id] = client
        self.transfer_fn.task_to_client = task_to_client

    def _start_executors(self):
        for executor in self.executors:
            executor.start()
            launch = getattr(executor, "launch_children", None)
            if launch is not None and executor not in self._spouts:
                defer.maybeDeferred(launch).addErrback(self._launch_failed, executor)

    def _launch_failed(self, failure, executor):
        """``prepare``/``open`` failed (no serializer, a child that would not start):
        report-error-and-die, as executor.clj does for any error there."""
        if isinstance(failure.value, defer.FirstError):
            failure = failure.value.subFailure
        self._child_died(executor.component_id, "multilang children of %s did not start: %s"
                         % (executor.component_id, failure.getErrorMessage()))

    def _start_loops(self):
        # 2.x writes the stats heartbeat on the metrics period (no Pacemaker here)
        stats_period_key = ("executor.metrics.frequency.secs" if self.rpc
                            else "task.heartbeat.frequency.secs")
        for period_key, beat in (("worker.heartbeat.frequency.secs", self._heartbeat_local),
                                 (stats_period_key, self._heartbeat_cluster),
                                 ("task.refresh.poll.secs", self._refresh)):
            self._start_loop(beat, float(self.conf.get(period_key, 1)))
        self._start_loop(self._rotate_stats, STATS_ROTATION_SECS)
        self._start_loop(self.log_levels.reset,
                         float(self.conf.get("worker.log.level.reset.poll.secs", 30)))
        if self._metrics_registrations():
            self.metrics_ticker = self._metrics_ticker()
            self.metrics_ticker.start()

    def _metrics_ticker(self):
        """The built-in metrics of every executor (``__system``'s with the worker's own),
        sent to the consumers every ``topology.builtin.metrics.bucket.size.secs``."""
        send_buffer = int(self.conf.get(TOPOLOGY_EXECUTOR_SEND_BUFFER_SIZE)
                          or DEFAULT_SEND_BUFFER_SIZE)
        executor_to_metrics = []
        for executor in self.executors:
            metrics = [BuiltinMetrics(executor, send_buffer)]
            if executor.component_id == SYSTEM_COMPONENT_ID:
                metrics.insert(0, WorkerMetrics(self.start_secs, self.clock))
            executor_to_metrics.append((executor, metrics))
        return MetricsTicker(self.reactor, executor_to_metrics, bucket_size_secs(self.conf),
                             hostname(self.conf), self.port, self.clock)

    def _start_loop(self, call, period_secs):
        loop = task.LoopingCall(call)
        loop.clock = self.reactor
        loop.start(period_secs, now=True)
        self._loops.append(loop)

    def _rotate_stats(self):
        """The executor stats' rotation timer (:mod:`pynimbus.worker.stats`)."""
        for executor in self.executors:
            executor.stats.rotate_due()

    # -- heartbeats and refresh

    def _heartbeat_local(self):
        """worker.clj ``do-heartbeat``: the LocalState ``worker-heartbeat``."""
        heartbeat = ls_worker_heartbeat(self.clock(), self.storm_id,
                                        self.executor_ids + [SYSTEM_EXECUTOR], self.port)
        d = self.run_blocking(self._local_state.put, LS_WORKER_HEARTBEAT, heartbeat)
        if self.rpc:
            d.addCallback(lambda _: self.run_blocking(
                self._heartbeat_to_master_if_local_beat_fail,
                supervisor_worker_heartbeat(heartbeat)))
        return d.addErrback(self._log_failure, "local heartbeat")

    def _heartbeat_to_master_if_local_beat_fail(self, heartbeat):
        """Port of ``Worker.heartbeatToMasterIfLocalbeatFail`` (2.8.8): the heartbeat to the
        supervisor, or to the leader Nimbus if the supervisor fails; a failure there too is
        logged.  Blocking."""
        try:
            call_supervisor(self.supervisor_conf, "sendSupervisorWorkerHeartbeat", heartbeat)
            return
        except Exception as e:
            log.warning("Exception when send heartbeat to local supervisor: %s", e)
        from pynimbus.thrift.client import call_leader_nimbus
        try:
            call_leader_nimbus(self.conf, "sendSupervisorWorkerHeartbeat", heartbeat,
                               timeout=RPC_TIMEOUT_SECS)
        except Exception as e:
            log.error("Exception when send heartbeat to master: %s", e)

    def _heartbeat_cluster(self):
        """worker.clj ``do-executor-heartbeats``: the ClusterWorkerHeartbeat."""
        now = int(self.clock())
        executor_to_stats = {(start, end): None for start, end in self.executor_ids}
        for executor in self.executors:
            if executor.task_ids[0] >= 0:
                executor_to_stats[(executor.task_ids[0], executor.task_ids[-1])] = \
                    executor.stats.render()
        write = self.heartbeat_routing.writer(worker_heartbeat(
            self.storm_id, executor_to_stats, now, now - int(self.start_secs)))
        if write is None:
            return None
        return self.run_blocking(write).addErrback(self._log_failure, "worker heartbeat")

    @defer.inlineCallbacks
    def _refresh(self):
        """worker.clj ``refresh-connections`` and ``refresh-storm-active``: stop when this
        slot no longer runs the topology; follow the topology's status, and its log config
        (:mod:`pynimbus.worker.log_levels`; Storm watches it, this worker reads it here)."""
        try:
            assignment = yield self.run_blocking(self._read_assignment)
            base = yield self.run_blocking(self.cluster_state.storm_base, self.storm_id)
        except Exception as e:
            log.warning("assignment refresh failed: %s", e)
            return
        assigned = my_executors(assignment, self.supervisor_id, self.port) if assignment else []
        if self.rpc and assigned != self.executor_ids:
            self._suicide(assigned)
            return
        if not assigned:
            log.info("port %d no longer runs %s; shutting down", self.port, self.storm_id)
            self.reactor.stop()
            return
        self._connect(assignment)
        self._apply_debug(base)
        log.debug("Event debug options %s", base.component_debug if base is not None else None)
        self._apply_status(base)
        yield self._refresh_log_config()

    @defer.inlineCallbacks
    def _refresh_log_config(self):
        """The topology's ``LogConfig``, read and processed when it changed."""
        try:
            log_config = yield self.run_blocking(self.cluster_state.topology_log_config,
                                                 self.storm_id)
        except Exception as e:
            log.warning("log config refresh failed: %s", e)
            return
        self.log_levels.config_read(log_config)

    def _suicide(self, assigned_executors):
        """2.8.8 ``suicideIfLocalAssignmentsChanged``: the assignment gives this port other
        executors, or none, or there is no assignment: this worker exits (code 1) and its
        supervisor launches what the port runs now."""
        log.info("Found conflicting assignments. We shouldn't be alive! Assigned: %s, "
                 "Current: %s", assigned_executors, self.executor_ids)
        self.exit_code = EXIT_CODE_SUICIDE
        self.reactor.stop()

    def _apply_debug(self, base):
        """worker.clj ``refresh-storm-active``'s ``component->debug``: each spout's and
        bolt's watch (:mod:`pynimbus.worker.event_logger`) follows the storm base's
        sampling percentage (none without ``__eventlogger`` tasks) and ``topology.debug``;
        a watch is made again only when its percentage changed."""
        has_eventloggers = EVENTLOGGER_COMPONENT_ID in self.task_to_component.values()
        component_debug = base.component_debug if base is not None else None
        for executor in self.executors:
            if not isinstance(executor, HostedExecutor):
                continue
            pct = (debug_sampling_pct(component_debug, self.storm_id, executor.component_id)
                   if has_eventloggers else 0.0)
            if executor in self._sampling and self._sampling[executor] == pct:
                continue
            if pct != self._sampling.get(executor, 0.0):
                log.info("event logging of %s: %s%% of its emits", executor.component_id, pct)
            self._sampling[executor] = pct
            executor.watch = tuple_watch(executor.component_id, executor.component_conf, pct,
                                         executor.context.now_ms)

    def _apply_status(self, base):
        active = base is not None and base.status == TopologyStatus.ACTIVE
        for spout in self._spouts:
            if active and not spout.hosts:
                defer.maybeDeferred(spout.launch_children).addCallbacks(
                    spout.children_ready, self._launch_failed, errbackArgs=(spout,))
            spout.set_active(active)

    # -- errors and shutdown

    def report_error(self, component_id, text):
        """executor.clj ``report-error``: under the topology's errors in cluster state.

        The log gets the error's first line only: its traceback is logged once already, by
        the component's own logger (pystorm logs what it raises) or by the child's stderr,
        and is kept whole in the error record (``getTopologyInfo``, ``pynimbus status``)."""
        log.error("component %s: %s", component_id, one_line(str(text)))
        log.debug("component %s: %s", component_id, text)
        d = self.run_blocking(self.cluster_state.report_error, self.storm_id, component_id,
                              hostname(self.conf), self.port, text)
        return d.addErrback(self._log_failure, "error report")

    def _unsendable(self, source_task, error):
        """A tuple that cannot cross to another worker (:class:`TransferFn`): dropped (the
        spout's timeout replays it, if anchored) and reported as the emitting component's
        error, at most once per component per 10 s."""
        self.unsendable_tuples += 1
        component_id = self.task_to_component.get(source_task, SYSTEM_COMPONENT_ID)
        passes, held_back = self._unsendable_reports.allow(component_id)
        if passes:
            self.report_error(component_id, "%s%s" % (error, (
                " (%d more such tuples since the last report)" % held_back) if held_back else ""))

    def _child_died(self, component_id, message):
        """A component died: nothing more runs (the spouts ask for no tuple, the receive
        queues are drained no more), the error is reported, then the worker exits with code
        11, as ShellBolt's ``die`` (report-error-and-die, then ``Runtime.halt(11)``).  Halting
        first keeps the reactor from spinning while the report's thread writes it."""
        if self.exit_code == EXIT_CODE_CHILD_DIED:
            return  # dying already: one report is enough
        if self.shutting_down:
            log.info("component %s ended while the worker shuts down: %s", component_id,
                     one_line(str(message)))
            return  # the shutdown kills the children: no error of theirs
        self.exit_code = EXIT_CODE_CHILD_DIED
        self.loop.halt()
        for spout in self._spouts:
            spout.halt()
        self.report_error(component_id, message).addBoth(lambda _: self.stop_reactor())

    def stop_reactor(self):
        """Stop the reactor, unless it is stopping already."""
        try:
            self.reactor.stop()
        except ReactorNotRunning:
            pass

    def shutdown(self):
        """worker.clj ``shutdown`` (2.8.8 ``Worker.shutdown``): stop timers, kill multilang
        children, close sockets, remove this worker's heartbeat from cluster state."""
        if self._stopping is not None:
            return self._stopping
        self.shutting_down = True
        for loop in self._loops:
            if loop.running:
                loop.stop()
        if self.metrics_ticker is not None:
            self.metrics_ticker.stop()
        ended = [d for d in (executor.stop() for executor in self.executors) if d is not None]
        for client in self.clients.values():
            client.close()
        if getattr(self, "listening", None) is not None:
            self.server.close_connections()
            self.listening.stopListening()
        removed = self.run_blocking(self.cluster_state.remove_worker_heartbeat, self.storm_id,
                                    self.supervisor_id, self.port)
        ended.append(removed.addErrback(self._log_failure, "worker heartbeat removal"))
        self._stopping = defer.DeferredList(ended)
        return self._stopping

    @staticmethod
    def _log_failure(failure, what):
        log.warning("%s failed: %s", what, failure.getErrorMessage())


# gc's first-generation threshold in a running worker (CPython's default: 700 allocations).
WORKER_GC_GEN0_THRESHOLD = 20000


def settle_garbage_collector():
    """Once the worker runs: what it loaded and built so far (modules, the topology, the
    executors, the components of user code) moves out of the collector's generations
    (``gc.freeze``), and the young generation is collected every
    ``WORKER_GC_GEN0_THRESHOLD`` allocations instead of 700.  Every tuple allocates a few
    short-lived objects; with the defaults the collector ran every few tuples and each older
    collection walked everything loaded, a tenth of an in-process worker's time
    (bench/bench_inprocess_executors.py)."""
    _gen0, gen1, gen2 = gc.get_threshold()
    gc.freeze()
    gc.set_threshold(WORKER_GC_GEN0_THRESHOLD, gen1, gen2)


def run_worker(conf, storm_id, supervisor_id, port, worker_id):
    """Run a worker on the global reactor until it stops; returns the exit code."""
    from twisted.internet import reactor
    cluster_state = make_cluster_state(conf)
    worker = WorkerDaemon(reactor, conf, storm_id, supervisor_id, port, worker_id,
                          cluster_state)
    reactor.addSystemEventTrigger("before", "shutdown", worker.shutdown)
    # before the first heartbeat, after which the supervisor may signal it
    WorkerProfiler(reactor, worker_root(conf, worker_id), worker._artifacts_dir()).install()

    def failed(failure):
        log.error("worker failed to start: %s", failure.getTraceback())
        worker.exit_code = 1
        reactor.stop()

    reactor.callWhenRunning(lambda: worker.start().addCallbacks(
        lambda _: settle_garbage_collector(), failed))
    reactor.run()
    cluster_state.close()
    return worker.exit_code
