"""Jobs after a crash: a dead worker's job is taken again within one short lease, a live worker keeps
its job by renewing the lease, only errors count as attempts, and failed jobs are reported and retried."""

from __future__ import annotations

import asyncio
import itertools
import os
import signal
import subprocess
import sys
import time
from collections.abc import Awaitable, Callable
from datetime import datetime, timedelta
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from typer.testing import CliRunner

from huiyi import Memory
from huiyi.config import Config
from huiyi.errors import NotFound, StillRunning
from huiyi.faces.cli import app
from huiyi.faces.http import create_app
from huiyi.flows.extract import EventDraft, Extraction, Fold
from huiyi.flows.extract.worker import Worker, utc_now
from huiyi.memory import AsyncMemory
from huiyi.model import Job, JobState
from huiyi.providers.embed import HashEmbedder
from huiyi.store.router import RoutedStore
from huiyi.store.sqlite import SQLiteStore

T0 = datetime(2024, 9, 20, 19, 0)
AGENT, PERSON = "祈煜", "木木"
runner = CliRunner()


class Extractor:
    """One event per fold; fails while ``failures`` > 0; each run takes ``seconds``."""

    def __init__(self, failures: int = 0, seconds: float = 0.0) -> None:
        self.failures = failures
        self.seconds = seconds
        self.runs = 0

    async def extract(self, fold: Fold) -> Extraction:
        self.runs += 1
        await asyncio.sleep(self.seconds)
        if self.failures:
            self.failures -= 1
            raise RuntimeError("LLM answered 500")
        return Extraction(events=[EventDraft(text=f"聊了{len(fold.messages)}句", sources=[fold.messages[0].id])])


def chat(rounds: int = 2) -> list[dict[str, object]]:
    out: list[dict[str, object]] = []
    for i in range(rounds):
        out.append({"id": f"u{i}", "text": f"第{i}轮木木说", "time": T0 + timedelta(minutes=i)})
        out.append({"id": f"a{i}", "text": f"第{i}轮祈煜答", "role": "assistant", "time": T0 + timedelta(minutes=i)})
    return out


def config(**worker: object) -> Config:
    return Config(worker={"enabled": False, "backoff_seconds": 0.0, **worker})


def open_memory(path: Path, extractor: Extractor, settings: Config | None = None) -> Memory:
    return Memory(path, embedder=HashEmbedder(32), extractor=extractor, config=settings or config())


# a worker process whose extraction never ends: it says so, then waits to be killed
HANGING_WORKER = """
import asyncio, sys
import pytest
from fastapi.testclient import TestClient
from typer.testing import CliRunner

from huiyi import Memory
from huiyi.config import Config
from huiyi.faces.cli import app
from huiyi.faces.http import create_app
from huiyi.memory import AsyncMemory
from huiyi.errors import NotFound, StillRunning
from huiyi.providers.embed import HashEmbedder

class Hang:
    async def extract(self, fold):
        print("extracting", flush=True)
        await asyncio.sleep(3600)

settings = Config(worker={"enabled": False, "lease_seconds": float(sys.argv[2])})
with Memory(sys.argv[1], embedder=HashEmbedder(32), extractor=Hang(), config=settings) as memory:
    memory.run_jobs()
"""


def test_a_killed_workers_job_is_finished_by_another_process_within_a_lease(tmp_path: Path) -> None:
    lease = 1.5
    with open_memory(tmp_path, Extractor(), config(lease_seconds=lease)) as memory:
        memory.add(chat(), agent=AGENT, person=PERSON)
        memory.flush(agent=AGENT, person=PERSON, wait=False)
        doomed = subprocess.Popen(
            [sys.executable, "-c", HANGING_WORKER, str(tmp_path), str(lease)], stdout=subprocess.PIPE, text=True
        )
        try:
            assert doomed.stdout is not None and doomed.stdout.readline().strip() == "extracting"
            time.sleep(lease)  # the doomed worker's heartbeat has renewed its lease at least once
            assert memory.run_jobs() == 0  # leased to a live worker: not taken
            os.kill(doomed.pid, signal.SIGKILL)
            killed = time.monotonic()
        finally:
            doomed.kill()
            doomed.wait(10)
        while not memory.run_jobs() and time.monotonic() - killed < 30:
            time.sleep(0.05)
        taken_after = time.monotonic() - killed
        (job,) = memory.jobs(agent=AGENT)
        assert job.state is JobState.DONE
        assert (job.attempts, job.claims) == (0, 2)  # the killed run cost no attempt
        assert taken_after < lease + 2.0, taken_after
        print(f"killed worker's job finished by another process {taken_after:.2f} s after the kill")


