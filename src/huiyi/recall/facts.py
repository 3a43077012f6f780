"""Recalled facts in groups, in the order seed 000 §7 shows them; one rule for the prompt and for /query.

1. the person's attributes, 2. the person's relations, one group per object, 3. the agent's attributes,
4. the agent's relations, one group per object, then per entity 5. its attributes and 6. its relations;
facts with no subject come last. A fact belongs to the person when its subject is the person or one of
their names, to the agent when its subject is the agent, one of its names, or of type 主体; any other
subject is an entity. A relation with no object is listed with the attributes.

Render lays the groups out in the prompt (:mod:`huiyi.recall.render`); ``/query`` labels its facts by
them (用户属性, 主体关系…).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any, Generic, TypeVar

from huiyi.model import EntityType, FactData
from huiyi.patterns import lazy
from huiyi.recall.fence import one_line

__all__ = ["FactGroup", "Owner", "group_facts", "heading_object", "tellers"]

T = TypeVar("T")


class Owner(StrEnum):
    """Whose facts a group holds."""

    PERSON = "person"
    AGENT = "agent"
    ENTITY = "entity"
    NONE = "none"  # facts with no subject


@dataclass
class FactGroup(Generic[T]):
    """One numbered group of seed 000 §7: its owner, the subject's shown name, and its facts in the
    order given (render dates and sorts relations itself)."""

    owner: Owner
    name: str
    relation: bool
    object: str = ""  # the person's and the agent's relations: the object the group shares
    items: list[T] = field(default_factory=list)


class _Subject(Generic[T]):
    def __init__(self, owner: Owner, name: str) -> None:
        self.owner, self.name = owner, name
        self.attributes: list[T] = []
        self.relations: dict[str, list[T]] = {}

    def add(self, item: T, fact: FactData) -> None:
        obj = fact.object.strip()
        if fact.is_relation and obj:
            self.relations.setdefault(obj, []).append(item)
        else:
            self.attributes.append(item)

    def groups(self) -> list[FactGroup[T]]:
        out = [FactGroup(self.owner, self.name, False, items=self.attributes)]
        if self.owner is Owner.ENTITY:  # an entity's relations are one group, whatever their objects
            out.append(FactGroup(self.owner, self.name, True, items=[i for g in self.relations.values() for i in g]))
        else:
            out.extend(FactGroup(self.owner, self.name, True, obj, items) for obj, items in self.relations.items())
        return [group for group in out if group.items]


def group_facts(
    facts: Iterable[tuple[T, FactData]],
    *,
    agent: str,
    person: str | None,
    agent_names: Sequence[str] = (),
    person_names: Sequence[str] = (),
) -> list[FactGroup[T]]:
    """``facts`` (each anything, with its edge) in seed 000 §7 groups; empty groups are left out.

    Shown names are the first of ``person_names`` / ``agent_names``, else the id.
    """
    persons = {n for n in [person or "", *person_names] if n} if person else set()
    agents = {n for n in [agent, *agent_names] if n}
    user: _Subject[T] = _Subject(Owner.PERSON, next((n for n in person_names if n), person or ""))
    me: _Subject[T] = _Subject(Owner.AGENT, next((n for n in agent_names if n), agent))
    entities: dict[str, _Subject[T]] = {}
    others: list[T] = []
    for item, fact in facts:
        subject = fact.subject.strip()
        if not subject:
            others.append(item)
        elif subject in persons:
            user.add(item, fact)
        elif subject in agents or fact.subject_type is EntityType.SUBJECT:
            me.add(item, fact)
        else:
            entities.setdefault(subject, _Subject(Owner.ENTITY, subject)).add(item, fact)
    groups = [*user.groups(), *me.groups()]
    for entity in entities.values():
        groups.extend(entity.groups())
    if others:
        groups.append(FactGroup(Owner.NONE, "", False, items=others))
    return groups


# a thing's own word before it (a bakery, my mom's): no article to add
_EN_DETERMINED = lazy(r"^(?:a|an|the|my|his|her|their|our|your|this|that|these|those|some)\s|^\S+'s\s", re.IGNORECASE)


def heading_object(obj: str, english: bool, types: Iterable[EntityType | None] = ()) -> str:
    """The object of a relation group as its English heading names it: a bare thing with "the" (Liz and the cat,
    not Liz and cat); a name, even in lower case (a SPECIFIC among ``types``: works at google), a Chinese word or
    a thing with its article as it is."""
    if not english or EntityType.SPECIFIC in types or not obj[:1].islower() or _EN_DETERMINED.match(obj):
        return obj
    return f"the {obj}"


def tellers(data: Mapping[str, Any], joiner: str) -> str:
    """The members who told a group a fact about another member or the agent (``told_by``, written by
    :func:`huiyi.flows.extract.hearsay.told_by`), joined for the prompt; empty for anyone's own word."""
    told = data.get("told_by")
    if not isinstance(told, list):
        return ""
    return joiner.join(one_line(name) for name in told if isinstance(name, str) and name.strip())
