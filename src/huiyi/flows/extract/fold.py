"""Folding working memory: deciding what leaves it, and turning a fold's extraction into memories.

Seed 000 §4a: working memory keeps 10–30 rounds; once it holds 20, the oldest 10 are handed to
extraction; on a scene change all of it is. A round starts at each user message (the agent's replies
belong to the round they answer). Folded messages leave working memory only when the job that
extracts them commits, in the same transaction as its memories.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Sequence
from datetime import datetime, timedelta

from huiyi.checks import is_blank
from huiyi.config import Config
from huiyi.flows.chatter import people_of
from huiyi.flows.extract import Extraction, Fold
from huiyi.flows.extract.closes import called_off, open_partners, open_pets
from huiyi.flows.extract.hearsay import told_by
from huiyi.flows.extract.rules.roster import Roster, record_names
from huiyi.flows.ingest import memory_terms
from huiyi.model import EntityType, FactData, Job, JobState, MemoryItem, MemoryKind, Message, Scope, ScopeKind, new_id
from huiyi.providers.embed import Embedder
from huiyi.store.base import Store, Writes

FOLD = "fold"


def rounds(messages: Sequence[Message]) -> list[list[Message]]:
    """Group messages into rounds: each user message opens one."""
    out: list[list[Message]] = []
    for message in messages:
        if message.role == "user" or not out:
            out.append([message])
        else:
            out[-1].append(message)
    return out


# pages of the log read back from the newest: the first small, as every add reads one (a working memory
# holds a few dozen messages; reading 500 made most of an add's time, issue 15), then growing
_FIRST_PAGE = 64
_PAGE = 500


def unfolded(store: Store, agent: str, space: str) -> list[Message]:
    """Every message of the space not yet handed to a fold job, oldest first (however many there are)."""
    # the jobs first: one that finishes between the two reads has moved the start read second
    live = store.span_jobs(agent, space, [JobState.PENDING, JobState.RUNNING])
    cursor = store.working_start(agent, space)
    for job in live:
        if job.kind == FOLD:
            cursor = max(cursor, int(job.payload["to_seq"]) + 1)
    pages: list[list[Message]] = []
    before: int | None = None
    size = _FIRST_PAGE
    while True:
        page = store.recent_messages(agent, space, size, before)
        pages.append([m for m in page if m.seq >= cursor])
        if len(page) < size or page[0].seq <= cursor:
            break
        before = page[0].seq
        size = min(size * 4, _PAGE)
    return [m for page in reversed(pages) for m in page]


def working_memory(store: Store, agent: str, space: str, config: Config) -> list[Message]:
    """What the chat model sees verbatim: the space's messages from the working-memory start, after
    those of its folds not extracted yet that a later fold's commit moved the start past."""
    limit = config.window.fold_at * 8
    start = store.working_start(agent, space)  # first: a fold done after it is read has been extracted
    recent = store.recent_messages(agent, space, limit, from_seq=start)
    return [*_outrun(store, agent, space, start), *recent][-limit:]


def _outrun(store: Store, agent: str, space: str, start: int) -> list[Message]:
    """Messages before ``start`` of the space's folds that are not done: one waiting for its retry (or
    failed for good) when the next fold committed. One whose messages a fold planned since extracted
    is no longer theirs to show (the store leaves it out)."""
    ids: list[str] = []
    for job in store.span_jobs(agent, space, _NOT_DONE):
        if job.kind == FOLD and int(job.payload["from_seq"]) < start:
            ids.extend(job.payload["message_ids"])
    if not ids:
        return []
    found = {m.id: m for m in store.get_messages(agent, ids) if m.space == space and m.seq < start}
    return sorted(found.values(), key=lambda m: m.seq)


def folds(messages: Sequence[Message], config: Config, *, everything: bool = False) -> list[list[Message]]:
    """The folds that ``messages`` (the unfolded tail of a space, oldest first) make.

    Decided as if the messages arrived one at a time, so the same history gives the same folds
    whether a caller adds it one message, one session or all of it per call. A new round that
    follows a long silence (a scene change) folds every round before it; a window that reaches
    ``fold_at`` rounds folds all but the newest ``keep_min``. ``everything`` then folds the rest.
    """
    out, window = _fold(messages, config)
    if everything and window:
        out.append([m for group in window for m in group])
    return out