def test_flush_takes_the_fold_of_a_process_killed_here_at_once(tmp_path: Path) -> None:
    """A bot killed -9 mid-fold and restarted: its flush runs the fold now, not after the dead lease (300 s)."""
    with open_memory(tmp_path, Extractor(), config(lease_seconds=300.0)) as memory:
        memory.add(chat(), agent=AGENT, person=PERSON)
        memory.flush(agent=AGENT, person=PERSON, wait=False)
        doomed = subprocess.Popen(
            [sys.executable, "-c", HANGING_WORKER, str(tmp_path), "300"], stdout=subprocess.PIPE, text=True
        )
        try:
            assert doomed.stdout is not None and doomed.stdout.readline().strip() == "extracting"
            os.kill(doomed.pid, signal.SIGKILL)
        finally:
            doomed.kill()
            doomed.wait(10)
        (flushed,) = memory.flush(agent=AGENT, person=PERSON)
        (job,) = memory.jobs(agent=AGENT)
        assert flushed.state is job.state is JobState.DONE and (job.attempts, job.claims) == (0, 2)
        assert len(memory.overview(agent=AGENT, person=PERSON)) == 1


def test_a_live_worker_keeps_a_job_longer_than_its_lease(tmp_path: Path) -> None:
    extractor = Extractor(seconds=2.0)
    with open_memory(tmp_path, extractor, config(lease_seconds=0.6)) as memory:
        memory.add(chat(), agent=AGENT, person=PERSON)
        memory.flush(agent=AGENT, person=PERSON, wait=False)
        core = memory.core

        async def race() -> int:
            other = Worker(core.store, core.embedder, core.worker.extractor, core.config, name="other")
            running = asyncio.create_task(core.worker.run_once())
            while not core.store.list_jobs(AGENT, [JobState.RUNNING]):
                await asyncio.sleep(0.01)
            stolen = 0
            while not running.done():
                stolen += await other.run_once() is not None
                await asyncio.sleep(0.1)
            return stolen

        assert asyncio.run(race()) == 0
        (job,) = memory.jobs(agent=AGENT)
        assert (job.state, job.claims, extractor.runs) == (JobState.DONE, 1, 1)


def test_a_job_that_kills_every_worker_fails_for_good(tmp_path: Path) -> None:
    with open_memory(tmp_path, Extractor(), config(max_abandoned=2, lease_seconds=60)) as memory:
        memory.add(chat(), agent=AGENT, person=PERSON)
        memory.flush(agent=AGENT, person=PERSON, wait=False)
        store = memory.store
        for minute in range(3):  # three workers die holding it
            assert store.claim_job(f"doomed{minute}", datetime.now() + timedelta(minutes=2 * minute), 60)
        assert memory.core.worker.clock() < datetime.now() + timedelta(minutes=5)
        memory.core.worker.clock = lambda: datetime.now() + timedelta(minutes=10)
        assert memory.run_jobs() == 1
        (job,) = memory.jobs(agent=AGENT)
        assert job.state is JobState.FAILED and job.last_error.startswith("Abandoned: 3 runs")


