"""English time phrases: the rules that find “last Saturday”, “two weeks ago” or “May 8 at 8 pm”
in text and resolve each against a clock to a half-open range (see :mod:`huiyi.text.periods`).

Also the month names that :func:`huiyi.text.times.parse_datetime` shares; clocks are :mod:`huiyi.text.clock_en`'s.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable
from datetime import date, datetime, time, timedelta

from huiyi.patterns import lazy
from huiyi.text import times_zh
from huiyi.text.clock_en import (
    CLOCK_RE,
    Bounds,
    clock_span,
    clocks_before_days,
    day_said,
    narrow,
    on_its_day,
    part_of_day,
)
from huiyi.text.date_ranges_en import RULES as DATE_RANGE_RULES
from huiyi.text.holidays import HOLIDAYS, holiday_named
from huiyi.text.holidays import day as holiday_day
from huiyi.text.month_days_en import MONTH_RE as _MONTH_RE
from huiyi.text.month_days_en import MONTHS as MONTHS  # read by parse_datetime and extraction
from huiyi.text.month_days_en import RULES as MONTH_DAY_RULES
from huiyi.text.month_days_en import YEAR_RE as _YEAR_RE
from huiyi.text.periods import (
    DAY,
    Range,
    just_now,
    midnight,
    month_named,
    month_span,
    recent,
    season_named,
    season_span,
    units_ago,
    vague_ago,
    weekday_named,
    weekend_span,
    while_ago,
    whole_days,
    year_span,
)
from huiyi.text.tense_en import SAID_DONE, asked_ahead, clause, still_to_come, told_done
from huiyi.text.weekdays_en import RANGE_RE as _RANGE_RE
from huiyi.text.weekdays_en import WEEKDAY_RE as _WEEKDAY_RE
from huiyi.text.weekdays_en import WEEKDAYS as _WEEKDAYS
from huiyi.text.weekdays_en import en_weekday, weekday_range
from huiyi.text.years_en import in_year, yearless

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
_UNITS |= {"month": "month", "year": "year", "fortnight": "fortnight"}

_COUNT_RE = (
    r"(?P<count>\d{1,3}|" + "|".join(sorted(_COUNTS, key=len, reverse=True)) + r"|(?:a\s+)?(?P<vague>couple"
    r"(?:\s+of)?|few|several))"
)
_UNIT_RE = r"(?P<unit>minute|min|hour|day|week|fortnight|month|year)s?"
_DAY_RE = r"(?P<day>[0-3]?\d)(?:st|nd|rd|th)?"
_WHICH_RE = r"(?:(?:the\s+|this\s+(?=coming))?(?P<which>last|this|next|past|coming)\s+)"
_SEASON_RE = r"(?P<season>spring|summer|autumn|fall|winter)"
# a month with a number after it is a date's (until Jan 3, since Jan. 3rd, Jan 3-5) or a year's, which other
# rules read, not the month alone
_NO_DAY_AFTER = r"(?!\.?\s+(?:the\s+)?\d)"
# a holiday by its name; Mother's and Father's Day need a capital (my mother's day was long is no date)
_HOLIDAY_RE = (
    r"(?P<holiday>christmas\s+eve|(?:christmas|xmas)(?:\s+day)?|new\s+year['’]?s(?:\s+(?:eve|day))?(?!\s+resolution)"
    r"|halloween|valentine['’]?s(?:\s+day)?|(?:st\.?|saint)\s+patrick['’]?s(?:\s+day)?|(?:the\s+)?(?:fourth|4th)\s+of\s+july"
    r"|independence\s+day|boxing\s+day|thanksgiving(?:\s+day)?|easter(?:\s+sunday)?|memorial\s+day|labou?r\s+day"
    r"|(?-i:(?:Mother|Father)['’]?s\s+[Dd]ay|(?:mother|father)['’]?s\s+Day))"
)
_HOLIDAY_NAMES = {  # spellings, without apostrophes, to the names of holidays.HOLIDAYS
    **{name.replace("'", ""): name for name in HOLIDAYS},
    **dict.fromkeys(["christmas day", "xmas", "xmas day"], "christmas"),
    **dict.fromkeys(["new years", "new years day"], "new year's day"),
    **dict.fromkeys(["valentines", "valentines day"], "valentine's day"),
    **dict.fromkeys(["st patricks", "st patricks day"], "st patrick's day"),
    **dict.fromkeys(["fourth of july", "4th of july", "the fourth of july", "the 4th of july"], "independence day"),
    **{"thanksgiving day": "thanksgiving", "easter sunday": "easter", "labour day": "labor day"},
}


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


def _unit_count(match: re.Match[str]) -> tuple[str, int, int]:
    """The unit a phrase counts in and its (low, high) count. A fortnight is two weeks: "in N units" is the whole
    unit it lands in (in three days: that day, in a month: that month, in two weeks: that Mon–Sun week), so in a
    fortnight is the week in two weeks, and a fortnight ago the week two weeks back."""
    lo, hi = _count(match)
    unit = _UNITS[match.group("unit").lower()]
    return ("week", 2 * lo, 2 * hi) if unit == "fortnight" else (unit, lo, hi)


def _en_ago(match: re.Match[str], now: datetime) -> Range:
    unit, lo, hi = _unit_count(match)
    if match.group("later"):
        lo, hi = -hi, -lo
    return vague_ago(now, unit, lo, hi)


def _en_weekends_ago(match: re.Match[str], now: datetime) -> Range:
    """“two weekends ago”: the weekend before the last one (a weekend ago is the last one)."""
    lo, hi = _count(match)
    start, end = weekend_span(now, "last")
    return start - timedelta(days=7 * (hi - 1)), end - timedelta(days=7 * (lo - 1))


def _en_past_n(match: re.Match[str], now: datetime) -> Range:
    """“the past three days”, “the last week”: a rolling window up to now, from whole days back."""
    _, n = _count(match) if match.group("count") else (1, 1)
    unit = _UNITS[match.group("unit").lower()]
    if unit in ("hour", "minute"):
        start = now - timedelta(**{unit + "s": n})
    else:
        start = midnight(
            now.date() - timedelta(days={"day": 1, "week": 7, "fortnight": 14, "month": 30, "year": 365}[unit] * n)
        )
    return start, now + timedelta(seconds=1)


def _en_relative_period(match: re.Match[str], now: datetime) -> Range:
    which, unit = _which(match), match.group("unit").lower()
    back = {"last": 1, "this": 0, "next": -1}[which]
    return units_ago(now, unit, back)


# a part of a week, its days from Monday: early next week is Monday to Wednesday, the end of it Thursday to Sunday
_WEEK_PARTS = {"early": (0, 3), "beginning": (0, 3), "start": (0, 3), "mid": (2, 4), "middle": (2, 4)}
_WEEK_PARTS |= {"late": (3, 7), "end": (3, 7)}


def _en_part_of_week(match: re.Match[str], now: datetime) -> Range:
    """See _WEEK_PARTS; on a Sunday the end of the week still to come is the coming week's (by the end of the
    week, said on a Sunday, was this week's Thursday to the Sunday it was said on)."""
    back = {"last": 1, "this": 0, "next": -1}[_which(match)]
    first, last = _WEEK_PARTS[(match["part"] or match["partof"]).lower()]
    if back == 0 and last == 7 and now.weekday() == 6 and not told_done(match):
        back = -1
    start, _ = units_ago(now, "week", back)
    return start + timedelta(days=first), start + timedelta(days=last)


