"""The per-topology secret that authenticates tuple connections between Python workers.

Storm authenticates its netty connections (``storm.messaging.netty.authentication``) with SASL
DIGEST-MD5 keyed by the topology's ``storm.zookeeper.topology.auth.payload``, a secret the
submitting client generates and the stored topology conf carries to every worker.  A Nimbus
without ZooKeeper authentication drops that payload (``submitter_fields``), and sparse and
``pynimbus submit`` never send one, so pynimbus keeps a secret of its own in the stored conf:
Nimbus stamps ``pynimbus.worker.transport.secret`` (32 random bytes, base64) on every topology
it accepts, replacing any submitted value, and the workers of that topology, which read the
stored conf from their supervisor, prove they know it before a tuple is taken
(:mod:`pynimbus.worker.wire_auth`).

The secret is as private as the stored conf: ``getTopologyConf`` and the topology page leave
it out, but the conf blob itself is served to whoever may download it, so a cluster whose
Nimbus port is open to untrusted peers protects the blob as Storm does (authentication and
blob ACLs).  A topology switches the check off with
``pynimbus.worker.transport.authentication: false``.  Pure: no I/O but the random bytes.
"""

import base64
import os

TRANSPORT_SECRET_KEY = "pynimbus.worker.transport.secret"
AUTHENTICATION_KEY = "pynimbus.worker.transport.authentication"
SECRET_BYTES = 32


def stamp_transport_secret(storm_conf, random_bytes=os.urandom):
    """The stored conf of a submitted topology: ``storm_conf`` (not changed) with a fresh
    transport secret."""
    secret = base64.b64encode(random_bytes(SECRET_BYTES)).decode("ascii")
    return dict(storm_conf, **{TRANSPORT_SECRET_KEY: secret})


def without_transport_secret(conf):
    """``conf`` as it may be shown to a client: without the transport secret."""
    if TRANSPORT_SECRET_KEY not in conf:
        return conf
    shown = dict(conf)
    del shown[TRANSPORT_SECRET_KEY]
    return shown


def transport_key(storm_conf):
    """The key a worker of this topology authenticates its tuple connections with (bytes),
    or None when the topology switched authentication off or has no secret (a topology
    stored by a Nimbus that stamps none: Storm's own, or pynimbus before issue 28)."""
    if storm_conf.get(AUTHENTICATION_KEY, True) is False:
        return None
    secret = storm_conf.get(TRANSPORT_SECRET_KEY)
    if not isinstance(secret, str) or not secret:
        return None
    return secret.encode("utf-8")
