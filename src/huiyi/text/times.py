"""Time phrases in Chinese and English chat, resolved against a clock; and how old times are rendered.

Recall needs to know *when* a query is about (上周, last summer) to filter or boost memories, and
prompts show stored times at a precision that fits their age (spec seed 000 §7). All datetimes are
naive wall-clock times; nothing here knows time zones.

Spans are half-open: ``start <= t < end``, so a day is ``[00:00, next 00:00)`` and spans compare
and filter without off-by-one seconds. Chinese phrases are cut by a regex candidate finder and
resolved by ``jionlp_time`` (imported lazily: its first call costs ~80 ms); English phrases and a
few Chinese ones jionlp cannot read (刚才, 最近, 几天前, 周末 as a whole weekend) use small rules.
The rules live beside this module: :mod:`huiyi.text.times_en` and :mod:`huiyi.text.times_zh` find
and resolve phrases, on the calendar arithmetic of :mod:`huiyi.text.periods`; this module merges
their readings, and renders and parses stored times.

    >>> now = datetime(2023, 5, 10, 14, 30)  # a Wednesday
    >>> [(s.phrase, str(s.start), str(s.end)) for s in find_time_phrases("上周我们去哪儿吃饭了", now)]
    [('上周', '2023-05-01 00:00:00', '2023-05-08 00:00:00')]
    >>> [(s.phrase, str(s.start)) for s in find_time_phrases("We met two weeks ago, on May 8", now)]
    [('two weeks ago', '2023-04-24 00:00:00'), ('May 8', '2023-05-08 00:00:00')]
    >>> format_by_age(datetime(2023, 5, 8, 19, 5), now)
    '2023-05-08 19点'
"""

from __future__ import annotations

import bisect
import re
from dataclasses import dataclass
from datetime import datetime, timedelta, tzinfo

from huiyi.checks import ISO_TIME, LONGEST_TIME, read_iso, wall_clock
from huiyi.errors import InvalidInput
from huiyi.patterns import lazy
from huiyi.text.clock_en import clock_span
from huiyi.text.day_turn import said_before_the_day_turns
from huiyi.text.habits import one_offs
from huiyi.text.periods import Range
from huiyi.text.times_en import MONTHS, english_phrases
from huiyi.text.times_zh import ZH_ATOM, chinese_phrases

__all__ = ["TimeSpan", "find_time_phrases", "format_by_age", "parse_datetime", "query_time_range", "read_iso"]


@dataclass(frozen=True)
class TimeSpan:
    """A resolved time phrase: ``start`` inclusive, ``end`` exclusive, and the words that said it."""

    start: datetime
    end: datetime
    phrase: str

    def __contains__(self, moment: object) -> bool:
        """``moment in span`` — the half-open test recall filters with."""
        return isinstance(moment, datetime) and self.start <= moment < self.end


# ---------------------------------------------------------------- public API


def find_time_phrases(text: str, now: datetime, *, asked: bool = False) -> list[TimeSpan]:
    """Every time phrase in ``text``, in reading order, resolved against ``now``.

    ``asked``: ``text`` is a recall query, which asks of what was said before: a festival with no word of its
    tense is the one of this year (春节的时候你送我的礼物, asked in November), not the nearer one a line
    telling of it would mean (元旦我们去哪玩, said on 28 December).

    Overlapping readings keep the longest (“the day before yesterday” over “yesterday”). Never raises
    on odd text; returns ``[]`` when nothing is found. An aware ``now`` is read as the wall clock of its own
    zone (its offset dropped, as :func:`parse_datetime` drops one given no zone), and the spans are naive.

        >>> now = datetime(2023, 5, 10, 14, 30)
        >>> [(s.phrase, str(s.start), str(s.end)) for s in find_time_phrases("昨天晚上八点我们见过", now)]
        [('昨天晚上八点', '2023-05-09 20:00:00', '2023-05-09 21:00:00')]
        >>> find_time_phrases("nothing here", now)
        []
    """
    if not isinstance(text, str) or not text:
        return []
    now = now.replace(tzinfo=None)  # an aware now was compared with the naive readings: TypeError
    candidates = english_phrases(text, now, asked)
    if ZH_ATOM.search(text):
        candidates += chinese_phrases(text, now, asked=asked)
    candidates.sort(key=lambda c: (c[0] - c[1], c[0]))
    # taken spans never overlap, so the one starting last before a candidate ends is the only one that
    # can overlap it: a bisection, not a scan of all taken (quadratic in a text of thousands of times)
    taken: list[tuple[int, int, Range]] = []
    starts: list[int] = []
    for candidate in candidates:
        at = bisect.bisect_left(starts, candidate[1])
        if at and taken[at - 1][1] > candidate[0]:
            continue
        at = bisect.bisect_right(starts, candidate[0], hi=at)
        starts.insert(at, candidate[0])
        taken.insert(at, candidate)
    taken = said_before_the_day_turns(text, taken, now, asked)  # 明天 at 00:40 is the day now begun
    return [TimeSpan(start, end, text[a:b]) for a, b, (start, end) in one_offs(text, taken) if start < end]


