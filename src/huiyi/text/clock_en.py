"""English clocks: the hour a clock names (``8 pm``, ``20:15``), a day narrowed by the part or clock said after it
("yesterday morning", "on Monday at 8 pm"), and a clock said alone put on the day its clause names ("at 3pm
next Friday"). Read by :mod:`huiyi.text.times_en` and :func:`huiyi.text.times.parse_datetime`."""

from __future__ import annotations

import bisect
import functools
import re
from datetime import datetime, time, timedelta

from huiyi.patterns import lazy
from huiyi.text.hours_zh import half_of_the_day
from huiyi.text.periods import DAY, Range, midnight

__all__ = [
    "CLOCK_RE",
    "PARTS",
    "Bounds",
    "bare_hour_on",
    "clock_span",
    "clocks_before_days",
    "day_said",
    "narrow",
    "on_its_day",
    "part_of_day",
]


def _group(match: re.Match[str], name: str) -> str | None:
    """A named group, or ``None`` when the pattern has no such group."""
    return match.groupdict().get(name)


# a clock needs am/pm or minutes: a bare “at 8” is too often not a time
# a.m. keeps its last dot; 9am. leaves the sentence's to the sentence
# noon, midday and midnight are clocks of their own (at noon was read as no time: the day's 00:00)
_NAMED = r"(?:12\s+)?(?:noon|midday|midnight)"
CLOCK_RE = (
    r"(?:(?P<hour>[012]?\d)(?::(?P<minute>[0-5]\d)\s*(?P<ampm>[ap]\.m\b\.?|[ap]m\b)?|\s*(?P<ampm2>[ap]\.m\b\.?|[ap]m\b))"
    r"|(?:12\s+)?(?P<named>noon|midday|midnight))"
)


def clock_span(match: re.Match[str], day: datetime) -> Range | None:
    """The hour (or minute, if given) a clock match names on ``day``: ``8 pm``, ``20:15``; noon (midday) is
    12:00, midnight the day's end (24:00), each a minute.

    >>> import re
    >>> day = datetime(2026, 3, 9)
    >>> [f"{clock_span(m, day)[0]:%d %H:%M}" for m in re.finditer(CLOCK_RE, "8 pm, 20:15, noon, 12 midnight")]
    ['09 20:00', '09 20:15', '09 12:00', '10 00:00']
    """
    if named := _group(match, "named"):
        start = day + timedelta(hours=24 if named.lower() == "midnight" else 12)
        return start, start + timedelta(minutes=1)
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


PARTS = {"morning": (6, 12), "afternoon": (12, 18), "evening": (18, 24), "night": (18, 24)}
_PART_SPANS = {(first, last - first) for first, last in PARTS.values()}  # (start hour, hours) of each part


def part_of_day(day: datetime, part: str) -> Range:
    """The hours of ``part`` (morning, afternoon, evening, night) of ``day``."""
    first, last = PARTS[part.lower()]
    return day + timedelta(hours=first), day + timedelta(hours=last)


# A day phrase may be narrowed by what follows it: “yesterday morning”, “on Monday at 8 pm”.
# "tomorrow noon" says its clock without "at"
_SUFFIX = (
    rf"\s+(?:(?:in\s+the\s+)?(?P<part>morning|afternoon|evening|night)|(?:at\s+|(?={_NAMED}))(?:{CLOCK_RE}))(?![\w-])"
)


@functools.cache
def _suffix() -> re.Pattern[str]:
    return re.compile(_SUFFIX, re.IGNORECASE)


