"""The server store's job queue: rows of ``jobs`` taken with ``FOR UPDATE SKIP LOCKED`` under a lease."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from datetime import datetime, timedelta
from typing import Any

from huiyi.model import Job, JobState
from huiyi.store import rows
from huiyi.store.jobs import RunReport
from huiyi.store.jsontext import json_text
from huiyi.store.pages import JobMark, ReportMark
from huiyi.store.postgres.connection import Cursor, PostgresConnection
from huiyi.store.rows import ERASURES, JOB_COLUMNS, NATIVE, REPORT_COLUMNS, naive

# one fold of a space at a time, in order: a fold reads what the earlier ones wrote (entities and their
# aliases, plans called off, pets, partners); none while another of the space runs, nor while an earlier one
# is due (one another worker holds locked still reads as due here, so two claims at once cannot both pass it)
_SPACE_FREE = (
    "(space IS NULL OR NOT EXISTS (SELECT 1 FROM jobs AS other WHERE other.agent = jobs.agent"
    " AND other.space = jobs.space AND other.kind = jobs.kind AND other.id != jobs.id"
    " AND ((other.state = 'running' AND other.lease_until >= %(at)s)"
    " OR ((other.created_at, other.id) < (jobs.created_at, jobs.id)"
    " AND ((other.state = 'pending' AND COALESCE(other.run_after, '-infinity') <= %(at)s)"
    " OR (other.state = 'running' AND other.lease_until < %(at)s))))))"
)


def insert_job(cur: Cursor, job: Job) -> bool:
    """Queue ``job`` in the caller's transaction; False if one of its key is queued or done already."""
    span = rows.job_span(job)
    cur.execute(
        "INSERT INTO jobs (id, kind, agent, key, payload, state, run_after, created_at, space)"
        " VALUES (%s, %s, %s, %s, %s, 'pending', %s, %s, %s) ON CONFLICT DO NOTHING",
        (
            job.id,
            job.kind,
            job.agent,
            job.key,
            json_text(job.payload),
            naive(job.run_after),
            naive(job.created_at) or rows.now(),
            span[0] if span is not None else None,
        ),
    )
    return bool(cur.rowcount)


