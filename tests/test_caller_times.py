"""Times a caller sends, read alike by every face (Python, HTTP, import files): a text only as ISO 8601,
so ``"20240501"`` is that day and a text of digits is never read as seconds since 1970."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import datetime
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from huiyi import Memory
from huiyi.errors import InvalidInput
from huiyi.faces.http import create_app
from huiyi.formats.read import read_text
from huiyi.memory import AsyncMemory
from huiyi.providers.embed import HashEmbedder

AGENT, PERSON = "祈煜", "木木"


@pytest.fixture
def memory(tmp_path: Path) -> Iterator[Memory]:
    with Memory(tmp_path / "mem", embedder=HashEmbedder(64)) as mem:
        yield mem


@pytest.fixture
def http(tmp_path: Path) -> Iterator[TestClient]:
    with TestClient(create_app(AsyncMemory(tmp_path / "http", embedder=HashEmbedder(64)))) as client:
        yield client


def said_at(memory: Memory) -> list[datetime]:
    return [m.time for m in memory.working_memory(agent=AGENT, person=PERSON)]


def test_an_iso_basic_date_is_that_day(memory: Memory) -> None:
    memory.add([{"text": "考完了", "time": "20240501"}], agent=AGENT, person=PERSON)
    assert said_at(memory) == [datetime(2024, 5, 1)]


@pytest.mark.parametrize("digits", ["1714594500", "1714594500000", "2024", "1.5e9"])
def test_a_number_in_a_text_is_refused_in_words(memory: Memory, digits: str) -> None:
    with pytest.raises(InvalidInput, match="number in a text"):
        memory.add([{"text": "考完了", "time": digits}, "another"], agent=AGENT, person=PERSON)
    assert said_at(memory) == []


def test_a_number_is_a_unix_timestamp_in_utc(memory: Memory) -> None:
    memory.add([{"text": "考完了", "time": 1714594500}], agent=AGENT, person=PERSON)
    assert said_at(memory) == [datetime(2024, 5, 2, 4, 15)]  # 20:15 UTC on Asia/Shanghai's wall clock


def test_http_reads_a_message_time_as_python_does(http: TestClient) -> None:
    said = {"agent": AGENT, "person": PERSON, "messages": [{"text": "考完了", "time": "20240501"}]}
    answer = http.post("/v1/messages", json=said)
    assert answer.status_code == 200 and answer.json()["messages"][0]["time"] == "2024-05-01T00:00:00+08:00"

    said["messages"] = [{"text": "考完了", "time": "1714594500"}, {"text": "again", "time": "20240502"}]
    refused = http.post("/v1/messages", json=said)
    assert refused.status_code == 422
    assert http.get("/v1/working_memory", params={"agent": AGENT, "person": PERSON}).json()[1:] == []


@pytest.mark.parametrize("where", ["now", "time_from", "time_to"])
def test_http_recall_refuses_a_number_in_a_text(http: TestClient, where: str) -> None:
    answer = http.post("/v1/recall", json={"agent": AGENT, "person": PERSON, "query": "考试", where: "1714594500"})
    assert answer.status_code == 422 and "number in a text" in answer.text


def test_an_import_file_reads_times_as_add_does() -> None:
    line = '{"type": "message", "agent": "祈煜", "person": "木木", "text": "考完了", "time": "20240501"}'
    (batch,) = read_text(line, "chat.jsonl", None, None, None, []).batches
    assert batch.messages[0]["time"] == datetime(2024, 5, 1)
    with pytest.raises(InvalidInput, match="number in a text"):
        read_text(line.replace("20240501", "1714594500"), "chat.jsonl", None, None, None, [])


def test_the_fast_path_and_the_validator_agree_on_text_times() -> None:
    from huiyi.flows.message_in import message_in
    from huiyi.model import MessageIn

    items: list[dict[str, Any]] = [{"text": "hi", "time": "20240501"}, {"text": "hi", "time": "2024-05-01T20:15+08:00"}]
    for item in items:
        assert message_in(item) == MessageIn.model_validate(item)


# absurd times: a clear refusal, never a 500 and never a range read wrong ----------------------------------
ABSURD = ["0001-01-01", "9999-12-31T23:59:59", "0001-01-01T00:00:00+14:00", "1" * 10_000, "NaN", "11111111"]


@pytest.mark.parametrize("where", ["now", "time_from", "time_to"])
@pytest.mark.parametrize("value", ABSURD, ids=range(len(ABSURD)))
def test_http_recall_refuses_an_absurd_time(http: TestClient, where: str, value: str) -> None:
    answer = http.post("/v1/recall", json={"agent": AGENT, "person": PERSON, "query": "考试", where: value})
    assert answer.status_code == 422 and answer.json()["error"]["code"] == "invalid_input"


@pytest.mark.parametrize("value", ABSURD, ids=range(len(ABSURD)))
def test_http_times_in_queries_and_messages_refuse_absurd_values(http: TestClient, value: str) -> None:
    who = {"agent": AGENT, "person": PERSON}
    assert http.get("/v1/overview", params={**who, "now": value}).status_code == 422
    assert http.get("/v1/search", params={**who, "since": value}).status_code == 422
    assert http.get("/v1/search", params={**who, "until": value}).status_code == 422
    assert http.post("/v1/context", json={**who, "message": "考试", "now": value}).status_code == 422
    assert http.post("/v1/debug/recall", json={**who, "message": "考试", "time": value}).status_code == 422
    said = http.post("/v1/messages", json={**who, "messages": [{"text": "hi", "time": value}]})
    assert said.status_code == 422 and http.get("/v1/working_memory", params=who).json() == []


def test_a_range_that_ends_before_it_starts_is_refused(http: TestClient, memory: Memory) -> None:
    span = {"time_from": "2024-05-02", "time_to": "2024-05-01"}
    answer = http.post("/v1/recall", json={"agent": AGENT, "person": PERSON, "query": "考试", **span})
    assert answer.status_code == 422 and "after it ends" in answer.text
    with pytest.raises(InvalidInput, match="after it ends"):
        memory.recall("考试", agent=AGENT, person=PERSON, time_range=(datetime(2024, 5, 2), datetime(2024, 5, 1)))


@pytest.mark.parametrize("when", [datetime(1, 1, 1), datetime(9999, 12, 31, 23, 59), datetime(1111, 11, 11)])
def test_python_refuses_absurd_times_as_http_does(memory: Memory, when: datetime) -> None:
    with pytest.raises(InvalidInput, match="outside the years"):
        memory.add([{"text": "hi", "time": when}], agent=AGENT, person=PERSON)  # the fast path's datetime
    assert said_at(memory) == []
    with pytest.raises(InvalidInput, match="outside the years"):
        memory.recall("考试", agent=AGENT, person=PERSON, now=when)
    with pytest.raises(InvalidInput, match="outside the years"):
        memory.recall("考试", agent=AGENT, person=PERSON, time_range=(when, None))
    with pytest.raises(InvalidInput, match="outside the years"):
        memory.overview(agent=AGENT, person=PERSON, now=when)


def test_tools_refuse_absurd_times_in_words(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import asyncio

    from huiyi.faces import tool_times
    from huiyi.faces.tools import ToolExecutor

    read: list[int] = []
    phrases = tool_times.query_time_range
    monkeypatch.setattr(tool_times, "query_time_range", lambda text, now: read.append(len(text)) or phrases(text, now))

    async def run() -> list[dict[str, Any]]:
        async with AsyncMemory(tmp_path / "tools", embedder=HashEmbedder(64)) as mem:
            executor = ToolExecutor(mem, AGENT, PERSON)
            search = [{"end": "9999-12-31"}, {"start": "0001-01-01T00:00:00+14:00"}, {"start": "明天" * 50_000}]
            answers = [await executor.run("search_memories", {"query": "考试", "time_range": r}) for r in search]
            for when in ["9999-12-31", "明天" * 50_000]:
                create = {"subject": "木木", "memory_type": "事件", "topic": "考试", "attributes": {"时间": when}}
                answers.append(await executor.run("create_memory", create))
            assert await mem.memories(agent=AGENT, person=PERSON) == []
            return answers

    for answer in asyncio.run(run()):
        assert answer["error"]["code"] in ("invalid_arguments", "invalid_input"), answer
    assert all(length <= 2000 for length in read)  # a 100 KB phrase never reaches the time-phrase search
