"""Where a ranked list is cut: every row tied with the last one kept is kept too (no numpy here: recall's
import of it stays light)."""

from __future__ import annotations

from collections.abc import Sequence


def kept_with_ties(scores: Sequence[float], limit: int) -> int:
    """How many of ``scores`` (best first) a cut at ``limit`` keeps: the rows tied with the last kept too,
    up to twice ``limit``. Which of tied rows a plain cut keeps follows their rowids, the order they were
    written in (how a caller batched its adds), not what they say.

    >>> kept_with_ties([3.0, 2.0, 2.0, 2.0, 1.0], 2), kept_with_ties([3.0, 2.0, 1.0], 2), kept_with_ties([1.0] * 9, 2)
    (4, 2, 4)
    """
    if len(scores) <= limit or limit <= 0:
        return min(len(scores), max(0, limit))
    last = scores[limit - 1]
    floor = last - abs(last) * 1e-9  # tied to the last bit: sums in another order differ there (PostgreSQL)
    tied = limit + next((i for i, score in enumerate(scores[limit:]) if score < floor), len(scores) - limit)
    return min(tied, 2 * limit)
