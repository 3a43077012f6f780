"""What an import file holds, as typed lines gathered into a plan checked before anything is written."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from huiyi.checks import TimeIn
from huiyi.model import EntityType, LinkKind, MemoryKind, Person, Role

__all__ = [
    "LINE_MODELS",
    "STATE_FIELDS",
    "Batch",
    "BlockLine",
    "EntityLine",
    "LinkLine",
    "MemoryLine",
    "MergeLine",
    "MessageLine",
    "PersonLine",
    "Plan",
    "WorkingLine",
]

# what recall and forgetting have made of a memory since it was written (export version 2)
STATE_FIELDS = ("strength", "access_count", "last_access", "feedback", "created_at")


class _Line(BaseModel):
    model_config = ConfigDict(extra="ignore")

    agent: str | None = None
    person: str | None = None
    space: str | None = None


class MessageLine(_Line):
    type: Literal["message"] = "message"
    text: str
    role: Role = "user"
    speaker: str | None = None
    time: TimeIn | None = None
    id: str | None = None


class MemoryLine(_Line):
    type: Literal["memory"]
    text: str
    kind: MemoryKind = MemoryKind.NOTE
    time: TimeIn | None = None
    importance: float = Field(default=0.5, ge=0.0, le=1.0)
    keywords: list[str] = Field(default_factory=list)
    sources: list[str] = Field(default_factory=list)
    data: dict[str, Any] = Field(default_factory=dict)
    id: str | None = None
    place: str = ""
    insight: str = ""
    participants: list[str] = Field(default_factory=list)
    valid_to: TimeIn | None = None  # a fact's: when it was closed
    said_at: TimeIn | None = None  # when it was said, if ``time`` is another day it is about (a plan)
    # its state (STATE_FIELDS); None where a file does not say (one written by hand or by another app)
    strength: float | None = Field(default=None, ge=0.0, allow_inf_nan=False)
    access_count: int | None = Field(default=None, ge=0)
    last_access: TimeIn | None = None  # wall clock in the configured zone, as recall stamps it
    feedback: float | None = Field(default=None, allow_inf_nan=False)
    created_at: TimeIn | None = None  # when the row was written: UTC, zone-less

    def state(self) -> dict[str, Any]:
        """The state fields the line gives."""
        return {name: value for name in STATE_FIELDS if (value := getattr(self, name)) is not None}


class PersonLine(_Line):
    type: Literal["person"]
    id: str
    name: str = ""
    aliases: list[str] = Field(default_factory=list)
    platform_ids: dict[str, str] = Field(default_factory=dict)


class EntityLine(_Line):
    """An entity of the scope as stored, with its aliases; ``merged_into`` set while merged away."""

    type: Literal["entity"]
    id: str
    name: str
    entity_type: EntityType = EntityType.SPECIFIC
    aliases: list[str] = Field(default_factory=list)
    sources: list[str] = Field(default_factory=list)
    merged_into: str | None = None


class BlockLine(_Line):
    """One person's own core block (``human``), as core_block_append/replace left it."""

    type: Literal["block"]
    person: str
    label: str = Field(min_length=1)
    text: str


class WorkingLine(_Line):
    """Where a chat's working memory starts: the first message not yet handed to extraction (None: none)."""

    type: Literal["working"]
    first: str | None = None


class LinkLine(_Line):
    type: Literal["link"]
    source: str
    target: str
    kind: LinkKind = LinkKind.RELATED
    weight: float = 1.0
    # an end that is a chunk: the message it is anchored at, since the import rebuilds chunks from messages
    source_anchor: str | None = None
    target_anchor: str | None = None


class MergeLine(_Line):
    type: Literal["merge"]
    id: str
    source: str
    target: str
    reason: str = ""
    at: TimeIn | None = None
    undone: bool = False


LINE_MODELS: dict[str, type[_Line]] = {
    "message": MessageLine,
    "memory": MemoryLine,
    "person": PersonLine,
    "entity": EntityLine,
    "link": LinkLine,
    "merge": MergeLine,
    "block": BlockLine,
    "working": WorkingLine,
}


@dataclass
class Batch:
    """Consecutive messages of one chat, added in one call."""

    agent: str
    person: str | None
    space: str | None
    messages: list[dict[str, Any]] = field(default_factory=list)
    lines: list[int] = field(default_factory=list)  # each message's line in the file, from a reader that numbers them

    def line_of(self, index: int) -> int | None:
        """The file line of message ``index``, when its reader numbered them."""
        return self.lines[index] if len(self.lines) == len(self.messages) else None


@dataclass
class Plan:
    """What a file holds, checked before anything is written."""

    batches: list[Batch] = field(default_factory=list)
    memories: list[tuple[str, MemoryLine]] = field(default_factory=list)  # (agent, line)
    persons: list[tuple[str, Person]] = field(default_factory=list)
    entities: list[tuple[str, EntityLine]] = field(default_factory=list)
    links: list[tuple[str, LinkLine]] = field(default_factory=list)
    merges: list[tuple[str, MergeLine]] = field(default_factory=list)
    blocks: list[tuple[str, BlockLine]] = field(default_factory=list)
    # (agent, chat scope tag) -> the id of the first message of its working memory, None when empty
    working: dict[tuple[str, str], str | None] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    export: bool = False

    @property
    def size(self) -> int:
        return sum(len(b.messages) for b in self.batches) + len(self.memories)

    def add_message(
        self, agent: str, person: str | None, space: str | None, message: dict[str, Any], line: int | None = None
    ) -> None:
        last = self.batches[-1] if self.batches else None
        if last is None or (last.agent, last.person, last.space) != (agent, person, space):
            last = Batch(agent, person, space)
            self.batches.append(last)
        last.messages.append(message)
        if line is not None:
            last.lines.append(line)
