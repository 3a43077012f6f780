"""What a caller's ids, texts and times may hold, checked before anything is stored."""

from __future__ import annotations

import re
import unicodedata
from datetime import UTC, datetime, timedelta, tzinfo
from typing import Annotated

from pydantic import BeforeValidator, PlainSerializer, WithJsonSchema

from huiyi.patterns import lazy

MAX_ID_CHARS = 200
# ISO 8601 as written, extended or basic: datetime.fromisoformat alone also reads "1" * 20000 as a time
ISO_TIME = lazy(
    r"\d{4}(?:-?\d{2}-?\d{2}|-?W\d{2}(?:-?\d)?)"
    # an offset to the second, as a zone's local mean time had one (Shanghai's +08:05:43 until 1901)
    r"(?:[T ]\d{2}(?::?\d{2}(?::?\d{2}(?:[.,]\d{1,9})?)?)?(?:Z|[+-]\d{2}(?::?\d{2}(?::?\d{2})?)?)?)?",
    re.IGNORECASE,
)
LONGEST_TIME = 64  # the longest form read, LoCoMo's, is some 35 characters
# the years a chat, and a time asked about it, can be in: far from the calendar's ends (1 and 9999),
# where a day's or a year's arithmetic overflows, and refusing what a slip makes (a year 1111)
EARLIEST_TIME, LATEST_TIME = datetime(1900, 1, 1), datetime(2200, 1, 1)
_NUMBER = lazy(r"[+-]?(?:\d+\.?\d*|\.\d+)(?:e[+-]?\d+)?|[+-]?(?:nan|inf|infinity)", re.IGNORECASE)
_ZERO_WIDTH = frozenset("\u200b\u200c\u200d\u2060\ufeff")  # a text of these and spaces says nothing


# categories no id or name shows: controls (C0, C1), format characters (zero-width, bidi, BOM),
# surrogates and the line and paragraph separators
_UNSEEN = frozenset({"Cc", "Cf", "Cs", "Zl", "Zp"})
_JOINERS = "\u200c\u200d"  # seen only as how the characters beside them join: 👨‍💻, Persian and Indic names
_SHAPED = frozenset({"So", "Sk", "Mn", "Mc"})  # emoji, their modifiers and marks: what a joiner joins
_TAG_CHARS = range(0xE0020, 0xE0080)  # the tags of a flag's emoji (🏴 of Scotland): part of the emoji


def _joined(value: str, at: int) -> bool:
    """Whether the format character at ``at`` is part of what prints: a joiner inside an emoji sequence or
    between letters of a script that joins (Arabic to Sinhala), or a flag's tag."""
    ch, before = value[at], value[at - 1] if at else ""
    if ord(ch) in _TAG_CHARS:
        return bool(before) and (ord(before) in _TAG_CHARS or unicodedata.category(before) == "So")
    if ch not in _JOINERS or not before or at + 1 == len(value):
        return False
    after = value[at + 1]
    if {unicodedata.category(before), unicodedata.category(after)} & _SHAPED:
        return True
    return all(0x0600 <= ord(c) <= 0x0DFF for c in (before, after))


def _unseen(value: str) -> bool:
    """Whether ``value`` holds a character that does not print, nor joins what prints."""
    return any(unicodedata.category(ch) in _UNSEEN and not _joined(value, at) for at, ch in enumerate(value))


def check_id(value: str, what: str, *, stored: bool = False) -> str:
    """An agent, person or space id: printable, bounded, never blank, nothing around it.

    Ids are compared exactly everywhere (case, width and script are the id's own: ``Bob``, ``bob`` and
    ``ｂｏｂ`` are three people), so two ids that print alike must be one: invisible characters, spaces
    around it and a form other than NFC (the same letters spelt apart) are refused, never folded.
    ``stored``: an id read back from a store, which may predate this rule, is only checked as it was then.
    """
    check_name(value, f"{what} id", stored=stored)
    if not stored and value != value.strip():
        raise ValueError(f"{what} id {value!r} starts or ends with a space")
    if not stored and value in (".", ".."):  # a URL's path reads them as "here" and "up": no route could erase it
        raise ValueError(f"{what} id {value!r} is not an id a URL can name")
    return value


def check_name(value: str, what: str, *, stored: bool = False) -> str:
    """A name (a person's, an alias, a keyword): as an id is, printable, bounded and never blank."""
    if not isinstance(value, str):  # as pydantic refuses them: an id is never made from a number
        raise ValueError(f"{what} must be a string, not {type(value).__name__}")
    if not value.strip():
        raise ValueError(f"{what} is empty")
    if len(value) > MAX_ID_CHARS:
        raise ValueError(f"{what} has {len(value)} characters; the limit is {MAX_ID_CHARS}")
    if stored:
        if any(ord(ch) < 32 or ord(ch) == 127 or 0xD800 <= ord(ch) <= 0xDFFF for ch in value):
            raise ValueError(f"{what} {value!r} contains a control character or a lone surrogate")
        return value
    if _unseen(value):
        raise ValueError(
            f"{what} {value!r} contains an invisible character (a control, zero-width or direction mark) "
            "or a lone surrogate"
        )
    if not unicodedata.is_normalized("NFC", value):
        raise ValueError(f"{what} {value!r} is not in Unicode NFC form; send it composed (NFC)")
    return value


