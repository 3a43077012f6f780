"""``Memory`` and ``AsyncMemory``: the one public entry to huiyi.

``AsyncMemory`` is the core; ``Memory`` runs the same coroutines on a private event loop in a
background thread, so every method exists once.

    >>> import tempfile
    >>> from huiyi import Memory
    >>> with Memory(tempfile.mkdtemp()) as memory:
    ...     _ = memory.add(["我下周三要考驾照，好紧张", "周末我想去海边看日出"], agent="祈煜", person="木木")
    ...     result = memory.recall("考试是哪天？", agent="祈煜", person="木木", limit=1)
    >>> result.hits[0].text
    '木木: 我下周三要考驾照，好紧张'
"""

from __future__ import annotations

import asyncio
import atexit
import contextlib
import contextvars
import functools
import logging
import threading
import weakref
from collections.abc import Awaitable, Callable, Coroutine, Mapping, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from datetime import UTC, date, datetime
from pathlib import Path
from types import TracebackType
from typing import Any, Concatenate, ParamSpec, TypeVar
from zoneinfo import ZoneInfo

from huiyi.config import Config
from huiyi.config.recall import RecallRecipe
from huiyi.errors import EmbedderMismatch, InvalidInput, NotFound
from huiyi.flows import ingest
from huiyi.flows.consolidate.report import Report
from huiyi.flows.consolidate.run import consolidate, consolidate_due, last_run
from huiyi.flows.core_blocks import CoreBlocks
from huiyi.flows.core_memory import CoreMemory
from huiyi.flows.extract import Extraction, Extractor, Fold, fold
from huiyi.flows.extract.worker import Worker
from huiyi.flows.summarize.run import summarize_day, summarize_due
from huiyi.model import (
    CoreBlock,
    Entity,
    EntityMerge,
    Job,
    JobState,
    Link,
    LinkKind,
    MemoryItem,
    MemoryKind,
    Message,
    MessageIn,
    Person,
    RecallResult,
    Scope,
    new_id,
    visible_scopes,
)
from huiyi.providers.embed import Embedder, make_embedder
from huiyi.providers.llm import LLM, OpenAIChat
from huiyi.providers.priority import RecallFirst
from huiyi.recall import pipeline
from huiyi.recall.recipes import recipe_for
from huiyi.recall.reinforce import Reinforcer
from huiyi.recall.render import ContextParts, RenderedContext, Templates, render
from huiyi.store import open_store
from huiyi.store.base import Erasure, ScopeStats, Store, Writes
from huiyi.text import tokens
from huiyi.text.expand import Expansion
from huiyi.text.expand import expand as expand_words
from huiyi.text.lexicon import lexicon_for

log = logging.getLogger(__name__)

P = ParamSpec("P")
T = TypeVar("T")

MessageLike = MessageIn | dict[str, Any] | str

# Recall and the prompt's reads run on threads of their own, so queued adds never delay them; adds and
# indexing share a few, so a burst of them cannot take every core from recall.
READ_THREADS = 8
WRITE_THREADS = 2
# what ``update`` may change of a memory
EDITABLE = frozenset({"text", "time", "place", "keywords", "insight", "importance"})


