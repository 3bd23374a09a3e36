"""Capture what a Nimbus does with each reference topology, as normalised JSON.

For one :class:`~.targets.Target` (a Java Nimbus or pynimbus), :class:`Capturer` runs every
reference of ``compat/reference_topologies.py`` in order, each in isolation:

1. register the reference's fake supervisors (ids unique to the reference: a 2.x Nimbus
   blacklists supervisors that disappear for 3 scheduling rounds, so ids are never reused);
2. ``isTopologyNameAllowed(name)``; upload a small fake jar (``beginFileUpload`` /
   ``uploadChunk`` / ``finishFileUpload``); ``submitTopologyWithOpts`` (or ``submitTopology``);
   a refused submission records the exception (class and message) and stops there;
3. find the storm id in ``/storms``, wait (bounded) for ``/assignments/<id>`` and until it stops
   changing (or, for a topology that cannot be placed, a few scheduling rounds);
4. capture ``getTopology`` (system topology), ``getUserTopology``, ``getTopologyConf`` (as its
   difference from ``getNimbusConf``: ``{"set": {...}, "unset": [...]}``), ``getTopologyInfo``,
   the ``getClusterInfo`` entries, the 2.x-only ``getTopologySummaryByName`` and
   ``getSupervisorAssignments`` (1.x: UNKNOWN_METHOD), the StormBase and Assignment from
   ZooKeeper (decoded without the generated classes' defaults, so absent fields stay absent),
   the task -> component map (from the executors of ``getTopologyInfo``), the topology's blob
   keys, metadata and content (conf gunzipped, code decoded; recorded as ``*_same_as`` when equal
   to ``getTopologyConf`` / ``getUserTopology``), and which ZooKeeper nodes exist for the id;
5. for the references of :data:`PAGE_REFERENCES`, the Storm UI's page calls
   (:meth:`Capturer.pages`): ``getTopologyPageInfo`` (all-time, without and with system components, ``topology_conf`` as
   its difference from the Nimbus conf), ``getComponentPageInfo`` of every component of the
   system topology (system ones with ``is_include_sys``) and ``getSupervisorPageInfo`` of each
   supervisor, by id and by host (the fake supervisors' ``version``, which the harness writes
   per target, as ``<supervisor-version>``), and the order of ``getTopologyInfo``'s executors
   (the UI's worker list of a topology).  Lists keep the order the Nimbus answered (workers,
   executor rows): the UI shows them in that order; for the references of
   ``ID_PROBE_REFERENCES`` (reference_topologies.py), what the per-topology queries answer for
   forged topology ids, components and users (:meth:`Capturer.forged_ids`);
6. lifecycle: deactivate / activate (twice each) / debug on and off / rebalance (wait 0 with new
   workers/executors, then wait 300 to see REBALANCING) / kill (wait 300 to see KILLED, then
   wait 0) with the StormBase (and Assignment) after each step and the exceptions of
   transitions that do not exist;
7. kill with wait 0 and wait until the topology is removed; record what is left.

Normalisation (:func:`normalize`): storm ids become ``<name>-{N}-{T}`` (the counter is kept in
``storm_id.counter``), work directories become ``<storm.local.dir>``/``<workdir>``, ports and
ZooKeeper settings that differ per run become placeholders, the OS user becomes ``<os-user>``,
times are dropped (``launch_time_secs``, ``uptime_secs``, blob versions) or replaced
(``executor_start_time_secs`` values).  Which conf keys are volatile: :data:`VOLATILE_CONF_KEYS`.
"""

import io
import json
import re
import time
import zipfile

from . import thrift_json
from .supervisors import FakeSupervisors, SupervisorSpec
from .. import reference_topologies as refs
from nimbus_process import RawClient, RemoteError
from pynimbus.cluster import make_cluster_state, paths
from pynimbus.cluster.serialization import gunzip_bytes
from pynimbus.common.transport_secret import without_transport_secret
from pynimbus.generated.storm import ttypes
from pynimbus.generated.storm.ttypes import (
    KillOptions, RebalanceOptions, SubmitOptions, TopologyInitialStatus, TopologyStatus)

