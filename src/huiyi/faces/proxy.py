"""The memory proxy: an OpenAI-compatible ``/v1/chat/completions`` that remembers.

A bot that talks to its LLM through the OpenAI chat API gains memory by pointing its ``base_url`` at
huiyi. For each request the proxy names the conversation (agent, person, space), stores the newest
user message(s), renders ``context()`` for that turn into the system prompt, forwards the request to
the upstream model, stores the reply (streamed or not) and returns the upstream's answer unchanged.

Memory never blocks the chat: if storing or recalling fails, the turn is answered without memory,
the failure is logged and the write retried in the background. Upstream errors pass through with
their status and body. Optionally (``proxy.tools``) the model gets huiyi's search tools and ``rate_memory``
and the proxy runs them itself, between upstream calls, before the answer goes back.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import logging
import math
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass, replace
from datetime import datetime, timedelta
from typing import Any
from urllib.parse import unquote
from zoneinfo import ZoneInfo

import httpx
from fastapi import APIRouter, Request, Response
from fastapi.responses import JSONResponse, StreamingResponse

from huiyi.checks import check_id, check_name, utc_of
from huiyi.config import ProxyConfig
from huiyi.errors import InvalidInput, UnnamedConversation
from huiyi.faces.proxy_stream import final_as_sse, sse_event, sse_reply
from huiyi.faces.proxy_tools import MEMORY_TOOLS, first_message, for_client, offered, run_rounds
from huiyi.faces.tools import ToolExecutor
from huiyi.memory import AsyncMemory

log = logging.getLogger(__name__)

_WRITE_RETRIES = 3
_EPOCH = datetime(2000, 1, 1)  # where the retry windows are counted from on the store's clock (UTC)


@dataclass(frozen=True)
class Turn:
    """Who is talking in one request, and what is new in it."""

    agent: str
    person: str | None
    space: str | None
    speaker: str | None
    new_user_lines: list[tuple[str, str]]  # (message id, text), oldest first
    last_reply: str
    upstream_model: str
    line_speakers: tuple[str | None, ...] = ()  # each new line's own speaker in a group, beside new_user_lines
    keyed: bool = False  # the line ids come from the request's Idempotency-Key, so no retry window applies

    def reply_id(self, completion_id: str, reply: str) -> str:
        """The reply's id: of this conversation and these user lines, as servers with no or fixed ids repeat them."""
        where = f"space:{self.space}" if self.space else f"person:{self.person}"
        return _stable_id(self.agent, where, *(mid for mid, _ in self.new_user_lines), completion_id, reply)


def _text(content: Any) -> str:
    """A message's text: a plain string, or the text parts of a multi-part content list."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        # a part whose text is null or no string says nothing (str() made "None" of it)
        parts = (p.get("text") for p in content if isinstance(p, dict) and p.get("type") == "text")
        return "\n".join(text for text in parts if isinstance(text, str))
    return ""


def _stable_id(*parts: str) -> str:
    """Ids from content, so a client that retries a request stores nothing twice."""
    digest = hashlib.blake2b(json.dumps(parts, ensure_ascii=False).encode(), digest_size=12).hexdigest()
    return f"px_{digest}"


def _header(headers: Any, name: str) -> str:
    """A naming header's value: percent-encoded UTF-8 (HTTP clients send ASCII), or raw UTF-8 bytes. Only the
    header's own padding is stripped: a space sent encoded (``bob%20``) is the id's, refused as every face
    refuses it, never made ``bob``'s."""
    value = str(headers.get(name) or "").strip()
    if not value.isascii():  # raw UTF-8 arrives decoded as Latin-1
        try:
            value = value.encode("latin-1").decode("utf-8")
        except UnicodeError:
            raise InvalidInput(f"the header {name} is not UTF-8; percent-encode it") from None
    try:  # strictly: two GBK names decoded with replacement characters became one person (小明 = 小红)
        return unquote(value, errors="strict")
    except UnicodeDecodeError:
        raise InvalidInput(f"the header {name} is percent-encoded bytes that are not UTF-8; encode its UTF-8") from None


