"""The /v1 API under a bot developer's use: what its schema promises is what the routes do, and writes
that meet do not undo each other."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from huiyi.config import Config
from huiyi.faces.http import create_app
from huiyi.memory import AsyncMemory

A = "祈煜"
FAST = {"embed": {"provider": "hash", "dim": 32}, "worker": {"enabled": False}}


@pytest.fixture
def client(tmp_path: Path) -> Iterator[TestClient]:
    memory = AsyncMemory(tmp_path, config=Config(**FAST))
    with TestClient(create_app(memory, close_on_shutdown=True)) as test:
        yield test


def test_a_text_patch_keeps_what_another_write_changed_while_it_was_embedded(tmp_path: Path) -> None:
    async def run() -> tuple[str, float]:
        memory = AsyncMemory(tmp_path, config=Config(**FAST))
        made = await memory.remember("团子打翻花盆", agent=A, person="木木")
        embed = memory.embedder.embed_passages

        def meanwhile(texts: list[str]) -> object:
            # a second PATCH (importance, written in place) lands while the text is embedded
            memory.store.update_memories(A, [(made.id, {"importance": 0.95})])
            return embed(texts)

        memory.embedder.embed_passages = meanwhile  # type: ignore[method-assign]
        await memory.update(made.id, {"text": "团子打翻了两个花盆"}, agent=A)
        memory.embedder.embed_passages = embed  # type: ignore[method-assign]
        stored = await memory.get(made.id, agent=A)
        await memory.close()
        return stored.text, stored.importance

    assert asyncio.run(run()) == ("团子打翻了两个花盆", 0.95)


def test_the_schema_names_the_shape_of_a_page_of_memories(client: TestClient) -> None:
    schema = client.get("/openapi.json").json()["components"]["schemas"]["Page"]
    assert schema["properties"]["items"]["items"] == {"$ref": "#/components/schemas/MemoryItem"}
    client.post("/v1/memories", json={"agent": A, "person": "木木", "text": "我家的猫叫团子"})
    page = client.get("/v1/memories", params={"agent": A, "person": "木木"}).json()
    assert page["items"][0]["created_at"].endswith("+08:00") and page["next_offset"] is None


def test_every_status_a_route_answers_is_in_its_schema(client: TestClient) -> None:
    paths = client.get("/openapi.json").json()["paths"]
    # the guard refuses a NUL in any route's query with a 400
    response = client.delete("/v1/memories/x", params={"agent": "a\x00b"})
    assert response.status_code == 400 and "NUL" in response.json()["error"]["message"]
    guarded = [op for path, ops in paths.items() if path.startswith("/v1/") for op in ops.values()]
    assert all("400" in op["responses"] for op in guarded)
    # a core block edit with no block folder configured is a 409
    response = client.post("/v1/core_blocks/persona", json={"agent": A, "new": "x"})
    assert response.status_code == 409 and response.json()["error"]["code"] == "not_configured"
    assert "409" in paths["/v1/core_blocks/{label}"]["post"]["responses"]


def test_a_patch_field_the_schema_calls_optional_is_not_offered_as_null(client: TestClient) -> None:
    made = client.post("/v1/memories", json={"agent": A, "person": "木木", "text": "团子", "importance": 0.7}).json()
    patch = client.get("/openapi.json").json()["components"]["schemas"]["MemoryPatch"]["properties"]
    for name in ("text", "place", "keywords", "insight", "importance"):
        assert "anyOf" not in patch[name], name  # null is refused, so the schema does not allow it
        response = client.patch(f"/v1/memories/{made['id']}", json={"agent": A, name: None})
        assert response.status_code == 422 and name in response.json()["error"]["message"]
    assert {"type": "null"} in patch["time"]["anyOf"]  # a null time is allowed: about no particular time
    kept = client.get(f"/v1/memories/{made['id']}", params={"agent": A}).json()
    assert (kept["text"], kept["importance"]) == ("团子", 0.7)


def test_forgetting_a_person_twice_answers_what_the_schema_says(client: TestClient) -> None:
    client.post("/v1/memories", json={"agent": A, "person": "木木", "text": "我家的猫叫团子"})
    first = client.delete("/v1/persons/木木", params={"agent": A})
    again = client.delete("/v1/persons/木木", params={"agent": A})
    assert (first.status_code, first.json()["memories"]) == (200, 1)
    assert (again.status_code, again.json()["memories"]) == (200, 0)  # idempotent: nothing left to erase
    documented = client.get("/openapi.json").json()["paths"]["/v1/persons/{person_id}"]["delete"]["responses"]
    assert "200" in documented and "404" not in documented


def test_summaries_and_consolidation_over_http_carry_their_zone_as_every_v1_time_does(client: TestClient) -> None:
    said = [{"id": "m1", "text": "我家的猫叫团子，今天把我的耳机线咬断了。", "time": "2024-09-25T22:05:00"}]
    client.post("/v1/messages", json={"agent": A, "person": "木木", "messages": said, "index": True})
    made = client.post("/v1/summarize", json={"agent": A, "person": "木木", "day": "2024-09-25"}).json()
    assert made and all(item["time"].endswith("+08:00") for item in made)
    assert all(item["created_at"] and item["created_at"].endswith("+08:00") for item in made)  # as stored
    report = client.post("/v1/consolidate", json={"agent": A, "person": "木木", "dry_run": True}).json()
    assert report["now"].endswith("+08:00")


def test_kept_reports_carry_the_zone_of_the_summaries_and_the_run_they_hold(client: TestClient) -> None:
    said = [{"id": "m1", "text": "我家的猫叫团子，今天把我的耳机线咬断了。", "time": "2024-09-25T22:05:00"}]
    client.post("/v1/messages", json={"agent": A, "person": "木木", "messages": said, "index": True})
    client.post("/v1/summarize", json={"agent": A, "person": "木木", "day": "2024-09-25"})
    client.post("/v1/consolidate", json={"agent": A, "person": "木木", "dry_run": True})
    kept = {r["kind"]: r for r in client.get("/v1/reports", params={"agent": A}).json()}
    summaries = kept["summarize"]["body"]["summaries"]
    assert summaries and all(item["time"].endswith("+08:00") for item in summaries)
    assert all(item["created_at"] and item["created_at"].endswith("+08:00") for item in summaries)  # as stored
    assert kept["consolidate"]["body"]["now"].endswith("+08:00")


def test_a_person_talked_with_but_never_set_answers_that_no_record_was_set_and_how_to_set_one(
    client: TestClient,
) -> None:
    said = [{"id": f"m{i}", "text": f"第{i}句话"} for i in range(22)]
    client.post("/v1/messages", json={"agent": A, "person": "木木", "messages": said})
    response = client.get("/v1/persons/木木", params={"agent": A})
    message = response.json()["error"]["message"]
    assert response.status_code == 404 and "no record" in message and "PUT /v1/persons/木木" in message
    documented = client.get("/openapi.json").json()["paths"]["/v1/persons/{person_id}"]["get"]
    assert "PUT" in documented["description"] and "404" in documented["responses"]
    client.put("/v1/persons/木木", json={"agent": A})  # a record with no fields is a record
    assert client.get("/v1/persons/木木", params={"agent": A}).json() == {
        "id": "木木",
        "name": "",
        "aliases": [],
        "platform_ids": {},
    }


def test_a_memory_posted_with_when_it_was_said_keeps_it(client: TestClient) -> None:
    # remember(said_at=...) took it in Python only: a plan posted over HTTP lost when it was said
    body = {"agent": A, "person": "木木", "text": "木木下周三要考驾照", "kind": "fact", "time": "2024-10-02T00:00:00"}
    made = client.post("/v1/memories", json={**body, "said_at": "2024-09-26T18:20:00+08:00"}).json()
    assert made["said_at"].startswith("2024-09-26T18:20:00")


def test_an_answers_times_are_date_times_in_the_schema(client: TestClient) -> None:
    """Written whole by a serializer, every answer's time was a plain string in /openapi.json (no format):
    a client generated from it read none as a time."""
    schemas = client.get("/openapi.json").json()["components"]["schemas"]
    date_time = {"type": "string", "format": "date-time"}
    assert date_time in schemas["MemoryItem"]["properties"]["said_at"]["anyOf"]
    assert date_time in schemas["RecallHit"]["properties"]["time"]["anyOf"]
    assert schemas["Message"]["properties"]["time"]["format"] == "date-time"
