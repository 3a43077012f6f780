"""Messages in: the log, working memory, folds and their extraction jobs."""

from __future__ import annotations

import contextlib
import functools
import logging
import threading
import time
from collections.abc import AsyncIterator, Callable, Sequence
from datetime import datetime
from typing import TYPE_CHECKING

from huiyi.deferred import deferred
from huiyi.errors import InvalidInput, NotFound, StillRunning
from huiyi.flows import ingest
from huiyi.flows.extract import fold
from huiyi.flows.extract.worker import Worker
from huiyi.flows.substance import RECAP_DEPTH
from huiyi.memory.base import CLOSE_GRACE_S
from huiyi.memory.care import Care
from huiyi.memory.common import MAX_LISTED, MessageLike, _agent, _chat_of, _check_flags, _looked_up
from huiyi.memory.pages import JobPage, job_cursor, job_mark, walk
from huiyi.model import (
    Job,
    JobState,
    MemoryItem,
    MemoryKind,
    Message,
    MessageIn,
    Scope,
)
from huiyi.store.base import MemoryFilter, Writes
from huiyi.store.pages import JobMark

if TYPE_CHECKING:
    import asyncio
else:
    asyncio = deferred("asyncio", globals())  # loaded when a memory opens, not at import (issue 15)

log = logging.getLogger(__name__)

# what an add leaves to plan behind it: (agent, space, the person of a private chat, its last seq)
_Plan = tuple[str, str, str | None, int]


