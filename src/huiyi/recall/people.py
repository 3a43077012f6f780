"""The agent's persons as recall finds them named in a query: read once per change of their names.

Every group recall asks which members a query names (``routes.named_people``). An agent may have
thousands of person records (an imported group chat makes one per speaker), so the records are read
again only once a write in any process moved the agent's persons version (``Store.persons_version``),
and their names are indexed by their first two characters: a query costs what it holds, not what
the agent has.
"""

from __future__ import annotations

import threading
import weakref
from collections import Counter
from collections.abc import Sequence

from huiyi.flows.extract.rules.roster import filed_as, record_names
from huiyi.model import Entity, EntityType, Person, Scope, new_id
from huiyi.recall import graph as links
from huiyi.store.base import Store
from huiyi.store.rows import trusted
from huiyi.text.nicknames import nickname_forms

__all__ = ["NameIndex", "People", "nicknames", "people_of"]


class NameIndex:
    """Which of some name lists (one per person or entity) have a name the text holds, in time set by the
    text's length; the lists :func:`~huiyi.recall.graph.mentioned` would look at, so handing only those to
    it finds what it would find among all of them.

    >>> index = NameIndex([("苏霓", "霓霓"), ("NekoChan",), ("阿木",)])
    >>> index.held("霓霓最近怎么样"), index.held("nekochan呢"), index.held("没有人")
    ([0], [1], [])
    """

    def __init__(self, names: Sequence[Sequence[str]]) -> None:
        self._by_start: dict[str, list[tuple[str, int]]] = {}
        for position, their in enumerate(names):
            for name in dict.fromkeys(n.lower() for n in their if len(n.strip()) >= 2):
                self._by_start.setdefault(name[:2], []).append((name, position))

    def held(self, text: str) -> list[int]:
        """The positions, in order, of the lists with a name in ``text`` (case aside)."""
        lowered = text.lower()
        found = {
            position
            for at in range(len(lowered) - 1)
            for name, position in self._by_start.get(lowered[at : at + 2], ())
            if lowered.startswith(name, at)
        }
        return sorted(found)


def nicknames(people: Sequence[Sequence[str]]) -> list[list[str]]:
    """For each person (their names), the nicknames of their names (:func:`nickname_forms`) that are theirs
    alone: a nickname two people's names could give, or that is someone's name already, is nobody's.

    >>> nicknames([("陈大川",), ("陈小雨",)])[0][:3]
    ['大川', '川哥', '川姐']
    >>> nicknames([("陈大川",), ("陈小雨",), ("大川",)])[0]  # 大川 is someone's name, 川哥 both could go by
    []
    """
    known = {name for names in people for name in names}
    forms = [list(dict.fromkeys(f for name in names for f in nickname_forms(name))) for names in people]
    count = Counter(form for found in forms for form in found)
    return [[form for form in found if count[form] == 1 and form not in known] for found in forms]


class People:
    """The persons of one agent at one persons version: each as its id and names (id first, then its
    name and aliases), indexed; the name each goes by where their id is none (``filed``: ``10001`` → 小林,
    as the folds file them); and the nicknames they go by beside some list of the scopes' entities."""

    def __init__(self, version: int, persons: Sequence[Person]) -> None:
        self.version = version
        self.names = [
            (p.id, *(n for n in (p.name, *p.aliases) if n and n != p.id)) for p in persons if p.name or p.aliases
        ]
        self.filed = {p.id: name for p in persons if (name := filed_as(p.id, record_names(p.id, p))) != p.id}
        self.index = NameIndex(self.names)
        self._nicknamed: dict[tuple[object, ...], tuple[list[Entity], NameIndex]] = {}
        self._lock = threading.Lock()

    def mentioned(self, scope: Scope, query: str) -> list[Entity]:
        """The persons the query names, as entities of ``scope`` (:func:`~huiyi.recall.graph.mentioned`)."""
        held = [self.names[i] for i in self.index.held(query)]
        return links.mentioned([_as_entity(scope, names[0], list(names[1:])) for names in held], query)

    def nicknamed(self, scope: Scope, entities: Sequence[Entity], query: str) -> list[Entity]:
        """The persons and ``entities`` the query names by a nickname of their names that no one taught
        (川哥, 桐桐), as :func:`~huiyi.recall.graph.mentioned` finds them among those with such nicknames."""
        key = (scope, *((e.id, *e.names) for e in entities))
        with self._lock:
            made = self._nicknamed.get(key)
        if made is None:
            made = self._with_nicknames(scope, entities)
            with self._lock:
                if len(self._nicknamed) >= 64:
                    self._nicknamed.pop(next(iter(self._nicknamed)))
                self._nicknamed[key] = made
        people, index = made
        return links.mentioned([people[i] for i in index.held(query)], query)

    def _with_nicknames(self, scope: Scope, entities: Sequence[Entity]) -> tuple[list[Entity], NameIndex]:
        """Everyone with a nickname of their own, as an entity whose aliases are those nicknames."""
        kept = nicknames([*self.names, *(e.names for e in entities)])
        own = zip(self.names, kept[: len(self.names)], strict=True)
        people = [_as_entity(scope, names[0], found) for names, found in own if found]
        people += [
            entity.model_copy(update={"aliases": found})
            for entity, found in zip(entities, kept[len(self.names) :], strict=True)
            if found
        ]
        return people, NameIndex([person.names for person in people])


def _as_entity(scope: Scope, name: str, aliases: list[str]) -> Entity:
    """A person as an entity of ``scope``, made of names checked when stored: Entity's validator, built at a
    new process's first recall, cost ~30 ms of it, and ``model_construct`` inspects each default factory's
    signature every time (~0.4 ms a person; issue 15)."""
    fields = {"id": new_id("ent"), "scope": scope, "name": name, "type": EntityType.SPECIFIC, "aliases": aliases}
    return trusted(Entity, fields | {"sources": [], "merged_into": None})


# one cache per live store object: a store created later can never read an earlier one's entries
_caches: weakref.WeakKeyDictionary[Store, dict[str, People]] = weakref.WeakKeyDictionary()
_lock = threading.Lock()


def people_of(store: Store, agent: str, version: int | None = None) -> People:
    """The agent's persons, read again only once a write (in any process) moved their version (``version``:
    as the caller read it earlier in the same recall)."""
    if version is None:  # before the list: a write between them only reads it again
        version = store.persons_version(agent)
    with _lock:
        cached = _caches.get(store, {}).get(agent)
    if cached is not None and cached.version == version:
        return cached
    made = People(version, store.list_persons(agent))
    with _lock:
        cache = _caches.setdefault(store, {})
        if len(cache) > 4096:
            cache.clear()
        cache[agent] = made
    return made