def _en_date(match: re.Match[str], now: datetime) -> Range:
    year = int(match["year"]) if match["year"] else now.year
    return whole_days(date(year, MONTHS[match["month"].lower()], int(match["day"])))


def _en_month(match: re.Match[str], now: datetime) -> Range | None:
    year = _group(match, "year")
    if match["month"] == "may" and not year:
        return None  # “this may hurt”: lower-case may without a year is the verb
    month = MONTHS[match["month"].lower()]
    return month_span(int(year), month) if year else month_named(month, _which(match), now)


def _en_season(match: re.Match[str], now: datetime) -> Range:
    name, year = match["season"].lower(), _group(match, "year")
    return season_span(name, int(year)) if year else season_named(name, _which(match), now)


def _en_holiday(match: re.Match[str], now: datetime) -> Range:
    """See :func:`~huiyi.text.holidays.holiday_named`: a bare one is this year's unless its clause tells it
    done (Christmas was great, said in January) or still to come (home for Thanksgiving, said in December);
    a year said with it (Christmas 2023) is that year's."""
    spelt = re.sub(r"\s+", " ", re.sub(r"['’.]", "", match["holiday"].lower()))
    name = _HOLIDAY_NAMES[re.sub(r"^saint ", "st ", spelt)]
    if match["hyear"]:
        return whole_days(holiday_day(name, int(match["hyear"])))
    around = clause(match)
    text, start, end, _ = around
    done = SAID_DONE.search(text, start, end) is not None
    return holiday_named(name, _which(match), now, to_come=still_to_come(match, around), done=done)