def check_message_ids(speaker: str | None, message_id: str | None) -> None:
    """A caller's message's speaker and id: printable when given (a blank speaker means the default one,
    a blank id is refused)."""
    # a speaker is a member's id, matched exactly when they are erased: ``bob `` would be someone else.
    # A platform's message id may end in a space: as sent
    if speaker:
        check_id(speaker, "speaker")
    if message_id is not None:
        check_name(message_id, "message id")


def check_scope(agent: str, kind: str, key: str, *, stored: bool = False) -> None:
    """A scope's ids: its agent's, and its person's or space's (``kind``); the official scope has no key."""
    check_id(agent, "agent", stored=stored)
    if kind == "official":
        if key:
            raise ValueError("the official scope has no key")
    else:
        check_id(key, kind, stored=stored)


def is_blank(value: str) -> bool:
    """Whether a text says nothing: only spaces and zero-width characters."""
    return not any(not ch.isspace() and ch not in _ZERO_WIDTH for ch in value)


def check_text(value: str, what: str) -> str:
    """Text to store: not blank, and storable in both stores (PostgreSQL refuses NUL, UTF-8 lone surrogates)."""
    if is_blank(value):
        raise ValueError(f"{what} text is empty")
    return check_storable(value, f"{what} text")


def check_storable(value: str, what: str) -> str:
    """Text that may be empty but must be storable in both stores: PostgreSQL refuses NUL, and a lone
    surrogate has no UTF-8 form."""
    if "\x00" in value:
        raise ValueError(f"{what} contains a NUL character")
    try:
        value.encode()
    except UnicodeEncodeError:
        raise ValueError(f"{what} contains a lone surrogate") from None
    return value


def check_data(data: dict[str, object]) -> None:
    """The keys of a memory's ``data`` that ranking reads: a caller's wrong type broke every recall of the scope."""
    seq, space = data.get("seq"), data.get("space")
    if seq is not None and (not isinstance(seq, int) or isinstance(seq, bool)):
        raise ValueError(f"memory data: seq is a message's place in its chat, a whole number, not {seq!r}"[:200])
    if space is not None and not isinstance(space, str):
        raise ValueError(f"memory data: space is a conversation's id, a text, not {space!r}"[:200])


MAX_DATA_DEPTH = 32  # how deep a memory's data, and an HTTP body (faces.http_guard), may nest
INT64_MIN, INT64_MAX = -(2**63), 2**63 - 1  # what both stores keep as an integer


def check_json(value: object, what: str) -> None:
    """A caller's JSON value (a memory's ``data``) as both stores keep it: text keys, 64-bit integers,
    finite numbers, storable texts, at most ``MAX_DATA_DEPTH`` deep. Python's ``json`` writes NaN and
    ``str()`` of any object, which PostgreSQL refuses (and SQLite keeps as what no reader parses back)."""
    stack: list[tuple[object, str, int]] = [(value, what, 0)]
    while stack:  # iterative: a value nested past the stack is refused, not a RecursionError
        item, where, depth = stack.pop()
        if item is None or isinstance(item, bool | str):
            if isinstance(item, str):
                check_storable(item, where)
        elif isinstance(item, int):
            if not INT64_MIN <= item <= INT64_MAX:
                raise ValueError(f"{where} is {item}, past a 64-bit integer")
        elif isinstance(item, float):
            if item != item or item in (float("inf"), float("-inf")):
                raise ValueError(f"{where} is {item}, not a finite number")
        elif isinstance(item, dict | list | tuple):
            if depth >= MAX_DATA_DEPTH:
                raise ValueError(f"{what} is nested deeper than {MAX_DATA_DEPTH} levels")
            if isinstance(item, dict):
                for key, child in item.items():
                    if not isinstance(key, str):
                        raise ValueError(f"{where} has a key {key!r} that is not a text")
                    check_storable(key, f"{where} key")
                    stack.append((child, f"{where}.{key}"[:200], depth + 1))
            else:
                stack.extend((child, f"{where}[{n}]", depth + 1) for n, child in enumerate(item))
        else:
            raise ValueError(f"{where} holds a {type(item).__name__}, which is not JSON")