class PostgresJobs(PostgresConnection):
    """``JobStore`` on PostgreSQL; finishing a job is part of ``apply`` (``PostgresMemories``)."""

    def enqueue_job(self, job: Job) -> bool:
        with self._write() as cur:
            if (span := rows.job_span(job)) is not None and _stale_span(cur, job, *span):
                return False
            return insert_job(cur, job)

    def claim_job(self, worker: str, now: datetime, lease_seconds: float, kinds: Sequence[str] = ()) -> Job | None:
        at = naive(now)
        kind_filter = " AND kind = ANY(%(kinds)s)" if kinds else ""
        with self._write() as cur:
            row = cur.execute(
                f"UPDATE jobs SET state = 'running', worker = %(worker)s, claims = claims + 1,"
                f" lease_until = %(at)s + make_interval(secs => %(lease)s)"
                f" WHERE id = (SELECT id FROM jobs WHERE state IN ('pending', 'running')"
                f" AND ((state = 'pending' AND COALESCE(run_after, '-infinity') <= %(at)s)"
                f" OR (state = 'running' AND lease_until < %(at)s)){kind_filter} AND {_SPACE_FREE}"
                f" ORDER BY created_at, id LIMIT 1 FOR UPDATE SKIP LOCKED)"
                f" RETURNING {JOB_COLUMNS}",
                {"worker": worker, "at": at, "lease": lease_seconds, "kinds": list(kinds)},
            ).fetchone()
        return rows.job(row, NATIVE) if row else None

    def fail_job(
        self, job_id: str, worker: str, error: str, retry_at: datetime | None, again_at: datetime | None = None
    ) -> None:
        with self._write() as cur:
            cur.execute(
                "UPDATE jobs SET state = %s, last_error = %s, run_after = %s, lease_until = NULL,"
                " attempts = attempts + 1 WHERE id = %s AND worker = %s AND state = 'running'",
                ("pending" if retry_at else "failed", error[:2000], naive(retry_at or again_at), job_id, worker),
            )

    def requeue_failed(self, kinds: Sequence[str], now: datetime) -> int:
        with self._write() as cur:
            return cur.execute(
                "UPDATE jobs SET state = 'pending', run_after = NULL, worker = ''"
                " WHERE state = 'failed' AND run_after <= %s AND kind = ANY(%s)",
                (naive(now), list(kinds)),
            ).rowcount

    def expire_leases(self, dead: Callable[[str], bool], now: datetime) -> int:
        held = self._rows("SELECT DISTINCT worker FROM jobs WHERE state = 'running'")
        gone = [str(row[0]) for row in held if dead(str(row[0]))]
        if not gone:
            return 0
        with self._write() as cur:
            cur.execute(
                "UPDATE jobs SET lease_until = %s WHERE state = 'running' AND worker = ANY(%s)",
                (naive(now - timedelta(milliseconds=1)), gone),
            )
            return cur.rowcount

    def renew_lease(self, job_id: str, worker: str, until: datetime) -> bool:
        with self._write() as cur:
            cur.execute(
                "UPDATE jobs SET lease_until = %s WHERE id = %s AND worker = %s AND state = 'running'",
                (naive(until), job_id, worker),
            )
            return bool(cur.rowcount)

    def give_back_job(self, job_id: str, worker: str) -> bool:
        with self._write() as cur:
            cur.execute(
                "UPDATE jobs SET state = 'pending', claims = GREATEST(claims - 1, 0), lease_until = NULL, worker = ''"
                " WHERE id = %s AND worker = %s AND state = 'running'",
                (job_id, worker),
            )
            return bool(cur.rowcount)

    def retry_job(self, job_id: str, agent: str | None = None) -> Job | None:
        with self._write() as cur:
            row = cur.execute(
                "UPDATE jobs SET state = 'pending', attempts = 0, claims = 0, run_after = NULL, lease_until = NULL,"
                " worker = '' WHERE id = %(id)s AND state = 'failed' AND (%(agent)s::text IS NULL OR agent = %(agent)s)"
                f" RETURNING {JOB_COLUMNS}",
                {"id": job_id, "agent": agent},
            ).fetchone()
        return rows.job(row, NATIVE) if row else None

    def list_jobs(
        self,
        agent: str | None = None,
        states: Sequence[JobState] = (),
        limit: int = 100,
        after: JobMark | None = None,
    ) -> list[Job]:
        sql = f"SELECT {JOB_COLUMNS} FROM jobs WHERE true"
        args: list[Any] = []
        if agent is not None:
            sql += " AND agent = %s"
            args.append(agent)
        if states:
            sql += " AND state = ANY(%s)"
            args.append([s.value for s in states])
        if after is not None:
            sql += " AND (created_at, id) > (%s, %s)"
            args.extend([after[0], after[1]])
        sql += " ORDER BY created_at, id LIMIT %s"
        args.append(limit)
        return [rows.job(row, NATIVE) for row in self._rows(sql, args)]

    def span_jobs(self, agent: str, space: str, states: Sequence[JobState]) -> list[Job]:
        sql = (
            f"SELECT {JOB_COLUMNS} FROM jobs WHERE agent = %s AND space = %s AND state = ANY(%s)"
            " AND folded_by IS NULL ORDER BY created_at, id"
        )
        return [rows.job(row, NATIVE) for row in self._rows(sql, (agent, space, [s.value for s in states]))]

    def prune_jobs(self, before: datetime) -> int:
        with self._write() as cur:
            return cur.execute(
                "DELETE FROM jobs WHERE state = 'done' AND created_at < %s AND EXISTS (SELECT 1 FROM jobs AS newer"
                " WHERE newer.state = 'done' AND newer.agent = jobs.agent AND newer.kind = jobs.kind"
                f" AND {_scope_of('newer')} = {_scope_of('jobs')}"
                " AND (newer.created_at, newer.id) > (jobs.created_at, jobs.id))",
                (naive(before),),
            ).rowcount

    def prune_reports(self, before: datetime, keep: int) -> int:
        newest = (  # the keep-th newest of the scope: older ones are past the newest ``keep``
            " AND (at, id) < (SELECT kept.at, kept.id FROM reports AS kept WHERE kept.agent = reports.agent"
            " AND kept.scope = reports.scope ORDER BY kept.at DESC, kept.id DESC OFFSET %s LIMIT 1)"
        )
        with self._write() as cur:
            return cur.execute(
                "DELETE FROM reports WHERE at < %s" + (newest if keep else ""),
                (naive(before), *([keep - 1] if keep else [])),
            ).rowcount

    def erasures(self) -> int:
        return int(self._rows(ERASURES)[0][0])

    def add_report(self, report: RunReport, erasures: int | None = None) -> bool:
        with self._write() as cur:
            if erasures is not None:
                # the row an erasure moves, there and locked FOR SHARE: one under way commits first, and one
                # that begins after waits for this report, then drops it with the rest of the scope's
                cur.execute("INSERT INTO meta (key, value) VALUES ('erasures', '0') ON CONFLICT (key) DO NOTHING")
                seen = cur.execute("SELECT value FROM meta WHERE key = 'erasures' FOR SHARE").fetchone()
                if seen is None or int(seen[0]) != erasures:
                    return False  # an erasure since the run began: the report may quote what went
            cur.execute(
                f"INSERT INTO reports ({REPORT_COLUMNS}) VALUES (%s, %s, %s, %s, %s, %s, %s, %s)"
                " ON CONFLICT (id) DO NOTHING",
                (
                    report.id,
                    report.agent,
                    report.scope,
                    report.kind,
                    naive(report.at),
                    report.dry_run,
                    json_text(report.counts),
                    json_text(report.body),
                ),
            )
        return True

    def list_reports(
        self, agent: str, scope: str | None = None, limit: int = 20, after: ReportMark | None = None
    ) -> list[RunReport]:
        sql = f"SELECT {REPORT_COLUMNS} FROM reports WHERE agent = %s"
        args: list[Any] = [agent]
        if scope is not None:
            sql += " AND scope = %s"
            args.append(scope)
        if after is not None:
            sql += " AND (at, id) < (%s, %s)"
            args.extend([after[0], after[1]])
        sql += " ORDER BY at DESC, id DESC LIMIT %s"
        return [rows.report(row, NATIVE) for row in self._rows(sql, (*args, limit))]


