"""Writing one scope's export: JSON lines of a header, the person and their blocks, messages, where working
memory starts, and memories with their state."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from typing import Any, TextIO
from zoneinfo import ZoneInfo

from huiyi import __version__
from huiyi.errors import InvalidInput
from huiyi.formats.plan import STATE_FIELDS
from huiyi.formats.read import EXPORT_VERSION
from huiyi.memory import AsyncMemory
from huiyi.memory.zoned import aware, item_out, message_out
from huiyi.model import MemoryItem, MemoryKind, Message, Scope

__all__ = ["PAGE", "export_lines", "scope_label", "write_lines"]

PAGE = 500  # memories read per call while exporting


def scope_label(person: str | None, space: str | None) -> str:
    """How a scope is named to a user and in an export's header."""
    return f"space:{space}" if space else f"person:{person}" if person else "official"


def _scope_fields(agent: str, person: str | None, space: str | None) -> dict[str, str]:
    fields = {"agent": agent}
    if space:
        fields["space"] = space
    elif person:
        fields["person"] = person
    return fields


async def _all_memories(memory: AsyncMemory, agent: str, person: str | None, space: str | None) -> list[MemoryItem]:
    items: list[MemoryItem] = []
    offset = 0
    while True:
        page = await memory.memories(agent=agent, person=person, space=space, limit=PAGE, offset=offset)
        items.extend(page)
        if len(page) < PAGE:
            return items
        offset += PAGE


async def _log(memory: AsyncMemory, agent: str, person: str | None, space: str | None) -> list[Message]:
    """Every message of the scope's chat, oldest first: from the log, not from chunks, since a message
    whose chunk was deleted or forgotten, or is not indexed yet, is still the person's."""
    if not person and not space:
        return []
    tag = Scope.of_chat(agent, None if space else person, space).tag
    pages: list[list[Message]] = []  # newest first: a long chat is read page by page, back to its start
    before: int | None = None
    while True:
        page = await asyncio.to_thread(memory.store.recent_messages, agent, tag, PAGE, before)
        pages.append(page)
        if len(page) < PAGE:
            return [message for older in reversed(pages) for message in older]
        before = page[0].seq


async def export_lines(
    memory: AsyncMemory, agent: str, person: str | None, space: str | None
) -> AsyncIterator[dict[str, Any]]:
    """A scope's export, line by line: header, person, messages (in log order), then memories (oldest first).
    Every time carries its zone, so a store of another timezone imports the same moments."""
    if person and space:
        raise InvalidInput("export one scope: a person or a space, not both")
    scope = _scope_fields(agent, person, space)
    zone = ZoneInfo(memory.config.timezone)
    yield {
        "type": "export",
        "version": EXPORT_VERSION,
        "huiyi": __version__,
        "scope": scope_label(person, space),
        **scope,
    }
    items = await _all_memories(memory, agent, person, space)
    log = await _log(memory, agent, person, space)
    # a person's record, and in a space every member's who spoke there (their names and platform ids: a
    # group's export imported elsewhere had none, so a member known by a QQ number alone lost their name)
    people = [person] if person and not space else sorted({m.speaker for m in log if m.role == "user"})
    for who in people:
        if (known := await memory.get_person(who, agent=agent)) is not None:
            yield {
                "type": "person",
                "agent": agent,
                "id": known.id,
                "name": known.name,
                "aliases": known.aliases,
                "platform_ids": known.platform_ids,
            }
    if person and not space:
        blocks = await asyncio.to_thread(memory.store.person_blocks, agent, person)
        for label, text in sorted(blocks.items()):
            yield {"type": "block", **scope, "label": label, "text": text}
    for message in log:
        yield {
            "type": "message",
            **scope,
            "speaker": message.speaker,
            "role": message.role,
            "text": message.text,
            "time": message_out(message, zone).time.isoformat(),
            "id": message.id,
        }
    if person or space:  # the messages from here on are not extracted yet: the import folds them as live
        start = await asyncio.to_thread(memory.store.working_start, agent, Scope.of_chat(agent, person, space).tag)
        yield {"type": "working", **scope, "first": next((m.id for m in log if m.seq >= start), None)}
    for item in (item_out(stored, zone) for stored in reversed(items)):  # oldest first, as they were made
        if item.kind is not MemoryKind.CHUNK:
            yield {"type": "memory", **scope, **item.model_dump(mode="json", exclude={"scope"})}
        else:  # rebuilt from its messages by the import; only what recall made of it travels
            state = item.model_dump(mode="json", include={"id", "kind", "text", "sources", *STATE_FIELDS})
            yield {"type": "memory", **scope, **state}
    async for line in _graph_lines(memory, scope, items):
        yield line


async def _graph_lines(
    memory: AsyncMemory, scope: dict[str, str], items: list[MemoryItem]
) -> AsyncIterator[dict[str, Any]]:
    """The scope's entities (merged ones too), the links between its exported memories (chunks too), and its
    merges."""
    agent, person, space = scope["agent"], scope.get("person"), scope.get("space")
    entities = await memory.entities(agent=agent, person=person, space=space, merged=True)
    for entity in entities:
        yield {
            "type": "entity",
            **scope,
            "id": entity.id,
            "name": entity.name,
            "entity_type": entity.type.value,
            "aliases": entity.aliases,
            "sources": entity.sources,
            "merged_into": entity.merged_into,
        }
    kept = {item.id for item in items if item.kind is not MemoryKind.CHUNK}
    # a chunk is rebuilt by the import, so a link's chunk end travels as the message the chunk is anchored at
    anchors = {item.id: item.sources[0] for item in items if item.kind is MemoryKind.CHUNK and item.sources}
    ends = sorted(kept | anchors.keys())
    links = await memory.links(ends, agent=agent) if ends else []
    for link in links:
        if all(end in kept or end in anchors for end in (link.source, link.target)):
            line = {"type": "link", **scope, **link.model_dump(mode="json")}
            for end, field in ((link.source, "source_anchor"), (link.target, "target_anchor")):
                if end in anchors:
                    line[field] = anchors[end]
            yield line
    names = {entity.id for entity in entities}
    for merge in await memory.merges(agent=agent):
        if merge.source in names:
            # a merge's time is the store's wall clock, as a message's: it travels with its zone too
            shown = merge.model_copy(update={"at": aware(merge.at, ZoneInfo(memory.config.timezone))})
            yield {"type": "merge", **scope, **shown.model_dump(mode="json", exclude={"agent"})}


async def write_lines(lines: AsyncIterator[dict[str, Any]], handle: TextIO) -> int:
    """Write lines as JSON lines (UTF-8 text, not escaped); returns how many."""
    count = 0
    async for line in lines:
        handle.write(json.dumps(line, ensure_ascii=False) + "\n")
        count += 1
    return count
