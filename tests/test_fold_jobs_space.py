"""A prompt's working memory reads the folds of its own space that are not done, by an index on the jobs'
space (schema 14 on SQLite, 13 on PostgreSQL): none of the agent's other spaces' jobs, none done. A fold
whose commit took a failed fold's messages records it then, so the failed fold is left out without
seeking the done folds; stores made before the column get both filled when they open."""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Iterator
from datetime import datetime, timedelta
from pathlib import Path

import psycopg
import pytest

import pg_server
from huiyi.flows.extract.fold import FOLD, fold_key
from huiyi.model import Job, JobState
from huiyi.store.base import Store, Writes
from huiyi.store.postgres import PostgresStore
from huiyi.store.sqlite import SQLiteStore
from test_keyword_scope import back_to_schema_15

AGENT, SPACE, OTHER = "祈煜", "person:木木", "space:群"
NOT_DONE = [JobState.PENDING, JobState.RUNNING, JobState.FAILED]
T0 = datetime(2024, 9, 20, 19, 0)

Opener = Callable[[], Store]


@pytest.fixture(params=["sqlite", "postgres"])
def opener(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[tuple[str, Opener, str]]:
    if request.param == "sqlite":
        yield "sqlite", lambda: SQLiteStore(tmp_path), str(tmp_path / "huiyi.sqlite")
    else:
        dsn = pg_server.fresh_dsn()
        yield "postgres", lambda: PostgresStore(dsn, pool_size=2), dsn


def fold(space: str, first: int, last: int, minute: int) -> Job:
    payload = {"space": space, "scope": space, "person": None, "from_seq": first, "to_seq": last}
    at = T0 + timedelta(minutes=minute)
    key = fold_key(AGENT, space, first, last)
    return Job(kind=FOLD, agent=AGENT, key=key, payload=payload | {"message_ids": []}, created_at=at)


def run(store: Store, job: Job, *, fails: bool = False) -> None:
    """The worker's part: claim the job, then fail it for good or commit its fold."""
    assert store.enqueue_job(job)
    claimed = store.claim_job("w", T0 + timedelta(days=1), 60.0, [FOLD])
    assert claimed is not None and claimed.id == job.id
    if fails:
        store.fail_job(job.id, "w", "LLM answered 500", None)
    else:
        store.apply(Writes(fold_points=[(AGENT, job.payload["space"], job.payload["to_seq"] + 1)]), (job.id, "w"))


def history(store: Store) -> dict[str, Job]:
    """A fold failed for good and one planned since over its messages, done; a fold failed for good and
    outrun by a later one that starts after it; another space's failed fold; and one still pending."""
    jobs = {
        "taken": fold(SPACE, 1, 4, 0),
        "taker": fold(SPACE, 1, 6, 1),
        "outrun": fold(SPACE, 7, 8, 2),
        "later": fold(SPACE, 9, 10, 3),
        "other": fold(OTHER, 1, 2, 4),
        "pending": fold(SPACE, 11, 12, 5),
    }
    run(store, jobs["taken"], fails=True)
    run(store, jobs["taker"])
    run(store, jobs["outrun"], fails=True)
    run(store, jobs["later"])
    run(store, jobs["other"], fails=True)
    assert store.enqueue_job(jobs["pending"])
    return jobs


def shown(store: Store, space: str = SPACE) -> list[tuple[int, int]]:
    return [(job.payload["from_seq"], job.payload["to_seq"]) for job in store.span_jobs(AGENT, space, NOT_DONE)]


def test_the_space_s_folds_not_done_leave_out_those_a_later_fold_took(opener: tuple[str, Opener, str]) -> None:
    _, open_store, _ = opener
    store = open_store()
    try:
        history(store)
        assert shown(store) == [(7, 8), (11, 12)]
        assert shown(store, OTHER) == [(1, 2)]
        assert [job.payload["from_seq"] for job in store.span_jobs(AGENT, SPACE, [JobState.PENDING])] == [11]
        assert store.span_jobs("别人", SPACE, NOT_DONE) == []
        # the failed fold a later one took stays failed, retried as ever
        assert [job.state for job in store.list_jobs(AGENT, [JobState.FAILED])] == [JobState.FAILED] * 3
    finally:
        store.close()


def test_a_store_made_before_the_space_column_gets_it_and_the_verdicts_when_it_opens(
    opener: tuple[str, Opener, str],
) -> None:
    backend, open_store, where = opener
    store = open_store()
    history(store)
    store.close()
    if backend == "sqlite":  # back to schema 13, as such a store is
        with sqlite3.connect(where) as conn:
            back_to_schema_15(conn)
            conn.execute("DROP INDEX jobs_space")
            conn.execute("ALTER TABLE jobs DROP COLUMN space")
            conn.execute("ALTER TABLE jobs DROP COLUMN folded_by")
            conn.execute("UPDATE meta SET value = '13' WHERE key = 'schema_version'")
    else:  # back to schema 12
        with psycopg.connect(where, autocommit=True) as pg:
            pg.execute("ALTER TABLE jobs DROP COLUMN space, DROP COLUMN folded_by")
            pg.execute("DELETE FROM schema_migrations WHERE version >= 13")
    store = open_store()
    try:
        assert shown(store) == [(7, 8), (11, 12)]
        assert shown(store, OTHER) == [(1, 2)]
    finally:
        store.close()
