"""Paging a scope's memories by cursor: each page ends with an opaque cursor naming where it stopped.

A memory cursor holds the agent, the scope and the store's mark (sort key and row number) of the last memory
a page held; the next page starts after that memory, so writes and deletions between pages neither skip
nor repeat one (an offset counts rows, which move). A cursor is checked before use: one that is not
huiyi's, or was made for another agent or scope, is refused in words; and the store reads only the scope
the caller named, whatever a cursor says. A job cursor holds the agent and the last job's creation time
and id: jobs list oldest first by both.
"""

from __future__ import annotations

import base64
import binascii
import json
from collections.abc import AsyncIterator, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from huiyi.errors import InvalidInput
from huiyi.memory.common import MAX_LISTED, _kinds, _scope_of
from huiyi.memory.items import Items
from huiyi.model import Job, MemoryItem, MemoryKind, Scope
from huiyi.store.pages import JobMark, ListMark, Marked

CURSOR_CHARS = 2000  # far more than any cursor huiyi makes
_FIELDS = {"v", "agent", "scope", "key", "row"}
_NOT_OURS = "cursor is not one huiyi gave: pass a page's next_cursor as it came, or no cursor for the first page"


@dataclass(frozen=True)
class MemoryPage:
    """One page of a scope's memories, newest first; ``next_cursor`` asks for the next (None: this is the last)."""

    items: list[MemoryItem]
    next_cursor: str | None


@dataclass(frozen=True)
class JobPage:
    """One page of an agent's jobs, oldest first; ``next_cursor`` asks for the next (None: this is the last)."""

    items: list[Job]
    next_cursor: str | None


def _encoded(body: dict[str, Any]) -> str:
    return (
        base64.urlsafe_b64encode(json.dumps(body, ensure_ascii=False, separators=(",", ":")).encode())
        .decode()
        .rstrip("=")
    )


def _decoded(cursor: object, fields: set[str]) -> tuple[dict[str, Any], datetime]:
    """A cursor's fields (exactly ``fields``, version 1) and its zone-less time (``key``, or ``at``);
    anything else is ``InvalidInput``."""
    if not isinstance(cursor, str) or not 0 < len(cursor) <= CURSOR_CHARS:
        raise InvalidInput(_NOT_OURS)
    try:
        body = json.loads(base64.b64decode(cursor + "=" * (-len(cursor) % 4), altchars=b"-_", validate=True))
        ok = isinstance(body, dict) and set(body) == fields and body["v"] == 1
        ok = ok and all(isinstance(body[name], str) for name in fields - {"v", "row"})
        when = datetime.fromisoformat(body["key" if "key" in fields else "at"]) if ok else None
    except (ValueError, binascii.Error, RecursionError) as exc:  # not base64, UTF-8, JSON or a time
        raise InvalidInput(_NOT_OURS) from exc
    if when is None or when.tzinfo is not None:
        raise InvalidInput(_NOT_OURS)
    return body, when


def cursor_after(scope: Scope, mark: ListMark) -> str:
    """The cursor of the page that starts after the memory marked ``mark`` in ``scope``."""
    return _encoded({"v": 1, "agent": scope.agent, "scope": scope.tag, "key": mark.key.isoformat(), "row": mark.row})


def mark_of(cursor: str, scope: Scope) -> ListMark:
    """The mark ``cursor`` names, if huiyi made it for ``scope``; anything else is ``InvalidInput``."""
    body, key = _decoded(cursor, _FIELDS)
    row = body["row"]
    if not isinstance(row, int) or isinstance(row, bool) or not 0 <= row < 2**63:
        raise InvalidInput(_NOT_OURS)
    if (body["agent"], body["scope"]) != (scope.agent, scope.tag):
        raise InvalidInput("cursor pages another agent's or scope's memories: page this one from its first page")
    return ListMark(key, row)


def job_cursor(agent: str, job: Job) -> str:
    """The cursor of the page of ``agent``'s jobs that starts after ``job``."""
    assert job.created_at is not None  # a stored job has its creation time
    return _encoded({"v": 1, "jobs": agent, "at": job.created_at.isoformat(), "id": job.id})


def job_mark(cursor: str, agent: str) -> JobMark:
    """The job ``cursor`` names (its creation time and id), if huiyi made it for ``agent``'s jobs."""
    body, at = _decoded(cursor, {"v", "jobs", "at", "id"})
    if body["jobs"] != agent:
        raise InvalidInput("cursor pages another agent's jobs: page this one from its first page")
    return at, body["id"]


class Pages(Items):
    """A scope's memories, a page at a time, by cursor."""

    async def marked_memories(
        self,
        *,
        agent: str,
        person: str | None = None,
        space: str | None = None,
        kinds: Sequence[MemoryKind | str] | None = None,
        limit: int = 100,
        cursor: str | None = None,
    ) -> tuple[Scope, list[Marked]]:
        """One scope's memories after ``cursor`` (None: from the newest), each with its mark (for
        :func:`cursor_after`), and the scope: for a face that filters a listing before it pages it."""
        if isinstance(limit, bool) or not isinstance(limit, int) or not 1 <= limit <= MAX_LISTED:
            raise InvalidInput(f"limit is a whole number from 1 to {MAX_LISTED}, not {limit!r}")
        scope = _scope_of(agent, person, space)
        after = mark_of(cursor, scope) if cursor is not None else None
        return scope, await self._run(self.store.page_memories, [scope], _kinds(kinds), limit, after)

    async def memories_page(
        self,
        *,
        agent: str,
        person: str | None = None,
        space: str | None = None,
        kinds: Sequence[MemoryKind | str] | None = None,
        limit: int = 100,
        cursor: str | None = None,
    ) -> MemoryPage:
        """One page of a scope's memories, newest first (as ``memories``); pass its ``next_cursor`` back as
        ``cursor`` for the next. Memories written or forgotten between pages skip or repeat none."""
        if isinstance(limit, bool) or not isinstance(limit, int) or not 1 <= limit < MAX_LISTED:
            raise InvalidInput(f"limit is a whole number from 1 to {MAX_LISTED - 1}, not {limit!r}")
        scope, found = await self.marked_memories(
            agent=agent, person=person, space=space, kinds=kinds, limit=limit + 1, cursor=cursor
        )
        more = cursor_after(scope, found[limit - 1][1]) if len(found) > limit else None
        return MemoryPage(items=[item for item, _ in found[:limit]], next_cursor=more)

    async def iter_memories(
        self,
        *,
        agent: str,
        person: str | None = None,
        space: str | None = None,
        kinds: Sequence[MemoryKind | str] | None = None,
        per_page: int = 100,
    ) -> AsyncIterator[MemoryItem]:
        """Every memory of one scope, newest first, read a page at a time by cursor."""
        cursor: str | None = None
        while True:
            page = await self.memories_page(
                agent=agent, person=person, space=space, kinds=kinds, limit=per_page, cursor=cursor
            )
            for item in page.items:
                yield item
            if page.next_cursor is None:
                return
            cursor = page.next_cursor
