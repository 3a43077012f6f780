"""OpenAIChat against a real local HTTP server: formats, fallbacks, retries, repair, accounting."""

from __future__ import annotations

import asyncio
import base64
import email.utils
import logging
import socket
import struct
import time
from collections.abc import Awaitable, Callable, Iterator
from typing import Any, TypeVar

import httpx
import pytest

from fake_openai import FakeOpenAI
from huiyi.config import LLMConfig
from huiyi.errors import ConfigError, ProviderError
from huiyi.providers.llm import LLM, OpenAIChat, TokenUsage, _retry_after, repair_json, schema_errors

KEY = "sk-test-0123456789abcdef0123456789"
SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "name": {"type": "string"},
        "age": {"type": "integer"},
        "tags": {"type": "array", "items": {"type": "string"}},
    },
    "required": ["name", "age"],
    "additionalProperties": False,
}
MESSAGES = [
    {"role": "system", "content": "你从对话中提取人物信息。"},
    {"role": "user", "content": "木木三岁了。"},
]
GOOD = {"name": "木木", "age": 3, "tags": ["猫"]}
T = TypeVar("T")


@pytest.fixture
def server() -> Iterator[FakeOpenAI]:
    with FakeOpenAI(embed_dim=8) as fake:
        yield fake


def run(server: FakeOpenAI, body: Callable[[OpenAIChat], Awaitable[T]], **options: Any) -> T:
    """Build a client on ``server`` inside a fresh event loop, run ``body`` with it, close it."""
    config = LLMConfig(
        base_url=options.pop("base_url", server.base_url),
        api_key=KEY,
        model="fake-model",
        timeout_s=options.pop("timeout_s", 2.0),
        max_retries=options.pop("max_retries", 3),
    )

    async def main() -> T:
        async with OpenAIChat(config, backoff_s=0.01, **options) as llm:
            return await body(llm)

    return asyncio.run(main())


def ask(llm: OpenAIChat) -> Awaitable[dict[str, Any]]:
    return llm.complete_json(MESSAGES, SCHEMA, "person")


# --- formats -------------------------------------------------------------------------------------


def test_structured_answer(server: FakeOpenAI) -> None:
    server.script_chat(json_content=GOOD)
    assert run(server, ask) == GOOD
    (request,) = server.chat_requests
    assert request.headers["authorization"] == f"Bearer {KEY}"
    assert request.json["model"] == "fake-model"
    assert request.messages == MESSAGES
    assert request.response_format == {
        "type": "json_schema",
        "json_schema": {"name": "person", "schema": SCHEMA, "strict": True},
    }


def test_falls_back_to_json_object_on_400_and_remembers(server: FakeOpenAI) -> None:
    server.script_status(400, "response_format.type json_schema is not supported")
    server.script_chat(json_content=GOOD).script_chat(json_content=GOOD)

    async def body(llm: OpenAIChat) -> str:
        assert await ask(llm) == GOOD
        assert await ask(llm) == GOOD
        return llm.json_mode

    assert run(server, body, max_retries=0) == "json_object"  # the fallback is no retry
    refused, first, second = server.chat_requests
    assert refused.response_format is not None and refused.response_format["type"] == "json_schema"
    for request in (first, second):
        assert request.response_format == {"type": "json_object"}
        system = request.messages[0]
        assert system["role"] == "system" and system["content"].startswith(MESSAGES[0]["content"])
        assert "JSON" in system["content"] and '"additionalProperties": false' in system["content"]
        assert request.messages[1:] == MESSAGES[1:]


def test_falls_back_to_instructions_alone_when_json_object_is_refused_too(server: FakeOpenAI) -> None:
    server.script_status(400).script_status(422).script_chat(json_content=GOOD)

    async def body(llm: OpenAIChat) -> str:
        assert await ask(llm) == GOOD
        return llm.json_mode

    assert run(server, body) == "prompt"
    last = server.chat_requests[-1]
    assert last.response_format is None
    assert "JSON" in last.messages[0]["content"]


def test_a_400_in_every_mode_raises_and_is_not_remembered(server: FakeOpenAI) -> None:
    for _ in range(3):
        server.script_status(400, "context length exceeded")

    async def body(llm: OpenAIChat) -> str:
        with pytest.raises(ProviderError, match="400"):
            await ask(llm)
        return llm.json_mode

    assert run(server, body) == "json_schema"
    assert len(server.chat_requests) == 3


def test_complete_returns_text_without_think_block(server: FakeOpenAI) -> None:
    server.script_raw_content("<think>先想一想</think>\n木木是一只猫。")
    assert run(server, lambda llm: llm.complete(MESSAGES)) == "木木是一只猫。"
    (request,) = server.chat_requests
    assert request.response_format is None and request.messages == MESSAGES


