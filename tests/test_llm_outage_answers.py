"""Extraction answers of the wrong shape, through the whole worker: nothing from outside the fold's scope,
nothing twice, nothing huge, and a refused answer's job says why."""

from __future__ import annotations

import json
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

AGENT = "祈煜"
T0 = datetime(2024, 9, 1, 20, 0)
G1 = [
    {"id": "x1", "speaker": "许仙", "text": "我最近在学做饭", "time": T0},
    {"id": "x2", "speaker": "苏霓", "text": "我是一名护士，今天夜班好累", "time": T0 + timedelta(minutes=1)},
]
G2 = [{"id": "y1", "speaker": "白素贞", "text": "我开了一家药铺", "time": T0 - timedelta(days=1)}]


@pytest.fixture
def server() -> Iterator[FakeOpenAI]:
    with FakeOpenAI() as fake:
        yield fake


def llm_memory(path: Path, server: FakeOpenAI) -> Memory:
    config = Config(
        llm={"base_url": server.base_url, "model": "fake-model", "max_retries": 0},
        worker={"enabled": False, "max_attempts": 2, "backoff_seconds": 0.0},
    )
    extractor = LLMExtractor(OpenAIChat(config.llm, backoff_s=0.0, retry_after_max_s=0.0))
    return Memory(path, embedder=HashEmbedder(32), extractor=extractor, config=config, clock=lambda: T0)


def event(text: str, sources: list[str], participants: list[str]) -> dict[str, Any]:
    return {
        "text": text,
        "time": "",
        "place": "",
        "participants": participants,
        "keywords": [],
        "insight": "",
        "importance": 0.5,
        "sources": sources,
    }


def fact(subject: str, predicate: str, obj: str, sources: list[str], object_type: str = "literal") -> dict[str, Any]:
    return {
        "subject": subject,
        "subject_type": "person",
        "predicate": predicate,
        "object": obj,
        "object_type": object_type,
        "kind": "attribute",
        "keyword": "",
        "description": f"{subject}{predicate}{obj}",
        "time": "",
        "confidence": 0.9,
        "sources": sources,
    }


def fold(memory: Memory, messages: list[dict[str, object]], space: str) -> None:
    memory.add(messages, agent=AGENT, space=space)
    memory.flush(agent=AGENT, space=space, wait=False)
    memory.run_jobs()


def snapshot(memory: Memory) -> dict[str, list[tuple[str, str]]]:
    """What the other group and each member's own scope hold."""
    out = {"g2": [(m.id, m.text) for m in memory.memories(agent=AGENT, space="g2", limit=500)]}
    for person in ("许仙", "苏霓", "白素贞"):
        out[person] = [(m.id, m.text) for m in memory.memories(agent=AGENT, person=person, limit=500)]
    return out


def test_a_schema_valid_but_wild_answer_keeps_to_its_scope_once_and_bounded(tmp_path: Path, server: FakeOpenAI) -> None:
    """Sources that do not exist, the same fact three times, a member of another group and an unknown id as
    subjects, the agent named a member with a member's name as its alias, and a 5 MB event."""
    with llm_memory(tmp_path, server) as memory:
        server.script_chat(
            json_content={"events": [event("白素贞开了药铺", ["m1"], ["白素贞"])], "facts": [], "entities": []}
        )
        fold(memory, G2, "g2")
        before = snapshot(memory)
        answer = {
            "events": [
                event("许仙学做饭，" * 1_000_000, ["m1", "m404"], ["许仙", "u9", AGENT]),
                event("苏霓上夜班", ["zzz"], ["苏霓"]),
            ],
            "facts": [
                fact("苏霓", "是", "护士", ["m2"]),
                fact("苏霓", "是", "护士", ["x2"]),
                fact("苏霓", "是", "护士", ["m99"]),  # no real source: nobody can say who said it
                fact("白素贞", "是", "医生", ["m1"]),
                fact("u9", "喜欢", "猫", ["m404"]),
            ],
            "entities": [
                {"name": AGENT, "type": "person", "aliases": ["许仙", "小祈"]},
                {"name": "许仙", "type": "person", "aliases": [AGENT]},
            ],
        }
        server.script_chat(json_content=answer)
        fold(memory, G1, "g1")
        assert all(job.state is JobState.DONE for job in memory.jobs(agent=AGENT))
        g1 = memory.memories(agent=AGENT, space="g1", kinds=[MemoryKind.EVENT, MemoryKind.FACT], limit=500)
        assert all(len(m.text) <= 2000 for m in g1)  # the runaway event is cut, not stored whole
        assert all(set(m.sources) <= {"x1", "x2"} for m in g1)
        facts = sorted(m.text for m in g1 if m.kind is MemoryKind.FACT)
        assert facts == ["白素贞是医生", "苏霓是护士"]  # once; the fact with no real source is dropped
        ghost = next(m for m in g1 if m.text == "苏霓上夜班")
        assert ghost.sources == ["x1", "x2"]  # an event whose sources do not exist keeps the whole fold
        entities = {e.name: e for e in memory.entities(agent=AGENT, space="g1")}
        assert "许仙" not in entities[AGENT].aliases and AGENT not in entities["许仙"].aliases
        assert snapshot(memory) == before  # nothing reached the other group or anyone's own scope


