"""The Python classes a topology's conf names for the worker to run (metrics consumers,
event loggers): imported with the topology's resources first on ``sys.path``."""

import importlib
import sys

# the packages a Java class name starts with: named where a Python worker runs the class,
# the error says it is Java
JAVA_PREFIXES = ("org.apache.storm.", "com.", "org.", "backtype.", "net.", "io.")


class RegisteredClassError(ValueError):
    """A registration names no class the worker can run (its message says what to give)."""


def load_registered_class(class_name, resources_dir, method, what, advice):
    """The class ``class_name`` (``module.Class``) names, which must have ``method``.
    Blocking (imports user code).

    :param what: what the class is, for the messages ("the metrics consumer").
    :param advice: what to register instead, ending each message.
    :raises RegisteredClassError: no dotted name, not importable, or no such method.
    """
    if not isinstance(class_name, str) or "." not in class_name:
        raise RegisteredClassError("%s class %r is no dotted class name: %s"
                                   % (what, class_name, advice))
    if resources_dir and resources_dir not in sys.path:
        sys.path.insert(0, resources_dir)
    module_name, name = class_name.rsplit(".", 1)
    try:
        found = getattr(importlib.import_module(module_name), name)
    except Exception as e:
        raise RegisteredClassError("%s %s %s (%s: %s): %s" % (
            what, class_name, "looks like a Java class, which a Python worker cannot run"
            if class_name.startswith(JAVA_PREFIXES) else "does not import in the Python worker",
            type(e).__name__, e, advice))
    if not (isinstance(found, type) and callable(getattr(found, method, None))):
        raise RegisteredClassError("%s %s is no class with %s: %s"
                                   % (what, class_name, method, advice))
    return found