def test_flush_reports_a_job_that_failed_and_flushing_again_retries_it(tmp_path: Path) -> None:
    extractor = Extractor(failures=99)
    with open_memory(tmp_path, extractor, config(max_attempts=2)) as memory:
        memory.add(chat(), agent=AGENT, person=PERSON)
        (job,) = memory.flush(agent=AGENT, person=PERSON)
        assert (job.state, job.attempts) == (JobState.FAILED, 2)
        assert "LLM answered 500" in job.last_error
        extractor.failures = 0  # the LLM is back: the same fold, planned again, runs again
        (again,) = memory.flush(agent=AGENT, person=PERSON)
        assert (again.id, again.state) == (job.id, JobState.DONE)
        assert len(memory.overview(agent=AGENT, person=PERSON)) == 1
        assert memory.flush(agent=AGENT, person=PERSON) == []


def test_flush_reports_a_job_another_worker_holds(tmp_path: Path) -> None:
    with open_memory(tmp_path, Extractor()) as memory:
        memory.add(chat(), agent=AGENT, person=PERSON)
        memory.flush(agent=AGENT, person=PERSON, wait=False)
        assert memory.store.claim_job("elsewhere", datetime.now(), 60)
        (job,) = memory.flush(agent=AGENT, person=PERSON)
        assert (job.state, job.worker) == (JobState.RUNNING, "elsewhere")


def test_flush_waits_for_the_fold_this_process_s_own_worker_took(tmp_path: Path) -> None:
    # the background worker claims the fold before flush's drain can: flush(wait=True) still waits for it
    with open_memory(tmp_path, Extractor(seconds=0.3), config(enabled=True)) as memory:
        memory.add(chat(), agent=AGENT, person=PERSON)
        memory.flush(agent=AGENT, person=PERSON, wait=False)
        deadline = time.monotonic() + 10
        while not [j for j in memory.jobs(agent=AGENT) if j.state is JobState.RUNNING]:
            assert time.monotonic() < deadline, "the background worker never took the fold"
            time.sleep(0.01)
        (job,) = memory.flush(agent=AGENT, person=PERSON)
        assert job.state is JobState.DONE
        assert len(memory.overview(agent=AGENT, person=PERSON)) == 1


def test_a_failed_job_is_retried_by_id(tmp_path: Path) -> None:
    extractor = Extractor(failures=1)
    with open_memory(tmp_path, extractor, config(max_attempts=1)) as memory:
        memory.add(chat(), agent=AGENT, person=PERSON)
        (job,) = memory.flush(agent=AGENT, person=PERSON)
        assert job.state is JobState.FAILED
        with pytest.raises(NotFound):
            memory.retry_job(job.id, agent="someone-else")
        retried = memory.retry_job(job.id, agent=AGENT)
        assert (retried.state, retried.attempts) == (JobState.PENDING, 0)
        with pytest.raises(NotFound):
            memory.retry_job(job.id)  # pending now, not failed
        assert memory.run_jobs() == 1
        assert [j.state for j in memory.jobs(agent=AGENT)] == [JobState.DONE]


def test_a_retried_job_whose_messages_were_folded_since_writes_nothing(tmp_path: Path) -> None:
    extractor = Extractor(failures=1)
    with open_memory(tmp_path, extractor, config(max_attempts=1)) as memory:
        memory.add(chat(), agent=AGENT, person=PERSON)
        (failed,) = memory.flush(agent=AGENT, person=PERSON)
        memory.add(chat(3)[4:], agent=AGENT, person=PERSON)
        (bigger,) = memory.flush(agent=AGENT, person=PERSON)  # a new fold takes the failed one's messages too
        assert bigger.state is JobState.DONE and bigger.id != failed.id
        assert memory.retry_failed(agent=AGENT)[0].id == failed.id
        memory.run_jobs()
        assert extractor.runs == 2  # the retried job found its messages folded and did not extract them again
        assert [j.state for j in memory.jobs(agent=AGENT)] == [JobState.DONE, JobState.DONE]
        assert len(memory.overview(agent=AGENT, person=PERSON)) == 1