class AsyncMemory:
    """Long-term memory for one store: a directory holding ``huiyi.sqlite``, or a ``postgresql://`` URL.

    Blocking work (SQLite, the embedding model) runs in worker threads, never on the event loop:
    recall's hot path (recall, context, working memory) in its own pool, adds and indexing in a small
    bounded one, the rest in asyncio's default pool. Passage embeddings yield to query embeddings.
    """

    def __init__(
        self,
        path: str | Path = ".huiyi",
        *,
        config: Config | None = None,
        embedder: Embedder | None = None,
        store: Store | None = None,
        extractor: Extractor | None = None,
        clock: Callable[[], datetime] | None = None,
    ) -> None:
        self.config = config or Config.load()
        self._tz = ZoneInfo(self.config.timezone)
        self._clock = clock
        self.store: Store = store or open_store(path, self.config.store)
        self.embedder: Embedder = RecallFirst(embedder or make_embedder(self.config.embed))
        self._check_embedder()
        # this instance's name on the indexing work it claims, apart from other processes and instances
        self._indexer = f"{ingest.indexer_name()}:{id(self):x}"
        ingest.index_pending(self.store, self.embedder, self.config, self._indexer)
        self.templates = Templates.load(self.config.language, self.config.context.templates or None)
        self.core_blocks = CoreBlocks(self.config.context.core_blocks) if self.config.context.core_blocks else None
        self.core_memory = CoreMemory(
            self.core_blocks,
            self.store,
            self.config.context.person_blocks,
            self.config.context.tools_edit_agent_blocks,
        )
        self.worker = Worker(self.store, self.embedder, extractor or _LazyExtractor(self.config), self.config)
        self._llm_client: OpenAIChat | None = None
        self.reinforcer = Reinforcer(self.store, self.config.consolidate.forget.recall_bonus)
        self._worker_task: asyncio.Task[None] | None = None
        self._worker_stop = asyncio.Event()
        self._reads = ThreadPoolExecutor(READ_THREADS, thread_name_prefix="huiyi-read")
        self._writes = ThreadPoolExecutor(WRITE_THREADS, thread_name_prefix="huiyi-write")

    def _check_embedder(self) -> None:
        recorded = self.store.embedding_model()
        current = (self.embedder.name, self.embedder.dim)
        if recorded is None:
            self.store.set_embedding_model(*current)
        elif recorded != current:
            raise EmbedderMismatch(
                f"this store holds vectors of {recorded[0]} (dim {recorded[1]}) but the configured embedder "
                f"is {current[0]} (dim {current[1]}); use the same embedder or a new store"
            )

    def now(self) -> datetime:
        """The current wall-clock time in the configured timezone, without tzinfo (or the given clock's)."""
        if self._clock is not None:
            return self._clock()
        return datetime.now(self._tz).replace(tzinfo=None)

    async def _run(self, function: Callable[..., T], *args: Any, **kwargs: Any) -> T:
        return await asyncio.to_thread(function, *args, **kwargs)

    async def _read(self, function: Callable[..., T], *args: Any, **kwargs: Any) -> T:
        """On the hot path's own threads: recall and what the prompt reads."""
        return await _in_pool(self._reads, function, *args, **kwargs)

    async def _write(self, function: Callable[..., T], *args: Any, **kwargs: Any) -> T:
        """On the bounded write threads: appending, indexing, planning folds."""
        return await _in_pool(self._writes, function, *args, **kwargs)

    # ingest ------------------------------------------------------------------------------------
    async def add(
        self,
        messages: Sequence[MessageLike] | MessageLike,
        *,
        agent: str,
        person: str | None = None,
        space: str | None = None,
        progress: Callable[[int], None] | None = None,
        extract: bool = True,
    ) -> list[Message]:
        """Append messages to the log (durable before this returns) and index them for recall.

        ``person`` alone means the private chat with that person; ``space`` means a group chat, where
        each message names its ``speaker``. Messages whose ``id`` was stored before are skipped, so
        re-sending a batch is safe. Returns the messages newly stored.

        ``extract=False`` is for importing history whose memories exist already: the messages become
        recallable but leave working memory at once and are never handed to extraction.
        """
        batch: Sequence[MessageLike] = [messages] if isinstance(messages, str | dict | MessageIn) else messages
        prepared = ingest.prepare(batch, agent=agent, person=person, space=space, now=self.now(), config=self.config)
        if not prepared:
            return []
        # born claimed by this instance, which indexes them next: an opener elsewhere leaves them be
        stored = await self._write(self.store.append_messages, prepared, ingest.index_claim(self._indexer))
        await self._write(
            ingest.index_messages, self.store, self.embedder, stored, self.config, progress, self._indexer
        )
        if not extract:
            last = max((m.seq for m in stored), default=0)
            await self._write(self.store.apply, Writes(fold_points=[(agent, prepared[0].space, last + 1)]))
            return stored
        private_person = None if space else person
        if await self._write(fold.plan_folds, self.store, agent, prepared[0].space, private_person, self.config):
            self._wake_worker()
        return stored

    # working memory and extraction ------------------------------------------------------------------
    async def flush(
        self, *, agent: str, person: str | None = None, space: str | None = None, wait: bool = True
    ) -> list[Job]:
        """Fold all of a space's working memory now (call it on a scene change, or before a pause).

        Returns the space's fold jobs that this call planned, queued again (a fold that failed for good
        and is planned again is retried) or found still pending or running; [] when nothing is left to
        fold. With ``wait`` they run before this returns, as far as this process can run them, and each
        is returned as it then stands: one whose ``state`` is not ``DONE`` is what could not be done —
        ``FAILED`` (``last_error`` says why; ``retry_job`` queues it again), ``PENDING`` (it failed and is
        retried at ``run_after``) or ``RUNNING`` (another worker holds it). Without ``wait`` the
        background worker takes them.
        """
        space_id = _chat_of(agent, person, space).space_id
        outstanding = await self._run(self._fold_jobs, agent, space_id, [JobState.PENDING, JobState.RUNNING])
        planned = await self._write(
            fold.plan_folds,
            self.store,
            agent,
            space_id,
            None if space else person,
            self.config,
            everything=True,
            retry_failed=True,
        )
        jobs = {job.id: job for job in [*outstanding, *planned]}
        if not wait:
            if planned:
                self._wake_worker()
            return list(jobs.values())
        await self.run_jobs()
        unfinished = await self._run(
            self._fold_jobs, agent, space_id, [JobState.PENDING, JobState.RUNNING, JobState.FAILED]
        )
        now = {job.id: job for job in unfinished}
        done = {"state": JobState.DONE, "lease_until": None}
        result = [now.get(job_id) or job.model_copy(update=done) for job_id, job in jobs.items()]
        for job in result:
            if job.state is not JobState.DONE:
                log.warning("flush: job %s is %s: %s", job.id, job.state.value, job.last_error or job.worker)
        return result

    def _fold_jobs(self, agent: str, space: str, states: Sequence[JobState]) -> list[Job]:
        found = self.store.list_jobs(agent, states, limit=100_000)
        return [job for job in found if job.kind == fold.FOLD and job.payload.get("space") == space]

    async def run_jobs(self) -> int:
        """Run every due extraction job now, in this task; returns how many ran."""
        return await self.worker.drain()

    async def run_workers(self, count: int, stop: asyncio.Event) -> None:
        """Run ``count`` extraction workers until ``stop`` is set (``huiyi worker``, ``serve --workers``).

        With PostgreSQL any number of processes may do this against one database: leases keep them apart.
        """
        workers = [
            Worker(self.store, self.embedder, self.worker.extractor, self.config, name=f"{self.worker.name}/{i}")
            for i in range(max(1, count))
        ]
        await asyncio.gather(*(worker.run(stop) for worker in workers))

    async def jobs(self, *, agent: str | None = None, states: Sequence[JobState] = (), limit: int = 100) -> list[Job]:
        """Background jobs, oldest first: of one agent, or of all; of the given states, or of any."""
        return await self._run(self.store.list_jobs, agent, states, limit)

    async def retry_job(self, job_id: str, *, agent: str | None = None) -> Job:
        """Queue a job that failed for good again, its attempts back to 0; ``NotFound`` when no failed
        job has that id (of ``agent``, when given)."""
        job = await self._run(self.store.retry_job, job_id, agent)
        if job is None:
            raise NotFound(f"no failed job {job_id!r}" + (f" of agent {agent!r}" if agent is not None else ""))
        self._wake_worker()
        return job

    async def retry_failed(self, *, agent: str | None = None) -> list[Job]:
        """Queue every job that failed for good again (of ``agent``, when given); returns them."""
        failed = await self._run(self.store.list_jobs, agent, [JobState.FAILED], 100_000)
        retried = [job for f in failed if (job := await self._run(self.store.retry_job, f.id, f.agent)) is not None]
        if retried:
            self._wake_worker()
        return retried

    async def working_memory(self, *, agent: str, person: str | None = None, space: str | None = None) -> list[Message]:
        """The recent turns of a space kept verbatim (seed 000: 10–30 rounds)."""
        return await self._read(
            fold.working_memory, self.store, agent, _chat_of(agent, person, space).space_id, self.config
        )

    async def overview(self, *, agent: str, person: str | None = None, space: str | None = None) -> list[MemoryItem]:
        """前情提要: the latest events of the space, oldest first, capped by ``overview.size``."""
        scope = _chat_of(agent, person, space)
        latest = await self._read(self.store.list_memories, [scope], [MemoryKind.EVENT], self.config.overview.size)
        return list(reversed(latest))

    # consolidation and summaries ---------------------------------------------------------------------
    def _llm(self) -> LLM | None:
        if not self.config.llm.base_url:
            return None
        if self._llm_client is None:
            self._llm_client = OpenAIChat(self.config.llm)
        return self._llm_client

    async def consolidate(
        self,
        *,
        agent: str,
        person: str | None = None,
        space: str | None = None,
        dry_run: bool = False,
        now: datetime | None = None,
    ) -> Report:
        """Merge duplicate entities, supersede contradicted facts, merge descriptions, link related events,
        update strength and forget what should go, for one scope; ``dry_run`` reports without writing."""
        scope = _scope_of(agent, person, space)
        since = await self._run(last_run, self.store, scope)
        return await consolidate(
            self.store,
            self.embedder,
            scope,
            now or self.now(),
            self.config.consolidate,
            self._llm(),
            dry_run,
            since=since,
        )

    async def summarize(
        self, day: date, *, agent: str, person: str | None = None, space: str | None = None
    ) -> list[MemoryItem]:
        """Write one day's summaries of a scope (daily, global, portraits, profiles, diary); they are memories."""
        return await summarize_day(
            self.store,
            self.embedder,
            _scope_of(agent, person, space),
            day,
            self.now(),
            self.config,
            self._llm(),
            persona=self._persona(agent),
        )

    async def maintain(self, *, catch_up: bool = True) -> tuple[list[Report], list[MemoryItem]]:
        """Consolidate every due scope and summarise every day that has messages and no summary yet.

        The background worker runs it with ``catch_up=False``: only the last ``summary.lookback_days``.
        """
        reports = await consolidate_due(self.store, self.embedder, self.config.consolidate, self.now(), self._llm())
        summaries = await summarize_due(
            self.store, self.embedder, self.config, self.now(), self._llm(), persona=self._persona(), catch_up=catch_up
        )
        return reports, summaries

    async def merges(self, *, agent: str) -> list[EntityMerge]:
        return await self._run(self.store.list_merges, agent)

    async def undo_merge(self, merge_id: str, *, agent: str) -> EntityMerge:
        """Split a merged entity back out, restoring both entities' names as they were."""
        if not any(m.id == merge_id and not m.undone for m in await self.merges(agent=agent)):
            raise NotFound(f"no merge {merge_id!r} to undo for agent {agent!r}")
        return await self._run(self.store.undo_merge, agent, merge_id)

    def _persona(self, agent: str | None = None) -> str:
        if self.core_blocks is None:
            return ""
        return "\n".join(block.text for block in self.core_blocks.blocks(agent) if block.label == "persona")

    # core memory -------------------------------------------------------------------------------
    async def core_blocks_for(self, *, agent: str, person: str | None = None) -> list[CoreBlock]:
        """The core blocks in the prompt of ``agent`` talking with ``person``: shared, the agent's, the person's."""
        return await self._read(self.core_memory.blocks, agent, person)

    async def core_block_append(self, label: str, text: str, *, agent: str, person: str | None = None) -> CoreBlock:
        """Add a line to a core block the caller owns: the person's own (``human``), or the agent's if allowed."""
        return await self._run(functools.partial(self.core_memory.append, label, text, agent=agent, person=person))

    async def core_block_replace(
        self, label: str, old: str, new: str, *, agent: str, person: str | None = None
    ) -> CoreBlock:
        """Replace the one occurrence of ``old`` in a core block the caller owns."""
        return await self._run(functools.partial(self.core_memory.replace, label, old, new, agent=agent, person=person))

    # the prompt context ----------------------------------------------------------------------------
    async def context(
        self,
        *,
        agent: str,
        person: str | None = None,
        space: str | None = None,
        message: str = "",
        last_reply: str = "",
        limit: int | None = None,
        shown: Sequence[str] = (),
        now: datetime | None = None,
        recipe: RecallRecipe | str | None = None,
        explain: bool = False,
    ) -> Context:
        """Everything the chat model needs for its next turn, rendered for the prompt.

        Core blocks, the overview (前情提要), recalled fragments and events, then working memory, with
        no item twice. The recall query is the agent's last reply plus the person's message (seed 000 §5).
        ``shown`` holds texts the caller's prompt already carries (a proxied chat request): working-memory
        messages with those texts are not repeated, and recalled memories of them are left out.
        ``now``, ``recipe`` and ``explain`` go to recall (the console's debugger asks at a chosen time).
        """
        space_id = _chat_of(agent, person, space).space_id
        recent = await self._read(fold.working_memory, self.store, agent, space_id, self.config)
        overview = await self.overview(agent=agent, person=person, space=space)
        query = "\n".join(part for part in (last_reply, message) if part.strip())
        recalled = None
        items: list[MemoryItem] = []
        if query:
            recalled = await self.recall(
                query[-self.config.recall.max_query_chars :],
                agent=agent,
                person=person,
                space=space,
                limit=limit or self.config.context.recall_limit,
                now=now,
                recipe=recipe,
                explain=explain,
            )
            items = await self._read(self.store.get_memories, agent, [hit.id for hit in recalled.hits])
        known = await self._read(self.store.get_person, agent, person) if person else None
        parts = ContextParts(
            agent=agent,
            person=person,
            now=now or self.now(),
            language=self.config.language,
            core_blocks=await self.core_blocks_for(agent=agent, person=person),
            overview=overview,
            facts=[
                item
                for item in items
                if item.kind is MemoryKind.FACT and (item.valid_to is None or self.config.context.closed_facts)
            ],
            events=[item for item in items if item.kind is not MemoryKind.FACT],
            working=recent,
            person_names=[known.name, *known.aliases] if known and known.name else [],
            shown_elsewhere=frozenset(m.id for m in recent if m.text in set(shown)),
        )
        return Context(rendered=render(parts, self.templates), recall=recalled, working=recent, overview=overview)

    def _wake_worker(self) -> None:
        if not self.config.worker.enabled:
            return
        if self._worker_task is None or self._worker_task.done():
            self._worker_stop = asyncio.Event()
            self._worker_task = asyncio.get_running_loop().create_task(self._background(self._worker_stop))

    async def _background(self, stop: asyncio.Event) -> None:
        """Extraction jobs as they come, and maintenance (consolidation, summaries) every so often."""
        minutes = self.config.worker.maintenance_minutes
        if minutes <= 0:
            await self.worker.run(stop)
            return
        extraction = asyncio.create_task(self.worker.run(stop))
        while not stop.is_set():
            try:
                await self.maintain(catch_up=False)
            except Exception:  # a failed run is retried at the next period; extraction goes on
                log.exception("maintenance failed")
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(stop.wait(), timeout=minutes * 60)
        await extraction

    async def remember(
        self,
        text: str,
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
    ) -> MemoryItem:
        """Store one memory directly: an official memory (no person or space) or one of a scope.

        With an ``id`` already stored, nothing is written (imports are idempotent)."""
        scope = _scope_of(agent, person, space)
        try:
            item = MemoryItem(
                id=id or new_id("mem"),
                scope=scope,
                kind=kind,
                text=text,
                time=time,
                importance=importance,
                keywords=list(keywords),
                sources=list(sources),
                data=data or {},
                place=place,
                insight=insight,
                participants=list(participants),
                created_at=datetime.now(UTC).replace(tzinfo=None),  # as the store records it: zone-less UTC
            )
        except ValueError as exc:
            raise InvalidInput(str(exc)) from exc
        if len(text) > self.config.ingest.max_message_chars:
            raise InvalidInput(f"memory text has {len(text)} characters; limit {self.config.ingest.max_message_chars}")
        vector = await self._write(self.embedder.embed_passages, [text])
        terms = ingest.terms_of(" ".join([text, *keywords]))
        await self._write(self.store.add_memories, [item], vector, [terms])
        return item

    # persons -----------------------------------------------------------------------------------
    async def set_person(self, person: Person, *, agent: str) -> None:
        """Record a person and their aliases; names become single words for the tokenizer."""
        await self._run(self.store.upsert_person, agent, person)
        tokens.add_words([person.id, person.name, *person.aliases])

    async def get_person(self, person_id: str, *, agent: str) -> Person | None:
        return await self._run(self.store.get_person, agent, person_id)

    # erasure -----------------------------------------------------------------------------------
    async def forget_person(self, person: str, *, agent: str) -> Erasure:
        """Forget a person for good (GDPR-style erasure), in one transaction, and purge the store's files.

        Goes: every message of their private chat and every group message they said; memories of their
        scope and memories made from those messages (chunks, events, summaries); facts about them and
        their entity with its aliases; links, merges and jobs that name any of it; their working memory,
        record and core blocks. Other people's messages whose chunks held their turns are indexed again.
        """
        _chat_of(agent, person, None)  # a valid person id
        known = await self.get_person(person, agent=agent)
        names = sorted({person, *([known.name] if known and known.name else []), *(known.aliases if known else [])})
        erase = functools.partial(self.store.erase, agent, (), person=person, names=names, window=self._window())
        done = await self._run(erase)
        await self._run(ingest.index_pending, self.store, self.embedder, self.config)
        log.info("forgot person %r of agent %r: %s", person, agent, done)
        return done

    def _window(self) -> int:
        """How many turns after a message its neighbours' chunks hold or embed it."""
        return max(0, self.config.chunk.turns - 1) + max(0, self.config.chunk.context_turns)

    async def forget_messages(self, ids: Sequence[str], *, agent: str) -> Erasure:
        """Forget messages and everything made from them, and purge the store's files."""
        if not agent:
            raise InvalidInput("agent is required")
        done = await self._run(functools.partial(self.store.erase, agent, list(ids), window=self._window()))
        await self._run(ingest.index_pending, self.store, self.embedder, self.config)
        return done

    # recall ------------------------------------------------------------------------------------
    async def recall(
        self,
        query: str,
        *,
        agent: str,
        person: str | None = None,
        space: str | None = None,
        limit: int | None = None,
        score_threshold: float | None = None,
        kinds: Sequence[MemoryKind | str] | None = None,
        now: datetime | None = None,
        time_range: tuple[datetime | None, datetime | None] | None = None,
        recipe: RecallRecipe | str | None = None,
        explain: bool = False,
    ) -> RecallResult:
        """The memories most relevant to ``query`` that this person/space may see.

        Reads the agent's official memories plus the named person's and space's, never another's.
        ``now`` is the moment the query is asked (default: the clock), against which its time words
        (上周, last May) are read. ``time_range`` (start, end; either may be None) keeps only memories
        whose time falls inside it. ``recipe`` (one, or a name: relevance, seed001, seed004 or one of
        ``[recipes]``) replaces the configured ``[recall]`` for this call. ``explain`` records every route's
        candidates, the fused ranking and every bonus in the result's ``info`` (the console's debugger).
        """
        chosen = recipe_for(recipe, self.config)
        if not agent:
            raise InvalidInput("agent is required")
        if not query or not query.strip():
            raise InvalidInput("query is empty")
        if len(query) > chosen.max_query_chars:
            raise InvalidInput(f"query has {len(query)} characters; limit {chosen.max_query_chars}")
        limit = chosen.limit if limit is None else limit
        if limit < 1:
            raise InvalidInput("limit must be at least 1")
        request = pipeline.RecallRequest(
            query=query,
            scopes=_visible(agent, person, space),
            limit=limit,
            score_threshold=chosen.score_threshold if score_threshold is None else score_threshold,
            now=now or self.now(),
            kinds=_kinds(kinds),
            drop_words=[agent, *([person] if person else [])],
            time_range=time_range,
            explain=explain,
        )
        return await self._read(
            pipeline.run,
            self.store,
            self.embedder,
            chosen,
            request,
            lexicon=self.config.expand.neighbours,
            reinforcer=self.reinforcer,
        )

    async def feedback(self, memory_id: str, value: float, *, agent: str) -> MemoryItem:
        """Record a caller's judgement of a recalled memory (-1 bad … +1 good); it sums up per memory."""
        if not -1.0 <= value <= 1.0:
            raise InvalidInput("feedback must be between -1 and 1")
        item = await self.get(memory_id, agent=agent)
        await self._run(self.store.update_memories, agent, [(memory_id, {"feedback": item.feedback + value})])
        return item.model_copy(update={"feedback": item.feedback + value})

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
        visible = set(_visible(agent, person, space))
        found = [m for m in await self._run(self.store.get_memories, agent, [source, target]) if m.scope in visible]
        if len({item.id for item in found}) != len({source, target}):
            raise NotFound(f"both memories must exist and be visible here: {source}, {target}")
        link = Link(source=source, target=target, kind=kind, weight=weight)
        await self._run(self.store.add_links, agent, [link])
        return link

    async def expand(
        self,
        text: str,
        *,
        agent: str = "",
        person: str | None = None,
        max_words: int | None = None,
        strategy: int | None = None,
        filter_levels: list[int] | None = None,
    ) -> Expansion:
        """联想词: words associated with ``text`` (synonyms from Cilin, neighbours of the embedding model),
        each with a level; the names of the agent and the person are never expanded (seed 000 v22)."""
        settings = self.config.expand
        lexicon = await self._run(lexicon_for, settings.neighbours, settings.cache_dir or None)
        return await self._run(
            expand_words,
            text,
            settings.max_words if max_words is None else max_words,
            settings.strategy if strategy is None else strategy,
            filter_levels,
            [name for name in (agent, person) if name],
            lexicon,
        )

    # items -------------------------------------------------------------------------------------
    async def get(self, memory_id: str, *, agent: str) -> MemoryItem:
        found = await self._run(self.store.get_memories, agent, [memory_id])
        if not found:
            raise NotFound(f"no memory {memory_id!r} for agent {agent!r}")
        return found[0]

    async def get_many(self, ids: Sequence[str], *, agent: str) -> list[MemoryItem]:
        """Memories by id, in the order asked; unknown ids are left out."""
        return await self._run(self.store.get_memories, agent, list(ids))

    async def delete(self, memory_id: str, *, agent: str) -> None:
        if not await self._run(self.store.delete_memories, agent, [memory_id]):
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
        if limit < 1 or offset < 0:
            raise InvalidInput("limit must be at least 1 and offset at least 0")
        scope = _scope_of(agent, person, space)
        return await self._run(self.store.list_memories, [scope], _kinds(kinds), limit, offset)

    async def messages(self, ids: Sequence[str], *, agent: str) -> list[Message]:
        return await self._run(self.store.get_messages, agent, ids)

    async def update(self, memory_id: str, changes: Mapping[str, Any], *, agent: str) -> MemoryItem:
        """Correct a memory: its text, time, place, keywords, insight or importance (seed 000's CRUD).

        A changed text, time, place or keywords re-indexes it under the same id, keeping its links,
        strength and history; importance and insight alone are written in place."""
        unknown = set(changes) - EDITABLE
        if unknown:
            raise InvalidInput(f"these memory fields cannot be edited: {sorted(unknown)}")
        item = await self.get(memory_id, agent=agent)
        try:
            new = MemoryItem.model_validate({**item.model_dump(), **changes})
        except ValueError as exc:
            raise InvalidInput(str(exc)) from exc
        if not new.text.strip():
            raise InvalidInput("memory text is empty")
        if len(new.text) > self.config.ingest.max_message_chars:
            raise InvalidInput(
                f"memory text has {len(new.text)} characters; limit {self.config.ingest.max_message_chars}"
            )
        in_place = {name: getattr(new, name) for name in ("importance", "insight") if name in changes}
        if {"text", "time", "place", "keywords"} & set(changes):
            links = await self._run(self.store.links_of, agent, [memory_id])
            vector = await self._run(self.embedder.embed_passages, [new.text])
            terms = ingest.terms_of(" ".join([new.text, *new.keywords]))
            await self._run(self.store.delete_memories, agent, [memory_id])
            await self._run(self.store.add_memories, [new], vector, [terms])
            await self._run(self.store.add_links, agent, links)
        elif in_place:
            await self._run(self.store.update_memories, agent, [(memory_id, in_place)])
        return new

    async def scopes(self, *, agent: str | None = None) -> list[ScopeStats]:
        """Every scope holding messages or memories (of one agent, or all), with counts and last activity."""
        return await self._run(self.store.scope_stats, agent)

    async def persons(self, *, agent: str) -> list[Person]:
        return await self._run(self.store.list_persons, agent)

    async def entities(
        self, *, agent: str, person: str | None = None, space: str | None = None, merged: bool = False
    ) -> list[Entity]:
        """One scope's entities (the official ones when no person or space is named)."""
        return await self._run(self.store.list_entities, [_scope_of(agent, person, space)], merged)

    async def links(self, ids: Sequence[str], *, agent: str) -> list[Link]:
        """Every link touching these memories."""
        return await self._run(self.store.links_of, agent, list(ids))

    async def put_entity(self, entity: Entity) -> Entity:
        """Store an entity as given (an import): its name is embedded for merge candidates."""
        vector = await self._run(self.embedder.embed_passages, [entity.name])
        return await self._run(self.store.upsert_entity, entity, vector[0])

    async def merge_entities(self, source: str, target: str, *, agent: str, reason: str, at: datetime) -> EntityMerge:
        """Merge ``source`` into ``target`` (an import replaying a merge); undo_merge splits them again."""
        return await self._run(self.store.merge_entities, agent, source, target, reason, at)

    async def add_links(self, links: Sequence[Link], *, agent: str) -> int:
        """Store links between the agent's memories as given (an import); returns how many are new."""
        return await self._run(self.store.add_links, agent, list(links))

    async def chat_around(self, message_id: str, *, agent: str, turns: int = 4) -> list[Message]:
        """A message in its chat: up to ``turns`` messages either side of it, oldest first."""
        found = await self._run(self.store.get_messages, agent, [message_id])
        if not found:
            raise NotFound(f"no message {message_id!r} for agent {agent!r}")
        message = found[0]
        return await self._run(self.store.recent_messages, agent, message.space, 2 * turns + 1, message.seq + turns + 1)

    async def close(self) -> None:
        if self._worker_task is not None:
            self._worker_stop.set()
            await self._worker_task
            self._worker_task = None
        if self._llm_client is not None:
            await self._llm_client.aclose()
        await self._run(self.reinforcer.close)
        await self._run(self.store.close)
        self._reads.shutdown(wait=False)
        self._writes.shutdown(wait=False)

    async def __aenter__(self) -> AsyncMemory:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()


