"""Which year an English date said without one means (Jan 3, Jan 5-10, in January, mid-March): the rules of
:mod:`huiyi.text.times_en` read it as this year's, and its clause's tense moves it, as
:func:`huiyi.text.tense_zh.by_tense` moves a Chinese one (3月5日前我要交报告, said in November: next March).

A date gone by is next year's in a clause that looks ahead (I'll be in Paris Jan 3, I'm off Jan 5-10, see you
Jan 3, all said in December), unless it is at most a week gone (a slip, or the day talked of); in a clause that
tells nothing done (my exam is on Jan 8) it is next year's when that one is the nearer; told done (I was in Paris
Jan 3) it stays, as does one after since or remembered (I'll never forget Jan 3). A date still to come this
year, told done (I was in Paris Dec 3, said in January), is last year's, but for one arranged (we booked the
venue for Dec 3). A recall query (``asked``) asks of what was said before: its date moves ahead only
when the query looks ahead (am I free on Jan 3?), not for saying nothing done (what happened on jan 3?).

    >>> import re
    >>> from datetime import date
    >>> from huiyi.text.periods import whole_days
    >>> def read(text, now=datetime(2024, 12, 10, 15), asked=False):
    ...     match = re.search(r"(?P<month>Jan|Dec) \\d+", text)
    ...     this_year = whole_days(date(now.year, 1 if match["month"] == "Jan" else 12, int(match.group()[4:])))
    ...     return f"{in_year(match, this_year, now, asked)[0]:%Y-%m-%d}"
    >>> read("I'll be in Paris Jan 3"), read("my exam is on Jan 8"), read("I was in Paris Jan 3")
    ('2025-01-03', '2025-01-08', '2024-01-03')
    >>> read("I was in Paris Dec 3", datetime(2025, 1, 10)), read("what happened on Jan 3", asked=True)
    ('2024-12-03', '2024-01-03')
"""

from __future__ import annotations

import re
from datetime import datetime, timedelta

from huiyi.patterns import lazy
from huiyi.text.periods import Range, midnight
from huiyi.text.tense_en import MEETS_AT, MOVE_VERB, Clause, asked_ahead, clause, still_to_come, told_done

__all__ = ["in_year", "yearless"]

# a date gone at most this long, in a clause that looks ahead, is still the one gone: a slip for another day, or
# the day talked of (I'll send you the notes of Dec 8, said on the 10th), more often than one a year ahead
_SLIP = timedelta(days=7)
# a date after since, or one remembered, is gone, whatever else its clause says (sick since Jan 3, since January,
# I'll never forget Jan 3)
_LOOKED_BACK = lazy(r"\b(?:since|remember(?:ing)?|forget(?:ting)?|forgot)\s+(?:about\s+)?$", re.IGNORECASE)
# a thing arranged for a date, or moved from it, is for then, whatever tense the arranging is told in (I signed up
# for the marathon on March 3, we booked the venue for Dec 3, I moved the party from Dec 28): not last year's
_ARRANGED = lazy(
    r"\b(?:book|reserv|schedul|regist|sign(?:ed|ing|s)?\s+up|enrol|plann|arrang|order|invit|confirm|announc|decid|agre|promis|rsvp)"
    rf"\w*|\b(?:bought|paid|set\s+up)\b|\b{MOVE_VERB}",
    re.IGNORECASE,
)
# the groups of a year or of a month said by where it lies (next January, the 3rd of next month)
_YEAR_SAID = ("year", "last_year", "which")


def yearless(match: re.Match[str]) -> bool:
    """Whether ``match`` names a month by name (its ``month`` or ``last_month`` group) and says no year, nor
    where the month lies (this January)."""
    groups = match.groupdict()
    named = groups.get("month") or groups.get("last_month")
    return bool(named) and not any(groups.get(said) for said in _YEAR_SAID)


def in_year(match: re.Match[str], span: Range, now: datetime, asked: bool = False) -> Range:
    """``span``, a yearless date ``match`` names read as this year's, moved a year on or back by its clause's
    tense (see the module docstring); ``asked``: a recall query."""
    around = clause(match)
    if span[0] > now:
        if not told_done(match, around) or _ARRANGED.search(around[0], around[1], around[2]):
            return span
        return _years_on(span, -1) or span
    today = midnight(now.date())
    if span[1] > today or _looked_back(match) or told_done(match, around):
        return span
    ahead = _years_on(span, 1)
    if ahead is None:
        return span
    if still_to_come(match, around) or (asked_ahead(match, around) and not (asked and _asked_bare(around))):
        return ahead if today - span[1] >= _SLIP else span
    return span if asked or ahead[0] - now >= now - span[1] else ahead


def _asked_bare(around: Clause) -> bool:
    """Whether a query asks of its date with no word of meeting then (restaurant on Jan 3?, what's on Jan 3?):
    what a query asks of is most often what was said, so it stays the date gone; am I free on Jan 3? moves."""
    text, start, end, _ = around
    return MEETS_AT.search(text, start, end) is None


def _looked_back(match: re.Match[str]) -> bool:
    said = match.group().lower()
    before = max(0, match.start() - 20)
    return said.startswith("since") or _LOOKED_BACK.search(match.string, before, match.start()) is not None


def _years_on(span: Range, years: int) -> Range | None:
    """The same days ``years`` later (or earlier), both ends moved so a range over a February keeps its dates;
    None where that year has no such first day (Feb 29)."""
    try:
        start = span[0].replace(year=span[0].year + years)
    except ValueError:
        return None
    try:
        return start, span[1].replace(year=span[1].year + years)
    except ValueError:  # a span ending at a Feb 29 (Feb 28, 2024 said alone): as long as it was
        return start, start + (span[1] - span[0])
