"""我当时什么心情: the asker's lines that say a feeling lead the lines of the same moment (recall.feelings)."""

from __future__ import annotations

from datetime import datetime, timedelta
from pathlib import Path

from huiyi import Memory
from huiyi.config import Config
from huiyi.model import MemoryKind
from huiyi.providers.embed import HashEmbedder
from huiyi.recall import anchor, feelings
from huiyi.recall.rerank import Window
from huiyi.store.base import RankRow

T0 = datetime(2024, 4, 5, 22, 0)
CHAT = [
    ("木木", "user", "那晚搬完家了，东西都放好了"),
    ("祈煜", "assistant", "辛苦了，那晚你一定很累，别难过"),
    ("木木", "user", "那晚坐在纸箱中间有点想哭"),
    ("木木", "user", "周末去爬山了"),
    ("木木", "user", "今天中午吃了一碗面"),
    ("木木", "user", "明天要早起上班"),
]


def first(path: Path, query: str, weight: float | None = None) -> tuple[str, dict[str, object]]:
    recall = {"reinforce": False, **({} if weight is None else {"feeling_weight": weight})}
    config = Config(worker={"enabled": False}, recall=recall)
    with Memory(path, embedder=HashEmbedder(256), config=config, clock=lambda: T0 + timedelta(days=3)) as memory:
        messages = [
            {"id": f"m{i}", "speaker": who, "role": role, "text": text, "time": T0 + timedelta(minutes=i)}
            for i, (who, role, text) in enumerate(CHAT)
        ]
        memory.add(messages, agent="祈煜", person="木木", index=True, extract=False)
        found = memory.recall(query, agent="祈煜", person="木木", limit=3)
        bonuses = found.info.get("bonuses", {})
        assert isinstance(bonuses, dict)
        return found.hits[0].sources[0], {hit.sources[0]: bonuses.get(hit.id, {}) for hit in found.hits}


def row(key: int, who: str, text: str, kind: MemoryKind = MemoryKind.CHUNK) -> RankRow:
    return RankRow(f"id{key}", "person:木木", kind, T0, (who,), (f"m{key}",), "s", key, f"{who}: {text}", 0.5, None)


def test_the_askers_line_that_says_a_feeling_is_lifted_over_the_line_of_what_happened() -> None:
    window: Window = [(1, (1.0, {})), (2, (0.9, {})), (3, (0.85, {}))]
    rows: dict[int, RankRow | None] = {
        1: row(1, "木木", "那晚搬完家了，东西都放好了"),
        2: row(2, "木木", "那晚坐在纸箱中间有点想哭"),
        3: row(3, "祈煜", "那晚你一定很累，别难过"),  # the other party's feeling is not the asker's
    }
    gains = feelings.gains(window, rows, "木木", 0.2)
    assert gains == {2: 0.2} and [key for key, _ in anchor.apply(window, gains)] == [2, 1, 3]
    # a fact that says a feeling is no line of the moment; nothing to lift leaves the window as it was
    rows[2] = row(2, "木木", "木木怕孤独", MemoryKind.FACT)
    assert feelings.gains(window, rows, "木木", 0.2) == {}


def test_recall_lifts_only_when_the_asker_asks_how_they_felt(tmp_path: Path) -> None:
    _, bonuses = first(tmp_path / "on", "那晚我是什么心情")
    assert "feeling" in bonuses["m2"] and "feeling" not in bonuses.get("m1", {})
    _, bonuses = first(tmp_path / "off", "那晚我是什么心情", 0.0)
    assert not any("feeling" in b for b in bonuses.values())


def test_other_questions_and_other_people_gain_nothing(tmp_path: Path) -> None:
    _, bonuses = first(tmp_path / "what", "那晚我搬完了吗")
    assert not any("feeling" in b for b in bonuses.values())
    _, bonuses = first(tmp_path / "whose", "那晚祈煜是什么心情")  # no 我: not the asker's feelings
    assert not any("feeling" in b for b in bonuses.values())
