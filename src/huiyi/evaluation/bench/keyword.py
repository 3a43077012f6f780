"""Keyword search against store size, apart from the rest of recall: does its cost follow the scope?

Issue 15 asks that a scope-restricted keyword search cost what the scope holds, not the store: the
same scope size in a 10k and a 1M store, p50 ratio ≤ 1.5. A full 1M store (vectors, recall, serving
processes) takes a long while to build and measure; keyword search needs none of it. So this part
builds stores as ``build`` does (the same synthetic chat, scopes and keyword terms) but with made
vectors of a few dimensions that are never searched, then times ``Store.search_keyword`` alone on
each probe's query terms (as recall makes them, ``recall.routes.query_terms``) in the probe person's
scope and the agent's official one (what a private chat's recall sees), at the route's candidate
limit, and ranks each probe's planted memory among the hits (gold@1, gold@10: whether ranking
changes as the store grows). Rounds alternate between the sizes, so a machine whose load changes
favours none of them. Then each store is tidied as maintenance leaves it (``Store.tidy_keywords`` until
it has nothing left to merge: FTS5's segments, which a term is looked up in one by one, grow in number
with the writes) and the same searches are timed again: both ratios are reported, as built and tidied.
With ``--store pg`` the same stores are built and timed on PostgreSQL too (each in its own schema,
``VACUUM ANALYZE``d once built, as the recall part does; its tidy_keywords has nothing to do).
"""

from __future__ import annotations

import shutil
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

from huiyi.config import StoreConfig
from huiyi.config.recall import RecallRecipe
from huiyi.evaluation import synthetic
from huiyi.evaluation.bench import stats as bench_stats
from huiyi.evaluation.bench.build import Pool, VectorCache, build_store, describe
from huiyi.evaluation.bench.recall import size_label
from huiyi.flows import ingest
from huiyi.model import Scope
from huiyi.providers.embed import HashEmbedder
from huiyi.recall.routes import query_terms
from huiyi.store import open_store
from huiyi.store.base import Store, Terms

if TYPE_CHECKING:
    from huiyi.evaluation.bench.pg import PgTarget

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
    batch: int = 20000,
    targets: Sequence[tuple[str, PgTarget | None]] = (("sqlite", None),),
    say: Say = lambda _: None,
) -> dict[str, Any]:
    """p50/p95 of ``search_keyword`` at each store size (same scope size), and largest over smallest,
    on each target: the embedded store (None) first, then PostgreSQL ones (a fresh schema per size),
    as built (memories added ``batch`` at a time) and tidied."""
    sizes = sorted(set(sizes))
    cache = VectorCache(HashEmbedder(DIM), None)
    pool = Pool.build(cache, 2, seed)
    limit = RecallRecipe().candidates
    agent = synthetic.AGENT
    built: list[_Built] = []
    out: dict[str, Any] = {"scope": scope_size, "limit": limit, "rounds": rounds}
    _cached_terms.cache_clear()
    try:
        for name, target in targets:
            for size in sizes:
                label = size_label(size)
                say(f"keyword {name} {label}: building {size:,} memories (keyword rows only) in scopes of {scope_size}")
                location = _location(directory, label, target)
                one = _Built(name, target, location, open_store(location, StoreConfig()), size, label)
                built.append(one)
                stats = build_store(
                    one.store,
                    size=size,
                    scope_size=scope_size,
                    pool=pool,
                    cache=cache,
                    n_probes=n_queries,
                    seed=seed,
                    terms=_cached_terms,
                    batch=batch,
                )
                if target is not None:
                    target.vacuum(location)
                one.asks = [
                    ([Scope.of_person(agent, p.person.id), Scope.official(agent)], query_terms(p.query))
                    for p in stats.probes
                ]
                one.golds = [p.gold for p in stats.probes]
                one.report = {"size": size, "label": label, "build": describe(stats)}
        say(f"keyword: timing {rounds} rounds of the smallest store's {len(built[0].asks)} searches per store")
        for one in built:  # once untimed (the pages each query reads come into the cache), for the gold's rank
            one.hits = [[hit.id for hit in one.store.search_keyword(s, t, limit).hits] for s, t in one.asks]
            found = zip(one.hits, one.golds, strict=True)
            one.ranks = [ids.index(gold) + 1 if gold in ids else None for ids, gold in found]
        # every store is timed on the smallest one's asks: its persons are in the larger stores too, with
        # the same ids and scope sizes, so each size answers the same queries over scopes of one size
        timed_asks = {one.name: one.asks for one in reversed(built)}
        _time(built, timed_asks, rounds, limit, tidied=False)
        for one in built:
            say(f"keyword {one.name} {one.label}: tidying the keyword index until nothing is left to merge")
            started = time.perf_counter()
            while done := one.store.tidy_keywords():
                one.tidy_steps += done
            one.tidy_seconds = time.perf_counter() - started
            # untimed again (the merged pages come into the cache): merging must not change what is found
            after = [[hit.id for hit in one.store.search_keyword(s, t, limit).hits] for s, t in one.asks]
            one.changed_hits = sum(a != b for a, b in zip(one.hits, after, strict=True))
        say("keyword: timing the same searches on the tidied stores")
        _time(built, timed_asks, rounds, limit, tidied=True)
    finally:
        _cached_terms.cache_clear()
        for one in built:
            one.store.close()
            if keep:
                continue
            if one.target is not None:
                one.target.drop(one.location)
            else:
                shutil.rmtree(one.location, ignore_errors=True)
    for name, _ in targets:
        timed = [
            {
                **one.report,
                "ms": bench_stats.summary(one.samples),
                **_hits(one.ranks),
                "tidy": {
                    "steps": one.tidy_steps,
                    "seconds": round(one.tidy_seconds, 2),
                    "changed_hits": one.changed_hits,
                },
                "tidied_ms": bench_stats.summary(one.tidied_samples),
            }
            for one in built
            if one.name == name
        ]
        section: dict[str, Any] = {"sizes": timed}
        for key, ratio in (("ms", "largest_over_smallest_p50"), ("tidied_ms", "tidied_largest_over_smallest_p50")):
            if len(timed) > 1 and timed[0][key]["p50"]:
                section[ratio] = round(timed[-1][key]["p50"] / timed[0][key]["p50"], 3)
        if name == "sqlite":
            out.update(section)
        else:
            out.setdefault("postgres", {})[name] = section
    return out


