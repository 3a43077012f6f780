"""A fake OpenAI-compatible server for tests: real HTTP on 127.0.0.1, answers scripted in advance.

Real sockets, so clients are tested with their real transport, timeouts and retries included.

    with FakeOpenAI(embed_dim=8) as server:
        server.script_status(500)
        server.script_chat(json_content={"facts": []})
        llm = OpenAIChat(LLMConfig(base_url=server.base_url, model="fake"))
        ...
        assert len(server.chat_requests) == 2

``script_stream`` sends a streamed completion, whole or broken off part-way (a stalled or dropped upstream).
``POST /v1/chat/completions`` pops one scripted answer per request (an unscripted request gets a
500 that says so, and is counted in ``unscripted``). ``POST /v1/embeddings`` answers with
deterministic unit vectors derived from a hash of each text, unless an answer was scripted for it.
"""

from __future__ import annotations

import base64
import hashlib
import json
import math
import struct
import threading
import time
from collections import deque
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from types import TracebackType
from typing import Any

__all__ = ["FakeOpenAI", "Recorded", "Scripted", "fake_vector"]


@dataclass(frozen=True)
class Scripted:
    """One answer: wait ``delay`` seconds, then send ``status`` with ``body``."""

    status: int = 200
    body: bytes = b""
    headers: dict[str, str] = field(default_factory=dict)
    delay: float = 0.0
    content_type: str = "application/json"
    cut_at: int | None = None  # send only this many bytes of the body, then (after ``stall`` s) hang up
    stall: float = 0.0


@dataclass(frozen=True)
class Recorded:
    """One request as the server saw it."""

    method: str
    path: str
    headers: dict[str, str]  # lower-cased names
    raw: bytes
    json: Any  # the parsed body, or None when it was not JSON

    @property
    def messages(self) -> list[dict[str, Any]]:
        return list((self.json or {}).get("messages", []))

    @property
    def response_format(self) -> dict[str, Any] | None:
        value = (self.json or {}).get("response_format")
        return value if isinstance(value, dict) else None


def fake_vector(text: str, dim: int) -> list[float]:
    """A deterministic unit vector for ``text``: equal texts, equal vectors; others near-orthogonal."""
    values: list[float] = []
    counter = 0
    while len(values) < dim:
        digest = hashlib.blake2b(f"{counter}:{text}".encode(), digest_size=64).digest()
        values.extend((b - 127.5) / 127.5 for b in digest)
        counter += 1
    values = values[:dim]
    norm = math.sqrt(sum(v * v for v in values)) or 1.0
    return [v / norm for v in values]


