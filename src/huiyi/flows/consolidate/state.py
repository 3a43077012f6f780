"""One scope's memories, entities and persons as consolidation sees them, with its pending writes.

Every step reads and changes this in-memory view; the writes it collects go to the store when the
step ends (``flush``), or nowhere in a dry run. So a dry run computes exactly the report a real run
would, and later steps see what earlier ones decided (merged entities, closed facts) either way.
"""

from __future__ import annotations

import functools
import re
import unicodedata
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import UTC, datetime, tzinfo
from typing import Any

from huiyi.checks import wall_of
from huiyi.config.consolidate import ConsolidateConfig
from huiyi.flows.consolidate.report import Report
from huiyi.flows.ingest import terms_of
from huiyi.model import Entity, Link, MemoryItem, MemoryKind, Person, Scope
from huiyi.providers.embed import Embedder
from huiyi.store.base import Store, Writes

__all__ = ["PAGE", "FactView", "State", "norm", "object_stem", "person_names", "when"]

PAGE = 5000  # memories read per store call while loading a scope (offset paging re-sorts per page)

_EDGE_PUNCT = re.compile(
    r"^[\s\"'“”‘’《》〈〉「」『』()（）\[\]【】.,;:!?。，、；：！？~～…]+|[\s\"'“”‘’《》〈〉「」『』()（）\[\]【】.,;:!?。，、；：！？~～…]+$"
)
_SPACES = re.compile(r"\s+")


@functools.lru_cache(maxsize=65536)
def norm(text: str) -> str:
    """A name or literal for comparison: NFKC, lower case, spaces collapsed, edge punctuation gone.

    >>> norm(" 《流浪地球》 "), norm("Tom  Lee!")
    ('流浪地球', 'tom lee')
    """
    value = unicodedata.normalize("NFKC", text).strip().lower()
    return _EDGE_PUNCT.sub("", _SPACES.sub(" ", value))


def when(item: MemoryItem, zone: tzinfo = UTC) -> datetime:
    """When a memory happened or was said (its time, else when it was stored), as the wall clock of
    ``zone``, the configured timezone (``created_at`` is stamped in UTC)."""
    moment = item.time or wall_of(item.created_at, zone) or datetime.min
    return moment.replace(tzinfo=None)


@dataclass(frozen=True)
class Since:
    """The last run: its wall-clock time (against when memories were said) and the same moment in UTC
    (against ``created_at``, which the store stamps in UTC)."""

    at: datetime
    written: datetime

    def saw(self, item: MemoryItem) -> bool:
        """Whether ``item`` was there for the last run: said and stored before it."""
        said_new = item.time is not None and item.time.replace(tzinfo=None) > self.at
        return not said_new and (item.created_at is None or item.created_at <= self.written)


def said(item: MemoryItem, zone: tzinfo = UTC) -> datetime:
    """When a memory was said: ``said_at`` if it is about another day (a plan), else as :func:`when`."""
    return item.said_at.replace(tzinfo=None) if item.said_at is not None else when(item, zone)


@dataclass(frozen=True)
class FactView:
    """A fact memory's edge as consolidation compares it: names resolved to canonical keys."""

    item: MemoryItem
    subject: str  # canonical key of the subject (an entity's root id, a person, or a literal)
    predicate: str  # normalised predicate
    object: str  # canonical key of the object
    keyword: str
    fact_kind: str
    topic: str = ""  # the object's key without a leading verb (喝咖啡 → 咖啡), to compare likes and dislikes
    zone: tzinfo = UTC  # the configured timezone, whose wall clock the fact's times are

    @property
    def id(self) -> str:
        return self.item.id

    @property
    def time(self) -> datetime:
        """When the fact was said: a newer statement closes an older one, whatever days they are about."""
        return said(self.item, self.zone)


