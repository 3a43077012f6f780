"""The recall pipeline as it was before ranking loaded only what it reads (commit 77d6231): the reference
the equivalence test compares the pipeline with. Frozen on purpose; do not edit it to follow changes."""

from __future__ import annotations

import random
import time
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from datetime import datetime

from huiyi.config.recall import RecallRecipe
from huiyi.model import MemoryItem, MemoryKind, RecallHit, RecallResult, Scope
from huiyi.providers.embed import Embedder
from huiyi.recall import routes
from huiyi.recall.fuse import Fusion, fuse
from huiyi.recall.reinforce import Reinforcer
from huiyi.recall.rerank import Bonuses, Window, add_graph, add_route, add_tiers, mentioned
from huiyi.recall.score import ScorePreset, roulette, score_memories
from huiyi.store.base import RouteHits, Store
from huiyi.store.ties import kept_with_ties
from huiyi.text.times import TimeSpan, query_time_range

__all__ = ["RecallRequest", "run"]

_pool = ThreadPoolExecutor(max_workers=4, thread_name_prefix="huiyi-recall")


@dataclass
class RecallRequest:
    """One checked recall: what is asked, by whom, and how much of the answer is wanted."""

    query: str
    scopes: Sequence[Scope]
    limit: int
    score_threshold: float
    now: datetime  # when the query is asked; time words in it are read against this
    kinds: Sequence[MemoryKind] | None = None
    drop_words: Sequence[str] = field(default_factory=tuple)  # names that would match everything
    time_range: tuple[datetime | None, datetime | None] | None = None
    # record every route's candidates, the fused ranking and every bonus in ``info`` (the console's debugger)
    explain: bool = False


EXPLAINED = 30  # candidates kept per route when explaining


def run(
    store: Store,
    embedder: Embedder,
    recipe: RecallRecipe,
    request: RecallRequest,
    *,
    lexicon: str = "auto",
    reinforcer: Reinforcer | None = None,
) -> RecallResult:
    """The memories the recipe finds for the request, best first."""
    started = time.perf_counter()
    terms = routes.query_terms(request.query, request.drop_words)
    # a time phrase's characters match no line (as the pipeline reads the query since)
    named = query_time_range(request.query, request.now) if request.now and recipe.time_weight else None
    if named is not None:
        terms = routes.without_time_chars(terms, named.phrase)
    timings = {"tokenize": (time.perf_counter() - started) * 1000}
    ask = routes.Ask(
        store, embedder, request.scopes, request.query, terms, request.drop_words, request.now, recipe, lexicon
    )
    widens = _widens(recipe)
    limit = request.limit
    # a time range filters afterwards, so more candidates go in; the late routes widen a fixed pool
    if request.time_range is not None:
        first = max(limit * 5, recipe.candidates)
    else:
        first = max(limit, recipe.route_candidates) if widens else limit
    result = _fused(ask, request, first, started, timings)
    if widens:
        result = _widened(ask, result, first if request.time_range is not None else limit, request.explain)
    if request.time_range is not None:
        start, end = request.time_range
        inside = [
            hit
            for hit in result.hits
            if hit.time is not None and (start is None or hit.time >= start) and (end is None or hit.time <= end)
        ]
        result = result.model_copy(update={"hits": inside[:limit]})
    if recipe.reinforce and reinforcer is not None:
        reinforcer.note(ask.agent, [hit.id for hit in result.hits], request.now)
    return result


def _widens(recipe: RecallRecipe) -> bool:
    """Whether anything beyond the fused dense and keyword candidates is asked for."""
    late = any(_weight(recipe, name) for name in routes.LATE_ROUTES)
    return late or recipe.scores or bool(recipe.graph_weight or recipe.tier_weight or recipe.roulette)


def _weight(recipe: RecallRecipe, route: str) -> float:
    return float(getattr(recipe, f"{route}_weight"))


