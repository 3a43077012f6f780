"""The memory proxy against requests and answers of less common shapes: a gzipped stream, text parts that are
null, a system prompt in parts, a slow upstream, and (``proxy.tools``) the model calling huiyi's tools beside
the bot's own or a bot declaring one of their names. Each was a helper's finding."""

from __future__ import annotations

import gzip
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from fake_openai import Scripted
from huiyi.providers.embed import Embedder
from test_proxy import AGENT, Live, _serve, _stored

USER = {"x-huiyi-agent": "%E7%A5%88%E7%85%9C", "x-huiyi-person": "mumu"}  # 祈煜, percent-encoded


@pytest.fixture
def live(tmp_path: Path, e5: Embedder) -> Iterator[Live]:
    yield from _serve(tmp_path, e5, agent=AGENT, timeout_s=1.0)


@pytest.fixture
def with_tools(tmp_path: Path, e5: Embedder) -> Iterator[Live]:
    yield from _serve(tmp_path, e5, agent=AGENT, tools=True)


def _ask(live: Live, messages: list[dict[str, Any]], **body: Any) -> httpx.Response:
    request = {"model": "m", "messages": messages, **body}
    return httpx.post(f"{live.url}/v1/chat/completions", json=request, headers=USER, timeout=30)


def test_a_gzipped_stream_reaches_the_bot_decoded_and_its_reply_is_kept(live: Live) -> None:
    # the proxy relayed the compressed bytes with the encoding header dropped: the bot read garbage
    chunks = [{"id": "c1", "choices": [{"index": 0, "delta": {"content": "压缩"}, "finish_reason": None}]}]
    chunks.append({"id": "c1", "choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]})
    sse = b"".join(f"data: {json.dumps(c, ensure_ascii=False)}\n\n".encode() for c in chunks) + b"data: [DONE]\n\n"
    live.upstream.script(Scripted(200, gzip.compress(sse), {"Content-Encoding": "gzip"}, 0.0, "text/event-stream"))
    answer = _ask(live, [{"role": "user", "content": "你好"}], stream=True)
    assert answer.status_code == 200 and answer.content == sse
    assert [m.text for m in _stored(live, 2, person="mumu")] == ["你好", "压缩"]


def test_a_text_part_that_is_null_says_nothing(live: Live) -> None:
    # it was remembered as the user saying "None"
    live.upstream.script_chat("好的")
    parts = [{"type": "text", "text": None}, {"type": "text", "text": "我叫小明"}]
    assert _ask(live, [{"role": "user", "content": parts}]).status_code == 200
    assert [m.text for m in _stored(live, 2, person="mumu")] == ["我叫小明", "好的"]


def test_a_system_prompt_in_text_parts_stays_first_with_the_memory_in_it(live: Live) -> None:
    # a second system message went ahead of it, so the bot's own instructions came second
    live.upstream.script_chat("好的")
    system = {"role": "system", "content": [{"type": "text", "text": "You are Qiyu."}]}
    assert _ask(live, [system, {"role": "user", "content": "我叫小明"}]).status_code == 200
    live.upstream.script_chat("你叫小明")
    assert _ask(live, [system, {"role": "user", "content": "我叫什么"}]).status_code == 200
    sent = live.upstream.chat_requests[-1].json["messages"]
    assert [m["role"] for m in sent] == ["system", "user"]
    assert sent[0]["content"].startswith("You are Qiyu.") and "我叫小明" in sent[0]["content"]


def test_a_stream_answered_whole_reaches_the_bot_as_a_stream_and_its_reply_is_kept(live: Live) -> None:
    # an upstream that ignores "stream" answered JSON: the bot got it with an error event glued on (neither JSON
    # nor a stream), and the reply was not kept (helper)
    live.upstream.script_chat("好的")
    answer = _ask(live, [{"role": "user", "content": "你好"}], stream=True)
    assert answer.status_code == 200 and answer.headers["content-type"].startswith("text/event-stream")
    events = [line.removeprefix("data: ") for line in answer.text.splitlines() if line.startswith("data: ")]
    assert events[-1] == "[DONE]" and "upstream_stream_broken" not in answer.text
    said = "".join(c["choices"][0]["delta"].get("content") or "" for c in map(json.loads, events[:-1]) if c["choices"])
    assert said == "好的"
    assert [m.text for m in _stored(live, 2, person="mumu")] == ["你好", "好的"]


def test_a_stream_labelled_plain_text_is_still_relayed_and_kept(live: Live) -> None:
    # buffered as a whole answer that was no JSON, and its reply not kept (helper's review)
    chunks = [{"id": "c2", "choices": [{"index": 0, "delta": {"content": "流式回答"}, "finish_reason": None}]}]
    chunks.append({"id": "c2", "choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]})
    sse = b"".join(f"data: {json.dumps(c, ensure_ascii=False)}\n\n".encode() for c in chunks) + b"data: [DONE]\n\n"
    live.upstream.script(Scripted(200, sse, {}, 0.0, "text/plain; charset=utf-8"))
    answer = _ask(live, [{"role": "user", "content": "你好"}], stream=True)
    assert answer.status_code == 200 and answer.content == sse
    assert [m.text for m in _stored(live, 2, person="mumu")] == ["你好", "流式回答"]


def test_a_slow_upstream_is_a_timeout_not_an_unreachable_one(live: Live) -> None:
    # a 502 "could not be reached: " with no reason, for a model that was reached and was slow
    live.upstream.script_delay(3.0, content="迟到")
    answer = _ask(live, [{"role": "user", "content": "在吗"}])
    assert answer.status_code == 504 and answer.json()["error"]["code"] == "upstream_timeout"
    assert [m.text for m in _stored(live, 1, person="mumu")] == ["在吗"]  # the user's line is kept


BOTS_TOOL = {"type": "function", "function": {"name": "get_weather", "parameters": {"type": "object"}}}


def _call(name: str, arguments: str = "{}") -> dict[str, Any]:
    return {"id": f"call_{name}", "type": "function", "function": {"name": name, "arguments": arguments}}


def test_calls_of_huiyis_tools_beside_the_bots_never_reach_the_bot(with_tools: Live) -> None:
    # the whole message went back: the bot got a call of search_memories, a tool it never declared
    calls = [_call("search_memories", '{"query": "天气"}'), _call("get_weather")]
    with_tools.upstream.script_chat(message={"role": "assistant", "content": None, "tool_calls": calls})
    answer = _ask(with_tools, [{"role": "user", "content": "明天天气？"}], tools=[BOTS_TOOL])
    choice = answer.json()["choices"][0]
    assert [call["function"]["name"] for call in choice["message"]["tool_calls"]] == ["get_weather"]
    with_tools.upstream.script_chat(message={"role": "assistant", "content": None, "tool_calls": calls[:1]})
    with_tools.upstream.script_chat(message={"role": "assistant", "content": None, "tool_calls": calls[:1]})
    with_tools.upstream.script_chat(message={"role": "assistant", "content": None, "tool_calls": calls[:1]})
    with_tools.upstream.script_chat(message={"role": "assistant", "content": None, "tool_calls": calls[:1]})
    with_tools.upstream.script_chat(message={"role": "assistant", "content": "晴", "tool_calls": calls[:1]})
    choice = _ask(with_tools, [{"role": "user", "content": "明天呢？"}]).json()["choices"][0]
    assert "tool_calls" not in choice["message"] and choice["message"]["content"] == "晴"  # past the last round


def test_every_choice_loses_its_calls_of_huiyis_tools() -> None:
    """With ``n`` = 2 only the first choice was cleaned: the second's call of conversation_search reached the bot
    (helper)."""
    from huiyi.faces.proxy_tools import MEMORY_TOOLS, for_client

    def choice(i: int, *calls: dict[str, Any]) -> dict[str, Any]:
        message = {"role": "assistant", "content": None, "tool_calls": list(calls)}
        return {"index": i, "message": message, "finish_reason": "tool_calls"}

    first, second = choice(0, _call("get_weather")), choice(1, _call("conversation_search"), _call("get_weather"))
    cleaned = for_client({"choices": [first, second, choice(2, _call("rate_memory"))]}, MEMORY_TOOLS)
    assert cleaned is not None and cleaned["choices"][0] is first
    names = [[call["function"]["name"] for call in c["message"].get("tool_calls", [])] for c in cleaned["choices"]]
    assert names == [["get_weather"], ["get_weather"], []]
    assert cleaned["choices"][2]["finish_reason"] == "stop"
    assert for_client({"choices": [first, {"index": 1}]}, MEMORY_TOOLS) is None  # a choice of no message is its own


def test_a_bots_tool_named_as_one_of_huiyis_stays_the_bots(with_tools: Live) -> None:
    # both went upstream under one name, which OpenAI-style servers refuse (400)
    own = {"type": "function", "function": {"name": "search_memories", "parameters": {"type": "object"}}}
    with_tools.upstream.script_chat(
        message={"role": "assistant", "content": None, "tool_calls": [_call("search_memories")]}
    )
    answer = _ask(with_tools, [{"role": "user", "content": "找找"}], tools=[own])
    names = [tool["function"]["name"] for tool in with_tools.upstream.chat_requests[-1].json["tools"]]
    assert sorted(names) == sorted(set(names)) and names[0] == "search_memories"
    assert len(with_tools.upstream.chat_requests) == 1  # its call went to the bot, not run by huiyi
    assert answer.json()["choices"][0]["message"]["tool_calls"][0]["function"]["name"] == "search_memories"


@pytest.mark.parametrize("stream", ["false", 0, "true"])
def test_a_stream_switch_that_is_no_bool_is_refused_before_anything_is_stored(live: Live, stream: object) -> None:
    # "false" was read as true: the bot that asked for one answer got a stream back
    answer = _ask(live, [{"role": "user", "content": "你好"}], stream=stream)
    assert answer.status_code == 422 and "'stream' is true or false" in answer.json()["error"]["message"]
    assert live.upstream.chat_requests == [] and _stored(live, 0, person="mumu") == []
