"""Holidays named by a word, not a date (Christmas, Thanksgiving, Mother's Day, 感恩节): the day each falls
on in a year, and which year's a phrase means.

Fixed days, the n-th weekday of a month (US Thanksgiving, Mother's Day…) and Easter (the Gregorian
computus). A bare name is this year's, as a bare month is (:func:`~huiyi.text.periods.month_named`),
unless its clause says otherwise: "Christmas was great", said on 5 January, is the one just gone, and
"I'll fly home for Thanksgiving", said in December, the one to come.

    >>> [str(day(name, 2024)) for name in ("christmas", "thanksgiving", "easter", "mother's day")]
    ['2024-12-25', '2024-11-28', '2024-03-31', '2024-05-12']
    >>> now = datetime(2025, 1, 5, 12)
    >>> [str(holiday_named("christmas", which, now)[0].date()) for which in ("last", "this", "next")]
    ['2024-12-25', '2025-12-25', '2025-12-25']
    >>> str(holiday_named("christmas", "this", now, done=True)[0].date())
    '2024-12-25'
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import date, datetime, timedelta

from huiyi.text.periods import Range, whole_days

__all__ = ["HOLIDAYS", "day", "easter", "holiday_named", "nth_weekday"]

MON, THU, SUN = 0, 3, 6


def easter(year: int) -> date:
    """Easter Sunday of ``year`` (the anonymous Gregorian algorithm)."""
    a, b, c = year % 19, year // 100, year % 100
    d, e = divmod(b, 4)
    g = (8 * b + 13) // 25
    h = (19 * a + b - d - g + 15) % 30
    i, k = divmod(c, 4)
    weekday_shift = (32 + 2 * e + 2 * i - h - k) % 7
    m = (a + 11 * h + 22 * weekday_shift) // 451
    month, day_of_month = divmod(h + weekday_shift - 7 * m + 114, 31)
    return date(year, month, day_of_month + 1)


def nth_weekday(year: int, month: int, weekday: int, n: int) -> date:
    """The ``n``-th ``weekday`` (Monday 0) of a month; ``n = -1``: its last."""
    if n < 0:
        last = date(year + month // 12, month % 12 + 1, 1) - timedelta(days=1)
        return last - timedelta(days=(last.weekday() - weekday) % 7)
    first = date(year, month, 1)
    return first + timedelta(days=(weekday - first.weekday()) % 7 + 7 * (n - 1))


def _fixed(month: int, day_of_month: int) -> Callable[[int], date]:
    return lambda year: date(year, month, day_of_month)


def _nth(month: int, weekday: int, n: int) -> Callable[[int], date]:
    return lambda year: nth_weekday(year, month, weekday, n)


HOLIDAYS: dict[str, Callable[[int], date]] = {
    "new year's day": _fixed(1, 1),
    "valentine's day": _fixed(2, 14),
    "st patrick's day": _fixed(3, 17),
    "easter": easter,
    "mother's day": _nth(5, SUN, 2),  # the US and Canada's, as Chinese 母亲节 is
    "memorial day": _nth(5, MON, -1),
    "father's day": _nth(6, SUN, 3),
    "independence day": _fixed(7, 4),
    "labor day": _nth(9, MON, 1),
    "halloween": _fixed(10, 31),
    "thanksgiving": _nth(11, THU, 4),  # the US one
    "christmas eve": _fixed(12, 24),
    "christmas": _fixed(12, 25),
    "boxing day": _fixed(12, 26),
    "new year's eve": _fixed(12, 31),
}


def day(name: str, year: int) -> date:
    """The day holiday ``name`` (a key of :data:`HOLIDAYS`) falls on in ``year``."""
    return HOLIDAYS[name](year)


def holiday_named(name: str, which: str, now: datetime, *, to_come: bool = False, done: bool = False) -> Range:
    """The day ``which`` (last, this, next) holiday ``name`` means, said at ``now``: ``last`` the latest one
    over by now, ``next`` the first still to begin; ``this`` this year's, or the year before's when the clause
    tells it ``done`` and this year's is still ahead, or the next year's when it is said ``to_come`` and this
    year's is over."""
    year = now.year
    if which == "last":
        while whole_days(day(name, year))[1] > now:
            year -= 1
    elif which == "next":
        while whole_days(day(name, year))[0] <= now:
            year += 1
    else:
        start, end = whole_days(day(name, year))
        if done and start > now:
            year -= 1
        elif to_come and end <= now:
            year += 1
    return whole_days(day(name, year))
