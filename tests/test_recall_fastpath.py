"""The hot path's faster forms give exactly what the plain ones gave (issue 15: rankings must not move)."""

from __future__ import annotations

import random
import re
import sys
from datetime import UTC, datetime, timedelta
from typing import Any

import numpy as np
import pytest

from huiyi.config.recall import RecallRecipe
from huiyi.flows import chatter
from huiyi.flows.ingest import terms_of
from huiyi.model import MemoryItem, MemoryKind, RecallHit, Scope
from huiyi.providers.embed import HashEmbedder
from huiyi.recall.fuse import _minmax_scores, fuse
from huiyi.recall.rerank import rerank
from huiyi.recall.timerange import within
from huiyi.store.base import RankRow, RouteHits, ScoredId, Store
from huiyi.store.rows import from_epoch, trusted
from huiyi.store.vectors import ExactIndex
from huiyi.text.times import TimeSpan


def _route(rng: random.Random, keys: list[int], tie: bool) -> RouteHits:
    scores = [round(rng.uniform(0, 1), 1 if tie else 6) for _ in keys]
    hits = sorted((ScoredId(f"m{k}", s, k) for k, s in zip(keys, scores, strict=True)), key=lambda h: -h.score)
    return RouteHits(hits)


@pytest.mark.parametrize("seed", range(40))
def test_array_fusion_matches_the_plain_one(seed: int) -> None:
    rng = random.Random(seed)
    pool = list(range(1, 400))
    tie = seed % 3 == 0  # scores of one decimal: many ties, ordered by key
    dense_keys = rng.sample(pool, rng.randint(0, 200))
    keyword_keys = rng.sample(pool, rng.randint(0, 60))
    everyone = {k: rng.uniform(-0.2, 1.0) for k in pool}
    dense = _route(rng, dense_keys, tie)
    dense.score_of = lambda keys: [everyone[k] for k in keys]
    keyword = _route(rng, keyword_keys, tie)
    extra = RouteHits([ScoredId(f"m{k}", 1.0, k) for k in rng.sample(pool, 5)]) if seed % 2 else None
    recipe = RecallRecipe(
        dense_min_span=rng.choice([0.0, 0.1, 5.0]), keyword_min_span_share=rng.choice([0.0, 0.5, 1.0])
    )
    fast = fuse(dense, keyword, recipe, extra, detail=False)
    plain = fuse(dense, keyword, recipe, extra, detail=True)
    assert [(key, score) for key, (score, _) in fast.ranked] == [(key, score) for key, (score, _) in plain.ranked]
    assert fast.raw == plain.raw and fast.ids == plain.ids


def test_a_keyword_floor_keeps_near_ties_near() -> None:
    """Every candidate of 我的考试是什么时候 holds 考: min-max over them made 1.887 against 1.778 a third of
    the keyword weight; scaled by the best alone (share 1) it is six hundredths, and meaning decides."""
    dense = RouteHits([ScoredId("gold", 0.877, 1), ScoredId("other", 0.857, 2), ScoredId("low", 0.50, 3)])
    keyword = RouteHits([ScoredId("other", 1.887, 2), ScoredId("gold", 1.778, 1), ScoredId("low", 1.70, 3)])
    plain = fuse(dense, keyword, RecallRecipe(), detail=False)
    floored = fuse(dense, keyword, RecallRecipe(keyword_min_span_share=1.0), detail=False)
    assert plain.ranked[0][0] == 2 and floored.ranked[0][0] == 1


def test_array_fusion_with_a_repeated_key_falls_back() -> None:
    dense = RouteHits([ScoredId("a", 0.9, 1), ScoredId("a", 0.8, 1), ScoredId("b", 0.5, 2)])
    keyword = RouteHits([ScoredId("b", 3.0, 2)])
    recipe = RecallRecipe()
    fast = fuse(dense, keyword, recipe, detail=False)
    routes = {"dense": [(1, 0.9), (1, 0.8), (2, 0.5)], "keyword": [(2, 3.0)]}
    weights = {"dense": recipe.dense_weight, "keyword": recipe.keyword_weight}
    old = _minmax_scores(routes, weights, {"dense": recipe.dense_min_span})  # the dict-based path, as before
    assert [(k, s) for k, (s, _) in fast.ranked] == sorted(old.items(), key=lambda pair: (-pair[1], pair[0]))


