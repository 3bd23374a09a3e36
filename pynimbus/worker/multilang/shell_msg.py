"""The multilang messages, both ways, as data (pure).

From the child: ``shell_msg`` checks and normalizes one message as Storm 1.2.4
``JsonSerializer.readShellMsg`` does into a ``ShellMsg``; ``bolt_action`` and ``spout_action``
map it to what the executor must do, as ``ShellBolt``'s reader thread and
``ShellSpout.querySubprocess`` do (2.8.8 is the same). To the child: the setup message, the
``BoltMsg`` and ``SpoutMsg`` forms, and the heartbeat tuple (reference multilang-protocol.md).
A child is untrusted: a malformed message raises ``MultilangProtocolError``, which kills the
component as Storm's ``ClassCastException``/``RuntimeException`` would.
"""

from collections import namedtuple

DEFAULT_STREAM_ID = "default"
HEARTBEAT_STREAM_ID = "__heartbeat"
SPOUT_COMMANDS = ("next", "ack", "fail", "activate", "deactivate")

# DefaultShellLogHandler's levels; any other number logs at INFO.
LOG_LEVEL_NAMES = {0: "TRACE", 1: "DEBUG", 2: "INFO", 3: "WARN", 4: "ERROR"}
INFO_LOG_LEVEL = 2


class MultilangProtocolError(Exception):
    """The child sent a message the multilang protocol does not allow."""


ShellMsg = namedtuple(
    "ShellMsg",
    "command id msg stream task need_task_ids tuple anchors metric_name metric_params log_level",
)

# What the executor does with one message.  ``direct_task`` None means a normal emit;
# ``message_id`` is a spout's id for the tuple tree (None: unreliable), ``anchors`` a bolt's.
Emit = namedtuple("Emit", "stream values anchors direct_task need_task_ids message_id")
Ack = namedtuple("Ack", "id")
Fail = namedtuple("Fail", "id")
ReportError = namedtuple("ReportError", "message")
ShellLog = namedtuple("ShellLog", "level msg")
UpdateMetric = namedtuple("UpdateMetric", "name params")
Sync = namedtuple("Sync", "")


def shell_msg(message):
    """Port of ``JsonSerializer.readShellMsg``: ``ShellMsg`` of one decoded child message.

    ``stream`` defaults to ``default``, ``task`` to 0 (not direct), ``need_task_ids`` to True;
    ``anchors`` may be one id or a list; ``level`` counts only for ``log`` and only if it is an
    integer (1.2.4; 2.8.8 takes any number), else INFO.

    :raises MultilangProtocolError: not an object, no string ``command``, or a field of the
        wrong type.
    """
    if not isinstance(message, dict):
        raise MultilangProtocolError(
            "expected a command object from the subprocess, got %s" % _shown(message)
        )
    get = message.get
    command = get("command")
    if not isinstance(command, str):
        raise MultilangProtocolError("Command not found in message: %s" % _shown(message))
    stream = get("stream")
    if stream is None:
        stream = DEFAULT_STREAM_ID
    task = get("task")
    if task is None:
        task = 0
    need_task_ids = get("need_task_ids")
    values = get("tuple")
    msg = get("msg")
    # one test for the usual message (every child message passes here); the field-by-field
    # checks only to name the wrong one
    if not (isinstance(stream, str) and task.__class__ is int
            and (need_task_ids is None or need_task_ids.__class__ is bool)
            and (values is None or isinstance(values, list))
            and (msg is None or isinstance(msg, str))):
        _check(isinstance(stream, str), "stream", message)
        _check(_is_int(task), "task", message)
        _check(need_task_ids is None or isinstance(need_task_ids, bool), "need_task_ids",
               message)
        _check(values is None or isinstance(values, list), "tuple", message)
        _check(msg is None or isinstance(msg, str), "msg", message)
    anchors = get("anchors")
    if anchors is None:
        anchors = ()
    elif anchors.__class__ is list and all(a.__class__ is str for a in anchors):
        anchors = tuple(anchors)
    else:
        anchors = _anchors(message)
    name = get("name")
    level = get("level")
    # positional, in ShellMsg's field order (command id msg stream task need_task_ids tuple
    # anchors metric_name metric_params log_level): the keyword form costs more per message
    return ShellMsg(
        command, get("id"), msg, stream, task, need_task_ids is not False, values, anchors,
        name if isinstance(name, str) else None, get("params"),
        level if command == "log" and _is_int(level) else INFO_LOG_LEVEL,
    )


