"""The embedded store's keyword route: FTS5's BM25 with the statistics of the caller's scopes (``store.bm25``).

FTS5's ``bm25()`` takes N and the mean length from the whole table, so one person's memories moved how
another's recall ranked. Here the scopes' N and mean row length come from the ``partitions`` counters,
each row's length from ``memory_fts_lengths`` (FTS5's own count), and the query's tokens from the
``fts5vocab`` table ``memory_fts_instances``, looked up by the token with each scope's code (``fts``):
a posting list of the scope alone, with no ``MATCH``. A token's tf is how many instances a row holds, a
phrase's how often its tokens stand one right after another. (Counting per row in SQL, ``GROUP BY``,
was slower: nearly every row holds a token once, so the sort saved no rows.)
The phrases are those of the ``MATCH`` query this route ran before: each query word and each pair of
adjacent words in the words field, each query character and each CJK bigram of a word in the
characters field, cut by FTS5's tokenizer, repeats kept.
"""

from __future__ import annotations

import sqlite3
from collections import Counter
from collections.abc import Sequence
from itertools import chain, pairwise
from typing import Any

import numpy as np

from huiyi.store.base import Terms
from huiyi.store.bm25 import CHAR_WEIGHT, WORD_WEIGHT, Array, bm25
from huiyi.store.phrases import cjk_pairs
from huiyi.store.postings import PostingLists
from huiyi.store.sqlite.connection import marks
from huiyi.store.sqlite.fts import index_tokens, scope_code
from huiyi.store.ties import kept_with_ties

_WEIGHTS = {"words": WORD_WEIGHT, "chars": CHAR_WEIGHT}
Phrase = tuple[str, tuple[str, ...]]  # (column, its tokens as the index holds them, without the code)


def query_phrases(query: Terms) -> Counter[Phrase]:
    """The query's phrases and how often it holds each."""
    words = [*query.words, *(f"{a} {b}" for a, b in pairwise(query.words))]
    chars = [*query.chars, *(f"{a} {b}" for a, b in cjk_pairs(query.words))]
    return Counter(
        (column, cut)
        for column, terms in (("words", words), ("chars", chars))
        for term in terms
        if (cut := index_tokens(term))
    )


def keyword_scores(
    conn: sqlite3.Connection,
    parts: Sequence[str],
    totals: tuple[int, int],
    query: Terms,
    limit: int,
    postings: PostingLists | None = None,
) -> list[tuple[int, float]]:
    """The best ``limit`` (rowid, score) of the scopes' memories for ``query``, best first, ties by rowid
    (and more than ``limit`` when rows tie with the last);
    ``totals`` are the scopes' documents and tokens (``partitions``, read in the caller's snapshot);
    ``postings``: the posting lists and phrases' rows read before under those partitions' versions
    (:func:`_phrase_rows`)."""
    phrases = query_phrases(query)
    n, total = totals
    if not parts or limit <= 0 or not phrases or not n:
        return []
    held: PostingLists = {} if postings is None else postings
    found = _phrase_rows(conn, parts, list(phrases), held)
    if not any(len(rows) for rows in found):
        return []
    joined = np.concatenate(found)
    rowids = np.unique(joined[:, 0])
    every = np.searchsorted(rowids, joined[:, 0])  # each (row, phrase) pair's row, phrase by phrase
    doc_len = np.zeros(len(rowids))
    doc_len[every] = joined[:, 2]
    terms = np.repeat(np.arange(len(phrases)), [len(rows) for rows in found])
    weights = np.array([(_WEIGHTS[column], repeats) for (column, _), repeats in phrases.items()], dtype=np.float64)
    scores = bm25(every, terms, joined[:, 1].astype(np.float64), doc_len, (n, total / n), weights)
    order = np.lexsort((rowids, -scores))  # every row holds a whole phrase (a phrase's half alone is no hit)
    order = order[: kept_with_ties(scores[order[: 2 * limit]].tolist(), limit)]  # rows tied with the last kept too
    return list(zip(rowids[order].tolist(), scores[order].tolist(), strict=True))


def _phrase_rows(
    conn: sqlite3.Connection, parts: Sequence[str], phrases: list[Phrase], held: PostingLists
) -> list[Array]:
    """Each phrase's (rowid, tf, row length) rows, by rowid: from ``held`` (kept with the posting lists,
    under a key of their own) or made from its tokens' posting lists, those not held read in one
    statement."""
    keys = [(f"{column} phrase", "\x1f".join(cut)) for column, cut in phrases]
    missing = [phrase for phrase, key in zip(phrases, keys, strict=True) if key not in held]
    if missing:
        numbers: dict[tuple[str, str], int] = {}
        for column, cut in missing:
            for token in cut:
                numbers.setdefault((column, token), len(numbers))
        _read_lists(conn, parts, numbers, held)
        for (column, cut), rows in zip(missing, _rows_of(missing, numbers, held), strict=True):
            held[f"{column} phrase", "\x1f".join(cut)] = rows
    return [held[key] for key in keys]


