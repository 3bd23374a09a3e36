"""Cross-site request forgery guards for the UI's actions (the POSTs that kill, rebalance,
deactivate... a topology).

Two guards, in this order:

* **Origin.** A browser names the page a POST comes from in its ``Origin`` header; a POST from
  a page of another site is refused (403).  Scripts (curl, requests, Storm's own REST clients)
  send no ``Origin`` and are not affected, nor is our web UI (same origin).  Storm's UI performs
  such a request, and even answers it with CORS headers: this guard is ours.
* **Anti-forgery token** (``pynimbus.ui.anti.forgery: true``; off by default because Storm
  1.x and 2.x removed it in STORM-749 and REST clients written for them send no token): the
  scheme of Storm 0.10's ``ring-anti-forgery``.  ``GET /api/v1/token`` (and the topology page's
  ``antiForgeryToken``) give the token of the caller's session, kept in a cookie; every POST
  must carry it in ``x-csrf-token``, else 403 "Forbidden action." / "missing CSRF token."  With
  it on, the API no longer echoes a foreign ``Origin`` in CORS headers, so another site's page
  cannot read a token.
"""

import hashlib
import hmac
import os
import urllib.parse

ANTI_FORGERY = "pynimbus.ui.anti.forgery"
SESSION_COOKIE = b"pynimbus-ui-session"
TOKEN_HEADER = b"x-csrf-token"
FORBIDDEN = "Forbidden action."


def same_origin(origin, host):
    """Whether an ``Origin`` header names the server a request reached (its ``Host``)."""
    if origin is None:
        return True
    parsed = urllib.parse.urlsplit(origin)
    return bool(parsed.netloc) and host is not None and parsed.netloc.lower() == host.lower()


class ForgeryGuard(object):
    """The guards of one UI server; ``secret`` signs the session tokens (random per process:
    a restarted UI asks for new tokens)."""

    def __init__(self, tokens_required, secret=None):
        self.tokens_required = tokens_required
        self.secret = secret if secret is not None else os.urandom(32)

    def token_for(self, session):
        return hmac.new(self.secret, session.encode("ascii"), hashlib.sha256).hexdigest()

    def session_of(self, request, create=False):
        """The caller's session id from its cookie (a new one set when ``create``)."""
        session = request.getCookie(SESSION_COOKIE)
        if session:
            try:
                return session.decode("ascii")
            except UnicodeDecodeError:
                pass
        if not create:
            return None
        session = os.urandom(16).hex()
        request.addCookie(SESSION_COOKIE, session.encode("ascii"), path=b"/", httpOnly=True,
                          sameSite="strict")
        return session

    def token(self, request):
        """The caller's token (its session started if it had none)."""
        return self.token_for(self.session_of(request, create=True))

    def refusal(self, request):
        """None for a POST allowed, else the ``errorMessage`` of its 403."""
        origin = header(request, b"origin")
        host = header(request, b"host")
        if not same_origin(origin, host):
            return ("cross-site request refused: this action comes from a page of %s, not of "
                    "this UI (%s)" % (origin, host))
        if not self.tokens_required:
            return None
        session = self.session_of(request)
        sent = header(request, TOKEN_HEADER)
        if session is None or sent is None or not hmac.compare_digest(
                sent, self.token_for(session)):
            return "missing CSRF token."
        return None

    def echoes_origin(self):
        """Whether answers may carry CORS headers for any origin (Storm's ring-cors)."""
        return not self.tokens_required


def header(request, name):
    value = request.getHeader(name)
    return value.decode("latin-1") if isinstance(value, bytes) else value
