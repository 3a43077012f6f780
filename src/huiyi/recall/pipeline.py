"""Recall, the hot path, as one pipeline run by a recipe.

Routes → fuse → rerank → score → threshold, time range and limit → roulette:

1. The dense and keyword routes run together (the keyword search while the query is embedded: both
   release the GIL), with the speaker route when the query names someone (their memories by the
   index's speaker field; the query is embedded without their names), are fused, cut by the score
   threshold, and the best and the named person's get the rerank bonuses (speaker, time, neighbour,
   chatter); a kind filter and the scope check keep what may be returned.
2. When the recipe asks for more (the late routes, tiers, the graph, a weighted score or roulette),
   those candidates are widened: late routes and tiers add bonuses, the graph walks from the best,
   the recipe's score weighs the result, and roulette may sample among the best.
3. In a group, the global profile of a member the query names joins (``absent_profiles``).
4. A time range keeps what lies inside it; the limit cuts; what was returned is reinforced.
"""

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
from huiyi.recall.rerank import Bonuses, add_graph, add_route, add_tiers, rerank
from huiyi.recall.score import ScorePreset, roulette, score_memories
from huiyi.store.base import RouteHits, Store
from huiyi.text.times import query_time_range

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
    named = [str(n) for n in result.info.get("people", [])]
    if recipe.absent_profiles and named:
        result = _with_profiles(ask, result, named, limit)
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
    # the people the query names are found by the speaker field, and meaning is matched without them
    named = routes.named_people(ask) if recipe.speaker_weight or recipe.absent_profiles else []
    # in a group (more than two speakers) names are a field, not words: the query loses them too
    by_name = named if recipe.speaker_weight and named and routes.in_group(ask) else []
    keyword_future = _pool.submit(routes.keyword, ask, candidates, by_name)
    speaker_future = _pool.submit(routes.speaker, ask, candidates, by_name) if by_name else None
    dense = routes.dense(ask, candidates)
    keyword = keyword_future.result()
    spoken = speaker_future.result() if speaker_future is not None else routes.Hits()
    timings.update(dense.ms)
    timings.update(keyword.ms)
    timings.update(spoken.ms)

    fuse_started = time.perf_counter()
    fusion = fuse(dense.first, keyword.first, recipe, spoken.first)
    ids_by_key, raw = fusion.ids, fusion.raw
    ranked = [pair for pair in fusion.ranked if pair[1][0] >= request.score_threshold]

    wanted_kinds = set(request.kinds) if request.kinds else None
    visible = set(request.scopes)
    hits: list[RecallHit] = []
    # fetch a little more than asked, since a kind filter may drop some; more still when reranking
    depth = limit * (3 if wanted_kinds else 1)
    span = query_time_range(request.query, request.now) if request.now and recipe.time_weight else None
    reranking = bool(recipe.speaker_weight or recipe.neighbour_weight or recipe.chatter_weight < 1) or span is not None
    if reranking:
        depth = max(depth, recipe.rerank_depth)
    window = ranked[:depth]
    # the named person's memories are reranked wherever meaning and words put them
    by_speaker = {hit.key for hit in spoken.first.hits}
    if by_speaker and reranking:
        window += [pair for pair in ranked[depth:] if pair[0] in by_speaker]
    found = spoken.info.get("speakers")
    speakers = [str(name) for name in found] if isinstance(found, list) else []
    items = {item.id: item for item in ask.store.get_memories(ask.agent, [ids_by_key[key] for key, _ in window])}
    boosts: dict[int, dict[str, float]] = {}
    if reranking:
        window, boosts = rerank(
            window,
            {key: items.get(ids_by_key[key]) for key, _ in window},
            request.query,
            recipe,
            span,
            speakers,
            {hit.key: hit.score for hit in spoken.first.hits},
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
            **({"people": named} if named else {}),  # every name of the people the query names
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


def _with_profiles(ask: routes.Ask, result: RecallResult, named: Sequence[str], limit: int) -> RecallResult:
    """An absent member's global profile, just below the best hit (issue #13): asked about by name, the
    person's own account of themself belongs near the top."""
    profiles = routes.absent_profiles(ask, named)
    known = {hit.id for hit in result.hits}
    top = result.hits[0].score if result.hits else 1.0
    added = [_hit_of(item, round(top - 1e-6 * (i + 1), 6)) for i, item in enumerate(profiles) if item.id not in known]
    if not added:
        return result
    hits = sorted([*result.hits, *added], key=lambda hit: -hit.score)[:limit]
    return result.model_copy(update={"hits": hits, "info": {**result.info, "profiles": [h.id for h in added]}})


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
