"""The vocabulary of huiyi as typed models. Knows no storage, HTTP or LLM.

Every stored item carries its scope (whose memory it is) and its provenance
(the ids of the messages it came from).
"""

# no `from __future__ import annotations`: the models' field types stay objects, which pydantic would otherwise
# compile and evaluate from strings, one by one, at import (issue 15)

import uuid
from collections.abc import Mapping
from datetime import datetime
from enum import StrEnum
from typing import Any, Literal, TypeVar

from pydantic import AliasChoices, BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from huiyi.checks import Time, TimeIn, check_data, check_message_ids, check_scope, check_storable, check_text

Role = Literal["user", "assistant"]


def new_id(prefix: str) -> str:
    """A short random id with a readable prefix, e.g. ``ev_3f2a…``."""
    return f"{prefix}_{uuid.uuid4().hex[:20]}"


class _Model(BaseModel):  # defer_build: each validator is built at first use, not at `import huiyi`
    model_config = ConfigDict(extra="forbid", validate_assignment=True, defer_build=True)


_Data = TypeVar("_Data", bound=BaseModel)
_E = TypeVar("_E", bound=StrEnum)


class ScopeKind(StrEnum):
    OFFICIAL = "official"  # curated for the agent (官方数据库)
    PERSON = "person"  # agent × person (用户数据库)
    SPACE = "space"  # agent × group


class Scope(_Model):
    """Whose memory an item is. Recall sees official plus the caller's own scopes, nothing else.

    A scope is also the identity of a conversation: a private chat is the person's scope, a group
    the space's. Its kind is a typed field, so a group named ``person:bob`` or ``dm:bob`` can never
    be bob's private chat.
    """

    model_config = ConfigDict(frozen=True, extra="forbid", defer_build=True)

    agent: str
    kind: ScopeKind
    key: str = ""  # person id or space id; empty for official

    @model_validator(mode="after")
    def _valid_ids(self) -> "Scope":
        check_scope(self.agent, self.kind.value, self.key)
        return self

    @classmethod
    def _checked(cls, agent: str, kind: ScopeKind, key: str = "", *, stored: bool = False) -> "Scope":
        """The scope of typed parts, checked as the validator checks them but without pydantic: building
        its validator and finding its plugins cost a new process's first recall ~40 ms (issue 15)."""
        check_scope(agent, kind.value, key, stored=stored)
        return cls.model_construct(agent=agent, kind=kind, key=key)

    @classmethod
    def official(cls, agent: str) -> "Scope":
        return cls._checked(agent, ScopeKind.OFFICIAL)

    @classmethod
    def of_person(cls, agent: str, person: str, *, stored: bool = False) -> "Scope":
        """``stored``: a person already in the store, whose id may predate the rule ids print alike by."""
        return cls._checked(agent, ScopeKind.PERSON, person, stored=stored)

    @classmethod
    def of_space(cls, agent: str, space: str) -> "Scope":
        return cls._checked(agent, ScopeKind.SPACE, space)

    @property
    def tag(self) -> str:
        """The scope within its agent as one string: ``official``, ``person:木木``, ``space:g1``."""
        return self.kind.value if self.kind is ScopeKind.OFFICIAL else f"{self.kind.value}:{self.key}"

    @classmethod
    def from_tag(cls, agent: str, tag: str) -> "Scope":
        """The scope a stored tag names (tags are written by huiyi from a typed scope, never by callers; one
        written before ids had to print alike, ``checks.check_id``, still reads)."""
        kind, _, key = tag.partition(":")
        return cls._checked(agent, ScopeKind(kind), key, stored=True)

    @classmethod
    def of_chat(cls, agent: str, person: str | None, space: str | None) -> "Scope":
        """The conversation a caller names: a group when ``space`` is given, else the private chat."""
        if space:
            return cls.of_space(agent, space)
        if person:
            return cls.of_person(agent, person)
        raise ValueError("name a person (private chat) or a space (group chat)")

    @property
    def space_id(self) -> str:
        """The internal id of this conversation's space: its tag, so the kind is part of the identity."""
        if self.kind is ScopeKind.OFFICIAL:
            raise ValueError("the official scope is not a conversation")
        return self.tag


