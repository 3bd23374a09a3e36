"""Configuration like Storm's: defaults, then ``storm.yaml``, then ``-c key=value`` overrides.

Port of the reading order of ``Utils.readStormConfig`` (Storm 1.2.4): ``defaults.yaml``, then
the user's ``storm.yaml`` (``--config FILE``, else ``$STORM_CONF_DIR/storm.yaml``), then the
command-line options ``-c key=value`` (``Utils.readCommandLineOpts``: the value is parsed as
JSON, and taken as a plain string where it is not JSON).  As ``ConfigUtils.readStormConfig``,
the values given are checked with Storm's validators; the error names where a bad one came from.

Deliberate differences from Storm's defaults, each so that one machine needs no other service:

* ``storm.zookeeper.servers`` defaults to ``[]``: with no ZooKeeper servers configured the
  embedded cluster-state store is used.  A ``storm.yaml`` that lists servers selects ZooKeeper.
"""

import json
import os


from pynimbus.common.storm_defaults import STORM_DEFAULTS
from pynimbus.common.storm_defaults_2x import STORM_DEFAULTS_2X
from pynimbus.generated.storm.ttypes import InvalidTopologyException

PYNIMBUS_DEFAULTS = {
    "storm.zookeeper.servers": [],
    # Which Storm generation's submit logic and messages to follow (issue 3): "1.x" or "2.x".
    "pynimbus.storm.compat": "1.x",
    # Address the Thrift server binds; Storm binds every interface.  `pynimbus dev` uses loopback.
    "pynimbus.thrift.bind.address": "0.0.0.0",
    # Address a Python worker's tuple port binds (the supervisor's setting); Storm's workers
    # bind every interface.  `pynimbus dev` uses loopback.
    "pynimbus.worker.bind.address": "0.0.0.0",
    # Address `pynimbus drpc` binds (both its ports); Storm binds every interface.  `pynimbus
    # dev`, which runs one under pynimbus.dev.drpc, uses loopback.
    "pynimbus.drpc.bind.address": "0.0.0.0",
    # Address `pynimbus ui` binds; None: Storm's ui.host.  `pynimbus dev`, which serves the UI
    # under pynimbus.dev.ui, uses loopback (without changing ui.host, which Nimbus's conf shows).
    "pynimbus.ui.bind.address": None,
    # The UI's actions need Storm 0.10's anti-forgery token (x-csrf-token); off as in Storm 1.x
    # and 2.x, whose REST clients send none.  Cross-site browser POSTs are refused either way.
    "pynimbus.ui.anti.forgery": False,
    # Seconds the UI remembers the leader Nimbus; 0 looks it up for every request, as Storm.
    "pynimbus.ui.leader.cache.secs": 5,
    # Address `pynimbus logviewer` binds; None: every interface, as Storm's logviewer.  `pynimbus
    # dev`, which serves one under pynimbus.dev.logviewer, uses loopback.
    "pynimbus.logviewer.bind.address": None,
    # With ui.filter set, the HTTP header naming the user of a logviewer request (set by an
    # authenticating proxy in front); None: no user, so worker logs are refused.  Storm takes
    # the user from its servlet filter, which pynimbus does not run.
    "pynimbus.logviewer.user.header": None,
    # `pynimbus supervisor` runs a logviewer in its process (false: none).
    "pynimbus.supervisor.logviewer": True,
    # Directory of the embedded cluster-state store; None means <storm.local.dir>/embedded-state.
    "pynimbus.embedded.state.dir": None,
    # Serve Nimbus's reads of /storms, /assignments, /supervisors, /workerbeats, /errors,
    # /nimbuses and /blobstore from a mirror kept current by watches (issue 11); false reads
    # the store on every call.
    "pynimbus.read.cache": True,
    # On ZooKeeper, how often the read cache reads every heartbeat (/workerbeats/<id>/<node-port>,
    # /supervisors/<id>) again: they are polled, not watched (pynimbus.cluster.zk_tree_watch).
    "pynimbus.read.cache.poll.secs": 1.0,
    # The nimbus's sys.setswitchinterval: how long a busy thread (a mk-assignments round,
    # the read cache's heartbeat reads) may hold the GIL while the reactor waits to answer a
    # call.  Python's default, 0.005, made per-topology calls wait behind them.
    "pynimbus.nimbus.switch.interval.secs": 0.0005,
    # The nimbus collects the oldest generation of Python's cyclic garbage collector every
    # this many seconds, and never on the collector's own count (pynimbus.common.interpreter); null:
    # Python's own schedule.
    "pynimbus.nimbus.gc.full.secs": 60,
    # Most tasks one topology may have (acker, event logger and metrics tasks included); a
    # submit past it is InvalidTopologyException.  Storm has no cap.  None: no cap.
    "pynimbus.topology.max.tasks": 100000,
    # Most bytes one jar upload (beginFileUpload) or blob upload (beginCreateBlob/UpdateBlob)
    # may hold; a chunk past it abandons the upload.  Storm has no limit.
    "pynimbus.upload.max.bytes": 1 << 30,
    # Most bytes of frames being received, summed over all Thrift connections; a frame that
    # does not fit is refused and its connection closed (Storm: nimbus.thrift.max_buffer_size,
    # and it waits).
    "pynimbus.thrift.max_buffered_bytes": 64 * 1048576,
    # Seconds a connection may hold part of a frame without sending more before it is closed
    # (Storm waits for ever).
    "pynimbus.thrift.partial_frame.timeout.secs": 30,
    # Longest frame of tuples a worker accepts from another worker; a longer one closes the
    # connection (Storm's netty decoder has no limit).
    "pynimbus.worker.transport.max_frame_bytes": 16 * 1048576,
    # What peers can make a Python worker's tuple port hold (the supervisor's conf): bytes of
    # frames being received over all its connections (to fit a frame, the connections that
    # went longest without a byte are closed), seconds a connection may stop in the middle
    # of a frame, connections open at once.  Storm's netty server has none of these limits.
    "pynimbus.worker.transport.max_buffered_bytes": 64 * 1048576,
    "pynimbus.worker.transport.partial_frame.timeout.secs": 30,
    "pynimbus.worker.transport.max_connections": 512,
    # A Python supervisor starts a worker that died by itself again at its next sync; one that
    # dies again in a row waits this long first, twice as long after each further death, at
    # most the max (pynimbus.supervisor.worker_failures.RestartBackoff).  Storm: no delay.
    "pynimbus.supervisor.worker.restart.delay.secs": 2,
    "pynimbus.supervisor.worker.restart.max.delay.secs": 60,
    # What a Python supervisor extracts from a topology's jar (pynimbus.supervisor.code): at
    # most this many entries in the jar, bytes written, and times an entry of a megabyte or
    # more may expand.  Storm has no limit, and a 3 MB jar can hold gigabytes of zeros.
    "pynimbus.supervisor.jar.max.entries": 100000,
    "pynimbus.supervisor.jar.max.extracted.bytes": 1 << 30,
    "pynimbus.supervisor.jar.max.ratio": 200,
    # Which placement mk-assignments runs: "default" (Storm's default/even scheduler) or
    # "jstorm" (JStorm 2.2.1's TopologyAssign, pynimbus.jstorm_port).
    "pynimbus.scheduler": "default",
    # Run a Python worker's streamparse components (streamparse_run module.Class) inside the
    # worker process when their class imports (pynimbus.worker.inprocess); false: always as
    # multilang subprocesses, as Storm does.  The topology's conf overrides the cluster's.
    "pynimbus.worker.inprocess": True,
}

