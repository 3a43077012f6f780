"""Maintenance keeps the store's bookkeeping bounded: done jobs and maintenance reports past their time go.

A half-year companion simulation kept every finished job and every report (~6.6 kB each, a tenth of its
store), growing with each day of talk. ``Memory.maintain`` (and so the worker's scheduled run) now deletes
done jobs older than ``bookkeeping.jobs_days`` and reports beyond the newest ``bookkeeping.reports_keep``
of their scope and older than ``bookkeeping.reports_days``; never a job pending, running or failed, nor the
newest done job of a kind and scope (a scope's last consolidation, the fold that makes a group known).
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import datetime, timedelta
from pathlib import Path

import pytest

import pg_server
from huiyi import Memory
from huiyi.config import Config
from huiyi.errors import ConfigError
from huiyi.flows.consolidate.run import CONSOLIDATE, last_run
from huiyi.flows.extract import Extraction, Fold
from huiyi.flows.extract.fold import FOLD
from huiyi.flows.summarize.run import known_scopes
from huiyi.model import Job, JobState, Scope
from huiyi.providers.embed import HashEmbedder
from huiyi.store.base import Store, Writes
from huiyi.store.jobs import RunReport

AGENT, PERSON, GROUP = "祈煜", "木木", "g1"
T0 = datetime(2024, 3, 1, 21, 0)
DAY = timedelta(days=1)


@pytest.fixture(params=["sqlite", "postgres"])
def location(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    return str(tmp_path / "memory") if request.param == "sqlite" else pg_server.fresh_dsn()


class Clock:
    def __init__(self) -> None:
        self.now = T0

    def __call__(self) -> datetime:
        return self.now


class Unless:
    """The rules' extraction of a fold, except a fold holding ``bad``: that one fails, every time."""

    def __init__(self, memory: Memory, bad: str) -> None:
        self.rules = memory.core.worker.extractor
        self.bad = bad

    async def extract(self, fold: Fold) -> Extraction:
        if any(self.bad in m.text for m in fold.messages):
            raise RuntimeError("the LLM answered 500")
        return await self.rules.extract(fold)


def opened(location: str, clock: Clock, **config: object) -> Memory:
    worker = {"enabled": False, "max_attempts": 1, "failed_retry_minutes": 0.0}
    return Memory(location, embedder=HashEmbedder(16), config=Config(worker=worker, **config), clock=clock)


def a_day(memory: Memory, clock: Clock, day: int) -> None:
    """A day of a companion and a group: talk, folded; a consolidation looked at (a kept report); maintenance."""
    clock.now = T0 + day * DAY
    said = [
        {"text": f"第{day}天，我去公园散步了", "speaker": PERSON, "time": clock.now},
        {"text": "听起来不错", "speaker": AGENT, "role": "assistant", "time": clock.now + timedelta(minutes=1)},
    ]
    memory.add(said, agent=AGENT, person=PERSON)
    memory.add([{"text": f"群里第{day}天的闲聊", "speaker": "许仙", "time": clock.now}], agent=AGENT, space=GROUP)
    memory.flush(agent=AGENT, person=PERSON)
    memory.flush(agent=AGENT, space=GROUP)
    memory.consolidate(agent=AGENT, person=PERSON, dry_run=True)
    clock.now += timedelta(hours=3)
    memory.maintain(catch_up=False)


def test_a_store_maintained_over_many_days_keeps_its_bookkeeping_bounded(location: str) -> None:
    clock = Clock()
    days = 45  # the defaults keep 30 days of done jobs, and of reports past the newest 20 of a scope
    with opened(location, clock) as memory:
        for day in range(days):
            a_day(memory, clock, day)
        written = memory.store.clock()
        done = memory.jobs(agent=AGENT, states=[JobState.DONE], limit=10_000)
        reports = memory.reports(agent=AGENT, limit=1000)
        scope = Scope.of_person(AGENT, PERSON)
        assert last_run(memory.store, scope) is not None
    assert {job.kind for job in done} == {FOLD, CONSOLIDATE}
    assert [job for job in done if job.created_at is not None and job.created_at < written - 31 * DAY] == []
    # a consolidation a day in each of two chats (folds are stamped by the real clock: they age in the store's tests)
    assert len([job for job in done if job.kind == CONSOLIDATE]) <= 2 * 32
    mine = [r for r in reports if r.scope == f"person:{PERSON}"]
    assert 20 <= len(mine) <= 32 and all(r.at >= clock.now - 31 * DAY for r in mine)


def test_zero_keeps_bookkeeping_forever(location: str) -> None:
    clock = Clock()
    keep = {"jobs_days": 0, "reports_days": 0}
    with opened(location, clock, bookkeeping=keep) as memory:
        for day in range(0, 60, 20):
            a_day(memory, clock, day)
        done = memory.jobs(agent=AGENT, states=[JobState.DONE], limit=10_000)
        reports = memory.reports(agent=AGENT, scope=f"person:{PERSON}", limit=1000)
    assert len([job for job in done if job.kind == FOLD]) == 6 and len(reports) == 3


def test_bookkeeping_settings_are_checked() -> None:
    assert Config().bookkeeping.jobs_days == 30
    with pytest.raises(ConfigError, match="jobs_days"):
        Config.load(bookkeeping={"jobs_days": -1})
    with pytest.raises(ConfigError, match="reports_days"):  # a cut before year 1 overflowed each maintenance
        Config.load(bookkeeping={"reports_days": 10**9})


