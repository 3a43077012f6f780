"""With no API keys, huiyi answers only requests addressed to localhost or an IP address, and takes a
change only from its own pages.

Every caller is trusted with no keys, and a browser trusts any page of the same name: a web page the
operator opens can point its own DNS name at 127.0.0.1 (DNS rebinding) and read and change every memory
through the operator's browser. Such a request still names the page's host, which is never an IP or
localhost. A page of any other origin can still send a form POST to 127.0.0.1 (no preflight asks first);
the browser names that page's origin in ``Origin``, which is not the console's own.
"""

from __future__ import annotations

import ipaddress
from urllib.parse import urlsplit

from fastapi import FastAPI
from starlette.datastructures import Headers
from starlette.types import ASGIApp, Receive, Scope, Send

from huiyi.faces.http_guard import ErrorResponse, error_body
from huiyi.faces.http_headers import PRIVATE

__all__ = ["KnownHosts", "SameOrigin", "guard_hosts", "host_allowed"]


def host_allowed(header: str) -> bool:
    """Whether a Host header names localhost or an IP literal (``[::1]:8765``, ``127.0.0.1``)."""
    name = header.strip().lower()
    if name.startswith("["):
        name = name[1 : name.find("]")] if "]" in name else ""
    elif name.count(":") == 1:
        name = name.split(":")[0]
    if name in ("localhost", "localhost."):
        return True
    try:
        ipaddress.ip_address(name)
    except ValueError:
        return False
    return True


class KnownHosts:
    """ASGI middleware: a request whose Host is a DNS name (other than localhost) gets 403."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] in ("http", "websocket") and not host_allowed(Headers(scope=scope).get("host", "")):
            message = (
                "with no http.api_keys this service answers only requests to localhost or an IP address "
                "(another name may be a DNS-rebinding page); set http.api_keys to serve it under a name"
            )
            refusal = ErrorResponse(error_body("forbidden", message), status_code=403, headers=PRIVATE)
            await refusal(scope, receive, send)  # sent outside SecurityHeaders, so with its headers
            return
        await self.app(scope, receive, send)


SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})


def same_origin(origin: str, host: str) -> bool:
    """Whether an ``Origin`` header names the host the request was sent to (scheme aside: a TLS proxy
    in front changes it, a page cannot)."""
    try:
        named = urlsplit(origin.strip()).netloc
    except ValueError:
        return False
    return bool(named) and named.lower() == host.strip().lower()


class SameOrigin:
    """ASGI middleware: a change (any method but GET, HEAD, OPTIONS) sent by a page of another origin gets
    403. Clients other than browsers send no ``Origin`` and are not asked for one. ``create_app`` adds it
    when there are no API keys (a page cannot send a key it does not hold)."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http" and scope["method"] not in SAFE_METHODS:
            headers = Headers(scope=scope)
            origin = headers.get("origin")
            if origin is not None and not same_origin(origin, headers.get("host", "")):
                message = f"a page of another origin ({origin[:100]}) may not change memory here"
                await ErrorResponse(error_body("forbidden", message), status_code=403)(scope, receive, send)
                return
        await self.app(scope, receive, send)


def guard_hosts(app: FastAPI, api_keys: dict[str, list[str]] | None) -> FastAPI:
    """``app`` refusing named hosts when it has no API keys (with keys, a page never holds one)."""
    if not api_keys:
        app.add_middleware(KnownHosts)
    return app
