"""The routes and the scoring that extend recall beyond dense + keyword fusion.

- entity mentions: names and aliases of the scopes' entities found in the query (seed 002 §3.12) are
  searched as keywords, so 霓霓 finds what was said about 苏霓 even if she has not spoken for weeks;
- 联想词: the query's associated words (seed 000 §10–11) as a keyword route of their own, weighted
  below the query's own words;
- graph expansion: from the best candidates along memory links, when the planner reads causal or
  relation words (seed 004 §12.3), each hop scoring 1/distance;
- scoring presets (seed 001, seed 004) over the fused relevance, and roulette sampling (seed 001).
"""

from __future__ import annotations

import random
import threading
import time
from collections.abc import Sequence
from datetime import datetime

from huiyi.config import RoutesConfig
from huiyi.model import Entity, MemoryItem, RecallHit, RecallResult, Scope
from huiyi.recall import graph
from huiyi.recall.score import PRESETS, features_of, roulette, score
from huiyi.store.base import RouteHits, Store, Terms
from huiyi.text import tokens
from huiyi.text.expand import expand
from huiyi.text.lexicon import lexicon_for

_ENTITY_TTL = 5.0  # seconds an entity list may be reused before it is read again
_entity_cache: dict[tuple[int, tuple[str, ...]], tuple[float, list[Entity]]] = {}
_entity_lock = threading.Lock()


def scope_entities(store: Store, scopes: Sequence[Scope]) -> list[Entity]:
    """The entities of the scopes, read at most every few seconds per store and scope set."""
    key = (id(store), tuple(sorted(f"{s.agent}\x1f{s.tag}" for s in scopes)))
    now = time.monotonic()
    with _entity_lock:
        cached = _entity_cache.get(key)
        if cached is not None and now - cached[0] < _ENTITY_TTL:
            return cached[1]
    found = store.list_entities(scopes)
    with _entity_lock:
        if len(_entity_cache) > 4096:
            _entity_cache.clear()
        _entity_cache[key] = (now, found)
    return found


def entity_route(
    store: Store, scopes: Sequence[Scope], query: str, drop: Sequence[str], limit: int
) -> tuple[RouteHits, list[str]]:
    """Memories naming an entity the query mentions by another of its names (霓霓 asked, 苏霓 said);
    the caller's own names are excluded."""
    named = [e for e in graph.mentioned(scope_entities(store, scopes), query) if not set(e.names) & set(drop)]
    if not named:
        return RouteHits(), []
    # the names the query did not use: the keyword route already searches the ones it did
    folded = query.casefold()
    other_names = [n for e in named for n in e.names if n.casefold() not in folded]
    if not other_names:
        return RouteHits(), [e.name for e in named]
    terms = Terms(words=list(dict.fromkeys(w for n in other_names for w in tokens.words(n))))
    return store.search_keyword(scopes, terms, limit), [e.name for e in named]


LEVEL_BANDS = ((7, 99), (5, 6), (0, 4))  # high, middle and low association levels, searched apart


def expansion_route(
    store: Store, scopes: Sequence[Scope], query: str, drop: Sequence[str], limit: int, neighbours: str, words: int
) -> tuple[list[tuple[RouteHits, float]], list[tuple[str, int]], list[str]]:
    """Memories holding the query's associated words, one search per band of levels so that a memory
    found through a likelier association weighs more (level / 9, below the query's own words at 1).

    Returns (hits, weight) per band, the expansions (word, level) and the base words."""
    found = expand(query, max_words=words, drop=drop, lexicon=lexicon_for(neighbours))
    routes: list[tuple[RouteHits, float]] = []
    for low, high in LEVEL_BANDS:
        band = [(w, level) for w, level in found.expanded if low <= level <= high]
        if band:
            weight = min(1.0, max(level for _, level in band) / 9)
            routes.append((store.search_keyword(scopes, Terms(words=[w for w, _ in band]), limit), weight))
    return routes, found.expanded, found.base_words