def open_rounds(messages: Sequence[Message], config: Config) -> list[list[Message]]:
    """The rounds of an unfolded tail that stay in working memory once its folds are planned."""
    return _fold(messages, config)[1]


def _fold(messages: Sequence[Message], config: Config) -> tuple[list[list[Message]], list[list[Message]]]:
    """The folds of an unfolded tail, and the rounds left in working memory after them."""
    gap = timedelta(minutes=config.window.scene_gap_minutes)
    out: list[list[Message]] = []
    window: list[list[Message]] = []  # rounds still in working memory
    for message in messages:
        if window and message.role != "user":
            window[-1].append(message)
            continue
        if window and message.time - window[-1][-1].time >= gap:
            out.append([m for group in window for m in group])
            window = []
        window.append([message])
        if len(window) >= config.window.fold_at:
            cut = len(window) - config.window.keep_min
            out.append([m for group in window[:cut] for m in group])
            window = window[cut:]
    return out, window


def plan_folds(
    store: Store,
    agent: str,
    space: str,
    person: str | None,
    config: Config,
    *,
    everything: bool = False,
    retry_failed: bool = False,
    tail: Sequence[Message] | None = None,
) -> list[Job]:
    """Enqueue a job for every fold that should leave working memory now; returns the jobs created.
    ``tail`` is the space's ``unfolded`` tail when the caller has read it.

    A fold planned again after its job failed for good has the same key, so it is not enqueued twice;
    with ``retry_failed`` (an explicit flush) that job is queued again and returned with the new ones,
    as is every other failed fold of the space that no live fold covers (see ``_retry_uncovered``).
    A fold the store refuses otherwise was planned from a stale read (another planner or a worker moved
    on meanwhile): the rest of that plan is dropped, and the space's tail read and planned again.
    """
    created: list[Job] = []
    for _ in range(_REPLANS):
        stale = _plan_once(store, agent, space, person, config, everything, retry_failed, tail, created)
        if not stale:
            break
        tail = None
    if retry_failed:
        created.extend(_retry_uncovered(store, agent, space))
    return created


_REPLANS = 4  # each replan starts past a fold that another planner enqueued: progress every round


def _plan_once(
    store: Store,
    agent: str,
    space: str,
    person: str | None,
    config: Config,
    everything: bool,
    retry_failed: bool,
    tail: Sequence[Message] | None,
    created: list[Job],
) -> bool:
    """One read and plan of the space's tail, its jobs added to ``created``; whether it was stale."""
    failed: dict[str, str] | None = None
    for folded in folds(unfolded(store, agent, space) if tail is None else tail, config, everything=everything):
        job = _fold_job(agent, space, person, folded, fold_key(agent, space, folded[0].seq, folded[-1].seq))
        if store.enqueue_job(job):
            created.append(job)
            continue
        if failed is None:  # read only once something is refused, which is rare
            failed = {j.key: j.id for j in store.list_jobs(agent, [JobState.FAILED], limit=100_000) if j.kind == FOLD}
        if job.key not in failed:
            return True
        if retry_failed and (again := store.retry_job(failed[job.key], agent)) is not None:
            created.append(again)
    return False


def refolds(agent: str, config: Config) -> Callable[[Sequence[Message]], list[Job]]:
    """The planner an erasure calls in its transaction (``Erasure.refold``): folds of messages folded long ago
    whose events or facts it took, since those were made from erased turns too, so a group keeps its events
    when one member is forgotten. Each space's messages fold as a tail would; the jobs say ``again``, as
    their seqs left working memory before, and a key of their own, as the fold their messages first had may
    be done."""

    def plan(messages: Sequence[Message]) -> list[Job]:
        by_space: dict[str, list[Message]] = {}
        for message in sorted(messages, key=lambda m: m.seq):
            by_space.setdefault(message.space, []).append(message)
        jobs: list[Job] = []
        for space, said in by_space.items():
            scope = said[0].scope
            person = scope.key if scope.kind is ScopeKind.PERSON else None
            for folded in folds(said, config, everything=True):
                # a key no fold had: a later erasure may take these lines' new events, and queue them again
                jobs.append(_fold_job(agent, space, person, folded, new_id(f"{FOLD}:again"), again=True))
        return jobs

    return plan


