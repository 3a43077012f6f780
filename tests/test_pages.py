"""Paging a list while it changes: a page that follows a cursor neither skips nor repeats a memory when
others are written or forgotten between two pages, and a cursor reads nothing of another scope or agent."""

from __future__ import annotations

import base64
import json
from collections.abc import Iterator
from datetime import datetime
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from hypothesis import given
from hypothesis import strategies as st

from huiyi import Memory
from huiyi.client import Client
from huiyi.config import Config
from huiyi.errors import InvalidInput
from huiyi.faces.http import create_app
from huiyi.memory import AsyncMemory
from huiyi.memory.pages import cursor_after, mark_of
from huiyi.model import Job, Scope
from huiyi.providers.embed import HashEmbedder
from huiyi.store.jobs import RunReport
from huiyi.store.pages import ListMark

KEYS = {"key-qy": ["祈煜", "别人"]}
QY = {"Authorization": "Bearer key-qy"}
OFFICIAL = Scope.official("祈煜")


@pytest.fixture
def client(tmp_path: Path) -> Iterator[TestClient]:
    memory = AsyncMemory(tmp_path, embedder=HashEmbedder(16), config=Config(worker={"enabled": False}))
    with TestClient(create_app(memory, api_keys=KEYS, close_on_shutdown=True)) as test:
        yield test


def remember(client: TestClient, text: str, day: int, **where: str) -> str:
    body = {"agent": "祈煜", "text": text, "time": f"2024-05-{day:02d}T09:00:00+08:00", **where}
    made = client.post("/v1/memories", json=body, headers=QY)
    assert made.status_code == 201, made.text
    return str(made.json()["id"])


def page(client: TestClient, path: str, **params: Any) -> dict[str, Any]:
    answer = client.get(path, params={"agent": "祈煜", "limit": 2, **params}, headers=QY)
    assert answer.status_code == 200, answer.text
    return answer.json()  # type: ignore[no-any-return]


def texts(found: dict[str, Any]) -> list[str]:
    return [item["text"] for item in found["items"]]


@pytest.mark.parametrize("path", ["/v1/memories", "/v1/search"])
def test_forgetting_a_read_memory_skips_none_on_the_next_page(client: TestClient, path: str) -> None:
    ids = {remember(client, f"设定{day}", day): day for day in range(1, 6)}
    first = page(client, path)
    assert texts(first) == ["设定5", "设定4"]
    gone = first["items"][0]["id"]
    assert client.delete(f"/v1/memories/{gone}", params={"agent": "祈煜"}, headers=QY).status_code == 204
    second = page(client, path, cursor=first["next_cursor"])
    assert texts(second) == ["设定3", "设定2"] and ids


@pytest.mark.parametrize("path", ["/v1/memories", "/v1/search"])
def test_a_newer_memory_repeats_none_on_the_next_page(client: TestClient, path: str) -> None:
    for day in range(1, 6):
        remember(client, f"设定{day}", day)
    first = page(client, path)
    remember(client, "设定9", 9)
    second = page(client, path, cursor=first["next_cursor"])
    third = page(client, path, cursor=second["next_cursor"])
    assert texts(second) == ["设定3", "设定2"] and texts(third) == ["设定1"]
    assert third["next_cursor"] is None


def test_memories_on_one_time_page_by_when_written(client: TestClient) -> None:
    for n in range(5):
        remember(client, f"同日{n}", 1)
    seen: list[str] = []
    cursor = None
    while True:
        found = page(client, "/v1/memories", **({"cursor": cursor} if cursor else {}))
        seen += texts(found)
        cursor = found["next_cursor"]
        if cursor is None:
            break
    assert seen == [f"同日{n}" for n in reversed(range(5))]


def forged(**body: Any) -> str:
    fields = {"v": 1, "agent": "祈煜", "scope": "official", "key": "2030-01-01T00:00:00", "row": 2**62, **body}
    return base64.urlsafe_b64encode(json.dumps(fields).encode()).decode().rstrip("=")


