"""The memory proxy, driven by the official ``openai`` SDK against a live ``huiyi serve`` app on 127.0.0.1,
with a scripted fake upstream model: a bot gains memory by changing its base URL."""

from __future__ import annotations

import asyncio
import json
import socket
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any
from urllib.parse import quote

import openai
import pytest
import uvicorn

from fake_openai import FakeOpenAI
from huiyi.config import Config
from huiyi.faces.http import create_app
from huiyi.faces.proxy import MemoryProxy, Turn, read_turn
from huiyi.memory import AsyncMemory
from huiyi.providers.embed import Embedder, HashEmbedder

NOW = datetime(2025, 3, 1, 21, 0)
AGENT = "祈煜"


@dataclass
class Live:
    url: str
    upstream: FakeOpenAI
    memory: AsyncMemory
    loop: asyncio.AbstractEventLoop

    def client(self, **headers: str) -> openai.OpenAI:
        """An SDK client; naming headers are percent-encoded, as HTTP headers carry ASCII only."""
        encoded = {name: quote(value) for name, value in headers.items()}
        return openai.OpenAI(base_url=f"{self.url}/v1", api_key="sk-bot", default_headers=encoded, max_retries=0)

    def run(self, coroutine: Any) -> Any:
        return asyncio.run_coroutine_threadsafe(coroutine, self.loop).result(timeout=60)


def _port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def _serve(tmp_path: Path, e5: Embedder, **proxy: Any) -> Iterator[Live]:
    upstream = FakeOpenAI()
    upstream.__enter__()
    config = Config(
        worker={"enabled": False},
        proxy={"upstream": upstream.base_url, "api_key": "sk-upstream", **proxy},
        llm={"base_url": ""},
    )
    loop = asyncio.new_event_loop()
    thread = threading.Thread(target=loop.run_forever, daemon=True)
    thread.start()

    async def make() -> AsyncMemory:
        return AsyncMemory(tmp_path / "store", config=config, embedder=e5, clock=lambda: NOW)

    memory = asyncio.run_coroutine_threadsafe(make(), loop).result()
    port = _port()
    server = uvicorn.Server(uvicorn.Config(create_app(memory), host="127.0.0.1", port=port, log_level="warning"))
    serving = asyncio.run_coroutine_threadsafe(server.serve(), loop)
    for _ in range(200):
        if server.started:
            break
        time.sleep(0.02)
    try:
        yield Live(f"http://127.0.0.1:{port}", upstream, memory, loop)
    finally:
        server.should_exit = True
        serving.result(timeout=10)
        asyncio.run_coroutine_threadsafe(memory.close(), loop).result(timeout=30)
        loop.call_soon_threadsafe(loop.stop)
        thread.join(timeout=5)
        upstream.__exit__(None, None, None)


@pytest.fixture
def live(tmp_path: Path, e5: Embedder) -> Iterator[Live]:
    yield from _serve(tmp_path, e5, models={"qiyu": {"agent": AGENT, "model": "deepseek-chat"}})


def _stored(live: Live, count: int, **where: str) -> list[Any]:
    """Working memory once it holds ``count`` messages: replies are stored after the answer went back."""
    for _ in range(200):
        stored = live.run(live.memory.working_memory(agent=AGENT, **where))
        if len(stored) >= count:
            break
        time.sleep(0.02)
    return list(stored)


def _system(request: Any) -> str:
    return next(m["content"] for m in request.json["messages"] if m["role"] == "system")


def test_a_private_chat_remembers_through_the_sdk(live: Live) -> None:
    client = live.client()
    live.upstream.script_chat("团子听起来很可爱！")
    first = client.chat.completions.create(
        model="qiyu",
        user="木木",
        messages=[
            {"role": "system", "content": "你是祈煜。"},
            {"role": "user", "content": "我家的猫叫团子，是一只橘猫"},
        ],
    )
    assert first.choices[0].message.content == "团子听起来很可爱！"
    sent = live.upstream.chat_requests[0]
    assert sent.json["model"] == "deepseek-chat" and sent.headers["authorization"] == "Bearer sk-upstream"
    assert _system(sent).startswith("你是祈煜。")
    _stored(live, 2, person="木木")

    live.upstream.script_chat("你家的猫叫团子呀。")
    client.chat.completions.create(
        model="qiyu", user="木木", messages=[{"role": "user", "content": "我家猫叫什么名字来着？"}]
    )
    memory_prompt = _system(live.upstream.chat_requests[1])
    assert "团子" in memory_prompt  # the earlier turn, not in this request, came from memory
    stored = live.run(live.memory.working_memory(agent=AGENT, person="木木"))
    assert [(m.role, m.text) for m in stored][:2] == [
        ("user", "我家的猫叫团子，是一只橘猫"),
        ("assistant", "团子听起来很可爱！"),
    ]