def _fold_job(
    agent: str, space: str, person: str | None, folded: Sequence[Message], key: str, *, again: bool = False
) -> Job:
    """The job extracting ``folded``, of checked parts: no validator built behind a new process's add (issue 15)."""
    payload: dict[str, object] = {
        "space": space,
        "scope": folded[0].scope.tag,
        "person": person,
        "from_seq": folded[0].seq,
        "to_seq": folded[-1].seq,
        "message_ids": [m.id for m in folded],
    }
    if again:
        payload["again"] = True
    return Job.model_construct(kind=FOLD, agent=agent, key=key, payload=payload)


def _retry_uncovered(store: Store, agent: str, space: str) -> list[Job]:
    """Queue again the space's folds failed for good that no live fold covers: one a later fold was
    planned past while it waited for its retry is in no tail a planner reads (the later fold's commit
    moves working memory past it), so without this its turns would never be extracted. One a live fold
    overlaps is left failed: that fold extracts its messages."""
    jobs = [job for job in store.span_jobs(agent, space, _NOT_DONE) if job.kind == FOLD]
    live = [_seqs(job) for job in jobs if job.state is not JobState.FAILED]
    retried: list[Job] = []
    for job in jobs:
        first, last = _seqs(job)
        if job.state is not JobState.FAILED or any(a <= last and first <= b for a, b in live):
            continue
        if (again := store.retry_job(job.id, agent)) is not None:
            retried.append(again)
    return retried


def _seqs(job: Job) -> tuple[int, int]:
    return int(job.payload["from_seq"]), int(job.payload["to_seq"])


def fold_key(agent: str, space: str, first_seq: int, last_seq: int) -> str:
    """A job key no two folds share: the parts are encoded unambiguously, whatever characters ids hold."""
    parts = json.dumps([agent, space, first_seq, last_seq], ensure_ascii=False)
    return f"{FOLD}:{hashlib.blake2b(parts.encode(), digest_size=16).hexdigest()}"


_NOT_DONE = [JobState.PENDING, JobState.RUNNING, JobState.FAILED]


def folded_by_another(store: Store, job: Job) -> bool:
    """Whether a fold done after this job was queued took any of its messages: a fold planned while
    this one had failed for good starts at or before it. A fold planned while this one waited for its
    retry starts after it, and moves working memory past it without extracting its messages. Its
    commit recorded the verdict (``Store.span_jobs`` leaves the job out)."""
    return all(other.id != job.id for other in store.span_jobs(job.agent, job.payload["space"], _NOT_DONE))


def fold_of(store: Store, job: Job, language: str) -> Fold:
    messages = store.get_messages(job.agent, job.payload["message_ids"])
    person = job.payload.get("person")
    aliases: dict[str, list[str]] = {}
    for speaker in {m.speaker for m in messages if m.role == "user"} | ({person} if person else set()):
        # a QQ number is called 小林 (a blank name is skipped)
        aliases[speaker] = record_names(speaker, store.get_person(job.agent, speaker))
    scope = Scope.from_tag(job.agent, job.payload["scope"])
    spoke: set[str] = set()
    if scope.kind is ScopeKind.SPACE:
        # a member who spoke but was never named is a member too: 以后叫我小雨 from 阿杰 takes her name
        spoke = store.spoke_in(job.agent, job.payload["space"], None) - {job.agent}
        # a group's members who are silent in this fold are still its members: 霓霓就是苏霓 and
        # 舟舟是急诊科护士 name people who spoke before (issue #13); the agent is no member
        for member in store.list_entities([scope]):
            if member.type is EntityType.OBJECT and member.name != job.agent and member.name not in aliases:
                aliases[member.name] = [member.name, *member.aliases]
    return Fold(
        agent=job.agent,
        space=job.payload["space"],
        scope=scope,
        messages=messages,
        person=person,
        aliases=aliases,
        spoke=spoke,
        language=language,
        called_off=called_off(store, scope, messages),
        pets=open_pets(store, scope),
        partners=open_partners(store, scope),
    )


