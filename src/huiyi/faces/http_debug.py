"""The HTTP routes a console debugs and maintains with: recall explained (every route's candidates, each
bonus, the fused ranking, timings and the rendered context) under any recipe, jobs and their retry,
summaries on demand, and the core blocks in use.

Like every route, each calls ``AsyncMemory`` and checks the caller's API key against the agent.
"""

from __future__ import annotations

import asyncio
from datetime import date, datetime
from typing import Annotated, Any
from zoneinfo import ZoneInfo

from fastapi import APIRouter, Query
from pydantic import BaseModel, Field, ValidationError

from huiyi import __version__
from huiyi.checks import TimeIn
from huiyi.config.recall import RecallRecipe
from huiyi.errors import InvalidInput
from huiyi.faces.http_auth import Agents, check
from huiyi.faces.http_guard import GuardedRoute
from huiyi.faces.http_models import Limit, Who, error_responses
from huiyi.faces.http_times import item_out, local
from huiyi.memory import AsyncMemory
from huiyi.memory.recall import context_query
from huiyi.model import CoreBlock, MemoryItem, RecallResult
from huiyi.recall.recipes import named, recipe_for

__all__ = ["debug_router"]

BODY = error_responses(400, 401, 403, 413, 422)
QUERY = error_responses(400, 401, 403, 422)
BY_ID = error_responses(401, 403, 404, 422)
EDIT = error_responses(400, 401, 403, 404, 409, 413, 422)  # 404: no such block, 409: no block folder


class ConsoleInfo(BaseModel):
    version: str
    language: str
    recipes: list[str]
    default_recipe: dict[str, Any]


class DebugBody(Who):
    """Ask as the chat would: the person's message, optionally the agent's last reply, at a moment. With no
    person and no space, the official memories alone are recalled, as every chat recalls them (no context)."""

    message: str = Field(default="", max_length=20000)
    last_reply: str = Field(default="", max_length=20000)
    time: TimeIn | None = None  # when it is asked (default: now)
    recipe: str | None = Field(default=None, max_length=200)  # a named recipe (default: the config's)
    overrides: dict[str, Any] = Field(default_factory=dict)  # recipe fields changed for this run
    limit: Limit | None = None


class DebugResponse(BaseModel):
    recall: RecallResult | None  # None when nothing was asked
    context: str  # exactly as the chat model gets it; empty for the official scope, which is no chat
    sections: dict[str, str]
    recipe: dict[str, Any]  # the recipe that ran, every field
    texts: dict[str, str]  # memory id -> text, for every candidate the explanation names


class SummarizeBody(Who):
    day: date


class CoreBlocks(BaseModel):
    blocks: list[CoreBlock]
    editable: list[str]  # labels that may be changed for this agent and person


class BlockEdit(Who):
    """Replace ``old`` by ``new`` in a block (``old`` empty: append ``new`` as a line)."""

    old: str = Field(default="", max_length=20000)
    new: str = Field(min_length=1, max_length=20000)


def _recipe(memory: AsyncMemory, name: str | None, overrides: dict[str, Any]) -> RecallRecipe:
    base = recipe_for(name, memory.config)
    if not overrides:
        return base
    try:
        return RecallRecipe.model_validate({**base.model_dump(), **overrides})
    except ValidationError as exc:
        raise InvalidInput(f"recipe overrides are not valid: {exc.errors()[0]['msg']}") from exc


def _candidate_ids(info: dict[str, Any]) -> set[str]:
    ids = {row[0] for rows in info.get("candidates", {}).values() for row in rows}
    return ids | {row[0] for row in info.get("fused", [])} | set(info.get("bonuses", {}))


