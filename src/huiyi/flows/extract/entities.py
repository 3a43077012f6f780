"""Recording the entities an extraction names: persons, the agent, things and concepts.

An entity's id comes from its scope and normalised name, so naming 团子 in ten folds updates one
row; aliases accumulate. Two people whose names only normalise alike (members ``Bob`` and ``bob``, ``小雨`` and
``⼩雨``) are two: the one the normalised id names first keeps it, the other's id is of its exact name.
Facts name their subject (and entity objects), so those become entities too.
Merging different names of one thing (霓霓 → 苏霓) is consolidation's job, not this one's.
"""

from __future__ import annotations

import hashlib
import unicodedata
from collections.abc import Sequence

from huiyi.flows.extract import Extraction, Fold
from huiyi.model import Entity, EntityType, Scope
from huiyi.providers.embed import Embedder
from huiyi.store.base import Store, Vectors


def normalise_name(name: str) -> str:
    return unicodedata.normalize("NFKC", name).strip().lower()


def entity_id(scope: Scope, name: str) -> str:
    key = f"{scope.agent}\x1f{scope.tag}\x1f{normalise_name(name)}"
    return f"ent_{hashlib.blake2b(key.encode(), digest_size=10).hexdigest()}"


def exact_entity_id(scope: Scope, name: str) -> str:
    """The id of a person whose normalised name's id is another person's (``bob`` beside ``Bob``)."""
    key = f"{scope.agent}\x1f{scope.tag}\x1f{name}\x1fexact"
    return f"ent_{hashlib.blake2b(key.encode(), digest_size=10).hexdigest()}"


def _other_person(entity: Entity | None, name: str, kind: EntityType) -> bool:
    """Whether ``entity`` is a person other than the one named ``name``: ids are exact, names only print alike."""
    return entity is not None and kind is EntityType.OBJECT and entity.type is kind and entity.name != name


def entities_of(extraction: Extraction, fold: Fold) -> list[Entity]:
    """Every entity an extraction names, once, with the aliases it gave."""
    found: dict[str, Entity] = {}

    def note(name: str, kind: EntityType, aliases: Sequence[str] = (), sources: Sequence[str] = ()) -> None:
        name = name.strip()
        if not name:
            return
        key = entity_id(fold.scope, name)
        if _other_person(found.get(key), name, kind):
            key = exact_entity_id(fold.scope, name)
        entity = found.get(key)
        if entity is None:
            entity = Entity(id=key, scope=fold.scope, name=name, type=kind)
            found[key] = entity
        entity.aliases = list(dict.fromkeys([*entity.aliases, *(a for a in aliases if a and a != name)]))
        entity.sources = list(dict.fromkeys([*entity.sources, *sources]))

    claimed = speakers_names(fold)
    for draft in extraction.entities:
        aliases = _unclaimed(draft.name, draft.aliases, claimed)
        note(draft.name, draft.type, aliases, _naming(fold, [draft.name, *aliases]))
    for fact in extraction.facts:
        note(fact.subject, fact.subject_type, sources=fact.sources)
        if fact.object_type is not None:
            note(fact.object, fact.object_type, sources=fact.sources)
    return list(found.values())


def _naming(fold: Fold, names: Sequence[str]) -> list[str]:
    """The fold's messages that name the entity: erasing them all erases it (a place only 木木 named in a
    group stayed, sourceless, after 木木 was forgotten)."""
    names = [name.strip() for name in names if name.strip()]
    return [message.id for message in fold.messages if any(name in message.text for name in names)]


def record_entities(store: Store, embedder: Embedder, entities: Sequence[Entity]) -> None:
    """Add entities, keeping names and aliases already known (idempotent). The store adds the names in its
    write: read here and written whole, a name a merge or another writer gave meanwhile was lost."""
    named, vectors = entity_names(store, embedder, entities)
    if vectors is None:
        return
    for entity, vector in zip(named, vectors, strict=True):
        store.add_entity_names(entity, vector)


def entity_names(store: Store, embedder: Embedder, entities: Sequence[Entity]) -> tuple[list[Entity], Vectors | None]:
    """The entities under the ids they are stored by, and their vectors (None: no entity), for
    ``add_entity_names`` (or ``Writes.entities``, which adds them the same way in a fold's commit)."""
    if not entities:
        return [], None
    scopes = list({e.scope for e in entities})
    known = {e.id: e for e in store.list_entities(scopes, include_merged=True)}
    entities = [_own_id(entity, known) for entity in entities]
    return entities, embedder.embed_passages([e.name for e in entities])


def _own_id(entity: Entity, known: dict[str, Entity]) -> Entity:
    """A person under the id no other person holds: the normalised name's, unless a stored person of another
    exact name has it (then the exact name's); the same choice in every fold."""
    if entity.type is not EntityType.OBJECT:
        return entity
    shared = entity_id(entity.scope, entity.name)
    wanted = (
        exact_entity_id(entity.scope, entity.name)
        if _other_person(known.get(shared), entity.name, entity.type)
        else shared
    )
    if entity.id == wanted or (entity.id != shared and shared not in known):
        return entity  # a fold's second look-alike keeps its exact id while the first takes the shared one
    return entity.model_copy(update={"id": wanted})


def speakers_names(fold: Fold) -> dict[str, str]:
    """Each name of someone who spoke in the fold (normalised) -> their id; a name two give is nobody's.
    The agent's name is always claimed, silent or not: a member called by it would be taken for it."""
    out: dict[str, str] = {}
    shared: set[str] = set()
    for speaker in dict.fromkeys([fold.agent, *(m.speaker for m in fold.messages)]):
        for name in {normalise_name(n) for n in fold.aliases.get(speaker, [speaker]) if n.strip()}:
            if out.setdefault(name, speaker) != speaker:
                shared.add(name)
    return {name: who for name, who in out.items() if name not in shared}


def _unclaimed(name: str, aliases: Sequence[str], claimed: dict[str, str]) -> list[str]:
    """``aliases`` without the names of a speaker other than the one ``name`` is: who spoke is who they are,
    so 小黑's 叫我苏霓, learnt before 苏霓 spoke, falls once she does."""
    own = claimed.get(normalise_name(name))
    return [a for a in aliases if claimed.get(normalise_name(a), own) == own]


def release_names(store: Store, fold: Fold) -> None:
    """Take the fold's speakers' names off the aliases other entities of its scope hold (see ``_unclaimed``);
    only those names go, so an alias given since the read stays."""
    for agent, entity_id, names in released_names(store, fold):
        store.drop_entity_aliases(agent, entity_id, names)


def released_names(store: Store, fold: Fold) -> list[tuple[str, str, list[str]]]:
    """(agent, entity id, aliases) that ``release_names`` takes off, for ``drop_entity_aliases`` (or
    ``Writes.dropped_aliases``, which drops them the same way in a fold's commit)."""
    claimed = speakers_names(fold)
    out: list[tuple[str, str, list[str]]] = []
    for entity in store.list_entities([fold.scope]):
        kept = set(_unclaimed(entity.name, entity.aliases, claimed))
        if released := [a for a in entity.aliases if a not in kept]:
            out.append((fold.agent, entity.id, released))
    return out
