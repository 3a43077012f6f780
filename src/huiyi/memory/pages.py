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
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Generic, TypeVar

from huiyi.errors import InvalidInput
from huiyi.memory.common import MAX_LISTED, _kinds, _scope_of
from huiyi.memory.items import Items
from huiyi.model import Entity, Job, MemoryItem, MemoryKind, Scope
from huiyi.store.jobs import RunReport
from huiyi.store.pages import JobMark, ListMark, Marked, ReportMark

CURSOR_CHARS = 2000  # far more than any cursor huiyi makes
_FIELDS = {"v", "agent", "scope", "key", "row"}
_NOT_OURS = "cursor is not one huiyi gave: pass a page's next_cursor as it came, or no cursor for the first page"


T = TypeVar("T")


@dataclass(frozen=True)
class Page(Generic[T]):
    """One page of a listing; ``next_cursor`` asks for the next (None: this is the last)."""

    items: list[T]
    next_cursor: str | None


MemoryPage = Page[MemoryItem]  # a scope's memories, newest first
JobPage = Page[Job]  # an agent's jobs, oldest first
EntityPage = Page[Entity]  # a scope's entities, in the order written
ReportPage = Page[RunReport]  # an agent's kept reports, newest first


async def walk(page_after: Callable[[str | None], Awaitable[Page[T]]]) -> AsyncIterator[T]:
    """Every item of a listing, a page at a time: ``page_after(cursor)`` reads the page after ``cursor``."""
    cursor: str | None = None
    while True:
        page = await page_after(cursor)
        for item in page.items:
            yield item
        if page.next_cursor is None:
            return
        cursor = page.next_cursor


def walk_blocking(page_after: Callable[[str | None], Page[T]]) -> Iterator[T]:
    """``walk`` for the synchronous face."""
    cursor: str | None = None
    while True:
        page = page_after(cursor)
        yield from page.items
        if page.next_cursor is None:
            return
        cursor = page.next_cursor


def _encoded(body: dict[str, Any]) -> str:
    return (
        base64.urlsafe_b64encode(json.dumps(body, ensure_ascii=False, separators=(",", ":")).encode())
        .decode()
        .rstrip("=")
    )


def _decoded(cursor: object, fields: set[str]) -> dict[str, Any]:
    """A cursor's fields: exactly ``fields``, version 1, each a string but ``row`` (a row number) and the
    time (``key`` or ``at``, read as a zone-less datetime); anything else is ``InvalidInput``."""
    if not isinstance(cursor, str) or not 0 < len(cursor) <= CURSOR_CHARS:
        raise InvalidInput(_NOT_OURS)
    try:
        body = json.loads(base64.b64decode(cursor + "=" * (-len(cursor) % 4), altchars=b"-_", validate=True))
        ok = isinstance(body, dict) and set(body) == fields and body["v"] == 1
        ok = ok and all(isinstance(body[name], str) for name in fields - {"v", "row"})
        for name in fields & {"key", "at"} if ok else ():
            body[name] = datetime.fromisoformat(body[name])
            ok = ok and body[name].tzinfo is None
    except (ValueError, binascii.Error, RecursionError) as exc:  # not base64, UTF-8, JSON or a time
        raise InvalidInput(_NOT_OURS) from exc
    row = body.get("row", 0) if ok else None
    if not isinstance(row, int) or isinstance(row, bool) or not 0 <= row < 2**63:
        raise InvalidInput(_NOT_OURS)
    return dict(body)


def _bound(made_for: tuple[str, ...], asked: tuple[str, ...], what: str) -> None:
    """Refuse a cursor made for another listing (agent, scope) than the one asked."""
    if made_for != asked:
        raise InvalidInput(f"cursor pages another agent's {what}: page this one from its first page")


def cursor_after(scope: Scope, mark: ListMark) -> str:
    """The cursor of the page that starts after the memory marked ``mark`` in ``scope``."""
    return _encoded({"v": 1, "agent": scope.agent, "scope": scope.tag, "key": mark.key.isoformat(), "row": mark.row})


def mark_of(cursor: str, scope: Scope) -> ListMark:
    """The mark ``cursor`` names, if huiyi made it for ``scope``; anything else is ``InvalidInput``."""
    body = _decoded(cursor, _FIELDS)
    _bound((body["agent"], body["scope"]), (scope.agent, scope.tag), "or scope's memories")
    return ListMark(body["key"], body["row"])


def job_cursor(agent: str, job: Job) -> str:
    """The cursor of the page of ``agent``'s jobs that starts after ``job``."""
    assert job.created_at is not None  # a stored job has its creation time
    return _encoded({"v": 1, "jobs": agent, "at": job.created_at.isoformat(), "id": job.id})


