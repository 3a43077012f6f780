"""The server store's two search routes, and an operator's search across all of an agent's scopes.

The SQL and why it is shaped as it is live in ``search_sql``; this module runs it and turns rows into
``RouteHits``.
"""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Sequence
from contextlib import AbstractContextManager, nullcontext

import numpy as np

from huiyi.model import Scope
from huiyi.store.base import RouteHits, ScoredId, Terms, Vectors
from huiyi.store.phrases import cjk_pairs
from huiyi.store.postgres import search_sql as sql
from huiyi.store.postgres.connection import PostgresConnection
from huiyi.store.rows import partition_keys
from huiyi.store.ties import kept_with_ties


class PostgresSearch(PostgresConnection):
    """``SearchStore`` on PostgreSQL: an exact vector scan and BM25 over tsvectors, both in SQL."""

    def search_dense(self, scopes: Sequence[Scope], query: Vectors, limit: int) -> RouteHits:
        started = time.perf_counter()
        parts = partition_keys(scopes)
        q = sql.vector_literal(query)
        context = self.context
        # turn-alone chunks take their context turns' similarities (store.vectors); others keep theirs
        dense, of_keys = sql.dense_in_context(context.weights, context.floor) if context.weights else sql.DENSE_PAIR
        # one past the cut: rows that score alike across it are all left out, as the exact index does
        found = self._rows(dense, {"q": q, "parts": parts, "limit": limit + 1}) if parts and limit > 0 else []
        hits = [ScoredId(str(id_), sql.score(1.0 - distance), int(rowid)) for rowid, id_, distance in found]
        if len(hits) > limit:
            cut = hits[limit].score
            hits = [hit for hit in hits[:limit] if hit.score > cut] if hits[limit - 1].score == cut else hits[:limit]

        def score_of(keys: Sequence[int]) -> list[float]:
            wanted = [int(k) for k in keys]
            if not wanted or not parts:
                return [0.0] * len(wanted)
            scored = self._rows(of_keys, {"q": q, "keys": wanted, "parts": parts})
            by_key: dict[int, float] = {int(key): float(value) for key, value in scored}
            return [sql.score(by_key.get(k)) for k in wanted]

        return RouteHits(hits, (time.perf_counter() - started) * 1000, score_of)

    def reading(self, agent: str) -> AbstractContextManager[None]:
        return nullcontext()  # each statement's round trip costs far more than its snapshot

    def tidy_keywords(self, max_steps: int = 16) -> int:
        return 0  # a GIN index keeps no segments; autovacuum tidies it

    def search_keyword(self, scopes: Sequence[Scope], query: Terms, limit: int) -> RouteHits:
        started = time.perf_counter()
        parts = partition_keys(scopes)
        if not parts or limit <= 0 or not (query.words or query.chars):
            return RouteHits([], (time.perf_counter() - started) * 1000)
        with self._cursor(transaction=False) as cur:
            text = {"words": " ".join(query.words), "chars": " ".join(query.chars), "parts": parts}
            row = cur.execute(sql.LEXEMES, {**text, "each": list(query.words)})
            wlex, clex, docs, firsts, lasts = row.fetchone() or ([], [], 0, [], [])
            # as FTS5 reads the query (store.bm25): adjacent words and each word's CJK bigrams as phrases,
            # and a term the query holds twice counts twice
            wpairs = sql.word_pairs(firsts, lasts)
            cpairs = Counter(cjk_pairs(query.words))
            wrep, crep = sql.word_repeats(firsts, lasts), Counter(query.chars)
            wkeep = sorted({*wlex, *(x for pair in wpairs for x in pair)})
            ckeep = sorted({*clex, *(x for pair in cpairs for x in pair)})
            pairs = [("w", a, b, n) for (a, b), n in wpairs.items()] + [("c", a, b, n) for (a, b), n in cpairs.items()]
            # a phrase is matched through its lexemes; only one with a lexeme outside them needs <->
            args = {
                "parts": parts,
                "lfield": ["w"] * len(wlex) + ["c"] * len(clex),
                "lex": [*wlex, *clex],
                "lrep": [float(wrep[x] or 1) for x in wlex] + [float(crep[x] or 1) for x in clex],
                "wkeep": wkeep,
                "ckeep": ckeep,
                "pfield": [p[0] for p in pairs],
                "pleft": [p[1] for p in pairs],
                "pright": [p[2] for p in pairs],
                "prep": [float(p[3]) for p in pairs],
                "wq": sql.any_of(wlex, [p for p in wpairs if not set(p) <= set(wlex)]),
                "cq": sql.any_of(clex, [p for p in cpairs if not set(p) <= set(clex)]),
                "limit": 2 * limit,  # cut below, keeping the rows tied with the last
            }
            statement = sql.KEYWORD_SCANNED if docs <= sql.SCAN_DOCS else sql.KEYWORD_INDEXED
            found = cur.execute(statement, args).fetchall() if docs and (args["wq"] or args["cq"]) else []
            found = found[: kept_with_ties([float(row[2]) for row in found], limit)]
        hits = [ScoredId(str(id_), float(value), int(rowid)) for rowid, id_, value in found]
        return RouteHits(hits, (time.perf_counter() - started) * 1000)

    # search across an agent's scopes: outside the contract, for operators' tools -----------------
    def create_hnsw_index(self, dim: int) -> None:
        """An HNSW index over the vectors of dimension ``dim``, used by ``search_dense_agent`` only.

        ``search_dense`` never uses it: its query orders by the plain column, which this expression
        index does not cover, so recall within scopes stays an exact scan (HNSW with a scope filter
        would return the whole table's neighbours and drop most of them).
        """
        dim = int(dim)
        with self._cursor(transaction=False) as cur:
            cur.execute(
                f"CREATE INDEX CONCURRENTLY IF NOT EXISTS memory_vectors_hnsw_{dim} ON memory_vectors"
                f" USING hnsw ((embedding::halfvec({dim})) halfvec_cosine_ops) WHERE vector_dims(embedding) = {dim}"
            )

    def search_dense_agent(self, agent: str, query: Vectors, limit: int, ef_search: int = 100) -> RouteHits:
        """Approximate nearest memories across every scope of ``agent``, through the HNSW index of the
        query's dimension (``create_hnsw_index``), scanning on until ``limit`` of the agent's are found."""
        started = time.perf_counter()
        dim = int(np.asarray(query).size)
        statement = sql.DENSE_ACROSS.replace("{dim}", str(dim))
        with self._write() as cur:
            cur.execute("SELECT set_config('hnsw.iterative_scan', 'relaxed_order', true)")
            cur.execute("SELECT set_config('hnsw.ef_search', %s, true)", (str(max(ef_search, limit)),))
            found = cur.execute(statement, {"q": sql.vector_literal(query), "agent": agent, "limit": limit}).fetchall()
        hits = [ScoredId(str(id_), sql.score(1.0 - distance), int(rowid)) for rowid, id_, distance in found]
        return RouteHits(hits, (time.perf_counter() - started) * 1000)
