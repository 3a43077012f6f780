"""What stands between the network and the routes: the streamed body limit and strict JSON decoding.

A body that is not UTF-8 JSON of values every store can hold (no lone surrogates, no NUL, integers within
64 bits, finite numbers, nesting at most ``MAX_DEPTH`` deep) is refused before any route sees it.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Coroutine
from typing import Any
from urllib.parse import unquote_to_bytes

from fastapi import Request, Response
from fastapi.responses import JSONResponse
from fastapi.routing import APIRoute
from starlette.datastructures import Headers
from starlette.exceptions import HTTPException
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from huiyi.checks import INT64_MAX, INT64_MIN, MAX_DATA_DEPTH
from huiyi.faces.http_models import error_responses

MAX_DEPTH = MAX_DATA_DEPTH  # one bound for a body and for a memory's data given in Python
_INT64_DIGITS = 19


def error_body(code: str, message: str, details: Any = None) -> dict[str, Any]:
    body: dict[str, Any] = {"error": {"code": code, "message": message}}
    if details is not None:
        body["error"]["details"] = details
    return body


class ErrorResponse(JSONResponse):
    """The typed error body; it renders even if an echoed key or path holds a lone surrogate."""

    def render(self, content: Any) -> bytes:
        text = json.dumps(content, ensure_ascii=False, separators=(",", ":"))
        # a surrogate can only sit inside a JSON string, where "\udXXX" is its valid escape
        return text.encode("utf-8", "backslashreplace")


class Malformed(json.JSONDecodeError):
    """FastAPI turns a JSONDecodeError from ``request.json()`` into a ``json_invalid`` validation error."""

    def __init__(self, message: str, position: int = 0) -> None:
        super().__init__(message, "", position)
        self.msg = message  # JSONDecodeError would append the line and column of an empty document


def _parse_int(text: str) -> int:
    value = int(text) if len(text.lstrip("-")) <= _INT64_DIGITS else None
    if value is None or not INT64_MIN <= value <= INT64_MAX:
        raise Malformed(f"integer {text[:40]} does not fit in 64 bits")
    return value


def _parse_float(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise Malformed(f"number {text[:40]} is out of range")
    return value


def _refuse_constant(text: str) -> Any:
    raise Malformed(f"{text} is not JSON")


def _check_text(text: str) -> None:
    if not text.isascii():
        try:
            text.encode("utf-8")
        except UnicodeEncodeError:
            raise Malformed("text holds a lone surrogate, which is not Unicode") from None
    if "\x00" in text:
        raise Malformed("text holds a NUL character")


def decode_json(raw: bytes) -> Any:
    """The body as JSON, or ``Malformed``. Iterative, so depth costs no stack beyond the parser's own."""
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise Malformed("the body is not valid UTF-8", exc.start) from None
    try:
        value = json.loads(text, parse_int=_parse_int, parse_float=_parse_float, parse_constant=_refuse_constant)
    except RecursionError:
        raise Malformed(f"JSON nested deeper than {MAX_DEPTH} levels") from None
    stack: list[tuple[Any, int]] = [(value, 0)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, str):
            _check_text(item)
        elif isinstance(item, dict | list):
            if depth >= MAX_DEPTH:
                raise Malformed(f"JSON nested deeper than {MAX_DEPTH} levels")
            if isinstance(item, dict):
                for key in item:
                    _check_text(key)
            stack.extend((child, depth + 1) for child in (item.values() if isinstance(item, dict) else item))
    return value


class StrictRequest(Request):
    """A request whose ``json()`` is ``decode_json``: FastAPI reads every body through it."""

    async def json(self) -> Any:
        if not hasattr(self, "_json"):
            self._json = decode_json(await self.body())
        return self._json


class GuardedRoute(APIRoute):
    """Every route refuses NUL in its path and query (PostgreSQL cannot store it) and reads its JSON body
    through ``decode_json``."""

    def __init__(self, path: str, endpoint: Callable[..., Any], **kwargs: Any) -> None:
        # the 400 for a NUL comes from here, so every route's schema lists it, whatever the route declared
        kwargs["responses"] = {**error_responses(400), **(kwargs.get("responses") or {})}
        super().__init__(path, endpoint, **kwargs)

    def get_route_handler(self) -> Callable[[Request], Coroutine[Any, Any, Response]]:
        handler = super().get_route_handler()

        async def strict(request: Request) -> Response:
            query = request.query_params.multi_items()
            if "\x00" in request.scope["path"] or any("\x00" in key + value for key, value in query):
                raise HTTPException(400, "the path or query holds a NUL character")
            if not _utf8(request.scope):
                raise HTTPException(400, "the path or query is not UTF-8 once its %-escapes are decoded")
            return await handler(StrictRequest(request.scope, request.receive))

        return strict


def _utf8(scope: Scope) -> bool:
    """Whether the path and query as sent are UTF-8 with their %-escapes decoded: the server reads %FF (or an
    escaped lone surrogate) as U+FFFD, so /v1/persons/%FF and /v1/persons/%FE named one person, "\ufffd"."""
    raw_path = scope.get("raw_path") or scope["path"].encode("utf-8", "surrogatepass")
    try:
        for raw in (raw_path, scope.get("query_string", b"")):
            unquote_to_bytes(raw).decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True


class BodyTooLarge(HTTPException):
    """An HTTPException, so FastAPI's body reader passes it on instead of calling it a parse error."""

    def __init__(self, limit: int) -> None:
        super().__init__(413, f"request bodies are limited to {limit} bytes")


class BodyLimit:
    """ASGI middleware: refuses a body past ``limit`` bytes as it streams in, with or without a
    Content-Length, so a chunked upload is never read (or held) beyond the limit."""

    def __init__(self, app: ASGIApp, limit: int) -> None:
        self.app = app
        self.limit = limit

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        declared = Headers(scope=scope).get("content-length")
        if declared is not None and not (declared.isascii() and declared.isdigit() and len(declared) < 20):
            body = error_body("bad_request", "Content-Length is not a number")
            await ErrorResponse(body, status_code=400)(scope, receive, send)
            return
        if declared is not None and int(declared) > self.limit:
            await self._refuse(scope, receive, send)
            return
        received = 0
        started = False

        async def counted() -> Message:
            nonlocal received
            message = await receive()
            if message["type"] == "http.request":
                received += len(message.get("body", b""))
                if received > self.limit:
                    raise BodyTooLarge(self.limit)
            return message

        async def watched(message: Message) -> None:
            nonlocal started
            started = started or message["type"] == "http.response.start"
            await send(message)

        try:
            await self.app(scope, counted, watched)
        except BodyTooLarge:  # raised where no exception handler saw it
            if started:
                raise
            await self._refuse(scope, receive, send)

    async def _refuse(self, scope: Scope, receive: Receive, send: Send) -> None:
        error = BodyTooLarge(self.limit)
        await ErrorResponse(error_body("too_large", error.detail), status_code=413)(scope, receive, send)
