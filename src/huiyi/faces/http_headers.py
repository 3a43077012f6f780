"""Browser-facing headers on every answer: the console shows private chats, so no other site may frame it,
run script in it, sniff its JSON as HTML, or learn its URLs from a Referer; private answers are not cached."""

from __future__ import annotations

import base64
import hashlib
import re

from starlette.datastructures import MutableHeaders
from starlette.types import ASGIApp, Message, Receive, Scope, Send

__all__ = ["CSP", "PRIVATE", "HeadAsGet", "SecurityHeaders", "csp_with_inline_scripts"]

# no inline script: text a chat member wrote can only ever become text; styles stay inline (style="…")
CSP = (
    "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; "
    "connect-src 'self'; object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'"
)
BROWSER = {
    "Content-Security-Policy": CSP,
    "X-Content-Type-Options": "nosniff",
    "X-Frame-Options": "DENY",
    "Referrer-Policy": "no-referrer",
}
# memories, messages and the key-gated page stay out of shared and disk caches; so does every answer sent
# from outside the middleware (a refused host, a crash), which carries these itself
PRIVATE = {**BROWSER, "Cache-Control": "no-store"}
_STATIC = "/console/static/"
_INLINE = re.compile(r"<script>(.*?)</script>", re.S)


def csp_with_inline_scripts(html: str) -> str:
    """``CSP`` allowing exactly the inline scripts of a page we wrote ourselves (Swagger UI's start-up)."""
    hashes = [base64.b64encode(hashlib.sha256(s.encode()).digest()).decode() for s in _INLINE.findall(html)]
    return CSP.replace("script-src 'self'", "script-src 'self'" + "".join(f" 'sha256-{h}'" for h in hashes))


class SecurityHeaders:
    """ASGI middleware: adds the headers unless the route set its own (``/docs`` sets its CSP)."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        static = str(scope.get("path", "")).startswith(_STATIC)

        async def send_with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = MutableHeaders(scope=message)
                for name, value in (BROWSER if static else PRIVATE).items():
                    headers.setdefault(name, value)
            await send(message)

        await self.app(scope, receive, send_with_headers)


class HeadAsGet:
    """ASGI middleware: a HEAD answered as the GET would be, its headers without the body (RFC 9110): the
    routes answer only the methods they name, so a load balancer's or monitor's HEAD got 405."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["method"] != "HEAD":
            await self.app(scope, receive, send)
            return

        async def headers_only(message: Message) -> None:
            if message["type"] == "http.response.body":
                message = {**message, "body": b""}
            await send(message)

        await self.app({**scope, "method": "GET"}, receive, headers_only)
