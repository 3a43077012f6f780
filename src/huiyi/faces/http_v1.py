"""The /v1 routes for the ``Memory`` methods the first HTTP face had none for, so a remote client
(:mod:`huiyi.client`) can offer every method an embedded ``Memory`` has.

recall and context in their full /v1 shape (``RecallResult``; rendered text with what went into it),
messages by id, forgetting many messages, flush, links, core blocks, working memory and the overview.
Every time they answer carries its zone (:mod:`huiyi.faces.http_times`).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Annotated
from zoneinfo import ZoneInfo

from fastapi import APIRouter, Depends, Query, Request
from pydantic import BaseModel, Field

from huiyi.checks import Number, TimeIn
from huiyi.faces.http_auth import allowed_agents
from huiyi.faces.http_guard import GuardedRoute
from huiyi.faces.http_models import (
    ContextBody,
    ErasureReport,
    Limit,
    Purge,
    QueryBody,
    Share,
    Who,
    _Body,
    error_responses,
)
from huiyi.faces.http_times import item_out, job_out, local, message_out, result_out
from huiyi.memory import AsyncMemory
from huiyi.model import Job, Link, LinkKind, MemoryItem, Message, RecallResult

__all__ = ["FullContext", "v1_router"]

BODY = error_responses(400, 401, 403, 413, 422)
BODY_BY_ID = error_responses(400, 401, 403, 404, 413, 422)
QUERY = error_responses(400, 401, 403, 422)

Check = Callable[[Request, str], Awaitable[None]]
AgentParam = Annotated[str, Query(min_length=1)]


class RecallBody(QueryBody):
    """``Memory.recall``: unset ``limit`` and ``score_threshold`` take the recipe's."""

    limit: Limit | None = None  # type: ignore[assignment]
    # on the recipe's fused scale, not /query's similarity scale
    score_threshold: Share | None = None
    now: TimeIn | None = None  # when the query is asked; its time words are read against this
    time_from: TimeIn | None = None  # keep memories whose time is at or after this
    time_to: TimeIn | None = None  # … and at or before this
    recipe: str | None = Field(default=None, max_length=100)
    # the chat lines before the query, oldest first: recall searches several views of them
    dialogue: list[str] = Field(default_factory=list, max_length=200)
    # in a group, who asks: whom the question's 我 names (person would add their private chat)
    speaker: str | None = Field(default=None, max_length=200)


class FullContextBody(ContextBody):
    limit: Limit | None = None
    shown: list[str] = Field(default_factory=list, max_length=1000)
    recipe: str | None = Field(default=None, max_length=100)  # a named recall recipe for this turn
    now: TimeIn | None = None  # the moment of the turn (a replay): recall and overview as of then


class FullContext(BaseModel):
    """``Memory.context`` over HTTP: the rendered text, its sections, and what went into it."""

    text: str
    sections: dict[str, str]
    recall: RecallResult | None
    working: list[Message]
    overview: list[MemoryItem]


class ForgetMessagesBody(_Body):
    agent: str = Field(min_length=1)
    ids: list[str] = Field(min_length=1, max_length=1000)
    purge: Purge = "behind"  # "wait": answer once the store's files hold none of it


class FlushBody(Who):
    wait: bool = True


class LinkBody(Who):
    source: str = Field(min_length=1)
    target: str = Field(min_length=1)
    kind: LinkKind = LinkKind.RELATED
    weight: Number = Field(default=1.0, ge=0.0, le=1000.0)


