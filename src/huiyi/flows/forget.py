"""Forgetting's settings: how strength grows and decays, and when a scope is cleaned up.

The formulas these numbers feed live in :mod:`huiyi.strength`; the defaults are the seeds'.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from huiyi.strength import SEED000_INCREMENTS, SEED000_RECALL_BONUS, SEED004_DECAY_RATES, DecayType

__all__ = ["ForgetConfig", "StrengthConfig"]


# ---------------------------------------------------------------------------------------------------
# Config


class _Section(BaseModel):
    model_config = ConfigDict(extra="forbid")


class StrengthConfig(_Section):
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


class ForgetConfig(_Section):
    """Forgetting and capacity, with the seeds' numbers as defaults. Strength growth is nested."""

    total_limit: int = Field(default=20000, ge=1)  # seed 000 §八 记忆清理 5: cleanup when a scope reaches 20 000
    share: float = Field(default=0.2, ge=0.0, le=1.0)  # seed 000 §八 记忆清理 5: delete the weakest 20 % (待定)
    # seed 000 §八 记忆的清理 4: 长期不活跃用户 keep a minimum capacity; the seed gives no number, 1000 is ours
    minimum: int = Field(default=1000, ge=0)
    inactive_days: int = Field(default=30, ge=1)  # seed 000 §八 记忆的清理 1 (当日有登录 = active); 30 days is ours
    every_days: int = Field(default=1, ge=1)  # seed 000 §八 记忆的清理 1: 每N天清理一次; N is ours
    # seed 004 §5.3 decay_rate_map, λ per day
    decay_rates: dict[DecayType, float] = Field(default_factory=lambda: dict(SEED004_DECAY_RATES))
    strength: StrengthConfig = Field(default_factory=StrengthConfig)

    @model_validator(mode="after")
    def _check(self) -> ForgetConfig:
        missing = set(DecayType) - set(self.decay_rates)
        if missing:
            raise ValueError(f"decay_rates lacks {sorted(missing)}")
        if any(rate < 0 for rate in self.decay_rates.values()):
            raise ValueError("decay rates must not be negative")
        if self.minimum > self.total_limit:
            raise ValueError("minimum must not exceed total_limit")
        return self