def tier(query_words: Sequence[str], keywords: Sequence[str], text: str) -> int:
    """Seed 001 §2.3's match tiers: 4 a query word is a tag (keyword), 3 it is part of one (or one is part
    of it), 2 it is a word of the text, 1 it is inside the text, 0 nothing; a one-character word never
    matches a text (seed 000 v23), only a tag exactly.

    >>> tier(["吉他"], ["吉他"], "…"), tier(["吉他"], ["电吉他"], "…"), tier(["吉他"], [], "我想学吉他")
    (4, 3, 2)
    >>> tier(["吉他"], [], "电吉他很贵"), tier(["猫"], [], "我的猫"), tier(["猫"], ["猫"], "…")
    (1, 0, 4)
    """
    tags = [k.casefold() for k in keywords]
    best = 0
    text_words = set(tokens.words(text)) if query_words else set()
    folded = text.casefold()
    for word in (w.casefold() for w in query_words):
        if word in tags:
            return 4
        if len(word) > 1 and any(word in tag or (len(tag) > 1 and tag in word) for tag in tags):
            best = max(best, 3)
        elif len(word) > 1 and word in text_words:
            best = max(best, 2)
        elif len(word) > 1 and word in folded:
            best = max(best, 1)
    return best


def neighbours(store: Store, agent: str, seeds: Sequence[str], depth: int, limit: int) -> dict[str, int]:
    """Memories linked to the seeds within ``depth`` hops, with their distance."""
    return graph.expand(store, agent, seeds, depth, limit) if depth > 0 and seeds else {}


def rescore(
    items: dict[str, MemoryItem],
    relevance: dict[str, float],
    distances: dict[str, int],
    preset: str,
    now: datetime,
) -> dict[str, tuple[float, dict[str, float]]]:
    """The preset's score of each memory from its fused relevance and its own signals."""
    chosen = PRESETS[preset]
    out: dict[str, tuple[float, dict[str, float]]] = {}
    for memory_id, item in items.items():
        features = features_of(
            item,
            min(1.0, max(0.0, relevance.get(memory_id, 0.0))),
            now,
            distances.get(memory_id),
            max(-1.0, min(1.0, item.feedback)),
        )
        total, parts = score(features, chosen)
        out[memory_id] = (total, {str(name): value for name, value in parts.items()})
    return out


def sample(ids: Sequence[str], scores: Sequence[float], k: int, seed: int | None) -> list[str]:
    """Seed 001's roulette wheel among the candidates: better scores are likelier, never certain."""
    return roulette(list(ids), list(scores), k, random.Random(seed))


