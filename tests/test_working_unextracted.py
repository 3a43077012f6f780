"""Working memory keeps a fold's messages until they are extracted: a fold whose extraction failed,
waiting for its retry or failed for good, is outrun by the space's next fold, whose commit moves the
working-memory start past both; its turns still show verbatim (and only its turns: the later fold's are
events), and no planner folds them again."""

from __future__ import annotations

import asyncio
from datetime import datetime, timedelta
from pathlib import Path

import pytest

import pg_server
from huiyi import Memory
from huiyi.config import Config
from huiyi.flows.extract import EventDraft, Extraction, Fold
from huiyi.flows.extract.worker import utc_now
from huiyi.model import JobState
from huiyi.providers.embed import HashEmbedder

T0 = datetime(2024, 9, 20, 19, 0)
AGENT, PERSON = "祈煜", "木木"
BACKENDS = pytest.mark.parametrize("backend", ["sqlite", "postgres"])


class Extractor:
    """One event per fold; a fold holding the first message fails while ``failures`` > 0."""

    def __init__(self, failures: int = 0) -> None:
        self.failures = failures

    async def extract(self, fold: Fold) -> Extraction:
        await asyncio.sleep(0)
        if self.failures and fold.messages[0].id == "u0":
            self.failures -= 1
            raise RuntimeError("LLM answered 500")
        return Extraction(events=[EventDraft(text=f"聊了{len(fold.messages)}句", sources=[fold.messages[0].id])])


def rounds(first: int, last: int) -> list[dict[str, object]]:
    """Rounds ``first`` to ``last`` - 1: a line of 木木's and 祈煜's answer, a minute apart."""
    out: list[dict[str, object]] = []
    for i in range(first, last):
        at = T0 + timedelta(minutes=i)
        out.append({"id": f"u{i}", "text": f"第{i}轮木木说", "time": at})
        out.append({"id": f"a{i}", "text": f"第{i}轮祈煜答", "role": "assistant", "time": at})
    return out


def open_memory(tmp_path: Path, backend: str, extractor: Extractor, **worker: object) -> Memory:
    where = str(tmp_path / "s") if backend == "sqlite" else pg_server.fresh_dsn()
    settings = Config(worker={"enabled": False, "backoff_seconds": 3600.0, **worker})
    return Memory(where, embedder=HashEmbedder(32), extractor=extractor, config=settings)


def shown(memory: Memory) -> tuple[list[str], str]:
    """The ids of working memory, and the prompt a turn would get."""
    working = [m.id for m in memory.working_memory(agent=AGENT, person=PERSON)]
    return working, memory.context(agent=AGENT, person=PERSON).rendered.text


def spans(memory: Memory) -> list[tuple[int, int]]:
    return sorted((job.payload["from_seq"], job.payload["to_seq"]) for job in memory.jobs(agent=AGENT))


@BACKENDS
def test_a_fold_waiting_for_its_retry_stays_in_working_memory_when_the_next_fold_commits(
    tmp_path: Path, backend: str
) -> None:
    with open_memory(tmp_path, backend, Extractor(failures=1)) as memory:
        memory.add(rounds(0, 2), agent=AGENT, person=PERSON)
        (first,) = memory.flush(agent=AGENT, person=PERSON)
        assert first.state is JobState.PENDING  # the LLM failed: retried in an hour
        memory.add(rounds(2, 4), agent=AGENT, person=PERSON)
        later = [job for job in memory.flush(agent=AGENT, person=PERSON) if job.id != first.id]
        assert [job.state for job in later] == [JobState.DONE]
        working, prompt = shown(memory)
        assert working == ["u0", "a0", "u1", "a1"]  # nothing extracted from them yet
        assert "第0轮木木说" in prompt and "第1轮祈煜答" in prompt
        assert "第2轮木木说" not in prompt and "聊了4句" in prompt  # the later fold's turns, as its event only
        # no planner folds the waiting fold's messages again
        memory.add(rounds(4, 5), agent=AGENT, person=PERSON)
        flushed = memory.flush(agent=AGENT, person=PERSON, wait=False)
        assert [(job.id == first.id, job.payload["from_seq"]) for job in flushed] == [(True, 1), (False, 9)]
        assert spans(memory) == [(1, 4), (5, 8), (9, 10)]
        memory.run_jobs()
        assert memory.working_memory(agent=AGENT, person=PERSON)[0].id == "u0"  # its retry is not due yet
        memory.core.worker.clock = lambda: utc_now() + timedelta(hours=2)
        assert memory.run_jobs() == 1
        assert shown(memory)[0] == []
        assert spans(memory) == [(1, 4), (5, 8), (9, 10)]