def test_a_job_retried_after_the_next_fold_of_its_space_committed_still_extracts_its_messages(
    tmp_path: Path,
) -> None:
    extractor = Extractor(failures=1)
    with open_memory(tmp_path, extractor, config(backoff_seconds=3600.0)) as memory:
        memory.add(chat(), agent=AGENT, person=PERSON)
        (first,) = memory.flush(agent=AGENT, person=PERSON)
        assert first.state is JobState.PENDING  # the LLM failed: retried in an hour, its messages still to extract
        memory.add(chat(4)[4:], agent=AGENT, person=PERSON)  # the chat goes on meanwhile
        (later,) = [job for job in memory.flush(agent=AGENT, person=PERSON) if job.id != first.id]
        assert later.state is JobState.DONE and later.payload["from_seq"] > first.payload["to_seq"]
        memory.core.worker.clock = lambda: utc_now() + timedelta(hours=2)  # the retry is due
        assert memory.run_jobs() == 1
        assert extractor.runs == 3  # the later fold held none of the first one's messages: they are extracted
        sources = {s for event in memory.memories(agent=AGENT, person=PERSON, kinds=["event"]) for s in event.sources}
        assert first.payload["message_ids"][0] in sources


def test_huiyi_jobs_lists_and_retries_failed_jobs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HUIYI_EMBED__PROVIDER", "hash")
    monkeypatch.setenv("HUIYI_WORKER__MAX_ATTEMPTS", "1")
    monkeypatch.setenv("COLUMNS", "200")
    with Memory(tmp_path, config=Config.load(worker={"enabled": False}), extractor=Extractor(failures=1)) as memory:
        memory.add(chat(), agent=AGENT, person=PERSON)
        (job,) = memory.flush(agent=AGENT, person=PERSON)
    assert job.state is JobState.FAILED

    listed = runner.invoke(app, ["jobs", "list", "--state", "failed", "--store", str(tmp_path)])
    assert listed.exit_code == 0, listed.output
    assert job.id in listed.output and "LLM answered 500" in listed.output and "1 jobs" in listed.output
    assert "0 jobs" in runner.invoke(app, ["jobs", "list", "--state", "done", "-s", str(tmp_path)]).output

    unknown = runner.invoke(app, ["jobs", "retry", "job_nope", "-s", str(tmp_path)])
    assert unknown.exit_code != 0 and isinstance(unknown.exception, NotFound)
    retried = runner.invoke(app, ["jobs", "retry", job.id, "--run", "-s", str(tmp_path)])
    assert retried.exit_code == 0, retried.output
    assert "queued again" in retried.output and "1 of 1 done" in retried.output  # the rule extractor ran it
    with Memory(tmp_path, config=Config.load()) as memory:
        assert [j.state for j in memory.jobs(agent=AGENT)] == [JobState.DONE]
    assert "no failed jobs" in runner.invoke(app, ["jobs", "retry", "--all-failed", "-s", str(tmp_path)]).output


def test_http_lists_and_retries_failed_jobs_of_the_keys_agents(tmp_path: Path) -> None:
    settings = config(max_attempts=1)
    with open_memory(tmp_path, Extractor(failures=1), settings) as memory:
        memory.add(chat(), agent=AGENT, person=PERSON)
        memory.add(chat(), agent="别人", person=PERSON)
        (job,) = memory.flush(agent=AGENT, person=PERSON)
        (other,) = memory.flush(agent="别人", person=PERSON)
    assert (job.state, other.state) == (JobState.FAILED, JobState.DONE)
    core = AsyncMemory(tmp_path, embedder=HashEmbedder(32), extractor=Extractor(), config=settings)
    keys = {"key-qy": [AGENT], "key-other": ["别人"]}
    qy, stranger = {"Authorization": "Bearer key-qy"}, {"Authorization": "Bearer key-other"}
    with TestClient(create_app(core, api_keys=keys, close_on_shutdown=True)) as client:
        listed = client.get("/v1/jobs", params={"agent": AGENT, "state": "failed"}, headers=qy)
        assert listed.status_code == 200, listed.text
        assert [(j["id"], j["attempts"]) for j in listed.json()] == [(job.id, 1)]
        assert "LLM answered 500" in listed.json()[0]["last_error"]
        assert client.get("/v1/jobs", params={"agent": AGENT}, headers=stranger).status_code == 403
        assert client.get("/v1/jobs", params={"agent": AGENT}).status_code == 401
        # a key sees only its agents' jobs: another agent's job id is not found through it
        hidden = client.post(f"/v1/jobs/{job.id}/retry", params={"agent": "别人"}, headers=stranger)
        assert hidden.status_code == 404 and hidden.json()["error"]["code"] == "not_found"
        retried = client.post(f"/v1/jobs/{job.id}/retry", params={"agent": AGENT}, headers=qy)
        assert retried.status_code == 200, retried.text
        assert (retried.json()["state"], retried.json()["attempts"]) == ("pending", 0)
        assert client.post(f"/v1/jobs/{job.id}/retry", params={"agent": AGENT}, headers=qy).status_code == 404
        bad = client.get("/v1/jobs", params={"agent": AGENT, "state": "stuck"}, headers=qy)
        assert bad.status_code == 422


