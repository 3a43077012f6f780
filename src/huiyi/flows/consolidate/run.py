"""Flow 3, consolidate: tidy one scope's memories, periodically, in the background.

``consolidate`` runs five steps over one scope, in this order, each logging and reporting what it
changed, each working without an LLM (and better with one where it says so):

a. merge duplicate entities (``entities``: names and the person table first, then
   similarity ≥ 0.95, or 0.85–0.95 with the same type and agreeing neighbours; reversible);
b. supersede facts (``supersede``: single-valued predicates and negated preferences close
   the older fact with ``valid_to``; an LLM judges the pairs rules cannot);
c. merge accumulated descriptions (``describe``: repeated claims by rule, whole groups by
   an LLM; a new fact with every source, the old ones closed);
d. discover links (``links``: time-adjacent events of a space, events sharing entities);
e. strength and forgetting (``strength``: seed 000 increments, seed 004 decay, capacity).

``dry_run=True`` computes the same report and writes nothing. ``consolidate_due`` is the scheduler's
entry (seed 000 §八 记忆的清理 1: only scopes active since the last run, every N days): each run is a
durable job of kind ``consolidate`` keyed by scope and period, so two schedulers never run one scope
twice in a period, a crashed run is taken again when its lease ends, and the last run of a scope is
the newest done job.
"""

from __future__ import annotations

import asyncio
import logging
import os
import socket
import time
from collections.abc import Awaitable, Callable, Sequence
from datetime import UTC, date, datetime, timedelta, tzinfo

from huiyi.checks import utc_of
from huiyi.config.consolidate import ConsolidateConfig
from huiyi.flows.consolidate.describe import merge_descriptions
from huiyi.flows.consolidate.entities import merge_duplicate_entities
from huiyi.flows.consolidate.links import discover_links
from huiyi.flows.consolidate.report import Change, Report, Step
from huiyi.flows.consolidate.state import Since, State, when
from huiyi.flows.consolidate.strength import forget, retained_strength, update_strength
from huiyi.flows.consolidate.supersede import supersede_facts
from huiyi.model import Job, JobState, MemoryKind, Scope, ScopeKind
from huiyi.providers.embed import Embedder
from huiyi.providers.llm import LLM
from huiyi.store.base import Store, Writes

__all__ = [
    "CONSOLIDATE",
    "Change",
    "ConsolidateConfig",
    "Report",
    "consolidate",
    "consolidate_due",
    "due_scopes",
    "last_run",
    "retained_strength",
]

log = logging.getLogger(__name__)

CONSOLIDATE = "consolidate"  # the job kind of a scheduled consolidation
_JOB_SCAN = 100_000  # jobs read to find scopes and last runs (until the store can list scopes itself)


async def consolidate(
    store: Store,
    embedder: Embedder,
    scope: Scope,
    now: datetime,
    config: ConsolidateConfig,
    llm: LLM | None = None,
    dry_run: bool = False,
    *,
    since: datetime | None = None,
    zone: tzinfo = UTC,
) -> Report:
    """Consolidate one scope at ``now``; returns every change made (or, with ``dry_run``, to be made).

    ``since`` (the last run) bounds the work that only new memories need: the similarity search for
    duplicate entities and link discovery. None looks at everything. ``now`` and ``since`` are wall
    clock in ``zone`` (the configured timezone), as memories' times; ``created_at`` is UTC.
    """
    report = Report(scope=scope, now=now, dry_run=dry_run)
    state = State(store, embedder, scope, now, config, report, dry_run, zone)
    await asyncio.to_thread(state.load)

    async def step(name: Step, enabled: bool, run: Callable[[], Awaitable[object]]) -> None:
        if not enabled:
            return
        started = time.perf_counter()
        await run()
        await asyncio.to_thread(state.flush)
        report.timings_ms[name] = round((time.perf_counter() - started) * 1000, 3)

    last = None if since is None else Since(since, utc_of(since, zone))
    probes = None if last is None else _new_names(state, last)
    await step("entities", config.entities.enabled, lambda: asyncio.to_thread(merge_duplicate_entities, state, probes))
    await step("supersede", config.supersede.enabled, lambda: supersede_facts(state, llm))
    await step("describe", config.describe.enabled, lambda: merge_descriptions(state, llm))
    await step("links", config.links.enabled, lambda: asyncio.to_thread(discover_links, state, last))
    await step("strength", config.strength, lambda: asyncio.to_thread(update_strength, state))
    await step("forget", config.forget_enabled, lambda: asyncio.to_thread(forget, state))
    log.info("consolidated %s of %s%s: %s", scope.tag, scope.agent, " (dry run)" if dry_run else "", report.counts())
    return report


def _new_names(state: State, since: Since) -> list[str]:
    """Names the memories new since the last run mention: the entities worth a similarity search."""
    names: list[str] = []
    sources: set[str] = set()
    for item in state.items.values():
        if since.saw(item):
            continue
        names.extend(item.participants)
        sources.update(item.sources)
        if item.kind is MemoryKind.FACT:
            names.extend((item.fact.subject, item.fact.object))
    names.extend(e.name for e in state.entities.values() if sources.intersection(e.sources))
    return [n for n in dict.fromkeys(names) if n.strip()]


# the scheduler ---------------------------------------------------------------------------------------------
def last_run(store: Store, scope: Scope) -> datetime | None:
    """When ``scope`` was last consolidated by ``consolidate_due`` (its newest done job), if ever."""
    return _last_runs(store, scope.agent).get(scope.tag)