@dataclass
class State:
    store: Store
    embedder: Embedder
    scope: Scope
    now: datetime
    config: ConsolidateConfig
    report: Report
    dry_run: bool = False
    zone: tzinfo = UTC  # whose wall clock ``now`` and the memories' times are; ``created_at`` is UTC
    items: dict[str, MemoryItem] = field(default_factory=dict)
    entities: dict[str, Entity] = field(default_factory=dict)  # not merged away when the run began
    persons: list[Person] = field(default_factory=list)
    parent: dict[str, str] = field(default_factory=dict)  # entity merges decided in this run
    _names: dict[str, list[str]] = field(default_factory=dict)  # normalised name -> entity ids
    _person_of: dict[str, str] = field(default_factory=dict)  # normalised name -> person id
    _updates: dict[str, dict[str, Any]] = field(default_factory=dict)
    _inserts: list[MemoryItem] = field(default_factory=list)
    _links: list[Link] = field(default_factory=list)
    _deletes: list[str] = field(default_factory=list)
    _merges: list[tuple[str, str, str]] = field(default_factory=list)
    memo: dict[str, Any] = field(default_factory=dict)  # what a step computes once per run (word sets)

    @property
    def agent(self) -> str:
        return self.scope.agent

    # loading ---------------------------------------------------------------------------------------
    def load(self) -> None:
        offset = 0
        while True:
            page = self.store.list_memories([self.scope], None, PAGE, offset)
            self.items.update((item.id, item) for item in page)
            if len(page) < PAGE:
                break
            offset += PAGE
        self.entities = {e.id: e for e in self.store.list_entities([self.scope])}
        self.persons = self.store.list_persons(self.agent)
        for entity in self.entities.values():
            for name in entity.names:
                ids = self._names.setdefault(norm(name), [])
                if entity.id not in ids:
                    ids.append(entity.id)
        for person in self.persons:
            for name in person_names(person):
                self._person_of.setdefault(norm(name), person.id)

    # entities and names ------------------------------------------------------------------------------
    def root(self, entity_id: str) -> str:
        top = entity_id
        while (up := self.parent.get(top)) is not None:
            top = up
        while entity_id != top:  # path compression: later look-ups take one step
            up = self.parent[entity_id]
            self.parent[entity_id] = top
            entity_id = up
        return top

    def entity_ids(self, name: str) -> list[str]:
        return self._names.get(norm(name), [])

    def key_of(self, name: str) -> str:
        """The canonical key of a name: its entity (after this run's merges), its person, or itself."""
        ids = self.entity_ids(name)
        if ids:
            return self.root(ids[0])
        person = self._person_of.get(norm(name))
        if person is not None:
            for alias in self.person_aliases(person):
                if self.entity_ids(alias):
                    return self.root(self.entity_ids(alias)[0])
            return f"person:{person}"
        return f"lit:{norm(name)}"

    def person_of(self, name: str) -> str | None:
        """The id of the person who goes by ``name``, if any."""
        return self._person_of.get(norm(name))

    def person_aliases(self, person_id: str) -> list[str]:
        for person in self.persons:
            if person.id == person_id:
                return person_names(person)
        return []

    def display(self, key: str) -> str:
        """A readable name for a canonical key."""
        if key in self.entities:
            return self.entities[key].name
        return key.partition(":")[2] or key

    def merge(self, source: str, target: str, reason: str) -> None:
        """Record ``source`` merged into ``target`` (both roots)."""
        self.parent[source] = target
        self._merges.append((source, target, reason))

    # facts ---------------------------------------------------------------------------------------------
    def fact(self, item: MemoryItem) -> FactView | None:
        if item.kind is not MemoryKind.FACT:
            return None
        fact = item.fact
        if not fact.subject.strip() or not fact.predicate.strip():
            return None
        return FactView(
            item=item,
            subject=self.key_of(fact.subject),
            predicate=norm(fact.predicate),
            object=self.key_of(fact.object),
            keyword=norm(fact.keyword),
            topic=self.key_of(object_stem(fact.object)),
            fact_kind=fact.kind.value if fact.kind else "",
            zone=self.zone,
        )

    def valid_facts(self) -> list[FactView]:
        """Facts not closed, oldest first (ties by id, so runs are repeatable)."""
        views = [self.fact(item) for item in self.items.values() if item.valid_to is None]
        return sorted((v for v in views if v is not None), key=lambda v: (v.time, v.id))

    # writes ---------------------------------------------------------------------------------------------
    def update(self, memory_id: str, fields: dict[str, Any]) -> None:
        self.items[memory_id] = self.items[memory_id].model_copy(update=fields)
        self._updates.setdefault(memory_id, {}).update(fields)

    def insert(self, item: MemoryItem) -> None:
        self.items[item.id] = item
        self._inserts.append(item)

    def link(self, links: Iterable[Link]) -> None:
        self._links.extend(links)

    def delete(self, ids: Iterable[str]) -> None:
        for memory_id in ids:
            self.items.pop(memory_id, None)
            self._updates.pop(memory_id, None)
            self._deletes.append(memory_id)

    def flush(self) -> None:
        """Write what the step decided (nothing in a dry run), then forget it."""
        merges, updates, inserts = self._merges, self._updates, self._inserts
        links, deletes = self._links, self._deletes
        self._merges, self._updates, self._inserts, self._links, self._deletes = [], {}, [], [], []
        if self.dry_run:
            return
        for source, target, reason in merges:
            self.store.merge_entities(self.agent, source, target, reason, self.now)
        if inserts:
            texts = [" ".join(filter(None, [item.text, item.insight])) for item in inserts]
            terms = [terms_of(" ".join([item.text, item.place, *item.keywords])) for item in inserts]
            vectors = self.embedder.embed_passages(texts)
            # planned from what was read before: a merge of facts an erasure took since is not written
            made_from = [item.data.get("merged_from") or [] for item in inserts]
            self.store.apply(Writes(memories=inserts, vectors=vectors, terms=terms, made_from=made_from))
        if updates:
            self.store.update_memories(self.agent, list(updates.items()))
        if links:
            self.store.add_links(self.agent, links)
        if deletes:
            self.store.delete_memories(self.agent, deletes)


_LEADING_VERBS = "喝吃玩看听打去养做弹唱读写逛追抽穿学"
_EN_LEADING = re.compile(r"^(?:to |drinking |eating |playing |watching |reading |listening to |going to )")


def object_stem(value: str) -> str:
    """An object without the verb a preference wraps it in: 喝咖啡 → 咖啡, drinking coffee → coffee.

    >>> object_stem("喝咖啡"), object_stem("咖啡"), object_stem("吃饭"), object_stem("playing chess")
    ('咖啡', '咖啡', '吃饭', 'chess')
    """
    text = norm(value)
    if len(text) >= 3 and text[0] in _LEADING_VERBS:
        return text[1:]
    return _EN_LEADING.sub("", text)


def person_names(person: Person) -> list[str]:
    """Every name a person goes by: id, name and aliases."""
    return [n for n in dict.fromkeys([person.id, person.name, *person.aliases]) if n.strip()]
