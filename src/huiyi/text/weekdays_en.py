"""English days of the week: a day named alone (on Monday, next Friday) and a range of them (from Monday to
Friday, Mon–Fri next week), rules :mod:`huiyi.text.times_en` runs with its own.

A range is one span from its first day to the first of its last day after it: from Monday to Friday, said on a
Wednesday of a time to come, is next Monday through that Friday, not a Monday after the Friday it ends on.

    >>> import re
    >>> now = datetime(2024, 11, 13, 10)  # a Wednesday
    >>> def read(text):
    ...     match = re.search(RANGE_RE, text, re.IGNORECASE)
    ...     start, end = weekday_range(match, now)
    ...     return f"{start:%m-%d}..{end:%m-%d}"
    >>> read("I'm working from Monday to Friday"), read("I'm off Mon-Fri next week"), read("Fri–Mon")
    ('11-18..11-23', '11-18..11-23', '11-15..11-19')
"""

from __future__ import annotations

import re
from datetime import datetime, timedelta

from huiyi.patterns import lazy
from huiyi.text.periods import DAY, Range, midnight, units_ago, weekday_named
from huiyi.text.tense_en import MOVE_VERB, Clause, asked_ahead, clause, still_to_come, told_done

__all__ = ["IS_ON", "RANGE_RE", "WEEKDAYS", "WEEKDAY_RE", "en_weekday", "weekday_range"]

WEEKDAYS = {"monday": 0, "tuesday": 1, "wednesday": 2, "thursday": 3, "friday": 4, "saturday": 5, "sunday": 6}
# no abbreviation alone (sat, sun and wed are English words), only in a range (Mon-Fri, Sat to Sun)
_ABBREVIATIONS = {"mon": 0, "tue": 1, "tues": 1, "wed": 2, "weds": 2, "thu": 3, "thur": 3, "thurs": 3, "fri": 4}
_ABBREVIATIONS |= {"sat": 5, "sun": 6}
_NAMES = "|".join(sorted(WEEKDAYS, key=len, reverse=True))
_SHORT = "|".join(sorted(_ABBREVIATIONS, key=len, reverse=True))
WEEKDAY_RE = rf"(?P<weekday>{_NAMES})"
RANGE_RE = (
    rf"(?:(?P<which>last|this|next|coming)\s+)?(?P<weekday>{_NAMES}|{_SHORT})\.?"
    rf"(?P<link>\s*[-–—]\s*|\s+(?:to|through|thru|till|until)\s+)(?P<last>{_NAMES}|{_SHORT})\.?"
    r"(?:\s+(?P<week>last|this|next)\s+week)?"
)


def _day_number(name: str) -> int:
    name = name.lower()
    return WEEKDAYS[name] if name in WEEKDAYS else _ABBREVIATIONS[name]


def weekday_range(match: re.Match[str], now: datetime) -> Range | None:
    """The days of a range (see the module docstring): its first day read as a day named alone, or in the week
    said after it (Monday-Friday next week); its last day the first one after. Told done, one not over yet is
    last week's (Monday to Friday was rough, said on a Wednesday). Not a move from one day to another (push the
    call from Monday to Friday: two days), nor a lowercase abbreviation joined by a word (sat to eat)."""
    first, last = _day_number(match["weekday"]), _day_number(match["last"])
    worded = match["link"].strip().isalpha()
    short = [name for name in (match["weekday"], match["last"]) if name.lower() in _ABBREVIATIONS]
    if first == last or (worded and any(name.islower() for name in short)):
        return None
    text, start, _, at = clause(match)
    if _MOVING.search(text, start, at):
        return None
    if match["week"]:
        monday, _ = units_ago(now, "week", {"last": 1, "this": 0, "next": -1}[match["week"].lower()])
        begin = monday + timedelta(days=first)
    else:
        begin, _ = en_weekday(match, now)
    end = begin + timedelta(days=(last - first) % 7 + 1)
    if not match["week"] and end > midnight(now.date()) + DAY and told_done(match):
        begin, end = begin - 7 * DAY, end - 7 * DAY
    return begin, end


# a verb that moves a time: from Monday to Friday after it is where the thing went, not a span
_MOVING = lazy(rf"\b{MOVE_VERB}", re.IGNORECASE)


def en_weekday(match: re.Match[str], now: datetime) -> Range:
    """See :func:`~huiyi.text.periods.weekday_named`; this week's day already over, said of a time to come
    (I'll call mom on Monday, said on a Wednesday) or asked of (Are we still on for Friday?, see you Friday, said
    on a Sunday), is next week's, as 我周一要去体检 is; one still to come this
    week, told done (I saw him on Friday, said on a Thursday), is last week's."""
    weekday = _day_number(match.group("weekday"))
    which = (match.groupdict().get("which") or "this").lower()
    which = "after next" if match.groupdict().get("after") else {"past": "last"}.get(which, which)
    around = clause(match) if which == "this" and weekday != now.weekday() else None  # read once, not per question
    # what has been so since a day began on the one gone whatever its tense (I'm off since Monday, how's the new
    # job since Monday?); not a since that gives a reason (since Monday is a holiday)
    since = _SINCE.search(match.string, max(0, match.start() - 8), match.start()) and not _day_is(match, around)
    if (
        which == "this"
        and weekday < now.weekday()
        and not since
        and (still_to_come(match, around) or _day_is(match, around) or asked_ahead(match, around))
    ):
        which = "next"  # Monday is my boss's birthday, said on a Wednesday: what a day is, it is still to be
    elif which == "this" and weekday > now.weekday() and (since or told_done(match, around)):
        which = "last"  # I saw him on Friday, said on a Thursday: the one gone, not tomorrow
    return weekday_named(weekday, which, now)


_SINCE = lazy(r"\bsince\s+$", re.IGNORECASE)
# a weekday told of as it is now (Monday is my mom's birthday, Friday's the deadline); not Monday's meeting
_DAY_IS = lazy(r"\s+is\b|'s\s+(?:my|our|his|her|their|your|the|a|an)\b", re.IGNORECASE)
# and what is on it (my interview is on Monday, the party's Friday), not what was (the game was Monday)
IS_ON = lazy(r"\w(?:\s+is|'s|’s|\s+are)\s+(?:on\s+)?$", re.IGNORECASE)


def _day_is(match: re.Match[str], around: Clause | None = None) -> bool:
    """Whether a weekday is told of in the present, as it is or as what is on it (see _DAY_IS, IS_ON); not
    one an is leads to a telling of (the funny thing is Monday I went to the doctor)."""
    if _DAY_IS.match(match.string, match.end()):
        return True
    at = match.start()  # only the words just before it: a search from 0 read the whole text for each day
    if not IS_ON.search(match.string, max(0, at - 16), at):
        return False
    text, _, end, day = around or clause(match)
    return not told_done(match, (text, day, end, day))  # what is told after the day, not the is before it
