"""The client's wire: one HTTP call to a ``huiyi serve``, its answer checked against the model it should be.

A failed answer raises the error an embedded ``Memory`` would (:func:`~huiyi.client.models.error_of`), a
wrong one :func:`~huiyi.client.models.bad_answer`, no answer :class:`~huiyi.client.models.Unreachable`.
"""

from __future__ import annotations

import asyncio
import json as jsonlib
import math
import weakref
from collections.abc import Mapping
from datetime import date
from functools import lru_cache
from typing import Any, TypeVar
from urllib.parse import quote

import anyio
import httpx
from pydantic import BaseModel, TypeAdapter, ValidationError

from huiyi.checks import check_json, check_storable
from huiyi.client.models import RemoteError, Unreachable, bad_answer, error_of
from huiyi.errors import InvalidInput

__all__ = ["DEFAULT_URL", "NEXT_CURSOR", "Wire", "drop_none", "iso", "segment"]

DEFAULT_URL = "http://127.0.0.1:8765"
NEXT_CURSOR = "Huiyi-Next-Cursor"  # where a listing answered as a bare list names its next page

M = TypeVar("M", bound=BaseModel)
T = TypeVar("T")


def drop_none(values: Mapping[str, Any]) -> dict[str, Any]:
    return {key: value for key, value in values.items() if value is not None}


def _encoded(body: Any) -> bytes:
    """A request's JSON body, checked as Memory checks a memory's data: a NaN, a datetime in ``data`` or a
    lone surrogate reached the caller as httpx's bare ValueError, TypeError or UnicodeEncodeError."""
    try:
        for key, value in body.items() if isinstance(body, dict) else [("body", body)]:
            check_json(value, str(key))
    except ValueError as exc:
        raise InvalidInput(str(exc)) from exc
    return jsonlib.dumps(body, ensure_ascii=False, separators=(",", ":"), allow_nan=False).encode()


def _checked_params(params: Mapping[str, Any]) -> dict[str, Any]:
    """Query parameters without None, refused as Memory refuses them when no URL can carry them."""
    kept = drop_none(params)
    try:
        for key, value in kept.items():
            for item in value if isinstance(value, list) else [value]:
                if isinstance(item, str):
                    check_storable(item, key)
    except ValueError as exc:
        raise InvalidInput(str(exc)) from exc
    return kept


def segment(value: str, what: str) -> str:
    """An id as one segment of a path: ``/`` and ``?`` quoted, what no URL carries refused in words."""
    if not isinstance(value, str):
        raise InvalidInput(f"{what} is a text, not {type(value).__name__}")
    try:
        return quote(check_storable(value, what), safe="")
    except ValueError as exc:
        raise InvalidInput(str(exc)) from exc


def iso(value: Any) -> Any:
    """A time as JSON: a date or datetime in ISO form, anything else as given, for the server to judge."""
    return value.isoformat() if isinstance(value, date) else value


@lru_cache(maxsize=64)
def adapter(shape: Any) -> TypeAdapter[Any]:
    """One validator per answer shape: building a TypeAdapter builds its validator, which no call should repeat."""
    return TypeAdapter(shape)


