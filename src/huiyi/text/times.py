"""Time phrases in Chinese and English chat, resolved against a clock; and how old times are rendered.

Recall needs to know *when* a query is about (上周, last summer) to filter or boost memories, and
prompts show stored times at a precision that fits their age (spec seed 000 §7). All datetimes are
naive wall-clock times; nothing here knows time zones.

Spans are half-open: ``start <= t < end``, so a day is ``[00:00, next 00:00)`` and spans compare
and filter without off-by-one seconds. Chinese phrases are cut by a regex candidate finder and
resolved by ``jionlp_time`` (imported lazily: its first call costs ~80 ms); English phrases and a
few Chinese ones jionlp cannot read (刚才, 最近, 几天前, 周末 as a whole weekend) use small rules here.

    >>> now = datetime(2023, 5, 10, 14, 30)  # a Wednesday
    >>> [(s.phrase, str(s.start), str(s.end)) for s in find_time_phrases("上周我们去哪儿吃饭了", now)]
    [('上周', '2023-05-01 00:00:00', '2023-05-08 00:00:00')]
    >>> [(s.phrase, str(s.start)) for s in find_time_phrases("We met two weeks ago, on May 8", now)]
    [('two weeks ago', '2023-04-24 00:00:00'), ('May 8', '2023-05-08 00:00:00')]
    >>> format_by_age(datetime(2023, 5, 8, 19, 5), now)
    '2023-05-08 19点'
"""

from __future__ import annotations

import re
import threading
from collections.abc import Callable
from dataclasses import dataclass
from datetime import date, datetime, time, timedelta
from typing import Any

from huiyi.errors import InvalidInput

__all__ = ["TimeSpan", "find_time_phrases", "format_by_age", "parse_datetime", "query_time_range"]

_DAY = timedelta(days=1)


@dataclass(frozen=True)
class TimeSpan:
    """A resolved time phrase: ``start`` inclusive, ``end`` exclusive, and the words that said it."""

    start: datetime
    end: datetime
    phrase: str

    def __contains__(self, moment: object) -> bool:
        """``moment in span`` — the half-open test recall filters with."""
        return isinstance(moment, datetime) and self.start <= moment < self.end


_Range = tuple[datetime, datetime]


# ---------------------------------------------------------------- calendar helpers


def _midnight(day: date) -> datetime:
    return datetime.combine(day, time())


def _days(first: date, count: int = 1) -> _Range:
    """``count`` whole days from ``first``."""
    return _midnight(first), _midnight(first + timedelta(days=count))


def _week_start(day: date) -> date:
    """Monday of the Monday–Sunday week, the week 上周 and “last week” both mean."""
    return day - timedelta(days=day.weekday())


def _shift_month(year: int, month: int, by: int) -> tuple[int, int]:
    index = year * 12 + month - 1 + by
    return index // 12, index % 12 + 1


def _month(year: int, month: int, count: int = 1) -> _Range:
    end_year, end_month = _shift_month(year, month, count)
    return datetime(year, month, 1), datetime(end_year, end_month, 1)


def _year(year: int) -> _Range:
    return datetime(year, 1, 1), datetime(year + 1, 1, 1)


def _weekend(now: datetime, which: str) -> _Range:
    """Saturday and Sunday. A bare 周末 / “the weekend” means the nearest one: on Mon–Wed the one
    just past (周末干嘛了), on Thu–Fri the coming one, on Sat–Sun the current one."""
    monday = _week_start(now.date())
    if which == "bare":
        which = "last" if now.weekday() <= 2 else "this"
    offset = {"last": -7, "this": 0, "next": 7}[which]
    return _days(monday + timedelta(days=offset + 5), 2)


def _vague_ago(now: datetime, unit: str, lo: int, hi: int) -> _Range:
    """From ``hi`` to ``lo`` units back, widened to whole units: “a few days ago” = days −5…−2."""
    start, _ = _ago(now, unit, hi)
    _, end = _ago(now, unit, lo)
    return start, end