def _en_weekend(match: re.Match[str], now: datetime) -> Range | None:
    """Which weekend a phrase names (see :func:`~huiyi.text.periods.weekend_span`), as
    :func:`_longer_weekend` has it when it is a long one."""
    span = _which_weekend(match, now)
    return span if span is None or not match["long"] else _longer_weekend(span, match["long"])


def _which_weekend(match: re.Match[str], now: datetime) -> Range | None:
    which = "after next" if match["after"] else (_group(match, "which") or "bare").lower()
    near = match.string[max(0, match.start() - 6) : match.end() + 6]
    word = match.start("weekend")  # a long weekend: what is before it is before "long"
    any_one = A_WEEKEND.search(match.string, max(0, word - 30), word)
    here_long = _HERE_LONG.search(match.string, max(0, word - 40), word)
    if which == "bare" and any_one and not here_long:
        return None  # a weekend yoga class, every weekend, just a long weekend: no one weekend
    if which == "bare" and here_long and not told_done(match):
        which = "this"  # I've got a 3-day weekend, said on a Wednesday: the coming one, not the one gone
    if which == "bare" and _CJK_CHAR.search(near):  # 这个weekend, weekend去爬山了: as 周末 reads
        return _as_zh_weekend(match, now)
    if which == "coming":
        which = "this" if now.weekday() < 5 else "next"
    if which in ("bare", "this") and now.weekday() < 5 and told_done(match):
        which = "last"  # we watched Dune 2 over the weekend, said on a Thursday: the one gone, not the coming one
    if which == "bare" and now.weekday() <= 2 and (still_to_come(match) or asked_ahead(match)):
        which = "this"  # I'm going camping over the weekend, see you at the weekend, said on a Monday: the coming one
    return weekend_span(now, {"past": "last"}.get(which, which))


_LONG_RE = r"(?P<long>long|(?:three|four|3|4)[-\s]day)\s+"


def _longer_weekend(span: Range, long: str) -> Range:
    """A long or three-day weekend is Saturday through Monday, where a Monday off most often makes one (the US's
    and the UK's holiday Mondays); a four-day one is Friday through Monday."""
    start, end = span
    return (start - DAY if long[0] in "f4" else start), end + DAY


# a long weekend, a 3-day weekend: a length, as a week is
A_WEEKEND = lazy(r"\b(?:a|an|every|each|any)\s+(?:(?:long|(?:three|four|3|4)[-\s]day)\s+)?$", re.IGNORECASE)
# it's a long weekend, we have a long weekend coming up: the one to come, not a length
_HERE_LONG = lazy(
    r"\b(?:it'?s|it’s|it\s+is|(?:have|got)(?:\s+got)?)\s+an?\s+(?:long|(?:three|four|3|4)[-\s]day)\s+$", re.IGNORECASE
)


