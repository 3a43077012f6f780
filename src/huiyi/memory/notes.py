"""A note a caller remembers: the ids and words it may choose, and when two notes are one (``remember``)."""

from __future__ import annotations

import hashlib
from collections.abc import Sequence

from huiyi.checks import check_id, check_name
from huiyi.errors import InvalidInput, said
from huiyi.model import MemoryItem

__all__ = ["alike", "caller_id", "caller_words", "note_id"]


def caller_id(item: MemoryItem) -> None:
    """A memory id a caller chose may not be one huiyi derives for another memory: a chunk's (made from
    an agent's message id, so anyone could take it first and that message would never be indexed) or a
    summary's, unless it is the id this summary has in its own scope (an export imported again)."""
    try:
        check_id(item.id, "memory")
    except ValueError as exc:
        raise InvalidInput(said(exc)) from exc
    if item.id.startswith("chunk_"):
        raise InvalidInput(f"memory id {item.id!r}: ids starting chunk_ are the chunks' own, made from messages")
    if item.id.startswith("sum_"):
        from huiyi.flows.summarize.run import summary_id  # the summarizer loads at its first use

        made = item.summary
        keys = {"", made.period, made.person or ""}
        if made.kind is None or item.id not in {summary_id(item.scope, made.kind, key) for key in keys}:
            raise InvalidInput(f"memory id {item.id!r}: ids starting sum_ are the summaries' own, from their scope")


def caller_words(keywords: Sequence[str]) -> None:
    """A caller's keywords are words: each one printable and not blank (they are matched and shown)."""
    try:
        for word in keywords:
            check_name(word, "a keyword")
    except ValueError as exc:
        raise InvalidInput(str(exc)) from exc


def alike(stored: MemoryItem, item: MemoryItem) -> bool:
    """The same note: scope, kind, text, time and sources (importance and the rest may differ)."""
    return (stored.scope, stored.kind, stored.text, stored.time, stored.sources) == (
        item.scope,
        item.kind,
        item.text,
        item.time,
        item.sources,
    )


def note_id(item: MemoryItem) -> str:
    """An id that follows from what makes two notes alike, the same in every process (ids are per store)."""
    time = item.time.isoformat() if item.time is not None else ""
    key = "\x1f".join([item.scope.agent, item.scope.tag, item.kind, item.text, time, *item.sources])
    return f"mem_{hashlib.blake2b(key.encode(), digest_size=10).hexdigest()}"