def test_a_routed_store_renews_and_retries_a_job_in_the_store_that_holds_it(tmp_path: Path) -> None:
    routed = RoutedStore({"one": SQLiteStore(tmp_path / "one"), "two": SQLiteStore(tmp_path / "two")})
    try:
        agents = {routed.name_for(f"agent{i}"): f"agent{i}" for i in range(20)}
        for name, agent in agents.items():
            routed.stores[name].enqueue_job(Job(kind="fold", agent=agent, key=f"k-{agent}"))
        for _ in agents:
            job = routed.claim_job("w", T0, 60)
            assert job is not None
            assert routed.renew_lease(job.id, "w", T0 + timedelta(seconds=90))
            routed.fail_job(job.id, "w", "broken", None)
        fresh = RoutedStore(routed.stores)  # another process: it never saw these jobs
        for agent in agents.values():
            (failed,) = fresh.list_jobs(agent, [JobState.FAILED])
            assert fresh.retry_job(failed.id, agent="nobody") is None
            retried = fresh.retry_job(failed.id)
            assert retried is not None and retried.agent == agent and retried.state is JobState.PENDING
    finally:
        routed.close()


class GatedExtractor(Extractor):
    """Extracts once ``gate`` opens; ``started`` tells that a worker holds the fold."""

    def __init__(self) -> None:
        super().__init__()
        self.started = asyncio.Event()
        self.gate = asyncio.Event()

    async def extract(self, fold: Fold) -> Extraction:
        self.started.set()
        await self.gate.wait()
        return await super().extract(fold)


def test_run_jobs_waits_for_the_job_the_background_worker_took(tmp_path: Path) -> None:
    # seed 000 §4a: right after run_jobs() the folded turns have left working memory, even when the
    # background worker took the fold first
    async def scenario(memory: AsyncMemory, extractor: GatedExtractor) -> None:
        drained = asyncio.Event()
        drain = memory.worker.drain

        async def watched_drain() -> int:
            ran = await drain()
            drained.set()
            return ran

        memory.worker.drain = watched_drain  # type: ignore[method-assign]
        running = asyncio.create_task(memory.run_jobs())
        await drained.wait()
        for _ in range(10):
            await asyncio.sleep(0)
        assert not running.done(), "run_jobs returned while the background worker still ran its job"
        extractor.gate.set()
        assert await running == 0  # the background worker ran it, not this call
        assert await memory.working_memory(agent=AGENT, person=PERSON) == []
        assert [job.state for job in await memory.jobs(agent=AGENT)] == [JobState.DONE]

    asyncio.run(with_a_fold_taken(tmp_path, config(enabled=True), scenario))


def test_run_jobs_gives_up_on_a_job_still_running_after_the_wait_in_words(tmp_path: Path) -> None:
    async def scenario(memory: AsyncMemory, extractor: GatedExtractor) -> None:
        with pytest.raises(StillRunning, match="still running"):
            await memory.run_jobs()
        (job,) = await memory.flush(agent=AGENT, person=PERSON)  # flush reports the job as it stands instead
        assert job.state is JobState.RUNNING
        extractor.gate.set()
        await memory.run_jobs()
        assert [job.state for job in await memory.jobs(agent=AGENT)] == [JobState.DONE]

    asyncio.run(with_a_fold_taken(tmp_path, config(enabled=True, wait_seconds=0.2), scenario))