def test_what_is_still_needed_stays(location: str) -> None:
    """A failed fold (whose turns working memory still shows, which retry_failed queues again), the last
    consolidation of each scope and the fold that makes a group known all outlive any number of days."""
    clock = Clock()
    with opened(location, clock) as memory:
        memory.core.worker.extractor = Unless(memory, "坏")
        lost = [{"text": "坏天气，我的伞丢了", "speaker": PERSON, "time": T0}]
        memory.add(lost, agent=AGENT, person=PERSON)
        (failed,) = memory.flush(agent=AGENT, person=PERSON)
        assert failed.state is JobState.FAILED
        clock.now = T0 + timedelta(hours=6)  # a scene later: the next fold moves working memory past the failed one
        memory.add([{"text": "今天晴了", "speaker": PERSON, "time": clock.now}], agent=AGENT, person=PERSON)
        memory.core.worker.extractor = memory.core.worker.extractor.rules
        memory.add([{"text": "群里有人吗", "speaker": "许仙", "time": clock.now}], agent=AGENT, space=GROUP)
        memory.flush(agent=AGENT, space=GROUP)
        memory.core.worker.extractor = Unless(memory, "坏")
        memory.flush(agent=AGENT, person=PERSON)
        memory.maintain()
        seen = [m.text for m in memory.working_memory(agent=AGENT, person=PERSON)]
        assert "坏天气，我的伞丢了" in seen
        scopes = known_scopes(memory.store)
        runs = {scope.tag: last_run(memory.store, scope) for scope in scopes}
        assert Scope.of_space(AGENT, GROUP) in scopes and all(runs.values())

        clock.now += 200 * DAY
        memory.maintain()
        assert [m.text for m in memory.working_memory(agent=AGENT, person=PERSON)] == seen
        assert [job.id for job in memory.jobs(agent=AGENT, states=[JobState.FAILED])] == [failed.id]
        assert known_scopes(memory.store) == scopes
        assert {scope.tag: last_run(memory.store, scope) for scope in scopes} == runs
        (again,) = memory.retry_failed(agent=AGENT)
        assert again.id == failed.id


# the store's part, on both backends ---------------------------------------------------------------------
def job(kind: str, scope: str, at: datetime, key: str) -> Job:
    return Job(kind=kind, agent=AGENT, key=key, payload={"scope": scope, "at": at.isoformat()}, created_at=at)


def finish(store: Store, made: Job, *, fails: bool = False) -> None:
    assert store.enqueue_job(made)
    claimed = store.claim_job("w", T0 + 400 * DAY, 60.0, [made.kind])
    assert claimed is not None and claimed.id == made.id
    if fails:
        store.fail_job(made.id, "w", "boom", None)
    else:
        store.apply(Writes(), (made.id, "w"))


@pytest.fixture
def jobs(store: Store) -> Iterator[tuple[Store, dict[str, Job]]]:
    made = {
        "old run": job(CONSOLIDATE, "person:木木", T0, "c1"),
        "last run": job(CONSOLIDATE, "person:木木", T0 + DAY, "c2"),
        "other scope's run": job(CONSOLIDATE, "person:许仙", T0, "c3"),
        "group's fold": job(FOLD, "space:g1", T0, "f0"),
        "failed": job(FOLD, "person:木木", T0, "f1"),
        "pending": job(FOLD, "person:木木", T0 + 2 * DAY, "f2"),
        "recent": job(CONSOLIDATE, "person:木木", T0 + 100 * DAY, "c4"),
    }
    for name, made_job in made.items():
        if name != "pending":
            finish(store, made_job, fails=name == "failed")
    assert store.enqueue_job(made["pending"])
    yield store, made


def test_done_jobs_past_their_time_go_but_a_scope_s_last_of_a_kind(jobs: tuple[Store, dict[str, Job]]) -> None:
    store, made = jobs
    assert store.prune_jobs(T0 + 10 * DAY) == 2  # two runs of person:木木 a newer one followed
    left = {j.id for j in store.list_jobs(AGENT, (), 100)}
    assert left == {made[name].id for name in made if name not in ("old run", "last run")}
    assert store.prune_jobs(T0 + 365 * DAY) == 0  # each left is needed, or the last of its kind and scope
    assert len(store.list_jobs(AGENT, (), 100)) == len(left)


def report(scope: str, at: datetime, name: str) -> RunReport:
    return RunReport(id=name, agent=AGENT, scope=scope, kind="consolidate", at=at, counts={}, body={"n": name})


def test_reports_go_past_the_newest_of_their_scope_and_their_time(store: Store) -> None:
    for n in range(6):
        store.add_report(report("person:木木", T0 + n * DAY, f"m{n}"))
    store.add_report(report("person:许仙", T0, "x0"))
    store.add_report(report("official", T0, "o0"))
    store.add_report(RunReport(id="other", agent="bot", scope="official", kind="consolidate", at=T0))
    assert store.prune_reports(T0 + 3 * DAY, 2) == 3  # m0–m2: older than the cut and not of the newest two
    assert [r.id for r in store.list_reports(AGENT, "person:木木")] == ["m5", "m4", "m3"]
    assert {r.id for r in store.list_reports(AGENT)} == {"m5", "m4", "m3", "x0", "o0"}
    assert store.prune_reports(T0 + 10 * DAY, 2) == 1  # m3 is older now; the newest two of each scope stay
    assert [r.id for r in store.list_reports(AGENT, "person:木木")] == ["m5", "m4"]
    assert store.prune_reports(T0 + 10 * DAY, 0) == 5  # no floor: everything older than the cut
    assert store.list_reports(AGENT) == [] and [r.id for r in store.list_reports("bot")] == []