def test_grouped_reaction_pattern_matches_the_plain_alternation() -> None:
    words = chatter._REACTIONS
    plain = re.compile(
        "|".join(re.escape(w) if not w.isascii() or w.isdigit() else rf"(?<![a-z]){w}(?![a-z])" for w in words)
    )
    rng = random.Random(0)
    alphabet = [*words, *"abc xyz好的了哈早", " "]
    lines = ["ok okay lol", "okayish ok", "早安早上好", "好好看好看好", "666 6666", "hihello hi", "a ok b"]
    lines += ["".join(rng.choice(alphabet) for _ in range(rng.randint(1, 8))) for _ in range(20000)]
    for line in lines:
        assert chatter._REACTION.subn(" ", line) == plain.subn(" ", line), line


def test_alnum_pattern_keeps_what_isalnum_or_isspace_keeps() -> None:
    every = (chr(c) for c in range(sys.maxunicode + 1) if not 0xD800 <= c <= 0xDFFF)
    wrong = [ch for ch in every if (ch.isalnum() or ch.isspace()) != (chatter._NOT_ALNUM.sub("", ch) == ch)]
    assert wrong == []


def test_from_epoch_matches_fromtimestamp() -> None:
    rng = random.Random(1)
    values = [float(rng.randint(0, 4_000_000_000)) for _ in range(20000)]
    values += [rng.randint(0, 4_000_000_000) + rng.randint(0, 999_999) / 1e6 for _ in range(20000)]
    values += [rng.uniform(-1e9, 4e9) for _ in range(20000)]
    for value in values:
        assert from_epoch(value) == datetime.fromtimestamp(value, UTC).replace(tzinfo=None), value


def _index(ids: list[str] | None) -> ExactIndex:
    vectors = np.eye(4, dtype=np.float32)[:3]
    rowids = np.asarray([1, 2, 3], dtype=np.int64)
    if ids is None:
        return ExactIndex(lambda key: (0, rowids, vectors))
    from huiyi.store.vectors import Places

    return ExactIndex(lambda key: (0, rowids, vectors, Places.none(3), ids))


def test_dense_search_names_its_hits_when_the_partition_knows_its_ids() -> None:
    index = _index(["a", "b", "c"])
    query = np.asarray([0.0, 1.0, 0.5, 0.0], dtype=np.float32)
    found = index.search(query, ["p"], {"p": 0}, 2)
    assert found.rowids == [2, 3] and found.ids == ["b", "c"]
    index.added("p", 0, [9], np.asarray([[0.0, 0.8, 0.0, 0.0]], np.float32), ids=["z"])
    assert index.search(query, ["p"], {"p": 1}, 2).ids == ["b", "z"]
    index.removed("p", 1, [2])
    found = index.search(query, ["p"], {"p": 2}, 3)
    assert found.rowids == [9, 3, 1] and found.ids == ["z", "c", "a"]
    # a write that does not say its ids leaves the search to look them up
    index.added("p", 2, [10], np.asarray([[1.0, 0.0, 0.0, 0.0]], np.float32))
    assert index.search(query, ["p"], {"p": 3}, 2).ids is None
    assert _index(None).search(query, ["p"], {"p": 0}, 2).ids is None


ABOUTS: list[Any] = [
    None,
    "2023-05-01～2023-05-31",
    "2023-05-20 19:00",
    "下个月",
    ["2023-05-01T00:00:00", "2023-06-01T00:00:00"],
    ["not a time", "2023-06-01"],
    [1, 2],
    17,
    True,
    {"start": "2023-05-01"},
    'say "hi"\\n',
]


