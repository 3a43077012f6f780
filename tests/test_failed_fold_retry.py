"""A fold that failed for good in an outage is queued again by the worker itself, on a bounded schedule.

Before, only ``flush``, ``retry_job`` and ``retry_failed`` queued it again: a bot that never flushes (a
companion talking on for months) kept the fold's turns verbatim in working memory for good once the
embedder or the store had been down longer than the fold's backoff. A job whose worker died each time
is not taken again by itself: it would take the next worker down too.
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import datetime, timedelta
from pathlib import Path

import pytest

from fake_openai import FakeOpenAI
from huiyi import Memory
from huiyi.config import Config
from huiyi.errors import ProviderError
from huiyi.flows.extract.fold import FOLD
from huiyi.model import Job, JobState, MemoryKind
from huiyi.store.base import Store
from test_extract import event

AGENT, PERSON = "祈煜", "木木"
T0 = datetime(2024, 9, 1, 20, 0)
CHAT: list[dict[str, object]] = [
    {"id": "u1", "text": "我养了一只猫叫团子", "time": T0},
    {"id": "a1", "text": "好可爱", "role": "assistant", "time": T0 + timedelta(minutes=1)},
]
TUANZI = {"events": [event("木木养了一只猫叫团子", ["u1"])], "facts": [], "entities": []}


class Outage:
    """A memory whose LLM and embedder are one fake server, on a clock the test moves."""

    def __init__(self, path: Path, server: FakeOpenAI, **worker: object) -> None:
        config = Config(
            llm={"base_url": server.base_url, "model": "fake-model", "max_retries": 0},
            embed={"provider": "openai", "base_url": server.base_url, "model": "fake-model", "dim": 8},
            worker={"enabled": False, "max_attempts": 2, "backoff_seconds": 60.0, **worker},
        )
        self.server = server
        self.now = T0
        self.memory = Memory(path, config=config, clock=lambda: T0)
        self.memory.core.worker.clock = lambda: self.now

    def fail_for_good(self) -> str:
        """A fold whose attempts all fail: the LLM's, then the rules' memories unstored (the embedder is down)."""
        self.memory.add(CHAT, agent=AGENT, person=PERSON)
        (job,) = self.memory.flush(agent=AGENT, person=PERSON)  # the LLM answers 500: tried again in a minute
        self.later(minutes=2)
        self.server.script_embeddings_status(503)
        self.memory.run_jobs()
        assert self.state(job.id) is JobState.FAILED
        return job.id

    def later(self, minutes: float) -> None:
        self.now += timedelta(minutes=minutes)

    def state(self, job_id: str) -> JobState:
        (job,) = [j for j in self.memory.jobs(agent=AGENT) if j.id == job_id]
        return job.state


def _unavailable(texts: object) -> object:
    raise ProviderError("embedding endpoint failed: 503 Service Unavailable")


@pytest.fixture
def outage(tmp_path: Path) -> Iterator[Outage]:
    with FakeOpenAI() as server:
        made = Outage(tmp_path, server)  # by default: after 30 minutes, 3 times
        with made.memory:
            yield made


def test_the_worker_retries_a_fold_failed_for_good_once_the_outage_is_over(outage: Outage) -> None:
    job = outage.fail_for_good()
    outage.later(minutes=29)
    assert outage.memory.run_jobs() == 0  # not yet
    assert outage.memory.working_memory(agent=AGENT, person=PERSON) != []
    outage.later(minutes=2)
    outage.server.script_chat(json_content=TUANZI)
    assert outage.memory.run_jobs() == 1  # no flush, no retry_job: the worker took it again
    assert outage.state(job) is JobState.DONE
    assert outage.memory.working_memory(agent=AGENT, person=PERSON) == []
    events = [m.text for m in outage.memory.memories(agent=AGENT, person=PERSON, kinds=[MemoryKind.EVENT])]
    assert "木木养了一只猫叫团子" in events


def test_the_worker_s_retries_of_a_failed_fold_are_bounded(outage: Outage, monkeypatch: pytest.MonkeyPatch) -> None:
    job = outage.fail_for_good()
    embedder = outage.memory.core.worker.embedder
    with monkeypatch.context() as down:
        down.setattr(embedder, "embed_passages", _unavailable)
        for _ in range(3):  # each retry is one attempt, the last one: the rules take the fold the LLM fails
            outage.later(minutes=31)
            assert outage.memory.run_jobs() == 1
            assert outage.state(job) is JobState.FAILED
    outage.later(minutes=31)
    assert outage.memory.run_jobs() == 0  # its retries are spent: flush or retry_job take it from here
    (failed,) = outage.memory.jobs(agent=AGENT)
    assert (failed.attempts, failed.run_after) == (5, None)
    outage.server.script_chat(json_content=TUANZI)
    (again,) = outage.memory.flush(agent=AGENT, person=PERSON)
    assert (again.id, again.state) == (job, JobState.DONE)


def test_no_retry_by_itself_when_it_is_off(tmp_path: Path) -> None:
    with FakeOpenAI() as server:
        made = Outage(tmp_path, server, failed_retry_minutes=0.0)
        with made.memory:
            job = made.fail_for_good()
            made.later(minutes=24 * 60)
            assert made.memory.run_jobs() == 0
            assert made.state(job) is JobState.FAILED


def test_a_job_whose_workers_died_is_not_retried_by_itself(outage: Outage) -> None:
    outage.memory.add(CHAT, agent=AGENT, person=PERSON)
    outage.memory.flush(agent=AGENT, person=PERSON, wait=False)
    store = outage.memory.store
    for minute in range(5):  # five workers die holding it
        assert store.claim_job(f"doomed{minute}", T0 + timedelta(minutes=2 * minute), 60)
    outage.later(minutes=20)
    assert outage.memory.run_jobs() == 1
    (job,) = outage.memory.jobs(agent=AGENT)
    assert job.state is JobState.FAILED and job.last_error.startswith("Abandoned")
    outage.later(minutes=24 * 60)
    assert outage.memory.run_jobs() == 0
    assert outage.state(job.id) is JobState.FAILED


def test_the_store_queues_a_failed_job_again_once_its_time_has_come(store: Store) -> None:
    again, never = (
        Job(kind=FOLD, agent=AGENT, key=key, payload={"space": "s"}, created_at=T0) for key in ("again", "never")
    )
    for job, again_at in ((again, T0 + timedelta(minutes=30)), (never, None)):
        assert store.enqueue_job(job)
        assert store.claim_job("w", T0, 60.0, [FOLD]) is not None
        store.fail_job(job.id, "w", "EmbedderError: 503", None, again_at)
    failed = {j.id: j for j in store.list_jobs(AGENT, [JobState.FAILED])}
    assert (failed[again.id].run_after, failed[never.id].run_after) == (T0 + timedelta(minutes=30), None)
    assert store.requeue_failed([FOLD], T0 + timedelta(minutes=29)) == 0
    assert store.requeue_failed(["consolidate"], T0 + timedelta(minutes=30)) == 0
    assert store.requeue_failed([FOLD], T0 + timedelta(minutes=30)) == 1
    (pending,) = store.list_jobs(AGENT, [JobState.PENDING])
    assert (pending.id, pending.attempts, pending.claims, pending.run_after) == (again.id, 1, 1, None)
    assert [j.id for j in store.list_jobs(AGENT, [JobState.FAILED])] == [never.id]
