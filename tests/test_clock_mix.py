"""Rows are stamped in zone-less UTC (``created_at``, jobs' times); what was said and a run's ``now`` are
the configured zone's wall clock. Asia/Shanghai is 8 hours ahead of UTC: a comparison that mixes the two
is 8 hours off there."""

from __future__ import annotations

from datetime import datetime, timedelta
from pathlib import Path

import pytest

from huiyi import Memory
from huiyi.config import Config
from huiyi.flows.consolidate import run
from huiyi.flows.consolidate.run import CONSOLIDATE
from huiyi.model import EntityType, JobState, Scope
from test_consolidate import HASH, _FixedEmbedder, entity, fact, put

AGENT, PERSON = "bot", "u1"
SCOPE = Scope.of_person(AGENT, PERSON)
RUN = datetime(2024, 5, 10, 20, 0)  # the last consolidation, Shanghai wall clock (12:00 UTC)
UTC_OFFSET = timedelta(hours=8)


class Clock:
    def __init__(self, now: datetime) -> None:
        self.now = now

    def __call__(self) -> datetime:
        return self.now


def open_memory(path: Path, clock: Clock, embedder: _FixedEmbedder) -> Memory:
    config = Config(timezone="Asia/Shanghai", worker={"enabled": False}, recall={"reinforce": False})
    return Memory(path, embedder=embedder, config=config, clock=clock)


def active_scope(memory: Memory) -> None:
    """A person with a fold job (how the scheduler finds the agent) and a memory said before ``RUN``."""
    memory.add(["你好"], agent=AGENT, person=PERSON)
    memory.flush(agent=AGENT, person=PERSON)
    put(memory.store, HASH, [fact("f0", RUN - timedelta(hours=3), (PERSON, "喜欢", "咖啡"), "u1喜欢咖啡", scope=SCOPE)])


def test_a_memory_written_after_the_last_run_is_new_to_the_next_one(tmp_path: Path) -> None:
    """A fact about last evening, extracted two hours after the last run, names 南大: the next run looks
    for 南大's duplicates (南京大学, cosine 0.96), though its ``created_at`` is UTC and the run's time local."""
    embedder = _FixedEmbedder({"南京大学": [1.0, 0.0], "南大": [0.96, (1 - 0.96**2) ** 0.5]})
    clock = Clock(RUN)
    with open_memory(tmp_path, clock, embedder) as memory:
        active_scope(memory)
        memory.maintain()  # the scheduled run at RUN
        assert [j.payload["at"] for j in memory.store.list_jobs(AGENT) if j.kind == CONSOLIDATE] == [RUN.isoformat()]
        clock.now = RUN + timedelta(hours=2)
        for name in ("南京大学", "南大"):
            entity(memory.store, embedder, SCOPE, name, EntityType.SPECIFIC)
        said = fact("f1", RUN - timedelta(hours=1), (PERSON, "就读于", "南大"), "u1在南大读书", scope=SCOPE)
        put(memory.store, embedder, [said.model_copy(update={"created_at": None})])  # stamped by the store: UTC
        assert memory.get("f1", agent=AGENT).created_at == RUN + timedelta(hours=2) - UTC_OFFSET
        report = memory.consolidate(agent=AGENT, person=PERSON)
        assert {frozenset(c.before.values()) for c in report.of("merge_entity")} == {frozenset({"南京大学", "南大"})}


def test_a_scheduled_consolidation_is_stamped_in_utc_as_every_job(tmp_path: Path) -> None:
    """Its ``created_at`` orders it among the fold jobs (UTC), and the console shows it in the zone."""
    clock = Clock(RUN)
    with open_memory(tmp_path, clock, _FixedEmbedder({})) as memory:
        active_scope(memory)
        memory.maintain()
        (job,) = [j for j in memory.store.list_jobs(AGENT) if j.kind == CONSOLIDATE]
        assert job.created_at == RUN - UTC_OFFSET
        assert job.payload["at"] == RUN.isoformat()  # the last run, as memories' times: wall clock


def test_a_failed_consolidation_is_retried_an_hour_later_by_the_jobs_clock(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    async def broken(*args: object, **kwargs: object) -> None:
        raise RuntimeError("the store hiccuped")

    monkeypatch.setattr(run, "consolidate", broken)
    with open_memory(tmp_path, Clock(RUN), _FixedEmbedder({})) as memory:
        active_scope(memory)
        memory.maintain()
        (job,) = [j for j in memory.store.list_jobs(AGENT) if j.kind == CONSOLIDATE]
        assert (job.state, job.run_after) == (JobState.PENDING, RUN - UTC_OFFSET + timedelta(hours=1))