def test_the_time_test_reads_rank_rows_as_it_reads_whole_memories(store: Store) -> None:
    scope = Scope.of_person("bot", "木木")
    said = datetime(2023, 6, 5, 10, 0)
    items = [
        MemoryItem(
            scope=scope,
            kind=MemoryKind.EVENT if i % 2 else MemoryKind.CHUNK,
            text=["上周我们去爬山了", "I moved from Sweden 4 years ago", "明天考试", "吃了火锅"][i % 4],
            time=said - timedelta(days=i) if i % 5 else None,
            data={**({"about": about} if about is not None or i % 3 else {}), "space": "s", "seq": i},
        )
        for i, about in enumerate(ABOUTS * 2)
    ]
    store.add_memories(
        items, HashEmbedder(16).embed_passages([m.text for m in items]), [terms_of(m.text) for m in items]
    )
    ids = [m.id for m in items]
    whole = {m.id: m for m in store.get_memories("bot", ids)}
    rows = {r.id: r for r in store.rank_rows("bot", ids)}
    spans = [
        TimeSpan(datetime(2023, 5, 1), datetime(2023, 6, 1), "in May 2023"),
        TimeSpan(datetime(2019, 1, 1), datetime(2020, 1, 1), "in 2019"),
        TimeSpan(datetime(2023, 5, 29), datetime(2023, 6, 5), "上周"),
    ]
    for memory_id in ids:
        assert rows[memory_id].data.get("about") == whole[memory_id].data.get("about") or (
            isinstance(whole[memory_id].data.get("about"), bool | int | float | dict)  # never read as a time
        )
        for span in spans:
            assert within(rows[memory_id], span) == within(whole[memory_id], span), (memory_id, span)
    # and rerank gives the same order and bonuses with either
    window = [(i, (1.0 - i / 100, {})) for i in range(len(ids))]
    by_key_rows: dict[int, RankRow | None] = {i: rows[memory_id] for i, memory_id in enumerate(ids)}
    by_key_whole = {i: whole[memory_id] for i, memory_id in enumerate(ids)}
    recipe = RecallRecipe()
    for span in spans:
        assert rerank(window, by_key_rows, "上周", recipe, span, by_key_whole) == rerank(
            window, by_key_rows, "上周", recipe, span, by_key_rows
        )


def test_trusted_builds_what_model_construct_builds() -> None:
    scope = Scope.of_person("bot", "木木")
    hit = {
        "id": "m1",
        "kind": MemoryKind.CHUNK,
        "text": "t",
        "score": 0.5,
        "route_scores": {"dense": 0.5},
        "time": None,
        "scope": scope,
        "sources": ["a"],
        "place": "",
        "keywords": [],
        "insight": "",
        "data": {"space": "s"},
        "valid_to": None,
        "said_at": None,
    }
    for values in (hit, {k: v for k, v in hit.items() if k != "keywords"}, {**hit, "stray": 1}):
        fast, plain = trusted(RecallHit, dict(values)), RecallHit.model_construct(**values)
        assert fast == plain and list(fast.__dict__) == list(plain.__dict__) and repr(fast) == repr(plain)
        assert fast.model_fields_set == plain.model_fields_set and fast.model_dump() == plain.model_dump()
    item = trusted(MemoryItem, MemoryItem(scope=scope, kind=MemoryKind.FACT, text="x").model_dump())
    item.text = "y"  # assignment is still validated
    with pytest.raises(ValueError):
        item.text = " "


def _plain_is_chatter(text: str, names: tuple[str, ...] = ()) -> bool:
    """``is_chatter`` as it was before its fast paths (every pattern run on every line)."""
    plain = re.compile(
        "|".join(
            re.escape(w) if not w.isascii() or w.isdigit() else rf"(?<![a-z]){w}(?![a-z])" for w in chatter._REACTIONS
        )
    )
    rest = chatter._PLUS_ONE.sub("", chatter._PLACEHOLDER.sub("", text))
    for name in sorted((n for n in names if n), key=len, reverse=True):
        rest = rest.replace(name, " ")
    rest = rest.casefold()
    if chatter._FIVE_CONTENT.match(rest):
        return False
    rest = "".join(ch for ch in rest if ch.isalnum() or ch.isspace())
    rest = chatter._LAUGH.sub(" ", rest)
    rest, reactions = plain.subn(" ", rest)
    left = "".join(rest.split())
    if not left:
        return True
    return reactions > 0 and len(left) <= 4 and chatter._ADDRESS.fullmatch(left) is not None


def test_is_chatter_answers_as_before_its_fast_paths() -> None:
    rng = random.Random(2)
    names = ("霓霓", "苏霓", "老K", "Mel")
    bits = [
        *chatter._REACTIONS[:60],
        "[图片]",
        "[",
        "]",
        "+",
        "1",
        "１",
        "＋",
        "哈",
        "h",
        "霓",
        "老",
        "K",
        "Mel",
        "我在做毕业设计",
    ]
    bits += ["!", "？", " ", "\n", "_", "2333", "ok", "晚安", "猫"]
    lines = ["+[图片]1", "霓[图片]霓晚安", "晚安霓霓", "恭喜+1", "[图片]", "好冷"]
    lines += ["".join(rng.choice(bits) for _ in range(rng.randint(1, 6))) for _ in range(6000)]
    for line in lines:
        for known in ((), names):
            assert chatter.is_chatter(line, known) == _plain_is_chatter(line, known), (line, known)
