"""The extraction worker: claims fold jobs, extracts, and commits memories with the job.

Any number of workers may run against one store (leases keep them apart). A running job's lease is
short and renewed by a heartbeat, so the job of a worker that died is taken again within one lease.
A failure records the error and schedules a retry with exponential backoff. With a ``fallback``
extractor (the rules, when an LLM is configured), the last attempt whose extraction fails takes the
fold to it, so an LLM that stays down still leaves the rule path's memories. Otherwise, after
``max_attempts`` errors (or ``max_abandoned`` runs whose worker died) the job stays failed, its
messages still in the log and in working memory, so nothing is lost, until it is retried (``retry_job``,
or the space's next ``flush``). One failed on errors the worker also queues again by itself, after
``failed_retry_minutes``, one attempt at a time, ``failed_retries`` times: an outage longer than the
backoff leaves no turn un-extracted in a chat that is never flushed.
"""

from __future__ import annotations

import contextlib
import logging
import os
from collections.abc import Awaitable, Callable
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from typing import TYPE_CHECKING

from huiyi.config import Config
from huiyi.deferred import deferred
from huiyi.flows.extract import Extraction, Extractor, Fold
from huiyi.flows.extract.closes import close_facts, replaced
from huiyi.flows.extract.entities import entities_of, entity_names, released_names
from huiyi.flows.extract.fold import FOLD, fold_of, folded_by_another, memories_of, writes_of
from huiyi.flows.ingest import dead_here
from huiyi.model import Job, MemoryItem
from huiyi.providers.embed import Embedder
from huiyi.store.base import Store, Writes

if TYPE_CHECKING:
    import asyncio
    import socket
else:
    asyncio = deferred("asyncio", globals())  # loaded when a memory opens, not at import (issue 15)
    socket = deferred("socket", globals())

log = logging.getLogger(__name__)

REQUEUE_EVERY = timedelta(minutes=1)  # how often a worker looks for failed folds due to be tried again


def utc_now() -> datetime:
    return datetime.now(UTC).replace(tzinfo=None)


