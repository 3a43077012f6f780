"""The client's listings, read a page at a time by the server's cursors: memories, a search, jobs, reports
and entities, each as a list up to a limit, one page (``*_page``, its ``next_cursor`` passed back as
``cursor``) and an iterator over all (``iter_*``), so what is written or forgotten between pages skips or
repeats nothing.

Memories and a search name the next page in the answer's ``next_cursor``; jobs, reports and entities,
answered as bare lists, in the ``Huiyi-Next-Cursor`` header. A server older than cursors names none: memories
and a search then go on by offset, as it paged; a page of jobs, reports or entities is then the last (such
a server answered every entity at once).
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from datetime import datetime
from typing import Any, TypeVar

from pydantic import BaseModel

from huiyi.client.models import EntityPage, JobPage, MemoryPage, Report, ReportPage, SearchPage
from huiyi.client.wire import Wire, iso
from huiyi.errors import InvalidInput
from huiyi.model import Entity, Job, JobState, MemoryItem, MemoryKind

__all__ = ["Listings"]

# the most one answer lists, by the server's limits
PAGE = 500  # memories, or matches of a search
JOBS_PAGE = 1000
REPORTS_PAGE = 200
MAX_LISTED = 1_000_000  # Memory.memories' largest limit

T = TypeVar("T")
Read = Callable[[int, str | None], Awaitable[tuple[list[T], str | None]]]  # (size, cursor) -> (items, next cursor)


# the shapes of answers that are not one shared model: checked like the others, so a wrong answer is a RemoteError
class _Page(BaseModel):
    items: list[MemoryItem]
    next_offset: int | None = None
    next_cursor: str | None = None  # a server older than cursors sends none


class _Found(BaseModel):
    items: list[MemoryItem]
    total: int
    next_cursor: str | None = None  # a server older than cursors sends none (it pages by offset)


def kinds_of(kinds: Sequence[MemoryKind | str] | None) -> list[str] | None:
    try:  # Memory's InvalidInput, not the enum's bare ValueError
        return None if kinds is None else [MemoryKind(kind).value for kind in kinds]
    except ValueError as exc:
        raise InvalidInput(f"{exc}; the kinds are {', '.join(k.value for k in MemoryKind)}") from exc


def _states(states: Sequence[JobState | str]) -> list[str]:
    try:  # "pending" alone would be taken for its letters
        return [JobState(state).value for state in ([states] if isinstance(states, str) else states)]
    except ValueError as exc:
        raise InvalidInput(f"{exc}; the states are {', '.join(s.value for s in JobState)}") from exc


def _following(cursor: str | None, items: list[Any], following: str | None) -> str | None:
    """The next page's cursor, unless there is none to go on to: a page that brought nothing or named itself
    again (a wrong server must not loop forever)."""
    return None if not items or following == cursor else following


async def _walk(read: Read[T], per_page: int) -> AsyncIterator[T]:
    cursor: str | None = None
    while True:
        items, following = await read(per_page, cursor)
        for item in items:
            yield item
        if (cursor := _following(cursor, items, following)) is None:
            return


async def _gather(read: Read[T], limit: int, most: int) -> list[T]:
    """Up to ``limit`` items, in pages of at most ``most`` (the server's limit)."""
    found: list[T] = []
    cursor: str | None = None
    while True:
        items, following = await read(min(most, limit - len(found)), cursor)
        found.extend(items)
        if len(found) >= limit or (cursor := _following(cursor, items, following)) is None:
            return found[:limit]


class Listings(Wire):
    """What the server lists, a page at a time."""

    # memories ----------------------------------------------------------------------------------
    async def memories(
        self,
        *,
        agent: str,
        person: str | None = None,
        space: str | None = None,
        kinds: Sequence[MemoryKind | str] | None = None,
        limit: int = 100,
        offset: int = 0,
    ) -> list[MemoryItem]:
        """One scope's memories, newest first, up to ``limit``: pages that follow the server's cursor."""
        # checked as Memory checks them: a limit of 0 asked the server nothing and answered [] as if empty
        whole = not any(isinstance(n, bool) or not isinstance(n, int) for n in (limit, offset))
        if not whole or not 1 <= limit <= MAX_LISTED or offset < 0:
            raise InvalidInput(f"limit is a whole number from 1 to {MAX_LISTED} and offset one from 0")
        found: list[MemoryItem] = []
        at: dict[str, Any] | None = {"offset": offset}
        while at is not None and len(found) < limit:
            page = await self._page(agent, person, space, kinds, min(PAGE, limit - len(found)), at)
            found.extend(page.items)
            at = self._after(page, at, offset + len(found))
        return found

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
        """One page of a scope's memories, newest first; its ``next_cursor``, passed back, asks for the next."""
        page = await self._page(agent, person, space, kinds, limit, {"cursor": cursor})
        return MemoryPage(items=page.items, next_cursor=page.next_cursor)

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
        at: dict[str, Any] | None = {"offset": 0}
        read = 0
        while at is not None:
            page = await self._page(agent, person, space, kinds, per_page, at)
            for item in page.items:
                yield item
            read += len(page.items)
            at = self._after(page, at, read)

    async def _page(self, agent: str, person: str | None, space: str | None, kinds: Any, limit: int, at: Any) -> _Page:
        params = {"agent": agent, "person": person, "space": space, "kind": kinds_of(kinds), "limit": limit, **at}
        return await self._model(_Page, "GET", "/v1/memories", params=params)

    @staticmethod
    def _after(page: _Page, at: dict[str, Any], offset: int) -> dict[str, Any] | None:
        """Where the page after ``page`` (read at ``at``) starts, or None after the last: by its cursor, or
        by ``offset`` from a server older than cursors."""
        if page.next_cursor is not None:
            following = _following(at.get("cursor"), page.items, page.next_cursor)
            return None if following is None else {"cursor": following}
        if not page.items or "cursor" in at or page.next_offset is None:
            return None
        return {"offset": offset}

    # a search ------------------------------------------------------------------------------------
    async def search_page(
        self,
        query: str = "",
        *,
        agent: str,
        person: str | None = None,
        space: str | None = None,
        kinds: Sequence[MemoryKind | str] | None = None,
        since: datetime | None = None,
        until: datetime | None = None,
        valid: bool | None = None,
        min_strength: float | None = None,
        source: str = "",
        limit: int = 50,
        cursor: str | None = None,
    ) -> SearchPage:
        """One page of a scope's memories, newest first, that hold every word of ``query`` (in their text,
        keywords or place) and pass the filters: ``valid`` facts not superseded, ``source`` a message id.
        Its ``next_cursor``, passed back as ``cursor``, asks for the next."""
        filters = self._filters(query, agent, person, space, kinds, since, until, valid, min_strength, source)
        found = await self._search(filters, limit, {"cursor": cursor})
        return SearchPage(items=found.items, total=found.total, next_cursor=found.next_cursor)

    async def iter_search(
        self,
        query: str = "",
        *,
        agent: str,
        person: str | None = None,
        space: str | None = None,
        kinds: Sequence[MemoryKind | str] | None = None,
        since: datetime | None = None,
        until: datetime | None = None,
        valid: bool | None = None,
        min_strength: float | None = None,
        source: str = "",
        per_page: int = 50,
    ) -> AsyncIterator[MemoryItem]:
        """Every memory a search (as ``search_page``) matches, newest first, read a page at a time by cursor."""
        filters = self._filters(query, agent, person, space, kinds, since, until, valid, min_strength, source)
        at: dict[str, Any] = {}
        read = 0
        while True:
            found = await self._search(filters, per_page, at)
            for item in found.items:
                yield item
            read += len(found.items)
            if "next_cursor" in found.model_fields_set:
                # an empty page may name a next: the server's scan matched none of its batch, and goes on
                if found.next_cursor is None or found.next_cursor == at.get("cursor"):
                    return
                at = {"cursor": found.next_cursor}
            elif found.items and read < found.total:  # a server older than cursors: by offset among its matches
                at = {"offset": read}
            else:
                return

    @staticmethod
    def _filters(
        query: str,
        agent: str,
        person: str | None,
        space: str | None,
        kinds: Sequence[MemoryKind | str] | None,
        since: datetime | None,
        until: datetime | None,
        valid: bool | None,
        min_strength: float | None,
        source: str,
    ) -> dict[str, Any]:
        return {
            "agent": agent,
            "person": person,
            "space": space,
            "q": query or None,
            "kind": kinds_of(kinds),
            "since": iso(since),
            "until": iso(until),
            "valid": valid,
            "min_strength": min_strength,
            "source": source or None,
        }

    async def _search(self, filters: dict[str, Any], limit: int, at: dict[str, Any]) -> _Found:
        return await self._model(_Found, "GET", "/v1/search", params={**filters, "limit": limit, **at})

    # jobs ----------------------------------------------------------------------------------------
    async def jobs(self, *, agent: str, states: Sequence[JobState | str] = (), limit: int = 100) -> list[Job]:
        """An agent's background jobs, oldest first, of the given states (or of any), up to ``limit``."""
        return await _gather(self._jobs_reader(agent, states), limit, JOBS_PAGE)

    async def jobs_page(
        self, *, agent: str, states: Sequence[JobState | str] = (), limit: int = 100, cursor: str | None = None
    ) -> JobPage:
        """One page of an agent's jobs, oldest first; its ``next_cursor``, passed back, asks for the next."""
        items, following = await self._jobs_reader(agent, states)(limit, cursor)
        return JobPage(items=items, next_cursor=following)

    async def iter_jobs(
        self, *, agent: str, states: Sequence[JobState | str] = (), per_page: int = 100
    ) -> AsyncIterator[Job]:
        """Every job of an agent (of the given states), oldest first, read a page at a time by cursor."""
        async for job in _walk(self._jobs_reader(agent, states), per_page):
            yield job

    def _jobs_reader(self, agent: str, states: Sequence[JobState | str]) -> Read[Job]:
        chosen = _states(states)

        async def read(limit: int, cursor: str | None) -> tuple[list[Job], str | None]:
            params = {"agent": agent, "state": chosen or None, "limit": limit, "cursor": cursor}
            return await self._listing(Job, "/v1/jobs", params)

        return read

    # reports -------------------------------------------------------------------------------------
    async def reports(self, *, agent: str, scope: str | None = None, limit: int = 20) -> list[Report]:
        """The last reports of consolidations (dry runs too) and summaries, newest first, up to ``limit``;
        ``scope`` a tag (official, person:<id>, space:<id>) for one scope's only."""
        return await _gather(self._reports_reader(agent, scope), limit, REPORTS_PAGE)

    async def reports_page(
        self, *, agent: str, scope: str | None = None, limit: int = 20, cursor: str | None = None
    ) -> ReportPage:
        """One page of the kept reports, newest first; its ``next_cursor``, passed back, asks for the next."""
        items, following = await self._reports_reader(agent, scope)(limit, cursor)
        return ReportPage(items=items, next_cursor=following)

    async def iter_reports(self, *, agent: str, scope: str | None = None, per_page: int = 20) -> AsyncIterator[Report]:
        """Every kept report (of ``scope``), newest first, read a page at a time by cursor."""
        async for report in _walk(self._reports_reader(agent, scope), per_page):
            yield report

    def _reports_reader(self, agent: str, scope: str | None) -> Read[Report]:
        async def read(limit: int, cursor: str | None) -> tuple[list[Report], str | None]:
            params = {"agent": agent, "scope": scope, "limit": limit, "cursor": cursor}
            return await self._listing(Report, "/v1/reports", params)

        return read

    # entities ------------------------------------------------------------------------------------
    async def entities(
        self, *, agent: str, person: str | None = None, space: str | None = None, merged: bool = False
    ) -> list[Entity]:
        """Every entity of one scope, in the order written; ``merged`` adds merged-away ones."""
        params = {"agent": agent, "person": person, "space": space, "merged": merged}
        return await self._list(Entity, "GET", "/v1/entities", params=params)

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
        """One page of a scope's entities, in the order written; its ``next_cursor``, passed back, asks for
        the next."""
        items, following = await self._entities_reader(agent, person, space, merged)(limit, cursor)
        return EntityPage(items=items, next_cursor=following)

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
        async for entity in _walk(self._entities_reader(agent, person, space, merged), per_page):
            yield entity

    def _entities_reader(self, agent: str, person: str | None, space: str | None, merged: bool) -> Read[Entity]:
        async def read(limit: int, cursor: str | None) -> tuple[list[Entity], str | None]:
            params = {"agent": agent, "person": person, "space": space, "merged": merged}
            return await self._listing(Entity, "/v1/entities", {**params, "limit": limit, "cursor": cursor})

        return read
