"""Recall, the hot path, as one pipeline run by a recipe.

Each stage is a function from the candidates so far (a :class:`Ranking`) to the next, called in order
by :func:`run`; a new stage is one more such function and one line there:

1. ``_fused``: the dense and keyword routes run together (the keyword search while the query is
   embedded: both release the GIL), a chunk whose own line says it by itself lifted (recall.anchor), are
   fused, and the best get the rerank bonuses (speaker, time, neighbour, chatter; a question naming a
   time reaches further down for what was said then; in a dialogue's recall a kept memory ending on a
   hurt steps down, recall.hurts); a kind filter and the scope check keep what may be returned. A query
   naming someone in a group adds the speaker route (their memories by the index's speaker field; the
   keyword query loses their names); they are reranked wherever found.
2. ``_widened`` (when the recipe asks for the late routes, tiers, the graph, a weighted score or
   roulette): late routes and tiers add bonuses, the graph walks from the best, the recipe's score
   weighs the result, and roulette may sample among the best.
3. ``_with_profiles``: in a group, the global profile of a member the query names joins (``absent_profiles``);
   the asker's facts a slot question asks for lead (``recall.slots``: 我现在住哪, 我最近有什么安排).
4. ``_in_range``: a time range keeps what lies inside it; the limit cuts. 5. ``_hits``: loaded whole, reinforced.

Ranking reads only what it needs of each candidate (``Store.rank_rows``: kind, scope, time, participants,
sources, place in the chat); text, keywords and data are loaded for the returned hits alone.
"""

from __future__ import annotations

import random
import time
from collections.abc import Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from datetime import UTC, datetime, tzinfo

from huiyi.config.recall import RecallRecipe
from huiyi.model import MemoryItem, MemoryKind, RecallHit, RecallResult, Scope, ScopeKind
from huiyi.providers.embed import Embedder
from huiyi.recall import (
    anchor,
    bridge,
    current,
    feelings,
    hurts,
    names,
    polarity,
    routes,
    slots,
    timerange,
    units,
    views,
)
from huiyi.recall.fuse import explain, fuse, unscored
from huiyi.recall.hits import RouteScores, hit_of
from huiyi.recall.reinforce import Reinforcer
from huiyi.recall.rerank import Bonuses, Window, add_graph, add_route, add_tiers, latest, reach_span, rerank, tier
from huiyi.recall.roulette import roulette
from huiyi.store.base import RankRow, Store
from huiyi.store.ties import kept_with_ties
from huiyi.text import frames
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
    dialogue: Sequence[str] = field(default_factory=tuple)  # the chat lines before, oldest first (recall.views)
    explain: bool = False  # every route's candidates, the fusion and the bonuses in ``info`` (the debugger)
    asker: str | None = None  # whom the question's 我 names (``我当时什么心情`` asks for their lines)
    as_of: datetime | None = None  # a caller's explicit ``now``: what was said after it is not known yet
    zone: tzinfo = UTC  # the configured timezone: ``now`` is its wall clock, a memory's ``created_at`` is UTC
    entities_version: int | None = None  # the scopes', read with the pending tail (None: the routes read it)
    persons_version: int | None = None  # the agent's, read with the pending tail (None: the routes read it)


@dataclass(slots=True)
class Candidate:
    """One memory on its way to a hit: its score so far, each route's and bonus's part, and its time."""

    id: str
    score: float
    route_scores: Mapping[str, float]
    time: datetime | None


