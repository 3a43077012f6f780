"""Writing a checked :class:`~huiyi.formats.plan.Plan` into a store through :class:`~huiyi.memory.AsyncMemory`."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from huiyi.formats.plan import Plan
from huiyi.formats.preflight import check_plan
from huiyi.memory import AsyncMemory
from huiyi.model import Entity, Link, MemoryKind, Scope

__all__ = ["Counts", "apply_plan"]


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


async def apply_plan(memory: AsyncMemory, plan: Plan, advance: Callable[[int], None] = lambda n: None) -> Counts:
    """Write a plan: persons, then messages in file order, then memories.

    ``advance`` is told how many records are done as they go (from worker threads too).
    """
    await check_plan(memory, plan)  # a file that would be refused halfway changes nothing
    counts = Counts()
    for agent, person in plan.persons:
        await memory.set_person(person, agent=agent)
        counts.persons += 1
    limit = memory.config.ingest.max_batch
    for batch in plan.batches:
        for start in range(0, len(batch.messages), limit):
            part = batch.messages[start : start + limit]
            # an export already holds what was extracted from its messages: never extract them twice
            stored = await memory.add(
                part,
                agent=batch.agent,
                person=batch.person,
                space=batch.space,
                progress=advance,
                extract=not plan.export,
                index=True,  # an import is done when it is recallable
            )
            counts.stored += len(stored)
            counts.skipped += len(part) - len(stored)
            advance(len(part) - len(stored))  # skipped messages are not indexed, so not reported by add
    for agent, line in plan.memories:
        if line.kind is MemoryKind.CHUNK:  # chunks are rebuilt from their messages
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
            counts.memories += 1
        advance(1)
    await _apply_graph(memory, plan, counts)
    return counts


async def _apply_graph(memory: AsyncMemory, plan: Plan, counts: Counts) -> None:
    """Entities as they were before their merges, then the merges replayed (so undo still works), then links."""
    live = [(agent, line) for agent, line in plan.merges if not line.undone]
    by_id = {line.id: line for _, line in plan.entities}
    gained: dict[str, set[str]] = {}  # target id -> names a merge gave it
    for _, merge in live:
        if (source := by_id.get(merge.source)) is not None:
            gained.setdefault(merge.target, set()).update([source.name, *source.aliases])
    for agent, line in plan.entities:
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
        await memory.merge_entities(
            merge.source, merge.target, agent=agent, reason=merge.reason, at=merge.at or memory.now()
        )
        counts.merges += 1
    for agent, link in plan.links:
        counts.links += await memory.add_links(
            [Link(source=link.source, target=link.target, kind=link.kind, weight=link.weight)], agent=agent
        )
