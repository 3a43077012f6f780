"""An app's "my memories" screen names its user: get, patch, delete and feedback by id then reach only that
user's memories (another's is not found), on the library, the remote client's routes and HTTP; and the
answers are typed and zoned as every other route's."""

from __future__ import annotations

import json
from collections.abc import Iterator
from datetime import datetime
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from huiyi import Memory
from huiyi.config import Config
from huiyi.errors import InvalidInput, NotFound
from huiyi.faces.http import create_app
from huiyi.memory import AsyncMemory
from huiyi.model import MemoryKind
from huiyi.providers.embed import HashEmbedder

AGENT = "祈煜"
T0 = datetime(2026, 11, 25, 19, 20)


def config() -> Config:
    return Config(worker={"enabled": False}, recall={"reinforce": False})


@pytest.fixture
def ids(tmp_path: Path) -> dict[str, str]:
    """One fact each of 木木 and 阿哲, and the store they are in."""
    with Memory(tmp_path, embedder=HashEmbedder(32), config=config()) as memory:
        edge = {"subject": "木木", "predicate": "年龄", "object": "27岁"}
        mine = memory.remember("木木今年27岁", agent=AGENT, person="木木", kind=MemoryKind.FACT, **edge)
        theirs = memory.remember("阿哲今年28岁", agent=AGENT, person="阿哲")
    return {"mine": mine.id, "theirs": theirs.id, "path": str(tmp_path)}


def test_the_library_keeps_a_call_naming_its_user_to_their_memories(ids: dict[str, str]) -> None:
    with Memory(ids["path"], embedder=HashEmbedder(32), config=config()) as memory:
        assert memory.get(ids["mine"], agent=AGENT, person="木木").text == "木木今年27岁"
        for call in (
            lambda: memory.get(ids["theirs"], agent=AGENT, person="木木"),
            lambda: memory.update(ids["theirs"], {"importance": 0.1}, agent=AGENT, person="木木"),
            lambda: memory.feedback(ids["theirs"], 1.0, agent=AGENT, person="木木"),
            lambda: memory.delete(ids["theirs"], agent=AGENT, person="木木"),
            lambda: memory.get(ids["mine"], agent=AGENT, space="g1"),
        ):
            with pytest.raises(NotFound):
                call()
        with pytest.raises(InvalidInput):
            memory.get(ids["mine"], agent=AGENT, person="")
        theirs = memory.get(ids["theirs"], agent=AGENT)  # untouched, and reachable without a user named
        assert (theirs.importance, theirs.feedback) == (0.5, 0.0)
        memory.delete(ids["mine"], agent=AGENT, person="木木")
        with pytest.raises(NotFound):
            memory.get(ids["mine"], agent=AGENT)


@pytest.fixture
def client(ids: dict[str, str]) -> Iterator[TestClient]:
    memory = AsyncMemory(ids["path"], embedder=HashEmbedder(32), config=config())
    with TestClient(create_app(memory, close_on_shutdown=True)) as client:
        yield client


def test_http_routes_by_id_keep_to_the_user_they_name(client: TestClient, ids: dict[str, str]) -> None:
    theirs, mine = f"/v1/memories/{ids['theirs']}", f"/v1/memories/{ids['mine']}"
    as_mumu = {"agent": AGENT, "person": "木木"}
    assert client.get(theirs, params=as_mumu).status_code == 404
    assert client.patch(theirs, json={**as_mumu, "importance": 0.1}).status_code == 404
    assert client.post("/v1/feedback", json={**as_mumu, "memory_id": ids["theirs"], "value": 1}).status_code == 404
    assert client.delete(theirs, params=as_mumu).status_code == 404
    assert client.get(theirs, params={"agent": AGENT, "person": ""}).status_code == 422
    kept = client.get(theirs, params={"agent": AGENT}).json()
    assert (kept["importance"], kept["feedback"]) == (0.5, 0.0)
    assert client.get(mine, params=as_mumu).json()["text"] == "木木今年27岁"


def test_http_edits_are_typed_and_answered_zoned(client: TestClient, ids: dict[str, str]) -> None:
    mine = f"/v1/memories/{ids['mine']}"
    for value in (True, "1"):
        body = {"agent": AGENT, "memory_id": ids["mine"], "value": value}
        assert client.post("/v1/feedback", json=body).status_code == 422, value
    assert client.patch(mine, json={"agent": AGENT, "importance": "0.1"}).status_code == 422
    patched = client.patch(mine, json={"agent": AGENT, "time": "2026-11-25T19:20:00+08:00"}).json()
    fetched = client.get(mine, params={"agent": AGENT}).json()
    assert patched["time"] == fetched["time"] == "2026-11-25T19:20:00+08:00"
    assert patched["created_at"] == fetched["created_at"] and patched["created_at"].endswith("+08:00")


def test_a_corrected_fact_gets_its_edge_corrected_too(ids: dict[str, str], client: TestClient) -> None:
    """The text said 27 and the object still 26: /query, the context's grouping and consolidation read the
    edge. Subject, predicate and object are a fact's to correct; another kind of memory refuses them."""
    mine = f"/v1/memories/{ids['mine']}"
    body = {"agent": AGENT, "person": "木木", "text": "木木今年28岁", "object": "28岁"}
    patched = client.patch(mine, json=body).json()
    assert patched["text"] == "木木今年28岁" and patched["data"]["object"] == "28岁"
    again = client.patch(mine, json={"agent": AGENT, "subject": "木木"}).json()
    assert again["data"]["subject"] == "木木" and again["data"]["object"] == "28岁"
    assert client.patch(mine, json={"agent": AGENT, "object": ""}).status_code == 422
    note = client.post("/v1/memories", json={"agent": AGENT, "person": "木木", "text": "今天聊了天气"}).json()
    refused = client.patch(f"/v1/memories/{note['id']}", json={"agent": AGENT, "object": "天气"})
    assert refused.status_code == 422


def test_a_users_data_is_exported_over_http(client: TestClient, ids: dict[str, str]) -> None:
    """A data-access request on the HTTP service: the scope whole, as huiyi export writes it."""
    answer = client.get("/v1/export", params={"agent": AGENT, "person": "木木"})
    assert answer.status_code == 200 and answer.headers["content-type"].startswith("application/x-ndjson")
    lines = [json.loads(line) for line in answer.text.splitlines()]
    assert lines[0]["type"] == "export" and lines[0]["person"] == "木木"
    texts = [line.get("text") for line in lines]
    assert "木木今年27岁" in texts and "阿哲今年28岁" not in texts
    for bad in ({"person": ""}, {"person": "木木", "space": "g1"}, {}):
        assert client.get("/v1/export", params={"agent": AGENT, **bad}).status_code == 422, bad
