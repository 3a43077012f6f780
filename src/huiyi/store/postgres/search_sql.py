"""The PostgreSQL store's two search routes as SQL (exact vector scan, BM25 over tsvectors) and their inputs.

Dense: ``ORDER BY embedding <=> q LIMIT k`` over ``part = ANY(parts)``, an exact scan of the caller's
scopes behind the btree on ``part``. No ANN index is used here on purpose: HNSW with a scope filter
returns the neighbours of the whole table and then drops those outside the scopes, so a small scope
gets almost nothing back. Scores are cosine similarities (1 − cosine distance). ``DENSE_ACROSS``,
over every scope of one agent (an operator's search, outside the contract), is the one query that an
HNSW index serves (``PostgresStore.create_hnsw_index``).

Keyword: real BM25, FTS5's ``bm25()`` formula (``store.bm25``: k1 = 1.2, b = 0.75, the field weights
words 1.0 / characters 0.5 inside the saturation, a row's length over all its fields plus the one
token of SQLite's partition column, IDF ``ln((N − df + 0.5) / (df + 0.5))`` floored at 1e-6, a term the
query holds twice counting twice), computed in SQL over the scopes a query may see, not ``ts_rank_cd``
(which has no inverse document frequency, so a common character such as 的 would weigh as much as a
rare name). The GIN indexes find the candidates (``words @@ q OR chars @@ q``); each candidate's term
frequencies come from the positions in its tsvector; a term's document frequency is the number of
candidates holding it, which is exact, since every document holding a query term is a candidate; N
and the mean length come from the ``partitions`` counters: the statistics of the caller's scopes, as
README and docs/scaling.md promise. The SQLite store computes the same in numpy (``sqlite.keyword``;
tests/test_keyword_scores.py, tests/test_keyword_fts5.py), but for words cut at an apostrophe: FTS5
counts ``i'm`` as two tokens and reads it as a phrase of two, a row's ``words_len`` here counts one word.

Phrases, as in the SQLite store: adjacent query words (their last and first lexemes, in the words
field) and the character bigrams of each CJK query word (in the characters field) are BM25 terms of
their own, so "support group" outscores "support" … "group" and
研究生 still finds 研究 + 生命. A phrase's tf is counted from the positions of its two lexemes that the
candidates' tsvectors already hold (right = left + 1), not with ``@@ 'a' <-> 'b'``: that only says
whether a phrase occurs, where BM25 (and FTS5) needs how often, and it would evaluate one more tsquery
per candidate and phrase. ``<->`` is used only to make a candidate of a memory holding a phrase none
of whose lexemes is a single query term (a bigram of stop characters), which keeps df exact. The cost
is one hash join of the candidates' query lexemes with themselves. Measured on 100,000 memories (median
of 20): a 1,000-memory scope 1.4–3.0 ms before, 2.0–4.0 ms after; a 30,000-memory scope where common
characters make ~9,000 candidates 27–67 ms before, 36–89 ms after (+30–45 %, nearly all of it this join).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import Any

import numpy as np

from huiyi.store.base import TURN_VECTOR
from huiyi.store.bm25 import CHAR_WEIGHT, IDF_FLOOR, K1, PART_TOKENS, WORD_WEIGHT, B

DENSE = """
SELECT v.rowid, m.id, v.distance
FROM (
    SELECT rowid, embedding <=> %(q)s::halfvec AS distance
    FROM memory_vectors
    WHERE part = ANY(%(parts)s)
    ORDER BY distance, rowid
    LIMIT %(limit)s
) v JOIN memories m USING (rowid)
ORDER BY v.distance, v.rowid
"""

# by primary key, one lookup per candidate, whatever the size of the scopes
DENSE_OF_KEYS = """
SELECT v.rowid, 1 - (v.embedding <=> %(q)s::halfvec)
FROM unnest(%(keys)s::bigint[]) AS k (rowid) JOIN memory_vectors v ON v.rowid = k.rowid
WHERE v.part = ANY(%(parts)s)
"""


def dense_in_context(weights: Sequence[float], floor: bool) -> tuple[str, str]:
    """``DENSE`` and ``DENSE_OF_KEYS`` for scopes holding turn-alone chunks (``store.vectors``): each
    chunk's similarity is mixed with the similarities of the chunks before it in its chat, by seq, the
    same arithmetic as ``store.vectors.with_context``. It scans the scopes once, joined to the rows'
    places; the keys' variant scans them too, since a key's context turns are anywhere in its chat."""
    lags = ", ".join(f"lag(sim, {k}) OVER w AS p{k}" for k in range(1, len(weights) + 1))
    top = " + ".join(f"{float(w)!r} * COALESCE(p{k}, 0)" for k, w in enumerate(weights, start=1))
    bottom = " + ".join(f"{float(w)!r} * (p{k} IS NOT NULL)::int" for k, w in enumerate(weights, start=1))
    mixed = f"(sim + {top}) / (1 + {bottom})"
    combined = f"GREATEST(sim, {mixed})" if floor else mixed
    scored = f"""
