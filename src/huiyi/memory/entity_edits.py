"""Entities by hand (seed 000's official CRUD): created, corrected and deleted one by one, their names
checked against the scope's other entities (facts reach an entity by name)."""

from __future__ import annotations

import itertools
from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import Any

from huiyi.checks import check_name
from huiyi.errors import InvalidInput, NotFound, said
from huiyi.memory.common import _looked_up, _scope_of
from huiyi.memory.indexing import Indexing
from huiyi.model import Entity, EntityMerge, EntityType, MemoryItem, MemoryKind
from huiyi.store.graph import EntityEdit

# what ``update_entity`` may change of an entity
ENTITY_EDITABLE = frozenset({"name", "type", "aliases"})
NAME_CHARS = 200  # the longest entity name or alias
MAX_ALIASES = 100
PAGE = 500  # facts read at a time


class EntityEdits(Indexing):
    """An agent's entities, one at a time."""

    async def get_entity(self, entity_id: str, *, agent: str) -> Entity:
        found = await self._run(self.store.get_entities, agent, [_looked_up(entity_id, "entity id")])
        if not found:
            raise NotFound(f"no entity {entity_id!r} for agent {agent!r}")
        return found[0]

    async def create_entity(
        self,
        name: str,
        *,
        agent: str,
        person: str | None = None,
        space: str | None = None,
        type: EntityType | str = EntityType.SPECIFIC,
        aliases: Sequence[str] = (),
    ) -> Entity:
        """Add an entity to a scope by hand (official when no person or space is named).

        Its name and aliases must be new to the scope: facts reach an entity by name."""
        scope = _scope_of(agent, person, space)
        if isinstance(aliases, str | bytes):  # list("包包") would make 包 and 包 two aliases
            raise InvalidInput("aliases are a list, not one string")
        try:
            entity = Entity(scope=scope, name=name, type=EntityType(type), aliases=list(aliases))
        except ValueError as exc:
            raise InvalidInput(said(exc)) from exc
        return await self._put_checked(_cleaned(entity))

    async def update_entity(self, entity_id: str, changes: Mapping[str, Any], *, agent: str) -> Entity:
        """Correct an entity: its name, type or aliases (replaced as given); the rest stays.

        The store applies the change to the entity as it is when it writes: an alias a fold or a merge
        gave since this call read it stays, and so do its sources."""
        unknown = set(changes) - ENTITY_EDITABLE
        if unknown:
            raise InvalidInput(f"these entity fields cannot be edited: {sorted(unknown)}")
        entity = await self.get_entity(entity_id, agent=agent)
        if entity.merged_into:
            raise InvalidInput(f"entity {entity_id!r} is merged into {entity.merged_into!r}: undo the merge to edit it")
        try:
            new = Entity.model_validate({**entity.model_dump(), **changes})
        except ValueError as exc:
            raise InvalidInput(said(exc)) from exc
        new = _cleaned(new, known=set(entity.names))
        await self._check_names(new)
        edit = EntityEdit(
            name=new.name if "name" in changes else None,
            type=new.type if "type" in changes else None,
            aliases=tuple(new.aliases) if "aliases" in changes else None,
            aliases_read=tuple(entity.aliases),
        )
        vector = await self._run(self.embedder.embed_passages, [new.name]) if "name" in changes else None
        stored = await self._run(self.store.edit_entity, agent, entity_id, edit, None if vector is None else vector[0])
        if stored is None:
            raise NotFound(f"no entity {entity_id!r} for agent {agent!r}")
        return stored

    async def delete_entity(self, entity_id: str, *, agent: str) -> int:
        """Delete an entity, with the entities merged into it and every merge naming them; facts stay.

        Returns how many entities went."""
        entity = await self.get_entity(entity_id, agent=agent)
        if entity.merged_into:
            raise InvalidInput(f"entity {entity_id!r} is merged into {entity.merged_into!r}: undo the merge first")
        scope_entities = await self._run(self.store.list_entities, [entity.scope], True)
        gone = {entity.id}
        while True:  # what was merged into it, and into those
            more = {e.id for e in scope_entities if e.merged_into in gone} - gone
            if not more:
                break
            gone |= more
        return await self._run(self.store.delete_entities, agent, sorted(gone))

    async def _put_checked(self, entity: Entity) -> Entity:
        """Store an entity whose names no other entity of its scope holds."""
        await self._check_names(entity)
        vector = await self._run(self.embedder.embed_passages, [entity.name])
        return await self._run(self.store.upsert_entity, entity, vector[0])

    async def _check_names(self, entity: Entity) -> None:
        """Refuse an entity one of whose names another entity of its scope holds."""
        others = await self._run(self.store.list_entities, [entity.scope], True)
        mine = {e.id for e in others if e.merged_into == entity.id} | {entity.id}
        taken = {n: e for e in others if e.id not in mine and not e.merged_into for n in e.names}
        for name in entity.names:
            if name in taken:
                raise InvalidInput(f"{name!r} already names entity {taken[name].id!r} ({taken[name].name}) here")

    def _reopen_split_facts(self, agent: str, merge: EntityMerge) -> int:
        """Reopen the facts a merge closed: one side's fact superseded by the other side's (霓霓住在杭州 by
        苏霓住在上海 once they were one), once the undo makes them two again; returns how many (helper)."""
        entities = {e.id: e for e in self.store.get_entities(agent, [merge.source, merge.target])}
        if len(entities) < 2:
            return 0
        side = {name: e.id for e in entities.values() for name in e.names}
        facts: list[MemoryItem] = []
        for offset in itertools.count(0, PAGE):  # the scope's facts, closed ones among them
            page = self.store.list_memories([entities[merge.target].scope], [MemoryKind.FACT], PAGE, offset)
            facts.extend(page)
            if len(page) < PAGE:
                break
        by_id = {fact.id: fact for fact in facts}

        def said(fact: MemoryItem) -> datetime:
            return fact.said_at or fact.time or fact.created_at or datetime.min

        def replaced_by_its_own(fact: MemoryItem) -> bool:  # its side said something newer of the same kind
            own, predicate = side.get(fact.fact.subject), fact.fact.predicate
            return any(
                side.get(other.fact.subject) == own and other.fact.predicate == predicate and said(other) > said(fact)
                for other in facts
            )

        reopened = [
            (fact.id, {"valid_to": None, "data": {k: v for k, v in fact.data.items() if k != "superseded_by"}})
            for fact in facts
            if fact.valid_to is not None
            and (newer := by_id.get(str(fact.data.get("superseded_by", "")))) is not None
            and side.get(fact.fact.subject) not in (None, side.get(newer.fact.subject))
            and newer.fact.subject in side
            and not replaced_by_its_own(fact)
        ]
        return self.store.update_memories(agent, reopened) if reopened else 0


def _cleaned(entity: Entity, known: set[str] | frozenset[str] = frozenset()) -> Entity:
    """An entity's names trimmed, checked and without repeats (the name is not its own alias); ``known``:
    names it holds already, as extraction wrote them (Zoë spelt apart), which an edit of its type keeps."""
    name = entity.name.strip()
    aliases = [a.strip() for a in entity.aliases]
    if not name:
        raise InvalidInput("an entity needs a name")
    if any(not a for a in aliases):
        raise InvalidInput("an alias is empty")
    if len(aliases) > MAX_ALIASES:
        raise InvalidInput(f"an entity has at most {MAX_ALIASES} aliases")
    if any(len(n) > NAME_CHARS for n in [name, *aliases]):
        raise InvalidInput(f"a name or alias has at most {NAME_CHARS} characters")
    try:  # names reach prompts: printable and composed, as a person's are
        for each in [name, *aliases]:
            if each not in known:
                check_name(each, "an entity's name or alias")
    except ValueError as exc:
        raise InvalidInput(said(exc)) from exc
    kept = [a for a in dict.fromkeys(aliases) if a != name]
    return entity.model_copy(update={"name": name, "aliases": kept})
