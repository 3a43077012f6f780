"""Checking a plan against the store before an import writes anything.

An id the store already gives another conversation, memory scope or entity scope (or, for memories and
entities, another agent) is refused by the write that meets it; by then the lines before it were
written. These checks find every such id first, so a file that would be refused changes nothing, and
no line lands in another person's scope.
"""

from __future__ import annotations

import asyncio
import functools
from collections import defaultdict

from huiyi.checks import check_id, check_storable
from huiyi.errors import InvalidInput, said
from huiyi.flows.ingest import prepare
from huiyi.formats.plan import Plan
from huiyi.memory import AsyncMemory
from huiyi.model import Entity, MemoryKind, Scope

__all__ = ["check_plan", "line_tag", "stored_entities"]

_PAGE = 500  # ids looked up per call


def line_tag(agent: str, person: str | None, space: str | None) -> str:
    """The scope tag a line of the plan is written to (apply_plan's rule: a space wins over a person)."""
    try:
        return Scope.of_chat(agent, None if space else person, space).tag if person or space else "official"
    except ValueError as exc:  # an id no face takes: the caller's mistake, before anything is written
        raise InvalidInput(f"{exc}; nothing was imported") from exc


def _claim(claims: dict[tuple[str, str], str], agent: str, key: str, tag: str, what: str) -> None:
    held = claims.setdefault((agent, key), tag)
    if held != tag:
        raise InvalidInput(f"{what} id {key!r} is given to both {held} and {tag} of agent {agent!r}")


async def check_plan(memory: AsyncMemory, plan: Plan) -> None:
    """Raise ``InvalidInput`` if a message of the plan is one ``add`` would refuse (an empty text, a time in
    year 9999: the chats before it were stored when ``add`` met it), or if the plan gives an id to a scope
    other than the one the file or store holds it in."""
    _check_messages(memory, plan)
    messages: dict[tuple[str, str], str] = {}
    for batch in plan.batches:
        tag = line_tag(batch.agent, batch.person, batch.space)
        for message in batch.messages:
            if message.get("id"):
                _claim(messages, batch.agent, str(message["id"]), tag, "message")
    for (agent, tag), first in plan.working.items():
        if first is not None and messages.get((agent, first)) != tag:  # else the whole chat came in as history
            raise InvalidInput(
                f"the working line of {tag} names message {first!r}, which is no message of that chat in the file; "
                "nothing was imported"
            )
    memories: dict[tuple[str, str], str] = {}
    for agent, line in plan.memories:
        if line.id and line.kind is not MemoryKind.CHUNK:  # chunks are rebuilt from messages, not written
            _claim(memories, agent, line.id, line_tag(agent, line.person, line.space), "memory")
    entities: dict[tuple[str, str], str] = {}
    for agent, entity in plan.entities:
        _claim(entities, agent, entity.id, line_tag(agent, entity.person, entity.space), "entity")
    await _blocks(memory, plan)
    await _against_store(memory, messages, "message")
    await _against_store(memory, memories, "memory")
    await _against_store(memory, entities, "entity")
    await _graph(memory, plan, messages, memories, entities)


def _check_messages(memory: AsyncMemory, plan: Plan) -> None:
    """Each batch's messages as ``add`` reads them, refused as ``add`` would refuse them, by their id."""
    now, config, limit = memory.now(), memory.config, memory.config.ingest.max_batch
    for batch in plan.batches:
        read = functools.partial(prepare, agent=batch.agent, person=batch.person, space=batch.space, now=now)
        for start in range(0, len(batch.messages), limit):
            part = batch.messages[start : start + limit]
            try:
                read(part, config=config)
            except InvalidInput:
                for index, message in enumerate(part, start=start):  # which one, by its id and its line
                    try:
                        read([message], config=config)
                    except InvalidInput as exc:
                        what = f"message {message.get('id')!r} of {line_tag(batch.agent, batch.person, batch.space)}"
                        if (line := batch.line_of(index)) is not None:  # an id made for it is in no line
                            what = f"line {line}: {what}"
                        reason = str(exc).removeprefix("message 0: ").removeprefix("message 0 ")
                        raise InvalidInput(f"{what}: {reason}; nothing was imported") from exc
                raise


