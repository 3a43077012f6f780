"""The PostgreSQL store's two search routes as SQL: exact vector scan and BM25 over tsvectors.

Dense: ``ORDER BY embedding <=> q LIMIT k`` over ``part = ANY(parts)``, an exact scan of the caller's
scopes behind the btree on ``part``. No ANN index is used here on purpose: HNSW with a scope filter
returns the neighbours of the whole table and then drops those outside the scopes, so a small scope
gets almost nothing back. Scores are cosine similarities (1 − cosine distance).

Keyword: real BM25 (k1 = 1.2, b = 0.75), computed in SQL over the scopes a query may see, not
``ts_rank_cd`` (which has no inverse document frequency, so a common character such as 的 would weigh
as much as a rare name). The GIN indexes find the candidates (``words @@ q OR chars @@ q``); each
candidate's term frequencies come from the positions in its tsvector; a term's document frequency is
the number of candidates holding it, which is exact, since every document holding a query term is a
candidate; N and the mean lengths come from the ``partitions`` counters. Each field is length-
normalised on its own (BM25F-like) and weighted as in the SQLite store: words 1.0, characters 0.5.
IDF is ``ln(1 + (N − df + 0.5) / (df + 0.5))``, always positive, so every hit scores above zero.
The statistics are those of the caller's scopes, where FTS5 uses the whole table's.
"""

from __future__ import annotations

from typing import Any

import numpy as np

K1 = 1.2
B = 0.75
WORD_WEIGHT = 1.0
CHAR_WEIGHT = 0.5

DENSE = """
SELECT rowid, id, embedding <=> %(q)s::halfvec AS distance
FROM memories
WHERE part = ANY(%(parts)s) AND embedding IS NOT NULL
ORDER BY distance, rowid
LIMIT %(limit)s
"""

DENSE_OF_KEYS = """
SELECT rowid, 1 - (embedding <=> %(q)s::halfvec)
FROM memories
WHERE rowid = ANY(%(keys)s) AND part = ANY(%(parts)s) AND embedding IS NOT NULL
"""

# a query lexeme inside a tsquery literal: quoted, with quotes and backslashes doubled
_QUOTED = r"'''' || replace(replace(lexeme, '\', '\\'), '''', '''''') || ''''"

KEYWORD = f"""
WITH qw AS (
    SELECT DISTINCT lexeme FROM unnest(to_tsvector('huiyi_words', %(words)s))
), qc AS (
    SELECT DISTINCT lexeme FROM unnest(to_tsvector('simple', %(chars)s))
), q AS (
    SELECT (SELECT string_agg({_QUOTED}, ' | ') FROM qw)::tsquery AS wq,
           (SELECT string_agg({_QUOTED}, ' | ') FROM qc)::tsquery AS cq
), stats AS (
    SELECT GREATEST(sum(docs), 1)::float8 AS n,
           GREATEST(sum(words_total)::float8 / GREATEST(sum(docs), 1), 1) AS wavg,
           GREATEST(sum(chars_total)::float8 / GREATEST(sum(docs), 1), 1) AS cavg
    FROM partitions WHERE part = ANY(%(parts)s)
), cand AS MATERIALIZED (
    SELECT m.rowid, m.id, m.words, m.chars, m.words_len, m.chars_len
    FROM memories m, q
    WHERE m.part = ANY(%(parts)s) AND (m.words @@ q.wq OR m.chars @@ q.cq)
), tf AS (
    SELECT c.rowid, {WORD_WEIGHT}::float8 AS weight, 'w' AS field, t.lexeme,
           cardinality(t.positions)::float8 AS tf, c.words_len::float8 / s.wavg AS rel_len
    FROM cand c CROSS JOIN stats s CROSS JOIN LATERAL unnest(c.words) t
    WHERE t.lexeme IN (SELECT lexeme FROM qw)
    UNION ALL
    SELECT c.rowid, {CHAR_WEIGHT}::float8, 'c', t.lexeme,
           cardinality(t.positions)::float8, c.chars_len::float8 / s.cavg
    FROM cand c CROSS JOIN stats s CROSS JOIN LATERAL unnest(c.chars) t
    WHERE t.lexeme IN (SELECT lexeme FROM qc)
), df AS (
    SELECT field, lexeme, count(*)::float8 AS df FROM tf GROUP BY field, lexeme
)
SELECT tf.rowid, min(c.id) AS id, sum(
    tf.weight * ln(1 + (s.n - df.df + 0.5) / (df.df + 0.5))
    * tf.tf * {K1 + 1} / (tf.tf + {K1} * (1 - {B} + {B} * tf.rel_len))
) AS score
FROM tf JOIN df USING (field, lexeme) JOIN cand c USING (rowid) CROSS JOIN stats s
GROUP BY tf.rowid
ORDER BY score DESC, tf.rowid
LIMIT %(limit)s
"""


def vector_literal(vector: np.ndarray[Any, Any]) -> str:
    """A pgvector text literal; five significant digits are more than float16 keeps."""
    return "[" + ",".join(f"{x:.5g}" for x in np.asarray(vector, dtype=np.float32).reshape(-1).tolist()) + "]"