def _ago(now: datetime, unit: str, n: int) -> _Range:
    """The whole unit (day, Mon–Sun week, month, year, hour, minute) that lay ``n`` units back;
    negative ``n`` looks forward."""
    if unit == "day":
        return _days(now.date() - timedelta(days=n))
    if unit == "week":
        return _days(_week_start(now.date() - timedelta(days=7 * n)), 7)
    if unit == "month":
        return _month(*_shift_month(now.year, now.month, -n))
    if unit == "year":
        return _year(now.year - n)
    if unit == "hour":
        hour = (now - timedelta(hours=n)).replace(minute=0, second=0, microsecond=0)
        return hour, hour + timedelta(hours=1)
    minute = (now - timedelta(minutes=n)).replace(second=0, microsecond=0)
    return minute, minute + timedelta(minutes=1)


def _recent(now: datetime, days: int) -> _Range:
    """From the start of the day ``days`` back until now: 最近, recently, the past week."""
    return _midnight(now.date() - timedelta(days=days)), now + timedelta(seconds=1)


# English seasons are meteorological (spring = Mar–May); a winter belongs to the year it starts in.
_SEASON_START = {"spring": 3, "summer": 6, "autumn": 9, "fall": 9, "winter": 12}


def _season(name: str, year: int) -> _Range:
    return _month(year, _SEASON_START[name], 3)


def _season_named(name: str, which: str, now: datetime) -> _Range:
    """``this`` = the one that starts this year (a January winter began last year); ``last`` = the
    most recent one already over; ``next`` = the first one not yet begun."""
    year = now.year - 1 if name == "winter" and now.month <= 2 else now.year
    if which == "last":
        while _season(name, year)[1] > now:
            year -= 1
    elif which == "next":
        while _season(name, year)[0] <= now:
            year += 1
    return _season(name, year)


def _month_named(month: int, which: str, now: datetime) -> _Range:
    """Same reading as seasons: ``last May`` in May 2023 is May 2022, in June 2023 it is May 2023."""
    year = now.year
    if which == "last":
        while _month(year, month)[1] > now:
            year -= 1
    elif which == "next":
        while _month(year, month)[0] <= now:
            year += 1
    return _month(year, month)


def _weekday_named(weekday: int, which: str, now: datetime) -> _Range:
    """``last Saturday`` = the latest one before today, ``next Monday`` = the first after today,
    bare or ``this`` = the one in this Monday–Sunday week (as jionlp reads 周三)."""
    today = now.date()
    if which == "last":
        back = (today.weekday() - weekday) % 7 or 7
        return _days(today - timedelta(days=back))
    if which == "next":
        ahead = (weekday - today.weekday()) % 7 or 7
        return _days(today + timedelta(days=ahead))
    return _days(_week_start(today) + timedelta(days=weekday))


# ---------------------------------------------------------------- English rules

_MONTHS = {
    name: number
    for number, names in enumerate(
        [
            ("january", "jan"),
            ("february", "feb"),
            ("march", "mar"),
            ("april", "apr"),
            ("may",),
            ("june", "jun"),
            ("july", "jul"),
            ("august", "aug"),
            ("september", "sept", "sep"),
            ("october", "oct"),
            ("november", "nov"),
            ("december", "dec"),
        ],
        start=1,
    )
    for name in names
}
_WEEKDAYS = {  # no abbreviations: sat, sun and wed are English words
    name: number
    for number, names in enumerate(
        [
            ("monday",),
            ("tuesday",),
            ("wednesday",),
            ("thursday",),
            ("friday",),
            ("saturday",),
            ("sunday",),
        ]
    )
    for name in names
}
_COUNTS = {
    "a": 1,
    "an": 1,
    "one": 1,
    "two": 2,
    "three": 3,
    "four": 4,
    "five": 5,
    "six": 6,
    "seven": 7,
    "eight": 8,
    "nine": 9,
    "ten": 10,
    "eleven": 11,
    "twelve": 12,
}
_VAGUE = {"couple": (2, 3), "few": (2, 5), "several": (3, 7)}
_UNITS = {"minute": "minute", "min": "minute", "hour": "hour", "day": "day", "week": "week"}
_UNITS |= {"month": "month", "year": "year"}

