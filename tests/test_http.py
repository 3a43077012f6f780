"""The HTTP face against the real app (no server needed: the ASGI app runs in the test client)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from huiyi.config import Config
from huiyi.faces.http import create_app
from huiyi.memory import AsyncMemory
from huiyi.providers.embed import Embedder

KEYS = {"key-qy": ["祈煜"], "key-admin": ["*"]}
QY = {"Authorization": "Bearer key-qy"}


@pytest.fixture
def client(tmp_path: Path, e5: Embedder) -> Iterator[TestClient]:
    memory = AsyncMemory(tmp_path, embedder=e5, config=Config(worker={"enabled": False}))
    with TestClient(create_app(memory, api_keys=KEYS, max_body_bytes=50_000, close_on_shutdown=True)) as test:
        yield test


def add(client: TestClient, texts: list[str], person: str = "木木", agent: str = "祈煜") -> dict[str, object]:
    body = {
        "agent": agent,
        "person": person,
        "messages": [{"text": t, "id": f"{person}-{i}"} for i, t in enumerate(texts)],
    }
    response = client.post("/v1/messages", json=body, headers=QY)
    assert response.status_code == 200, response.text
    return response.json()  # type: ignore[no-any-return]


def test_health_needs_no_key(client: TestClient) -> None:
    body = client.get("/health").json()
    assert body["status"] == "ok" and body["schema_version"] >= 1


def test_messages_then_query_in_the_seed_shape(client: TestClient) -> None:
    added = add(client, ["我最喜欢莫兰迪色系", "我家的猫叫团子"])
    assert {k: added[k] for k in ("stored", "skipped", "ids")} == {
        "stored": 2,
        "skipped": 0,
        "ids": ["木木-0", "木木-1"],
    }
    assert [m["text"] for m in added["messages"]] == ["我最喜欢莫兰迪色系", "我家的猫叫团子"]
    assert all(m["time"].endswith("+08:00") for m in added["messages"])  # times carry their zone
    assert add(client, ["我最喜欢莫兰迪色系"])["skipped"] == 1
    response = client.post(
        "/query", json={"agent": "祈煜", "person": "木木", "query": "猫叫什么", "limit": 2}, headers=QY
    )
    assert response.status_code == 200
    body = response.json()
    assert set(body) == {"memory_events", "memory_entities", "additional_info"}
    top = body["memory_events"][0]
    assert "团子" in top["description"] and top["sources"] == ["木木-1"] and top["id"] == 0
    assert {"embed", "dense", "keyword"} <= set(body["additional_info"]["timings_ms"])
    simple = client.post(
        "/query_simple", json={"agent": "祈煜", "person": "木木", "query": "猫", "limit": 1}, headers=QY
    )
    assert "团子" in simple.json()[0]


def test_keys_scope_callers_to_their_agents(client: TestClient) -> None:
    body = {"agent": "别人", "person": "木木", "query": "猫"}
    assert client.post("/query", json=body).status_code == 401
    assert client.post("/query", json=body, headers={"Authorization": "Bearer wrong"}).status_code == 401
    forbidden = client.post("/query", json=body, headers=QY)
    assert forbidden.status_code == 403 and forbidden.json()["error"]["code"] == "forbidden"
    assert client.post("/query", json=body, headers={"Authorization": "Bearer key-admin"}).status_code == 200


def test_validation_errors_are_typed_json(client: TestClient) -> None:
    response = client.post("/query", json={"agent": "祈煜", "query": ""}, headers=QY)
    assert response.status_code == 422
    assert response.json()["error"]["code"] == "invalid_input"
    no_scope = client.post("/v1/messages", json={"agent": "祈煜", "messages": [{"text": "hi"}]}, headers=QY)
    assert no_scope.status_code == 422
    blank = client.post("/v1/messages", json={"agent": "祈煜", "person": "p", "messages": [{"text": "  "}]}, headers=QY)
    assert blank.status_code == 422
    too_big = client.post("/v1/messages", content=b"x" * 60_000, headers={**QY, "content-type": "application/json"})
    assert too_big.status_code == 413


def test_official_memory_crud_and_pagination(client: TestClient) -> None:
    ids = []
    for i in range(5):
        created = client.post("/v1/memories", json={"agent": "祈煜", "text": f"官方设定{i}"}, headers=QY)
        assert created.status_code == 201
        ids.append(created.json()["id"])
    first = client.get("/v1/memories", params={"agent": "祈煜", "limit": 2}, headers=QY).json()
    assert len(first["items"]) == 2 and first["next_offset"] == 2
    last = client.get("/v1/memories", params={"agent": "祈煜", "limit": 2, "offset": 4}, headers=QY).json()
    assert len(last["items"]) == 1 and last["next_offset"] is None
    got = client.get(f"/v1/memories/{ids[0]}", params={"agent": "祈煜"}, headers=QY)
    assert got.json()["text"] == "官方设定0"
    assert client.delete(f"/v1/memories/{ids[0]}", params={"agent": "祈煜"}, headers=QY).status_code == 204
    missing = client.get(f"/v1/memories/{ids[0]}", params={"agent": "祈煜"}, headers=QY)
    assert missing.status_code == 404 and missing.json()["error"]["code"] == "not_found"


def test_persons_and_aliases(client: TestClient) -> None:
    put = client.put("/v1/persons/suni", json={"agent": "祈煜", "name": "苏霓", "aliases": ["霓霓"]}, headers=QY)
    assert put.status_code == 200
    assert client.get("/v1/persons/suni", params={"agent": "祈煜"}, headers=QY).json()["aliases"] == ["霓霓"]
    assert client.get("/v1/persons/nobody", params={"agent": "祈煜"}, headers=QY).status_code == 404


def test_one_persons_memories_never_reach_another(client: TestClient) -> None:
    add(client, ["我的银行卡密码是生日"], person="阿哲")
    body = client.post("/query", json={"agent": "祈煜", "person": "木木", "query": "银行卡密码"}, headers=QY).json()
    assert body["memory_events"] == []


def test_text_no_store_can_hold_is_a_400(client: TestClient) -> None:
    # a lone surrogate (JSON escape or raw bytes), also as an object key, and NUL, which PostgreSQL refuses
    for raw in (
        b'{"agent": "\\u7948\\u715c", "text": "x\\ud800"}',
        b'{"agent": "\\u7948\\u715c", "text": "x\xed\xa0\x80"}',
        b'{"agent": "\\u7948\\u715c", "text": "x", "\\ud800": 1}',
        b'{"agent": "\\u7948\\u715c", "text": "x\\u0000"}',
    ):
        response = client.post("/v1/memories", content=raw, headers={**QY, "content-type": "application/json"})
        assert response.status_code == 400, (raw, response.text)
        assert response.json()["error"]["code"] == "bad_request"


def test_integers_beyond_64_bits_are_a_400(client: TestClient) -> None:
    for offset in (2**63, 10**30):
        response = client.get("/v1/memories", params={"agent": "祈煜", "offset": offset}, headers=QY)
        assert response.status_code == 400, response.text
        assert response.json()["error"]["code"] == "bad_request"
    assert client.get("/v1/memories", params={"agent": "祈煜", "offset": 2**63 - 1}, headers=QY).status_code == 200
    body = b'{"sentence": "x", "filter_levels": [' + b"9" * 30 + b"]}"
    response = client.post("/expand_words", content=body, headers={**QY, "content-type": "application/json"})
    assert response.status_code == 400 and response.json()["error"]["code"] == "bad_request"


@pytest.mark.parametrize(
    ("path", "body", "field"),
    [
        ("/query", {"person": "木木", "query": "x", "limit": True}, "limit"),
        ("/context", {"person": "木木", "message": "x", "max_chars": True}, "max_chars"),
        ("/v1/memories", {"text": "x", "importance": True}, "importance"),
        ("/v1/recall", {"person": "木木", "query": "x", "limit": True}, "limit"),
        ("/expand_words", {"sentence": "x", "chinese_rd_count": True}, "chinese_rd_count"),
    ],
)
def test_true_is_no_number_in_a_body(client: TestClient, path: str, body: dict[str, object], field: str) -> None:
    # Python's bool is an int: pydantic read true as 1 (a limit of 1, an importance of 1.0) and stored it
    response = client.post(path, json={"agent": "祈煜", **body}, headers=QY)
    assert response.status_code == 422, response.text
    assert [field] == [detail["loc"][-1] for detail in response.json()["error"]["details"]]
    assert client.get("/v1/memories", params={"agent": "祈煜"}, headers=QY).json()["items"] == []


@pytest.mark.parametrize("number", [b"NaN", b"Infinity", b"-Infinity", b"1e999"])
def test_a_data_value_that_is_no_finite_number_is_refused(client: TestClient, number: bytes) -> None:
    # no store keeps NaN: it must not come back as the text "nan", nor anything be stored
    raw = b'{"agent": "\\u7948\\u715c", "text": "x", "data": {"attributes": {"cm": ' + number + b"}}}"
    response = client.post("/v1/memories", content=raw, headers={**QY, "content-type": "application/json"})
    assert response.status_code == 400, response.text
    assert response.json()["error"]["code"] == "bad_request"
    assert client.get("/v1/memories", params={"agent": "祈煜"}, headers=QY).json()["items"] == []


def test_a_zone_offset_keeps_its_seconds(client: TestClient) -> None:
    # an offset to the second was refused as no time, and an answer's cut to minutes (Shanghai's local mean
    # time, +08:05:43 until 1901, went out as +08:05): the time sent back was 43 seconds off
    def stored(time: str) -> str:
        response = client.post("/v1/memories", json={"agent": "祈煜", "text": time, "time": time}, headers=QY)
        assert response.status_code == 201, response.text
        return str(response.json()["time"])

    assert stored("2024-03-05T10:00:00+05:30:15") == "2024-03-05T12:29:45+08:00"
    assert stored("1900-06-01T12:00:00") == "1900-06-01T12:00:00+08:05:43"
    assert stored("1900-06-01T12:00:00+08:05:43") == "1900-06-01T12:00:00+08:05:43"
    assert stored("2024-03-05T04:29:45Z") == "2024-03-05T12:29:45+08:00"


def test_bodies_that_are_not_json_are_a_typed_400(client: TestClient) -> None:
    json_type = {**QY, "content-type": "application/json"}
    deep = b"[" * 10_000 + b"]" * 10_000
    for raw in (b'{"agent":', deep, b'{"agent": "\xff"}', b'{"x": NaN}', b"[" * 100 + b"]" * 100):
        response = client.post("/v1/memories", content=raw, headers=json_type)
        assert response.status_code == 400, (raw[:20], response.text)
        assert response.json()["error"]["code"] == "bad_request"


def test_every_error_has_the_one_typed_shape(client: TestClient) -> None:
    for response, status in (
        (client.get("/no/such/route"), 404),
        (client.delete("/health"), 405),
        (client.put("/query", json={}), 405),
        (client.post("/query", json={}), 401),
    ):
        assert response.status_code == status, response.text
        error = response.json()["error"]
        assert set(error) >= {"code", "message"} and error["code"] and error["message"]
    assert client.delete("/health").headers["allow"] == "GET"


def test_the_schema_lists_the_error_responses(client: TestClient) -> None:
    schema = client.get("/openapi.json").json()
    create = schema["paths"]["/v1/memories"]["post"]["responses"]
    assert {"400", "401", "403", "413", "422"} <= set(create)
    assert create["422"]["content"]["application/json"]["schema"] == {"$ref": "#/components/schemas/ErrorBody"}
    assert "404" in schema["paths"]["/v1/memories/{memory_id}"]["get"]["responses"]
    assert "HTTPValidationError" not in schema["components"]["schemas"]
    assert set(schema["components"]["schemas"]["ErrorInfo"]["required"]) == {"code", "message"}


def test_only_a_bearer_key_is_accepted(client: TestClient) -> None:
    params = {"agent": "祈煜"}
    for authorization in ("key-qy", "Basic key-qy", "Bearerkey-qy", "Bearer", "Bearer  ", "Bearer key-qy extra"):
        response = client.get("/v1/memories", params=params, headers={"Authorization": authorization})
        assert response.status_code == 401, authorization
        assert response.json()["error"]["code"] == "unauthorized"
        assert response.headers["www-authenticate"] == "Bearer"
    for authorization in ("Bearer key-qy", "bearer key-qy", "Bearer   key-qy"):
        assert client.get("/v1/memories", params=params, headers={"Authorization": authorization}).status_code == 200


def test_nul_in_a_path_or_query_is_a_400(client: TestClient) -> None:
    put = client.put("/v1/persons/p%00", json={"agent": "祈煜", "name": "x"}, headers=QY)
    assert put.status_code == 400 and put.json()["error"]["code"] == "bad_request"
    assert client.get("/v1/memories", params={"agent": "祈煜", "space": "\x00"}, headers=QY).status_code == 400