@dataclass
class Ranking:
    """The candidates after a stage, best first, with what recall read from the query and the time spent."""

    candidates: list[Candidate]
    info: dict[str, object] = field(default_factory=dict)
    timings: dict[str, float] = field(default_factory=dict)


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
    span = query_time_range(request.query, request.now) if request.now and recipe.time_weight else None
    moments = timerange.moment_words(span, request.now)
    terms = routes.query_terms(request.query, [*request.drop_words, *moments], names=request.drop_words)
    if span is not None:
        terms = routes.without_time_chars(terms, span.phrase)
    timings = {"tokenize": (time.perf_counter() - started) * 1000}
    ask = routes.Ask(
        store,
        embedder,
        request.scopes,
        request.query,
        terms,
        request.drop_words,
        request.now,
        recipe,
        lexicon,
        request.zone,
        request.entities_version,
        request.persons_version,
    )
    widens = _widens(recipe)
    limit = request.limit
    # a time range filters afterwards, so more candidates go in; the late routes widen a fixed pool
    widened = max(limit, recipe.route_candidates) if widens else limit
    first = max(limit * 5, recipe.candidates) if request.time_range is not None else widened
    ranking = _fused(ask, request, first, timings, span)
    if widens:
        ranking = _widened(ask, ranking, first if request.time_range is not None else limit, request.explain)
    people = ranking.info.get("people")
    named = [str(name) for name in people] if isinstance(people, list) else []
    if recipe.absent_profiles and named:
        ranking = _with_profiles(ask, ranking, named, limit)
    facts = not request.kinds or MemoryKind.FACT in request.kinds
    if request.asker and facts:  # 我现在住哪, 我最近有什么安排: the asker's facts of that kind lead (recall.slots)
        asked = slots.Asked(request.query, request.asker, request.now, request.as_of, span)
        ranking = _led(ranking, slots.leading(store, request.scopes, asked), limit)
    ranking = _in_range(ranking, request.time_range, limit, request.score_threshold)
    hits = _hits(ask, ranking, request.as_of)
    if facts and hits:  # of two open facts of one value (住在上海, 住在杭州) the newer leads (recall.current)
        hits = current.newest_first(store, request.scopes, request.query, hits, request.as_of, ranking.info)
    if recipe.reinforce and reinforcer is not None:
        reinforcer.note(ask.agent, [hit.id for hit in hits], request.now)
    ranking.timings["total"] = (time.perf_counter() - started) * 1000
    # made of checked parts: validating them again built pydantic's validator in a new process's first recall
    return RecallResult.model_construct(
        query=request.query,
        hits=hits,
        timings_ms={k: round(v, 3) for k, v in ranking.timings.items()},
        info=ranking.info,
    )


def _widens(recipe: RecallRecipe) -> bool:
    """Whether anything beyond the fused dense and keyword candidates is asked for."""
    late = any(_weight(recipe, name) for name in routes.LATE_ROUTES)
    tiers = recipe.tier_weight or recipe.tiers == "priority"
    return late or recipe.scores or bool(recipe.graph_weight or tiers or recipe.roulette or recipe.bridge_weight)


def _weight(recipe: RecallRecipe, route: str) -> float:
    return float(getattr(recipe, f"{route}_weight"))


def _visible(ask: routes.Ask) -> set[str]:
    """The scope tags a row may carry to be returned (rows are read for ``ask.agent`` only)."""
    return {scope.tag for scope in ask.scopes if scope.agent == ask.agent}


