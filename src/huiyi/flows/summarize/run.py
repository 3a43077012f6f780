"""Summaries: MemoryBank's daily → global summary and daily → global personality (seed 003), per-member
profiles of group chats, per group and global (seed 002 §3.11), and the agent's first-person diary
(seed 002 §3.16).

One call summarises one scope (a private chat's person scope, or a group's space scope) for one day:

* private chat → daily, global, daily personality, global personality, diary (all in the person scope);
* group chat → daily, global, diary and one profile per member who spoke (in the space scope), and
  each such member's global profile (in their person scope).

A day's material is its messages (by message time; days are local calendar days of the naive times
the store holds) and the events and facts *told* that day: an event belongs to the day of its earliest
source message, whatever time it is about (下周三要考驾照 is told today). Messages no stored event
cites (still in working memory, say) are read by the rule extractor into transient events, so a day
is never summarised from half its talk.

Summaries are memories of kind ``summary``: recallable, ``data`` a :class:`~huiyi.model.SummaryData`,
``sources`` = the events, facts or messages (dailies for globals) they summarise, and a stable id per
(scope, kind, period) — per (scope, kind) for the rolling global ones, per (scope, kind, person) for
profiles — so running a day again replaces what it wrote and never duplicates it.

Without an LLM every text is extractive (:mod:`huiyi.flows.summarize.rules`); with one, each text is
written by the LLM from the same material (:mod:`huiyi.flows.summarize.llm`), and nothing is written
unless every call of the day succeeded.

**The privacy rule of global profiles.** A global profile lives in the person's own scope, which the
person's private chat and every group they are in can recall. Only *self-statements* may cross into
it: facts about the person every source message of which the person said themself. What others said
about them in a group stays in that group's profile (attributed: 许仙说苏霓是老师). The LLM writing a
global profile is shown nothing else: the member's own messages and self-statements only.
"""

from __future__ import annotations

import asyncio
import hashlib
import logging
import os
import socket
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import date, datetime, timedelta

from huiyi.config import Config
from huiyi.config.summarize import SummaryConfig
from huiyi.errors import InvalidInput, ProviderError
from huiyi.flows.extract.fold import FOLD
from huiyi.flows.ingest import terms_of
from huiyi.flows.summarize import rules
from huiyi.flows.summarize.llm import SummaryError, SummaryWriter
from huiyi.flows.summarize.material import (
    PAGE,
    DayMaterial,
    Draft,
    day_end,
    day_start,
    gather,
    messages_between,
    space_of,
)
from huiyi.flows.summarize.profiles import global_profiles, group_profiles
from huiyi.model import Job, JobState, MemoryItem, MemoryKind, Scope, ScopeKind, SummaryKind
from huiyi.providers.embed import Embedder
from huiyi.providers.llm import LLM
from huiyi.store.base import Store, Writes

__all__ = [
    "SummaryConfig",
    "SummaryError",
    "due_days",
    "gather",
    "known_scopes",
    "summarize_day",
    "summarize_due",
    "summary_id",
]

log = logging.getLogger(__name__)

SUMMARY = "summary"  # the job kind of a day whose summaries could not be saved on its last scheduled run


def section(config: SummaryConfig | Config) -> SummaryConfig:
    if isinstance(config, SummaryConfig):
        return config
    found = getattr(config, "summary", None)
    return found if isinstance(found, SummaryConfig) else SummaryConfig()


def summary_id(scope: Scope, kind: SummaryKind, key: str = "") -> str:
    """The stable id of a summary: per scope, kind and period (or person, for profiles)."""
    raw = f"{scope.agent}\x1f{scope.tag}\x1f{kind.value}\x1f{key}"
    return f"sum_{hashlib.blake2b(raw.encode(), digest_size=10).hexdigest()}"


# ---------------------------------------------------------------------------------------- planning


@dataclass
class _Plan:
    material: DayMaterial
    daily: Draft | None = None
    dailies: list[MemoryItem] = field(default_factory=list)  # stored dailies of the scope but this day's
    overall: Draft | None = None
    portrait: Draft | None = None
    portraits: list[MemoryItem] = field(default_factory=list)
    overall_portrait: Draft | None = None
    diary: Draft | None = None
    profiles: list[tuple[str, Draft]] = field(default_factory=list)
    global_profiles: list[tuple[str, Draft]] = field(default_factory=list)
    previous: dict[str, MemoryItem] = field(default_factory=dict)  # summary id -> the stored one
    deletes: list[str] = field(default_factory=list)

    def drafts(self) -> list[Draft]:
        single = [self.daily, self.overall, self.portrait, self.overall_portrait, self.diary]
        return [d for d in single if d] + [d for _, d in self.profiles] + [d for _, d in self.global_profiles]


