"""Recall, the hot path: routes run together, their candidates are fused, the best are returned.

The keyword route runs while the query is being embedded (both release the GIL: SQLite and the C
embedding engine), then the dense route scans the visible scopes exactly. Every dense score of every
candidate comes from that one scan, so fusion never needs a second query.
"""

from __future__ import annotations

import re
import time
from collections.abc import Iterable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from datetime import datetime

from huiyi.config import RecallConfig
from huiyi.model import MemoryItem, MemoryKind, RecallHit, RecallResult, Scope
from huiyi.providers.embed import Embedder
from huiyi.recall.fusion import minmax_fuse, rrf_fuse
from huiyi.store.base import RouteHits, Store, Terms
from huiyi.text import tokens
from huiyi.text.times import TimeSpan, query_time_range

_pool = ThreadPoolExecutor(max_workers=4, thread_name_prefix="huiyi-recall")


@dataclass
class RecallRequest:
    query: str
    scopes: Sequence[Scope]
    limit: int
    score_threshold: float
    kinds: Sequence[MemoryKind] | None = None
    drop_words: Sequence[str] = field(default_factory=tuple)  # names that would match everything
    now: datetime | None = None  # when the query is asked; time words in it are read against this


def query_terms(query: str, drop_words: Sequence[str] = ()) -> Terms:
    """Content words plus the CJK characters of the content words (stopwords out)."""
    words = tokens.content_words(query, drop=drop_words)
    chars: list[str] = []
    for word in words:
        for char in tokens.chars(word):
            if char not in chars and char not in tokens.ZH_STOPWORDS:
                chars.append(char)
    return Terms(words=words, chars=chars)


def recall(store: Store, embedder: Embedder, config: RecallConfig, request: RecallRequest) -> RecallResult:
    started = time.perf_counter()
    timings: dict[str, float] = {}
    terms = query_terms(request.query, request.drop_words)
    timings["tokenize"] = (time.perf_counter() - started) * 1000
    candidates = max(config.candidates, request.limit)

    keyword_future = _pool.submit(store.search_keyword, request.scopes, terms, candidates)
    embed_started = time.perf_counter()
    vector = embedder.embed_queries([request.query])[0]
    timings["embed"] = (time.perf_counter() - embed_started) * 1000
    dense = store.search_dense(request.scopes, vector, candidates)
    keyword: RouteHits = keyword_future.result()
    timings["dense"] = dense.ms
    timings["keyword"] = keyword.ms

    fuse_started = time.perf_counter()
    ids_by_key = {hit.key: hit.id for hit in (*dense.hits, *keyword.hits)}
    dense_ranked = [(hit.key, hit.score) for hit in dense.hits]
    in_dense = {k for k, _ in dense_ranked}
    missing = [hit.key for hit in keyword.hits if hit.key not in in_dense]
    dense_ranked += list(zip(missing, dense.score_of(missing), strict=True))
    dense_ranked.sort(key=lambda pair: -pair[1])
    routes = {"dense": dense_ranked, "keyword": [(hit.key, hit.score) for hit in keyword.hits]}
    weights = {"dense": config.dense_weight, "keyword": config.keyword_weight}
    fused = (
        rrf_fuse(routes, weights, config.rrf_k)
        if config.fusion == "rrf"
        else minmax_fuse(routes, weights, {"dense": config.dense_min_span})
    )
    raw = {"dense": dict(routes["dense"]), "keyword": dict(routes["keyword"])}
    ranked = sorted(fused.items(), key=lambda pair: (-pair[1][0], pair[0]))
    ranked = [pair for pair in ranked if pair[1][0] >= request.score_threshold]

    wanted_kinds = set(request.kinds) if request.kinds else None
    visible = set(request.scopes)
    agent = request.scopes[0].agent if request.scopes else ""
    hits: list[RecallHit] = []
    # fetch a little more than asked, since a kind filter may drop some; more still when reranking
    depth = request.limit * (3 if wanted_kinds else 1)
    span = query_time_range(request.query, request.now) if request.now and config.time_weight else None
    reranking = bool(config.speaker_weight or config.neighbour_weight) or span is not None
    if reranking:
        depth = max(depth, config.rerank_depth)
    window = ranked[:depth]
    items = {item.id: item for item in store.get_memories(agent, [ids_by_key[key] for key, _ in window])}
    boosts: dict[int, dict[str, float]] = {}
    if reranking:
        window, boosts = _rerank(window, {key: items.get(ids_by_key[key]) for key, _ in window}, request, config, span)
    for key, (score, _) in window:
        item = items.get(ids_by_key[key])
        if item is None or (wanted_kinds and item.kind not in wanted_kinds):
            continue
        if item.scope not in visible:  # the store is trusted, but a leak here would be the worst bug
            continue
        hits.append(
            RecallHit(
                id=item.id,
                kind=item.kind,
                text=item.text,
                score=round(score, 6),
                route_scores={route: round(raw[route].get(key, 0.0), 6) for route in raw},
                time=item.time,
                scope=item.scope,
                sources=item.sources,
                place=item.place,
                keywords=item.keywords,
                insight=item.insight,
                data=item.data,
            )
        )
        if len(hits) >= request.limit:
            break
    timings["fuse"] = (time.perf_counter() - fuse_started) * 1000
    timings["total"] = (time.perf_counter() - started) * 1000
    returned = {hit.id for hit in hits}
    return RecallResult(
        query=request.query,
        hits=hits,
        timings_ms={k: round(v, 3) for k, v in timings.items()},
        info={
            "words": list(terms.words),
            "chars": list(terms.chars),
            **({"time_span": [span.start.isoformat(), span.end.isoformat(), span.phrase]} if span else {}),
            # the rerank bonuses each hit got, by memory id (speaker, time, neighbour)
            "bonuses": {
                ids_by_key[key]: {name: round(value, 6) for name, value in bonus.items()}
                for key, bonus in boosts.items()
                if ids_by_key[key] in returned
            },
        },
    )


