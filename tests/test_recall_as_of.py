"""Recall as of a moment: asked with an explicit ``now``, what was said after it is not known yet.

A replayed chat (an import, an evaluation) holds messages said after the question; a companion asked on
the 20th does not remember the 10th of next month.
"""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest

from huiyi import Memory
from huiyi.config import Config
from huiyi.model import MemoryKind
from huiyi.providers.embed import HashEmbedder

CLOCK = datetime(2024, 5, 1, 12, 0)


def open_memory(path: Path) -> Memory:
    config = Config(worker={"enabled": False}, recall={"reinforce": False})
    return Memory(path, embedder=HashEmbedder(1024), config=config, clock=lambda: CLOCK)


def chat(memory: Memory) -> None:
    memory.add(
        [
            {"id": "m1", "text": "阿哲在深圳上班，我们异地快一年了", "time": datetime(2024, 3, 5, 23, 0)},
            {"id": "m2", "text": "阿哲今天在海边发了朋友圈，深圳的海", "time": datetime(2024, 4, 10, 22, 0)},
        ],
        agent="bot",
        person="u1",
        index=True,
    )


def sources(memory: Memory, **kwargs: object) -> list[str]:
    found = memory.recall("阿哲在深圳", agent="bot", person="u1", kinds=[MemoryKind.CHUNK], **kwargs)  # type: ignore[arg-type]
    return [source for hit in found.hits for source in hit.sources]


def test_a_message_said_after_the_moment_asked_is_not_recalled(tmp_path: Path) -> None:
    with open_memory(tmp_path) as memory:
        chat(memory)
        assert sources(memory, now=datetime(2024, 3, 20, 12, 0)) == ["m1"]
        # asked after both, both are there; without a moment, the clock's (after both) holds
        assert set(sources(memory, now=datetime(2024, 4, 11))) == {"m1", "m2"}
        assert set(sources(memory)) == {"m1", "m2"}


def test_a_plan_about_a_later_day_is_kept_when_it_was_said_before(tmp_path: Path) -> None:
    with open_memory(tmp_path) as memory:
        said = datetime(2024, 4, 10, 20, 0)  # a Wednesday: 下周日 is the 21st
        memory.add([{"id": "p1", "text": "我下周日去无锡跑半马", "time": said}], agent="bot", person="u1", index=True)
        memory.flush(agent="bot", person="u1")
        plans = [i for i in memory.memories(agent="bot", person="u1", kinds=["fact"]) if i.said_at is not None]
        assert plans and plans[0].time is not None and plans[0].time > datetime(2024, 4, 14)
        found = memory.recall("无锡半马", agent="bot", person="u1", now=datetime(2024, 4, 14), kinds=["fact"])
        assert plans[0].id in [hit.id for hit in found.hits]  # said on the 10th, about the 21st: known on the 14th
        earlier = memory.recall("无锡半马", agent="bot", person="u1", now=datetime(2024, 4, 9), kinds=["fact"])
        assert plans[0].id not in [hit.id for hit in earlier.hits]  # not said yet on the 9th


def test_an_aware_moment_is_read_in_the_configured_zone(tmp_path: Path) -> None:
    # the store keeps wall clock of the configured zone (Asia/Shanghai by default); a bot that passes
    # now=datetime.now(UTC) must not find the last eight hours "said later" and lose them
    shanghai = ZoneInfo("Asia/Shanghai")
    with open_memory(tmp_path) as memory:
        chat(memory)
        utc_moment = datetime(2024, 4, 10, 14, 30, tzinfo=UTC)  # 22:30 in Shanghai: after m2 (22:00)
        assert set(sources(memory, now=utc_moment)) == {"m1", "m2"}
        assert sources(memory, now=datetime(2024, 4, 10, 21, 30, tzinfo=shanghai)) == ["m1"]


def test_an_aware_time_range_is_read_in_the_configured_zone_and_a_bad_one_refused(tmp_path: Path) -> None:
    from huiyi.errors import InvalidInput

    with open_memory(tmp_path) as memory:
        chat(memory)
        since = datetime(2024, 4, 10, 13, 30, tzinfo=UTC)  # 21:30 in Shanghai: before m2 (22:00), after m1
        assert sources(memory, time_range=(since, None)) == ["m2"]
        assert sources(memory, time_range=(None, since)) == ["m1"]
        for bad in ((since,), ("2024-04-10", None), since):
            with pytest.raises(InvalidInput, match="time_range"):
                sources(memory, time_range=bad)


