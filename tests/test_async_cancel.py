"""An asyncio bot gives up on calls (``wait_for``, a cancelled task) and runs its memory on more than one loop.

A call given up on leaves nothing half done: an add's messages are stored and handed on (indexed, their
folds planned) or not stored at all; a flush's fold is given back for the next flush to run at once; and
``close`` works on a loop other than the one the background worker ran on.
"""

from __future__ import annotations

import asyncio
import sqlite3
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from huiyi import AsyncMemory
from huiyi.config import Config
from huiyi.errors import InvalidInput, StoreError
from huiyi.flows.extract import Extraction, Fold
from huiyi.flows.extract.fold import FOLD
from huiyi.flows.extract.rules import RuleExtractor
from huiyi.model import MemoryKind, Scope
from huiyi.providers.embed import HashEmbedder

AGENT, PERSON = "qy", "mumu"
CONFIG = Config(worker={"enabled": False}, ingest={"index": "background"})


def chunks_of(memory: AsyncMemory) -> list[str]:
    found = memory.store.list_memories([Scope.of_person(AGENT, PERSON)], [MemoryKind.CHUNK], limit=100)
    return sorted(chunk.sources[0] for chunk in found)


async def cancelled_while_appending(memory: AsyncMemory, add: Callable[[], Any]) -> None:
    """Run ``add`` and cancel it while its messages are being appended on their thread."""
    append, entered, gate = memory.store.append_messages, threading.Event(), threading.Event()

    def held(*args: Any, **kwargs: Any) -> Any:
        entered.set()
        gate.wait(30)
        return append(*args, **kwargs)

    memory.store.append_messages = held  # type: ignore[method-assign]
    adding = asyncio.create_task(add())
    await asyncio.to_thread(entered.wait, 30)
    adding.cancel()
    with pytest.raises(asyncio.CancelledError):
        await adding
    gate.set()  # the append goes on after its caller gave up


def test_an_add_cancelled_while_its_messages_are_stored_still_indexes_them(tmp_path: Path) -> None:
    """The append ran on; its messages were stored, claimed by the instance and never queued: nothing
    indexed them (``indexed()`` and the next open in the process left them to the claim's 5 minutes)."""

    async def run() -> list[str]:
        memory = AsyncMemory(tmp_path / "s", config=CONFIG, embedder=HashEmbedder(32))
        await cancelled_while_appending(
            memory, lambda: memory.add({"id": "m1", "text": "我家的猫叫团子"}, agent=AGENT, person=PERSON)
        )
        await memory.close()  # waits for the append under way and indexes what it stored
        async with AsyncMemory(tmp_path / "s", config=CONFIG, embedder=HashEmbedder(32)) as reopened:
            again = await reopened.add({"id": "m1", "text": "我家的猫叫团子"}, agent=AGENT, person=PERSON)
            assert again == []  # stored once: the caller tells by sending it again
            await reopened.indexed()
            return chunks_of(reopened)

    assert asyncio.run(run()) == ["m1"]


def test_an_indexing_add_cancelled_while_its_messages_are_stored_settles_them(tmp_path: Path) -> None:
    """``add(index=True, extract=False)`` given up on during its append: its history stayed in working
    memory, to be folded and extracted again, and claimed, so no ``indexed()`` of the process indexed it."""

    async def run() -> tuple[list[str], list[str]]:
        memory = AsyncMemory(tmp_path / "s", config=CONFIG, embedder=HashEmbedder(32))
        said = {"id": "h1", "text": "去年我养了一只猫"}
        await cancelled_while_appending(
            memory, lambda: memory.add(said, agent=AGENT, person=PERSON, index=True, extract=False)
        )
        await memory.close()
        async with AsyncMemory(tmp_path / "s", config=CONFIG, embedder=HashEmbedder(32)) as reopened:
            await reopened.indexed()
            working = await reopened.working_memory(agent=AGENT, person=PERSON)
            return [m.id for m in working], chunks_of(reopened)

    working, chunks = asyncio.run(run())
    assert working == []
    assert chunks == ["h1"]


