"""A synchronous client of ``service Nimbus``, for scripts and the Python shell.

The code in :mod:`pynimbus.generated.storm` is generated for Twisted (its ``Nimbus.Client``
wants a Twisted protocol), so a script that only wants an answer uses this instead: one
blocking socket speaking Storm's wire (framed transport, binary protocol), and every method of
the union IDL as a method of the same name taking the IDL's arguments, positional or by name::

    from pynimbus.client import NimbusClient
    from pynimbus.generated.storm.ttypes import KillOptions

    with NimbusClient("localhost", 6627) as nimbus:
        for topology in nimbus.getClusterInfo().topologies:
            print(topology.name, topology.status)
        nimbus.killTopologyWithOpts("wordcount", KillOptions(wait_secs=0))

It talks to pynimbus and to Storm's own Nimbus alike.  :class:`SupervisorClient` is the same
for a 2.x supervisor's ``service Supervisor`` (``supervisor.thrift.port``).  A declared exception
(``NotAliveException``, ``AuthorizationException``, ...) is raised as itself, an undeclared
failure as the ``TApplicationException`` the server sent, a broken connection as
``TTransportException``.
"""

import functools

from thrift.protocol.TBinaryProtocol import TBinaryProtocolAccelerated
from thrift.Thrift import TApplicationException, TMessageType
from thrift.transport import TSocket, TTransport

from pynimbus.generated.storm import (
    DistributedRPC, DistributedRPCInvocations, Nimbus, Supervisor)

NIMBUS_METHODS = frozenset(Nimbus.Iface.names())
SUPERVISOR_METHODS = frozenset(Supervisor.Iface.names())
DRPC_METHODS = frozenset(DistributedRPC.Iface.names())
DRPC_INVOCATIONS_METHODS = frozenset(DistributedRPCInvocations.Iface.names())
# a DRPC call waits for its topology: longer than the server's drpc.request.timeout.secs (600)
DRPC_CALL_TIMEOUT_SECS = 660.0


class NimbusClient:
    """A connection to a Nimbus at ``host:port``; ``timeout`` (seconds) bounds each socket
    operation.  Connects on creation; :meth:`close` (or ``with``) disconnects."""

    service = Nimbus  # the generated module of the service: its ``<method>_args/_result``
    methods = NIMBUS_METHODS

    def __init__(self, host="localhost", port=6627, timeout=60.0):
        socket = TSocket.TSocket(host, port)
        socket.setTimeout(None if timeout is None else timeout * 1000.0)
        self._transport = TTransport.TFramedTransport(socket)
        self._protocol = TBinaryProtocolAccelerated(self._transport)
        self._seqid = 0
        self._transport.open()

    def close(self):
        self._transport.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc_info):
        self.close()

    def __getattr__(self, name):
        if name in self.methods:
            return functools.partial(self.call, name)
        raise AttributeError("%r is not a method of service %s" % (name, self._service_name()))

    def __dir__(self):
        return sorted(set(super().__dir__()) | self.methods)

    def _service_name(self):
        return self.service.__name__.rsplit(".", 1)[-1]

    def call(self, method, *args, **kwargs):
        """Call ``method`` with the IDL's arguments; return its result (None for void).

        :raises AttributeError: ``method`` is not in the service.
        :raises TypeError: an argument the method does not take.
        """
        if method not in self.methods:
            raise AttributeError("%r is not a method of service %s"
                                 % (method, self._service_name()))
        arguments = getattr(self.service, method + "_args")(*args, **kwargs)
        self._seqid += 1
        self._protocol.writeMessageBegin(method, TMessageType.CALL, self._seqid)
        arguments.write(self._protocol)
        self._protocol.writeMessageEnd()
        self._transport.flush()
        return self._read_reply(method)

    def _read_reply(self, method):
        _name, message_type, seqid = self._protocol.readMessageBegin()
        if message_type == TMessageType.EXCEPTION:
            error = TApplicationException()
            error.read(self._protocol)
            self._protocol.readMessageEnd()
            raise error
        result = getattr(self.service, method + "_result")()
        result.read(self._protocol)
        self._protocol.readMessageEnd()
        if seqid != self._seqid:
            raise TApplicationException(TApplicationException.BAD_SEQUENCE_ID,
                                        "%s: reply %d to call %d" % (method, seqid, self._seqid))
        for field in result.thrift_spec[1:]:
            if field is not None and getattr(result, field[2]) is not None:
                raise getattr(result, field[2])
        return getattr(result, "success", None)


class SupervisorClient(NimbusClient):
    """The same, for a 2.x supervisor's ``service Supervisor`` at ``host:port``
    (``supervisor.thrift.port``; Storm 2.x's ``SupervisorClient``)."""

    service = Supervisor
    methods = SUPERVISOR_METHODS


class DRPCClient(NimbusClient):
    """The same for a DRPC server's ``service DistributedRPC`` at ``host:port``
    (``drpc.port``, 3772; Storm's ``DRPCClient``): ``execute(function, args)`` returns the
    result string or raises ``DRPCExecutionException`` (failed or timed out)."""

    service = DistributedRPC
    methods = DRPC_METHODS

    def __init__(self, host="localhost", port=3772, timeout=DRPC_CALL_TIMEOUT_SECS):
        super().__init__(host, port, timeout)


class DRPCInvocationsClient(NimbusClient):
    """The same for ``service DistributedRPCInvocations`` (``drpc.invocations.port``, 3773):
    what a DRPC spout and return bolt call."""

    service = DistributedRPCInvocations
    methods = DRPC_INVOCATIONS_METHODS

    def __init__(self, host="localhost", port=3773, timeout=60.0):
        super().__init__(host, port, timeout)


class LeaderNotFound(Exception):
    """No seed of ``nimbus.seeds`` answered ``getLeader``; ``errors`` says why, per seed."""

    def __init__(self, errors):
        super().__init__("; ".join(errors))
        self.errors = errors


def find_leader_nimbus(conf, timeout=30.0):
    """``(host, port)`` of the leader Nimbus, asked of each of ``nimbus.seeds`` in turn
    (1.2.4 ``NimbusClient.getConfiguredClient``).  Blocking.

    :raises LeaderNotFound: no seed answered.
    """
    port = int(conf["nimbus.thrift.port"])
    errors = []
    for seed in conf.get("nimbus.seeds") or ():
        try:
            with NimbusClient(seed, port, timeout=timeout) as nimbus:
                leader = nimbus.getLeader()
            return leader.host, leader.port
        except Exception as e:  # a seed that is down or no leader: ask the next one
            errors.append("%s:%d: %s" % (seed, port, e))
    raise LeaderNotFound(errors)


# Seconds a 2.x supervisor's call to Nimbus (pull, heartbeat report) may take: these run
# every few seconds, so one stuck on a dead Nimbus must end before long.
NIMBUS_CALL_TIMEOUT_SECS = 10.0


def call_leader_nimbus(conf, method, *args, timeout=NIMBUS_CALL_TIMEOUT_SECS):
    """Call ``method`` on the leader Nimbus over a new connection, as 2.8.8 daemons do
    through ``NimbusClient.Builder.withConf(conf).forDaemon()``.  Blocking.

    :raises LeaderNotFound: no seed named a leader; else what the call raises.
    """
    host, port = find_leader_nimbus(conf, timeout)
    with NimbusClient(host, port, timeout=timeout) as nimbus:
        return nimbus.call(method, *args)
