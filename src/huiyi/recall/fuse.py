"""Fusing the dense and keyword routes' ranked lists into one relevance per memory.

Both take ``{route: [(key, raw score), …]}`` best first and ``{route: weight}``, and return
``{key: (fused score, {route: normalised score})}``.

Min-max fusion: each route's raw scores are scaled to 0–1 over its candidates, then summed by weight
(divided by the total weight, so the result stays in 0–1):

    >>> fused = minmax_fuse({"dense": [("a", 0.9), ("b", 0.7)], "keyword": [("b", 8.0)]},
    ...                     {"dense": 0.7, "keyword": 0.3})
    >>> {k: round(v[0], 3) for k, v in fused.items()}
    {'a': 0.7, 'b': 0.3}

With a minimum span, candidates that are nearly tied on a route stay nearly tied:

    >>> fused = minmax_fuse({"dense": [("a", 0.878), ("b", 0.870)], "keyword": [("b", 8.0)]},
    ...                     {"dense": 0.7, "keyword": 0.3}, min_span={"dense": 0.1})
    >>> {k: round(v[0], 3) for k, v in fused.items()}
    {'a': 0.7, 'b': 0.944}

Reciprocal-rank fusion: weight / (k + rank), rank from 1, summed, then scaled so that an item ranked
first by every route scores 1.

    >>> fused = rrf_fuse({"dense": [("a", 0.9), ("b", 0.7)], "keyword": [("b", 8.0)]},
    ...                  {"dense": 1.0, "keyword": 1.0}, k=60)
    >>> round(fused["b"][0], 4), round(fused["a"][0], 4)
    (0.9919, 0.5)
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass
from itertools import repeat
from operator import itemgetter
from typing import Any, TypeVar

from huiyi.config.recall import RecallRecipe
from huiyi.store.base import RouteHits, ScoredId

K = TypeVar("K", bound=Hashable)
Ranked = Mapping[str, Sequence[tuple[K, float]]]
Fused = dict[K, tuple[float, dict[str, float]]]


def minmax_fuse(
    routes: Ranked[K], weights: Mapping[str, float], min_span: Mapping[str, float] | None = None
) -> Fused[K]:
    total = sum(weights.get(route, 0.0) for route in routes) or 1.0
    out: Fused[K] = {}
    for route, ranked in routes.items():
        if not ranked:
            continue
        scores = [score for _, score in ranked]
        low, high = min(scores), max(scores)
        # a floor under the span keeps near-ties near: two cosines of 0.870 and 0.878 should not
        # become 0 and 1 just because they are the only candidates
        low = min(low, high - (min_span or {}).get(route, 0.0))
        span = high - low
        weight = weights.get(route, 0.0) / total
        for key, score in ranked:
            norm = (score - low) / span if span > 0 else 1.0
            fused, parts = out.get(key, (0.0, {}))
            parts[route] = norm
            out[key] = (fused + weight * norm, parts)
    return out


def rrf_fuse(routes: Ranked[K], weights: Mapping[str, float], k: int = 60) -> Fused[K]:
    best = sum(weights.get(route, 0.0) / (k + 1) for route in routes) or 1.0
    out: Fused[K] = {}
    for route, ranked in routes.items():
        weight = weights.get(route, 0.0)
        for rank, (key, _) in enumerate(ranked, start=1):
            contribution = weight / (k + rank)
            fused, parts = out.get(key, (0.0, {}))
            parts[route] = 1.0 / rank
            out[key] = (fused + contribution / best, parts)
    return out


@dataclass
class Fusion:
    """The fused candidates, best first, with each route's raw score and each store key's memory id."""

    ranked: list[tuple[int, tuple[float, dict[str, float]]]]
    raw: dict[str, dict[int, float]]
    ids: dict[int, str]


def fuse(
    dense: RouteHits,
    keyword: RouteHits,
    recipe: RecallRecipe,
    extra: RouteHits | None = None,
    detail: bool = True,
) -> Fusion:
    """Fuse by the recipe's weights; every keyword candidate gets its dense score from the same scan.
    ``extra`` candidates (the speaker route's) join with their dense score alone.

    Without ``detail`` the per-route shares of min-max fusion are left empty (only the debugger shows
    them), and the fused scores are computed over arrays: the same arithmetic, so the same floats.
    """
    more = extra.hits if extra is not None else []
    ids_by_key = {key: memory_id for memory_id, _, key in (*dense.hits, *keyword.hits, *more)}
    if recipe.fusion == "minmax" and not detail:
        fast = _minmax_arrays(dense, keyword, more, recipe)
        if fast is not None:
            return Fusion(ranked=fast[0], raw=fast[1], ids=ids_by_key)
    dense_ranked = [(hit.key, hit.score) for hit in dense.hits]
    in_dense = {k for k, _ in dense_ranked}
    missing = list(dict.fromkeys(hit.key for hit in (*keyword.hits, *more) if hit.key not in in_dense))
    dense_ranked += list(zip(missing, dense.score_of(missing), strict=True))
    routes = {"dense": dense_ranked, "keyword": [(hit.key, hit.score) for hit in keyword.hits]}
    raw = {"dense": dict(routes["dense"]), "keyword": dict(routes["keyword"])}
    weights = {"dense": recipe.dense_weight, "keyword": recipe.keyword_weight}
    spans = {
        "dense": recipe.dense_min_span,
        "keyword": _keyword_span([score for _, score in routes["keyword"]], recipe),
    }
    if recipe.fusion == "minmax" and not detail:
        scores = _minmax_scores(routes, weights, spans)
        ranked = [(key, (score, _NO_PARTS)) for key, score in sorted(scores.items(), key=_best_first)]
        return Fusion(ranked=ranked, raw=raw, ids=ids_by_key)
    dense_ranked.sort(key=lambda pair: -pair[1])
    fused = rrf_fuse(routes, weights, recipe.rrf_k) if recipe.fusion == "rrf" else minmax_fuse(routes, weights, spans)
    ranked = sorted(fused.items(), key=lambda pair: (-pair[1][0], pair[0]))
    return Fusion(ranked=ranked, raw=raw, ids=ids_by_key)


_NO_PARTS: dict[str, float] = {}


def _keyword_span(scores: Sequence[float], recipe: RecallRecipe) -> float:
    """The keyword route's minimum span: a share of its best score (0, and nothing read, when off)."""
    share = recipe.keyword_min_span_share
    return share * max(scores, default=0.0) if share else 0.0


def _minmax_arrays(
    dense: RouteHits, keyword: RouteHits, more: Sequence[ScoredId], recipe: RecallRecipe
) -> tuple[list[tuple[int, tuple[float, dict[str, float]]]], dict[str, dict[int, float]]] | None:
    """Min-max fusion of the dense and keyword routes as array operations, sorted by numpy: the same
    floats as :func:`minmax_fuse` (each share is the same array arithmetic, and a key in both routes
    sums its two shares in one addition) in the same order (score down, key up). None when a route
    repeats a key, which the dict-based path settles its own way."""
    import numpy as np  # here, not at the top: ``import huiyi`` stays free of numpy

    # the hits' columns unzipped in C: a route brings hundreds of hits per query
    dense_keys = list(map(_KEY, dense.hits))
    in_dense = set(dense_keys)
    keyword_keys = list(map(_KEY, keyword.hits))
    if len(in_dense) != len(dense_keys) or len(set(keyword_keys)) != len(keyword_keys):
        return None
    missing = list(dict.fromkeys(key for _, _, key in (*keyword.hits, *more) if key not in in_dense))
    keys = dense_keys + missing
    dense_scores = list(map(_SCORE, dense.hits)) + list(dense.score_of(missing))
    keyword_scores = list(map(_SCORE, keyword.hits))
    raw = {
        "dense": dict(zip(keys, dense_scores, strict=True)),
        "keyword": dict(zip(keyword_keys, keyword_scores, strict=True)),
    }
    if not keys:
        return [], raw
    total = (recipe.dense_weight + recipe.keyword_weight) or 1.0
    fused = _shares(np.asarray(dense_scores, dtype=np.float64), recipe.dense_weight / total, recipe.dense_min_span)
    if keyword_keys:
        where = dict(zip(keys, range(len(keys)), strict=True))
        at = np.fromiter(map(where.__getitem__, keyword_keys), dtype=np.int64, count=len(keyword_keys))
        span = _keyword_span(keyword_scores, recipe)
        shares = _shares(np.asarray(keyword_scores, dtype=np.float64), recipe.keyword_weight / total, span)
        fused[at] = fused[at] + shares
    order = np.lexsort((np.asarray(keys, dtype=np.int64), -fused))
    ranked_keys: list[int] = np.asarray(keys, dtype=np.int64)[order].tolist()
    ranked_scores: list[float] = fused[order].tolist()
    return list(zip(ranked_keys, zip(ranked_scores, repeat(_NO_PARTS), strict=False), strict=True)), raw


_KEY = itemgetter(2)  # ScoredId's fields by place
_SCORE = itemgetter(1)


def _shares(scores: Any, weight: float, min_span: float) -> Any:
    """One route's weighted min-max shares (:func:`minmax_fuse`'s arithmetic, over an array)."""
    import numpy as np

    low, high = float(scores.min()), float(scores.max())
    low = min(low, high - min_span)
    span = high - low
    return weight * ((scores - low) / span) if span > 0 else np.full(len(scores), weight * 1.0)


def _best_first(pair: tuple[int, float]) -> tuple[float, int]:
    return -pair[1], pair[0]


def _minmax_scores(
    routes: Ranked[int], weights: Mapping[str, float], min_span: Mapping[str, float]
) -> dict[int, float]:
    """:func:`minmax_fuse`'s fused scores alone: each route's share as one array operation."""
    import numpy as np  # here, not at the top: ``import huiyi`` stays free of numpy

    total = sum(weights.get(route, 0.0) for route in routes) or 1.0
    out: dict[int, float] = {}
    for route, ranked in routes.items():
        if not ranked:
            continue
        keys = [key for key, _ in ranked]
        scores = np.fromiter((score for _, score in ranked), dtype=np.float64, count=len(ranked))
        low, high = float(scores.min()), float(scores.max())
        low = min(low, high - min_span.get(route, 0.0))
        span = high - low
        weight = weights.get(route, 0.0) / total
        shares = (weight * ((scores - low) / span) if span > 0 else np.full(len(keys), weight * 1.0)).tolist()
        if not out:
            out = dict(zip(keys, shares, strict=True))
            continue
        for key, share in zip(keys, shares, strict=True):
            out[key] = out.get(key, 0.0) + share
    return out


def unscored(fusion: Fusion, found_by: set[int]) -> set[int]:
    """The candidates no route scored: min-max put their cosine lowest (by more than the span floor), and
    neither the keyword search nor ``found_by`` (the speaker route's) found them. In a tiny store every
    memory is a dense candidate, so one unrelated to the query fuses to exactly 0."""
    keyword = fusion.raw.get("keyword", {})
    out: set[int] = set()
    for key, (score, _) in reversed(fusion.ranked):  # best first: the zeros are last
        if score > 0:
            break
        if key not in keyword and key not in found_by:
            out.add(key)
    return out


def explain(dense: RouteHits, keyword: RouteHits, fusion: Fusion, shown: int) -> dict[str, object]:
    """The debugger's view: each route's best candidates with raw scores, and the fused ranking."""
    return {
        "candidates": {
            "dense": [[hit.id, round(hit.score, 6)] for hit in dense.hits[:shown]],
            "keyword": [[hit.id, round(hit.score, 6)] for hit in keyword.hits[:shown]],
        },
        # [memory id, fused score, each route's share of it, each route's raw score]
        "fused": [
            [
                fusion.ids[key],
                round(score, 6),
                {route: round(share, 6) for route, share in parts.items()},
                {route: round(fusion.raw[route].get(key, 0.0), 6) for route in fusion.raw},
            ]
            for key, (score, parts) in fusion.ranked[:shown]
        ],
    }
