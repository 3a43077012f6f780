"""A plan whose day has passed reads as past in the context: 木木下周三（2024-11-06）要去面试, asked about on
11-28 (下周我要干嘛), is no longer what 木木 will do."""

from __future__ import annotations

from datetime import datetime
from pathlib import Path

import pytest

from huiyi import Memory
from huiyi.config import Config
from huiyi.providers.embed import HashEmbedder

SAID = datetime(2024, 10, 30, 20, 0)  # a Wednesday: 下周三 is 2024-11-06


def plan_line(path: Path, text: str, now: datetime, question: str) -> str:
    config = Config(worker={"enabled": False}, recall={"reinforce": False})
    with Memory(path, embedder=HashEmbedder(256), config=config, clock=lambda: now) as memory:
        memory.add([{"text": text, "time": SAID}], agent="祈煜", person="木木", index=True)
        memory.flush(agent="祈煜", person="木木")
        fragments = memory.context(agent="祈煜", person="木木", message=question).text
    return next(line for line in fragments.splitlines() if line.startswith("木木") and "要" in line)


@pytest.mark.parametrize(
    ("now", "line"),
    [
        (datetime(2024, 11, 28, 20), "木木下周三（2024-11-06）要去面试（计划于2024-11-06，已经过去）"),
        (datetime(2024, 11, 6, 20), "木木下周三（2024-11-06）要去面试"),  # the day itself is not over
        (datetime(2024, 11, 1, 9), "木木下周三（2024-11-06）要去面试"),
    ],
)
def test_a_plan_whose_day_is_over_reads_as_past(tmp_path: Path, now: datetime, line: str) -> None:
    assert plan_line(tmp_path, "我下周三要去面试", now, "下周我要干嘛") == line


def test_a_plan_over_days_is_past_only_after_its_last(tmp_path: Path) -> None:
    text = "我下个月要去云南旅游"  # 2024-11-01～2024-11-30
    assert "已经过去" not in plan_line(tmp_path, text, datetime(2024, 11, 28, 20), "我最近要干嘛")
    assert "已经过去" in plan_line(tmp_path / "later", text, datetime(2024, 12, 1, 10), "我最近要干嘛")


@pytest.mark.parametrize(
    ("now", "past"),
    [(datetime(2024, 10, 31, 9), True), (datetime(2024, 10, 30, 22), True), (datetime(2024, 10, 30, 21, 30), False)],
)
def test_a_plan_for_later_the_same_day_is_past_after_its_hour(tmp_path: Path, now: datetime, past: bool) -> None:
    # said at 20:00 for 21:00 the same day: its said time was dropped as "the same day", so never past
    line = plan_line(tmp_path, "我今晚九点要去看电影", now, "我最近要干嘛")
    assert line.startswith("木木今晚九点（2024-10-30 21:00）要去看电影")
    assert ("已经过去" in line) is past
