"""Keyword search against store size, apart from the rest of recall: does its cost follow the scope?

Issue 15 asks that a scope-restricted keyword search cost what the scope holds, not the store: the
same scope size in a 10k and a 1M store, p50 ratio ≤ 1.5. A full 1M store (vectors, recall, serving
processes) takes a long while to build and measure; keyword search needs none of it. So this part
builds stores as ``build`` does (the same synthetic chat, scopes and keyword terms) but with made
vectors of a few dimensions that are never searched, then times ``Store.search_keyword`` alone on
each probe's query terms (as recall makes them, ``recall.routes.query_terms``) in the probe person's
scope and the agent's official one (what a private chat's recall sees), at the route's candidate
limit. Rounds alternate between the sizes, so a machine whose load changes favours none of them.
"""

from __future__ import annotations

import shutil
import time
from collections.abc import Callable, Sequence
from functools import lru_cache
from pathlib import Path
from typing import Any

from huiyi.config.recall import RecallRecipe
from huiyi.evaluation import synthetic
from huiyi.evaluation.bench import stats as bench_stats
from huiyi.evaluation.bench.build import Pool, VectorCache, build_store, describe
from huiyi.evaluation.bench.recall import size_label
from huiyi.flows import ingest
from huiyi.model import Scope
from huiyi.providers.embed import HashEmbedder
from huiyi.recall.routes import query_terms
from huiyi.store.base import Store, Terms
from huiyi.store.sqlite import SQLiteStore

Say = Callable[[str], None]
DIM = 8  # made vectors: stored, never searched here


def bench_keyword(
    sizes: Sequence[int],
    *,
    scope_size: int,
    n_queries: int,
    directory: Path,
    seed: int = 0,
    rounds: int = 5,
    keep: bool = False,
    say: Say = lambda _: None,
) -> dict[str, Any]:
    """p50/p95 of ``search_keyword`` at each store size (same scope size), and largest over smallest."""
    cache = VectorCache(HashEmbedder(DIM), None)
    pool = Pool.build(cache, 2, seed)
    limit = RecallRecipe().candidates
    agent = synthetic.AGENT
    stores: list[tuple[int, Store, list[tuple[list[Scope], Terms]]]] = []
    out: dict[str, Any] = {"scope": scope_size, "limit": limit, "rounds": rounds, "sizes": []}
    _cached_terms.cache_clear()
    try:
        for size in sizes:
            label = size_label(size)
            path = directory / f"keyword-{label}"
            if path.exists():
                shutil.rmtree(path)
            say(f"keyword {label}: building {size:,} memories (keyword rows, made vectors) in scopes of {scope_size}")
            store = SQLiteStore(path)
            stats = build_store(
                store,
                size=size,
                scope_size=scope_size,
                pool=pool,
                cache=cache,
                n_probes=n_queries,
                seed=seed,
                terms=_cached_terms,
            )
            asks = [
                ([Scope.of_person(agent, p.person.id), Scope.official(agent)], query_terms(p.query))
                for p in stats.probes
            ]
            stores.append((size, store, asks))
            out["sizes"].append({"size": size, "label": label, "build": describe(stats)})
        say(f"keyword: timing {rounds} rounds of {n_queries} searches per size")
        samples: dict[int, list[float]] = {size: [] for size, _, _ in stores}
        for _, store, asks in stores:  # once untimed: the pages each query reads come into the cache
            for scopes, terms in asks:
                store.search_keyword(scopes, terms, limit)
        for _ in range(rounds):
            for size, store, asks in stores:
                for scopes, terms in asks:
                    started = time.perf_counter()
                    store.search_keyword(scopes, terms, limit)
                    samples[size].append((time.perf_counter() - started) * 1000)
        for entry in out["sizes"]:
            entry["ms"] = bench_stats.summary(samples[entry["size"]])
    finally:
        for _, store, _ in stores:
            store.close()
        _cached_terms.cache_clear()
        if not keep:
            for size in sizes:
                shutil.rmtree(directory / f"keyword-{size_label(size)}", ignore_errors=True)
    timed = out["sizes"]
    if len(timed) > 1 and timed[0]["ms"]["p50"]:
        out["largest_over_smallest_p50"] = round(timed[-1]["ms"]["p50"] / timed[0]["ms"]["p50"], 3)
    return out


@lru_cache(maxsize=200_000)
def _cached_terms(text: str) -> Terms:
    """``ingest.terms_of`` of a synthetic line: lines repeat, and cutting them is most of a build."""
    return ingest.terms_of(text)
