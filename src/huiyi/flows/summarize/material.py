"""A day of one scope, as the summaries see it: its messages, and the events and facts told that day.

Days are local calendar days of the naive times the store holds. An event or fact belongs to the day of
its earliest source message, whatever time it is about (下周三要考驾照 is told today); one with no message
among its sources belongs to the day of its own time. Messages no stored event cites (still in working
memory, say) are read by the rule extractor into transient events, so a day is never summarised from
half its talk; transient facts are kept when no stored fact cites their messages.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import date, datetime, time, timedelta

from huiyi.config.summarize import SummaryConfig
from huiyi.errors import InvalidInput
from huiyi.flows.extract import Fold
from huiyi.flows.extract.rules import RuleExtractor
from huiyi.flows.substance import Days
from huiyi.model import MemoryItem, MemoryKind, Message, Scope, ScopeKind, SummaryData, SummaryKind
from huiyi.store.base import Store
from huiyi.text.language import conversation_language

__all__ = [
    "DayMaterial",
    "Draft",
    "Highlight",
    "Said",
    "day_end",
    "day_start",
    "gather",
    "messages_between",
    "space_of",
]

PAGE = 500
_ID_LIKE = re.compile(r"[\w.-]*\d[\w.-]*|[\w-]*_[\w-]*", re.ASCII)


@dataclass
class Highlight:
    """An event told that day: stored (``id``), or read from messages no stored event cites."""

    text: str
    said_at: datetime  # when it was told: its earliest source message
    sources: list[str]
    importance: float = 0.5
    strength: float = 1.0
    keywords: list[str] = field(default_factory=list)
    id: str | None = None


@dataclass
class Said:
    """A fact told that day: ``subject`` is a name, ``sources`` the messages it was read from."""

    text: str
    subject: str
    said_at: datetime
    sources: list[str]
    importance: float = 0.5
    strength: float = 1.0
    id: str | None = None

    def rank(self) -> tuple[float, float, float, str]:
        return (-self.importance, -self.strength, -self.said_at.timestamp(), self.text)


@dataclass
class DayMaterial:
    agent: str
    scope: Scope
    space: str
    day: date
    language: str  # zh or en
    person: str | None  # the person of a private chat; None in a group
    messages: list[Message]
    events: list[Highlight]
    facts: list[Said]
    display: dict[str, str]  # speaker id -> shown name
    names: dict[str, list[str]]  # speaker id -> every name: id, name, aliases
    days: Days = field(default_factory=Days)  # the words of the scope's events by day, to tell routine apart
    things: frozenset[str] = frozenset()  # the scope's entity names: each one word in the day's topics

    @property
    def start(self) -> datetime:
        return datetime.combine(self.day, time())

    @property
    def period(self) -> str:
        return self.day.isoformat()

    def name(self, speaker: str) -> str:
        return self.display.get(speaker, speaker)

    def speakers(self) -> list[str]:
        """People (not the agent) who spoke, most messages first, then by first message."""
        counts = Counter(m.speaker for m in self.messages if m.speaker != self.agent)
        order = {s: i for i, s in reversed(list(enumerate(m.speaker for m in self.messages)))}
        return sorted(counts, key=lambda s: (-counts[s], order[s]))

    def members(self) -> list[str]:
        """People who spoke, in the order they first spoke."""
        return list(dict.fromkeys(m.speaker for m in self.messages if m.speaker != self.agent))

    def said_by(self, speaker: str) -> list[Message]:
        return [m for m in self.messages if m.speaker == speaker]

    def agent_spoke(self) -> bool:
        return any(m.speaker == self.agent for m in self.messages)

    def all_names(self) -> list[str]:
        return sorted({self.agent, *self.display.values(), *(n for ns in self.names.values() for n in ns)})

    def about(self, person: str) -> list[Said]:
        names = self.folded(person)
        return [f for f in self.facts if f.subject.casefold() in names]

    def folded(self, person: str) -> set[str]:
        return {n.casefold() for n in self.names.get(person, [person])}

    def is_self_statement(self, fact: Said, person: str) -> bool:
        """The privacy rule of global profiles: a fact may leave a group for the person's own scope only
        when it is about that person and *every* message it was read from was said by that person. What
        others said of them (许仙: 霓霓是老师) stays in the group; a source that is not one of the day's
        messages counts as someone else's."""
        speakers = {m.id: m.speaker for m in self.messages}
        names = self.folded(person)
        return (
            fact.subject.casefold() in names
            and bool(fact.sources)
            and all(speakers.get(s) == person for s in fact.sources)
        )


@dataclass
class Draft:
    kind: SummaryKind
    key: str  # with scope and kind, what makes the stable id
    scope: Scope
    text: str
    time: datetime
    sources: list[str]
    keywords: list[str] = field(default_factory=list)
    participants: list[str] = field(default_factory=list)
    importance: float = 0.5
    summary: SummaryData = field(default_factory=SummaryData)


def day_start(day: date) -> datetime:
    return datetime.combine(day, time())


def day_end(day: date) -> datetime:
    return day_start(day) + timedelta(days=1)


def space_of(scope: Scope) -> str:
    if scope.kind is not ScopeKind.OFFICIAL:
        return scope.space_id
    raise InvalidInput("summaries are written for a person's or a group's scope, not the official one")