def _fused(
    ask: routes.Ask, request: RecallRequest, limit: int, timings: dict[str, float], span: TimeSpan | None
) -> Ranking:
    """Dense and keyword fused, reranked by the bonuses, filtered and cut to ``limit`` (``span``: the query's
    time, read once by :func:`run`); the score threshold cuts the final scores (``_in_range``)."""
    recipe = ask.recipe
    candidates = max(recipe.candidates, limit)
    seen = (
        views.views_of(request.query, request.dialogue, recipe.max_query_chars, recipe.views)
        if request.dialogue
        else []
    )
    named = routes.named_people(ask) if recipe.speaker_weight or recipe.absent_profiles else []  # by speaker field
    # in a group names are a field, not words (the keyword query loses them too); 我之前说过啥: the asker's own
    asking = [request.asker] if request.asker and frames.says_i(request.query) else []
    by_field = bool(recipe.speaker_weight and recipe.speaker_route and (named or asking)) and ask.in_group
    by_name = [*named, *asking] if by_field else []
    if views.embedded(ask, seen):
        # every vector is known (a repeated query, a turn's views): no embedding to hide the keyword search
        # behind, and handing it to a thread and back cost more than it ran alongside
        keyword = views.keyword(ask, seen, candidates, by_name, recipe.keyword_latest)
        spoken = routes.speaker(ask, candidates, by_name) if by_name else routes.Hits()
        dense_views = views.dense_views(ask, seen, candidates) if seen else [routes.dense(ask, candidates)]
    else:
        keyword_future = _pool.submit(views.keyword, ask, seen, candidates, by_name, recipe.keyword_latest)
        speaker_future = _pool.submit(routes.speaker, ask, candidates, by_name) if by_name else None
        dense_views = views.dense_views(ask, seen, candidates) if seen else [routes.dense(ask, candidates)]
        keyword = keyword_future.result()
        spoken = speaker_future.result() if speaker_future is not None else routes.Hits()
    dense = dense_views[0]
    for step, ms in [pair for view in dense_views for pair in view.ms.items()]:
        timings[step] = timings.get(step, 0.0) + ms
    timings.update(keyword.ms)
    timings.update(spoken.ms)

    fuse_started = time.perf_counter()
    first = views.pooled([found.first for found in dense_views], recipe.view_pool) if seen else dense.first
    own_read: dict[str, float] = {}  # own-line similarities by memory id, for the anchor stage after
    if recipe.own_floor and not ask.in_group:  # a line that says it by itself leads (recall.anchor)
        vectors = [view.vector for view in dense_views]
        first, own_read = anchor.own_floor(ask.store, ask.agent, vectors, first, recipe)
    fusion = fuse(first, keyword.first, recipe, spoken.first, detail=request.explain)
    ids_by_key, raw = fusion.ids, fusion.raw
    ranked = fusion.ranked  # not cut by the threshold yet: a bonus or a late route may lift one above it

    wanted_kinds = set(request.kinds) if request.kinds else None
    visible = _visible(ask)
    # fetch a little more than asked, since a kind filter may drop some; more still when reranking
    depth = limit * (3 if wanted_kinds else 1)
    reranking = bool(recipe.speaker_weight or recipe.neighbour_weight or recipe.closed_weight) or span is not None
    if reranking or recipe.chatter_weight < 1:
        reranking, depth = True, max(depth, recipe.rerank_depth)
    depth = kept_with_ties([score for _, (score, _) in ranked[: 2 * depth]], depth)  # and the ties at its cut
    window = ranked[:depth]
    # the named person's memories are reranked wherever meaning and words put them
    by_speaker = {hit.key for hit in spoken.first.hits}
    if by_speaker and reranking:
        window += [pair for pair in ranked[depth:] if pair[0] in by_speaker]
    said_by = spoken.info.get("speakers")
    speakers = [str(name) for name in said_by] if isinstance(said_by, list) else []
    private = all(scope.kind is not ScopeKind.SPACE for scope in request.scopes)  # a group's asker: by_name
    if request.asker and private and frames.about_asker(request.query):
        speakers.append(request.asker)
    found: dict[str, RankRow] = {}
    if reranking and span is not None and recipe.time_reach:  # said then: reranked wherever fusion put it
        window, found = reach_span(ask.store, ask.agent, window, ranked[depth:], ids_by_key, span, recipe)
    wanted = [key for key, _ in window if ids_by_key[key] not in found]  # read by the routes' rowids too
    found.update({row.id: row for row in ask.store.rank_rows(ask.agent, [ids_by_key[k] for k in wanted], wanted)})
    rows: dict[int, RankRow | None] = {key: found.get(ids_by_key[key]) for key, _ in window}
    boosts: dict[int, dict[str, float]] = {}
    if reranking:
        window, boosts = rerank(
            window,
            rows,
            request.query,
            recipe,
            span,
            rows if span is not None and recipe.time_about else None,  # the time test reads rows' text and about
            speakers,
            {hit.key: hit.score for hit in spoken.first.hits},
            facts_lead=bool(by_name),  # names asked in a group chat
            members=ask.members if by_name else (),
            now=request.now,
            private=private,
        )
    closed = {key: bonus["closed"] for key, bonus in boosts.items() if "closed" in bonus}  # what ended gains no like
    if recipe.feeling_weight and request.asker and frames.says_i(request.query) and feelings.asks(request.query):
        felt = feelings.gains(window, rows, request.asker, recipe.feeling_weight)  # 我当时什么心情
        window = _lifted(window, boosts, "feeling", felt)
    if recipe.hurt_weight and seen and not feelings.asks(request.query):  # passive recall passes over a hurt
        window = _lifted(window, boosts, "hurt", hurts.losses(window, rows, recipe.hurt_weight))
    if recipe.name_weight and names.asks(request.query):  # 那家火锅叫什么名字
        giving = names.gains(window, rows, recipe.name_weight, names.about(request.query))
        window = _lifted(window, boosts, "name", giving)
    if recipe.polarity_weight and (sign := polarity.asked(request.query)):  # 我喜欢吃什么, not 不喜欢的
        liked = polarity.gains(window, rows, recipe.polarity_weight, sign, request.query, closed)
        window = _lifted(window, boosts, "polarity", liked)
    carry = recipe.carriers and not ask.in_group
    if recipe.anchor_weight or recipe.anchor_demote or carry:  # the chunk's own line (recall.anchor)
        queries = [view.vector for view in dense_views if view.vector is not None]
        dense_scores = raw.get("dense", {})
        window, gains = anchor.anchored(
            ask.store, ask.agent, recipe, queries, window, rows, dense_scores, carry, own_read
        )
        for key, gain in gains.items():
            boosts.setdefault(key, {})["anchor"] = gain
    if recipe.time_when and recipe.time_weight:  # a when-question prefers memories that say when
        keyed = _items(ask, ids_by_key, window)
        window = _lifted(window, boosts, "when", timerange.when_bonus(window, keyed, request.query, recipe.time_weight))
    if recipe.events_lend and not wanted_kinds:  # events as keys of their turns (recall.units)
        # in a group, another's turn beside the named person's is a bystander's; between two, their exchange
        named_bonus = {key: bonus.get("speaker", 0.0) for key, bonus in boosts.items()} if by_name else None
        window, lent = units.lend(window, rows, named_bonus, closed)
        for key, gain in lent.items():
            boosts.setdefault(key, {})["evidence"] = gain
    if reranking:  # last, on what the turns lent: a plan's newest arrangement, the change asked for (recall.latest)
        window = latest(window, boosts, rows, request.query, recipe, span, request.now)
    # found by no route and lifted by no bonus: no answer, even at threshold 0 (unless a time range asks)
    nothing = unscored(fusion, by_speaker) if request.time_range is None else set()
    chosen: list[Candidate] = []
    as_of = request.as_of  # other kinds than chunks may be dated by what they are about, not when said
    for key, (score, _) in window:
        row = rows[key]
        if row is None or (wanted_kinds and row.kind not in wanted_kinds):
            continue
        if score <= 0 and key in nothing:
            continue
        if row.scope not in visible:  # the store is trusted, but a leak here would be the worst bug
            continue
        if as_of is not None and row.kind is MemoryKind.CHUNK and timerange.after(row.time, as_of, ask.zone):
            continue  # when a chunk was said (with no fold: a repeated hour's first; _hits reads the fold)
        chosen.append(Candidate(row.id, round(score, 6), RouteScores(raw, key), row.time))
        if len(chosen) >= limit:
            break
    timings["fuse"] = (time.perf_counter() - fuse_started) * 1000
    returned = {c.id for c in chosen} if not request.explain else {ids_by_key[key] for key, _ in window}
    explained = explain(first, keyword.first, fusion, EXPLAINED) if request.explain else {}
    info: dict[str, object] = {
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
    }
    return Ranking(chosen, info, timings)


