"""The embedded store's job queue: rows of ``jobs`` taken under a lease inside the write lock."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Callable, Sequence
from datetime import UTC, datetime
from typing import Any

from huiyi.model import Job, JobState
from huiyi.store import rows
from huiyi.store.jobs import RunReport
from huiyi.store.jsontext import json_text
from huiyi.store.pages import JobMark, ReportMark
from huiyi.store.rows import ERASURES, JOB_COLUMNS, REPORT_COLUMNS, TEXT, from_epoch, to_epoch
from huiyi.store.sqlite.connection import SQLiteConnection, chunks, marks

# one fold of a space at a time, in order: a fold reads what the earlier ones wrote (entities and their
# aliases, plans called off, pets, partners); none while another of the space runs, nor while an earlier one
# is due
_SPACE_FREE = (
    "(space IS NULL OR NOT EXISTS (SELECT 1 FROM jobs AS other WHERE other.agent = jobs.agent"
    " AND other.space = jobs.space AND other.kind = jobs.kind AND other.id != jobs.id"
    " AND ((other.state = 'running' AND other.lease_until >= ?)"
    " OR ((other.created_at, other.id) < (jobs.created_at, jobs.id)"
    " AND ((other.state = 'pending' AND COALESCE(other.run_after, 0) <= ?)"
    " OR (other.state = 'running' AND other.lease_until < ?))))))"
)


def insert_job(conn: sqlite3.Connection, job: Job) -> bool:
    """Queue ``job`` in the caller's transaction; False if one of its key is queued or done already."""
    span = rows.job_span(job)
    cursor = conn.execute(
        "INSERT OR IGNORE INTO jobs (id, kind, agent, key, payload, state, run_after, created_at, space)"
        " VALUES (?, ?, ?, ?, ?, 'pending', ?, ?, ?)",
        (
            job.id,
            job.kind,
            job.agent,
            job.key,
            json.dumps(job.payload, ensure_ascii=False),
            to_epoch(job.run_after),
            to_epoch(job.created_at or datetime.now(UTC)),
            span[0] if span is not None else None,
        ),
    )
    return bool(cursor.rowcount)