def job_mark(cursor: str, agent: str) -> JobMark:
    """The job ``cursor`` names (its creation time and id), if huiyi made it for ``agent``'s jobs."""
    body = _decoded(cursor, {"v", "jobs", "at", "id"})
    _bound((body["jobs"],), (agent,), "jobs")
    return body["at"], body["id"]


def report_cursor(agent: str, scope: str | None, report: RunReport) -> str:
    """The cursor of the page of ``agent``'s reports (of the scope tag ``scope``, or all) after ``report``."""
    return _encoded({"v": 1, "reports": agent, "scope": scope or "", "at": report.at.isoformat(), "id": report.id})


def report_mark(cursor: str, agent: str, scope: str | None) -> ReportMark:
    """The report ``cursor`` names (its time and id), if huiyi made it for this listing of reports."""
    body = _decoded(cursor, {"v", "reports", "scope", "at", "id"})
    _bound((body["reports"], body["scope"]), (agent, scope or ""), "or scope's reports")
    return body["at"], body["id"]


def entity_cursor(scope: Scope, row: int) -> str:
    """The cursor of the page of ``scope``'s entities after the one at row number ``row``."""
    return _encoded({"v": 1, "entities": scope.agent, "scope": scope.tag, "row": row})


def entity_mark(cursor: str, scope: Scope) -> int:
    """The row number ``cursor`` names, if huiyi made it for ``scope``'s entities."""
    body = _decoded(cursor, {"v", "entities", "scope", "row"})
    _bound((body["entities"], body["scope"]), (scope.agent, scope.tag), "or scope's entities")
    return int(body["row"])


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
        async for item in walk(
            lambda cursor: self.memories_page(
                agent=agent, person=person, space=space, kinds=kinds, limit=per_page, cursor=cursor
            )
        ):
            yield item

    async def reports_page(
        self, *, agent: str, scope: str | None = None, limit: int = 20, cursor: str | None = None
    ) -> ReportPage:
        """One page of the kept reports, newest first (as ``reports``); pass its ``next_cursor`` back as
        ``cursor`` for the next. Reports kept or erased between pages skip or repeat none."""
        if isinstance(limit, bool) or not isinstance(limit, int) or not 1 <= limit < MAX_LISTED:
            raise InvalidInput(f"limit is a whole number from 1 to {MAX_LISTED - 1}, not {limit!r}")
        after = report_mark(cursor, agent, scope) if cursor is not None else None
        found = await self._listed_reports(agent, scope, limit + 1, after)
        more = report_cursor(agent, scope, found[limit - 1]) if len(found) > limit else None
        return ReportPage(found[:limit], more)

    async def iter_reports(
        self, *, agent: str, scope: str | None = None, per_page: int = 20
    ) -> AsyncIterator[RunReport]:
        """Every kept report (of ``scope``, when given), newest first, read a page at a time by cursor."""
        async for report in walk(
            lambda cursor: self.reports_page(agent=agent, scope=scope, limit=per_page, cursor=cursor)
        ):
            yield report

    async def entities_page(
        self,
        *,
        agent: str,
        person: str | None = None,
        space: str | None = None,
        merged: bool = False,
        limit: int = 100,
        cursor: str | None = None,
    ) -> EntityPage:
        """One page of a scope's entities, in the order written (as ``entities``); pass its ``next_cursor``
        back as ``cursor`` for the next. Entities added or deleted between pages skip or repeat none."""
        if isinstance(limit, bool) or not isinstance(limit, int) or not 1 <= limit < MAX_LISTED:
            raise InvalidInput(f"limit is a whole number from 1 to {MAX_LISTED - 1}, not {limit!r}")
        scope = _scope_of(agent, person, space)
        after = entity_mark(cursor, scope) if cursor is not None else None
        found = await self._run(self.store.page_entities, [scope], merged, limit + 1, after)
        more = entity_cursor(scope, found[limit - 1][1]) if len(found) > limit else None
        return EntityPage([entity for entity, _ in found[:limit]], more)

    async def iter_entities(
        self,
        *,
        agent: str,
        person: str | None = None,
        space: str | None = None,
        merged: bool = False,
        per_page: int = 100,
    ) -> AsyncIterator[Entity]:
        """Every entity of one scope, in the order written, read a page at a time by cursor."""
        async for entity in walk(
            lambda cursor: self.entities_page(
                agent=agent, person=person, space=space, merged=merged, limit=per_page, cursor=cursor
            )
        ):
            yield entity