class FakeOpenAI:
    """The server, its scripts and what it received. Thread-safe; use as a context manager."""

    def __init__(self, *, embed_dim: int = 8, model: str = "fake-model", api_key: str | None = None) -> None:
        self.embed_dim = embed_dim
        self.model = model
        self.api_key = api_key  # when set, requests without "Authorization: Bearer <key>" get 401
        self.requests: list[Recorded] = []
        self.unscripted = 0
        self._chat: deque[Scripted] = deque()
        self._embed: deque[Scripted] = deque()
        self._lock = threading.Lock()
        self._stopping = threading.Event()
        self._server: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None

    # --- lifecycle -----------------------------------------------------------------------------

    def start(self) -> FakeOpenAI:
        handler = type("_Handler", (_Handler,), {"fake": self})
        server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
        server.daemon_threads = True  # a handler still sleeping out a scripted delay must not block exit
        self._server = server
        self._thread = threading.Thread(
            target=server.serve_forever, args=(0.01,), name="fake-openai", daemon=True
        )  # a short poll keeps stop() quick
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stopping.set()  # wakes handlers sleeping out a delay
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
        if self._thread is not None:
            self._thread.join(timeout=5)
        self._server = None
        self._thread = None

    def __enter__(self) -> FakeOpenAI:
        return self.start()

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.stop()

    @property
    def port(self) -> int:
        if self._server is None:
            raise RuntimeError("the fake server is not running")
        return int(self._server.server_address[1])

    @property
    def base_url(self) -> str:
        """What a client takes as ``base_url``: ``http://127.0.0.1:<port>/v1``."""
        return f"http://127.0.0.1:{self.port}/v1"

    # --- scripting chat ------------------------------------------------------------------------

    def script(self, item: Scripted) -> FakeOpenAI:
        with self._lock:
            self._chat.append(item)
        return self

    def script_chat(
        self,
        content: str | None = None,
        *,
        json_content: Any = None,
        prompt_tokens: int = 10,
        completion_tokens: int = 5,
        finish_reason: str = "stop",
        delay: float = 0.0,
        headers: dict[str, str] | None = None,
        message: dict[str, Any] | None = None,
    ) -> FakeOpenAI:
        """A 200 chat completion whose message content is ``content``, or ``json_content`` dumped;
        ``message`` gives the whole message instead (e.g. one with ``tool_calls``)."""
        if json_content is not None:
            content = json.dumps(json_content, ensure_ascii=False)
        body = {
            "id": f"chatcmpl-fake-{len(self._chat)}",
            "object": "chat.completion",
            "created": int(time.time()),
            "model": self.model,
            "choices": [
                {
                    "index": 0,
                    "message": message or {"role": "assistant", "content": content},
                    "finish_reason": finish_reason,
                }
            ],
            "usage": {
                "prompt_tokens": prompt_tokens,
                "completion_tokens": completion_tokens,
                "total_tokens": prompt_tokens + completion_tokens,
            },
        }
        return self.script(Scripted(200, _dump(body), dict(headers or {}), delay))

    def script_raw_content(self, text: str, **kwargs: Any) -> FakeOpenAI:
        """A 200 chat completion whose content is ``text`` verbatim (almost-JSON, prose, fences)."""
        return self.script_chat(text, **kwargs)

    def script_status(
        self,
        status: int,
        message: str | None = None,
        *,
        retry_after: float | str | None = None,
        headers: dict[str, str] | None = None,
        delay: float = 0.0,
    ) -> FakeOpenAI:
        """An error in OpenAI's shape: ``{"error": {"message", "type", "code"}}``."""
        all_headers = dict(headers or {})
        if retry_after is not None:
            all_headers["Retry-After"] = str(retry_after)
        return self.script(Scripted(status, _error_body(status, message), all_headers, delay))

    def script_delay(self, seconds: float, **chat: Any) -> FakeOpenAI:
        """Wait ``seconds`` (to force a client timeout), then answer as ``script_chat(**chat)``."""
        if "content" not in chat and "json_content" not in chat:
            chat["json_content"] = {"late": True}
        return self.script_chat(delay=seconds, **chat)

    def script_body(
        self, body: str | bytes, status: int = 200, *, content_type: str = "text/html", delay: float = 0.0
    ) -> FakeOpenAI:
        """A raw HTTP body, e.g. a proxy's HTML error page where JSON was expected."""
        raw = body.encode() if isinstance(body, str) else body
        return self.script(Scripted(status, raw, {}, delay, content_type))

    def script_stream(
        self, chunks: list[dict[str, Any]], *, cut_after: int | None = None, stall: float = 0.0
    ) -> FakeOpenAI:
        """A streamed completion: ``chunks`` as server-sent events, then ``[DONE]``. With ``cut_after``, only
        that many events go out, and the connection breaks (after ``stall`` seconds: a stalled upstream)."""
        events = [f"data: {json.dumps(c, ensure_ascii=False)}\n\n".encode() for c in chunks] + [b"data: [DONE]\n\n"]
        body = b"".join(events)
        cut = None if cut_after is None else len(b"".join(events[:cut_after]))
        return self.script(Scripted(200, body, {}, 0.0, "text/event-stream", cut, stall))

    # --- scripting embeddings ------------------------------------------------------------------

    def script_embeddings(self, item: Scripted) -> FakeOpenAI:
        """Override the next embeddings answer; unscripted embedding requests get hashed vectors."""
        with self._lock:
            self._embed.append(item)
        return self

    def script_embeddings_status(
        self, status: int, message: str | None = None, *, retry_after: float | str | None = None
    ) -> FakeOpenAI:
        headers = {"Retry-After": str(retry_after)} if retry_after is not None else {}
        return self.script_embeddings(Scripted(status, _error_body(status, message), headers))

    def script_embeddings_delay(self, seconds: float) -> FakeOpenAI:
        """Sleep ``seconds``, then answer the request normally with hashed vectors."""
        return self.script_embeddings(Scripted(status=0, delay=seconds))

    def vector(self, text: str, dim: int | None = None) -> list[float]:
        """The vector this server gives ``text``, for assertions."""
        return fake_vector(text, dim or self.embed_dim)

    # --- what was received ---------------------------------------------------------------------

    @property
    def chat_requests(self) -> list[Recorded]:
        with self._lock:
            return [r for r in self.requests if r.path.endswith("/chat/completions")]

    @property
    def embedding_requests(self) -> list[Recorded]:
        with self._lock:
            return [r for r in self.requests if r.path.endswith("/embeddings")]

    @property
    def pending(self) -> int:
        """Scripted chat answers not yet served."""
        with self._lock:
            return len(self._chat)

    # --- serving (called from handler threads) -------------------------------------------------

    def _record(self, request: Recorded) -> None:
        with self._lock:
            self.requests.append(request)

    def _next_chat(self) -> Scripted:
        with self._lock:
            if self._chat:
                return self._chat.popleft()
            self.unscripted += 1
        return Scripted(500, _error_body(500, "fake server: no scripted chat answer left"))

    def _next_embed(self) -> Scripted | None:
        with self._lock:
            return self._embed.popleft() if self._embed else None

    def _embeddings(self, request: Any) -> Scripted:
        if not isinstance(request, dict) or "input" not in request:
            return Scripted(400, _error_body(400, "'input' is required"))
        texts = request["input"]
        if isinstance(texts, str):
            texts = [texts]
        if not isinstance(texts, list) or not all(isinstance(t, str) for t in texts):
            return Scripted(400, _error_body(400, "'input' must be a string or a list of strings"))
        dim = request.get("dimensions") or self.embed_dim
        base64_out = request.get("encoding_format") == "base64"
        data = []
        for index, text in enumerate(texts):
            vector = fake_vector(text, int(dim))
            embedding: Any = (
                base64.b64encode(struct.pack(f"<{len(vector)}f", *vector)).decode() if base64_out else vector
            )
            data.append({"object": "embedding", "index": index, "embedding": embedding})
        tokens = sum(max(1, len(t)) for t in texts)
        body = {
            "object": "list",
            "data": data,
            "model": request.get("model") or self.model,
            "usage": {"prompt_tokens": tokens, "total_tokens": tokens},
        }
        return Scripted(200, _dump(body))