def query_time_range(text: str, now: datetime) -> TimeSpan | None:
    """The span a recall query is about: its one time phrase, or the union of several, else ``None``.

    The union errs wide on purpose: a filter that is too loose costs ranking, one too tight loses
    the memory.

        >>> span = query_time_range("上周我们去哪儿吃饭了", datetime(2023, 5, 10))
        >>> span.start.date().isoformat(), span.end.date().isoformat()
        ('2023-05-01', '2023-05-08')
    """
    spans = find_time_phrases(text, now, asked=True)
    if not spans:
        return None
    if len(spans) == 1:
        return spans[0]
    return TimeSpan(
        start=min(s.start for s in spans),
        end=max(s.end for s in spans),
        phrase=" ".join(s.phrase for s in spans),
    )


_SPAN_MARK = lazy(r"(?<=\d)～(?=\d)")  # between the dates of a span: 2024-10-28～2024-11-03


def spans_shown(text: str, lang: str = "zh") -> str:
    """``text`` (an event or fact, or a stored span label) with the date spans extraction writes
    ("2024-10-28～2024-11-03", the form kept and indexed) as a text of ``lang`` shows them.

    >>> spans_shown("I quit coffee last week (2024-10-28～2024-11-03)", "en")
    'I quit coffee last week (2024-10-28 to 2024-11-03)'
    >>> spans_shown("2024-10-28～2024-11-03")
    '2024-10-28～2024-11-03'
    """
    return _SPAN_MARK.sub(" to ", text) if "～" in text and lang.lower().startswith("en") else text


def _period(hour: int, english: bool) -> str:
    """06–12 上午, 12–18 下午, 18–06 晚上 (spec seed 000 §7); the small hours are the night before's."""
    if hour < 6:
        return "night" if english else "晚上"
    if 6 <= hour < 12:
        return "morning" if english else "上午"
    if 12 <= hour < 18:
        return "afternoon" if english else "下午"
    return "evening" if english else "晚上"


def format_by_age(when: datetime, now: datetime, lang: str = "zh") -> str:
    """``when`` as precise as its age deserves, so prompts do not claim minutes about last year.

    Same calendar day → minute; within 7 days (inclusive) → hour; within 30 days (inclusive) →
    date + part of day; older → date. The future is measured the same way. ``lang`` starting with
    ``en`` renders English, anything else Chinese.

        >>> now = datetime(2018, 9, 30, 20, 0)
        >>> format_by_age(datetime(2018, 9, 30, 15, 30), now)
        '2018-09-30 15:30'
        >>> format_by_age(datetime(2018, 9, 27, 18, 5), now), format_by_age(datetime(2018, 9, 27, 18, 5), now, "en")
        ('2018-09-27 18点', '2018-09-27 6 pm')
        >>> format_by_age(datetime(2018, 9, 10, 9, 0), now), format_by_age(datetime(2018, 9, 10, 9, 0), now, "en")
        ('2018-09-10 上午', '2018-09-10 morning')
        >>> format_by_age(datetime(2018, 9, 10, 1, 30), now), format_by_age(datetime(2018, 9, 10, 1, 30), now, "en")
        ('2018-09-09 晚上', '2018-09-09 night')
        >>> format_by_age(datetime(2018, 1, 2, 9, 0), now)
        '2018-01-02'
    """
    english = lang.lower().startswith("en")
    day = when.date().isoformat()
    if when.date() == now.date():
        return f"{day} {when.hour:02d}:{when.minute:02d}"
    age = abs(when - now)
    if age <= timedelta(days=7):
        if english:
            return f"{day} {(when.hour - 1) % 12 + 1} {'am' if when.hour < 12 else 'pm'}"
        return f"{day} {when.hour}点"
    if age <= timedelta(days=30):
        # seed 000's 晚上 runs 18–06: 01:30 on the 6th is the night of the 5th ("2025-04-06 晚上" read as
        # that day's evening, near a day after it)
        night_before = when.hour < 6
        shown = (when.date() - timedelta(days=1)).isoformat() if night_before else day
        return f"{shown} {_period(when.hour, english)}"
    return day


