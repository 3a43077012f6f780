"""The extraction worker: claims fold jobs, extracts, and commits memories with the job.

Any number of workers may run against one store (leases keep them apart). A failure records the error
and schedules a retry with exponential backoff; after ``max_attempts`` the job stays failed, its
messages still in the log and in working memory, so nothing is lost.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import socket
from collections.abc import Callable
from datetime import UTC, datetime, timedelta

from huiyi.config import Config
from huiyi.flows.extract import Extractor
from huiyi.flows.extract.entities import entities_of, record_entities
from huiyi.flows.extract.fold import FOLD, fold_of, memories_of, writes_of
from huiyi.model import Job
from huiyi.providers.embed import Embedder
from huiyi.store.base import Store

log = logging.getLogger(__name__)


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
    ) -> None:
        self.store = store
        self.embedder = embedder
        self.extractor = extractor
        self.config = config
        self.name = name or f"{socket.gethostname()}:{os.getpid()}:{id(self):x}"
        self.clock = clock

    async def run_once(self) -> Job | None:
        """Run one due job, if any; returns it (done or failed), or None when none was due."""
        settings = self.config.worker
        job = await asyncio.to_thread(self.store.claim_job, self.name, self.clock(), settings.lease_seconds, [FOLD])
        if job is None:
            return None
        try:
            fold = await asyncio.to_thread(fold_of, self.store, job, self.config.language)
            extraction = await self.extractor.extract(fold)
            items = memories_of(extraction, fold, job.id)
            writes = await asyncio.to_thread(writes_of, items, self.embedder, fold, int(job.payload["to_seq"]))
            await asyncio.to_thread(self.store.apply, writes, (job.id, self.name))
            # entities are upserted by stable ids after the commit: a crash here is repaired by the next
            # fold that names them, and never duplicates anything
            await asyncio.to_thread(record_entities, self.store, self.embedder, entities_of(extraction, fold))
            log.info("job %s: %d memories from %d messages", job.id, len(items), len(fold.messages))
        except Exception as exc:  # any failure: record it, retry later, lose nothing
            retry_at = None
            if job.attempts < settings.max_attempts:
                retry_at = self.clock() + timedelta(seconds=settings.backoff_seconds * 2 ** (job.attempts - 1))
            log.warning("job %s attempt %d failed: %s", job.id, job.attempts, exc)
            await asyncio.to_thread(self.store.fail_job, job.id, self.name, f"{type(exc).__name__}: {exc}", retry_at)
        return job

    async def drain(self) -> int:
        """Run due jobs until none is left; returns how many ran."""
        count = 0
        while await self.run_once() is not None:
            count += 1
        return count

    async def run(self, stop: asyncio.Event) -> None:
        """Poll for jobs until ``stop`` is set."""
        while not stop.is_set():
            try:
                ran = await self.run_once()
            except Exception:  # the store itself failed; keep the loop alive
                log.exception("worker %s: claiming a job failed", self.name)
                ran = None
            if ran is None:
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(stop.wait(), timeout=self.config.worker.poll_seconds)