_MONTH_RE = r"(?P<month>" + "|".join(sorted(_MONTHS, key=len, reverse=True)) + r")\.?"
_WEEKDAY_RE = r"(?P<weekday>" + "|".join(sorted(_WEEKDAYS, key=len, reverse=True)) + r")"
_COUNT_RE = (
    r"(?P<count>\d{1,3}|" + "|".join(sorted(_COUNTS, key=len, reverse=True)) + r"|(?:a\s+)?(?P<vague>couple"
    r"(?:\s+of)?|few|several))"
)
_UNIT_RE = r"(?P<unit>minute|min|hour|day|week|month|year)s?"
_DAY_RE = r"(?P<day>[0-3]?\d)(?:st|nd|rd|th)?"
_YEAR_RE = r"(?P<year>(?:1[89]|20|21)\d\d)"
_WHICH_RE = r"(?:(?P<which>last|this|next|past|coming)\s+)"
_SEASON_RE = r"(?P<season>spring|summer|autumn|fall|winter)"


def _group(match: re.Match[str], name: str) -> str | None:
    """A named group, or ``None`` when this rule's pattern has no such group."""
    return match.groupdict().get(name)


def _count(match: re.Match[str]) -> tuple[int, int]:
    """The (low, high) count a phrase names: ``two`` → (2, 2), ``a few`` → (2, 5)."""
    vague = match.group("vague")
    if vague:
        return _VAGUE[vague.split()[0]]
    text = match.group("count").lower()
    n = _COUNTS[text] if text in _COUNTS else int(text)
    return n, n


def _which(match: re.Match[str]) -> str:
    which = (_group(match, "which") or "this").lower()
    return {"past": "last", "coming": "next"}.get(which, which)


def _en_ago(match: re.Match[str], now: datetime) -> _Range:
    lo, hi = _count(match)
    unit = _UNITS[match.group("unit").lower()]
    if match.group("later"):
        lo, hi = -hi, -lo
    return _vague_ago(now, unit, lo, hi)


def _en_past_n(match: re.Match[str], now: datetime) -> _Range:
    """“the past three days”, “the last week”: a rolling window up to now, from whole days back."""
    _, n = _count(match) if match.group("count") else (1, 1)
    unit = _UNITS[match.group("unit").lower()]
    if unit in ("hour", "minute"):
        start = now - timedelta(**{unit + "s": n})
    else:
        start = _midnight(now.date() - timedelta(days={"day": 1, "week": 7, "month": 30, "year": 365}[unit] * n))
    return start, now + timedelta(seconds=1)


def _en_relative_period(match: re.Match[str], now: datetime) -> _Range:
    which, unit = _which(match), match.group("unit").lower()
    back = {"last": 1, "this": 0, "next": -1}[which]
    return _ago(now, unit, back)


def _en_date(match: re.Match[str], now: datetime) -> _Range:
    year = int(match["year"]) if match["year"] else now.year
    return _days(date(year, _MONTHS[match["month"].lower()], int(match["day"])))


def _en_month(match: re.Match[str], now: datetime) -> _Range | None:
    year = _group(match, "year")
    if match["month"] == "may" and not year:
        return None  # “this may hurt”: lower-case may without a year is the verb
    month = _MONTHS[match["month"].lower()]
    return _month(int(year), month) if year else _month_named(month, _which(match), now)


def _en_season(match: re.Match[str], now: datetime) -> _Range:
    name, year = match["season"].lower(), _group(match, "year")
    return _season(name, int(year)) if year else _season_named(name, _which(match), now)


def _en_weekday(match: re.Match[str], now: datetime) -> _Range:
    return _weekday_named(_WEEKDAYS[match.group("weekday").lower()], _which(match), now)


def _en_weekend(match: re.Match[str], now: datetime) -> _Range:
    which = (_group(match, "which") or "bare").lower()
    return _weekend(now, {"past": "last", "coming": "next"}.get(which, which))


