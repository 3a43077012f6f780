"""A month of chat repeats itself: the summaries and the overview keep what the days said, not their routine.

A companion-month audit: late in the month the overview (前情提要) showed 段子, 好累, 下雨, 麻辣烫 and a lone
祈煜说：辛苦了，早点休息。; the day after a pet died, the daily summary dropped 还是很想豆豆 and
今天把它的窝收起来了 for filler, and every day's topics began with the same 有点咸、段子.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from datetime import date, datetime
from pathlib import Path

import pytest

from fake_openai import FakeOpenAI
from huiyi import Memory
from huiyi.config import Config
from huiyi.model import MemoryItem
from huiyi.providers.embed import HashEmbedder

AGENT = "祈煜"
NOW = datetime(2024, 9, 6, 9, 0)

# (hour, minute, speaker or "" for the person, text); each line half an hour or more from the next
ROUTINE_ZH = [
    (12, 0, "", "中午又吃了麻辣烫，有点咸"),
    (13, 0, "", "同事讲了个段子，笑死"),
    (17, 0, "", "外面下雨了，没带伞"),
    (19, 0, "", "下班了，好累"),
    (22, 0, AGENT, "辛苦了，早点休息。"),
]
LOSS_ZH = [
    (8, 0, "", "豆豆今天早上走了，它陪了我十二年"),
    (8, 1, AGENT, "抱抱你，豆豆一定很幸福"),
]
AFTER_ZH = [
    (8, 30, "", "还是很想豆豆"),
    (9, 30, "", "今天把它的窝收起来了"),
]
ROUTINE_EN = [
    (12, 0, "", "Had spicy noodles for lunch again, a bit salty"),
    (13, 0, "", "A coworker told a silly joke about printers"),
    (17, 0, "", "It is raining outside and I forgot my umbrella"),
    (19, 0, "", "Finally off work, so tired"),
    (22, 0, AGENT, "Good job today, get some rest."),
]
LOSS_EN = [(8, 0, "", "Biscuit passed away this morning, she was with me for twelve years")]
AFTER_EN = [
    (8, 30, "", "I still miss Biscuit so much"),
    (9, 30, "", "Today I packed away her bed and her bowl"),
]


@pytest.fixture
def memory(tmp_path: Path) -> Iterator[Memory]:
    config = Config(worker={"enabled": False})
    with Memory(tmp_path, embedder=HashEmbedder(64), config=config, clock=lambda: NOW) as opened:
        yield opened


def month(memory: Memory, person: str, days: dict[int, Sequence[tuple[int, int, str, str]]]) -> None:
    """Each day's lines in September 2024, folded at the end of the day."""
    for day, lines in days.items():
        memory.add(
            [
                {
                    "text": text,
                    "role": "assistant" if speaker == AGENT else "user",
                    "time": datetime(2024, 9, day, hour, minute),
                }
                for hour, minute, speaker, text in sorted(lines)
            ],
            agent=AGENT,
            person=person,
        )
        memory.flush(agent=AGENT, person=person)


def daily(memory: Memory, person: str, day: int) -> MemoryItem:
    written = memory.summarize(date(2024, 9, day), agent=AGENT, person=person)
    return next(item for item in written if item.data["summary_kind"] == "daily")


def test_the_day_after_a_loss_keeps_what_was_said_of_it_over_the_days_routine(memory: Memory) -> None:
    month(memory, "木木", {1: ROUTINE_ZH, 2: LOSS_ZH + ROUTINE_ZH, 3: AFTER_ZH + ROUTINE_ZH, 4: ROUTINE_ZH})
    summary = daily(memory, "木木", 3)
    assert "还是很想豆豆" in summary.text and "今天把它的窝收起来了" in summary.text
    assert "辛苦了" not in summary.text  # the agent's sign-off says nothing of the day
    # topics: what this day said, before what every day says
    assert summary.keywords[0] in {"豆豆", "很想", "收起来"}
    assert daily(memory, "木木", 4).keywords[:2] != summary.keywords[:2]