def visible_scopes(agent: str, person: str | None = None, space: str | None = None) -> list[Scope]:
    """The scopes one recall may read: the agent's official memories plus the caller's own. An empty id is
    refused (ValueError), not read as none: a bot whose group id came out empty would read and write the
    official memories every chat sees."""
    scopes = [Scope.official(agent)]
    if person is not None:
        scopes.append(Scope.of_person(agent, person))
    if space is not None:
        scopes.append(Scope.of_space(agent, space))
    return scopes


class Agent(_Model):
    id: str
    name: str = ""


class Person(_Model):
    id: str
    name: str = ""
    aliases: list[str] = Field(default_factory=list)
    platform_ids: dict[str, str] = Field(default_factory=dict)


class SpaceKind(StrEnum):
    PRIVATE = "private"
    GROUP = "group"


class Space(_Model):
    id: str
    kind: SpaceKind = SpaceKind.PRIVATE
    name: str = ""
    members: list[str] = Field(default_factory=list)


class MessageIn(_Model):
    """One utterance as a caller hands it to ``add``.

    ``speaker`` (or a chat API's ``name``) defaults to the person (user) or the agent (assistant) of a
    private chat, and must be given in a group; ``text`` may come as ``content``; ``id`` makes re-sending idempotent.
    """

    text: str = Field(validation_alias=AliasChoices("text", "content"))
    role: Role = "user"
    speaker: str | None = Field(default=None, validation_alias=AliasChoices("speaker", "name"))
    time: TimeIn | None = None
    id: str | None = None

    @field_validator("text")
    @classmethod
    def _storable(cls, value: str) -> str:
        return check_text(value, "message")

    @model_validator(mode="after")
    def _printable_ids(self) -> "MessageIn":
        check_message_ids(self.speaker, self.id)
        return self


class Message(_Model):
    """A stored raw utterance: the recall log.

    ``space`` is the internal id of its conversation, always ``scope.space_id``: a private chat and a
    group can never share a log, whatever ids the caller chose.
    """

    id: str
    agent: str
    space: str
    scope: Scope
    speaker: str
    role: Role
    text: str
    time: Time
    seq: int = 0  # position in the space's log

    @model_validator(mode="after")
    def _space_is_scope(self) -> "Message":
        if self.scope.agent != self.agent or self.space != self.scope.space_id:
            raise ValueError(f"message {self.id!r}: its space must be its scope's ({self.scope.tag!r})")
        return self


class MemoryKind(StrEnum):
    CHUNK = "chunk"  # a few consecutive turns of one space, kept verbatim
    EVENT = "event"  # 记忆事件
    FACT = "fact"  # subject —predicate→ object
    SUMMARY = "summary"
    NOTE = "note"  # written by a caller or a tool, e.g. an official memory


class MemoryItem(_Model):
    """A recallable memory: the one row shape every route searches.

    Events, facts, chunks and summaries share it; kind-specific fields live in ``data``.
    """

    id: str = Field(default_factory=lambda: new_id("mem"))
    scope: Scope
    kind: MemoryKind
    text: str
    time: Time | None = None  # when it happened (events) or was said (chunks)
    place: str = ""
    participants: list[str] = Field(default_factory=list)
    keywords: list[str] = Field(default_factory=list)
    insight: str = ""  # deep insight of an event
    importance: float = Field(default=0.5, ge=0.0, le=1.0)
    strength: float = 1.0
    access_count: int = 0
    last_access: Time | None = None
    created_at: Time | None = None
    sources: list[str] = Field(default_factory=list)  # message ids or external ids (provenance)
    data: dict[str, Any] = Field(default_factory=dict)
    feedback: float = 0.0  # the sum of callers' feedback on this memory (seed 001 §2.4)
    valid_to: Time | None = None  # facts: when a newer contradicting fact closed this one
    said_at: Time | None = None  # when said, if ``time`` is another day or a later hour (a plan); else None

    @field_validator("text")
    @classmethod
    def _storable(cls, value: str) -> str:
        return check_text(value, "memory")

    @model_validator(mode="after")
    def _storable_parts(self) -> "MemoryItem":  # a write that failed on one of these lost an update
        check_data(self.data)
        for name in ("place", "insight", "keywords", "participants", "sources"):
            for part in [value] if isinstance(value := getattr(self, name), str) else value:
                check_storable(part, f"memory {name}")
        return self

    @property
    def fact(self) -> "FactData":
        """The edge of a fact (empty for other kinds)."""
        return FactData.of(self)

    @property
    def summary(self) -> "SummaryData":
        """What a summary keeps beside its text (empty for other kinds)."""
        return SummaryData.of(self)