@pytest.mark.parametrize("path", ["/v1/memories", "/v1/search"])
def test_a_cursor_pages_only_the_scope_it_was_made_for(client: TestClient, path: str) -> None:
    for day in range(1, 4):
        remember(client, f"木木{day}", day, person="木木")
    remember(client, "阿哲的秘密", 1, person="阿哲")
    first = page(client, path, person="木木")
    for where in ({"person": "阿哲"}, {"space": "群"}, {}, {"agent": "别人", "person": "木木"}):
        refused = client.get(path, params={"agent": "祈煜", "cursor": first["next_cursor"], **where}, headers=QY)
        assert refused.status_code == 422, where
        assert "another agent's or scope's" in refused.json()["error"]["message"]
    # a cursor made by hand for another scope is refused alike; for the caller's own, it reads only that scope
    stolen = forged(scope="person:阿哲")
    assert client.get(path, params={"agent": "祈煜", "person": "木木", "cursor": stolen}, headers=QY).status_code == 422
    own = page(client, path, person="木木", cursor=forged(scope="person:木木"))
    assert texts(own) == ["木木3", "木木2"]


@pytest.mark.parametrize(
    "cursor",
    ["x", "!!!!", "bm90IGpzb24", forged(v=2), forged(row=-1), forged(row="1"), forged(key="yesterday"),
     forged(key="2024-05-01T09:00:00+08:00"), forged(key=""), forged(extra=1),
     base64.urlsafe_b64encode(b"\xff\xfe").decode(),
     base64.urlsafe_b64encode(b"[" * 900).decode()],
)  # fmt: skip
def test_a_cursor_huiyi_did_not_make_is_refused_in_words(client: TestClient, cursor: str) -> None:
    remember(client, "设定", 1)
    for path in ("/v1/memories", "/v1/search"):
        answer = client.get(path, params={"agent": "祈煜", "cursor": cursor}, headers=QY)
        assert answer.status_code == 422, (path, answer.text)
        assert "next_cursor" in answer.json()["error"]["message"]


def test_a_cursor_and_an_offset_together_are_refused(client: TestClient) -> None:
    for day in range(1, 4):
        remember(client, f"设定{day}", day)
    first = page(client, "/v1/memories")
    for path in ("/v1/memories", "/v1/search"):
        both = client.get(path, params={"agent": "祈煜", "cursor": first["next_cursor"], "offset": 2}, headers=QY)
        assert both.status_code == 422 and "not both" in both.json()["error"]["message"]


def test_offset_pages_stay_as_they_were(client: TestClient) -> None:
    for day in range(1, 6):
        remember(client, f"设定{day}", day)
    first = page(client, "/v1/memories")
    assert first["next_offset"] == 2 and first["offset"] == 0 and first["next_cursor"]
    later = page(client, "/v1/memories", offset=4)
    assert texts(later) == ["设定1"] and later["next_offset"] is None and later["next_cursor"] is None
    assert texts(page(client, "/v1/search", offset=2)) == ["设定3", "设定2"]


def test_search_pages_only_what_matches(client: TestClient) -> None:
    for day in range(1, 7):
        remember(client, f"{'猫' if day % 2 else '狗'}{day}", day)
    first = page(client, "/v1/search", q="猫")
    assert texts(first) == ["猫5", "猫3"] and first["total"] == 3
    last = page(client, "/v1/search", q="猫", cursor=first["next_cursor"])
    assert texts(last) == ["猫1"] and last["next_cursor"] is None


@pytest.fixture
def embedded(tmp_path: Path) -> Iterator[Memory]:
    with Memory(tmp_path / "embedded", embedder=HashEmbedder(16), config=Config(worker={"enabled": False})) as memory:
        yield memory


def test_iterating_while_forgetting_sees_each_memory_once(embedded: Memory) -> None:
    iterate_while_forgetting(embedded)


def test_memory_walks_jobs_reports_and_entities_as_the_client_does(embedded: Memory) -> None:
    """One item a page: every job, report and entity once, an entity deleted mid-walk skipping none."""
    for person in ("木木", "阿哲", "小白"):
        embedded.add([f"{person}说的第{i}句话" for i in range(3)], agent="祈煜", person=person)
        embedded.flush(agent="祈煜", person=person)
        embedded.consolidate(agent="祈煜", person=person, dry_run=True)
    jobs = embedded.jobs(agent="祈煜", limit=1000)
    assert len(jobs) >= 3 and [j.id for j in embedded.iter_jobs(agent="祈煜", per_page=1)] == [j.id for j in jobs]
    reports = embedded.reports(agent="祈煜", limit=100)
    assert len(reports) >= 3
    assert [r.id for r in embedded.iter_reports(agent="祈煜", per_page=1)] == [r.id for r in reports]
    for name in ("甲", "乙", "丙", "丁"):
        embedded.create_entity(name, agent="祈煜", person="木木")
    seen = []
    for entity in embedded.iter_entities(agent="祈煜", person="木木", per_page=1):
        seen.append(entity.name)
        embedded.delete_entity(entity.id, agent="祈煜")
    assert [name for name in seen if name in "甲乙丙丁"] == ["甲", "乙", "丙", "丁"]