def _last_runs(store: Store, agent: str) -> dict[str, datetime]:
    """Scope tag -> the newest done consolidation of each of an agent's scopes."""
    runs: dict[str, datetime] = {}
    for job in store.list_jobs(agent, [JobState.DONE], _JOB_SCAN):
        tag, at = job.payload.get("scope"), job.payload.get("at")
        if job.kind == CONSOLIDATE and isinstance(tag, str) and isinstance(at, str):
            moment = datetime.fromisoformat(at)
            runs[tag] = max(moment, runs.get(tag, moment))
    return runs


def _known_scopes(store: Store, agents: Sequence[str] | None, config: ConsolidateConfig) -> list[Scope]:
    if agents is None:
        jobs = store.list_jobs(None, (), _JOB_SCAN)
        agents = list(dict.fromkeys(job.agent for job in jobs))
    else:
        jobs = [job for agent in agents for job in store.list_jobs(agent, (), _JOB_SCAN)]
    scopes: dict[tuple[str, str], Scope] = {}
    for agent in agents:
        if config.include_official:
            scopes[(agent, "official")] = Scope.official(agent)
        for person in store.list_persons(agent):
            scope = Scope.of_person(agent, person.id)
            scopes[(agent, scope.tag)] = scope
    for job in jobs:
        tag = job.payload.get("scope")
        if isinstance(tag, str) and tag and (config.include_official or tag != "official"):
            scopes[(job.agent, tag)] = Scope.from_tag(job.agent, tag)
    return list(scopes.values())


def due_scopes(
    store: Store,
    config: ConsolidateConfig,
    now: datetime,
    *,
    agents: Sequence[str] | None = None,
    scopes: Sequence[Scope] | None = None,
    zone: tzinfo = UTC,
) -> list[Scope]:
    """The scopes to consolidate now (seed 000 §八 记忆的清理 1 and 4), ``now`` wall clock in ``zone``.

    A scope is due when it was active (a memory newer than its last run, or than ``every_days`` ago
    when it never ran), or when it is a person inactive for ``inactive_days`` holding more than the
    ``minimum`` (so capacity can trim it). ``scopes`` names the candidates; else they are found from
    the persons and the extraction jobs of ``agents`` (all agents with jobs when None).
    """
    settings = config.forget
    due: list[Scope] = []
    runs: dict[str, dict[str, datetime]] = {}
    for scope in scopes if scopes is not None else _known_scopes(store, agents, config):
        newest = store.list_memories([scope], None, 1)
        if not newest:
            continue
        # when it happened or was said, as the store orders them: told now of a day gone (昨天…, 今天晴了 at
        # 03:00) is new work, though it happened before the last run
        latest = max(when(newest[0], zone), newest[0].said_at or datetime.min)
        if scope.agent not in runs:
            runs[scope.agent] = _last_runs(store, scope.agent)
        previous = runs[scope.agent].get(scope.tag)
        active = latest > (previous or now - timedelta(days=settings.every_days))
        trim = (
            scope.kind is ScopeKind.PERSON
            and now - latest > timedelta(days=settings.inactive_days)
            and store.count_memories(scopes=[scope]) > settings.minimum
        )
        if active or trim:
            due.append(scope)
    return due


def _claim(store: Store, worker: str, now: datetime, lease: float) -> Job | None:
    return store.claim_job(worker, now, lease, [CONSOLIDATE])


async def consolidate_due(
    store: Store,
    embedder: Embedder,
    config: ConsolidateConfig,
    now: datetime,
    llm: LLM | None = None,
    *,
    agents: Sequence[str] | None = None,
    scopes: Sequence[Scope] | None = None,
    worker: str | None = None,
    zone: tzinfo = UTC,
) -> list[Report]:
    """Consolidate every scope that is due (see ``due_scopes``), once per ``every_days`` period.

    Safe to call from several processes at once: each (scope, period) is one job, enqueued once and
    claimed by one worker. Returns the reports of the runs this call made. ``now`` is wall clock in
    ``zone``; the jobs' times are the store's clock (UTC), as every other job's.
    """
    worker = worker or f"{socket.gethostname()}:{os.getpid()}:consolidate"
    period = (now.date() - date(2000, 1, 1)).days // config.forget.every_days
    found = await asyncio.to_thread(due_scopes, store, config, now, agents=agents, scopes=scopes, zone=zone)
    for scope in found:
        job = Job(
            kind=CONSOLIDATE,
            agent=scope.agent,
            key=f"{CONSOLIDATE}:{scope.agent}:{scope.tag}:{period}",
            payload={"scope": scope.tag, "at": now.isoformat()},
            created_at=store.clock(),
        )
        await asyncio.to_thread(store.enqueue_job, job)
    reports: list[Report] = []
    while True:
        claimed = await asyncio.to_thread(_claim, store, worker, store.clock(), config.lease_seconds)
        if claimed is None:
            break
        job = claimed
        scope = Scope.from_tag(job.agent, str(job.payload["scope"]))
        try:
            since = await asyncio.to_thread(last_run, store, scope)
            report = await consolidate(store, embedder, scope, now, config, llm, since=since, zone=zone)
            await asyncio.to_thread(store.apply, Writes(), (job.id, worker))
            reports.append(report)
        except Exception as exc:  # one scope failing must not stop the others
            log.exception("consolidating %s of %s failed", scope.tag, scope.agent)
            retry = store.clock() + timedelta(hours=1) if job.attempts < 3 else None
            await asyncio.to_thread(store.fail_job, job.id, worker, f"{type(exc).__name__}: {exc}", retry)
    return reports
