"""The MCP face through the SDK's own client: in-process, over stdio (``huiyi mcp``) and streamable HTTP."""

from __future__ import annotations

import doctest
import json
import os
import socket
import sys
from collections.abc import Awaitable, Callable, Sequence
from datetime import datetime
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import Client, MCPError, StdioServerParameters
from mcp.types import TextContent

import huiyi.faces.mcp_server
import huiyi.faces.tools
from huiyi.config import Config
from huiyi.faces.mcp_server import context_uri, create_server, serve
from huiyi.faces.tools import TOOL_NAMES, ToolExecutor
from huiyi.memory import AsyncMemory
from huiyi.model import MemoryKind
from huiyi.providers.embed import HashEmbedder, Vectors

AGENT, PERSON = "祈煜", "木木"
CONFIG = Config(worker={"enabled": False}, embed={"provider": "hash", "dim": 64})


async def seeded(path: Path) -> AsyncMemory:
    memory = AsyncMemory(path, config=CONFIG, embedder=HashEmbedder(64), clock=lambda: datetime(2025, 11, 5, 20, 0))
    await memory.add(
        [
            {"text": "我下周三要考驾照，好紧张", "id": "m1", "time": datetime(2025, 11, 1, 20, 0)},
            {"text": "别紧张，你练了那么久", "role": "assistant", "id": "m2", "time": datetime(2025, 11, 1, 20, 1)},
        ],
        agent=AGENT,
        person=PERSON,
    )
    await memory.remember("木木的猫叫团子，是一只橘猫", agent=AGENT, person=PERSON, kind=MemoryKind.FACT)
    await memory.add(["我的狗叫豆豆"], agent=AGENT, person="阿哲")
    return memory


def run(test: Callable[[AsyncMemory], Awaitable[None]], path: Path) -> None:
    async def main() -> None:
        memory = await seeded(path)
        try:
            await test(memory)
        finally:
            await memory.close()

    anyio.run(main)


def text_of(content: list[Any]) -> str:
    assert isinstance(content[0], TextContent)
    return content[0].text


@pytest.mark.parametrize("mode", ["auto", "legacy"])
def test_tools_in_process(tmp_path: Path, mode: str) -> None:
    async def check(memory: AsyncMemory) -> None:
        executor = ToolExecutor(memory, AGENT, person=PERSON)
        async with Client(create_server(executor), mode=mode) as client:
            listed = (await client.list_tools()).tools
            assert tuple(tool.name for tool in listed) == TOOL_NAMES
            schemas = {schema["function"]["name"]: schema["function"] for schema in executor.schemas()}
            for tool in listed:  # the same schemas as the OpenAI-format tools
                assert tool.input_schema == schemas[tool.name]["parameters"]
                assert tool.description == schemas[tool.name]["description"]
            assert next(t for t in listed if t.name == "search_memories").annotations.read_only_hint  # type: ignore[union-attr]

            found = await client.call_tool("search_memories", {"query": "猫叫什么", "max_results": 3})
            assert not found.is_error
            assert found.structured_content["memories"][0]["text"] == "木木的猫叫团子，是一只橘猫"
            assert json.loads(text_of(found.content)) == found.structured_content

            history = await client.call_tool("conversation_search", {"query": "驾照"})
            assert "考驾照" in history.structured_content["memories"][0]["text"]

            refused = await client.call_tool("search_memories", {"query": "狗", "person": "阿哲"})
            assert refused.is_error and refused.structured_content["error"]["code"] == "invalid_arguments"
            unknown = await client.call_tool("forget_everything", {})
            assert unknown.is_error and unknown.structured_content["error"]["code"] == "unknown_tool"
            plain = await client.call_tool("search_memories", {"query": "狗 豆豆", "max_results": 50})
            assert "豆豆" not in text_of(plain.content)

    run(check, tmp_path / "store")


def test_context_resource(tmp_path: Path) -> None:
    async def check(memory: AsyncMemory) -> None:
        async with Client(create_server(ToolExecutor(memory, AGENT, person=PERSON))) as client:
            resources = (await client.list_resources()).resources
            assert [r.uri for r in resources] == [context_uri(AGENT, PERSON)]
            assert resources[0].uri == "huiyi://context/%E7%A5%88%E7%85%9C/%E6%9C%A8%E6%9C%A8"
            templates = (await client.list_resource_templates()).resource_templates
            assert [t.uri_template for t in templates] == ["huiyi://context/{agent}/{person}{?message,last_reply}"]

            plain = (await client.read_resource(context_uri(AGENT, PERSON))).contents[0]
            assert plain.mime_type == "text/plain" and "我下周三要考驾照" in plain.text  # working memory
            assert "团子" not in plain.text  # nothing to recall for without a message
            turn = (await client.read_resource(context_uri(AGENT, PERSON, message="团子最近怎么样"))).contents[0]
            assert "团子" in turn.text and "我下周三要考驾照" in turn.text
            raw = (await client.read_resource(f"huiyi://context/{AGENT}/{PERSON}")).contents[0]  # unencoded works too
            assert raw.text == plain.text

            for other in (context_uri(AGENT, "阿哲"), context_uri("别的角色", PERSON), "huiyi://elsewhere"):
                with pytest.raises(MCPError):
                    await client.read_resource(other)

    run(check, tmp_path / "store")


