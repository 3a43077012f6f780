"""The HTTP routes a console browses with: scopes and their counts, a memory's provenance and links,
searching and correcting memories, the entity graph of a scope and its merges.

Like every route, each calls ``AsyncMemory`` and checks the caller's API key against the agent.
"""

from __future__ import annotations

from datetime import datetime
from typing import Annotated
from zoneinfo import ZoneInfo

from fastapi import APIRouter, Query
from pydantic import BaseModel, Field
from pydantic.json_schema import SkipJsonSchema

from huiyi.checks import TimeIn
from huiyi.errors import InvalidInput
from huiyi.faces.http_auth import Agents, check
from huiyi.faces.http_guard import GuardedRoute
from huiyi.faces.http_models import Cursor, Int64, _Body, error_responses
from huiyi.faces.http_times import aware, item_out, local, message_out, written
from huiyi.memory import AsyncMemory
from huiyi.memory.pages import cursor_after
from huiyi.model import Entity, EntityMerge, Link, MemoryItem, MemoryKind, Message, Person, Scope, ScopeKind
from huiyi.store.base import ScopeStats

__all__ = ["browse_router"]

BODY_BY_ID = error_responses(400, 401, 403, 404, 413, 422)
QUERY = error_responses(400, 401, 403, 422)
BY_ID = error_responses(401, 403, 404, 422)
SCAN = 5000  # memories a filtered search reads at most


class ScopeInfo(BaseModel):
    agent: str
    scope: str  # official, person:<id> or space:<id>
    kind: ScopeKind
    key: str
    messages: int
    memories: int
    last_activity: datetime | None = None  # its last message (or, with none, its newest memory)
    last_written: datetime | None = None  # when its newest memory was written
    person: Person | None = None  # a person scope's name, aliases and platform ids


class AgentInfo(BaseModel):
    agent: str
    scopes: int
    messages: int
    memories: int
    last_activity: datetime | None = None


class MemoryPatch(_Body):
    """The fields of a memory to change; those left out stay as they are."""

    agent: str = Field(min_length=1, max_length=200)
    # the chat the memory must be of (an app's user): another's is not found (404)
    person: Annotated[str, Field(max_length=200)] | SkipJsonSchema[None] = None
    space: Annotated[str, Field(max_length=200)] | SkipJsonSchema[None] = None
    # optional but not nullable: a null text, place … is refused (422), so the schema does not offer it
    text: Annotated[str, Field(min_length=1, max_length=20000)] | SkipJsonSchema[None] = None
    time: TimeIn | None = None  # null: the memory is about no particular time
    place: Annotated[str, Field(max_length=2000)] | SkipJsonSchema[None] = None
    keywords: Annotated[list[str], Field(max_length=50)] | SkipJsonSchema[None] = None
    insight: Annotated[str, Field(max_length=20000)] | SkipJsonSchema[None] = None
    importance: Annotated[float, Field(ge=0.0, le=1.0, strict=True)] | SkipJsonSchema[None] = None
    valid_to: TimeIn | None = None  # a fact's: when it stopped being true (null opens it again)
    # a fact's edge, corrected with its text (木木住在上海徐汇区: object 上海徐汇区)
    subject: Annotated[str, Field(min_length=1, max_length=200)] | SkipJsonSchema[None] = None
    predicate: Annotated[str, Field(min_length=1, max_length=200)] | SkipJsonSchema[None] = None
    object: Annotated[str, Field(min_length=1, max_length=200)] | SkipJsonSchema[None] = None


class Graph(BaseModel):
    entities: list[Entity]  # merged-away ones too, with merged_into set
    facts: list[MemoryItem]  # subject –predicate→ object in data; valid_to set when superseded
    events: list[MemoryItem]  # the scope's events, which links join
    links: list[Link]  # between the scope's memories
    merges: list[EntityMerge]


class Found(BaseModel):
    items: list[MemoryItem]
    total: int  # how many matched (of the ``SCAN`` newest read, or with a cursor the ``SCAN`` after it)
    next_cursor: str | None = None  # the next page's ``cursor``; None: no memory is left to search


def _last(stats: ScopeStats, zone: ZoneInfo) -> datetime | None:
    """A scope's last activity in the configured zone: its last message, or its newest memory's writing."""
    return aware(stats.last_activity, zone) or written(stats.last_written, zone)