class SQLiteJobs(SQLiteConnection):
    """``JobStore`` on SQLite; finishing a job is part of ``apply`` (``SQLiteMemories``)."""

    def enqueue_job(self, job: Job) -> bool:
        with self._write() as conn:
            if (span := rows.job_span(job)) is not None and _stale_span(conn, job, *span):
                return False
            return insert_job(conn, job)

    def claim_job(self, worker: str, now: datetime, lease_seconds: float, kinds: Sequence[str] = ()) -> Job | None:
        at = to_epoch(now) or 0.0
        kind_filter = f" AND kind IN ({marks(len(kinds))})" if kinds else ""
        with self._write() as conn:
            row = conn.execute(
                f"SELECT {JOB_COLUMNS} FROM jobs WHERE ((state = 'pending' AND COALESCE(run_after, 0) <= ?)"
                f" OR (state = 'running' AND lease_until < ?)){kind_filter} AND {_SPACE_FREE}"
                " ORDER BY created_at, id LIMIT 1",
                (at, at, *kinds, at, at, at),
            ).fetchone()
            if row is None:
                return None
            conn.execute(
                "UPDATE jobs SET state = 'running', worker = ?, lease_until = ?, claims = claims + 1 WHERE id = ?",
                (worker, at + lease_seconds, row[0]),
            )
        return rows.job(row, TEXT).model_copy(
            update={
                "state": JobState.RUNNING,
                "worker": worker,
                "lease_until": from_epoch(at + lease_seconds),
                "claims": row[12] + 1,
            }
        )

    def renew_lease(self, job_id: str, worker: str, until: datetime) -> bool:
        with self._write() as conn:
            cursor = conn.execute(
                "UPDATE jobs SET lease_until = ? WHERE id = ? AND worker = ? AND state = 'running'",
                (to_epoch(until), job_id, worker),
            )
            return bool(cursor.rowcount)

    def give_back_job(self, job_id: str, worker: str) -> bool:
        with self._write() as conn:
            cursor = conn.execute(
                "UPDATE jobs SET state = 'pending', claims = MAX(claims - 1, 0), lease_until = NULL, worker = ''"
                " WHERE id = ? AND worker = ? AND state = 'running'",
                (job_id, worker),
            )
            return bool(cursor.rowcount)

    def expire_leases(self, dead: Callable[[str], bool], now: datetime) -> int:
        held = self._conn().execute("SELECT DISTINCT worker FROM jobs WHERE state = 'running'")
        gone = [str(worker) for (worker,) in held if dead(str(worker))]
        expired = 0
        with self._write() as conn:
            for chunk in chunks(gone, 500):
                expired += conn.execute(
                    f"UPDATE jobs SET lease_until = ? WHERE state = 'running' AND worker IN ({marks(len(chunk))})",
                    ((to_epoch(now) or 0.0) - 0.001, *chunk),
                ).rowcount
        return expired

    def retry_job(self, job_id: str, agent: str | None = None) -> Job | None:
        agent_filter = " AND agent = ?" if agent is not None else ""
        with self._write() as conn:
            cursor = conn.execute(
                "UPDATE jobs SET state = 'pending', attempts = 0, claims = 0, run_after = NULL, lease_until = NULL,"
                f" worker = '' WHERE id = ? AND state = 'failed'{agent_filter}",
                (job_id, *([agent] if agent is not None else [])),
            )
            if not cursor.rowcount:
                return None
            row = conn.execute(f"SELECT {JOB_COLUMNS} FROM jobs WHERE id = ?", (job_id,)).fetchone()
        return rows.job(row, TEXT)

    def fail_job(
        self, job_id: str, worker: str, error: str, retry_at: datetime | None, again_at: datetime | None = None
    ) -> None:
        with self._write() as conn:
            conn.execute(
                "UPDATE jobs SET state = ?, last_error = ?, run_after = ?, lease_until = NULL,"
                " attempts = attempts + 1 WHERE id = ? AND worker = ? AND state = 'running'",
                ("pending" if retry_at else "failed", error[:2000], to_epoch(retry_at or again_at), job_id, worker),
            )

    def requeue_failed(self, kinds: Sequence[str], now: datetime) -> int:
        due = f"state = 'failed' AND run_after <= ? AND kind IN ({marks(len(kinds))})"
        args = (to_epoch(now), *kinds)
        if self._conn().execute(f"SELECT 1 FROM jobs WHERE {due} LIMIT 1", args).fetchone() is None:
            return 0  # nearly always: no write lock taken from the adds
        with self._write() as conn:
            return conn.execute(
                f"UPDATE jobs SET state = 'pending', run_after = NULL, worker = '' WHERE {due}", args
            ).rowcount

    def list_jobs(
        self,
        agent: str | None = None,
        states: Sequence[JobState] = (),
        limit: int = 100,
        after: JobMark | None = None,
    ) -> list[Job]:
        sql = f"SELECT {JOB_COLUMNS} FROM jobs WHERE 1 = 1"
        args: list[Any] = []
        if agent is not None:
            sql += " AND agent = ?"
            args.append(agent)
        if states:
            sql += f" AND state IN ({marks(len(states))})"
            args.extend(s.value for s in states)
        if after is not None:
            sql += " AND (created_at, id) > (?, ?)"
            args.extend([to_epoch(after[0]), after[1]])
        sql += " ORDER BY created_at, id LIMIT ?"
        args.append(limit)
        return [rows.job(row, TEXT) for row in self._conn().execute(sql, args)]

    def span_jobs(self, agent: str, space: str, states: Sequence[JobState]) -> list[Job]:
        sql = (
            f"SELECT {JOB_COLUMNS} FROM jobs WHERE agent = ? AND space = ? AND state IN ({marks(len(states))})"
            " AND folded_by IS NULL ORDER BY created_at, id"
        )
        return [rows.job(row, TEXT) for row in self._conn().execute(sql, (agent, space, *(s.value for s in states)))]

    def prune_jobs(self, before: datetime) -> int:
        with self._write() as conn:
            return conn.execute(
                "DELETE FROM jobs WHERE state = 'done' AND created_at < ? AND EXISTS (SELECT 1 FROM jobs AS newer"
                " WHERE newer.state = 'done' AND newer.agent = jobs.agent AND newer.kind = jobs.kind"
                f" AND {_scope_of('newer')} = {_scope_of('jobs')}"
                " AND (newer.created_at, newer.id) > (jobs.created_at, jobs.id))",
                (to_epoch(before),),
            ).rowcount

    def prune_reports(self, before: datetime, keep: int) -> int:
        newest = (  # the keep-th newest of the scope: older ones are past the newest ``keep``
            " AND (at, id) < (SELECT kept.at, kept.id FROM reports AS kept WHERE kept.agent = reports.agent"
            " AND kept.scope = reports.scope ORDER BY kept.at DESC, kept.id DESC LIMIT 1 OFFSET ?)"
        )
        with self._write() as conn:
            return conn.execute(
                "DELETE FROM reports WHERE at < ?" + (newest if keep else ""),
                (to_epoch(before), *([keep - 1] if keep else [])),
            ).rowcount

    def erasures(self) -> int:
        return int(self._conn().execute(ERASURES).fetchone()[0])

    def add_report(self, report: RunReport, erasures: int | None = None) -> bool:
        with self._write() as conn:
            if erasures is not None and int(conn.execute(ERASURES).fetchone()[0]) != erasures:
                return False  # an erasure since the run began: the report may quote what went
            conn.execute(
                f"INSERT OR REPLACE INTO reports ({REPORT_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    report.id,
                    report.agent,
                    report.scope,
                    report.kind,
                    to_epoch(report.at),
                    int(report.dry_run),
                    json_text(report.counts),
                    json_text(report.body),
                ),
            )
        return True

    def list_reports(
        self, agent: str, scope: str | None = None, limit: int = 20, after: ReportMark | None = None
    ) -> list[RunReport]:
        sql = f"SELECT {REPORT_COLUMNS} FROM reports WHERE agent = ?"
        args: list[Any] = [agent]
        if scope is not None:
            sql += " AND scope = ?"
            args.append(scope)
        if after is not None:
            sql += " AND (at, id) < (?, ?)"
            args.extend([to_epoch(after[0]), after[1]])
        sql += " ORDER BY at DESC, id DESC LIMIT ?"
        return [rows.report(row, TEXT) for row in self._conn().execute(sql, (*args, limit))]