# Conf keys whose values depend on the run (ports, ZooKeeper chroot, the ZooKeeper host spelling
# needed by 1.2.4 on Java 17): replaced by "<key>" placeholders wherever a conf map holds them.
VOLATILE_CONF_KEYS = {
    "nimbus.thrift.port": "<nimbus.thrift.port>",
    "storm.zookeeper.port": "<storm.zookeeper.port>",
    "storm.zookeeper.root": "<storm.zookeeper.root>",
    "storm.zookeeper.servers": "<storm.zookeeper.servers>",
}
USER_KEYS = {"owner", "topology.submitter.user"}
TIME_KEYS = {"launch_time_secs", "uptime_secs", "time_secs", "nimbus_uptime_secs"}

# References whose UI page answers are captured (step 5 of the module docstring): a topology
# placed in more than 8 executors, 25 executors (2.x hash tree bins), multi-task executors,
# ackers and event loggers, metrics consumers, uneven supervisors, a small inactive one, one
# that was never placed, and components whose ids no path segment holds as they are.
PAGE_REFERENCES = ("wordcount", "all_groupings", "tasks_above_executors", "ackers_eventloggers",
                   "metrics_consumers", "three_small_supervisors", "inactive_start",
                   "cannot_fit", "component_id_empty", "component_id_dots",
                   "component_id_path_chars")
SUPERVISOR_VERSION = "<supervisor-version>"
PAGE_WINDOW = ":all-time"

UPLOAD_CHUNK = 307200
KILL_WAIT_LONG = 300
DEFAULT_SPECS = (("a", "127.0.0.2", [6700, 6701, 6702, 6703]),
                 ("b", "127.0.0.3", [6700, 6701, 6702, 6703]))

_APP_TYPES = {0: "UNKNOWN", 1: "UNKNOWN_METHOD", 2: "INVALID_MESSAGE_TYPE", 3: "WRONG_METHOD_NAME",
              4: "BAD_SEQUENCE_ID", 5: "MISSING_RESULT", 6: "INTERNAL_ERROR",
              7: "PROTOCOL_ERROR"}
STORM_ID_RE = re.compile(r"^(?P<name>.*)-(?P<counter>\d+)-(?P<secs>\d+)$")


def fake_jar():
    """A small, byte-stable jar (zip) with a multilang resource."""
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as z:
        for name, text in (("META-INF/MANIFEST.MF", "Manifest-Version: 1.0\r\n\r\n"),
                           ("resources/x.py", "# pynimbus oracle fake component\n")):
            info = zipfile.ZipInfo(name, date_time=(1980, 1, 1, 0, 0, 0))
            info.compress_type = zipfile.ZIP_DEFLATED
            z.writestr(info, text)
    return buf.getvalue()


FAKE_JAR = fake_jar()


def error_json(exc):
    """A refused call as JSON: the exception's class name and message."""
    if isinstance(exc, RemoteError):
        return {"type": "TApplicationException", "app_type": exc.app.type,
                "app_type_name": _APP_TYPES.get(exc.app.type, str(exc.app.type)),
                "message": exc.app.message}
    if isinstance(exc, ttypes.TException) and hasattr(exc, "msg"):
        return {"type": type(exc).__name__, "message": exc.msg}
    return {"type": type(exc).__name__, "message": str(exc)}


def storm_ids_normalized(result, name):
    """A refused call's result with the storm ids of ``name`` in its message (1.2.4 names the
    blob key it could not create) as ``<name>-{N}-{T}``, as :func:`normalize` writes the ids it
    knows."""
    error = result.get("error")
    if not name or not error or not isinstance(error.get("message"), str):
        return result
    message = re.sub(re.escape(name) + r"-\d+-\d+", lambda _: name + "-{N}-{T}",
                     error["message"])
    return dict(result, error=dict(error, message=message))


class Replacements:
    """Exact strings to replace (longest first) inside every string of a capture."""

    def __init__(self):
        self.items = {}

    def add(self, actual, placeholder):
        if actual:
            self.items[actual] = placeholder

    def apply(self, text):
        for actual in sorted(self.items, key=len, reverse=True):
            if actual in text:
                text = text.replace(actual, self.items[actual])
        return text


def normalize(value, repl, user=None, key=None):
    """Return ``value`` (JSON-able) with volatile parts replaced; see the module docstring."""
    if isinstance(value, dict):
        out = {}
        for k, v in value.items():
            nk = repl.apply(k) if isinstance(k, str) else k
            if k in VOLATILE_CONF_KEYS:
                out[nk] = VOLATILE_CONF_KEYS[k]
            elif k in TIME_KEYS:
                continue
            elif k == "executor_start_time_secs" and isinstance(v, list):
                out[nk] = [[normalize(p[0], repl, user), "<time>"] for p in v]
            elif user and k in USER_KEYS and v == user:
                out[nk] = "<os-user>"
            elif user and k == "topology.users" and isinstance(v, list):
                out[nk] = ["<os-user>" if x == user else x for x in v]
            else:
                out[nk] = normalize(v, repl, user, k)
        return out
    if isinstance(value, list):
        return [normalize(v, repl, user, key) for v in value]
    if isinstance(value, str):
        return repl.apply(value)
    return value


