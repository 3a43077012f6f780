"""A bot moved by export and import behaves the same: on SQLite and on PostgreSQL, a companion month and
a group day exported scope by scope, imported into a fresh store, recall, render and list as before."""

from __future__ import annotations

import asyncio
import io
import json
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from conftest import STORE_FACTORIES
from huiyi.config import Config
from huiyi.errors import InvalidInput
from huiyi.formats import apply_plan, export_lines, read_text, write_lines
from huiyi.memory import AsyncMemory
from huiyi.model import Link, LinkKind, MemoryKind, Person
from huiyi.providers.embed import HashEmbedder

AGENT = "祈煜"
NOW = datetime(2025, 7, 1, 21, 0)
SCOPES: list[tuple[str | None, str | None]] = [(None, None), ("木木", None), (None, "读书会")]
QUERIES = {("木木", None): ["团子怎么样了", "考试", "海边"], (None, "读书会"): ["这周读什么书", "苏霓"]}


def open_memory(kind: str, path: Path) -> AsyncMemory:
    config = Config(worker={"enabled": False}, timezone="Asia/Shanghai")
    return AsyncMemory(store=STORE_FACTORIES[kind](path), embedder=HashEmbedder(64), config=config)


async def fill(memory: AsyncMemory) -> None:
    """A month with 木木 (extracted as it went, the last evening still in working memory), a day of a group,
    a person block, edits, forgetting, feedback and recalls."""
    await memory.set_person(Person(id="木木", name="林木木", aliases=["木头"]), agent=AGENT)
    day = datetime(2025, 6, 1, 20, 0)
    said = [
        "我家的猫叫团子",
        "我下周三要考驾照科目二",
        "考完想去海边",
        "团子今天生病了",
        "我在杭州上班",
        "最近压力好大",
    ]
    for n, text in enumerate(said):
        when = day + timedelta(days=5 * n)
        await memory.add(
            [
                {"text": text, "id": f"mu{n}", "time": when},
                {"text": f"嗯嗯，{text[:4]}", "role": "assistant", "id": f"qi{n}", "time": when + timedelta(minutes=1)},
            ],
            agent=AGENT,
            person="木木",
            index=True,
        )
        if n < len(said) - 1:
            await memory.flush(agent=AGENT, person="木木")  # each evening a scene of its own
    group = datetime(2025, 6, 28, 19, 0)
    for n, (speaker, text) in enumerate(
        [("苏霓", "这周我们读《活着》"), ("阿哲", "霓霓选的书都好看"), ("苏霓", "周六下午三点线上讨论")]
    ):
        await memory.add(
            [{"text": text, "speaker": speaker, "id": f"g{n}", "time": group + timedelta(minutes=n)}],
            agent=AGENT,
            space="读书会",
            index=True,
        )
    await memory.flush(agent=AGENT, space="读书会")
    await memory.remember("祈煜是一名画家", agent=AGENT, importance=0.9)
    fact = await memory.remember("木木的生日是三月五日", agent=AGENT, person="木木", kind=MemoryKind.FACT)
    gone = await memory.remember("木木喜欢下雨天", agent=AGENT, person="木木", kind=MemoryKind.NOTE)
    await memory.update(fact.id, {"text": "木木的生日是三月六日", "importance": 0.9}, agent=AGENT)
    await memory.delete(gone.id, agent=AGENT)
    await memory.core_block_append("human", "木木怕黑，喜欢猫", agent=AGENT, person="木木")
    for query in ("团子", "考驾照", "猫"):
        await memory.recall(query, agent=AGENT, person="木木", now=NOW - timedelta(days=3))
    await memory.recall("读书", agent=AGENT, space="读书会", now=NOW - timedelta(days=2))
    memory.reinforcer.flush()
    listed = await memory.memories(agent=AGENT, person="木木")
    await memory.feedback(fact.id, 1.0, agent=AGENT)
    chunk = next(m for m in listed if m.kind is MemoryKind.CHUNK)
    await memory.feedback(chunk.id, -1.0, agent=AGENT)