def test_adds_under_way_as_the_memory_closes_are_indexed_before_it_closes(tmp_path: Path) -> None:
    """``async with`` left while add tasks ran: their appends ended as the pools wound down, after the
    close had drained the queue, so 200 adds acknowledged were left claimed and never indexed."""

    async def run() -> tuple[list[str], list[str]]:
        memory = AsyncMemory(tmp_path / "s", config=CONFIG, embedder=HashEmbedder(32))
        append, entered, gate = memory.store.append_messages, threading.Event(), threading.Event()

        def held(*args: Any, **kwargs: Any) -> Any:
            entered.set()
            gate.wait(30)
            return append(*args, **kwargs)

        memory.store.append_messages = held  # type: ignore[method-assign]
        shutdown = memory._writes.shutdown

        def opened(*args: Any, **kwargs: Any) -> None:  # the appends end while close waits for them
            gate.set()
            shutdown(*args, **kwargs)

        memory._writes.shutdown = opened  # type: ignore[method-assign]
        adds = [
            asyncio.create_task(memory.add({"id": f"m{i}", "text": f"第{i}句"}, agent=AGENT, person=PERSON))
            for i in range(6)
        ]
        await asyncio.to_thread(entered.wait, 30)
        await memory.close()
        acked = sorted(m.id for stored in await asyncio.gather(*adds) for m in stored)
        async with AsyncMemory(tmp_path / "s", config=CONFIG, embedder=HashEmbedder(32)) as reopened:
            await reopened.indexed()
            return acked, chunks_of(reopened)

    acked, chunks = asyncio.run(run())
    assert acked == [f"m{i}" for i in range(6)]
    assert chunks == acked


class HangsOnce(RuleExtractor):
    """The first fold's extraction never answers (an LLM gone quiet); the rules take the later ones."""

    def __init__(self) -> None:
        super().__init__()
        self.entered = asyncio.Event()

    async def extract(self, fold: Fold) -> Extraction:
        if not self.entered.is_set():
            self.entered.set()
            await asyncio.Event().wait()
        return await super().extract(fold)


def test_a_cancelled_flush_gives_its_fold_back_at_once(tmp_path: Path) -> None:
    """The fold kept its lease: the space's next flush waited it out (30 s) on a run nobody was making."""

    async def run() -> None:
        extractor = HangsOnce()
        async with AsyncMemory(tmp_path / "s", config=CONFIG, embedder=HashEmbedder(32), extractor=extractor) as memory:
            await memory.add(["我住在杭州", "我喜欢喝龙井"], agent=AGENT, person=PERSON)
            flushing = asyncio.create_task(memory.flush(agent=AGENT, person=PERSON))
            await extractor.entered.wait()
            flushing.cancel()
            with pytest.raises(asyncio.CancelledError):
                await flushing
            worker = memory.worker
            again = await asyncio.to_thread(memory.store.claim_job, "another", worker.clock(), 30, [FOLD])
            assert again is not None and again.state.value == "running"  # claimable now, not after the lease

    asyncio.run(run())


class HangsTimes(RuleExtractor):
    """The first ``times`` extractions never answer (an LLM gone quiet); the rules take the later ones."""

    def __init__(self, times: int) -> None:
        super().__init__()
        self.left = times
        self.entered = asyncio.Event()

    async def extract(self, fold: Fold) -> Extraction:
        if self.left > 0:
            self.left -= 1
            self.entered.set()
            await asyncio.Event().wait()
        return await super().extract(fold)


def test_flushes_given_up_on_are_no_abandoned_runs(tmp_path: Path) -> None:
    """Each cancelled flush's run counted as one that ended with its worker gone, so after five (a bot's
    ``wait_for`` against a slow LLM) the fold failed as "Abandoned" and its lines were not extracted."""

    async def run() -> list[str]:
        extractor = HangsTimes(CONFIG.worker.max_abandoned + 2)
        async with AsyncMemory(tmp_path / "s", config=CONFIG, embedder=HashEmbedder(32), extractor=extractor) as memory:
            await memory.add(["我住在杭州", "我喜欢喝龙井"], agent=AGENT, person=PERSON)
            while extractor.left:
                extractor.entered.clear()
                flushing = asyncio.create_task(memory.flush(agent=AGENT, person=PERSON))
                await asyncio.wait(
                    {flushing, asyncio.ensure_future(extractor.entered.wait())}, return_when="FIRST_COMPLETED"
                )
                assert not flushing.done(), flushing.result()  # it ran: failed as abandoned, it would not
                flushing.cancel()
                with pytest.raises(asyncio.CancelledError):
                    await flushing
            jobs = await memory.flush(agent=AGENT, person=PERSON)
            assert [job.state.value for job in jobs] == ["done"], [job.last_error for job in jobs]
            facts = await memory.memories(agent=AGENT, person=PERSON, kinds=[MemoryKind.FACT])
            return [fact.text for fact in facts]

    assert any("杭州" in text for text in asyncio.run(run()))


class Hangs(RuleExtractor):
    """An LLM that never answers."""

    def __init__(self) -> None:
        super().__init__()
        self.entered = asyncio.Event()

    async def extract(self, fold: Fold) -> Extraction:
        self.entered.set()
        await asyncio.Event().wait()
        raise AssertionError("never answered")


