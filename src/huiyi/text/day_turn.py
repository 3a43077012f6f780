"""Day words said after midnight, before the speaker's day has turned: at 00:40 on the 3rd, 明天早上九点面试 and
"my interview is tomorrow at 9am" mean the 3rd at 09:00, since whoever is still up calls the evening's day
today. Every finder reads its words against the calendar; :func:`said_before_the_day_turns` re-reads what they
found, in both languages alike, so the passes that place a clock on its day need not know of the hour.

Said before ``DAY_TURNS_AT`` o'clock:

* a day ahead (明天, 明早, 明晚, 后天, tomorrow, the day after tomorrow) is a day earlier, and so is a clock
  put on that day from elsewhere in the message (明天的会定了，时间还是九点; at 9am tomorrow);
* tonight (今晚, 今天晚上, tonight, this evening) is the night going on, from the evening before to the day's
  turn, unless a clock of the evening to come is said and nothing told done (今晚八点开会);
* today (今天, 今早, today, this morning) told or felt (今天好累, 今天被老板骂了, today was rough) is the day just
  ended; one that looks ahead (今天要去面试, I have work today) or says a clock still to come (今天下午三点开会)
  keeps the calendar's day, since a time to come cannot be in the past;
* a phrase already in the small hours (今天凌晨两点, 今晚两点 read as the night going on) stays;
* yesterday (昨天, last night) is left as the calendar has it: people up late say it of the day just ended as
  often as of the one before, and nothing in the words tells which; so is last week (上周, last week) on a
  Monday, for the same reason;
* on a Monday, next week (下周, 下周一, next week, next Monday) is the week now begun, as on the Sunday it still
  is for the speaker, and so is a weekday or a clock put in it from elsewhere (下周一到周三); this week told or
  felt (这周好累, 这周末过得很开心, this week was rough) is the week just ended, as today is the day;
* a weekday that is the calendar's today (周一 at 00:30 on a Monday) is the day a few hours away, unless told
  gone (周一去出差了, I went hiking on Monday): then the one a week before;
* a clock alone (九点开会) keeps the next such hour.
"""

from __future__ import annotations

import bisect
import re
from datetime import datetime, timedelta

from huiyi.patterns import lazy
from huiyi.text.clock_en import CLOCK_RE
from huiyi.text.hours_zh import CLOCK, DAY_PARTS
from huiyi.text.periods import DAY, DAY_TURNS_AT, Range, midnight
from huiyi.text.tense_en import asked_ahead, still_to_come
from huiyi.text.tense_en import told_done as told_done_en
from huiyi.text.tense_zh import clause_around, to_come, told_done, told_gone

__all__ = ["DAY_TURNS_AT", "begun_for_the_speaker", "said_before_the_day_turns"]

Found = list[tuple[int, int, Range]]

_SMALL_HOURS_END = timedelta(hours=6)  # the night's end, as 晚上 runs 18–06 (seed 000 §7)

_AHEAD = lazy(r"明天|明日|明儿|明早|明晚|后天|tomorrow", re.IGNORECASE)
_TONIGHT = lazy(r"今晚|今夜|今天(?:晚上|夜里|夜间)|tonight|this\s+evening", re.IGNORECASE)
_TODAY = lazy(r"今天|今日|今儿|今早|today|this\s+(?:morning|afternoon)", re.IGNORECASE)
# a clock said in the phrase: 三点, 15:00, at 3pm, at noon
_CLOCK_SAID = lazy(rf"{CLOCK}|{CLOCK_RE}", re.IGNORECASE)
# a clock or a part of the day with no day of its own, which another phrase may have put on its day
_CLOCK_ALONE = lazy(rf"(?:{DAY_PARTS})?(?:{CLOCK})|(?:{DAY_PARTS})|(?:at\s+)?{CLOCK_RE}", re.IGNORECASE)
_WEEK = timedelta(days=7)
_WEEKDAY_EN = r"(?:mon|tues|wednes|thurs|fri|satur|sun)day"
_NEXT_WEEK = lazy(
    rf"下下?(?:个|一)?(?:周|星期|礼拜)|next\s+(?:week(?:end)?|{_WEEKDAY_EN})|week\s+after\s+next", re.IGNORECASE
)
_THIS_WEEK = lazy(rf"(?:这|本|这个)(?:周|星期|礼拜)|this\s+(?:week(?:end)?|{_WEEKDAY_EN})", re.IGNORECASE)
_BARE_WEEKDAY = lazy(rf"(?:周|星期|礼拜)[一二三四五六日天1-7]|{_WEEKDAY_EN}", re.IGNORECASE)
_SENTENCE_END = lazy(r"[。！？；!?;\n]|\.(?:\s|$)")
_CJK = lazy(r"[\u4e00-\u9fff]")
_WHOLE = lazy(r"[^\n]+")