def _clock(match: re.Match[str], day: datetime) -> _Range | None:
    """The hour (or minute, if given) a clock match names on ``day``: ``8 pm``, ``20:15``."""
    hour = int(match.group("hour"))
    ampm = _group(match, "ampm") or _group(match, "ampm2")
    if ampm:
        if not 1 <= hour <= 12:
            return None
        hour = hour % 12 + (12 if ampm.lower().startswith("p") else 0)
    if hour > 23:
        return None
    if match.group("minute"):
        start = day + timedelta(hours=hour, minutes=int(match.group("minute")))
        return start, start + timedelta(minutes=1)
    start = day + timedelta(hours=hour)
    return start, start + timedelta(hours=1)


def _fixed(build: Callable[[datetime], _Range]) -> Callable[[re.Match[str], datetime], _Range]:
    return lambda _match, now: build(now)


def _en_ago_future(match: re.Match[str], now: datetime) -> _Range:
    lo, hi = _count(match)
    return _vague_ago(now, _UNITS[match.group("unit").lower()], -hi, -lo)


def _en_earlier_this(match: re.Match[str], now: datetime) -> _Range:
    start, _ = _ago(now, match.group("unit").lower(), 0)
    return start, now + timedelta(seconds=1)


def _en_iso(match: re.Match[str], now: datetime) -> _Range:
    return _days(date(int(match.group("yy")), int(match.group("mon")), int(match.group("day"))))


def _just_now(now: datetime) -> _Range:
    return now - timedelta(hours=2), now + timedelta(seconds=1)


def _while_ago(now: datetime) -> _Range:
    """前阵子, “a while ago”: one week to two months back."""
    return _midnight(now.date() - 60 * _DAY), _midnight(now.date() - 6 * _DAY)


_PARTS = {"morning": (6, 12), "afternoon": (12, 18), "evening": (18, 24), "night": (18, 24)}


def _part_of_day(day: datetime, part: str) -> _Range:
    first, last = _PARTS[part.lower()]
    return day + timedelta(hours=first), day + timedelta(hours=last)


_EnRule = tuple[re.Pattern[str], Callable[[re.Match[str], datetime], _Range | None]]


def _rule(pattern: str, resolve: Callable[[re.Match[str], datetime], _Range | None]) -> _EnRule:
    return re.compile(rf"(?<![\w-]){pattern}(?![\w-])", re.IGNORECASE), resolve