async def _in_pool(pool: ThreadPoolExecutor, function: Callable[..., T], *args: Any, **kwargs: Any) -> T:
    """``asyncio.to_thread`` on a pool of our choosing (the caller's context variables go along)."""
    call = functools.partial(contextvars.copy_context().run, function, *args, **kwargs)
    return await asyncio.get_running_loop().run_in_executor(pool, call)


def _scope_of(agent: str, person: str | None, space: str | None) -> Scope:
    """The one scope named: a space, a person, or the agent's official memories."""
    if person and space:
        raise InvalidInput("a memory belongs to one scope: give a person or a space, not both")
    try:
        return Scope.of_chat(agent, person, space) if person or space else Scope.official(agent)
    except ValueError as exc:
        raise InvalidInput(str(exc)) from exc


def _kinds(kinds: Sequence[MemoryKind | str] | None) -> list[MemoryKind] | None:
    """Kinds as given by a caller: members of MemoryKind or their names ("event")."""
    if kinds is None:
        return None
    try:
        return [MemoryKind(kind) for kind in kinds]
    except ValueError as exc:
        raise InvalidInput(f"{exc}; the kinds are {', '.join(k.value for k in MemoryKind)}") from exc


def _chat_of(agent: str, person: str | None, space: str | None) -> Scope:
    """The conversation named: the group ``space``, else the private chat with ``person``."""
    try:
        return Scope.of_chat(agent, person, space)
    except ValueError as exc:
        raise InvalidInput(str(exc)) from exc