def test_a_retried_request_stores_nothing_twice(live: Live) -> None:
    client = live.client()
    for _ in range(2):
        live.upstream.script_chat("好的")
        client.chat.completions.create(
            model="qiyu", user="木木", messages=[{"role": "user", "content": "记住我明天考试"}]
        )
    _stored(live, 2, person="木木")
    stored = live.run(live.memory.working_memory(agent=AGENT, person="木木"))
    assert [m.text for m in stored].count("记住我明天考试") == 1


def test_streaming_passes_through_and_the_reply_is_remembered(live: Live) -> None:
    chunks = [
        {"id": "cmpl-1", "object": "chat.completion.chunk", "choices": [{"index": 0, "delta": {"role": "assistant"}}]},
        {"id": "cmpl-1", "object": "chat.completion.chunk", "choices": [{"index": 0, "delta": {"content": "下周三"}}]},
        {"id": "cmpl-1", "object": "chat.completion.chunk", "choices": [{"index": 0, "delta": {"content": "加油！"}}]},
        {
            "id": "cmpl-1",
            "object": "chat.completion.chunk",
            "choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}],
        },
    ]
    sse = "".join(f"data: {json.dumps(c, ensure_ascii=False)}\n\n" for c in chunks) + "data: [DONE]\n\n"
    live.upstream.script_body(sse, content_type="text/event-stream")
    stream = live.client(**{"X-Huiyi-Agent": AGENT, "X-Huiyi-Person": "木木"}).chat.completions.create(
        model="deepseek-chat", messages=[{"role": "user", "content": "我下周三考驾照"}], stream=True
    )
    text = "".join(chunk.choices[0].delta.content or "" for chunk in stream if chunk.choices)
    assert text == "下周三加油！"
    for _ in range(100):
        stored = live.run(live.memory.working_memory(agent=AGENT, person="木木"))
        if len(stored) == 2:
            break
        time.sleep(0.05)
    assert [(m.role, m.text) for m in stored] == [("user", "我下周三考驾照"), ("assistant", "下周三加油！")]


def test_a_group_chat_names_its_speakers(live: Live) -> None:
    client = live.client(**{"X-Huiyi-Agent": AGENT, "X-Huiyi-Space": "qq-群-1"})
    live.upstream.script_chat("收到")
    client.chat.completions.create(
        model="deepseek-chat",
        messages=[{"role": "user", "name": "suni", "content": "我下个月去杭州跑马拉松"}],
    )
    _stored(live, 2, person="木木")
    stored = live.run(live.memory.working_memory(agent=AGENT, space="qq-群-1"))
    assert [(m.speaker, m.text) for m in stored] == [("suni", "我下个月去杭州跑马拉松"), (AGENT, "收到")]
    with pytest.raises(openai.BadRequestError) as refused:  # a group turn with no speaker
        client.chat.completions.create(model="deepseek-chat", messages=[{"role": "user", "content": "谁在？"}])
    assert refused.value.status_code == 400
    assert len(live.upstream.chat_requests) == 1  # a refused request never reaches the model