def _as_zh_weekend(match: re.Match[str], now: datetime) -> Range:
    """An English weekend in a Chinese line, read by the Chinese rules for 周末: 上个/下下/这个 before it
    name which, and a bare one already over is the coming one in a clause said of a time to come."""
    before = match.string[: match.start()].rstrip()
    if named := times_zh.WEEKEND_PREFIX.search(before):
        return times_zh.weekend_named(named.group(0), now)
    span = times_zh.weekend_named("", now)
    if span[1] <= midnight(now.date()) and times_zh.to_come(times_zh.clause_around(match.string, match.start())):
        return span[0] + timedelta(days=7), span[1] + timedelta(days=7)
    return span


_CJK_CHAR = lazy(r"[\u4e00-\u9fff]")


def _fixed(build: Callable[[datetime], Range]) -> Callable[[re.Match[str], datetime], Range]:
    return lambda _match, now: build(now)


def _en_ago_future(match: re.Match[str], now: datetime) -> Range:
    unit, lo, hi = _unit_count(match)
    return vague_ago(now, unit, -hi, -lo)


def _en_earlier_this(match: re.Match[str], now: datetime) -> Range:
    start, _ = units_ago(now, match.group("unit").lower(), 0)
    return start, now + timedelta(seconds=1)


def _en_numeric(match: re.Match[str], now: datetime) -> Range | None:
    if not match["prep"] and not match["yy"]:
        return None
    return whole_days(date(int(match["yy"] or now.year), int(match["mon"]), int(match["day"])))


def _en_iso(match: re.Match[str], now: datetime) -> Range:
    return whole_days(date(int(match.group("yy")), int(match.group("mon")), int(match.group("day"))))


# a day named by where it lies from a date said right after it: the Sunday before October 25, 2022, the week
# before 9 June 2023, two days after 3 March, last weekend before April 10 (LoCoMo asks this way); the date is
# whichever rule reads it
_AROUND_A_DATE = lazy(
    rf"(?<![A-Za-z0-9_-])(?:(?:(?:the|last)\s+)?(?:{_WEEKDAY_RE}|(?P<one>day|week|weekend))|{_COUNT_RE}\s+{_UNIT_RE})"
    r"\s+(?P<side>before|after)\s+",
    re.IGNORECASE,
)


def _around_dates(text: str, found: list[tuple[int, int, Range]]) -> list[tuple[int, int, Range]]:
    """Each day before or after a date found right after it, from where it starts to the date's end."""
    dates = {start: (end, span) for start, end, span in found if span[1] - span[0] == DAY and span[0].time() == time()}
    around: list[tuple[int, int, Range]] = []
    for match in _AROUND_A_DATE.finditer(text):
        # the date read from the word after before/after, or from it (the day after the 5th: "after the 5th")
        date_at = dates.get(match.end()) or dates.get(match.start("side"))
        if date_at is None:
            continue
        end, (day, _) = date_at
        span = _day_around(match, day, 1 if match["side"].lower() == "after" else -1)
        if span is not None:
            around.append((match.start(), end, span))
    return around


def _day_around(match: re.Match[str], day: datetime, way: int) -> Range | None:
    """The weekday nearest ``day`` on its ``way`` (1 after, -1 before); the week, the weekend or the units (two
    days, a month) that "next week", "in two days" or "two days ago" said on ``day`` names."""
    if match["weekday"]:
        return weekday_named(_WEEKDAYS[match["weekday"].lower()], "coming" if way > 0 else "last", day)
    one = (match["one"] or "").lower()
    if one == "weekend":  # the first Saturday after, the last Sunday before
        saturday = weekday_named(5, "coming", day)[0] if way > 0 else weekday_named(6, "last", day)[0] - DAY
        return whole_days(saturday.date(), 2)
    unit, lo, hi = (one, 1, 1) if one else _unit_count(match)
    if unit in ("hour", "minute"):
        return None
    return vague_ago(day, unit, lo, hi) if way < 0 else vague_ago(day, unit, -hi, -lo)


_Resolve = Callable[[re.Match[str], datetime], Range | None]
_EnRule = tuple[re.Pattern[str], _Resolve]