class _Handler(BaseHTTPRequestHandler):
    fake: FakeOpenAI
    protocol_version = "HTTP/1.1"
    disable_nagle_algorithm = True  # headers and body go out in two writes; Nagle would add ~40 ms

    def log_message(self, format: str, *args: Any) -> None:
        pass  # keep test output clean

    def do_GET(self) -> None:
        path = self.path.split("?", 1)[0].rstrip("/")
        self.fake._record(Recorded("GET", path, _headers(self), b"", None))
        if path in ("/v1/models", "/models"):
            body = {
                "object": "list",
                "data": [{"id": self.fake.model, "object": "model", "owned_by": "fake"}],
            }
            self._send(Scripted(200, _dump(body)))
        else:
            self._send(Scripted(404, _error_body(404, f"no route {path}")))

    def do_POST(self) -> None:
        path = self.path.split("?", 1)[0].rstrip("/")
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length) if length else b""
        try:
            parsed: Any = json.loads(raw) if raw else None
        except ValueError:
            parsed = None
        self.fake._record(Recorded("POST", path, _headers(self), raw, parsed))
        key = self.fake.api_key
        if key is not None and self.headers.get("Authorization") != f"Bearer {key}":
            self._send(Scripted(401, _error_body(401, "Incorrect API key provided.")))
        elif path in ("/v1/chat/completions", "/chat/completions"):
            self._send(self.fake._next_chat())
        elif path in ("/v1/embeddings", "/embeddings"):
            scripted = self.fake._next_embed()
            if scripted is not None and scripted.status == 0:  # a delay, then the normal answer
                if self.fake._stopping.wait(scripted.delay):
                    return
                scripted = None
            self._send(scripted or self.fake._embeddings(parsed))
        else:
            self._send(Scripted(404, _error_body(404, f"no route {path}")))

    def _send(self, item: Scripted) -> None:
        if item.delay > 0 and self.fake._stopping.wait(item.delay):
            return  # the server is stopping; nobody waits for this answer any more
        try:
            self.send_response(item.status)
            self.send_header("Content-Type", item.content_type)
            self.send_header("Content-Length", str(len(item.body)))
            for name, value in item.headers.items():
                self.send_header(name, value)
            self.end_headers()
            self.wfile.write(item.body if item.cut_at is None else item.body[: item.cut_at])
            self.wfile.flush()
            if item.cut_at is not None:  # a broken stream: the rest never comes
                self.fake._stopping.wait(item.stall)
                self.close_connection = True
        except (BrokenPipeError, ConnectionResetError):
            pass  # the client gave up (a timeout test); that is the point


def _headers(handler: BaseHTTPRequestHandler) -> dict[str, str]:
    return {name.lower(): value for name, value in handler.headers.items()}


def _dump(body: Any) -> bytes:
    return json.dumps(body, ensure_ascii=False).encode()


_ERROR_TYPES = {
    400: "invalid_request_error",
    401: "authentication_error",
    403: "permission_error",
    404: "not_found_error",
    422: "invalid_request_error",
    429: "rate_limit_error",
}


def _error_body(status: int, message: str | None) -> bytes:
    kind = _ERROR_TYPES.get(status, "server_error")
    return _dump({"error": {"message": message or f"fake {kind} ({status})", "type": kind, "code": status}})