def _stable_id(prefix: str, job_id: str, index: int) -> str:
    """Ids derived from the job, so a job that runs twice writes the same rows (and the store skips them)."""
    return f"{prefix}_{hashlib.blake2b(f'{job_id}:{index}'.encode(), digest_size=10).hexdigest()}"


def memories_of(extraction: Extraction, fold: Fold, job_id: str) -> list[MemoryItem]:
    """Drafts become memories of the fold's scope, with provenance limited to the fold's messages."""
    known = {m.id for m in fold.messages}
    fallback_time = fold.messages[-1].time if fold.messages else None
    said_times = {m.id: m.time for m in fold.messages}

    def said_at(sources: Sequence[str], about: datetime | None) -> datetime | None:
        """When the draft was said (its last source message), if that is another day than the one it is
        about or an hour still to come: "下个月的马拉松" said on 11-15 is about December, said in November,
        and 今晚八点 said at 10:00 is a plan that is over by the next day."""
        times = [said_times[s] for s in sources if s in said_times]
        said = max(times) if times else fallback_time
        if about is None or said is None:
            return None
        ahead = (about.tzinfo is None) == (said.tzinfo is None) and about > said
        return said if said.date() != about.date() or ahead else None

    roster = Roster.of(fold)
    items: list[MemoryItem] = []
    # a draft with no text (an emoji-only turn condensed to nothing) is dropped: as a memory it would
    # fail validation and keep the whole fold pending forever
    for index, event in enumerate(extraction.events):
        if is_blank(event.text):
            continue
        said = said_at(event.sources, event.time)
        items.append(
            MemoryItem(
                id=_stable_id("ev", job_id, index),
                scope=fold.scope,
                kind=MemoryKind.EVENT,
                text=event.text,
                time=event.time or fallback_time,
                place=event.place,
                participants=event.participants,
                keywords=event.keywords,
                insight=event.insight,
                importance=min(1.0, max(0.0, event.importance)),
                sources=[s for s in event.sources if s in known],
                data={"space": fold.space, **({"about": event.about} if said and event.about else {})},
                said_at=said,
            )
        )
    for index, fact in enumerate(extraction.facts):
        if is_blank(fact.description):
            continue
        confidence = min(1.0, max(0.0, fact.confidence))
        said = said_at(fact.sources, fact.time)
        told = told_by(fact, fold, roster)
        items.append(
            MemoryItem(
                id=_stable_id("fa", job_id, index),
                scope=fold.scope,
                kind=MemoryKind.FACT,
                text=fact.description,
                time=fact.time or fallback_time,
                said_at=said,
                keywords=[fact.keyword] if fact.keyword else [],
                # recall and summaries rank by importance; a fact's is its confidence until judged
                importance=confidence,
                sources=[s for s in fact.sources if s in known],
                data=FactData(
                    subject=fact.subject,
                    subject_type=fact.subject_type,
                    predicate=fact.predicate,
                    object=fact.object,
                    object_type=fact.object_type,
                    kind=fact.kind,
                    keyword=fact.keyword,
                    valid_from=fact.time,
                    confidence=confidence,
                ).into(
                    {
                        "space": fold.space,
                        **({"about": fact.about} if said and fact.about else {}),
                        **({"told_by": told} if told else {}),
                    }
                ),
            )
        )
    return items


def writes_of(items: Sequence[MemoryItem], embedder: Embedder, fold: Fold, to_seq: int) -> Writes:
    texts = [" ".join(filter(None, [item.text, item.insight])) for item in items]
    # who an event or fact is by or about is also a field, for the speaker route (issue #13)
    terms = [
        memory_terms(
            " ".join([item.text, item.place, *item.keywords]),
            people_of(item.kind, item.participants, item.data.get("subject")),
        )
        for item in items
    ]
    return Writes(
        memories=items,
        vectors=embedder.embed_passages(texts),
        terms=terms,
        fold_points=[(fold.agent, fold.space, to_seq + 1)],
    )
