"""Which of a worker's shell components run in its process: a command that is streamparse's runner,
whose ``module.Class`` imports from the topology's resources directory (put first on ``sys.path``: a
worker runs one topology) and is a pystorm ``Spout``/``Bolt`` of the component's kind that keeps
pystorm's plumbing.  Anything else runs as its multilang subprocess: another command, a module or
class that does not import, a class of the other kind, a pystorm ``BatchingBolt`` (it emits from a
thread of its own), or a class (or a mixin of it) that defines pystorm's loop, its reading or
sending or a bolt's ``emit`` (pystorm's own loop calls those and keeps the state a bolt's emit
anchors with; the worker does neither). streamparse's ``Bolt`` and ``Spout`` add only class
attributes: they run in process.  ``pynimbus.worker.inprocess: false`` in the topology's conf or the
cluster's turns it off.
"""

import logging
import os
import sys

log = logging.getLogger(__name__)

WORKER_INPROCESS = "pynimbus.worker.inprocess"
STREAMPARSE_RUN = "streamparse_run"
# The runner's options that take a value (streamparse/run.py); any other option: not ours.
_RUNNER_VALUE_OPTIONS = ("-s", "--serializer")
# pystorm's plumbing: its loop body, its reading and sending, its handling of what the loop
# body raised (a class that overrides one of them runs as a subprocess, where pystorm's own
# loop calls it)
PYSTORM_PLUMBING = ("_run", "read_tuple", "read_command", "read_message", "read_task_ids",
                    "send_message", "is_heartbeat", "is_tick", "_handle_run_exception")
# a bolt's own emit would anchor through the loop's private state, which the worker does not
# keep: such a bolt runs as a subprocess too (a spout's own emit runs in process)
BOLT_ONLY = ("emit",)


def inprocess_enabled(conf):
    """``pynimbus.worker.inprocess`` of the worker's conf (the topology's over the cluster's);
    on unless false."""
    return conf.get(WORKER_INPROCESS, True) not in (False, "false", "False")


def streamparse_target(command):
    """The ``module.Class`` that ``command`` (argv) has streamparse's runner start, or None
    when ``command`` is not ``streamparse_run [-s SERIALIZER] module.Class``.  Storm passes
    the script as one argument, which the runner splits on spaces: so is it here."""
    if not command or os.path.basename(command[0]) != STREAMPARSE_RUN:
        return None
    args = " ".join(command[1:]).split()
    targets = []
    while args:
        arg = args.pop(0)
        if arg in _RUNNER_VALUE_OPTIONS and args:
            args.pop(0)
        elif arg.startswith("-"):
            return None
        else:
            targets.append(arg)
    if len(targets) != 1 or "." not in targets[0]:
        return None
    return targets[0]


def import_component_class(resources_dir, target, is_spout):
    """``(class, None)`` for ``target`` imported from ``resources_dir``, or ``(None, why
    not)``.  Blocking (it imports user code)."""
    import importlib
    from pystorm import Bolt, Spout
    from pystorm.bolt import BatchingBolt

    if resources_dir not in sys.path:
        sys.path.insert(0, resources_dir)
    module_name, class_name = target.rsplit(".", 1)
    try:
        component_class = getattr(importlib.import_module(module_name), class_name)
    except Exception as e:  # anything user code raises: the subprocess path will show it
        return None, "%s does not import: %s: %s" % (target, type(e).__name__, e)
    kind = Spout if is_spout else Bolt
    if not (isinstance(component_class, type) and issubclass(component_class, kind)):
        return None, "%s is not a pystorm %s" % (target, kind.__name__)
    if issubclass(component_class, BatchingBolt):
        return None, "%s is a BatchingBolt, which emits from a thread of its own" % target
    overridden = overridden_plumbing(component_class, kind)
    if overridden:
        return None, "%s overrides pystorm's %s, which its own loop calls" % (
            target, ", ".join(overridden))
    return component_class, None


def overridden_plumbing(component_class, base):
    """The methods of pystorm's plumbing (and a bolt's ``emit``) that a class of
    ``component_class``'s MRO other than pystorm's own defines (a subclass, or a mixin that
    pystorm's own methods would reach through ``super()``), in their order; ``base`` is
    pystorm's ``Bolt`` or ``Spout``."""
    from pystorm import Bolt

    names = PYSTORM_PLUMBING + (BOLT_ONLY if base is Bolt else ())
    ours = [klass for klass in component_class.__mro__
            if not klass.__module__.split(".")[0] == "pystorm"]
    return [name for name in names if any(name in vars(klass) for klass in ours)]


def inprocess_component_classes(conf, commands, resources_dir, environment):
    """``{component id: class}`` of the components of ``commands`` (``{component id: (argv,
    is_spout)}``) that run in process; the others are logged with the reason and left to
    their subprocess.  The worker's environment first becomes ``environment`` (the one its
    multilang children would get: the topology's ``topology.environment``), as a component
    reads it there.  Blocking (imports user code)."""
    if not inprocess_enabled(conf):
        return {}
    targets = {component_id: (streamparse_target(argv), is_spout)
               for component_id, (argv, is_spout) in commands.items()}
    if not any(target for target, _is_spout in targets.values()):
        return {}
    os.environ.update(environment)
    classes = {}
    for component_id, (target, is_spout) in sorted(targets.items()):
        if target is None:
            continue
        component_class, why_not = import_component_class(resources_dir, target, is_spout)
        if component_class is None:
            log.info("component %s runs as a multilang subprocess: %s", component_id, why_not)
        else:
            log.info("component %s runs in process: %s", component_id, target)
            classes[component_id] = component_class
    return classes
