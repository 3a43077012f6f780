"""``add`` returns once messages are durable; indexing runs behind it (issue 15).

Until a message is indexed, recall finds it by keyword among the instance's pending messages; closing,
``run_jobs`` and ``indexed()`` finish the queue; a process killed before indexing leaves its messages
to the next opener; two instances on one store embed each message once.
"""

from __future__ import annotations

import asyncio
import multiprocessing
import os
import signal
import threading
import time
from collections import Counter
from collections.abc import Callable, Sequence
from datetime import datetime
from multiprocessing.synchronize import Event
from pathlib import Path

import pytest

import pg_server
from huiyi import Memory
from huiyi.config import Config
from huiyi.errors import InvalidInput
from huiyi.memory import AsyncMemory
from huiyi.model import MemoryKind, Scope
from huiyi.providers.embed import HashEmbedder
from huiyi.store.base import Vectors

SPAWN = multiprocessing.get_context("spawn")
AGENT, PERSON = "qy", "mumu"
# one passage per chunk: these tests count what indexing embeds (own-line vectors, chunk.own_vector, are off)
CONFIG = Config(worker={"enabled": False}, ingest={"index": "background"}, chunk={"own_vector": False})


class GatedEmbedder(HashEmbedder):
    """Passages wait at a gate (queries do not), and every passage embedded is counted."""

    def __init__(self, dim: int = 32, fail_once: bool = False) -> None:
        super().__init__(dim)
        self.gate = threading.Event()
        self.gate.set()
        self.passages: list[str] = []
        self.fail_once = fail_once

    def embed_queries(self, texts: Sequence[str]) -> Vectors:
        # the hash embedder embeds a query as a passage: without this a recall waited at the gate, and
        # when the gate's 30 s ran out indexing raced the recall (the test failed under load)
        return super().embed_passages(texts)

    def embed_passages(self, texts: Sequence[str]) -> Vectors:
        self.gate.wait(30)
        if self.fail_once:
            self.fail_once = False
            raise RuntimeError("embedder down")
        self.passages.extend(texts)
        return super().embed_passages(texts)


def chunks_of(memory: Memory | AsyncMemory, person: str = PERSON) -> list[str]:
    found = memory.store.list_memories([Scope.of_person(AGENT, person)], [MemoryKind.CHUNK], limit=10_000)
    return [chunk.sources[0] for chunk in found]


def test_add_returns_before_indexing_and_recall_finds_the_message_meanwhile(tmp_path: Path) -> None:
    embedder = GatedEmbedder()
    with Memory(tmp_path / "s", config=CONFIG, embedder=embedder) as memory:
        embedder.gate.clear()  # the model is busy: indexing cannot finish
        memory.add("我家的猫叫团子，三岁了", agent=AGENT, person=PERSON)
        stored = memory.add([{"id": "m2", "text": "下周三我要去杭州出差"}], agent=AGENT, person=PERSON)
        assert [m.id for m in stored] == ["m2"]
        assert chunks_of(memory) == []  # not indexed yet
        hits = memory.recall("杭州出差", agent=AGENT, person=PERSON).hits
        assert hits and hits[0].sources == ["m2"] and hits[0].data["pending"] is True
        assert not memory.recall("杭州出差", agent=AGENT, person="someone-else").hits  # only its own chat
        embedder.gate.set()
        assert memory.indexed() == 0  # the queue did it all
        assert len(chunks_of(memory)) == 2 and "m2" in chunks_of(memory)
        hits = memory.recall("杭州出差", agent=AGENT, person=PERSON).hits
        assert hits[0].sources[0] == "m2" and "pending" not in hits[0].data


def test_pending_messages_fill_the_room_the_ranked_hits_leave(tmp_path: Path) -> None:
    """At most half the limit went to messages not yet indexed, even with the rest of the list empty: of two
    lines naming 团子, recall(limit=3) gave one until indexing caught up (helper)."""
    embedder = GatedEmbedder()
    with Memory(tmp_path / "s", config=CONFIG, embedder=embedder) as memory:
        embedder.gate.clear()
        memory.add(["我家的猫叫团子", "团子今天把耳机线咬断了", "中午吃了米线"], agent=AGENT, person=PERSON)
        for limit in (1, 2, 3):
            result = memory.recall("团子", agent=AGENT, person=PERSON, limit=limit)
            assert len(result.hits) == min(limit, 2) and all("团子" in hit.text for hit in result.hits)
            assert result.info["pending"] == len(result.hits)
        embedder.gate.set()
        memory.indexed()