# ---------------------------------------------------------------------------------------- reading a day


def messages_between(store: Store, agent: str, space: str, start: datetime, end: datetime) -> list[Message]:
    """The space's messages with ``start <= time < end``, in the order stored: found by when they were said, as
    paging back from the newest stopped at history imported after the chat (older lines, newer seqs)."""
    return store.messages_between(agent, space, start, end)


def _stored(store: Store, scope: Scope, kinds: list[MemoryKind], floor: datetime) -> list[MemoryItem]:
    """The scope's memories of ``kinds`` down to those timed before ``floor`` (newest first)."""
    out: list[MemoryItem] = []
    offset = 0
    while True:
        page = store.list_memories([scope], kinds, PAGE, offset)
        out.extend(page)
        if len(page) < PAGE or (page[-1].time is not None and page[-1].time < floor):
            return out
        offset += PAGE


def people(store: Store, agent: str, ids: Sequence[str]) -> tuple[dict[str, str], dict[str, list[str]]]:
    """Shown names (a person's name, else their first alias that reads as a name, else their id) and every
    name of each id."""
    display: dict[str, str] = {agent: agent}
    names: dict[str, list[str]] = {agent: [agent]}
    for person_id in dict.fromkeys(ids):
        if person_id == agent:
            continue
        known = store.get_person(agent, person_id)
        all_names = [person_id, *([known.name] if known and known.name else []), *(known.aliases if known else [])]
        readable = [n for n in all_names[1:] if n and not _ID_LIKE.fullmatch(n)]
        display[person_id] = readable[0] if readable else person_id
        names[person_id] = list(dict.fromkeys(n for n in all_names if n))
    return display, names


def gather(store: Store, scope: Scope, day: date, cfg: SummaryConfig, default_language: str = "zh") -> DayMaterial:
    """Everything summarised for ``scope`` on ``day``: see the module docstring."""
    agent, space = scope.agent, space_of(scope)
    start, end = day_start(day), day_end(day)
    messages = messages_between(store, agent, space, start, end)
    person = scope.key if scope.kind is ScopeKind.PERSON else None
    display, names = people(store, agent, [*(m.speaker for m in messages), *([person] if person else [])])
    candidates = _stored(store, scope, [MemoryKind.EVENT, MemoryKind.FACT], start - timedelta(cfg.event_slack_days))
    day_ids = {m.id: m for m in messages}
    unknown: set[str] = set()
    for item in candidates:
        if any(s in day_ids for s in item.sources) or (item.time is not None and start <= item.time < end):
            unknown.update(s for s in item.sources if s not in day_ids)
    told = {m.id: m.time for m in messages}
    told.update({m.id: m.time for m in store.get_messages(agent, sorted(unknown))} if unknown else {})
    events: list[Highlight] = []
    facts: list[Said] = []
    spoken: list[tuple[date, str]] = []  # every event's text by the day it was told, this day's and others'
    for item in candidates:
        times = [told[s] for s in item.sources if s in told]
        said_at = min(times) if times else item.time
        if item.kind is MemoryKind.EVENT and (when := min(times) if times else item.said_at or item.time):
            spoken.append((when.date(), item.text))
        if said_at is None or not start <= said_at < end:
            continue
        if item.kind is MemoryKind.EVENT:
            events.append(
                Highlight(
                    item.text, said_at, list(item.sources), item.importance, item.strength, item.keywords, item.id
                )
            )
        else:
            facts.append(
                Said(item.text, item.fact.subject, said_at, list(item.sources), item.importance, item.strength, item.id)
            )
    language = cfg.language if cfg.language != "auto" else conversation_language(messages, default_language)
    days = Days.of(spoken, [n for ns in names.values() for n in ns])
    things = frozenset(n for entity in store.list_entities([scope]) for n in entity.names)
    material = DayMaterial(
        agent, scope, space, day, language, person, messages, events, facts, display, names, days, things
    )
    _read_loose(material)
    return material


def _read_loose(m: DayMaterial) -> None:
    """Messages no stored event cites become transient events (and facts no stored fact has) by rules."""
    cited = {s for h in m.events for s in h.sources}
    loose = [x for x in m.messages if x.id not in cited]
    if not any(x.speaker != m.agent for x in loose):
        return
    speakers = dict.fromkeys(x.speaker for x in loose if x.speaker != m.agent)
    aliases = {p: list(dict.fromkeys([m.name(p), *m.names.get(p, [p])])) for p in speakers}
    fold = Fold(m.agent, m.space, m.scope, loose, person=m.person, aliases=aliases, language=m.language)
    drafts = RuleExtractor().extract_sync(fold)
    times = {x.id: x.time for x in loose}
    for event in drafts.events:
        said_at = min((times[s] for s in event.sources if s in times), default=loose[0].time)
        m.events.append(Highlight(event.text, said_at, event.sources, event.importance, 1.0, event.keywords))
    known = {s for f in m.facts for s in f.sources}
    for fact in drafts.facts:
        if set(fact.sources) & known:
            continue
        said_at = min((times[s] for s in fact.sources if s in times), default=loose[0].time)
        m.facts.append(Said(fact.description, fact.subject, said_at, fact.sources, fact.confidence))