class Capturer:
    """Runs references against one target; see the module docstring.

    :param log: function taking one string (progress); None for silence.
    """

    def __init__(self, target, log=None, assign_timeout=45.0, settle_secs=2.0,
                 unassigned_wait=5.0, removal_timeout=30.0, cleanup_wait=3.0):
        self.target = target
        self.log = log or (lambda msg: None)
        self.assign_timeout = assign_timeout
        self.settle_secs = settle_secs
        self.unassigned_wait = unassigned_wait
        self.removal_timeout = removal_timeout
        self.cleanup_wait = cleanup_wait
        self.state = None
        self._nimbus_conf = None
        self._current_supervisors = []
        self.supervisor_specs_now = []
        self.timings = {}
        self.repl = Replacements()
        self.repl.add(target.local_dir, "<storm.local.dir>")
        self.repl.add(target.workdir, "<workdir>")
        self.repl.add("%s:%d" % (target.host, target.port), "%s:<nimbus.thrift.port>"
                      % target.host)

    # Plumbing

    def __enter__(self):
        self.state = make_cluster_state(self.target.cluster_conf)
        return self

    def __exit__(self, *exc_info):
        if self.state is not None:
            self.state.close()
            self.state = None

    def call(self, method, **kwargs):
        """One Thrift call on a fresh connection (so a failed call cannot poison the next)."""
        with RawClient(self.target.host, self.target.port, timeout=60.0) as client:
            return client.call(method, **kwargs)

    def try_call(self, method, **kwargs):
        """``{"ok": result}`` or ``{"error": {...}}``; result converted with thrift_json."""
        try:
            return {"ok": thrift_json.to_json(self.call(method, **kwargs))}
        except (ttypes.TException, RemoteError, OSError) as e:
            return {"error": error_json(e)}

    def norm(self, value):
        return normalize(value, self.repl, self.target.os_user)

    def add_storm_id(self, storm_id, name):
        self.repl.add(storm_id, "%s-{N}-{T}" % name)

    @staticmethod
    def poll(fn, timeout, interval=0.2):
        """Call ``fn`` until it returns a non-None value or ``timeout`` passes; that value/None."""
        deadline = time.monotonic() + timeout
        while True:
            value = fn()
            if value is not None:
                return value
            if time.monotonic() >= deadline:
                return None
            time.sleep(interval)

    # Nimbus-wide facts

    def capture_nimbus(self):
        """getNimbusConf, getLeader and the isTopologyNameAllowed probes."""
        out = {"nimbus_conf": None, "name_probes": {}}
        conf = self.try_call("getNimbusConf")
        if "ok" in conf:
            out["nimbus_conf"] = self._nimbus_conf = json.loads(conf["ok"])
        else:
            out["nimbus_conf"] = conf
        leader = self.try_call("getLeader")
        if "ok" in leader:
            leader["ok"] = {k: v for k, v in leader["ok"].items() if k != "port"}
        out["leader"] = leader
        for name in refs.NAME_PROBES:
            out["name_probes"][name] = self.try_call("isTopologyNameAllowed", name=name)
        return self.norm(out)

    def nimbus_conf(self):
        if self._nimbus_conf is None:
            self._nimbus_conf = json.loads(self.call("getNimbusConf"))
        return self._nimbus_conf

    def conf_delta(self, conf):
        """A topology conf as its difference from the Nimbus conf (``_nimbus.json``):
        ``{"set": {key: value that is absent from or differs from the Nimbus conf},
        "unset": [Nimbus conf keys missing here]}``."""
        base = self.nimbus_conf()
        return {"set": {k: v for k, v in conf.items() if k not in base or base[k] != v},
                "unset": sorted(k for k in base if k not in conf)}

    # One reference

    def supervisor_specs(self, ref):
        raw = DEFAULT_SPECS if ref.supervisors is None else ref.supervisors
        specs = []
        for sid, host, ports in raw:
            # Unique per reference (see the module docstring), readable in the goldens.
            specs.append(SupervisorSpec("%s-%s" % (ref.id, sid.replace("sup-", "")), host, ports))
        return specs

    def upload_jar(self):
        with RawClient(self.target.host, self.target.port, timeout=60.0) as client:
            location = client.call("beginFileUpload")
            for i in range(0, len(FAKE_JAR), UPLOAD_CHUNK):
                client.call("uploadChunk", location=location, chunk=FAKE_JAR[i:i + UPLOAD_CHUNK])
            client.call("finishFileUpload", location=location)
        return location

    def submit(self, ref, name=None):
        name = ref.name if name is None else name
        location = ref.jar_location or self.upload_jar()
        json_conf = ref.json_conf_raw if ref.json_conf_raw is not None else json.dumps(ref.conf)
        if ref.options == "none":
            result = self.try_call("submitTopology", name=name, uploadedJarLocation=location,
                                   jsonConf=json_conf, topology=ref.topology)
        else:
            options = None
            if ref.options in ("active", "inactive"):
                options = SubmitOptions(initial_status=(
                    TopologyInitialStatus.ACTIVE if ref.options == "active"
                    else TopologyInitialStatus.INACTIVE))
            result = self.try_call("submitTopologyWithOpts", name=name,
                                   uploadedJarLocation=location, jsonConf=json_conf,
                                   topology=ref.topology, options=options)
        return result, location

    def find_storm_id(self, name):
        for storm_id in self.state.active_storms():
            base = self.state.storm_base(storm_id)
            if base is not None and base.name == name:
                return storm_id
        return None

    def assignment_bytes(self, storm_id):
        return self.state.backend.get(paths.assignment_path(storm_id))

    def wait_assignment(self, storm_id, expect_none=False):
        """Wait for the Assignment, then until it is unchanged for ``settle_secs``."""
        started = time.monotonic()
        if expect_none:
            time.sleep(self.unassigned_wait)
            return {"waited": "fixed", "present": self.assignment_bytes(storm_id) is not None}
        first = self.poll(lambda: self.assignment_bytes(storm_id), self.assign_timeout)
        if first is None:
            return {"waited": "timeout", "present": False,
                    "timeout_secs": self.assign_timeout}
        self.timings.setdefault("assignment_appeared_after_secs", []).append(
            round(time.monotonic() - started, 1))
        return dict(self.settle(storm_id, first), waited="appeared")

    def settle(self, storm_id, current=None):
        """Wait until the assignment bytes stay the same for ``settle_secs`` (bounded)."""
        deadline = time.monotonic() + self.assign_timeout
        current = self.assignment_bytes(storm_id) if current is None else current
        stable_since = time.monotonic()
        while time.monotonic() < deadline:
            time.sleep(0.2)
            now = self.assignment_bytes(storm_id)
            if now != current:
                current, stable_since = now, time.monotonic()
            elif time.monotonic() - stable_since >= self.settle_secs:
                return {"present": current is not None, "settled": True}
        return {"present": current is not None, "settled": False}

    def stored_json(self, path, cls):
        """The struct stored at ``path``, decoded with absent fields left out (None if none)."""
        data = self.state.backend.get(path)
        if data is None:
            return None
        return thrift_json.to_json(thrift_json.decode_struct(data, cls))

    def storm_base_json(self, storm_id):
        return self.stored_json(paths.storm_path(storm_id), ttypes.StormBase)

    def assignment_json(self, storm_id):
        return self.stored_json(paths.assignment_path(storm_id), ttypes.Assignment)

    def list_blob_keys(self):
        keys = []
        result = self.call("listBlobs", session="")
        for _ in range(1000):
            if not result.keys:
                break
            keys.extend(result.keys)
            result = self.call("listBlobs", session=result.session)
        return sorted(set(keys))

    def download_blob(self, key):
        with RawClient(self.target.host, self.target.port, timeout=60.0) as client:
            begin = client.call("beginBlobDownload", key=key)
            chunks = []
            for _ in range(100000):
                chunk = client.call("downloadBlobChunk", session=begin.session)
                if not chunk:
                    break
                chunks.append(chunk)
        return begin, b"".join(chunks)

    def capture_blobs(self, storm_id, topology_conf=None, user_topology=None):
        """Keys, metadata and content of the topology's blobs.  Content equal to what
        ``getTopologyConf`` / ``getUserTopology`` returned is recorded as ``"same_as"``."""
        out = {}
        try:
            keys = [k for k in self.list_blob_keys() if k.startswith(storm_id + "-")]
        except (ttypes.TException, RemoteError, OSError) as e:
            return {"error": error_json(e)}
        out["keys"] = keys
        out["meta"] = {}
        out["content"] = {}
        for key in keys:
            meta = self.try_call("getBlobMeta", key=key)
            if "ok" in meta:
                meta["ok"].pop("version", None)
            out["meta"][key] = meta
            try:
                begin, data = self.download_blob(key)
            except (ttypes.TException, RemoteError, OSError) as e:
                out["content"][key] = {"error": error_json(e)}
                continue
            # The gzip'd conf's size varies with the run (ids, ports, paths): not recorded.
            entry = {"data_size_matches_length": begin.data_size == len(data)}
            if not key.endswith("-stormconf.ser"):
                entry["length"] = len(data)
            if key.endswith("-stormjar.jar"):
                entry["equals_uploaded_jar"] = data == FAKE_JAR
            elif key.endswith("-stormconf.ser"):
                entry["gzip"] = data[:2] == b"\x1f\x8b"
                # pynimbus stores its workers' transport secret in the conf blob and leaves it out
                # of getTopologyConf (pynimbus/common/transport_secret.py); the rest must match
                conf = self.conf_delta(without_transport_secret(
                    json.loads(gunzip_bytes(data).decode("utf-8"))))
                if topology_conf is not None and topology_conf.get("ok") == conf:
                    entry["conf_same_as"] = "topology_conf"
                else:
                    entry["conf"] = conf
            elif key.endswith("-stormcode.ser"):
                entry["gzip"] = data[:2] == b"\x1f\x8b"
                topo = thrift_json.to_json(thrift_json.decode_struct(data, ttypes.StormTopology))
                if user_topology is not None and user_topology.get("ok") == topo:
                    entry["topology_same_as"] = "user_topology"
                else:
                    entry["topology"] = topo
            out["content"][key] = entry
        return out

    def zk_snapshot(self, storm_id, blob_keys=()):
        """Which per-topology nodes exist, with small values (credentials, key sequence)."""
        b = self.state.backend
        out = {}
        for root in ("storms", "assignments", "workerbeats", "errors", "credentials",
                     "logconfigs", "profilerconfigs", "backpressure"):
            path = "/%s/%s" % (root, storm_id)
            try:
                exists = b.exists(path)
            except ValueError:
                exists = None
            out[root] = exists
        try:
            out["credentials_value"] = self.stored_json(paths.credentials_path(storm_id),
                                                        ttypes.Credentials)
        except ValueError:
            out["credentials_value"] = None
        keys = sorted(set(blob_keys) | {storm_id + s for s in
                                        ("-stormjar.jar", "-stormcode.ser", "-stormconf.ser")})
        out["blobstore"] = {}
        for key in keys:
            try:
                holders = self.state.blobstore_info(key)
                seq = self.state.get_max_sequence_number(key)
            except ValueError:
                continue
            out["blobstore"][key] = {"holders": None if holders is None else sorted(holders),
                                     "max_sequence_number": seq}
        return out

    def topology_info(self, storm_id):
        info = self.try_call("getTopologyInfo", id=storm_id)
        task_map = None
        if "ok" in info:
            executors = info["ok"].get("executors", [])
            for e in executors:
                e.pop("stats", None)
            executors.sort(key=lambda e: (e["executor_info"]["task_start"],
                                          e["executor_info"]["task_end"]))
            task_map = {}
            for e in executors:
                ei = e["executor_info"]
                for task in range(ei["task_start"], ei["task_end"] + 1):
                    task_map[str(task)] = e["component_id"]
            task_map = dict(sorted(task_map.items(), key=lambda kv: int(kv[0])))
        return info, task_map

    def cluster_entries(self, storm_id):
        result = self.try_call("getClusterInfo")
        if "error" in result:
            return result
        topos = [t for t in result["ok"].get("topologies", []) if t.get("id") == storm_id]
        sups = sorted(result["ok"].get("supervisors", []), key=lambda s: s.get("supervisor_id"))
        return {"topology": topos[0] if topos else None,
                "supervisors": [{k: v for k, v in s.items() if k in (
                    "host", "supervisor_id", "num_workers", "num_used_workers",
                    "used_mem", "used_cpu", "total_resources", "used_generic_resources")}
                    for s in sups]}

    def snapshot(self, storm_id, with_topology=True):
        """Everything about a live topology (step 4 of the module docstring)."""
        out = {"storm_base": self.storm_base_json(storm_id),
               "assignment": self.assignment_json(storm_id)}
        if with_topology:
            out["system_topology"] = self.try_call("getTopology", id=storm_id)
            out["user_topology"] = self.try_call("getUserTopology", id=storm_id)
            conf = self.try_call("getTopologyConf", id=storm_id)
            if "ok" in conf:
                conf["ok"] = self.conf_delta(json.loads(conf["ok"]))
            out["topology_conf"] = conf
        info, task_map = self.topology_info(storm_id)
        out["topology_info"] = info
        out["task_to_component"] = task_map
        out["cluster_info"] = self.cluster_entries(storm_id)
        # 2.x-only methods (1.x answers UNKNOWN_METHOD): the summary by name, and what each
        # supervisor pulls.
        name = (out["storm_base"] or {}).get("name")
        if name is not None:
            out["topology_summary_by_name"] = self.try_call("getTopologySummaryByName", name=name)
        out["supervisor_assignments"] = {
            sid: self.try_call("getSupervisorAssignments", node=sid)
            for sid in sorted(self._current_supervisors)}
        return out

    def pages(self, storm_id, system_topology=None):
        """The UI's page calls for one topology and the current supervisors (step 5)."""
        out = {}
        for include_sys in (False, True):
            page = self.try_call("getTopologyPageInfo", id=storm_id, window=PAGE_WINDOW,
                                 is_include_sys=include_sys)
            if "ok" in page and isinstance(page["ok"].get("topology_conf"), str):
                page["ok"]["topology_conf"] = self.conf_delta(
                    json.loads(page["ok"]["topology_conf"]))
            out["topology_with_system" if include_sys else "topology"] = page
        components = set()
        for kind in ("spouts", "bolts"):
            components |= set(((system_topology or {}).get("ok") or {}).get(kind) or {})
        out["components"] = {
            cid: self.try_call("getComponentPageInfo", topology_id=storm_id, component_id=cid,
                               window=PAGE_WINDOW, is_include_sys=cid.startswith("__"))
            for cid in sorted(components)}
        specs = self.supervisor_specs_now
        out["supervisors_by_id"] = {
            spec.id: self.try_call("getSupervisorPageInfo", id=spec.id, host=None,
                                   is_include_sys=False) for spec in specs}
        out["supervisors_by_host"] = {
            host: self.try_call("getSupervisorPageInfo", id=None, host=host,
                                is_include_sys=True)
            for host in sorted({spec.host for spec in specs})}
        info = self.try_call("getTopologyInfo", id=storm_id)
        out["topology_info_executor_order"] = info if "error" in info else [
            [e["executor_info"]["task_start"], e["executor_info"]["task_end"], e["host"],
             e["port"]] for e in info["ok"].get("executors") or ()]
        for by in ("supervisors_by_id", "supervisors_by_host"):
            for result in out[by].values():
                for summary in (result.get("ok") or {}).get("supervisor_summaries") or ():
                    if summary.get("version") == self.target.storm_version:
                        summary["version"] = SUPERVISOR_VERSION
        return out

    def forged_ids(self, storm_id):
        """What the per-topology queries answer for forged topology ids, the component page
        for components ``storm_id`` lacks, and the history of forged users."""
        by_id = {}
        for forged in refs.FORGED_TOPOLOGY_IDS:
            by_id[forged] = {method: self.try_call(method, id=forged) for method in (
                "getTopologyInfo", "getTopologySummary", "getTopology", "getTopologyConf",
                "getUserTopology")}
            by_id[forged]["getTopologyPageInfo"] = self.try_call(
                "getTopologyPageInfo", id=forged, window=PAGE_WINDOW, is_include_sys=False)
        components = {
            cid: self.try_call("getComponentPageInfo", topology_id=storm_id, component_id=cid,
                               window=PAGE_WINDOW, is_include_sys=False)
            for cid in refs.FORGED_COMPONENT_IDS}
        users = {user: self.try_call("getTopologyHistory", user=user)
                 for user in refs.FORGED_USERS}
        return {"topology_ids": by_id, "component_pages": components,
                "topology_history": users}

    def wait_removed(self, storm_id):
        started = time.monotonic()
        gone = self.poll(lambda: True if self.state.storm_base(storm_id) is None else None,
                         self.removal_timeout)
        self.timings.setdefault("removed_after_secs", []).append(
            round(time.monotonic() - started, 1))
        return {"removed": bool(gone)}

    def kill_and_forget(self, name, storm_id):
        """kill(wait 0), wait for removal, then what remains a few scheduling rounds later."""
        out = {"kill": self.try_call("killTopologyWithOpts", name=name,
                                     options=KillOptions(wait_secs=0))}
        out.update(self.wait_removed(storm_id))
        time.sleep(self.cleanup_wait)  # a few cleanup rounds (nimbus.monitor.freq.secs = 1)
        keys = []
        try:
            keys = [k for k in self.list_blob_keys() if k.startswith(storm_id + "-")]
        except (ttypes.TException, RemoteError, OSError) as e:
            out["blob_keys_error"] = error_json(e)
        out["blob_keys_left"] = keys
        out["zk_left"] = self.zk_snapshot(storm_id)
        out["name_allowed_after"] = self.try_call("isTopologyNameAllowed", name=name)
        return out

    def lifecycle(self, ref, storm_id):
        steps = []
        name = ref.name

        def step(label, method, **kwargs):
            result = self.try_call(method, name=name, **kwargs)
            entry = {"step": label, "result": result,
                     "storm_base": self.storm_base_json(storm_id)}
            steps.append(entry)
            return entry

        step("deactivate", "deactivate")
        step("deactivate_again", "deactivate")
        step("activate", "activate")
        step("activate_again", "activate")

        # Debug flags land in StormBase.component_debug (topology id key for the whole topology).
        bolts = sorted(ref.topology.bolts)
        step("debug_topology_on", "debug", component="", enable=True, samplingPercentage=10.0)
        if bolts:
            step("debug_component_on_pct_150", "debug", component=bolts[0], enable=True,
                 samplingPercentage=150.0)
        step("debug_topology_off", "debug", component="", enable=False, samplingPercentage=0.0)

        # Rebalance now, with new workers/executors; wait until it is done.
        before = self.assignment_bytes(storm_id)
        opts = dict(ref.rebalance or {})
        entry = step("rebalance_wait_0", "rebalance", options=RebalanceOptions(
            wait_secs=0, num_workers=opts.get("num_workers"),
            num_executors=opts.get("num_executors")))
        entry.pop("storm_base")  # racy: REBALANCING or already done

        def rebalanced():
            base = self.state.storm_base(storm_id)
            if base is None or base.status == TopologyStatus.REBALANCING:
                return None
            return base
        done = self.poll(rebalanced, self.assign_timeout)
        settle = self.settle(storm_id)
        entry["done"] = done is not None
        entry["assignment_changed"] = self.assignment_bytes(storm_id) != before
        entry["settled"] = settle
        entry["after"] = self.snapshot(storm_id, with_topology=False)

        # Rebalance with a long wait: REBALANCING is visible; other events have no transition.
        step("rebalance_wait_300", "rebalance", options=RebalanceOptions(
            wait_secs=KILL_WAIT_LONG, num_workers=opts.get("num_workers")))
        step("rebalance_while_rebalancing", "rebalance", options=RebalanceOptions(wait_secs=0))
        step("activate_while_rebalancing", "activate")
        step("deactivate_while_rebalancing", "deactivate")

        # Kill with a long wait: KILLED is visible and still occupies the name.
        step("kill_wait_300", "killTopologyWithOpts",
             options=KillOptions(wait_secs=KILL_WAIT_LONG))
        steps[-1]["assignment_present"] = self.assignment_bytes(storm_id) is not None
        step("activate_while_killed", "activate")
        step("rebalance_while_killed", "rebalance", options=RebalanceOptions(wait_secs=0))
        steps.append({"step": "name_allowed_while_killed",
                      "result": self.try_call("isTopologyNameAllowed", name=name)})
        return steps

    def capture_reference(self, ref):
        """The capture of one reference (a JSON-able dict, normalised)."""
        out = {"reference": ref.id, "name": ref.name, "notes": ref.notes,
               "target_generation": self.target.generation}
        specs = self.supervisor_specs(ref)
        self._current_supervisors = [s.id for s in specs]
        self.supervisor_specs_now = specs
        out["supervisors"] = [list(s) for s in specs]
        with FakeSupervisors(self.target.cluster_conf, specs, self.target.storm_version):
            if specs:
                # Nimbus reads /supervisors on each round; make sure ours are there first.
                self.poll(lambda: True if set(s.id for s in specs) <= set(
                    self.state.supervisors()) else None, 10.0)
            out["name_allowed_before"] = self.try_call("isTopologyNameAllowed", name=ref.name)
            primary_id = None
            if ref.setup == "live_duplicate":
                first, _ = self.submit(ref)
                out["setup_submit"] = first
                primary_id = self.poll(lambda: self.find_storm_id(ref.name), 10.0)
                if primary_id:
                    self.add_storm_id(primary_id, ref.name)
                    out["setup_storm_id"] = self.storm_id_json(primary_id, ref.name)
                    out["name_allowed_while_live"] = self.try_call("isTopologyNameAllowed",
                                                                   name=ref.name)
            result, location = self.submit(ref)
            out["submit"] = storm_ids_normalized(result, ref.name)
            out["upload_location"] = self.location_json(location)
            if ref.setup == "live_duplicate":
                if primary_id:
                    self.try_call("killTopologyWithOpts", name=ref.name,
                                  options=KillOptions(wait_secs=KILL_WAIT_LONG))
                    again, _ = self.submit(ref)
                    out["submit_while_killed"] = again
                    out["after_kill"] = self.kill_and_forget(ref.name, primary_id)
                return self.norm(out)
            if "error" in result:
                out["storms_after_error"] = [
                    s for s in self.state.active_storms()
                    if (self.state.storm_base(s) or ttypes.StormBase()).name == ref.name]
                return self.norm(out)
            storm_id = self.poll(lambda: self.find_storm_id(ref.name), 10.0)
            if storm_id is None:
                out["storm_id"] = None
                return self.norm(out)
            self.add_storm_id(storm_id, ref.name)
            out["storm_id"] = self.storm_id_json(storm_id, ref.name)
            out["assignment_wait"] = self.wait_assignment(storm_id, expect_none=not specs)
            out.update(self.snapshot(storm_id))
            if ref.id in PAGE_REFERENCES:
                out["pages"] = self.pages(storm_id, out.get("system_topology"))
            if ref.id in refs.ID_PROBE_REFERENCES:
                out["forged_ids"] = self.forged_ids(storm_id)
            out["blobs"] = self.capture_blobs(storm_id, out.get("topology_conf"),
                                              out.get("user_topology"))
            out["zk"] = self.zk_snapshot(storm_id, out["blobs"].get("keys", ()))
            out["name_allowed_while_live"] = self.try_call("isTopologyNameAllowed",
                                                           name=ref.name)
            if ref.lifecycle:
                out["lifecycle"] = self.lifecycle(ref, storm_id)
            out["after_kill"] = self.kill_and_forget(ref.name, storm_id)
        return self.norm(out)

    def location_json(self, location):
        """The upload location with the local dir and the uuid replaced."""
        if not isinstance(location, str):
            return location
        text = self.repl.apply(location)
        return re.sub(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}", "<uuid>",
                      text)

    @staticmethod
    def storm_id_json(storm_id, name):
        m = STORM_ID_RE.match(storm_id)
        if not m or m.group("name") != name:
            return {"raw_shape": "unexpected", "id": storm_id}
        return {"normalized": storm_id, "counter": int(m.group("counter")),
                "secs_is_now": abs(int(m.group("secs")) - time.time()) < 600}

    def capture_all(self, references=None):
        """``{"_nimbus": {...}, <ref id>: capture, ...}`` for the references, in order (a
        reference not meant for the target's generation is recorded as not run)."""
        references = refs.REFERENCES if references is None else references
        out = {"_nimbus": self.capture_nimbus()}
        for ref in references:
            if self.target.generation not in ref.generations:
                # Not submitted at all, so the storm id counters of both targets agree.
                out[ref.id] = {"reference": ref.id, "not_run_on": self.target.generation}
                continue
            self.log("[%s] %s ..." % (self.target.label, ref.id))
            t0 = time.monotonic()
            try:
                out[ref.id] = self.capture_reference(ref)
            except Exception as e:  # keep going: one broken reference must not lose the rest
                out[ref.id] = {"reference": ref.id, "harness_error": error_json(e)}
            elapsed = round(time.monotonic() - t0, 1)
            self.timings.setdefault("per_reference_secs", {})[ref.id] = elapsed
            self.log("[%s] %s done in %.1fs" % (self.target.label, ref.id, elapsed))
        return out