def test_the_line_just_asked_is_not_its_own_answer(tmp_path: Path) -> None:
    """A bot adds the user's line, then recalls for it: the line came back first, above the memory that answers
    it (helper). An older line said as the query is still found."""
    embedder = GatedEmbedder()
    with Memory(tmp_path / "s", config=CONFIG, embedder=embedder) as memory:
        embedder.gate.clear()
        memory.add(["我家的猫叫团子", "团子叫什么来着"], agent=AGENT, person=PERSON)
        hits = memory.recall("团子叫什么来着", agent=AGENT, person=PERSON).hits
        assert [hit.sources for hit in hits] == [[memory.working_memory(agent=AGENT, person=PERSON)[0].id]]
        memory.add("嗯", agent=AGENT, person=PERSON)  # no longer the newest: said as asked, it is found
        assert "团子叫什么来着" in memory.recall("团子叫什么来着", agent=AGENT, person=PERSON).hits[0].text
        embedder.gate.set()
        memory.indexed()
        # indexed, and in a group after another member spoke, as pending (helper's review)
        group = [{"text": "我家的猫叫团子", "speaker": "mumu"}, {"text": "团子叫什么来着", "speaker": "mumu"}]
        memory.add([*group, {"text": "哈哈", "speaker": "ali"}], agent=AGENT, space="g1", index=True)
        hits = memory.recall("团子叫什么来着", agent=AGENT, space="g1").hits
        assert hits and all("团子叫什么来着" not in hit.text for hit in hits)


def test_the_synchronous_add_does_not_wait_for_the_event_loop(tmp_path: Path) -> None:
    """A bot's add is durable on its own thread; the loop only queues the indexing after (issue 15)."""
    embedder = GatedEmbedder()
    with Memory(tmp_path / "s", config=CONFIG, embedder=embedder) as memory:
        release, finished = threading.Event(), threading.Event()

        def hold() -> None:  # the loop is busy (a long callback): an add through it would wait here
            release.wait(30)
            finished.set()

        memory._loop.loop.call_soon_threadsafe(hold)
        try:
            stored = memory.add("下周三我要去杭州出差", agent=AGENT, person=PERSON)
            assert not finished.is_set()  # returned while the loop was still held
            assert [m.text for m in memory.store.get_messages(AGENT, [stored[0].id])] == ["下周三我要去杭州出差"]
        finally:
            release.set()
        hits = memory.recall("杭州出差", agent=AGENT, person=PERSON).hits  # at once: pending, or indexed
        assert hits and hits[0].sources == [stored[0].id]
        assert memory.indexed() == 0 and chunks_of(memory) == [stored[0].id]
        with pytest.raises(InvalidInput):
            memory.add("", agent=AGENT, person=PERSON)  # bad input: an error, nothing stored
        assert len(memory.store.recent_messages(AGENT, stored[0].space, 10)) == 1


def test_the_synchronous_add_plans_its_folds_behind_it(tmp_path: Path) -> None:
    """No thread hop on a bot's add: with the write threads and the loop busy it still returns, durable,
    and the fold it made due is planned behind it, seen by ``jobs`` once they are free (issue 15)."""
    config = Config(worker={"enabled": False}, ingest={"index": "background"}, window={"fold_at": 2, "keep_min": 1})
    with Memory(tmp_path / "s", config=config, embedder=GatedEmbedder()) as memory:
        release = threading.Event()
        busy = [memory.core._writes.submit(release.wait, 30) for _ in range(2)]
        memory._loop.loop.call_soon_threadsafe(release.wait, 30)
        try:
            for text in ("今天好累", "下周三我要去杭州出差"):
                memory.add(text, agent=AGENT, person=PERSON)
            assert not any(job.done() for job in busy)  # returned while every write thread was held
            stored = memory.store.recent_messages(AGENT, Scope.of_person(AGENT, PERSON).space_id, 10)
            assert [m.text for m in stored] == ["今天好累", "下周三我要去杭州出差"]
        finally:
            release.set()
        (job,) = memory.jobs(agent=AGENT)
        assert job.payload["message_ids"] == [stored[0].id]


