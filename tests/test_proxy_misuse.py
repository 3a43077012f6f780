"""The memory proxy against a careless bot and a broken upstream: names refused up front, each group
member's words kept as theirs, no reply lost to another's id, unreadable answers passed back, not 500s."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from huiyi.config import ProxyConfig
from huiyi.errors import InvalidInput
from huiyi.faces.proxy import read_turn
from huiyi.faces.proxy_stream import final_as_sse, sse_reply
from huiyi.providers.embed import Embedder
from test_proxy import AGENT, Live, _serve, _stored

CONFIG = ProxyConfig(agent=AGENT)


def test_each_group_member_keeps_their_own_words(live: Live) -> None:
    live.upstream.script_chat("收到")
    live.client(**{"X-Huiyi-Agent": AGENT, "X-Huiyi-Space": "g1"}).chat.completions.create(
        model="m",
        messages=[
            {"role": "user", "name": "阿哲", "content": "我喜欢猫"},
            {"role": "user", "name": "木木", "content": "我住在上海"},
        ],
    )
    stored = _stored(live, 3, space="g1")
    assert [(m.speaker, m.text) for m in stored] == [("阿哲", "我喜欢猫"), ("木木", "我住在上海"), (AGENT, "收到")]


def test_a_line_no_store_can_keep_is_left_out_alone_and_never_retried(
    live: Live, monkeypatch: pytest.MonkeyPatch
) -> None:
    from huiyi.faces import proxy

    retried: list[str] = []
    monkeypatch.setattr(proxy.MemoryProxy, "_later", lambda self, what, write: retried.append(what))
    live.upstream.script_chat("收到")
    live.client(**{"X-Huiyi-Agent": AGENT, "X-Huiyi-Space": "g1"}).chat.completions.create(
        model="m",
        messages=[
            {"role": "user", "name": "阿哲", "content": "我喜欢猫"},
            {"role": "user", "name": "木木", "content": "坏\x00字"},
            {"role": "user", "name": "木木", "content": "我住在上海"},
        ],
    )
    stored = _stored(live, 3, space="g1")
    assert [(m.speaker, m.text) for m in stored] == [("阿哲", "我喜欢猫"), ("木木", "我住在上海"), (AGENT, "收到")]
    assert retried == []


@pytest.mark.parametrize(
    ("user", "headers"),
    [("\x00阿哲", {}), ("x" * 5000, {}), ("木木", {"x-huiyi-space": "%07g"}), ("木木", {"x-huiyi-agent": "%00"})],
)
def test_a_name_no_store_can_keep_is_refused_before_the_model(user: str, headers: dict[str, str]) -> None:
    body = {"model": "m", "user": user, "messages": [{"role": "user", "content": "hi"}]}
    with pytest.raises(InvalidInput):
        read_turn(body, headers, CONFIG)


@pytest.mark.parametrize("header", ["x-huiyi-person", "x-huiyi-space", "x-huiyi-speaker", "x-huiyi-agent"])
def test_percent_encoded_bytes_that_are_not_utf8_are_refused_not_merged(header: str) -> None:
    """小明 and 小红 percent-encoded from GBK both decoded, with replacement characters, to one id: 小红's turn
    was answered with 小明's memories."""
    headers = {"x-huiyi-agent": "qiyu", "x-huiyi-space": "g1", header: "%D0%A1%C3%F7"}  # 小明 in GBK
    body = {"model": "m", "user": "木木", "messages": [{"role": "user", "content": "hi"}]}
    with pytest.raises(InvalidInput, match="not UTF-8"):
        read_turn(body, headers, CONFIG)
    headers[header] = "%E5%B0%8F%E6%98%8E"  # 小明 in UTF-8
    read_turn(body, headers, CONFIG)


def test_a_speaker_name_that_is_not_a_string_is_refused() -> None:
    body = {"model": "m", "messages": [{"role": "user", "name": {"id": 1}, "content": "hi"}]}
    with pytest.raises(InvalidInput, match="name"):
        read_turn(body, {"x-huiyi-space": "g1"}, CONFIG)


def test_the_same_words_on_a_later_turn_are_a_new_message() -> None:
    earlier = [{"role": "user", "content": "嗯"}, {"role": "assistant", "content": "晚安～"}]
    first = read_turn({"user": "木木", "messages": [*earlier, {"role": "user", "content": "晚安"}]}, {}, CONFIG)
    later = [*earlier, {"role": "user", "content": "晚安"}, {"role": "assistant", "content": "晚安～"}]
    later.append({"role": "user", "content": "晚安"})  # the same words after the same reply, a day later
    again = read_turn({"user": "木木", "messages": later}, {}, CONFIG)
    retried = read_turn({"user": "木木", "messages": [{"role": "system", "content": "现在 21:02"}, *later]}, {}, CONFIG)
    assert again.new_user_lines[0][0] != first.new_user_lines[0][0]
    assert retried.new_user_lines == again.new_user_lines  # a retry, its system prompt's clock moved on


