"""In-process streamparse components: a spout or bolt whose shell command is streamparse's
runner (``streamparse_run [-s SERIALIZER] module.Class``, as streamparse's DSL writes it) runs
inside the worker process when its class imports, with no subprocess and no serialization.

What a component sees is unchanged: it is an instance of its own pystorm class, set up with
the conf and context the multilang handshake would give (the same JSON values), driven through
pystorm's public methods as its ``run`` loop would drive it: a bolt's ``process`` and
``process_tick`` with pystorm's ``Tuple`` (its values the namedtuple of the source's declared
fields), pystorm's auto-ack, auto-anchor and auto-fail; a spout's ``next_tuple``, ``ack``,
``fail``, ``activate`` and ``deactivate``.  Its ``emit`` (and a bolt's ``ack`` and ``fail``) are
captured: they go straight to the executor's bookkeeping (:mod:`pynimbus.worker.executor`: the
same routing, anchoring, acking, max spout pending and stats as a multilang child's).  Values
travel between the executors of a worker as the Python objects emitted (a copy of the list),
and through the transport's msgpack to other workers.  What pystorm sends by itself (``log``,
``raise_exception``, metrics, an emit whose arguments pystorm's own checks must see) arrives
as pystorm's message, read with the multilang checks (``shell_msg``).

The rooms: :mod:`~pynimbus.worker.inprocess.selection` (which components run in process),
:mod:`~pynimbus.worker.inprocess.component` (a component's set-up, messages, failures),
:mod:`~pynimbus.worker.inprocess.bolt_host` and :mod:`~pynimbus.worker.inprocess.spout_host`
(the hosts, :class:`pynimbus.worker.component_host.ComponentHost`), and
:mod:`~pynimbus.worker.inprocess.pystorm_host` (pystorm on an in-memory serializer, shared with
:mod:`pynimbus.testing`).

How it runs (the choice, documented): on the reactor thread, as Storm's executor thread calls
a component.  A bolt's ``process`` runs when its executor takes the tuple from its receive
queue; a spout's ``next_tuple`` runs up to ``NEXT_TUPLE_BATCH`` times per reactor turn while
the spout is active, below ``topology.max.spout.pending`` and not throttled, and after a
``next_tuple`` that emitted nothing the task waits ``SPOUT_IDLE_WAIT_SECS`` (Storm's default
spout wait strategy).  Nothing here blocks unless the component's own code does: a component
that blocks stops the worker (its heartbeats included, so its supervisor restarts it after
``supervisor.worker.timeout.secs``; ``topology.subprocess.timeout.secs`` has no subprocess to
apply to).

A component that raises is handled as pystorm's ``run`` does (logged, reported with
``raise_exception``, a bolt's tuple failed with auto-fail), then, with pystorm's
``exit_on_exception`` (the default), as a multilang child that died: the worker reports the
error and exits with code 11.
"""