def _scope_of(table: str) -> str:
    """A job's payload scope as the index ``jobs_done_scope`` (schema 18) holds it."""
    return f"COALESCE({table}.payload->>'scope', '')"


def record_folded(cur: Cursor, job_id: str) -> None:
    """A span job just done took the messages of the older jobs of its space that are not done and share
    a seq with it: each records it in ``folded_by`` (``span_jobs`` leaves them out from then on)."""
    cur.execute(
        "UPDATE jobs j SET folded_by = done.id FROM (SELECT id, agent, space, kind, created_at,"
        " (payload->>'from_seq')::bigint AS first, (payload->>'to_seq')::bigint AS last"
        " FROM jobs WHERE id = %s AND space IS NOT NULL) AS done"
        " WHERE j.agent = done.agent AND j.space = done.space AND j.state IN ('pending', 'running', 'failed')"
        " AND j.kind = done.kind AND j.folded_by IS NULL AND (j.created_at, j.id) < (done.created_at, done.id)"
        " AND (j.payload->>'from_seq')::bigint <= done.last AND (j.payload->>'to_seq')::bigint >= done.first",
        (job_id,),
    )


def _stale_span(cur: Cursor, job: Job, space: str, first: int, last: int) -> bool:
    """Whether a span's seqs left working memory or another live job of its kind holds one of them;
    planners of one space take a lock first, so none enqueues between this check and the insert. Or one of its
    messages is no longer stored: a plan read before another process's erasure queued folds of the erased
    messages. Their rows are locked to the commit: an erasure under way (it locks them for update) is waited
    for, and one that comes after finds this job to delete."""
    ids = sorted({str(i) for i in job.payload.get("message_ids") or ()})
    kept = cur.execute(
        "SELECT id FROM messages WHERE agent = %s AND id = ANY(%s) FOR SHARE", (job.agent, ids)
    ).fetchall()
    if len(kept) < len(ids):
        return True
    if job.payload.get("again"):  # extracted again after an erasure: long out of working memory, in no live fold
        return False
    cur.execute("SELECT pg_advisory_xact_lock(hashtextextended(%s, 1))", (f"{job.agent}\x1f{space}",))
    start = cur.execute(
        "SELECT start_seq FROM working_memory WHERE agent = %s AND space = %s", (job.agent, space)
    ).fetchone()
    if start is not None and first < int(start[0]):
        return True
    held = cur.execute(
        "SELECT 1 FROM jobs WHERE agent = %s AND kind = %s AND state IN ('pending', 'running')"
        " AND payload->>'space' = %s AND (payload->>'from_seq')::bigint <= %s"
        " AND (payload->>'to_seq')::bigint >= %s AND key != %s LIMIT 1",
        (job.agent, job.kind, space, last, first, job.key),
    ).fetchone()
    return held is not None
