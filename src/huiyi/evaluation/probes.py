"""The probe format (any conversation data, one evaluation) and its scorer.

A probe file is one JSON object: cases, each a fresh store holding messages and/or pre-existing
memories, and probes asked in it with the ids of the messages or memories that should come back
(the eval README, "The probe format"). Converters turn public data sets into this shape, so one
scorer serves them all.

Scoring is LoCoMo's rule: walk the recalled items in rank order and append each item's provenance
ids not seen yet; ``R@k`` is the share of the gold ids among the first ``k`` of them, ``Hit@k`` is 1
if any gold id is among them. An item that covers many turns spends the budget, so returning a
whole session cannot cheat.

    >>> ranked = ranked_ids([["m3", "m2"], ["m2"], ["m7"]])
    >>> ranked
    ['m3', 'm2', 'm7']
    >>> recall_at(ranked, ["m2", "m7"], 2), hit_at(ranked, ["m7"], 2)
    (0.5, 0.0)
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

RECALL_KS = (1, 3, 5, 10)
HIT_KS = (5,)


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


# scoring -------------------------------------------------------------------------------------------


def ranked_ids(sources_in_rank_order: Iterable[Sequence[str]]) -> list[str]:
    """Provenance ids of ranked items, in rank order, each kept once."""
    seen: set[str] = set()
    out: list[str] = []
    for sources in sources_in_rank_order:
        for source in sources:
            if source not in seen:
                seen.add(source)
                out.append(source)
    return out


def recall_at(ranked: Sequence[str], gold: Sequence[str], k: int) -> float:
    """|gold ∩ first k ranked| / |gold|."""
    wanted = set(gold)
    if not wanted:
        raise ValueError("a probe without gold ids cannot be scored")
    return len(wanted.intersection(ranked[:k])) / len(wanted)


def hit_at(ranked: Sequence[str], gold: Sequence[str], k: int) -> float:
    """1.0 if any gold id is among the first k ranked, else 0.0."""
    return 1.0 if set(gold).intersection(ranked[:k]) else 0.0


@dataclass
class ProbeResult:
    """What one probe got back: its ranked provenance ids (at least the largest k of them)."""

    case: str
    probe: str
    group: str
    gold: list[str]
    ranked: list[str]
    ms: float = 0.0


@dataclass
class Score:
    n: int
    metrics: dict[str, float]


def _mean(values: Sequence[float]) -> float:
    return sum(values) / len(values) if values else 0.0


def score(
    results: Sequence[ProbeResult],
    recall_ks: Sequence[int] = RECALL_KS,
    hit_ks: Sequence[int] = HIT_KS,
    digits: int = 4,
) -> Score:
    """Mean R@k and Hit@k over the results."""
    metrics: dict[str, float] = {}
    for k in recall_ks:
        metrics[f"R@{k}"] = round(_mean([recall_at(r.ranked, r.gold, k) for r in results]), digits)
    for k in hit_ks:
        metrics[f"Hit@{k}"] = round(_mean([hit_at(r.ranked, r.gold, k) for r in results]), digits)
    return Score(n=len(results), metrics=metrics)


@dataclass
class Report:
    """The overall figure (groups in ``apart`` left out) and one figure per group."""

    overall: Score
    groups: dict[str, Score] = field(default_factory=dict)


def _group_order(name: str) -> tuple[int, int | str]:
    return (0, int(name)) if name.isdigit() else (1, name)


def report(
    results: Sequence[ProbeResult],
    apart: Iterable[str] = (),
    recall_ks: Sequence[int] = RECALL_KS,
    hit_ks: Sequence[int] = HIT_KS,
) -> Report:
    apart_set = set(apart)
    overall = score([r for r in results if r.group not in apart_set], recall_ks, hit_ks)
    names = sorted({r.group for r in results}, key=_group_order)
    groups = {name: score([r for r in results if r.group == name], recall_ks, hit_ks) for name in names}
    return Report(overall=overall, groups=groups)