def _fused(
    ask: routes.Ask, request: RecallRequest, limit: int, started: float, timings: dict[str, float]
) -> RecallResult:
    """Dense and keyword fused, thresholded, reranked by the bonuses, filtered and cut to ``limit``."""
    recipe = ask.recipe
    candidates = max(recipe.candidates, limit)
    keyword_future = _pool.submit(routes.keyword, ask, candidates)
    dense = routes.dense(ask, candidates)
    keyword = keyword_future.result()
    timings.update(dense.ms)
    timings.update(keyword.ms)

    fuse_started = time.perf_counter()
    fusion = fuse(dense.first, keyword.first, recipe)
    ids_by_key, raw = fusion.ids, fusion.raw
    ranked = [pair for pair in fusion.ranked if pair[1][0] >= request.score_threshold]

    wanted_kinds = set(request.kinds) if request.kinds else None
    visible = set(request.scopes)
    hits: list[RecallHit] = []
    # fetch a little more than asked, since a kind filter may drop some; more still when reranking
    depth = limit * (3 if wanted_kinds else 1)
    span = query_time_range(request.query, request.now) if request.now and recipe.time_weight else None
    reranking = bool(recipe.speaker_weight or recipe.neighbour_weight) or span is not None
    if reranking:
        depth = max(depth, recipe.rerank_depth)
    depth = kept_with_ties([score for _, (score, _) in ranked[: 2 * depth]], depth)  # the ties at the cut too
    window = ranked[:depth]
    items = {item.id: item for item in ask.store.get_memories(ask.agent, [ids_by_key[key] for key, _ in window])}
    boosts: dict[int, dict[str, float]] = {}
    if reranking:
        window, boosts = rerank(
            window, {key: items.get(ids_by_key[key]) for key, _ in window}, request.query, recipe, span
        )
    for key, (score, _) in window:
        item = items.get(ids_by_key[key])
        if item is None or (wanted_kinds and item.kind not in wanted_kinds):
            continue
        if item.scope not in visible:  # the store is trusted, but a leak here would be the worst bug
            continue
        hits.append(_hit_of(item, round(score, 6), {r: round(raw[r].get(key, 0.0), 6) for r in raw}))
        if len(hits) >= limit:
            break
    timings["fuse"] = (time.perf_counter() - fuse_started) * 1000
    timings["total"] = (time.perf_counter() - started) * 1000
    returned = {hit.id for hit in hits} if not request.explain else {ids_by_key[key] for key, _ in window}
    explained = _explain(dense.first, keyword.first, fusion) if request.explain else {}
    return RecallResult(
        query=request.query,
        hits=hits,
        timings_ms={k: round(v, 3) for k, v in timings.items()},
        info={
            "words": list(ask.terms.words),
            "chars": list(ask.terms.chars),
            **({"time_span": [span.start.isoformat(), span.end.isoformat(), span.phrase]} if span else {}),
            # the rerank bonuses each hit got, by memory id (speaker, time, neighbour)
            "bonuses": {
                ids_by_key[key]: {name: round(value, 6) for name, value in bonus.items()}
                for key, bonus in boosts.items()
                if ids_by_key[key] in returned
            },
            **explained,
        },
    )


def _explain(dense: RouteHits, keyword: RouteHits, fusion: Fusion) -> dict[str, object]:
    """The debugger's view: each route's best candidates with raw scores, and the fused ranking."""
    return {
        "candidates": {
            "dense": [[hit.id, round(hit.score, 6)] for hit in dense.hits[:EXPLAINED]],
            "keyword": [[hit.id, round(hit.score, 6)] for hit in keyword.hits[:EXPLAINED]],
        },
        # [memory id, fused score, each route's share of it, each route's raw score]
        "fused": [
            [
                fusion.ids[key],
                round(score, 6),
                {route: round(share, 6) for route, share in parts.items()},
                {route: round(fusion.raw[route].get(key, 0.0), 6) for route in fusion.raw},
            ]
            for key, (score, parts) in fusion.ranked[:EXPLAINED]
        ],
    }


def _widened(ask: routes.Ask, result: RecallResult, limit: int, explain: bool = False) -> RecallResult:
    """The late routes, tiers and graph added to the fused candidates, scored by the recipe, cut to ``limit``."""
    started = time.perf_counter()
    recipe = ask.recipe
    relevance = {hit.id: hit.score for hit in result.hits}
    extra: Bonuses = {}
    info: dict[str, object] = {}
    timings: dict[str, float] = {}

    for name, route in routes.LATE_ROUTES.items():
        weight = _weight(recipe, name)
        if weight > 0:
            found = route(ask, recipe.route_candidates)
            for hits, share in found.searches:
                add_route(relevance, extra, name, hits, weight * share)
            if explain:
                candidates = info.setdefault("candidates", dict(result.info.get("candidates", {})))
                assert isinstance(candidates, dict)
                candidates[name] = [[hit.id, round(hit.score, 6)] for hit in found.first.hits[:EXPLAINED]]
            info.update(found.info)
            timings.update(found.ms)
    if recipe.tier_weight > 0:
        add_tiers(relevance, extra, result.hits, result.info.get("words", []), recipe.tier_weight)

    distances: dict[str, int] = {}
    # the planner's words (time words are read already) and, in auto mode, how close the best hit came
    best = max((hit.route_scores.get("dense", 0.0) for hit in result.hits[:1]), default=None)
    depth = routes.graph_depth(ask.query, recipe, best)
    if depth:
        seeds = sorted(relevance, key=lambda i: -relevance[i])[: recipe.graph_seeds]
        walked = routes.graph(ask, seeds, depth)
        distances = walked.hops
        add_graph(relevance, extra, distances, seeds, recipe.graph_weight)
        info.update(walked.info)
        timings.update(walked.ms)

    known = {hit.id: hit for hit in result.hits}
    # a weighted score needs every candidate's importance, strength and access; relevance only the new ones
    wanted = list(relevance) if recipe.scores else [i for i in relevance if i not in known]
    visible = set(ask.scopes)
    fetched = {item.id: item for item in ask.store.get_memories(ask.agent, wanted) if item.scope in visible}
    ranked_ids = [i for i in relevance if i in known or i in fetched]
    if recipe.scores:
        preset = ScorePreset(name=recipe.recipe, weights=recipe.score_weights)
        items = {i: fetched[i] for i in ranked_ids if i in fetched}
        final = {i: total for i, (total, _) in score_memories(items, relevance, distances, preset, ask.now).items()}
    else:
        final = {i: relevance[i] for i in ranked_ids}
    order = sorted(final, key=lambda i: (-final[i], i))
    if recipe.roulette:  # seed 001 §2.4.4: better scores are likelier, never certain
        pool = order[: max(limit, recipe.roulette_pool)]
        order = roulette(pool, [final[i] for i in pool], limit, random.Random(recipe.roulette_seed))
    answer: list[RecallHit] = []
    for memory_id in order[:limit]:
        hit = known.get(memory_id) or _hit_of(fetched[memory_id], 0.0)
        scores = {**hit.route_scores, **extra.get(memory_id, {})}
        answer.append(hit.model_copy(update={"score": round(final[memory_id], 6), "route_scores": scores}))
    timings["extend"] = (time.perf_counter() - started) * 1000
    return result.model_copy(
        update={
            "hits": answer,
            "timings_ms": {**result.timings_ms, **{k: round(v, 3) for k, v in timings.items()}},
            "info": {**result.info, **info},
        }
    )


