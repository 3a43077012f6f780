"""Scoring: how recall weighs relevance against importance, recency, use and the graph.

A recipe's ``score_weights`` make a :class:`ScorePreset`, a weight per feature. :func:`features_of`
turns a memory into :class:`Features`, every one on a 0–1 scale; :func:`score` is the weighted sum and
says what each feature contributed. Three presets:

- ``RELEVANCE`` (the default): relevance only, so the total is the fused relevance: today's behaviour.
- ``SEED_004``: seed 004 §5.2 ``0.4·semantic_sim + 0.2·importance + 0.2·(1/graph_distance)
  + 0.1·time_decay + 0.1·access_frequency``.
- ``SEED_001``: seed 001 §2.4.2–2.4.3, six factors: importance 0.3, time distance 0.2, use count 0.1,
  neighbour use (邻用, recently used → lower) 0.2, content 0.1, feedback 0.1.

:func:`roulette` (:mod:`huiyi.recall.roulette`) is seed 001 §2.4.4's roulette wheel over the top results.

    >>> f = Features(relevance=0.8, importance=0.5, graph=1.0, time_decay=0.6, access=0.5)
    >>> round(score(f, SEED_004)[0], 4)  # 0.32 + 0.1 + 0.2 + 0.06 + 0.05
    0.73
    >>> score(f, RELEVANCE)[0]
    0.8
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta, tzinfo
from typing import get_args

from pydantic import BaseModel, ConfigDict, Field, field_validator

from huiyi.checks import wall_of
from huiyi.config.recall import SEED001_WEIGHTS, SEED004_WEIGHTS, FeatureName, RecallRecipe
from huiyi.model import MemoryItem
from huiyi.recall.roulette import roulette  # its home until it had one of its own
from huiyi.strength import SEED004_DECAY_RATES, DecayType, decay_type_of, time_factor

__all__ = [
    "FEATURES",
    "PRESETS",
    "RELEVANCE",
    "SEED_001",
    "SEED_004",
    "FeatureName",
    "FeatureParams",
    "Features",
    "ScorePreset",
    "access_factor",
    "features_of",
    "graph_closeness",
    "recency_factor",
    "recent_use_penalty",
    "roulette",
    "score",
    "score_memories",
    "weighted_totals",
]

FEATURES: tuple[FeatureName, ...] = get_args(FeatureName)


@dataclass(frozen=True, slots=True)
class Features:
    """What recall knows about one candidate memory, each on a fixed scale.

    - ``relevance`` 0–1: the fused relevance of the routes (seed 001 内容权重, seed 004 semantic_sim).
    - ``importance`` 0–1: the memory's importance (seed 001 重要性权重, seed 004 importance).
    - ``recency`` 0–1: ``0.5^(age / half-life)`` of the memory's age since creation (seed 001 时间距离权重).
    - ``access`` 0–1: ``n / (n + half)`` of its access count n (seed 001 使用次数, seed 004 access_frequency).
    - ``recent_use`` 0–1: a penalty, ``0.5^(time since last use / half-life)``, 0 if never used
      (seed 001 邻用权重: the more recently used, the less likely). It enters a score as ``1 − recent_use``.
    - ``feedback`` −1…1: the value judged after an earlier recall, 0 when none (seed 001 反馈权重). It
      enters a score as ``(1 + feedback) / 2``.
    - ``graph`` 0–1: closeness on the graph, 1 for a seed (a direct hit, distance 0) and ``1/d`` for a
      memory reached at distance d ≥ 1 (seed 004 ``1/graph_distance``).
    - ``time_decay`` 0–1: ``e^(−λ·days)`` with λ by memory type (seed 004 §5.3 time_factor).

    The defaults are neutral: nothing known beyond what is given.
    """

    relevance: float = 0.0
    importance: float = 0.0
    recency: float = 0.0
    access: float = 0.0
    recent_use: float = 0.0
    feedback: float = 0.0
    graph: float = 1.0
    time_decay: float = 1.0

    def __post_init__(self) -> None:
        for name in FEATURES:
            value = getattr(self, name)
            low = -1.0 if name == "feedback" else 0.0
            if not low <= value <= 1.0:  # also rejects NaN
                raise ValueError(f"feature {name} must be within [{low:g}, 1], got {value}")

    def factor(self, name: FeatureName) -> float:
        """The 0–1 value a feature brings to a weighted sum: higher always favours the memory."""
        if name == "recent_use":
            return 1.0 - self.recent_use
        if name == "feedback":
            return (1.0 + self.feedback) / 2.0
        value: float = getattr(self, name)
        return value


class _Config(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True, defer_build=True)  # built at first use: issue 15


class ScorePreset(_Config):
    """A scoring recipe: a weight per feature; features not named weigh nothing.

    The total lies within ``[0, sum of weights]``, since every feature's factor is within [0, 1].
    """

    name: str
    weights: dict[FeatureName, float]

    @field_validator("weights")
    @classmethod
    def _valid(cls, value: dict[FeatureName, float]) -> dict[FeatureName, float]:
        for name, weight in value.items():
            if not (math.isfinite(weight) and weight >= 0):
                raise ValueError(f"weight of {name} must be finite and not negative, got {weight}")
        if not value or sum(value.values()) <= 0:
            raise ValueError("a preset needs at least one positive weight")
        return value

    @property
    def ceiling(self) -> float:
        """The highest total this preset can give: the sum of its weights."""
        return math.fsum(self.weights.values())


# made without validation, so importing builds no validator (issue 15); valid as written, and
# tests/test_score_forget.py checks each equals its validated twin
# today's behaviour: the fused relevance alone
RELEVANCE = ScorePreset.model_construct(name="relevance", weights={"relevance": 1.0})
# the seeds' weights live in the config, beside the named recipes that use them
SEED_004 = ScorePreset.model_construct(name="seed004", weights=dict(SEED004_WEIGHTS))  # seed 004 §5.2
SEED_001 = ScorePreset.model_construct(name="seed001", weights=dict(SEED001_WEIGHTS))  # seed 001 §2.4.2
PRESETS: dict[str, ScorePreset] = {preset.name: preset for preset in (RELEVANCE, SEED_004, SEED_001)}


def score(features: Features, preset: ScorePreset = RELEVANCE) -> tuple[float, dict[FeatureName, float]]:
    """The weighted sum of a preset over the features, and each feature's contribution (weight × factor).

    >>> total, parts = score(Features(relevance=0.5, importance=1.0), SEED_001)
    >>> round(total, 4), parts["importance"], parts["recent_use"], parts["feedback"]
    (0.6, 0.3, 0.2, 0.05)
    """
    parts: dict[FeatureName, float] = {name: weight * features.factor(name) for name, weight in preset.weights.items()}
    return math.fsum(parts.values()), parts


# ---------------------------------------------------------------------------------------------------
# From a memory to its features


class FeatureParams(_Config):
    """How raw quantities become 0–1 features. The seeds give no numbers for these; the defaults are ours."""

    recency_half_life_days: float = Field(default=7.0, gt=0)  # a week-old memory has recency 0.5
    recent_use_half_life_hours: float = Field(default=1.0, gt=0)  # used an hour ago: penalty 0.5
    access_half: float = Field(default=5.0, gt=0)  # 5 accesses: access 0.5
    # seed 004 §5.3 decay_rate_map, λ per day
    decay_rates: dict[DecayType, float] = Field(default_factory=lambda: dict(SEED004_DECAY_RATES))


DEFAULT_PARAMS = FeatureParams.model_construct()  # the defaults, without building the validator at import


def recency_factor(age: timedelta, half_life_days: float = DEFAULT_PARAMS.recency_half_life_days) -> float:
    """``0.5^(age_days / half_life_days)``: 1 when new, 0.5 at the half-life; a negative age counts as 0.

    >>> recency_factor(timedelta(days=7)), recency_factor(timedelta(days=14))
    (0.5, 0.25)
    """
    days = max(timedelta(0), age) / timedelta(days=1)
    return math.pow(0.5, days / half_life_days)


def recent_use_penalty(
    since_use: timedelta | None, half_life_hours: float = DEFAULT_PARAMS.recent_use_half_life_hours
) -> float:
    """``0.5^(hours since last use / half_life_hours)``; 0 for a memory never used.

    >>> recent_use_penalty(None), recent_use_penalty(timedelta(0)), recent_use_penalty(timedelta(hours=2))
    (0.0, 1.0, 0.25)
    """
    if since_use is None:
        return 0.0
    hours = max(timedelta(0), since_use) / timedelta(hours=1)
    return math.pow(0.5, hours / half_life_hours)


def access_factor(access_count: int, half: float = DEFAULT_PARAMS.access_half) -> float:
    """``n / (n + half)``: 0 for an unused memory, 0.5 at ``half`` uses, approaching 1.

    >>> access_factor(0), access_factor(5), access_factor(15)
    (0.0, 0.5, 0.75)
    """
    n = max(0, access_count)
    return n / (n + half)


def graph_closeness(distance: int | None) -> float:
    """Seed 004's ``1/graph_distance``, defined at the seed itself: 1 for distance 0 (or None: a direct
    hit), ``1/d`` for d ≥ 1.

    >>> graph_closeness(None), graph_closeness(0), graph_closeness(1), graph_closeness(2)
    (1.0, 1.0, 1.0, 0.5)
    """
    if distance is None or distance <= 0:
        return 1.0
    return 1.0 / distance


def _wall(value: datetime) -> datetime:
    # the store keeps wall-clock times without a zone; compare like with like
    return value.replace(tzinfo=None)


def features_of(
    item: MemoryItem,
    relevance: float,
    now: datetime,
    graph_distance: int | None = None,
    feedback: float = 0.0,
    *,
    params: FeatureParams = DEFAULT_PARAMS,
    zone: tzinfo = UTC,
) -> Features:
    """The features of one recalled memory at ``now``.

    ``relevance`` is the fused relevance (clamped into [0, 1]). Age is measured from ``said_at``, else
    ``created_at``, else ``time``; a memory with none (e.g. a curated note) counts as new. ``time_decay``
    takes the whole days since then, as seed 004 does (``(now − created_at).days``). ``graph_distance`` is
    None or 0 for a direct hit, d for a memory reached d hops away. Times are compared as wall clocks in
    ``zone`` (the configured timezone): ``created_at``, stamped in UTC, is read in it first.
    """
    born = item.said_at or wall_of(item.created_at, zone) or item.time  # a plan ages from when it was said
    age = _wall(now) - _wall(born) if born is not None else timedelta(0)
    since_use = _wall(now) - _wall(item.last_access) if item.last_access is not None else None
    return Features(
        relevance=min(1.0, max(0.0, relevance)),
        importance=item.importance,
        recency=recency_factor(age, params.recency_half_life_days),
        access=access_factor(item.access_count, params.access_half),
        recent_use=recent_use_penalty(since_use, params.recent_use_half_life_hours),
        feedback=feedback,
        graph=graph_closeness(graph_distance),
        time_decay=time_factor(decay_type_of(item), max(timedelta(0), age).days, params.decay_rates),
    )


def score_memories(
    items: Mapping[str, MemoryItem],
    relevance: Mapping[str, float],
    distances: Mapping[str, int],
    preset: ScorePreset,
    now: datetime,
    zone: tzinfo = UTC,
) -> dict[str, tuple[float, dict[str, float]]]:
    """The preset's score of each memory from its fused relevance and its own signals (``now`` is wall
    clock in ``zone``)."""
    out: dict[str, tuple[float, dict[str, float]]] = {}
    for memory_id, item in items.items():
        features = features_of(
            item,
            min(1.0, max(0.0, relevance.get(memory_id, 0.0))),
            now,
            distances.get(memory_id),
            max(-1.0, min(1.0, item.feedback)),
            zone=zone,
        )
        total, parts = score(features, preset)
        out[memory_id] = (total, {str(name): value for name, value in parts.items()})
    return out


def weighted_totals(
    items: Mapping[str, MemoryItem],
    relevance: Mapping[str, float],
    distances: Mapping[str, int],
    recipe: RecallRecipe,
    now: datetime,
    zone: tzinfo = UTC,
) -> dict[str, float]:
    """The total of each memory under the recipe's ``score_weights`` (:func:`score_memories`)."""
    preset = ScorePreset(name=recipe.recipe, weights=recipe.score_weights)
    return {i: total for i, (total, _) in score_memories(items, relevance, distances, preset, now, zone).items()}