class EntityType(StrEnum):
    SUBJECT = "主体"  # the agent
    OBJECT = "客体"  # a person the agent talks with
    SPECIFIC = "具体实体"
    GENERIC = "泛化实体"


class Entity(_Model):
    id: str = Field(default_factory=lambda: new_id("ent"))
    scope: Scope
    name: str
    type: EntityType = EntityType.SPECIFIC
    aliases: list[str] = Field(default_factory=list)
    sources: list[str] = Field(default_factory=list)
    merged_into: str | None = None  # set while this entity is merged into another (reversible)

    @property
    def names(self) -> list[str]:
        return [self.name, *(a for a in self.aliases if a != self.name)]


class EntityMerge(_Model):
    """A recorded merge of one entity into another, so it can be inspected and undone."""

    id: str = Field(default_factory=lambda: new_id("merge"))
    agent: str
    source: str  # entity id merged away
    target: str  # entity id kept
    reason: str = ""
    at: Time | None = None
    undone: bool = False


class FactKind(StrEnum):
    ATTRIBUTE = "attribute"
    RELATION = "relation"
    OPINION = "opinion"
    PREFERENCE = "preference"


def _lenient(model: type[_Data], data: Mapping[str, Any]) -> _Data:
    """Stored data as a typed model; a key holding something unreadable is left out, not fatal."""
    try:
        return model.model_validate(data)
    except ValidationError as error:
        bad = {str(e["loc"][0]) for e in error.errors() if e["loc"]}
        return model.model_validate({k: v for k, v in data.items() if k not in bad})


def _member(enum: type[_E], value: Any) -> _E | None:
    try:
        return enum(value) if value not in (None, "") else None
    except ValueError:  # a value no version of huiyi wrote: read as unknown
        return None


class FactData(BaseModel):
    """A fact's edge, kept in ``MemoryItem.data`` of a memory of kind fact.

    Written by :meth:`into` only, read by :meth:`of` only. The stored key names are the ones huiyi
    always wrote (the kind as ``fact_kind``); other keys of ``data`` (``space``, ``merged_from``…) are
    left alone. ``valid_to`` lives in the item's own column, which the store filters on; :meth:`of`
    fills it from there and :meth:`into` never writes it.
    """

    model_config = ConfigDict(frozen=True, extra="ignore", populate_by_name=True, defer_build=True)

    subject: str = ""  # a name: the person, the agent or another entity
    subject_type: EntityType | None = None
    predicate: str = ""
    object: str = ""
    object_type: EntityType | None = None  # None: the object is a literal, not an entity
    kind: FactKind | None = Field(default=None, validation_alias="fact_kind")
    keyword: str = ""
    valid_from: Time | None = None  # when it became true, if said
    valid_to: Time | None = None  # when a newer contradicting fact closed it
    confidence: float | None = Field(default=None, ge=0.0, le=1.0)  # None: stored before it was kept

    @field_validator("subject", "predicate", "object", "keyword", mode="before")
    @classmethod
    def _text(cls, value: Any) -> str:
        return "" if value is None else str(value)

    @field_validator("subject_type", "object_type", mode="before")
    @classmethod
    def _entity_type(cls, value: Any) -> EntityType | None:
        return _member(EntityType, value)

    @field_validator("kind", mode="before")
    @classmethod
    def _kind(cls, value: Any) -> FactKind | None:
        return _member(FactKind, value)

    @classmethod
    def of(cls, item: MemoryItem) -> "FactData":
        return cls.from_data(item.data, item.valid_to)

    @classmethod
    def from_data(cls, data: Mapping[str, Any], valid_to: datetime | None = None) -> "FactData":
        """The edge in a ``data`` mapping (e.g. a recall hit's), with the validity end given apart."""
        return _lenient(cls, {**data, "valid_to": valid_to})

    @property
    def is_relation(self) -> bool:
        return self.kind is FactKind.RELATION

    def into(self, data: Mapping[str, Any] | None = None) -> dict[str, Any]:
        """``data`` with this edge written into it, ready for ``MemoryItem.data``."""
        out = dict(data or {})
        out.update(
            subject=self.subject,
            subject_type=self.subject_type.value if self.subject_type else None,
            predicate=self.predicate,
            object=self.object,
            object_type=self.object_type.value if self.object_type else None,
            fact_kind=self.kind.value if self.kind else None,
            keyword=self.keyword,
        )
        if self.valid_from is not None:
            out["valid_from"] = self.valid_from.isoformat(sep=" ")
        if self.confidence is not None:
            out["confidence"] = self.confidence
        return out