def said_before_the_day_turns(text: str, found: Found, now: datetime, asked: bool = False) -> Found:
    """``found`` (each phrase of ``text`` as start, end and range, read against ``now``) as the speaker means it,
    when ``now`` is before the day turns (see the module); as it is from ``DAY_TURNS_AT`` on. ``asked``: ``text``
    is a recall query, whose today asks of the day to come unless it asks what was done (我今天几点面试, not
    今天我们聊了什么).

    >>> from huiyi.text.times import find_time_phrases
    >>> def read(text, now):
    ...     return [f"{s.phrase} {s.start:%d %H:%M}-{s.end:%d %H:%M}" for s in find_time_phrases(text, now)]
    >>> read("明天早上九点面试，好紧张", datetime(2024, 11, 3, 0, 40))
    ['明天早上九点 03 09:00-03 10:00']
    >>> read("明天早上九点面试，好紧张", datetime(2024, 11, 3, 4, 0))
    ['明天早上九点 04 09:00-04 10:00']
    >>> read("今天好累，今晚又失眠了", datetime(2024, 11, 3, 0, 40))
    ['今天 02 00:00-03 00:00', '今晚 02 18:00-03 04:00']
    """
    if now.hour >= DAY_TURNS_AT or not found:
        return found
    day_start = midnight(now.date())
    # the day a day ahead was read on, where a clock alone may have been put on it
    ahead_days = {span[0].date() for start, end, span in found if _AHEAD.search(text, start, end)}
    # the sentences that say a clock still to come today (今天有事，三点见: today's 三点 is the afternoon to come);
    # sentences by their ends, bisected: a message of thousands of 今天 and clocks stays linear
    ends = [m.start() for m in _SENTENCE_END.finditer(text)]
    clock_sentences = {
        bisect.bisect_left(ends, start)
        for start, end, span in found
        if now < span[0] < day_start + DAY and _CLOCK_SAID.search(text, start, end)
    }
    # on a Monday, the calendar's next week, which is the speaker's this week, when a phrase of it is said
    monday = now.weekday() == 0
    next_week = (day_start + _WEEK, day_start + 2 * _WEEK)
    next_said = monday and any(_NEXT_WEEK.search(text, start, end) for start, end, _ in found)
    out: Found = []
    for start, end, span in found:
        since_midnight = span[0] == day_start and span[1] <= now + timedelta(seconds=1)  # earlier today
        if span[1] - span[0] <= _SMALL_HOURS_END and span[1] <= day_start + _SMALL_HOURS_END and not since_midnight:
            out.append((start, end, span))  # the night going on (今天凌晨两点): already the speaker's
        elif _AHEAD.search(text, start, end):
            out.append((start, end, (span[0] - DAY, span[1] - DAY)))
        elif _TONIGHT.search(text, start, end):
            out.append((start, end, _tonight(text, start, end, span, day_start)))
        elif _TODAY.search(text, start, end):
            clock = bisect.bisect_left(ends, start) in clock_sentences
            out.append((start, end, _today(text, start, end, span, now, clock or asked)))
        elif span[0].date() in ahead_days and span[1] - span[0] < DAY and _CLOCK_ALONE.fullmatch(text, start, end):
            out.append((start, end, (span[0] - DAY, span[1] - DAY)))
        elif monday and _NEXT_WEEK.search(text, start, end):
            out.append((start, end, (span[0] - _WEEK, span[1] - _WEEK)))
        elif monday and span[0] >= day_start and _THIS_WEEK.search(text, start, end):
            ended = _week_ended(text, start, end, asked)
            out.append((start, end, (span[0] - _WEEK, span[1] - _WEEK) if ended else span))
        elif next_said and next_week[0] <= span[0] < next_week[1] and _in_a_week(text, start, end):
            out.append((start, end, (span[0] - _WEEK, span[1] - _WEEK)))  # 下周一到周三: 周三 with 下周一
        elif span == (day_start, day_start + DAY) and _BARE_WEEKDAY.fullmatch(text, start, end):
            gone = _weekday_gone(text, start, end)
            out.append((start, end, (span[0] - _WEEK, span[1] - _WEEK) if gone else span))
        else:
            out.append((start, end, span))
    return out