def _summaries(store: Store, scope: Scope, kind: SummaryKind, cfg: SummaryConfig) -> list[MemoryItem]:
    found: list[MemoryItem] = []
    offset = 0
    while len(found) < cfg.global_days + 1:
        page = store.list_memories([scope], [MemoryKind.SUMMARY], PAGE, offset)
        found.extend(item for item in page if item.summary.kind is kind)
        if len(page) < PAGE:
            break
        offset += PAGE
    return found


def _as_item(draft: Draft, previous: MemoryItem | None = None) -> MemoryItem:
    """The memory a draft becomes; a replaced summary's strength and access history carry over."""
    item = MemoryItem(
        id=summary_id(draft.scope, draft.kind, draft.key),
        scope=draft.scope,
        kind=MemoryKind.SUMMARY,
        text=draft.text,
        time=draft.time,
        participants=draft.participants,
        keywords=draft.keywords,
        importance=min(1.0, max(0.0, draft.importance)),
        sources=draft.sources,
        data=draft.summary.into(),
    )
    if previous is not None:
        item.strength = previous.strength
        item.access_count = previous.access_count
        item.last_access = previous.last_access
        item.feedback = previous.feedback
    return item


def _plan(store: Store, m: DayMaterial, cfg: SummaryConfig) -> _Plan:
    plan = _Plan(m)
    plan.daily = rules.daily(m, cfg)
    if plan.daily is None:
        return plan
    scope, lang = m.scope, m.language
    ids = [summary_id(scope, k) for k in (SummaryKind.GLOBAL, SummaryKind.GLOBAL_PERSONALITY)]
    members = m.members() if m.person is None else []
    ids += [summary_id(scope, SummaryKind.PROFILE, p) for p in members]
    ids += [summary_id(Scope.of_person(m.agent, p), SummaryKind.PROFILE, p) for p in members]
    plan.previous = {item.id: item for item in store.get_memories(m.agent, ids)}
    daily = _as_item(plan.daily)
    plan.dailies = [d for d in _summaries(store, scope, SummaryKind.DAILY, cfg) if d.id != daily.id]
    plan.overall = rules.global_summary([*plan.dailies, daily], scope, lang, cfg)
    if cfg.personality and m.person is not None:
        plan.portrait = rules.daily_personality(m, cfg)
        portraits = _summaries(store, scope, SummaryKind.DAILY_PERSONALITY, cfg)
        own = summary_id(scope, SummaryKind.DAILY_PERSONALITY, m.period)
        plan.portraits = [p for p in portraits if p.id != own]
        mine = [_as_item(plan.portrait)] if plan.portrait else []
        plan.overall_portrait = rules.global_personality([*plan.portraits, *mine], scope, m.name(m.person), lang, cfg)
        if plan.portrait is None:  # a re-run that finds nothing to portray takes back what an earlier run wrote
            plan.deletes.append(own)
    if cfg.diary:
        plan.diary = rules.diary(m, cfg)
    if cfg.profiles and m.person is None:
        stored = {p: plan.previous.get(summary_id(scope, SummaryKind.PROFILE, p)) for p in members}
        plan.profiles = group_profiles(m, stored, cfg)
        person_stored = {
            p: plan.previous.get(summary_id(Scope.of_person(m.agent, p), SummaryKind.PROFILE, p)) for p in members
        }
        for member, draft in global_profiles(m, person_stored, cfg):
            if draft is None:
                plan.deletes.append(summary_id(Scope.of_person(m.agent, member), SummaryKind.PROFILE, member))
            else:
                plan.global_profiles.append((member, draft))
    return plan


# ---------------------------------------------------------------------------------------- the LLM path


def _period(item: MemoryItem | None) -> str:
    return item.summary.period if item is not None else ""


def _previous(stored: MemoryItem | None, period: str, *, from_scratch: bool) -> tuple[str, str]:
    """(text, period) a rolling summary builds on when ``period`` is folded in: the stored one when it
    ends before ``period``, else the one it was built on; failing both, nothing (``from_scratch``) or
    the stored one again (its author is told to merge, not repeat)."""
    if stored is None:
        return "", ""
    if _period(stored) < period:
        return stored.text, _period(stored)
    base = stored.summary.base
    if isinstance(base, dict) and str(base.get("period", "")) < period and base.get("text"):
        return str(base["text"]), str(base["period"])
    return ("", "") if from_scratch else (stored.text, _period(stored))