@dataclass
class _Built:
    """One store built for this part, and what was measured on it."""

    name: str
    target: PgTarget | None
    location: str
    store: Store
    size: int
    label: str
    asks: list[tuple[list[Scope], Terms]] = field(default_factory=list)
    golds: list[str] = field(default_factory=list)  # each ask's planted memory
    ranks: list[int | None] = field(default_factory=list)  # its rank in the keyword hits, None if absent
    hits: list[list[str]] = field(default_factory=list)  # each ask's hit ids, as built
    samples: list[float] = field(default_factory=list)  # as built
    tidy_steps: int = 0  # tidy_keywords' merge steps until it had nothing left to merge
    tidy_seconds: float = 0.0
    changed_hits: int = 0  # asks whose hits differ once tidied (merging must change none)
    tidied_samples: list[float] = field(default_factory=list)
    report: dict[str, Any] = field(default_factory=dict)


def _time(
    built: Sequence[_Built], asks: dict[str, list[tuple[list[Scope], Terms]]], rounds: int, limit: int, *, tidied: bool
) -> None:
    """``rounds`` rounds of each store's searches, the stores taking turns within each round."""
    for _ in range(rounds):
        for one in built:
            samples = one.tidied_samples if tidied else one.samples
            for scopes, terms in asks[one.name]:
                started = time.perf_counter()
                one.store.search_keyword(scopes, terms, limit)
                samples.append((time.perf_counter() - started) * 1000)


def _hits(ranks: Sequence[int | None]) -> dict[str, float]:
    """How often the planted memory comes first and in the first ten keyword hits: what the scope's
    statistics do to ranking, as the store around it grows."""
    n = len(ranks) or 1
    return {
        "gold_at_1": round(sum(r == 1 for r in ranks) / n, 3),
        "gold_at_10": round(sum(r is not None and r <= 10 for r in ranks) / n, 3),
    }


def _location(directory: Path, label: str, target: PgTarget | None) -> str:
    """A fresh store's location: a directory emptied first, or a new PostgreSQL schema."""
    if target is not None:
        return target.new_dsn()
    path = directory / f"keyword-{label}"
    if path.exists():
        shutil.rmtree(path)
    return str(path)


@lru_cache(maxsize=200_000)
def _cached_terms(text: str) -> Terms:
    """``ingest.terms_of`` of a synthetic line: lines repeat, and cutting them is most of a build."""
    return ingest.terms_of(text)
