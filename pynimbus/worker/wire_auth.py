"""The handshake that opens a tuple connection between two workers of one topology (pure).

Plays the part of Storm's SASL DIGEST-MD5 exchange on its netty connections
(``SaslStormServerHandler`` / ``SaslStormClientHandler``), as a challenge and an HMAC:

1. the receiving worker writes a **hello**: the 4 bytes ``PNA1`` and a 32-byte random nonce;
2. the sending worker answers with its **response**: the 32 bytes of HMAC-SHA256, keyed by the
   topology's transport secret (:mod:`pynimbus.common.transport_secret`), of a fixed label, the
   topology id and the nonce;
3. the receiver compares it in constant time; only then are frames (:mod:`.wire`) read.

A fresh nonce per connection means a recorded response opens nothing, and the topology id in
the message means a worker of another topology, which has another secret anyway, cannot pass
either.  The receiver does not prove itself to the sender: a peer able to take over a worker's
port on its host is outside what this guards.  Nothing here does I/O.
"""

import hashlib
import hmac

HELLO_MAGIC = b"PNA1"
NONCE_BYTES = 32
HELLO_BYTES = len(HELLO_MAGIC) + NONCE_BYTES
RESPONSE_BYTES = hashlib.sha256().digest_size
_LABEL = b"pynimbus worker transport\x00"


class HandshakeError(ValueError):
    """A hello that is not one (the port does not belong to a worker that authenticates)."""


def hello(nonce):
    """The bytes a receiving worker opens a connection with."""
    if len(nonce) != NONCE_BYTES:
        raise ValueError("a nonce is %d bytes" % NONCE_BYTES)
    return HELLO_MAGIC + nonce


def nonce_of(hello_bytes):
    """The nonce of a received hello of ``HELLO_BYTES`` bytes."""
    if len(hello_bytes) != HELLO_BYTES or not hello_bytes.startswith(HELLO_MAGIC):
        raise HandshakeError("the peer's first bytes %r are not a worker's hello"
                             % bytes(hello_bytes[:8]))
    return bytes(hello_bytes[len(HELLO_MAGIC):])


def response(key, storm_id, nonce):
    """What a sending worker that knows ``key`` answers to a hello with ``nonce``."""
    return hmac.new(key, _LABEL + storm_id.encode("utf-8") + b"\x00" + nonce,
                    hashlib.sha256).digest()


def response_is_valid(key, storm_id, nonce, answer):
    """Whether ``answer`` proves knowledge of ``key`` for this topology and nonce."""
    return hmac.compare_digest(response(key, storm_id, nonce), bytes(answer))
