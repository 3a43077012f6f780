"""The extraction jobs of an import, counted by how they stand whoever ran them.

``run_jobs`` returns the jobs it ran itself, and the background worker the import's adds wake often runs
them all first: the import said "0 extraction jobs run" after four had run. Counted here are the folds of
the imported chats outstanding when the import began (an interrupted import's, which this one runs) or
queued since; and apart, the other chats' folds outstanding then, which its drain runs too.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from datetime import UTC, datetime

from huiyi.flows.extract.fold import FOLD
from huiyi.formats.plan import Plan
from huiyi.formats.preflight import line_tag
from huiyi.memory import AsyncMemory
from huiyi.model import Job, JobState

__all__ = ["JobTally", "JobWatch", "count_jobs", "watch_jobs"]

_OUTSTANDING = [JobState.PENDING, JobState.RUNNING]
_NOT_DONE = [JobState.PENDING, JobState.RUNNING, JobState.FAILED]
_PAGE = 1000  # jobs read a call


@dataclass(frozen=True)
class JobWatch:
    """Where an import's count starts, read before it writes."""

    chats: frozenset[tuple[str, str]]  # (agent, space id) of each chat the import adds to
    since: datetime  # when it began, as a store stamps a job's created_at: UTC, zone-less
    outstanding: frozenset[str]  # the chats' folds pending or running then
    others: frozenset[str]  # other chats' folds pending or running then: the import's drain runs them too


@dataclass(frozen=True)
class JobTally:
    done: int = 0
    failed: int = 0
    waiting: int = 0  # pending (a retry due later) or running (in another process)
    others_done: int = 0  # other chats' folds outstanding when the import began, done since


async def watch_jobs(memory: AsyncMemory, plan: Plan) -> JobWatch:
    """What :func:`count_jobs` counts from; taken before the import writes anything."""
    chats = frozenset((b.agent, line_tag(b.agent, b.person, b.space)) for b in plan.batches)  # a tag: its space id
    since = datetime.now(UTC).replace(tzinfo=None)  # the stores stamp a new job by this process's clock
    open_then = await _folds(memory, _OUTSTANDING)
    mine = frozenset(job.id for job in open_then if _chat(job) in chats)
    return JobWatch(chats, since, mine, frozenset(job.id for job in open_then) - mine)


async def count_jobs(memory: AsyncMemory, watch: JobWatch) -> JobTally:
    """The import's folds by how they stand now; one no longer listed was done and pruned."""
    made = set(watch.outstanding)
    for agent in {agent for agent, _ in watch.chats}:
        made.update(job.id for job in await _queued_since(memory, agent, watch))
    # read after the new ones: a job done between the two reads counts as done, never as waiting
    left = {job.id: job.state for job in await _folds(memory, _NOT_DONE)}
    states = [left.get(job_id, JobState.DONE) for job_id in made]
    done, failed = states.count(JobState.DONE), states.count(JobState.FAILED)
    others = sum(job_id not in left for job_id in watch.others)
    return JobTally(done=done, failed=failed, waiting=len(states) - done - failed, others_done=others)


def _chat(job: Job) -> tuple[str, str]:
    return job.agent, str(job.payload.get("space"))


async def _folds(memory: AsyncMemory, states: list[JobState]) -> list[Job]:
    """The store's folds in ``states``, every agent's (jobs not done are few)."""
    jobs = await asyncio.to_thread(memory.store.list_jobs, None, states, 1_000_000)
    return [job for job in jobs if job.kind == FOLD]


async def _queued_since(memory: AsyncMemory, agent: str, watch: JobWatch) -> list[Job]:
    """The agent's folds in the watched chats created since the import began, read a page at a time (an
    agent's done jobs are many)."""
    found: list[Job] = []
    mark = (watch.since, "")  # jobs list after a created_at and id: "" is before every id of that moment
    while True:
        page = await asyncio.to_thread(memory.store.list_jobs, agent, [], _PAGE, mark)
        found.extend(job for job in page if job.kind == FOLD and _chat(job) in watch.chats)
        if len(page) < _PAGE:
            return found
        last = page[-1]
        assert last.created_at is not None  # a stored job has its creation time
        mark = (last.created_at, last.id)
