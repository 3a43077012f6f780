"""The embedded keyword route scores with FTS5's own bm25() formula, only with the caller's scopes'
statistics: on a store whose memories are all in one partition, its scores are those of the ``MATCH``
query with ``-bm25(memory_fts, 0.0, 1.0, 0.5)`` it ran before schema 15, so the routes' fusion, tuned on
those scores, ranks a single-scope store exactly as before."""

from __future__ import annotations

from collections.abc import Iterator
from itertools import pairwise
from pathlib import Path

import pytest

from conftest import STORE_FACTORIES
from huiyi.model import MemoryItem, MemoryKind, Scope
from huiyi.providers.embed import HashEmbedder
from huiyi.recall.routes import query_terms
from huiyi.store.base import Store, Terms
from huiyi.store.phrases import cjk_pairs
from huiyi.store.rows import partition_keys
from huiyi.store.sqlite import SQLiteStore
from huiyi.store.sqlite.fts import scope_code, scoped
from huiyi.text import tokens

MUMU = Scope.of_person("qy", "mumu")
TEXTS = [
    "木木喜欢莫兰迪色系的衣服",
    "木木下周三要考驾照科目二，她有点紧张",
    "木木 went hiking with her support group on Saturday",
    "木木喜欢猫，她的猫叫团子",
    "I'm going hiking again: hiking is what I love",
    "the support group meets every week; the group is small",
    "研究生的生活很忙，木木在读研究生",
    "生命研究所的研究员是她的朋友",
    "她的的确确是喜欢喝咖啡的人",
    "顾北辰是一位插画师，喜欢安静的咖啡馆",
    "we talked about cats, cats and more cats",
    "猫猫狗狗都喜欢",
]
QUERIES = [
    Terms(["hiking"], []),
    Terms(["hiking", "hiking"], []),  # a word asked twice counts twice
    Terms(["support", "group"], []),  # and a phrase of the two
    Terms(["i'm", "going"], []),  # a word of two tokens
    Terms(["the", "group", "the"], []),
    Terms(["cats", "猫"], ["猫"]),
    Terms(["木木"], ["木"]),
    Terms(["研究生"], ["研", "究", "生"]),  # CJK bigrams as phrases
    Terms(["研究生"], []),  # bigrams without characters
    Terms(["喜欢", "的"], ["喜", "欢", "的"]),  # a stop character
    Terms(tokens.words("她的猫和她的朋友"), tokens.chars("她的猫和她的朋友")),
    query_terms("木木喜欢什么颜色的衣服？"),
    query_terms("who went hiking with the support group"),
    Terms([], ["的"]),  # a stop character in half the rows: the IDF's floor
    Terms(["nothing"], ["无"]),
]


def _old_match(part: str, query: Terms) -> str | None:
    """The MATCH string ``fts.match_query(parts, query, part_clause=False)`` built before schema 15."""
    words = [*query.words, *(f"{a} {b}" for a, b in pairwise(query.words))]
    chars = [*query.chars, *(f"{a} {b}" for a, b in cjk_pairs(query.words))]
    clauses = []
    for column, terms in (("words", words), ("chars", chars)):
        phrases = [p for term in terms if (p := scoped(scope_code(part), term))]
        if phrases:
            clauses.append(f"{column} : (" + " OR ".join('"' + p.replace('"', '""') + '"' for p in phrases) + ")")
    return " OR ".join(clauses) or None


def _fts5_scores(store: SQLiteStore, part: str, query: Terms) -> dict[str, float]:
    match = _old_match(part, query)
    if match is None:
        return {}
    rows = store._conn().execute(
        "SELECT m.id, -bm25(memory_fts, 0.0, 1.0, 0.5) FROM memory_fts f JOIN memories m ON m.rowid = f.rowid"
        " WHERE memory_fts MATCH ? AND m.part = ?",
        (match, part),
    )
    return dict(rows.fetchall())


def _fill(store: Store, texts: list[str]) -> Store:
    items = [MemoryItem(id=f"m{i}", scope=MUMU, kind=MemoryKind.NOTE, text=t) for i, t in enumerate(texts)]
    terms = [Terms(tokens.words(t), tokens.chars(t)) for t in texts]
    store.add_memories(items, HashEmbedder(16).embed_passages(texts), terms)
    return store


@pytest.fixture
def one_scope_store(tmp_path: Path) -> Iterator[SQLiteStore]:
    store = SQLiteStore(tmp_path / "fts5")
    _fill(store, TEXTS)
    yield store
    store.close()


@pytest.mark.parametrize("query", QUERIES, ids=[" ".join([*q.words, "|", *q.chars]) for q in QUERIES])
def test_one_scope_scores_are_fts5_bm25(one_scope_store: SQLiteStore, query: Terms) -> None:
    (part,) = partition_keys([MUMU])
    expected = _fts5_scores(one_scope_store, part, query)
    found = {hit.id: hit.score for hit in one_scope_store.search_keyword([MUMU], query, 100).hits}
    assert found == pytest.approx(expected, abs=1e-6, rel=0)


def test_the_cases_are_varied(one_scope_store: SQLiteStore) -> None:
    """The queries above reach the floor of FTS5's IDF and score several rows each."""
    (part,) = partition_keys([MUMU])
    scores = [_fts5_scores(one_scope_store, part, q) for q in QUERIES]
    assert sum(len(s) > 2 for s in scores) >= 6 and not scores[-1]
    assert len(scores[-2]) >= len(TEXTS) / 2 and all(0 < v < 1e-5 for v in scores[-2].values())


def test_postgres_scores_the_queries_alike(tmp_path: Path) -> None:
    """PostgreSQL computes the same formula in SQL. Words cut at an apostrophe are left out: FTS5 counts
    i'm as two tokens and reads it as a phrase, PostgreSQL's row length counts one word."""
    texts = [t for t in TEXTS if "'" not in t]
    queries = [q for q in QUERIES if not any("'" in w for w in q.words)]
    found = {}
    for backend, make in sorted(STORE_FACTORIES.items()):
        store = _fill(make(tmp_path / backend), texts)
        try:
            found[backend] = [{h.id: h.score for h in store.search_keyword([MUMU], q, 100).hits} for q in queries]
        finally:
            store.close()
    assert found["postgres"] == [pytest.approx(scores, rel=1e-6, abs=1e-9) for scores in found["sqlite"]]
