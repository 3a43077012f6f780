"""Memories, persons, entities, links and core blocks, read and written one by one (official CRUD, seed 000)."""

from __future__ import annotations

import functools
import logging
import math
from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import Any

from huiyi.checks import check_id, check_json, check_name
from huiyi.errors import InvalidInput, NotFound, said
from huiyi.flows import ingest
from huiyi.memory.common import (
    EDITABLE,
    FACT_EDGE,
    MAX_LISTED,
    _agent,
    _id_list,
    _kinds,
    _looked_up,
    _scope_of,
    _visible,
)
from huiyi.memory.edges import with_edge
from huiyi.memory.entity_edits import EntityEdits
from huiyi.memory.notes import alike, caller_id, caller_words, note_id
from huiyi.model import (
    CoreBlock,
    Entity,
    EntityMerge,
    FactKind,
    Link,
    LinkKind,
    MemoryItem,
    MemoryKind,
    Message,
    Person,
    Scope,
    new_id,
)
from huiyi.store.base import MemoryFilter, ScopeStats, Writes
from huiyi.store.jobs import RunReport
from huiyi.store.pages import ReportMark

log = logging.getLogger(__name__)

REPORT_CHANGES = 300  # changes of one report kept in full; the counts cover the rest


class Items(EntityEdits):
    """Single memories, persons, the graph and core blocks."""

    async def remember(
        self,
        text: str = "",
        *,
        agent: str,
        person: str | None = None,
        space: str | None = None,
        kind: MemoryKind = MemoryKind.NOTE,
        time: datetime | None = None,
        importance: float = 0.5,
        keywords: Sequence[str] = (),
        sources: Sequence[str] = (),
        data: dict[str, Any] | None = None,
        id: str | None = None,
        place: str = "",
        insight: str = "",
        participants: Sequence[str] = (),
        said_at: datetime | None = None,
        subject: str | None = None,
        predicate: str | None = None,
        object: str | None = None,
        fact_kind: FactKind | str | None = None,
    ) -> MemoryItem:
        """Store one memory directly: an official memory (no person or space) or one of a scope.

        With an ``id`` already stored for the same memory, nothing is written (imports are idempotent); an
        id another memory holds is refused. Without one, a memory of the scope with the same kind, text, time
        and sources is returned as stored, not stored again. ``said_at``: when it was said, if ``time`` is
        another day it is about (a plan; an import keeps it). ``subject``, ``predicate``, ``object``: what it
        is about (a fact's edge, of ``fact_kind``: attribute unless named; seed 000 §7 groups facts by
        subject); with them ``text`` may be empty, composed as the create_memory tool composes it."""
        scope = _scope_of(agent, person, space)
        text, data = with_edge(text, kind, data, subject, predicate, object, fact_kind)
        for name, value in (("keywords", keywords), ("sources", sources), ("participants", participants)):
            if isinstance(value, str | bytes):  # its characters would be taken for words
                raise InvalidInput(f"{name} are a list, not one string")
        try:
            check_json(data or {}, "data")
            item = MemoryItem(
                id=id or new_id("mem"),
                scope=scope,
                kind=kind,
                text=text,
                time=self.wall(time) if isinstance(time, datetime) else time,  # as add stores: zone wall clock
                importance=importance,
                keywords=list(keywords),
                sources=list(sources),
                data=data or {},
                place=place,
                insight=insight,
                participants=list(participants),
                said_at=self.wall(said_at) if isinstance(said_at, datetime) else said_at,
                created_at=self.written_now(),  # as the store records it: zone-less UTC
            )
        except ValueError as exc:
            raise InvalidInput(said(exc)) from exc
        if len(text) > self.config.ingest.max_message_chars:
            raise InvalidInput(f"memory text has {len(text)} characters; limit {self.config.ingest.max_message_chars}")
        caller_words(item.keywords)
        if id is not None:
            caller_id(item)
        elif (same := await self._storedalike(item)) is not None:
            return same  # a set-up script run again: the memory it stored the first time
        else:  # two calls at once both pass the look above: the note's own id lets the store keep one
            item = item.model_copy(update={"id": note_id(item)})
        vector = await self._write(self.embedder.embed_passages, [text])
        terms = ingest.terms_of(" ".join([text, *keywords]))
        await self._write(self.store.add_memories, [item], vector, [terms])
        # the store skips an id it holds: the very memory (a resend, or the other call of a pair) is the answer
        stored = await self._run(self.store.get_memories, _agent(agent), [item.id])
        if id is not None:
            if not stored or (stored[0].scope, stored[0].kind, stored[0].text) != (item.scope, item.kind, item.text):
                raise InvalidInput(f"memory id {id!r} is taken by another memory; choose another or none")
            return stored[0]  # as stored first, when this was a resend
        if stored and alike(stored[0], item):
            return stored[0]
        # the note's id is held by a memory edited since: this one is new beside it
        item = item.model_copy(update={"id": new_id("mem")})
        await self._write(self.store.add_memories, [item], vector, [terms])
        return item

    async def _storedalike(self, item: MemoryItem) -> MemoryItem | None:
        """The memory of ``item``'s scope stored with its kind, text, time and sources, if there is one."""
        where = MemoryFilter(kinds=(item.kind,), text=item.text)
        found = await self._run(self.store.find_memories, [item.scope], where)
        return next((m for m in found if alike(m, item)), None)

    async def set_person(self, person: Person, *, agent: str) -> None:
        """Record a person and their aliases. These aliases are the developer's: they name the person in
        every chat of the agent, private or group (a nickname extraction learns stays in the chat that taught
        it)."""
        if not isinstance(person, Person):
            raise InvalidInput(f"person is a Person, not {type(person).__name__}")
        try:  # names reach every prompt: printable and bounded, as ids are
            check_id(agent, "agent")
            check_id(person.id, "person")
            for name in [*([person.name] if person.name else []), *person.aliases]:
                check_name(name, "a person's name or alias")
            for name in [*person.platform_ids, *person.platform_ids.values()]:
                check_name(name, "a person's platform or platform id")  # a bell or a direction mark prints nothing
        except ValueError as exc:
            raise InvalidInput(said(exc)) from exc
        aliases = list(dict.fromkeys(person.aliases))  # an alias given twice is one
        await self._run(self.store.upsert_person, _agent(agent), person.model_copy(update={"aliases": aliases}))

    async def get_person(self, person_id: str, *, agent: str) -> Person | None:
        return await self._run(self.store.get_person, _agent(agent), _looked_up(person_id, "person id"))

    async def get(
        self, memory_id: str, *, agent: str, person: str | None = None, space: str | None = None
    ) -> MemoryItem:
        """A memory by id; with ``person`` or ``space``, only one of that chat's (another's is not found):
        an app's "my memories" screen passes its user, so one user's request never reaches another's."""
        owner = _scope_of(agent, person, space) if person is not None or space is not None else None
        found = await self._run(self.store.get_memories, _agent(agent), [_looked_up(memory_id, "memory id")])
        if not found or (owner is not None and found[0].scope != owner):
            raise NotFound(f"no memory {memory_id!r} for agent {agent!r}" + (f" in {owner.tag}" if owner else ""))
        return found[0]

    async def get_many(self, ids: Sequence[str], *, agent: str) -> list[MemoryItem]:
        """Memories by id, in the order asked; unknown ids are left out."""
        return await self._run(self.store.get_memories, _agent(agent), _id_list(ids))

    async def delete(self, memory_id: str, *, agent: str, person: str | None = None, space: str | None = None) -> None:
        """Delete a memory; with ``person`` or ``space``, only one of that chat's (as :meth:`get`). The messages
        it was made from stay (a later summary or re-index reads them): ``forget_messages`` takes them back."""
        if person is not None or space is not None:
            await self.get(memory_id, agent=agent, person=person, space=space)
        if not await self._run(self.store.delete_memories, _agent(agent), [_looked_up(memory_id, "memory id")]):
            raise NotFound(f"no memory {memory_id!r} for agent {agent!r}")

    async def memories(
        self,
        *,
        agent: str,
        person: str | None = None,
        space: str | None = None,
        kinds: Sequence[MemoryKind | str] | None = None,
        limit: int = 100,
        offset: int = 0,
    ) -> list[MemoryItem]:
        """One scope's memories, newest first: the person's, the space's, or (neither) the official ones."""
        if not isinstance(limit, int) or not isinstance(offset, int) or not 1 <= limit <= MAX_LISTED or offset < 0:
            raise InvalidInput(f"limit is a whole number from 1 to {MAX_LISTED} and offset one from 0")
        if offset > 2**62:  # past what the store can count
            return []
        scope = _scope_of(agent, person, space)
        return await self._run(self.store.list_memories, [scope], _kinds(kinds), limit, offset)

    async def messages(self, ids: Sequence[str], *, agent: str) -> list[Message]:
        return await self._run(self.store.get_messages, _agent(agent), _id_list(ids))

    async def update(
        self,
        memory_id: str,
        changes: Mapping[str, Any],
        *,
        agent: str,
        person: str | None = None,
        space: str | None = None,
    ) -> MemoryItem:
        """Correct a memory: its text, time, place, keywords, insight or importance (seed 000's CRUD);
        a fact's ``valid_to`` closes it (None opens it again), and its ``subject``, ``predicate`` and
        ``object`` correct its edge (the context files it under its subject; consolidation reads them).

        A changed text, time, place or keywords re-indexes it under the same id, keeping its links,
        strength and history; importance and insight alone are written in place. With ``person`` or
        ``space``, only one of that chat's (as :meth:`get`)."""
        unknown = set(changes) - EDITABLE - FACT_EDGE - {"valid_to"}
        if unknown:
            raise InvalidInput(f"these memory fields cannot be edited: {sorted(unknown)}")
        item = await self.get(memory_id, agent=agent, person=person, space=space)
        if ("valid_to" in changes or FACT_EDGE & set(changes)) and item.kind is not MemoryKind.FACT:
            raise InvalidInput("only a fact can be closed (valid_to) or have its subject, predicate or object set")
        new = self._changed(item, changes)
        in_place = {name: getattr(new, name) for name in ("importance", "insight", "valid_to") if name in changes}
        if FACT_EDGE & set(changes):
            in_place["data"] = new.data
        if {"text", "time", "place", "keywords"} & set(changes):
            for _ in range(3):
                vector = await self._run(self.embedder.embed_passages, [new.text])
                # another write may have landed while the text was embedded: the whole row is replaced
                # below, so the changes go onto the memory as it is now, or its write would be lost
                new = self._changed(await self.get(memory_id, agent=agent), changes)
                if "text" in changes or new.text == item.text:
                    break
                item = new  # its text changed meanwhile: embed that one
            terms = ingest.terms_of(" ".join([new.text, *new.keywords]))
            # one transaction: a failed write or a crash leaves the memory as it was, never gone
            replace = Writes(memories=[new], vectors=vector, terms=[terms], replaced=[(agent, memory_id)])
            await self._run(self.store.apply, replace)
        elif in_place:
            await self._run(self.store.update_memories, _agent(agent), [(memory_id, in_place)])
        return new

    def _changed(self, item: MemoryItem, changes: Mapping[str, Any]) -> MemoryItem:
        """``item`` with the caller's changes, checked as a stored memory is."""
        # an aware time as add stores one: the configured zone's wall clock
        moved = {name: self.wall(value) for name, value in changes.items() if isinstance(value, datetime)}
        edge = {name: value for name, value in changes.items() if name in FACT_EDGE}
        for name, value in edge.items():
            if not isinstance(value, str) or not value.strip() or len(value) > 200:
                raise InvalidInput(f"a fact's {name} is a text of 1 to 200 characters, not {value!r}")
        fields = {name: value for name, value in changes.items() if name not in FACT_EDGE}
        data = {**item.data, **{name: value.strip() for name, value in edge.items()}}
        text = changes.get("text")
        if item.kind is MemoryKind.FACT and isinstance(text, str) and not edge:
            # 木木住在杭州 corrected to 木木住在上海: the old object no longer says what the fact does (the
            # context filed the new text under 木木与杭州的关系); its subject and predicate stay
            stale = {"object"} if str(data.get("object", "")) not in text else set()  # 男朋友是 is in no text
            data = {name: value for name, value in data.items() if name not in stale}
        try:
            new = MemoryItem.model_validate({**item.model_dump(), **fields, **moved, "data": data})
        except ValueError as exc:
            raise InvalidInput(said(exc)) from exc
        if not new.text.strip():
            raise InvalidInput("memory text is empty")
        if "keywords" in changes:
            caller_words(new.keywords)
        if len(new.text) > self.config.ingest.max_message_chars:
            raise InvalidInput(
                f"memory text has {len(new.text)} characters; limit {self.config.ingest.max_message_chars}"
            )
        return new

    async def feedback(
        self, memory_id: str, value: float, *, agent: str, person: str | None = None, space: str | None = None
    ) -> MemoryItem:
        """Record a caller's judgement of a recalled memory (-1 bad … +1 good); it sums up per memory, within
        -1…1 (the range a score reads: thirty ratings of -1 are undone by one of +1, not thirty), and
        judgements made at once all count. With ``person`` or ``space``, only one of that chat's (as :meth:`get`)."""
        if not isinstance(value, int | float) or isinstance(value, bool) or not -1.0 <= value <= 1.0:
            raise InvalidInput(f"feedback is a number between -1 and 1, not {value!r}")
        item = await self.get(memory_id, agent=agent, person=person, space=space)
        total = await self._run(self.store.add_feedback, _agent(agent), memory_id, float(value))
        if total is None:  # deleted since it was read
            raise NotFound(f"no memory {memory_id!r} for agent {agent!r}")
        return item.model_copy(update={"feedback": total})

    async def link(
        self,
        source: str,
        target: str,
        *,
        agent: str,
        person: str | None = None,
        space: str | None = None,
        kind: LinkKind = LinkKind.RELATED,
        weight: float = 1.0,
    ) -> Link:
        """Link two memories (cause, reference, related), as seed 004's link_memories does.

        Both must be visible to the caller: official, or of the named person or space.
        """
        source, target = _looked_up(source, "memory id"), _looked_up(target, "memory id")
        if isinstance(weight, bool) or not isinstance(weight, int | float) or not math.isfinite(weight):
            raise InvalidInput(f"a link's weight is a finite number, not {weight!r}")
        if source == target:
            raise InvalidInput(f"a memory is not linked to itself: {source}")
        visible = set(_visible(agent, person, space))
        found = [
            m for m in await self._run(self.store.get_memories, _agent(agent), [source, target]) if m.scope in visible
        ]
        if len({item.id for item in found}) != len({source, target}):
            raise NotFound(
                f"both memories must exist and be official or of the person or space the call names: {source}, {target}"
            )
        link = Link(source=source, target=target, kind=kind, weight=weight)
        await self._run(self.store.add_links, _agent(agent), [link])
        return link

    async def scopes(self, *, agent: str | None = None) -> list[ScopeStats]:
        """Every scope holding messages or memories (of one agent, or all), with counts and last activity."""
        return await self._run(self.store.scope_stats, None if agent is None else _agent(agent))

    async def persons(self, *, agent: str) -> list[Person]:
        return await self._run(self.store.list_persons, _agent(agent))

    async def entities(
        self, *, agent: str, person: str | None = None, space: str | None = None, merged: bool = False
    ) -> list[Entity]:
        """One scope's entities (the official ones when no person or space is named)."""
        return await self._run(self.store.list_entities, [_scope_of(agent, person, space)], merged)

    async def links(self, ids: Sequence[str], *, agent: str) -> list[Link]:
        """Every link touching these memories."""
        return await self._run(self.store.links_of, _agent(agent), _id_list(ids))

    async def put_entity(self, entity: Entity) -> Entity:
        """Store an entity as given (an import): its name is embedded for merge candidates."""
        vector = await self._run(self.embedder.embed_passages, [entity.name])
        return await self._run(self.store.upsert_entity, entity, vector[0])

    async def merge_entities(self, source: str, target: str, *, agent: str, reason: str, at: datetime) -> EntityMerge:
        """Merge ``source`` into ``target`` (an import replaying a merge); undo_merge splits them again."""
        return await self._run(self.store.merge_entities, _agent(agent), source, target, reason, at)

    async def add_links(self, links: Sequence[Link], *, agent: str) -> int:
        """Store links between the agent's memories as given (an import); returns how many are new."""
        return await self._run(self.store.add_links, _agent(agent), list(links))

    async def chat_around(self, message_id: str, *, agent: str, turns: int = 4) -> list[Message]:
        """A message in its chat: up to ``turns`` messages either side of it, oldest first."""
        if not isinstance(turns, int) or not 0 <= turns <= MAX_LISTED:
            raise InvalidInput(f"turns is a whole number from 0 to {MAX_LISTED}, not {turns!r}")
        found = await self._run(self.store.get_messages, _agent(agent), [_looked_up(message_id, "message id")])
        if not found:
            raise NotFound(f"no message {message_id!r} for agent {agent!r}")
        message = found[0]
        return await self._run(
            self.store.recent_messages, _agent(agent), message.space, 2 * turns + 1, message.seq + turns + 1
        )

    async def merges(self, *, agent: str) -> list[EntityMerge]:
        return await self._run(self.store.list_merges, _agent(agent))

    async def undo_merge(self, merge_id: str, *, agent: str) -> EntityMerge:
        """Split a merged entity back out, restoring both entities' names as they were, and reopen the facts of
        one that the merge had closed as contradicted by the other's."""
        merge = next((m for m in await self.merges(agent=agent) if m.id == merge_id and not m.undone), None)
        if merge is None:
            raise NotFound(f"no merge {merge_id!r} to undo for agent {agent!r}")
        undone = await self._run(self.store.undo_merge, _agent(agent), merge_id)
        await self._run(self._reopen_split_facts, agent, merge)
        return undone

    async def core_blocks_for(self, *, agent: str, person: str | None = None) -> list[CoreBlock]:
        """The core blocks in the prompt of ``agent`` talking with ``person``: shared, the agent's, the person's."""
        return await self._read(self._core_blocks, agent, person)

    def _core_blocks(self, agent: str, person: str | None) -> list[CoreBlock]:
        _visible(agent, person, None)  # ids as every other call checks them: a person block is keyed by them
        return self.core_memory.blocks(agent, person)

    async def core_block_append(self, label: str, text: str, *, agent: str, person: str | None = None) -> CoreBlock:
        """Add a line to a core block the caller owns: the person's own (``human``), or the agent's if allowed."""
        _visible(agent, person, None)  # else a blank or NUL person id would get a block of its own
        return await self._run(functools.partial(self.core_memory.append, label, text, agent=agent, person=person))

    async def core_block_replace(
        self, label: str, old: str, new: str, *, agent: str, person: str | None = None
    ) -> CoreBlock:
        """Replace the one occurrence of ``old`` in a core block the caller owns."""
        _visible(agent, person, None)
        return await self._run(functools.partial(self.core_memory.replace, label, old, new, agent=agent, person=person))

    # maintenance reports -------------------------------------------------------------------------
    async def reports(self, *, agent: str, scope: str | None = None, limit: int = 20) -> list[RunReport]:
        """The last reports of consolidations (dry runs too) and summaries, newest first; ``scope`` a tag
        (official, person:<id>, space:<id>) for one scope's only."""
        if limit < 1:
            raise InvalidInput("limit must be at least 1")
        return await self._listed_reports(agent, scope, limit, None)

    async def _listed_reports(
        self, agent: str, scope: str | None, limit: int, after: ReportMark | None
    ) -> list[RunReport]:
        if scope is not None:
            try:
                Scope.from_tag(agent, scope)
            except ValueError as exc:
                raise InvalidInput(said(exc)) from exc
        return await self._run(self.store.list_reports, _agent(agent), scope, limit, after)

    async def _keep_report(
        self,
        kind: str,
        scope: Scope,
        at: Any,
        counts: dict[str, int],
        body: dict[str, Any],
        dry_run: bool = False,
        erasures: int | None = None,
    ) -> None:
        """Keep a run's report; a store that fails here costs the run nothing but its report. ``erasures``: the
        store's count as the run began; one since, the report is not kept (it may quote what went)."""
        if isinstance(body.get("changes"), list) and len(body["changes"]) > REPORT_CHANGES:
            body = {**body, "changes": body["changes"][:REPORT_CHANGES], "changes_cut": len(body["changes"])}
        report = RunReport(
            agent=scope.agent, scope=scope.tag, kind=kind, at=at, dry_run=dry_run, counts=counts, body=body
        )
        try:
            if not await self._run(self.store.add_report, report, erasures):
                log.info("the %s report of %s is not kept: an erasure ran meanwhile", kind, scope.tag)
        except Exception:
            log.exception("keeping a %s report of %s failed", kind, scope.tag)
