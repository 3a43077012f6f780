"""With no API keys, huiyi answers only requests addressed to localhost or an IP address.

Every caller is trusted then, and a browser trusts any page of the same name: a web page the operator
opens can point its own DNS name at 127.0.0.1 (DNS rebinding) and read and change every memory through
the operator's browser. Such a request still names the page's host, which is never an IP or localhost.
"""

from __future__ import annotations

import ipaddress

from fastapi import FastAPI
from starlette.datastructures import Headers
from starlette.types import ASGIApp, Receive, Scope, Send

from huiyi.faces.http_guard import ErrorResponse, error_body

__all__ = ["KnownHosts", "guard_hosts", "host_allowed"]


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
            await ErrorResponse(error_body("forbidden", message), status_code=403)(scope, receive, send)
            return
        await self.app(scope, receive, send)


def guard_hosts(app: FastAPI, api_keys: dict[str, list[str]] | None) -> FastAPI:
    """``app`` refusing named hosts when it has no API keys (with keys, a page never holds one)."""
    if not api_keys:
        app.add_middleware(KnownHosts)
    return app