# a clock needs am/pm or minutes: a bare “at 8” is too often not a time
_CLOCK_RE = r"(?P<hour>[012]?\d)(?::(?P<minute>[0-5]\d)\s*(?P<ampm>[ap]\.?m\b\.?)?|\s*(?P<ampm2>[ap]\.?m\b\.?))"
_EN_RULES: list[_EnRule] = [
    _rule(r"the\s+day\s+before\s+yesterday", _fixed(lambda now: _days(now.date() - 2 * _DAY))),
    _rule(r"the\s+day\s+after\s+tomorrow", _fixed(lambda now: _days(now.date() + 2 * _DAY))),
    _rule(r"yesterday", _fixed(lambda now: _days(now.date() - _DAY))),
    _rule(r"today", _fixed(lambda now: _days(now.date()))),
    _rule(r"tomorrow", _fixed(lambda now: _days(now.date() + _DAY))),
    _rule(r"earlier\s+today", _fixed(lambda now: (_midnight(now.date()), now + timedelta(seconds=1)))),
    _rule(r"tonight", _fixed(lambda now: _part_of_day(_midnight(now.date()), "night"))),
    _rule(r"last\s+night", _fixed(lambda now: _part_of_day(_midnight(now.date() - _DAY), "night"))),
    _rule(r"this\s+(?P<part>morning|afternoon|evening)", lambda m, now: _part_of_day(_midnight(now.date()), m["part"])),
    _rule(r"just\s+now|a\s+moment\s+ago", _fixed(_just_now)),
    _rule(r"recently|lately|these\s+days", _fixed(lambda now: _recent(now, 30))),
    _rule(r"the\s+other\s+day", _fixed(lambda now: _vague_ago(now, "day", 2, 5))),
    _rule(r"a\s+while\s+(?:ago|back)", _fixed(_while_ago)),
    _rule(rf"{_COUNT_RE}\s+{_UNIT_RE}\s+(?:ago|(?P<later>later|from\s+now))", _en_ago),
    _rule(rf"in\s+{_COUNT_RE}\s+{_UNIT_RE}", _en_ago_future),
    _rule(rf"(?:the\s+(?:past|last)|past)\s+(?:{_COUNT_RE}\s+)?{_UNIT_RE}", _en_past_n),
    _rule(r"(?P<which>last|this|next|past|coming)\s+(?P<unit>week|month|year)", _en_relative_period),
    _rule(r"earlier\s+this\s+(?P<unit>week|month|year)", _en_earlier_this),
    _rule(rf"{_WHICH_RE}?(?:the\s+)?weekend", _en_weekend),
    _rule(rf"{_WHICH_RE}?{_WEEKDAY_RE}", _en_weekday),
    _rule(r"(?P<yy>\d{4})(?P<sep>[-/.])(?P<mon>[01]?\d)(?P=sep)(?P<day>[0-3]?\d)", _en_iso),
    _rule(rf"(?:the\s+)?{_DAY_RE}\s+(?:of\s+)?{_MONTH_RE}(?:,?\s+{_YEAR_RE})?", _en_date),
    _rule(rf"{_MONTH_RE}\s+(?:the\s+)?{_DAY_RE}(?:,?\s+{_YEAR_RE})?(?!\s*:)", _en_date),
    _rule(rf"(?:(?:in|during|since|until|of)\s+)?{_MONTH_RE},?\s+(?:of\s+)?{_YEAR_RE}", _en_month),
    _rule(rf"(?:(?:in|during|since|until|of)\s+(?:early\s+|late\s+|mid-?)?|{_WHICH_RE}){_MONTH_RE}", _en_month),
    _rule(rf"(?:(?:in|during)\s+(?:the\s+)?)?{_SEASON_RE},?\s+(?:of\s+)?{_YEAR_RE}", _en_season),
    _rule(rf"{_WHICH_RE}{_SEASON_RE}", _en_season),
    _rule(rf"(?:in|during|over|through)\s+the\s+{_SEASON_RE}", _en_season),
    _rule(rf"(?:in|during|since|of|back\s+in)\s+{_YEAR_RE}", lambda m, now: _year(int(m["year"]))),
    _rule(rf"at\s+{_CLOCK_RE}", lambda m, now: _clock(m, _midnight(now.date()))),
]

# A day phrase may be narrowed by what follows it: “yesterday morning”, “on Monday at 8 pm”.
_EN_SUFFIX = re.compile(
    rf"\s+(?:(?:in\s+the\s+)?(?P<part>morning|afternoon|evening|night)|at\s+{_CLOCK_RE})(?![\w-])",
    re.IGNORECASE,
)


def _narrow_en(text: str, end: int, span: _Range) -> tuple[int, _Range]:
    if span[1] - span[0] != _DAY or span[0].time() != time():
        return end, span
    suffix = _EN_SUFFIX.match(text, end)
    if suffix is None:
        return end, span
    narrowed = _part_of_day(span[0], suffix["part"]) if suffix["part"] else _clock(suffix, span[0])
    return (end, span) if narrowed is None else (suffix.end(), narrowed)


def _english(text: str, now: datetime) -> list[tuple[int, int, _Range]]:
    found: list[tuple[int, int, _Range]] = []
    for pattern, resolve in _EN_RULES:
        for match in pattern.finditer(text):
            try:
                span = resolve(match, now)
                if span is None:
                    continue
                end, span = _narrow_en(text, match.end(), span)
            except (ValueError, OverflowError, KeyError):
                continue
            found.append((match.start(), end, span))
    return found


# ---------------------------------------------------------------- Chinese candidates

