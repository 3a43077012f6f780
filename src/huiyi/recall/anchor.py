"""Own-turn evidence: whether the query matches a chunk's own line, not only the lines before it.

A chunk embeds its turn with the turns before it (``chunk.context = "text"``), so the two chunks after
the right turn carry its words too and tie with it, and a generic reply after it ("Really? That's
amazing!") may even edge ahead (issue #17: the mem0 peer's Hit@1). The similarity of the query to each
candidate's own line alone tells them apart: the best candidates gain ``anchor_weight`` times it,
scaled 0–1 over them as fusion scales a route.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any, TypeVar

from huiyi.config.recall import RecallRecipe
from huiyi.flows.answers import asks
from huiyi.flows.chatter import last_turn
from huiyi.model import MemoryKind
from huiyi.recall.rerank import Window
from huiyi.store.base import OwnVectors, RankRow, RouteHits, ScoredId, Store

K = TypeVar("K", int, str)  # a store key or a memory id

SPAN = 0.05  # as the dense route's min span: own similarities closer than this stay close
TIE = 0.005  # cosines closer than this are a tie (a tenth of SPAN)
# an own line matching better than its chunk by less than this is the same vector (a turn without context:
# float16 on disk against the index's rounding), not a line that says it better
EPSILON = 1e-4


def own_gains(window: Window, own: Mapping[int, float], weight: float, depth: int) -> dict[int, float]:
    """The bonus each of the best ``depth`` candidates gains from its own similarity (``own``: by key),
    scaled 0–1 over them with a floor of ``SPAN`` under the span.

    >>> window = [(1, (0.9, {})), (2, (0.89, {})), (3, (0.5, {}))]
    >>> own_gains(window, {1: 0.80, 2: 0.86, 3: 0.9}, 0.2, 2)
    {1: 0.0, 2: 0.2}
    """
    top = [key for key, _ in window[:depth] if key in own]
    if not top or weight <= 0:
        return {}
    high = max(own[key] for key in top)
    low = min(min(own[key] for key in top), high - SPAN)
    return {key: round(weight * (own[key] - low) / (high - low), 6) for key in top}


def demoted(
    window: Window,
    places: Mapping[int, tuple[str, int]],
    own: Mapping[int, float],
    dense: Mapping[int, float],
    depth: int,
    reach: int = 2,
) -> dict[int, float]:
    """The new scores of chunks that only carry the matched turn: a chunk whose turn ``k`` back (within
    ``reach``, the context turns) is a candidate whose own line alone matches the query about as well as
    the chunk's vector with its context does (within ``TIE``), while its own line matches worse, gets no
    more than that turn's chunk (just below it): its score came from that line. When the pair adds to it
    (an answer after its question), its vector matches better than the earlier line alone and it keeps
    its place.

    ``places``: (space, seq) of the chunks; ``own``: the stored own-turn similarities; ``dense``: each
    candidate's dense score with its context.

    >>> window = [(3, (1.0, {})), (2, (0.95, {})), (1, (0.9, {}))]
    >>> demoted(window, {1: ("s", 1), 2: ("s", 2), 3: ("s", 3)}, {1: 0.88, 2: 0.8, 3: 0.8},
    ...         {1: 0.85, 2: 0.87, 3: 0.87}, 10)
    {3: 0.899999, 2: 0.899999}
    """

    def carries(key: int, earlier: int) -> bool:  # its own line matching as well: not a mere carrier
        return earlier in own and own[earlier] >= dense.get(key, 1.0) - TIE and own.get(key, 0.0) < own[earlier]

    return _below_earlier(window[:depth], places, carries, reach)


def carriers(
    window: Window,
    lines: Mapping[int, tuple[str, int, str]],
    own: Mapping[int, float],
    asking: set[int],
    depth: int,
    margin: float,
    reach: int = 2,
) -> dict[int, float]:
    """The new scores of chunks that carry a better line: a chunk whose context turn (within ``reach``
    back) does not ask and, by its own line, matches the query at least ``margin`` better than the
    chunk's own line, gets no more than that turn's chunk (just below it). The reply after a statement
    ("Really? That's amazing!" after "I've started violin lessons") is embedded with it and often
    matched better than the statement itself; a chat model reads the first memory most (issue #17).
    The same speaker's next line goes below only when its own line matches ``SPAN`` less (a new topic,
    not the same one said on); an answer after its question keeps its place.

    ``lines``: each chunk's (space, seq, speaker of its own line); ``own``: own-line similarities;
    ``asking``: the chunks whose own line asks.

    >>> window = [(3, (1.0, {})), (2, (0.95, {})), (1, (0.9, {}))]
    >>> lines = {1: ("s", 1, "A"), 2: ("s", 2, "B"), 3: ("s", 3, "A")}
    >>> carriers(window, lines, {1: 0.86, 2: 0.8, 3: 0.83}, set(), 10, 0.02)
    {2: 0.899999}
    >>> carriers(window, lines, {1: 0.86, 2: 0.8, 3: 0.8}, set(), 10, 0.02)
    {3: 0.899999, 2: 0.899999}
    >>> carriers(window, lines, {1: 0.86, 2: 0.8, 3: 0.8}, {1}, 10, 0.02)
    {}
    """

    def carries(key: int, earlier: int) -> bool:
        if key not in own or earlier not in own or earlier in asking:
            return False
        return own[earlier] - own[key] >= (SPAN if lines[earlier][2] == lines[key][2] else margin)

    return _below_earlier(window[:depth], {key: line[:2] for key, line in lines.items()}, carries, reach)


def _below_earlier(
    top: Window, places: Mapping[int, tuple[str, int]], carries: Callable[[int, int], bool], reach: int
) -> dict[int, float]:
    """The new scores of the chunks in ``top`` that ``carries`` an earlier chunk of the same chat (within
    ``reach`` back, by ``places``: space and seq): each gets no more than that chunk (just below it)."""
    score = {key: value for key, (value, _) in top}
    at = {places[key]: key for key, _ in top if key in places}
    out: dict[int, float] = {}
    for key, _ in top:
        if key not in places:
            continue
        space, seq = places[key]
        for back in range(1, reach + 1):
            earlier = at.get((space, seq - back))
            if earlier is None or not carries(key, earlier):
                continue
            ceiling = round(score[earlier] - 1e-6, 6)
            if min(out.get(key, score[key]), score[key]) > ceiling:
                out[key] = ceiling
    return out


def own_floor(
    store: Store, agent: str, queries: Sequence[Any], first: RouteHits, recipe: RecallRecipe
) -> tuple[RouteHits, dict[str, float]]:
    """The dense candidates with the best ``recipe.own_floor`` of them scored by their own line where it
    leads (:func:`floored`); the rest, and other routes' candidates, as they were. Also the own-line
    similarities it read, by memory id (:func:`anchored` reads none twice). ``queries``: the query's
    vectors (a view without one is None)."""
    queries = [query for query in queries if query is not None]
    # a hit that matched nothing (a hashing embedder's 0) is padding, its place among equals arbitrary
    top = [hit for hit in first.hits[: recipe.own_floor] if hit.score > 0]
    stored = store.own_vectors(agent, [hit.id for hit in top], [hit.key for hit in top]) if queries and top else {}
    if not _fits(stored, queries):  # indexed without own vectors (chunk.own_vector off, or before it)
        return first, {}
    own = similarities(queries, stored, recipe.view_pool)
    lifted = [own[hit.id] for hit in top if own.get(hit.id, -1.0) > hit.score + EPSILON]
    if not lifted:
        return first, own
    # rows of the lines that may gain and of those that may hold one back (matching within the margin of
    # it); the rest cannot change anything and are not read
    low = min(lifted) - recipe.own_floor_margin - 1e-9
    rows = {row.id: row for row in store.rank_rows(agent, [i for i, score in own.items() if score >= low])}
    chosen = {hit.id for hit in top}
    hits = floored(top, own, rows, recipe.own_floor_margin) + [hit for hit in first.hits if hit.id not in chosen]
    return RouteHits(hits=sorted(hits, key=lambda hit: -hit.score), ms=first.ms, score_of=first.score_of), own


def floored(
    hits: Sequence[ScoredId],
    own: Mapping[str, float],
    rows: Mapping[str, RankRow],
    margin: float,
    reach: int = 2,
) -> list[ScoredId]:
    """The dense hits, best first again, where a chunk's own line leads: a chunk whose line alone matches
    the query better than its vector with the context turns does scores its own similarity, when the
    context turns' own lines (the chunks ``reach`` back, as far as they are among ``own``) match at
    least ``margin`` less and the line does not ask. A fact said out of the blue ("By the way, my cat is
    called Toffee") is diluted by the unrelated talk embedded with it, and the chunks after it that carry
    it tie with it (issue #17: the mem0 peer's first hit); a line that needs its context keeps the
    context's score, and a question's words echo the query without answering it.

    ``own``: the own-line cosines by memory id; ``rows``: the hits' rank rows by id.

    >>> row = lambda i, seq, text: RankRow(i, "s", MemoryKind.CHUNK, None, ("A",), (), "s", seq, text, 0.5, None)
    >>> said = [("c1", "好累"), ("c2", "猫叫布丁"), ("c3", "叫啥？")]
    >>> rows = {i: row(i, n + 1, f"A: {text}") for n, (i, text) in enumerate(said)}
    >>> hits = [ScoredId("c1", 0.84, 1), ScoredId("c2", 0.80, 2), ScoredId("c3", 0.79, 3)]
    >>> [(h.id, h.score) for h in floored(hits, {"c1": 0.78, "c2": 0.86, "c3": 0.9}, rows, 0.02)]
    [('c2', 0.86), ('c1', 0.84), ('c3', 0.79)]
    """
    at = {(row.space, row.seq): own[i] for i, row in rows.items() if i in own and row.seq is not None}
    out: list[ScoredId] = []
    for hit in hits:
        mine = own.get(hit.id, -1.0)
        row = rows.get(hit.id) if mine > hit.score + EPSILON else None
        if row is None or row.kind is not MemoryKind.CHUNK or row.seq is None:
            out.append(hit)
            continue
        context = max((at.get((row.space, row.seq - back), -1.0) for back in range(1, reach + 1)), default=-1.0)
        line = last_turn(row.text, row.participants)[1]
        out.append(hit if mine - context <= margin or asks(line) else ScoredId(hit.id, mine, hit.key))
    return sorted(out, key=lambda hit: -hit.score)


def anchored(
    store: Store,
    agent: str,
    recipe: RecallRecipe,
    queries: Sequence[object],
    window: Window,
    rows: Mapping[int, RankRow | None],
    dense: Mapping[int, float],
    carry: bool = False,
    known: Mapping[str, float] | None = None,
) -> tuple[Window, dict[int, float]]:
    """The best candidates' own-turn evidence (recall.anchor): the stored own-turn vectors of chunks
    against the query's vectors (a dialogue's views pooled as the dense route pools them; ``known``: the
    similarities :func:`own_floor` read already, by memory id). With a weight, each gains by its own
    match (a memory without an own vector matches by its dense score); then (``carry``, :func:`carriers`)
    a chunk that carries a better-matching line goes below it, and (``recall.anchor_demote``) one that
    only carries a turn matching as well as it."""
    known = known or {}
    top = [key for key, _ in window[: recipe.anchor_depth] if rows.get(key) is not None]
    ids = {rows[key].id: key for key in top}  # type: ignore[union-attr]
    unread = [i for i in ids if i not in known]
    stored = store.own_vectors(agent, unread) if queries and unread else {}
    stored = stored if _fits(stored, queries) else {}
    own = {ids[i]: score for i, score in similarities(queries, stored, recipe.view_pool).items()}
    own.update((ids[i], score) for i, score in known.items() if i in ids)
    fallback = {key: dense.get(key, 0.0) for key in top}  # memories whose vector is their own text alone
    gains = own_gains(window, {**fallback, **own}, recipe.anchor_weight, recipe.anchor_depth)
    window = apply(window, gains)
    chunks = {  # each chunk's place and its own turn: who said it and what
        key: ((row.space, row.seq), last_turn(row.text, row.participants))
        for key in top
        if (row := rows[key]) is not None and row.kind is MemoryKind.CHUNK and row.seq is not None
    }
    lowerings: list[Callable[[Window], dict[int, float]]] = []
    if carry and own:  # not in a group (the caller): an answer there is found with its thread
        lines = {key: (*place, said[0]) for key, (place, said) in chunks.items()}
        asking = {key for key, (_, said) in chunks.items() if asks(said[1])}
        margin = recipe.own_floor_margin
        lowerings.append(lambda window: carriers(window, lines, own, asking, recipe.anchor_depth, margin))
    if recipe.anchor_demote and own:
        places = {key: place for key, (place, _) in chunks.items()}
        lowerings.append(lambda window: demoted(window, places, own, dense, recipe.anchor_depth))
    for lowered in lowerings:  # each reads the window the one before left
        scores = dict(window)
        moves = {key: round(score - scores[key][0], 6) for key, score in lowered(window).items()}
        window = apply(window, moves)
        gains = {key: round(gains.get(key, 0.0) + moves.get(key, 0.0), 6) for key in {*gains, *moves}}
    return window, {key: gain for key, gain in gains.items() if gain}


def apply(window: Window, gains: Mapping[int, float]) -> Window:
    """The window with the gains added (a demotion is a negative gain), best first again."""
    if not gains:
        return window
    return sorted(
        ((key, (score + gains.get(key, 0.0), parts)) for key, (score, parts) in window),
        key=lambda pair: (-pair[1][0], pair[0]),
    )


def _fits(stored: Mapping[str, Any], queries: Sequence[Any]) -> bool:
    """Whether there are own-line vectors of the queries' size (none of another program's making)."""
    matrix = getattr(stored, "matrix", None)
    return bool(stored) and (matrix is None or not queries or matrix.shape[-1] == len(queries[0]))


def similarities(queries: Sequence[Any], vectors: Mapping[K, Any], pool: str = "max") -> dict[K, float]:
    """Cosines of the unit query vectors with each key's unit vector, several queries (a dialogue's
    views) pooled by their best or mean.

    >>> similarities([[1.0, 0.0], [0.0, 1.0]], {7: [0.6, 0.8]}, "max"), similarities([[1.0, 0.0]], {})
    ({7: 0.8}, {})
    """
    import numpy as np  # at first use: import huiyi stays free of numpy

    if not vectors or not queries:
        return {}
    keys = list(vectors)
    if isinstance(vectors, OwnVectors) and vectors.matrix is not None:  # its rows in its keys' order
        matrix = vectors.matrix
    else:
        matrix = np.asarray(np.stack([vectors[key] for key in keys]), dtype=np.float32)
    scores = matrix @ np.stack([np.asarray(q, dtype=np.float32) for q in queries]).T
    pooled = scores.max(axis=1) if pool == "max" else scores.mean(axis=1)
    return dict(zip(keys, np.round(pooled.astype(np.float64), 6).tolist(), strict=True))
