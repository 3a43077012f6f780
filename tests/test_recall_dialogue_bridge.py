"""A dialogue's recall always takes a second round from its first hits (recall.bridge)."""

from __future__ import annotations

from datetime import datetime, timedelta
from pathlib import Path

from huiyi import Memory
from huiyi.config import Config
from huiyi.model import MemoryKind, RecallResult
from huiyi.providers.embed import HashEmbedder

T0 = datetime(2024, 4, 5, 20, 0)
KEPT = [
    "Lisa在绘画比赛中获得第一名，感到非常开心。",
    "Lisa在素描课上画了一只长颈鹿，老师表扬了她。",
    "Lisa和爸爸去动物园看长颈鹿吃树叶。",
    "Lisa在学校食堂吃到了草莓蛋糕。",
]
CHAT = ["昨天我们讨论了最喜欢的动物", "你最喜欢什么动物呀？"]
LINE = "长颈鹿！我还喜欢画长颈鹿"


def recalled(path: Path, dialogue: list[str] | None, weight: float | None = None) -> RecallResult:
    recall = {"reinforce": False, **({} if weight is None else {"dialogue_bridge_weight": weight})}
    config = Config(worker={"enabled": False}, recall=recall)
    with Memory(path, embedder=HashEmbedder(256), config=config, clock=lambda: T0 + timedelta(days=9)) as memory:
        for i, text in enumerate(KEPT):
            memory.remember(text, agent="bot", person="Lisa", kind=MemoryKind.EVENT, time=T0 + timedelta(days=i))
        return memory.recall(LINE, agent="bot", person="Lisa", limit=4, dialogue=dialogue)


def test_a_dialogues_recall_searches_again_with_what_its_first_hits_name(tmp_path: Path) -> None:
    found = recalled(tmp_path / "on", CHAT)
    assert found.info.get("bridge_words")  # the first hits' keywords, searched with the line's own words
    assert any(hit.route_scores.get("bridge", 0.0) > 0 for hit in found.hits)


def test_a_question_alone_and_weight_0_take_no_second_round(tmp_path: Path) -> None:
    assert "bridge_words" not in recalled(tmp_path / "alone", None).info  # bridge_weight (0) says for it
    assert "bridge_words" not in recalled(tmp_path / "off", CHAT, 0.0).info
