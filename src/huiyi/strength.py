"""Strength: the seeds' formulas for how a memory's strength grows, how it fades, and who is dropped.

Pure functions over numbers, below every flow: consolidation (forgetting) and recall (scoring) both
call them; the consolidate flow reads items from a store, calls these, writes back.
Three schemes from three seeds live side by side, each written exactly once:

- MemoryBank (seed 003): retention ``R = e^(−t/S)``; a recall adds 1 to S and resets t.
- Seed 000 §八 记忆清理: strength is a count that grows by a step chosen from the time since the last
  update (+1 … +100), +15 per recall hit; when a scope holds 20 000 memories the weakest 20 % go.
- Seed 004 §5.3: a daily decay rate per memory type with an access bonus.

Worked examples (each one is also a test):

    >>> round(retention(1, 1), 4), round(retention(1, 2), 4)  # a stronger memory fades slower
    (0.3679, 0.6065)
    >>> seed000_increment(timedelta(days=2))
    3
    >>> round(type_decay("event", 10, 0), 4)
    0.6065
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from datetime import timedelta
from typing import Any

from huiyi.config.forget import SEED000_INCREMENTS, SEED000_RECALL_BONUS, SEED004_DECAY_RATES, DecayType
from huiyi.model import FactKind, MemoryItem, MemoryKind

__all__ = [
    "SEED000_INCREMENTS",
    "SEED000_RECALL_BONUS",
    "SEED004_DECAY_RATES",
    "DecayType",
    "capacity_victims",
    "decay_type_of",
    "on_recall_memorybank",
    "retention",
    "seed000_increment",
    "time_factor",
    "type_decay",
]


# ---------------------------------------------------------------------------------------------------
# MemoryBank (seed 003 §1.1): R = e^(−t/S), S starts at 1, a recall adds 1 to S and resets t to 0.


def retention(days_since_recall: float, strength: float) -> float:
    """MemoryBank retention ``R = e^(−t/S)``: t in days since the last recall (or creation), S the strength.

    Written as ``exp(-(t / S))`` on purpose: MemoryBank's own ``math.exp(-t / 5*S)`` parses as
    ``exp(-(t/5)·S)``, so its stronger memories fade faster. Here a larger S always fades slower.
    A negative t (a clock that ran backwards) counts as 0. S must be positive.

    >>> retention(0, 1)
    1.0
    >>> round(retention(1, 1), 4)  # e^−1
    0.3679
    >>> round(retention(1, 2), 4)  # e^−0.5
    0.6065
    """
    if not strength > 0:  # also rejects NaN
        raise ValueError(f"strength must be positive, got {strength}")
    t = max(0.0, float(days_since_recall))
    return math.exp(-(t / strength))


def on_recall_memorybank(strength: float) -> float:
    """The strength after a recall: ``S + 1`` (seed 003). The caller also resets t (sets last recall to now).

    >>> on_recall_memorybank(1.0)
    2.0
    """
    return float(strength) + 1.0


# ---------------------------------------------------------------------------------------------------
# Seed 000 §八 记忆清理: increments by the time since the last update, a recall bonus, capacity.

# the seeds' numbers live in the config (huiyi.config.forget) as the defaults users may change


def seed000_increment(
    age: timedelta,
    increments: Sequence[tuple[float, int]] = SEED000_INCREMENTS,
    beyond: int | None = None,
) -> int:
    """The strength step of seed 000 §八 记忆清理 2 for a memory updated again ``age`` after its last update.

    ``age`` is the time since the memory's last update (its ``updatetime``; in huiyi the later of
    ``last_access`` and ``created_at``), not its age since creation. Bounds are inclusive:
    ≤ 1 day +1, ≤ 3 days +3, ≤ 7 days +7, ≤ 30 days +30, ≤ 183 days +100. The seed says nothing past
    half a year; ``beyond`` (default: the last step, +100) applies there, so the step never shrinks as
    the gap grows. A negative age (clock skew) counts as 0.

    >>> [seed000_increment(timedelta(days=d)) for d in (0, 1, 2, 3, 7, 30, 183, 400)]
    [1, 1, 3, 3, 7, 30, 100, 100]
    >>> seed000_increment(timedelta(days=1, seconds=1))
    3
    """
    if not increments:
        raise ValueError("increments table is empty")
    days = max(timedelta(0), age) / timedelta(days=1)
    for bound, step in increments:
        if days <= bound:
            return step
    return increments[-1][1] if beyond is None else beyond


# ---------------------------------------------------------------------------------------------------
# Seed 004 §5.3: decay by memory type with an access bonus.


_FACT_DECAY = {
    FactKind.ATTRIBUTE: DecayType.FACT,
    FactKind.RELATION: DecayType.RELATION,
    FactKind.OPINION: DecayType.OPINION,
    FactKind.PREFERENCE: DecayType.OPINION,  # a preference is an opinion about a thing
}


def decay_type_of(item: MemoryItem) -> DecayType:
    """Seed 004's type of a huiyi memory.

    Events and verbatim chunks are events; facts follow their kind (``item.fact.kind``) (relation → relation,
    opinion and preference → opinion, attribute or unknown → fact); summaries and notes (curated, e.g.
    official memories) decay like facts.
    """
    if item.kind in (MemoryKind.EVENT, MemoryKind.CHUNK):
        return DecayType.EVENT
    if item.kind is MemoryKind.FACT:
        kind = item.fact.kind
        return _FACT_DECAY[kind] if kind else DecayType.FACT
    return DecayType.FACT


def time_factor(kind: DecayType | str, days: float, rates: Mapping[DecayType, float] | None = None) -> float:
    """``e^(−λ·days)`` with λ by memory type (seed 004 §5.3 ``time_factor``); in (0, 1].

    >>> round(time_factor("fact", 10), 4)  # e^−0.1
    0.9048
    """
    rate = (rates or SEED004_DECAY_RATES)[DecayType(kind)]
    return math.exp(-rate * max(0.0, float(days)))


def type_decay(
    kind: DecayType | str,
    days: float,
    access_count: int,
    importance: float = 1.0,
    rates: Mapping[DecayType, float] | None = None,
) -> float:
    """Seed 004 §5.3: ``importance · e^(−λ·days) · (1 + ln(1 + access_count))``.

    ``days`` is the time since creation (the seed takes whole days, ``(now − created_at).days``; the
    caller chooses). The seed multiplies by the memory's importance; it defaults to 1 here so the
    function also reads as the pure decay factor. With an access bonus the value can exceed 1.

    >>> [round(type_decay(t, 10, 0), 4) for t in ("event", "fact", "relation", "opinion")]
    [0.6065, 0.9048, 0.9512, 0.7408]
    >>> round(type_decay("event", 10, 3, importance=0.5), 4)  # 0.5 · e^−0.5 · (1 + ln 4)
    0.7237
    """
    if access_count < 0:
        raise ValueError(f"access_count must not be negative, got {access_count}")
    access_bonus = 1.0 + math.log(1.0 + access_count)
    return importance * time_factor(kind, days, rates) * access_bonus


# ---------------------------------------------------------------------------------------------------
# Capacity (seed 000 §八 记忆清理 5, and 记忆的清理 4 for inactive persons).


def capacity_victims(
    strengths: Sequence[tuple[str, float]],
    total_limit: int = 20000,
    share: float = 0.2,
    minimum: int = 1000,
    *,
    inactive: bool = False,
    ties: Callable[[str], Any] | None = None,
) -> list[str]:
    """The ids to delete from one scope, weakest first.

    Active scope (seed 000 §八 记忆清理 5): once the scope holds ``total_limit`` memories or more (每达到 20000 个,
    "each time it reaches"), the weakest ``⌊share · n⌋`` go; nothing goes below the limit.
    Inactive person (seed 000 §八 记忆的清理 4, 长期不活跃用户): everything beyond the ``minimum`` strongest goes.
    Either way at least ``minimum`` memories stay.

    Ties in strength are broken by ``ties(id)`` (the smaller goes first; the caller's say on what matters
    less), then by id, so the same input always gives the same victims whatever order the store returned
    the rows in.

    >>> capacity_victims([("a", 1), ("b", 5), ("c", 1), ("d", 9), ("e", 3)], total_limit=5, share=0.4, minimum=0)
    ['a', 'c']
    """
    if not 0.0 <= share <= 1.0:
        raise ValueError(f"share must be within [0, 1], got {share}")
    if total_limit < 0 or minimum < 0:
        raise ValueError("total_limit and minimum must not be negative")
    n = len(strengths)
    if inactive:
        count = n - minimum
    elif n >= total_limit and n > 0:
        count = min(math.floor(share * n + 1e-9), n - minimum)  # 1e-9: 0.29 · 100 is 28.999… in floats
    else:
        count = 0
    if count <= 0:
        return []
    for key, strength in strengths:
        if math.isnan(strength):
            raise ValueError(f"strength of {key!r} is NaN")
    if ties is None:
        ranked = sorted(strengths, key=lambda pair: (pair[1], pair[0]))
    else:
        ranked = sorted(strengths, key=lambda pair: (pair[1], ties(pair[0]), pair[0]))
    return [key for key, _ in ranked[:count]]