def narrow(text: str, end: int, span: Range, now: datetime) -> tuple[int, Range]:
    """A day narrowed by the part or clock that follows it at ``end`` (the phrase's new end with it)."""
    if span[1] - span[0] == DAY and span[0].time() == time():
        suffix = _suffix().match(text, end)
        if suffix is None:
            bare = _bare_hour().match(text, end)  # tomorrow at 7
            if bare is None:
                return end, span
            return bare.end(), bare_hour_on(int(bare["bare"]), span, now, waking=_waking_before(text, end))
        if not suffix["part"]:
            narrowed = clock_span(suffix, span[0])
            return (end, span) if narrowed is None else (suffix.end(), narrowed)
        span, end = part_of_day(span[0], suffix["part"]), suffix.end()
    elif (span[0].hour, (span[1] - span[0]) // timedelta(hours=1)) not in _PART_SPANS or span[0].minute:
        return end, span
    # a part of a day and then its clock, "tomorrow morning at 8:30": the clock (it stopped at 06:00: helper);
    # the part says which half, so a bare hour is a clock there (tonight at 8 read the whole evening)
    clock = _suffix().match(text, end) or _bare_hour().match(text, end)
    if clock is None or _group(clock, "part"):
        return end, span
    if _group(clock, "bare"):
        return clock.end(), bare_hour_on(int(clock["bare"]), span, now, waking=_waking_before(text, end))
    at = clock_span(clock, midnight(span[0].date()))
    if at is None:
        return end, span
    said_half = _group(clock, "ampm") or _group(clock, "ampm2") or _group(clock, "named")  # tonight at midnight
    return clock.end(), at if said_half else _in_part(at, span)


def bare_hour_on(hour: int, span: Range, now: datetime, *, waking: bool = False) -> Range:
    """A bare hour (1–12, no am/pm) on a whole day or a part of one: in the part's half (tonight at 8 is 20:00),
    and on a whole day as 明天三点 is read (:func:`~huiyi.text.hours_zh.half_of_the_day`, after a day): 1–6 the
    afternoon's, 7–11 the morning's, 12 noon, the hours one is up and about (tomorrow at 3 is 15:00, tomorrow at
    7 07:00); but the morning's when it is when one wakes (I have to wake up at 5 tomorrow: 05:00)."""
    day = midnight(span[0].date())
    at = day + timedelta(hours=hour), day + timedelta(hours=hour + 1)
    if span[1] - span[0] != DAY:
        return _in_part(at, span)
    return at if waking and hour < 12 else half_of_the_day(at, now, "after a day")


# wake up at 5 tomorrow, my alarm, up at 5 tomorrow (said as one's own: not pick me up, meet up at 5)
_WAKING = lazy(
    r"\b(?:wak(?:e|es|ing)|woke|get(?:ting)?\s+up|got\s+up|alarm|early)\b"
    r"|(?:^|[,.;!]\s*|\b(?:I'm|am|be|we're|I'll\s+be)\s+)up\s+$",
    re.IGNORECASE,
)


def _waking_before(text: str, at: int) -> bool:
    """Whether the words just before ``at`` (its clause) say one wakes then."""
    before = re.split(r"[.!?;\n]", text[max(0, at - 40) : at])[-1]
    before = re.sub(r"\s*\bat\s+\S*\s*$", "", before)  # the clock's own "at 5"
    return _WAKING.search(before + " ") is not None if before else False


def _in_part(at: Range, part: Range) -> Range:
    """A clock of no half said in the part of a day it is said with: "this evening at 7:30" is 19:30; tonight at
    12 is midnight, tonight at 1:30 the night's 01:30."""
    hour, evening = at[0].hour, part[0].hour >= 18
    if part[0].hour >= 12 and (hour < 12 or (hour == 12 and evening)):
        shift = timedelta(hours=24 if evening and hour < 6 else 12)
        return at[0] + shift, at[1] + shift
    return at


# a bare hour before the day or part of one it is on: at 8 tonight, at 7 tomorrow morning
_BARE_BEFORE = lazy(r"(?<![\w.:-])at\s+(?P<bare>1[0-2]|0?[1-9])(?:\s*o['’]clock)?\s+", re.IGNORECASE)


def clocks_before_days(text: str, found: list[tuple[int, int, Range]], now: datetime) -> list[tuple[int, int, Range]]:
    """Each bare hour said right before a day or a part of one found (at 8 tonight), from the hour to the day's
    end; a bare hour alone is too often not a time (at 8 of them)."""
    days = {start: (end, span) for start, end, span in found if day_said(span)}
    clocks = []
    for match in _BARE_BEFORE.finditer(text):
        if (day := days.get(match.end())) is not None:
            read = bare_hour_on(int(match["bare"]), day[1], now, waking=_waking_before(text, match.start()))
            clocks.append((match.start(), day[0], read))
    return clocks


# a number before what is counted is a count, not a clock: tomorrow at 10 people are coming (at 10, people are
# coming is one), tonight at 8 guests arrive
_COUNTED = (
    r"\s+(?:(?:more|other|extra)\s+)?(?:people|persons|guests|friends|kids|children|adults|folks|colleagues"
    r"|co-?workers|students|visitors|relatives|players|members|minutes|mins|hours|of\s+(?:us|them|you))\b"
)


@functools.cache
def _bare_hour() -> re.Pattern[str]:
    return re.compile(rf"\s+at\s+(?P<bare>1[0-2]|0?[1-9])(?:\s*o['’]clock)?(?![\w:'’-]|\.\d|{_COUNTED})", re.IGNORECASE)


# what ends a sentence, and a clause in it: a clock alone takes its clause's day, or the one opening its sentence
# (Tomorrow, I'm meeting Sarah at 1pm); never across not, but, and or a comma (at 5pm, not tomorrow: helper's review)
_SENTENCE_END = lazy(r"[.!?;\n。！？；]")
_CLOCK_CLAUSE_END = lazy(r"[,，:：—]|\b(?:and|but|or|not|though|although|because|so)\b|n['’]t\b", re.IGNORECASE)


class Bounds:
    """Where the text's sentences and clauses end, found once for all its clocks (not read again for each)."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.sentence_ends = [m.start() for m in _SENTENCE_END.finditer(text)]
        self.clause_ends = [(m.start(), m.end()) for m in _CLOCK_CLAUSE_END.finditer(text)]
        self.clause_starts = [start for start, _ in self.clause_ends]

    def sentence(self, start: int, end: int) -> tuple[int, int]:
        before = bisect.bisect_left(self.sentence_ends, start)
        left = self.sentence_ends[before - 1] + 1 if before else 0
        after = bisect.bisect_left(self.sentence_ends, end)
        return left, self.sentence_ends[after] if after < len(self.sentence_ends) else len(self.text)

    def clause(self, start: int, end: int, left: int, right: int) -> tuple[int, int]:
        before = bisect.bisect_left(self.clause_starts, start)
        clause_left = max(left, self.clause_ends[before - 1][1]) if before else left
        after = bisect.bisect_left(self.clause_starts, end)
        return clause_left, min(right, self.clause_starts[after]) if after < len(self.clause_starts) else right


def on_its_day(
    clock: tuple[int, int, Range], days: list[tuple[int, int, datetime]], bounds: Bounds, today: datetime
) -> tuple[int, int, Range]:
    """A clock alone ("at 3pm") on the day its clause names, the nearest whole day (or part of one) said there, or
    the day that opens its sentence: "at 3pm next Friday", "Tomorrow I'm meeting Sarah at 1pm" were put on today
    (helper)."""
    start, end, span = clock
    left, right = bounds.sentence(start, end)
    opening = re.match(r"\s*(?:on\s+)?", bounds.text[left:]).end() + left  # type: ignore[union-attr]
    clause_left, clause_right = bounds.clause(start, end, left, right)
    first = bisect.bisect_left(days, (left,))
    near = []
    for s, e, day in days[first:]:
        if s > right:
            break
        if s <= start < e:
            continue
        if (clause_left <= s and e <= clause_right) or (s == opening and e < start):
            near.append((min(abs(s - end), abs(start - e)), day))
    if not near:
        return clock
    _, day = min(near, key=lambda pair: pair[0])
    at = span[0] - today
    if day.hour >= 12 and at < timedelta(hours=12):  # a part of the day said: "at 7:30 last night" is 19:30,
        at += timedelta(hours=24 if day.hour >= 18 and at < timedelta(hours=6) else 12)  # "at 2:30" after it
    start_of_day = day - timedelta(hours=day.hour)
    return start, end, (start_of_day + at, start_of_day + at + (span[1] - span[0]))


def day_said(span: Range) -> bool:
    """Whether ``span`` is a day a clock alone may be put on: a whole day, or a part of one ("last night",
    "yesterday afternoon": at midnight last night was put on today, the coming night)."""
    day, until = span
    if day.time() == time() and until - day == DAY:
        return True
    return not day.minute and any(
        day.hour == first and until - day == timedelta(hours=hours) for first, hours in _PART_SPANS
    )
