"""The probe format: conversation data as cases of messages and memories, with probes asked in them.

A probe file is one JSON object: cases, each a fresh store holding messages and/or pre-existing
memories, and probes asked in it with the ids of the messages or memories that should come back
(the eval README, "The probe format"). ``huiyi import`` reads its data; :mod:`huiyi.evaluation`
asks its probes and scores them.
"""

from __future__ import annotations

import json
from datetime import datetime
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

__all__ = ["Case", "ContextLine", "Probe", "ProbeMemory", "ProbeMessage", "ProbeSet"]


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid")


class ProbeMessage(_Model):
    """One chat message of a case; its ``id`` becomes the message id and so the provenance."""

    id: str
    space: str = "chat"
    speaker: str
    role: Literal["user", "assistant"] = "user"
    text: str
    time: datetime


class ProbeMemory(_Model):
    """A memory that exists before the chat: of a ``person``, a ``space``, or official if neither."""

    id: str
    text: str
    person: str | None = None
    space: str | None = None
    time: datetime | None = None
    kind: str = "note"  # a huiyi MemoryKind (event, fact, note…); unknown kinds are stored as notes
    data: dict[str, Any] = Field(default_factory=dict)


class ContextLine(_Model):
    """An earlier chat line handed to recall with the probe (oldest first)."""

    text: str
    role: Literal["user", "assistant"] = "user"
    speaker: str | None = None


class Probe(_Model):
    """A question asked at ``time`` by ``person`` (in ``space`` if given), with its gold ids."""

    id: str
    query: str
    context: list[ContextLine | str] = Field(default_factory=list)
    person: str | None = None
    space: str | None = None  # default: the case's only group space, if it has exactly one
    time: datetime | None = None
    gold: list[str]
    group: str = ""

    def context_lines(self) -> list[ContextLine]:
        return [ContextLine(text=line) if isinstance(line, str) else line for line in self.context]


class Case(_Model):
    """One fresh store: messages ingested in order, memories stored, then the probes asked."""

    id: str
    agent: str = "AI"
    language: Literal["zh", "en"] = "zh"
    messages: list[ProbeMessage] = Field(default_factory=list)
    memories: list[ProbeMemory] = Field(default_factory=list)
    probes: list[Probe] = Field(default_factory=list)


class ProbeSet(_Model):
    """A whole probe file. ``apart`` names groups reported on their own, outside the overall figure."""

    name: str
    cases: list[Case]
    apart: list[str] = Field(default_factory=list)

    @classmethod
    def load(cls, path: str | Path) -> ProbeSet:
        return cls.model_validate(json.loads(Path(path).read_text(encoding="utf-8")))

    def limited(self, limit: int | None) -> ProbeSet:
        """The first ``limit`` cases (all when ``limit`` is None)."""
        if limit is None:
            return self
        return self.model_copy(update={"cases": self.cases[: max(0, limit)]})