def _rows_of(phrases: list[Phrase], numbers: dict[tuple[str, str], int], held: PostingLists) -> list[Array]:
    """Each phrase's (rowid, tf, row length) rows, by rowid, from its tokens' (·, rowid, offset, length)
    lists in ``held`` (``numbers``: the tokens' places in one run of them all): tf is how often a row
    holds the phrase's tokens in order, one right after another. Over all the phrases' instances at once:
    a query's ~9 phrases each sorting their own rows cost more than its reading them."""
    lists = [held[token] for token in numbers]
    rows = np.concatenate(lists)
    number = np.repeat(np.arange(len(numbers)), [len(read) for read in lists])
    rowids, doc = np.unique(rows[:, 1], return_inverse=True)
    doc_len = np.zeros(len(rowids), dtype=np.int64)
    doc_len[doc] = rows[:, 3]
    # a token's hits in each row, by (row, token) key; each phrase's tokens' places, by (row, offset) key
    hits = np.bincount(doc * len(numbers) + number, minlength=len(rowids) * len(numbers))
    places = doc * _SPAN + rows[:, 2]
    out: list[Array] = []
    for column, cut in phrases:
        tokens = [numbers[column, token] for token in cut]
        if len(tokens) == 1:
            docs = np.flatnonzero(hits[tokens[0] :: len(numbers)])
            tf = hits[docs * len(numbers) + tokens[0]]
        else:
            counts = _phrase_counts([np.sort(places[number == token]) for token in tokens], len(rowids))
            docs = np.flatnonzero(counts)
            tf = counts[docs]
        out.append(np.column_stack([rowids[docs], tf, doc_len[docs]]).astype(np.int64, copy=False))
    return out


_SPAN = 1 << 32  # more than any row's offsets


def _read_lists(
    conn: sqlite3.Connection, parts: Sequence[str], numbers: dict[tuple[str, str], int], held: PostingLists
) -> None:
    """The posting lists of the tokens ``held`` lacks into it, read in one statement: each token's
    (number, rowid, offset, row length) rows in no particular order, a token no row holds as an empty
    list. ``held`` keeps them under the partitions' versions (a turn's second search, the next recall in
    the scope: ``store.postings``)."""
    missing = {token: number for token, number in numbers.items() if token not in held}
    if not missing:
        return
    found = _array(_read(conn, parts, missing))
    found = found[np.argsort(found[:, 0], kind="stable")]
    bounds = np.searchsorted(found[:, 0], np.arange(len(numbers) + 1))
    for token, number in missing.items():
        held[token] = found[bounds[number] : bounds[number + 1]]


def _array(found: list[Any]) -> Array:
    # the rows' numbers in one flat run: half the time of np.array's walk over a list of tuples
    return np.fromiter(chain.from_iterable(found), np.int64, count=4 * len(found)).reshape(-1, 4)


def _read(conn: sqlite3.Connection, parts: Sequence[str], numbers: dict[tuple[str, str], int]) -> list[Any]:
    """(token number, rowid, offset, row length) of each instance of the tokens in the scopes' rows."""
    wanted = [
        x
        for part in parts
        for (column, token), number in numbers.items()
        for x in (scope_code(part) + token, column, number)
    ]
    # the wanted tokens first (CROSS JOIN keeps the order), so each is one lookup of its posting list; the
    # row's part keeps out a partition that shares a scope's code
    return conn.execute(
        f"WITH q (term, col, number) AS (VALUES {', '.join(['(?, ?, ?)'] * (len(wanted) // 3))})"
        " SELECT q.number, v.doc, v.offset, l.tokens FROM q CROSS JOIN memory_fts_instances v"
        " CROSS JOIN memory_fts_lengths l"
        f" WHERE v.term = q.term AND v.col = q.col AND l.rowid = v.doc AND l.part IN ({marks(len(parts))})",
        [*wanted, *parts],
    ).fetchall()


def _phrase_counts(keys: list[Array], n_docs: int) -> Array:
    """How often each row holds the tokens in order, one right after another, from each token's sorted
    (row · span + offset) keys."""
    start = keys[0]
    for step, following in enumerate(keys[1:], start=1):
        if not len(following) or not len(start):
            return np.zeros(n_docs, dtype=np.int64)
        wanted = start + step
        start = start[following[np.minimum(np.searchsorted(following, wanted), len(following) - 1)] == wanted]
    return np.bincount(start // _SPAN, minlength=n_docs)