def _scope_of(table: str) -> str:
    """A job's payload scope as the index ``jobs_done_scope`` (schema 19) holds it."""
    return f"COALESCE(json_extract({table}.payload, '$.scope'), '')"


def record_folded(conn: sqlite3.Connection, job_id: str) -> None:
    """A span job just done took the messages of the older jobs of its space that are not done and share
    a seq with it: each records it in ``folded_by`` (``span_jobs`` leaves them out from then on)."""
    conn.execute(
        "UPDATE jobs AS j SET folded_by = done.id FROM (SELECT id, agent, space, kind, created_at,"
        " json_extract(payload, '$.from_seq') AS first, json_extract(payload, '$.to_seq') AS last"
        " FROM jobs WHERE id = ? AND space IS NOT NULL) AS done"
        " WHERE j.agent = done.agent AND j.space = done.space AND j.state IN ('pending', 'running', 'failed')"
        " AND j.kind = done.kind AND j.folded_by IS NULL AND (j.created_at, j.id) < (done.created_at, done.id)"
        " AND json_extract(j.payload, '$.from_seq') <= done.last AND json_extract(j.payload, '$.to_seq') >= done.first",
        (job_id,),
    )


def _stale_span(conn: sqlite3.Connection, job: Job, space: str, first: int, last: int) -> bool:
    """Whether a span's seqs left working memory or another live job of its kind holds one of them
    (read inside the write lock, so no other planner can enqueue between this check and the insert), or
    one of its messages is no longer stored: a plan read before another process's erasure queued folds of
    the erased messages, whose commits brought the erased chat's working memory back."""
    ids = sorted({str(i) for i in job.payload.get("message_ids") or ()})
    kept = sum(
        conn.execute(
            f"SELECT COUNT(*) FROM messages WHERE agent = ? AND id IN ({marks(len(part))})", (job.agent, *part)
        ).fetchone()[0]
        for part in chunks(ids, 500)
    )
    if kept < len(ids):
        return True
    if job.payload.get("again"):  # extracted again after an erasure: long out of working memory, in no live fold
        return False
    row = conn.execute("SELECT start_seq FROM working_memory WHERE agent = ? AND space = ?", (job.agent, space))
    start = row.fetchone()
    if start is not None and first < int(start[0]):
        return True
    held = conn.execute(
        "SELECT 1 FROM jobs WHERE agent = ? AND kind = ? AND state IN ('pending', 'running')"
        " AND json_extract(payload, '$.space') = ? AND json_extract(payload, '$.from_seq') <= ?"
        " AND json_extract(payload, '$.to_seq') >= ? AND key != ? LIMIT 1",
        (job.agent, job.kind, space, last, first, job.key),
    ).fetchone()
    return held is not None