WITH s AS MATERIALIZED (
    SELECT v.rowid, 1 - (v.embedding <=> %(q)s::halfvec) AS sim,
           CASE WHEN m.kind = 'chunk' THEN m.data->>'space' END AS space,
           CASE WHEN m.kind = 'chunk' THEN (m.data->>'seq')::bigint END AS seq,
           COALESCE(m.kind = 'chunk' AND m.data->>'vector' = '{TURN_VECTOR}', false) AS turn
    FROM memory_vectors v JOIN memories m USING (rowid)
    WHERE v.part = ANY(%(parts)s)
), c AS (
    SELECT rowid, sim, turn, {lags} FROM s WINDOW w AS (PARTITION BY space ORDER BY seq, rowid)
), scored AS (
    SELECT rowid, CASE WHEN turn THEN {combined} ELSE sim END AS score FROM c
)"""
    dense = f"""{scored}
SELECT t.rowid, m.id, 1 - t.score
FROM (SELECT rowid, score FROM scored ORDER BY score DESC, rowid LIMIT %(limit)s) t JOIN memories m USING (rowid)
ORDER BY t.score DESC, t.rowid
"""
    of_keys = f"""{scored}
SELECT rowid, score FROM scored WHERE rowid = ANY(%(keys)s::bigint[])
"""
    return dense, of_keys


DENSE_PAIR = (DENSE, DENSE_OF_KEYS)

# across an agent's scopes through the HNSW index of one dimension; relaxed order is sorted again here
DENSE_ACROSS = """
WITH near AS MATERIALIZED (
    SELECT rowid, embedding::halfvec({dim}) <=> %(q)s::halfvec({dim}) AS distance
    FROM memory_vectors
    WHERE part = ANY(ARRAY(SELECT part FROM partitions WHERE agent = %(agent)s)) AND vector_dims(embedding) = {dim}
    ORDER BY embedding::halfvec({dim}) <=> %(q)s::halfvec({dim})
    LIMIT %(limit)s
)
SELECT near.rowid, m.id, near.distance FROM near JOIN memories m USING (rowid) ORDER BY near.distance, near.rowid
"""

# the query's lexemes, as the documents' text was cut and stemmed, how many documents the scopes hold,
# and each query word's first and last lexeme by position (NULL when it has none), for its phrases
LEXEMES = """
SELECT ARRAY(SELECT DISTINCT lexeme FROM unnest(to_tsvector('huiyi_words', %(words)s)) ORDER BY 1),
       ARRAY(SELECT DISTINCT lexeme FROM unnest(to_tsvector('simple', %(chars)s)) ORDER BY 1),
       (SELECT COALESCE(sum(docs), 0) FROM partitions WHERE part = ANY(%(parts)s)),
       ARRAY(SELECT (SELECT lexeme FROM unnest(to_tsvector('huiyi_words', u.w)) ORDER BY positions[1] LIMIT 1)
             FROM unnest(%(each)s::text[]) WITH ORDINALITY AS u (w, i) ORDER BY u.i),
       ARRAY(SELECT (SELECT lexeme FROM unnest(to_tsvector('huiyi_words', u.w))
                     ORDER BY positions[cardinality(positions)] DESC LIMIT 1)
             FROM unnest(%(each)s::text[]) WITH ORDINALITY AS u (w, i) ORDER BY u.i)
