"""An export says which moment each time is: a file moved to a store of another timezone keeps the moments,
and its created_at (UTC) and its other times (the zone's wall clock) no longer read alike without a zone."""

from __future__ import annotations

import asyncio
import io
import json
from datetime import UTC, datetime
from pathlib import Path

from huiyi.config import Config
from huiyi.formats import apply_plan, export_lines, read_text, write_lines
from huiyi.memory import AsyncMemory
from huiyi.model import MemoryKind
from huiyi.providers.embed import HashEmbedder

AGENT, PERSON = "ava", "bob"
SENT = datetime(2026, 3, 9, 5, 30, tzinfo=UTC)  # 22:30 of 03-08 in Los Angeles, 13:30 of 03-09 in Shanghai


def open_memory(path: Path, zone: str) -> AsyncMemory:
    config = Config(timezone=zone, language="en")
    written = datetime(2026, 3, 9, 6, tzinfo=UTC)
    return AsyncMemory(path, config=config, embedder=HashEmbedder(64), clock=lambda: written)


async def exported(tmp_path: Path) -> str:
    memory = open_memory(tmp_path / "la", "America/Los_Angeles")
    try:
        said = [{"text": "I adopted a cat named Toffee", "time": SENT.isoformat()}]
        await memory.add(said, agent=AGENT, person=PERSON)
        await memory.flush(agent=AGENT, person=PERSON)
        handle = io.StringIO()
        await write_lines(export_lines(memory, AGENT, PERSON, None), handle)
        return handle.getvalue()
    finally:
        await memory.close()


def test_every_time_in_an_export_carries_its_zone(tmp_path: Path) -> None:
    lines = [json.loads(line) for line in asyncio.run(exported(tmp_path)).splitlines()]
    times = [
        (line["type"], name, line[name])
        for line in lines
        for name in ("time", "said_at", "valid_to", "last_access", "created_at")
        if line.get(name)
    ]
    assert times and all(datetime.fromisoformat(value).tzinfo is not None for _, _, value in times), times
    said = [datetime.fromisoformat(value) for kind, name, value in times if kind == "message" and name == "time"]
    assert said == [SENT]


def test_an_export_moved_to_another_zone_keeps_its_moments(tmp_path: Path) -> None:
    text = asyncio.run(exported(tmp_path))

    async def imported() -> list[tuple[MemoryKind, datetime | None]]:
        memory = open_memory(tmp_path / "sh", "Asia/Shanghai")
        try:
            await apply_plan(memory, read_text(text, "bot.jsonl", None, None, None, []))
            return [(item.kind, item.time) for item in await memory.memories(agent=AGENT, person=PERSON)]
        finally:
            await memory.close()

    found = asyncio.run(imported())
    assert found and {when for _, when in found} == {datetime(2026, 3, 9, 13, 30)}  # Shanghai's wall clock


def test_a_merge_keeps_its_moment_in_another_zone(tmp_path: Path) -> None:
    """A merge's time was exported without its zone: a Shanghai store read Los Angeles's 22:30 as its own."""

    async def run() -> None:
        memory = open_memory(tmp_path / "la", "America/Los_Angeles")
        try:
            cat = await memory.create_entity("Toffee", agent=AGENT, person=PERSON)
            other = await memory.create_entity("Toff", agent=AGENT, person=PERSON)
            await memory.merge_entities(
                other.id, cat.id, agent=AGENT, reason="same cat", at=datetime(2026, 3, 8, 22, 30)
            )
            handle = io.StringIO()
            await write_lines(export_lines(memory, AGENT, PERSON, None), handle)
        finally:
            await memory.close()
        merge = next(json.loads(line) for line in handle.getvalue().splitlines() if '"merge"' in line)
        assert datetime.fromisoformat(merge["at"]) == SENT
        memory = open_memory(tmp_path / "sh", "Asia/Shanghai")
        try:
            await apply_plan(memory, read_text(handle.getvalue(), "bot.jsonl", None, None, None, []))
            (stored,) = await memory.merges(agent=AGENT)
            assert stored.at == datetime(2026, 3, 9, 13, 30)  # Shanghai's wall clock at that moment
        finally:
            await memory.close()

    asyncio.run(run())