def begun_for_the_speaker(start: datetime, end: datetime, now: datetime) -> bool:
    """Whether the span ``start``–``end`` is a day or more the calendar began at midnight but the speaker, at
    ``now`` before the day turns, still has ahead (明天要去出差 or 下周要出差 said at 00:30 on a Monday): a plan
    and a date to show, not a time already running.

    >>> begun_for_the_speaker(datetime(2024, 11, 3), datetime(2024, 11, 4), datetime(2024, 11, 3, 0, 40))
    True
    >>> begun_for_the_speaker(datetime(2024, 11, 3), datetime(2024, 11, 4), datetime(2024, 11, 3, 4, 0))
    False
    """
    return now.hour < DAY_TURNS_AT and start == midnight(now.date()) and end - start >= DAY


def _tonight(text: str, start: int, end: int, span: Range, day_start: datetime) -> Range:
    """The night going on, till the day turns; the evening to come when a clock of it is said to come."""
    if _CLOCK_SAID.search(text, start, end) and not _told_done(text, start, end):
        return span
    first, last = span[0] - DAY, span[1] - DAY
    return first, day_start + timedelta(hours=DAY_TURNS_AT) if last == day_start else last


def _today(text: str, start: int, end: int, span: Range, now: datetime, ahead: bool) -> Range:
    """The day just ended, unless the clause looks ahead, or its sentence says a clock still to come today or
    asks of it (``ahead``) and tells nothing done."""
    if _looks_ahead(text, start, end) or (ahead and not _told_done(text, start, end)):
        return span
    up_to_now = span[1] <= now + timedelta(seconds=1)  # earlier today: from the day's start until now
    return span[0] - DAY, span[1] if up_to_now else span[1] - DAY


def _looks_ahead(text: str, start: int, end: int) -> bool:
    if _CJK.search(text, start, end):
        return to_come(clause_around(text, start))
    match = _WHOLE.match(text, start, end)
    return match is not None and (still_to_come(match) or asked_ahead(match))


def _in_a_week(text: str, start: int, end: int) -> bool:
    """Whether ``text[start:end]`` is a weekday or a clock with no week of its own, which another phrase put in one."""
    return _BARE_WEEKDAY.fullmatch(text, start, end) is not None or _CLOCK_ALONE.fullmatch(text, start, end) is not None


def _week_ended(text: str, start: int, end: int, asked: bool) -> bool:
    """Whether this week at ``text[start:end]``, said on a Monday before the day turns, is the week just ended: in
    Chinese told or felt (这周好累, 这周末过得很开心) as today is; in English told in the past (this week was
    rough), since its present looks ahead as often (I'm busy this week)."""
    if _looks_ahead(text, start, end):
        return False
    if _CJK.search(text, start, end):
        return not asked or _told_done(text, start, end)
    return _told_done(text, start, end)


def _weekday_gone(text: str, start: int, end: int) -> bool:
    """Whether the weekday at ``text[start:end]`` is told gone (周一去出差了, I went hiking on Monday), not of a
    thing of its day (周一的会开完了, as :func:`huiyi.text.tense_zh.by_tense` keeps it)."""
    if _CJK.search(text, start, end):
        return text[end : end + 1] != "的" and told_gone(clause_around(text, start))
    return _told_done(text, start, end) and not _looks_ahead(text, start, end)


def _told_done(text: str, start: int, end: int) -> bool:
    if _CJK.search(text, start, end):
        return told_done(clause_around(text, start))
    match = _WHOLE.match(text, start, end)
    return match is not None and told_done_en(match)
