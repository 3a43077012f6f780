"""Our own corpus of hostile requests. Each must get the status we expect (never a 5xx), the typed error
shape, and leave the store exactly as it was."""

from __future__ import annotations

import hashlib
import sqlite3
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import pytest
from fastapi.testclient import TestClient

from huiyi.config import Config
from huiyi.faces.http import create_app
from huiyi.memory import AsyncMemory
from huiyi.providers.embed import HashEmbedder
from huiyi.store.sqlite import SQLiteStore

LIMIT = 50_000
KEYS = {"key-a": ["A"], "key-b": ["B"], "key-admin": ["*"]}
A = {"Authorization": "Bearer key-a"}
ADMIN = {"Authorization": "Bearer key-admin"}
JSON = {**A, "content-type": "application/json"}


@dataclass
class Case:
    name: str
    method: str
    path: str
    expect: int
    json: Any = None
    content: bytes | Iterator[bytes] | None = None
    params: dict[str, Any] | None = None
    headers: dict[str, str | bytes] = field(default_factory=lambda: dict(A))


def raw(name: str, method: str, path: str, body: bytes, expect: int = 400) -> Case:
    return Case(name, method, path, expect, content=body, headers=dict(JSON))


def deep(levels: int, opener: bytes = b"[", closer: bytes = b"]") -> bytes:
    return opener * levels + closer * levels


def objects(levels: int) -> bytes:
    return b'{"a":' * levels + b"1" + b"}" * levels