def _set_base(draft: Draft, text: str, period: str) -> None:
    if period:
        draft.summary = draft.summary.model_copy(update={"base": {"period": period, "text": text}})


async def _reword(plan: _Plan, writer: SummaryWriter, cfg: SummaryConfig) -> None:
    """Every draft's text written by the LLM, in a fixed order; the first failure raises."""
    m = plan.material
    lang, agent = m.language, m.name(m.agent)
    if plan.daily is not None:
        plan.daily.text = await writer.daily(m)
    if plan.overall is not None and plan.daily is not None:
        stored = plan.previous.get(summary_id(m.scope, SummaryKind.GLOBAL))
        text, since = _previous(stored, m.period, from_scratch=True)
        dailies = sorted([*plan.dailies, _as_item(plan.daily)], key=_period)
        feed = [(_period(d), d.text) for d in dailies if _period(d) > since][-cfg.global_days :]
        plan.overall.text = await writer.global_summary(lang, agent, text, feed)
        _set_base(plan.overall, text, since)
    if plan.portrait is not None:
        plan.portrait.text = await writer.daily_personality(m)
    if plan.overall_portrait is not None and m.person is not None:
        stored = plan.previous.get(summary_id(m.scope, SummaryKind.GLOBAL_PERSONALITY))
        text, since = _previous(stored, m.period, from_scratch=True)
        mine = [_as_item(plan.portrait)] if plan.portrait else []
        portraits = sorted([*plan.portraits, *mine], key=_period)
        feed = [(_period(p), p.text) for p in portraits if _period(p) > since][-cfg.global_days :]
        plan.overall_portrait.text = await writer.global_personality(lang, agent, m.name(m.person), text, feed)
        _set_base(plan.overall_portrait, text, since)
    if plan.profiles:
        bases = {
            p: _previous(plan.previous.get(summary_id(m.scope, SummaryKind.PROFILE, p)), m.period, from_scratch=False)
            for p, _ in plan.profiles
        }
        texts = await writer.group_profiles(m, [p for p, _ in plan.profiles], {p: b[0] for p, b in bases.items()})
        for member, draft in plan.profiles:
            draft.text = texts[member]
            _set_base(draft, *bases[member])
    for member, draft in plan.global_profiles:
        stored = plan.previous.get(summary_id(draft.scope, SummaryKind.PROFILE, member))
        text, since = _previous(stored, m.period, from_scratch=False)
        draft.text = await writer.global_profile(m, member, text)
        _set_base(draft, text, since)
    if plan.diary is not None:
        plan.diary.text = await writer.diary(m)


# ---------------------------------------------------------------------------------------- writing


def _write(store: Store, embedder: Embedder, plan: _Plan, complete_job: tuple[str, str] | None) -> list[MemoryItem]:
    """Save the plan's summaries, each replacing its stored one in one transaction with ``complete_job``
    (job id, worker) marked done, so a crash leaves the old summaries or the new ones, and the job while
    they are not saved."""
    drafts = plan.drafts()
    agent = plan.material.agent
    ids = [summary_id(d.scope, d.kind, d.key) for d in drafts]
    stored = {item.id: item for item in store.get_memories(agent, ids)} if ids else {}
    items = [_as_item(d, stored.get(i)) for d, i in zip(drafts, ids, strict=True)]
    vectors = embedder.embed_passages([item.text for item in items]) if items else None
    terms = [terms_of(" ".join([item.text, *item.keywords])) for item in items]
    if plan.deletes:  # taken back first: a crash before the rest is saved leaves the day due (or its job)
        store.delete_memories(agent, plan.deletes)
    if items or complete_job is not None:
        replaced = [(agent, item.id) for item in items]
        # summaries of what was read before: one of what an erasure took since is not written
        made_from = [item.sources for item in items]  # the messages and memories read to write them
        store.apply(
            Writes(memories=items, vectors=vectors, terms=terms, replaced=replaced, made_from=made_from), complete_job
        )
    return items


# ---------------------------------------------------------------------------------------- entry points


