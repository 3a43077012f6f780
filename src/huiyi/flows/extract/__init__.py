"""What extraction takes and gives: a fold of messages in, drafts of events, facts and entities out.

Two extractors fill this contract: one with an LLM (one structured-output call per fold) and one with
rules only (no LLM configured). Drafts name things by name; the fold flow turns them into stored
memories with scopes, ids and vectors.

The package, by module:

- ``fold``: what leaves working memory, and a fold's drafts as memories ready to write.
- ``worker``: runs fold jobs: extract, write, record entities, all in one commit.
- ``entities``: a fold's entity drafts as entities of its scope.
- ``llm``: the extractor that asks an LLM, once per fold; ``schema`` what it asks for, ``answer`` the
  check of what comes back.
- ``rules``: the extractor without an LLM (its own package; see its docstring).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Protocol

from huiyi.model import EntityType, FactKind, Message, Scope


@dataclass
class Fold:
    """The part of a space's working memory handed to extraction."""

    agent: str
    space: str
    scope: Scope
    messages: list[Message]
    person: str | None = None  # the person of a private chat
    aliases: dict[str, list[str]] = field(default_factory=dict)  # person id -> names and aliases
    spoke: set[str] = field(default_factory=set)  # a group's: who spoke in it ever, the fold's speakers too
    language: str = "zh"
    # speaker -> the word of a plan they called off lately (搬家): a later 下周六搬 names its new time
    called_off: dict[str, str] = field(default_factory=dict)
    # the scope's open pet facts (豆豆是木木的狗, 木木养了一只狗): a pet's death said in the fold closes them
    pets: list[FactDraft] = field(default_factory=list)
    # the scope's open partner facts (阿杰是木木的男朋友): a later 我们分手了 names whom it parts from
    partners: list[FactDraft] = field(default_factory=list)


@dataclass
class EventDraft:
    text: str  # what happened, one or two sentences, in the conversation's language
    sources: list[str]  # message ids it came from
    time: datetime | None = None  # absolute: relative words are resolved against the messages' times
    place: str = ""
    participants: list[str] = field(default_factory=list)
    keywords: list[str] = field(default_factory=list)
    insight: str = ""  # one-line deep insight (seed 000)
    importance: float = 0.5
    about: str = ""  # the time it is about as said ("2024-12-01～2024-12-31"), when not when it was said


@dataclass
class FactDraft:
    """subject —predicate→ object, with a one-sentence description."""

    subject: str  # a name: the person, the agent or another entity
    predicate: str
    object: str
    description: str
    sources: list[str]
    kind: FactKind = FactKind.ATTRIBUTE
    keyword: str = ""
    subject_type: EntityType = EntityType.OBJECT
    object_type: EntityType | None = None  # None: the object is a literal, not an entity
    time: datetime | None = None  # when it became true (or was said)
    confidence: float = 1.0
    about: str = ""  # a plan's days as said ("2024-11-06", "2024-12-01～2024-12-31"): past once they are over


@dataclass
class CloseDraft:
    """A speaker's open facts that stop being true: subject and predicate match (an empty subject: anyone's),
    ``word`` is in the text, said before ``time`` (a plan called off: 搬家泡汤). The fold flow closes them at
    ``time``."""

    subject: str
    predicate: str
    word: str
    time: datetime
    sources: list[str]
    hearsay: bool = False  # a member's word about another (``hearsay.told_by``): closes only others' word too
    # only the facts about a time in this span (start, end): 三点的会 is the plan for 15:00, not any 会; 周五的课
    # the class at 14:00 that Friday, 明晚的饭 the dinner at 19:00
    about: tuple[datetime, datetime] | None = None


@dataclass
class EntityDraft:
    name: str
    type: EntityType = EntityType.SPECIFIC
    aliases: list[str] = field(default_factory=list)


@dataclass
class Extraction:
    events: list[EventDraft] = field(default_factory=list)
    facts: list[FactDraft] = field(default_factory=list)
    entities: list[EntityDraft] = field(default_factory=list)
    closes: list[CloseDraft] = field(default_factory=list)


class Extractor(Protocol):
    """Turns a fold into drafts. Raises on failure; never returns a partial result."""

    async def extract(self, fold: Fold) -> Extraction: ...