def iterate_while_forgetting(memory: Memory | Client) -> None:
    """Each memory read is forgotten before the next page is read, and a newer one written: none is
    skipped or repeated, and a cursor is refused for another scope."""
    for day in range(1, 8):
        memory.remember(f"设定{day}", agent="祈煜", person="木木", time=datetime(2024, 5, day, 9))
    seen = []
    for item in memory.iter_memories(agent="祈煜", person="木木", per_page=2):
        seen.append(item.text)
        memory.delete(item.id, agent="祈煜")
        if item.text == "设定6":
            memory.remember("设定9", agent="祈煜", person="木木", time=datetime(2024, 5, 9, 9))
    assert seen == [f"设定{day}" for day in range(7, 0, -1)]
    first = memory.memories_page(agent="祈煜", person="木木", limit=5)
    assert [item.text for item in first.items] == ["设定9"] and first.next_cursor is None
    with pytest.raises(InvalidInput, match="another agent's or scope's"):
        memory.memories_page(agent="祈煜", person="阿哲", cursor=memory_cursor(memory))


def memory_cursor(memory: Memory | Client) -> str:
    memory.remember("再一条", agent="祈煜", person="木木", time=datetime(2024, 5, 1, 9))
    cursor = memory.memories_page(agent="祈煜", person="木木", limit=1).next_cursor
    assert cursor is not None
    return cursor


@given(st.text(max_size=300) | st.binary(max_size=300).map(lambda raw: base64.urlsafe_b64encode(raw).decode()))
def test_any_text_as_a_cursor_is_a_mark_or_refused_in_words(text: str) -> None:
    try:
        mark_of(text, OFFICIAL)
    except InvalidInput as exc:
        assert "cursor" in str(exc)


@given(st.datetimes(), st.integers(min_value=0, max_value=2**63 - 1))
def test_a_cursor_gives_back_the_mark_it_was_made_from(key: datetime, row: int) -> None:
    mark = ListMark(key, row)
    assert mark_of(cursor_after(OFFICIAL, mark), OFFICIAL) == mark
    with pytest.raises(InvalidInput):
        mark_of(cursor_after(OFFICIAL, mark), Scope.official("别人"))


def test_jobs_page_by_cursor_in_a_header(client: TestClient) -> None:
    memory: AsyncMemory = client.app.state.memory  # type: ignore[attr-defined]
    for i in range(5):
        scope = "person:阿哲" if i < 2 else "person:木木"
        at = datetime(2024, 5, 1, 9, i)
        memory.store.enqueue_job(Job(kind="fold", agent="祈煜", key=f"k{i}", payload={"scope": scope}, created_at=at))
    first = client.get("/v1/jobs", params={"agent": "祈煜", "limit": 2}, headers=QY)
    assert [job["key"] for job in first.json()] == ["k0", "k1"]
    cursor = first.headers["Huiyi-Next-Cursor"]
    assert client.delete("/v1/persons/阿哲", params={"agent": "祈煜"}, headers=QY).json()["jobs"] == 2
    second = client.get("/v1/jobs", params={"agent": "祈煜", "limit": 2, "cursor": cursor}, headers=QY)
    assert [job["key"] for job in second.json()] == ["k2", "k3"]  # by offset, k2 and k3 were skipped
    last = client.get("/v1/jobs", params={"agent": "祈煜", "cursor": second.headers["Huiyi-Next-Cursor"]}, headers=QY)
    assert [job["key"] for job in last.json()] == ["k4"] and "Huiyi-Next-Cursor" not in last.headers
    other = client.get("/v1/jobs", params={"agent": "别人", "cursor": cursor}, headers=QY)
    assert other.status_code == 422 and "another agent's jobs" in other.json()["error"]["message"]
    refused = client.get("/v1/jobs", params={"agent": "祈煜", "cursor": forged()}, headers=QY)  # a memory cursor
    assert refused.status_code == 422 and "next_cursor" in refused.json()["error"]["message"]


