"""The forgetting sections: how strength grows and decays, and when a scope is cleaned up.

The seeds' numbers live here as defaults; the formulas they feed live in the forget flow.
"""

# no `from __future__ import annotations`: the models' field types stay objects, which pydantic would otherwise
# compile and evaluate from strings, one by one, at import (issue 15)

from collections.abc import Mapping
from enum import StrEnum
from typing import Literal

from pydantic import Field, field_validator, model_validator

from huiyi.config._section import Section

__all__ = [
    "SEED000_INCREMENTS",
    "SEED000_RECALL_BONUS",
    "SEED004_DECAY_RATES",
    "DecayType",
    "ForgetConfig",
    "StrengthConfig",
]

SEED000_RECALL_BONUS = 15  # seed 000 §八 记忆清理 4: a recalled memory hit gains +15 strength (待定数值)

# seed 000 §八 记忆清理 2: (upper bound of the time since the last update in days, increment). Each bound is
# inclusive (在一天以内 = "within one day", so exactly 1 day still gets +1). A month is 30 days, half a
# year 183 days (⌈365 / 2⌉).
SEED000_INCREMENTS: tuple[tuple[float, int], ...] = ((1, 1), (3, 3), (7, 7), (30, 30), (183, 100))


class DecayType(StrEnum):
    """Seed 004's memory types (记忆类型), which decide how fast a memory decays."""

    EVENT = "event"  # 事件
    FACT = "fact"  # 事实
    RELATION = "relation"  # 关系
    OPINION = "opinion"  # 观点


# seed 004 §5.3 decay_rate_map: λ per day
SEED004_DECAY_RATES: Mapping[DecayType, float] = {
    DecayType.EVENT: 0.05,  # 事件衰减较快
    DecayType.FACT: 0.01,  # 事实衰减慢
    DecayType.RELATION: 0.005,  # 关系衰减很慢
    DecayType.OPINION: 0.03,  # 观点中等衰减
}


class StrengthConfig(Section):
    """How strength grows (seed 000 §八; MemoryBank, seed 003)."""

    initial: float = 1.0  # seed 000 §八 记忆清理 1 (初始为1) and seed 003 (S 初始值为 1)
    # seed 000 §八 记忆清理 2: [days since the last update (inclusive bound), increment]
    increments: list[tuple[float, int]] = Field(default_factory=lambda: list(SEED000_INCREMENTS))
    beyond: int = 100  # past the last bound (half a year): the seed is silent; keep its largest step
    recall_bonus: int = SEED000_RECALL_BONUS  # seed 000 §八 记忆清理 4: +15 per recall hit (待定数值)
    memorybank_step: float = 1.0  # seed 003 §1.1: S += 1 on recall, t reset to 0

    @field_validator("increments")
    @classmethod
    def _ascending(cls, value: list[tuple[float, int]]) -> list[tuple[float, int]]:
        bounds = [bound for bound, _ in value]
        if not value or bounds != sorted(bounds) or len(set(bounds)) != len(bounds):
            raise ValueError("increments need strictly ascending day bounds")
        return value


class ForgetConfig(Section):
    """Forgetting and capacity, with the seeds' numbers as defaults. Strength growth is nested."""

    total_limit: int = Field(default=20000, ge=1)  # seed 000 §八 记忆清理 5: cleanup when a scope reaches 20 000
    share: float = Field(default=0.2, ge=0.0, le=1.0)  # seed 000 §八 记忆清理 5: delete the weakest 20 % (待定)
    # seed 000 §八 记忆的清理 4: 长期不活跃用户 keep a minimum capacity (of memories that may go: summaries
    # and facts never do); the seed gives no number, 1000 is ours
    minimum: int = Field(default=1000, ge=0)
    inactive_days: int = Field(default=30, ge=1)  # seed 000 §八 记忆的清理 1 (当日有登录 = active); 30 days is ours
    every_days: int = Field(default=1, ge=1)  # seed 000 §八 记忆的清理 1: 每N天清理一次; N is ours
    # seed 004 §5.3 decay_rate_map, λ per day
    decay_rates: dict[DecayType, float] = Field(default_factory=lambda: dict(SEED004_DECAY_RATES))
    strength: StrengthConfig = Field(default_factory=StrengthConfig)
    # which curve forgets: seed 000's strength counts (+1…+100 by the gap, +15 per recall, seed 004's decay by
    # type ranks what capacity drops), or MemoryBank's (seed 003 §1.1) R = e^(−t/S), S + 1 and t reset on recall
    model: Literal["seed000", "memorybank"] = "seed000"
    # MemoryBank: a memory whose retention R falls below this is forgotten (the seed draws at random; ours)
    memorybank_keep: float = Field(default=0.05, gt=0.0, lt=1.0)

    @property
    def recall_bonus(self) -> float:
        """What one recall adds to a memory's strength under the chosen curve."""
        return self.strength.memorybank_step if self.model == "memorybank" else float(self.strength.recall_bonus)

    @model_validator(mode="after")
    def _check(self) -> "ForgetConfig":
        missing = set(DecayType) - set(self.decay_rates)
        if missing:
            raise ValueError(f"decay_rates lacks {sorted(missing)}")
        if any(rate < 0 for rate in self.decay_rates.values()):
            raise ValueError("decay rates must not be negative")
        if self.minimum > self.total_limit:
            raise ValueError("minimum must not exceed total_limit")
        return self