def read_turn(body: dict[str, Any], headers: httpx.Headers | Any, config: ProxyConfig) -> Turn:
    """Name the conversation from headers, the OpenAI ``user`` field or a model alias; 400 if it cannot."""
    messages = body.get("messages")
    if not isinstance(messages, list) or not all(isinstance(m, dict) for m in messages):
        raise UnnamedConversation("'messages' must be a list of chat messages")
    if not isinstance(body.get("stream"), bool | None):  # "false", a string, was read as true: a stream came back
        raise InvalidInput(f"'stream' is true or false, not {type(body['stream']).__name__}")
    model = str(body.get("model") or "")
    alias = config.models.get(model)
    agent = _header(headers, "x-huiyi-agent") or (alias.agent if alias else "") or config.agent
    if not agent:
        raise UnnamedConversation(
            "name the agent: send the header X-Huiyi-Agent, use a model alias from proxy.models, or set proxy.agent"
        )
    user_field = body.get("user") if isinstance(body.get("user"), str) else None
    space = _header(headers, "x-huiyi-space") or None
    person = _header(headers, "x-huiyi-person") or user_field or None
    last_assistant = max((i for i, m in enumerate(messages) if m.get("role") == "assistant"), default=-1)
    trailing = [
        (i, m)
        for i, m in enumerate(messages)
        if i > last_assistant and m.get("role") == "user" and _text(m.get("content"))
    ]
    named = [
        _checked(m["name"], "a user message's 'name' as a speaker", check_id) if m.get("name") else None
        for _, m in trailing
    ]
    header = _header(headers, "x-huiyi-speaker")  # who says every line of this request, when the bot knows
    speaker = header or next((n for n in reversed(named) if n), None)
    if space:
        speaker = speaker or person
        if not speaker:
            raise UnnamedConversation(
                "a group turn needs its speaker: the user message's 'name', X-Huiyi-Speaker or X-Huiyi-Person"
            )
        # the speaker is no person to recall for: their private chat would reach the whole group's reply
    elif not person:
        raise UnnamedConversation(
            "name the person: send X-Huiyi-Person (or the OpenAI 'user' field); for a group add X-Huiyi-Space"
        )
    # refused here, before the model is called: a name no store can keep would silently drop the memory
    for value, what in ((agent, "agent"), (person, "person"), (space, "space"), (speaker, "speaker")):
        if value is not None:
            _checked(value, what, check_id)
    last_reply = _text(messages[last_assistant].get("content")) if last_assistant >= 0 else ""
    where = f"space:{space}" if space else f"person:{person}"
    # a group bot batches several members' lines in one request: each is its own sender's, never the first's
    line_speakers = tuple(header or name or speaker for name in named) if space else ()
    # a line's id hashes who says it and the request's Idempotency-Key, else the dialogue before it (system
    # prompts left out: bots put the clock there); MemoryProxy._dated then tells a stateless bot's repeat
    # from a retry by the store's clock
    key = _header(headers, "idempotency-key")
    new_lines = [
        (
            _stable_id(
                agent,
                where,
                (line_speakers[n] or "") if space else "",
                f"key:{key}:{n}" if key else _dialogue_digest(messages[:i]),
                _text(m.get("content")),
            ),
            _text(m.get("content")),
        )
        for n, (i, m) in enumerate(trailing)
    ]
    upstream_model = alias.model if alias and alias.model else model
    return Turn(agent, person, space, speaker, new_lines, last_reply, upstream_model, line_speakers, bool(key))


def _checked(value: Any, what: str, check: Callable[[str, str], str] = check_name) -> str:
    try:
        return check(value, what)
    except ValueError as exc:
        raise InvalidInput(str(exc)) from None


def _dialogue_digest(messages: list[dict[str, Any]]) -> str:
    said = [(m.get("role"), _text(m.get("content"))) for m in messages if m.get("role") in ("user", "assistant")]
    return hashlib.blake2b(json.dumps(said, ensure_ascii=False).encode(), digest_size=12).hexdigest()


