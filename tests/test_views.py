"""Dialogue-prompted recall: the latest line, the latest exchange and the whole dialogue, fused."""

from __future__ import annotations

from datetime import datetime
from pathlib import Path

from huiyi import Memory
from huiyi.config import Config
from huiyi.providers.embed import HashEmbedder
from huiyi.recall import views

NOW = datetime(2024, 10, 1, 20, 0)


def open_memory(path: Path) -> Memory:
    config = Config(worker={"enabled": False}, recall={"reinforce": False})
    return Memory(path, embedder=HashEmbedder(1024), config=config, clock=lambda: NOW)


def test_views_are_the_latest_line_the_exchange_and_the_dialogue() -> None:
    made = views.views_of("还记得那次吗", ["我们去海边吧", "好啊", "那天风好大"], 2000)
    assert [(v.name, v.text) for v in made] == [
        ("latest", "还记得那次吗"),
        ("exchange", "那天风好大\n还记得那次吗"),
        ("dialogue", "我们去海边吧\n好啊\n那天风好大\n还记得那次吗"),
    ]
    assert [v.name for v in views.views_of("还记得吗", ["  ", ""], 2000)] == ["latest"]
    assert views.views_of("问", ["一" * 50], 20)[-1].text == ("一" * 50 + "\n问")[-20:]


def test_an_old_line_of_the_dialogue_still_finds_its_memory(tmp_path: Path) -> None:
    with open_memory(tmp_path) as memory:
        beach = memory.remember("去年夏天和阿明在海边放风筝", agent="bot", person="u1")
        for i in range(6):
            memory.remember(f"第{i}次加班到很晚", agent="bot", person="u1")
        dialogue = ["我想起海边放风筝的事", "是吗", "最近好累", "怎么了"]
        alone = memory.recall("唉，说不清", agent="bot", person="u1", limit=7)
        viewed = memory.recall("唉，说不清", agent="bot", person="u1", limit=7, dialogue=dialogue)
        assert viewed.hits[0].id == beach.id
        # alone, the query says nothing of the beach: it does not stand out (ties are ordered by random ids)
        scores = {hit.id: hit.score for hit in alone.hits}
        assert scores.get(beach.id, 0.0) <= max(score for id_, score in scores.items() if id_ != beach.id)
        # the whole dialogue is one of the views, and what it finds is the same memory's
        assert viewed.hits[0].route_scores["dense"] > 0


def test_without_a_dialogue_recall_is_unchanged(tmp_path: Path) -> None:
    with open_memory(tmp_path) as memory:
        for text in ("猫叫团子", "狗叫旺财", "鱼叫小红"):
            memory.remember(text, agent="bot", person="u1")
        plain = memory.recall("猫叫什么", agent="bot", person="u1")
        empty = memory.recall("猫叫什么", agent="bot", person="u1", dialogue=[])
        assert [(h.id, h.score) for h in plain.hits] == [(h.id, h.score) for h in empty.hits]


def test_the_http_face_passes_the_dialogue(tmp_path: Path) -> None:
    from fastapi.testclient import TestClient

    from huiyi.faces.http import create_app
    from huiyi.memory import AsyncMemory

    config = Config(worker={"enabled": False}, recall={"reinforce": False})
    memory = AsyncMemory(tmp_path, embedder=HashEmbedder(1024), config=config)
    keys = {"key-admin": ["*"]}
    with TestClient(create_app(memory, api_keys=keys, close_on_shutdown=True)) as client:
        auth = {"Authorization": "Bearer key-admin"}
        texts = [*(f"第{i}次加班到很晚" for i in range(6)), "去年夏天和阿明在海边放风筝"]
        for text in texts:
            body = {"agent": "bot", "person": "u1", "text": text}
            assert client.post("/v1/memories", json=body, headers=auth).status_code < 300
        ask = {"agent": "bot", "person": "u1", "query": "唉，说不清", "limit": 3}
        dialogue = ["我想起海边放风筝的事", "是吗", "最近好累", "怎么了"]
        plain = client.post("/v1/recall", json=ask, headers=auth).json()
        viewed = client.post("/v1/recall", json={**ask, "dialogue": dialogue}, headers=auth).json()
    assert viewed["hits"][0]["text"] == "去年夏天和阿明在海边放风筝"
    # without the dialogue the beach does not stand out (ties are ordered by random ids)
    scores = {hit["text"]: hit["score"] for hit in plain["hits"]}
    beach = scores.get("去年夏天和阿明在海边放风筝", 0.0)
    assert beach <= max(score for text, score in scores.items() if text != "去年夏天和阿明在海边放风筝")