def test_group_server_serves_its_space(tmp_path: Path) -> None:
    async def check(memory: AsyncMemory) -> None:
        await memory.add([{"text": "今晚谁一起打游戏", "speaker": "阿哲"}], agent=AGENT, space="g1")
        async with Client(create_server(ToolExecutor(memory, AGENT, space="g1"))) as client:
            # no block here a tool may change (human is a person's): the core tools, are left out
            listed = [tool.name for tool in (await client.list_tools()).tools]
            assert listed == [name for name in TOOL_NAMES if not name.startswith("core_memory_")]
            uri = (await client.list_resources()).resources[0].uri
            assert uri == "huiyi://context/%E7%A5%88%E7%85%9C/space/g1"
            assert "打游戏" in (await client.read_resource(uri)).contents[0].text
            with pytest.raises(MCPError):
                await client.read_resource(context_uri(AGENT, space="g2"))

    run(check, tmp_path / "store")


def test_docstring_examples() -> None:
    for module in (huiyi.faces.mcp_server, huiyi.faces.tools):
        result = doctest.testmod(module, optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
        assert result.attempted > 0 and result.failed == 0


def _environment() -> dict[str, str]:
    return {**os.environ, "HUIYI_EMBED__PROVIDER": "hash", "HUIYI_EMBED__DIM": "64", "HUIYI_WORKER__ENABLED": "false"}


def test_huiyi_mcp_over_stdio(tmp_path: Path) -> None:
    store = tmp_path / "store"

    async def main() -> None:
        memory = await seeded(store)
        await memory.close()
        command = StdioServerParameters(
            command=sys.executable,
            args=["-m", "huiyi.faces.cli", "mcp", "--agent", AGENT, "--person", PERSON, "--store", str(store)],
            env=_environment(),
        )
        async with Client(command) as client:
            assert tuple(t.name for t in (await client.list_tools()).tools) == TOOL_NAMES
            found = await client.call_tool("archival_memory_search", {"query": "橘猫"})
            assert found.structured_content["memories"][0]["text"] == "木木的猫叫团子，是一只橘猫"
            context = (await client.read_resource(context_uri(AGENT, PERSON))).contents[0]
            assert "考驾照" in context.text

    anyio.run(main)


def test_streamable_http_on_loopback(tmp_path: Path) -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]

    async def main() -> None:
        memory = await seeded(tmp_path / "store")
        await memory.close()
        async with anyio.create_task_group() as group:
            group.start_soon(
                lambda: serve(
                    tmp_path / "store", agent=AGENT, person=PERSON, config=CONFIG, transport="http", port=port
                )
            )
            for _ in range(100):  # until uvicorn listens
                try:
                    await anyio.connect_tcp("127.0.0.1", port)
                    break
                except OSError:
                    await anyio.sleep(0.05)
            async with Client(f"http://127.0.0.1:{port}/mcp") as client:
                found = await client.call_tool("search_memories", {"query": "团子"})
                # the transport is under test, not the ranking (hash vectors rank by chance)
                texts = [m["text"] for m in found.structured_content["memories"]]
                assert any(text.startswith("木木的猫叫团子") for text in texts)
            group.cancel_scope.cancel()

    anyio.run(main)


def test_a_huge_attribute_is_refused_and_stores_nothing(tmp_path: Path) -> None:
    async def check(memory: AsyncMemory) -> None:
        async with Client(create_server(ToolExecutor(memory, AGENT, person=PERSON))) as client:
            before = len(await memory.memories(agent=AGENT, person=PERSON))
            for attributes in ({"k" * 10_000: "v"}, {"地点": "很远" * 5_000}):
                answer = await client.call_tool(
                    "create_memory", {"subject": "我", "memory_type": "事件", "topic": "去", "attributes": attributes}
                )
                assert answer.is_error and answer.structured_content["error"]["code"] == "invalid_arguments"
            assert len(await memory.memories(agent=AGENT, person=PERSON)) == before

    run(check, tmp_path / "store")


class UnreachableEmbedder(HashEmbedder):
    """An embedding service that stopped answering after the store was filled."""

    down = False

    def embed_queries(self, texts: Sequence[str]) -> Vectors:
        if self.down:
            raise ConnectionError("connection refused by embed.internal:9000")
        return super().embed_queries(texts)

    def embed_passages(self, texts: Sequence[str]) -> Vectors:
        if self.down:
            raise ConnectionError("connection refused by embed.internal:9000")
        return super().embed_passages(texts)