def chunked(total: int) -> Iterator[bytes]:
    for _ in range(total // 8192):
        yield b" " * 8192


def surrogate_cases() -> list[Case]:
    where = [
        ("/v1/memories", b'{"agent": "A", "text": "x\\ud800"}'),
        ("/v1/memories", b'{"agent": "\\udfff", "text": "x"}'),
        ("/v1/memories", b'{"agent": "A", "text": "x", "\\ud800": 1}'),
        ("/v1/memories", b'{"agent": "A", "text": "x", "keywords": ["\\udc00\\ud800"]}'),
        ("/v1/memories", b'{"agent": "A", "text": "x\xed\xa0\x80"}'),
        ("/v1/messages", b'{"agent": "A", "person": "p", "messages": [{"text": "\\ud83d"}]}'),
        ("/v1/messages", b'{"agent": "A", "person": "p", "messages": [{"text": "ok", "id": "\\ude00"}]}'),
        ("/query", b'{"agent": "A", "person": "p", "query": "\\ud800"}'),
        ("/query_simple", b'{"agent": "A", "person": "\\ud800", "query": "x"}'),
        ("/context", b'{"agent": "A", "person": "p", "message": "\\ud800"}'),
        ("/expand_words", b'{"sentence": "\\ud800"}'),
        ("/v1/feedback", b'{"agent": "A", "memory_id": "\\ud800", "value": 1}'),
        ("/v1/consolidate", b'{"agent": "A", "space": "\\ud800", "dry_run": true}'),
    ]
    cases = [raw(f"surrogate {path} {i}", "POST", path, body) for i, (path, body) in enumerate(where)]
    cases.append(raw("surrogate person name", "PUT", "/v1/persons/p", b'{"agent": "A", "name": "\\ud800"}'))
    cases.append(raw("surrogate alias", "PUT", "/v1/persons/p", b'{"agent": "A", "aliases": ["\\udbff"]}'))
    return cases


def number_cases() -> list[Case]:
    page = "/v1/memories"
    return [
        Case("offset 2^63", "GET", page, 400, params={"agent": "A", "offset": 2**63}),
        Case("offset 10^100", "GET", page, 400, params={"agent": "A", "offset": 10**100}),
        Case("offset 5000 digits", "GET", page, 422, params={"agent": "A", "offset": "9" * 5000}),
        Case("offset -1", "GET", page, 422, params={"agent": "A", "offset": -1}),
        Case("offset 1e3", "GET", page, 422, params={"agent": "A", "offset": "1e3"}),
        Case("limit 0", "GET", page, 422, params={"agent": "A", "limit": 0}),
        Case("limit -5", "GET", page, 422, params={"agent": "A", "limit": -5}),
        Case("limit 10^30", "GET", page, 422, params={"agent": "A", "limit": 10**30}),
        Case(
            "query limit 2^64", "POST", "/query", 400, json={"agent": "A", "person": "p", "query": "x", "limit": 2**64}
        ),
        Case("query limit -1", "POST", "/query", 422, json={"agent": "A", "person": "p", "query": "x", "limit": -1}),
        Case("expand count 2^70", "POST", "/expand_words", 400, json={"sentence": "猫", "chinese_rd_count": 2**70}),
        Case("expand levels 2^64", "POST", "/expand_words", 400, json={"sentence": "猫", "filter_levels": [2**64]}),
        Case("expand strategy 2^62", "POST", "/expand_words", 422, json={"sentence": "猫", "logic_type": 2**62}),
        raw(
            "5000-digit integer", "POST", "/expand_words", b'{"sentence": "x", "filter_levels": [' + b"9" * 5000 + b"]}"
        ),
        raw("feedback 1e400", "POST", "/v1/feedback", b'{"agent": "A", "memory_id": "m", "value": 1e400}'),
        raw("feedback NaN", "POST", "/v1/feedback", b'{"agent": "A", "memory_id": "m", "value": NaN}'),
        raw("importance -Infinity", "POST", "/v1/memories", b'{"agent": "A", "text": "x", "importance": -Infinity}'),
        Case("importance 2", "POST", "/v1/memories", 422, json={"agent": "A", "text": "x", "importance": 2}),
        Case(
            "threshold -0.5",
            "POST",
            "/query",
            422,
            json={"agent": "A", "person": "p", "query": "x", "score_threshold": -0.5},
        ),
    ]


def type_cases() -> list[Case]:
    mem = "/v1/memories"
    return [
        Case("agent is a number", "POST", mem, 422, json={"agent": 123, "text": "x"}),
        Case("agent is null", "POST", mem, 422, json={"agent": None, "text": "x"}),
        Case("agent is a list", "POST", mem, 422, json={"agent": ["A"], "text": "x"}),
        Case("text is an object", "POST", mem, 422, json={"agent": "A", "text": {"t": 1}}),
        Case("unknown field", "POST", mem, 422, json={"agent": "A", "text": "x", "admin": True}),
        Case("unknown kind", "POST", mem, 422, json={"agent": "A", "text": "x", "kind": "root"}),
        Case("time is nonsense", "POST", mem, 422, json={"agent": "A", "text": "x", "time": "yesterday-ish"}),
        Case("body is a list", "POST", mem, 422, json=[{"agent": "A", "text": "x"}]),
        Case("body is a string", "POST", mem, 422, json="x"),
        Case("body is null", "POST", mem, 422, json=None, content=b"null", headers=dict(JSON)),
        Case("empty body", "POST", mem, 422, content=b"", headers=dict(JSON)),
        Case(
            "text/plain body",
            "POST",
            mem,
            422,
            content=b'{"agent": "A", "text": "x"}',
            headers={**A, "content-type": "text/plain"},
        ),
        Case(
            "form body",
            "POST",
            mem,
            422,
            content=b"agent=A&text=x",
            headers={**A, "content-type": "application/x-www-form-urlencoded"},
        ),
        Case("messages is a string", "POST", "/v1/messages", 422, json={"agent": "A", "person": "p", "messages": "hi"}),
        Case(
            "messages hold numbers", "POST", "/v1/messages", 422, json={"agent": "A", "person": "p", "messages": [1, 2]}
        ),
        Case("messages empty", "POST", "/v1/messages", 422, json={"agent": "A", "person": "p", "messages": []}),
        Case(
            "blank message",
            "POST",
            "/v1/messages",
            422,
            json={"agent": "A", "person": "p", "messages": [{"text": " "}]},
        ),
        Case("no scope", "POST", "/v1/messages", 422, json={"agent": "A", "messages": [{"text": "hi"}]}),
        Case("dry_run is a list", "POST", "/v1/consolidate", 422, json={"agent": "A", "person": "p", "dry_run": []}),
        Case("kind filter unknown", "GET", mem, 422, params={"agent": "A", "kind": "root"}),
        Case("agent missing", "GET", mem, 422, params={}),
        Case("agent empty", "GET", mem, 422, params={"agent": ""}),
        Case("text too long", "POST", mem, 422, json={"agent": "A", "text": "x" * 20_001}),
    ]


def encoding_cases() -> list[Case]:
    mem = "/v1/memories"
    return [
        raw("10,000 nested arrays", "POST", mem, deep(10_000)),
        raw("5,000 nested objects", "POST", mem, objects(5_000)),
        raw("40 nested lists in keywords", "POST", mem, b'{"agent": "A", "text": "x", "keywords": ' + deep(40) + b"}"),
        raw("truncated JSON", "POST", mem, b'{"agent": "A", "text": '),
        raw("trailing garbage", "POST", mem, b'{"agent": "A", "text": "x"} {}'),
        raw("single quotes", "POST", mem, b"{'agent': 'A', 'text': 'x'}"),
        raw("invalid UTF-8 byte", "POST", mem, b'{"agent": "A", "text": "\xff"}'),
        raw("overlong UTF-8", "POST", mem, b'{"agent": "A", "text": "\xc0\xaf"}'),
        raw("truncated UTF-8", "POST", mem, b'{"agent": "A", "text": "\xe7\xa5"}'),
        raw("latin-1 body", "POST", mem, '{"agent": "A", "text": "café"}'.encode("latin-1")),
        raw("UTF-16 body", "POST", mem, '{"agent": "A", "text": "x"}'.encode("utf-16")),
        raw("UTF-8 BOM", "POST", mem, b'\xef\xbb\xbf{"agent": "A", "text": "x"}'),
        raw("NUL escape in text", "POST", mem, b'{"agent": "A", "text": "a\\u0000b"}'),
        raw("NUL escape in agent", "POST", mem, b'{"agent": "A\\u0000", "text": "x"}'),
        raw("raw NUL byte", "POST", mem, b'{"agent": "A", "text": "a\x00b"}'),
        raw(
            "NUL in a message",
            "POST",
            "/v1/messages",
            b'{"agent": "A", "person": "p", "messages": [{"text": "\\u0000"}]}',
        ),
        Case("NUL in a path", "GET", "/v1/memories/%00", 400, params={"agent": "A"}),
        Case("NUL in a query", "GET", mem, 400, params={"agent": "A\x00"}),
        Case("NUL in a person id", "PUT", "/v1/persons/p%00", 400, json={"agent": "A", "name": "x"}),
        # read as U+FFFD, %FF and %FE named one person
        Case("an escape of no UTF-8 in a path", "PUT", "/v1/persons/%FF", 400, json={"agent": "A", "name": "x"}),
        Case("an escaped lone surrogate in a path", "GET", "/v1/persons/%ED%A0%80", 400, params={"agent": "A"}),
        Case("an escape of no UTF-8 in a query", "GET", "/v1/search?agent=A&person=%FE", 400),
    ]


def route_cases() -> list[Case]:
    return [
        Case("console static traversal", "GET", "/console/static/..%2f..%2fhttp.py", 404),
        Case("unknown version", "GET", "/v2/memories", 404),
        Case("an id with a slash, unknown", "GET", "/v1/memories/x/y?agent=A", 404),
        Case("too deep a path", "GET", "/v1/recall/x/y", 404),
        Case("traversal", "GET", "/..%2f..%2fetc%2fpasswd", 404),
        Case("invalid UTF-8 path", "GET", "/v1/%ff%fe", 404),
        Case("DELETE /health", "DELETE", "/health", 405),
        Case("GET /query", "GET", "/query", 405),
        Case("PUT /query", "PUT", "/query", 405, json={}),
        Case("PATCH /v1/memories", "PATCH", "/v1/memories", 405, json={}),
        Case("POST a memory id", "POST", "/v1/memories/m1", 405, json={}),
        Case("DELETE a person without its agent", "DELETE", "/v1/persons/p", 422),
        Case("POST a person", "POST", "/v1/persons/p", 405, json={}),
    ]


def auth_cases() -> list[Case]:
    page = {"agent": "A"}
    b = {"agent": "B", "person": "p"}
    cases = [
        Case("no key", "GET", "/v1/memories", 401, params=page, headers={}),
        Case("bare key", "GET", "/v1/memories", 401, params=page, headers={"Authorization": "key-a"}),
        Case("basic scheme", "GET", "/v1/memories", 401, params=page, headers={"Authorization": "Basic key-a"}),
        Case("wrong key", "GET", "/v1/memories", 401, params=page, headers={"Authorization": "Bearer key-c"}),
        Case("empty bearer", "GET", "/v1/memories", 401, params=page, headers={"Authorization": "Bearer "}),
        Case("two keys", "GET", "/v1/memories", 401, params=page, headers={"Authorization": "Bearer key-a key-b"}),
        Case("64 KB key", "GET", "/v1/memories", 401, params=page, headers={"Authorization": "Bearer " + "k" * 65_536}),
        Case(
            "latin-1 key",
            "GET",
            "/v1/memories",
            401,
            params=page,
            headers={"Authorization": "Bearer kéy-a".encode("latin-1")},
        ),
        Case("no key, bad body", "POST", "/v1/memories", 401, json={"agent": "A", "text": "x"}, headers={}),
        Case("A lists B", "GET", "/v1/memories", 403, params={"agent": "B"}),
        Case("A creates for B", "POST", "/v1/memories", 403, json={"agent": "B", "text": "x"}),
        Case("A adds B's messages", "POST", "/v1/messages", 403, json={**b, "messages": [{"text": "hi"}]}),
        Case("A queries B", "POST", "/query", 403, json={**b, "query": "x"}),
        Case("A queries B simply", "POST", "/query_simple", 403, json={**b, "query": "x"}),
        Case("A asks B's context", "POST", "/context", 403, json={**b, "message": "x"}),
        Case("A consolidates B", "POST", "/v1/consolidate", 403, json={**b, "dry_run": False}),
        Case("A judges for B", "POST", "/v1/feedback", 403, json={"agent": "B", "memory_id": "m", "value": 1}),
        Case("A expands as B", "POST", "/expand_words", 403, json={"sentence": "猫", "agent": "B"}),
        Case("A names B's person", "PUT", "/v1/persons/p", 403, json={"agent": "B", "name": "x"}),
        Case("A reads B's person", "GET", "/v1/persons/p", 403, params={"agent": "B"}),
        Case("A reads B's memory", "GET", "/v1/memories/{b_memory}", 403, params={"agent": "B"}),
        Case("A deletes B's memory", "DELETE", "/v1/memories/{b_memory}", 403, params={"agent": "B"}),
        Case("A deletes B's memory as A", "DELETE", "/v1/memories/{b_memory}", 404, params={"agent": "A"}),
        Case("A reads B's memory as A", "GET", "/v1/memories/{b_memory}", 404, params={"agent": "A"}),
        Case(
            "A judges B's memory as A",
            "POST",
            "/v1/feedback",
            404,
            json={"agent": "A", "memory_id": "{b_memory}", "value": 1},
        ),
    ]
    many = {f"x-filler-{i}": "v" * 1000 for i in range(100)}
    cases.append(Case("100 KB of headers, no key", "GET", "/v1/memories", 401, params=page, headers=many))
    return cases


def size_cases() -> list[Case]:
    big = b'{"agent": "A", "text": "' + b"x" * LIMIT + b'"}'
    return [
        raw("declared length past the limit", "POST", "/v1/memories", big, expect=413),
        Case("chunked past the limit", "POST", "/v1/memories", 413, content=chunked(1_000_000), headers=dict(JSON)),
        Case(
            "chunked messages past the limit", "POST", "/v1/messages", 413, content=chunked(200_000), headers=dict(JSON)
        ),
        Case(
            "past the limit without a key",
            "POST",
            "/v1/memories",
            413,
            content=big,
            headers={"content-type": "application/json"},
        ),
        Case(
            "length not a number",
            "POST",
            "/v1/memories",
            400,
            content=b"{}",
            headers={**JSON, "content-length": "²".encode("latin-1")},
        ),
    ]


def edge_cases() -> list[Case]:
    """Found by attacking the service: each answered 500, or broke every later recall of its scope."""
    edge, top = "0001-01-01T00:00:00+14:00", "9999-12-31T23:00:00-12:00"  # no wall clock in Asia/Shanghai
    said = {"agent": "A", "person": "p", "messages": [{"text": "hi", "time": edge}]}
    return [
        Case("message time before the calendar", "POST", "/v1/messages", 422, json=said),
        Case(
            "memory time before the calendar",
            "POST",
            "/v1/memories",
            422,
            json={"agent": "A", "text": "x", "time": edge},
        ),
        Case(
            "recall from after the calendar",
            "POST",
            "/v1/recall",
            422,
            json={"agent": "A", "person": "p", "query": "x", "time_from": top},
        ),
        Case(
            "data seq not a number",
            "POST",
            "/v1/memories",
            422,
            json={"agent": "A", "text": "x", "data": {"seq": "abc"}},
        ),
        Case("taken memory id", "POST", "/v1/memories", 422, json={"agent": "A", "text": "x", "id": "{b_memory}"}),
        Case(
            "a chunk's id",
            "POST",
            "/v1/memories",
            422,
            json={"agent": "A", "text": "x", "id": "chunk_0123456789abcdef0123"},
        ),
        Case("search min_strength NaN", "GET", "/v1/search", 422, params={"agent": "A", "min_strength": "nan"}),
        Case("search since before the calendar", "GET", "/v1/search", 422, params={"agent": "A", "since": edge}),
        # without a key, a body's schema is not told: the key is checked first on every route
        *(
            Case(f"no key, bad body {path}", "POST", path, 401, json={"agent": "A", "limit": "x"}, headers={})
            for path in ("/v1/recall", "/v1/context", "/v1/links", "/v1/flush", "/v1/messages/forget")
        ),
    ]


CASES = (
    surrogate_cases()
    + number_cases()
    + type_cases()
    + encoding_cases()
    + route_cases()
    + auth_cases()
    + size_cases()
    + edge_cases()
)


def snapshot(path: Path) -> tuple[dict[str, int], str]:
    """Row counts of the stored messages, memories and persons, and a hash of every table's content."""
    digest = hashlib.sha256()
    counts: dict[str, int] = {}
    with sqlite3.connect(f"file:{path}?mode=ro", uri=True) as db:
        tables = [row[0] for row in db.execute("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")]
        for table in tables:
            rows = sorted(repr(row) for row in db.execute(f'SELECT * FROM "{table}"'))
            digest.update(f"{table}:{len(rows)}:".encode() + "\n".join(rows).encode())
            if table in ("messages", "memories", "persons"):
                counts[table] = len(rows)
    return counts, digest.hexdigest()


def typed_error(response: httpx.Response) -> bool:
    if response.headers.get("content-type") != "application/json":
        return False
    error = response.json().get("error")
    return isinstance(error, dict) and isinstance(error.get("code"), str) and isinstance(error.get("message"), str)


@pytest.fixture
def served(tmp_path: Path) -> Iterator[tuple[TestClient, Path, str]]:
    memory = AsyncMemory(tmp_path, embedder=HashEmbedder(16), config=Config(worker={"enabled": False}))
    assert isinstance(memory.store, SQLiteStore)
    app = create_app(memory, api_keys=KEYS, max_body_bytes=LIMIT, close_on_shutdown=True)
    with TestClient(app, raise_server_exceptions=False) as client:
        said = [{"text": "我家的猫叫团子", "id": "a1"}, {"text": "我喜欢莫兰迪色", "id": "a2"}]
        assert client.post("/v1/messages", json={"agent": "A", "person": "p", "messages": said}, headers=A).is_success
        assert client.post("/v1/memories", json={"agent": "A", "text": "A 的官方设定"}, headers=A).is_success
        assert client.put("/v1/persons/p", json={"agent": "A", "name": "苏霓"}, headers=A).is_success
        b_memory = client.post("/v1/memories", json={"agent": "B", "text": "B 的秘密"}, headers=ADMIN).json()["id"]
        yield client, Path(memory.store.path), b_memory


def test_the_hostile_corpus(served: tuple[TestClient, Path, str]) -> None:
    client, path, b_memory = served
    start = before = snapshot(path)
    assert start[0] == {"messages": 2, "memories": 4, "persons": 1}  # each message is indexed too
    wrong: list[str] = []
    server_errors = 0
    for case in CASES:
        json = case.json
        if isinstance(json, dict):
            json = {k: v.replace("{b_memory}", b_memory) if isinstance(v, str) else v for k, v in json.items()}
        response = client.request(
            case.method,
            case.path.replace("{b_memory}", b_memory),
            params=case.params,
            headers=case.headers,
            content=case.content,
            json=json if case.content is None else None,
        )
        server_errors += response.status_code >= 500
        if response.status_code != case.expect:
            wrong.append(f"{case.name}: {response.status_code} (expected {case.expect}) {response.text[:200]}")
        if not typed_error(response):
            wrong.append(f"{case.name}: not the typed error shape: {response.text[:200]}")
        after = snapshot(path)
        if after != before:
            wrong.append(f"{case.name}: changed the stored data {before[0]} -> {after[0]}")
        before = after
    print(f"\nhostile corpus: {len(CASES)} requests, {server_errors} answered 5xx")
    assert len(CASES) >= 100
    assert wrong == [], "\n".join(wrong)
    assert server_errors == 0
    assert snapshot(path) == start


def test_a_json_body_sent_without_its_type_is_told_what_is_missing(served: tuple[TestClient, Path, str]) -> None:
    """A valid JSON object without Content-Type was refused as "Input should be a valid dictionary"."""
    client = served[0]
    body = b'{"query": "hi", "agent": "A", "person": "p"}'
    for headers in (A, {**A, "content-type": "text/plain"}):
        answer = client.post("/v1/recall", content=body, headers=headers)
        assert answer.status_code == 422 and "Content-Type: application/json" in answer.json()["error"]["message"]
    assert client.post("/v1/recall", json={"query": "hi", "agent": "A", "person": "p"}, headers=A).status_code == 200
