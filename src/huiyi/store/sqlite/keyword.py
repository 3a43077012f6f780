"""The embedded store's keyword route: BM25 with the statistics of the caller's scopes (``store.bm25``).

FTS5's ``bm25()`` takes N and the mean length from the whole table, so one person's memories moved how
another's recall ranked. Here the scopes' N and mean field lengths come from the ``partitions``
counters, and each query term's instances (document, offset) from the ``fts5vocab`` table
``memory_fts_instances``, looked up by the term with each scope's code (``fts``): a posting list of the
scope alone, read once, with no ``MATCH``. tf is counted from the instances; a phrase's tf is how often
its right token stands right after its left one. The terms are PostgreSQL's: the query words' distinct
tokens and adjacent words as phrases (one's last token, the next one's first) in the words field; the
distinct characters and each CJK word's character bigrams (only when the query asks for characters)
in the characters field; a repeated term counts once.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence
from dataclasses import dataclass, field
from itertools import pairwise

import numpy as np

from huiyi.store.base import Terms
from huiyi.store.bm25 import CHAR_WEIGHT, WORD_WEIGHT, Array, bm25
from huiyi.store.phrases import cjk_pairs
from huiyi.store.sqlite.connection import marks
from huiyi.store.sqlite.fts import index_tokens, scope_code

_WORDS, _CHARS = "words", "chars"


@dataclass
class _Plan:
    """The query's tokens to read, numbered by (column, token), and its BM25 terms over them: single
    tokens, then phrases of two."""

    tokens: dict[tuple[str, str], int] = field(default_factory=dict)
    singles: dict[int, bool] = field(default_factory=dict)  # token number -> of the words field
    phrases: dict[tuple[int, int], bool] = field(default_factory=dict)  # (left, right) -> of the words field

    def token(self, column: str, token: str) -> int:
        return self.tokens.setdefault((column, token), len(self.tokens))

    def weights(self) -> tuple[Array, Array]:
        """Each term's field weight, and whether it is of the words field."""
        wordish = np.array([*self.singles.values(), *self.phrases.values()], dtype=bool)
        return np.where(wordish, WORD_WEIGHT, CHAR_WEIGHT), wordish


def _plan(query: Terms) -> _Plan:
    plan = _Plan()
    cut = [index_tokens(word) for word in query.words]
    for tokens in cut:
        for token in tokens:
            plan.singles[plan.token(_WORDS, token)] = True
    for chars in query.chars:
        for token in index_tokens(chars):
            plan.singles[plan.token(_CHARS, token)] = False
    for left, right in pairwise(cut):
        if left and right:
            plan.phrases[(plan.token(_WORDS, left[-1]), plan.token(_WORDS, right[0]))] = True
    for a, b in cjk_pairs(query.words) if query.chars else ():
        left, right = index_tokens(a), index_tokens(b)
        if len(left) == 1 and len(right) == 1:
            plan.phrases[(plan.token(_CHARS, left[0]), plan.token(_CHARS, right[0]))] = False
    return plan


def keyword_scores(conn: sqlite3.Connection, parts: Sequence[str], query: Terms, limit: int) -> list[tuple[int, float]]:
    """The best ``limit`` (rowid, score) of the scopes' memories for ``query``, best first, ties by rowid."""
    plan = _plan(query)
    if not parts or limit <= 0 or not plan.tokens:
        return []
    n, words_total, chars_total = conn.execute(
        "SELECT COALESCE(sum(docs), 0), COALESCE(sum(words_total), 0), COALESCE(sum(chars_total), 0)"
        f" FROM partitions WHERE part IN ({marks(len(parts))})",
        list(parts),
    ).fetchone()
    if not n:
        return []
    wanted = [
        (scope_code(part) + token, column, number) for part in parts for (column, token), number in plan.tokens.items()
    ]
    # the wanted tokens first (CROSS JOIN keeps the order), so each is one lookup of its posting list
    found = conn.execute(
        f"WITH q (term, col, number) AS (VALUES {', '.join(['(?, ?, ?)'] * len(wanted))})"
        " SELECT q.number, v.doc, v.offset, m.words_len, m.chars_len FROM q"
        " CROSS JOIN memory_fts_instances v CROSS JOIN memories m"
        f" WHERE v.term = q.term AND v.col = q.col AND m.rowid = v.doc AND m.part IN ({marks(len(parts))})",
        [x for row in wanted for x in row] + list(parts),
    ).fetchall()
    if not found:
        return []
    rows = np.array(found, dtype=np.int64)
    number, offset = rows[:, 0], rows[:, 2]
    rowids, doc = np.unique(rows[:, 1], return_inverse=True)
    words_len = np.zeros(len(rowids))
    words_len[doc] = rows[:, 3]
    chars_len = np.zeros(len(rowids))
    chars_len[doc] = rows[:, 4]
    docs, terms, tf = _frequencies(plan, number, doc, offset)
    if not len(docs):
        return []
    weights, wordish = plan.weights()
    rel_len = np.where(
        wordish[terms],
        words_len[docs] / max(words_total / n, 1.0),
        chars_len[docs] / max(chars_total / n, 1.0),
    )
    scores = bm25(docs, terms, tf, rel_len, weights, float(n), len(rowids))
    held = np.flatnonzero(np.bincount(docs, minlength=len(rowids)))  # a phrase's half alone scores nothing
    order = held[np.lexsort((rowids[held], -scores[held]))][:limit]
    return list(zip(rowids[order].tolist(), scores[order].tolist(), strict=True))


def _frequencies(plan: _Plan, number: Array, doc: Array, offset: Array) -> tuple[Array, Array, Array]:
    """(document, term, tf) of every term a document holds, from the instances of the tokens; counted
    with bincount and searchsorted (np.unique and np.isin cost tens of µs a call at these sizes)."""
    count, n_docs = len(plan.tokens), int(doc.max()) + 1
    single_term = np.full(count, -1, dtype=np.int64)
    single_term[list(plan.singles)] = np.arange(len(plan.singles))
    single = single_term[number] >= 0
    counts = np.bincount(doc[single] * count + single_term[number[single]], minlength=n_docs * count)
    held = np.flatnonzero(counts)
    docs, terms, tfs = [held // count], [held % count], [counts[held]]
    span = int(offset.max()) + 2
    for index, (left, right) in enumerate(plan.phrases, start=len(plan.singles)):
        lefts, rights = number == left, number == right
        after = np.sort(doc[rights] * span + offset[rights])
        if not len(after):
            continue
        wanted = doc[lefts] * span + offset[lefts] + 1
        follows = after[np.minimum(np.searchsorted(after, wanted), len(after) - 1)] == wanted
        counts = np.bincount(doc[lefts][follows], minlength=n_docs)
        held = np.flatnonzero(counts)
        docs.append(held)
        terms.append(np.full(len(held), index, dtype=np.int64))
        tfs.append(counts[held])
    return np.concatenate(docs), np.concatenate(terms), np.concatenate(tfs).astype(np.float64)