# Bounded, and digits never start mid-number, so a long digit run cannot make the scan quadratic.
_NUM = r"(?:(?<![0-9０-９])[0-9０-９]{1,4}|[零〇一二两三四五六七八九十百千]{1,6})"
_ZH_ATOMS = [
    # vague phrases first, so 前几天 is not read as 前 + 几天
    r"刚才|刚刚|方才|最近|近来|近期|这几天|这两天|前几天|前两天|前些天|前些日子|前阵子|前段时间|这段时间|这阵子",
    r"(?:好)?几个?(?:天|周|星期|礼拜|月|年|小时|钟头)(?:以前|之前|前)",
    rf"(?:最近|过去|近)的?{_NUM}个?(?:天|周|星期|礼拜|月|年|小时)",
    rf"(?:{_NUM}个?半?|半个?)(?:天|日|周|星期|礼拜|月|年|小时|钟头|分钟)半?(?:以前|之前|前|以后|之后|后)",
    rf"{_NUM}年(?![级代纪])",
    rf"{_NUM}月份?",
    rf"{_NUM}[日号](?![线楼房床门机车位子])",
    r"大前天|大后天|前天|昨天|昨日|昨儿|今天|今日|今儿|明天|明日|明儿|后天",
    r"昨晚|今晚|明晚|昨夜|今夜|今早|昨早|明早",
    r"大前年|大后年|前年|去年|今年|明年|后年|上半年|下半年|年初|年中|年底|年末",
    r"(?:上上|下下|上一?个?|下一?个?|这一?个?|本)(?:周|星期|礼拜)[一二三四五六日天末1-7]?",
    r"(?:周|星期|礼拜)[一二三四五六日天末1-7]",
    r"(?:上上|下下|上|下|这|本)个?月|月[初中底末]",
    r"[春夏秋冬](?:天|季)",
    r"(?:凌晨|清晨|早上|早晨|上午|中午|下午|傍晚|晚上|夜里|夜间|半夜|深夜|午夜|白天)(?!好)",  # not 晚上好
    rf"{_NUM}点(?:{_NUM}分|半|一刻|三刻|钟|整)?(?![都也儿])|\d{{1,2}}[:：][0-5]\d",
    r"春节|元旦|除夕|元宵节?|清明节|端午节?|中秋节?|国庆节?|劳动节|圣诞节?|平安夜|情人节|七夕节?|儿童节|教师节",
]
_ZH_ATOM = re.compile("|".join(f"(?:{atom})" for atom in _ZH_ATOMS))
_ZH_GLUE = frozenset({"", "的"})
_ZH_MAX_ATOMS = 6  # longer runs are split; keeps the longest-first search small
_ZH_AMBIGUOUS_CLOCK = re.compile(r"[一两几]点")  # 好一点, 两点 (points) — not a time on their own

_ZH_ALIASES = [
    ("的", ""),
    ("昨晚", "昨天晚上"),
    ("昨夜", "昨天晚上"),
    ("今晚", "今天晚上"),
    ("今夜", "今天晚上"),
    ("明晚", "明天晚上"),
    ("今早", "今天早上"),
    ("昨早", "昨天早上"),
    ("明早", "明天早上"),
    ("昨日", "昨天"),
    ("昨儿", "昨天"),
    ("今日", "今天"),
    ("今儿", "今天"),
    ("明日", "明天"),
    ("明儿", "明天"),
    ("这个月", "本月"),
    ("这月", "本月"),
]

_ZH_VAGUE_AGO = re.compile(r"(?:好)?几个?(天|周|星期|礼拜|月|年|小时|钟头)(?:以前|之前|前)")
_ZH_UNIT = {"天": "day", "周": "week", "星期": "week", "礼拜": "week", "月": "month", "年": "year"}
_ZH_UNIT |= {"小时": "hour", "钟头": "hour"}
_ZH_WEEKEND = re.compile(r"(上上|下下|上一?个?|下一?个?|这一?个?|本)?(?:周|星期|礼拜)末")


def _zh_rule(phrase: str, now: datetime) -> _Range | None:
    """Phrases jionlp cannot read, or reads in a way recall should not (周末 = Sunday only)."""
    if phrase in ("刚才", "刚刚", "方才"):
        return _just_now(now)
    if phrase in ("最近", "近来", "近期", "这段时间", "这阵子"):
        return _recent(now, 30)
    if phrase in ("这几天",):
        return _recent(now, 6)
    if phrase in ("这两天",):
        return _recent(now, 2)
    if phrase in ("前几天", "前些天", "前些日子"):
        return _vague_ago(now, "day", 2, 5)
    if phrase in ("前阵子", "前段时间"):
        return _while_ago(now)
    vague = _ZH_VAGUE_AGO.fullmatch(phrase)
    if vague:
        return _vague_ago(now, _ZH_UNIT[vague.group(1)], 2, 5)
    weekend = _ZH_WEEKEND.fullmatch(phrase)
    if weekend:
        prefix = weekend.group(1) or ""
        which = "bare" if not prefix else "last" if prefix.startswith("上") else "next"
        which = "this" if prefix.startswith(("这", "本")) else which
        if prefix in ("上上", "下下"):
            monday = _week_start(now.date()) + timedelta(days=-14 if prefix == "上上" else 14)
            return _days(monday + timedelta(days=5), 2)
        return _weekend(now, which)
    return None


