"""The host name a daemon registers under (Nimbus in ``/nimbuses``, a supervisor in
``/supervisors``, a worker in its errors).

A module of its own so that supervisors and workers can name their host without importing
the Nimbus daemon.
"""

import socket


def hostname(conf):
    """Port of ``Utils.hostname`` (1.2.4): ``storm.local.hostname`` if set, else the canonical
    host name (``Utils.localHostname``)."""
    return conf.get("storm.local.hostname") or socket.getfqdn()