def test_a_batch_of_several_members_keeps_each_line_its_senders(tmp_path: Path) -> None:
    """A group bot sends the lines since its last reply, each with its sender's name: were they all the
    first sender's, bob's 我欠了一屁股债 would be alice's self-statement, and so her global profile."""
    body = {
        "model": "deepseek-chat",
        "messages": [
            {"role": "user", "name": "alice", "content": "今天好累"},
            {"role": "user", "name": "bob", "content": "我欠了一屁股债"},
        ],
    }
    config = Config(worker={"enabled": False}, embed={"provider": "hash", "dim": 32})
    headers = {"x-huiyi-agent": quote(AGENT), "x-huiyi-space": "g1"}

    async def stored(turn: Turn) -> list[tuple[str, str]]:
        memory = AsyncMemory(tmp_path, embedder=HashEmbedder(32), config=config)
        proxy = MemoryProxy(memory, config.proxy, "http://127.0.0.1:9", "")
        try:
            await proxy._store_user_lines(turn)
            return [(m.speaker, m.text) for m in await memory.working_memory(agent=AGENT, space="g1")]
        finally:
            await proxy.aclose()
            await memory.close()

    assert asyncio.run(stored(read_turn(body, headers, config.proxy))) == [
        ("alice", "今天好累"),
        ("bob", "我欠了一屁股债"),
    ]
    # a speaker the bot names in its header says every line, as before
    assert read_turn(body, {**headers, "x-huiyi-speaker": "carol"}, config.proxy).line_speakers == ("carol",) * 2


def test_a_group_turn_never_recalls_the_speakers_private_chat(tmp_path: Path) -> None:
    """The reply to a group is read by every member: what alice told the agent alone stays out of it."""
    config = Config(worker={"enabled": False}, embed={"provider": "hash", "dim": 32})
    body = {"model": "deepseek-chat", "messages": [{"role": "user", "name": "alice", "content": "大家最近身体怎么样"}]}
    turn = read_turn(body, {"x-huiyi-agent": quote(AGENT), "x-huiyi-space": "g1"}, config.proxy)

    async def prompt() -> str:
        memory = AsyncMemory(tmp_path, embedder=HashEmbedder(32), config=config)
        proxy = MemoryProxy(memory, config.proxy, "http://127.0.0.1:9", "")
        try:
            await memory.add(["我其实得了抑郁症，别告诉别人"], agent=AGENT, person="alice", index=True)
            await proxy._store_user_lines(turn)
            return await proxy._memory_text(turn, [])
        finally:
            await proxy.aclose()
            await memory.close()

    text = asyncio.run(prompt())
    assert "大家最近身体怎么样" in text and "抑郁症" not in text


def test_upstream_errors_pass_through_with_their_status(live: Live) -> None:
    client = live.client()
    live.upstream.script_status(429, "slow down")
    with pytest.raises(openai.RateLimitError):
        client.chat.completions.create(model="qiyu", user="木木", messages=[{"role": "user", "content": "在吗"}])
    live.upstream.script_status(500, "boom")
    with pytest.raises(openai.InternalServerError):
        client.chat.completions.create(model="qiyu", user="木木", messages=[{"role": "user", "content": "在吗？"}])
    stored = live.run(live.memory.working_memory(agent=AGENT, person="木木"))
    assert [m.text for m in stored] == ["在吗", "在吗？"]  # the user's words are kept all the same


def test_an_unknown_conversation_is_a_clear_400(live: Live) -> None:
    with pytest.raises(openai.APIStatusError) as refused:
        live.client().chat.completions.create(model="gpt-x", messages=[{"role": "user", "content": "hi"}])
    assert refused.value.status_code == 400 and "X-Huiyi-Agent" in str(refused.value)
    assert live.upstream.chat_requests == []