def test_reports_page_by_cursor_in_a_header_past_the_cap(client: TestClient) -> None:
    memory: AsyncMemory = client.app.state.memory  # type: ignore[attr-defined]
    for n in range(5):
        at = datetime(2024, 5, 1, 9, n)
        memory.store.add_report(RunReport(id=f"rep_{n}", agent="祈煜", scope="person:木木", kind="summarize", at=at))
    memory.store.add_report(RunReport(agent="别人", scope="official", kind="summarize", at=datetime(2024, 6, 1)))
    seen: list[str] = []
    params: dict[str, Any] = {"agent": "祈煜", "limit": 2}
    while True:
        answer = client.get("/v1/reports", params=params, headers=QY)
        assert answer.status_code == 200, answer.text
        seen += [report["id"] for report in answer.json()]
        if "Huiyi-Next-Cursor" not in answer.headers:
            break
        params["cursor"] = answer.headers["Huiyi-Next-Cursor"]
    assert seen == ["rep_4", "rep_3", "rep_2", "rep_1", "rep_0"]
    first = client.get("/v1/reports", params={"agent": "祈煜", "limit": 2}, headers=QY).headers["Huiyi-Next-Cursor"]
    for other in ({"agent": "别人"}, {"agent": "祈煜", "scope": "official"}):
        refused = client.get("/v1/reports", params={**other, "cursor": first}, headers=QY)
        assert refused.status_code == 422 and "another agent's or scope's reports" in refused.text
    for cursor in (forged(), first[:-4] + "AAAA"):  # a memory cursor; one changed by hand
        refused = client.get("/v1/reports", params={"agent": "祈煜", "cursor": cursor}, headers=QY)
        assert refused.status_code == 422 and "next_cursor" in refused.json()["error"]["message"]


def test_entities_page_by_cursor_when_a_limit_is_asked(client: TestClient) -> None:
    for name in ("甲", "乙", "丙", "丁", "戊"):
        made = client.post("/v1/entities", json={"agent": "祈煜", "person": "木木", "name": name}, headers=QY)
        assert made.status_code == 201, made.text
    whole = client.get("/v1/entities", params={"agent": "祈煜", "person": "木木"}, headers=QY)
    assert [e["name"] for e in whole.json()] == ["甲", "乙", "丙", "丁", "戊"]  # no limit: the whole list
    assert "Huiyi-Next-Cursor" not in whole.headers
    first = client.get("/v1/entities", params={"agent": "祈煜", "person": "木木", "limit": 2}, headers=QY)
    assert [e["name"] for e in first.json()] == ["甲", "乙"]
    cursor = first.headers["Huiyi-Next-Cursor"]
    gone = first.json()[0]["id"]
    assert client.delete(f"/v1/entities/{gone}", params={"agent": "祈煜"}, headers=QY).status_code == 200
    params = {"agent": "祈煜", "person": "木木", "limit": 2, "cursor": cursor}
    second = client.get("/v1/entities", params=params, headers=QY)
    assert [e["name"] for e in second.json()] == ["丙", "丁"]  # by offset, 丙 was skipped
    last = client.get("/v1/entities", params={**params, "cursor": second.headers["Huiyi-Next-Cursor"]}, headers=QY)
    assert [e["name"] for e in last.json()] == ["戊"] and "Huiyi-Next-Cursor" not in last.headers
    for other in ({"agent": "别人", "person": "木木"}, {"agent": "祈煜", "person": "阿哲"}, {"agent": "祈煜"}):
        refused = client.get("/v1/entities", params={**other, "limit": 2, "cursor": cursor}, headers=QY)
        assert refused.status_code == 422 and "another agent's or scope's entities" in refused.text
    refused = client.get("/v1/entities", params={"agent": "祈煜", "person": "木木", "cursor": forged()}, headers=QY)
    assert refused.status_code == 422 and "next_cursor" in refused.json()["error"]["message"]
