"""An official fact names its subject (seed 000 §7 group 3, 主体-关系): remember and POST /v1/memories take
subject, predicate, object and fact kind, as the create_memory tool does, so 祈煜是一位画家 sits under 祈煜."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from huiyi import Memory
from huiyi.config import Config
from huiyi.errors import InvalidInput
from huiyi.faces.http import create_app, query_response
from huiyi.memory import AsyncMemory
from huiyi.model import FactData, FactKind, MemoryKind, RecallHit, RecallResult
from huiyi.providers.embed import HashEmbedder

AGENT, PERSON = "祈煜", "木木"
CONFIG = Config(worker={"enabled": False})


def kinds_in_query(memory: Memory, *ids: str) -> list[str]:
    items = [memory.get(i, agent=AGENT) for i in ids]
    hits = [RecallHit(id=i.id, kind=i.kind, text=i.text, score=1.0, scope=i.scope, data=i.data) for i in items]
    return [e.kind for e in query_response(RecallResult(query="q", hits=hits), PERSON, agent=AGENT).memory_entities]


def test_remember_a_fact_with_its_subject_groups_it_under_the_agent(tmp_path: Path) -> None:
    with Memory(tmp_path, config=CONFIG, embedder=HashEmbedder(32)) as memory:
        painter = memory.remember(
            "祈煜是一位画家", agent=AGENT, kind=MemoryKind.FACT, subject="祈煜", predicate="是", object="画家"
        )
        edge = FactData.of(memory.get(painter.id, agent=AGENT))
        assert (edge.subject, edge.predicate, edge.object, edge.kind) == ("祈煜", "是", "画家", FactKind.ATTRIBUTE)
        friend = memory.remember(
            "", agent=AGENT, kind=MemoryKind.FACT, subject="祈煜", predicate="认识", object="苏霓", fact_kind="relation"
        )
        assert friend.text == "祈煜认识苏霓"  # composed as create_memory composes it
        assert FactData.of(friend).kind is FactKind.RELATION
        bare = memory.remember("有人是一位画家", agent=AGENT, kind=MemoryKind.FACT)  # as before: no subject
        assert kinds_in_query(memory, painter.id, friend.id, bare.id) == ["主体属性", "主体关系", "其他属性"]
        note = memory.remember("祈煜今天画了一幅画", agent=AGENT, subject="祈煜", predicate="画")
        assert (note.data["subject"], note.data["predicate"], note.data["object"]) == ("祈煜", "画", "")


@pytest.mark.parametrize(
    ("extra", "words"),
    [
        ({"predicate": "是"}, "subject"),
        ({"fact_kind": "relation"}, "subject"),
        ({"subject": "祈煜", "fact_kind": "friendship"}, "fact kind"),
        ({"subject": "祈煜", "fact_kind": "relation", "kind": MemoryKind.NOTE}, "fact"),
        ({"subject": " "}, "subject"),
        ({"subject": "祈" * 201}, "subject"),
        ({"subject": "祈\x00煜"}, "subject"),
        ({"subject": "祈煜", "object": "画" * 2001}, "object"),
        ({"subject": "祈煜", "predicate": 3}, "predicate"),
    ],
)
def test_a_bad_subject_predicate_object_or_kind_is_refused_and_stores_nothing(
    tmp_path: Path, extra: dict[str, Any], words: str
) -> None:
    with Memory(tmp_path, config=CONFIG, embedder=HashEmbedder(32)) as memory:
        arguments = {"kind": MemoryKind.FACT, **extra}
        with pytest.raises(InvalidInput, match=words):
            memory.remember("祈煜是一位画家", agent=AGENT, **arguments)
        with pytest.raises(InvalidInput):  # no text and nothing to compose it from
            memory.remember("", agent=AGENT, kind=MemoryKind.FACT, subject="祈煜")
        assert memory.memories(agent=AGENT) == []


def test_post_v1_memories_takes_the_subject_too(tmp_path: Path) -> None:
    memory = AsyncMemory(tmp_path, config=CONFIG, embedder=HashEmbedder(32))
    with TestClient(create_app(memory, close_on_shutdown=True)) as client:
        body = {"agent": AGENT, "kind": "fact", "subject": "祈煜", "predicate": "是", "object": "画家"}
        made = client.post("/v1/memories", json={**body, "text": "祈煜是一位画家"})
        assert made.status_code == 201, made.text
        data = made.json()["data"]
        assert (data["subject"], data["predicate"], data["object"], data["fact_kind"]) == (
            "祈煜",
            "是",
            "画家",
            "attribute",
        )
        composed = client.post("/v1/memories", json={**body, "fact_kind": "relation", "object": "苏霓的老师"})
        assert composed.status_code == 201 and composed.json()["text"] == "祈煜是苏霓的老师"
        for bad in ({"fact_kind": "friendship"}, {"subject": ""}, {"subject": None}, {"subject": "祈" * 201}):
            refused = client.post("/v1/memories", json={**body, **bad})  # no text: composed, or nothing stored
            assert refused.status_code == 422, (bad, refused.text)
        assert len(client.get("/v1/memories", params={"agent": AGENT}).json()["items"]) == 2
