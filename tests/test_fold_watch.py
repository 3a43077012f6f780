"""Adds that cannot make a fold due plan nothing behind them; those that may still fold; extraction
waits for a burst of adds to pause (issue 15).

Planning read the space's tail and jobs behind every add, on a thread that held the GIL through the
next add's statements. The watch counts a space's open rounds from the last plan and plans only when a
fold may be due, or when it cannot tell (another writer's messages, an unknown space).
"""

from __future__ import annotations

import asyncio
import time
from datetime import datetime, timedelta
from pathlib import Path

import pytest

import pg_server
from huiyi import Memory
from huiyi.config import Config
from huiyi.flows.extract import Extraction, Fold, fold
from huiyi.memory import AsyncMemory
from huiyi.memory.indexing import ADDS_PAUSE, ADDS_PAUSE_MAX
from huiyi.providers.embed import HashEmbedder

T0 = datetime(2024, 9, 20, 19, 0)
QUIET = Config(worker={"enabled": False}, ingest={"index": "background"})
AGENT, PERSON = "祈煜", "木木"


def turns(count: int, start: datetime = T0, prefix: str = "") -> list[dict[str, object]]:
    """``count`` rounds: a user line and the agent's answer, two minutes apart."""
    out: list[dict[str, object]] = []
    for i in range(count):
        at = start + timedelta(minutes=2 * i)
        out.append({"id": f"{prefix}u{i}", "text": f"第{i}轮木木说", "time": at})
        out.append({"id": f"{prefix}a{i}", "text": f"第{i}轮祈煜答", "role": "assistant", "time": at})
    return out


def where(tmp_path: Path, backend: str) -> str:
    return str(tmp_path / "s") if backend == "sqlite" else pg_server.fresh_dsn()


BACKENDS = pytest.mark.parametrize("backend", ["sqlite", "postgres"])


def spans(memory: Memory) -> list[tuple[int, int]]:
    return sorted((job.payload["from_seq"], job.payload["to_seq"]) for job in memory.jobs(agent=AGENT))