def browse_router(memory: AsyncMemory) -> APIRouter:
    """The routes over one store."""
    router = APIRouter(tags=["console"], route_class=GuardedRoute)
    zone = ZoneInfo(memory.config.timezone)

    @router.get("/v1/agents", response_model=list[AgentInfo], responses=QUERY)
    async def list_agents(agents: Agents) -> list[AgentInfo]:
        """The agents this key may use that hold anything, with their totals."""
        found: dict[str, AgentInfo] = {}
        for stats in await memory.scopes():
            if agents is not None and "*" not in agents and stats.agent not in agents:
                continue
            row = found.setdefault(stats.agent, AgentInfo(agent=stats.agent, scopes=0, messages=0, memories=0))
            row.scopes += 1
            row.messages += stats.messages
            row.memories += stats.memories
            last = _last(stats, zone)
            if last and (row.last_activity is None or last > row.last_activity):
                row.last_activity = last
        for agent in agents or []:
            if agent != "*" and agent not in found:
                found[agent] = AgentInfo(agent=agent, scopes=0, messages=0, memories=0)
        return sorted(found.values(), key=lambda a: a.agent)

    @router.get("/v1/scopes", response_model=list[ScopeInfo], responses=QUERY)
    async def list_scopes(agents: Agents, agent: Annotated[str, Query(min_length=1)]) -> list[ScopeInfo]:
        """An agent's scopes: official, persons (private chats) and spaces (groups), with counts."""
        check(agents, agent)
        persons = {p.id: p for p in await memory.persons(agent=agent)}
        out: list[ScopeInfo] = []
        seen: set[str] = set()
        for stats in await memory.scopes(agent=agent):
            scope = Scope.from_tag(agent, stats.scope)
            seen.add(stats.scope)
            known = persons.get(scope.key) if scope.kind is ScopeKind.PERSON else None
            out.append(
                ScopeInfo(
                    **{
                        **vars(stats),
                        "last_activity": _last(stats, zone),
                        "last_written": written(stats.last_written, zone),
                    },
                    kind=scope.kind,
                    key=scope.key,
                    person=known,
                )
            )
        for person in persons.values():  # persons known by name but with nothing said yet
            if f"person:{person.id}" not in seen:
                out.append(
                    ScopeInfo(
                        agent=agent, scope=f"person:{person.id}", kind=ScopeKind.PERSON, key=person.id,
                        messages=0, memories=0, person=person,
                    )
                )  # fmt: skip
        return out

    @router.get("/v1/working", response_model=list[Message], responses=QUERY)
    async def working(
        agents: Agents, agent: Annotated[str, Query(min_length=1)], person: str | None = None, space: str | None = None
    ) -> list[Message]:
        """A chat's working memory: its recent turns, kept verbatim."""
        check(agents, agent)
        return [message_out(m, zone) for m in await memory.working_memory(agent=agent, person=person, space=space)]

    @router.get("/v1/search", response_model=Found, responses=QUERY)
    async def search(
        agents: Agents,
        agent: Annotated[str, Query(min_length=1)],
        person: str | None = None,
        space: str | None = None,
        q: Annotated[str, Query(max_length=200)] = "",
        kind: Annotated[list[MemoryKind] | None, Query()] = None,
        since: TimeIn | None = None,
        until: TimeIn | None = None,
        valid: bool | None = None,
        min_strength: Annotated[float | None, Query(allow_inf_nan=False)] = None,
        source: Annotated[str, Query(max_length=200)] = "",
        limit: Annotated[int, Query(ge=1, le=500)] = 50,
        offset: Annotated[Int64, Query(ge=0)] = 0,
        cursor: Cursor = None,
    ) -> Found:
        """One scope's memories filtered by words (text, keywords, place), kind, time range, validity
        (facts not superseded), strength and source (a message id), newest first. Pass each page's
        ``next_cursor`` back as ``cursor`` for the next: memories written or forgotten meanwhile then skip
        or repeat none (``offset``, the older way, may), and the search goes on past the 5000 newest memories."""
        check(agents, agent)
        if offset and cursor is not None:
            raise InvalidInput("give a cursor or an offset, not both")
        since, until = local(since, zone), local(until, zone)  # a caller's zone, as the store keeps times
        if since is not None and until is not None and since > until:  # as recall's time_range
            raise InvalidInput(f"since ({since}) is after until ({until}): the range ends before it starts")
        scope, marked = await memory.marked_memories(
            agent=agent, person=person, space=space, kinds=kind, limit=SCAN, cursor=cursor
        )
        words = q.lower().split()

        def keep(item: MemoryItem) -> bool:
            haystack = " ".join([item.text, item.place, item.insight, *item.keywords, item.id]).lower()
            if any(word not in haystack for word in words):
                return False
            if since is not None and (item.time is None or item.time < since):
                return False
            if until is not None and (item.time is None or item.time > until):
                return False
            if valid is not None and (item.valid_to is None) != valid:
                return False
            if min_strength is not None and item.strength < min_strength:
                return False
            return not source or source in item.sources

        matched = [(item, mark) for item, mark in marked if keep(item)]
        shown = matched[offset : offset + limit]
        if len(matched) > offset + limit:  # more match: go on after the last shown
            more = cursor_after(scope, shown[-1][1])
        elif len(marked) == SCAN:  # none left of this scan, but memories past it: go on after the scan
            more = cursor_after(scope, marked[-1][1])
        else:
            more = None
        items = [item_out(item, zone) for item, _ in shown]
        return Found(items=items, total=len(matched), next_cursor=more)

    @router.patch("/v1/memories/{memory_id:path}", response_model=MemoryItem, responses=BODY_BY_ID)
    async def patch_memory(memory_id: str, body: MemoryPatch, agents: Agents) -> MemoryItem:
        """Correct a memory: text, time, place, keywords, insight, importance; a fact's valid_to, subject,
        predicate and object (the rest stays)."""
        check(agents, body.agent)
        changes = body.model_dump(exclude_unset=True, exclude={"agent", "person", "space"})
        for name in ("time", "valid_to"):  # stored as wall-clock time in the configured zone
            if changes.get(name) is not None:
                changes[name] = local(changes[name], zone)
        updated = await memory.update(memory_id, changes, agent=body.agent, person=body.person, space=body.space)
        return item_out(updated, zone)  # zoned, as every other route returns a memory

    @router.get("/v1/messages/{message_id:path}/chat", response_model=list[Message], responses=BY_ID)
    async def chat_around(
        message_id: str,
        agents: Agents,
        agent: Annotated[str, Query(min_length=1)],
        turns: Annotated[int, Query(ge=0, le=50)] = 4,
    ) -> list[Message]:
        """A message shown in its chat: the turns around it."""
        check(agents, agent)
        return [message_out(m, zone) for m in await memory.chat_around(message_id, agent=agent, turns=turns)]

    @router.get("/v1/links", response_model=list[Link], responses=QUERY)
    async def links(
        agents: Agents,
        agent: Annotated[str, Query(min_length=1)],
        ids: Annotated[list[str], Query(min_length=1, max_length=500)],
    ) -> list[Link]:
        """Every link touching these memories."""
        check(agents, agent)
        return await memory.links(ids, agent=agent)

    @router.get("/v1/graph", response_model=Graph, responses=QUERY)
    async def graph(
        agents: Agents, agent: Annotated[str, Query(min_length=1)], person: str | None = None, space: str | None = None
    ) -> Graph:
        """A scope's entity graph: its entities (merged ones too), facts, links and the agent's merges."""
        check(agents, agent)
        entities = await memory.entities(agent=agent, person=person, space=space, merged=True)
        facts = await memory.memories(agent=agent, person=person, space=space, kinds=[MemoryKind.FACT], limit=SCAN)
        events = await memory.memories(agent=agent, person=person, space=space, kinds=[MemoryKind.EVENT], limit=SCAN)
        ids = [item.id for item in (*facts, *events)]
        found = await memory.links(ids, agent=agent) if ids else []
        names = {entity.id for entity in entities}
        merges = [m for m in await memory.merges(agent=agent) if m.source in names or m.target in names]
        facts, events = [item_out(i, zone) for i in facts], [item_out(i, zone) for i in events]
        return Graph(entities=entities, facts=facts, events=events, links=found, merges=merges)

    @router.get("/v1/merges", response_model=list[EntityMerge], responses=QUERY)
    async def merges(agents: Agents, agent: Annotated[str, Query(min_length=1)]) -> list[EntityMerge]:
        """Every entity merge of the agent, with its reason; undone ones stay listed."""
        check(agents, agent)
        return await memory.merges(agent=agent)

    @router.post("/v1/merges/{merge_id}/undo", response_model=EntityMerge, responses=BY_ID)
    async def undo_merge(merge_id: str, agents: Agents, agent: Annotated[str, Query(min_length=1)]) -> EntityMerge:
        """Split a merged entity back out."""
        check(agents, agent)
        return await memory.undo_merge(merge_id, agent=agent)

    return router