def test_two_persons_given_the_same_reply_by_an_id_less_server_both_keep_it(live: Live) -> None:
    bare = json.dumps({"choices": [{"index": 0, "message": {"role": "assistant", "content": "好的"}}]})
    for person in ("木木", "阿哲"):
        live.upstream.script_body(bare, content_type="application/json")
        live.client().chat.completions.create(model="m", user=person, messages=[{"role": "user", "content": "记一下"}])
    for person in ("木木", "阿哲"):
        assert [(m.role, m.text) for m in _stored(live, 2, person=person)] == [
            ("user", "记一下"),
            ("assistant", "好的"),
        ]


@pytest.fixture
def live(tmp_path: Path, e5: Embedder) -> Iterator[Live]:
    yield from _serve(tmp_path, e5, agent=AGENT)


@pytest.fixture
def with_tools(tmp_path: Path, e5: Embedder) -> Iterator[Live]:
    yield from _serve(tmp_path, e5, agent=AGENT, tools=True)


@pytest.mark.parametrize(
    "answer",
    [
        "<html>502 Bad Gateway</html>",
        "[1, 2]",
        '{"choices": "none"}',
        '{"choices": [{"message": "text"}]}',
        '{"choices": [{"message": {"role": "assistant", "tool_calls": "abc"}}]}',
        '{"choices": [{"message": {"role": "assistant", "tool_calls": [{"function": "conversation_search"}]}}]}',
    ],
)
def test_with_tools_an_unreadable_answer_goes_back_as_sent(with_tools: Live, answer: str) -> None:
    with_tools.upstream.script_body(answer, content_type="application/json")
    client = with_tools.client()
    raw = client.chat.completions.with_raw_response.create(
        model="m", user="木木", messages=[{"role": "user", "content": "在吗"}]
    )
    assert raw.status_code == 200 and raw.http_response.text == answer
    assert len(with_tools.upstream.chat_requests) == 1


def test_with_tools_a_streamed_request_gets_the_unreadable_answer_too(with_tools: Live) -> None:
    with_tools.upstream.script_body("<html>oops</html>", content_type="text/html")
    body = {"model": "m", "user": "木木", "stream": True, "messages": [{"role": "user", "content": "在吗"}]}
    answer = httpx.post(f"{with_tools.url}/v1/chat/completions", json=body, timeout=30)
    assert (answer.status_code, answer.text) == (200, "<html>oops</html>")  # not a 500: what the upstream sent


@pytest.mark.parametrize(
    "choices",
    [
        [{"index": 0, "message": {"role": "assistant", "content": "好", "tool_calls": "abc"}}],
        [{"index": 0, "message": {"role": "assistant", "content": "好"}}, "junk"],
        [{"index": 0, "message": {"role": "assistant", "content": "好", "tool_calls": [{"id": "1"}, 5]}}],
    ],
)
def test_a_finished_answer_of_odd_shape_still_streams(choices: list[Any]) -> None:
    streamed = final_as_sse({"id": "c1", "choices": choices})
    body = b"".join(asyncio.run(_collect(streamed.body_iterator)))
    assert sse_reply(body)[:3] == ("好", "c1", True) and body.endswith(b"data: [DONE]\n\n")


async def _collect(chunks: Any) -> list[bytes]:
    return [chunk if isinstance(chunk, bytes) else chunk.encode() async for chunk in chunks]


def test_a_model_that_keeps_calling_memory_tools_is_made_to_answer(with_tools: Live) -> None:
    call = {"id": "c", "type": "function", "function": {"name": "conversation_search", "arguments": '{"query": "猫"}'}}
    for _ in range(4):
        with_tools.upstream.script_chat(message={"role": "assistant", "content": None, "tool_calls": [call]})
    with_tools.upstream.script_chat("你说过你喜欢猫。")
    answer = with_tools.client().chat.completions.create(
        model="m", user="木木", messages=[{"role": "user", "content": "我喜欢什么"}]
    )
    assert answer.choices[0].message.content == "你说过你喜欢猫。"
    sent = with_tools.upstream.chat_requests
    assert len(sent) == 5 and sent[-1].json["tool_choice"] == "none"
    assert all("tool_choice" not in request.json for request in sent[:-1])


@pytest.mark.parametrize(
    ("user", "headers"),
    [("木\u200b木", {}), (" 木木", {}), ("木木", {"x-huiyi-person": "%E2%80%AE%E6%9C%A8"}), ("e\u0301", {})],
)
def test_a_name_refused_as_an_id_anywhere_is_refused_by_the_proxy(user: str, headers: dict[str, str]) -> None:
    # README: the proxy refuses what every face refuses as an id (invisible marks, padding, not NFC)
    body = {"model": "m", "user": user, "messages": [{"role": "user", "content": "hi"}]}
    with pytest.raises(InvalidInput):
        read_turn(body, headers, CONFIG)