_jionlp_lock = threading.Lock()
_jionlp_parse: Any = None


def _jionlp(phrase: str, now: datetime) -> _Range | None:
    """Ask jionlp_time about one candidate. It keeps per-call state on a shared parser, hence the lock."""
    global _jionlp_parse
    with _jionlp_lock:
        if _jionlp_parse is None:
            import jionlp_time

            _jionlp_parse = jionlp_time.parse_time
        base = datetime(now.year, now.month, now.day, now.hour, now.minute, now.second)
        try:
            result = _jionlp_parse(phrase, time_base=base)
        except Exception:  # a third-party parser fails in many ways; none of them is ours to raise
            return None
    if not isinstance(result, dict) or result.get("type") not in ("time_point", "time_span"):
        return None
    try:
        first, last = (datetime.strptime(value, "%Y-%m-%d %H:%M:%S") for value in result["time"])
    except (TypeError, ValueError):  # "inf" bounds of 2023年以后
        return None
    if last.second == 59:
        last += timedelta(seconds=1)  # jionlp's inclusive 23:59:59 → our exclusive 00:00
    if last <= first:
        last = first + timedelta(seconds=1)
    return first, last


def _resolve_zh(phrase: str, now: datetime) -> _Range | None:
    for old, new in _ZH_ALIASES:
        phrase = phrase.replace(old, new)
    try:
        return _zh_rule(phrase, now) or _jionlp(phrase, now)
    except (ValueError, OverflowError):
        return None


def _chinese(text: str, now: datetime) -> list[tuple[int, int, _Range]]:
    runs: list[list[re.Match[str]]] = []
    for atom in _ZH_ATOM.finditer(text):
        if runs and len(runs[-1]) < _ZH_MAX_ATOMS and text[runs[-1][-1].end() : atom.start()] in _ZH_GLUE:
            runs[-1].append(atom)
        else:
            runs.append([atom])
    found: list[tuple[int, int, _Range]] = []
    for run in runs:
        first = 0
        while first < len(run):
            for last in range(len(run) - 1, first - 1, -1):
                start, end = run[first].start(), run[last].end()
                phrase = text[start:end]
                if first == last and _ZH_AMBIGUOUS_CLOCK.fullmatch(phrase):
                    continue
                span = _resolve_zh(phrase, now)
                if span is not None:
                    found.append((start, end, span))
                    first = last + 1
                    break
            else:
                first += 1
    return found


# ---------------------------------------------------------------- public API


def find_time_phrases(text: str, now: datetime) -> list[TimeSpan]:
    """Every time phrase in ``text``, in reading order, resolved against ``now``.

    Overlapping readings keep the longest (“the day before yesterday” over “yesterday”). Never raises
    on odd text; returns ``[]`` when nothing is found.

        >>> now = datetime(2023, 5, 10, 14, 30)
        >>> [(s.phrase, str(s.start), str(s.end)) for s in find_time_phrases("昨天晚上八点我们见过", now)]
        [('昨天晚上八点', '2023-05-09 20:00:00', '2023-05-09 21:00:00')]
        >>> find_time_phrases("nothing here", now)
        []
    """
    if not isinstance(text, str) or not text:
        return []
    candidates = _english(text, now)
    if _ZH_ATOM.search(text):
        candidates += _chinese(text, now)
    candidates.sort(key=lambda c: (c[0] - c[1], c[0]))
    taken: list[tuple[int, int, _Range]] = []
    for candidate in candidates:
        if all(candidate[1] <= other[0] or candidate[0] >= other[1] for other in taken):
            taken.append(candidate)
    taken.sort()
    return [TimeSpan(start, end, text[a:b]) for a, b, (start, end) in taken if start < end]