class Worker:
    def __init__(
        self,
        store: Store,
        embedder: Embedder,
        extractor: Extractor,
        config: Config,
        name: str | None = None,
        clock: Callable[[], datetime] = utc_now,
        fallback: Extractor | None = None,
    ) -> None:
        self.store = store
        self.embedder = embedder
        self.extractor = extractor
        self.config = config
        self.name = name or f"{socket.gethostname()}:{os.getpid()}:{id(self):x}"
        self.clock = clock
        self.fallback = fallback  # takes a fold whose last attempt's extraction failed
        # awaited before each job the background loop runs (not by drain): the owner's chance to hold it back
        self.before_job: Callable[[], Awaitable[None]] | None = None
        self._requeued_at: datetime | None = None  # when failed folds due again were last queued
        self._runs: dict[str, tuple[asyncio.Task[None], asyncio.Event]] = {}  # job id: its work, its commit begun
        self._halted = False
        self._under_way: set[asyncio.Future[None]] = set()  # one per run_once going on (a flush's, the loop's)

    def halt(self) -> None:
        """Stop for good, on the worker's loop: the extractions under way whose commit has not begun stop and
        give their jobs back, and none starts after (a closing memory waited out an LLM that did not answer)."""
        self._halted = True
        for work, finishing in self._runs.values():
            if not finishing.is_set():
                work.cancel()

    async def run_once(self) -> Job | None:
        """Run one due job, if any; returns it (done, failed, or lost to another worker), or None when none was due."""
        ended = asyncio.get_running_loop().create_future()
        self._under_way.add(ended)
        try:
            return await self._run_one()
        finally:
            self._under_way.discard(ended)
            ended.set_result(None)

    async def stop_runs(self, grace: float) -> None:
        """Let the runs under way on this loop (a flush's) end for ``grace`` seconds, then halt: those still
        waiting (on an LLM that does not answer) have given their jobs back when this returns. A close that
        went on past them left the job held, and its give-back met a closed store."""
        loop = asyncio.get_running_loop()
        under_way = [ended for ended in self._under_way if ended.get_loop() is loop]
        if not under_way:
            return
        _, late = await asyncio.wait(under_way, timeout=grace)
        if late:
            self.halt()
            # a flush's next run may have started meanwhile: halted, it claims nothing
            while late := {ended for ended in self._under_way if ended.get_loop() is loop}:
                await asyncio.wait(late)

    async def _run_one(self) -> Job | None:
        if self._halted:
            return None
        settings = self.config.worker
        await self._requeue_failed()
        job = await asyncio.to_thread(self.store.claim_job, self.name, self.clock(), settings.lease_seconds, [FOLD])
        if job is None:
            return None
        if self._halted:  # claimed as it halted: for the next run, at once
            await self._give_back(job)
            return None
        abandoned = job.claims - 1 - job.attempts  # earlier runs that ended in neither success nor an error
        if abandoned >= settings.max_abandoned:
            # a job that kills its worker every time (memory, a native crash) must not take every worker down
            error = f"Abandoned: {abandoned} runs ended with their worker gone; last error: {job.last_error or '-'}"
            log.warning("job %s: %s", job.id, error)
            await asyncio.to_thread(self.store.fail_job, job.id, self.name, error, None)
            return job
        finishing = asyncio.Event()
        work = asyncio.create_task(self._run(job, finishing))
        beat = asyncio.create_task(self._heartbeat(job, work, finishing))
        self._runs[job.id] = (work, finishing)
        try:
            await asyncio.wait({work})
        except asyncio.CancelledError:  # its caller gave up (a flush under wait_for, Ctrl-C)
            beat.cancel()
            work.cancel()
            if not finishing.is_set():  # no commit under way: the next run takes the job now, not after its lease
                await self._give_back(job)
            raise
        finally:
            beat.cancel()
            work.cancel()
            self._runs.pop(job.id, None)
        if work.cancelled() and self._halted:
            await self._give_back(job)  # a lease another worker took is not given back: it is no longer ours
        elif work.cancelled():
            log.warning("job %s: worker %s lost its lease; another worker runs it", job.id, self.name)
        return job

    async def _give_back(self, job: Job) -> None:
        """Queue again a job this worker stopped: a cancelled flush's fold held the space's next flush for a
        whole lease (``lease_seconds``), waiting on a run nobody was making; and such runs counted as
        abandoned, so five flushes given up on failed the fold as if it killed its worker."""
        try:
            await asyncio.to_thread(self.store.give_back_job, job.id, self.name)
        except Exception as exc:  # the lease then runs out by itself
            log.warning("job %s: giving it back failed: %s", job.id, exc)

    async def _requeue_failed(self) -> None:
        """Queue the folds failed for good whose time to be tried again has come, and take back those a dead
        process of this machine held; looked at once a minute."""
        now = self.clock()
        if self._requeued_at is not None and self._requeued_at <= now < self._requeued_at + REQUEUE_EVERY:
            return
        self._requeued_at = now
        await self._expire_dead_leases()
        if not self.config.worker.failed_retry_minutes:
            return
        if again := await asyncio.to_thread(self.store.requeue_failed, [FOLD], now):
            log.info("worker %s: %d failed fold(s) queued again", self.name, again)

    async def _expire_dead_leases(self) -> None:
        """A process killed holding a fold never finishes it: run out its lease now, not in ``lease_seconds``."""
        if gone := await asyncio.to_thread(self.store.expire_leases, dead_here, self.clock()):
            log.info("worker %s: %d fold(s) of a process that died taken back", self.name, gone)

    async def _heartbeat(self, job: Job, work: asyncio.Task[None], finishing: asyncio.Event) -> None:
        """Renew the job's lease every third of it while it runs; stop the work when the lease is lost."""
        lease = self.config.worker.lease_seconds
        while True:
            await asyncio.sleep(lease / 3)
            if finishing.is_set():
                return  # the commit itself checks the lease
            until = self.clock() + timedelta(seconds=lease)
            try:
                held = await asyncio.to_thread(self.store.renew_lease, job.id, self.name, until)
            except Exception as exc:  # the store hiccuped: the lease may still be ours, try next beat
                log.warning("job %s: renewing the lease failed: %s", job.id, exc)
                continue
            if not held and not finishing.is_set():
                work.cancel()
                return

    async def _run(self, job: Job, finishing: asyncio.Event) -> None:
        settings = self.config.worker
        try:
            to_seq = int(job.payload["to_seq"])
            if await asyncio.to_thread(
                self.store.working_start, job.agent, job.payload["space"]
            ) > to_seq and await asyncio.to_thread(folded_by_another, self.store, job):
                # another fold took these messages (a retried job outrun by a later one): nothing to extract
                finishing.set()
                await asyncio.to_thread(self.store.apply, Writes(), (job.id, self.name))
                log.info("job %s: its messages were folded by another job", job.id)
                return
            fold = await asyncio.to_thread(fold_of, self.store, job, self.config.language)
            extraction, items, failed = await self._extract(job, fold)
            # everything the fold writes lands in the commit that completes its job: the space's next fold,
            # claimed only once this one is done, reads its entities, names and closes, and a fold whose
            # commit fails leaves none of them for its retry (an LLM may read it otherwise) to contradict.
            # A plan called off (搬家泡汤) closes the plan fact said before, a new home or job the old one,
            # the fold's own among them
            closes = [*extraction.closes, *replaced(extraction.facts, fold)]
            items, updates = await asyncio.to_thread(close_facts, self.store, fold, closes, items)
            named = entities_of(extraction, fold)
            entities, vectors = await asyncio.to_thread(entity_names, self.store, self.embedder, named)
            released = await asyncio.to_thread(released_names, self.store, fold)
            writes = await asyncio.to_thread(writes_of, items, self.embedder, fold, to_seq)
            writes = replace(
                writes,
                updates=updates,
                entities=entities,
                entity_vectors=vectors,
                dropped_aliases=released,
                job_error=failed,
            )
            finishing.set()
            await asyncio.to_thread(self.store.apply, writes, (job.id, self.name))
            log.info("job %s: %d memories from %d messages", job.id, len(items), len(fold.messages))
        except Exception as exc:  # any failure: record it, retry later, lose nothing
            errors = job.attempts + 1
            retry_at = again_at = None
            if errors < settings.max_attempts:
                retry_at = self.clock() + timedelta(seconds=settings.backoff_seconds * 2 ** (errors - 1))
            elif settings.failed_retry_minutes and errors < settings.max_attempts + settings.failed_retries:
                again_at = self.clock() + timedelta(minutes=settings.failed_retry_minutes)
            log.warning("job %s attempt %d failed: %s", job.id, errors, exc)
            error = f"{type(exc).__name__}: {exc}"
            await asyncio.to_thread(self.store.fail_job, job.id, self.name, error, retry_at, again_at)

    async def _extract(self, job: Job, fold: Fold) -> tuple[Extraction, list[MemoryItem], str]:
        """The fold's extraction, the memories it makes, and the error the rules took over from (else ""): on
        the last attempt the rules take the fold when the extractor fails or answers what no memory can hold
        (the same answer would fail every retry)."""
        try:
            extraction = await self.extractor.extract(fold)
            return extraction, memories_of(extraction, fold, job.id), ""
        except Exception as exc:
            if self.fallback is None or job.attempts + 1 < self.config.worker.max_attempts:
                raise
            log.warning("job %s: last attempt's extraction failed (%s); the rule extractor takes the fold", job.id, exc)
            extraction = await self.fallback.extract(fold)
            return extraction, memories_of(extraction, fold, job.id), f"{type(exc).__name__}: {exc}"

    async def drain(self) -> int:
        """Run due jobs until none is left (a dead process's among them); returns how many ran."""
        await self._expire_dead_leases()
        count = 0
        while await self.run_once() is not None:
            count += 1
        return count

    async def run(self, stop: asyncio.Event) -> None:
        """Poll for jobs until ``stop`` is set."""
        while not stop.is_set():
            try:
                if self.before_job is not None:
                    await self.before_job()
                    if stop.is_set():  # stopped meanwhile: no new job
                        break
                ran = await self.run_once()
            except Exception:  # the store itself failed; keep the loop alive
                log.exception("worker %s: claiming a job failed", self.name)
                ran = None
            if ran is None:
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(stop.wait(), timeout=self.config.worker.poll_seconds)