def _tool_call(id_: str, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
    return {"id": id_, "type": "function", "function": {"name": name, "arguments": json.dumps(arguments)}}


def test_tool_calls_of_the_client_pass_through(live: Live) -> None:
    call = _tool_call("call_1", "get_weather", {"city": "杭州"})
    live.upstream.script_chat(
        finish_reason="tool_calls", message={"role": "assistant", "content": None, "tool_calls": [call]}
    )
    tools = [{"type": "function", "function": {"name": "get_weather", "parameters": {"type": "object"}}}]
    answer = live.client().chat.completions.create(
        model="qiyu",
        user="木木",
        messages=[{"role": "user", "content": "杭州天气如何"}],
        tools=tools,  # type: ignore[arg-type]
    )
    assert answer.choices[0].message.tool_calls[0].function.name == "get_weather"  # type: ignore[index,union-attr]
    assert live.upstream.chat_requests[0].json["tools"] == tools


def test_memory_tools_run_inside_the_proxy(tmp_path: Path, e5: Embedder) -> None:
    for live in _serve(tmp_path, e5, agent=AGENT, tools=True):
        live.run(live.memory.add(["我的狗叫豆豆，是一只柯基"], agent=AGENT, person="阿哲"))
        call = _tool_call("call_9", "conversation_search", {"query": "狗叫什么"})
        live.upstream.script_chat(
            finish_reason="tool_calls", message={"role": "assistant", "content": None, "tool_calls": [call]}
        )
        live.upstream.script_chat("你的狗叫豆豆。")
        answer = live.client().chat.completions.create(
            model="deepseek-chat", user="阿哲", messages=[{"role": "user", "content": "我的狗叫啥"}]
        )
        assert answer.choices[0].message.content == "你的狗叫豆豆。"
        first, second = live.upstream.chat_requests
        assert any(t["function"]["name"] == "conversation_search" for t in first.json["tools"])
        tool_reply = second.json["messages"][-1]
        assert tool_reply["role"] == "tool" and tool_reply["tool_call_id"] == "call_9"
        assert "豆豆" in tool_reply["content"]


def test_the_model_rates_a_memory_its_conversation_sees_and_no_other_persons(tmp_path: Path) -> None:
    """Seed 001's feedback by the bot itself: rate_memory is offered with the searches, with their scope."""
    for live in _serve(tmp_path, HashEmbedder(16), agent=AGENT, tools=True):
        own = live.run(live.memory.remember("阿哲养了一只柯基叫豆豆", agent=AGENT, person="阿哲"))
        other = live.run(live.memory.remember("木木的银行卡密码是八八六六", agent=AGENT, person="木木"))
        official = live.run(live.memory.remember("祈煜是一位画家", agent=AGENT))  # every person's recall reads it
        calls = [
            _tool_call("call_1", "rate_memory", {"memory_id": own.id, "value": 1}),
            _tool_call("call_2", "rate_memory", {"memory_id": other.id, "value": -1}),
            _tool_call("call_3", "rate_memory", {"memory_id": official.id, "value": -1}),
        ]
        live.upstream.script_chat(
            finish_reason="tool_calls", message={"role": "assistant", "content": None, "tool_calls": calls}
        )
        live.upstream.script_chat("豆豆很可爱。")
        answer = live.client().chat.completions.create(
            model="deepseek-chat", user="阿哲", messages=[{"role": "user", "content": "我的狗叫啥"}]
        )
        assert answer.choices[0].message.content == "豆豆很可爱。"
        first, second = live.upstream.chat_requests
        assert any(t["function"]["name"] == "rate_memory" for t in first.json["tools"])
        rated, refused, shared = (json.loads(m["content"]) for m in second.json["messages"][-3:])
        assert rated["status"] == "rated" and rated["feedback"] == 1
        assert refused["error"]["code"] == "not_found" and "银行卡" not in json.dumps(refused, ensure_ascii=False)
        assert shared["error"]["code"] == "read_only"
        assert live.run(live.memory.get(other.id, agent=AGENT)).feedback == 0
        assert live.run(live.memory.get(official.id, agent=AGENT)).feedback == 0


def test_a_memory_tool_that_fails_is_told_to_the_model_and_the_chat_goes_on(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A tool's failure (the store down) escaped the turn: the client got a 500 instead of an answer."""
    for live in _serve(tmp_path, HashEmbedder(16), agent=AGENT, tools=True):

        def down(*_: Any, **__: Any) -> Any:
            raise OSError("disk I/O error")

        monkeypatch.setattr(live.memory, "recall", down)
        call = _tool_call("call_1", "search_memories", {"query": "狗叫什么"})
        live.upstream.script_chat(
            finish_reason="tool_calls", message={"role": "assistant", "content": None, "tool_calls": [call]}
        )
        live.upstream.script_chat("我有点想不起来了。")
        answer = live.client().chat.completions.create(
            model="deepseek-chat", user="阿哲", messages=[{"role": "user", "content": "我的狗叫啥"}]
        )
        assert answer.choices[0].message.content == "我有点想不起来了。"
        told = json.loads(live.upstream.chat_requests[1].json["messages"][-1]["content"])
        assert told["error"]["code"] == "internal_error" and "disk" not in json.dumps(told)
