"""The store contract for the graph: entities, their merges, and links between memories.

Apart from ``huiyi.store.base`` (which joins it into ``Store``) only for the length of that module.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING, Protocol, runtime_checkable

from huiyi.model import Entity, EntityMerge, EntityType, Link, Scope
from huiyi.store.pages import EntityMarked

if TYPE_CHECKING:
    from huiyi.store.base import Vectors


@dataclass(frozen=True)
class EntityEdit:
    """A correction by hand: a new name or type (None: as stored), and the aliases wanted (None: as
    stored) instead of ``aliases_read``, the ones the editor saw. The store applies it to the row as it is
    when it writes: an alias given since the read stays, one taken off since stays off."""

    name: str | None = None
    type: EntityType | None = None
    aliases: tuple[str, ...] | None = None
    aliases_read: tuple[str, ...] = ()


@runtime_checkable
class GraphStore(Protocol):
    """Entities, their merges, and links between memories."""

    def upsert_entity(self, entity: Entity, vector: Vectors) -> Entity:
        """Insert an entity, or (same scope and id) replace its name, type, aliases and vector."""

    def add_entity_names(self, entity: Entity, vector: Vectors) -> Entity:
        """Insert an entity, or (same scope and id) add its aliases and sources to the stored ones in one
        write, keeping the stored name, type, merge and every name given meanwhile; returns it as stored."""

    def drop_entity_aliases(self, agent: str, entity_id: str, names: Sequence[str]) -> Entity | None:
        """Take ``names`` off the entity's aliases in one write (others given meanwhile stay); None if unknown."""

    def edit_entity(self, agent: str, entity_id: str, edit: EntityEdit, vector: Vectors | None) -> Entity | None:
        """Apply ``edit`` to the entity in one write (``vector``: its new name's, None to keep the stored one);
        returns it as stored, None if unknown. One merged into another is refused (``InvalidInput``)."""

    def list_entities(self, scopes: Sequence[Scope], include_merged: bool = False) -> list[Entity]: ...

    def entities_version(self, scopes: Sequence[Scope]) -> int: ...  # grows at each write to their entities, anywhere

    def page_entities(
        self, scopes: Sequence[Scope], include_merged: bool, limit: int, after: int | None
    ) -> list[EntityMarked]:
        """``list_entities`` from just after the row number ``after`` (None: the first), each with its own."""

    def similar_entities(self, scopes: Sequence[Scope], vector: Vectors, limit: int) -> list[tuple[Entity, float]]:
        """The entities (not merged away) of the scopes nearest to ``vector``: a bounded merge candidate set."""

    def merge_entities(self, agent: str, source: str, target: str, reason: str, when: datetime) -> EntityMerge:
        """Merge ``source`` into ``target``: the target gains the source's names; the merge is recorded."""

    def undo_merge(self, agent: str, merge_id: str) -> EntityMerge:
        """Split a merged entity back out, restoring both entities' names as they were."""

    def list_merges(self, agent: str) -> list[EntityMerge]: ...

    def get_entities(self, agent: str, ids: Sequence[str]) -> list[Entity]:
        """The agent's entities by id (merged-away ones too), in the order asked; unknown ids are left out."""

    def delete_entities(self, agent: str, ids: Sequence[str]) -> int:
        """Delete the agent's entities and every merge that names one of them; returns how many went."""

    def add_links(self, agent: str, links: Sequence[Link]) -> int:
        """Add memory-to-memory links (existing ones are kept); returns how many are new."""

    def links_of(self, agent: str, ids: Sequence[str]) -> list[Link]:
        """Every link touching these memories, in either direction."""
