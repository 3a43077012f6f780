"""The embedded store's keyword index text: every token carries a code of its partition.

FTS5 keeps one posting list per token across the whole table and reads a query term's list in full
before it narrows to the scope's rows, so a term's cost followed the store, not the scope (issue 15:
33.8 ms at a 1,000-memory scope of a 1M store against 1.86 ms of a 10k store). Prefixing each token
with a short code of its partition (``bcdf…`` + ``word``) gives each scope its own posting lists, and
BM25 its document frequencies within the scope (N and the mean length stay the whole table's: FTS5's
``bm25()`` takes no others). Phrases still work: adjacent tokens carry one code.

The code is made of consonants other than w, x and y, so the porter stemmer sees the same measure
and vowels in a prefixed word as in the bare one. Two partitions may share a code (one in ~10¹² per
pair); the ``part`` column still filters every query, so a shared code costs speed, never scope.

Words are cut into the letter-and-digit runs unicode61 would make of them (``i'm`` → ``i``, ``m``),
so that each run gets the prefix, not only the first.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from functools import lru_cache
from itertools import pairwise

from huiyi.store.base import Terms
from huiyi.store.phrases import cjk_pairs

_ALPHABET = "bcdfghjklmnpqrstvz"
CODE_LENGTH = 10
_RUN = re.compile(r"[^\W_]+")


@lru_cache(maxsize=4096)
def scope_code(part: str) -> str:
    """The prefix of a partition's tokens, from its key (``p`` + hex digits).

    >>> scope_code("p00000000000000000000")
    'bbbbbbbbbb'
    """
    number = int(part[1:], 16)
    letters = []
    for _ in range(CODE_LENGTH):
        number, digit = divmod(number, len(_ALPHABET))
        letters.append(_ALPHABET[digit])
    return "".join(letters)


def scoped(code: str, text: str) -> str:
    """``text``'s runs, each prefixed with ``code``; runs already prefixed stay as they are, so
    converting a store twice changes nothing.

    >>> scoped("bbbbbbbbbb", "i'm going 去")
    'bbbbbbbbbbi bbbbbbbbbbm bbbbbbbbbbgoing bbbbbbbbbb去'
    """
    return " ".join(run if run.startswith(code) else code + run for run in _RUN.findall(text))


def scoped_for_part(part: str, text: str) -> str:
    """``scoped`` by partition key: the SQL function the migration converts old rows with."""
    return scoped(scope_code(part), text or "")


def match_query(parts: Sequence[str], query: Terms, *, part_clause: bool = True) -> str | None:
    """The FTS5 query over ``parts`` for ``query``'s terms, or None when nothing can match.

    Each term goes in once per partition, in that partition's code; adjacent query words and the
    CJK bigrams of each word go in as phrases too, so "support group" outscores "support" … "group"
    and 研究生 still finds 研究 + 生命 cut another way. Without ``part_clause`` the query leaves out
    ``part : (…)``: the caller then keeps to ``parts`` in SQL (the clause's column weighs 0 in bm25,
    so the scores are the same; merging its posting lists cost a tenth of the search).
    """
    words = [*query.words, *(f"{a} {b}" for a, b in pairwise(query.words))]
    chars = [*query.chars, *(f"{a} {b}" for a, b in cjk_pairs(query.words))]
    clauses = []
    for column, terms in (("words", words), ("chars", chars)):
        # repeats stay, as they always have: a word asked twice weighs twice in bm25()
        phrases = [p for part in parts for term in terms if (p := scoped(scope_code(part), term))]
        if phrases:
            clauses.append(f"{column} : (" + " OR ".join(_quote(p) for p in phrases) + ")")
    if not parts or not clauses:
        return None
    if not part_clause:
        return " OR ".join(clauses)
    return "part : (" + " OR ".join(parts) + ") AND (" + " OR ".join(clauses) + ")"


def _quote(term: str) -> str:
    """A term as an FTS5 string: in double quotes, its own double quotes doubled."""
    return '"' + term.replace('"', '""') + '"'