def _visible(agent: str, person: str | None, space: str | None) -> list[Scope]:
    try:
        return visible_scopes(agent, person, space)
    except ValueError as exc:
        raise InvalidInput(str(exc)) from exc


def make_extractor(config: Config) -> Extractor:
    """The LLM extractor when an endpoint is configured, the rule-based one otherwise."""
    if config.llm.base_url:
        from huiyi.flows.extract.llm import LLMExtractor
        from huiyi.providers.llm import OpenAIChat

        return LLMExtractor(OpenAIChat(config.llm), language=config.language)
    from huiyi.flows.extract.rules import RuleExtractor

    return RuleExtractor()


@dataclass
class Context:
    """A rendered prompt context, with what went into it (for debugging and the chat face)."""

    rendered: RenderedContext
    recall: RecallResult | None
    working: list[Message]
    overview: list[MemoryItem]

    @property
    def text(self) -> str:
        return self.rendered.text


class _LazyExtractor:
    """Builds the configured extractor at the first fold, so opening a store stays cheap."""

    def __init__(self, config: Config) -> None:
        self._config = config
        self._inner: Extractor | None = None

    async def extract(self, fold: Fold) -> Extraction:
        if self._inner is None:
            self._inner = make_extractor(self._config)
        return await self._inner.extract(fold)


