"""The HTTP face (FastAPI). Thin: every route calls ``AsyncMemory``; errors map to status codes here only.

API keys (``http.api_keys`` in the config: key → allowed agents, ``"*"`` for all) scope a caller to its
agents; with no keys configured the service trusts every caller, so it listens on 127.0.0.1 by default.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from typing import Annotated, Any
from zoneinfo import ZoneInfo

from fastapi import FastAPI, Query, Request, Response
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from starlette.exceptions import HTTPException

from huiyi import __version__
from huiyi.errors import (
    ConfigError,
    EmbedderMismatch,
    HuiyiError,
    InvalidInput,
    NotConfigured,
    NotFound,
    ProviderError,
    ReadOnly,
    SchemaTooNew,
    ScopeError,
    StoreBusy,
    StoreError,
    StoreFull,
    UnnamedConversation,
)
from huiyi.faces.console import mount_console
from huiyi.faces.http_auth import Agents, Forbidden, Unauthorized, allowed_agents, check
from huiyi.faces.http_browse import browse_router
from huiyi.faces.http_debug import debug_router
from huiyi.faces.http_entities import entities_router
from huiyi.faces.http_guard import BodyLimit, ErrorResponse, GuardedRoute, error_body
from huiyi.faces.http_headers import PRIVATE, HeadAsGet, SecurityHeaders
from huiyi.faces.http_hosts import SameOrigin
from huiyi.faces.http_lists import lists_router
from huiyi.faces.http_models import (
    NEXT_CURSOR,
    NEXT_CURSOR_HEADER,
    OUT_OF_RANGE,
    ConsolidateBody,
    ContextBody,
    ContextResponse,
    Cursor,
    ErasureReport,
    ExpandBody,
    ExpandResponse,
    FeedbackBody,
    Health,
    MessagesBody,
    MessagesResponse,
    NewMemory,
    PersonBody,
    Purge,
    QueryBody,
    QueryResponse,
    error_responses,
)
from huiyi.faces.http_query import query_response
from huiyi.faces.http_times import aware, item_out, job_out, local, message_out
from huiyi.faces.http_v1 import v1_router
from huiyi.faces.proxy import MemoryProxy, proxy_router
from huiyi.memory import AsyncMemory
from huiyi.model import Job, JobState, MemoryItem, Person, RecallResult
from huiyi.recall.similarity import floor_of, keep_similar, similarities

STATUS: dict[type[HuiyiError], int] = {
    ScopeError: 422,
    InvalidInput: 422,
    NotFound: 404,
    ReadOnly: 403,
    UnnamedConversation: 400,
    NotConfigured: 409,
    EmbedderMismatch: 409,
    SchemaTooNew: 409,
    StoreFull: 507,
    StoreBusy: 503,
    ProviderError: 502,
    ConfigError: 500,
    StoreError: 500,
}


STATUS[Forbidden] = 403
STATUS[Unauthorized] = 401


def status_of(error: HuiyiError) -> int:
    for kind in type(error).__mro__:
        if kind in STATUS:
            return STATUS[kind]
    return 500


# 404 from routing is no_route, not not_found: a client at a wrong base URL (…/v1) took "no such route" for
# "no such memory", and its get_person answered None
HTTP_CODES = {400: "bad_request", 404: "no_route", 405: "method_not_allowed", 413: "too_large"}

# validation errors that mean the request could not be read as values at all: 400, not 422
MALFORMED = frozenset({"json_invalid", OUT_OF_RANGE})


def _as_fields(errors: Sequence[Any]) -> list[Any]:
    """An optional field's errors as the field's own: pydantic reports ``X | None`` member by member, so an
    importance of 5 answered "Input should be None" (though null is refused too) beside X's reason, under
    locs naming its members (``constrained-float``, ``none``)."""
    optional = {tuple(e["loc"][:-1]) for e in errors if e.get("type") == "none_required" and len(e["loc"]) > 1}
    out = []
    for error in errors:
        loc = tuple(error.get("loc", ()))
        if loc[:-1] in optional and len(loc) > 1:
            if error.get("type") == "none_required":
                continue  # the field is not nullable to a caller: null is refused after validation
            error = {**error, "loc": loc[:-1]}
        out.append(error)
    return out or list(errors)


def _reason(error: Any) -> str:
    """A validation error's message; for undecodable JSON, why it could not be decoded."""
    ctx = error.get("ctx") or {}
    if error.get("type") == "json_invalid" and "error" in ctx:
        return str(ctx["error"])
    return str(error.get("msg", ""))