def bolt_action(msg):
    """What ``ShellBolt``'s reader thread does with a ``ShellMsg`` (``handleEmit``,
    ``handleAck``, ``handleFail``, ``handleError``, ``handleLog``, ``handleMetrics``; ``sync``
    only counts as a heartbeat). ``None`` for any other command: the bolt ignores it (both
    versions), once it has counted as a heartbeat.

    :raises MultilangProtocolError: a command missing what it needs.
    """
    command = msg.command
    if command == "emit":
        return _emit(msg, anchors=msg.anchors, message_id=None)
    if command in ("ack", "fail"):
        if not isinstance(msg.id, str):
            raise MultilangProtocolError(
                "%s needs the id of an input tuple, got %r" % (command, msg.id)
            )
        return Ack(msg.id) if command == "ack" else Fail(msg.id)
    if command in _COMMON_COMMANDS:
        return _common_action(msg)
    return None


def spout_action(msg):
    """What ``ShellSpout.querySubprocess`` does with a ``ShellMsg``: ``sync`` ends the
    exchange, ``emit`` (with the child's message id), ``log``, ``error``, ``metrics``.

    :raises MultilangProtocolError: any other command ("Unknown command received").
    """
    if msg.command == "emit":
        return _emit(msg, anchors=(), message_id=msg.id)
    if msg.command in ("ack", "fail"):
        raise MultilangProtocolError("Unknown command received: %s" % msg.command)
    return _common_action(msg)


class ShellBoltInputs(dict):
    """Port of ``ShellBolt._inputs``: the input tuples handed to the child and not yet acked or
    failed, by the id of their ``BoltMsg``. Tuples are whatever the executor uses for them.
    A dict of them, so that an in-process bolt's hot path reads it with dict operations."""

    __slots__ = ()

    def put(self, tuple_id, input_tuple):
        """``execute``: remember the tuple written under ``tuple_id``."""
        self[tuple_id] = input_tuple

    def anchors(self, anchor_ids):
        """``handleEmit``: the input tuples an emit anchored to ``anchor_ids`` is anchored to.

        :raises MultilangProtocolError: an anchor names no pending input ("Anchored onto ...
            after ack/fail", which kills the bolt in Storm).
        """
        try:
            return [self[anchor] for anchor in anchor_ids]
        except KeyError as e:
            raise anchored_after_ack(e.args[0])

    def take(self, tuple_id, verb):
        """``handleAck``/``handleFail`` (``verb`` "Acked" or "Failed"): remove and return the
        input tuple of ``tuple_id``.

        :raises MultilangProtocolError: the id names no pending input.
        """
        try:
            return self.pop(tuple_id)
        except KeyError:
            raise not_pending(verb, tuple_id)


def anchored_after_ack(anchor_id):
    """ShellBolt's error for an emit anchored to ``anchor_id``, no pending input."""
    return MultilangProtocolError("Anchored onto %s after ack/fail" % anchor_id)


def not_pending(verb, tuple_id):
    """ShellBolt's error for an ack or fail (``verb`` "Acked" or "Failed") of ``tuple_id``, no
    pending input."""
    return MultilangProtocolError(
        "%s a non-existent or already acked/failed id: %s" % (verb, tuple_id))


def needs_task_ids_reply(emit):
    """Storm writes the target task ids back for a normal emit unless the child said
    ``need_task_ids: false``; a direct emit gets nothing."""
    return emit.direct_task is None and emit.need_task_ids


def shell_log_level_name(level):
    """``DefaultShellLogHandler``'s level for a log command's number."""
    return LOG_LEVEL_NAMES.get(level, LOG_LEVEL_NAMES[INFO_LOG_LEVEL])


def shell_error_message(msg):
    """The text ``ShellBolt.handleError``/``ShellSpout`` report under ``/errors``."""
    return "Shell Process Exception: %s" % msg