def _lifted(window: Window, boosts: dict[int, dict[str, float]], name: str, gains: Mapping[int, float]) -> Window:
    """The window with ``gains`` added, best first again, each recorded under ``name`` for the debugger."""
    for key, gain in gains.items():
        boosts.setdefault(key, {})[name] = gain
    return anchor.apply(window, gains)


def _widened(ask: routes.Ask, ranking: Ranking, limit: int, explain: bool = False) -> Ranking:
    """The late routes, tiers and graph added to the fused candidates, scored by the recipe, cut to ``limit``."""
    started = time.perf_counter()
    recipe = ask.recipe
    hits = ranking.candidates
    relevance = {hit.id: hit.score for hit in hits}
    extra: Bonuses = {}
    info: dict[str, object] = {}
    timings: dict[str, float] = {}

    for name, route in routes.LATE_ROUTES.items():
        weight = _weight(recipe, name)
        if weight > 0:
            found = route(ask, recipe.route_candidates)
            for route_hits, share in found.searches:
                add_route(relevance, extra, name, route_hits, weight * share)
            if explain:
                earlier = ranking.info.get("candidates", {})
                assert isinstance(earlier, dict)
                candidates = info.setdefault("candidates", dict(earlier))
                assert isinstance(candidates, dict)
                candidates[name] = [[hit.id, round(hit.score, 6)] for hit in found.first.hits[:EXPLAINED]]
            info.update(found.info)
            timings.update(found.ms)
    if recipe.tier_weight > 0:  # tiers read the text and keywords: the one bonus that loads whole memories
        whole = {item.id: item for item in ask.store.get_memories(ask.agent, [hit.id for hit in hits])}
        words = ranking.info.get("words", [])
        assert isinstance(words, list)
        add_tiers(relevance, extra, [whole[hit.id] for hit in hits if hit.id in whole], words, recipe.tier_weight)

    distances: dict[str, int] = {}
    # the planner's words (time words are read already) and, in auto mode, how close the best hit came
    best = max((hit.route_scores.get("dense", 0.0) for hit in hits[:1]), default=None)
    depth = routes.graph_depth(ask.query, recipe, best)
    if recipe.bridge_weight > 0 and (depth or recipe.graph_mode == "deep"):  # a second round (recall.bridge)
        tops = ask.store.get_memories(ask.agent, [hit.id for hit in hits[: recipe.bridge_seeds]])
        second = bridge.second_round(ask, [hit_of(item, 0.0) for item in tops])
        for found_hits, share in second.searches:
            add_route(relevance, extra, "bridge", found_hits, recipe.bridge_weight * share)
        info.update(second.info)
        timings.update(second.ms)
    if depth:
        seeds = sorted(relevance, key=lambda i: -relevance[i])[: recipe.graph_seeds]
        walked = routes.graph(ask, seeds, depth)
        distances = walked.hops
        add_graph(relevance, extra, distances, seeds, recipe.graph_weight)
        info.update(walked.info)
        timings.update(walked.ms)

    known = {hit.id: hit for hit in hits}
    times: dict[str, datetime | None] = {}
    final: dict[str, float]
    if recipe.scores:  # a weighted score needs every candidate's importance, strength and access
        scopes = set(ask.scopes)
        items = {i.id: i for i in ask.store.get_memories(ask.agent, list(relevance)) if i.scope in scopes}
        items = {i: items[i] for i in relevance if i in items}
        times = {i: item.time for i, item in items.items()}
        from huiyi.recall.score import weighted_totals  # here: only a weighted recipe loads it (issue 15)

        final = weighted_totals(items, relevance, distances, recipe, ask.now, ask.zone)
    else:  # relevance alone: only the new candidates need a look, to keep what the scopes may see
        visible = _visible(ask)
        new = [i for i in relevance if i not in known]
        times = {row.id: row.time for row in ask.store.rank_rows(ask.agent, new) if row.scope in visible}
        final = {i: relevance[i] for i in relevance if i in known or i in times}
    if recipe.tiers == "priority":  # seed 001 §2.3: a better match tier first, the score within it
        words = ranking.info.get("words", [])
        assert isinstance(words, list)
        whole = {item.id: item for item in ask.store.get_memories(ask.agent, list(final))}
        level = {i: tier(words, whole[i].keywords, whole[i].text) if i in whole else 0 for i in final}
        order = sorted(final, key=lambda i: (-level[i], -final[i], i))
    else:
        order = sorted(final, key=lambda i: (-final[i], i))
    if recipe.roulette:  # seed 001 §2.4.4: better scores are likelier, never certain
        pool = order[: max(limit, recipe.roulette_pool)]
        order = roulette(pool, [final[i] for i in pool], limit, random.Random(recipe.roulette_seed))
    answer: list[Candidate] = []
    for memory_id in order[:limit]:
        hit = known.get(memory_id)
        scores = {**(hit.route_scores if hit else {}), **extra.get(memory_id, {})}
        when = hit.time if hit is not None else times[memory_id]
        answer.append(Candidate(memory_id, round(final[memory_id], 6), scores, when))
    timings["extend"] = (time.perf_counter() - started) * 1000
    return Ranking(answer, {**ranking.info, **info}, {**ranking.timings, **timings})


