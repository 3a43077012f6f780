"""A disk that fills while a bot adds (``database or disk is full`` at the store's writes): no message lost,
and once writes work again every message is indexed and distilled, without a restart."""

from __future__ import annotations

import contextlib
import json
import sqlite3
from collections.abc import Callable
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

from fake_openai import FakeOpenAI, Scripted
from huiyi import Memory
from huiyi.config import Config
from huiyi.flows.extract.llm import LLMExtractor
from huiyi.model import MemoryKind
from huiyi.providers.embed import HashEmbedder
from huiyi.providers.llm import OpenAIChat
from kill9_store import audit

AGENT = "bot"
T0 = datetime(2024, 3, 1, 9)
CONFIG = Config(worker={"enabled": False}, ingest={"index": "background"}, window={"keep_min": 2, "fold_at": 4})


def _full(method: Callable[..., Any], times: list[int]) -> Callable[..., Any]:
    """``method`` that raises as a full disk does while ``times[0]`` > 0."""

    def wrapped(*args: Any, **kwargs: Any) -> Any:
        if times[0] > 0:
            times[0] -= 1
            raise sqlite3.OperationalError("database or disk is full")
        return method(*args, **kwargs)

    return wrapped


def test_messages_whose_indexing_hit_a_full_disk_are_indexed_once_it_has_room(tmp_path: Path) -> None:
    with Memory(tmp_path, embedder=HashEmbedder(32), config=CONFIG, clock=lambda: T0) as memory:
        store: Any = memory.core.store
        full = [2]  # the chunks' write fails, and so does giving their claims back
        store.add_memories = _full(store.add_memories, full)
        store.release_messages = _full(store.release_messages, full)
        memory.add([{"id": "m1", "text": "我住在上海", "time": T0}], agent=AGENT, person="bob")
        memory.add(
            [{"id": "g1", "text": "我喜欢吃火锅", "speaker": "amy", "time": T0 + timedelta(minutes=1)}],
            agent=AGENT,
            space="g1",
        )
        memory.indexed()
        assert full == [0]  # the disk was full for the first batch
        memory.indexed()  # it has room again
        chunks = memory.memories(agent=AGENT, person="bob", kinds=[MemoryKind.CHUNK])
        assert [c.sources for c in chunks] == [["m1"]]
        memory.flush(agent=AGENT, person="bob")
        memory.run_jobs()
        events = memory.memories(agent=AGENT, person="bob", kinds=[MemoryKind.EVENT])
        assert [e.sources for e in events] == [["m1"]]


def test_a_running_bot_indexes_what_a_full_disk_held_back_behind_its_next_add(tmp_path: Path) -> None:
    """No restart and no ``indexed()``: the bot just goes on adding, as its drain runs behind each add."""
    with Memory(tmp_path, embedder=HashEmbedder(32), config=CONFIG, clock=lambda: T0) as memory:
        store: Any = memory.core.store
        full = [1]  # the chunks' write fails; their claims are given back
        store.add_memories = _full(store.add_memories, full)
        memory.add([{"id": "m1", "text": "我住在上海", "time": T0}], agent=AGENT, person="bob")
        memory.run_jobs()  # finishes the queue behind the adds
        assert full == [0]
        memory.add([{"id": "m2", "text": "我喜欢吃火锅", "time": T0 + timedelta(minutes=1)}], agent=AGENT, person="bob")
        memory.run_jobs()
        chunks = memory.memories(agent=AGENT, person="bob", kinds=[MemoryKind.CHUNK])
        assert sorted(source for c in chunks for source in c.sources) == ["m1", "m2"]


class _FullDisk:
    """Every ``every``-th write through the patched methods fails as a full disk does, while ``on``."""

    def __init__(self, store: Any, every: int, names: tuple[str, ...]) -> None:
        self.on, self.every, self.calls, self.failed = True, every, 0, 0
        for name in names:
            setattr(store, name, self._wrap(getattr(store, name)))

    def _wrap(self, method: Callable[..., Any]) -> Callable[..., Any]:
        def wrapped(*args: Any, **kwargs: Any) -> Any:
            self.calls += 1
            if self.on and self.calls % self.every == 0:
                self.failed += 1
                raise sqlite3.OperationalError("database or disk is full")
            return method(*args, **kwargs)

        return wrapped


def _broken_answers(server: FakeOpenAI) -> None:
    """One of each way an OpenAI-compatible endpoint answers badly."""
    server.script_status(500)
    server.script_raw_content('{"events": [{"text": "bob说')  # cut off
    server.script_chat(json_content={"events": {"text": 3}, "facts": "none", "entities": [1, None]})
    server.script(Scripted(200, json.dumps({"id": "x", "object": "chat.completion", "choices": []}).encode(), {}, 0.0))
    huge = {"text": "火锅" * 5000, "time": "", "place": "", "participants": [], "keywords": ["火锅"] * 100}
    events = [{**huge, "insight": "", "importance": 0.5, "sources": []} for _ in range(200)]
    server.script_chat(json_content={"events": events, "facts": [], "entities": []})
    server.script_delay(0.5)  # past llm.timeout_s


def test_a_bot_through_broken_llm_answers_and_a_full_disk_loses_nothing_and_distils_every_message(
    tmp_path: Path,
) -> None:
    chats: list[dict[str, str]] = [{"person": "bob"}, {"space": "g1"}]
    acked: list[str] = []
    with FakeOpenAI() as server:
        config = Config(
            llm={"base_url": server.base_url, "model": "fake-model", "max_retries": 0, "timeout_s": 0.2},
            # a job whose failure could not be recorded (the disk full) is taken again once its lease runs out
            worker={"enabled": False, "max_attempts": 3, "backoff_seconds": 0.0, "lease_seconds": 0.3},
            ingest={"index": "background"},
            window={"keep_min": 2, "fold_at": 4},
        )
        extractor = LLMExtractor(OpenAIChat(config.llm, backoff_s=0.0, retry_after_max_s=0.0))
        with Memory(
            tmp_path, embedder=HashEmbedder(32), extractor=extractor, config=config, clock=lambda: T0
        ) as memory:
            names = ("append_messages", "add_memories", "apply", "enqueue_job", "release_messages", "fail_job")
            disk = _FullDisk(memory.core.store, 3, names)
            _broken_answers(server)
            _broken_answers(server)
            for i in range(24):
                chat = chats[(i // 3) % 2]
                said: dict[str, object] = {"id": f"m{i}", "text": f"我喜欢吃火锅，第{i}次说", "time": T0}
                if "space" in chat:
                    said["speaker"] = ["amy", "carl"][i % 2]
                for _ in range(3):  # a bot sends again what raised
                    try:
                        memory.add([said], agent=AGENT, **chat)
                    except sqlite3.OperationalError:
                        continue
                    acked.append(str(said["id"]))
                    break
                with contextlib.suppress(sqlite3.OperationalError):
                    memory.run_jobs()
                working = memory.working_memory(agent=AGENT, **chat)  # nothing half-written shows
                assert len({m.id for m in working}) == len(working)
                hits = memory.recall("火锅", agent=AGENT, **chat).hits
                assert len({h.id for h in hits}) == len(hits)
            assert disk.failed
            disk.on = False  # room again; the LLM still answers 500 (nothing scripted): the rules take the folds
            for chat in chats:
                memory.flush(agent=AGENT, **chat)
            memory.run_jobs()
            memory.indexed()
            assert [m.id for m in memory.messages(acked, agent=AGENT)] == acked
    assert {kind: shown for kind, shown in audit(str(tmp_path)).items() if shown} == {}
