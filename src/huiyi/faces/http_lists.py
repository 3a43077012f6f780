"""The HTTP routes that list a scope's memories a page at a time, and export a scope whole.

A memory listing pages by cursor (:mod:`huiyi.memory.pages`): each page's ``next_cursor``, passed back as
``cursor``, goes on after the last memory shown, however many were written or forgotten meanwhile.
Like every route, each calls ``AsyncMemory`` and checks the caller's API key against the agent.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from typing import Annotated, Any
from zoneinfo import ZoneInfo

from fastapi import APIRouter, Query
from fastapi.responses import StreamingResponse

from huiyi.errors import InvalidInput
from huiyi.faces.http_auth import Agents, check
from huiyi.faces.http_guard import GuardedRoute
from huiyi.faces.http_models import Cursor, Int64, Page, error_responses
from huiyi.faces.http_times import item_out
from huiyi.formats import export_lines
from huiyi.memory import AsyncMemory
from huiyi.model import MemoryKind, Scope

__all__ = ["lists_router"]

QUERY = error_responses(400, 401, 403, 422)


def lists_router(memory: AsyncMemory) -> APIRouter:
    """The route over one store."""
    router = APIRouter(route_class=GuardedRoute)
    zone = ZoneInfo(memory.config.timezone)

    @router.get("/v1/memories", response_model=Page, responses=QUERY)
    async def list_memories(
        agents: Agents,
        agent: Annotated[str, Query(min_length=1)],
        person: str | None = None,
        space: str | None = None,
        kind: Annotated[list[MemoryKind] | None, Query()] = None,
        limit: Annotated[int, Query(ge=1, le=500)] = 50,
        offset: Annotated[Int64, Query(ge=0)] = 0,
        cursor: Cursor = None,
    ) -> Page:
        """One scope's memories, newest first, a page at a time: pass each page's ``next_cursor`` back as
        ``cursor`` (then memories written or forgotten meanwhile skip or repeat none). ``offset``, the older
        way, may skip or repeat some; a page read by offset has a ``next_cursor`` only as the first."""
        check(agents, agent)
        if offset and cursor is not None:
            raise InvalidInput("give a cursor or an offset, not both")
        if not offset:
            page = await memory.memories_page(
                agent=agent, person=person, space=space, kinds=kind, limit=limit, cursor=cursor
            )
            items = [item_out(item, zone) for item in page.items]
            more = limit if page.next_cursor is not None and cursor is None else None
            return Page(items=items, limit=limit, offset=0, next_offset=more, next_cursor=page.next_cursor)
        found = await memory.memories(
            agent=agent, person=person, space=space, kinds=kind, limit=limit + 1, offset=offset
        )
        more = offset + limit if len(found) > limit else None
        return Page(
            items=[item_out(item, zone) for item in found[:limit]], limit=limit, offset=offset, next_offset=more
        )

    @router.get(
        "/v1/export",
        responses={**QUERY, 200: {"content": {"application/x-ndjson": {}}, "description": "JSON lines"}},
        response_class=StreamingResponse,
    )
    async def export(
        agents: Agents, agent: Annotated[str, Query(min_length=1)], person: str | None = None, space: str | None = None
    ) -> StreamingResponse:
        """One scope whole, as ``huiyi export`` writes it (JSON lines: header, person, blocks, messages,
        memories): a user's data-access request, or the file ``huiyi import`` reads into another store."""
        check(agents, agent)
        try:  # no scope, or an empty or padded id, is refused before the answer starts
            Scope.of_chat(agent, person, space)
        except ValueError as exc:
            raise InvalidInput(str(exc)) from exc
        lines = export_lines(memory, agent, person, space)
        first = await anext(lines)  # a bad scope is refused (422) before the answer starts

        async def body() -> AsyncIterator[str]:
            yield _line(first)
            async for line in lines:
                yield _line(line)

        return StreamingResponse(body(), media_type="application/x-ndjson")

    return router


def _line(line: dict[str, Any]) -> str:
    return json.dumps(line, ensure_ascii=False) + "\n"
