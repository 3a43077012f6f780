"""The bare end of a Chinese range of times, read from its start: 两点到三点 (the hour after two), 下周一到周五
(the Friday of that week), 下个月1号到5号 (the 5th of that month). Read alone, each end took a reading of its
own: 14:00 to 03:00, next Monday to this Friday, 1 January to 5 December.
"""

from __future__ import annotations

from datetime import datetime, timedelta

from huiyi.patterns import lazy
from huiyi.text.doing_hours_zh import EVENING_DOING, NIGHT_WORK
from huiyi.text.hours_zh import BARE_HOUR, NUM
from huiyi.text.periods import Range, midnight, shift_month
from huiyi.text.tense_zh import WEEKDAY_ZH

__all__ = ["range_ends"]

Found = list[tuple[int, int, Range]]

_HALF = timedelta(hours=12)
_DAY = timedelta(days=1)
_TO = lazy(r"\s*(?:开始|起)?\s*(?:到|至|~|～|-|－|—)\s*")  # 两点到三点, 2点-5点, 从下周二开始到周五
# 十点睡到十一点, 九点开会到十一点: a doing between a clock and the clock it runs until (not 一到, 等到, a stop)
_DOING_TO = lazy(r"[^\s，。！？；,.!?;\d点]{1,3}(?<![一等])到\s*")
_END_CLOCK = lazy(rf"(?:{NUM}|十[一二]?)点(?:{NUM}分|半|一刻|三刻|钟|整)?")
# a weekday with no week of its own (周五, 周五晚上, not 下周五): the week is its start's
_END_WEEKDAY = lazy(WEEKDAY_ZH)
_END_DAY = lazy(rf"{NUM}[日号]")  # a day with no month of its own (5号, 五号): the month is its start's
# 九点到五点 is a working day's (09:00 to 17:00), but not 夜班, 通宵, 晚上…, 睡, 加班 (after the day's work)
_NIGHT_WORDS = r"晚|夜|宵|凌晨|睡|熬|加班"
_NIGHT_SAID = lazy(_NIGHT_WORDS)
# a night said in the range's own clause (九点到五点的夜班, 酒吧营业时间八点到两点), or a night's work in its
# sentence (我在酒吧上班，九点到两点), runs from the evening into the night; a night or a bar of another clause
# (我九点到五点上班，晚上回家做饭; …，下班去酒吧) leaves the hours as read alone
_OF_THE_NIGHT = lazy(rf"{_NIGHT_WORDS}|{EVENING_DOING}")
_NIGHT_WORK = lazy(NIGHT_WORK)
# the words of a range's sentence either side of it that may say night (我上夜班，九点到五点; 九点到五点的夜班)
_SENTENCE_BEFORE = lazy(r"[^。！？；!?;\n]{0,20}$")
_SENTENCE_AFTER = lazy(r"[^。！？；!?;\n]{0,8}")
_CLAUSE_BEFORE = lazy(r"[^，。！？；,.!?;\n]*$")
_CLAUSE_AFTER = lazy(r"[^，。！？；,.!?;\n]{0,8}")
_WEEKDAY = {
    name: day for day, names in enumerate(("一1", "二2", "三3", "四4", "五5", "六6末", "日天7")) for name in names
}


