"""When a memory is about, not only when it was said: the time test of recall's time bonus.

A query's time words name a span (in May 2023, 上周). A memory lies in it when it was said there, or when
its own time words, read against the moment it was said, name a time there: “I moved from Sweden 4 years
ago”, said in 2023, is about 2019; “上周我们去爬山了”, said on a Monday, is about the week before. This is
LongMemEval's time-aware indexing without an LLM: the same time parser the query goes through reads the
memory. Events and facts may carry their own time in ``data["about"]`` (ISO start and end); it counts too.

    >>> from huiyi.model import MemoryItem, MemoryKind, Scope
    >>> scope = Scope.of_space("bot", "g1")
    >>> said = MemoryItem(scope=scope, kind=MemoryKind.CHUNK, text="I moved from Sweden 4 years ago",
    ...                   time=datetime(2023, 6, 1, 10, 0))
    >>> span = TimeSpan(datetime(2019, 1, 1), datetime(2020, 1, 1), "in 2019")
    >>> within(said, span), said.time in span
    (True, False)
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Mapping
from contextlib import suppress
from datetime import UTC, datetime, timedelta, tzinfo
from typing import Protocol

from huiyi.model import MemoryItem, MemoryKind
from huiyi.patterns import lazy
from huiyi.text import tokens
from huiyi.text.times import TimeSpan, find_time_phrases

__all__ = ["WHEN", "about", "after", "known", "moment_words", "past_plan", "when_bonus", "within"]

Window = list[tuple[int, tuple[float, dict[str, float]]]]


def after(when: datetime | None, moment: datetime, zone: tzinfo | None = None) -> bool:
    """Whether ``when`` comes after ``moment`` (either may carry a timezone; naive times are local: in
    ``zone``, if given, the second of the two 01:10s of the hour it repeats, ``fold=1``, is the later).

    >>> after(datetime(2024, 4, 10), datetime(2024, 3, 20)), after(None, datetime(2024, 3, 20))
    (True, False)
    >>> from zoneinfo import ZoneInfo
    >>> after(datetime(2026, 11, 1, 1, 50), datetime(2026, 11, 1, 1, 10, fold=1), ZoneInfo("America/Los_Angeles"))
    False
    """
    if when is None:
        return False
    if when.tzinfo is not None and moment.tzinfo is not None:
        return when > moment
    when, moment = when.replace(tzinfo=None), moment.replace(tzinfo=None)
    if zone is not None and (when.fold or moment.fold):  # comparing zone-less times ignores the fold
        return when.replace(tzinfo=zone).astimezone(UTC) > moment.replace(tzinfo=zone).astimezone(UTC)
    return when > moment


MOMENT = timedelta(hours=6)  # the longest span read as one moment of a day (上午, 傍晚, 昨晚)


def moment_words(span: TimeSpan | None, now: datetime | None) -> list[str]:
    """The words of a past moment the query names (中午, 上午, this morning): the time bonus reads them, and as
    keywords they would lift every line that says them ("中午吃啥"). A span to come (后天), or a long one
    (白天, 昨天: often habitual or a topic), keeps its words."""
    if span is None or now is None or span.end - span.start > MOMENT:
        return []
    return tokens.words(span.phrase) if span.end <= now.replace(tzinfo=span.end.tzinfo) else []


def known(item: MemoryItem) -> datetime | None:
    """When a memory could first be known: a summary once the last day it covers is over (its time is that
    day's midnight, yet it tells the whole day), anything else when it was said.

    >>> from huiyi.model import MemoryItem, MemoryKind, Scope
    >>> day = MemoryItem(scope=Scope.official("a"), kind=MemoryKind.SUMMARY, text="t", time=datetime(2025, 3, 10))
    >>> known(day)
    datetime.datetime(2025, 3, 11, 0, 0)
    """
    if item.kind is MemoryKind.SUMMARY:
        with suppress(ValueError):
            return datetime.fromisoformat(item.summary.period) + timedelta(days=1)
        return None if item.time is None else item.time + timedelta(days=1)
    return item.said_at or item.time


class Said(Protocol):
    """What the time test reads of a memory: a whole one, or recall's ``RankRow`` (its ``data`` is about alone)."""

    @property
    def id(self) -> str: ...
    @property
    def text(self) -> str: ...
    @property
    def time(self) -> datetime | None: ...
    @property
    def data(self) -> Mapping[str, object]: ...


# a memory's own time words are read once per process: parsing is ~1 ms a memory, and a time query
# reads ~100 candidates. Keyed by the text's hash, so the cache holds no texts; least recently used goes
_CACHE_LIMIT = 100_000
_about_lock = threading.Lock()
_about_cache: OrderedDict[tuple[str, int, datetime], list[tuple[datetime, datetime]]] = OrderedDict()


def about(item: Said) -> list[tuple[datetime, datetime]]:
    """The spans the memory's own words name, read against when it was said (cached per text and time)."""
    spans: list[tuple[datetime, datetime]] = []
    told = item.data.get("about") if isinstance(item.data, Mapping) else None
    if isinstance(told, str):  # extraction's label: "2024-12-01", "2024-12-01 19:00" or "start～last day"
        told = _label_span(told)
    if isinstance(told, list | tuple) and len(told) == 2:
        with suppress(ValueError):  # a malformed field is no time at all
            spans.append((datetime.fromisoformat(str(told[0])), datetime.fromisoformat(str(told[1]))))
    if item.time is None:
        return spans
    key = (item.id, hash(item.text), item.time)
    with _about_lock:  # recall's read threads share the cache
        found = _about_cache.get(key)
        if found is not None:
            _about_cache.move_to_end(key)
    if found is None:
        found = _own_spans(item.text, item.time)
        with _about_lock:
            _about_cache[key] = found
            if len(_about_cache) > _CACHE_LIMIT:
                _about_cache.popitem(last=False)
    return spans + found


# the date extraction wrote after a phrase; English puts a space before it
_WRITTEN = lazy(r"\s*[（(](?P<day>\d{4}-\d{2}-\d{2})(?P<day_only>[）)])?")


def _own_spans(text: str, said: datetime) -> list[tuple[datetime, datetime]]:
    """The spans ``text`` names, read against ``said``; a relative phrase whose date extraction wrote after
    it is read by that date: a day or more as written, a part of a day (明晚（2024-11-15）) as that part of
    the date written, not the whole day. Each phrase is taken where it is said, in reading order.

    >>> [f"{a:%d %H}-{b:%d %H}" for a, b in _own_spans("明晚（2024-11-15）带一盒", datetime(2024, 11, 13, 19))]
    ['15 18-16 00']
    >>> [f"{a:%d %H}" for a, b in _own_spans("晚上吃饭，晚上（2024-11-14）看电影", datetime(2024, 11, 13, 9))]
    ['13 18', '14 18']
    """
    out: list[tuple[datetime, datetime]] = []
    cursor = 0
    skip_to = -1  # the end of a written date already read with its phrase
    for span in find_time_phrases(text, said):
        at = text.find(span.phrase, cursor)
        if at < 0:
            continue
        cursor = at + len(span.phrase)
        if at < skip_to:
            continue
        written = _WRITTEN.match(text, cursor)
        if written is None:
            out.append((span.start, span.end))
            continue
        skip_to = written.end()
        if written.group("day_only") and span.end - span.start < timedelta(days=1):
            day = datetime.fromisoformat(written.group("day")).replace(tzinfo=span.start.tzinfo)
            start = day + (span.start - span.start.replace(hour=0, minute=0, second=0, microsecond=0))
            out.append((start, start + (span.end - span.start)))
        else:  # the written date itself is read as it comes next
            skip_to = -1
    return out


def past_plan(item: MemoryItem, now: datetime) -> str:
    """The days a memory said before them is about (its ``data["about"]`` label), once they are over by
    ``now``; else "". 木木下周三（2024-11-06）要去面试 is past on 11-07, a plan for 下个月 after its last day.

    >>> from huiyi.model import MemoryItem, MemoryKind, Scope
    >>> plan = MemoryItem(scope=Scope.official("a"), kind=MemoryKind.FACT, text="t", time=datetime(2024, 11, 6),
    ...                   said_at=datetime(2024, 10, 30, 20), data={"about": "2024-11-06"})
    >>> past_plan(plan, datetime(2024, 11, 6, 23)), past_plan(plan, datetime(2024, 11, 7))
    ('', '2024-11-06')
    """
    label = item.data.get("about")
    if not isinstance(label, str) or item.said_at is None or not after(item.time, item.said_at):
        return ""
    span = _label_span(label)
    if span is None or after(datetime.fromisoformat(span[1]), now):
        return ""
    return label


def _label_span(label: str) -> tuple[str, str] | None:
    """An about label as ISO start and end (a day's end is the next midnight).

    >>> _label_span("2024-12-01～2024-12-31")
    ('2024-12-01T00:00:00', '2025-01-01T00:00:00')
    >>> _label_span("2024-11-20 19:00")
    ('2024-11-20T19:00:00', '2024-11-20T20:00:00')
    >>> _label_span("下个月") is None
    True
    """
    first, _, last = label.partition("～")
    try:
        start = datetime.fromisoformat(first.strip())
        end = datetime.fromisoformat((last or first).strip())
    except ValueError:
        return None
    step = timedelta(hours=1) if len((last or first).strip()) > 10 else timedelta(days=1)
    return start.isoformat(), (end + step).isoformat()


def within(item: Said, span: TimeSpan) -> bool:
    """Whether the memory was said within ``span`` or names a time that overlaps it."""
    if item.time is not None and item.time in span:
        return True
    return any(start < span.end and span.start < end for start, end in about(item))


WHEN = lazy(
    r"^\s*when\b|\bwhat (?:time|day|date|year|month)\b|\bhow long ago\b|什么时候|哪天|哪一天|几号|何时|哪年|几月"
)


def when_bonus(window: Window, items: Mapping[int, MemoryItem | None], query: str, weight: float) -> dict[int, float]:
    """A question asking *when* is answered by a memory that says when: those naming a time gain ``weight``
    times the share of the dated candidates that name none (as the span bonus: a sign most candidates
    carry tells little). Nothing when the question does not ask when.

    >>> from huiyi.model import MemoryItem, MemoryKind, Scope
    >>> scope = Scope.of_space("bot", "g1")
    >>> said = datetime(2023, 5, 10, 9, 0)
    >>> items = {1: MemoryItem(scope=scope, kind=MemoryKind.CHUNK, text="we went camping last week", time=said),
    ...          2: MemoryItem(scope=scope, kind=MemoryKind.CHUNK, text="camping is fun", time=said)}
    >>> when_bonus([(1, (0.5, {})), (2, (0.6, {}))], items, "When did Mel go camping?", 0.3)
    {1: 0.15}
    >>> when_bonus([(1, (0.5, {})), (2, (0.6, {}))], items, "Where did Mel go camping?", 0.3)
    {}
    """
    if weight <= 0 or not WHEN.search(query.casefold()):
        return {}
    dated = [(key, item) for key, _ in window if (item := items.get(key)) is not None and item.time is not None]
    naming = {key for key, item in dated if about(item)}
    if not dated or not naming:
        return {}
    bonus = weight * (1.0 - len(naming) / len(dated))
    return {key: bonus for key in naming} if bonus > 0 else {}
