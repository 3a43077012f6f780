"""The day a bare clock is on: a clock time said after a day in one message (明晚的事定了…时间还是七点) is on
that day, and one read as still to come after a past day (昨天的会开到十一点半) on that day when it is over by
now. The pass takes the phrases :func:`huiyi.text.times_zh.chinese_phrases` found, as (start, end, range) in
reading order, with ``resolve``, the finder's reader of a phrase (明晚七点), and returns them re-read.
"""

from __future__ import annotations

from datetime import datetime, timedelta

from huiyi.patterns import lazy
from huiyi.text.hours_zh import BARE_HOUR, CLOCK, DAY_PARTS, PART_OF_DAY, clock_case, half_of_the_day
from huiyi.text.periods import Range
from huiyi.text.tense_zh import CLAUSE_END, TOLD, Found, Resolve

__all__ = ["clocks_on_their_day"]

_ZH_CLOCK = lazy(CLOCK)  # a clock time alone: 七点, 七点半, 19:30
_ZH_PART_CLOCK = lazy(rf"(?:{DAY_PARTS})(?:{CLOCK})")  # a part of the day and its clock: 早上八点
_DAY_PART = lazy(DAY_PARTS)


_ZH_BY = lazy(r"[之以]?前")  # after a clock: a deadline (十点前交)


def _on_the_day_before(
    past: str, phrase: str, read: Range, now: datetime, resolve: Resolve, deadline: bool = False
) -> Range:
    """A clock time read as still to come, in a clause that named a past day before it (昨天的会开到十一点半,
    said at nine): on that day, at whichever of its hours is nearer, if that is over by now. Not a deadline
    (昨天的作业十点前交): what is due by a clock is due ahead."""
    if not past or deadline or read[0] <= now or (back := resolve(past + phrase, now)) is None:
        return read
    back = half_of_the_day(back, now, "alone") if _ZH_CLOCK.fullmatch(phrase) and "点" in phrase else back
    return back if back[0] <= now else read


_AHEAD_CASES = ("plan", "to come", "until")


def _today_by_its_case(text: str, start: int, end: int, read: Range, now: datetime) -> Range:
    """A bare hour of today said with its day (我今天九点上线, 今天有事，九点要开会) read by its clause's case, as
    one with no day is: said at 11:15, a plan's morning hour is gone and its evening's ahead (21:00). Only a case
    that looks ahead moves it, and never off the day said (今天三点见 at 20:00 is not tomorrow's); told done or
    alone it keeps the hour a day said gives (今天九点就到了, 今天七点就醒了: the morning's)."""
    clock = BARE_HOUR.search(text, start, end)
    if clock is None or PART_OF_DAY.search(text, start, clock.start()) or read[0].date() != now.date():
        return read
    case = clock_case(text, clock.start(), end)
    if case not in _AHEAD_CASES:
        return read
    moved = half_of_the_day(read, now, case)
    return moved if moved[0].date() == now.date() else read


def clocks_on_their_day(text: str, found: Found, now: datetime, resolve: Resolve) -> Found:
    """A bare clock time after a day not yet over, in one message, is on that day: in "明晚的事定了…时间
    还是七点" the 七点 is tomorrow evening's, not this morning's. Only a day to come anchors it: a plan
    restates its time, while after 昨晚 a bare 七点 may well be this morning's (七点就醒了).

        >>> from huiyi.text.times_zh import chinese_phrases
        >>> now = datetime(2024, 11, 14, 12, 30)
        >>> [str(span[0]) for *_, span in chinese_phrases("明晚的事定了，时间还是七点", now)]
        ['2024-11-15 18:00:00', '2024-11-15 19:00:00']
        >>> [str(span[0]) for *_, span in chinese_phrases("昨晚没睡好，七点就醒了", now)]
        ['2024-11-13 18:00:00', '2024-11-14 07:00:00']
        >>> [str(span[0]) for *_, span in chinese_phrases("今晚聚餐，地方老样子，八点半到", now)]
        ['2024-11-14 18:00:00', '2024-11-14 20:30:00']
        >>> [str(span[0]) for *_, span in chinese_phrases("周六去爬山，早上八点西门集合", now)]
        ['2024-11-16 00:00:00', '2024-11-16 08:00:00']
        >>> [str(span[0]) for *_, span in chinese_phrases("今天加班到九点", datetime(2024, 11, 14, 21, 9))]
        ['2024-11-14 00:00:00', '2024-11-14 21:00:00']
        >>> [str(span[0]) for *_, span in chinese_phrases("昨天的会开到晚上十一点半", datetime(2024, 11, 14, 9))]
        ['2024-11-13 00:00:00', '2024-11-13 23:30:00']
    """
    anchor = past = ""  # the day to come a clock time is on; the past day one said to come is on instead
    past_end = 0
    out: Found = []
    for start, end, span in found:
        phrase = text[start:end]
        # 昨天说好了，下午三点开会 (another clause), 昨天群里说下午三点开会 (the day it was said or booked): today's
        if past and (CLAUSE_END.search(text, past_end, start) or TOLD.search(text, past_end, start)):
            past = ""
        day_of = _DAY_PART.sub("", anchor)  # 明天 of 明天早上: a later 下午三点 is its afternoon
        whole_day = bool(day_of) and PART_OF_DAY.search(day_of) is None  # 周六, 今天: not 今晚, 明早
        if _ZH_CLOCK.fullmatch(phrase):
            joined = resolve(anchor + phrase, now) if anchor else None
            today = joined is not None and joined[0].date() == now.date()
            if joined is not None and today and whole_day and day_of == anchor and "点" in phrase:
                # 今天…加班到八点, said at 20:05: the evening's; 今天七点就醒了 at 14:00 is not 19:00, to come
                nearer = half_of_the_day(joined, now, "alone")
                joined = nearer if nearer[0] <= now else joined
                joined = _today_by_its_case(text, start, end, joined, now)
            if joined is not None:
                read = joined
            elif "点" in phrase:  # no day said: 九点 at 21:09 is 21:00, 我五点要去接孩子 at 10:30 17:00
                read = half_of_the_day(span, now, clock_case(text, start, end))
            else:
                read = span
            out.append(
                (start, end, _on_the_day_before(past, phrase, read, now, resolve, _ZH_BY.match(text, end) is not None))
            )
            continue
        # 周六去爬山，早上八点集合: that Saturday's morning
        if whole_day and _ZH_PART_CLOCK.fullmatch(phrase) and (joined := resolve(day_of + phrase, now)):
            out.append((start, end, joined))
            continue
        if _ZH_PART_CLOCK.fullmatch(phrase):
            out.append(
                (start, end, _on_the_day_before(past, phrase, span, now, resolve, _ZH_BY.match(text, end) is not None))
            )
            continue
        day = _ZH_CLOCK.sub("", phrase)  # 明晚七点 anchors a later 八点 as 明晚
        to_come = span[1] > now and span[1] - span[0] <= timedelta(days=1)  # a day, or part of one, not yet over
        anchor = day if to_come and day else ""
        past = "" if to_come else past  # 昨天他说明天的会八点开: the day to come's
        if span[1] <= now and span[1] - span[0] <= timedelta(days=1) and day:
            past, past_end = _DAY_PART.sub("", day), end
        out.append((start, end, _today_by_its_case(text, start, end, span, now) if day else span))
    return out