def query_time_range(text: str, now: datetime) -> TimeSpan | None:
    """The span a recall query is about: its one time phrase, or the union of several, else ``None``.

    The union errs wide on purpose: a filter that is too loose costs ranking, one too tight loses
    the memory.

        >>> span = query_time_range("上周我们去哪儿吃饭了", datetime(2023, 5, 10))
        >>> span.start.date().isoformat(), span.end.date().isoformat()
        ('2023-05-01', '2023-05-08')
    """
    spans = find_time_phrases(text, now)
    if not spans:
        return None
    if len(spans) == 1:
        return spans[0]
    return TimeSpan(
        start=min(s.start for s in spans),
        end=max(s.end for s in spans),
        phrase=" ".join(s.phrase for s in spans),
    )


def _period(hour: int, english: bool) -> str:
    """06–12 上午, 12–18 下午, 18–06 晚上 (spec seed 000 §7)."""
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
        return f"{day} {_period(when.hour, english)}"
    return day


_LOCOMO = re.compile(
    r"(?P<hour>\d{1,2}):(?P<minute>\d{2})\s*(?P<ampm2>[ap]\.?\s*m\.?)\s+on\s+(?P<day>\d{1,2})\s+"
    r"(?P<month>[a-z]+)\.?,?\s+(?P<year>\d{4})",
    re.IGNORECASE,
)
_NUMERIC = re.compile(
    r"(?P<year>\d{4})\s*[-/.年]\s*(?P<month>\d{1,2})\s*[-/.月]\s*(?P<day>\d{1,2})\s*[日号]?"
    r"(?:(?:\s*|T)(?P<hour>\d{1,2})\s*[:：时点]\s*(?:(?P<minute>\d{1,2})\s*分?)?(?:[:：](?P<second>\d{2}))?)?",
    re.IGNORECASE,
)
_WORDY = re.compile(
    r"(?:(?P<day>\d{1,2})(?:st|nd|rd|th)?\s+(?:of\s+)?(?P<month>[a-z]+)\.?"
    r"|(?P<month2>[a-z]+)\.?\s+(?P<day2>\d{1,2})(?:st|nd|rd|th)?),?\s+(?P<year>\d{4})",
    re.IGNORECASE,
)


def parse_datetime(value: str) -> datetime:
    """A stored or incoming time as a naive wall-clock datetime.

    Reads ISO 8601 (``T`` or space; an offset is dropped, keeping the wall-clock fields as written),
    ``2023/04/27 20:00``, ``2023年4月27日``, ``8 May 2023`` and LoCoMo's ``1:56 pm on 8 May, 2023``.

        >>> parse_datetime("1:56 pm on 8 May, 2023")
        datetime.datetime(2023, 5, 8, 13, 56)
        >>> parse_datetime("2023-05-08T13:56:00+08:00")
        datetime.datetime(2023, 5, 8, 13, 56)
    """
    if not isinstance(value, str):
        raise InvalidInput(f"a time must be text, not {type(value).__name__}")
    text = value.strip()
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
    return parsed


def _parse_datetime(text: str) -> datetime | None:
    if not text:
        return None
    try:
        return datetime.fromisoformat(text).replace(tzinfo=None)
    except ValueError:
        pass
    if match := _LOCOMO.fullmatch(text):
        midnight = datetime(int(match["year"]), _MONTHS[match["month"].lower()], int(match["day"]))
        span = _clock(match, midnight)
        return None if span is None else span[0]
    if match := _NUMERIC.fullmatch(text):
        year, month, day, hour, minute, second = (
            int(match[name] or 0) for name in ("year", "month", "day", "hour", "minute", "second")
        )
        return datetime(year, month, day, hour, minute, second)
    if match := _WORDY.fullmatch(text):
        month = _MONTHS[(match["month"] or match["month2"]).lower()]
        return datetime(int(match["year"]), month, int(match["day"] or match["day2"]))
    return None
