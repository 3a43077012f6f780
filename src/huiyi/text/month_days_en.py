"""Days of a month in English: a day named by its ordinal (on the 20th, the 15th of next month) and a part of a
month (mid-April, early next month, the end of the month), as patterns :mod:`huiyi.text.times_en` runs with its
rules, and the month names it shares.

A range of days (from the 1st to the 10th, between the 20th and the 25th of June) runs from its first day to its
last. A part of a month is a third of it: early (the beginning, the start) is the 1st–10th, mid (the middle) the
11th–20th, late and the end the 21st to its last day; "rent is due at the end of the month" names no one day.

    >>> import re
    >>> now = datetime(2025, 3, 13, 9)
    >>> def read(text):
    ...     pattern, resolve = next((p, r) for p, r in RULES if re.fullmatch(p, text, re.IGNORECASE))
    ...     return [f"{day:%m-%d}" for day in resolve(re.fullmatch(pattern, text, re.IGNORECASE), now)]
    >>> read("the 15th of next month"), read("mid-April"), read("the end of the month")
    (['04-15', '04-16'], ['04-11', '04-21'], ['03-21', '04-01'])
"""

from __future__ import annotations

import re
from collections.abc import Callable
from datetime import date, datetime

from huiyi.patterns import lazy
from huiyi.text.periods import Range, month_named, month_span, shift_month, whole_days
from huiyi.text.tense_en import told_done

__all__ = ["MONTHS", "MONTH_RE", "RULES", "YEAR_RE"]

MONTHS = {
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
MONTH_RE = r"(?P<month>" + "|".join(sorted(MONTHS, key=len, reverse=True)) + r")\.?"
YEAR_RE = r"(?P<year>(?:1[89]|20|21)\d\d)"

_ORDINAL_RE = r"(?P<day>3[01]|[12]\d|0?[1-9])(?:st|nd|rd|th)"
# a month by where it lies from this one: next month, the last month, the month (this one)
_NEAR_MONTH_RE = r"(?:(?:the\s+)?(?P<which>last|this|next|past|coming)\s+|the\s+)month"
# what may follow a day of a month that names no month: an ordinal before a noun is no date (the 20th century,
# his 15th anniversary, the 5th lap), so only an end, a stop or a small word may
_DAY_ENDS = (
    r"(?=\s*(?:$|[^\w\s'’-]|(?:and|or|but|at|in|to|for|when|while|so|because|then|is|was|will|as|if|i|we|you|he|she"
    r"|they|it|my|our|his|her|their|this|that|please|instead|too|already|again|though|before|after|until|till)\b))"
)
_PARTS = {"early": (1, 11), "beginning": (1, 11), "start": (1, 11), "mid": (11, 21), "middle": (11, 21)}
_PARTS |= {"late": (21, 32), "end": (21, 32)}

_BACK = {"last": 1, "past": 1, "this": 0, "next": -1, "coming": -1}


def _month_meant(match: re.Match[str], now: datetime) -> tuple[int, int] | None:
    """The (year, month) a match names: by name (this year's, or the year said; times_en then moves a yearless one
    by its clause's tense, see :mod:`huiyi.text.years_en`), or by where it lies from now."""
    named = match.groupdict().get("month")
    if named is None:
        return shift_month(now.year, now.month, -_BACK[(match["which"] or "this").lower()])
    if named == "may" and not match["year"]:
        return None  # “it may be late”: lower-case may without a year is the verb
    month = MONTHS[named.lower().rstrip(".")]
    return (int(match["year"]), month) if match["year"] else (month_named(month, "this", now)[0].year, month)


def _day_of_near_month(match: re.Match[str], now: datetime) -> Range | None:
    meant = _month_meant(match, now)
    return None if meant is None else whole_days(date(*meant, int(match["day"])))


# I was born on the 15th: a birthday, of no one month (was read the last month's 15th)
_OWN_BIRTH = lazy(r"\b(?:I|we)\s+(?:was|were)\s+born\s+$", re.IGNORECASE)


def _day_of_this_month(match: re.Match[str], now: datetime) -> Range | None:
    """“on the 20th”: the next one (I'll be back on the 5th, said on the 13th: the next month's), or the last one
    when told done (my exam was on the 5th: this month's; the party was on the 20th: the last month's); the day
    the speaker was born on, none."""
    if _OWN_BIRTH.search(match.string, max(0, match.start() - 40), match.start()):
        return None
    day, done = int(match["day"]), told_done(match)
    by = 1 if day < now.day and not done else -1 if day > now.day and done else 0
    return whole_days(date(*shift_month(now.year, now.month, by), day))


def _part_of_month(match: re.Match[str], now: datetime) -> Range | None:
    meant = _month_meant(match, now)
    if meant is None:
        return None
    first, last = _PARTS[(match["part"] or match["partof"]).lower()]
    start = datetime(*meant, first)
    return start, month_span(*meant)[1] if last > 31 else datetime(*meant, last)


def _days_of_a_month(match: re.Match[str], now: datetime) -> Range | None:
    """“from the 1st to the 10th”: from the first day, read as “on the 1st” is or in the month named after the
    last, to the last, in the next month when it is the smaller (from the 28th to the 3rd)."""
    if match["of"]:
        meant = _month_meant(match, now)
        if meant is None:
            return None
        start = date(*meant, int(match["day"]))
    else:
        day = _day_of_this_month(match, now)
        if day is None:
            return None
        start = day[0].date()
    last = int(match["last"])
    end = date(*shift_month(start.year, start.month, 1 if last < start.day else 0), last)
    return whole_days(start, (end - start).days + 1)


_Resolve = Callable[[re.Match[str], datetime], Range | None]
# (pattern, resolve) for times_en to run among its rules, before its months: in early June is a part of June
RULES: list[tuple[str, _Resolve]] = [
    (
        rf"(?:from|between)\s+the\s+{_ORDINAL_RE}\s+(?:to|till|until|through|thru|and|-|–)\s+(?:the\s+)?"
        rf"{_ORDINAL_RE.replace('<day>', '<last>')}"
        rf"(?:(?P<of>\s+of\s+(?:{_NEAR_MONTH_RE}|{MONTH_RE}(?:,?\s+{YEAR_RE})?))|{_DAY_ENDS})",
        _days_of_a_month,
    ),
    (rf"the\s+{_ORDINAL_RE}\s+(?:of\s+)?{_NEAR_MONTH_RE}", _day_of_near_month),
    (rf"(?P<which>last|this|next|past|coming)\s+month,?\s+on\s+the\s+{_ORDINAL_RE}", _day_of_near_month),
    (rf"(?:on|by|until|till|before|after|since|from)\s+the\s+{_ORDINAL_RE}{_DAY_ENDS}", _day_of_this_month),
    (
        rf"(?:(?:in|during|since|until|till|by)\s+)?(?:(?P<part>early|mid|late)(?:-|\s+)|(?:the\s+)?"
        rf"(?P<partof>beginning|start|middle|end)\s+of\s+)(?:{_NEAR_MONTH_RE}|{MONTH_RE}(?:,?\s+(?:of\s+)?{YEAR_RE})?)",
        _part_of_month,
    ),
]