def test_the_synchronous_recall_does_not_wait_for_the_event_loop(tmp_path: Path) -> None:
    """A bot's recall runs on its own thread: no hop to the loop and to a read thread (issue 15)."""
    with Memory(tmp_path / "s", config=CONFIG, embedder=GatedEmbedder()) as memory:
        stored = memory.add("下周三我要去杭州出差", agent=AGENT, person=PERSON, index=True)
        release, finished = threading.Event(), threading.Event()

        def hold() -> None:
            release.wait(30)
            finished.set()

        memory._loop.loop.call_soon_threadsafe(hold)
        try:
            hits = memory.recall("杭州出差", agent=AGENT, person=PERSON).hits
            assert not finished.is_set()  # answered while the loop was still held
        finally:
            release.set()
        assert hits and hits[0].sources == [stored[0].id]
        with pytest.raises(InvalidInput):
            memory.recall(" ", agent=AGENT, person=PERSON)


def test_index_true_indexes_before_returning(tmp_path: Path) -> None:
    counted: list[int] = []
    with Memory(tmp_path / "s", config=CONFIG, embedder=GatedEmbedder()) as memory:
        stored = memory.add(["一", "二", "三"], agent=AGENT, person=PERSON, index=True, progress=counted.append)
        assert sorted(chunks_of(memory)) == sorted(m.id for m in stored)
        assert sum(counted) == 3


def test_close_finishes_the_queue(tmp_path: Path) -> None:
    embedder = GatedEmbedder()
    memory = Memory(tmp_path / "s", config=CONFIG, embedder=embedder)
    embedder.gate.clear()
    for i in range(20):
        memory.add(f"第{i}句话", agent=AGENT, person=PERSON)
    threading.Timer(0.2, embedder.gate.set).start()
    memory.close()
    again = GatedEmbedder()
    with Memory(tmp_path / "s", config=CONFIG, embedder=again) as reopened:
        assert len(chunks_of(reopened)) == 20
    assert again.passages == []  # nothing was left for the next opener
    assert len(embedder.passages) == 20  # and single adds were embedded once each


def test_run_jobs_indexes_first(tmp_path: Path) -> None:
    with Memory(tmp_path / "s", config=CONFIG, embedder=GatedEmbedder()) as memory:
        stored = memory.add(["一", "二"], agent=AGENT, person=PERSON)
        memory.run_jobs()
        assert sorted(chunks_of(memory)) == sorted(m.id for m in stored)


def test_a_failed_batch_is_indexed_by_indexed(tmp_path: Path) -> None:
    embedder = GatedEmbedder(fail_once=True)
    with Memory(tmp_path / "s", config=CONFIG, embedder=embedder) as memory:
        stored = memory.add(["一", "二"], agent=AGENT, person=PERSON)
        assert memory.indexed() == 2  # the claims the failure gave back
        assert sorted(chunks_of(memory)) == sorted(m.id for m in stored)


def test_async_memory_indexes_behind_add(tmp_path: Path) -> None:
    async def main() -> tuple[list[str], list[str]]:
        async with AsyncMemory(tmp_path / "s", config=CONFIG, embedder=GatedEmbedder()) as memory:
            stored = await memory.add(["今天去爬了泰山"], agent=AGENT, person=PERSON)
            found = (await memory.recall("泰山", agent=AGENT, person=PERSON)).hits
            assert found and found[0].sources == [stored[0].id]
            await memory.indexed()
            return chunks_of(memory), [m.id for m in stored]

    chunks, ids = asyncio.run(main())
    assert chunks == ids


# kill -9 between add and indexing ------------------------------------------------------------------
def stuck_adder(path: str, added: Event) -> None:
    embedder = GatedEmbedder()
    embedder.gate.clear()  # indexing never gets through
    memory = Memory(path, config=CONFIG, embedder=embedder)
    memory.add([f"被杀之前的第{i}句" for i in range(5)], agent=AGENT, person=PERSON)
    added.set()
    threading.Event().wait(120)


