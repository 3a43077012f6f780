"""The store contract for the job queue and the maintenance reports.

Apart from ``huiyi.store.base`` (which joins it into ``Store``) only for the length of that module.
"""

# no `from __future__ import annotations`: the models' field types stay objects, which pydantic would otherwise
# compile and evaluate from strings, one by one, at import (issue 15)

from collections.abc import Callable, Sequence
from datetime import datetime
from typing import Any, Protocol, runtime_checkable

from pydantic import BaseModel, ConfigDict, Field

from huiyi.checks import Time
from huiyi.model import Job, JobState, new_id
from huiyi.store.pages import JobMark, ReportMark

__all__ = ["JobStore", "RunReport"]


class RunReport(BaseModel):
    """What one maintenance run did to a scope (a consolidation, a dry run of one, or a day's summaries),
    kept so a console can show the last ones."""

    model_config = ConfigDict(extra="forbid", defer_build=True)  # built at first use, not at import (issue 15)

    id: str = Field(default_factory=lambda: new_id("rep"))
    agent: str
    scope: str  # the scope's tag: official, person:<id> or space:<id>
    kind: str  # consolidate or summarize
    at: Time
    dry_run: bool = False
    counts: dict[str, int] = Field(default_factory=dict)  # changes (or summaries) by kind
    body: dict[str, Any] = Field(default_factory=dict)  # the report itself, as JSON


@runtime_checkable
class JobStore(Protocol):
    """Durable jobs, taken by workers under a lease."""

    def enqueue_job(self, job: Job) -> bool:
        """Store a pending job; False (and nothing written) when a job with its key exists.

        A job whose payload spans seqs of a space (``space``, ``from_seq``, ``to_seq``: a fold) is also
        refused when those seqs left working memory already or a pending or running job of its kind
        holds any of them: its planner read the space before another planner (or a worker) moved on.
        """

    def claim_job(self, worker: str, now: datetime, lease_seconds: float, kinds: Sequence[str] = ()) -> Job | None:
        """Take the oldest runnable job: pending and due, or running with an expired lease.

        Counts a claim, never an attempt: a worker that dies holding a job leaves no error.
        """

    def renew_lease(self, job_id: str, worker: str, until: datetime) -> bool:
        """Extend the lease of a job ``worker`` is running to ``until``; False when it no longer holds
        it (lease taken by another worker, or the job finished), and the worker must stop."""

    def give_back_job(self, job_id: str, worker: str) -> bool:
        """Queue again a job ``worker`` stopped running on purpose (its caller gave up, the instance closes),
        its claim not counted: such runs are no sign of a job that kills its worker (``max_abandoned``).
        False when ``worker`` no longer holds it."""

    def expire_leases(self, dead: Callable[[str], bool], now: datetime) -> int:
        """Run out, as of ``now``, the leases of the running jobs whose worker ``dead`` says is gone, so the
        next claim takes them at once rather than when the lease ends (claims kept); returns how many."""

    def fail_job(
        self, job_id: str, worker: str, error: str, retry_at: datetime | None, again_at: datetime | None = None
    ) -> None:
        """Record a failed attempt; pending again at ``retry_at``, or failed when it is None: for good, or
        until ``again_at`` (kept as its ``run_after``), when ``requeue_failed`` queues it again."""

    def requeue_failed(self, kinds: Sequence[str], now: datetime) -> int:
        """Queue again the failed jobs of ``kinds`` whose ``again_at`` has come, attempts and claims kept;
        returns how many."""

    def retry_job(self, job_id: str, agent: str | None = None) -> Job | None:
        """Queue a failed job again, attempts and claims back to 0 (its last error kept); returns it as
        stored, or None when no failed job has that id (of ``agent``, when given)."""

    def list_jobs(
        self, agent: str | None = None, states: Sequence[JobState] = (), limit: int = 100, after: JobMark | None = None
    ) -> list[Job]:
        """Jobs, oldest first (by creation, then id); with ``after`` (a job's created_at and id), those after it."""

    def span_jobs(self, agent: str, space: str, states: Sequence[JobState]) -> list[Job]:
        """The space's jobs of a span (folds) in ``states``, oldest first, one indexed read of them alone;
        without those a later span job, when it was done, took seqs of (nothing left for them to extract)."""

    def prune_jobs(self, before: datetime) -> int:
        """Delete the done jobs created before ``before`` (UTC, as ``created_at``), but the newest done job
        of each agent, kind and payload ``scope`` (a scope's last consolidation, the fold that makes a group
        known); never one pending, running or failed. Returns how many went."""

    def prune_reports(self, before: datetime, keep: int) -> int:
        """Delete the reports dated before ``before`` that are not among the newest ``keep`` (0: none kept
        by count) of their agent and scope. Returns how many went."""

    def erasures(self) -> int:
        """How many erasures the store has seen: a maintenance run reads it as it begins (``add_report``)."""

    def add_report(self, report: RunReport, erasures: int | None = None) -> bool:
        """Keep what a maintenance run did (erasing a person drops the reports of their scopes or naming them).
        ``erasures``: as ``erasures()`` read when the run began; if one has happened since, the report, which
        may quote what went, is not kept (False)."""

    def list_reports(
        self, agent: str, scope: str | None = None, limit: int = 20, after: ReportMark | None = None
    ) -> list[RunReport]:
        """An agent's reports (of one scope tag, or all), newest first (by time, then id): a row number
        would move when a report is kept again. With ``after`` (a report's at and id), those after it."""
