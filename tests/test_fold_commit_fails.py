"""A fold whose final commit fails writes nothing: its entities, names and closes land with the commit,
so a retry that reads the fold differently (an LLM's second answer) finds nothing of the first."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from fake_openai import FakeOpenAI
from huiyi import Memory
from huiyi.config import Config
from huiyi.flows.extract.llm import LLMExtractor
from huiyi.model import JobState, MemoryKind
from huiyi.providers.embed import HashEmbedder
from huiyi.providers.llm import OpenAIChat
from huiyi.store.base import Writes

AGENT, PERSON = "祈煜", "木木"
T0 = datetime(2024, 9, 1, 20, 0)


@pytest.fixture
def server() -> Iterator[FakeOpenAI]:
    with FakeOpenAI() as fake:
        yield fake


def _fact(obj: str, description: str) -> dict[str, Any]:
    return {
        "subject": PERSON,
        "subject_type": "person",
        "predicate": "住在",
        "object": obj,
        "object_type": "literal",
        "kind": "attribute",
        "keyword": "住址",
        "description": description,
        "time": "",
        "confidence": 0.9,
        "sources": ["m1"],
    }


def _answer(facts: list[dict[str, Any]], entities: list[dict[str, Any]], events: list[str]) -> dict[str, Any]:
    return {
        "events": [
            {
                "text": text,
                "time": "",
                "place": "",
                "participants": [PERSON],
                "keywords": [],
                "insight": "",
                "importance": 0.5,
                "sources": ["m1"],
            }
            for text in events
        ],
        "facts": facts,
        "entities": entities,
    }


def test_a_fold_whose_commit_fails_leaves_no_entity_nor_close_for_its_retry_to_contradict(
    tmp_path: Path, server: FakeOpenAI
) -> None:
    config = Config(
        llm={"base_url": server.base_url, "model": "fake-model", "max_retries": 0},
        worker={"enabled": False, "max_attempts": 3, "backoff_seconds": 0.0},
    )
    extractor = LLMExtractor(OpenAIChat(config.llm, backoff_s=0.0, retry_after_max_s=0.0))
    with Memory(tmp_path, embedder=HashEmbedder(32), extractor=extractor, config=config, clock=lambda: T0) as memory:
        server.script_chat(json_content=_answer([_fact("北京", "木木住在北京")], [], ["木木说她住在北京"]))
        memory.add([{"id": "u1", "text": "我住在北京", "time": T0}], agent=AGENT, person=PERSON)
        memory.flush(agent=AGENT, person=PERSON, wait=False)
        memory.run_jobs()
        # the first reading: she moved to 上海 (魔都); the disk fills as it is committed
        server.script_chat(
            json_content=_answer(
                [_fact("上海", "木木住在上海")],
                [{"name": "上海", "type": "specific", "aliases": ["魔都"]}],
                ["木木搬去上海了"],
            )
        )
        # the retry's reading: she only thinks of moving
        server.script_chat(json_content=_answer([], [], ["木木在考虑搬去上海，还没定"]))
        store: Any = memory.core.store
        apply = store.apply
        failures = []

        def full_once(writes: Writes, complete_job: tuple[str, str] | None = None) -> None:
            if complete_job is not None and writes.memories and not failures:  # the fold's commit
                failures.append(writes)
                raise sqlite3.OperationalError("database or disk is full")
            apply(writes, complete_job)

        store.apply = full_once
        memory.add(
            [{"id": "u2", "text": "下个月搬去上海吧，还没定呢", "time": T0 + timedelta(hours=1)}],
            agent=AGENT,
            person=PERSON,
        )
        memory.flush(agent=AGENT, person=PERSON, wait=False)
        memory.run_jobs()
        assert failures
        memory.run_jobs()
        assert [job.state for job in memory.jobs(agent=AGENT)] == [JobState.DONE, JobState.DONE]
        facts = memory.memories(agent=AGENT, person=PERSON, kinds=[MemoryKind.FACT])
        assert [(f.text, f.valid_to) for f in facts] == [("木木住在北京", None)]  # not closed by a reading not kept
        names = {name for e in memory.entities(agent=AGENT, person=PERSON) for name in [e.name, *e.aliases]}
        assert "魔都" not in names and "上海" not in names