def test_close_does_not_wait_for_an_extraction_that_never_ends_and_gives_its_fold_back(tmp_path: Path) -> None:
    """The background worker's fold waited on an LLM that did not answer, and close waited on the fold: up
    to llm.timeout_s times its retries for an LLM, forever for an extractor that never returns."""

    async def run() -> bool:
        extractor = Hangs()
        memory = AsyncMemory(tmp_path / "s", config=Config(), embedder=HashEmbedder(32), extractor=extractor)
        await memory.add(["我住在杭州", "我喜欢喝龙井"], agent=AGENT, person=PERSON)
        await memory.flush(agent=AGENT, person=PERSON, wait=False)
        await extractor.entered.wait()
        await asyncio.wait_for(memory.close(), 60)  # a bound against the hang only
        async with AsyncMemory(tmp_path / "s", config=CONFIG, embedder=HashEmbedder(32)) as reopened:
            taken = await asyncio.to_thread(reopened.store.claim_job, "another", reopened.worker.clock(), 30, [FOLD])
            return taken is not None  # given back: not held by its lease (the process is alive)

    assert asyncio.run(run())


def test_close_on_another_loop_than_the_background_worker_ran_on(tmp_path: Path) -> None:
    """A bot's handlers ran in one ``asyncio.run``, its shutdown in another: awaiting the worker task the
    first loop had cancelled raised CancelledError out of ``close``, which left the store open."""
    memory = AsyncMemory(tmp_path / "s", config=Config(), embedder=HashEmbedder(32))

    async def serve() -> None:
        await memory.add(["我住在杭州", "我喜欢喝龙井"], agent=AGENT, person=PERSON)
        await memory.flush(agent=AGENT, person=PERSON, wait=False)  # the background worker starts here

    asyncio.run(serve())
    assert memory._worker_task is not None
    asyncio.run(memory.close())
    with pytest.raises(StoreError, match="closed"):
        asyncio.run(memory.recall("杭州", agent=AGENT, person=PERSON))


@pytest.mark.parametrize("threshold", ["0.5", float("nan"), True])
def test_a_score_threshold_that_is_no_number_is_refused_in_words(tmp_path: Path, threshold: Any) -> None:
    """A text reached the ranking as a TypeError (with a hit to compare); NaN returned nothing, silently."""

    async def run() -> None:
        async with AsyncMemory(tmp_path / "s", config=CONFIG, embedder=HashEmbedder(32)) as memory:
            await memory.add("我喜欢喝龙井茶", agent=AGENT, person=PERSON, index=True)
            with pytest.raises(InvalidInput, match="score_threshold"):
                await memory.recall("龙井茶", agent=AGENT, person=PERSON, score_threshold=threshold)
            assert (await memory.recall("龙井茶", agent=AGENT, person=PERSON, score_threshold=0.0)).hits

    asyncio.run(run())


def test_a_person_forgotten_by_a_call_given_up_on_has_their_next_chat_folded(tmp_path: Path) -> None:
    """The erasure ran on in its thread, but forget_person's steps after it did not: the fold watch kept the
    erased chat's window, and when the person talked again (seqs given again from 1) no fold was planned."""
    config = Config(worker={"enabled": False}, ingest={"index": "background"}, window={"fold_at": 4, "keep_min": 1})

    def rounds(count: int) -> list[dict[str, str]]:
        return [
            line for i in range(count) for line in ({"text": f"我喜欢喝茶{i}"}, {"text": "好", "role": "assistant"})
        ]

    async def run() -> list[str]:
        async with AsyncMemory(tmp_path / "s", config=config, embedder=HashEmbedder(32)) as memory:
            for line in rounds(6):
                await memory.add(line, agent=AGENT, person=PERSON)
            await memory.run_jobs()
            erase, entered, gate, forgot = memory.store.erase, threading.Event(), threading.Event(), threading.Event()

            def held(*args: Any, **kwargs: Any) -> Any:
                entered.set()
                gate.wait(30)
                return erase(*args, **kwargs)

            forget = memory._fold_watch.forget

            def watched(agent: str | None = None) -> None:
                forget(agent)
                forgot.set()

            memory.store.erase = held  # type: ignore[method-assign]
            memory._fold_watch.forget = watched  # type: ignore[method-assign]
            forgetting = asyncio.create_task(memory.forget_person(PERSON, agent=AGENT))
            await asyncio.to_thread(entered.wait, 30)
            forgetting.cancel()
            gate.set()
            with pytest.raises(asyncio.CancelledError):
                await forgetting
            assert await asyncio.to_thread(forgot.wait, 10)
            for line in rounds(5):
                await memory.add(line, agent=AGENT, person=PERSON)
            return [job.state.value for job in await memory.jobs(agent=AGENT)]

    assert asyncio.run(run()) == ["pending"]


