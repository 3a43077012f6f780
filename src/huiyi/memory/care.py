"""Keeping memory in shape: consolidation, summaries, the background worker, and erasure."""

from __future__ import annotations

import contextlib
import functools
import logging
import operator
from collections import Counter
from collections.abc import Callable, Sequence
from datetime import date, datetime, time, timedelta
from typing import TYPE_CHECKING, Literal

from huiyi.checks import check_scope, in_years
from huiyi.deferred import deferred
from huiyi.errors import InvalidInput
from huiyi.flows import ingest
from huiyi.flows.extract.fold import refolds
from huiyi.memory.common import _agent, _id_list, _scope_of
from huiyi.memory.pages import Pages
from huiyi.model import MemoryItem, Scope
from huiyi.store.erasure import Erasure
from huiyi.text.lookalike import name_key

if TYPE_CHECKING:
    import asyncio

    from huiyi.flows.consolidate.report import Report
else:
    asyncio = deferred("asyncio", globals())  # loaded when a memory opens, not at import (issue 15)

log = logging.getLogger(__name__)

Purge = Literal["behind", "wait"]  # an erasure's purge of the files: behind the call, or waited for


class Care(Pages):
    """Consolidation, summaries and forgetting for good."""

    async def consolidate(
        self,
        *,
        agent: str,
        person: str | None = None,
        space: str | None = None,
        dry_run: bool = False,
        now: datetime | None = None,
    ) -> Report:
        """Merge duplicate entities, supersede contradicted facts, merge descriptions, link related events,
        update strength and forget what should go, for one scope; ``dry_run`` reports without writing."""
        from huiyi.flows.consolidate.run import consolidate, last_run  # at first use: issue 15

        scope = _scope_of(agent, person, space)
        now = self.wall(now)  # an aware moment (UTC) as the store keeps times, as recall reads it
        erasures = await self._run(self.store.erasures)  # before the run reads: its report then quotes none
        since = await self._run(last_run, self.store, scope)
        report = await consolidate(
            self.store,
            self.embedder,
            scope,
            now or self.now(),
            self.config.consolidate,
            self._llm(),
            dry_run,
            since=since,
            zone=self._tz,
        )
        await self._keep_consolidation(report, erasures)
        return report

    async def _keep_consolidation(self, report: Report, erasures: int) -> None:
        body = report.model_dump(mode="json", exclude={"scope"})
        counts = report.counts()
        await self._keep_report("consolidate", report.scope, report.now, counts, body, report.dry_run, erasures)

    async def _keep_summaries(self, scope: Scope, day: date, made: Sequence[MemoryItem], erasures: int) -> None:
        counts = dict(Counter(str(item.summary.kind or "summary") for item in made))
        try:  # as stored: the store stamped their created_at
            found = await self._run(self.store.get_memories, scope.agent, [item.id for item in made])
            stored = {item.id: item for item in found}
        except Exception:  # the report is the run's least part: kept as made
            log.exception("reading the summaries of %s back failed", scope.tag)
            stored = {}
        kept = [stored.get(item.id, item) for item in made]
        body = {"day": day.isoformat(), "summaries": [item.model_dump(mode="json") for item in kept]}
        await self._keep_report("summarize", scope, self.now(), counts, body, erasures=erasures)

    async def summarize(
        self, day: date, *, agent: str, person: str | None = None, space: str | None = None
    ) -> list[MemoryItem]:
        """Write one day's summaries of a scope (daily, global, portraits, profiles, diary); they are memories.
        A datetime ``day`` is the day it falls on in the configured timezone."""
        from huiyi.flows.summarize.run import summarize_day

        if isinstance(day, datetime):  # a moment: the configured zone's day it falls on, not its UTC date
            day = (self.wall(day) or day).date()
        elif not isinstance(day, date):
            raise InvalidInput(f"day is a date, not {type(day).__name__}")
        try:  # the day's window reaches days around it: year 1's first days left the calendar (a 500)
            in_years(datetime.combine(day, time()))
        except ValueError as exc:
            raise InvalidInput(f"day {day.isoformat()}: {exc}") from None
        scope = _scope_of(agent, person, space)
        erasures = await self._run(self.store.erasures)  # before the day is read: its report then quotes none
        made = await summarize_day(
            self.store,
            self.embedder,
            scope,
            day,
            self.now(),
            self.config,
            self._llm(),
            persona=self._persona(agent),
        )
        await self._keep_summaries(scope, day, made, erasures)
        return made

    async def maintain(self, *, catch_up: bool = True) -> tuple[list[Report], list[MemoryItem]]:
        """Consolidate every due scope and summarise every day that has messages and no summary yet; then
        delete the done jobs and reports past their time (``bookkeeping``).

        The background worker runs it with ``catch_up=False``: only the last ``summary.lookback_days``.
        """
        from huiyi.flows.consolidate.run import consolidate_due
        from huiyi.flows.summarize.run import summarize_due

        erasures = await self._run(self.store.erasures)  # before the runs read: their reports then quote none
        reports = await consolidate_due(
            self.store, self.embedder, self.config.consolidate, self.now(), self._llm(), zone=self._tz
        )
        for report in reports:
            if report.changes or report.errors:  # a quiet scheduled run is not worth a report
                await self._keep_consolidation(report, erasures)
        summaries = await summarize_due(
            self.store, self.embedder, self.config, self.now(), self._llm(), persona=self._persona(), catch_up=catch_up
        )
        await self._write(self.store.tidy_keywords)  # keyword search costs what its segments hold
        await self._write(self._prune_bookkeeping)
        return reports, summaries

    def _prune_bookkeeping(self) -> None:
        """Done jobs and reports past their time go (``bookkeeping``), so the store grows with memories only."""
        keep = self.config.bookkeeping
        jobs = reports = 0
        if keep.jobs_days:  # jobs are stamped by the store's clock (UTC), reports by the wall clock
            jobs = self.store.prune_jobs(self.written_now() - timedelta(days=keep.jobs_days))
        if keep.reports_days:
            reports = self.store.prune_reports(self.now() - timedelta(days=keep.reports_days), keep.reports_keep)
        if jobs or reports:
            log.info("maintenance deleted %d done job(s) and %d report(s) past their time", jobs, reports)

    def _look_for_leftovers(self, at_once: bool = False) -> None:
        # the worker takes them (a dead one's once its lease ends); not for a close's last drain (helper)
        if self._jobs_left and self._leftovers.done() and not self._closing.is_set():
            self._jobs_left = False
            self._wake_worker()
        super()._look_for_leftovers(at_once)

    def _wake_worker(self) -> None:
        if not self.config.worker.enabled or self._closed:  # a plan behind an add may land as it closes
            return
        if self._worker_task is None or self._worker_task.done():
            self._worker_stop = asyncio.Event()
            self._worker_task = asyncio.get_running_loop().create_task(self._background(self._worker_stop))

    async def _background(self, stop: asyncio.Event) -> None:
        """Extraction jobs as they come, and maintenance (consolidation, summaries) every so often."""
        minutes = self.config.worker.maintenance_minutes
        self.worker.before_job = self._adds_paused
        if minutes <= 0:
            await self.worker.run(stop)
            return
        extraction = asyncio.create_task(self.worker.run(stop))
        while not stop.is_set():
            await self._adds_paused()
            if stop.is_set():
                break
            try:
                await self.maintain(catch_up=False)
            except Exception:  # a failed run is retried at the next period; extraction goes on
                log.exception("maintenance failed")
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(stop.wait(), timeout=minutes * 60)
        await extraction

    async def forget_person(self, person: str, *, agent: str, purge: Purge = "behind") -> Erasure:
        """Forget a person for good (GDPR-style erasure), in one transaction, and purge the store's files.

        Goes: every message of their private chat and every group message they said; memories of their
        scope and memories made from those messages (chunks, events, summaries); facts about them and
        their entity with its aliases; links, merges and jobs that name any of it; their working memory,
        record and core blocks. Other people's messages whose chunks held their turns are indexed again behind
        the call (found by keyword until then; ``indexed()`` waits for them), and those whose events or facts
        held them are extracted again (by the worker; ``run_jobs`` when it is off).

        None of it is recalled once this returns. The purge of the files (no byte of it left in them)
        runs behind the call, in short steps, unless ``purge="wait"``; ``purged()`` waits for it later.
        ``Erasure.purged`` says whether it had run when the call returned. An id ``add`` would refuse (``"u2 "``)
        with nothing stored under it raises ``InvalidInput`` rather than report zeros; one stored before ids
        were checked as now is erased as any other.
        """
        _check_purge(purge)
        try:  # a valid person id, or one stored before ids had to print alike: it must be erasable too
            check_scope(agent, "person", person, stored=True)
        except ValueError as exc:
            raise InvalidInput(str(exc)) from exc
        refused = _refused_id(agent, person)  # one add refuses: an error, unless something was stored under it
        known = await self.get_person(person, agent=agent)
        # a member called like the agent speaks as its namesake: the agent's own lines and facts stay
        said = [person, *([known.name] if known and known.name else []), *(known.aliases if known else [])]
        names = sorted({ingest.user_speaker(name, agent) for name in said})
        speaker = ingest.user_speaker(person, agent)
        erase = functools.partial(self.store.erase, agent, (), person=person, refold=refolds(agent, self.config))
        erasures = [functools.partial(erase, names=names, window=self._window(), speaker=speaker)]
        if person != agent and name_key(person) == name_key(agent):
            # their lines from before names that only print as the agent's were marked went by the name as sent,
            # which is neither the agent's (its lines go by its id) nor, unmarked, any member's namesake
            erasures.append(functools.partial(erase, window=self._window()))
        await self._drained()  # a chunk indexed after the erasure would bring the words back
        done, queued = await self._run(self._erased, agent, erasures)
        if queued:
            self._wake_worker()
        if refused and not any(done.counts().values()):
            raise InvalidInput(f"{refused}; nothing was stored under it, so nothing was forgotten")
        done.purged = await self._purge_done(purge)
        log.info("forgot person %r of agent %r: %s", person, agent, done)
        return done

    def _erased(self, agent: str, erasures: Sequence[Callable[[], Erasure]]) -> tuple[Erasure, bool]:
        """The erasures, then what they leave to do, on one thread: a caller that gave up on one (wait_for)
        left the fold watch with the erased chat's window, and no fold was planned till its seqs passed it.
        Also whether the erasures queued folds again (``Erasure.refold``), for the worker to be woken."""
        try:
            done = functools.reduce(operator.add, [erase() for erase in erasures])
        finally:
            self._fold_watch.forget(agent)  # seqs freed at a space's end are given again
        self._look_again()  # other people's messages whose chunks held the erased turns, behind the call
        return done, bool(done.refold)

    async def _purge_done(self, purge: Purge) -> bool:
        """Whether the files hold none of what went: waited for with ``purge="wait"``, else as it is now."""
        if purge == "wait":
            return await self._run(self.store.purged)
        return self.store.purged(0)

    async def purged(self, timeout: float | None = None) -> bool:
        """Wait until the store's files hold no byte of what this instance's erasures removed (their purge runs
        behind them): True then; False after ``timeout`` seconds (None: no bound) or if the purge failed (it is
        tried again, and by the store's next open if this process ends first)."""
        if timeout is not None and timeout < 0:
            raise InvalidInput(f"timeout is seconds from now, not {timeout}")
        return await self._run(self.store.purged, timeout)

    def _window(self) -> int:
        """How many turns after a message its neighbours' chunks hold or embed it."""
        return max(0, self.config.chunk.turns - 1) + max(0, self.config.chunk.context_turns)

    async def forget_messages(self, ids: Sequence[str], *, agent: str, purge: Purge = "behind") -> Erasure:
        """Forget messages and everything made from them, and purge the store's files (behind the call unless
        ``purge="wait"``, as ``forget_person``)."""
        if not agent:
            raise InvalidInput("agent is required")
        agent = _agent(agent)
        _check_purge(purge)
        erase = functools.partial(
            self.store.erase, agent, _id_list(ids), window=self._window(), refold=refolds(agent, self.config)
        )
        await self._drained()  # a chunk indexed after the erasure would bring the words back
        done, queued = await self._run(self._erased, agent, [erase])
        if queued:
            self._wake_worker()
        done.purged = await self._purge_done(purge)
        return done

    async def compact(self) -> None:
        """Rewrite the store's files so no freed byte of an erased row is left and the space goes back, at a
        time the operator picks: the erasures' purges finish, then PostgreSQL's ``VACUUM FULL`` locks each
        table (reads and writes wait) while it is copied, SQLite's ``VACUUM`` the whole file."""
        await self._run(self.store.compact)


def _refused_id(agent: str, person: str) -> str:
    """Why ``add`` would refuse this person id today ("" when it would not)."""
    try:
        check_scope(agent, "person", person)
    except ValueError as exc:
        return str(exc)
    return ""


def _check_purge(purge: str) -> None:
    if purge not in ("behind", "wait"):
        raise InvalidInput(f"purge is 'behind' (files purged behind the call, the default) or 'wait', not {purge!r}")
