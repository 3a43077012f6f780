"""A plan for the end of a period said while that end already runs (我月底要交方案 on the 25th: 月底 is the
21st to the 30th), or for a weekend or week already begun (这周末 said on Saturday), is still a plan: its days
still to come are its date."""

from __future__ import annotations

from datetime import date, datetime, timedelta
from pathlib import Path

import pytest

from huiyi import Memory
from huiyi.config import Config
from huiyi.model import MemoryItem
from huiyi.providers.embed import HashEmbedder
from huiyi.recall.timerange import past_plan


def plans(path: Path, text: str, said: datetime) -> list[tuple[str, datetime | None]]:
    config = Config(worker={"enabled": False}, recall={"reinforce": False})
    with Memory(path, embedder=HashEmbedder(64), config=config, clock=lambda: said + timedelta(hours=1)) as memory:
        memory.add([{"text": text, "time": said}], agent="祈煜", person="木木", index=True)
        memory.flush(agent="祈煜", person="木木")
        facts = memory.memories(agent="祈煜", person="木木", kinds=["fact"])
    return [(fact.text, fact.time) for fact in facts if fact.data.get("predicate") == "计划"]


@pytest.mark.parametrize(
    ("text", "said", "shown", "day"),
    [
        ("我月底要交方案", datetime(2024, 11, 25, 9), "木木月底（2024-11-26～2024-11-30）要交方案", date(2024, 11, 26)),
        ("我月底要交方案", datetime(2024, 11, 20, 9), "木木月底（2024-11-21～2024-11-30）要交方案", date(2024, 11, 21)),
        ("我年底要去日本", datetime(2024, 12, 5, 9), "木木年底（2024-12-06～2024-12-31）要去日本", date(2024, 12, 6)),
    ],
)
def test_a_plan_for_a_period_end_already_begun_keeps_its_days_to_come(
    tmp_path: Path, text: str, said: datetime, shown: str, day: date
) -> None:
    assert plans(tmp_path, text, said) == [(shown, datetime.combine(day, datetime.min.time()))]


def test_on_the_last_day_nothing_is_left_to_come(tmp_path: Path) -> None:
    assert plans(tmp_path, "我月底要交方案", datetime(2024, 11, 30, 9)) == []


def stored(path: Path, text: str, said: datetime) -> list[MemoryItem]:
    config = Config(worker={"enabled": False}, recall={"reinforce": False})
    with Memory(path, embedder=HashEmbedder(64), config=config, clock=lambda: said + timedelta(hours=1)) as memory:
        memory.add([{"text": text, "time": said}], agent="bot", person="Mumu", index=True)
        memory.flush(agent="bot", person="Mumu")
        facts = memory.memories(agent="bot", person="Mumu", kinds=["fact"])
    return [fact for fact in facts if fact.data.get("predicate") in ("计划", "plans")]


@pytest.mark.parametrize(
    ("text", "said", "shown", "day"),
    [
        # a weekend or a week said while it runs: its days after today, as a period's end
        ("我这周末要去看奶奶", datetime(2024, 11, 16, 10), "Mumu这周末（2024-11-17）要去看奶奶", date(2024, 11, 17)),
        ("我周末要去看奶奶", datetime(2024, 11, 16, 10), "Mumu周末（2024-11-17）要去看奶奶", date(2024, 11, 17)),
        (
            "我这周要去看奶奶",
            datetime(2024, 11, 13, 10),
            "Mumu这周（2024-11-14～2024-11-17）要去看奶奶",
            date(2024, 11, 14),
        ),
        (
            "I'm going to see my grandma this weekend",
            datetime(2024, 11, 16, 10),
            "Mumu is going to see Mumu's grandma this weekend (2024-11-17)",
            date(2024, 11, 17),
        ),
        (
            "I'm going to see my grandma this week",
            datetime(2024, 11, 13, 10),
            "Mumu is going to see Mumu's grandma this week (2024-11-14～2024-11-17)",
            date(2024, 11, 14),
        ),
    ],
)
def test_a_plan_for_a_week_already_begun_keeps_its_days_to_come(
    tmp_path: Path, text: str, said: datetime, shown: str, day: date
) -> None:
    [plan] = stored(tmp_path, text, said)
    assert (plan.text, plan.time) == (shown, datetime.combine(day, datetime.min.time()))
    # dated after it was said, it is a plan that reads as past once its days are over
    assert plan.said_at == said
    assert past_plan(plan, datetime(2024, 11, 17, 23)) == ""
    assert past_plan(plan, datetime(2024, 11, 18, 9)) != ""


@pytest.mark.parametrize("text", ["我这周末要去看奶奶", "I'm going to see my grandma this weekend", "我这周要去看奶奶"])
def test_on_the_weeks_last_day_nothing_is_left_to_come(tmp_path: Path, text: str) -> None:
    assert stored(tmp_path, text, datetime(2024, 11, 17, 10)) == []
