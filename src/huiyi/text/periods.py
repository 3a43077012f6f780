"""Calendar arithmetic behind time phrases: whole days, Monday–Sunday weeks, months, seasons and
vague stretches (“a few days ago”, 最近), each as a half-open ``(start, end)`` range of naive datetimes.

The English and Chinese phrase rules (:mod:`huiyi.text.times_en`, :mod:`huiyi.text.times_zh`) resolve
what they read into these ranges; :mod:`huiyi.text.times` turns them into ``TimeSpan`` objects.
"""

from __future__ import annotations

from datetime import date, datetime, time, timedelta

Range = tuple[datetime, datetime]

DAY = timedelta(days=1)
# the hour the speaker's day turns: until then a night owl's 明天 is the calendar's today (most who are up at
# 03:00 have not slept yet; most who are up at 04:00 have risen early); read by huiyi.text.day_turn
DAY_TURNS_AT = 4


def midnight(day: date) -> datetime:
    return datetime.combine(day, time())


def whole_days(first: date, count: int = 1) -> Range:
    """``count`` whole days from ``first``."""
    return midnight(first), midnight(first + timedelta(days=count))


def week_start(day: date) -> date:
    """Monday of the Monday–Sunday week, the week 上周 and “last week” both mean."""
    return day - timedelta(days=day.weekday())


def shift_month(year: int, month: int, by: int) -> tuple[int, int]:
    index = year * 12 + month - 1 + by
    return index // 12, index % 12 + 1


def month_span(year: int, month: int, count: int = 1) -> Range:
    end_year, end_month = shift_month(year, month, count)
    return datetime(year, month, 1), datetime(end_year, end_month, 1)


def year_span(year: int) -> Range:
    return datetime(year, 1, 1), datetime(year + 1, 1, 1)


def weekend_span(now: datetime, which: str) -> Range:
    """Saturday and Sunday. A bare 周末 / “the weekend” means the nearest one: on Mon–Wed the one
    just past (周末干嘛了), on Thu–Fri the coming one, on Sat–Sun the current one."""
    monday = week_start(now.date())
    if which == "bare":
        which = "last" if now.weekday() <= 2 else "this"
    offset = {"last": -7, "this": 0, "next": 7, "after next": 14}[which]
    return whole_days(monday + timedelta(days=offset + 5), 2)


def vague_ago(now: datetime, unit: str, lo: int, hi: int) -> Range:
    """From ``hi`` to ``lo`` units back, widened to whole units: “a few days ago” = days −5…−2."""
    start, _ = units_ago(now, unit, hi)
    _, end = units_ago(now, unit, lo)
    return start, end


def units_ago(now: datetime, unit: str, n: int) -> Range:
    """The whole unit (day, Mon–Sun week, month, year, hour, minute) that lay ``n`` units back;
    negative ``n`` looks forward."""
    if unit == "day":
        return whole_days(now.date() - timedelta(days=n))
    if unit == "week":
        return whole_days(week_start(now.date() - timedelta(days=7 * n)), 7)
    if unit == "month":
        return month_span(*shift_month(now.year, now.month, -n))
    if unit == "year":
        return year_span(now.year - n)
    if unit == "hour":
        hour = (now - timedelta(hours=n)).replace(minute=0, second=0, microsecond=0)
        return hour, hour + timedelta(hours=1)
    minute = (now - timedelta(minutes=n)).replace(second=0, microsecond=0)
    return minute, minute + timedelta(minutes=1)


def recent(now: datetime, days: int) -> Range:
    """From the start of the day ``days`` back until now: 最近, recently, the past week."""
    return midnight(now.date() - timedelta(days=days)), now + timedelta(seconds=1)


# English seasons are meteorological (spring = Mar–May); a winter belongs to the year it starts in.
_SEASON_START = {"spring": 3, "summer": 6, "autumn": 9, "fall": 9, "winter": 12}


def season_span(name: str, year: int) -> Range:
    return month_span(year, _SEASON_START[name], 3)


def season_named(name: str, which: str, now: datetime) -> Range:
    """``this`` = the one that starts this year (a January winter began last year); ``last`` = the
    most recent one already over; ``next`` = the first one not yet begun."""
    year = now.year - 1 if name == "winter" and now.month <= 2 else now.year
    if which == "last":
        while season_span(name, year)[1] > now:
            year -= 1
    elif which == "next":
        while season_span(name, year)[0] <= now:
            year += 1
    return season_span(name, year)


def month_named(month: int, which: str, now: datetime) -> Range:
    """Same reading as seasons: ``last May`` in May 2023 is May 2022, in June 2023 it is May 2023."""
    year = now.year
    if which == "last":
        while month_span(year, month)[1] > now:
            year -= 1
    elif which == "next":
        while month_span(year, month)[0] <= now:
            year += 1
    return month_span(year, month)


def weekday_named(weekday: int, which: str, now: datetime) -> Range:
    """``last Saturday`` = the latest one before today, ``coming Monday`` = the first after today,
    ``next Wednesday`` = the one of next Monday–Sunday week (as "next week" and 下周三 are: said on a
    Monday, nine days away), bare or ``this`` = the one in this week (as jionlp reads 周三)."""
    today = now.date()
    if which == "last":
        back = (today.weekday() - weekday) % 7 or 7
        return whole_days(today - timedelta(days=back))
    if which == "coming":
        ahead = (weekday - today.weekday()) % 7 or 7
        return whole_days(today + timedelta(days=ahead))
    weeks = {"next": 1, "after next": 2}.get(which, 0)
    return whole_days(week_start(today) + timedelta(days=7 * weeks + weekday))


def just_now(now: datetime) -> Range:
    return now - timedelta(hours=2), now + timedelta(seconds=1)


def while_ago(now: datetime) -> Range:
    """前阵子, “a while ago”: one week to two months back."""
    return midnight(now.date() - 60 * DAY), midnight(now.date() - 6 * DAY)
