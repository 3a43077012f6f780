"""A like that ended (我不喜欢咖啡了 after 我喜欢喝咖啡) is not what is liked now: asked 我现在喜欢喝什么, the line
that ended it leads, and the old like gains nothing for being a like, not even from the event it is part of."""

from __future__ import annotations

from datetime import datetime, timedelta
from pathlib import Path

import pytest

from huiyi import Memory
from huiyi.config import Config

T0 = datetime(2024, 11, 1, 20, 0)


def _recall(path: Path, question: str) -> tuple[list[str], dict[str, dict[str, float]]]:
    config = Config(worker={"enabled": False}, recall={"reinforce": False})
    with Memory(path, config=config, clock=lambda: T0 + timedelta(days=8)) as memory:
        for day, text in ((0, "我喜欢喝咖啡"), (7, "我不喜欢咖啡了")):
            memory.add([{"text": text, "time": T0 + timedelta(days=day)}], agent="祈煜", person="木木", index=True)
            memory.flush(agent="祈煜", person="木木")
        found = memory.recall(question, agent="祈煜", person="木木", limit=4, explain=True)
    bonuses = found.info["bonuses"]
    assert isinstance(bonuses, dict)
    texts = {hit.id: hit.text for hit in found.hits}
    return [hit.text for hit in found.hits], {texts.get(key, key): value for key, value in bonuses.items()}


@pytest.mark.parametrize("question", ["我现在喜欢喝什么", "我现在还喜欢喝咖啡吗"])
def test_the_line_that_ended_a_like_leads_a_question_about_now(tmp_path: Path, question: str) -> None:
    hits, bonuses = _recall(tmp_path, question)
    assert hits[0] == "木木: 我不喜欢咖啡了", hits
    assert "polarity" not in bonuses.get("木木: 我喜欢喝咖啡", {})
    assert "polarity" not in bonuses.get("木木喜欢喝咖啡", {})


def test_the_old_like_said_the_same_minute_as_its_end_is_no_change(tmp_path: Path) -> None:
    """Lines stored with the same time (one add with no times, minute-stamped imports): the old like's own line
    was said 'when the fact was closed' too, and counted as the change a now-question asks for."""
    config = Config(worker={"enabled": False}, recall={"reinforce": False})
    with Memory(tmp_path, config=config, clock=lambda: T0 + timedelta(days=8)) as memory:
        for text in ("我喜欢喝咖啡", "我不喜欢咖啡了"):
            memory.add([{"text": text, "time": T0}], agent="祈煜", person="木木", index=True)
            memory.flush(agent="祈煜", person="木木")
        found = memory.recall("我现在喜欢喝什么", agent="祈煜", person="木木", limit=4, explain=True)
    bonuses = found.info["bonuses"]
    assert isinstance(bonuses, dict)
    texts = {hit.id: hit.text for hit in found.hits}
    named = {texts.get(key, key): value for key, value in bonuses.items()}
    assert "change" not in named.get("木木: 我喜欢喝咖啡", {}), named


def test_only_the_subjects_own_line_said_when_a_fact_closed_is_the_change() -> None:
    """In a group others speak the minute a like ends: 小雨's 我也是 then is no change of 木木's."""
    from huiyi.model import MemoryKind
    from huiyi.recall.latest import changes
    from huiyi.store.base import RankRow

    then = T0 + timedelta(days=7)

    def row(id_: str, kind: MemoryKind, text: str, who: str, closed: datetime | None = None) -> RankRow:
        subject = who if kind is MemoryKind.FACT else None
        return RankRow(id_, "s", kind, then, (who,), (id_,), "g", 1, text, 0.5, subject, None, closed)

    rows = {
        1: row("f_old", MemoryKind.FACT, "木木喜欢喝咖啡", "木木", closed=then),
        2: row("c_mumu", MemoryKind.CHUNK, "木木: 我不喜欢咖啡了", "木木"),
        3: row("c_xiaoyu", MemoryKind.CHUNK, "小雨: 我也是", "小雨"),
    }
    assert changes([1, 2, 3], rows, 0.35) == {2: 0.35}