class HeldEmbedder(HashEmbedder):
    """Passages holding a key wait for its gate; ``entered`` is set as one of them arrives."""

    def __init__(self, gates: dict[str, threading.Event]) -> None:
        super().__init__(32)
        self.gates = gates
        self.entered = {key: threading.Event() for key in gates}

    def embed_passages(self, texts: Any) -> Any:
        for key, gate in self.gates.items():
            if any(key in text for text in texts):
                self.entered[key].set()
                gate.wait(30)
        return super().embed_passages(texts)


def test_messages_queued_for_indexing_when_their_loop_ends_are_indexed_on_the_next(tmp_path: Path) -> None:
    """asyncio.run returned while the indexing queue held two agents' messages: the drain task was cancelled
    in the first agent's part and the second's, taken with it, were dropped, claimed and never indexed."""
    config = Config(worker={"enabled": False}, ingest={"index": "background"}, chunk={"own_vector": False})
    first, second = threading.Event(), threading.Event()
    embedder = HeldEmbedder({"零号": first, "一号": second})
    memory = AsyncMemory(tmp_path / "s", config=config, embedder=embedder)

    async def serve() -> None:
        await memory.add("零号的话", agent="a0", person=PERSON)  # the drain takes it and waits at its gate
        await asyncio.to_thread(embedder.entered["零号"].wait, 30)
        await memory.add("一号的话", agent="a1", person=PERSON)
        await memory.add("二号的话", agent="a2", person=PERSON)
        await memory.jobs()  # with what the adds left behind them: both queued
        first.set()  # the drain takes a1's and a2's together and waits in a1's
        await asyncio.to_thread(embedder.entered["一号"].wait, 30)

    asyncio.run(serve())  # ends with the drain task cancelled in a1's part
    second.set()

    async def later() -> list[str]:
        await memory.indexed()
        try:
            scopes = [Scope.of_person(agent, PERSON) for agent in ("a0", "a1", "a2")]
            return sorted(m.text for scope in scopes for m in memory.store.list_memories([scope], [MemoryKind.CHUNK]))
        finally:
            await memory.close()

    assert asyncio.run(later()) == ["mumu: 一号的话", "mumu: 二号的话", "mumu: 零号的话"]


def test_workers_stopped_cut_an_extraction_that_never_ends_short_and_give_its_fold_back(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``run_workers`` (``huiyi serve --workers``, ``huiyi worker``) waited for the extraction under way once
    stopped: an LLM that did not answer held the service's shutdown for its timeout times its retries."""
    monkeypatch.setattr("huiyi.memory.ingest.CLOSE_GRACE_S", 0.1, raising=False)

    async def run() -> bool:
        extractor = Hangs()
        async with AsyncMemory(tmp_path / "s", config=CONFIG, embedder=HashEmbedder(32), extractor=extractor) as memory:
            await memory.add(["我住在杭州", "我喜欢喝龙井"], agent=AGENT, person=PERSON)
            await memory.flush(agent=AGENT, person=PERSON, wait=False)
            stop = asyncio.Event()
            running = asyncio.create_task(memory.run_workers(2, stop))
            await extractor.entered.wait()
            stop.set()
            await asyncio.wait_for(running, 20)  # a bound against the hang only
            taken = await asyncio.to_thread(memory.store.claim_job, "another", memory.worker.clock(), 30, [FOLD])
            return taken is not None and taken.claims == 1  # given back, and its cut run not counted

    assert asyncio.run(run())


def test_a_close_while_a_flush_waits_on_the_llm_gives_the_fold_back_before_the_store_closes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Close went on past a flush under way: when the flush was cut, its give-back met a closed store, and the
    fold stayed running under this process (held for its lease, its claim counted as an abandoned run)."""
    monkeypatch.setattr("huiyi.memory.base.CLOSE_GRACE_S", 0.1)

    async def run() -> None:
        extractor = Hangs()
        memory = AsyncMemory(tmp_path / "s", config=CONFIG, embedder=HashEmbedder(32), extractor=extractor)
        await memory.add(["我住在杭州", "我喜欢喝龙井"], agent=AGENT, person=PERSON)
        flushing = asyncio.create_task(memory.flush(agent=AGENT, person=PERSON))
        await extractor.entered.wait()
        await asyncio.wait_for(memory.close(), 20)  # a bound against the hang only
        with pytest.raises(StoreError, match="closed"):  # the flush was cut by the close
            await asyncio.wait_for(flushing, 20)

    asyncio.run(run())
    db = sqlite3.connect(tmp_path / "s" / "huiyi.sqlite")
    jobs = db.execute("SELECT state, claims, worker FROM jobs").fetchall()
    db.close()
    assert jobs == [("pending", 0, "")]