def _hit_of(item: MemoryItem, score: float, route_scores: dict[str, float] | None = None) -> RecallHit:
    return RecallHit(
        id=item.id,
        kind=item.kind,
        text=item.text,
        score=score,
        route_scores=route_scores or {},
        time=item.time,
        scope=item.scope,
        sources=item.sources,
        place=item.place,
        keywords=item.keywords,
        insight=item.insight,
        data=item.data,
        valid_to=item.valid_to,
    )


def rerank(
    window: Window,
    items: dict[int, MemoryItem | None],
    query: str,
    recipe: RecallRecipe,
    span: TimeSpan | None,
) -> tuple[Window, dict[int, dict[str, float]]]:
    """Add small bonuses to the fused scores of the best candidates, then sort again.

    ``speaker``: the query names someone who took part in the memory (“what did 霓霓 say about…”,
    “what does Caroline paint?”); the people who take part are read from the candidates themselves.
    ``time``: the memory's time lies in the span the query's time words name (上周, in May 2023);
    ``time_weight`` times the share of the dated candidates outside the span.
    ``neighbour``: a chunk whose neighbours in the same chat (within ``neighbour_turns``) are among
    the candidates too sits in a stretch of talk about the question's topic (SeCom: topic segments
    beat single turns); it gains ``neighbour_weight`` times its best neighbour's fused score. An
    event or fact gains the same weight times the mean fused score of the chunks of its source turns
    (0 for a turn that is no candidate), so that in a small store, where every chunk has neighbours
    in the window, the bonus does not become a bonus for being a chunk.
    """
    names = {name for item in items.values() if item is not None for name in item.participants}
    named = mentioned(query, names) if recipe.speaker_weight else set()
    boosts: dict[int, dict[str, float]] = {}
    rescored: Window = []
    # a span that holds most candidates (去年, recently) tells little: the bonus shrinks with its share
    time_bonus = 0.0
    if span is not None:
        dated = [item.time for item in items.values() if item is not None and item.time is not None]
        inside = sum(1 for moment in dated if moment in span)
        time_bonus = recipe.time_weight * (1.0 - inside / len(dated)) if dated else 0.0
    # where each chunk sits in its chat, so a candidate can see how well its neighbours scored
    placed: dict[tuple[str, int], float] = {}
    said: dict[str, float] = {}  # a chunk's own message (its anchor) → the chunk's fused score
    if recipe.neighbour_weight:
        for key, (score, _) in window:
            item = items.get(key)
            if item is not None and item.kind is MemoryKind.CHUNK and "seq" in item.data:
                placed[(str(item.data.get("space")), int(item.data["seq"]))] = score
                if item.sources:
                    said[item.sources[0]] = score
    for key, (score, parts) in window:
        item = items.get(key)
        bonus: dict[str, float] = {}
        if item is not None:
            if named and named.intersection(item.participants):
                bonus["speaker"] = recipe.speaker_weight
            if time_bonus and item.time is not None and span is not None and item.time in span:
                bonus["time"] = time_bonus
            if placed and item.kind is MemoryKind.CHUNK and "seq" in item.data:
                space, seq = str(item.data.get("space")), int(item.data["seq"])
                around = [
                    placed.get((space, seq + step), 0.0)
                    for step in range(-recipe.neighbour_turns, recipe.neighbour_turns + 1)
                    if step
                ]
                if max(around, default=0.0) > 0:
                    bonus["neighbour"] = recipe.neighbour_weight * max(around)
            elif said and item.kind is not MemoryKind.CHUNK:
                # an event or fact drawn from turns that are candidates themselves: the same support
                support = sum(said.get(source, 0.0) for source in item.sources) / max(1, len(item.sources))
                if support > 0:
                    bonus["neighbour"] = recipe.neighbour_weight * support
        if bonus:
            boosts[key] = bonus
        rescored.append((key, (score + sum(bonus.values()), parts)))
    rescored.sort(key=lambda pair: (-pair[1][0], pair[0]))
    return rescored, boosts
