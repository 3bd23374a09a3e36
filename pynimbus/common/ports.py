"""Ports a daemon must own: whether they are free, and what to tell the user when they are not.

A daemon that finds its port taken says which setting names the port, what probably holds it
and how to pick another, instead of Twisted's bare "Couldn't listen".
"""

import errno
import socket


class PortInUse(Exception):
    """A port a daemon needs is taken; the message says which setting and what to do."""


def port_in_use_message(setting, ports, interface, reason="Address already in use",
                        listed=False):
    """The message for ``ports`` (one or more) of ``setting`` taken on ``interface``;
    ``listed``: the setting is a list of ports (``supervisor.slots.ports``)."""
    ports = sorted(ports)
    which = ("Port %s" if len(ports) == 1 else "Ports %s") % ", ".join(str(p) for p in ports)
    if listed:
        example = "'%s=[%s]'" % (setting, ",".join(str(p + 10) for p in ports))
    else:
        example = "%s=%d" % (setting, ports[0] + 1)
    return ("%s on %s (%s) %s in use (%s): is another pynimbus dev, Nimbus or Storm daemon "
            "running? Stop it, or choose other ports with -c %s"
            % (which, interface or "0.0.0.0", setting, "is" if len(ports) == 1 else "are",
               reason, example))


def ports_in_use(ports, interface):
    """Those of ``ports`` that cannot be bound on ``interface`` now (each is bound and let go
    at once; SO_REUSEADDR as Twisted's listeners set it, so a port in TIME_WAIT is free)."""
    taken = []
    for port in ports:
        with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
            probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            try:
                probe.bind((interface or "0.0.0.0", int(port)))
            except OSError as e:
                if e.errno != errno.EADDRINUSE:
                    raise
                taken.append(int(port))
    return taken