async def _official(
    memory: AsyncMemory, body: DebugBody, recipe: RecallRecipe, now: datetime | None
) -> RecallResult | None:
    """The official memories alone, recalled as context() recalls them in a chat (None: nothing was asked)."""
    query = context_query(body.message, body.last_reply)[-memory.config.recall.max_query_chars :]
    if not query:
        return None
    limit = body.limit or memory.config.context.recall_limit  # context()'s default, as a chat's run has
    return await memory.recall(query, agent=body.agent, limit=limit, now=now, recipe=recipe, explain=True)


def debug_router(memory: AsyncMemory) -> APIRouter:
    """The routes over one store."""
    router = APIRouter(tags=["console"], route_class=GuardedRoute)
    zone = ZoneInfo(memory.config.timezone)

    @router.get("/v1/console", response_model=ConsoleInfo, responses=QUERY)
    async def console_info(agents: Agents) -> ConsoleInfo:
        """What a console needs first: the language, the recipes and the default recipe's fields."""
        return ConsoleInfo(
            version=__version__,
            language=memory.config.language,
            recipes=named(memory.config),
            default_recipe=memory.config.recall.model_dump(mode="json"),
        )

    @router.post("/v1/debug/recall", response_model=DebugResponse, responses=BODY)
    async def debug_recall(body: DebugBody, agents: Agents) -> DebugResponse:
        """Recall explained: each route's candidates with raw scores, the fused ranking, every bonus, the
        timings per stage, and the context rendered exactly as the chat model would get it."""
        check(agents, body.agent)
        recipe = _recipe(memory, body.recipe, body.overrides)
        now = local(body.time, zone)  # moved into the configured zone, as every /v1 time is
        recalled: RecallResult | None
        context, sections = "", {}
        if body.person is None and body.space is None:  # the console's official scope: a context needs a chat
            recalled = await _official(memory, body, recipe, now)
        else:
            found = await memory.context(
                agent=body.agent,
                person=body.person,
                space=body.space,
                message=body.message,
                last_reply=body.last_reply,
                limit=body.limit,
                now=now,
                recipe=recipe,
                explain=True,
            )
            recalled, context, sections = found.recall, found.text, found.rendered.sections
        named = _candidate_ids(recalled.info) if recalled else set()
        items = await memory.get_many(sorted(named), agent=body.agent) if named else []
        return DebugResponse(
            texts={item.id: item.text for item in items},
            recall=recalled,
            context=context,
            sections=sections,
            recipe=recipe.model_dump(mode="json"),
        )

    @router.post("/v1/summarize", response_model=list[MemoryItem], responses=BODY)
    async def summarize(body: SummarizeBody, agents: Agents) -> list[MemoryItem]:
        """Write one day's summaries of a scope now (daily, global, portraits, profiles, diary)."""
        check(agents, body.agent)
        made = await memory.summarize(body.day, agent=body.agent, person=body.person, space=body.space)
        stored = {item.id: item for item in await memory.get_many([item.id for item in made], agent=body.agent)}
        return [item_out(stored.get(item.id, item), zone) for item in made]  # as stored: created_at set

    @router.get("/v1/core_blocks", response_model=CoreBlocks, responses=QUERY)
    async def core_blocks(
        agents: Agents, agent: Annotated[str, Query(min_length=1)], person: str | None = None
    ) -> CoreBlocks:
        """The Markdown core blocks in the prompt of ``agent`` talking with ``person``, and which may change."""
        check(agents, agent)
        blocks = await memory.core_blocks_for(agent=agent, person=person)
        editable = await asyncio.to_thread(memory.core_memory.editable, agent, person)
        return CoreBlocks(blocks=blocks, editable=editable)

    @router.post("/v1/core_blocks/{label}", response_model=CoreBlock, responses=EDIT)
    async def edit_block(label: str, body: BlockEdit, agents: Agents) -> CoreBlock:
        """Change a core block the config lets this agent (or person) change."""
        check(agents, body.agent)
        if body.old:
            return await memory.core_block_replace(label, body.old, body.new, agent=body.agent, person=body.person)
        return await memory.core_block_append(label, body.new, agent=body.agent, person=body.person)

    return router