# The values of pynimbus.scheduler.
SCHEDULERS = ("default", "jstorm")


class ConfigError(ValueError):
    """A configuration file or option that cannot be read; the message says which and why."""


def default_config(compat="1.x"):
    """Return a fresh dict of every default pynimbus knows: Storm's (1.2.4's, or 2.8.8's for
    ``compat`` "2.x"), then ours."""
    conf = dict(STORM_DEFAULTS_2X if compat == "2.x" else STORM_DEFAULTS)
    conf.update(PYNIMBUS_DEFAULTS)
    if compat == "2.x":
        conf["pynimbus.storm.compat"] = compat
    return conf


def parse_command_line_opt(option):
    """Parse one ``key=value`` option as Storm's ``readCommandLineOpts`` does.

    :raises ConfigError: when there is no ``=`` or the key is empty.
    """
    key, sep, value = option.partition("=")
    key = key.strip()
    if not sep or not key:
        raise ConfigError("config option %r is not of the form key=value" % option)
    try:
        return key, json.loads(value)
    except ValueError:
        return key, value


def read_yaml_file(path):
    """Return the mapping in the YAML file at ``path`` ({} for an empty file).

    :raises ConfigError: when the file cannot be read or is not a YAML mapping.
    """
    import yaml  # here: a worker, which reads no storm.yaml, need not load it
    try:
        with open(path) as f:
            data = yaml.safe_load(f)
    except OSError as e:
        raise ConfigError("cannot read config file %s: %s" % (path, e.strerror))
    except yaml.YAMLError as e:
        raise ConfigError("config file %s is not valid YAML: %s" % (path, e))
    if data is None:
        return {}
    if not isinstance(data, dict):
        raise ConfigError("config file %s must hold a mapping of keys to values" % path)
    return data