class LinkKind(StrEnum):
    CAUSE = "cause"
    REFERENCE = "reference"
    RELATED = "related"


class Link(_Model):
    source: str  # memory id
    target: str  # memory id
    kind: LinkKind = LinkKind.RELATED
    weight: float = 1.0


class SummaryKind(StrEnum):
    DAILY = "daily"
    GLOBAL = "global"
    DAILY_PERSONALITY = "daily_personality"
    GLOBAL_PERSONALITY = "global_personality"
    DIARY = "diary"
    PROFILE = "profile"


class SummaryData(BaseModel):
    """What a summary keeps in ``MemoryItem.data`` (kind summary) beside its text.

    Written by :meth:`into` only, read by :meth:`of` only. Only the fields a summary was given are
    written, so each kind keeps the keys it always had; the kind is stored as ``summary_kind``.
    """

    model_config = ConfigDict(extra="ignore", populate_by_name=True, defer_build=True)

    kind: SummaryKind | None = Field(default=None, validation_alias="summary_kind", serialization_alias="summary_kind")
    period: str = ""  # the day it covers, e.g. "2023-05-08"; rolling summaries: the last day folded in
    first: str | None = None  # rolling summaries: the first day folded in
    # global summary: how many days it folds; profiles: each day's contribution by day
    days: int | dict[str, Any] | None = None
    space: str | None = None  # the space it was written in; None for a global profile
    person: str | None = None  # personalities and profiles: whose
    language: str | None = None
    highlights: list[dict[str, Any]] | None = None  # daily summary: what it chose, with when it was said
    moods: dict[str, Any] | None = None
    traits: list[str] | None = None
    topics: list[str] | None = None
    base: dict[str, Any] | None = None  # an LLM-written rolling summary: the text and period it built on

    @field_validator("period", mode="before")
    @classmethod
    def _text(cls, value: Any) -> str:
        return "" if value is None else str(value)

    @field_validator("kind", mode="before")
    @classmethod
    def _kind(cls, value: Any) -> SummaryKind | None:
        return _member(SummaryKind, value)

    @classmethod
    def of(cls, item: MemoryItem) -> "SummaryData":
        return _lenient(cls, item.data)

    def into(self) -> dict[str, Any]:
        """The fields given, under their stored names, ready for ``MemoryItem.data``."""
        return self.model_dump(mode="json", by_alias=True, exclude_unset=True)


class CoreBlock(_Model):
    """A Markdown file with YAML front matter, edited by people, always in the prompt."""

    label: str
    text: str
    meta: dict[str, Any] = Field(default_factory=dict)


class JobState(StrEnum):
    PENDING = "pending"
    RUNNING = "running"
    DONE = "done"
    FAILED = "failed"  # gave up after the configured attempts; kept for inspection and retry


class Job(_Model):
    """A durable unit of background work, e.g. extracting memories from a fold of working memory.

    ``key`` makes enqueueing idempotent: a second job with the same key is not created.
    """

    id: str = Field(default_factory=lambda: new_id("job"))
    kind: str
    agent: str
    key: str
    payload: dict[str, Any] = Field(default_factory=dict)
    state: JobState = JobState.PENDING
    attempts: int = 0  # runs that ended in an error; a worker that died mid-run costs none
    last_error: str = ""
    run_after: Time | None = None
    lease_until: Time | None = None
    worker: str = ""
    created_at: Time | None = None
    claims: int = 0  # times a worker took it: more than attempts + 1 means workers died holding it


class RecallHit(_Model):
    """One recalled memory, with the scores that put it where it is."""

    id: str
    kind: MemoryKind
    text: str
    score: float
    route_scores: dict[str, float] = Field(default_factory=dict)
    time: Time | None = None
    scope: Scope
    sources: list[str] = Field(default_factory=list)
    place: str = ""
    keywords: list[str] = Field(default_factory=list)
    insight: str = ""
    data: dict[str, Any] = Field(default_factory=dict)
    valid_to: Time | None = None  # a fact a newer one closed: history, not how things are now
    said_at: Time | None = None  # when it was said, if ``time`` is another moment it is about


class RecallResult(_Model):
    query: str
    hits: list[RecallHit]
    timings_ms: dict[str, float] = Field(default_factory=dict)
    info: dict[str, Any] = Field(default_factory=dict)