def _with_profiles(ask: routes.Ask, ranking: Ranking, named: Sequence[str], limit: int) -> Ranking:
    """An absent member's global profile, just below the best hit (issue #13): asked about by name, the
    person's own account of themself belongs near the top."""
    profiles = routes.absent_profiles(ask, named)
    known = {c.id for c in ranking.candidates}
    top = ranking.candidates[0].score if ranking.candidates else 1.0
    added = [
        Candidate(item.id, round(top - 1e-6 * (i + 1), 6), {}, item.time)
        for i, item in enumerate(profiles)
        if item.id not in known
    ]
    if not added:
        return ranking
    kept = sorted([*ranking.candidates, *added], key=lambda c: -c.score)[:limit]
    return Ranking(kept, {**ranking.info, "profiles": [c.id for c in added]}, ranking.timings)


def _led(ranking: Ranking, items: Sequence[MemoryItem], limit: int) -> Ranking:
    """``items`` first, in order (moved up if candidates already), the rest after them."""
    if not items:
        return ranking
    top = ranking.candidates[0].score if ranking.candidates else 1.0
    ids = {item.id for item in items}
    rest = [c for c in ranking.candidates if c.id not in ids]
    led = [Candidate(i.id, round(top + (len(items) - n) * 1e-6, 6), {"slot": 1.0}, i.time) for n, i in enumerate(items)]
    return Ranking([*led, *rest][:limit], {**ranking.info, "slot": items[0].id}, ranking.timings)