def extend_recall(
    store: Store,
    settings: RoutesConfig,
    expand_neighbours: str,
    result: RecallResult,
    scopes: Sequence[Scope],
    drop: Sequence[str],
    limit: int,
    now: datetime,
) -> RecallResult:
    """Add the entity, 联想词 and graph routes to a fused recall, then score by the configured preset.

    ``result`` holds the fused candidates (more than ``limit`` of them); the answer holds ``limit``.
    """
    started = time.perf_counter()
    agent = scopes[0].agent if scopes else ""
    query = result.query
    relevance = {hit.id: hit.score for hit in result.hits}
    extra: dict[str, dict[str, float]] = {}
    info: dict[str, object] = {}
    timings: dict[str, float] = {}

    def add_route(name: str, hits: RouteHits, weight: float) -> None:
        if not hits.hits or weight <= 0:
            return
        best = max(h.score for h in hits.hits) or 1.0
        for hit in hits.hits:
            bonus = weight * hit.score / best
            relevance[hit.id] = relevance.get(hit.id, 0.0) + bonus
            routes = extra.setdefault(hit.id, {})
            routes[name] = round(routes.get(name, 0.0) + bonus, 6)

    if settings.entity_weight > 0:
        step = time.perf_counter()
        found, names = entity_route(store, scopes, query, drop, settings.candidates)
        add_route("entity", found, settings.entity_weight)
        if names:
            info["entities"] = names
        timings["entity"] = (time.perf_counter() - step) * 1000
    if settings.expand_weight > 0:
        step = time.perf_counter()
        bands, expanded, base = expansion_route(
            store, scopes, query, drop, settings.candidates, expand_neighbours, settings.expand_words
        )
        for band_hits, band_weight in bands:
            add_route("expand", band_hits, settings.expand_weight * band_weight)
        info["base_words"] = base
        info["expanded_words"] = [{word: level} for word, level in expanded]
        timings["expand"] = (time.perf_counter() - step) * 1000

    if settings.tier_weight > 0:
        query_words = result.info.get("words", [])
        for hit in result.hits:
            level = tier(query_words, hit.keywords, hit.text)
            if level:
                bonus = settings.tier_weight * level / 4
                relevance[hit.id] += bonus
                extra.setdefault(hit.id, {})["tier"] = round(bonus, 6)

    depth = 0
    if settings.graph_weight > 0:  # the planner's words only: time words are read by the engine already
        depth = 2 if graph.CAUSAL.search(query) else 1 if graph.RELATION.search(query) else 0
        depth = min(depth, settings.graph_max_depth)
    distances: dict[str, int] = {}
    if depth:
        step = time.perf_counter()
        seeds = sorted(relevance, key=lambda i: -relevance[i])[: settings.graph_seeds]
        distances = neighbours(store, agent, seeds, depth, settings.graph_limit)
        best_seed = max((relevance[s] for s in seeds), default=0.0)
        for memory_id, distance in distances.items():
            bonus = settings.graph_weight * best_seed / distance
            relevance[memory_id] = max(relevance.get(memory_id, 0.0), bonus)
            extra.setdefault(memory_id, {})["graph"] = round(bonus, 6)
        info["expand_depth"] = depth
        timings["graph"] = (time.perf_counter() - step) * 1000

    known = {hit.id: hit for hit in result.hits}
    scoring = settings.preset != "relevance"
    # a preset needs every candidate's importance, strength and access; plain relevance only the new ones
    wanted = list(relevance) if scoring else [i for i in relevance if i not in known]
    visible = set(scopes)
    fetched = {item.id: item for item in store.get_memories(agent, wanted) if item.scope in visible}
    ranked_ids = [i for i in relevance if i in known or i in fetched]
    if scoring:
        scored = rescore(
            {i: fetched[i] for i in ranked_ids if i in fetched}, relevance, distances, settings.preset, now
        )
        final = {i: scored[i][0] for i in scored}
    else:
        final = {i: relevance[i] for i in ranked_ids}
    order = sorted(final, key=lambda i: (-final[i], i))
    if settings.roulette:
        pool = order[: max(limit, settings.roulette_pool)]
        order = sample(pool, [final[i] for i in pool], limit, settings.roulette_seed)
    answer: list[RecallHit] = []
    for memory_id in order[:limit]:
        hit = known.get(memory_id) or _hit_of(fetched[memory_id])
        routes = {**hit.route_scores, **extra.get(memory_id, {})}
        answer.append(hit.model_copy(update={"score": round(final[memory_id], 6), "route_scores": routes}))
    timings["extend"] = (time.perf_counter() - started) * 1000
    return result.model_copy(
        update={
            "hits": answer,
            "timings_ms": {**result.timings_ms, **{k: round(v, 3) for k, v in timings.items()}},
            "info": {**result.info, **info},
        }
    )


def _hit_of(item: MemoryItem) -> RecallHit:
    return RecallHit(
        id=item.id,
        kind=item.kind,
        text=item.text,
        score=0.0,
        time=item.time,
        scope=item.scope,
        sources=item.sources,
        place=item.place,
        keywords=item.keywords,
        insight=item.insight,
        data=item.data,
    )
