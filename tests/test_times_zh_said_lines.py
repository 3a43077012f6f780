"""Lines the Chinese reader misread: a word's 一 lent to the clock after it (万一九点 read 一九点), a class hour
said at night read as this morning's, a festival's outing told with how it felt read as the next one, and
年前 with a feeling of now read as the last one. Lines that must not change are pinned beside them."""

from __future__ import annotations

from datetime import datetime

import pytest

from huiyi.text.times import find_time_phrases

MONDAY = datetime(2024, 5, 6, 10)


def read(text: str, now: datetime) -> list[tuple[str, str]]:
    return [(span.phrase, f"{span.start:%Y-%m-%d %H:%M}") for span in find_time_phrases(text, now)]


@pytest.mark.parametrize(
    ("said", "reading"),
    [
        ("万一九点我还没到，你先走", [("九点", "2024-05-06 21:00")]),
        ("统一九点集合", [("九点", "2024-05-06 21:00")]),
        ("唯一八点有空", [("八点", "2024-05-06 20:00")]),
        ("万一十点还没到", [("十点", "2024-05-06 10:00")]),
        ("统一一点集合", [("一点", "2024-05-06 13:00")]),
        # unchanged: 一点 and 十一点 of their own, a weekday's 一, a bit (一点 after 有)
        ("我一点到", [("一点", "2024-05-06 13:00")]),
        ("十一点见", [("十一点", "2024-05-06 11:00")]),
        ("周一九点开会", [("周一九点", "2024-05-06 09:00")]),
        ("有一点累", []),
    ],
)
def test_the_one_of_a_word_before_a_clock_is_not_its_hour(said: str, reading: list[tuple[str, str]]) -> None:
    """万一九点我还没到 read 一九点: the 一 of 万一 (in case), 统一, 唯一 was taken for a digit of the hour."""
    assert read(said, MONDAY) == reading
