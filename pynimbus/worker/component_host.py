"""What runs a spout's or a bolt's component for one task: the interface every host keeps, so
that :mod:`pynimbus.worker.executor` drives a component the same way whichever hosts it.

Two hosts keep it: a multilang child process
(:class:`pynimbus.worker.multilang.shell_host.ShellHost`, Storm's ``ShellProcess``) and the
component's own pystorm class in the worker's process
(:mod:`pynimbus.worker.inprocess`).  A host is made by ``host_factory(executor, task_id)`` and
answers its executor through the executor's methods: a bolt's ``bolt_emit``, ``ack_input`` and
``fail_input``, a spout's ``spout_emit`` and ``sync``, and ``report_error`` and
``child_died`` (once, when the component dies; the worker then reports it and exits).
"""


class ComponentHost(object):
    """The interface; the attributes are each host's facts.

    ``pid``: the process the component runs in (for its errors).
    ``can_pause``: whether a bolt's host may refuse input for a while; then ``paused`` is
    true while it does (a child that does not read its stdin: the pipe and the buffer before
    it are full, where ShellBolt's writer thread and then its executor block), and the host
    calls its executor's ``host_resumed()`` when it takes input again.
    ``pipelined_exchanges``: a spout's exchanges that may be under way at once (1 when the
    host answers each within the call).
    """

    def __init__(self):
        self.pid = None
        self.can_pause = False
        self.paused = False
        self.pipelined_exchanges = 1

    def launch(self):
        """Start the component with the conf and context of the multilang handshake; a
        Deferred that fires once it is ready (fails if it could not start)."""
        raise NotImplementedError

    def execute(self, tuple_id, tuple_):
        """A bolt's input ``tuple_`` (a ``TupleImpl``) under ``tuple_id``, the id its acks,
        fails and anchors name."""
        raise NotImplementedError

    def command(self, command, message_id=""):
        """A spout's exchange: ``next``, ``ack`` or ``fail`` (of ``message_id``),
        ``activate`` or ``deactivate``; it ends when the host calls the executor's ``sync``."""
        raise NotImplementedError

    def kill(self):
        """Stop the component; a Deferred that fires once it is gone."""
        raise NotImplementedError