async def summarize_day(
    store: Store,
    embedder: Embedder,
    scope: Scope,
    day: date,
    now: datetime,
    config: SummaryConfig | Config,
    llm: LLM | None = None,
    *,
    persona: str = "",
    complete_job: tuple[str, str] | None = None,
) -> list[MemoryItem]:
    """Write (or rewrite) the summaries of ``scope`` for ``day``; returns the memories written.

    ``persona`` is the agent's background (its persona core block) for the diary's LLM prompt. With
    ``llm`` every text is written by it, and a failed or unusable answer raises (``ProviderError``,
    ``SummaryError``) before anything is written. ``complete_job`` (job id, worker) is marked done in
    the transaction that saves the summaries.
    """
    cfg = section(config)
    space_of(scope)  # refuses the official scope
    if day_start(day) > now:
        raise InvalidInput(f"{day} has not begun yet (now is {now:%Y-%m-%d %H:%M})")
    default_language = config.language if isinstance(config, Config) else "zh"
    material = await asyncio.to_thread(gather, store, scope, day, cfg, default_language)
    plan = await asyncio.to_thread(_plan, store, material, cfg)
    if llm is not None and plan.daily is not None:
        await _reword(plan, SummaryWriter(llm, cfg, persona), cfg)
    return await asyncio.to_thread(_write, store, embedder, plan, complete_job)


def due_days(store: Store, scope: Scope, now: datetime, cfg: SummaryConfig, catch_up: bool = False) -> list[date]:
    """Days of the last ``lookback_days`` that ended (``settle_minutes`` ago), hold messages of the scope's
    space and have no daily summary yet, oldest first; a day whose messages (or an earlier day's) a fold
    still waits to extract comes once it is done, unless no later scheduled run looks at it."""
    last = (now - timedelta(minutes=cfg.settle_minutes)).date() - timedelta(days=1)
    bounded = cfg.lookback_days > 0 and not catch_up
    first = now.date() - timedelta(days=cfg.lookback_days) if bounded else date(1970, 1, 2)
    if last < first:
        return []
    messages = messages_between(store, scope.agent, space_of(scope), day_start(first), day_end(last))
    active = sorted({m.time.date() for m in messages})
    done: set[str] = set()
    offset = 0
    while True:
        page = store.list_memories([scope], [MemoryKind.SUMMARY], PAGE, offset)
        done.update(_period(item) for item in page if item.summary.kind is SummaryKind.DAILY)
        if len(page) < PAGE or (page[-1].time is not None and page[-1].time < day_start(first)):
            break
        offset += PAGE
    waits_from = _unextracted_since(store, scope)
    return [
        d
        for d in active
        if d.isoformat() not in done and (waits_from is None or waits_from >= day_end(d) or _last_chance(d, now, cfg))
    ]


def _unextracted_since(store: Store, scope: Scope) -> datetime | None:
    """When the first message a fold of the scope's space still waits to extract was said (None: none waits).

    Summarised before, the day was read by rules from its loose messages and its neighbours' events were
    missing, and the summary stayed: whether a worker's run came between an add and its extraction (as
    adds one message at a time let it) changed what the day's summary said.
    """
    waiting = [
        job
        for job in store.span_jobs(scope.agent, space_of(scope), [JobState.PENDING, JobState.RUNNING])
        if job.kind == FOLD and job.payload.get("message_ids")
    ]
    firsts = [str(job.payload["message_ids"][0]) for job in waiting]
    return min((m.time for m in store.get_messages(scope.agent, firsts)), default=None) if firsts else None


def known_scopes(store: Store) -> list[Scope]:
    """The person and space scopes the store knows of: those of fold jobs, and every person's private chat.

    The store contract has no listing of spaces; a space none of whose messages has folded yet is missed
    here (pass ``scopes`` to :func:`summarize_due` to name them).
    """
    found: set[Scope] = set()
    for job in store.list_jobs(None, (), limit=1_000_000):
        tag = job.payload.get("scope")
        if isinstance(tag, str) and tag and not tag.startswith(ScopeKind.OFFICIAL.value):
            found.add(Scope.from_tag(job.agent, tag))
    for agent in sorted({s.agent for s in found}):
        found.update(Scope.of_person(agent, p.id) for p in store.list_persons(agent))
    return sorted(found, key=lambda s: (s.agent, s.kind.value, s.key))


