"""Writing a checked :class:`~huiyi.formats.plan.Plan` into a store through :class:`~huiyi.memory.AsyncMemory`."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC
from typing import Any
from zoneinfo import ZoneInfo

from huiyi.checks import caller_time
from huiyi.flows.ingest import chunk_id
from huiyi.formats.plan import Batch, LinkLine, MemoryLine, Plan
from huiyi.formats.preflight import check_plan, line_tag, stored_entities
from huiyi.memory import AsyncMemory
from huiyi.model import Entity, Link, MemoryKind, Scope

__all__ = ["Counts", "apply_plan"]

log = logging.getLogger(__name__)


@dataclass
class Counts:
    """What an import wrote and what it left."""

    stored: int = 0
    skipped: int = 0
    memories: int = 0
    persons: int = 0
    chunks_skipped: int = 0
    entities: int = 0
    links: int = 0
    merges: int = 0
    blocks: int = 0


async def apply_plan(memory: AsyncMemory, plan: Plan, advance: Callable[[int], None] = lambda n: None) -> Counts:
    """Write a plan: persons, then messages in file order, then memories.

    ``advance`` is told how many records are done as they go (from worker threads too).
    """
    await check_plan(memory, plan)  # a file that would be refused halfway changes nothing
    counts = Counts()
    for agent, person in plan.persons:
        known = await memory.get_person(person.id, agent=agent)
        await memory.set_person(person, agent=agent)
        counts.persons += known != await memory.get_person(person.id, agent=agent)  # one imported again is no news
    for agent, block in plan.blocks:
        held = (await asyncio.to_thread(memory.store.person_blocks, agent, block.person)).get(block.label)
        if held != block.text:  # the preflight refused another text; None: not there yet
            await asyncio.to_thread(memory.store.set_person_block, agent, block.person, block.label, block.text, held)
        counts.blocks += 1
    limit = memory.config.ingest.max_batch
    for batch in plan.batches:
        for part, extract in _parts(plan, batch, limit):
            stored = await memory.add(
                part,
                agent=batch.agent,
                person=batch.person,
                space=batch.space,
                progress=advance,
                extract=extract,
                index=True,  # an import is done when it is recallable
            )
            counts.stored += len(stored)
            counts.skipped += len(part) - len(stored)
            advance(len(part) - len(stored))  # skipped messages are not indexed, so not reported by add
    there = await _stored_already(memory, plan)
    for agent, line in plan.memories:
        if line.kind is MemoryKind.CHUNK:  # chunks are rebuilt from their messages; their state is restored
            if not await _restore_chunk(memory, agent, line):
                counts.chunks_skipped += 1
        else:
            made = await memory.remember(
                line.text,
                agent=agent,
                person=None if line.space else line.person,
                space=line.space,
                kind=line.kind,
                time=line.time,
                importance=line.importance,
                keywords=line.keywords,
                sources=line.sources,
                data=line.data or None,
                id=line.id,
                place=line.place,
                insight=line.insight,
                participants=line.participants,
                said_at=line.said_at,
            )
            if line.valid_to is not None and line.kind is MemoryKind.FACT:  # a fact closed stays closed
                await memory.update(made.id, {"valid_to": line.valid_to}, agent=agent)
            if state := _state(memory, line):
                await asyncio.to_thread(memory.store.update_memories, agent, [(made.id, state)])
            counts.memories += (agent, line.id) not in there
        advance(1)
    await _apply_graph(memory, plan, counts)
    return counts


async def _stored_already(memory: AsyncMemory, plan: Plan) -> set[tuple[str, str | None]]:
    """The plan's memories (not chunks) the store holds already, as (agent, id): one imported before is
    remembered again as it was, and counted as stored again ("2 memories" on every re-import)."""
    ids: dict[str, list[str]] = {}
    for agent, line in plan.memories:
        if line.kind is not MemoryKind.CHUNK and line.id is not None:
            ids.setdefault(agent, []).append(line.id)
    found: set[tuple[str, str | None]] = set()
    for agent, wanted in ids.items():
        found.update((agent, item.id) for item in await asyncio.to_thread(memory.store.get_memories, agent, wanted))
    return found


def _parts(plan: Plan, batch: Batch, limit: int) -> list[tuple[list[dict[str, Any]], bool]]:
    """A chat's messages in calls of at most ``limit``, each with whether it is extracted. An export already
    holds what was extracted from its messages, so they come in as history, except its working memory
    (from the message its working line names), which is folded again as it was going to be."""
    cut = len(batch.messages) if plan.export else 0
    first = plan.working.get((batch.agent, line_tag(batch.agent, batch.person, batch.space)))
    if plan.export and first is not None:
        cut = next((n for n, message in enumerate(batch.messages) if message.get("id") == first), cut)
    return [
        (part[start : start + limit], extract)
        for part, extract in ((batch.messages[:cut], False), (batch.messages[cut:], True))
        for start in range(0, len(part), limit)
    ]


def _state(memory: AsyncMemory, line: MemoryLine) -> dict[str, Any]:
    """The line's memory state as the store keeps it: ``last_access`` on the zone's wall clock,
    ``created_at`` in UTC, both zone-less."""
    state = line.state()
    if (last := state.get("last_access")) is not None:
        state["last_access"] = memory.wall(last)
    if (written := state.get("created_at")) is not None and written.tzinfo is not None:
        state["created_at"] = written.astimezone(UTC).replace(tzinfo=None)
    return state


async def _stored_entities(memory: AsyncMemory, plan: Plan) -> dict[str, Entity]:
    """The plan's entities the store holds already, by id."""
    ids: dict[str, list[str]] = {}
    for agent, line in plan.entities:
        ids.setdefault(agent, []).append(line.id)
    return {e.id: e for agent, wanted in ids.items() for e in await stored_entities(memory, agent, wanted)}


