"""``submitTopology`` and ``submitTopologyWithOpts``: every step of Storm's, in Storm's order.

Port of the reified ``submitTopologyWithOpts`` and of ``start-storm`` of nimbus.clj (1.2.4),
with 2.8.8's differences in 2.x mode (``pynimbus.storm.compat``).  The pure steps come from
:mod:`pynimbus.clojure_port`; this module orders them, reads and writes state in threads, and
takes the nimbus-wide submit lock for the writes.  Every rejection happens before anything is
written; a failure while writing deletes what this submission wrote, so a refused topology
leaves no trace in cluster state or on disk.
"""

import getpass
import logging
import re

from twisted.internet import defer, task
from twisted.internet.threads import deferToThread

from pynimbus.blobstore.errors import UnknownUploadLocationError
from pynimbus.blobstore.keys import is_valid_key, validate_dependency_keys
from pynimbus.clojure_port import normalize, replication, stats, system_topology, tasks
from pynimbus.clojure_port.conf_validation import parse_json_conf, validate_topology_conf
from pynimbus.clojure_port.names import validate_topology_name
from pynimbus.clojure_port.normalize_conf import normalize_conf
from pynimbus.clojure_port.storm_id import make_storm_id
from pynimbus.clojure_port.submitter import submitter_fields
from pynimbus.common.stored_topology import (
    master_stormcode_key, master_stormconf_key, master_stormjar_key)
from pynimbus.common.transport_secret import stamp_transport_secret
from pynimbus.generated.storm.ttypes import (
    AlreadyAliveException, AuthorizationException, Credentials, InvalidTopologyException,
    StormBase, SubmitOptions, TopologyInitialStatus, TopologyStatus)
from pynimbus.handlers.authorization import ALLOW_ALL
from pynimbus.handlers.lifecycle import storm_id_of
from pynimbus.jstorm_port import topology_master
from pynimbus.nimbus.topology_store import delete_blobs, read_storm_conf, read_storm_topology, \
    setup_storm_code
from pynimbus.thrift.errors import as_application_error

log = logging.getLogger(__name__)

_INITIAL_STATUS = {TopologyInitialStatus.ACTIVE: TopologyStatus.ACTIVE,
                   TopologyInitialStatus.INACTIVE: TopologyStatus.INACTIVE}


def already_alive_message(name, compat):
    """1.2.4 says "is already active", 2.8.8 "is already alive"."""
    return "%s is already %s" % (name, "alive" if compat == "2.x" else "active")


def check_storm_version_2x(nimbus_conf, topology, nimbus_version):
    """2.8.8's version gate: the topology's major Storm version must be one nimbus can run.

    A topology without ``storm_version`` (streamparse) is taken as nimbus's own version.
    """
    version = topology.storm_version or nimbus_version
    known = [nimbus_version] + list((nimbus_conf.get(
        "supervisor.worker.version.classpath.map") or {}).keys())
    major = version.split(".")[0]
    if not any(str(v).split(".")[0] == major for v in known):
        # the keys are SimpleVersions in a sorted map: "major.minor", printed as a Java set
        simple = sorted({_simple_version(v) for v in known})
        raise InvalidTopologyException(
            msg="Topology submitted with storm version %s but could not find a configured "
                "compatible version to use [%s]"
                % (version, ", ".join("%d.%d" % v for v in simple)))


def check_worker_max_heap_2x(topology_conf, topology, nimbus_conf):
    """Port of 2.8.8 ``ServerUtils.validateTopologyWorkerMaxHeapSizeConfigs``: no component may
    need more memory (on-heap plus off-heap) than ``topology.worker.max.heap.size.mb`` (the
    submitted conf's, else nimbus's)."""
    largest = 0.0
    for component_id in system_topology.all_components(topology):
        res = stats.component_resources(topology, topology_conf, component_id, "2.x")
        need = (res.get("onheap.memory.mb") or 0.0) + (res.get("offheap.memory.mb") or 0.0)
        largest = max(largest, need)
    max_heap = topology_conf.get("topology.worker.max.heap.size.mb")
    if max_heap is None:
        max_heap = nimbus_conf.get("topology.worker.max.heap.size.mb")
    max_heap = float(max_heap) if max_heap is not None else 0.0
    if max_heap < largest:
        raise InvalidTopologyException(
            msg="Topology will not be able to be successfully scheduled: Config "
                "TOPOLOGY_WORKER_MAX_HEAP_SIZE_MB=%s < %s (Largest memory requirement of a "
                "component in the topology). Perhaps set TOPOLOGY_WORKER_MAX_HEAP_SIZE_MB to a "
                "larger amount" % (_java_double(max_heap), _java_double(largest)))