# the error responses each kind of route can give, for the OpenAPI schema
BODY = error_responses(400, 401, 403, 413, 422)
BODY_BY_ID = error_responses(400, 401, 403, 404, 413, 422)
QUERY = error_responses(400, 401, 403, 422)
BY_ID = error_responses(401, 403, 404, 422)
ERASE = error_responses(401, 403, 422)


def _make_proxy(memory: AsyncMemory) -> MemoryProxy | None:
    """The memory proxy when an upstream chat API is configured (proxy.upstream, else llm.base_url)."""
    settings = memory.config.proxy
    upstream = settings.upstream or memory.config.llm.base_url
    if not upstream:
        return None
    return MemoryProxy(memory, settings, upstream, settings.api_key or memory.config.llm.api_key)


def create_app(
    memory: AsyncMemory,
    *,
    api_keys: dict[str, list[str]] | None = None,
    max_body_bytes: int = 2 * 2**20,
    close_on_shutdown: bool = False,
    workers: int = 0,
    index_for: float | None = None,
) -> FastAPI:
    """The ASGI app over one store. ``huiyi serve`` runs it with uvicorn; ``workers`` extraction
    workers run beside it for as long as it does. ``index_for``: with ``close_on_shutdown``, how long
    the close goes on indexing what is queued (``AsyncMemory.close``)."""

    proxy = _make_proxy(memory)
    zone = ZoneInfo(memory.config.timezone)

    @asynccontextmanager
    async def lifespan(_: FastAPI) -> AsyncIterator[None]:
        stop = asyncio.Event()
        running = asyncio.create_task(memory.run_workers(workers, stop)) if workers else None
        yield
        stop.set()
        if running is not None:
            await running
        if proxy is not None:
            await proxy.aclose()
        if close_on_shutdown:
            await memory.close(index_for)

    app = FastAPI(
        title="huiyi",
        version=__version__,
        description="回忆 — long-term memory for LLM characters.",
        lifespan=lifespan,
        docs_url=None,  # served by mount_console from the package's own Swagger UI, so it works offline
        redoc_url=None,
    )
    app.router.route_class = GuardedRoute

    @app.exception_handler(HuiyiError)
    async def _huiyi_error(_: Request, exc: HuiyiError) -> JSONResponse:
        challenge = {"WWW-Authenticate": "Bearer"} if isinstance(exc, Unauthorized) else None
        return ErrorResponse(error_body(exc.code, exc.message), status_code=status_of(exc), headers=challenge)

    @app.exception_handler(HTTPException)
    async def _http_error(request: Request, exc: HTTPException) -> JSONResponse:
        """Starlette's own errors (unknown route, wrong method, …) in the typed shape."""
        code = HTTP_CODES.get(exc.status_code, "http_error")
        said = str(exc.detail)
        if exc.status_code == 404:
            said = f"nothing is served at {request.method} {request.url.path[:200]}: the routes are listed at /docs"
        return ErrorResponse(error_body(code, said), status_code=exc.status_code, headers=exc.headers)

    @app.exception_handler(Exception)
    async def _unexpected(_: Request, exc: Exception) -> JSONResponse:
        # sent by Starlette's outermost middleware, past SecurityHeaders: it carries their headers itself
        return ErrorResponse(error_body("internal_error", "the server failed; see its log"), 500, headers=PRIVATE)

    @app.exception_handler(RequestValidationError)
    async def _validation_error(request: Request, exc: RequestValidationError) -> JSONResponse:
        errors = _as_fields(exc.errors())
        details = [{"loc": list(e.get("loc", ())), "msg": _reason(e)} for e in errors]
        kind = request.headers.get("content-type", "")
        if any(list(e.get("loc", ()))[:1] == ["body"] for e in errors) and "json" not in kind.lower():
            # a JSON body sent without its type reads as no object at all: say what is missing
            said = f"the body is read as JSON only with Content-Type: application/json (sent: {kind or 'none'})"
            return ErrorResponse(error_body("invalid_input", said, details), status_code=422)
        if any(e.get("type") in MALFORMED for e in errors):
            return ErrorResponse(error_body("bad_request", "the request is malformed", details), status_code=400)
        return ErrorResponse(error_body("invalid_input", "the request is not valid", details), status_code=422)

    app.add_middleware(BodyLimit, limit=max_body_bytes)
    if not api_keys:  # with keys a page holds none to send; inside SecurityHeaders, so a refusal carries them
        app.add_middleware(SameOrigin)
    app.add_middleware(SecurityHeaders)
    app.add_middleware(HeadAsGet)  # outermost: every layer inside sees the GET

    async def check_request(request: Request, agent: str) -> None:
        check(allowed_agents(request, request.headers.get("authorization")), agent)

    app.include_router(browse_router(memory))
    app.include_router(debug_router(memory))
    app.include_router(entities_router(memory))
    mount_console(app)

    if proxy is not None:
        app.include_router(proxy_router(proxy, check_request))
    else:

        @app.post("/v1/chat/completions", include_in_schema=False)
        async def no_proxy() -> Response:
            raise NotConfigured("the memory proxy needs an upstream model: set proxy.upstream or llm.base_url")

    app.include_router(v1_router(memory, check_request))

    @app.get("/health", response_model=Health)
    async def health() -> Health:
        return Health(
            status="ok",
            version=__version__,
            schema_version=memory.store.schema_version(),
            embedder=memory.embedder.name,
        )

    async def recall_for(body: QueryBody) -> tuple[RecallResult, dict[str, float]]:
        """Recall, then seed 000 §12's threshold on the similarity scale (huiyi.recall.similarity)."""
        result = await memory.recall(
            body.query,
            agent=body.agent,
            person=body.person,
            space=body.space,
            limit=body.limit,
            score_threshold=0.0,
            kinds=body.kinds,
        )
        settings = memory.config.http
        floor = floor_of(memory.embedder.name) if settings.similarity_floor is None else settings.similarity_floor
        scale = await asyncio.to_thread(similarities, memory.embedder, body.query, result.hits, floor)
        threshold = settings.query_threshold if body.score_threshold is None else body.score_threshold
        return result.model_copy(update={"hits": keep_similar(result.hits, scale, threshold)}), scale

    @app.post("/query", response_model=QueryResponse, responses=BODY)
    async def query(body: QueryBody, agents: Agents) -> QueryResponse:
        """Recall, shaped like seed 000 §12: events, entity facts and per-route timings."""
        check(agents, body.agent)
        result, scale = await recall_for(body)
        known = await memory.get_person(body.person, agent=body.agent) if body.person else None
        names = [known.name, *known.aliases] if known and known.name else []
        return query_response(result, body.person, agent=body.agent, person_names=names, similarity=scale)

    @app.post("/query_simple", response_model=list[str], responses=BODY)
    async def query_simple(body: QueryBody, agents: Agents) -> list[str]:
        """The recalled memory texts only, best first."""
        check(agents, body.agent)
        return [hit.text for hit in (await recall_for(body))[0].hits]

    @app.post("/v1/messages", response_model=MessagesResponse, responses=BODY)
    async def add_messages(body: MessagesBody, agents: Agents) -> MessagesResponse:
        """Append messages (idempotent by message id); they are indexed right after (``index``: before) the answer."""
        check(agents, body.agent)
        given = [m.model_copy(update={"time": local(m.time, zone)}) for m in body.messages]
        stored = await memory.add(given, agent=body.agent, person=body.person, space=body.space, index=body.index)
        return MessagesResponse(
            stored=len(stored),
            skipped=len(body.messages) - len(stored),
            ids=[m.id for m in stored],
            messages=[message_out(m, zone) for m in stored],
        )

    @app.post("/v1/memories", response_model=MemoryItem, status_code=201, responses=BODY)
    async def create_memory(body: NewMemory, agents: Agents) -> MemoryItem:
        """Store one memory: official when no person or space is named; an ``id`` stored before writes nothing."""
        check(agents, body.agent)
        made = await memory.remember(
            body.text,
            agent=body.agent,
            person=body.person,
            space=body.space,
            kind=body.kind,
            time=local(body.time, zone),
            said_at=local(body.said_at, zone),
            importance=body.importance,
            keywords=body.keywords,
            sources=body.sources,
            data=body.data,
            id=body.id,
            place=body.place,
            insight=body.insight,
            participants=body.participants,
            subject=body.subject,
            predicate=body.predicate,
            object=body.object,
            fact_kind=body.fact_kind,
        )
        return item_out(await memory.get(made.id, agent=body.agent), zone)  # as stored, created_at set

    @app.get("/v1/memories/{memory_id:path}", response_model=MemoryItem, responses=BY_ID)
    async def get_memory(
        memory_id: str,
        agents: Agents,
        agent: Annotated[str, Query(min_length=1)],
        person: str | None = None,
        space: str | None = None,
    ) -> MemoryItem:
        """A memory; with ``person`` or ``space``, only one of that chat's (another's: 404)."""
        check(agents, agent)
        return item_out(await memory.get(memory_id, agent=agent, person=person, space=space), zone)

    @app.delete("/v1/memories/{memory_id:path}", status_code=204, responses=BY_ID)
    async def delete_memory(
        memory_id: str,
        agents: Agents,
        agent: Annotated[str, Query(min_length=1)],
        person: str | None = None,
        space: str | None = None,
    ) -> Response:
        """Delete a memory; with ``person`` or ``space``, only one of that chat's (another's: 404)."""
        check(agents, agent)
        await memory.delete(memory_id, agent=agent, person=person, space=space)
        return Response(status_code=204)

    @app.put("/v1/persons/{person_id:path}", response_model=Person, responses=BODY)
    async def put_person(person_id: str, body: PersonBody, agents: Agents) -> Person:
        """Record a person's name and aliases (霓霓 → 苏霓)."""
        check(agents, body.agent)
        person = Person(id=person_id, name=body.name, aliases=body.aliases, platform_ids=body.platform_ids)
        await memory.set_person(person, agent=body.agent)
        return person

    # an erasure is idempotent (a retry, or a person never seen, erases nothing: 200 with zeros), so no 404
    @app.delete("/v1/persons/{person_id:path}", response_model=ErasureReport, responses=ERASE)
    async def forget_person(
        person_id: str, agents: Agents, agent: Annotated[str, Query(min_length=1)], purge: Purge = "behind"
    ) -> ErasureReport:
        """Forget a person for good (GDPR-style erasure): their messages, memories, facts, entity, jobs,
        working memory and core blocks, in one transaction, and purged from the store's files: behind the
        answer, or before it with ``purge=wait`` (``purged`` says which)."""
        check(agents, agent)
        return ErasureReport.of(await memory.forget_person(person_id, agent=agent, purge=purge))

    @app.delete("/v1/messages/{message_id:path}", response_model=ErasureReport, responses=BY_ID)
    async def forget_message(
        message_id: str, agents: Agents, agent: Annotated[str, Query(min_length=1)], purge: Purge = "behind"
    ) -> ErasureReport:
        """Forget one message and what was made from it (chunks, events, facts), purged from the files (behind
        the answer, or before it with ``purge=wait``)."""
        check(agents, agent)
        done = await memory.forget_messages([message_id], agent=agent, purge=purge)
        if not done.messages:
            raise NotFound(f"no message {message_id!r} for agent {agent!r}")
        return ErasureReport.of(done)

    @app.get("/v1/persons/{person_id:path}", response_model=Person, responses=BY_ID)
    async def get_person(person_id: str, agents: Agents, agent: Annotated[str, Query(min_length=1)]) -> Person:
        """A person's record, as PUT sets it (name, aliases, platform ids); messages and memories make none."""
        check(agents, agent)
        if (found := await memory.get_person(person_id, agent=agent)) is None:
            said = f"no record of person {person_id!r} for agent {agent!r} (messages and memories make none)"
            raise NotFound(f"{said}: PUT /v1/persons/{person_id} sets their name, aliases and platform ids")
        return found

    @app.get("/v1/jobs", response_model=list[Job], responses={**QUERY, 200: NEXT_CURSOR_HEADER})
    async def list_jobs(
        agents: Agents,
        response: Response,
        agent: Annotated[str, Query(min_length=1)],
        state: Annotated[list[JobState] | None, Query()] = None,
        limit: Annotated[int, Query(ge=1, le=1000)] = 100,
        cursor: Cursor = None,
    ) -> list[Job]:
        """An agent's background jobs, oldest first; ``state=failed`` for those that gave up. While more
        follow, the ``Huiyi-Next-Cursor`` header holds the next page's ``cursor``."""
        check(agents, agent)
        page = await memory.jobs_page(agent=agent, states=state or (), limit=limit, cursor=cursor)
        if page.next_cursor is not None:
            response.headers[NEXT_CURSOR] = page.next_cursor
        return [job_out(job, zone) for job in page.items]

    @app.post("/v1/jobs/{job_id}/retry", response_model=Job, responses=BY_ID)
    async def retry_job(job_id: str, agents: Agents, agent: Annotated[str, Query(min_length=1)]) -> Job:
        """Queue a failed job of the agent again (attempts back to 0); 404 unless it is failed."""
        check(agents, agent)
        return job_out(await memory.retry_job(job_id, agent=agent), zone)

    @app.post("/context", response_model=ContextResponse, responses=BODY)
    async def context(body: ContextBody, agents: Agents) -> ContextResponse:
        """The rendered prompt context for the next turn: core blocks, overview, recalled memories, working memory."""
        check(agents, body.agent)
        found = await memory.context(
            agent=body.agent,
            person=body.person,
            space=body.space,
            message=body.message,
            last_reply=body.last_reply,
            max_chars=body.max_chars,
        )
        return ContextResponse(
            text=found.text,
            sections=found.rendered.sections,
            recalled=[hit.id for hit in found.recall.hits] if found.recall else [],
            timings_ms=found.recall.timings_ms if found.recall else {},
        )

    @app.post("/v1/feedback", response_model=MemoryItem, responses=BODY_BY_ID)
    async def feedback(body: FeedbackBody, agents: Agents) -> MemoryItem:
        """Judge a recalled memory; the sum weighs in the seed 001 scoring preset."""
        check(agents, body.agent)
        person, space = body.person, body.space
        judged = await memory.feedback(body.memory_id, body.value, agent=body.agent, person=person, space=space)
        return item_out(judged, zone)

    @app.post("/v1/consolidate", responses=BODY)
    async def run_consolidate(body: ConsolidateBody, agents: Agents) -> dict[str, Any]:
        """Consolidate one scope now (or, with dry_run, show what would change)."""
        check(agents, body.agent)
        report = await memory.consolidate(agent=body.agent, person=body.person, space=body.space, dry_run=body.dry_run)
        return report.model_copy(update={"now": aware(report.now, zone)}).model_dump(mode="json")

    @app.post("/expand_words", response_model=ExpandResponse, responses=BODY)
    async def expand_words(body: ExpandBody, agents: Agents) -> ExpandResponse:
        """联想词 (seed 000 §11.1): strategy 0/"first" round-robin, 1/"second" pooled; filter_levels [0] keeps all."""
        if body.agent:
            check(agents, body.agent)
        strategy = {"first": 0, "second": 1}.get(str(body.strategy), body.strategy)
        found = await memory.expand(
            body.sentence,
            agent=body.agent,
            person=body.person,
            max_words=body.max_words,
            strategy=int(strategy),
            filter_levels=body.filter_levels,
        )
        return ExpandResponse(
            original_keywords=found.tokens,
            input_words=found.base_words,
            expanded_words=[{word: level} for word, level in found.expanded],
            timings_ms={"tokenize": found.tokenize_ms, "expand": found.expand_ms, "total": found.total_ms},
        )

    app.include_router(lists_router(memory))
    app.state.memory = memory
    app.state.api_keys = api_keys or {}
    app.state.started = time.time()
    return app
