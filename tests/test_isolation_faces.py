"""Scope isolation through every face, on both backends: the look-alike fuzz of ``test_isolation`` read
back through Python, HTTP (keys scoped to one agent), the LLM tools and MCP.

Each message carries a marker naming the conversation it was said in; every read, on every face, may
only hold markers of conversations its caller may see. Reads, markers seen and leaks are tallied per
backend and face and printed at the end of the module (run with ``-s`` to see them).
"""

from __future__ import annotations

import json
import random
import uuid
from collections import Counter
from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path
from typing import Any

import anyio
import httpx
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from mcp import Client

from conftest import STORE_FACTORIES
from huiyi.config import Config
from huiyi.faces.http import create_app
from huiyi.faces.mcp_server import context_uri, create_server
from huiyi.faces.tools import ToolExecutor
from huiyi.memory import AsyncMemory
from huiyi.providers.embed import HashEmbedder
from test_isolation import AGENTS, GROUPS, MARK, PERSONS, T0, _allowed

CONFIG = Config(worker={"enabled": False}, embed={"provider": "hash", "dim": 32})
WORDS = ["猫", "火锅", "生日", "考试", "海边", "密码", "red", "cat"]
KEYS = {f"key-{i}": [agent] for i, agent in enumerate(AGENTS)}
KEY_OF = {agent: f"key-{i}" for i, agent in enumerate(AGENTS)}
FACES = ("python", "http", "tools", "mcp")

# (backend, face) -> reads, markers seen, leaks; refused: requests with another agent's key
TALLY: dict[tuple[str, str], Counter[str]] = {}


@pytest.fixture(scope="module", autouse=True)
def _print_tally() -> Iterator[None]:
    yield
    if not TALLY:
        return
    print("\nisolation through the faces: reads / markers seen / leaks")
    for (backend, face), counts in sorted(TALLY.items()):
        extra = f"  refused (wrong agent's key) {counts['refused']}" if counts["refused"] else ""
        print(f"  {backend:8} {face:6} {counts['reads']:6} / {counts['markers']:6} / {counts['leaks']}{extra}")


Key = tuple[str, str, str]