def storm_yaml_path(config_file=None, environ=None):
    """Return the ``storm.yaml`` to read: ``config_file``, else ``$STORM_CONF_DIR/storm.yaml``."""
    if config_file:
        return config_file
    environ = os.environ if environ is None else environ
    conf_dir = environ.get("STORM_CONF_DIR")
    if conf_dir:
        candidate = os.path.join(conf_dir, "storm.yaml")
        if os.path.exists(candidate):
            return candidate
    return None


def read_storm_config(config_file=None, options=(), environ=None, base=None):
    """Return the effective configuration: defaults (or ``base``), storm.yaml, then options.

    :param options: ``key=value`` strings as given to ``-c``.
    :raises ConfigError: for an unreadable file, a malformed option, or a value of a type
        Storm's validators refuse (:func:`check_values`).
    """
    user = {}
    origin = {}  # key -> where its value was given, for the error messages
    path = storm_yaml_path(config_file, environ)
    if path is not None:
        user.update(read_yaml_file(path))
        origin.update(dict.fromkeys(user, path))
    for option in options:
        key, value = parse_command_line_opt(option)
        user[key] = value
        origin[key] = "-c " + option
    compat = user.get("pynimbus.storm.compat", PYNIMBUS_DEFAULTS["pynimbus.storm.compat"])
    check_values(user, origin, compat)
    check_scheduler(user, origin)
    check_positive_secs(user, origin, "pynimbus.read.cache.poll.secs",
                        "how many seconds pass between two reads of every heartbeat")
    check_positive_secs(user, origin, "pynimbus.nimbus.switch.interval.secs",
                        "how many seconds a thread may hold the interpreter before another "
                        "gets it")
    for key in ("pynimbus.supervisor.worker.restart.delay.secs",
                "pynimbus.supervisor.worker.restart.max.delay.secs"):
        check_positive_secs(user, origin, key, "how long a worker that keeps dying waits "
                                               "before it starts again")
    check_positive_secs(user, origin, "pynimbus.nimbus.gc.full.secs",
                        "how many seconds pass between two full garbage collections",
                        or_null=True)
    if base is None:  # the generation chosen decides which Storm defaults apply
        conf = default_config(compat)
    else:
        conf = dict(base)
    conf.update(user)
    return conf


# 2.8.8's DaemonConfig kept 1.2.4's validators for the daemon keys it took over from Config,
# except these, which it checks more loosely (or not at all).
DAEMON_KEYS_LOOSER_IN_2X = frozenset(
    ["logs.users", "logs.groups", "resource.aware.scheduler.user.pools"])