class Wire:
    """The connection to one server and the checked call over it."""

    def __init__(
        self,
        base_url: str = DEFAULT_URL,
        *,
        api_key: str | None = None,
        timeout: float = 60.0,
        transport: httpx.AsyncBaseTransport | None = None,
    ) -> None:
        if (
            isinstance(timeout, bool)
            or not isinstance(timeout, int | float)
            or not math.isfinite(timeout)
            or timeout <= 0
        ):
            raise InvalidInput(f"timeout is a number of seconds above 0, not {timeout!r}")
        try:
            url = httpx.URL(base_url)
        except (httpx.InvalidURL, TypeError) as exc:
            raise InvalidInput(f"base_url {base_url!r} is not a URL: {exc}") from exc
        if url.scheme not in ("http", "https") or not url.host:
            raise InvalidInput(f"base_url {base_url!r} is not an http(s) URL such as {DEFAULT_URL}")
        if api_key and not (api_key.isascii() and api_key.isprintable() and " " not in api_key):
            # a header carries ASCII only, and the server reads one word after "Bearer"
            raise InvalidInput("api_key is one word of printable ASCII: the key of the server's http.api_keys")
        headers = {"Authorization": f"Bearer {api_key}"} if api_key else {}
        self.base_url = base_url.rstrip("/")
        # httpx's timeout is per read, so a server that trickles bytes never trips it; this bounds the whole call
        self.timeout = float(timeout)
        self._headers = headers
        self._transport = transport
        # a client per event loop: an earlier loop's connections (asyncio.run called again) failed every call of
        # the next with "Event loop is closed"; one of a loop that has gone goes with it. A transport given is
        # the caller's, kept by one client (closing a client closes its transport)
        self._clients: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, httpx.AsyncClient] = (
            weakref.WeakKeyDictionary()
        )
        self._given = None if transport is None else self._new_client()
        self._closed = False

    def _new_client(self) -> httpx.AsyncClient:
        return httpx.AsyncClient(
            base_url=self.base_url, headers=self._headers, timeout=self.timeout, transport=self._transport
        )

    @property
    def _http(self) -> httpx.AsyncClient:
        """The HTTP client for the running event loop."""
        if self._closed:  # as the blocking Client says it, not httpx's RuntimeError
            raise RemoteError("this client is closed", status=0, code="closed")
        if self._given is not None:
            return self._given
        loop = asyncio.get_running_loop()
        if (client := self._clients.get(loop)) is None:
            client = self._clients[loop] = self._new_client()
        return client

    async def _close_http(self) -> None:
        """Close the client of the running loop (those of loops that have gone went with them)."""
        self._closed = True
        client = self._given or self._clients.pop(asyncio.get_running_loop(), None)
        if client is not None:
            await client.aclose()

    async def _call(self, method: str, path: str, *, json: Any = None, params: Mapping[str, Any] | None = None) -> Any:
        return (await self._exchange(method, path, json=json, params=params))[0]

    async def _exchange(
        self,
        method: str,
        path: str,
        *,
        json: Any = None,
        params: Mapping[str, Any] | None = None,
        lines: bool = False,
    ) -> tuple[Any, httpx.Headers]:
        """The answer's JSON (None when empty; with ``lines``, a list of its JSON lines) and its headers."""
        content, headers = (None, None) if json is None else (_encoded(json), {"Content-Type": "application/json"})
        try:
            with anyio.fail_after(self.timeout):
                response = await self._http.request(
                    method,
                    path,
                    content=content,
                    headers=headers,
                    params=_checked_params(params) if params is not None else None,
                )
        except httpx.TransportError as exc:
            raise Unreachable(f"{method} {self.base_url}{path}: {exc!r}") from exc
        except TimeoutError as exc:
            raise Unreachable(f"{method} {self.base_url}{path}: no whole answer within {self.timeout:g} s") from exc
        status = response.status_code
        if status >= 400:
            try:
                body = response.json()
            except ValueError:
                body = None
            raise error_of(status, body)
        if status >= 300:  # e.g. http -> https: nothing was done, so it must not pass as done
            where = response.headers.get("location", "")
            raise RemoteError(
                f"{method} {path}: the server redirects ({status}) to {where!r}", status=status, code=f"http_{status}"
            )
        if status == 204 or not response.content:
            return ([] if lines else None), response.headers
        try:
            if lines:
                # lines end at \n: splitlines also ends one at U+2028 or U+0085, which a JSON string holds as is
                rows = response.text.split("\n")
                return [jsonlib.loads(line) for line in rows if line.strip()], response.headers
            return response.json(), response.headers
        except ValueError as exc:
            raise bad_answer(method, path, status, f"not JSON ({exc})") from exc

    async def _model(self, model: type[M], method: str, path: str, **kwargs: Any) -> M:
        return await self._typed(adapter(model), method, path, **kwargs)

    async def _list(self, model: type[T], method: str, path: str, **kwargs: Any) -> list[T]:
        return await self._typed(adapter(list[model]), method, path, **kwargs)  # type: ignore[valid-type]

    async def _typed(self, shape: TypeAdapter[T], method: str, path: str, **kwargs: Any) -> T:
        return self._checked(shape, method, path, await self._call(method, path, **kwargs))

    async def _listing(self, model: type[T], path: str, params: Mapping[str, Any]) -> tuple[list[T], str | None]:
        """A listing answered as a bare list, and the next page's cursor its header names (None: the last
        page, or a server older than cursors)."""
        answer, headers = await self._exchange("GET", path, params=params)
        items = self._checked(adapter(list[model]), "GET", path, answer)  # type: ignore[valid-type]
        return items, headers.get(NEXT_CURSOR) or None

    @staticmethod
    def _checked(shape: TypeAdapter[T], method: str, path: str, answer: Any) -> T:
        try:
            return shape.validate_python(answer)
        except ValidationError as exc:
            raise bad_answer(method, path, 200, str(exc).splitlines()[0]) from exc
