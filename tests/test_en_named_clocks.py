"""Noon, midday and midnight are English clocks: "next Monday at noon" is 12:00 of that Monday (it was the
day's 00:00), "tomorrow at midnight" the end of tomorrow; clocks said with digits read as before."""

from __future__ import annotations

from datetime import datetime
from pathlib import Path

import pytest

from huiyi import Memory
from huiyi.config import Config
from huiyi.providers.embed import HashEmbedder
from huiyi.text.times import find_time_phrases

MONDAY = datetime(2026, 3, 2, 10, 0)


def read(text: str) -> list[tuple[str, str]]:
    return [(span.phrase, f"{span.start:%m-%d %H:%M}") for span in find_time_phrases(text, MONDAY)]


@pytest.mark.parametrize(
    ("text", "spans"),
    [
        ("next Monday at noon", [("next Monday at noon", "03-09 12:00")]),
        ("tomorrow noon", [("tomorrow noon", "03-03 12:00")]),
        ("tomorrow at 12 noon", [("tomorrow at 12 noon", "03-03 12:00")]),
        ("lunch at midday on Friday", [("at midday", "03-06 12:00"), ("Friday", "03-06 00:00")]),
        ("tomorrow at midnight", [("tomorrow at midnight", "03-04 00:00")]),
        ("tonight at midnight", [("tonight at midnight", "03-03 00:00")]),  # not shifted as "at 7:30" is
        # as before
        ("next Monday at 5pm", [("next Monday at 5pm", "03-09 17:00")]),
        ("this evening at 7:30", [("this evening at 7:30", "03-02 19:30")]),
        ("tomorrow afternoon", [("tomorrow afternoon", "03-03 12:00")]),
        ("at noonish", []),
        ("I slept till noon yesterday", [("yesterday", "03-01 00:00")]),
    ],
)
def test_named_clocks(text: str, spans: list[tuple[str, str]]) -> None:
    assert read(text) == spans


def test_a_plan_at_noon_is_dated_at_noon(tmp_path: Path) -> None:
    config = Config(language="en", worker={"enabled": False}, recall={"reinforce": False})
    with Memory(tmp_path, embedder=HashEmbedder(256), config=config, clock=lambda: MONDAY) as memory:
        memory.add(
            [{"id": "m0", "text": "I'm flying to Osaka next Monday at noon", "time": MONDAY}], agent="Ava", person="Liz"
        )
        memory.flush(agent="Ava", person="Liz")
        plans = [
            f for f in memory.memories(agent="Ava", person="Liz", kinds=["fact"]) if f.data.get("keyword") == "plan"
        ]
    assert [(plan.text, f"{plan.time:%m-%d %H:%M}") for plan in plans] == [
        ("Liz is flying to Osaka next Monday at noon (2026-03-09 12:00)", "03-09 12:00")
    ]


@pytest.mark.parametrize(
    ("text", "clock"),
    [
        ("I went to bed at midnight last night", ("at midnight", "03-02 00:00")),
        ("Last night I fell asleep at midnight", ("at midnight", "03-02 00:00")),
        ("I went to bed at 11 pm last night", ("at 11 pm", "03-01 23:00")),
        ("I woke up at 2:30 last night", ("at 2:30", "03-02 02:30")),  # the small hours after the night
        ("I got home at 7:30 last night", ("at 7:30", "03-01 19:30")),
        ("Yesterday afternoon I left work at 3:30", ("at 3:30", "03-01 15:30")),
        ("I'll go to bed at midnight tonight", ("at midnight", "03-03 00:00")),
    ],
)
def test_a_clock_alone_is_on_the_night_said(text: str, clock: tuple[str, str]) -> None:
    """Said on Monday morning, "I went to bed at midnight last night" put midnight on today, the coming night
    (Tuesday 00:00), and the line was stored as a plan: a part of a day (last night, yesterday afternoon) gave a
    clock alone no day, as a whole day does; the small hours are after the night, a bare 7:30 in its evening."""
    assert clock in read(text)