def range_ends(text: str, found: Found) -> Found:
    """``found`` with the bare clock or weekday that ends a range read from the range's start.

    A clock (两点到三点, 晚上八点到十点) is the first such hour after its start, on the start's day, and so is one a
    doing runs until when it was read before its start (我十点睡到十一点: not 11:00 that morning); two bare hours
    whose end is the smaller (九点到五点, 我九点上班到五点) a day's, morning to afternoon, or when night is said
    (我上夜班，九点到五点; 酒吧营业时间八点到两点) a night's, evening to the small hours after it;
    a weekday (下周一到周五, 下周一早上到周五晚上) the first such day after a start of a day or less, 周末 its
    weekend; a day of the month (下个月1号到5号) the first such day after its start.

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
        (first_start, first_end, first), (start, end, last) = out[at - 1], out[at]
        # no end read after the last days there are (a day of the month may move a month on)
        if first[0] > datetime.max - 40 * _DAY:
            continue
        joined = _TO.fullmatch(text, first_end, start) or _DOING_TO.fullmatch(text, first_end, start)
        if joined and (day := _day_or_night(text, (first_start, first_end, first), (start, end, last))):
            out[at - 1], out[at] = (first_start, first_end, day[0]), (start, end, day[1])
            continue
        if not _TO.fullmatch(text, first_end, start):
            if (
                last[0] < first[0]
                and _DOING_TO.fullmatch(text, first_end, start)
                and _is_clock_end(text, start, end, first)
            ):
                out[at] = (start, end, _clock_after(first, last))
            continue
        if _is_clock_end(text, start, end, first):
            out[at] = (start, end, _clock_after(first, last))
        elif (weekday := _END_WEEKDAY.match(text, start, end)) and first[1] - first[0] <= _DAY:
            ahead = (_WEEKDAY[weekday.group(1)] - first[0].weekday()) % 7 or 7
            moved = first[0].date() + ahead * _DAY - last[0].date()  # 周五晚上 keeps its evening
            out[at] = (start, end, (last[0] + moved, last[1] + moved))
        elif _END_DAY.fullmatch(text, start, end) and first[1] - first[0] <= _DAY:
            out[at] = (start, end, _day_after(first, last))
    return out


def _day_or_night(text: str, first: tuple[int, int, Range], last: tuple[int, int, Range]) -> tuple[Range, Range] | None:
    """A range of two bare hours that ends on a smaller one (九点到五点, 我九点上班到五点) read as the morning of
    ``first``'s day to that afternoon: as near as each other at 15:00 it read 21:00 to 05:00, a night's work.
    When its clause says night (夜班, 酒吧) or its sentence a night's work it is that evening to the small hours
    after it: 酒吧营业时间八点到两点 read 08:00 to 14:00 said at any hour, 我上夜班，九点到五点 09:00 to 17:00 said in
    the morning. None when either says its half (晚上九点, 21点), the end comes after the start, or another clause
    says a night that may not be the range's (我九点到五点上班，晚上回家做饭)."""
    (first_start, first_end, start), (last_start, last_end, end) = first, last
    if not (BARE_HOUR.fullmatch(text, first_start, first_end) and BARE_HOUR.fullmatch(text, last_start, last_end)):
        return None
    if start[1] - start[0] > timedelta(hours=1) or start[0] > datetime.max - _DAY:
        return None
    day = midnight(start[0])
    begins, ends = (start[0] - day) % _HALF, (end[0] - midnight(end[0])) % _HALF
    if not timedelta(0) < ends < begins:
        return None
    before = _SENTENCE_BEFORE.search(text, max(0, first_start - 20), first_start)
    after = _SENTENCE_AFTER.match(text, last_end)
    said = (before.group() if before else "") + text[first_start:last_end] + (after.group() if after else "")
    own = _CLAUSE_BEFORE.search(said, 0, len(before.group()) if before else 0)
    own_after = _CLAUSE_AFTER.match(text, last_end)
    clause = (own.group() if own else "") + text[first_start:last_end] + (own_after.group() if own_after else "")
    if _OF_THE_NIGHT.search(clause) or _NIGHT_WORK.search(said):
        begins, ends = begins + _HALF, ends + _DAY
    elif _NIGHT_SAID.search(said):
        return None
    else:
        ends += _HALF
    return (day + begins, day + begins + (start[1] - start[0])), (day + ends, day + ends + (end[1] - end[0]))


def _is_clock_end(text: str, start: int, end: int, first: Range) -> bool:
    return _END_CLOCK.fullmatch(text, start, end) is not None and first[1] - first[0] <= _DAY / 4


def _day_after(first: Range, last: Range) -> Range:
    """``last``'s day of the month in ``first``'s month, or the next month's when that is before ``first``;
    ``last`` as read where that month has no such day (31号)."""
    for months in (0, 1):
        year, month = shift_month(first[0].year, first[0].month, months)
        try:
            day = last[0].replace(year=year, month=month)
        except ValueError:
            return last
        if day.date() >= first[0].date():
            return day, day + (last[1] - last[0])
    return last


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