async def summarize_due(
    store: Store,
    embedder: Embedder,
    config: SummaryConfig | Config,
    now: datetime,
    llm: LLM | None = None,
    *,
    scopes: Sequence[Scope] | None = None,
    persona: str = "",
    catch_up: bool = False,
    worker: str | None = None,
) -> list[MemoryItem]:
    """For the scheduler: summarise every due day (:func:`due_days`) of ``scopes`` (default: the scopes the
    store knows, :func:`known_scopes`), oldest first. A scope whose LLM (or anything else) fails stops at
    that day and is tried again on the next run; the others go on. A day no later scheduled run looks at
    (the oldest of the ``lookback_days`` window, or older) is written by the rules instead, as a fold's
    last attempt is, so an LLM that stays down still leaves extractive summaries; when even that cannot
    be saved (the embedder or the store failing), the day is kept as a job that later runs take first,
    one run each time, until it is written. A day on its last chance is kept as such a job before it
    is written, and the job is done in the transaction that saves it, so a run killed at any point leaves
    the day saved or its job. Returns the memories written."""
    cfg = section(config)
    if not cfg.enabled:
        return []
    worker = worker or f"{socket.gethostname()}:{os.getpid()}:summarize"
    targets = list(scopes) if scopes is not None else await asyncio.to_thread(known_scopes, store)
    later: list[tuple[Scope, list[date]]] = []
    for scope in targets:
        if scope.kind is ScopeKind.OFFICIAL:
            continue
        days = await asyncio.to_thread(due_days, store, scope, now, cfg, catch_up)
        for day in days:
            if _last_chance(day, now, cfg):  # a job before any work: a run killed while saving leaves it
                await asyncio.to_thread(store.enqueue_job, _job(store, scope, day))
        later.append((scope, [day for day in days if not _last_chance(day, now, cfg)]))
    written = await _handed_over(store, embedder, config, now, llm, persona, worker)
    for scope, days in later:
        for day in days:
            try:
                written += await summarize_day(store, embedder, scope, day, now, config, llm, persona=persona)
            except ProviderError as exc:  # still inside the window: the next run tries the day again
                log.warning("summaries of %s for %s failed, retried on the next run: %s", scope.tag, day, exc)
                break
            except Exception:  # as the LLM failing: one scope's failure stops neither the run nor its last days
                log.exception("summaries of %s for %s failed, retried on the next run", scope.tag, day)
                break
    return written


async def _last_run(
    store: Store,
    embedder: Embedder,
    scope: Scope,
    day: date,
    now: datetime,
    config: SummaryConfig | Config,
    llm: LLM | None,
    persona: str,
    job: tuple[str, str],
) -> list[MemoryItem]:
    """``day`` written with the LLM or, when it fails, by the rules: no scheduled run comes back to it;
    ``job`` (id, worker) is done with the save."""
    try:
        return await summarize_day(store, embedder, scope, day, now, config, llm, persona=persona, complete_job=job)
    except ProviderError as exc:
        log.warning("summaries of %s for %s failed on their last run; the rules write them: %s", scope.tag, day, exc)
        return await summarize_day(store, embedder, scope, day, now, config, None, persona=persona, complete_job=job)


def _job(store: Store, scope: Scope, day: date) -> Job:
    return Job(
        kind=SUMMARY,
        agent=scope.agent,
        key=f"{SUMMARY}:{scope.agent}:{scope.tag}:{day.isoformat()}",  # one job per day, however many runs fail
        payload={"scope": scope.tag, "day": day.isoformat()},
        created_at=store.clock(),
    )


async def _handed_over(
    store: Store,
    embedder: Embedder,
    config: SummaryConfig | Config,
    now: datetime,
    llm: LLM | None,
    persona: str,
    worker: str,
) -> list[MemoryItem]:
    """The days on their last chance and those earlier runs could not save, oldest first, each claimed by
    one run (two racing runs never write a day twice): written, or back in the queue for the next run."""
    lease = section(config).lease_seconds
    claimed: list[Job] = []
    while (job := await asyncio.to_thread(store.claim_job, worker, store.clock(), lease, [SUMMARY])) is not None:
        claimed.append(job)  # all first: one that fails again waits for the next run
    written: list[MemoryItem] = []
    for job in sorted(claimed, key=lambda job: str(job.payload["day"])):  # a global summary rolls day by day
        scope, day = Scope.from_tag(job.agent, str(job.payload["scope"])), date.fromisoformat(str(job.payload["day"]))
        try:
            daily = summary_id(scope, SummaryKind.DAILY, day.isoformat())
            if await asyncio.to_thread(store.get_memories, scope.agent, [daily]):  # a catch-up wrote it meanwhile
                await asyncio.to_thread(store.apply, Writes(), (job.id, worker))
            else:
                written += await _last_run(store, embedder, scope, day, now, config, llm, persona, (job.id, worker))
        except Exception as exc:
            log.exception("summaries of %s for %s could not be saved again; the next run retries", scope.tag, day)
            await asyncio.to_thread(store.fail_job, job.id, worker, f"{type(exc).__name__}: {exc}", store.clock())
    return written


def _last_chance(day: date, now: datetime, cfg: SummaryConfig) -> bool:
    """Whether the background scheduler will not look at ``day`` again after today (see :func:`due_days`)."""
    return cfg.lookback_days > 0 and day <= now.date() - timedelta(days=cfg.lookback_days)
