"""A streamparse project as ``sparse submit`` reads it, for ``pynimbus submit``.

Follows streamparse 5.0.1's ``cli/submit.py`` ``submit_topology``, ``util.py``
(``get_config``, ``get_env_config``, ``get_topology_from_file``, ``set_topology_serializer``)
and ``cli/common.py`` ``resolve_options``: the topology is the ``StormTopology`` its DSL
builds (shell components running ``streamparse_run``), the conf is built from ``config.json``'s
environment, the ``Topology`` class's ``config`` and the command line, in that order.

Deliberate differences from ``sparse submit``:

* no virtualenv is created on the workers and ``streamparse_run`` is left as the DSL writes it:
  each worker runs it from its own ``PATH`` (where pynimbus's own Python has it), so
  ``topology.python.path`` is not set and the ``*virtualenv*`` options are passed on unused;
* no SSH tunnel, no fabric/invoke ``pre_submit``/``post_submit`` hooks.

Imports streamparse (``pip install pynimbus[streamparse]``) only when a project is loaded.
"""

import collections
import copy
import importlib
import importlib.util
import json
import os
import sys
import warnings

from thrift.protocol.TBinaryProtocol import TBinaryProtocol
from thrift.transport.TTransport import TMemoryBuffer

from pynimbus.generated.storm.ttypes import StormTopology

CONFIG_FILE = "config.json"
VIRTUALENV_OPTIONS = ("install_virtualenv", "use_virtualenv", "virtualenv_flags",
                      "virtualenv_root", "virtualenv_name")

SparseProject = collections.namedtuple(
    "SparseProject", "root topology_name topology_class config env_name env_config "
    "trident_program")
SparseProject.__new__.__defaults__ = (None,)
SparseProject.__doc__ = """A loaded project.  ``topology_class`` is the streamparse ``Topology``
class, or for a Trident program (``trident_program``, its ``module:attr``) its
``TridentTopology``."""


class ProjectError(ValueError):
    """A project, topology or environment that cannot be used; the message says why."""


def import_streamparse_dsl():
    """streamparse's ``Topology`` base class (its import warns about paramiko; hushed)."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            from streamparse.dsl.topology import Topology
    except ImportError as e:
        raise ProjectError(
            "streamparse, which reads the project, is not installed for %s (%s): install "
            "pynimbus with its streamparse extra, `%s -m pip install '.[streamparse]'` in "
            "pynimbus's source directory" % (sys.executable, e, sys.executable))
    return Topology


def load_project(target, environment=None, cwd=None):
    """The project of ``target``: a topology file (``topologies/wordcount.py``, its project
    the directory above, as sparse puts ``../src`` on the path) or ``module:attr`` (the
    project is ``cwd``).  Imports the topology with the project's ``src/`` on ``sys.path``.

    :raises ProjectError: no such file, module or class, or an unusable config.json.
    """
    cwd = os.path.abspath(cwd or os.getcwd())
    trident = trident_target(target, cwd)
    if trident is not None:
        config = read_sparse_config(cwd)
        env_name, env_config = select_env(config, environment)
        return SparseProject(cwd, target.partition(":")[0].rpartition(".")[2], trident, config,
                             env_name, env_config, target)
    import_streamparse_dsl()  # before the project's files, which import it too
    if target.endswith(".py") or os.sep in target:
        path = os.path.abspath(os.path.join(cwd, target))
        if not os.path.isfile(path):
            raise ProjectError("no topology file %s" % path)
        root = os.path.dirname(os.path.dirname(path))
        topology_name = os.path.splitext(os.path.basename(path))[0]
        put_on_sys_path(os.path.join(root, "src"), os.path.dirname(path))
        topology_class = topology_in_module(import_file(path), path)
    else:
        module_name, sep, attr = target.partition(":")
        if not sep or not module_name or not attr:
            raise ProjectError("%r is neither a topology file (.py) nor module:attr" % target)
        root = cwd
        topology_name = module_name.rpartition(".")[2]
        put_on_sys_path(os.path.join(root, "src"), root)
        topology_class = named_topology(module_name, attr)
    config = read_sparse_config(root)
    env_name, env_config = select_env(config, environment)
    return SparseProject(root, topology_name, topology_class, config, env_name, env_config)


def trident_target(target, cwd):
    """The ``TridentTopology`` ``target`` (``module:attr``, imported with ``cwd/src`` and
    ``cwd`` on the path) names, or None when it names something else (a streamparse
    topology, a file).  ``attr`` may be a function returning the topology, called once.

    :raises ProjectError: the module does not import."""
    from pynimbus.trident.topology import TridentTopology

    module_name, sep, attr = target.partition(":")
    if not sep or not module_name or not attr or target.endswith(".py"):
        return None
    put_on_sys_path(os.path.join(cwd, "src"), cwd)
    try:
        module = importlib.import_module(module_name)
    except Exception as e:
        raise ProjectError("cannot import %s: %s: %s" % (module_name, type(e).__name__, e))
    value = getattr(module, attr, None)
    if isinstance(value, TridentTopology):
        return value
    if callable(value) and not isinstance(value, type) and takes_no_arguments(value):
        try:
            value = value()
        except Exception as e:
            raise ProjectError("%s raised: %s: %s" % (target, type(e).__name__, e))
        if not isinstance(value, TridentTopology):
            raise ProjectError("%s returned %r, not a TridentTopology" % (target, value))
        return value
    return None


def takes_no_arguments(function):
    """Whether ``function`` can be called without arguments (a Trident program's builder)."""
    import inspect

    try:
        parameters = inspect.signature(function).parameters.values()
    except (TypeError, ValueError):
        return False
    return all(p.default is not p.empty or p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD)
               for p in parameters)