def _java_double(value):
    """``Double.toString`` for the plain values these messages hold."""
    return "%.1f" % value if float(value).is_integer() and abs(value) < 1e7 else repr(value)


def _simple_version(version):
    """2.8.8 ``SimpleVersion``: (major, minor) of a version string (missing parts are 0)."""
    parts = re.findall(r"\d+", str(version))
    numbers = [int(p) for p in parts[:2]] + [0, 0]
    return numbers[0], numbers[1]


class SubmissionHandler:
    """The two submit methods.

    :param nimbus: the daemon: ``conf``, ``state``, ``blob_store``, ``inbox``, ``blobs``
        (for the blobs' ZooKeeper state), ``submit_lock``, ``check_leader()``,
        ``mk_assignments()``, ``clock``, ``reactor`` (the replication wait's timer).
    """

    authorization = ALLOW_ALL  # the daemon sets the configured one

    def __init__(self, conf, nimbus, run_blocking=deferToThread, os_user=None):
        self.conf = conf
        self.nimbus = nimbus
        self.run_blocking = run_blocking
        self.os_user = os_user or getpass.getuser()
        self.submitted_count = 0

    @property
    def compat(self):
        return self.conf.get("pynimbus.storm.compat", "1.x")

    def submitTopology(self, name, uploadedJarLocation, jsonConf, topology):
        return self.submitTopologyWithOpts(name, uploadedJarLocation, jsonConf, topology,
                                           SubmitOptions(TopologyInitialStatus.ACTIVE))

    @defer.inlineCallbacks
    def submitTopologyWithOpts(self, name, uploadedJarLocation, jsonConf, topology, options):
        """:raises InvalidTopologyException: a bad name, conf or topology structure.
        :raises AlreadyAliveException: a topology with that name exists.
        :raises AuthorizationException: the authorizer denies "submitTopology", or the name
            cannot start a blob key (:func:`check_topology_blob_keys`).
        :raises TApplicationException: INTERNAL_ERROR when this nimbus is not the leader.
        """
        # Outside the try: a non-leader's refusal is logged once, as the call's refusal (Storm
        # logs it here too, which doubled thousands of lines during a takeover).
        self.nimbus.check_leader()
        try:
            prepared = yield self.run_blocking(
                self._prepare, name, uploadedJarLocation, jsonConf, topology, options)
            lock = self.nimbus.submit_lock
            yield lock.acquire()
            try:
                yield self._commit(prepared)
            finally:
                lock.release()
        except Exception as e:
            log.warning("Topology submission exception. (topology name='%s'): %s", name, e)
            raise
        log.info("Activated %s: %s", name, prepared.storm_id)
        self.nimbus.request_mk_assignments()

    # -- steps 2 to 18: validate and compute (nothing is written) ---------------------------

    def _prepare(self, name, jar_location, json_conf, topology, options):
        compat = self.compat
        nimbus_conf = self.conf
        if options is None:
            if compat == "2.x":
                raise InvalidTopologyException(
                    msg="Cannot submitTopologyWithOpts: SubmitOptions parameter value is null")
            raise as_application_error("submitTopologyWithOpts needs SubmitOptions")
        validate_topology_name(name, compat)
        self.authorization.check("submitTopologyWithOpts", name)
        self._check_not_active(name)
        if topology is None:
            raise InvalidTopologyException(msg="No topology was given")
        validate_dependency_keys(topology)
        topology_conf = parse_json_conf(json_conf, compat)
        validate_topology_conf(topology_conf, compat)
        if compat == "2.x":
            check_worker_max_heap_2x(topology_conf, topology, nimbus_conf)
        self._check_blobstore_map(topology_conf)
        # counted even when a later step refuses the topology (the version gate and the jar
        # location included: Storm counts before them)
        self.submitted_count += 1
        if compat == "2.x":
            check_storm_version_2x(nimbus_conf, topology, "2.8.8")
        jar_path = self._jar_path(jar_location)
        now = int(self.nimbus.clock())
        storm_id = make_storm_id(name, self.submitted_count, now)
        topology_conf = dict(topology_conf, **{"storm.id": storm_id, "topology.name": name})
        storm_conf = normalize_conf(nimbus_conf, topology_conf, topology, compat)
        storm_conf = submitter_fields(
            storm_conf, nimbus_conf, principal=self.authorization.principal,
            local_user=self.authorization.user, os_user=self.os_user, compat=compat)
        storm_conf = topology_master.stamp_scheduler(storm_conf, nimbus_conf)
        storm_conf = stamp_transport_secret(storm_conf)
        total_conf = dict(nimbus_conf)
        total_conf.update(storm_conf)
        if compat == "2.x":
            total_conf.pop("storm.local.hostname", None)
        # after submitted_count: where Storm fails on these counts (2.x normalizeTopology) it
        # has counted the submission
        normalize.validate_component_confs(topology, compat)
        user_topology = normalize.normalize_topology(total_conf, topology, compat)
        system = system_topology.system_topology(total_conf, user_topology, compat)  # validates
        system_topology.validate_topology_size(topology_conf, nimbus_conf, user_topology, compat)
        tasks.validate_num_tasks(system, nimbus_conf)  # before anything grows with the count
        check_topology_blob_keys(storm_id)
        creds = options.creds.creds if options.creds is not None else None
        return _Prepared(name=name, storm_id=storm_id, jar_path=jar_path,
                         total_conf=total_conf, topology=user_topology,
                         initial_status=_INITIAL_STATUS.get(options.initial_status,
                                                            TopologyStatus.ACTIVE),
                         creds=creds, launch_time=now)

    def _check_not_active(self, name):
        """Port of ``check-storm-active! ... false``."""
        if storm_id_of(self.nimbus.state, name) is not None:
            raise AlreadyAliveException(msg=already_alive_message(name, self.compat))

    def _check_blobstore_map(self, topology_conf):
        """Port of ``Utils.validateTopologyBlobStoreMap`` and the symlinks check."""
        blob_map = topology_conf.get("topology.blobstore.map") or {}
        if not blob_map:
            return
        if self.conf.get("storm.disable.symlinks"):
            raise InvalidTopologyException(
                msg="symlinks are disabled so blobs are not supported but "
                    "topology.blobstore.map = %s" % (blob_map,))
        missing = [key for key in blob_map if not self.nimbus.blob_store.has_blob(key)]
        if missing and self.compat == "2.x":
            # 2.8.8 Utils.validateTopologyBlobStoreMap: the first key without its blob
            raise InvalidTopologyException(msg="Key not found: %s" % missing[0])
        if missing:
            raise InvalidTopologyException(
                msg="The topology blob store map does not contain the valid keys to launch the "
                    "topology [%s]" % ", ".join(missing))  # a Java list's toString

    def _jar_path(self, location):
        """The file of a finished upload, or None for local mode (no location).

        Deliberate difference: Storm fails with an internal error while copying an unknown
        location; pynimbus refuses it up front with a declared, actionable exception.
        """
        if not location:
            return None
        try:
            return self.nimbus.inbox.uploaded_jar_path(location)
        except UnknownUploadLocationError as e:
            raise InvalidTopologyException(
                msg="Uploaded jar location %r is not a finished upload on this nimbus: %s"
                    % (location, e))

    # -- step 20: under the submit lock, write everything -----------------------------------

    @defer.inlineCallbacks
    def _commit(self, p):
        """Write the code, wait for its replication, write the rest; undo all on a failure."""
        written = []
        try:
            yield self.run_blocking(self._setup_code, p, written)
            yield self._wait_for_desired_code_replication(p)
            yield self.run_blocking(self._setup_storm, p)
        except BaseException:
            log.exception("Undoing the partial submission of %s", p.storm_id)
            yield self.run_blocking(self._undo, p, written)
            raise

    def _setup_code(self, p, written):
        """Credentials, then the three blobs and their ``/blobstore`` state (``written`` gets
        the keys stored, for an undo)."""
        self._check_not_active(p.name)
        if self.compat == "1.x" or p.creds:
            self.nimbus.state.set_credentials(p.storm_id, Credentials(creds=dict(p.creds or {})))
        written.extend(setup_storm_code(self.nimbus.blob_store, p.storm_id, p.jar_path,
                                        p.total_conf, p.topology))
        for key in written:
            self.nimbus.blobs.record_blob_state(key)

    def _setup_storm(self, p):
        state = self.nimbus.state
        state.setup_heartbeats(p.storm_id)
        state.setup_errors(p.storm_id)
        if p.total_conf.get("topology.backpressure.enable"):
            state.setup_backpressure(p.storm_id)
        self._start_storm(p)

    @defer.inlineCallbacks
    def _wait_for_desired_code_replication(self, p):
        """Port of ``wait-for-desired-code-replication`` (1.2.4) and
        ``waitForDesiredCodeReplication`` (2.8.8): while
        :func:`~pynimbus.clojure_port.replication.replication_wait_step` says so, wait a
        second, check this nimbus still leads, and count again how many nimbuses hold the jar,
        code and conf (``topology.min.replication.count``,
        ``topology.max.replication.wait.time.sec``); then go on either way, with Storm's log
        line.  Waits on the reactor's clock, not in a thread.

        :raises TApplicationException: INTERNAL_ERROR when this nimbus stops leading meanwhile.
        """
        conf = p.total_conf
        min_count = int(conf.get("topology.min.replication.count") or 0)
        max_wait = int(conf.get("topology.max.replication.wait.time.sec") or 0)
        counts = yield self.run_blocking(self._replication_counts, p, min_count)
        waited = 0
        while True:
            step = replication.replication_wait_step(self.compat, counts, min_count, max_wait,
                                                     waited)
            if step != replication.WAIT:
                break
            if self.compat == "2.x":
                self.nimbus.check_leader()
            yield task.deferLater(self.nimbus.reactor, 1.0, lambda: None)
            if self.compat != "2.x":
                self.nimbus.check_leader()
            waited += 1
            log.debug("waiting for desired replication to be achieved for storm-id = %s "
                      "min-replication-count = %d max-replication-wait-time = %d "
                      "(jar, code, conf) counts %s total-wait-time %d",
                      p.storm_id, min_count, max_wait, counts, waited)
            counts = yield self.run_blocking(self._replication_counts, p, min_count)
        jar, code, conf_count = counts
        if step == replication.ACHIEVED:
            log.info("desired replication count %d achieved for %s, current-replication-count "
                     "for conf key = %d, current-replication-count for code key = %d, "
                     "current-replication-count for jar key = %d",
                     min_count, p.storm_id, conf_count, code, jar)
        else:
            log.info("desired replication count of %d not achieved but we have hit the max "
                     "wait time %d so moving on with replication count for conf key = %d for "
                     "code key = %d for jar key = %d (%s)",
                     min_count, max_wait, conf_count, code, jar, p.storm_id)

    def _replication_counts(self, p, min_count):
        """(jar, code, conf) replication counts; a topology without a jar counts
        ``min_count`` for it, as Storm's local mode."""
        count = self.nimbus.blob_store.get_blob_replication
        jar = count(master_stormjar_key(p.storm_id)) if p.jar_path is not None else min_count
        return (jar, count(master_stormcode_key(p.storm_id)),
                count(master_stormconf_key(p.storm_id)))

    def _start_storm(self, p):
        """Port of ``start-storm``: the first StormBase, from the stored conf and topology."""
        storm_conf = read_storm_conf(self.nimbus.blob_store, p.storm_id)
        stored = read_storm_topology(self.nimbus.blob_store, p.storm_id)
        system = system_topology.system_topology(storm_conf, stored, self.compat)
        base = StormBase(
            name=p.name, status=p.initial_status,
            num_workers=int(storm_conf.get("topology.workers") or 1),
            component_executors=system_topology.component_executors(system),
            launch_time_secs=p.launch_time,
            owner=storm_conf.get("topology.submitter.user"),
            component_debug={},
            principal=storm_conf.get("topology.submitter.principal", ""))
        if self.compat == "2.x" and storm_conf.get("topology.version") is not None:
            base.topology_version = str(storm_conf["topology.version"])
        log.info("Activating %s: %s", p.name, p.storm_id)
        self.nimbus.state.activate_storm(p.storm_id, base)

    def _undo(self, p, written):
        state = self.nimbus.state
        for cleanup in (lambda: delete_blobs(self.nimbus.blob_store, written),
                        lambda: [state.remove_blobstore_key(k) for k in written],
                        lambda: state.remove_storm(p.storm_id),
                        lambda: state.teardown_heartbeats(p.storm_id),
                        lambda: state.teardown_topology_errors(p.storm_id),
                        lambda: state.remove_backpressure(p.storm_id)):
            try:
                cleanup()
            except Exception:
                log.exception("while undoing the submission of %s", p.storm_id)


def check_topology_blob_keys(storm_id):
    """The blob keys of a new topology start with its name, which may hold characters no blob
    key may (``@``, ``,``, a snowman ...): refuse such a name before anything is written.

    1.2.4 fails creating its first blob, the conf's, with this AuthorizationException (after
    writing the topology's credentials); 2.8.8 fails there with an IllegalArgumentException,
    an INTERNAL_ERROR.  Deliberate difference (2.x): the AuthorizationException, so the client
    learns which key is invalid.

    :raises AuthorizationException: "<id>-stormconf.ser does not appear to be a valid blob key".
    """
    conf_key = master_stormconf_key(storm_id)
    if not is_valid_key(conf_key):
        raise AuthorizationException(msg="%s does not appear to be a valid blob key" % conf_key)


class _Prepared:
    """What ``_prepare`` computed for ``_commit``."""

    def __init__(self, **fields):
        self.__dict__.update(fields)