def test_the_overview_late_in_a_month_keeps_what_mattered_over_the_routine(memory: Memory) -> None:
    month(memory, "木木", {1: ROUTINE_ZH, 2: LOSS_ZH + ROUTINE_ZH, 3: AFTER_ZH + ROUTINE_ZH, 4: ROUTINE_ZH})
    overview = memory.overview(agent=AGENT, person="木木")
    texts = [item.text for item in overview]
    assert any("还是很想豆豆" in text for text in texts)
    assert any("窝收起来" in text for text in texts)
    assert not any(text.startswith(f"{AGENT}说：辛苦了") for text in texts)  # a lone pleasantry of the agent's
    assert len(overview) <= 10
    # still a recap of the latest days, oldest first
    said = [item.said_at or item.time for item in overview]
    assert said == sorted(said)  # type: ignore[type-var]
    section = memory.context(agent=AGENT, person="木木", message="早").rendered.sections["overview"]
    assert "还是很想豆豆" in section and "辛苦了，早点休息" not in section


def test_an_english_day_after_a_loss_keeps_what_was_said_of_it(memory: Memory) -> None:
    month(memory, "Mia", {1: ROUTINE_EN, 2: LOSS_EN + ROUTINE_EN, 3: AFTER_EN + ROUTINE_EN, 4: ROUTINE_EN})
    summary = daily(memory, "Mia", 3)
    assert "miss Biscuit" in summary.text and "packed away her bed" in summary.text
    assert "Good job today" not in summary.text
    overview = " ".join(item.text for item in memory.overview(agent=AGENT, person="Mia"))
    assert "miss Biscuit" in overview and "Good job today" not in overview


def test_a_short_history_keeps_every_event_in_the_overview(memory: Memory) -> None:
    month(memory, "木木", {1: ROUTINE_ZH})
    assert len(memory.overview(agent=AGENT, person="木木")) == len(ROUTINE_ZH)


# an LLM's events tell the agent's lines in its own words: no 祈煜说： to read them by
LLM_DAY = [
    ("u1", "user", "今天面试通过了", "木木今天面试通过了。"),
    ("u2", "user", "晚上去吃了火锅庆祝", "木木晚上去吃火锅庆祝。"),
    ("a1", "assistant", "辛苦了，早点休息。", "祈煜叮嘱木木早点休息。"),
]


def test_an_llm_event_of_the_agents_lines_alone_gives_way_by_its_sources(tmp_path: Path) -> None:
    """Each LLM event cites one message; all weigh the same, so only their sources tell the agent's apart."""
    events = [
        {
            "text": told,
            "time": f"2024-09-03 20:{10 * at:02d}",
            "place": "",
            "participants": ["木木", AGENT],
            "keywords": [],
            "insight": "",
            "importance": 0.6,
            "sources": [f"m{at + 1}"],
        }
        for at, (_, _, _, told) in enumerate(LLM_DAY)
    ]
    small = {"worker": {"enabled": False}, "overview": {"size": 2}, "summary": {"daily_items": 2}}
    with FakeOpenAI() as server:
        server.script_chat(json_content={"events": events, "facts": [], "entities": []})
        config = Config(llm={"base_url": server.base_url, "model": "fake-model", "max_retries": 0}, **small)
        with Memory(tmp_path, embedder=HashEmbedder(64), config=config, clock=lambda: NOW) as memory:
            memory.add(
                [
                    {"id": mid, "role": role, "text": text, "time": datetime(2024, 9, 3, 20, 10 * at)}
                    for at, (mid, role, text, _) in enumerate(LLM_DAY)
                ],
                agent=AGENT,
                person="木木",
            )
            memory.flush(agent=AGENT, person="木木")
            memory.run_jobs()
            overview = [item.text for item in memory.overview(agent=AGENT, person="木木")]
    assert overview == ["木木今天面试通过了。", "木木晚上去吃火锅庆祝。"]
    # the extractive daily summary of those events (the LLM gone) weighs them the same way
    with Memory(tmp_path, embedder=HashEmbedder(64), config=Config(**small), clock=lambda: NOW) as memory:
        summary = daily(memory, "木木", 3)
    assert "面试通过" in summary.text and "火锅" in summary.text and "早点休息" not in summary.text