def v1_router(memory: AsyncMemory, check: Check) -> APIRouter:
    """The routes below over ``memory``; ``check`` applies the API keys to the agent named."""
    # the key is checked before the body is (a caller without one learnt the body's schema from a 422), and
    # the schema shows the header on every route
    router = APIRouter(route_class=GuardedRoute, tags=["memory"], dependencies=[Depends(allowed_agents)])
    zone = ZoneInfo(memory.config.timezone)

    @router.post("/v1/recall", response_model=RecallResult, responses=BODY)
    async def recall(body: RecallBody, request: Request) -> RecallResult:
        """The memories most relevant to a query that this person or space may see, best first."""
        await check(request, body.agent)
        span = (local(body.time_from, zone), local(body.time_to, zone))
        found = await memory.recall(
            body.query,
            agent=body.agent,
            person=body.person,
            space=body.space,
            limit=body.limit,
            score_threshold=body.score_threshold,
            kinds=body.kinds,
            now=local(body.now, zone),
            time_range=span if span != (None, None) else None,
            recipe=body.recipe,
            dialogue=body.dialogue,
            speaker=body.speaker,
        )
        return result_out(found, zone)

    @router.post("/v1/context", response_model=FullContext, responses=BODY)
    async def context(body: FullContextBody, request: Request) -> FullContext:
        """The prompt context for the next turn, with the recall, working memory and overview behind it."""
        await check(request, body.agent)
        found = await memory.context(
            agent=body.agent,
            person=body.person,
            space=body.space,
            message=body.message,
            last_reply=body.last_reply,
            limit=body.limit,
            shown=body.shown,
            recipe=body.recipe,
            now=local(body.now, zone),
            max_chars=body.max_chars,
        )
        return FullContext(
            text=found.text,
            sections=found.rendered.sections,
            recall=result_out(found.recall, zone) if found.recall else None,
            working=[message_out(m, zone) for m in found.working],
            overview=[item_out(item, zone) for item in found.overview],
        )

    @router.get("/v1/messages", response_model=list[Message], responses=QUERY)
    async def messages(
        request: Request, agent: AgentParam, id: Annotated[list[str], Query(min_length=1, max_length=500)]
    ) -> list[Message]:
        """Stored messages by id (repeat ``id``); ids not stored are left out."""
        await check(request, agent)
        return [message_out(m, zone) for m in await memory.messages(id, agent=agent)]

    @router.post("/v1/messages/forget", response_model=ErasureReport, responses=BODY)
    async def forget_messages(body: ForgetMessagesBody, request: Request) -> ErasureReport:
        """Forget messages and what was made from them, purged from the store's files (behind the answer, or
        before it with ``purge: "wait"``)."""
        await check(request, body.agent)
        return ErasureReport.of(await memory.forget_messages(body.ids, agent=body.agent, purge=body.purge))

    @router.post("/v1/flush", response_model=list[Job], responses=BODY)
    async def flush(body: FlushBody, request: Request) -> list[Job]:
        """Fold a conversation's working memory now (a scene change); with ``wait`` extraction runs first."""
        await check(request, body.agent)
        jobs = await memory.flush(agent=body.agent, person=body.person, space=body.space, wait=body.wait)
        return [job_out(job, zone) for job in jobs]

    @router.post("/v1/links", response_model=Link, status_code=201, responses=BODY_BY_ID)
    async def link(body: LinkBody, request: Request) -> Link:
        """Link two memories the caller may see (cause, reference, related)."""
        await check(request, body.agent)
        return await memory.link(
            body.source,
            body.target,
            agent=body.agent,
            person=body.person,
            space=body.space,
            kind=body.kind,
            weight=body.weight,
        )

    @router.get("/v1/working_memory", response_model=list[Message], responses=QUERY)
    async def working_memory(
        request: Request, agent: AgentParam, person: str | None = None, space: str | None = None
    ) -> list[Message]:
        """The recent turns of a conversation, kept verbatim, oldest first."""
        await check(request, agent)
        found = await memory.working_memory(agent=agent, person=person, space=space)
        return [message_out(m, zone) for m in found]

    @router.get("/v1/overview", response_model=list[MemoryItem], responses=QUERY)
    async def overview(
        request: Request,
        agent: AgentParam,
        person: str | None = None,
        space: str | None = None,
        now: TimeIn | None = None,
    ) -> list[MemoryItem]:
        """前情提要: the latest events of a conversation, oldest first; with ``now``, as of then."""
        await check(request, agent)
        found = await memory.overview(agent=agent, person=person, space=space, now=local(now, zone))
        return [item_out(item, zone) for item in found]

    return router