def test_a_failure_inside_huiyi_is_a_tool_error_and_the_server_goes_on(tmp_path: Path) -> None:
    """A failure that is no HuiyiError reached the host as a JSON-RPC error (code 0 with the exception's text
    over stdio), which hosts show as a broken tool instead of handing the model an ``isError`` result."""

    async def main() -> None:
        embedder = UnreachableEmbedder(64)
        async with AsyncMemory(tmp_path / "store", config=CONFIG, embedder=embedder) as memory:
            await memory.add(["我下周三要考驾照"], agent=AGENT, person=PERSON)
            embedder.down = True
            async with Client(create_server(ToolExecutor(memory, AGENT, person=PERSON))) as client:
                for name, arguments in (
                    ("search_memories", {"query": "驾照"}),
                    ("create_memory", {"subject": "我", "memory_type": "事件", "topic": "练车"}),
                ):
                    failed = await client.call_tool(name, arguments)
                    assert failed.is_error and failed.structured_content["error"]["code"] == "internal_error"
                    assert "embed.internal" not in text_of(failed.content)  # the log has it, not the model
                with pytest.raises(MCPError) as refused:
                    await client.read_resource(context_uri(AGENT, PERSON, message="驾照"))
                assert "embed.internal" not in refused.value.error.message
                embedder.down = False
                assert not (await client.call_tool("search_memories", {"query": "驾照"})).is_error

    anyio.run(main)


def test_the_model_rates_a_memory_over_mcp_only_its_own(tmp_path: Path) -> None:
    async def check(memory: AsyncMemory) -> None:
        cat = (await memory.memories(agent=AGENT, person=PERSON, kinds=[MemoryKind.FACT]))[0]
        secret = await memory.remember("阿哲的生日是三月三日", agent=AGENT, person="阿哲", kind=MemoryKind.FACT)
        official = await memory.remember("祈煜是一位画家", agent=AGENT, kind=MemoryKind.FACT)
        async with Client(create_server(ToolExecutor(memory, AGENT, person=PERSON))) as client:
            tool = next(t for t in (await client.list_tools()).tools if t.name == "rate_memory")
            assert tool.annotations is not None
            assert not tool.annotations.read_only_hint and not tool.annotations.idempotent_hint  # ratings add up
            rated = await client.call_tool("rate_memory", {"memory_id": cat.id, "value": -0.5})
            assert not rated.is_error and rated.structured_content["feedback"] == -0.5
            hidden = await client.call_tool("rate_memory", {"memory_id": secret.id, "value": -1})
            assert hidden.is_error and hidden.structured_content["error"]["code"] == "not_found"
            wild = await client.call_tool("rate_memory", {"memory_id": cat.id, "value": 5})
            assert wild.is_error and wild.structured_content["error"]["code"] == "invalid_arguments"
            shared = await client.call_tool("rate_memory", {"memory_id": official.id, "value": -1})  # every chat's
            assert shared.is_error and shared.structured_content["error"]["code"] == "read_only"
        assert (await memory.get(cat.id, agent=AGENT)).feedback == -0.5
        assert (await memory.get(secret.id, agent=AGENT)).feedback == 0.0
        assert (await memory.get(official.id, agent=AGENT)).feedback == 0.0

    run(check, tmp_path / "store")


def test_a_port_beyond_65535_is_a_usage_error(tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from huiyi.faces.cli.app import app

    store = str(tmp_path / "store")  # it raised OverflowError from uvicorn's bind, after opening the store
    result = CliRunner().invoke(app, ["mcp", "-a", AGENT, "-s", store, "--transport", "http", "--port", "99999"])
    assert result.exit_code == 2 and "65535" in result.output and result.exception is not None
    assert not isinstance(result.exception, OverflowError) and not (tmp_path / "store").exists()


@pytest.mark.parametrize("scope", [["-p", ""], ["--space", ""], ["-p", "木木", "--space", " "]])
def test_an_empty_person_or_space_is_a_usage_error_not_a_server_over_the_agents_own_memories(
    tmp_path: Path, scope: list[str]
) -> None:
    """``-p ""`` (a host's ``${env:PERSON}`` left unset) served the agent's official memories: what the model
    saved about this person went where every person's recall reads it."""
    from typer.testing import CliRunner

    from huiyi.faces.cli.app import app

    result = CliRunner().invoke(app, ["mcp", "-a", AGENT, *scope, "-s", str(tmp_path / "store")])
    assert result.exit_code == 2 and "empty" in result.output
    assert not (tmp_path / "store").exists()


def test_an_empty_agent_is_a_usage_error_before_any_store_is_made(tmp_path: Path) -> None:
    """It created the store, then stopped on "a tool executor needs an agent"."""
    from typer.testing import CliRunner

    from huiyi.faces.cli.app import app

    result = CliRunner().invoke(app, ["mcp", "-a", " ", "-p", PERSON, "-s", str(tmp_path / "store")])
    assert result.exit_code == 2 and "--agent" in result.output and "empty" in result.output
    assert not (tmp_path / "store").exists()