class Fuzz:
    """One randomised store and the reads made of it."""

    def __init__(self, backend: str, memory: AsyncMemory, rng: random.Random) -> None:
        self.backend = backend
        self.memory = memory
        self.rng = rng
        self.owner: dict[str, Key] = {}
        self.leaks: list[str] = []

    def text_for(self, key: Key) -> str:
        marker = f"MK{len(self.owner)}X"
        self.owner[marker[2:-1]] = key
        return f"{' '.join(self.rng.choices(WORDS, k=3))} {marker}"

    async def fill(self, messages: int) -> None:
        rng, when = self.rng, T0
        for _ in range(messages):
            agent = rng.choice(AGENTS)
            when += timedelta(minutes=1)
            if rng.random() < 0.5:
                person = rng.choice(PERSONS)
                said = {"text": self.text_for((agent, "person", person)), "time": when}
                await self.memory.add([said], agent=agent, person=person)
            else:
                group = rng.choice(GROUPS)
                said = {"text": self.text_for((agent, "space", group)), "speaker": rng.choice(PERSONS), "time": when}
                await self.memory.add([said], agent=agent, space=group)
        await self.memory.remember(self.text_for(("a", "official", "")), agent="a")
        for agent in AGENTS:
            for person in PERSONS:
                await self.memory.flush(agent=agent, person=person)
            for group in GROUPS:
                await self.memory.flush(agent=agent, space=group)

    def check(self, face: str, what: str, seen: Any, allowed: set[Key]) -> None:
        """One read: every marker in what it returned must belong to an allowed scope."""
        text = seen if isinstance(seen, str) else json.dumps(seen, ensure_ascii=False, default=str)
        counts = TALLY.setdefault((self.backend, face), Counter())
        counts["reads"] += 1
        for marker in MARK.findall(text):
            counts["markers"] += 1
            if self.owner[marker] not in allowed:
                counts["leaks"] += 1
                self.leaks.append(f"{face} {what}: {self.owner[marker]} seen by a reader allowed {sorted(allowed)}")

    async def read_all(self, http: httpx.AsyncClient, reader: tuple[str, str, str | None]) -> None:
        agent, person, group = reader
        allowed = _allowed(agent, person, group)
        word = self.rng.choice(WORDS)
        memory = self.memory
        # Python
        recalled = await memory.recall(word, agent=agent, person=person, space=group, limit=50)
        self.check("python", "recall", [hit.text for hit in recalled.hits], allowed)
        context = await memory.context(agent=agent, person=person, space=group, message=word)
        self.check("python", "context", context.text, allowed)
        working = await memory.working_memory(agent=agent, person=person, space=group)
        self.check("python", "working_memory", [m.text for m in working], allowed)
        # HTTP, with the key of this agent only
        auth = {"Authorization": f"Bearer {KEY_OF[agent]}"}
        body = {"agent": agent, "person": person, "space": group, "query": word, "limit": 50}
        for path in ("/query", "/query_simple"):
            self.check("http", path, _ok(await http.post(path, json=body, headers=auth)), allowed)
        context_body = {"agent": agent, "person": person, "space": group, "message": word}
        self.check("http", "/context", _ok(await http.post("/context", json=context_body, headers=auth)), allowed)
        for scope in ({"person": person}, {"space": group} if group else {}):
            listed = await http.get("/v1/memories", params={"agent": agent, **scope, "limit": 500}, headers=auth)
            self.check("http", "/v1/memories", _ok(listed), allowed)
        other = self.rng.choice([a for a in AGENTS if a != agent])
        refused = await http.post("/query", json={**body, "agent": other}, headers=auth)
        assert refused.status_code == 403, refused.text
        TALLY[(self.backend, "http")]["refused"] += 1
        # the LLM tools, fixed to this agent, person and space
        tools = ToolExecutor(memory, agent, person=person, space=group)
        for name in ("search_memories", "conversation_search", "archival_memory_search"):
            result = await tools.run(name, {"query": word, "max_results": 50})
            assert "error" not in result, result
            self.check("tools", name, result, allowed)
        # MCP, through the SDK's client
        async with Client(create_server(tools)) as client:
            resource = await client.read_resource(context_uri(agent, person, group, message=word))
            self.check("mcp", "context resource", [c.model_dump() for c in resource.contents], allowed)
            found = await client.call_tool("search_memories", {"query": word, "max_results": 50})
            assert not found.is_error, found
            self.check("mcp", "search_memories", found.structured_content, allowed)


def _ok(response: httpx.Response) -> Any:
    assert response.status_code == 200, response.text
    return response.json()


def _fuzz(backend: str, path: Path, seed: int, messages: int, readers: int) -> None:
    async def main() -> None:
        rng = random.Random(seed)
        store = STORE_FACTORIES[backend](path / f"store-{uuid.uuid4().hex}")
        memory = AsyncMemory(path, store=store, embedder=HashEmbedder(32), config=CONFIG)
        fuzz = Fuzz(backend, memory, rng)
        try:
            await fuzz.fill(messages)
            transport = httpx.ASGITransport(app=create_app(memory, api_keys=KEYS))
            async with httpx.AsyncClient(transport=transport, base_url="http://huiyi") as http:
                for _ in range(readers):
                    reader = (rng.choice(AGENTS), rng.choice(PERSONS), rng.choice([None, *GROUPS]))
                    await fuzz.read_all(http, reader)
        finally:
            await memory.close()
        assert fuzz.leaks == []
        seen = sum(TALLY[(backend, face)]["markers"] for face in FACES)
        assert seen > 0  # the reads found something: a fuzz that reads nothing proves nothing

    anyio.run(main)


@pytest.mark.parametrize("backend", sorted(STORE_FACTORIES))
@settings(max_examples=2, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(seed=st.integers(0, 2**16))
def test_no_face_lets_a_marker_cross_look_alike_scopes(tmp_path: Path, backend: str, seed: int) -> None:
    _fuzz(backend, tmp_path, seed, messages=30, readers=4)


@pytest.mark.slow
@pytest.mark.parametrize("backend", sorted(STORE_FACTORIES))
@settings(max_examples=4, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(seed=st.integers(0, 2**16))
def test_no_face_lets_a_marker_cross_look_alike_scopes_at_length(tmp_path: Path, backend: str, seed: int) -> None:
    _fuzz(backend, tmp_path, seed, messages=80, readers=12)
