"""The memory proxy when the upstream model fails in production: a stream dropped or stalled part-way,
a 429 or a 500. The user's words are stored once, a reply whole or not at all, and the client gets the
upstream's error."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import quote

import httpx
import openai
import pytest

from huiyi.providers.embed import HashEmbedder
from test_proxy import AGENT, Live, _serve

HEADERS = {"X-Huiyi-Agent": AGENT, "X-Huiyi-Person": "木木"}
ENCODED = {name: quote(value) for name, value in HEADERS.items()}  # HTTP headers carry ASCII
ASKED = [{"role": "user", "content": "我下周三考驾照"}]


def chunk(delta: dict[str, Any], finish: str | None = None) -> dict[str, Any]:
    return {
        "id": "cmpl-1",
        "object": "chat.completion.chunk",
        "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
    }


REPLY = [
    chunk({"role": "assistant"}),
    chunk({"content": "下周三"}),
    chunk({"content": "加油！"}),
    chunk({}, "stop"),
]


@pytest.fixture
def live(tmp_path: Path) -> Iterator[Live]:
    yield from _serve(tmp_path, HashEmbedder(32), timeout_s=0.5)  # a stalled upstream is given up soon


def said(live: Live) -> list[tuple[str, str]]:
    stored = live.run(live.memory.working_memory(agent=AGENT, person="木木"))
    return [(m.role, m.text) for m in stored]


def streamed(live: Live) -> str:
    stream = live.client(**HEADERS).chat.completions.create(model="deepseek-chat", messages=ASKED, stream=True)
    return "".join(c.choices[0].delta.content or "" for c in stream if c.choices)


def until_replied(live: Live) -> list[tuple[str, str]]:
    """The conversation once the whole reply is stored (replies are stored after the answer went back)."""
    for _ in range(200):
        if ("assistant", "下周三加油！") in said(live):
            break
        time.sleep(0.02)
    return said(live)


@pytest.mark.parametrize("stall", [0.0, 30.0], ids=["dropped", "stalled"])
def test_a_stream_broken_part_way_keeps_no_half_reply_and_the_client_gets_an_error(live: Live, stall: float) -> None:
    live.upstream.script_stream(REPLY, cut_after=2, stall=stall)
    with pytest.raises(openai.APIError, match="upstream"):
        streamed(live)
    # the client retries the same request: the user's line is not stored again, the reply once and whole
    live.upstream.script_stream(REPLY)
    assert streamed(live) == "下周三加油！"
    assert until_replied(live) == [("user", "我下周三考驾照"), ("assistant", "下周三加油！")]


@pytest.mark.parametrize("stream", [False, True])
def test_a_429_and_a_500_reach_the_client_with_the_users_words_kept_once(live: Live, stream: bool) -> None:
    body = {"model": "deepseek-chat", "messages": ASKED, "stream": stream}
    live.upstream.script_status(429, "slow down", retry_after=7)
    answer = httpx.post(f"{live.url}/v1/chat/completions", json=body, headers=ENCODED, timeout=30)
    assert answer.status_code == 429 and answer.json()["error"]["message"] == "slow down"
    assert answer.headers.get("retry-after") == "7"  # the client knows when to come back
    live.upstream.script_status(500, "boom")
    answer = httpx.post(f"{live.url}/v1/chat/completions", json=body, headers=ENCODED, timeout=30)
    assert answer.status_code == 500 and answer.json()["error"]["message"] == "boom"
    assert said(live) == [("user", "我下周三考驾照")]


@pytest.mark.parametrize("ending", ["error event", "no end"])
def test_a_stream_ended_cleanly_but_early_keeps_no_half_reply(live: Live, ending: str) -> None:
    """An upstream overloaded mid-reply sends an error event and ends the stream; another just ends it with
    neither a finish reason nor [DONE]. No transport error either way, and half the reply was stored."""
    from fake_openai import Scripted

    events = [f"data: {json.dumps(c, ensure_ascii=False)}\n\n".encode() for c in REPLY[:2]]
    if ending == "error event":
        events.append(b'data: {"error": {"message": "overloaded", "type": "server_error"}}\n\n')
    live.upstream.script(Scripted(200, b"".join(events), {}, 0.0, "text/event-stream", None, 0.0))
    with pytest.raises(openai.APIError, match="overloaded" if ending == "error event" else "ended early"):
        streamed(live)
    live.upstream.script_stream(REPLY)  # the client's retry brings the whole reply, stored once
    assert streamed(live) == "下周三加油！"
    assert until_replied(live) == [("user", "我下周三考驾照"), ("assistant", "下周三加油！")]
