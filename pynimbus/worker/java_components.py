"""What a Python worker can take from a Java-serialized component (pure).

Storm 1.2.4 runs a multilang component written against the Java API as a subclass of
``org.apache.storm.task.ShellBolt`` or ``org.apache.storm.spout.ShellSpout`` (storm-starter's
``WordCountTopology$SplitSentence`` is ``super("python", "splitsentence.py")``), serialized
into the topology.  The command the subclass passed (``_command``) and its ``env`` are all
``ShellBolt.prepare``/``ShellSpout.open`` need, so a Python worker runs such a component
through the multilang host.  The bytes are read with javaobj-py3 (a maintained reader of Java
serialization that builds values and runs no code); any other class is not runnable here, and
its name is what the component error shows.
"""

import collections

from pynimbus.worker.groupings import _serialized_fields, read_java_class_name

SHELL_BOLT_CLASS = "org.apache.storm.task.ShellBolt"
SHELL_SPOUT_CLASS = "org.apache.storm.spout.ShellSpout"

JavaShellComponent = collections.namedtuple("JavaShellComponent", "class_name command env")
JavaShellComponent.__doc__ = """A serialized ShellBolt/ShellSpout subclass: its class, the
command (argv) it runs in the resources directory and the environment entries it adds."""


def java_class_name(serialized):
    """The class of a Java-serialized object, or a placeholder for bytes that are none."""
    header = read_java_class_name(serialized)
    return header.class_name if header is not None else "(not a Java object stream)"


def read_java_shell_component(serialized, shell_class):
    """A :data:`JavaShellComponent` when ``serialized`` is an object whose class extends
    ``shell_class`` (:data:`SHELL_BOLT_CLASS` or :data:`SHELL_SPOUT_CLASS`) with a command;
    None for any other object or for bytes javaobj cannot read."""
    try:
        import javaobj.v2 as javaobj
        fields = _serialized_fields(javaobj.loads(bytes(serialized)), shell_class)
        command = [str(part) for part in fields["_command"]]
        env = fields.get("env")
        env = {} if env is None else {str(k): str(v) for k, v in env.items()}
    except Exception:  # javaobj's errors have no common class: any is "not runnable"
        return None
    if not command:
        return None
    return JavaShellComponent(java_class_name(serialized), command, env)
