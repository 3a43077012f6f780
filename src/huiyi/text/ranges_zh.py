"""The bare end of a Chinese range of times, read from its start: 两点到三点 (the hour after two), 下周一到周五
(the Friday of that week). Read alone, each end took a reading of its own: 14:00 to 03:00, next Monday to
this Friday.
"""

from __future__ import annotations

from datetime import datetime, timedelta

from huiyi.patterns import lazy
from huiyi.text.hours_zh import NUM
from huiyi.text.periods import Range
from huiyi.text.tense_zh import WEEKDAY_ZH

__all__ = ["range_ends"]

Found = list[tuple[int, int, Range]]

_HALF = timedelta(hours=12)
_DAY = timedelta(days=1)
_TO = lazy(r"\s*(?:到|至|~|～|-|－|—)\s*")  # 两点到三点, 2点-5点
_END_CLOCK = lazy(rf"(?:{NUM}|十[一二]?)点(?:{NUM}分|半|一刻|三刻|钟|整)?")
# a weekday with no week of its own (周五, 周五晚上, not 下周五): the week is its start's
_END_WEEKDAY = lazy(WEEKDAY_ZH)
_WEEKDAY = {
    name: day for day, names in enumerate(("一1", "二2", "三3", "四4", "五5", "六6末", "日天7")) for name in names
}


def range_ends(text: str, found: Found) -> Found:
    """``found`` with the bare clock or weekday that ends a range read from the range's start.

    A clock (两点到三点, 晚上八点到十点) is the first such hour after its start, on the start's day; a weekday
    (下周一到周五, 下周一早上到周五晚上) the first such day after a start of a day or less, 周末 its weekend.

        >>> now = datetime(2024, 11, 13, 8)
        >>> found = [(0, 2, (datetime(2024, 11, 13, 14), datetime(2024, 11, 13, 15))),
        ...          (3, 5, (datetime(2024, 11, 13, 3), datetime(2024, 11, 13, 4)))]
        >>> [str(span[0]) for *_, span in range_ends("两点到三点开会", found)]
        ['2024-11-13 14:00:00', '2024-11-13 15:00:00']
        >>> from huiyi.text.times_zh import chinese_phrases
        >>> [str(span[0].date()) for *_, span in chinese_phrases("下周一到周五我出差，下周五到周末", now)]
        ['2024-11-18', '2024-11-22', '2024-11-22', '2024-11-23']
    """
    out = list(found)
    for at in range(1, len(out)):
        (_, first_end, first), (start, end, last) = out[at - 1], out[at]
        # no end read after the last days there are
        if not _TO.fullmatch(text, first_end, start) or first[0] > datetime.max - 9 * _DAY:
            continue
        if _END_CLOCK.fullmatch(text, start, end) and first[1] - first[0] <= _DAY / 4:
            out[at] = (start, end, _clock_after(first, last))
        elif (weekday := _END_WEEKDAY.match(text, start, end)) and first[1] - first[0] <= _DAY:
            ahead = (_WEEKDAY[weekday.group(1)] - first[0].weekday()) % 7 or 7
            moved = first[0].date() + ahead * _DAY - last[0].date()  # 周五晚上 keeps its evening
            out[at] = (start, end, (last[0] + moved, last[1] + moved))
    return out


def _clock_after(first: Range, last: Range) -> Range:
    """``last``'s clock at the first of its hours after ``first`` began."""
    length = last[1] - last[0]
    day = first[0].replace(hour=0, minute=0, second=0, microsecond=0)
    clock = last[0] - last[0].replace(hour=0, minute=0, second=0, microsecond=0)
    if clock >= _HALF:
        clock -= _HALF
    ends = [day + clock + k * _HALF for k in range(3)]  # 十点到十二点 at night: midnight
    after = next((e for e in ends if e > first[0]), None)
    return last if after is None else (after, after + length)