def wall_clock(when: datetime, zone: tzinfo) -> datetime:
    """An aware time as the store keeps it: the zone's wall clock, zone-less (a time at the edge of the
    calendar, e.g. year 1 at +14:00, has none: refused rather than an OverflowError)."""
    try:
        return when.astimezone(zone).replace(tzinfo=None)
    except OverflowError:
        raise ValueError(f"time {when.isoformat()} falls outside the calendar in zone {zone}") from None


def utc_of(when: datetime, zone: tzinfo) -> datetime:
    """A time as the store stamps rows: UTC, zone-less; a naive time is the zone's wall clock."""
    local = when if when.tzinfo is not None else when.replace(tzinfo=zone)
    return local.astimezone(UTC).replace(tzinfo=None)


def wall_of(written: datetime | None, zone: tzinfo) -> datetime | None:
    """A time the store stamped (``created_at``: UTC, zone-less) as the zone's wall clock, zone-less: how
    every other time of a memory is kept, so ages and days mix no clocks (8 hours apart in Shanghai)."""
    if written is None:
        return None
    moment = written if written.tzinfo is not None else written.replace(tzinfo=UTC)
    try:
        return moment.astimezone(zone).replace(tzinfo=None)
    except OverflowError:  # a stamp at the calendar's edge has no wall clock there: kept as it is
        return written.replace(tzinfo=None)


def read_iso(text: str) -> datetime:
    """An ISO 8601 time as written, its offset kept; ``ValueError`` for anything else, however lenient
    ``datetime.fromisoformat`` would be with it (``"1" * 20000`` is no time)."""
    text = text.strip()
    if len(text) > LONGEST_TIME or not ISO_TIME.fullmatch(text):
        raise ValueError(f"not an ISO 8601 time: {text[:40]!r}")
    return datetime.fromisoformat(text)


def read_time(value: object) -> object:
    """A caller's time as every model reads it: a text only as ISO 8601 (``20240501`` is that day),
    never a text of digits as seconds since 1970; a datetime or a number (a Unix timestamp: seconds, or
    milliseconds above 2e10) is left to pydantic as it is."""
    if not isinstance(value, str):
        return value
    try:
        return read_iso(value)
    except ValueError:
        shown = value.strip()
        shown = shown if len(shown) <= 40 else shown[:37] + "..."
        if _NUMBER.fullmatch(value.strip()):
            raise ValueError(
                f"time {shown!r} is a number in a text: send a date as ISO 8601 (2024-05-01, 20240501) "
                "or a Unix timestamp as a number"
            ) from None
        raise ValueError(f"cannot read {shown!r} as a time; use ISO 8601 (2024-05-01T20:15, 20240501)") from None


def in_years(when: datetime) -> datetime:
    """A zone-less time within the years huiyi reads (1900-2199): year 1 or 9999 is a slip, and the
    ranges and ages read from it would leave the calendar."""
    if not EARLIEST_TIME <= when.replace(tzinfo=None) < LATEST_TIME:
        years = f"{EARLIEST_TIME.year}-{LATEST_TIME.year - 1}"
        raise ValueError(f"time {when.isoformat()} is outside the years huiyi reads ({years})")
    return when


def caller_time(when: datetime, zone: tzinfo) -> datetime:
    """A time a caller sent as the store keeps it: the zone's wall clock, zone-less, within the years."""
    return in_years(when if when.tzinfo is None else wall_clock(when, zone))


def _written_to_the_second(value: datetime) -> str:
    """A time in JSON as pydantic writes one (UTC as Z), but its offset whole: pydantic cut it to minutes,
    and 1900-06-01T12:00+08:05:43 (Shanghai's local mean time) went out 43 seconds from the moment kept."""
    text = value.isoformat()
    return text[:-6] + "Z" if value.utcoffset() == timedelta(0) and text.endswith("+00:00") else text


# a time as every model writes it in JSON; its schema still says date-time (the serializer's str alone made
# every answer's time a plain string in /openapi.json, and clients generated from it parsed none)
Time = Annotated[
    datetime,
    PlainSerializer(_written_to_the_second, when_used="json"),
    WithJsonSchema({"type": "string", "format": "date-time"}, mode="serialization"),
]
# a time a caller sends, read alike by every face (Python, HTTP, tools' stores, import files)
TimeIn = Annotated[Time, BeforeValidator(read_time)]


def no_truth_value(value: object) -> object:
    """A caller's number as every face reads it: ``true`` is no number, though Python's bool is an int
    (pydantic read ``max_results: true`` as 1 and ``importance: true`` as 1.0)."""
    if isinstance(value, bool):
        raise ValueError(f"a number, not {str(value).lower()}")
    return value


# the whole numbers and numbers a caller sends (tools' arguments, HTTP bodies)
Whole = Annotated[int, BeforeValidator(no_truth_value)]
Number = Annotated[float, BeforeValidator(no_truth_value)]