async def _blocks(memory: AsyncMemory, plan: Plan) -> None:
    """A person block the file gives two texts, or the store holds with another text, is a conflict: which
    one the person meant is not for an import to choose."""
    given: dict[tuple[str, str, str], str] = {}
    for agent, block in plan.blocks:
        try:  # ids and text as a tool's edit would have them: a person block is keyed by the ids
            check_id(block.person, "person")
            check_storable(block.label, "core block label")
            check_storable(block.text, "core block text")
        except ValueError as exc:
            raise InvalidInput(f"core block {block.label!r}: {said(exc)}; nothing was imported") from exc
        key = (agent, block.person, block.label)
        if given.setdefault(key, block.text) != block.text:
            raise InvalidInput(
                f"core block {block.label!r} of person {block.person!r} is given twice; nothing was imported"
            )
        held = (await asyncio.to_thread(memory.store.person_blocks, agent, block.person)).get(block.label)
        if held is not None and held != block.text:
            raise InvalidInput(
                f"core block {block.label!r} of person {block.person!r} of agent {agent!r} holds another text "
                "in this store; nothing was imported"
            )


async def _stored_tags(memory: AsyncMemory, agent: str, ids: list[str], what: str) -> dict[str, str]:
    found: dict[str, str] = {}
    for start in range(0, len(ids), _PAGE):
        page = ids[start : start + _PAGE]
        if what == "message":
            found.update({m.id: m.space for m in await memory.messages(page, agent=agent)})
        elif what == "memory":
            found.update({m.id: m.scope.tag for m in await memory.get_many(page, agent=agent)})
        else:
            found.update({e.id: e.scope.tag for e in await stored_entities(memory, agent, page)})
    return found


async def stored_entities(memory: AsyncMemory, agent: str, ids: list[str]) -> list[Entity]:
    """The agent's entities of these ids that the store holds, looked up a page at a time."""
    found: list[Entity] = []
    for start in range(0, len(ids), _PAGE):
        found += await asyncio.to_thread(memory.store.get_entities, agent, ids[start : start + _PAGE])
    return found


async def _against_store(memory: AsyncMemory, claims: dict[tuple[str, str], str], what: str) -> None:
    by_agent: dict[str, list[str]] = defaultdict(list)
    for agent, key in claims:
        by_agent[agent].append(key)
    for agent, ids in by_agent.items():
        for key, tag in (await _stored_tags(memory, agent, ids, what)).items():
            if tag != claims[(agent, key)]:
                raise InvalidInput(
                    f"{what} id {key!r} already belongs to {tag} of agent {agent!r}, not {claims[(agent, key)]}; "
                    "nothing was imported"
                )
        if what != "message":  # memory and entity ids are unique in a store, not per agent (README: Ids)
            taken = await asyncio.to_thread(memory.store.taken_ids, agent, ids, what == "entity")
            if taken:
                raise InvalidInput(
                    f"{what} id {taken[0]!r} is taken in this store; choose another; nothing was imported"
                )


async def _graph(
    memory: AsyncMemory,
    plan: Plan,
    messages: dict[tuple[str, str], str],
    memories: dict[tuple[str, str], str],
    entities: dict[tuple[str, str], str],
) -> None:
    """Merges and links join two things of the line's own scope, from the file or already stored; a link's
    chunk end is named by the message the chunk is anchored at, which must be of that scope too."""
    for agent, merge in plan.merges:
        if not merge.undone:
            tag = line_tag(agent, merge.person, merge.space)
            for end in (merge.source, merge.target):
                await _joins(memory, agent, tag, "merge", end, "entity", entities)
    for agent, link in plan.links:
        tag = line_tag(agent, link.person, link.space)
        for end, anchor in ((link.source, link.source_anchor), (link.target, link.target_anchor)):
            if anchor is None:
                await _joins(memory, agent, tag, "link", end, "memory", memories)
            else:
                await _joins(memory, agent, tag, "link", anchor, "message", messages)


async def _joins(
    memory: AsyncMemory, agent: str, tag: str, kind: str, end: str, what: str, known: dict[tuple[str, str], str]
) -> None:
    where = known.get((agent, end)) or (await _stored_tags(memory, agent, [end], what)).get(end)
    if where != tag:
        found = f"belongs to {where}" if where else "is not in the file or the store"
        raise InvalidInput(f"a {kind} of {tag} names {what} {end!r}, which {found}; nothing was imported")