class MemoryProxy:
    """Forwards chat completions to the upstream model, with memory in and out."""

    def __init__(self, memory: AsyncMemory, config: ProxyConfig, upstream: str, api_key: str) -> None:
        base = upstream.strip().rstrip("/")
        if not base.startswith(("http://", "https://")):
            raise InvalidInput("proxy.upstream (or llm.base_url) must be an http(s) URL of an OpenAI-compatible API")
        self.memory = memory
        self.config = config
        self.base = base.removesuffix("/chat/completions")
        self.api_key = api_key
        self.client = httpx.AsyncClient(timeout=httpx.Timeout(config.timeout_s))
        self._pending: set[asyncio.Task[None]] = set()

    async def aclose(self) -> None:
        if self._pending:
            await asyncio.gather(*self._pending, return_exceptions=True)
        await self.client.aclose()

    # memory, never in the way --------------------------------------------------------------------
    async def _dated(self, turn: Turn) -> Turn:
        """The turn with each line's id of its retry window: the same line stored within
        ``proxy.retry_window_s`` is this request retried and keeps that id; older, it was said again.

        Windows are fixed slices of the store's clock in UTC (a wall clock falls back an hour at the end
        of summer time), and a line checks the slice before its own, so a retry across a slice's edge is
        still found."""
        if turn.keyed or not turn.new_user_lines:
            return turn
        window = self.config.retry_window_s
        now = self.memory.written_now()
        slice_ = math.floor((now - _EPOCH).total_seconds() / window)
        earlier = [_stable_id(mid, str(slice_ - 1)) for mid, _ in turn.new_user_lines]
        try:
            stored = await self.memory.messages(earlier, agent=turn.agent)
        except Exception:  # the store is down: the write is retried later, under this slice's ids
            log.warning("proxy: could not look for a retried line; taking the new window's ids")
            stored = []
        recent = {m.id for m in stored if m.time is not None and self._written_within(m.time, now, window)}
        lines = [
            (before if before in recent else _stable_id(mid, str(slice_)), text)
            for (mid, text), before in zip(turn.new_user_lines, earlier, strict=True)
        ]
        return replace(turn, new_user_lines=lines)

    def _written_within(self, said: datetime, now: datetime, window: float) -> bool:
        """Whether a line stored at ``said`` (the zone's wall clock) is within ``window`` seconds of ``now``
        (UTC); in an hour the wall clock repeats, either reading of it will do: the line was found under
        the previous slice's id, so the other reading is an hour off."""
        zone = ZoneInfo(self.memory.config.timezone)
        gaps = (abs(now - utc_of(said.replace(fold=fold), zone)) for fold in (0, 1))
        return min(gaps) <= timedelta(seconds=window)

    async def _store_user_lines(self, turn: Turn) -> None:
        speakers = turn.line_speakers or (turn.speaker,) * len(turn.new_user_lines)
        rows = [
            {"id": mid, "text": text, "role": "user", **({"speaker": speaker} if turn.space else {})}
            for (mid, text), speaker in zip(turn.new_user_lines, speakers, strict=True)
        ]
        if not rows:
            return
        person = None if turn.space else turn.person
        try:
            await self.memory.add(rows, agent=turn.agent, person=person, space=turn.space)
        except InvalidInput:  # one line no store can keep (a NUL, a pasted book) must not take the others down
            for row in rows:
                try:
                    await self.memory.add([row], agent=turn.agent, person=person, space=turn.space)
                except InvalidInput as exc:
                    log.warning("proxy: a user line was not stored: %s", exc)

    async def _store_reply(self, turn: Turn, reply: str, reply_id: str) -> None:
        if reply.strip():
            row = {"id": reply_id, "text": reply, "role": "assistant", "speaker": turn.agent}
            await self.memory.add([row], agent=turn.agent, person=None if turn.space else turn.person, space=turn.space)

    def _later(self, what: str, write: Callable[[], Awaitable[None]]) -> None:
        """Retry a failed write in the background: the chat already has its answer."""

        async def retry() -> None:
            for attempt in range(1, _WRITE_RETRIES + 1):
                await asyncio.sleep(0.5 * 2**attempt)
                try:
                    await write()
                    return
                except Exception:
                    log.warning("proxy: %s failed again (attempt %d/%d)", what, attempt, _WRITE_RETRIES)
            log.error("proxy: gave up on %s", what)

        task = asyncio.create_task(retry())
        self._pending.add(task)
        task.add_done_callback(self._pending.discard)

    async def _guarded(self, what: str, write: Callable[[], Awaitable[None]]) -> None:
        try:
            await write()
        except InvalidInput as exc:  # refused for what it is: no retry would ever store it
            log.warning("proxy: %s refused: %s", what, exc)
        except Exception:
            log.exception("proxy: %s failed; the chat goes on and the write is retried", what)
            self._later(what, write)

    async def _memory_text(self, turn: Turn, in_prompt: list[str]) -> str:
        message = "\n".join(text for _, text in turn.new_user_lines)
        try:
            context = await self.memory.context(
                agent=turn.agent,
                person=turn.person,
                space=turn.space,
                message=message,
                last_reply=turn.last_reply,
                shown=in_prompt,
            )
        except Exception:
            log.exception("proxy: rendering memory failed; answering without it")
            return ""
        return context.text.strip()

    def _inject(self, messages: list[dict[str, Any]], memory_text: str) -> list[dict[str, Any]]:
        if not memory_text:
            return messages
        first = messages[0] if messages else None
        if first is not None and first.get("role") in ("system", "developer") and _all_text(first.get("content")):
            # a prompt sent as text parts is merged as one sent as a string: a second system message put ahead
            # of it moved the bot's own instructions to second place
            system = self.config.template.format(system=_text(first["content"]), memory=memory_text)
            return [{**first, "content": system}, *messages[1:]]
        system = self.config.template.format(system="", memory=memory_text).strip()
        return [{"role": "system", "content": system}, *messages]

    # the exchange --------------------------------------------------------------------------------
    async def complete(self, turn: Turn, body: dict[str, Any]) -> Response:
        """Answer one chat completion request of the conversation ``turn`` names."""
        turn = await self._dated(turn)
        await self._guarded("storing the user's message", lambda: self._store_user_lines(turn))
        in_prompt = [_text(m.get("content")) for m in body["messages"]]
        memory_text = await self._memory_text(turn, in_prompt)
        outgoing = {**body, "model": turn.upstream_model, "messages": self._inject(body["messages"], memory_text)}
        stream = bool(outgoing.get("stream"))
        if self.config.tools:
            return await self._with_tools(turn, outgoing, stream)
        if stream:
            return await self._stream(turn, outgoing)
        response = await self._post(outgoing)
        if response.status_code == 200:
            self._remember_completion(turn, response.content)
        return _passthrough(response)

    def _remember_completion(self, turn: Turn, raw: bytes) -> None:
        try:
            data = json.loads(raw)
            reply = _text(data["choices"][0]["message"].get("content"))
            reply_id = turn.reply_id(str(data.get("id") or ""), reply)
        except (ValueError, KeyError, IndexError, TypeError, AttributeError):
            log.warning("proxy: the upstream answer had no readable reply; nothing stored")
            return
        self._spawn(self._guarded("storing the reply", lambda: self._store_reply(turn, reply, reply_id)))

    def _spawn(self, work: Awaitable[None]) -> None:
        async def run() -> None:
            await work

        task = asyncio.create_task(run())
        self._pending.add(task)
        task.add_done_callback(self._pending.discard)

    async def _post(self, body: dict[str, Any]) -> httpx.Response:
        headers = {"Authorization": f"Bearer {self.api_key}"} if self.api_key else {}
        try:
            return await self.client.post(f"{self.base}/chat/completions", json=body, headers=headers)
        except httpx.HTTPError as exc:
            status, answer = self._failed(exc)
            return httpx.Response(status, json=answer)

    def _failed(self, exc: httpx.HTTPError) -> tuple[int, dict[str, Any]]:
        """The status and body a bot gets for an upstream that could not be reached, or did not answer in time
        (a 502 that said "could not be reached: " and no reason, for a model that was reached and was slow)."""
        if isinstance(exc, httpx.TimeoutException):
            said = f"the upstream model did not answer within {self.config.timeout_s:g} s ({type(exc).__name__})"
            return 504, _upstream_error(said, "upstream_timeout")
        said = f"the upstream model could not be reached: {exc or type(exc).__name__}"
        return 502, _upstream_error(said)

    async def _stream(self, turn: Turn, body: dict[str, Any]) -> Response:
        headers = {"Authorization": f"Bearer {self.api_key}"} if self.api_key else {}
        request = self.client.build_request("POST", f"{self.base}/chat/completions", json=body, headers=headers)
        try:
            upstream = await self.client.send(request, stream=True)
        except httpx.HTTPError as exc:
            status, answer = self._failed(exc)
            return JSONResponse(answer, status_code=status)
        if upstream.status_code != 200 or "json" in upstream.headers.get("content-type", ""):
            raw = await upstream.aread()
            await upstream.aclose()
            completion = _json_object(raw) if upstream.status_code == 200 else None
            if completion is not None and isinstance(completion.get("choices"), list):
                # an upstream that ignores "stream" answers whole: sent on as the stream asked for, reply kept,
                # where the bot got the completion with an error event glued on and nothing stored (helper)
                self._remember_completion(turn, raw)
                return final_as_sse(completion)
            return Response(
                raw,
                status_code=upstream.status_code,
                media_type=upstream.headers.get("content-type"),
                headers=_kept_headers(upstream),
            )

        async def relay() -> AsyncIterator[bytes]:
            seen = bytearray()
            try:
                async for chunk in upstream.aiter_bytes():  # decoded: a gzipped stream reached the bot as bytes
                    seen += chunk
                    yield chunk
            except httpx.HTTPError as exc:
                # the 200 went out already: the error comes as OpenAI sends one mid-stream, and half a reply is
                # not stored (nor is one a client walked away from): the client's retry brings the whole one
                log.warning("proxy: the upstream stream broke off: %s", exc)
                yield sse_event(
                    _upstream_error(f"the upstream model's stream broke off: {exc}", "upstream_stream_broken")
                )
                return
            finally:
                await upstream.aclose()
            reply = sse_reply(bytes(seen))
            if not reply.whole:  # it ended early with an error event, or with no sign the client could see
                log.warning("proxy: the upstream stream ended before its reply did; the part is not stored")
                if not reply.errored:
                    yield sse_event(
                        _upstream_error("the upstream model's stream ended early", "upstream_stream_broken")
                    )
                return
            text, reply_id = reply.text, turn.reply_id(reply.id, reply.text)
            self._spawn(self._guarded("storing the streamed reply", lambda: self._store_reply(turn, text, reply_id)))

        return StreamingResponse(relay(), media_type=upstream.headers.get("content-type", "text/event-stream"))

    async def _with_tools(self, turn: Turn, body: dict[str, Any], stream: bool) -> Response:
        """Offer huiyi's search tools and rate_memory and run the model's calls to them (``proxy_tools``); the
        client's own tools pass through, and calls of huiyi's never reach it."""
        asked, names = offered(body)
        executor = ToolExecutor(self.memory, turn.agent, person=turn.person, space=turn.space)
        response = await run_rounds(self._post, executor, asked, names)
        if response.status_code != 200 or first_message(response) is None:
            return _passthrough(response)  # an answer we cannot read goes back as the model sent it
        completion = for_client(response.json(), names)
        raw = response.content if completion is None else json.dumps(completion, ensure_ascii=False).encode()
        self._remember_completion(turn, raw)
        if stream:
            return final_as_sse(completion or response.json())
        return _passthrough(response) if completion is None else JSONResponse(completion)