@pytest.mark.parametrize(
    ("answer", "why"),
    [
        ({"events": {"text": "许仙学做饭"}, "facts": [], "entities": []}, "is not of type 'array'"),
        ({"events": [], "facts": [], "entities": [], "mood": "happy"}, "'mood' was unexpected"),
        ({"events": [], "facts": [], "entities": []}, "no usable event"),
        ({"events": [event("Xu Xian is learning to cook", ["m1"], [])], "facts": [], "entities": []}, "Chinese"),
    ],
)
def test_a_refused_answer_says_why_on_the_job_and_the_rules_keep_the_fold(
    tmp_path: Path, server: FakeOpenAI, answer: dict[str, Any], why: str
) -> None:
    with llm_memory(tmp_path, server) as memory:
        server.script_chat(json_content=answer).script_chat(json_content=answer)
        fold(memory, G1, "g1")
        (job,) = memory.jobs(agent=AGENT)
        assert job.state is JobState.DONE and why in job.last_error
        texts = [m.text for m in memory.memories(agent=AGENT, space="g1", kinds=[MemoryKind.EVENT], limit=50)]
        assert len(texts) == 1 and "学做饭" in texts[0]  # the rules' one event, not two
        assert memory.working_memory(agent=AGENT, space="g1") == []


def test_an_answer_with_characters_no_store_keeps_is_cleaned_not_retried_forever(
    tmp_path: Path, server: FakeOpenAI
) -> None:
    """A NUL or a lone surrogate in an event, a fact's object or a keyword made the memory be refused after
    the answer was read: the same answer failed every attempt and the fold was never extracted."""
    dirty = event("许仙学做饭\x00", ["m1"], ["许仙"])
    dirty["keywords"] = ["做饭\ud800"]
    answer = {"events": [dirty], "facts": [fact("苏霓", "是", "护士\x00", ["m2"])], "entities": []}
    with llm_memory(tmp_path, server) as memory:
        raw = json.dumps(answer)  # ASCII: the surrogate travels escaped, as a model's JSON may send it
        server.script_raw_content(raw).script_raw_content(raw)
        fold(memory, G1, "g1")
        (job,) = memory.jobs(agent=AGENT)
        assert job.state is JobState.DONE and job.attempts == 0, job.last_error
        kept = memory.memories(agent=AGENT, space="g1", kinds=[MemoryKind.EVENT, MemoryKind.FACT], limit=50)
        assert sorted(m.text for m in kept) == ["苏霓是护士", "许仙学做饭"]
        assert [m.keywords for m in kept if m.kind is MemoryKind.EVENT] == [["做饭"]]


def test_a_ref_the_model_was_shown_wins_over_a_message_id_spelt_the_same(tmp_path: Path, server: FakeOpenAI) -> None:
    """The chat's own ids were m0 and m1; the model cited m1, the ref it was shown for 木木's line, and the
    fact went to m1, the agent's reply: 祈煜喜欢喝美式咖啡."""
    said = [
        {"id": "m0", "text": "我喜欢喝美式咖啡", "time": T0},
        {"id": "m1", "role": "assistant", "text": "记住啦，我更喜欢茶", "time": T0 + timedelta(minutes=1)},
    ]
    answer = {
        "events": [event("木木说喜欢喝美式咖啡", ["m1", "m2"], ["木木"])],
        "facts": [{**fact("我", "喜欢喝", "美式咖啡", ["m1"]), "description": ""}],
        "entities": [],
    }
    with llm_memory(tmp_path, server) as memory:
        server.script_chat(json_content=answer)
        memory.add(said, agent=AGENT, person="木木")
        memory.flush(agent=AGENT, person="木木", wait=False)
        memory.run_jobs()
        (kept,) = memory.memories(agent=AGENT, person="木木", kinds=[MemoryKind.FACT], limit=10)
    assert (kept.text, kept.sources) == ("木木喜欢喝美式咖啡", ["m0"])