async def snapshot(memory: AsyncMemory) -> dict[str, Any]:
    """What a restored bot must show as before: listings with their state, blocks, working memory, the
    prompt and recall rankings (recall's own reinforcement held back, so the snapshot changes nothing)."""
    memory.reinforcer.note = lambda *args, **kwargs: None  # type: ignore[method-assign]
    out: dict[str, Any] = {}
    for person, space in SCOPES:
        label = space or person or "official"
        items = await memory.memories(agent=AGENT, person=person, space=space, limit=500)
        out[f"{label} memories"] = [
            (m.id, m.kind.value, m.text, round(m.strength, 6), m.access_count, m.last_access, m.feedback, m.created_at)
            for m in items
        ]
        if person or space:
            working = await memory.working_memory(agent=AGENT, person=person, space=space)
            out[f"{label} working memory"] = [m.id for m in working]
            context = await memory.context(agent=AGENT, person=person, space=space, message="最近怎么样", now=NOW)
            out[f"{label} context"] = context.text
            for query in QUERIES[(person, space)]:
                hits = (await memory.recall(query, agent=AGENT, person=person, space=space, now=NOW)).hits
                out[f"{label} recall {query}"] = [hit.id for hit in hits]
                out[f"{label} scores {query}"] = [hit.score for hit in hits]
    out["person blocks"] = [(b.label, b.text) for b in await memory.core_blocks_for(agent=AGENT, person="木木")]
    return out


async def exported(memory: AsyncMemory) -> str:
    handle = io.StringIO()
    for person, space in SCOPES:
        await write_lines(export_lines(memory, AGENT, person, space), handle)
    return handle.getvalue()


async def imported(memory: AsyncMemory, text: str) -> None:
    files = text.split('{"type": "export"')[1:]  # one file per scope, as the CLI writes them
    for part in files:
        await apply_plan(memory, read_text('{"type": "export"' + part, "bot.jsonl", None, None, None, []))


@pytest.mark.parametrize("source_kind", sorted(STORE_FACTORIES))
@pytest.mark.parametrize("target_kind", sorted(STORE_FACTORIES))
def test_a_bot_exported_and_imported_behaves_the_same(source_kind: str, target_kind: str, tmp_path: Path) -> None:
    async def run() -> tuple[dict[str, Any], dict[str, Any]]:
        async with open_memory(source_kind, tmp_path / "a") as source:
            await fill(source)
            text = await exported(source)
            before = await snapshot(source)
        async with open_memory(target_kind, tmp_path / "b") as target:
            await imported(target, text)
            after = await snapshot(target)
        return before, after

    before, after = asyncio.run(run())
    assert before["木木 working memory"] and before["person blocks"]  # the fill left what is compared
    # scores only nearly: the embedded store's BM25 takes N and the mean length from its whole keyword
    # table, which a store built by import holds in another shape (README: Storage and scale)
    # across backends the keyword scores differ by design (same README section): the same memories found
    scores = {key for key in before if " scores " in key}
    rankings = {key for key in before if " recall " in key} if source_kind != target_kind else set()
    if source_kind == target_kind:
        assert all(after[key] == pytest.approx(before[key], rel=0.05) for key in scores)
    assert all(set(after[key]) == set(before[key]) for key in rankings)
    differing = sorted(key for key in before.keys() - scores - rankings if before[key] != after.get(key))
    assert not differing, {key: (before[key], after.get(key)) for key in differing}


def test_a_newer_export_or_a_person_block_the_store_holds_otherwise_is_refused_before_any_write(
    tmp_path: Path,
) -> None:
    block = '{"type": "block", "agent": "a", "person": "bob", "label": "human", "text": "bob怕狗"}'
    message = '{"type": "message", "agent": "a", "person": "bob", "text": "你好", "id": "b1"}'

    async def run() -> None:
        async with open_memory("sqlite", tmp_path / "st") as memory:
            with pytest.raises(InvalidInput, match="export version 4"):
                read_text('{"type": "export", "version": 4}\n' + message, "new.jsonl", None, None, None, [])
            await memory.core_block_append("human", "bob怕猫", agent="a", person="bob")
            with pytest.raises(InvalidInput, match="holds another text"):
                await apply_plan(memory, read_text(f"{message}\n{block}", "b.jsonl", None, None, None, []))
            assert await memory.messages(["b1"], agent="a") == []
            assert [b.text for b in await memory.core_blocks_for(agent="a", person="bob")] == ["bob怕猫"]

    asyncio.run(run())