def _all_text(content: Any) -> bool:
    """Whether a message's content is a string or text parts only (what a template can hold)."""
    parts = content if isinstance(content, list) else None
    return isinstance(content, str) or (
        bool(parts) and all(isinstance(p, dict) and p.get("type") == "text" for p in parts or ())
    )


def _json_object(raw: bytes) -> dict[str, Any] | None:
    try:
        found = json.loads(raw)
    except ValueError:
        return None
    return found if isinstance(found, dict) else None


def _upstream_error(message: str, code: str = "upstream_unreachable") -> dict[str, Any]:
    return {"error": {"code": code, "message": message, "type": "upstream_error"}}


def _kept_headers(response: httpx.Response) -> dict[str, str]:
    """The upstream's headers a client acts on: when to come back after a 429 or 503."""
    return {"Retry-After": response.headers["retry-after"]} if "retry-after" in response.headers else {}


def _passthrough(response: httpx.Response) -> Response:
    media = response.headers.get("content-type", "application/json")
    return Response(
        response.content, status_code=response.status_code, media_type=media, headers=_kept_headers(response)
    )


def proxy_router(proxy: MemoryProxy, check: Callable[[Request, str], Awaitable[None]]) -> APIRouter:
    """``POST /v1/chat/completions`` and ``GET /v1/models`` over ``proxy``; ``check`` applies the API keys."""
    router = APIRouter(tags=["proxy"])

    @router.post("/v1/chat/completions", summary="OpenAI-compatible chat completions, with memory")
    async def chat_completions(request: Request) -> Response:
        try:
            body = await request.json()
        except ValueError as exc:
            raise InvalidInput("the body must be a JSON chat completion request") from exc
        if not isinstance(body, dict):
            raise InvalidInput("the body must be a JSON object")
        turn = read_turn(body, request.headers, proxy.config)
        await check(request, turn.agent)
        return await proxy.complete(turn, body)

    @router.get("/v1/models", summary="The model aliases the proxy answers to")
    async def models() -> dict[str, Any]:
        return {
            "object": "list",
            "data": [{"id": name, "object": "model", "owned_by": "huiyi"} for name in proxy.config.models],
        }

    return router


__all__ = ["MEMORY_TOOLS", "MemoryProxy", "Turn", "proxy_router", "read_turn"]
