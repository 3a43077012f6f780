"""Server-sent events of OpenAI chat completions: reading a streamed reply, writing a finished one.

The proxy relays an upstream stream byte for byte and reads the reply out of what passed, so the
client sees exactly what the model sent; a completion the proxy finished itself (after running
memory tools) is written back as the chunks a streaming client expects.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any, NamedTuple

from fastapi.responses import StreamingResponse


def _events(raw: bytes) -> Iterator[dict[str, Any] | None]:
    """The stream's JSON events in order, then ``None`` for its ``[DONE]`` if it came."""
    for line in raw.decode("utf-8", errors="replace").splitlines():
        line = line.strip()
        if not line.startswith("data:"):
            continue
        payload = line[5:].strip()
        if payload == "[DONE]":
            yield None
            return
        try:
            event = json.loads(payload)
        except ValueError:
            continue
        if isinstance(event, dict):
            yield event


class StreamedReply(NamedTuple):
    text: str  # the first choice's
    id: str  # the completion's
    whole: bool  # a finish reason or [DONE] came, and no error event
    errored: bool  # the upstream sent an error event (the client saw it)


def sse_reply(raw: bytes) -> StreamedReply:
    r"""The reply of a streamed completion (an upstream overloaded mid-reply sends ``{"error": …}`` and stops;
    a stream may also end with neither a finish reason nor ``[DONE]``).

    >>> sse_reply(b'data: {"id": "c1", "choices": [{"index": 0, "delta": {"content": "hi"}}]}\n\ndata: [DONE]\n\n')
    StreamedReply(text='hi', id='c1', whole=True, errored=False)
    >>> sse_reply(b'data: {"id": "c1", "choices": [{"index": 0, "delta": {"content": "h"}}]}\n\n').whole
    False
    >>> sse_reply(b'data: {"error": null, "choices": [{"delta": {"content": "h"}, "finish_reason": "stop"}]}\n\n').whole
    True
    """
    parts: list[str] = []
    completion_id = ""
    finished = broken = False
    for event in _events(raw):
        if event is None:
            finished = True
            break
        if event.get("error"):  # "error": null is none
            broken = True
        completion_id = completion_id or str(event.get("id") or "")
        for choice in event.get("choices") or []:
            if isinstance(choice, dict) and choice.get("index", 0) == 0:
                delta = choice.get("delta") or {}
                if isinstance(delta, dict) and isinstance(delta.get("content"), str):
                    parts.append(delta["content"])
                finished = finished or bool(choice.get("finish_reason"))
    return StreamedReply("".join(parts), completion_id, finished and not broken, broken)


def sse_event(payload: dict[str, Any]) -> bytes:
    """One server-sent event; an ``{"error": …}`` one ends a stream as OpenAI's does (the SDKs raise it)."""
    return f"data: {json.dumps(payload, ensure_ascii=False)}\n\n".encode()


def final_as_sse(completion: dict[str, Any]) -> StreamingResponse:
    """A finished chat completion as the chunk stream a client asked for, ending with ``[DONE]``."""
    kept = ("id", "created", "model", "system_fingerprint")
    base: dict[str, Any] = {k: completion[k] for k in kept if k in completion}
    base["object"] = "chat.completion.chunk"
    chunks: list[dict[str, Any]] = []
    for choice in completion.get("choices") or []:
        if not isinstance(choice, dict):  # the upstream's garbage is left out, not a 500
            continue
        message = choice.get("message")
        message = message if isinstance(message, dict) else {}
        delta = {k: v for k, v in message.items() if k in ("role", "content", "tool_calls", "refusal")}
        if isinstance(delta.get("tool_calls"), list):
            delta["tool_calls"] = [
                {"index": i, **call} if isinstance(call, dict) else call for i, call in enumerate(delta["tool_calls"])
            ]
        index = choice.get("index", 0)
        chunks.append({**base, "choices": [{"index": index, "delta": delta, "finish_reason": None}]})
        finish = {"index": index, "delta": {}, "finish_reason": choice.get("finish_reason") or "stop"}
        chunks.append({**base, "choices": [finish]})
    if "usage" in completion:
        chunks.append({**base, "choices": [], "usage": completion["usage"]})

    def stream() -> Iterator[bytes]:
        for chunk in chunks:
            yield sse_event(chunk)
        yield b"data: [DONE]\n\n"

    return StreamingResponse(stream(), media_type="text/event-stream")
