"""A dialogue's recall passes over kept memories that end on a bad feeling (recall.hurts)."""

from __future__ import annotations

from datetime import datetime, timedelta
from pathlib import Path

from huiyi import Memory
from huiyi.config import Config
from huiyi.model import MemoryKind
from huiyi.providers.embed import HashEmbedder
from huiyi.recall import anchor, hurts
from huiyi.recall.rerank import Window
from huiyi.store.base import RankRow

T0 = datetime(2024, 4, 5, 20, 0)
TEASED = "运动会上同学一直嘲笑Lisa的跑步姿势，Lisa感到非常难过。"
GOT_THROUGH = "Lisa在运动会前非常紧张，最后顺利跑完了比赛，取得了第三名。"
CHAT = ["我今天在运动会上跑了最后一名", "别灰心，你尽力了吗？"]
LINE = "我尽力了，可还是跑不快，好难过"


def row(key: int, text: str, kind: MemoryKind = MemoryKind.EVENT) -> RankRow:
    return RankRow(f"id{key}", "person:Lisa", kind, T0, ("Lisa",), (f"m{key}",), "s", key, text, 0.5, None)


def test_a_kept_memory_that_ends_on_a_bad_feeling_steps_down() -> None:
    window: Window = [(1, (1.0, {})), (2, (0.9, {})), (3, (0.8, {}))]
    rows: dict[int, RankRow | None] = {
        1: row(1, TEASED),
        2: row(2, GOT_THROUGH),  # the worry turned good: kept where it is
        3: row(3, "Lisa: 运动会上被嘲笑了，好难过", MemoryKind.CHUNK),  # a chat line is what was said
    }
    losses = hurts.losses(window, rows, 0.25)
    assert losses == {1: -0.25}
    assert [key for key, _ in anchor.apply(window, losses)] == [2, 3, 1]


def test_a_bad_feeling_said_as_not_felt_or_overcome_is_no_hurt() -> None:
    assert not hurts.unresolved("Lisa打碎了花瓶，但是妈妈没有生气。")
    assert not hurts.unresolved("Bart结识了新朋友，克服了孤独感。")
    assert not hurts.unresolved("He felt anxious, and his anxiety dissipated.")
    assert hurts.unresolved("Lisa felt very disappointed with the movie.")
    assert hurts.unresolved("Lisa感到很不开心。")  # 不开心 is a bad feeling, not 开心


def bonuses(path: Path, query: str, dialogue: list[str] | None, weight: float | None = None) -> dict[str, dict]:
    """Each kept memory's bonuses in the recall, by its text."""
    recall = {"reinforce": False, **({} if weight is None else {"hurt_weight": weight})}
    config = Config(worker={"enabled": False}, recall=recall)
    with Memory(path, embedder=HashEmbedder(256), config=config, clock=lambda: T0 + timedelta(days=3)) as memory:
        for i, text in enumerate([TEASED, GOT_THROUGH]):
            memory.remember(text, agent="bot", person="Lisa", kind=MemoryKind.EVENT, time=T0 + timedelta(days=i))
        found = memory.recall(query, agent="bot", person="Lisa", limit=5, dialogue=dialogue)
        given = found.info.get("bonuses", {})
        assert isinstance(given, dict)
        return {hit.text: given.get(hit.id, {}) for hit in found.hits}


def test_a_dialogues_recall_demotes_the_hurt_and_nothing_else(tmp_path: Path) -> None:
    found = bonuses(tmp_path / "on", LINE, CHAT)
    assert found[TEASED].get("hurt") == -0.2 and "hurt" not in found[GOT_THROUGH]


def test_a_question_alone_a_question_about_feelings_and_weight_0_demote_nothing(tmp_path: Path) -> None:
    for name, query, dialogue, weight in [
        ("alone", LINE, None, None),  # asked outright, with no chat around it
        ("felt", "运动会那次我是什么心情", CHAT, None),  # recall.feelings: how the user felt is asked
        ("off", LINE, CHAT, 0.0),
    ]:
        found = bonuses(tmp_path / name, query, dialogue, weight)
        assert not any("hurt" in given for given in found.values()), name
