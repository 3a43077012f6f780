"""The half of the day a doing has: a bare hour (九点, 八点半) of arriving at work or school is the morning's,
of a bar, a night out, dinner or leaving work the evening's, whichever of its two hours
:func:`huiyi.text.hours_zh.half_of_the_day` would take as nearer; :data:`EVENING_DOING` and :data:`NIGHT_WORK`
also tell :mod:`huiyi.text.ranges_zh` a range of the night.
"""

from __future__ import annotations

from datetime import datetime, timedelta

from huiyi.patterns import lazy
from huiyi.text.hours_zh import (
    AFTERNOON_SAID,
    BARE_HOUR,
    PART_OF_DAY,
    Case,
    clock_case,
    morning_of,
    on_a_day_said,
)
from huiyi.text.periods import Range, midnight
from huiyi.text.tense_zh import clause_around

__all__ = ["EVENING_DOING", "NIGHT_WORK", "hours_of_usual_doings", "mornings_after_a_late_evening"]

_HALF = timedelta(hours=12)
_DAY = timedelta(days=1)
_HOUR = timedelta(hours=1)
_SATURDAY = 5

# arriving at work or school is of the morning (我九点到公司, 八点到的单位, 八点上班, 七点半到校), and so are
# school hours (八点到十一点上课); not an online class or tutoring (八点上网课, 九点补课), as often of the evening
_MORNING_DOING = lazy(r"(?:到|去|进)的?(?:公司|单位|学校|办公室)|上班|上学|到校|早会|早自习|早读|(?<![网补])上课")
_CLASS = lazy(r"(?<![网补])上课")
# …but a class may be of the evening, as school is not: at night school (夜校八点上课), or said after school is
# out with its evening hour still ahead (我八点上课 at 19:00 is tonight's)
_EVENING_CLASS = lazy(r"夜校|夜大|夜课|晚课")
_SCHOOL_OUT = 17
# …but not to work late or to fetch someone (我十点去公司加班, 我五点去学校接孩子; 接待 is work)
_LATE_AT_WORK = lazy(r"加班|通宵|接(?![着待])")
# a bar, a night out or dinner is of the evening (我八点去酒吧, 九点吃的晚饭); a range's night too (ranges_zh)
EVENING_DOING = (
    r"酒吧|泡吧|清吧|[Kk][Tt][Vv]|[Kk]歌|唱[Kk]|夜店|蹦迪|夜场|酒局|夜宵|宵夜|晚饭|晚餐|晚宴|晚会|晚自习|夜市|夜班"
)
_EVENING_DOING = lazy(EVENING_DOING)
# a night's work (我上夜班, 我在酒吧上班, 在KTV打工): its 九点上班 and 九点到两点 are the evening's
NIGHT_WORK = rf"夜班|(?:{EVENING_DOING})[^，。！？；,.!?;\n]{{0,4}}(?:上班|打工|工作|兼职|值班)"
_NIGHT_WORK = lazy(NIGHT_WORK)
_SENTENCE_BEFORE = lazy(r"[^。！？；!?;\n]{0,30}$")
# one who says they work the weekend (我周末加班, 我们单休) comes in on the next day, whatever it is
_WEEKEND_WORK = lazy(r"周末|周六|周日|星期[六日天]|礼拜[六日天]|加班|单休|大小周|调休|值班")
# 我九点下班, 九点多才能下班: leaving work right after the clock (not 九点上班五点下班's 九点) is the evening's
_OFF_WORK = lazy(r"[^，。！？；,.!?;\n点]{0,5}?下班")
_CLAUSE_START = lazy(r"[^，。！？；,.!?;\n]*$")
_MORNING_HOURS = range(7, 12)  # 六点上班 may be a night shift's 18:00
_EVENING_HOURS = range(5, 12)  # 两点 of a bar may be the night's 02:00