def kill_a_stuck_adder(path: str, adder: Callable[[str, Event], None] = stuck_adder) -> None:
    """A process adds messages to ``path`` (five: ``stuck_adder``) and is killed before it indexes them."""
    added = SPAWN.Event()
    child = SPAWN.Process(target=adder, args=(path, added))
    child.start()
    try:
        assert added.wait(120)
    finally:
        os.kill(child.pid or 0, signal.SIGKILL)
        child.join(30)


def killed_before_indexing(path: str) -> None:
    Memory(path, config=CONFIG, embedder=GatedEmbedder()).close()  # migrate first
    kill_a_stuck_adder(path)
    embedder = GatedEmbedder()
    embedder.gate.clear()
    # opening takes the dead process's claims behind it: a restarted bot waits for none of the embedding
    with Memory(path, config=CONFIG, embedder=embedder) as reopened:
        assert chunks_of(reopened) == []
        # meanwhile recall finds them by keyword
        found = reopened.recall("被杀之前的第3句", agent=AGENT, person=PERSON).hits
        assert found[0].data.get("pending") is True and "第3句" in found[0].text
        embedder.gate.set()
        deadline = time.monotonic() + 60
        while len(chunks_of(reopened)) < 5 and time.monotonic() < deadline:
            time.sleep(0.05)  # no indexed() call: the open alone indexes them
        assert len(chunks_of(reopened)) == 5
    assert len(embedder.passages) == 5


def test_kill_9_between_add_and_indexing_sqlite(tmp_path: Path) -> None:
    killed_before_indexing(str(tmp_path / "s"))