class _LoopThread:
    """An event loop in a daemon thread, for running the async core from synchronous code."""

    def __init__(self) -> None:
        self.loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self.loop.run_forever, name="huiyi-loop", daemon=True)
        self._thread.start()

    def run(self, coroutine: Coroutine[Any, Any, T]) -> T:
        future: Future[T] = asyncio.run_coroutine_threadsafe(coroutine, self.loop)
        return future.result()

    def stop(self) -> None:
        self.loop.call_soon_threadsafe(self.loop.stop)
        self._thread.join(timeout=5)
        self.loop.close()


def _blocking(method: Callable[Concatenate[AsyncMemory, P], Awaitable[T]]) -> Callable[Concatenate[Memory, P], T]:
    def call(self: Memory, /, *args: P.args, **kwargs: P.kwargs) -> T:
        async def run() -> T:
            return await method(self.core, *args, **kwargs)

        return self._loop.run(run())

    functools.update_wrapper(call, method)
    return call


_unclosed: weakref.WeakSet[Memory] = weakref.WeakSet()
_exit_hook_registered = False


def _close_at_exit(memory: Memory) -> None:
    """Close what the caller left open before the interpreter stops thread pools under it.

    ``threading``'s exit hooks run before thread pools refuse work (and before ``atexit``), so the
    worker and the reinforcer finish cleanly instead of raising 'cannot schedule new futures'.
    """
    global _exit_hook_registered
    _unclosed.add(memory)
    if not _exit_hook_registered:
        register = getattr(threading, "_register_atexit", None)
        (register or atexit.register)(_close_unclosed)
        _exit_hook_registered = True