"""

# Scopes up to this many memories are read through the partition btree and filtered with @@; larger
# ones through the GIN indexes. The planner cannot tell the two apart: it intersects a common
# character's posting list over the whole table (tens of ms at 100k rows) with a scope of a thousand.
SCAN_DOCS = 20_000
_INDEXED = "(words @@ %(wq)s::tsquery OR chars @@ %(cq)s::tsquery)"
_SCANNED = "(COALESCE(words @@ %(wq)s::tsquery, false) OR COALESCE(chars @@ %(cq)s::tsquery, false))"

# wq / cq: the query terms OR-ed as tsqueries, given as constants so the planner can weigh the GIN
# indexes against the partition btree. ts_filter(setweight(...)) keeps only the lexemes the query
# needs (wkeep / ckeep: its single terms and the halves of its phrases). A term is a single lexeme
# (lfield, lex, lrep) or a phrase of two (pfield, pleft, pright, prep), with how often the query holds
# it: a phrase's tf is how often the right lexeme stands at the position right after the left one,
# counted from the positions already unnested.
_KEYWORD = f"""
WITH stats AS (
    SELECT GREATEST(sum(docs), 1)::float8 AS n,
           GREATEST(({PART_TOKENS} * sum(docs) + sum(words_total) + sum(chars_total))::float8
                    / GREATEST(sum(docs), 1), 1) AS avg_len
    FROM partitions WHERE part = ANY(%(parts)s)
), cand AS MATERIALIZED (
    SELECT rowid, {PART_TOKENS} + words_len + chars_len AS len,
           ts_filter(setweight(words, 'A', %(wkeep)s::text[]), '{{a}}') AS w,
           ts_filter(setweight(chars, 'A', %(ckeep)s::text[]), '{{a}}') AS c
    FROM memories
    WHERE part = ANY(%(parts)s) AND {{match}}
), terms AS MATERIALIZED (
    SELECT rowid, 'w' AS field, {WORD_WEIGHT}::float8 AS weight, len::float8 / s.avg_len AS rel_len,
           t.lexeme, t.positions
    FROM cand CROSS JOIN stats s CROSS JOIN LATERAL unnest(cand.w) t
    UNION ALL
    SELECT rowid, 'c', {CHAR_WEIGHT}::float8, len::float8 / s.avg_len, t.lexeme, t.positions
    FROM cand CROSS JOIN stats s CROSS JOIN LATERAL unnest(cand.c) t
), tf AS (
    SELECT t.rowid, t.field, t.weight, t.rel_len, t.lexeme AS term, q.rep,
           t.weight * cardinality(t.positions) AS w
    FROM unnest(%(lfield)s::text[], %(lex)s::text[], %(lrep)s::float8[]) AS q (field, lexeme, rep)
    JOIN terms t ON t.field = q.field AND t.lexeme = q.lexeme
    UNION ALL
    SELECT * FROM (
        SELECT a.rowid, a.field, a.weight, a.rel_len, p.l || ' ' || p.r, p.rep,
               a.weight * (SELECT count(*) FROM unnest(a.positions) AS x WHERE x + 1 = ANY(b.positions)) AS w
        FROM unnest(%(pfield)s::text[], %(pleft)s::text[], %(pright)s::text[], %(prep)s::float8[])
             AS p (field, l, r, rep)
        JOIN terms a ON a.field = p.field AND a.lexeme = p.l
        JOIN terms b ON b.rowid = a.rowid AND b.field = p.field AND b.lexeme = p.r
    ) phrases WHERE w > 0
), scored AS (
    SELECT rowid, rep, w, rel_len, ln((s.n - count(*) OVER (PARTITION BY field, term) + 0.5)
                                      / (count(*) OVER (PARTITION BY field, term) + 0.5)) AS idf
    FROM tf CROSS JOIN stats s
), top AS (
    SELECT rowid, sum(
        rep * CASE WHEN idf > 0 THEN idf ELSE {IDF_FLOOR} END * w * {K1 + 1} / (w + {K1} * (1 - {B} + {B} * rel_len))
    ) AS score
    FROM scored
    GROUP BY rowid
    ORDER BY score DESC, rowid
    LIMIT %(limit)s
)
SELECT top.rowid, m.id, top.score FROM top JOIN memories m USING (rowid) ORDER BY top.score DESC, top.rowid
"""


KEYWORD_INDEXED = _KEYWORD.replace("{match}", _INDEXED)
KEYWORD_SCANNED = _KEYWORD.replace("{match}", _SCANNED)


def word_pairs(firsts: Sequence[str | None], lasts: Sequence[str | None]) -> Counter[tuple[str, str]]:
    """Adjacent query words as phrases of lexemes (one word's last lexeme, the next word's first), and
    how often the query holds each."""
    return Counter((a, b) for a, b in zip(lasts, firsts[1:], strict=False) if a is not None and b is not None)


def word_repeats(firsts: Sequence[str | None], lasts: Sequence[str | None]) -> Counter[str]:
    """How often the query holds each word of one lexeme (a word of several counts each once)."""
    return Counter(a for a, b in zip(firsts, lasts, strict=True) if a is not None and a == b)


def _quote(lexeme: str) -> str:
    return "'" + lexeme.replace("\\", "\\\\").replace("'", "''") + "'"


def any_of(lexemes: Sequence[str], phrases: Sequence[tuple[str, str]] = ()) -> str | None:
    """A tsquery matching any of the lexemes or phrases, each lexeme quoted (quotes and backslashes doubled)."""
    quoted = [_quote(lexeme) for lexeme in lexemes] + [f"{_quote(a)} <-> {_quote(b)}" for a, b in phrases]
    return " | ".join(quoted) or None


def vector_literal(vector: np.ndarray[Any, Any]) -> str:
    """A pgvector text literal; five significant digits are more than float16 keeps."""
    return "[" + ",".join(f"{x:.5g}" for x in np.asarray(vector, dtype=np.float32).reshape(-1).tolist()) + "]"


def score(value: Any) -> float:
    """A similarity as a float; NULL or NaN (a zero vector) scores nothing."""
    number = float(value) if value is not None else 0.0
    return number if number == number else 0.0
