"""Times a model writes in a tool call ('今天', '2025-11-05 08:00', 'last Friday', a range's ends), read as the
zone's datetimes, or refused as the call's arguments."""

from __future__ import annotations

import re
from datetime import datetime, time, timedelta, tzinfo

from huiyi.checks import in_years
from huiyi.errors import InvalidInput
from huiyi.faces.tool_arguments import TimeRange, ToolError
from huiyi.text.times import parse_datetime, query_time_range

__all__ = ["resolve_time", "time_bounds"]

_HAS_CLOCK = re.compile(r"\d\s*[:：时点]|T\d")


def resolve_time(said: str, now: datetime, zone: tzinfo) -> datetime | None:
    """A time as said ('今天', '2025-11-05 08:00', 'last Friday') as a datetime of ``zone``, or None."""
    try:
        return parse_datetime(said, zone)
    except ValueError as exc:  # an offset no date of the zone matches
        raise ToolError("invalid_arguments", f"time: {exc}") from None
    except InvalidInput:
        span = query_time_range(said, now)
        return span.start if span else None


def time_bounds(window: TimeRange, now: datetime, zone: tzinfo) -> tuple[datetime | None, datetime | None]:
    start = _bound(window.start, now, zone, end=False) if window.start else None
    end = _bound(window.end, now, zone, end=True) if window.end else None
    if start and end and start > end:
        raise ToolError("invalid_arguments", f"time_range starts ({start}) after it ends ({end})")
    return start, end


# a dated day or month and a side of it: 2024年3月5日前, 3月5号以后, 2024年3月前, 2024-03-05前 (read whole, 5日前
# was "five days ago": helper)
_SIDE_OF_A_DAY = re.compile(
    r"(?P<day>(?:.*[年月].*[日号月]|\d{4}-\d{1,2}(?:-\d{1,2})?|\d{4}年))\s*[之以]?(?P<side>[前后])"
)


def _bound(said: str, now: datetime, zone: tzinfo, *, end: bool) -> datetime:
    if (side := _SIDE_OF_A_DAY.fullmatch(said.strip())) and (day := _span(side["day"], now, zone)):
        edge = day[0] if side["side"] == "前" else day[1]  # before the day (or month), or after it
        return edge - timedelta(microseconds=1) if end else edge
    try:
        moment = in_years(parse_datetime(said, zone))  # a date at the calendar's end has no whole day after it
    except ValueError as exc:
        raise ToolError("invalid_arguments", f"time_range: {exc}") from None
    except InvalidInput:
        span = query_time_range(said, now)
        if span is None:
            raise ToolError(
                "invalid_arguments",
                f"cannot read {said!r} as a time; use an ISO date ('2025-11-04') or date-time ('2025-11-04T08:00')",
            ) from None
        return span.end - timedelta(microseconds=1) if end else span.start
    if end and moment.time() == time() and not _HAS_CLOCK.search(said):  # a date: the whole day
        return moment + timedelta(days=1) - timedelta(microseconds=1)
    return moment


def _span(said: str, now: datetime, zone: tzinfo) -> tuple[datetime, datetime] | None:
    """The day (or month, or year) ``said`` names, ISO or in words."""
    if re.fullmatch(r"\d{4}-\d{1,2}-\d{1,2}", said):
        try:
            start = in_years(parse_datetime(said, zone))
        except (ValueError, InvalidInput):
            return None
        return start, start + timedelta(days=1)
    span = query_time_range(said.replace("-", "年", 1) + "月" if re.fullmatch(r"\d{4}-\d{1,2}", said) else said, now)
    return (span.start, span.end) if span else None