def mentioned(query: str, names: Iterable[str]) -> set[str]:
    """The names the query mentions: as a whole word (any case) for Latin names, as a substring for CJK.

    >>> sorted(mentioned("What did Caroline's friend Mel paint?", ["Caroline", "Melanie", "苏霓"]))
    ['Caroline']
    >>> mentioned("霓霓上周说了什么", ["霓霓", "木木"])
    {'霓霓'}
    """
    found: set[str] = set()
    folded = query.casefold()
    for name in names:
        key = name.strip().casefold()
        if len(key) < 2:
            continue
        if tokens.has_cjk(key):
            if key in folded:
                found.add(name)
        elif re.search(rf"(?<!\w){re.escape(key)}(?!\w)", folded):
            found.add(name)
    return found


def _rerank(
    window: list[tuple[int, tuple[float, dict[str, float]]]],
    items: dict[int, MemoryItem | None],
    request: RecallRequest,
    config: RecallConfig,
    span: TimeSpan | None,
) -> tuple[list[tuple[int, tuple[float, dict[str, float]]]], dict[int, dict[str, float]]]:
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
    named = mentioned(request.query, names) if config.speaker_weight else set()
    boosts: dict[int, dict[str, float]] = {}
    rescored: list[tuple[int, tuple[float, dict[str, float]]]] = []
    # a span that holds most candidates (去年, recently) tells little: the bonus shrinks with its share
    time_bonus = 0.0
    if span is not None:
        dated = [item.time for item in items.values() if item is not None and item.time is not None]
        inside = sum(1 for moment in dated if moment in span)
        time_bonus = config.time_weight * (1.0 - inside / len(dated)) if dated else 0.0
    # where each chunk sits in its chat, so a candidate can see how well its neighbours scored
    placed: dict[tuple[str, int], float] = {}
    said: dict[str, float] = {}  # a chunk's own message (its anchor) → the chunk's fused score
    if config.neighbour_weight:
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
                bonus["speaker"] = config.speaker_weight
            if time_bonus and item.time is not None and span is not None and item.time in span:
                bonus["time"] = time_bonus
            if placed and item.kind is MemoryKind.CHUNK and "seq" in item.data:
                space, seq = str(item.data.get("space")), int(item.data["seq"])
                around = [
                    placed.get((space, seq + step), 0.0)
                    for step in range(-config.neighbour_turns, config.neighbour_turns + 1)
                    if step
                ]
                if max(around, default=0.0) > 0:
                    bonus["neighbour"] = config.neighbour_weight * max(around)
            elif said and item.kind is not MemoryKind.CHUNK:
                # an event or fact drawn from turns that are candidates themselves: the same support
                support = sum(said.get(source, 0.0) for source in item.sources) / max(1, len(item.sources))
                if support > 0:
                    bonus["neighbour"] = config.neighbour_weight * support
        if bonus:
            boosts[key] = bonus
        rescored.append((key, (score + sum(bonus.values()), parts)))
    rescored.sort(key=lambda pair: (-pair[1][0], pair[0]))
    return rescored, boosts