def hours_of_usual_doings(
    text: str, found: list[tuple[int, int, Range]], now: datetime
) -> list[tuple[int, int, Range]]:
    """A bare hour of a doing that has its half of the day is of that half: arriving at work or school the
    morning's (我九点到公司 said at noon is not 21:00), a bar, a night out, dinner or leaving work the evening's
    (我八点去酒吧 said at 07:30 is not 08:00); after a night's work said (我上夜班，九点到单位) the other way about.
    On a day said before it in its clause, that day's (昨天我九点到公司); said alone, the next one when it is to
    come (我九点要上班 at noon: tomorrow's), the last one begun when told done (晚饭九点吃的 at noon: last night's),
    else today's.

        >>> from huiyi.text.times_zh import chinese_phrases
        >>> now = datetime(2024, 11, 13, 12)
        >>> [str(span[0]) for *_, span in chinese_phrases("我九点到公司，我九点要上班，昨天八点去酒吧", now)]
        ['2024-11-13 09:00:00', '2024-11-14 09:00:00', '2024-11-12 20:00:00']
        >>> [str(span[0]) for *_, span in chinese_phrases("晚饭九点吃的", datetime(2024, 11, 13, 7, 30))]
        ['2024-11-12 21:00:00']
    """
    out: list[tuple[int, int, Range]] = []
    for start, end, span in found:
        clock = BARE_HOUR.search(text, start, end)
        morning = morning_of(span)
        if clock and morning is not None and not PART_OF_DAY.search(text, start, clock.start()):
            usual = _usual_half(text, start, end, morning, now)
            if usual is not None and clock.start() == start:
                day = _day_said_before(text, start, out)
                if day is not None:  # 昨天我九点到公司 at 15:00: not today's 09:00
                    moved = midnight(day[0]) - midnight(usual[0])
                    usual = (usual[0] + moved, usual[1] + moved) if day[0] <= usual[0] + moved < day[1] else None
                elif not on_a_day_said(span, out, start):
                    clause = clause_around(text, start)
                    working = usual[0].hour < 12 and _MORNING_DOING.search(clause) is not None
                    working = working and not _WEEKEND_WORK.search(_said_before(text, start) + clause)
                    usual = _of_a_day_by_case(usual, now, clock_case(text, clock.start(), end), working=working)
            span = usual or span
        out.append((start, end, span))
    return out


def _usual_half(text: str, start: int, end: int, morning: Range, now: datetime) -> Range | None:
    """Which of ``morning`` and its evening the doing of the clock at ``text[start:end]`` is of, said at ``now``,
    else None."""
    clause, hour = clause_around(text, start), morning[0].hour
    evening = morning[0] + _HALF, morning[1] + _HALF
    said = _said_before(text, start)
    night_work = _NIGHT_WORK.search(said) is not None
    if hour in _EVENING_HOURS and _OFF_WORK.match(text, end):
        # 我上夜班，八点下班: the morning's; a bar's work (我在酒吧上班，九点下班) ends late at night all the same
        return morning if "夜班" in said else evening
    if hour in _EVENING_HOURS and _EVENING_DOING.search(clause):
        return evening
    if hour in _MORNING_HOURS and _MORNING_DOING.search(clause):
        done = clock_case(text, start, end) == "told done"  # 我八点上课的 at 19:00: this morning's
        if night_work or _evening_class(said + clause, evening, None if done else now):
            return evening  # 我在酒吧上班，九点上班: not 09:00
        return None if AFTERNOON_SAID.search(clause) or _LATE_AT_WORK.search(clause) else morning
    return None


def _evening_class(said: str, evening: Range, now: datetime | None) -> bool:
    """Whether a class (and no other doing of the morning) in ``said`` is of ``evening``: at night school, or said
    after school is out at ``now`` (None when told done) on the day of ``evening``, still ahead."""
    if not _CLASS.search(said) or _MORNING_DOING.search(_CLASS.sub("", said)):
        return False
    ahead = now is not None and now.hour >= _SCHOOL_OUT and now.date() == evening[0].date() and evening[0] > now
    return ahead or _EVENING_CLASS.search(said) is not None


def _said_before(text: str, start: int) -> str:
    """What the sentence of ``start`` says before it, at most 30 characters."""
    before = _SENTENCE_BEFORE.search(text, max(0, start - 30), start)
    return before.group() if before else ""


def _day_said_before(text: str, start: int, before: list[tuple[int, int, Range]]) -> Range | None:
    """The day (or part of one) read last before ``start`` in its clause (昨天我们九点吃的晚饭), else None."""
    clause = _CLAUSE_START.search(text, max(0, start - 60), start)
    opens = start - len(clause.group()) if clause else start
    for said_at, _, day in reversed(before):
        if said_at < opens:
            return None
        if _HOUR < day[1] - day[0] <= _DAY:
            return day
    return None