_LOCOMO = lazy(
    r"(?P<hour>\d{1,2}):(?P<minute>\d{2})\s*(?P<ampm2>[ap]\.?\s*m\.?)\s+on\s+(?P<day>\d{1,2})\s+"
    r"(?P<month>[a-z]+)\.?,?\s+(?P<year>\d{4})",
    re.IGNORECASE,
)
_NUMERIC = lazy(
    r"(?P<year>\d{4})\s*[-/.年]\s*(?P<month>\d{1,2})\s*[-/.月]\s*(?P<day>\d{1,2})\s*[日号]?"
    r"(?:(?:\s*|T)(?P<hour>\d{1,2})\s*[:：时点]\s*(?:(?P<minute>\d{1,2})\s*分?)?(?:[:：](?P<second>\d{2}))?)?",
    re.IGNORECASE,
)
_WORDY = lazy(
    r"(?:(?P<day>\d{1,2})(?:st|nd|rd|th)?\s+(?:of\s+)?(?P<month>[a-z]+)\.?"
    r"|(?P<month2>[a-z]+)\.?\s+(?P<day2>\d{1,2})(?:st|nd|rd|th)?),?\s+(?P<year>\d{4})",
    re.IGNORECASE,
)


def parse_datetime(value: str, zone: tzinfo | None = None) -> datetime:
    """A stored or incoming time as a naive wall-clock datetime.

    Reads ISO 8601 (``T`` or space; an offset moves the time into ``zone`` when one is given, as a
    caller's time is read, else is dropped, keeping the wall-clock fields as written),
    ``2023/04/27 20:00``, ``2023年4月27日``, ``8 May 2023`` and LoCoMo's ``1:56 pm on 8 May, 2023``.
    Anything else, and a text over 64 characters, is an ``InvalidInput``; a time ``zone`` cannot hold
    (year 1 at +14:00) a ``ValueError``.

        >>> parse_datetime("1:56 pm on 8 May, 2023")
        datetime.datetime(2023, 5, 8, 13, 56)
        >>> parse_datetime("2023-05-08T13:56:00+08:00")
        datetime.datetime(2023, 5, 8, 13, 56)
        >>> from zoneinfo import ZoneInfo
        >>> parse_datetime("2023-05-08T05:56:00Z", ZoneInfo("Asia/Shanghai"))
        datetime.datetime(2023, 5, 8, 13, 56)
    """
    if not isinstance(value, str):
        raise InvalidInput(f"a time must be text, not {type(value).__name__}")
    text = value.strip()
    if len(text) > LONGEST_TIME:
        raise InvalidInput(f"a time of {len(text)} characters is too long to be one (at most {LONGEST_TIME})")
    try:
        parsed = _parse_datetime(text)
    except (ValueError, OverflowError, KeyError):
        parsed = None
    if parsed is None:
        shown = text if len(text) <= 60 else text[:57] + "..."
        raise InvalidInput(
            f"cannot read {shown!r} as a time; use ISO 8601 (2023-05-08T13:56), "
            "'2023/05/08 13:56' or '1:56 pm on 8 May, 2023'"
        )
    if parsed.tzinfo is None:
        return parsed
    return parsed.replace(tzinfo=None) if zone is None else wall_clock(parsed, zone)


def _parse_datetime(text: str) -> datetime | None:
    if not text:
        return None
    if ISO_TIME.fullmatch(text):
        return read_iso(text)  # its offset kept
    if match := _LOCOMO.fullmatch(text):
        midnight = datetime(int(match["year"]), MONTHS[match["month"].lower()], int(match["day"]))
        span = clock_span(match, midnight)
        return None if span is None else span[0]
    if match := _NUMERIC.fullmatch(text):
        year, month, day, hour, minute, second = (
            int(match[name] or 0) for name in ("year", "month", "day", "hour", "minute", "second")
        )
        return datetime(year, month, day, hour, minute, second)
    if match := _WORDY.fullmatch(text):
        month = MONTHS[(match["month"] or match["month2"]).lower()]
        return datetime(int(match["year"]), month, int(match["day"] or match["day2"]))
    return None
