"""English ranges of dates with their months named (I'm off from Dec 28 to Jan 3, May 3-7, 28 Dec – 3 Jan), as
patterns :mod:`huiyi.text.times_en` runs with its rules: one span from the first day through the last, not two
days (each read alone, Jan 3 said in December was this year's, the January gone).

A range over a New Year ends in the year after it starts; one said without a year is this year's, but for one
whose end is still to come this year (from Dec 28 to Jan 3, said on January 2: the one under way) or which is
told done (I was off from Dec 28 to Jan 3, said in February: the one gone). Its clause's tense then moves it a
year as it moves a date alone (I'm off Jan 5-10, said in December: the coming January's; see
:mod:`huiyi.text.years_en`), which the doctests below, reading the pattern alone, do not.

    >>> import re
    >>> def read(text, now=datetime(2024, 12, 10, 15)):
    ...     pattern, resolve = next((p, r) for p, r in RULES if re.fullmatch(p, text, re.IGNORECASE))
    ...     start, end = resolve(re.fullmatch(pattern, text, re.IGNORECASE), now)
    ...     return f"{start:%Y-%m-%d}..{end:%Y-%m-%d}"  # half-open: the day after the last
    >>> read("from Dec 28 to Jan 3"), read("Dec 30 - Jan 2"), read("from Dec 28 to Jan 3", datetime(2025, 1, 2))
    ('2024-12-28..2025-01-04', '2024-12-30..2025-01-03', '2024-12-28..2025-01-04')
    >>> read("May 3-7"), read("28 Dec – 3 Jan 2025"), read("between the 3rd and the 5th of June")
    ('2024-05-03..2024-05-08', '2024-12-28..2025-01-04', '2024-06-03..2024-06-06')
"""

from __future__ import annotations

import re
from collections.abc import Callable
from datetime import date, datetime

from huiyi.patterns import lazy
from huiyi.text.month_days_en import MONTH_RE, MONTHS, YEAR_RE
from huiyi.text.periods import Range, shift_month, whole_days
from huiyi.text.tense_en import MOVE_VERB, clause, told_done

__all__ = ["RULES"]

_DAY = r"(?:the\s+)?(?P<day>3[01]|[12]\d|0?[1-9])(?:st|nd|rd|th)?"
# the last day, with what says it is a day of the month and not a count (Dec 28th to the 3rd, not May 3 - 2)
_LAST = r"(?P<nth>the\s+)?(?P<last>3[01]|[12]\d|0?[1-9])(?P<suffix>st|nd|rd|th)?"
_LAST_MONTH = MONTH_RE.replace("<month>", "<last_month>")
_LAST_YEAR = YEAR_RE.replace("<year>", "<last_year>")
# "and" only after between (between May 3 and May 7; May 3 and May 7 are two days)
_FROM = r"(?:(?P<between>between)\s+|from\s+)?"
_LINK = r"(?:\s*[-–—]\s*|\s+(?:to|till|until|through|thru|(?(between)and|(?!)))\s+)"
# a count or a clock after the last number is no day of it (May 3 - 5 pm, Dec 28 to 30 people)
_NO_COUNT = (
    r"(?!\s*(?:[:%]|[ap]\.?m\b|o'?clock|hours?|hrs?|mins?|minutes?|days?|nights?|weeks?|months?|years?|people)\b)"
)


def _dates(match: re.Match[str], now: datetime) -> Range | None:
    """The days from the first date through the last (see the module docstring). A month said once is both
    days' (May 3-7, 3-5 June), or of a last day said as one (Dec 28th to the 3rd) the month after."""
    first_month, last_month = match["month"] or match["last_month"], match["last_month"] or match["month"]
    if not match["year"] and not match["last_year"] and "may" in (first_month, last_month):
        return None  # lower-case may without a year is the verb (it may 3 to 5 hours)
    first, last = MONTHS[first_month.lower().rstrip(".")], MONTHS[last_month.lower().rstrip(".")]
    first_day, last_day = int(match["day"]), int(match["last"])
    if first == last and last_day < first_day:
        if not (match["month"] and not match["last_month"] and (match["nth"] or match["suffix"])):
            return None  # Jan 10 - 2 meetings, 9-5 Mar, Dec 28 to Dec 3: no range of days
        _, last = shift_month(2000, first, 1)
    over_new_year = (last, last_day) < (first, first_day)
    around = clause(match)
    if match["year"]:
        year = int(match["year"])
    elif match["last_year"]:
        year = int(match["last_year"]) - over_new_year
    else:  # over a New Year, the one that ends this year when that end is ahead or the range is told done
        ends_ahead = over_new_year and date(now.year, last, last_day) >= now.date()
        year = now.year - (ends_ahead or (over_new_year and told_done(match, around)))
    start, end = date(year, first, first_day), date(year + over_new_year, last, last_day)
    text, begins, _, at = around
    if end < start or _MOVING.search(text, begins, at):
        return None  # moving the party from Dec 28 to Jan 3: two days, the one given up and the one it went to
    return whole_days(start, (end - start).days + 1)


_MOVING = lazy(rf"\b{MOVE_VERB}", re.IGNORECASE)

_Resolve = Callable[[re.Match[str], datetime], Range | None]
# (pattern, resolve) for times_en to run among its rules: the longer range is kept over the dates in it
RULES: list[tuple[str, _Resolve]] = [
    (  # Dec 28 to Jan 3, May 3-7, Dec 28th, 2024 – Jan 3rd, 2025
        rf"{_FROM}{MONTH_RE}\s+{_DAY}(?:,?\s+{YEAR_RE})?{_LINK}(?:{_LAST_MONTH}\s+)?{_LAST}"
        rf"(?:,?\s+{_LAST_YEAR})?{_NO_COUNT}",
        _dates,
    ),
    (  # 28 Dec to 3 Jan, 3-5 June, the 28th of December to the 3rd of January
        rf"{_FROM}{_DAY}(?:\s+(?:of\s+)?{MONTH_RE}(?:,?\s+{YEAR_RE})?)?{_LINK}{_LAST}\s+(?:of\s+)?{_LAST_MONTH}"
        rf"(?:,?\s+{_LAST_YEAR})?",
        _dates,
    ),
]