def _of_a_day_by_case(read: Range, now: datetime, case: Case, *, working: bool = False) -> Range:
    """``read``'s hour on the day its ``case`` gives when no day is said: the next one to come, the last one begun
    when told done, else today's. A ``working`` morning to come (到公司, 上班, 上课) moved on to the next day is the
    next weekday's: 如果九点还没到公司 said on a Friday afternoon speaks of Monday."""
    if not datetime.min + 2 * _DAY < read[0] < datetime.max - 2 * _DAY:
        return read
    moved = datetime.combine(now.date(), read[0].time()) - read[0]
    if case in ("to come", "until") and read[0] + moved <= now:
        moved += _DAY
        while working and (read[0] + moved).weekday() >= _SATURDAY:
            moved += _DAY
    elif case == "told done" and read[0] + moved > now:
        moved -= _DAY
    return read[0] + moved, read[1] + moved


# a doing of a morning to come (上课, 开会, 出发), and a word of the sentence saying it is ahead: its speaker goes to
# bed first (我先睡了, 早点睡), or says 明天 or 要
_DOING_TO_COME = lazy(
    r"上课|上班|上学|开会|出发|考试|面试|集合|报到|打卡|早会|早自习|到校|(?:到|去|进)的?(?:公司|单位|学校)"
)
_TO_BED = r"先睡|早点睡|早睡|去睡|睡觉|晚安"
_AHEAD_OF_THE_NIGHT = lazy(rf"{_TO_BED}|明天|明早|要(?!求)|(?<![记觉])得(?![了到很太好])")
# …and the doing's clause ends where going to bed begins: the 了 of 九点上课我先睡了 is of the going to bed, when
# the going to bed ends the clause (not 九点上课睡觉被老师抓了: a sleep in class, told done)
_GOING_TO_BED = lazy(rf"(?:{_TO_BED})(?:[了去啦吧哈咯喽呀啊~～!！]|晚安)*$")
_CLAUSE_REST = lazy(r"[^，。！？；,.!?;\n]{0,60}")
_TOLD_DONE = lazy(r"了|(?<![度经通难])过(?![来去])|才|已经|刚")  # 九点开会了, 我九点才到公司: of today
_SENTENCE_AFTER = lazy(r"[^。！？!?\n]{0,30}")
_LATE_EVENING = 20
_GONE_CASES = ("told done", "was to come")


def mornings_after_a_late_evening(
    text: str, found: list[tuple[int, int, Range]], now: datetime
) -> list[tuple[int, int, Range]]:
    """A bare morning hour of a doing to come (上课, 开会, 出发) said in the late evening, read as today's and gone,
    is tomorrow's when its sentence looks ahead: 九点上课，我先睡了 said at 23:00 is no class 14 hours gone, nor is
    九点上课我先睡了 (the 了 of going to bed tells no class done).

        >>> from huiyi.text.times_zh import chinese_phrases
        >>> late = datetime(2024, 11, 13, 23)
        >>> [str(span[0]) for *_, span in chinese_phrases("九点上课，我先睡了。九点开会，明天见", late)]
        ['2024-11-14 09:00:00', '2024-11-14 09:00:00', '2024-11-14 00:00:00']
        >>> [str(span[0]) for *_, span in chinese_phrases("九点上课，我差点迟到", late)]
        ['2024-11-13 09:00:00']
    """
    if now.hour < _LATE_EVENING:
        return found
    out: list[tuple[int, int, Range]] = []
    for start, end, span in found:
        clock = BARE_HOUR.search(text, start, end)
        morning = morning_of(span)
        if (
            clock is not None
            and clock.start() == start
            and morning is not None
            and morning[0].hour in _MORNING_HOURS
            and span[0].date() == now.date()
            and span[1] <= now
            and _DOING_TO_COME.search(clause := _clause_of_the_doing(text, start))
            and not _TOLD_DONE.search(clause)
            and _AHEAD_OF_THE_NIGHT.search(_said_before(text, start) + _sentence_after(text, end))
            and clock_case(text, start, end) not in _GONE_CASES
            and not on_a_day_said(span, out, start)
        ):
            span = morning[0] + _DAY, morning[1] + _DAY
        out.append((start, end, span))
    return out


def _clause_of_the_doing(text: str, start: int) -> str:
    """The clause of the clock at ``start``, at most 60 characters each way, up to a going to bed after it
    (九点上课我先睡了: 九点上课)."""
    before = _CLAUSE_START.search(text, max(0, start - 60), start)
    after = _CLAUSE_REST.match(text, start)
    rest = after.group() if after else ""
    bed = _GOING_TO_BED.search(rest)
    return (before.group() if before else "") + (rest[: bed.start()] if bed else rest)


def _sentence_after(text: str, end: int) -> str:
    after = _SENTENCE_AFTER.match(text, end)
    return after.group() if after else ""