def _rule(pattern: str, resolve: _Resolve) -> tuple[str, _Resolve]:
    # a Latin word's edges: a Chinese character beside it is one (这个weekend一起去)
    return rf"(?<![A-Za-z0-9_-]){pattern}(?![A-Za-z0-9_-])", resolve


# compiled at first use (most chat is Chinese: compiling them cost ~10 ms of every start, issue 15)
_EN_RULE_PATTERNS: list[tuple[str, _Resolve]] = [
    _rule(r"the\s+day\s+before\s+yesterday", _fixed(lambda now: whole_days(now.date() - 2 * DAY))),
    _rule(r"the\s+day\s+after\s+tomorrow", _fixed(lambda now: whole_days(now.date() + 2 * DAY))),
    _rule(r"yesterday", _fixed(lambda now: whole_days(now.date() - DAY))),
    _rule(r"today", _fixed(lambda now: whole_days(now.date()))),
    _rule(r"tomorrow", _fixed(lambda now: whole_days(now.date() + DAY))),
    _rule(r"earlier\s+today", _fixed(lambda now: (midnight(now.date()), now + timedelta(seconds=1)))),
    _rule(r"tonight", _fixed(lambda now: part_of_day(midnight(now.date()), "night"))),
    _rule(r"last\s+night", _fixed(lambda now: part_of_day(midnight(now.date() - DAY), "night"))),
    _rule(r"this\s+(?P<part>morning|afternoon|evening)", lambda m, now: part_of_day(midnight(now.date()), m["part"])),
    _rule(r"just\s+now|a\s+moment\s+ago", _fixed(just_now)),
    _rule(r"recently|lately|these\s+days", _fixed(lambda now: recent(now, 30))),
    _rule(r"the\s+other\s+day", _fixed(lambda now: vague_ago(now, "day", 2, 5))),
    _rule(r"a\s+while\s+(?:ago|back)", _fixed(while_ago)),
    _rule(rf"{_COUNT_RE}\s+{_UNIT_RE}\s+(?:ago|(?P<later>later|from\s+now))", _en_ago),
    _rule(rf"in\s+{_COUNT_RE}\s+{_UNIT_RE}", _en_ago_future),
    _rule(rf"(?:the\s+(?:past|last)|past)\s+(?:{_COUNT_RE}\s+)?{_UNIT_RE}", _en_past_n),
    _rule(r"(?P<which>last|this|next|past|coming)\s+(?P<unit>week|month|year)", _en_relative_period),
    _rule(
        r"(?:(?P<part>early|mid|late)(?:-|\s+)|(?:the\s+)?(?P<partof>beginning|start|middle|end)\s+of\s+)"
        r"(?:(?P<which>last|this|next|past|coming)\s+|the\s+)?week",  # by end of week
        _en_part_of_week,
    ),
    _rule(r"earlier\s+this\s+(?P<unit>week|month|year)", _en_earlier_this),
    _rule(r"(?:the\s+)?week\s+after\s+next", _fixed(lambda now: units_ago(now, "week", -2))),
    _rule(rf"{_COUNT_RE}\s+weekends?\s+ago", _en_weekends_ago),
    _rule(rf"{_WHICH_RE}?(?:the\s+)?(?:{_LONG_RE})?(?P<weekend>weekend)(?P<after>\s+after\s+next)?", _en_weekend),
    _rule(_RANGE_RE, weekday_range),
    _rule(rf"{_WHICH_RE}?{_WEEKDAY_RE}(?P<after>\s+after\s+next)?", en_weekday),
    _rule(r"(?P<yy>\d{4})(?P<sep>[-/.])(?P<mon>[01]?\d)(?P=sep)(?P<day>[0-3]?\d)", _en_iso),
    _rule(rf"(?:the\s+)?{_DAY_RE}\s+(?:of\s+)?{_MONTH_RE}(?:,?\s+{_YEAR_RE})?", _en_date),
    _rule(rf"{_MONTH_RE}\s+(?:the\s+)?{_DAY_RE}(?:,?\s+{_YEAR_RE})?(?!\s*:)", _en_date),
    *(_rule(pattern, resolve) for pattern, resolve in MONTH_DAY_RULES),
    *(_rule(pattern, resolve) for pattern, resolve in DATE_RANGE_RULES),
    _rule(rf"(?:(?:in|during|since|until|of)\s+)?{_MONTH_RE},?\s+(?:of\s+)?{_YEAR_RE}", _en_month),
    # not a month whose day is said (since Jan 3 read all January, as its month outran the date "Jan 3")
    _rule(rf"(?:(?:in|during|since|until|of)\s+|{_WHICH_RE}){_MONTH_RE}{_NO_DAY_AFTER}", _en_month),
    _rule(rf"(?:(?:in|during)\s+(?:the\s+)?)?{_SEASON_RE},?\s+(?:of\s+)?{_YEAR_RE}", _en_season),
    _rule(rf"{_WHICH_RE}{_SEASON_RE}", _en_season),
    _rule(rf"(?:in|during|over|through)\s+the\s+{_SEASON_RE}", _en_season),
    _rule(rf"(?:in|during|since|of|back\s+in)\s+{_YEAR_RE}", lambda m, now: year_span(int(m["year"]))),
    _rule(rf"{_WHICH_RE}?{_HOLIDAY_RE}(?:,?\s+(?:of\s+)?(?P<hyear>(?:19|20)\d{{2}}))?", _en_holiday),
    # a month and day by numbers, as the US writes them (3/4 is March 4): after a word that dates, or with a year,
    # as a bare 3/4 is as often a fraction or a score
    _rule(
        r"(?:(?P<prep>on|by|until|till|before|after|since|due)\s+)?(?P<mon>1[0-2]|0?[1-9])/(?P<day>3[01]|[12]\d|0?[1-9])"
        # not a fraction of something: "after 3/4 of the game", "on 1/2 speed" (helper's review)
        r"(?:/(?P<yy>(?:19|20)\d\d))?(?![/\d])(?!\s+(?:of|speed|scale|size|times|cups?|off|the\s+way)\b)",
        _en_numeric,
    ),
    _rule(rf"at\s+{CLOCK_RE}", lambda m, now: clock_span(m, midnight(now.date()))),
]
_CLOCK_RULE = len(_EN_RULE_PATTERNS) - 1  # a clock alone: on today, unless its sentence names the day