def test_openaichat_is_an_llm(server: FakeOpenAI) -> None:
    async def body(llm: OpenAIChat) -> bool:
        return isinstance(llm, LLM)

    assert run(server, body)


# --- retries -------------------------------------------------------------------------------------


def test_500_then_success_is_retried(server: FakeOpenAI) -> None:
    server.script_status(500).script_status(503).script_chat(json_content=GOOD)
    assert run(server, ask) == GOOD
    assert len(server.chat_requests) == 3


def test_429_honours_retry_after(server: FakeOpenAI) -> None:
    server.script_status(429, "slow down", retry_after="0.2").script_chat(json_content=GOOD)
    started = time.monotonic()
    assert run(server, ask) == GOOD
    assert time.monotonic() - started >= 0.2  # the backoff alone would wait ~0.01 s
    assert len(server.chat_requests) == 2


def test_retry_after_forms() -> None:
    assert _retry_after(httpx.Headers({"Retry-After": "2"})) == 2.0
    assert _retry_after(httpx.Headers({"retry-after-ms": "250", "Retry-After": "9"})) == 0.25
    future = email.utils.formatdate(time.time() + 30, usegmt=True)
    waited = _retry_after(httpx.Headers({"Retry-After": future}))
    assert waited is not None and 25 <= waited <= 31
    assert _retry_after(httpx.Headers({"Retry-After": "soon"})) is None
    assert _retry_after(httpx.Headers({})) is None


def test_timeout_then_success(server: FakeOpenAI) -> None:
    server.script_delay(1.0).script_chat(json_content=GOOD)
    started = time.monotonic()
    assert run(server, ask, timeout_s=0.25) == GOOD
    assert time.monotonic() - started < 0.9
    assert len(server.chat_requests) == 2


def test_timeouts_until_retries_run_out(server: FakeOpenAI) -> None:
    server.script_delay(1.0).script_delay(1.0)
    with pytest.raises(ProviderError, match=r"after 2 attempt.*llm\.timeout_s"):
        run(server, ask, timeout_s=0.1, max_retries=1)


def test_unreachable_server_is_retried_then_fails(server: FakeOpenAI) -> None:
    with socket.socket() as sock:  # a port nobody listens on
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    with pytest.raises(ProviderError, match=r"after 3 attempt.*llm\.base_url"):
        run(server, ask, base_url=f"http://127.0.0.1:{port}/v1", max_retries=2)


def test_non_json_body_is_retried(server: FakeOpenAI) -> None:
    server.script_body("<html><h1>502 Bad Gateway</h1></html>")
    server.script_chat(json_content=GOOD)
    assert run(server, ask) == GOOD
    assert len(server.chat_requests) == 2


@pytest.mark.parametrize("status", [401, 403, 404])
def test_no_retry_on_other_4xx(server: FakeOpenAI, status: int) -> None:
    server.script_status(status).script_chat(json_content=GOOD)
    hint = "llm.api_key" if status != 404 else "llm.base_url"
    with pytest.raises(ProviderError, match=hint):
        run(server, ask)
    assert len(server.chat_requests) == 1
    assert server.pending == 1


# --- repair and validation -----------------------------------------------------------------------


def test_almost_json_answer_is_repaired(server: FakeOpenAI) -> None:
    server.script_raw_content(
        "好的，结果如下：\n```json\n{'name': '木木', 'age': 3, 'tags': ['猫',],}\n```\n希望有帮助"
    )
    assert run(server, ask) == GOOD
    assert len(server.chat_requests) == 1


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ('{"a": 1}', {"a": 1}),
        ('```json\n{"a": 1}\n```', {"a": 1}),
        ('```\n{"a": [1, 2]}\n```', {"a": [1, 2]}),
        ('当然！以下是结果：{"a": "木木"} 还有别的吗？', {"a": "木木"}),
        ('{"a": [1, 2,], "b": {"c": 3,},}', {"a": [1, 2], "b": {"c": 3}}),
        ("{'a': '他说\"好\"', 'b': True, 'c': None}", {"a": '他说"好"', "b": True, "c": None}),
        ('{"a": "it\'s fine"}', {"a": "it's fine"}),
        ('{"a": 1, "b": {"c": [2, 3]', {"a": 1, "b": {"c": [2, 3]}}),
        ('{"a": ["x", "y", "half a stri', {"a": ["x", "y"]}),
        ('{"a": 1, "b', {"a": 1}),
        ('注意[重要]: {"a": 1}', {"a": 1}),
        ('<think>用户要 {JSON}</think>{"a": 1}', {"a": 1}),
        ('{"a": "line one\nline two"}', {"a": "line one\nline two"}),
    ],
)
def test_repair_json(text: str, expected: Any) -> None:
    assert repair_json(text) == expected