def setup_msg(pid_dir, storm_conf, context):
    """``JsonSerializer.connect``'s first message: pid dir, the topology conf, the context."""
    return {"pidDir": pid_dir, "conf": storm_conf, "context": context}


def handshake_pid(message):
    """The pid in the child's answer to the setup message (Storm reads only ``pid``).

    :raises MultilangProtocolError: the answer has no integer ``pid``.
    """
    pid = message.get("pid") if isinstance(message, dict) else None
    if not _is_int(pid) or pid <= 0:
        raise MultilangProtocolError(
            "the subprocess answered the handshake without a pid: %s" % _shown(message)
        )
    return pid


def bolt_msg(tuple_id, source_component, source_stream, source_task, values):
    """``BoltMsg`` as ``writeBoltMsg`` writes it; ``tuple_id`` is a string."""
    return {
        "id": tuple_id,
        "comp": source_component,
        "stream": source_stream,
        "task": source_task,
        "tuple": values,
    }


def heartbeat_bolt_msg(tuple_id):
    """The heartbeat tuple ``ShellBolt`` writes every second; the child answers ``sync``."""
    return bolt_msg(tuple_id, None, HEARTBEAT_STREAM_ID, -1, [])


def spout_msg(command, message_id=""):
    """``SpoutMsg``: ``next``/``activate``/``deactivate`` with id ``""``, ``ack``/``fail``
    with the message id the child gave in its emit."""
    if command not in SPOUT_COMMANDS:
        raise ValueError("not a spout command: %r" % (command,))
    return {"command": command, "id": message_id}


_COMMON_COMMANDS = ("sync", "error", "log", "metrics")


def _common_action(msg):
    command = msg.command
    if command == "sync":
        return Sync()
    if command == "error":
        return ReportError(shell_error_message(msg.msg))
    if command == "log":
        return ShellLog(msg.log_level, msg.msg)
    if command == "metrics":
        if msg.metric_name is None:
            raise MultilangProtocolError("metrics command without a metric name")
        if not msg.metric_name:
            raise MultilangProtocolError("Receive Metrics name is empty")
        return UpdateMetric(msg.metric_name, msg.metric_params)
    raise MultilangProtocolError("Unknown command received: %s" % command)


def _emit(msg, anchors, message_id):
    if msg.tuple is None:
        raise MultilangProtocolError("emit without a tuple (a list of values)")
    return Emit(
        stream=msg.stream,
        values=msg.tuple,
        anchors=anchors,
        direct_task=msg.task if msg.task != 0 else None,
        need_task_ids=msg.need_task_ids,
        message_id=message_id,
    )


def _anchors(message):
    anchors = message.get("anchors")
    if anchors is None:
        return ()
    if isinstance(anchors, str):
        return (anchors,)
    all_ids = isinstance(anchors, list) and all(isinstance(a, str) for a in anchors)
    _check(all_ids, "anchors", message)
    return tuple(anchors)


def _is_int(value):
    return isinstance(value, int) and not isinstance(value, bool)


def _check(ok, field, message):
    if not ok:
        raise MultilangProtocolError(
            "field %r has the wrong type in message from the subprocess: %s"
            % (field, _shown(message))
        )


def _shown(message, limit=200):
    text = repr(message)
    return text if len(text) <= limit else text[:limit] + "..."


TOPOLOGY_SUBPROCESS_TIMEOUT_SECS = "topology.subprocess.timeout.secs"
SUPERVISOR_WORKER_TIMEOUT_SECS = "supervisor.worker.timeout.secs"


def subprocess_timeout_secs(storm_conf):
    """``ShellBolt.prepare``/``ShellSpout.open``: how long a child may stay silent,
    ``topology.subprocess.timeout.secs`` if set, else ``supervisor.worker.timeout.secs``."""
    timeout = storm_conf.get(TOPOLOGY_SUBPROCESS_TIMEOUT_SECS)
    if timeout is None:
        timeout = storm_conf.get(SUPERVISOR_WORKER_TIMEOUT_SECS, 30)
    return timeout