async def with_a_fold_taken(
    path: Path, settings: Config, scenario: Callable[[AsyncMemory, GatedExtractor], Awaitable[None]]
) -> None:
    """Run ``scenario`` while the background worker holds a fold whose extraction waits for its gate."""
    extractor = GatedExtractor()
    async with AsyncMemory(path, embedder=HashEmbedder(32), extractor=extractor, config=settings) as memory:
        try:
            await memory.add(chat(), agent=AGENT, person=PERSON)
            await memory.flush(agent=AGENT, person=PERSON, wait=False)
            await extractor.started.wait()
            await scenario(memory, extractor)
        finally:
            extractor.gate.set()  # closing waits for the background worker's job


@pytest.mark.parametrize("index", ["sync", "background"])
@pytest.mark.parametrize("after_open", [False, True])
def test_an_instance_that_adds_takes_a_dead_process_s_job_once_its_lease_ends(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, after_open: bool, index: str
) -> None:
    """The worker started only once this instance planned a fold of its own: one that went on adding below a fold
    left a fold whose process was killed mid-extraction unextracted for good, past its lease (helper)."""
    monkeypatch.setattr("huiyi.memory.indexing.LEFTOVERS_EVERY", 0.0)  # each add's drain looks (60 s in use)

    def killed_mid_fold() -> str:  # a process planned a fold, took it, and died: its lease runs out
        with open_memory(tmp_path / "s", Extractor()) as dead:
            dead.add(chat(), agent=AGENT, person=PERSON)
            (job,) = dead.flush(agent=AGENT, person=PERSON, wait=False)
            assert dead.store.claim_job("killed", utc_now(), 0.01) is not None and job.state is JobState.PENDING
            return job.id

    folded = "" if after_open else killed_mid_fold()
    extractor = Extractor()
    settings = Config(worker={"backoff_seconds": 0.0, "poll_seconds": 0.05}, ingest={"index": index})
    with open_memory(tmp_path / "s", extractor, settings) as live:
        if after_open:
            live.add("早上好", agent=AGENT, person="阿哲")
            live.indexed()
            folded = killed_mid_fold()
        deadline = time.monotonic() + 20
        for n in itertools.count():  # one line a chat: no fold of its own to plan
            live.add("在吗", agent=AGENT, person=f"p{n}")
            live.indexed()
            if extractor.runs or time.monotonic() > deadline:
                break
            time.sleep(0.1)
        assert extractor.runs == 1  # the background worker took it (run_jobs would have, too)
        live.run_jobs()
        assert {job.id: job.state for job in live.jobs(agent=AGENT)}[folded] is JobState.DONE


def test_a_closing_instance_starts_no_worker_for_the_jobs_left(tmp_path: Path) -> None:
    """The close's last drain looked for leftovers too, and started the worker (and its maintenance) for the jobs
    the open had found, only to stop it (helper)."""
    with open_memory(tmp_path / "s", Extractor()) as first:
        first.add(chat(), agent=AGENT, person=PERSON)
        first.flush(agent=AGENT, person=PERSON, wait=False)  # a job left queued

    async def add_then_close() -> list[bool]:
        settings = Config(worker={"backoff_seconds": 0.0, "poll_seconds": 0.05}, ingest={"index": "background"})
        memory = AsyncMemory(tmp_path / "s", embedder=HashEmbedder(32), extractor=Extractor(), config=settings)
        started: list[bool] = []  # whether the instance was closing, at each start of its worker
        wake = memory._wake_worker

        def watched() -> None:
            before = memory._worker_task
            wake()
            if memory._worker_task is not before:
                started.append(memory._closing.is_set())

        memory._wake_worker = watched  # type: ignore[method-assign]
        await asyncio.wrap_future(memory._leftovers)  # the open's look: it finds the job, and wakes the worker
        await memory.add("在吗", agent=AGENT, person="p1")  # indexed behind: its drain runs in the close
        await memory.close()
        return started

    assert asyncio.run(add_then_close()) == [False]  # started by the open's look, never by the close