@pytest.mark.parametrize("text", ["", "no JSON here", '{"a": "never closed'])
def test_repair_json_gives_up(text: str) -> None:
    with pytest.raises(ValueError):
        repair_json(text)


def test_an_answer_nested_too_deeply_is_a_value_error() -> None:
    for text in ("[" * 100_000, "[" * 100_000 + "]" * 100_000, '{"a": ' * 5000):
        with pytest.raises(ValueError, match="nested too deeply"):
            repair_json(text)


def test_a_long_cut_answer_nested_deep_is_mended_in_one_pass() -> None:
    # a looping model's [1, [1, [1, …: copying the open brackets at every comma took minutes here
    assert repair_json("[1, " * 400) == repair_json("[1, " * 400 + "]" * 400)
    with pytest.raises(ValueError, match="nested too deeply"):
        repair_json("[1, " * 30_000)


def test_a_deeply_nested_answer_is_unusable_not_a_crash(server: FakeOpenAI) -> None:
    server.script_raw_content("[" * 100_000).script_raw_content("[" * 100_000)
    with pytest.raises(ProviderError, match="nested too deeply"):
        run(server, ask, max_retries=1)


def test_schema_errors() -> None:
    assert schema_errors(GOOD, SCHEMA) == []
    assert schema_errors({"name": "木木", "age": 3.0}, SCHEMA) == []
    errors = schema_errors({"name": 7, "age": True, "tags": ["a", 1], "extra": 0}, SCHEMA)
    assert len(errors) == 4
    assert any("name" in e for e in errors) and any("age" in e for e in errors)
    assert any("tags" in e and "1" in e for e in errors) and any("extra" in e for e in errors)
    assert any("'age'" in e for e in schema_errors({"name": "x"}, SCHEMA))
    enum = {"type": "object", "properties": {"kind": {"enum": ["fact", "event"]}}}
    assert schema_errors({"kind": "fact"}, enum) == [] and schema_errors({"kind": "x"}, enum)
    assert schema_errors({"n": None}, {"properties": {"n": {"type": ["integer", "null"]}}}) == []


def test_wrong_schema_is_retried_with_feedback(server: FakeOpenAI) -> None:
    server.script_chat(json_content={"name": "木木"}).script_chat(json_content=GOOD)
    assert run(server, ask) == GOOD
    _, second = server.chat_requests
    assert second.messages[: len(MESSAGES)] == MESSAGES
    assistant, feedback = second.messages[len(MESSAGES) :]
    assert assistant == {"role": "assistant", "content": '{"name": "木木"}'}
    assert feedback["role"] == "user" and "'age'" in feedback["content"] and '"required"' in feedback["content"]


def test_wrong_schema_that_stays_wrong_raises(server: FakeOpenAI) -> None:
    for _ in range(3):
        server.script_chat(json_content={"name": "木木", "age": "三"})
    with pytest.raises(ProviderError, match=r"'person' after 3 attempt.*age"):
        run(server, ask, max_retries=2)
    assert len(server.chat_requests) == 3


def test_truncated_answer_is_named_in_the_error(server: FakeOpenAI) -> None:
    server.script_raw_content('{"name": "木木", "ag', finish_reason="length")
    with pytest.raises(ProviderError, match="max_tokens"):
        run(server, ask, max_retries=0)


def test_a_cut_answer_that_repair_would_make_valid_is_never_kept(server: FakeOpenAI) -> None:
    """JSON repair closes '{"name": "木木", "age": 3' into a valid object; cut at length it is still a failure."""
    server.script_raw_content('{"name": "木木", "age": 3', finish_reason="length")
    server.script_chat(json_content=GOOD)
    assert run(server, ask) == GOOD
    first, second = server.chat_requests
    assert "max_tokens" not in first.json or first.json["max_tokens"] < second.json["max_tokens"]
    assert second.json["max_tokens"] >= 4096  # asked again with more room
    assert second.messages == first.messages  # not the cut text fed back


def test_an_answer_cut_every_time_fails(server: FakeOpenAI) -> None:
    for _ in range(3):
        server.script_raw_content('{"name": "木木", "age": 3', finish_reason="length")
    with pytest.raises(ProviderError, match="cut off"):
        run(server, ask, max_retries=2)


def test_not_json_at_all_raises_after_retries(server: FakeOpenAI) -> None:
    server.script_raw_content("抱歉，我无法回答。").script_raw_content("抱歉。")
    with pytest.raises(ProviderError, match="not JSON"):
        run(server, ask, max_retries=1)


# --- accounting and secrets ----------------------------------------------------------------------


