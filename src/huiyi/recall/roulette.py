"""The roulette wheel (seed 001 §2.4.4): sampling among the best instead of always the top.

Apart from the scores (``huiyi.recall.score``), which only a weighted recipe loads (issue 15).
"""

from __future__ import annotations

import math
import random
from collections.abc import Sequence
from typing import TypeVar

__all__ = ["roulette"]

T = TypeVar("T")


def roulette(items: Sequence[T], weights: Sequence[float], k: int, rng: random.Random) -> list[T]:
    """Draw ``k`` items without replacement, each draw with probability proportional to its weight.

    Seed 001 §2.4.4 spins the wheel once over the retrieved results; spinning again over what is left
    gives k. Deterministic for a seeded ``rng``. An item of weight 0 is never drawn while an item of
    positive weight remains; once only zero weights are left they follow in the given order, so the
    result always has ``min(k, len(items))`` items.

    >>> roulette(["a", "b", "c"], [0.0, 1.0, 0.0], 2, random.Random(7))
    ['b', 'a']
    """
    if len(items) != len(weights):
        raise ValueError("items and weights differ in length")
    for weight in weights:
        if not (math.isfinite(weight) and weight >= 0):
            raise ValueError(f"weights must be finite and not negative, got {weight}")
    left = list(range(len(items)))
    chosen: list[T] = []
    while left and len(chosen) < k:
        total = math.fsum(weights[i] for i in left)
        if total <= 0:
            chosen.extend(items[i] for i in left[: k - len(chosen)])
            break
        point = rng.random() * total
        pick = next((i for i in reversed(left) if weights[i] > 0), left[-1])  # if rounding overshoots
        running = 0.0
        for i in left:
            running += weights[i]
            if point < running and weights[i] > 0:
                pick = i
                break
        left.remove(pick)
        chosen.append(items[pick])
    return chosen
