"""A fold's close drafts applied to the stored facts: a plan called off (搬家泡汤) closes the speaker's open
plan facts that name its word, said before it, with ``valid_to`` = when it was called off. Nothing is
deleted; a history question still finds the old plan, the context leaves it out by default."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import timedelta
from typing import Any

from huiyi.flows.extract import CloseDraft, Fold
from huiyi.model import MemoryItem, MemoryKind, Message, Scope
from huiyi.store.base import Store

__all__ = ["called_off", "close_facts", "to_close"]

_PAGE = 500
_RECENT = 200  # called_off reads this many of the scope's newest facts
_LATELY = timedelta(days=1)  # a plan called off this long before a fold may get its new time there


def to_close(facts: Sequence[MemoryItem], closes: Sequence[CloseDraft], fold: Fold) -> list[tuple[str, dict[str, Any]]]:
    """The updates that close ``facts`` matched by ``closes`` (each fact once, at the earliest close)."""
    times = {m.id: m.time for m in fold.messages}
    out: dict[str, dict[str, Any]] = {}
    for close in sorted(closes, key=lambda c: c.time):
        for item in facts:
            data = item.data
            if item.id in out or item.valid_to is not None or close.word not in item.text:
                continue
            if data.get("subject") != close.subject or data.get("predicate") != close.predicate:
                continue
            # said at or after the close (the new time named for it) is not what was called off
            if any(times.get(s, close.time) >= close.time for s in item.sources if s in times):
                continue
            out[item.id] = {
                "valid_to": close.time,
                "data": {**data, "closed_by": close.sources, "closed_word": close.word},
            }
    return list(out.items())


def close_facts(store: Store, fold: Fold, closes: Sequence[CloseDraft]) -> int:
    """Close the stored facts of the fold's scope that ``closes`` name; returns how many were closed."""
    if not closes:
        return 0
    facts: list[MemoryItem] = []
    offset = 0
    while True:
        page = store.list_memories([fold.scope], kinds=[MemoryKind.FACT], limit=_PAGE, offset=offset)
        facts.extend(page)
        if len(page) < _PAGE:
            break
        offset += _PAGE
    changes = to_close(facts, closes, fold)
    return store.update_memories(fold.agent, changes) if changes else 0


def called_off(store: Store, scope: Scope, messages: Sequence[Message]) -> dict[str, str]:
    """Speaker -> the word of a plan they called off within a day before these messages (搬家泡汤 at
    14:51, 下周六搬 at 21:10 in a later fold)."""
    if not messages:
        return {}
    start = min(m.time for m in messages)
    out: dict[str, str] = {}
    for item in store.list_memories([scope], kinds=[MemoryKind.FACT], limit=_RECENT):
        data = item.data
        word, subject = data.get("closed_word"), data.get("subject")
        if item.valid_to is None or not word or not isinstance(subject, str) or subject in out:
            continue
        if start - _LATELY <= item.valid_to.replace(tzinfo=None) <= start:
            out[subject] = str(word)
    return out
