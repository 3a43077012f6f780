"""A bare weekday (周一, 星期三, 周末) is read as this week's, which may be over: said on a Friday, 我周一要去体检
is next Monday, not the Monday gone, and the plan is dated by it. A clause that says it happened (周一体检完了)
keeps the day just past."""

from __future__ import annotations

from datetime import datetime, timedelta
from pathlib import Path

from huiyi import Memory
from huiyi.config import Config
from huiyi.providers.embed import HashEmbedder
from huiyi.text.times import find_time_phrases

FRIDAY = datetime(2024, 11, 22, 20, 0)
MONDAY = datetime(2024, 11, 18, 20, 0)


def days(text: str, now: datetime) -> list[str]:
    return [f"{span.start:%m-%d}..{span.end - timedelta(seconds=1):%m-%d}" for span in find_time_phrases(text, now)]


def test_a_weekday_gone_this_week_said_of_a_time_to_come_is_next_weeks() -> None:
    assert days("我周一要去体检", FRIDAY) == ["11-25..11-25"]
    assert days("星期三我打算去面试", FRIDAY) == ["11-27..11-27"]
    assert days("我周末要去外滩看夜景", MONDAY) == ["11-23..11-24"]
    # still ahead this week, said done, or nothing said of its tense: as before
    assert days("我周六要去体检", FRIDAY) == ["11-23..11-23"]
    assert days("周一体检完了，一切正常", FRIDAY) == ["11-18..11-18"]
    assert days("周一的会开得很累", FRIDAY) == ["11-18..11-18"]
    assert days("周末干嘛了", MONDAY) == ["11-16..11-17"]


def test_a_plan_for_a_bare_weekday_is_dated_by_the_coming_one(tmp_path: Path) -> None:
    config = Config(worker={"enabled": False}, recall={"reinforce": False})
    with Memory(
        tmp_path, embedder=HashEmbedder(64), config=config, clock=lambda: FRIDAY + timedelta(hours=1)
    ) as memory:
        memory.add([{"text": "我周一要去体检", "time": FRIDAY}], agent="祈煜", person="木木", index=True)
        memory.flush(agent="祈煜", person="木木")
        texts = [item.text for item in memory.memories(agent="祈煜", person="木木", kinds=["fact", "event"])]
    assert any("2024-11-25" in text for text in texts), texts
    assert not any("2024-11-18" in text for text in texts), texts