def put_on_sys_path(*directories):
    for directory in reversed(directories):
        if directory not in sys.path:
            sys.path.insert(0, directory)


def import_file(path):
    """Import the module at ``path`` afresh under its file name (as sparse imports it)."""
    name = os.path.splitext(os.path.basename(path))[0]
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    try:
        spec.loader.exec_module(module)
    except Exception as e:
        del sys.modules[name]
        missing = missing_input_of(e)
        if missing is not None:
            raise ProjectError(
                "%s: component %s subscribes to %s, which the topology does not define: "
                "every input must be a spec that is an attribute of the Topology class (as "
                "Storm says it: Component: [%s] subscribes from non-existent component [%s])"
                % ((path,) + missing + missing))
        raise ProjectError("cannot import %s: %s: %s" % (path, type(e).__name__, e))
    return module


def missing_input_of(error):
    """``(bolt, component)`` when ``error`` is the ``KeyError`` streamparse's DSL raises while
    it resolves a bolt's input that names no component of the topology
    (``TopologyType.clean_spec_inputs``, whose ``spec`` is the bolt); else None."""
    if not isinstance(error, KeyError) or not error.args:
        return None
    tb = error.__traceback__
    while tb is not None:
        frame = tb.tb_frame
        if frame.f_code.co_name == "clean_spec_inputs":
            bolt = getattr(frame.f_locals.get("spec"), "name", None)
            if bolt is not None:
                return bolt, error.args[0]
        tb = tb.tb_next
    return None


def topology_in_module(module, where):
    """The first ``Topology`` subclass defined or imported in ``module``, as
    ``get_topology_from_file`` picks it."""
    topology = import_streamparse_dsl()
    for value in vars(module).values():
        if isinstance(value, type) and issubclass(value, topology) and value is not topology:
            return value
    raise ProjectError("%s defines no streamparse Topology subclass" % where)


def named_topology(module_name, attr):
    topology = import_streamparse_dsl()
    try:
        module = importlib.import_module(module_name)
    except Exception as e:
        raise ProjectError("cannot import %s: %s: %s" % (module_name, type(e).__name__, e))
    value = getattr(module, attr, None)
    if not (isinstance(value, type) and issubclass(value, topology) and value is not topology):
        raise ProjectError("%s:%s is not a streamparse Topology subclass, nor a TridentTopology "
                           "or a function returning one" % (module_name, attr))
    return value


def read_sparse_config(root):
    """``root``'s config.json as a dict, or ``{}`` when it has none (a bare module).

    :raises ProjectError: config.json is not a JSON object.
    """
    path = os.path.join(root, CONFIG_FILE)
    if not os.path.exists(path):
        return {}
    try:
        with open(path) as f:
            config = json.load(f)
    except (OSError, ValueError) as e:
        raise ProjectError("cannot read %s: %s" % (path, e))
    if not isinstance(config, dict):
        raise ProjectError("%s is not a JSON object" % path)
    return config