def test_a_link_to_a_chunk_reaches_the_rebuilt_chunk_of_its_own_scope_only(tmp_path: Path) -> None:
    """A note linked to a chat's chunk: the chunk is rebuilt by the import, and the link is restored to it,
    found by the message it is anchored at. A line naming another scope's message is refused."""
    day = datetime(2025, 6, 1, 20, 0)

    async def run() -> None:
        async with open_memory("sqlite", tmp_path / "a") as source:
            await source.add(
                [{"text": "我家的猫叫团子", "id": "mu0", "time": day}], agent=AGENT, person="木木", index=True
            )
            await source.add(
                [{"text": "这周我们读《活着》", "speaker": "苏霓", "id": "g0", "time": day}],
                agent=AGENT,
                space="读书会",
                index=True,
            )
            (chunk,) = [m for m in await source.memories(agent=AGENT, person="木木") if m.kind is MemoryKind.CHUNK]
            note = await source.remember("团子是一只橘猫", agent=AGENT, person="木木")
            await source.add_links([Link(source=note.id, target=chunk.id, kind=LinkKind.REFERENCE)], agent=AGENT)
            text = await exported(source)
        async with open_memory("sqlite", tmp_path / "b") as target:
            await imported(target, text)
            rebuilt = [m for m in await target.memories(agent=AGENT, person="木木") if m.kind is MemoryKind.CHUNK]
            links = [(link.source, link.target, link.kind.value) for link in await target.links([note.id], agent=AGENT)]
            assert links == [(note.id, rebuilt[0].id, "reference")]
            stray = {"type": "link", "agent": AGENT, "person": "木木", "source": note.id, "target": "x"}
            stray["target_anchor"] = "g0"  # the group's message: its chunk is no memory of 木木's
            header = {"type": "export", "version": 3, "agent": AGENT, "person": "木木"}
            lines = "\n".join(json.dumps(line, ensure_ascii=False) for line in (header, stray))
            with pytest.raises(InvalidInput, match="belongs to space:读书会; nothing was imported"):
                await apply_plan(target, read_text(lines, "stray.jsonl", None, None, None, []))
            assert len(await target.links([note.id], agent=AGENT)) == 1

    asyncio.run(run())


@pytest.mark.parametrize("first", ["g0", "gone"])
def test_a_working_line_naming_no_message_of_its_chat_is_refused_before_any_write(first: str, tmp_path: Path) -> None:
    """A hand-edited working line that names another chat's message (or none in the file) made every message
    of its chat history: nothing left in working memory and nothing extracted, without a word."""
    chat = {"agent": AGENT, "person": "木木"}
    lines: list[dict[str, Any]] = [{"type": "export", "version": 3, **chat}]
    lines += [
        {"type": "message", **chat, "text": f"第{n}句", "id": f"mu{n}", "time": f"2025-06-01T20:0{n}:00"}
        for n in range(3)
    ]
    lines += [{"type": "message", "agent": AGENT, "space": "读书会", "speaker": "苏霓", "text": "读书", "id": "g0"}]
    lines += [{"type": "working", **chat, "first": first}]
    text = "\n".join(json.dumps(line, ensure_ascii=False) for line in lines)

    async def run() -> None:
        async with open_memory("sqlite", tmp_path / "st") as memory:
            with pytest.raises(InvalidInput, match=f"working line of person:木木 names message '{first}'"):
                await apply_plan(memory, read_text(text, "edited.jsonl", None, None, None, []))
            assert await memory.messages(["mu0", "g0"], agent=AGENT) == []

    asyncio.run(run())
