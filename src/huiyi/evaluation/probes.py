"""The probe scorer. The probe format itself lives in :mod:`huiyi.formats.probes` (re-exported here).

Converters turn public data sets into probe files (the eval README, "The probe format"), so one
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

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from huiyi.formats.probes import Case, ContextLine, Probe, ProbeMemory, ProbeMessage, ProbeSet

__all__ = [
    "HIT_KS",
    "RECALL_KS",
    "Case",
    "ContextLine",
    "Probe",
    "ProbeMemory",
    "ProbeMessage",
    "ProbeResult",
    "ProbeSet",
    "Report",
    "Score",
    "hit_at",
    "ranked_ids",
    "recall_at",
    "report",
    "score",
]

RECALL_KS = (1, 3, 5, 10)
HIT_KS = (5,)


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
