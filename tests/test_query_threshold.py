"""Seed 000 §12: ``/query`` leaves out events below 0.56 on the documented similarity scale."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest
from fastapi.testclient import TestClient

from huiyi.config import Config
from huiyi.faces.http import create_app
from huiyi.memory import AsyncMemory
from huiyi.providers.embed import Embedder
from huiyi.recall.similarity import E5_FLOOR, similarity

TEXTS = ["我家的猫叫团子，是一只橘猫", "下周要去杭州出差三天", "我最近在学吉他，手指好疼"]


@pytest.fixture
def client(tmp_path: Path, e5: Embedder) -> Iterator[TestClient]:
    memory = AsyncMemory(tmp_path, embedder=e5, config=Config(worker={"enabled": False}))
    with TestClient(create_app(memory, close_on_shutdown=True)) as test:
        body = {
            "agent": "祈煜",
            "person": "木木",
            "messages": [{"text": t, "id": f"m{i}"} for i, t in enumerate(TEXTS)],
        }
        assert test.post("/v1/messages", json=body).status_code == 200
        yield test


def query(client: TestClient, text: str, **extra: object) -> dict[str, list[dict[str, object]]]:
    response = client.post("/query", json={"agent": "祈煜", "person": "木木", "query": text, "limit": 5, **extra})
    assert response.status_code == 200, response.text
    return response.json()  # type: ignore[no-any-return]


def test_default_threshold_is_seed_000s_056_on_the_similarity_scale(client: TestClient, e5: Embedder) -> None:
    events = query(client, "猫叫什么名字")["memory_events"]
    assert events and "团子" in str(events[0]["description"])
    for event in events:  # the scale is the dense cosine rescaled above the e5 floor
        scores = event["route_scores"]
        assert isinstance(scores, dict)
        assert event["similarity"] == pytest.approx(similarity(scores["dense"], E5_FLOOR), abs=1e-5)
    # about that cosine: the stored vector is of the indexed chunk, so close to the text's own
    cosine = float(np.dot(e5.embed_queries(["猫叫什么名字"])[0], e5.embed_passages([TEXTS[0]])[0]))
    assert events[0]["similarity"] == pytest.approx(similarity(cosine, E5_FLOOR), abs=0.02)


def test_events_below_056_are_left_out_unless_asked(client: TestClient) -> None:
    kept = query(client, "最近在忙什么")["memory_events"]
    everything = query(client, "最近在忙什么", score_threshold=0.0)["memory_events"]
    assert all(float(e["similarity"]) >= 0.56 for e in kept)  # type: ignore[arg-type]
    assert any(float(e["similarity"]) < 0.56 for e in everything)  # type: ignore[arg-type]
    assert len(everything) == len(TEXTS) > len(kept) > 0
    assert not any("团子" in str(e["description"]) for e in kept)


def test_an_unrelated_question_gets_no_events(client: TestClient) -> None:
    assert query(client, "银行卡密码是多少")["memory_events"] == []
    assert query(client, "银行卡密码是多少", score_threshold=0.0)["memory_events"]


def test_the_default_is_configurable_and_checked() -> None:
    assert Config().http.query_threshold == 0.56
    assert Config(http={"query_threshold": 0.9}).http.query_threshold == 0.9
    with pytest.raises(ValueError, match="similarity_floor"):
        Config(http={"similarity_floor": 1.0})