@BACKENDS
def test_a_fold_failed_for_good_and_outrun_stays_in_working_memory_until_retried(tmp_path: Path, backend: str) -> None:
    with open_memory(tmp_path, backend, Extractor(failures=2), max_attempts=2) as memory:
        memory.add(rounds(0, 2), agent=AGENT, person=PERSON)
        (first,) = memory.flush(agent=AGENT, person=PERSON)
        memory.add(rounds(2, 4), agent=AGENT, person=PERSON)
        memory.flush(agent=AGENT, person=PERSON)
        memory.core.worker.clock = lambda: utc_now() + timedelta(hours=2)
        assert memory.run_jobs() == 1  # its last attempt fails too
        assert [job.state for job in memory.jobs(agent=AGENT)] == [JobState.FAILED, JobState.DONE]
        working, prompt = shown(memory)
        assert working == ["u0", "a0", "u1", "a1"]
        assert "第0轮木木说" in prompt and "第2轮木木说" not in prompt
        memory.retry_job(first.id, agent=AGENT)
        assert memory.run_jobs() == 1
        assert shown(memory)[0] == []


@BACKENDS
def test_a_failed_fold_whose_messages_a_later_fold_extracted_is_not_shown_again(tmp_path: Path, backend: str) -> None:
    with open_memory(tmp_path, backend, Extractor(failures=1), max_attempts=1) as memory:
        memory.add(rounds(0, 2), agent=AGENT, person=PERSON)
        (failed,) = memory.flush(agent=AGENT, person=PERSON)
        memory.add(rounds(2, 3), agent=AGENT, person=PERSON)
        (bigger,) = memory.flush(agent=AGENT, person=PERSON)  # takes the failed fold's messages too
        assert (failed.state, bigger.state) == (JobState.FAILED, JobState.DONE)
        assert shown(memory)[0] == []


@BACKENDS
def test_flush_retries_a_fold_that_failed_for_good_after_the_next_fold_outran_it(tmp_path: Path, backend: str) -> None:
    """A bot calls flush at the end of a conversation: the fold that failed for good while a later fold
    committed is in no tail a planner reads, so flush queues it again itself, and nothing stays verbatim."""
    with open_memory(tmp_path, backend, Extractor(failures=2), max_attempts=2) as memory:
        memory.add(rounds(0, 2), agent=AGENT, person=PERSON)
        (first,) = memory.flush(agent=AGENT, person=PERSON)
        memory.add(rounds(2, 4), agent=AGENT, person=PERSON)
        memory.flush(agent=AGENT, person=PERSON)
        memory.core.worker.clock = lambda: utc_now() + timedelta(hours=2)
        memory.run_jobs()
        assert [job.state for job in memory.jobs(agent=AGENT)] == [JobState.FAILED, JobState.DONE]
        flushed = memory.flush(agent=AGENT, person=PERSON)
        assert [(job.id, job.state) for job in flushed] == [(first.id, JobState.DONE)]
        assert shown(memory)[0] == []
        assert spans(memory) == [(1, 4), (5, 8)]  # retried, not folded a second time
        assert memory.flush(agent=AGENT, person=PERSON) == []


@BACKENDS
def test_flush_retries_a_failed_fold_that_a_fold_still_pending_planned_past(tmp_path: Path, backend: str) -> None:
    """The later fold was planned while the first waited for its retry and has not run yet: the first, failed
    for good meanwhile, is covered by no live fold, so flush queues it again beside the later one."""
    with open_memory(tmp_path, backend, Extractor(failures=2), max_attempts=2) as memory:
        memory.add(rounds(0, 2), agent=AGENT, person=PERSON)
        (first,) = memory.flush(agent=AGENT, person=PERSON)
        memory.add(rounds(2, 4), agent=AGENT, person=PERSON)
        (later,) = [job for job in memory.flush(agent=AGENT, person=PERSON, wait=False) if job.id != first.id]
        memory.core.worker.clock = lambda: utc_now() + timedelta(hours=2)
        ran = asyncio.run(memory.core.worker.run_once())  # the oldest due: its last attempt fails
        assert ran is not None and ran.id == first.id
        states = {job.id: job.state for job in memory.jobs(agent=AGENT)}
        assert states == {first.id: JobState.FAILED, later.id: JobState.PENDING}
        flushed = memory.flush(agent=AGENT, person=PERSON)
        assert sorted((job.id, job.state) for job in flushed) == sorted(
            [(first.id, JobState.DONE), (later.id, JobState.DONE)]
        )
        assert shown(memory)[0] == []
        assert spans(memory) == [(1, 4), (5, 8)]
