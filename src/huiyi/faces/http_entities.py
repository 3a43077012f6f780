"""The HTTP routes that correct the graph by hand (seed 000's official CRUD of entities) and read the
reports of maintenance runs.

Like every route, each calls ``AsyncMemory`` and checks the caller's API key against the agent.
"""

from __future__ import annotations

from typing import Annotated
from zoneinfo import ZoneInfo

from fastapi import APIRouter, Query, Response
from pydantic import Field

from huiyi.faces.http_auth import Agents, check
from huiyi.faces.http_guard import GuardedRoute
from huiyi.faces.http_models import NEXT_CURSOR, NEXT_CURSOR_HEADER, Cursor, Who, _Body, error_responses
from huiyi.faces.http_times import report_out
from huiyi.memory import AsyncMemory
from huiyi.model import Entity, EntityType
from huiyi.store.jobs import RunReport

__all__ = ["entities_router"]

BODY = error_responses(400, 401, 403, 413, 422)
BODY_BY_ID = error_responses(400, 401, 403, 404, 413, 422)
QUERY = error_responses(400, 401, 403, 422)
BY_ID = error_responses(401, 403, 404, 422)
AgentParam = Annotated[str, Query(min_length=1, max_length=200)]
Name = Annotated[str, Field(min_length=1, max_length=200)]


class NewEntity(Who):
    """An entity of a scope (official when no person or space is named)."""

    name: Name
    type: EntityType = EntityType.SPECIFIC
    aliases: list[Name] = Field(default_factory=list, max_length=100)


class EntityPatch(_Body):
    """The fields of an entity to change; those left out stay. ``aliases`` replaces the list."""

    agent: str = Field(min_length=1, max_length=200)
    name: Name | None = None
    type: EntityType | None = None
    aliases: list[Name] | None = Field(default=None, max_length=100)


class Deleted(_Body):
    deleted: int  # entities that went: the one named and those merged into it


def entities_router(memory: AsyncMemory) -> APIRouter:
    """The routes over one store."""
    router = APIRouter(tags=["entities"], route_class=GuardedRoute)
    zone = ZoneInfo(memory.config.timezone)

    @router.get("/v1/entities", response_model=list[Entity], responses={**QUERY, 200: NEXT_CURSOR_HEADER})
    async def list_entities(
        agents: Agents,
        response: Response,
        agent: AgentParam,
        person: str | None = None,
        space: str | None = None,
        merged: bool = False,
        limit: Annotated[int | None, Query(ge=1, le=1000)] = None,
        cursor: Cursor = None,
    ) -> list[Entity]:
        """One scope's entities (official when no person or space is named), in the order written; ``merged``
        adds merged-away ones. All of them, unless a ``limit`` (or a ``cursor``: pages of 100) is given: then
        while more follow, the ``Huiyi-Next-Cursor`` header holds the next page's ``cursor``."""
        check(agents, agent)
        if limit is None and cursor is None:
            return await memory.entities(agent=agent, person=person, space=space, merged=merged)
        page = await memory.entities_page(
            agent=agent, person=person, space=space, merged=merged, limit=limit or 100, cursor=cursor
        )
        if page.next_cursor is not None:
            response.headers[NEXT_CURSOR] = page.next_cursor
        return page.items

    @router.post("/v1/entities", response_model=Entity, status_code=201, responses=BODY)
    async def create_entity(body: NewEntity, agents: Agents) -> Entity:
        """Add an entity by hand; its name and aliases must be new to the scope."""
        check(agents, body.agent)
        return await memory.create_entity(
            body.name, agent=body.agent, person=body.person, space=body.space, type=body.type, aliases=body.aliases
        )

    @router.get("/v1/entities/{entity_id}", response_model=Entity, responses=BY_ID)
    async def get_entity(entity_id: str, agents: Agents, agent: AgentParam) -> Entity:
        check(agents, agent)
        return await memory.get_entity(entity_id, agent=agent)

    @router.patch("/v1/entities/{entity_id}", response_model=Entity, responses=BODY_BY_ID)
    async def patch_entity(entity_id: str, body: EntityPatch, agents: Agents) -> Entity:
        """Correct an entity's name, type or aliases."""
        check(agents, body.agent)
        changes = body.model_dump(exclude_unset=True, exclude={"agent"})
        if any(value is None for value in changes.values()):
            changes = {k: v for k, v in changes.items() if v is not None}
        return await memory.update_entity(entity_id, changes, agent=body.agent)

    @router.delete("/v1/entities/{entity_id}", response_model=Deleted, responses=BY_ID)
    async def delete_entity(entity_id: str, agents: Agents, agent: AgentParam) -> Deleted:
        """Delete an entity with those merged into it and the merges naming them (facts stay)."""
        check(agents, agent)
        return Deleted(deleted=await memory.delete_entity(entity_id, agent=agent))

    @router.get("/v1/reports", response_model=list[RunReport], responses={**QUERY, 200: NEXT_CURSOR_HEADER})
    async def reports(
        agents: Agents,
        response: Response,
        agent: AgentParam,
        scope: Annotated[str | None, Query(max_length=300)] = None,
        limit: Annotated[int, Query(ge=1, le=200)] = 20,
        cursor: Cursor = None,
    ) -> list[RunReport]:
        """The last reports of consolidations (dry runs too) and summaries, newest first. While more
        follow, the ``Huiyi-Next-Cursor`` header holds the next page's ``cursor``."""
        check(agents, agent)
        page = await memory.reports_page(agent=agent, scope=scope, limit=limit, cursor=cursor)
        if page.next_cursor is not None:
            response.headers[NEXT_CURSOR] = page.next_cursor
        return [report_out(report, zone) for report in page.items]

    return router
