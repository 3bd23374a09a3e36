"""What a Python worker can take from a Java-serialized component (pure).

Storm 1.2.4 runs a multilang component written against the Java API as a subclass of
``org.apache.storm.task.ShellBolt`` or ``org.apache.storm.spout.ShellSpout`` (storm-starter's
``WordCountTopology$SplitSentence`` is ``super("python", "splitsentence.py")``), serialized
into the topology.  The command the subclass passed (``_command``) and its ``env`` are all
``ShellBolt.prepare``/``ShellSpout.open`` need, so a Python worker runs such a component
through the multilang host.  The bytes are read with javaobj-py3 (a maintained reader of Java
serialization that builds values and runs no code); any other class is not runnable here, and
its name is what the component error shows: for the executors ``TopologyBuilder`` wraps a
bolt in (``setBolt`` of an ``IBasicBolt`` serializes a ``BasicBoltExecutor``), with the class
the user wrote inside.
"""

import collections

from pynimbus.worker.groupings import serialized_fields, read_java_class_name

SHELL_BOLT_CLASS = "org.apache.storm.task.ShellBolt"
SHELL_SPOUT_CLASS = "org.apache.storm.spout.ShellSpout"

# TopologyBuilder's wrappers (1.2.4 and 2.8.8): class -> the fields that may hold the wrapped
# bolt (1.2.4's BasicBoltExecutor calls it _bolt, 2.8.8's bolt).
BOLT_WRAPPER_FIELDS = {
    "org.apache.storm.topology.BasicBoltExecutor": ("_bolt", "bolt"),
    "org.apache.storm.topology.WindowedBoltExecutor": ("bolt",),
    "org.apache.storm.topology.StatefulBoltExecutor": ("bolt",),
    "org.apache.storm.topology.StatefulWindowedBoltExecutor": ("statefulWindowedBolt",),
}
# StatefulBoltExecutor(StatefulWindowedBoltExecutor(bolt)) is the deepest TopologyBuilder nests.
MAX_WRAPPER_DEPTH = 3

JavaShellComponent = collections.namedtuple("JavaShellComponent", "class_name command env")
JavaShellComponent.__doc__ = """A serialized ShellBolt/ShellSpout subclass: its class, the
command (argv) it runs in the resources directory and the environment entries it adds."""


def java_class_name(serialized):
    """The class of a Java-serialized object, or a placeholder for bytes that are none; for
    one of TopologyBuilder's wrappers, followed by the classes it wraps (``... wrapping
    org.apache.storm.starter.WordCountTopology$WordCount``), so the error names the user's
    bolt."""
    header = read_java_class_name(serialized)
    if header is None:
        return "(not a Java object stream)"
    if header.class_name not in BOLT_WRAPPER_FIELDS:
        return header.class_name
    return " wrapping ".join([header.class_name] + wrapped_class_names(serialized))


def wrapped_class_names(serialized):
    """The classes of the objects a wrapper of :data:`BOLT_WRAPPER_FIELDS` holds, outermost
    first (empty for bytes javaobj cannot read)."""
    try:
        import javaobj.v2 as javaobj
        instance = javaobj.loads(bytes(serialized))
    except Exception:  # javaobj's errors have no common class: the outer class must do
        return []
    names = []
    for _ in range(MAX_WRAPPER_DEPTH):
        instance = _wrapped_instance(instance)
        if instance is None:
            break
        names.append(instance.classdesc.name)
    return names


def _wrapped_instance(instance):
    """The object held in a wrapper's bolt field, or None when ``instance`` is no wrapper."""
    for class_desc, values in getattr(instance, "field_data", {}).items():
        fields = BOLT_WRAPPER_FIELDS.get(class_desc.name, ())
        for field, value in values.items():
            if field.name in fields and getattr(value, "classdesc", None) is not None:
                return value
    return None


def read_java_shell_component(serialized, shell_class):
    """A :data:`JavaShellComponent` when ``serialized`` is an object whose class extends
    ``shell_class`` (:data:`SHELL_BOLT_CLASS` or :data:`SHELL_SPOUT_CLASS`) with a command;
    None for any other object or for bytes javaobj cannot read."""
    try:
        import javaobj.v2 as javaobj
        fields = serialized_fields(javaobj.loads(bytes(serialized)), shell_class)
        command = [str(part) for part in fields["_command"]]
        env = fields.get("env")
        env = {} if env is None else {str(k): str(v) for k, v in env.items()}
    except Exception:  # javaobj's errors have no common class: any is "not runnable"
        return None
    if not command:
        return None
    return JavaShellComponent(java_class_name(serialized), command, env)