def test_a_running_instance_takes_over_what_a_killed_process_left(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A bot that goes on running indexes the messages another process stored and died before indexing (behind
    its own adds), not only the next process to open the store."""
    from huiyi.memory import indexing

    monkeypatch.setattr(indexing, "LEFTOVERS_EVERY", 0.0)
    path = str(tmp_path / "s")
    embedder = GatedEmbedder()
    with Memory(path, config=CONFIG, embedder=embedder) as running:
        kill_a_stuck_adder(path)
        running.add("我还在", agent=AGENT, person=PERSON)  # its indexing looks for leftovers behind it
        deadline = time.monotonic() + 60
        while len(chunks_of(running)) < 6 and time.monotonic() < deadline:
            time.sleep(0.05)
        assert len(chunks_of(running)) == 6


def test_lines_given_back_while_a_look_runs_are_looked_for_after_it(tmp_path: Path) -> None:
    """An add that indexed and gave up (its caller's timeout) gives its lines back while the look for leftovers
    may be past them: a look after it takes them, not the one 60 s on (it was skipped while one ran)."""
    from concurrent.futures import Future

    with Memory(tmp_path / "s", config=CONFIG, embedder=HashEmbedder(32)) as memory:
        memory.indexed()
        core = memory.core
        under_way: Future[int] = Future()
        under_way.set_running_or_notify_cancel()
        core._leftovers = under_way
        try:
            core._look_for_leftovers(at_once=True)
            assert core._leftovers is not under_way  # queued behind the one under way
            queued = core._leftovers
            core._look_for_leftovers(at_once=True)  # one queued and not begun will see them: no second
            assert core._leftovers is queued or queued.running() or queued.done()
        finally:
            under_way.set_result(0)  # the close waits for it
        assert queued.result(timeout=30) == 0


def test_kill_9_between_add_and_indexing_postgres() -> None:
    killed_before_indexing(pg_server.fresh_dsn())


# two instances on one store ------------------------------------------------------------------------
def two_instances(path: str) -> None:
    first, second = GatedEmbedder(), GatedEmbedder()
    with (
        Memory(path, config=CONFIG, embedder=first) as one,
        Memory(path, config=CONFIG, embedder=second) as two,
    ):
        first.gate.clear()
        second.gate.clear()
        for i in range(10):
            one.add(f"一号说的第{i}句", agent=AGENT, person=PERSON)
            two.add(f"二号说的第{i}句", agent=AGENT, person=PERSON)
        first.gate.set()
        second.gate.set()
        assert two.indexed() == 0  # never takes what the other instance holds
        assert one.indexed() == 0
        anchors = Counter(chunks_of(one))
    assert len(anchors) == 20 and set(anchors.values()) == {1}
    assert len(first.passages) == len(second.passages) == 10


@pytest.mark.parametrize("backend", ["sqlite", "postgres"])
def test_two_instances_on_one_store_index_each_message_once(tmp_path: Path, backend: str) -> None:
    two_instances(str(tmp_path / "s") if backend == "sqlite" else pg_server.fresh_dsn())


def test_forgetting_a_message_waits_for_its_indexing(tmp_path: Path) -> None:
    embedder = GatedEmbedder()
    with Memory(tmp_path / "s", config=CONFIG, embedder=embedder) as memory:
        embedder.gate.clear()
        stored = memory.add(["我的银行卡密码是八八六六"], agent=AGENT, person=PERSON)
        threading.Timer(0.3, embedder.gate.set).start()
        memory.forget_messages([stored[0].id], agent=AGENT)
        memory.indexed()
        assert chunks_of(memory) == []
        assert not memory.recall("银行卡密码", agent=AGENT, person=PERSON).hits


@pytest.mark.parametrize("backend", ["sqlite", "postgres"])
def test_an_erasure_by_another_instance_leaves_nothing_its_indexing_or_recall_brings_back(
    tmp_path: Path, backend: str
) -> None:
    """A bot's instance was still embedding what ``huiyi forget`` erased from another: its chunks were
    written after the erasure and its pending messages recalled."""
    path = str(tmp_path / "s") if backend == "sqlite" else pg_server.fresh_dsn()
    embedder = GatedEmbedder()
    with (
        Memory(path, config=CONFIG, embedder=embedder) as bot,
        Memory(path, config=CONFIG, embedder=HashEmbedder(32)) as eraser,
    ):
        embedder.gate.clear()  # the bot's indexing holds the messages, embedding
        bot.add([f"我的银行卡密码是八八六六，第{i}次说" for i in range(3)], agent=AGENT, person=PERSON)
        bot.add(["明天天气不错"], agent=AGENT, person="other")
        assert bot.recall("银行卡密码", agent=AGENT, person=PERSON).hits  # pending, found by keyword
        assert eraser.forget_person(PERSON, agent=AGENT).messages == 3
        assert not bot.recall("银行卡密码", agent=AGENT, person=PERSON).hits
        embedder.gate.set()
        assert bot.indexed() == 0
        assert chunks_of(bot) == [] and chunks_of(eraser) == []
        assert not bot.recall("银行卡密码", agent=AGENT, person=PERSON).hits
        assert len(chunks_of(bot, "other")) == 1  # the rest of its batch is indexed


def test_recall_as_of_a_moment_leaves_out_pending_messages_said_after_it(tmp_path: Path) -> None:
    embedder = GatedEmbedder()
    with Memory(tmp_path / "s", config=CONFIG, embedder=embedder) as memory:
        embedder.gate.clear()
        memory.add([{"text": "我领养了一只叫年糕的猫", "time": datetime(2024, 6, 1, 12)}], agent=AGENT, person=PERSON)
        for _ in range(2):  # pending, then indexed: the same answer
            assert not memory.recall("年糕 猫", agent=AGENT, person=PERSON, now=datetime(2024, 1, 1)).hits
            assert memory.recall("年糕 猫", agent=AGENT, person=PERSON, now=datetime(2024, 7, 1)).hits
            embedder.gate.set()
            memory.indexed()


def test_an_add_that_indexes_stops_when_cancelled_and_leaves_the_rest_to_index(tmp_path: Path) -> None:
    """Ctrl-C on an import waited minutes for every message to be embedded before the process ended. It stops
    within the batch under way: the pieces of it already embedded are dropped with it, and indexed again.
    A caller that gave up (a bot's ``wait_for``) and goes on has the rest indexed behind it at once: it waited
    for ``indexed()``, a reopen or the look for leftovers a minute on."""
    config = Config(worker={"enabled": False}, chunk={"own_vector": False}, embed={"batch_size": 4})

    async def run() -> None:
        embedder = GatedEmbedder()
        async with AsyncMemory(tmp_path / "s", config=config, embedder=embedder) as memory:
            before_leftovers: list[int] = []  # passages embedded when the look for leftovers began
            look = memory._index_leftovers

            def counted() -> int:
                before_leftovers.append(len(embedder.passages))
                return look()

            memory._index_leftovers = counted  # type: ignore[method-assign]
            embedder.gate.clear()
            said = [f"第{i}句：今天去了第{i}个地方" for i in range(40)]
            adding = asyncio.create_task(memory.add(said, agent=AGENT, person=PERSON, index=True))
            while not memory.store.recent_messages(AGENT, "person:" + PERSON, 1):  # stored; the first batch waits
                await asyncio.sleep(0.01)
            await asyncio.sleep(0.2)
            adding.cancel()
            embedder.gate.set()
            with pytest.raises(asyncio.CancelledError):
                await adding
            await asyncio.sleep(0.5)  # the piece under way ends, and nothing after it
            assert before_leftovers and before_leftovers[0] <= 8  # the add stopped in the batch under way
            for _ in range(200):  # no indexed(): the look for leftovers takes what was given back (no lease)
                if len(chunks_of(memory)) == 40:
                    break
                await asyncio.sleep(0.05)
            assert len(chunks_of(memory)) == 40
            assert await memory.indexed() == 0

    asyncio.run(run())


def test_http_messages_index_option(tmp_path: Path) -> None:
    from fastapi.testclient import TestClient

    from huiyi.faces.http import create_app

    embedder = GatedEmbedder()
    memory = AsyncMemory(tmp_path / "s", config=CONFIG, embedder=embedder)
    with TestClient(create_app(memory, close_on_shutdown=True)) as client:
        body = {"agent": AGENT, "person": PERSON, "messages": [{"id": "h1", "text": "下周去杭州"}]}
        embedder.gate.clear()
        assert client.post("/v1/messages", json=body).status_code == 200  # answered before indexing
        assert chunks_of(memory) == []
        embedder.gate.set()
        body = {**body, "index": True, "messages": [{"id": "h2", "text": "周五回来"}]}
        assert client.post("/v1/messages", json=body).status_code == 200
        assert "h2" in chunks_of(memory)


def test_the_async_recall_reads_the_pending_tail_off_the_event_loop(tmp_path: Path) -> None:
    """The not-yet-indexed tail is a store read (a round trip on PostgreSQL): on the loop's thread it held
    up every other coroutine of the application for it."""

    async def scenario() -> tuple[set[int], int]:
        memory = AsyncMemory(tmp_path / "store", embedder=HashEmbedder(32), config=CONFIG)
        readers: set[int] = set()
        read = memory.store.unindexed_messages

        def watched(*args: object, **kwargs: object) -> object:
            readers.add(threading.get_ident())
            return read(*args, **kwargs)  # type: ignore[arg-type]

        memory.store.unindexed_messages = watched  # type: ignore[method-assign]
        try:
            await memory.add({"text": "我下周三要考驾照"}, agent=AGENT, person=PERSON)
            found = await memory.recall("驾照", agent=AGENT, person=PERSON)
            assert any("驾照" in hit.text for hit in found.hits)
            return readers, threading.get_ident()
        finally:
            await memory.close()

    readers, loop_thread = asyncio.run(scenario())
    assert readers and loop_thread not in readers


def test_the_keyword_tail_cuts_the_query_only_when_a_line_waits(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Recall cuts the query for its routes; the tail of unindexed lines cut it again on every recall."""
    import huiyi.memory.indexing as indexing

    cuts: list[str] = []
    cut = indexing.query_terms
    monkeypatch.setattr(indexing, "query_terms", lambda query, drop=(): cuts.append(query) or cut(query, drop))
    with Memory(tmp_path / "store", embedder=HashEmbedder(32), config=CONFIG) as memory:
        memory.add({"text": "我下周三要考驾照"}, agent=AGENT, person=PERSON, index=True)
        memory.recall("驾照", agent=AGENT, person=PERSON)
        assert cuts == []  # everything indexed: no line waits
        memory.add({"text": "周末去爬山"}, agent=AGENT, person=PERSON)  # indexed behind the call
        found = memory.recall("爬山", agent=AGENT, person=PERSON)
    assert any("爬山" in hit.text for hit in found.hits)
