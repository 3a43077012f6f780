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
    names = ("latest", "exchange", "dialogue")
    made = views.views_of("还记得那次吗", ["我们去海边吧", "好啊", "那天风好大"], 2000, names)
    assert [(v.name, v.text) for v in made] == [
        ("latest", "还记得那次吗"),
        ("exchange", "那天风好大\n还记得那次吗"),
        ("dialogue", "我们去海边吧\n好啊\n那天风好大\n还记得那次吗"),
    ]
    assert [v.name for v in views.views_of("还记得吗", ["  ", ""], 2000, names)] == ["latest"]
    assert views.views_of("问", ["一" * 50], 20)[-1].text == ("一" * 50 + "\n问")[-20:]


def test_the_recent_view_is_the_last_three_lines_when_it_differs_from_the_others() -> None:
    every = ("latest", "exchange", "recent", "dialogue")
    made = views.views_of("还记得那次吗", ["我们去海边吧", "好啊", "那天风好大"], 2000, every)
    assert [(v.name, v.text) for v in made][2:] == [
        ("recent", "好啊\n那天风好大\n还记得那次吗"),
        ("dialogue", "我们去海边吧\n好啊\n那天风好大\n还记得那次吗"),
    ]
    # two lines before the query: the last three are the whole dialogue, searched once
    assert [v.name for v in views.views_of("问", ["一", "二"], 2000, every)] == ["latest", "exchange", "dialogue"]
    # asked for alone where it would repeat the dialogue, the widest view stands in
    assert [v.text for v in views.views_of("问", ["一", "二"], 2000, ["recent"])] == ["一\n二\n问"]
    # the default: the recent lines and the whole dialogue, each memory's best cosine over them
    recipe = Config().recall
    assert (recipe.views, recipe.view_pool) == (["recent", "dialogue"], "max")
    made = views.views_of("还记得那次吗", ["我们去海边吧", "好啊", "那天风好大"], 2000)
    assert [v.name for v in made] == recipe.views


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


def test_the_recent_lines_are_found_past_a_long_talk_about_something_else(tmp_path: Path) -> None:
    with open_memory(tmp_path) as memory:
        kite = memory.remember("去年夏天和阿明在海边放风筝", agent="bot", person="u1")
        work = memory.remember("连续加班到很晚，累坏了", agent="bot", person="u1")
        for i in range(5):
            memory.remember(f"第{i}次吃面条", agent="bot", person="u1")
        talk = ["最近加班好累", "又加班了吗", "天天加班到很晚", "辛苦了", "加班真的累坏了", "休息一下吧"]
        dialogue = [*talk, "我想起海边放风筝的事", "和阿明那次吗"]
        viewed = memory.recall("对，那个", agent="bot", person="u1", limit=3, dialogue=dialogue)
        assert viewed.hits[0].id == kite.id
        # the whole dialogue as the only view: the long talk about work outweighs the last lines
        only = memory.config.recall.model_copy(update={"views": ["dialogue"]})
        whole = memory.recall("对，那个", agent="bot", person="u1", limit=3, dialogue=dialogue, recipe=only)
        assert whole.hits[0].id == work.id


def test_a_query_of_several_lines_is_a_dialogue(tmp_path: Path) -> None:
    assert views.split("纸箱买少了\n还差多少？\n 我到底哪天走啊 ") == ("我到底哪天走啊", ("纸箱买少了", "还差多少？"))
    assert views.split("  猫叫什么\n") == ("  猫叫什么\n", ())
    with open_memory(tmp_path) as memory:
        for text in ("今天去江边跑了五公里", "四月二十一号要跑无锡半马", "阳台上堆满了纸箱"):
            memory.remember(text, agent="bot", person="u1", time=datetime(2024, 3, 3))
        joined = memory.recall("今天是赛前最后一次长距离了\n比赛是几号来着", agent="bot", person="u1")
        apart = memory.recall("比赛是几号来着", agent="bot", person="u1", dialogue=["今天是赛前最后一次长距离了"])
        assert [(h.id, h.score) for h in joined.hits] == [(h.id, h.score) for h in apart.hits]
        assert joined.query == "今天是赛前最后一次长距离了\n比赛是几号来着"  # the caller's query, as sent
        # the chat's 今天 is not the question's time: only the line asked names one
        assert "time_span" not in joined.info
        assert "time_span" in memory.recall("比赛是几号\n今天跑了多远", agent="bot", person="u1").info


def test_the_words_of_the_line_asked_weigh_more_than_the_chat_before_it(tmp_path: Path) -> None:
    def first(path: Path, latest: float | None) -> str:
        recall = {"reinforce": False, "dense_weight": 0.0, "keyword_weight": 1.0}
        config = Config(
            worker={"enabled": False}, recall={**recall, **({} if latest is None else {"keyword_latest": latest})}
        )
        with Memory(path, embedder=HashEmbedder(64), config=config, clock=lambda: NOW) as memory:
            boxes = memory.remember("新家有个小阳台，晚上坐在一堆纸箱中间", agent="bot", person="u1")
            flower = memory.remember("朋友送了我一束洋桔梗，我最喜欢的花就是这个", agent="bot", person="u1")
            for text in ("今天加班到很晚", "周末去爬山了"):
                memory.remember(text, agent="bot", person="u1")
            dialogue = ["新家阳台终于收拾好了", "那得放点什么装饰一下"]
            found = memory.recall("想买束花摆桌上，你还记得我最爱哪一种吗", agent="bot", person="u1", dialogue=dialogue)
            names = {boxes.id: "boxes", flower.id: "flower"}
            return names[found.hits[0].id]

    # every line's words alike: the chat's 新家 and 阳台 outweigh the question's 花
    assert first(tmp_path / "flat", 0.0) == "boxes"
    assert first(tmp_path / "latest", None) == "flower"