def _close_unclosed() -> None:
    for memory in list(_unclosed):
        try:
            memory.close()
        except Exception:  # exiting anyway; what was durable stays durable
            log.exception("closing a Memory at exit failed")


class Memory:
    """The synchronous face of :class:`AsyncMemory`: the same methods, blocking."""

    def __init__(
        self,
        path: str | Path = ".huiyi",
        *,
        config: Config | None = None,
        embedder: Embedder | None = None,
        store: Store | None = None,
        extractor: Extractor | None = None,
        clock: Callable[[], datetime] | None = None,
    ) -> None:
        self.core = AsyncMemory(path, config=config, embedder=embedder, store=store, extractor=extractor, clock=clock)
        self._loop = _LoopThread()
        self._closed = False
        _close_at_exit(self)

    @property
    def config(self) -> Config:
        return self.core.config

    @property
    def embedder(self) -> Embedder:
        return self.core.embedder

    @property
    def store(self) -> Store:
        return self.core.store

    add = _blocking(AsyncMemory.add)
    remember = _blocking(AsyncMemory.remember)
    set_person = _blocking(AsyncMemory.set_person)
    get_person = _blocking(AsyncMemory.get_person)
    recall = _blocking(AsyncMemory.recall)
    get = _blocking(AsyncMemory.get)
    delete = _blocking(AsyncMemory.delete)
    messages = _blocking(AsyncMemory.messages)
    memories = _blocking(AsyncMemory.memories)
    context = _blocking(AsyncMemory.context)
    feedback = _blocking(AsyncMemory.feedback)
    expand = _blocking(AsyncMemory.expand)
    consolidate = _blocking(AsyncMemory.consolidate)
    summarize = _blocking(AsyncMemory.summarize)
    maintain = _blocking(AsyncMemory.maintain)
    merges = _blocking(AsyncMemory.merges)
    undo_merge = _blocking(AsyncMemory.undo_merge)
    link = _blocking(AsyncMemory.link)
    flush = _blocking(AsyncMemory.flush)
    run_jobs = _blocking(AsyncMemory.run_jobs)
    jobs = _blocking(AsyncMemory.jobs)
    retry_job = _blocking(AsyncMemory.retry_job)
    retry_failed = _blocking(AsyncMemory.retry_failed)
    working_memory = _blocking(AsyncMemory.working_memory)
    overview = _blocking(AsyncMemory.overview)
    forget_person = _blocking(AsyncMemory.forget_person)
    forget_messages = _blocking(AsyncMemory.forget_messages)
    core_blocks_for = _blocking(AsyncMemory.core_blocks_for)
    core_block_append = _blocking(AsyncMemory.core_block_append)
    core_block_replace = _blocking(AsyncMemory.core_block_replace)
    update = _blocking(AsyncMemory.update)
    get_many = _blocking(AsyncMemory.get_many)
    scopes = _blocking(AsyncMemory.scopes)
    persons = _blocking(AsyncMemory.persons)
    entities = _blocking(AsyncMemory.entities)
    links = _blocking(AsyncMemory.links)
    retry_job = _blocking(AsyncMemory.retry_job)
    chat_around = _blocking(AsyncMemory.chat_around)

    def close(self) -> None:
        if self._closed:
            return
        self._closed = True
        _unclosed.discard(self)
        self._loop.run(self.core.close())
        self._loop.stop()

    def __enter__(self) -> Memory:
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.close()