def select_env(config, env_name=None):
    """``(name, env config)`` of config.json's ``envs`` as ``get_env_config`` picks it: the
    one named, else the only one; ``(None, {})`` for a project without environments.

    :raises ProjectError: several environments and none named, or an unknown name.
    """
    envs = config.get("envs") or {}
    if env_name is None:
        if not envs:
            return None, {}
        if len(envs) > 1:
            raise ProjectError("config.json has several environments (%s): name one with "
                               "--environment" % ", ".join(sorted(envs)))
        env_name = next(iter(envs))
    if env_name not in envs:
        raise ProjectError("config.json has no environment %r (it has: %s)"
                           % (env_name, ", ".join(sorted(envs)) or "none"))
    return env_name, envs[env_name]


def sparse_options(env_config, topology_config, cli_options, topology_name, worker_hosts):
    """The topology conf ``sparse submit`` sends (streamparse ``resolve_options``): the
    environment's ``options``, its log settings and virtualenv keys, then the ``Topology``'s
    ``config``, then the command line; ``topology.workers`` and ``topology.acker.executors``
    default to the number of ``worker_hosts`` (``storm.workers.list``).  No
    ``topology.python.path``: no virtualenv is made (module docstring)."""
    options = dict(env_config.get("options") or {})
    log_config = env_config.get("log") or {}
    log_path = log_config.get("path") or env_config.get("log_path")
    log_file = log_config.get("file") or env_config.get("log_file")
    if log_path:
        options["pystorm.log.path"] = log_path
    if log_file:
        options["pystorm.log.file"] = log_file
    for key in ("max_bytes", "backup_count"):
        if isinstance(log_config.get(key), int):
            options["pystorm.log." + key] = log_config[key]
    if isinstance(log_config.get("level"), str):
        options["pystorm.log.level"] = log_config["level"].lower()
    for key in VIRTUALENV_OPTIONS:
        if key in env_config:
            options[key] = env_config[key]
    options["sudo_user"] = env_config.get("user")
    options.update(topology_config or {})
    options.update(cli_options or {})
    if options.get("topology.debug", False):
        options["pystorm.log.level"] = "debug"
    workers = options.get("storm.workers.list") or list(worker_hosts)
    if isinstance(workers, str):
        workers = workers.split(",")
    options["storm.workers.list"] = workers
    for key in ("topology.acker.executors", "topology.workers"):
        if options.get(key) is None:
            options[key] = len(workers)
    options["topology.original_name"] = topology_name
    return options


def serializer_of(config, env_config):
    """The serializer ``streamparse_run`` is told (``-s``), or None for its default."""
    return env_config.get("serializer", config.get("serializer"))


def submitted_topology(topology_class, env_name=None, serializer=None):
    """The ``StormTopology`` sparse submits for ``topology_class``, as pynimbus's Thrift type:
    per-environment parallelism resolved for ``env_name``, ``-s serializer`` put before each
    shell script (``set_topology_serializer``).  The class is left as it was."""
    thrift_topology = copy.deepcopy(topology_class.thrift_topology)
    components = list(thrift_topology.bolts.values()) + list(thrift_topology.spouts.values())
    for component in components:
        hint = component.common.parallelism_hint
        if isinstance(hint, dict):
            component.common.parallelism_hint = hint.get(env_name)
    if serializer is not None:
        for bolt in thrift_topology.bolts.values():
            prefix_script(bolt.bolt_object.shell, serializer)
        for spout in thrift_topology.spouts.values():
            prefix_script(spout.spout_object.shell, serializer)
    return to_pynimbus_thrift(thrift_topology, StormTopology())


def prefix_script(shell, serializer):
    if shell is not None:
        shell.script = "-s %s %s" % (serializer, shell.script)


def to_pynimbus_thrift(thriftpy_struct, empty):
    """``thriftpy_struct`` (streamparse's thriftpy2 types) read into ``empty`` (ours) through
    the binary protocol: the same bytes on the wire."""
    from thriftpy2.protocol import TBinaryProtocol as ThriftpyBinaryProtocol
    from thriftpy2.transport import TMemoryBuffer as ThriftpyMemoryBuffer

    out = ThriftpyMemoryBuffer()
    thriftpy_struct.write(ThriftpyBinaryProtocol(out))
    empty.read(TBinaryProtocol(TMemoryBuffer(out.getvalue())))
    return empty