async def _restore_chunk(memory: AsyncMemory, agent: str, line: MemoryLine) -> bool:
    """Give the chunk its messages rebuilt the state the line records; whether there was one to give it.

    The chunk is found by the message it is anchored at (its first source), never by the line's id, and
    only in the line's own scope."""
    state = _state(memory, line)
    if not state or not line.sources:
        return False
    rebuilt = await _chunk_at(memory, agent, line.sources[0], line_tag(agent, line.person, line.space))
    if rebuilt is None:
        return False
    await asyncio.to_thread(memory.store.update_memories, agent, [(rebuilt, state)])
    return True


async def _chunk_at(memory: AsyncMemory, agent: str, anchor: str, tag: str) -> str | None:
    """The id of the chunk anchored at message ``anchor``, if the store holds one in scope ``tag``."""
    rebuilt = await memory.get_many([chunk_id(agent, anchor)], agent=agent)
    if not rebuilt or rebuilt[0].kind is not MemoryKind.CHUNK or rebuilt[0].scope.tag != tag:
        return None
    return rebuilt[0].id


async def _link_end(memory: AsyncMemory, agent: str, line: LinkLine, end: str, anchor: str | None) -> str | None:
    """A link's end as this store knows it: a chunk end is the chunk rebuilt at its anchor message."""
    return end if anchor is None else await _chunk_at(memory, agent, anchor, line_tag(agent, line.person, line.space))


async def _apply_graph(memory: AsyncMemory, plan: Plan, counts: Counts) -> None:
    """Entities as they were before their merges, then the merges replayed (so undo still works), then links.
    An entity stored already, and a merge it is in already, stay as they are: an import run again stores
    only what is missing (putting the merged entity again took back the names its merge gave it, and the
    merge replayed was refused)."""
    stored = await _stored_entities(memory, plan)
    live = [
        (agent, line)
        for agent, line in plan.merges
        if not line.undone and getattr(stored.get(line.source), "merged_into", None) != line.target
    ]
    by_id = {line.id: line for _, line in plan.entities}
    gained: dict[str, set[str]] = {}  # target id -> names a merge gave it
    for _, merge in live:
        if (source := by_id.get(merge.source)) is not None:
            gained.setdefault(merge.target, set()).update([source.name, *source.aliases])
    for agent, line in plan.entities:
        if line.id in stored:
            continue
        scope = (
            Scope.of_chat(agent, None if line.space else line.person, line.space) if line.person or line.space else None
        )
        entity = Entity(
            id=line.id,
            scope=scope or Scope.from_tag(agent, "official"),
            name=line.name,
            type=line.entity_type,
            aliases=[a for a in line.aliases if a not in gained.get(line.id, set())],
            sources=line.sources,
        )
        await memory.put_entity(entity)
        counts.entities += 1
    for agent, merge in live:
        # an export's merge time carries its zone: kept as this store's wall clock, as messages are
        at = caller_time(merge.at, ZoneInfo(memory.config.timezone)) if merge.at else memory.now()
        await memory.merge_entities(merge.source, merge.target, agent=agent, reason=merge.reason, at=at)
        counts.merges += 1
    for agent, link in plan.links:
        source_id = await _link_end(memory, agent, link, link.source, link.source_anchor)
        target_id = await _link_end(memory, agent, link, link.target, link.target_anchor)
        if source_id is None or target_id is None:  # no chunk starts at that message here (other chunk settings)
            log.warning("import: the chunk a %s link names is not rebuilt here; the link is left out", link.kind)
            continue
        counts.links += await memory.add_links(
            [Link(source=source_id, target=target_id, kind=link.kind, weight=link.weight)], agent=agent
        )