# every rule holds a letter or a digit (as IGNORECASE and \d read them): text with neither has no English time
_MAY_HOLD = lazy(r"[a-z\d]", re.IGNORECASE)


@functools.cache
def _en_rules() -> list[_EnRule]:
    return [(re.compile(pattern, re.IGNORECASE), resolve) for pattern, resolve in _EN_RULE_PATTERNS]


def english_phrases(text: str, now: datetime, asked: bool = False) -> list[tuple[int, int, Range]]:
    """Each time phrase of ``text``: where it starts and ends, and its span; ``asked``: ``text`` is a recall
    query (a date with no year moves to next year's only when it asks ahead, see :mod:`huiyi.text.years_en`)."""
    found: list[tuple[int, int, Range]] = []
    clocks: list[int] = []  # which of found are a clock alone
    if not _MAY_HOLD.search(text):
        return found
    for rule, (pattern, resolve) in enumerate(_en_rules()):
        for match in pattern.finditer(text):
            try:
                span = resolve(match, now)
                if span is None:
                    continue
                if yearless(match):  # read as this year's: Jan 3 said in December is most often the coming one
                    span = in_year(match, span, now, asked)
                end, span = narrow(text, match.end(), span, now)
            except (ValueError, OverflowError, KeyError):
                continue
            if rule == _CLOCK_RULE:
                clocks.append(len(found))
            found.append((match.start(), end, span))
    found += _around_dates(text, found)
    found += clocks_before_days(text, found, now)
    days = sorted((s, e, span[0]) for s, e, span in found if day_said(span))
    if clocks and days:
        bounds = Bounds(text)
        for at in clocks:
            found[at] = on_its_day(found[at], days, bounds, midnight(now.date()))
    return found