class Ingest(Care):
    """Adding messages, folding working memory, and the jobs that extract it."""

    async def add(
        self,
        messages: Sequence[MessageLike] | MessageLike,
        *,
        agent: str,
        person: str | None = None,
        space: str | None = None,
        progress: Callable[[int], None] | None = None,
        extract: bool = True,
        index: bool | None = None,
    ) -> list[Message]:
        """Append messages to the log (durable before this returns); they are indexed for recall behind it.

        ``person`` alone means the private chat with that person; ``space`` means a group chat, where
        each message names its ``speaker``. Messages whose ``id`` was stored before are skipped, so
        re-sending a batch is safe. Returns the messages newly stored, in the order stored: a batch whose
        messages all carry their ``time`` is stored in the order said (a history paged newest first, its
        lines of one moment too); send the batches of a history oldest first.

        ``extract=False`` is for importing history whose memories exist already: the messages become
        recallable but leave working memory at once and are never handed to extraction.

        Embedding and indexing run after this returns (the messages are in working memory and found by
        keyword meanwhile). ``index=True`` indexes them before returning (``progress`` then counts the
        messages indexed), as does ``ingest.index = "sync"`` for every call when ``index`` is not given;
        :meth:`indexed` waits for everything added so far.
        """
        if progress is not None and not callable(progress):  # found out only after the messages were stored
            raise InvalidInput(f"progress is a function of the count indexed, not {type(progress).__name__}")
        _check_flags(extract=extract, index=index)
        loop = asyncio.get_running_loop()
        if not self._indexes_now(index):
            return await self._write(self._accept_behind, loop, messages, agent, person, space, extract)
        stop = threading.Event()
        try:
            stored = await self._write(self._add_indexed, loop, messages, agent, person, space, extract, progress, stop)
        except asyncio.CancelledError:  # the caller gave up (Ctrl-C): indexing ends after its batch under way
            stop.set()
            raise
        self._look_for_leftovers()  # as a drain behind an add does: what others left, indexed and extracted
        return stored

    def add_blocking(
        self,
        messages: Sequence[MessageLike] | MessageLike,
        loop: asyncio.AbstractEventLoop,
        *,
        agent: str,
        person: str | None = None,
        space: str | None = None,
        extract: bool = True,
    ) -> list[Message]:
        """``add`` without indexing for the synchronous face, on the caller's thread: the messages are
        durable (and held for recall) when it returns; ``loop``, the one this instance runs on, indexes
        them, and the thread behind ``add`` plans their folds. No thread hop and no wait on the loop: on a
        busy machine each hop or GIL hand-over costs several ms, and those made the tail of a bot's add
        (issue 15). Appends still take the store's write lock in turn."""
        self._check_open()
        return self._accept_behind(loop, messages, agent, person, space, extract)

    def _accept_behind(
        self,
        loop: asyncio.AbstractEventLoop,
        messages: Sequence[MessageLike] | MessageLike,
        agent: str,
        person: str | None,
        space: str | None,
        extract: bool,
    ) -> list[Message]:
        """``_accept``, then its messages handed on from this thread (not from the awaiting task): an async
        caller that gave up while they were stored (``wait_for``) left them claimed and never indexed."""
        stored, plan = self._accept(messages, agent, person, space, extract)
        if stored or plan is not None:
            # a queue put, which never lets go of the GIL (a wake-up of the loop through its socket does)
            self._behind_add(functools.partial(self._accepted, loop, stored, plan))
        return stored

    def _accepted(self, loop: asyncio.AbstractEventLoop, stored: Sequence[Message], plan: _Plan | None) -> None:
        """Behind an add: queue its messages' indexing on the loop, then plan their folds."""
        if stored:
            # queued here, not by a call on the loop: one its loop never runs (asyncio.run ending) lost them
            self._hold(stored)
            with contextlib.suppress(RuntimeError):  # its loop has closed: the next drain, on any loop, takes them
                loop.call_soon_threadsafe(self._start_drain)
        if plan is not None:
            self._plan_behind(loop, *plan)

    def _add_indexed(
        self,
        loop: asyncio.AbstractEventLoop,
        messages: Sequence[MessageLike] | MessageLike,
        agent: str,
        person: str | None,
        space: str | None,
        extract: bool,
        progress: Callable[[int], None] | None,
        stop: threading.Event,
    ) -> list[Message]:
        """``add(index=True)`` on a write thread: appended, indexed, then settled, settled even when indexing
        stops or fails, as the messages are stored either way (a cancelled add left its folds unplanned and,
        with ``extract=False``, its messages in working memory to be extracted)."""
        prepared, stored = self._append(messages, agent, person, space)
        if not prepared:
            return []
        try:
            ingest.index_messages(self.store, self.embedder, stored, self.config, progress, self._indexer, stop)
        except BaseException as exc:
            with contextlib.suppress(Exception):  # the indexing's failure is the one to tell
                self._settle(prepared, stored, agent, person, space, extract)
            if isinstance(exc, ingest.Interrupted):
                # the caller gave up (a wait_for's timeout): what it left, given back, waited for indexed(), a
                # reopen or the next look for leftovers, 60 s on; that look, now, ends as a close begins
                with contextlib.suppress(RuntimeError):  # its loop has closed: the next open takes them
                    loop.call_soon_threadsafe(self._look_for_leftovers, True)
            raise
        if self._settle(prepared, stored, agent, person, space, extract):
            with contextlib.suppress(RuntimeError):  # its loop has closed: no worker to wake there
                loop.call_soon_threadsafe(self._wake_worker)
        return stored

    def _plan_behind(
        self, loop: asyncio.AbstractEventLoop, agent: str, space: str, person: str | None, upto: int
    ) -> None:
        """Plan the folds an add made due (on the thread behind ``add``) and wake the worker for them.

        Planning reads the space's unfolded tail, so a plan lost to a crash is made by the next open (which
        takes over the messages left unindexed) or the space's next add or flush: the messages wait in working
        memory meanwhile, never lost."""
        try:
            planned = self._fold_watch.plan(self.store, agent, space, person, upto)
        except Exception:  # the next add of the space plans them again
            log.exception("planning the folds of %s failed; the next add plans them", space)
            return
        if planned:
            with contextlib.suppress(RuntimeError):  # its loop has closed: no worker to wake there
                loop.call_soon_threadsafe(self._wake_worker)

    def _indexes_now(self, index: bool | None) -> bool:
        """Whether ``add`` indexes before it returns: ``index`` if given, else ``ingest.index``."""
        return index if index is not None else self.config.ingest.index == "sync"

    def _accept(
        self,
        messages: Sequence[MessageLike] | MessageLike,
        agent: str,
        person: str | None,
        space: str | None,
        extract: bool,
    ) -> tuple[list[Message], _Plan | None]:
        """``add`` without indexing, on a thread that may block: the messages stored (durable, and found by
        recall's keyword tail when this returns), and the space whose folds to plan behind it, if any."""
        prepared, stored = self._append(messages, agent, person, space)
        if not prepared:
            return [], None
        self._last_add = time.monotonic()
        if not extract:
            self._settle(prepared, stored, agent, person, space, extract)
            return stored, None
        if not self._fold_watch.may_fold(stored):
            return stored, None  # no fold can be due: nothing to plan behind this add
        return stored, (agent, prepared[0].space, None if space else person, stored[-1].seq)

    def _append(
        self, messages: Sequence[MessageLike] | MessageLike, agent: str, person: str | None, space: str | None
    ) -> tuple[list[Message], list[Message]]:
        batch: Sequence[MessageLike] = [messages] if isinstance(messages, str | dict | MessageIn) else messages
        prepared = ingest.prepare(batch, agent=agent, person=person, space=space, now=self.now(), config=self.config)
        if not prepared:
            return [], []
        # born claimed by this instance, which indexes them next: an opener elsewhere leaves them be
        return prepared, self.store.append_messages(prepared, ingest.index_claim(self._indexer))

    def _settle(
        self,
        prepared: Sequence[Message],
        stored: Sequence[Message],
        agent: str,
        person: str | None,
        space: str | None,
        extract: bool,
    ) -> bool:
        """Plan the folds the new messages make due (or, without extraction, move the fold point past
        them); whether the worker has folds to extract."""
        if not extract:
            last = max((m.seq for m in stored), default=0)
            self.store.apply(Writes(fold_points=[(agent, prepared[0].space, last + 1)]))
            return False
        return self._fold_watch.plan(self.store, agent, prepared[0].space, None if space else person)

    async def flush(
        self, *, agent: str, person: str | None = None, space: str | None = None, wait: bool = True
    ) -> list[Job]:
        """Fold all of a space's working memory now (call it on a scene change, or before a pause).

        Returns the space's fold jobs that this call planned, queued again (a fold of the space that
        failed for good is retried, unless a fold still to run takes its messages) or found still pending
        or running; [] when nothing is left to fold. With ``wait`` they run before this returns, as far
        as this process can run them, and each is returned as it then stands: one whose ``state`` is not
        ``DONE`` is what could not be done — ``FAILED`` (``last_error`` says why; ``retry_job`` queues it
        again), ``PENDING`` (it failed and is retried at ``run_after``) or ``RUNNING`` (another process's
        worker holds it, or this process's was still at it after ``worker.wait_seconds``). Without
        ``wait`` the background worker takes them.
        """
        space_id = _chat_of(agent, person, space).space_id
        await self._behind_done()  # the folds adds planned behind them first
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
        try:
            await self.run_jobs()
        except StillRunning as exc:  # told below: the job is returned as it stands, RUNNING
            log.warning("flush: %s", exc.message)
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
        """Index what this instance queued, then run every due extraction job now, in this task, and wait
        for those this process's other workers (the background one) took first; returns how many ran here.

        Raises ``StillRunning`` when those are still running after ``worker.wait_seconds``. (Nothing
        queued: no await before the drain, so the background worker gets no head start.)"""
        await self._drained()
        ran = await self.worker.drain()
        deadline = time.monotonic() + self.config.worker.wait_seconds
        pause = 0.02
        while True:
            if not (running := await self._run(self._running_here)):
                # a space's next fold waits while another worker here runs its fold: due once that is done
                more = await self.worker.drain()
                ran += more
                if not more and not await self._run(self._running_here):
                    return ran
                continue
            if time.monotonic() >= deadline:
                raise StillRunning(
                    f"{len(running)} extraction job(s) of this process still running after "
                    f"{self.config.worker.wait_seconds:g} s (worker.wait_seconds): {', '.join(j.id for j in running)}"
                )
            await asyncio.sleep(pause)
            pause = min(pause * 2, 0.5)
            ran += await self.worker.drain()  # a job let go of meanwhile, or due since, runs here

    def _running_here(self) -> list[Job]:
        """Jobs a worker of this process holds with a live lease (a worker that died holds none: its lease
        runs out)."""
        own = f"{ingest.indexer_name()}:"
        now = self.worker.clock()
        running = self.store.list_jobs(None, [JobState.RUNNING], 100_000)
        return [j for j in running if j.worker.startswith(own) and j.lease_until is not None and j.lease_until > now]

    async def run_workers(self, count: int, stop: asyncio.Event) -> None:
        """Run ``count`` extraction workers until ``stop`` is set (``huiyi worker``, ``serve --workers``).

        With PostgreSQL any number of processes may do this against one database: leases keep them apart.
        Once ``stop`` is set, extractions under way get ``CLOSE_GRACE_S`` to finish; then they are cut short
        and their folds given back (an LLM that does not answer held ``huiyi serve``'s shutdown for minutes).
        """
        workers = [
            Worker(
                self.store,
                self.embedder,
                self.worker.extractor,
                self.config,
                name=f"{self.worker.name}/{i}",
                fallback=self.worker.fallback,
            )
            for i in range(max(1, count))
        ]

        async def halt_when_late() -> None:
            await stop.wait()
            await asyncio.gather(*(worker.stop_runs(CLOSE_GRACE_S) for worker in workers))

        halting = asyncio.create_task(halt_when_late())
        try:
            await asyncio.gather(*(worker.run(stop) for worker in workers))
        finally:
            halting.cancel()

    async def jobs(self, *, agent: str | None = None, states: Sequence[JobState] = (), limit: int = 100) -> list[Job]:
        """Background jobs, oldest first: of one agent, or of all; of the given states, or of any."""
        return await self._listed_jobs(agent, states, limit, None)

    async def _listed_jobs(
        self, agent: str | None, states: Sequence[JobState], limit: int, after: JobMark | None
    ) -> list[Job]:
        try:  # "pending" alone would be taken for its letters
            chosen = [JobState(state) for state in ([states] if isinstance(states, str) else states)]
        except ValueError as exc:
            raise InvalidInput(f"{exc}; the states are {', '.join(s.value for s in JobState)}") from exc
        if not isinstance(limit, int) or not 1 <= limit <= MAX_LISTED:
            raise InvalidInput(f"limit is a whole number from 1 to {MAX_LISTED}, not {limit!r}")
        await self._behind_done()  # with the folds the adds so far made due
        return await self._run(self.store.list_jobs, None if agent is None else _agent(agent), chosen, limit, after)

    async def jobs_page(
        self, *, agent: str, states: Sequence[JobState] = (), limit: int = 100, cursor: str | None = None
    ) -> JobPage:
        """One agent's background jobs, oldest first, a page at a time: pass ``next_cursor`` back as ``cursor``
        for the next (jobs queued or erased meanwhile skip or repeat none)."""
        if isinstance(limit, bool) or not isinstance(limit, int) or not 1 <= limit < MAX_LISTED:
            raise InvalidInput(f"limit is a whole number from 1 to {MAX_LISTED - 1}, not {limit!r}")
        after = job_mark(cursor, agent) if cursor is not None else None
        found = await self._listed_jobs(agent, states, limit + 1, after)
        return JobPage(found[:limit], job_cursor(agent, found[limit - 1]) if len(found) > limit else None)

    async def iter_jobs(
        self, *, agent: str, states: Sequence[JobState] = (), per_page: int = 100
    ) -> AsyncIterator[Job]:
        """Every background job of one agent (in ``states``, when given), oldest first, a page at a time."""
        async for job in walk(lambda cursor: self.jobs_page(agent=agent, states=states, limit=per_page, cursor=cursor)):
            yield job

    async def retry_job(self, job_id: str, *, agent: str | None = None) -> Job:
        """Queue a job that failed for good again, its attempts back to 0; ``NotFound`` when no failed
        job has that id (of ``agent``, when given)."""
        job = await self._run(self.store.retry_job, _looked_up(job_id, "job id"), agent)
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

    async def overview(
        self, *, agent: str, person: str | None = None, space: str | None = None, now: datetime | None = None
    ) -> list[MemoryItem]:
        """前情提要: of the space's latest events, the ``overview.size`` that say most (:func:`recap`: not the
        routine of every day, not the agent's lines alone), oldest first; with ``now``, as of then (a replay,
        the debugger at a chosen time): events said after it are not known yet."""
        scope = _chat_of(agent, person, space)
        return await self._read(self._overview, agent, scope, self.wall(now))

    def _overview(self, agent: str, scope: Scope, said_by: datetime | None) -> list[MemoryItem]:
        """:meth:`overview` of one conversation, on the calling thread."""
        where = MemoryFilter(kinds=(MemoryKind.EVENT,), said_by=said_by)
        size = self.config.overview.size
        latest = self.store.find_memories([scope], where, size * RECAP_DEPTH)

        def by_agent(cited: list[str]) -> dict[str, bool]:  # an LLM's 祈煜叮嘱…
            return {m.id: m.role == "assistant" for m in self.store.get_messages(agent, cited)}

        return self.recaps.recap(agent, scope, latest, size, self._tz, by_agent)  # read again as events change