def counting_plans(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    calls: list[str] = []
    plan = fold.plan_folds

    def counted(*args: object, **kwargs: object) -> list[object]:
        calls.append(str(args[2]))
        return plan(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(fold, "plan_folds", counted)
    return calls


@BACKENDS
def test_one_message_adds_plan_only_when_a_fold_may_be_due(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, backend: str
) -> None:
    calls = counting_plans(monkeypatch)
    with Memory(where(tmp_path, backend), embedder=HashEmbedder(32), config=QUIET) as memory:
        for line in turns(45):
            memory.add(line, agent=AGENT, person=PERSON)
        # the folds of the whole history, as if it had been planned after every add
        assert spans(memory) == [(1, 20), (21, 40), (41, 60)]
        # the first add (the space's window unknown) and the three adds that made a fold: 4, not 90 (a plan
        # late behind a burst covers more adds; an add that comes while it reads may plan once more)
        assert len(calls) < 20


@BACKENDS
def test_another_writer_between_adds_is_noticed(tmp_path: Path, backend: str) -> None:
    history = turns(20)
    path = where(tmp_path, backend)
    with (
        Memory(path, embedder=HashEmbedder(32), config=QUIET) as first,
        Memory(path, embedder=HashEmbedder(32), config=QUIET) as second,
    ):
        for line in history[:24]:  # 12 rounds known to the first writer's watch
            first.add(line, agent=AGENT, person=PERSON)
        second.add(history[24:36], agent=AGENT, person=PERSON)  # 6 more it never saw
        assert spans(first) == []
        for line in history[36:]:  # rounds 19 and 20: the 20th makes the fold
            first.add(line, agent=AGENT, person=PERSON)
        assert spans(first) == [(1, 20)]


def test_a_round_after_a_long_silence_folds_what_came_before(tmp_path: Path) -> None:
    with Memory(tmp_path, embedder=HashEmbedder(32), config=QUIET) as memory:
        for line in [*turns(3), *turns(1, start=T0 + timedelta(hours=6), prefix="next")]:
            memory.add(line, agent=AGENT, person=PERSON)
        assert spans(memory) == [(1, 6)]


def test_forgetting_the_newest_message_does_not_delay_a_fold(tmp_path: Path) -> None:
    """Its seq is given to the next message: the watch must not take that one for counted already."""
    history = turns(20)
    with Memory(tmp_path, embedder=HashEmbedder(32), config=QUIET) as memory:
        for line in history[:30]:
            memory.add(line, agent=AGENT, person=PERSON)
        memory.jobs(agent=AGENT)  # the plans behind the adds are done
        memory.forget_messages(["a14"], agent=AGENT)
        for line in history[30:]:  # rounds 16 to 20: the 20th makes the fold
            memory.add(line, agent=AGENT, person=PERSON)
        assert spans(memory) == [(1, 20)]


def test_after_a_flush_the_next_adds_fold_again(tmp_path: Path) -> None:
    with Memory(tmp_path, embedder=HashEmbedder(32), config=QUIET) as memory:
        for line in turns(5):
            memory.add(line, agent=AGENT, person=PERSON)
        memory.flush(agent=AGENT, person=PERSON)
        for line in turns(20, start=T0 + timedelta(minutes=11), prefix="more"):
            memory.add(line, agent=AGENT, person=PERSON)
        assert spans(memory) == [(1, 10), (11, 30)]


class TimedExtractor:
    """Records how long after the latest add each extraction began."""

    def __init__(self, memory: list[Memory]) -> None:
        self.memory = memory
        self.after_add: list[float] = []

    async def extract(self, fold: Fold) -> Extraction:
        self.after_add.append(time.monotonic() - self.memory[0].core._last_add)
        return Extraction()


def test_the_background_worker_waits_for_a_burst_of_adds_to_pause(tmp_path: Path) -> None:
    """Extraction is Python that would hold the GIL through the adds' statements: it starts after them."""
    holder: list[Memory] = []
    extractor = TimedExtractor(holder)
    config = Config(worker={"enabled": True, "maintenance_minutes": 0}, ingest={"index": "background"})
    with Memory(tmp_path, embedder=HashEmbedder(32), extractor=extractor, config=config) as memory:
        holder.append(memory)
        for line in turns(25):  # the fold is due at the 20th round, five rounds before the burst ends
            memory.add(line, agent=AGENT, person=PERSON)
        deadline = time.monotonic() + 30
        while not extractor.after_add and time.monotonic() < deadline:
            time.sleep(0.02)
        assert extractor.after_add and extractor.after_add[0] >= ADDS_PAUSE


def test_a_pause_that_never_comes_holds_the_worker_back_only_so_long(tmp_path: Path) -> None:
    async def scenario() -> float:
        memory = AsyncMemory(tmp_path, embedder=HashEmbedder(32), config=QUIET)
        stop = asyncio.Event()

        async def adding() -> None:  # an add every 10 ms, without end
            while not stop.is_set():
                memory._last_add = time.monotonic()
                await asyncio.sleep(0.01)

        task = asyncio.create_task(adding())
        began = time.monotonic()
        await asyncio.wait_for(memory._adds_paused(), timeout=30)
        waited = time.monotonic() - began
        stop.set()
        await task
        await memory.close()
        return waited

    assert asyncio.run(scenario()) >= ADDS_PAUSE_MAX


def test_a_worker_stopped_while_it_waits_for_the_pause_starts_no_job(tmp_path: Path) -> None:
    async def scenario() -> list[str]:
        memory = AsyncMemory(tmp_path, embedder=HashEmbedder(32), config=QUIET)
        stop = asyncio.Event()
        ran: list[str] = []

        async def stopped_meanwhile() -> None:
            stop.set()  # as close does while the worker waits for adds to pause

        async def run_once() -> None:
            ran.append("job")

        memory.worker.before_job = stopped_meanwhile
        memory.worker.run_once = run_once  # type: ignore[method-assign]
        await asyncio.wait_for(memory.worker.run(stop), timeout=30)
        await memory.close()
        return ran

    assert asyncio.run(scenario()) == []