def test_an_aware_message_time_is_stored_as_the_configured_zones_wall_clock(tmp_path: Path) -> None:
    with open_memory(tmp_path) as memory:
        said = datetime(2024, 4, 10, 14, 0, tzinfo=UTC)
        stored = memory.add([{"text": "今天去海边了", "time": said}], agent="bot", person="u1")
        assert stored[0].time == datetime(2024, 4, 10, 22, 0)  # what the chat's 今天 and the prompt mean


def test_the_overview_of_a_context_asked_at_a_moment_holds_only_what_was_said_by_then(tmp_path: Path) -> None:
    with open_memory(tmp_path) as memory:
        memory.add(
            [
                {"id": "e1", "text": "周末和朋友去爬了紫金山，累坏了", "time": datetime(2024, 3, 2, 20, 0)},
                {"id": "e2", "text": "今天去苏州出差，见了两个客户", "time": datetime(2024, 3, 20, 21, 0)},
            ],
            agent="bot",
            person="u1",
            index=True,
        )
        memory.flush(agent="bot", person="u1")
        assert [s for item in memory.overview(agent="bot", person="u1") for s in item.sources] == ["e1", "e2"]
        then = memory.context(agent="bot", person="u1", message="最近怎么样", now=datetime(2024, 3, 10))
        assert [s for item in then.overview for s in item.sources] == ["e1"]
        assert "紫金山" in then.text and "苏州" not in then.text
        # the overview alone, as of a moment
        assert [i.sources for i in memory.overview(agent="bot", person="u1", now=datetime(2024, 3, 10))] == [["e1"]]


def test_the_http_face_asks_the_context_and_the_overview_as_of_a_moment(tmp_path: Path) -> None:
    from fastapi.testclient import TestClient

    from huiyi.faces.http import create_app
    from huiyi.memory import AsyncMemory

    config = Config(worker={"enabled": False}, recall={"reinforce": False})
    memory = AsyncMemory(tmp_path, embedder=HashEmbedder(1024), config=config, clock=lambda: CLOCK)
    auth = {"Authorization": "Bearer key-admin"}
    with TestClient(create_app(memory, api_keys={"key-admin": ["*"]}, close_on_shutdown=True)) as client:
        said = [
            {"id": "e1", "text": "周末和朋友去爬了紫金山，累坏了", "time": "2024-03-02T20:00:00"},
            {"id": "e2", "text": "今天去苏州出差，见了两个客户", "time": "2024-03-20T21:00:00"},
        ]
        body = {"agent": "bot", "person": "u1", "messages": said, "index": True}
        assert client.post("/v1/messages", json=body, headers=auth).status_code < 300
        assert client.post("/v1/flush", json={"agent": "bot", "person": "u1"}, headers=auth).status_code < 300
        ask = {"agent": "bot", "person": "u1"}
        now = "2024-03-10T00:00:00"
        everything = client.get("/v1/overview", params=ask, headers=auth).json()
        then = client.get("/v1/overview", params={**ask, "now": now}, headers=auth).json()
        context = client.post("/v1/context", json={**ask, "message": "最近怎么样", "now": now}, headers=auth).json()
    assert [s for item in everything for s in item["sources"]] == ["e1", "e2"]
    assert [s for item in then for s in item["sources"]] == ["e1"]
    assert "紫金山" in context["text"] and "苏州" not in context["text"]


def test_a_day_s_summary_is_not_known_before_the_day_is_over(tmp_path: Path) -> None:
    # a daily summary is timed at its day's midnight but tells the whole day: asked at 08:00 of that day,
    # it would tell what is said at 23:00
    with open_memory(tmp_path) as memory:
        memory.add(
            [{"id": "n1", "text": "晚上阿哲从深圳回来了", "time": datetime(2024, 4, 10, 23, 0)}],
            agent="bot",
            person="u1",
            index=True,
        )
        made = memory.summarize(datetime(2024, 4, 10).date(), agent="bot", person="u1")
        assert made
        made_ids = {item.id for item in made}

        def summaries(moment: datetime) -> set[str]:
            found = memory.recall("阿哲深圳", agent="bot", person="u1", now=moment, kinds=["summary"], limit=20)
            return {hit.id for hit in found.hits}

        assert summaries(datetime(2024, 4, 10, 8, 0)) == set()
        assert summaries(datetime(2024, 4, 11, 0, 0)) == made_ids
        assert summaries(CLOCK) == made_ids