def _in_range(
    ranking: Ranking, time_range: tuple[datetime | None, datetime | None] | None, limit: int, least: float
) -> Ranking:
    """What lies inside the time range (all, without one) and scores ``least`` at least, cut to ``limit``."""
    start, end = time_range or (None, None)
    kept = [
        c
        for c in ranking.candidates
        if (least <= 0 or c.score >= least)
        and (time_range is None or (c.time is not None and (start is None or c.time >= start)))
        and (end is None or (c.time is not None and c.time <= end))
    ]
    return Ranking(kept[:limit], ranking.info, ranking.timings)


def _hits(ask: routes.Ask, ranking: Ranking, as_of: datetime | None = None) -> list[RecallHit]:
    """The candidates as hits, their memories loaded whole (one gone meanwhile, or said after ``as_of``, left out)."""
    started = time.perf_counter()
    items = {item.id: item for item in ask.store.recall_memories(ask.agent, [c.id for c in ranking.candidates])}
    if as_of is not None:
        items = {i: item for i, item in items.items() if not timerange.after(timerange.known(item), as_of, ask.zone)}
    hits = [hit_of(items[c.id], c.score, c.route_scores) for c in ranking.candidates if c.id in items]
    ranking.timings["hits"] = (time.perf_counter() - started) * 1000
    return hits


def _items(ask: routes.Ask, ids_by_key: Mapping[int, str], window: Window) -> dict[int, MemoryItem | None]:
    """The window's whole memories, for the stages that read text (off by default: they cost a load)."""
    found = {item.id: item for item in ask.store.get_memories(ask.agent, [ids_by_key[key] for key, _ in window])}
    return {key: found.get(ids_by_key[key]) for key, _ in window}
