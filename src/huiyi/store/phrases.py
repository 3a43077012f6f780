"""The character pairs both keyword searches add to a query: the CJK bigrams within each query word.

A CJK word cut one way at write time and another at query time still shares its character bigrams, so
研究生 finds 研究 + 生命. Both stores score each pair as a phrase of the query, a pair it holds twice
counting twice (``store.bm25``).
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import pairwise


def is_cjk(char: str) -> bool:
    """Whether a character is a CJK ideograph (the unified block, extension A, the compatibility block)."""
    return "\u3400" <= char <= "\u9fff" or "\uf900" <= char <= "\ufaff"


def cjk_pairs(words: Sequence[str]) -> list[tuple[str, str]]:
    """Each word's adjacent CJK characters, in order, repeats kept.

    >>> cjk_pairs(["研究生", "ok", "好"])
    [('研', '究'), ('究', '生')]
    """
    return [(a, b) for word in words for a, b in pairwise(word) if is_cjk(a) and is_cjk(b)]
