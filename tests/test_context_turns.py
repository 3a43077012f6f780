"""A turn's context is the same however its recall's routes are run (issue 15: a bot's turn never waits on
memory): embedded now, with the keyword search on a thread meanwhile, or with every vector known already,
all on the calling thread."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from datetime import datetime
from pathlib import Path
from typing import Any

import pytest

from huiyi import Memory
from huiyi.config import Config
from huiyi.providers.embed import CachedEmbedder, HashEmbedder
from huiyi.recall import views

NOW = datetime(2024, 10, 1, 20, 0)
TURNS: list[dict[str, Any]] = [
    {"person": "u1", "message": "你还记得我家猫叫什么吗", "last_reply": "今天过得怎么样？"},
    {"person": "u1", "message": "周末想去海边放风筝", "last_reply": ""},
    {"person": "u1", "message": "阿明最近怎么样", "last_reply": "他上次说要去杭州", "limit": 3},
    {"person": "u2", "space": "g1", "message": "上次聚餐是在哪家火锅店", "last_reply": "大家晚上好"},
    {"person": "u2", "space": "g1", "message": "苏霓说的那本书叫什么", "last_reply": "我在看书呢"},
]


@pytest.fixture
def memory(tmp_path: Path) -> Iterator[Memory]:
    config = Config(worker={"enabled": False}, recall={"reinforce": False})
    embedder = CachedEmbedder(HashEmbedder(256))
    with Memory(tmp_path, embedder=embedder, config=config, clock=lambda: NOW) as made:
        for text in ("我家猫叫布丁，橘色的", "去年夏天和阿明在海边放风筝", "阿明搬去杭州工作了", "最近加班很累"):
            made.remember(text, agent="bot", person="u1")
        for text in ("上次聚餐在老码头火锅", "苏霓推荐了《小王子》", "周五晚上一起打球"):
            made.remember(text, agent="bot", space="g1")
        made.add(
            [
                {"speaker": "u2", "role": "user", "text": "大家晚上好"},
                {"speaker": "苏霓", "role": "user", "text": "我在看书呢"},
                {"speaker": "bot", "role": "assistant", "text": "在看什么书？"},
            ],
            agent="bot",
            space="g1",
            extract=False,
        )
        yield made


def _turn(memory: Memory, turn: dict[str, Any]) -> tuple[str, list[tuple[str, float]]]:
    context = memory.context(agent="bot", now=NOW, **turn)
    return context.text, [(hit.id, hit.score) for hit in context.recall.hits] if context.recall else []


def test_a_turn_whose_vectors_are_known_renders_what_embedding_them_did(
    memory: Memory, monkeypatch: pytest.MonkeyPatch
) -> None:
    threads: list[bool] = []
    searched = views.keyword

    def keyword(*args: Any, **kwargs: Any) -> Any:
        threads.append(threading.current_thread() is threading.main_thread())
        return searched(*args, **kwargs)

    monkeypatch.setattr(views, "keyword", keyword)
    first = [_turn(memory, turn) for turn in TURNS]  # embedded now: the keyword search on a thread meanwhile
    assert threads == [False] * len(TURNS)
    threads.clear()
    again = [_turn(memory, turn) for turn in TURNS]  # every view's vector known: nothing to wait on
    assert threads == [True] * len(TURNS)
    assert again == first
    assert all(hits for _, hits in first)


def test_a_turn_renders_its_hits_as_recall_loaded_them(memory: Memory, monkeypatch: pytest.MonkeyPatch) -> None:
    first = [_turn(memory, turn) for turn in TURNS]

    def reread(*args: Any) -> Any:
        raise AssertionError("the hits were loaded whole by recall a moment ago")

    monkeypatch.setattr(memory.core.store, "get_memories", reread)
    assert [_turn(memory, turn) for turn in TURNS] == first
