"""BM25 as both stores score the keyword route: the same numbers for the same memories and query.

k1 = 1.2, b = 0.75; each field (words, CJK characters) length-normalised on its own (BM25F-like) and
weighted words 1.0, characters 0.5; IDF ``ln(1 + (N − df + 0.5) / (df + 0.5))``, always positive. N and
the mean lengths are those of the caller's scopes (the ``partitions`` counters), df the number of the
scopes' documents holding the term. PostgreSQL computes it in SQL (``postgres.search_sql``), SQLite here.
"""

from __future__ import annotations

from typing import Any

import numpy as np

K1 = 1.2
B = 0.75
WORD_WEIGHT = 1.0
CHAR_WEIGHT = 0.5

Array = np.ndarray[Any, Any]


def bm25(docs: Array, terms: Array, tf: Array, rel_len: Array, weights: Array, n: float, n_docs: int) -> Array:
    """The score of each of ``n_docs`` documents from (doc, term, tf, rel_len) rows, one per document and
    term it holds (tf > 0): ``docs`` index the documents, ``terms`` index ``weights`` (each term's field
    weight), ``rel_len`` is the document's length in the term's field over the scopes' mean; ``n`` is
    how many documents the scopes hold. A term's df is the number of its rows."""
    df = np.bincount(terms, minlength=len(weights)).astype(np.float64)
    idf = np.log1p((n - df + 0.5) / (df + 0.5))
    part = weights[terms] * idf[terms] * tf * (K1 + 1) / (tf + K1 * (1 - B + B * rel_len))
    return np.bincount(docs, part, minlength=n_docs)
