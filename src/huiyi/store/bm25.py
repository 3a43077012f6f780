"""BM25 as both stores score the keyword route: FTS5's ``bm25()``, with the caller's scopes' statistics.

The formula of SQLite's ``fts5Bm25Function`` (ext/fts5/fts5_aux.c), on which the routes' fusion was
tuned: for each query phrase i (a term or a run of tokens; a phrase the query holds twice counts
twice), w_i = Σ_field weight · hits (words 1.0, characters 0.5, inside the saturation),
D = k1 · (1 − b + b · len / mean_len) with len the row's tokens over all its fields (the partition's
own token too) and ``score = Σ_i idf_i · w_i · (k1 + 1) / (w_i + D)``, ``idf_i = ln((N − n_i + 0.5) /
(n_i + 0.5))`` floored at 1e-6; k1 = 1.2, b = 0.75. N, mean_len and n_i (the rows holding phrase i)
are those of the caller's scopes, not the whole table's. PostgreSQL computes it in SQL
(``postgres.search_sql``), SQLite here (``sqlite.keyword``).
"""

from __future__ import annotations

from typing import Any

import numpy as np

K1 = 1.2
B = 0.75
WORD_WEIGHT = 1.0
CHAR_WEIGHT = 0.5
IDF_FLOOR = 1e-6  # FTS5's: a phrase in half the rows or more still weighs a little
PART_TOKENS = 1  # the SQLite row's partition column, one token FTS5 counts in a row's length

Array = np.ndarray[Any, Any]


def bm25(docs: Array, phrases: Array, tf: Array, doc_len: Array, stats: tuple[float, float], query: Array) -> Array:
    """The score of each document from (doc, phrase, tf) rows, one per document and phrase it holds
    (tf > 0): ``docs`` index ``doc_len`` (each document's tokens), ``phrases`` index ``query``, an array
    of (field weight, how often the query holds the phrase) rows; ``stats`` is the scopes' (N, mean
    length). A phrase's n_i is the number of its rows."""
    n, mean_len = stats
    hits = np.bincount(phrases, minlength=len(query)).astype(np.float64)
    idf = np.log((n - hits + 0.5) / (hits + 0.5))
    idf = np.where(idf > 0, idf, IDF_FLOOR)
    weighted = query[phrases, 0] * tf
    saturated = weighted * (K1 + 1) / (weighted + K1 * (1 - B + B * doc_len[docs] / mean_len))
    return np.bincount(docs, query[phrases, 1] * idf[phrases] * saturated, minlength=len(doc_len))
