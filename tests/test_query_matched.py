"""Seed 000 §12: each ``/query`` memory entity lists the words that hit it (``matched_keywords``): the query's
own words and, when the 联想词 route ran, its associated words, found in the fact's text or keyword."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from huiyi.config import Config
from huiyi.faces.http import create_app
from huiyi.memory import AsyncMemory
from huiyi.providers.embed import HashEmbedder
from huiyi.recall import routes
from huiyi.text.lexicon import Lexicon

FACTS = [
    ("木木对星座和蓝玫瑰感兴趣", "兴趣"),
    ("木木喜欢温柔的颜色和莫兰迪色系", "审美"),
    ("木木对艺术和色彩有研究", "兴趣"),
    ("木木每天早上跑步", "运动"),
]


def open_client(path: Path, **recipe: object) -> TestClient:
    config = Config(worker={"enabled": False}, recall={"reinforce": False, "graph_weight": 0.0, **recipe})
    memory = AsyncMemory(path, embedder=HashEmbedder(64), config=config)
    client = TestClient(create_app(memory, close_on_shutdown=True))
    for text, keyword in FACTS:
        body = {
            "agent": "祈煜",
            "person": "木木",
            "text": text,
            "kind": "fact",
            "data": {"subject": "木木", "predicate": "", "object": "", "keyword": keyword},
        }
        assert client.post("/v1/memories", json=body).status_code == 201
    return client


@pytest.fixture
def plain(tmp_path: Path) -> Iterator[TestClient]:
    with open_client(tmp_path) as client:
        yield client


def matched(client: TestClient, query: str) -> dict[str, list[str]]:
    body = {"agent": "祈煜", "person": "木木", "query": query, "limit": 10, "score_threshold": 0.0}
    response = client.post("/query", json=body)
    assert response.status_code == 200, response.text
    return {entity["description"]: entity["matched_keywords"] for entity in response.json()["memory_entities"]}


def test_the_query_words_found_in_a_fact_are_its_matched_keywords(plain: TestClient) -> None:
    found = matched(plain, "玫瑰和兴趣")
    assert found["木木对星座和蓝玫瑰感兴趣"] == ["玫瑰", "兴趣"]  # in the text; 兴趣 is also its keyword
    assert found["木木对艺术和色彩有研究"] == ["兴趣"]  # its keyword only
    assert found.get("木木每天早上跑步", []) == []


def test_associated_words_that_hit_are_listed_when_the_expand_route_runs(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    lexicon = Lexicon.from_entries({"红色": [("玫瑰", 6), ("颜色", 5), ("色彩", 5), ("火焰", 6)]})
    monkeypatch.setattr(routes, "lexicon_for", lambda _mode: lexicon)
    with open_client(tmp_path, expand_weight=1.0) as client:
        found = matched(client, "红色")
    assert found["木木对星座和蓝玫瑰感兴趣"] == ["玫瑰"]
    assert found["木木喜欢温柔的颜色和莫兰迪色系"] == ["颜色"]
    assert found["木木对艺术和色彩有研究"] == ["色彩"]
    assert found.get("木木每天早上跑步", []) == []
