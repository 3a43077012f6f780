"""The plain fusion baseline a recall figure is held against, measured in the same run.

BM25 over words and CJK characters plus the same model's dense cosine, each min-max scaled over the
case's pool and fused 0.3·BM25 + 0.7·dense (the eval README's baseline): no views, routes or bonuses.
If huiyi's recall does not beat it, the machinery costs more than it finds (issue #17).

    >>> [float(x) for x in minmax(np.array([1.0, 3.0, 2.0]))]
    [0.0, 1.0, 0.5]
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Sequence
from typing import Any

import numpy as np

from huiyi.evaluation.probes import Case, ProbeResult, ProbeSet
from huiyi.evaluation.runner import QueryForm, compose_query
from huiyi.flows.ingest import terms_of
from huiyi.providers.embed import Embedder

__all__ = ["DENSE_WEIGHT", "bm25", "minmax", "run"]

DENSE_WEIGHT = 0.7
K1, B = 1.2, 0.75

Array = np.ndarray[Any, Any]


def _bag(text: str) -> Counter[str]:
    terms = terms_of(text)
    return Counter([*terms.words, *terms.chars])


def bm25(docs: Sequence[Counter[str]], query: Counter[str]) -> Array:
    """Okapi BM25 of each document for the query's distinct terms (idf over ``docs`` alone)."""
    out = np.zeros(len(docs))
    if not docs:
        return out
    lengths = np.array([sum(d.values()) for d in docs], dtype=float)
    average = float(lengths.mean()) or 1.0
    for term in query:
        tfs = np.array([d.get(term, 0) for d in docs], dtype=float)
        df = int((tfs > 0).sum())
        if not df:
            continue
        idf = math.log(1 + (len(docs) - df + 0.5) / (df + 0.5))
        out += idf * tfs * (K1 + 1) / (tfs + K1 * (1 - B + B * lengths / average))
    return out


def minmax(x: Array) -> Array:
    span = float(x.max() - x.min()) if len(x) else 0.0
    return (x - x.min()) / span if span > 0 else np.zeros_like(x, dtype=float)


def _documents(case: Case) -> list[tuple[str, str]]:
    """(provenance id, text) of what a case stores: its stored memories and its chat messages."""
    return [(m.id, m.text) for m in case.memories] + [(m.id, m.text) for m in case.messages]


def run(
    probes: ProbeSet, embedder: Embedder, form: QueryForm = "all", depth: int = 10, max_chars: int = 2000
) -> list[ProbeResult]:
    """Every probe ranked by the plain fusion over its case's documents, with the query ``form`` names."""
    texts = list(dict.fromkeys(text for case in probes.cases for _, text in _documents(case)))
    vectors = dict(zip(texts, embedder.embed_passages(texts), strict=True)) if texts else {}
    bags = {text: _bag(text) for text in texts}
    results: list[ProbeResult] = []
    for case in probes.cases:
        documents = _documents(case)
        if not documents:
            continue
        matrix = np.stack([vectors[text] for _, text in documents])
        docs = [bags[text] for _, text in documents]
        for probe in case.probes:
            query = compose_query(probe, "all" if form == "dialogue" else form, max_chars)
            dense = matrix @ embedder.embed_queries([query])[0]
            fused = DENSE_WEIGHT * minmax(dense) + (1 - DENSE_WEIGHT) * minmax(bm25(docs, _bag(query)))
            ranked: list[str] = []
            for i in np.argsort(-fused, kind="stable"):
                if documents[i][0] not in ranked:
                    ranked.append(documents[i][0])
                if len(ranked) >= depth:
                    break
            results.append(ProbeResult(case.id, probe.id, probe.group, list(probe.gold), ranked))
    return results