def check_values(user, origin, compat):
    """Check the user's values with Storm's validators, as ``ConfigUtils.readStormConfig``
    runs ``ConfigValidation.validateFields`` on a daemon's conf (1.2.4: every key of
    ``Config``; 2.8.8: those of ``Config`` and ``DaemonConfig``, whose keys get 1.2.4's
    validators, the same but for :data:`DAEMON_KEYS_LOOSER_IN_2X`).

    :param origin: key -> where it was given (a file, ``-c key=value``), named in the error.
    :raises ConfigError: naming the source, the key and the type Storm expects.
    """
    # here: a worker, which reads no storm.yaml, need not load Storm's validators
    from pynimbus.clojure_port.conf_validation import declared_keys, validate_topology_conf
    config_keys = declared_keys(compat)
    for key, value in user.items():
        generation = compat
        if key not in config_keys and key not in DAEMON_KEYS_LOOSER_IN_2X:
            # a DaemonConfig key; approximation: so are the few keys 2.8.8 dropped altogether
            generation = "1.x"
        try:
            validate_topology_conf({key: value}, generation)
        except (InvalidTopologyException, TypeError) as e:
            raise ConfigError("%s: %s cannot be %s: %s" % (
                origin.get(key, "the configuration"), key, json.dumps(value, default=str),
                getattr(e, "msg", None) or e))


def check_scheduler(user, origin):
    """:raises ConfigError: naming the source and the value when ``pynimbus.scheduler`` is
    none of :data:`SCHEDULERS`."""
    name = user.get("pynimbus.scheduler", PYNIMBUS_DEFAULTS["pynimbus.scheduler"])
    if name not in SCHEDULERS:
        raise ConfigError("%s: pynimbus.scheduler cannot be %s: the schedulers are %s" % (
            origin.get("pynimbus.scheduler", "the configuration"),
            json.dumps(name, default=str), ", ".join(SCHEDULERS)))


def check_positive_secs(user, origin, key, meaning, or_null=False):
    """:raises ConfigError: naming the source and the value when ``key`` (a pynimbus key, in
    seconds, which is ``meaning``) is not a number above 0 (nor null, when ``or_null``)."""
    value = user.get(key, PYNIMBUS_DEFAULTS[key])
    if value is None and or_null:
        return
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not value > 0:
        raise ConfigError("%s: %s cannot be %s: it is %s, a number above 0%s" % (
            origin.get(key, "the configuration"), key, json.dumps(value, default=str),
            meaning, " (or null)" if or_null else ""))


# The path settings a daemon reads, each made absolute once at start (:func:`absolute_paths`).
PATH_SETTINGS = ("storm.local.dir", "storm.log.dir", "blobstore.dir",
                 "pynimbus.embedded.state.dir")


def absolute_paths(conf, home):
    """``conf`` with every relative path of :data:`PATH_SETTINGS` made absolute against
    ``home``, the daemon's working directory (a new dict; unset ones stay unset).

    Port of ``ConfigUtils.absoluteStormLocalDir``, which joins a relative ``storm.local.dir``
    to ``storm.home``; pynimbus has no install directory, so its home is where the daemon was
    started.  Done once, before anything reads a path: the supervisor passes its conf on to
    workers that run in directories of their own, where a relative path means another place.
    """
    resolved = dict(conf)
    for key in PATH_SETTINGS:
        value = resolved.get(key)
        if isinstance(value, str) and value and not os.path.isabs(value):
            resolved[key] = os.path.normpath(os.path.join(home, value))
    return resolved


def storm_log_dir(conf):
    """Where daemons and workers log: ``storm.log.dir``, else ``<storm.local.dir>/logs``
    (Storm's default is ``<storm.home>/logs``)."""
    return conf.get("storm.log.dir") or os.path.join(
        os.path.abspath(conf["storm.local.dir"]), "logs")


def embedded_state_dir(conf):
    """Return the directory of the embedded cluster-state store for ``conf``."""
    return conf.get("pynimbus.embedded.state.dir") or os.path.join(
        os.path.abspath(conf["storm.local.dir"]), "embedded-state")


def upload_max_bytes(conf):
    """The most bytes one upload may hold (``pynimbus.upload.max.bytes``)."""
    return int(conf.get("pynimbus.upload.max.bytes")
               or PYNIMBUS_DEFAULTS["pynimbus.upload.max.bytes"])


def uses_zookeeper(conf):
    """True when ZooKeeper servers are configured (else the embedded store is used)."""
    return bool(conf.get("storm.zookeeper.servers"))