def test_token_totals(server: FakeOpenAI) -> None:
    server.script_chat(json_content=GOOD, prompt_tokens=100, completion_tokens=20)
    server.script_chat(json_content={"name": "x"}, prompt_tokens=150, completion_tokens=7)  # unusable
    server.script_chat(json_content=GOOD, prompt_tokens=160, completion_tokens=21)
    server.script_status(500)  # not answered, not counted
    server.script_chat("好的", prompt_tokens=5, completion_tokens=1)

    async def body(llm: OpenAIChat) -> TokenUsage:
        assert llm.usage == TokenUsage()
        await ask(llm)
        await ask(llm)
        await llm.complete(MESSAGES)
        return llm.usage

    usage = run(server, body)
    assert usage == TokenUsage(prompt_tokens=415, completion_tokens=49, requests=4)
    assert usage.total_tokens == 464


def test_api_key_never_logged(server: FakeOpenAI, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.DEBUG)
    server.script_status(500, f"upstream said: bad key {KEY}")
    server.script_status(400)
    server.script_raw_content("不是 JSON")
    server.script_chat(json_content=GOOD)
    server.script_status(401, f"Incorrect API key provided: {KEY}")

    async def body(llm: OpenAIChat) -> str:
        assert await ask(llm) == GOOD
        with pytest.raises(ProviderError) as raised:
            await ask(llm)
        return f"{raised.value} {llm!r}"

    text = run(server, body)
    assert KEY not in text and "***" in text
    assert caplog.records, "the retries should have been logged"
    for record in caplog.records:
        assert KEY not in record.getMessage()
        assert KEY not in caplog.text


def test_config_is_checked() -> None:
    with pytest.raises(ConfigError, match="base_url"):
        OpenAIChat(LLMConfig(model="m"))
    with pytest.raises(ConfigError, match="http"):
        OpenAIChat(LLMConfig(base_url="127.0.0.1:8000/v1", model="m"))
    with pytest.raises(ConfigError, match="model"):
        OpenAIChat(LLMConfig(base_url="http://127.0.0.1:8000/v1"))
    with pytest.raises(ValueError, match="printable ASCII") as raised:  # refused as the config is made
        OpenAIChat(LLMConfig(base_url="http://h/v1", model="m", api_key="sk-密钥"))
    assert "密钥" not in str(raised.value)
    llm = OpenAIChat(LLMConfig(base_url="http://h/v1/chat/completions/", model="m"))
    assert llm.url == "http://h/v1/chat/completions"
    asyncio.run(llm.aclose())


# --- the fake server's embeddings, for other clients' tests -------------------------------------


def test_fake_embeddings(server: FakeOpenAI) -> None:
    with httpx.Client(base_url=server.base_url) as client:
        one = client.post("/embeddings", json={"model": "e", "input": ["木木", "猫", "木木"]}).json()
        assert [d["index"] for d in one["data"]] == [0, 1, 2]
        vectors = [d["embedding"] for d in one["data"]]
        assert len(vectors[0]) == 8 and vectors[0] == vectors[2] != vectors[1]
        assert vectors[0] == server.vector("木木")
        assert abs(sum(v * v for v in vectors[1]) - 1) < 1e-9
        assert one["model"] == "e" and one["usage"]["prompt_tokens"] > 0

        wide = client.post("/embeddings", json={"input": "木木", "dimensions": 16}).json()
        assert len(wide["data"][0]["embedding"]) == 16

        packed = client.post("/embeddings", json={"input": "木木", "encoding_format": "base64"}).json()
        raw = base64.b64decode(packed["data"][0]["embedding"])
        assert struct.unpack("<8f", raw) == pytest.approx(server.vector("木木"), abs=1e-6)

        server.script_embeddings_status(429, retry_after=1)
        limited = client.post("/embeddings", json={"input": "x"})
        assert limited.status_code == 429 and limited.headers["retry-after"] == "1"
        assert client.post("/embeddings", json={"input": "x"}).status_code == 200
    assert len(server.embedding_requests) == 5


def test_one_client_serves_one_event_loop_after_another(server: FakeOpenAI) -> None:
    """A memory used from a second asyncio.run reached its LLM with the first loop's connections: every call
    failed with RuntimeError('Event loop is closed'), not even a ProviderError."""
    server.script_raw_content("一")
    server.script_raw_content("二")
    llm = OpenAIChat(LLMConfig(base_url=server.base_url, model="fake-model", max_retries=0))
    assert asyncio.run(llm.complete(MESSAGES)) == "一"  # the loop ends without aclose, as asyncio.run does

    async def again() -> str:
        try:
            return await llm.complete(MESSAGES)
        finally:
            await llm.aclose()

    assert asyncio.run(again()) == "二"
